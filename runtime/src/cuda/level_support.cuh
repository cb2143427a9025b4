#pragma once
// Internal (CUDA backend): device helpers both integral builders share (integral_histogram_kernels.cu,
// integral_image_kernels.cu): a level pixel resampled from its octave, and the scan down a column.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "cascadekit/features/pyramid.hpp"
#include "device_types.cuh"

namespace cascadekit::cuda {

// One pixel of a pyramid level: features' resample_bilinear() with the same 11-bit tables and
// rounding, so the level's bytes equal the CPU's.
__device__ __forceinline__ std::uint8_t resample_pixel(const std::uint8_t* __restrict__ gray, int gw, AxisEntry tx, AxisEntry ty) {
    constexpr std::uint32_t one = 1u << kResampleBits;
    const std::uint32_t wx = axis_wt(tx), wx0 = one - wx;
    const std::uint32_t b = axis_wt(ty), a = one - b;
    const int y0 = axis_i0(ty), x0 = axis_i0(tx), x1 = x0 + (wx != 0u ? 1 : 0);
    const std::uint8_t* r0 = gray + static_cast<std::size_t>(y0) * gw;
    const std::uint8_t* r1 = gray + static_cast<std::size_t>(y0 + (b != 0u ? 1 : 0)) * gw;
    const std::uint32_t top = r0[x0] * wx0 + r0[x1] * wx;
    const std::uint32_t bot = r1[x0] * wx0 + r1[x1] * wx;
    return static_cast<std::uint8_t>((top * a + bot * b + (1u << (2 * kResampleBits - 1))) >> (2 * kResampleBits));
}

// The same for the R, G and B bytes (0-2) of a word a pixel, each resampled alike.
__device__ __forceinline__ std::uint32_t resample_rgb(const std::uint32_t* __restrict__ rgba, int gw, AxisEntry tx, AxisEntry ty) {
    constexpr std::uint32_t one = 1u << kResampleBits;
    const std::uint32_t wx = axis_wt(tx), wx0 = one - wx;
    const std::uint32_t b = axis_wt(ty), a = one - b;
    const int y0 = axis_i0(ty), x0 = axis_i0(tx), x1 = x0 + (wx != 0u ? 1 : 0);
    const std::uint32_t* r0 = rgba + static_cast<std::size_t>(y0) * gw;
    const std::uint32_t* r1 = rgba + static_cast<std::size_t>(y0 + (b != 0u ? 1 : 0)) * gw;
    const std::uint32_t p00 = r0[x0], p01 = r0[x1], p10 = r1[x0], p11 = r1[x1];
    std::uint32_t out = 0;
#pragma unroll
    for (int c = 0; c < 3; ++c) {
        const int sh = 8 * c;
        const std::uint32_t top = ((p00 >> sh) & 0xFFu) * wx0 + ((p01 >> sh) & 0xFFu) * wx;
        const std::uint32_t bot = ((p10 >> sh) & 0xFFu) * wx0 + ((p11 >> sh) & 0xFFu) * wx;
        out |= ((top * a + bot * b + (1u << (2 * kResampleBits - 1))) >> (2 * kResampleBits)) << sh;
    }
    return out;
}

// Adds down one column of an integral plane whose rows 1..H hold row sums (row 0 is zero), so
// that it holds the full sums. Eight independent loads are in flight before the dependent adds.
// Modular arithmetic (uint32 lanes), as on the CPU.
template <class T, class Add>
__device__ __forceinline__ void scan_column(T* p, long long pitch, int H, Add add) {
    if (H < 2) return;
    T acc = p[pitch];
    int y = 2;
    for (; y + 7 <= H; y += 8) {
        T v[8];
#pragma unroll
        for (int j = 0; j < 8; ++j) v[j] = p[(y + j) * pitch];
#pragma unroll
        for (int j = 0; j < 8; ++j) {
            acc = add(acc, v[j]);
            p[(y + j) * pitch] = acc;
        }
    }
    for (; y <= H; ++y) {
        acc = add(acc, p[y * pitch]);
        p[y * pitch] = acc;
    }
}

}  // namespace cascadekit::cuda
