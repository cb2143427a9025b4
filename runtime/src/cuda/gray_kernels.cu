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
constexpr int kOctaveTile = 1 << (kFusedHalvings - 1);  // a block's octave-1 pixels a side (32)

struct OctaveArgs {
    long long at[kFusedHalvings + 1];
    int width[kFusedHalvings + 1], height[kFusedHalvings + 1];
    int halvings;  // octaves 1 .. halvings (at most kFusedHalvings)
};

__global__ void __launch_bounds__(kThreads) octaves_kernel(std::uint8_t* __restrict__ gray, OctaveArgs a, std::uint32_t* clear,
                                                           int clear_words) {
    if (blockIdx.x == 0 && blockIdx.y == 0)
        for (int i = static_cast<int>(threadIdx.x); i < clear_words; i += static_cast<int>(blockDim.x)) clear[i] = 0;
    // The tile's octaves 1, 2, ... one after the other: 32×32, 16×16, ..., 1×1 bytes.
    __shared__ std::uint8_t tile[(4 * kOctaveTile * kOctaveTile - 1) / 3];
    const std::uint8_t* prev = nullptr;
    int off = 0, shift = kFusedHalvings - 1;  // side = 1 << shift
    for (int k = 1; k <= a.halvings; ++k, --shift) {
        const int side = 1 << shift;
        std::uint8_t* cur = tile + off;
        const int w = a.width[k], h = a.height[k];
        const int u0 = static_cast<int>(blockIdx.x) << shift, v0 = static_cast<int>(blockIdx.y) << shift;
        for (int i = static_cast<int>(threadIdx.x); i < side * side; i += static_cast<int>(blockDim.x)) {
            const int x = i & (side - 1), y = i >> shift;
            const int u = u0 + x, v = v0 + y;
            // A pixel of this octave reads four of the one before, all inside the frame and
            // inside this block's tile of it (sizes halve by floor): in shared memory after octave 1.
            if (u >= w || v >= h) continue;
            unsigned sum;
            if (k == 1) {
                const std::uint8_t* r0 = gray + static_cast<std::size_t>(2 * v) * a.width[0] + 2 * u;
                const std::uint8_t* r1 = r0 + a.width[0];
                sum = r0[0] + r0[1] + r1[0] + r1[1];
            } else {
                const std::uint8_t* r0 = prev + (2 * y) * (2 * side) + 2 * x;
                const std::uint8_t* r1 = r0 + 2 * side;
                sum = r0[0] + r0[1] + r1[0] + r1[1];
            }
            const std::uint8_t value = static_cast<std::uint8_t>((sum + 2u) >> 2);
            cur[i] = value;
            gray[a.at[k] + static_cast<long long>(v) * w + u] = value;
        }
        __syncthreads();
        prev = cur;
        off += side * side;
    }
}
}  // namespace

void launch_octaves(std::uint8_t* gray, const GrayOctave* octaves, int n, std::uint32_t* clear, int clear_words, cudaStream_t stream) {
    if (n < 2) {  // no octave to build: the counters cleared alone
        if (clear_words > 0) CK(cudaMemsetAsync(clear, 0, static_cast<std::size_t>(clear_words) * sizeof(std::uint32_t), stream));
        return;
    }
    OctaveArgs a{};
    a.halvings = std::min(n - 1, kFusedHalvings);
    for (int k = 0; k <= a.halvings; ++k) {
        a.at[k] = octaves[k].at;
        a.width[k] = octaves[k].width;
        a.height[k] = octaves[k].height;
    }
    const dim3 grid(static_cast<unsigned>((octaves[1].width + kOctaveTile - 1) / kOctaveTile),
                    static_cast<unsigned>((octaves[1].height + kOctaveTile - 1) / kOctaveTile));
    // make_frame_plan lists octave k only for a level of scale >= 2^k, which holds a window, so
    // octave 1 has pixels and the grid blocks.
    octaves_kernel<<<grid, kThreads, 0, stream>>>(gray, a, clear, clear_words);
    CK_LAUNCH();
    for (int k = a.halvings + 1; k < n; ++k)
        launch_halve(gray + octaves[k - 1].at, octaves[k - 1].width, gray + octaves[k].at, octaves[k].width, octaves[k].height, stream);
}

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
