#pragma once
// Internal (CUDA backend): error checks, device and pinned buffers that only grow, launch sizes,
// and a guard that makes the detector's device current for one call.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <string>

#include "cascadekit/runtime/detector.hpp"

namespace cascadekit::cuda {

constexpr int kThreads = 256;  // threads per block of the element-wise and stage kernels
constexpr unsigned kFullMask = 0xffffffffu;

// Every CUDA error is a DeviceError: the device state may be lost, callers stop.
[[noreturn]] inline void fail(cudaError_t e, const char* what, const char* file, int line) {
    throw DeviceError(std::string("CUDA error in ") + what + " (" + file + ":" + std::to_string(line) + "): " +
                      cudaGetErrorName(e) + ": " + cudaGetErrorString(e));
}
#define CK(call)                                                                            \
    do {                                                                                    \
        const cudaError_t ck_err_ = (call);                                                 \
        if (ck_err_ != cudaSuccess) ::cascadekit::cuda::fail(ck_err_, #call, __FILE__, __LINE__); \
    } while (0)
#define CK_LAUNCH() CK(cudaGetLastError())  // after a kernel launch

inline int blocks_for(std::size_t n, int threads = kThreads) {
    return static_cast<int>(std::max<std::size_t>((n + threads - 1) / threads, 1));
}

// Device (cudaMalloc) or pinned host (cudaMallocHost) memory that only grows.
struct DeviceMemory {
    static cudaError_t alloc(void** p, std::size_t bytes) { return cudaMalloc(p, bytes); }
    static void release(void* p) { cudaFree(p); }
};
struct PinnedMemory {
    static cudaError_t alloc(void** p, std::size_t bytes) { return cudaMallocHost(p, bytes); }
    static void release(void* p) { cudaFreeHost(p); }
};
template <class T, class Memory>
struct Buffer {
    T* p = nullptr;
    std::size_t n = 0;
    Buffer() = default;
    Buffer(const Buffer&) = delete;
    Buffer& operator=(const Buffer&) = delete;
    ~Buffer() { Memory::release(p); }
    void reserve(std::size_t count) {
        if (count <= n) return;
        Memory::release(p);
        p = nullptr;
        n = 0;
        CK(Memory::alloc(reinterpret_cast<void**>(&p), std::max<std::size_t>(count, 1) * sizeof(T)));
        n = count;
    }
};
template <class T>
using DeviceBuffer = Buffer<T, DeviceMemory>;
template <class T>
using PinnedBuffer = Buffer<T, PinnedMemory>;

// Makes `device` current for the guard's lifetime and restores the caller's device after.
class DeviceGuard {
public:
    explicit DeviceGuard(int device) {
        CK(cudaGetDevice(&previous_));
        if (previous_ != device) CK(cudaSetDevice(device));
        else previous_ = -1;
    }
    ~DeviceGuard() {
        if (previous_ >= 0) cudaSetDevice(previous_);
    }
    DeviceGuard(const DeviceGuard&) = delete;
    DeviceGuard& operator=(const DeviceGuard&) = delete;

private:
    int previous_ = -1;
};

}  // namespace cascadekit::cuda
