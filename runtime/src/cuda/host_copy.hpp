#pragma once
// Internal (CUDA backend, host side): copying a frame into the slot's pinned staging buffer. Plain
// C++: built in every configuration, so that CPU-only builds test it (tests/runtime_test.cpp).
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>

#include "cascadekit/features/image.hpp"

namespace cascadekit::cuda {

// Copies `rows` rows of `row_bytes` bytes, `src_stride` bytes apart in src (negative: bottom-up), to dst back to back.
// Frames of 1 MiB and more are copied by bands of rows in parallel (TBB, the caller's arena): one
// core's memcpy into pinned memory took about as long as the whole GPU pipeline of a 1920×1080
// face frame at stride 2, and it lies on the path of every frame, latency and batched.
// Frames of 64 KiB and more are written with streaming (non-temporal) stores where the CPU has
// them (x86 SSE2): the DMA that uploads the staging buffer then reads memory, not lines left
// dirty in the caches of the cores that copied (the upload step took 0.22-0.51 ms for a 1920×1080
// RGB frame that way, about 0.13 ms now), and the copy does
// not read the buffer's lines in first.
void copy_rows(std::uint8_t* dst, const std::uint8_t* src, int rows, std::size_t row_bytes, std::ptrdiff_t src_stride);

// The frame in gray (to_gray's bytes: features' gray_rows), rows packed (image.width bytes
// apart), for models that read no colour (CudaOptions::host_gray): a third of the RGB bytes to
// upload, and no conversion kernel (a gray frame: copy_rows). Banded, and streamed, as copy_rows.
// Requires: validate(image).
void stage_gray(std::uint8_t* dst, const ImageView& image);

// memcpy(dst, src, n) with streaming stores for the 16-byte-aligned part of dst where the CPU has
// them, followed by a store fence; a plain memcpy elsewhere.
void stream_copy(std::uint8_t* dst, const std::uint8_t* src, std::size_t n);

// f(0), …, f(n − 1), in parallel (TBB, the caller's arena): a batch's host work frame by frame,
// from code that nvcc compiles.
void parallel_for_each(std::size_t n, const std::function<void(std::size_t)>& f);

// Tasks run by TBB's idle workers (the caller's arena) while the caller goes on, for code that
// nvcc compiles: detect_batch's host threads hand each frame read back to it to be put in the
// CPU's order, so that finishing the batch's frames overlaps its scanning. wait() runs what is
// left with the caller's thread too, waits for every task and rethrows the first exception one
// threw; the destructor waits (rethrowing nothing) where wait() was not called.
class TaskGroup {
public:
    TaskGroup();
    TaskGroup(const TaskGroup&) = delete;
    TaskGroup& operator=(const TaskGroup&) = delete;
    ~TaskGroup();
    void run(std::function<void()> task);
    void wait();

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace cascadekit::cuda
