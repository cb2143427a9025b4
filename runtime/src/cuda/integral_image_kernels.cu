#include "cuda_support.cuh"
#include "integral_histogram_kernels.cuh"  // kRowsPerBlock: both passes share the row blocks
#include "integral_image_kernels.cuh"
#include "level_support.cuh"

namespace cascadekit::cuda {

namespace {
constexpr int kGrayItems = 4, kGrayChunk = 32 * kGrayItems;  // a lane's pixels, a warp's per step

// A warp per level row (kRowsPerBlock warps a block): the row resampled and scanned kGrayChunk
// pixels at a time, the chunk's prefix by warp shuffles and its total carried on, so no block
// barrier waits on other rows and a narrow level leaves no more than a warp's lanes idle.
__global__ void __launch_bounds__(32 * kRowsPerBlock) gray_row_pass_kernel(const std::uint8_t* __restrict__ gray,
                                                                           const DevLevel* __restrict__ levels, int n_levels,
                                                                           const AxisEntry* __restrict__ xtab,
                                                                           const AxisEntry* __restrict__ ytab, std::uint32_t* I) {
    const int li = find_level(n_levels, blockIdx.x, [&](int l) { return static_cast<long long>(levels[l].row0); });
    const DevLevel L = levels[li];
    const int y = (static_cast<int>(blockIdx.x) - L.row0) * kRowsPerBlock + static_cast<int>(threadIdx.y);
    if (y >= L.height) return;  // the whole warp: nothing below waits on it
    const int W = L.width, lane = static_cast<int>(threadIdx.x);
    const std::uint8_t* src = gray + L.src;
    const AxisEntry ty = ytab[L.ytab + y];
    const AxisEntry* tx = xtab + L.xtab;
    std::uint32_t* row = I + L.ih + static_cast<long long>(y + 1) * L.pitch;
    if (lane == 0) row[0] = 0;
    std::uint32_t carry = 0;
    for (int x0 = lane * kGrayItems; x0 - lane * kGrayItems < W; x0 += kGrayChunk) {
        std::uint32_t run[kGrayItems];
        std::uint32_t local = 0;
#pragma unroll
        for (int j = 0; j < kGrayItems; ++j) {
            const int x = x0 + j;
            local += x < W ? resample_pixel(src, L.src_w, tx[x], ty) : 0u;
            run[j] = local;
        }
        std::uint32_t incl = local;
#pragma unroll
        for (int o = 1; o < 32; o <<= 1) {
            const std::uint32_t v = __shfl_up_sync(0xffffffffu, incl, o);
            if (lane >= o) incl += v;
        }
        const std::uint32_t before = carry + incl - local;
#pragma unroll
        for (int j = 0; j < kGrayItems; ++j)
            if (x0 + j < W) row[x0 + j + 1] = before + run[j];
        carry += __shfl_sync(0xffffffffu, incl, 31);
    }
}

constexpr int kBands = 8;

// Rows y0..y1 (inclusive) of one column: their sum, or (running) their prefix sums from `acc`.
template <bool Write>
__device__ __forceinline__ std::uint32_t walk_band(std::uint32_t* p, long long pitch, int y0, int y1, std::uint32_t acc) {
    int y = y0;
    for (; y + 7 <= y1; y += 8) {
        std::uint32_t v[8];
#pragma unroll
        for (int j = 0; j < 8; ++j) v[j] = p[(y + j) * pitch];
#pragma unroll
        for (int j = 0; j < 8; ++j) {
            acc += v[j];
            if (Write) p[(y + j) * pitch] = acc;
        }
    }
    for (; y <= y1; ++y) {
        acc += p[y * pitch];
        if (Write) p[y * pitch] = acc;
    }
    return acc;
}

__global__ void __launch_bounds__(32 * kBands) gray_column_pass_kernel(const DevLevel* __restrict__ levels, int n_levels,
                                                                       std::uint32_t* I) {
    __shared__ std::uint32_t band_sum[kBands][32];
    const int li = find_level(n_levels, blockIdx.x, [&](int l) { return static_cast<long long>(levels[l].strip0); });
    const DevLevel L = levels[li];
    const int x = 1 + (static_cast<int>(blockIdx.x) - L.strip0) * 32 + static_cast<int>(threadIdx.x);
    const bool active = x <= L.width;
    const int band = threadIdx.y, len = (L.height + kBands - 1) / kBands;
    const int y0 = 1 + band * len, y1 = min(L.height, (band + 1) * len);  // point rows 1..height
    std::uint32_t* p = I + L.ih + x;
    band_sum[band][threadIdx.x] = active ? walk_band<false>(p, L.pitch, y0, y1, 0u) : 0u;
    __syncthreads();
    std::uint32_t offset = 0;
    for (int b = 0; b < band; ++b) offset += band_sum[b][threadIdx.x];
    if (active) walk_band<true>(p, L.pitch, y0, y1, offset);
}
}  // namespace

void launch_gray_row_pass(const std::uint8_t* gray, const DevLevel* levels, int n_levels, const AxisEntry* xtab,
                          const AxisEntry* ytab, int total_row_blocks, std::uint32_t* I, cudaStream_t stream) {
    gray_row_pass_kernel<<<total_row_blocks, dim3(32, kRowsPerBlock), 0, stream>>>(gray, levels, n_levels, xtab, ytab, I);
    CK_LAUNCH();
}

void launch_gray_column_pass(const DevLevel* levels, int n_levels, int total_strips, std::uint32_t* I, cudaStream_t stream) {
    gray_column_pass_kernel<<<total_strips, dim3(32, kBands), 0, stream>>>(levels, n_levels, I);
    CK_LAUNCH();
}

}  // namespace cascadekit::cuda
