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
// P: the points' type, std::uint32_t, or std::uint16_t for the sums modulo 2^16 (the same
// uint32 arithmetic, each point stored truncated).
template <class P>
__global__ void __launch_bounds__(32 * kRowsPerBlock) gray_row_pass_kernel(const std::uint8_t* __restrict__ gray,
                                                                           const DevLevel* __restrict__ levels, int n_levels,
                                                                           const AxisEntry* __restrict__ xtab,
                                                                           const AxisEntry* __restrict__ ytab, P* I) {
    const int li = find_level(n_levels, blockIdx.x, [&](int l) { return static_cast<long long>(levels[l].row0); });
    const DevLevel L = levels[li];
    const int y = (static_cast<int>(blockIdx.x) - L.row0) * kRowsPerBlock + static_cast<int>(threadIdx.y);
    if (y >= L.height) return;  // the whole warp: nothing below waits on it
    const int W = L.width, lane = static_cast<int>(threadIdx.x);
    const std::uint8_t* src = gray + L.src;
    const AxisEntry ty = ytab[L.ytab + y];
    const AxisEntry* tx = xtab + L.xtab;
    P* row = I + L.ih + static_cast<long long>(y + 1) * L.pitch;
    if (lane == 0) row[0] = 0;
    std::uint32_t carry = 0;
    for (int chunk = 0; chunk < W; chunk += kGrayChunk) {  // the same trip count for every lane
        const int x0 = chunk + lane * kGrayItems;
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
            if (x0 + j < W) row[x0 + j + 1] = static_cast<P>(before + run[j]);
        carry += __shfl_sync(0xffffffffu, incl, 31);
    }
}

constexpr int kBands = 8, kBandRows = 8, kChunkRows = kBands * kBandRows;

// Down the columns in chunks of kChunkRows point rows: warp b holds rows b·kBandRows … of the
// chunk in registers, adds them up, the bands' totals are scanned in shared memory with the sum
// of every chunk above, and each warp writes its rows. Every point is read once and written once.
template <class P>
__global__ void __launch_bounds__(32 * kBands) gray_column_pass_kernel(const DevLevel* __restrict__ levels, int n_levels, P* I) {
    __shared__ std::uint32_t band_sum[kBands][32];
    const int li = find_level(n_levels, blockIdx.x, [&](int l) { return static_cast<long long>(levels[l].strip0); });
    const DevLevel L = levels[li];
    const int lane = static_cast<int>(threadIdx.x), band = static_cast<int>(threadIdx.y);
    const int x = 1 + (static_cast<int>(blockIdx.x) - L.strip0) * 32 + lane;
    const bool active = x <= L.width;
    P* p = I + L.ih + x;
    std::uint32_t carry = 0;  // column x's sum over the chunks above (modulo 2^32; P keeps its low bits)
    for (int y0 = 1; y0 <= L.height; y0 += kChunkRows) {  // point rows 1..height; the same for the whole block
        const int yb = y0 + band * kBandRows;
        std::uint32_t v[kBandRows];
#pragma unroll
        for (int j = 0; j < kBandRows; ++j) v[j] = active && yb + j <= L.height ? p[static_cast<long long>(yb + j) * L.pitch] : 0u;
#pragma unroll
        for (int j = 1; j < kBandRows; ++j) v[j] += v[j - 1];
        band_sum[band][lane] = v[kBandRows - 1];
        __syncthreads();
        std::uint32_t offset = carry;
#pragma unroll
        for (int b = 0; b < kBands; ++b) {
            const std::uint32_t t = band_sum[b][lane];
            offset += b < band ? t : 0u;
            carry += t;
        }
#pragma unroll
        for (int j = 0; j < kBandRows; ++j)
            if (active && yb + j <= L.height) p[static_cast<long long>(yb + j) * L.pitch] = static_cast<P>(v[j] + offset);
        __syncthreads();  // band_sum is rewritten by the next chunk
    }
}
}  // namespace

template <class P>
void launch_gray_row_pass(const std::uint8_t* gray, const DevLevel* levels, int n_levels, const AxisEntry* xtab,
                          const AxisEntry* ytab, int total_row_blocks, P* I, cudaStream_t stream) {
    gray_row_pass_kernel<P><<<total_row_blocks, dim3(32, kRowsPerBlock), 0, stream>>>(gray, levels, n_levels, xtab, ytab, I);
    CK_LAUNCH();
}
template void launch_gray_row_pass(const std::uint8_t*, const DevLevel*, int, const AxisEntry*, const AxisEntry*, int,
                                   std::uint32_t*, cudaStream_t);
template void launch_gray_row_pass(const std::uint8_t*, const DevLevel*, int, const AxisEntry*, const AxisEntry*, int,
                                   std::uint16_t*, cudaStream_t);

template <class P>
void launch_gray_column_pass(const DevLevel* levels, int n_levels, int total_strips, P* I, cudaStream_t stream) {
    gray_column_pass_kernel<P><<<total_strips, dim3(32, kBands), 0, stream>>>(levels, n_levels, I);
    CK_LAUNCH();
}
template void launch_gray_column_pass(const DevLevel*, int, int, std::uint32_t*, cudaStream_t);
template void launch_gray_column_pass(const DevLevel*, int, int, std::uint16_t*, cudaStream_t);

}  // namespace cascadekit::cuda
