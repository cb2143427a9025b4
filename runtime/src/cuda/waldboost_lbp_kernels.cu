// waldboost_lbp stages on the GPU (Šochman & Matas, CVPR 2005; Herout et al. 2011; Macenauer, Brno
// 2015): the running sum of LBP look-ups with early rejection after every weak classifier, as
// runtime/src/stages/waldboost_lbp.cpp does it on the CPU (same float additions in the same order,
// so decisions and scores are bit-identical). The sequence runs in parts: every window through the
// first weak classifiers, then the survivors, compacted at boundaries (CudaOptions::lbp_boundaries;
// Macenauer used 1, 8, 64, 256, 512), so that few threads idle while their warp's last window is
// still being evaluated. The frame's first part gives each thread several windows of a column
// (lbp_rows_kernel, CudaOptions::lbp_first_rows), or with CudaOptions::lbp_tiled runs tiled
// (lbp_tile_kernel: a block's windows read their integral-image patch from shared memory, and are
// compacted inside the block at CudaOptions::lbp_tile_cuts). Parts from CudaOptions::lbp_warp_from on run a warp per
// window: the few windows that get that far each take hundreds of weak classifiers, which one
// thread would look up one after another (1.2 ms for 1536 weak classifiers at 1920×1080).
#include <algorithm>
#include <string>
#include <vector>

#include "cascadekit/features/lbp.hpp"
#include "cascadekit/model/waldboost_lbp_stage.hpp"
#include "stage_kinds.cuh"
#include "survivors.cuh"

namespace cascadekit::cuda {

namespace {
// A weak classifier's cell grid (window pixels) and rejection threshold θ_B.
struct DevWeak {
    std::uint16_t x, y, w, h;
    float theta;
};

// One part's weak classifiers, passed as a kernel parameter: they live in the constant bank,
// and every thread of a warp reads the same record at the same time (a broadcast). Capacity
// classes keep the small early parts' launches light; the CUDA 12.1+ parameter limit is 32 764
// bytes. The 256-entry response tables (1 KiB a weak classifier) stay in global memory, where
// they are L2-resident (2 MiB for 2048 weak classifiers).
template <int Cap>
struct Part {
    int first;  // the stage's index of weak[0]
    int count;
    int last;   // 1 when the part ends the stage: then the final threshold decides
    float final_threshold;
    DevWeak weak[Cap];
};
constexpr int kSmallPart = 64, kLargePart = 2048;
static_assert(sizeof(Part<kLargePart>) + sizeof(SurvivorArgs) + 64 < 32764, "kernel parameters over the limit");

// The LBP code of a cell grid from its 16 corner points, read from integral images of points P:
// std::uint32_t, the CPU's images, or std::uint16_t, those images modulo 2^16
// (CudaOptions::gray_integral_16, only for cells of at most kLbpMod16CellPixels pixels, where
// lbp_code_of_corners_mod16 gives the exact code). Either way the CPU's code.
template <class P>
__device__ __forceinline__ std::uint8_t code_of_points(const std::uint32_t (&p)[4][4]) {
    static_assert(sizeof(P) == sizeof(std::uint32_t) || sizeof(P) == sizeof(std::uint16_t));
    if constexpr (sizeof(P) == sizeof(std::uint32_t)) return lbp_code_of_corners(p);
    else return lbp_code_of_corners_mod16(p);
}

// lbp_code with 32-bit offsets from the window's first point (a window's cells span a few hundred
// rows at most): one integer add per corner instead of 64-bit pointer arithmetic, which Nsight
// Compute showed as a third of a weak classifier's instructions. The same corners, so the same code.
template <class P>
__device__ __forceinline__ std::uint8_t lbp_code32(const P* o, int row_stride, int cx, int cy, int cw, int ch) {
    const int base = cy * row_stride + cx, rows = ch * row_stride;
    std::uint32_t p[4][4];
#pragma unroll
    for (int j = 0; j < 4; ++j)
#pragma unroll
        for (int i = 0; i < 4; ++i) p[j][i] = o[base + j * rows + i * cw];
    return code_of_points<P>(p);
}

// A window's first integral-image point in global memory, as a pointer the compiler keeps: left
// to itself it folds gray + origin into every corner's address, (origin + offset) · 4 + gray in
// 64-bit arithmetic, four instructions a corner where the pointer needs one (the PTX shows it).
// Used by lbp_part_kernel, the frame's first launches at stride 1: 5–6 % faster there on the H100.
// lbp_cut_kernel got 8 % slower with it, the warp parts no faster;
// nor is it for the tiled kernel's shared-memory patch, whose loads must stay shared-memory loads.
template <class P>
__device__ __forceinline__ const P* window_points(const P* gray, long long origin) {
    const P* o = gray + origin;
    asm("" : "+l"(o));
    return o;
}

// Weak classifiers [begin, end) of part p for one window whose integral-image points start at o
// (row_stride apart), its running sum in h: false (and the window recorded as rejected) at the
// first weak classifier where h falls below θ_B. The CPU's additions in the CPU's order.
// Loading two weak classifiers' corners and table entries before adding the first (so that a
// window waits on memory half as often) was measured slower: the part from 4 to 64 of the face
// sequence took 0.27 ms instead of 0.24.
template <class P>
__device__ __forceinline__ bool run_weak(const SurvivorArgs& a, std::uint32_t id, const P* o, int row_stride,
                                         const float* __restrict__ tables, const DevWeak* weak, int first, int begin, int end,
                                         float& h, std::uint32_t& evaluated) {
    for (int k = begin; k < end; ++k) {
        const DevWeak& c = weak[k];
        const std::uint8_t code = lbp_code32(o, row_stride, c.x, c.y, c.w, c.h);
        h += __ldg(tables + (static_cast<std::size_t>(first + k) << 8) + code);
        ++evaluated;
        if (h < c.theta) {
            record(a, id, h - c.theta, false);
            return false;
        }
    }
    return true;
}

// A window that passed the part's weak classifiers: the stage's final threshold decides where
// the part ends the stage (the window recorded), else its sum waits for the next part. Returns
// whether it goes on.
template <class P>
__device__ __forceinline__ bool end_part(const SurvivorArgs& a, const P& p, std::uint32_t id, float h) {
    if (!p.last) {
        a.stage_sum[id] = h;
        return true;
    }
    const float score = h - p.final_threshold;
    record(a, id, score, score >= 0.0f);
    return score >= 0.0f;
}

// Thread mapping: one thread per window (grid-stride over the survivors, a block of Threads at a
// time: CudaOptions::lbp_block_threads);
// appends the windows that survive the part (survivors.cuh) and counts the weak classifiers it
// evaluates.
template <int Cap, int Threads, class P>
__global__ void __launch_bounds__(Threads) lbp_part_kernel(SurvivorArgs a, const P* __restrict__ gray,
                                                             const float* __restrict__ tables, const __grid_constant__ Part<Cap> p) {
    const std::uint32_t count = a.in_count ? *a.in_count : a.n_windows;
    const std::uint32_t loop_n = a.flags ? a.n_windows : count;
    const std::uint32_t step = gridDim.x * blockDim.x;
    std::uint32_t evaluated = 0;  // over the loop, counted once at the end (the loop is block-uniform)
    for (std::uint32_t block_i = blockIdx.x * blockDim.x; block_i < loop_n; block_i += step) {
        const std::uint32_t i = block_i + threadIdx.x;
        bool pass = false;
        std::uint32_t id = 0;
        if (i < count) {
            id = a.in_ids ? a.in_ids[i] : i;
            long long origin;
            int pitch;
            window_origin(a, id, origin, pitch);
            float h = p.first == 0 ? 0.0f : a.stage_sum[id];
            pass = run_weak(a, id, window_points(gray, origin), pitch, tables, p.weak, p.first, 0, p.count, h, evaluated) && end_part(a, p, id, h);
        }
        append<Threads>(a, i, loop_n, id, pass);
    }
    count_weak(a, evaluated);
}

// In-block compaction points of a launch: after these weak classifiers of the part, ascending.
struct Cuts {
    int n = 0;
    int at[6] = {};
    // Adds the stage's weak-classifier count `cut` when it falls strictly inside the part
    // [first, first + count), after the last one and while there is room.
    void add(int cut, int first, int count) {
        const int c = cut - first;
        if (c > 0 && c < count && n < static_cast<int>(std::size(at)) && (n == 0 || c > at[n - 1])) at[n++] = c;
    }
};

constexpr int kTileThreads = kTileW * kTileH;
static_assert(kTileThreads == 256, "the in-block compaction assumes 8 warps");

// In-block compaction, in order (a ballot per warp, the warps' counts summed): the block's count of
// passing threads, and in `at` a passing thread's place among them. Synchronises the block; the
// caller writes its entry at `at`, then synchronises again before anyone reads the entries.
__device__ __forceinline__ int block_compact(bool pass, int& at, int* warp_n) {
    const int warp = static_cast<int>(threadIdx.x >> 5), lane = static_cast<int>(threadIdx.x & 31);
    const unsigned m = __ballot_sync(kFullMask, pass);
    if (lane == 0) warp_n[warp] = __popc(m);
    __syncthreads();
    int n = 0;
    at = 0;
    for (int w = 0; w < kTileThreads / 32; ++w) {
        at += w < warp ? warp_n[w] : 0;
        n += warp_n[w];
    }
    at += __popc(m & ((1u << lane) - 1u));
    return n;
}

// The window tile of block `tile` (DevLevel::tile0: the tiles of every level, level by level,
// row-major inside a level): its level and its column and row among that level's tiles.
struct TilePlace {
    const DevLevel* level;
    int tx, ty;
};
__device__ __forceinline__ TilePlace tile_place(const SurvivorArgs& a, int tile) {
    const int li = find_level(a.n_levels, tile, [&](int l) { return static_cast<long long>(a.levels[l].tile0); });
    const DevLevel* L = a.levels + li;
    const int tiles_x = (L->cols + kTileW - 1) / kTileW;
    const int ty = (tile - L->tile0) / tiles_x;
    return {L, tile - L->tile0 - ty * tiles_x, ty};
}

// The frame's first launch when it fits (CudaOptions::lbp_tiled): a block per kTileW × kTileH tile
// of neighbouring windows of one level, one thread each (threadIdx.x = row · kTileW + column).
// The block first copies the tile's patch of the level's integral image (every point its windows'
// cells can touch) to shared memory, so that a weak classifier's 16 look-ups are shared-memory
// reads, and at stride 1 a warp's 32 reads of one corner are 32 neighbouring words (no bank
// conflict). Between the in-block cuts (TileShape::cuts, CudaOptions::lbp_tile_cuts) the block's
// survivors are compacted in shared memory, in window order, so that the next weak classifiers
// keep all threads busy from the start of the list and neighbouring threads still read
// neighbouring windows. The codes, float additions and thresholds are those of lbp_part_kernel
// (the same integers in the patch), so every decision and score is the CPU's.
struct TileShape {
    int patch_w, patch_h;  // integral-image points per patch row, patch rows
    Cuts cuts;
};

template <int Cap, class P>
__global__ void __launch_bounds__(kTileThreads) lbp_tile_kernel(SurvivorArgs a, const P* __restrict__ gray,
                                                                const float* __restrict__ tables, TileShape t,
                                                                const __grid_constant__ Part<Cap> p) {
    extern __shared__ __align__(16) unsigned char patch_bytes[];
    P* const patch = reinterpret_cast<P*>(patch_bytes);
    __shared__ std::uint16_t list[kTileThreads];  // the surviving windows' tile positions, in order
    __shared__ float sums[kTileThreads];           // and their running sums
    __shared__ int warp_n[kTileThreads / 32];
    const TilePlace place = tile_place(a, static_cast<int>(blockIdx.x));
    const DevLevel& L = *place.level;
    const int tx = place.tx, ty = place.ty;
    const int x0 = tx * kTileW * a.stride, y0 = ty * kTileH * a.stride;  // the patch's first point
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    // The patch, a warp per row; points past the level's (width + 1) × (height + 1) are never read
    // by a window of the level (its cells lie inside it) and are left as they are.
    const int rows = min(t.patch_h, L.height + 1 - y0), cols = min(t.patch_w, L.width + 1 - x0);
    for (int r = warp; r < rows; r += kTileThreads / 32) {
        const P* src = gray + L.ih + static_cast<long long>(y0 + r) * L.pitch + x0;
        for (int c = lane; c < cols; c += 32) patch[r * t.patch_w + c] = __ldg(src + c);
    }
    __syncthreads();
    // Sub-part 0 over every window of the tile; later sub-parts over list[0, n).
    int n = kTileThreads;
    std::uint32_t evaluated = 0;
    bool pass = false;
    int pos = static_cast<int>(threadIdx.x);  // the window this thread holds (tile position)
    float h = 0.0f;
    {
        const int wx = tx * kTileW + lane, wy = ty * kTileH + warp;
        pass = wx < L.cols && wy < L.rows;
    }
    for (int cut = 0, begin = 0; cut <= t.cuts.n; ++cut) {
        const int end = cut < t.cuts.n ? t.cuts.at[cut] : p.count;
        if (cut > 0) {
            pass = static_cast<int>(threadIdx.x) < n;
            if (pass) {
                pos = list[threadIdx.x];
                h = sums[threadIdx.x];
            }
        }
        __syncthreads();  // every list entry read before the compaction below rewrites the list
        const int wx = tx * kTileW + (pos & (kTileW - 1)), wy = ty * kTileH + pos / kTileW;
        const std::uint32_t id = static_cast<std::uint32_t>(L.win0) + static_cast<std::uint32_t>(wy * L.cols + wx);
        if (pass) {
            const P* o = patch + (pos / kTileW) * a.stride * t.patch_w + (pos & (kTileW - 1)) * a.stride;
            pass = run_weak(a, id, o, t.patch_w, tables, p.weak, 0, begin, end, h, evaluated);
            if (!pass && a.flags) a.flags[id] = 0;
        }
        if (cut == t.cuts.n) {  // the part's end: record or keep the sum, then append
            if (pass) {
                pass = end_part(a, p, id, h);
                if (a.flags) a.flags[id] = pass ? 1 : 0;
            }
            count_weak(a, evaluated);
            if (!a.flags) append<kTileThreads>(a, 0, 0, id, pass);
            return;
        }
        int at;
        n = block_compact(pass, at, warp_n);
        if (pass) {
            list[at] = static_cast<std::uint16_t>(pos);
            sums[at] = h;
        }
        if (n == 0) {  // the whole tile rejected: every thread sees the same n
            count_weak(a, evaluated);
            return;
        }
        __syncthreads();  // the list is complete, and warp_n read by every thread before it is reused
        begin = end;
    }
}

// The frame's first launch where it is not tiled (CudaOptions::lbp_first_rows R > 0): a block per
// kTileW × kTileH tile of one level's windows (DevLevel::tile0, as the tiled launch), 256 / R
// threads, each thread R windows of one column, one above another. Nsight Compute had the
// thread-per-window kernel (lbp_part_kernel) at 409 instructions a warp for the first table over
// 12.2 M windows (200 µs, issue-bound): the window's level found by a binary search over 32 levels
// and its row by an integer division, for every window, and four barriers of block atomics. Here
// the level and the tile's place are found once a block, a weak classifier's 16 corner offsets
// once a thread, and one thread's R windows share them, with their 16·R loads in flight at once
// (the first weak classifier's for every window, also those of windows past the level's edge,
// which read the level's last window and are not used). The codes, float additions and
// thresholds are lbp_part_kernel's, so every decision and score is the CPU's.
template <int Threads, int R>
__device__ __forceinline__ void append_rows(const SurvivorArgs& a, std::uint32_t id0, std::uint32_t step, unsigned pass,
                                            unsigned valid) {
    if (a.flags) {  // CubSelect: input positions are ids in the first launch
#pragma unroll
        for (int r = 0; r < R; ++r)
            if (valid >> r & 1u) a.flags[id0 + r * step] = static_cast<std::uint8_t>(pass >> r & 1u);
        return;
    }
    const int lane = static_cast<int>(threadIdx.x & 31);
    const int c = __popc(pass);
    int x = c;  // inclusive scan of the warp's counts
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
        const int y = __shfl_up_sync(kFullMask, x, d);
        if (lane >= d) x += y;
    }
    std::uint32_t base = 0;
    if (Threads == 32 || !a.block_append) {  // one atomic a warp
        const int total = __shfl_sync(kFullMask, x, 31);
        if (lane == 31 && total > 0) base = atomicAdd(a.out_count, static_cast<std::uint32_t>(total));
        base = __shfl_sync(kFullMask, base, 31);
    } else {  // one atomic a block
        __shared__ std::uint32_t warp_at[Threads / 32 + 1];
        const int warp = static_cast<int>(threadIdx.x >> 5);
        if (lane == 31) warp_at[warp] = static_cast<std::uint32_t>(x);
        __syncthreads();
        if (threadIdx.x == 0) {
            std::uint32_t sum = 0;
            for (int w = 0; w < Threads / 32; ++w) {
                const std::uint32_t n = warp_at[w];
                warp_at[w] = sum;
                sum += n;
            }
            warp_at[Threads / 32] = sum > 0 ? atomicAdd(a.out_count, sum) : 0;
        }
        __syncthreads();
        base = warp_at[Threads / 32] + warp_at[warp];
    }
    std::uint32_t at = base + static_cast<std::uint32_t>(x - c);
#pragma unroll
    for (int r = 0; r < R; ++r)
        if (pass >> r & 1u) a.out_ids[at++] = id0 + r * step;
}

// The 16 corners of a weak classifier's cells for the window whose first point is o.
template <class P>
__device__ __forceinline__ std::uint8_t lbp_code_at(const P* __restrict__ o, const int (&row)[4], const int (&col)[4]) {
    std::uint32_t p[4][4];
#pragma unroll
    for (int j = 0; j < 4; ++j)
#pragma unroll
        for (int i = 0; i < 4; ++i) p[j][i] = __ldg(o + row[j] + col[i]);
    return code_of_points<P>(p);
}

template <int Cap, int R, class P>
__global__ void __launch_bounds__(kTileThreads / R) lbp_rows_kernel(SurvivorArgs a, const P* __restrict__ gray,
                                                                    const float* __restrict__ tables,
                                                                    const __grid_constant__ Part<Cap> p) {
    constexpr int kThreadsR = kTileThreads / R;
    const TilePlace place = tile_place(a, static_cast<int>(blockIdx.x));
    const DevLevel& L = *place.level;
    const int cols = L.cols, rows = L.rows, pitch = L.pitch;
    const int tx = place.tx, ty = place.ty;
    const int lane = static_cast<int>(threadIdx.x & 31);
    const int wx = tx * kTileW + lane, wy0 = ty * kTileH + static_cast<int>(threadIdx.x >> 5) * R;
    // Windows past the level's edge read its last column or row (valid points) and are not used.
    const int rx = min(wx, cols - 1);
    const P* o0 = gray + L.ih + static_cast<long long>(rx) * a.stride;
    const std::uint32_t id0 = static_cast<std::uint32_t>(L.win0) + static_cast<std::uint32_t>(wy0 * cols + wx);
    const std::uint32_t step = static_cast<std::uint32_t>(cols);
    unsigned valid = 0;
#pragma unroll
    for (int r = 0; r < R; ++r)
        if (wx < cols && wy0 + r < rows) valid |= 1u << r;
    const P* o[R];
#pragma unroll
    for (int r = 0; r < R; ++r) o[r] = o0 + static_cast<long long>(min(wy0 + r, rows - 1) * a.stride) * pitch;
    float h[R];
#pragma unroll
    for (int r = 0; r < R; ++r) h[r] = 0.0f;
    unsigned alive = valid;
    std::uint32_t evaluated = 0;
    for (int k = 0; k < p.count && alive; ++k) {
        const DevWeak& c = p.weak[k];
        int row[4], col[4];
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            row[j] = (c.y + j * c.h) * pitch;
            col[j] = c.x + j * c.w;
        }
        const float* t = tables + (static_cast<std::size_t>(k) << 8);
        std::uint8_t code[R];
        if (k == 0) {  // every window: all loads in flight at once
#pragma unroll
            for (int r = 0; r < R; ++r) code[r] = lbp_code_at(o[r], row, col);
        } else {
#pragma unroll
            for (int r = 0; r < R; ++r) code[r] = alive >> r & 1u ? lbp_code_at(o[r], row, col) : 0;
        }
#pragma unroll
        for (int r = 0; r < R; ++r) {
            if (!(alive >> r & 1u)) continue;
            h[r] += __ldg(t + code[r]);
            ++evaluated;
            if (h[r] < c.theta) {
                record(a, id0 + r * step, h[r] - c.theta, false);
                alive &= ~(1u << r);
            }
        }
    }
    unsigned pass = 0;
#pragma unroll
    for (int r = 0; r < R; ++r)
        if (alive >> r & 1u && end_part(a, p, id0 + r * step, h[r])) pass |= 1u << r;
    append_rows<kThreadsR, R>(a, id0, step, pass, valid);
    count_weak(a, evaluated);
}

// Untiled one-thread-per-window parts with in-block cuts (CudaOptions::lbp_part_cuts): a thread
// per window, as lbp_part_kernel, but at each cut the block's surviving windows are compacted in
// shared memory (in order, with their running sums and first points), so that the next weak
// classifiers run on full warps from the start of the block's list and the warps left without a
// window retire, where otherwise each warp would run as long as its last window. Thread mapping:
// a block of kTileThreads threads per kTileThreads survivors (grid-stride). Not with CubSelect
// (its flags follow input positions). The codes, additions and thresholds are lbp_part_kernel's.
template <int Cap, class P>
__global__ void __launch_bounds__(kTileThreads) lbp_cut_kernel(SurvivorArgs a, const P* __restrict__ gray,
                                                               const float* __restrict__ tables, Cuts t,
                                                               const __grid_constant__ Part<Cap> p) {
    __shared__ std::uint32_t ids[kTileThreads];
    __shared__ float sums[kTileThreads];
    __shared__ long long origins[kTileThreads];
    __shared__ int pitches[kTileThreads];
    __shared__ int warp_n[kTileThreads / 32];
    const std::uint32_t count = a.in_count ? *a.in_count : a.n_windows;
    const std::uint32_t step = gridDim.x * kTileThreads;
    std::uint32_t evaluated = 0;
    for (std::uint32_t block_i = blockIdx.x * kTileThreads; block_i < count; block_i += step) {  // block-uniform
        const std::uint32_t i = block_i + threadIdx.x;
        bool pass = i < count;
        std::uint32_t id = 0;
        long long origin = 0;
        int pitch = 0;
        float h = 0.0f;
        if (pass) {
            id = a.in_ids ? a.in_ids[i] : i;
            window_origin(a, id, origin, pitch);
            h = p.first == 0 ? 0.0f : a.stage_sum[id];
        }
        for (int cut = 0, begin = 0, n = kTileThreads; cut <= t.n; ++cut) {
            const int end = cut < t.n ? t.at[cut] : p.count;
            if (cut > 0) {
                pass = static_cast<int>(threadIdx.x) < n;
                if (pass) {
                    id = ids[threadIdx.x];
                    h = sums[threadIdx.x];
                    origin = origins[threadIdx.x];
                    pitch = pitches[threadIdx.x];
                }
                __syncthreads();  // every entry read before the compaction below rewrites them
            }
            if (pass) pass = run_weak(a, id, gray + origin, pitch, tables, p.weak, p.first, begin, end, h, evaluated);
            if (cut == t.n) {
                if (pass) pass = end_part(a, p, id, h);
                break;
            }
            int at;
            n = block_compact(pass, at, warp_n);
            if (pass) {
                ids[at] = id;
                sums[at] = h;
                origins[at] = origin;
                pitches[at] = pitch;
            }
            __syncthreads();  // the list is complete, and warp_n read by every thread before it is reused
            if (n == 0) {     // the same for every thread
                pass = false;
                break;
            }
            begin = end;
        }
        append<kTileThreads>(a, i, count, id, pass);
    }
    count_weak(a, evaluated);
}

// Late parts, few survivors with many weak classifiers each. Thread mapping: one warp per window
// (grid-stride over the survivors). The warp takes the sequence in rounds of 32, 64, 128, …
// weak classifiers, up to 32 · Round (Round: CudaOptions::lbp_warp_round look-ups a lane): each
// lane looks up its weak classifiers of the round at once, so that their loads overlap instead of
// queueing one after another, and leaves each response and θ_B in the warp's shared-memory rows.
// Then the warp adds the round's responses in weak-classifier order and compares the running sums
// with their thresholds (add_round), so the running sum, and the weak classifier at which it
// first falls below θ_B, are the CPU's. A warp's lanes hold the same sum, so they leave the loop
// together.
// Rounds grow so that a window rejected early pays for few look-ups, while one that runs the whole
// sequence waits on memory once a round instead of once per 32 weak classifiers. Lane 0 records
// the window and appends it (one atomicAdd a survivor).

// The warp kernel's part: its weak classifiers are read from the stage's records in global memory
// (each lane a different one, neighbouring lanes neighbouring records: one coalesced load), not
// from the constant bank, where 32 different records a warp are 32 serialised reads that miss its
// small cache.
struct PartHead {
    int first;  // the stage's index of the part's first weak classifier
    int count;
    int last;   // 1 when the part ends the stage
    float final_threshold;
};

// One round of the warp kernel (and, K = 1 with lane = thread, of the block kernel): lane l looks
// up weak classifiers first + 32·k + l (k < K, those
// below n) and leaves their responses and thresholds in the warp's rows. Written as separate
// passes over k (records, then codes, then tables) so that the K look-ups' loads are all in flight
// at once rather than one look-up's three dependent loads after another's.
template <int K, class P>
__device__ __forceinline__ void lookup_round(const DevWeak* __restrict__ weak, const float* __restrict__ tables,
                                             const P* o, int pitch, int first, int n, int lane, float* r_row,
                                             float* t_row) {
    DevWeak c[K];
#pragma unroll
    for (int k = 0; k < K; ++k) c[k] = weak[first + min(k * 32 + lane, n - 1)];  // past n: a valid record, unused
    std::uint8_t code[K];
#pragma unroll
    for (int k = 0; k < K; ++k) code[k] = lbp_code32(o, pitch, c[k].x, c[k].y, c[k].w, c[k].h);
    float r[K];
#pragma unroll
    for (int k = 0; k < K; ++k)
        r[k] = __ldg(tables + (static_cast<std::size_t>(first + min(k * 32 + lane, n - 1)) << 8) + code[k]);
#pragma unroll
    for (int k = 0; k < K; ++k)
        if (k * 32 + lane < n) {
            r_row[k * 32 + lane] = r[k];
            t_row[k * 32 + lane] = c[k].theta;
        }
}

// A window's way through one part of the warp or block kernel: its integral-image origin and row
// pitch, the running sum h (from stage_sum after the sequence's first part), the weak classifiers
// evaluated, and, once one rejects it, margin = h − θ_B there.
template <class P>
struct WindowRun {
    const P* o;
    int pitch;
    float h;
    int evaluated;
    bool rejected;
    float margin;
};

template <class P>
__device__ __forceinline__ WindowRun<P> start_window(const SurvivorArgs& a, const PartHead& p, const P* gray, std::uint32_t id) {
    long long origin;
    int pitch;
    window_origin(a, id, origin, pitch);
    return {gray + origin, pitch, p.first == 0 ? 0.0f : a.stage_sum[id], 0, false, 0.0f};
}

// Adds a round's n responses (r_row, 16-byte aligned) to the running sum h in weak-classifier
// order, stopping at the first sum that falls below its threshold (t_row): then run.rejected,
// run.h the sum there and run.margin = h − θ_B. Two passes over the rows, by one warp (lane: the
// thread's lane):
//   1. The running sums: the CPU's additions in its order, one after another (every lane does
//      the same additions, reading four responses at a time by broadcast, the next four loaded
//      before these are added); lane 0 writes them to s_row (16-byte aligned; not over the
//      responses, which the other lanes are still reading). Only the additions are in the chain.
//   2. The comparisons, 32 at a time: lane l compares sum j0 + l with its threshold, and a ballot
//      gives the first that falls below it (where the CPU rejects).
// Comparing each group of four sums, and selecting the sum, before adding the next group put
// the comparisons in the chain: the last launch of the face
// sequence (weak classifiers 64–2048) executed 171 M instructions a frame at stride 1; now 113 M,
// and 0.39–0.41 → 0.31–0.33 ms. A round's sums past a rejection are computed and not used; entries past n are read in pass 1 and not used.
template <class P>
__device__ __forceinline__ void add_round(const float* r_row, const float* t_row, float* s_row, int n, int lane, WindowRun<P>& run) {
    float h = run.h;
    float4 rv = *reinterpret_cast<const float4*>(r_row);
    for (int j = 0; j < n; j += 4) {
        const float4 r4 = rv;
        if (j + 4 < n) rv = *reinterpret_cast<const float4*>(r_row + j + 4);
        const float h1 = h + r4.x, h2 = h1 + r4.y, h3 = h2 + r4.z, h4 = h3 + r4.w;
        if (lane == 0) *reinterpret_cast<float4*>(s_row + j) = make_float4(h1, h2, h3, h4);
        h = h4;
    }
    __syncwarp();
    for (int j0 = 0; j0 < n; j0 += 32) {
        const int j = j0 + lane;
        const unsigned below = __ballot_sync(0xffffffffu, j < n && s_row[j] < t_row[j]);
        if (below) {
            const int at = j0 + __ffs(static_cast<int>(below)) - 1;
            run.h = s_row[at];
            run.margin = run.h - t_row[at];
            run.evaluated += at + 1;
            run.rejected = true;
            return;
        }
    }
    run.h = s_row[n - 1];
    run.evaluated += n;
}

// A window's part ends: lane or thread 0 counts its weak classifiers, records it and appends it
// when it goes on (the warp and block kernels).
template <class P>
__device__ __forceinline__ void finish_window(const SurvivorArgs& a, const PartHead& p, std::uint32_t w, std::uint32_t id,
                                              const WindowRun<P>& run) {
    atomicAdd(a.weak_count, static_cast<unsigned long long>(run.evaluated));
    bool pass = false;
    if (run.rejected) {
        record(a, id, run.margin, false);
    } else if (p.last) {
        const float score = run.h - p.final_threshold;
        pass = score >= 0.0f;
        record(a, id, score, pass);
    } else {
        a.stage_sum[id] = run.h;
        pass = true;
    }
    append_one(a, w, id, pass);
}

template <int Threads, int Round, class P>
__global__ void __launch_bounds__(Threads) lbp_part_warp_kernel(SurvivorArgs a, const P* __restrict__ gray,
                                                                  const float* __restrict__ tables,
                                                                  const DevWeak* __restrict__ weak, const PartHead p) {
    constexpr int kRow = 32 * Round;
    __shared__ __align__(16) float responses[Threads / 32][kRow];
    __shared__ __align__(16) float thetas[Threads / 32][kRow];
    __shared__ __align__(16) float sums[Threads / 32][kRow];
    const int lane = threadIdx.x & 31;
    float* const r_row = responses[threadIdx.x >> 5];
    float* const t_row = thetas[threadIdx.x >> 5];
    float* const s_row = sums[threadIdx.x >> 5];
    for_each_window_per_warp(a, [&](std::uint32_t w, std::uint32_t id) {
        WindowRun<P> run = start_window(a, p, gray, id);
        for (int c0 = 0, lanes_k = 1; c0 < p.count && !run.rejected; c0 += 32 * lanes_k, lanes_k = min(2 * lanes_k, Round)) {
            const int n = min(32 * lanes_k, p.count - c0);
            const int first = p.first + c0;
            if (Round == 1 || lanes_k == 1) lookup_round<1, P>(weak, tables, run.o, run.pitch, first, n, lane, r_row, t_row);
            else if (Round == 2 || lanes_k == 2) lookup_round<Round == 1 ? 1 : 2, P>(weak, tables, run.o, run.pitch, first, n, lane, r_row, t_row);
            else if (Round == 4 || lanes_k == 4) lookup_round<Round < 4 ? 1 : 4, P>(weak, tables, run.o, run.pitch, first, n, lane, r_row, t_row);
            else lookup_round<Round, P>(weak, tables, run.o, run.pitch, first, n, lane, r_row, t_row);
            __syncwarp();
            add_round(r_row, t_row, s_row, n, lane, run);
            __syncwarp();  // every lane has read the rows before the next round writes them
        }
        if (lane == 0) finish_window(a, p, w, id, run);
    });
}

// The last parts (CudaOptions::lbp_block_from): a few hundred windows that run up to thousands of
// weak classifiers each, so that a warp per window leaves most of the GPU idle while each lane
// looks up dozens of weak classifiers one round after another. Thread mapping: a block of
// kBlockWindowThreads threads per window (grid-stride over the survivors); rounds of 32, 64, …
// up to kBlockWindowThreads weak classifiers, one look-up a thread, responses and thresholds
// left in shared memory; warp 0 adds them in order (add_round, the warp kernel's additions), and
// the outcome is shared with the block before the next round.
constexpr int kBlockWindowThreads = 256;
template <class P>
__global__ void __launch_bounds__(kBlockWindowThreads) lbp_part_block_kernel(SurvivorArgs a, const P* __restrict__ gray,
                                                                             const float* __restrict__ tables,
                                                                             const DevWeak* __restrict__ weak, const PartHead p) {
    __shared__ __align__(16) float responses[kBlockWindowThreads];
    __shared__ __align__(16) float thetas[kBlockWindowThreads];
    __shared__ __align__(16) float sums[kBlockWindowThreads];
    __shared__ WindowRun<P> round_run;  // warp 0's outcome of a round, for the block
    const int t = static_cast<int>(threadIdx.x);
    const std::uint32_t count = a.in_count ? *a.in_count : a.n_windows;
    const std::uint32_t loop_n = a.flags ? a.n_windows : count;
    for (std::uint32_t w = blockIdx.x; w < loop_n; w += gridDim.x) {
        if (w >= count) {  // only reached with flags (loop_n > count)
            if (t == 0) a.flags[w] = 0;
            continue;
        }
        const std::uint32_t id = a.in_ids ? a.in_ids[w] : w;
        WindowRun<P> run = start_window(a, p, gray, id);
        for (int c0 = 0, size = 32; c0 < p.count && !run.rejected; c0 += size, size = min(2 * size, kBlockWindowThreads)) {
            const int n = min(size, p.count - c0);
            if (t < n) lookup_round<1, P>(weak, tables, run.o, run.pitch, p.first + c0, n, t, responses, thetas);
            __syncthreads();
            if (t < 32) {  // the whole warp, the same sum in every lane
                add_round(responses, thetas, sums, n, t, run);
                if (t == 0) round_run = run;
            }
            __syncthreads();  // the rows read before the next round writes them; the outcome written
            run = round_run;
            __syncthreads();  // the outcome read by every thread before warp 0 writes the next
        }
        if (t == 0) finish_window(a, p, w, id, run);
    }
}

class WaldBoostLbpCudaStage final : public CudaStage {
public:
    WaldBoostLbpCudaStage(const WaldBoostLbpStage& stage, const CudaOptions& options, const StageSetting& setting)
        : final_(stage.final_threshold), threads_(options.lbp_block_threads), warp_from_(options.lbp_warp_from),
          warp_round_(options.lbp_warp_round), block_from_(options.lbp_block_from),
          first_rows_(options.lbp_first_rows), gray16_(setting.gray16) {
        std::vector<float> tables;
        tables.reserve(stage.weak.size() * 256);
        for (const LbpWeakClassifier& c : stage.weak) {
            weak_.push_back({static_cast<std::uint16_t>(c.cell.x), static_cast<std::uint16_t>(c.cell.y),
                             static_cast<std::uint16_t>(c.cell.w), static_cast<std::uint16_t>(c.cell.h), c.reject_threshold});
            tables.insert(tables.end(), c.responses.begin(), c.responses.end());
        }
        tables_.reserve(tables.size());
        CK(cudaMemcpy(tables_.p, tables.data(), tables.size() * sizeof(float), cudaMemcpyHostToDevice));
        weak_dev_.reserve(weak_.size());
        CK(cudaMemcpy(weak_dev_.p, weak_.data(), weak_.size() * sizeof(DevWeak), cudaMemcpyHostToDevice));
        const int n = static_cast<int>(weak_.size());
        std::vector<int> cuts = options.lbp_boundaries;
        std::vector<int> tile_cuts = options.lbp_tile_cuts;
        std::sort(tile_cuts.begin(), tile_cuts.end());
        split(cuts, n);
        // The tiled first launch: the model's first stage, a stride it is used at, and a patch
        // that fits at that stride. Otherwise the in-block cuts become boundaries between launches.
        tiled_ = options.lbp_tiled && setting.index == 0 && setting.stride >= options.lbp_tiled_from_stride;
        if (tiled_) {
            const int count = ends_.front();
            int ext_x = 0, ext_y = 0;  // the farthest integral-image point a window's cells reach
            for (int k = 0; k < count; ++k) {
                const DevWeak& c = weak_[static_cast<std::size_t>(k)];
                ext_x = std::max(ext_x, c.x + 3 * c.w);
                ext_y = std::max(ext_y, c.y + 3 * c.h);
            }
            tile_.patch_w = (kTileW - 1) * setting.stride + ext_x + 1;
            tile_.patch_h = (kTileH - 1) * setting.stride + ext_y + 1;
            tile_bytes_ = static_cast<std::size_t>(tile_.patch_w) * static_cast<std::size_t>(tile_.patch_h) *
                          (gray16_ ? sizeof(std::uint16_t) : sizeof(std::uint32_t));
            tiled_ = tile_bytes_ <= kTileBytes;
            for (int cut : tile_cuts) tile_.cuts.add(cut, 0, count);
        }
        if (!tiled_ && !tile_cuts.empty()) {
            cuts.insert(cuts.end(), tile_cuts.begin(), tile_cuts.end());
            split(cuts, n);
        }
        // In-block cuts of the untiled one-thread-per-window parts (not with CubSelect).
        part_cuts_.assign(ends_.size(), Cuts{});
        if (options.compaction != Compaction::CubSelect) {
            std::vector<int> in_block = options.lbp_part_cuts;
            std::sort(in_block.begin(), in_block.end());
            for (std::size_t j = 0; j < ends_.size(); ++j) {
                const int first = j == 0 ? 0 : ends_[j - 1];
                for (int cut : in_block) part_cuts_[j].add(cut, first, ends_[j] - first);
            }
        }
    }
    std::uint32_t weak_per_window() const override { return 0; }  // counted on the device
    bool heavy() const override { return false; }
    int parts() const override { return static_cast<int>(ends_.size()); }
    std::uint32_t weak_after(int part) const override { return static_cast<std::uint32_t>(ends_[static_cast<std::size_t>(part)]); }
    void launch(const SurvivorArgs& s, const FrameFeatures& f, int part, int grid_limit, cudaStream_t stream) const override {
        if (gray16_) launch_from(s, f.gray16, part, grid_limit, stream);
        else launch_from(s, f.gray, part, grid_limit, stream);
    }

private:
    // The part's launch over gray integral images of points P (std::uint32_t, or std::uint16_t:
    // CudaOptions::gray_integral_16).
    template <class P>
    void launch_from(const SurvivorArgs& s, const P* gray, int part, int grid_limit, cudaStream_t stream) const {
        const int first = part == 0 ? 0 : ends_[static_cast<std::size_t>(part) - 1];
        const int count = ends_[static_cast<std::size_t>(part)] - first;
        const int last = part + 1 == parts() ? 1 : 0;
        if (tiled_ && first == 0 && !s.in_ids) {  // the frame's first launch, tiled
            if (count <= kSmallPart) launch_tile<kSmallPart>(s, gray, count, last, stream);
            else launch_tile<kLargePart>(s, gray, count, last, stream);
            return;
        }
        if (first_rows_ > 0 && first == 0 && !s.in_ids) {  // the frame's first launch, untiled
            if (count <= kSmallPart) launch_rows<kSmallPart>(s, gray, count, last, stream);
            else launch_rows<kLargePart>(s, gray, count, last, stream);
            return;
        }
        const Cuts& in_block = part_cuts_[static_cast<std::size_t>(part)];
        if (in_block.n > 0 && first < warp_from_ && first < block_from_) {
            if (count <= kSmallPart) launch_cut<kSmallPart>(s, gray, in_block, first, count, last, grid_limit, stream);
            else launch_cut<kLargePart>(s, gray, in_block, first, count, last, grid_limit, stream);
            return;
        }
        switch (threads_) {
            case 64: return launch_part<64>(s, gray, first, count, last, grid_limit, stream);
            case 128: return launch_part<128>(s, gray, first, count, last, grid_limit, stream);
            case 512: return launch_part<512>(s, gray, first, count, last, grid_limit, stream);
            default: return launch_part<256>(s, gray, first, count, last, grid_limit, stream);
        }
    }
    // Grid: every window for the frame's first launch; later launches (fewer survivors, their
    // count known only on the device) loop over them with a few waves of blocks.
    template <int Threads, class P>
    void launch_part(const SurvivorArgs& s, const P* gray, int first, int count, int last, int grid_limit,
                     cudaStream_t stream) const {
        if (first >= block_from_) {
            const int all = static_cast<int>(std::min<std::size_t>(s.n_windows, 0x7fffffff));
            const int grid = grid_limit > 0 ? std::min(all, grid_limit) : all;
            lbp_part_block_kernel<P><<<grid, kBlockWindowThreads, 0, stream>>>(s, gray, tables_.p, weak_dev_.p,
                                                                            PartHead{first, count, last, final_});
            CK_LAUNCH();
            return;
        }
        const bool warp = first >= warp_from_;
        const int all = blocks_for(static_cast<std::size_t>(s.n_windows) * (warp ? 32 : 1), Threads);
        const int grid = grid_limit > 0 ? std::min(all, grid_limit * kThreads / Threads) : all;
        if (count <= kSmallPart) launch_cap<kSmallPart, Threads>(s, gray, first, count, last, grid, warp, stream);
        else launch_cap<kLargePart, Threads>(s, gray, first, count, last, grid, warp, stream);
    }
    // The kernel parameter of weak classifiers [first, first + count), in a record of capacity Cap.
    template <int Cap>
    Part<Cap> part_record(int first, int count, int last) const {
        Part<Cap> p{};
        p.first = first;
        p.count = count;
        p.last = last;
        p.final_threshold = final_;
        std::copy(weak_.begin() + first, weak_.begin() + first + count, p.weak);
        return p;
    }
    template <int Cap, class P>
    void launch_cut(const SurvivorArgs& s, const P* gray, const Cuts& in_block, int first, int count, int last,
                    int grid_limit, cudaStream_t stream) const {
        const int all = blocks_for(s.n_windows, kTileThreads);
        const int grid = grid_limit > 0 ? std::min(all, grid_limit * kThreads / kTileThreads) : all;
        lbp_cut_kernel<Cap, P><<<grid, kTileThreads, 0, stream>>>(s, gray, tables_.p, in_block, part_record<Cap>(first, count, last));
        CK_LAUNCH();
    }
    template <int Cap, class P>
    void launch_tile(const SurvivorArgs& s, const P* gray, int count, int last, cudaStream_t stream) const {
        lbp_tile_kernel<Cap, P><<<s.n_tiles, kTileThreads, tile_bytes_, stream>>>(s, gray, tables_.p, tile_,
                                                                               part_record<Cap>(0, count, last));
        CK_LAUNCH();
    }
    template <int Cap, class P>
    void launch_rows(const SurvivorArgs& s, const P* gray, int count, int last, cudaStream_t stream) const {
        const Part<Cap> p = part_record<Cap>(0, count, last);
        switch (first_rows_) {
            case 1: lbp_rows_kernel<Cap, 1, P><<<s.n_tiles, kTileThreads, 0, stream>>>(s, gray, tables_.p, p); break;
            case 2: lbp_rows_kernel<Cap, 2, P><<<s.n_tiles, kTileThreads / 2, 0, stream>>>(s, gray, tables_.p, p); break;
            case 4: lbp_rows_kernel<Cap, 4, P><<<s.n_tiles, kTileThreads / 4, 0, stream>>>(s, gray, tables_.p, p); break;
            default: lbp_rows_kernel<Cap, 8, P><<<s.n_tiles, kTileThreads / 8, 0, stream>>>(s, gray, tables_.p, p); break;
        }
        CK_LAUNCH();
    }
    template <int Cap, int Threads, class P>
    void launch_cap(const SurvivorArgs& s, const P* gray, int first, int count, int last, int grid, bool warp,
                    cudaStream_t stream) const {
        if (warp) {
            const PartHead head{first, count, last, final_};
            // The smallest kernel that holds the part's largest round (rounds of 32, 64, 128, 256
            // weak classifiers end after 32, 96, 224, …): larger ones take more registers.
            const int reach = count <= 32 ? 1 : count <= 96 ? 2 : count <= 224 ? 4 : 8;
            switch (std::min(warp_round_, reach)) {
                case 1: lbp_part_warp_kernel<Threads, 1, P><<<grid, Threads, 0, stream>>>(s, gray, tables_.p, weak_dev_.p, head); break;
                case 2: lbp_part_warp_kernel<Threads, 2, P><<<grid, Threads, 0, stream>>>(s, gray, tables_.p, weak_dev_.p, head); break;
                case 4: lbp_part_warp_kernel<Threads, 4, P><<<grid, Threads, 0, stream>>>(s, gray, tables_.p, weak_dev_.p, head); break;
                default: lbp_part_warp_kernel<Threads, 8, P><<<grid, Threads, 0, stream>>>(s, gray, tables_.p, weak_dev_.p, head); break;
            }
        } else
            lbp_part_kernel<Cap, Threads, P><<<grid, Threads, 0, stream>>>(s, gray, tables_.p, part_record<Cap>(first, count, last));
        CK_LAUNCH();
    }

    // The tiled first launch's patch: at most the shared memory a block gets without opting in.
    static constexpr std::size_t kTileBytes = 48 * 1024;

    // Part ends: the boundaries inside the sequence, then its end; no part longer than kLargePart.
    void split(std::vector<int>& cuts, int n) {
        std::sort(cuts.begin(), cuts.end());
        ends_.clear();
        int begin = 0;
        for (int cut : cuts) {
            if (cut <= begin || cut >= n) continue;
            while (cut - begin > kLargePart) ends_.push_back(begin += kLargePart);
            ends_.push_back(begin = cut);
        }
        while (n - begin > kLargePart) ends_.push_back(begin += kLargePart);
        ends_.push_back(n);
    }

    float final_;
    int threads_, warp_from_, warp_round_, block_from_, first_rows_;
    bool gray16_;  // StageSetting::gray16: the frame's gray integral images modulo 2^16
    bool tiled_ = false;
    TileShape tile_{};
    std::size_t tile_bytes_ = 0;
    std::vector<DevWeak> weak_;
    DeviceBuffer<float> tables_;
    DeviceBuffer<DevWeak> weak_dev_;  // the records again, for the warp kernel's per-lane reads
    std::vector<int> ends_;  // the weak-classifier count at the end of each part
    std::vector<Cuts> part_cuts_;  // per part: its in-block cuts (CudaOptions::lbp_part_cuts), relative to the part
};

bool fits_records(const WaldBoostLbpStage& stage, std::string* why) {
    for (const LbpWeakClassifier& c : stage.weak)
        if (c.cell.x > 0xffff || c.cell.y > 0xffff || c.cell.w > 0xffff || c.cell.h > 0xffff) {
            if (why) *why = "an LBP cell lies beyond 65535 window pixels";
            return false;
        }
    return true;
}
}  // namespace

CudaStageKind waldboost_lbp_cuda_kind() {
    FeatureNeeds needs;
    needs.gray_integral = true;
    return {WaldBoostLbpStage::kKind, needs,
            [](const Stage& s, const CascadeModel&, const CudaOptions& o, const StageSetting& setting) -> std::unique_ptr<CudaStage> {
                const WaldBoostLbpStage& stage = s.as<WaldBoostLbpStage>();
                std::string why;
                if (!fits_records(stage, &why)) throw DetectError("the CUDA backend cannot run this waldboost_lbp stage: " + why);
                return std::make_unique<WaldBoostLbpCudaStage>(stage, o, setting);
            },
            [](const Stage& s) {  // every cell small enough for code_of_points<std::uint16_t>
                for (const LbpWeakClassifier& c : s.as<WaldBoostLbpStage>().weak)
                    if (static_cast<long long>(c.cell.w) * c.cell.h > kLbpMod16CellPixels) return false;
                return true;
            }};
}

}  // namespace cascadekit::cuda
