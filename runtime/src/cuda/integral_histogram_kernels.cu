#include <cub/block/block_scan.cuh>

#include <map>
#include <mutex>
#include <type_traits>

#include "cascadekit/features/gradient.hpp"
#include "cascadekit/features/pyramid.hpp"
#include "cuda_support.cuh"
#include "integral_histogram_kernels.cuh"
#include "level_support.cuh"

namespace cascadekit::cuda {

namespace {
struct Bins9 {
    std::uint32_t b[kOrientationBins];
};
__device__ __forceinline__ Bins9 operator+(const Bins9& x, const Bins9& y) {
    Bins9 r;
#pragma unroll
    for (int k = 0; k < kOrientationBins; ++k) r.b[k] = x.b[k] + y.b[k];
    return r;
}

__device__ __forceinline__ uint4 add4(uint4 a, uint4 b) { return make_uint4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w); }

// One pixel's votes into running bins: `low` to `bin` and, when Split, `high` to the next bin.
// Selects over the 9 bins rather than an indexed add, so the bins stay in registers.
template <bool Split>
__device__ __forceinline__ void add_vote(Bins9& bins, std::uint32_t bin, std::uint32_t low, std::uint32_t high) {
    const std::uint32_t next = next_bin(bin);
#pragma unroll
    for (int k = 0; k < kOrientationBins; ++k) {
        bins.b[k] += bin == static_cast<std::uint32_t>(k) ? low : 0u;
        if constexpr (Split) bins.b[k] += next == static_cast<std::uint32_t>(k) ? high : 0u;
    }
}

// Each pixel's gradient is gradient_entry() (features/gradient_entry.hpp), the CPU's one definition,
// compiled here: arithmetic rather than the CPU's 1 MiB table, whose gathers miss L1 and made this
// pass latency-bound.

// A block's level rows y0 − 1 … y0 + n_rows (clamped at the level's edges), resampled from the
// level's octave into shared memory, for the gradients of rows y0 … y0 + n_rows − 1, each gray
// level mapped through `gamma` (HogParams::gamma's table, gamma_table(); null: none); then a
// barrier. Every thread of the block calls it. Planes 1: `gray` octaves, a byte a pixel in
// `rows`; Planes 3 (HogParams::channels colour): `rgba` octaves (R, G, B in bytes 0-2 of a word),
// each channel resampled alike, a word a pixel in `rows` (one table look-up and four loads a
// pixel for all three).
template <int Planes>
__device__ __forceinline__ void load_level_rows(std::uint8_t* rows, const std::uint8_t* __restrict__ gray,
                                                const std::uint32_t* __restrict__ rgba, const DevLevel& L,
                                                const AxisEntry* __restrict__ xtab, const AxisEntry* __restrict__ ytab,
                                                int y0, int n_rows, const std::uint8_t* __restrict__ gamma) {
    __shared__ std::uint8_t lut[256];
    if (gamma) {
        for (int i = threadIdx.x; i < 256; i += blockDim.x) lut[i] = gamma[i];
        __syncthreads();
    }
    const int W = L.width, H = L.height;
    for (int r = 0; r < n_rows + 2; ++r) {
        const int yy = min(max(y0 - 1 + r, 0), H - 1);
        const AxisEntry ty = ytab[L.ytab + yy];
        for (int u = threadIdx.x; u < W; u += blockDim.x) {
            if constexpr (Planes == 1) {
                const std::uint8_t v = resample_pixel(gray + L.src, L.src_w, xtab[L.xtab + u], ty);
                rows[r * W + u] = gamma ? lut[v] : v;
            } else {
                std::uint32_t v = resample_rgb(rgba + L.src, L.src_w, xtab[L.xtab + u], ty);
                if (gamma) v = lut[v & 0xFFu] | (std::uint32_t(lut[(v >> 8) & 0xFFu]) << 8) | (std::uint32_t(lut[(v >> 16) & 0xFFu]) << 16);
                reinterpret_cast<std::uint32_t*>(rows)[r * W + u] = v;
            }
        }
    }
    __syncthreads();
}

// Pixel x's gradient of level row r (rows as load_level_rows leaves them): with 3 planes, the
// plane of largest gx² + gy², the first of R, G, B on ties (features' GradientSource).
template <int Planes>
__device__ __forceinline__ void level_gradient(const std::uint8_t* rows, int r, int W, int x, int& gx, int& gy) {
    if constexpr (Planes == 1) {
        const std::uint8_t* up = rows + r * W;  // level rows y-1, y, y+1 (clamped) of y = y0 + r
        const std::uint8_t* mid = up + W;
        const std::uint8_t* down = mid + W;
        gx = int(mid[min(x + 1, W - 1)]) - int(mid[max(x - 1, 0)]);
        gy = int(down[x]) - int(up[x]);
    } else {
        const std::uint32_t* up = reinterpret_cast<const std::uint32_t*>(rows) + r * W;
        const std::uint32_t* mid = up + W;
        const std::uint32_t* down = mid + W;
        const std::uint32_t right = mid[min(x + 1, W - 1)], left = mid[max(x - 1, 0)], below = down[x], above = up[x];
        int best = -1;
#pragma unroll
        for (int c = 0; c < 3; ++c) {
            const int cx = int((right >> (8 * c)) & 0xFFu) - int((left >> (8 * c)) & 0xFFu);
            const int cy = int((below >> (8 * c)) & 0xFFu) - int((above >> (8 * c)) & 0xFFu);
            const int m = cx * cx + cy * cy;
            if (m > best) best = m, gx = cx, gy = cy;
        }
    }
}

// One block per (level, 4 rows y0..y0+3) (G > 1: a G×G cell a thread instead, cell_rows): resample (from the level's octave) the level rows y0-1 .. y0+4 (clamped) into shared memory,
// bin every pixel's gradient, scan along the row and write integral-histogram row y+1 (row sums
// only; the column pass adds the rows above). Each thread takes kRowItems consecutive pixels of a
// tile: a serial prefix over them, one block-wide scan of the 9 bins per tile, then the writes
// (a warp writes 128 consecutive points: whole 16-byte sectors).
// Split: each pixel adds its lower part to its bin and its upper part to the next
// (OrientationVotes::Split); otherwise its magnitude to its bin.
constexpr int kRowThreads = 128, kRowItems = 4, kRowTile = kRowThreads * kRowItems;
using RowScan = cub::BlockScan<Bins9, kRowThreads>;

// A table row's point 0 (column 0 stays zero; the row's other points are written every frame).
__device__ __forceinline__ void zero_point(uint4* A, uint4* B, std::uint32_t* C, long long p) {
    A[p] = make_uint4(0, 0, 0, 0);
    B[p] = make_uint4(0, 0, 0, 0);
    C[p] = 0;
}

// Grid G > 1 (Engine::hog_grid, 2 or 4): the row pass on that grid. The same blocks (a level's
// kRowsPerBlock rows each, so kRowsPerBlock / G cell rows); a cell row past the level's last whole
// one is skipped. Each thread takes one cell of a tile of kRowThreads cells, adds its G × G pixels
// into its bins, and one block-wide scan of the tile gives the grid row's running sums, the point
// right of each cell written by its thread (a warp: 32 consecutive points). Pixels right of the
// last whole cell are in no cell. The same integers as the row pass at those points, since each
// point's sums are exact whatever the order.
template <bool Split, int Planes, int G>
__device__ __forceinline__ void cell_rows(const std::uint8_t* rows, const DevLevel& L, int y0, OrientationGeometry og,
                                          typename RowScan::TempStorage& scan_storage, uint4* A, uint4* B, std::uint32_t* C) {
    static_assert(kRowsPerBlock % G == 0, "a row block holds whole cell rows");
    const int W = L.width, cells = L.hog_pitch - 1;
    for (int k = 0; k < kRowsPerBlock / G; ++k) {
        const int cy = y0 / G + k;
        if (cy >= L.hog_rows) break;  // block-uniform
        const long long base = L.hog_ih + static_cast<long long>(cy + 1) * L.hog_pitch;
        if (threadIdx.x == 0) zero_point(A, B, C, base);
        Bins9 carry{};
        for (int tile = 0; tile < cells; tile += kRowThreads) {
            const int cx = tile + static_cast<int>(threadIdx.x);
            Bins9 local{};
            if (cx < cells) {
#pragma unroll
                for (int r = k * G; r < (k + 1) * G; ++r)
#pragma unroll
                    for (int j = 0; j < G; ++j) {
                        int gx, gy;
                        level_gradient<Planes>(rows, r, W, cx * G + j, gx, gy);
                        const std::uint32_t e = gradient_entry(gx, gy, Split, og);
                        const std::uint32_t high = Split ? entry_upper(e) : 0u;
                        add_vote<Split>(local, entry_bin(e), entry_magnitude(e) - high, high);
                    }
            }
            Bins9 run, total;
            RowScan(scan_storage).ExclusiveSum(local, run, total);
            run = run + carry + local;
            carry = carry + total;
            if (cx < cells) {
                const long long p = base + cx + 1;
                A[p] = make_uint4(run.b[0], run.b[1], run.b[2], run.b[3]);
                B[p] = make_uint4(run.b[4], run.b[5], run.b[6], run.b[7]);
                C[p] = run.b[8];
            }
            __syncthreads();  // scan_storage is reused by the next tile
        }
    }
}

template <bool Split, int Planes, int G>
__global__ void __launch_bounds__(kRowThreads) row_pass_kernel(const std::uint8_t* __restrict__ gray, const std::uint32_t* __restrict__ rgba,
                                                                const DevLevel* __restrict__ levels, int n_levels,
                                                                const AxisEntry* __restrict__ xtab,
                                                                const AxisEntry* __restrict__ ytab,
                                                                OrientationGeometry og, const std::uint8_t* __restrict__ gamma,
                                                                uint4* A, uint4* B, std::uint32_t* C) {
    extern __shared__ __align__(16) std::uint8_t rows[];  // kRowsPerBlock + 2 level rows (bytes or words)
    __shared__ typename RowScan::TempStorage scan_storage;
    const int li = find_level(n_levels, blockIdx.x, [&](int l) { return static_cast<long long>(levels[l].row0); });
    const DevLevel L = levels[li];
    const int y0 = (static_cast<int>(blockIdx.x) - L.row0) * kRowsPerBlock;
    const int W = L.width, H = L.height;
    if (G > 1 && y0 / G >= L.hog_rows) return;  // block-uniform: no whole cell row here
    const int n_rows = min(kRowsPerBlock, H - y0);
    load_level_rows<Planes>(rows, gray, rgba, L, xtab, ytab, y0, n_rows, gamma);
    if constexpr (G > 1) {
        cell_rows<Split, Planes, G>(rows, L, y0, og, scan_storage, A, B, C);
    } else {
        // A tile's row sums, 9 words a point plus one pad word every kRowItems points (bank spread).
        __shared__ std::uint32_t staged[kRowTile * kOrientationBins + kRowTile / kRowItems];
        for (int r = 0; r < n_rows; ++r) {
            const long long base = L.hog_ih + static_cast<long long>(y0 + r + 1) * L.hog_pitch;
            if (threadIdx.x == 0) zero_point(A, B, C, base);
            Bins9 carry{};
            for (int tile = 0; tile < W; tile += kRowTile) {
                const int x0 = tile + threadIdx.x * kRowItems;
                std::uint32_t bin[kRowItems], low[kRowItems], high[kRowItems];  // high: to bin + 1 (Split)
                Bins9 local{};
#pragma unroll
                for (int j = 0; j < kRowItems; ++j) {
                    const int x = x0 + j;
                    std::uint32_t e = 0;
                    if (x < W) {
                        int gx, gy;
                        level_gradient<Planes>(rows, r, W, x, gx, gy);
                        e = gradient_entry(gx, gy, Split, og);
                    }
                    bin[j] = entry_bin(e);
                    high[j] = Split ? entry_upper(e) : 0u;
                    low[j] = entry_magnitude(e) - high[j];
                    add_vote<Split>(local, bin[j], low[j], high[j]);
                }
                Bins9 run, total;
                RowScan(scan_storage).ExclusiveSum(local, run, total);
                run = run + carry;
                carry = carry + total;
                // Through shared memory, so that each store instruction of a warp writes 32 consecutive
                // points (a thread's own 4 points are 64 bytes apart per plane otherwise: half-sector
                // writes that made this pass L2-bound).
#pragma unroll
                for (int j = 0; j < kRowItems; ++j) {
                    add_vote<Split>(run, bin[j], low[j], high[j]);
                    const int q = threadIdx.x * kRowItems + j;
#pragma unroll
                    for (int k = 0; k < kOrientationBins; ++k) staged[q * kOrientationBins + q / kRowItems + k] = run.b[k];
                }
                __syncthreads();
#pragma unroll
                for (int j = 0; j < kRowItems; ++j) {
                    const int q = j * kRowThreads + threadIdx.x, x = tile + q;
                    if (x < W) {
                        const std::uint32_t* v = staged + q * kOrientationBins + q / kRowItems;
                        const long long p = base + x + 1;
                        A[p] = make_uint4(v[0], v[1], v[2], v[3]);
                        B[p] = make_uint4(v[4], v[5], v[6], v[7]);
                        C[p] = v[8];
                    }
                }
                __syncthreads();  // scan_storage and staged are reused by the next tile
            }
        }
    }
}

// Gradient planes: the row pass's rows and bins, written per pixel instead of scanned.
template <bool Split, int Planes>
__global__ void __launch_bounds__(kRowThreads) gradient_plane_kernel(const std::uint8_t* __restrict__ gray, const std::uint32_t* __restrict__ rgba,
                                                                      const DevLevel* __restrict__ levels, int n_levels,
                                                                      const AxisEntry* __restrict__ xtab,
                                                                      const AxisEntry* __restrict__ ytab,
                                                                      OrientationGeometry og,
                                                                      const std::uint8_t* __restrict__ gamma, std::uint32_t* G) {
    extern __shared__ __align__(16) std::uint8_t rows[];  // kRowsPerBlock + 2 level rows (bytes or words)
    const int li = find_level(n_levels, blockIdx.x, [&](int l) { return static_cast<long long>(levels[l].row0); });
    const DevLevel L = levels[li];
    const int y0 = (static_cast<int>(blockIdx.x) - L.row0) * kRowsPerBlock;
    const int W = L.width, H = L.height;
    const int n_rows = min(kRowsPerBlock, H - y0);
    load_level_rows<Planes>(rows, gray, rgba, L, xtab, ytab, y0, n_rows, gamma);
    for (int r = 0; r < n_rows; ++r) {
        std::uint32_t* out = G + L.px + static_cast<long long>(y0 + r) * W;
        for (int x = threadIdx.x; x < W; x += kRowThreads) {
            int gx, gy;
            level_gradient<Planes>(rows, r, W, x, gx, gy);
            out[x] = gradient_entry(gx, gy, Split, og);
        }
    }
}

// One thread per (plane, level, column x >= 1): accumulates down the column. Modular uint32
// addition, as on the CPU.
__global__ void __launch_bounds__(kThreads) column_pass_kernel(const DevLevel* __restrict__ levels, int n_levels,
                                                                int total_cols, uint4* A, uint4* B, std::uint32_t* C) {
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= 3 * total_cols) return;
    const int plane = t / total_cols, c = t - plane * total_cols;
    const int li = find_level(n_levels, c, [&](int l) { return static_cast<long long>(levels[l].hog_col0); });
    const DevLevel L = levels[li];
    const long long p0 = L.hog_ih + (c - L.hog_col0) + 1;
    if (plane == 0) scan_column(A + p0, L.hog_pitch, L.hog_rows, add4);
    else if (plane == 1) scan_column(B + p0, L.hog_pitch, L.hog_rows, add4);
    else scan_column(C + p0, L.hog_pitch, L.hog_rows, [](std::uint32_t a, std::uint32_t b) { return a + b; });
}

}  // namespace

namespace {
// The kernels' dynamic shared memory: kRowsPerBlock + 2 rows, a byte a pixel (gray) or a word (colour).
std::size_t row_pass_smem(int max_width, int planes) {
    return (kRowsPerBlock + 2) * static_cast<std::size_t>(max_width) * (planes == 3 ? 4u : 1u);
}
// Raises a kernel's dynamic shared memory limit to `smem` bytes: needed once its dynamic and
// static shared memory together pass 48 KiB (the row pass alone holds about 19 KiB of its own).
// Never lowers it, so a detector of smaller frames does not break one of larger frames. The
// limit is the current device's.
template <class Kernel>
void allow_smem(Kernel kernel, std::size_t smem) {
    static std::mutex m;
    static std::map<std::pair<int, const void*>, std::size_t> set;
    int device = 0;
    CK(cudaGetDevice(&device));
    std::lock_guard lock(m);
    std::size_t& current = set[{device, reinterpret_cast<const void*>(kernel)}];
    if (smem <= current) return;
    CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
    current = smem;
}
// Calls f(kernel, planes, split, grid) for every instantiation of the row pass.
template <class F>
void for_each_row_pass(F&& f) {
    auto planes = [&](auto split, auto grid) {
        f(row_pass_kernel<decltype(split)::value, 1, decltype(grid)::value>, 1, decltype(split)::value, decltype(grid)::value);
        f(row_pass_kernel<decltype(split)::value, 3, decltype(grid)::value>, 3, decltype(split)::value, decltype(grid)::value);
    };
    auto grids = [&](auto split) {
        planes(split, std::integral_constant<int, 1>{});
        planes(split, std::integral_constant<int, 2>{});
        planes(split, std::integral_constant<int, kRowsPerBlock>{});
    };
    grids(std::false_type{});
    grids(std::true_type{});
}
}  // namespace

void prepare_row_pass(int max_width) {
    const std::size_t gray = row_pass_smem(max_width, 1), colour = row_pass_smem(max_width, 3);
    for_each_row_pass([&](auto kernel, int planes, bool, int) { allow_smem(kernel, planes == 3 ? colour : gray); });
    allow_smem(gradient_plane_kernel<false, 1>, gray);
    allow_smem(gradient_plane_kernel<true, 1>, gray);
    allow_smem(gradient_plane_kernel<false, 3>, colour);
    allow_smem(gradient_plane_kernel<true, 3>, colour);
}

void launch_gradient_plane(const std::uint8_t* gray, const DevLevel* levels, int n_levels, const AxisEntry* xtab,
                           const AxisEntry* ytab, int total_row_blocks, int max_width, GradientSetting gradient, std::uint32_t* G,
                           cudaStream_t stream) {
    const int planes = gradient.rgba ? 3 : 1;
    auto kernel = gradient.split ? (planes == 3 ? gradient_plane_kernel<true, 3> : gradient_plane_kernel<true, 1>)
                                 : (planes == 3 ? gradient_plane_kernel<false, 3> : gradient_plane_kernel<false, 1>);
    kernel<<<total_row_blocks, kRowThreads, row_pass_smem(max_width, planes), stream>>>(
        gray, gradient.rgba, levels, n_levels, xtab, ytab, orientation_geometry(), gradient.gamma, G);
    CK_LAUNCH();
}

void launch_row_pass(const std::uint8_t* gray, const DevLevel* levels, int n_levels, const AxisEntry* xtab,
                     const AxisEntry* ytab, int total_row_blocks, int max_width, GradientSetting gradient, int grid, uint4* A,
                     uint4* B, std::uint32_t* C, cudaStream_t stream) {
    const int planes = gradient.rgba ? 3 : 1;
    if (grid != 1 && grid != 2 && grid != kRowsPerBlock)
        throw DetectError("the CUDA row pass builds integral histograms on a grid of 1, 2 or " + std::to_string(kRowsPerBlock) +
                          " pixels, not " + std::to_string(grid));
    decltype(&row_pass_kernel<false, 1, 1>) kernel = nullptr;
    for_each_row_pass([&](auto k, int p, bool split, int g) {
        if (p == planes && split == gradient.split && g == grid) kernel = k;
    });
    kernel<<<total_row_blocks, kRowThreads, row_pass_smem(max_width, planes), stream>>>(
        gray, gradient.rgba, levels, n_levels, xtab, ytab, orientation_geometry(), gradient.gamma, A, B, C);
    CK_LAUNCH();
}

void launch_column_pass(const DevLevel* levels, int n_levels, int total_cols, uint4* A, uint4* B, std::uint32_t* C,
                        cudaStream_t stream) {
    column_pass_kernel<<<blocks_for(3 * static_cast<std::size_t>(total_cols)), kThreads, 0, stream>>>(levels, n_levels,
                                                                                                     total_cols, A, B, C);
    CK_LAUNCH();
}

}  // namespace cascadekit::cuda
