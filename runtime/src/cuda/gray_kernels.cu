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

__global__ void planes_kernel(const std::uint8_t* __restrict__ in, std::uint8_t* __restrict__ planes, long long plane_stride,
                              int n, int channels, int bgr) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const std::uint8_t* p = in + static_cast<std::size_t>(i) * channels;
    const int r = channels == 1 ? 0 : (bgr ? 2 : 0), b = channels == 1 ? 0 : (bgr ? 0 : 2), g = channels == 1 ? 0 : 1;
    planes[i] = p[r];
    planes[plane_stride + i] = p[g];
    planes[2 * plane_stride + i] = p[b];
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

void launch_planes(const std::uint8_t* in, std::uint8_t* planes, long long plane_stride, int n_pixels, int channels, bool bgr,
                   cudaStream_t stream) {
    planes_kernel<<<blocks_for(static_cast<std::size_t>(n_pixels)), kThreads, 0, stream>>>(in, planes, plane_stride, n_pixels,
                                                                                           channels, bgr ? 1 : 0);
    CK_LAUNCH();
}

void launch_halve(const std::uint8_t* src, int src_width, std::uint8_t* dst, int dst_width, int dst_height,
                  cudaStream_t stream) {
    halve_kernel<<<blocks_for(static_cast<std::size_t>(dst_width) * dst_height), kThreads, 0, stream>>>(
        src, src_width, dst, dst_width, dst_height);
    CK_LAUNCH();
}

}  // namespace cascadekit::cuda
