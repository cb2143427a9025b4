#include "cascadekit/features/image.hpp"
#include "cuda_support.cuh"
#include "gray_kernels.cuh"

namespace cascadekit::cuda {

namespace {
__global__ void gray_kernel(const std::uint8_t* __restrict__ in, std::uint8_t* __restrict__ gray, int n, int channels,
                            int bgr) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    if (channels == 1) {
        gray[i] = in[i];
        return;
    }
    const std::uint8_t* p = in + static_cast<std::size_t>(i) * channels;
    const std::uint32_t r = bgr ? p[2] : p[0], b = bgr ? p[0] : p[2];
    gray[i] = static_cast<std::uint8_t>((kLumaR * r + kLumaG * p[1] + kLumaB * b + kLumaHalf) >> kLumaShift);
}

__global__ void rgba_kernel(const std::uint8_t* __restrict__ in, std::uint32_t* __restrict__ rgba, int n, int channels, int bgr) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const std::uint8_t* p = in + static_cast<std::size_t>(i) * channels;
    const int r = channels == 1 ? 0 : (bgr ? 2 : 0), b = channels == 1 ? 0 : (bgr ? 0 : 2), g = channels == 1 ? 0 : 1;
    rgba[i] = std::uint32_t(p[r]) | (std::uint32_t(p[g]) << 8) | (std::uint32_t(p[b]) << 16);
}

__global__ void halve_rgba_kernel(const std::uint32_t* __restrict__ src, int sw, std::uint32_t* __restrict__ dst, int dw, int dh) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= dw * dh) return;
    const int v = i / dw, u = i - v * dw;
    const std::uint32_t* r0 = src + static_cast<std::size_t>(2 * v) * sw + 2 * u;
    const std::uint32_t* r1 = r0 + sw;
    const std::uint32_t a = r0[0], b = r0[1], c = r1[0], d = r1[1];
    std::uint32_t out = 0;
#pragma unroll
    for (int k = 0; k < 3; ++k) {
        const int sh = 8 * k;
        out |= ((((a >> sh) & 0xFFu) + ((b >> sh) & 0xFFu) + ((c >> sh) & 0xFFu) + ((d >> sh) & 0xFFu) + 2u) >> 2) << sh;
    }
    dst[i] = out;
}

__global__ void halve_kernel(const std::uint8_t* __restrict__ src, int sw, std::uint8_t* __restrict__ dst, int dw, int dh) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= dw * dh) return;
    const int v = i / dw, u = i - v * dw;
    const std::uint8_t* r0 = src + static_cast<std::size_t>(2 * v) * sw + 2 * u;
    const std::uint8_t* r1 = r0 + sw;
    dst[i] = static_cast<std::uint8_t>((r0[0] + r0[1] + r1[0] + r1[1] + 2u) >> 2);
}
}  // namespace

void launch_gray(const std::uint8_t* in, std::uint8_t* gray, int n_pixels, int channels, bool bgr, cudaStream_t stream) {
    gray_kernel<<<blocks_for(static_cast<std::size_t>(n_pixels)), kThreads, 0, stream>>>(in, gray, n_pixels, channels,
                                                                                         bgr ? 1 : 0);
    CK_LAUNCH();
}

void launch_rgba(const std::uint8_t* in, std::uint32_t* rgba, int n_pixels, int channels, bool bgr, cudaStream_t stream) {
    rgba_kernel<<<blocks_for(static_cast<std::size_t>(n_pixels)), kThreads, 0, stream>>>(in, rgba, n_pixels, channels, bgr ? 1 : 0);
    CK_LAUNCH();
}

void launch_halve_rgba(const std::uint32_t* src, int src_width, std::uint32_t* dst, int dst_width, int dst_height,
                       cudaStream_t stream) {
    halve_rgba_kernel<<<blocks_for(static_cast<std::size_t>(dst_width) * dst_height), kThreads, 0, stream>>>(
        src, src_width, dst, dst_width, dst_height);
    CK_LAUNCH();
}

void launch_halve(const std::uint8_t* src, int src_width, std::uint8_t* dst, int dst_width, int dst_height,
                  cudaStream_t stream) {
    halve_kernel<<<blocks_for(static_cast<std::size_t>(dst_width) * dst_height), kThreads, 0, stream>>>(
        src, src_width, dst, dst_width, dst_height);
    CK_LAUNCH();
}

}  // namespace cascadekit::cuda
