// The CUDA backend: see cuda_detector.hpp for the pipeline. Compiled with --fmad=false so that
// block_math's arithmetic rounds exactly as on the CPU.
#include "cascadekit/runtime/cuda_detector.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>
#include <cub/block/block_scan.cuh>
#include <cub/device/device_select.cuh>
#include <string>
#include <thrust/iterator/counting_iterator.h>
#include <vector>

#include "cascadekit/features/block_math.hpp"
#include "cascadekit/features/gradient.hpp"
#include "cascadekit/features/pyramid.hpp"

namespace cascadekit {

namespace {

[[noreturn]] void cuda_fail(cudaError_t e, const char* what, const char* file, int line) {
    throw DetectError(std::string("CUDA error in ") + what + " (" + file + ":" + std::to_string(line) +
                      "): " + cudaGetErrorName(e) + ": " + cudaGetErrorString(e));
}
#define CK(call)                                                       \
    do {                                                               \
        const cudaError_t ck_err_ = (call);                            \
        if (ck_err_ != cudaSuccess) cuda_fail(ck_err_, #call, __FILE__, __LINE__); \
    } while (0)
#define CK_LAUNCH() CK(cudaGetLastError())  // after a kernel launch

constexpr int kThreads = 256;
constexpr std::uint32_t kFullMask = 0xffffffffu;
// Accepted windows copied back inside the graph; more are fetched after it (rare).
constexpr std::uint32_t kOutInGraph = 4096;

// ---------------------------------------------------------------------------------------------
// Device data
// ---------------------------------------------------------------------------------------------
struct DevLevel {
    int width, height;  // level pixels
    long long src;      // first pixel of the octave image it is resampled from (in the gray buffer)
    int src_w;          // that octave's width
    int pitch;          // integral-histogram points per row (width + 1)
    int cols, rows;     // windows
    int xtab, ytab;     // first entry of this level's resampling tables
    int row0;           // first row block of the row pass (kRowsPerBlock rows each)
    int col0;           // first global column (column pass threads)
    long long ih;       // first point of this level's integral histogram
    long long win0;     // first window id
};

struct AxisEntry {
    int i0, i1, wt;
};

struct DevLearner {
    int bx, by, bw, bh;
    float w[kBlockDims];
    float bias, alpha;
};

struct DevStage {
    int first, count;  // learners
    float threshold;
    int binary;
};

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

// Largest i in [0, n) with key(i) <= value (key(0) == 0 <= value always).
template <class Key>
__device__ __forceinline__ int find_level(int n, long long value, Key key) {
    int lo = 0, hi = n - 1;
    while (lo < hi) {
        const int mid = (lo + hi + 1) / 2;
        if (key(mid) <= value) lo = mid; else hi = mid - 1;
    }
    return lo;
}

// ---------------------------------------------------------------------------------------------
// Kernels
// ---------------------------------------------------------------------------------------------
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

// Octave k+1 from octave k: 2×2 box average, rounded, floor sizes (features' halve()).
__global__ void halve_kernel(const std::uint8_t* __restrict__ src, int sw, std::uint8_t* __restrict__ dst, int dw, int dh) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= dw * dh) return;
    const int v = i / dw, u = i - v * dw;
    const std::uint8_t* r0 = src + static_cast<std::size_t>(2 * v) * sw + 2 * u;
    const std::uint8_t* r1 = r0 + sw;
    dst[i] = static_cast<std::uint8_t>((r0[0] + r0[1] + r1[0] + r1[1] + 2u) >> 2);
}

__device__ __forceinline__ std::uint8_t resample_pixel(const std::uint8_t* __restrict__ gray, int gw, AxisEntry tx, AxisEntry ty) {
    constexpr std::uint32_t one = 1u << kResampleBits;
    const std::uint8_t* r0 = gray + static_cast<std::size_t>(ty.i0) * gw;
    const std::uint8_t* r1 = gray + static_cast<std::size_t>(ty.i1) * gw;
    const std::uint32_t wx = static_cast<std::uint32_t>(tx.wt), wx0 = one - wx;
    const std::uint32_t b = static_cast<std::uint32_t>(ty.wt), a = one - b;
    const std::uint32_t top = r0[tx.i0] * wx0 + r0[tx.i1] * wx;
    const std::uint32_t bot = r1[tx.i0] * wx0 + r1[tx.i1] * wx;
    return static_cast<std::uint8_t>((top * a + bot * b + (1u << (2 * kResampleBits - 1))) >> (2 * kResampleBits));
}

// orientation_bin() and quantised_magnitude() of features/gradient.cpp, operation for operation in
// double (no fused multiply-add under --fmad=false; sqrt correctly rounded on both), so the bins
// and magnitudes equal the CPU's gradient table. Arithmetic rather than the 1 MiB table: the
// table's gathers miss L1 and made this pass latency-bound.
__device__ __forceinline__ void bin_and_magnitude(int gx, int gy, const OrientationBoundaries& ob, std::uint32_t& bin,
                                                  std::uint32_t& mag) {
    const double v = static_cast<double>(gx * gx + gy * gy) * (kMagnitudeScale * kMagnitudeScale);
    mag = static_cast<std::uint32_t>(floor(__dsqrt_rn(v) + 0.5));  // llround of a positive value
    if (gx == 0 && gy == 0) {
        bin = 0;
        return;
    }
    if (gy < 0 || (gy == 0 && gx < 0)) {
        gx = -gx;
        gy = -gy;
    }
    std::uint32_t b = 0;
#pragma unroll
    for (int k = 0; k < 8; ++k) b += (__dsub_rn(__dmul_rn(gy, ob.c[k]), __dmul_rn(gx, ob.s[k])) >= 0.0) ? 1u : 0u;
    bin = b;
}

// One block per (level, 4 rows y0..y0+3): resample (from the level's octave) the level rows y0-1 .. y0+4 (clamped) into shared memory,
// bin every pixel's gradient, scan along the row and write integral-histogram row y+1 (row sums
// only; the column pass adds the rows above). Each thread takes kRowItems consecutive pixels of a
// tile: a serial prefix over them, one block-wide scan of the 9 bins per tile, then the writes
// (a warp writes 128 consecutive points: whole 16-byte sectors).
constexpr int kRowThreads = 128, kRowItems = 4, kRowTile = kRowThreads * kRowItems, kRowsPerBlock = 4;
__global__ void __launch_bounds__(kRowThreads) row_pass_kernel(const std::uint8_t* __restrict__ gray,
                                                                const DevLevel* __restrict__ levels, int n_levels,
                                                                const AxisEntry* __restrict__ xtab,
                                                                const AxisEntry* __restrict__ ytab,
                                                                OrientationBoundaries ob, uint4* A, uint4* B,
                                                                std::uint32_t* C) {
    extern __shared__ std::uint8_t rows[];  // kRowsPerBlock + 2 level rows
    using Scan = cub::BlockScan<Bins9, kRowThreads>;
    __shared__ typename Scan::TempStorage scan_storage;
    // A tile's row sums, 9 words a point plus one pad word every kRowItems points (bank spread).
    __shared__ std::uint32_t staged[kRowTile * kOrientationBins + kRowTile / kRowItems];
    const int li = find_level(n_levels, blockIdx.x, [&](int l) { return static_cast<long long>(levels[l].row0); });
    const DevLevel L = levels[li];
    const int y0 = (static_cast<int>(blockIdx.x) - L.row0) * kRowsPerBlock;
    const int W = L.width, H = L.height;
    const int n_rows = min(kRowsPerBlock, H - y0);
    for (int r = 0; r < n_rows + 2; ++r) {
        const int yy = min(max(y0 - 1 + r, 0), H - 1);
        const AxisEntry ty = ytab[L.ytab + yy];
        for (int u = threadIdx.x; u < W; u += kRowThreads) rows[r * W + u] = resample_pixel(gray + L.src, L.src_w, xtab[L.xtab + u], ty);
    }
    __syncthreads();
    for (int r = 0; r < n_rows; ++r) {
        const std::uint8_t* up = rows + r * W;  // level rows y-1, y, y+1 (clamped) of y = y0 + r
        const std::uint8_t* mid = up + W;
        const std::uint8_t* down = mid + W;
        const long long base = L.ih + static_cast<long long>(y0 + r + 1) * L.pitch;
        if (threadIdx.x == 0) {
            A[base] = make_uint4(0, 0, 0, 0);
            B[base] = make_uint4(0, 0, 0, 0);
            C[base] = 0;
        }
        Bins9 carry{};
        for (int tile = 0; tile < W; tile += kRowTile) {
            const int x0 = tile + threadIdx.x * kRowItems;
            std::uint32_t bin[kRowItems], mag[kRowItems];
            Bins9 local{};
#pragma unroll
            for (int j = 0; j < kRowItems; ++j) {
                const int x = x0 + j;
                bin[j] = 0;
                mag[j] = 0;
                if (x < W) {
                    const int gx = int(mid[min(x + 1, W - 1)]) - int(mid[max(x - 1, 0)]);
                    const int gy = int(down[x]) - int(up[x]);
                    bin_and_magnitude(gx, gy, ob, bin[j], mag[j]);
                }
#pragma unroll
                for (int k = 0; k < kOrientationBins; ++k) local.b[k] += bin[j] == static_cast<std::uint32_t>(k) ? mag[j] : 0u;
            }
            Bins9 run, total;
            Scan(scan_storage).ExclusiveSum(local, run, total);
            run = run + carry;
            carry = carry + total;
            // Through shared memory, so that each store instruction of a warp writes 32 consecutive
            // points (a thread's own 4 points are 64 bytes apart per plane otherwise: half-sector
            // writes that made this pass L2-bound).
#pragma unroll
            for (int j = 0; j < kRowItems; ++j) {
#pragma unroll
                for (int k = 0; k < kOrientationBins; ++k) {
                    run.b[k] += bin[j] == static_cast<std::uint32_t>(k) ? mag[j] : 0u;
                    const int q = threadIdx.x * kRowItems + j;
                    staged[q * kOrientationBins + q / kRowItems + k] = run.b[k];
                }
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

template <class T, class Add>
__device__ __forceinline__ void scan_column(T* p, long long pitch, int H, Add add) {
    // Rows 1..H; row 0 is zero. Eight independent loads are in flight before the dependent adds.
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

// One thread per (plane, level, column x >= 1): accumulates down the column. Modular uint32
// addition, as on the CPU.
__global__ void __launch_bounds__(kThreads) column_pass_kernel(const DevLevel* __restrict__ levels, int n_levels,
                                                                int total_cols, uint4* A, uint4* B, std::uint32_t* C) {
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= 3 * total_cols) return;
    const int plane = t / total_cols, c = t - plane * total_cols;
    const int li = find_level(n_levels, c, [&](int l) { return static_cast<long long>(levels[l].col0); });
    const DevLevel L = levels[li];
    const long long p0 = L.ih + (c - L.col0) + 1;
    if (plane == 0) scan_column(A + p0, L.pitch, L.height, add4);
    else if (plane == 1) scan_column(B + p0, L.pitch, L.height, add4);
    else scan_column(C + p0, L.pitch, L.height, [](std::uint32_t a, std::uint32_t b) { return a + b; });
}

struct StageArgs {
    const DevLevel* levels;
    int n_levels;
    const uint4* A;
    const uint4* B;
    const std::uint32_t* C;
    const DevLearner* learners;
    DevStage stage;
    int stage_index, n_stages, stride;
    BlockNorm norm;
    float epsilon, hys_clip;
    std::uint32_t n_windows;         // all windows of the frame
    const std::uint32_t* in_ids;     // nullptr: the first stage, ids 0..n_windows-1
    const std::uint32_t* in_count;   // nullptr: n_windows
    std::uint32_t* out_ids;
    std::uint32_t* out_count;
    std::uint8_t* flags;             // CubSelect: flags[i] for input position i; else nullptr
    float* win_score;                // per window id: see record()
    std::int16_t* win_stage;         // per window id: rejecting stage, or n_stages when accepted
};

__device__ __forceinline__ float learner_vote(const DevLearner& l, const StageArgs& a, long long base, int pitch) {
    const int xs[3] = {l.bx, l.bx + l.bw / 2, l.bx + l.bw};
    const int ys[3] = {l.by, l.by + l.bh / 2, l.by + l.bh};
    uint4 pa[9], pb[9];
    std::uint32_t pc[9];
#pragma unroll
    for (int j = 0; j < 3; ++j)
#pragma unroll
        for (int i = 0; i < 3; ++i) {
            const long long idx = base + static_cast<long long>(ys[j]) * pitch + xs[i];
            pa[j * 3 + i] = __ldg(a.A + idx);
            pb[j * 3 + i] = __ldg(a.B + idx);
            pc[j * 3 + i] = __ldg(a.C + idx);
        }
    constexpr float kToGray = 1.0f / kMagnitudeScale;
    float v[kBlockDims];
#pragma unroll
    for (int cj = 0; cj < 2; ++cj)
#pragma unroll
        for (int ci = 0; ci < 2; ++ci) {
            const int p00 = cj * 3 + ci, p01 = p00 + 1, p10 = p00 + 3, p11 = p00 + 4;
            const int k = (cj * 2 + ci) * kOrientationBins;
            auto cell = [&](std::uint32_t d, std::uint32_t b, std::uint32_t c, std::uint32_t aa) {
                return static_cast<float>(d - b - c + aa) * kToGray;
            };
            v[k + 0] = cell(pa[p11].x, pa[p01].x, pa[p10].x, pa[p00].x);
            v[k + 1] = cell(pa[p11].y, pa[p01].y, pa[p10].y, pa[p00].y);
            v[k + 2] = cell(pa[p11].z, pa[p01].z, pa[p10].z, pa[p00].z);
            v[k + 3] = cell(pa[p11].w, pa[p01].w, pa[p10].w, pa[p00].w);
            v[k + 4] = cell(pb[p11].x, pb[p01].x, pb[p10].x, pb[p00].x);
            v[k + 5] = cell(pb[p11].y, pb[p01].y, pb[p10].y, pb[p00].y);
            v[k + 6] = cell(pb[p11].z, pb[p01].z, pb[p10].z, pb[p00].z);
            v[k + 7] = cell(pb[p11].w, pb[p01].w, pb[p10].w, pb[p00].w);
            v[k + 8] = cell(pc[p11], pc[p01], pc[p10], pc[p00]);
        }
    block_math::normalise(v, a.norm, a.epsilon, a.hys_clip);
    const float m = block_math::margin(l.w, l.bias, v);
    return block_math::vote(a.stage.binary != 0, l.alpha, m);
}

__device__ __forceinline__ void window_origin(const StageArgs& a, std::uint32_t id, long long& base, int& pitch) {
    const int li = find_level(a.n_levels, id, [&](int l) { return a.levels[l].win0; });
    const DevLevel& L = a.levels[li];
    const int local = static_cast<int>(id - L.win0);
    const int wy = local / L.cols, wx = local - wy * L.cols;
    pitch = L.pitch;
    base = L.ih + static_cast<long long>(wy * a.stride) * L.pitch + wx * a.stride;
}

// win_score: a surviving window's running sum of its stages' margins (added in stage order, as
// evaluate_window does), a rejected window's rejecting margin.
__device__ __forceinline__ void record(const StageArgs& a, std::uint32_t id, float score, bool pass) {
    const float cleared = a.stage_index == 0 ? 0.0f : a.win_score[id];
    a.win_score[id] = pass ? cleared + score : score;
    if (!pass || a.stage_index == a.n_stages - 1) a.win_stage[id] = static_cast<std::int16_t>(pass ? a.n_stages : a.stage_index);
}

// Small stages: one thread per window; a warp appends its survivors with one atomicAdd.
__global__ void __launch_bounds__(kThreads) stage_thread_kernel(StageArgs a) {
    const std::uint32_t count = a.in_count ? *a.in_count : a.n_windows;
    const std::uint32_t loop_n = a.flags ? a.n_windows : count;
    const int lane = threadIdx.x & 31;
    const std::uint32_t step = gridDim.x * blockDim.x;
    for (std::uint32_t base_i = blockIdx.x * blockDim.x + (threadIdx.x & ~31u); base_i < loop_n; base_i += step) {
        const std::uint32_t i = base_i + lane;
        bool pass = false;
        std::uint32_t id = 0;
        if (i < count) {
            id = a.in_ids ? a.in_ids[i] : i;
            long long origin;
            int pitch;
            window_origin(a, id, origin, pitch);
            float sum = 0.0f;
            for (int k = 0; k < a.stage.count; ++k) sum += learner_vote(a.learners[a.stage.first + k], a, origin, pitch);
            const float score = sum - a.stage.threshold;
            pass = score >= 0.0f;
            record(a, id, score, pass);
        }
        if (a.flags) {
            if (i < loop_n) a.flags[i] = pass ? 1 : 0;
        } else {
            const unsigned m = __ballot_sync(kFullMask, pass);
            if (m) {
                std::uint32_t pos = 0;
                if (lane == 0) pos = atomicAdd(a.out_count, static_cast<std::uint32_t>(__popc(m)));
                pos = __shfl_sync(kFullMask, pos, 0);
                if (pass) a.out_ids[pos + __popc(m & ((1u << lane) - 1u))] = id;
            }
        }
    }
}

// Large stages: one warp per window; lane l evaluates learners l, l+32, …; the votes are summed in
// learner order (shuffles from lane 0 to 31), so the sum is the CPU's.
__global__ void __launch_bounds__(kThreads) stage_warp_kernel(StageArgs a) {
    const std::uint32_t count = a.in_count ? *a.in_count : a.n_windows;
    const std::uint32_t loop_n = a.flags ? a.n_windows : count;
    const int lane = threadIdx.x & 31;
    const std::uint32_t warps = gridDim.x * blockDim.x / 32;
    for (std::uint32_t w = (blockIdx.x * blockDim.x + threadIdx.x) / 32; w < loop_n; w += warps) {
        if (w >= count) {
            if (lane == 0) a.flags[w] = 0;  // only reached with flags (loop_n > count)
            continue;
        }
        const std::uint32_t id = a.in_ids ? a.in_ids[w] : w;
        long long origin;
        int pitch;
        window_origin(a, id, origin, pitch);
        float sum = 0.0f;
        for (int c0 = 0; c0 < a.stage.count; c0 += 32) {
            const int k = c0 + lane;
            const float vote = k < a.stage.count ? learner_vote(a.learners[a.stage.first + k], a, origin, pitch) : 0.0f;
            const int lim = min(32, a.stage.count - c0);
            for (int j = 0; j < lim; ++j) sum += __shfl_sync(kFullMask, vote, j);
        }
        const float score = sum - a.stage.threshold;
        const bool pass = score >= 0.0f;
        if (lane == 0) {
            record(a, id, score, pass);
            if (a.flags) a.flags[w] = pass ? 1 : 0;
            else if (pass) a.out_ids[atomicAdd(a.out_count, 1u)] = id;
        }
    }
}

struct OutEntry {
    std::uint32_t id;
    float score;
};

__global__ void gather_kernel(const std::uint32_t* __restrict__ ids, const std::uint32_t* __restrict__ count,
                              const float* __restrict__ win_score, OutEntry* out) {
    const std::uint32_t n = *count;
    for (std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        out[i] = {ids[i], win_score[ids[i]]};
}

// ---------------------------------------------------------------------------------------------
// Host side
// ---------------------------------------------------------------------------------------------
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

int blocks_for(std::size_t n, int threads = kThreads) { return static_cast<int>(std::max<std::size_t>((n + threads - 1) / threads, 1)); }

}  // namespace

// One frame's buffers, stream and graph; reused while frames keep their size.
struct Slot {
    cudaStream_t stream = nullptr;
    cudaGraphExec_t graph = nullptr;
    int width = -1, height = -1, channels = -1;
    ChannelOrder order = ChannelOrder::BGR;
    std::vector<PyramidLevel> plan;
    std::vector<DevLevel> levels;
    struct Octave {
        long long at;  // first pixel in d_gray (octave 0, the gray input, at 0)
        int width, height;
    };
    std::vector<Octave> octaves;
    int total_rows = 0, total_cols = 0, max_width = 0;
    std::uint32_t n_windows = 0;
    std::size_t n_points = 0;
    PinnedBuffer<std::uint8_t> h_in;
    DeviceBuffer<std::uint8_t> d_in, d_gray;
    DeviceBuffer<DevLevel> d_levels;
    DeviceBuffer<AxisEntry> d_xtab, d_ytab;
    DeviceBuffer<uint4> d_A, d_B;
    DeviceBuffer<std::uint32_t> d_C;
    DeviceBuffer<std::uint32_t> d_ids[2];
    DeviceBuffer<std::uint8_t> d_flags;
    DeviceBuffer<float> d_win_score;
    DeviceBuffer<std::int16_t> d_win_stage;
    DeviceBuffer<std::uint32_t> d_counts;
    DeviceBuffer<OutEntry> d_out;
    DeviceBuffer<std::uint8_t> d_cub;
    std::size_t cub_bytes = 0;
    PinnedBuffer<std::uint32_t> h_counts;
    PinnedBuffer<OutEntry> h_out;
    PinnedBuffer<float> h_win_score;
    PinnedBuffer<std::int16_t> h_win_stage;

    Slot() { CK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking)); }
    Slot(const Slot&) = delete;
    Slot& operator=(const Slot&) = delete;
    ~Slot() {
        if (graph) cudaGraphExecDestroy(graph);
        if (stream) cudaStreamDestroy(stream);
    }
};

struct CudaDetector::Impl {
    CudaOptions options;
    std::vector<DevStage> stages;
    DeviceBuffer<DevLearner> d_learners;
    std::vector<std::unique_ptr<Slot>> slots;
    int last_slot = 0;
    int sms = 0;
    std::string device_name;

    Slot& slot(std::size_t i) {
        while (slots.size() <= i) slots.push_back(std::make_unique<Slot>());
        return *slots[i];
    }
};

bool cuda_available(std::string* why) {
    int n = 0;
    const cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess || n == 0) {
        if (why) *why = e != cudaSuccess ? std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e) : "no CUDA device";
        cudaGetLastError();  // clear the sticky-free error state of the query
        return false;
    }
    return true;
}

CudaDetector::CudaDetector(CascadeModel model, DetectParams params, CudaOptions options)
    : model_(std::move(model)), params_(params), impl_(std::make_unique<Impl>()) {
    validate_model(model_);
    validate(params_);
    std::string why;
    if (!cuda_available(&why)) throw DetectError("the CUDA backend cannot run here: " + why);
    impl_->options = options;
    CK(cudaSetDevice(options.device));
    cudaDeviceProp prop{};
    CK(cudaGetDeviceProperties(&prop, options.device));
    impl_->device_name = prop.name;
    impl_->sms = prop.multiProcessorCount;
    std::vector<DevLearner> learners;
    for (std::size_t s = 0; s < model_.stages.size(); ++s) {
        const auto* hog = model_.stages[s].get_if<HogSvmStage>();
        if (!hog)
            throw DetectError("stage " + std::to_string(s + 1) +
                              " is waldboost_lbp: the CUDA backend runs hog_svm stages only (use --backend cpu)");
        DevStage ds{static_cast<int>(learners.size()), static_cast<int>(hog->learners.size()), hog->threshold,
                    hog->vote == VoteMode::Binary ? 1 : 0};
        impl_->stages.push_back(ds);
        for (const HogLearner& l : hog->learners) {
            DevLearner d{};
            d.bx = l.block.x;
            d.by = l.block.y;
            d.bw = l.block.w;
            d.bh = l.block.h;
            std::copy(l.weights.begin(), l.weights.end(), d.w);
            d.bias = l.bias;
            d.alpha = l.alpha;
            learners.push_back(d);
        }
    }
    impl_->d_learners.reserve(learners.size());
    CK(cudaMemcpy(impl_->d_learners.p, learners.data(), learners.size() * sizeof(DevLearner), cudaMemcpyHostToDevice));
    // Those copies ran on the legacy stream, which the slots' non-blocking streams do not wait for.
    CK(cudaStreamSynchronize(cudaStreamLegacy));
}

CudaDetector::~CudaDetector() = default;

std::string CudaDetector::device_name() const { return impl_->device_name; }

namespace {

// Sizes the slot's buffers and tables for a frame; allocates only when the size grows.
void prepare(Slot& s, const ImageView& image, const CascadeModel& model, const DetectParams& params,
             std::size_t n_stages, const CudaOptions& options) {
    const bool same = s.width == image.width && s.height == image.height && s.channels == image.channels && s.order == image.order;
    if (same) return;
    const int ww = model.window_width, wh = model.window_height;
    std::vector<PyramidLevel> plan =
        plan_pyramid(image.width, image.height, ww, wh, params.scale_step, params.min_scale, params.max_scale);
    if (plan.empty())  // before touching the slot, which keeps serving its current size
        throw DetectError("image " + std::to_string(image.width) + "x" + std::to_string(image.height) +
                          " is smaller than the model window " + std::to_string(ww) + "x" + std::to_string(wh) +
                          " at scale " + std::to_string(params.min_scale) + " (a min scale below 1 upscales the image)");
    if (s.graph) {
        CK(cudaGraphExecDestroy(s.graph));
        s.graph = nullptr;
    }
    s.width = -1;  // invalid until every buffer below is sized (an allocation may throw)
    s.plan = std::move(plan);
    s.levels.clear();
    // Octaves 0 .. the deepest a level reads, one after another in d_gray.
    s.octaves.assign(1, {0, image.width, image.height});
    for (int k = 1; k <= s.plan.back().octave; ++k) {
        const Slot::Octave& o = s.octaves.back();
        s.octaves.push_back({o.at + static_cast<long long>(o.width) * o.height, o.width / 2, o.height / 2});
    }
    std::vector<AxisEntry> xt, yt;
    long long points = 0, windows = 0;
    int rows = 0, cols = 0, max_w = 0;
    for (const PyramidLevel& pl : s.plan) {
        DevLevel L{};
        L.width = pl.width;
        L.height = pl.height;
        L.pitch = pl.width + 1;
        L.cols = (pl.width - ww) / params.stride + 1;
        L.rows = (pl.height - wh) / params.stride + 1;
        L.xtab = static_cast<int>(xt.size());
        L.ytab = static_cast<int>(yt.size());
        L.row0 = rows;  // first row block
        L.col0 = cols;
        L.ih = points;
        L.win0 = windows;
        const Slot::Octave& o = s.octaves[static_cast<std::size_t>(pl.octave)];
        L.src = o.at;
        L.src_w = o.width;
        const ResampleAxis ax = resample_axis(pl.width, o.width, octave_scale(pl));
        const ResampleAxis ay = resample_axis(pl.height, o.height, octave_scale(pl));
        for (int u = 0; u < pl.width; ++u) xt.push_back({ax.i0[u], ax.i1[u], ax.wt[u]});
        for (int v = 0; v < pl.height; ++v) yt.push_back({ay.i0[v], ay.i1[v], ay.wt[v]});
        rows += (pl.height + kRowsPerBlock - 1) / kRowsPerBlock;
        cols += pl.width;
        max_w = std::max(max_w, pl.width);
        points += static_cast<long long>(L.pitch) * (pl.height + 1);
        windows += static_cast<long long>(L.cols) * L.rows;
        s.levels.push_back(L);
    }
    if (windows > 0x7fffffffLL) throw DetectError("too many windows in one frame for the CUDA backend");
    s.total_rows = rows;
    s.total_cols = cols;
    s.max_width = max_w;
    s.n_windows = static_cast<std::uint32_t>(windows);
    s.n_points = static_cast<std::size_t>(points);
    const std::size_t in_bytes = static_cast<std::size_t>(image.width) * image.height * image.channels;
    s.h_in.reserve(in_bytes);
    s.d_in.reserve(in_bytes);
    s.d_gray.reserve(static_cast<std::size_t>(s.octaves.back().at) + static_cast<std::size_t>(s.octaves.back().width) * s.octaves.back().height);
    s.d_levels.reserve(s.levels.size());
    // Everything below goes on the slot's (non-blocking) stream, so the frame's kernels see it:
    // plain cudaMemset/cudaMemcpy run on the legacy stream, which that stream does not wait for.
    cudaStream_t st = s.stream;
    CK(cudaMemcpyAsync(s.d_levels.p, s.levels.data(), s.levels.size() * sizeof(DevLevel), cudaMemcpyHostToDevice, st));
    s.d_xtab.reserve(xt.size());
    s.d_ytab.reserve(yt.size());
    CK(cudaMemcpyAsync(s.d_xtab.p, xt.data(), xt.size() * sizeof(AxisEntry), cudaMemcpyHostToDevice, st));
    CK(cudaMemcpyAsync(s.d_ytab.p, yt.data(), yt.size() * sizeof(AxisEntry), cudaMemcpyHostToDevice, st));
    s.d_A.reserve(s.n_points);
    s.d_B.reserve(s.n_points);
    s.d_C.reserve(s.n_points);
    if (options.poison) {
        CK(cudaMemsetAsync(s.d_A.p, 0xFF, s.n_points * sizeof(uint4), st));
        CK(cudaMemsetAsync(s.d_B.p, 0xFF, s.n_points * sizeof(uint4), st));
        CK(cudaMemsetAsync(s.d_C.p, 0xFF, s.n_points * sizeof(std::uint32_t), st));
    }
    // Row 0 of every level stays zero: the row pass writes every other point, every frame.
    for (const DevLevel& L : s.levels) {
        CK(cudaMemsetAsync(s.d_A.p + L.ih, 0, static_cast<std::size_t>(L.pitch) * sizeof(uint4), st));
        CK(cudaMemsetAsync(s.d_B.p + L.ih, 0, static_cast<std::size_t>(L.pitch) * sizeof(uint4), st));
        CK(cudaMemsetAsync(s.d_C.p + L.ih, 0, static_cast<std::size_t>(L.pitch) * sizeof(std::uint32_t), st));
    }
    for (auto& b : s.d_ids) b.reserve(s.n_windows);
    s.d_win_score.reserve(s.n_windows);
    s.d_win_stage.reserve(s.n_windows);
    s.d_counts.reserve(n_stages);
    s.d_out.reserve(s.n_windows);
    s.h_counts.reserve(n_stages);
    s.h_out.reserve(s.n_windows);
    if (params.keep_rejected) {
        s.h_win_score.reserve(s.n_windows);
        s.h_win_stage.reserve(s.n_windows);
    }
    if (options.poison) {
        CK(cudaMemsetAsync(s.d_gray.p, 0xFF, s.d_gray.n, st));
        for (auto& b : s.d_ids) CK(cudaMemsetAsync(b.p, 0xFF, b.n * sizeof(std::uint32_t), st));
        CK(cudaMemsetAsync(s.d_win_score.p, 0xFF, s.d_win_score.n * sizeof(float), st));
        CK(cudaMemsetAsync(s.d_win_stage.p, 0xFF, s.d_win_stage.n * sizeof(std::int16_t), st));
        CK(cudaMemsetAsync(s.d_out.p, 0xFF, s.d_out.n * sizeof(OutEntry), st));
    }
    if (options.compaction == Compaction::CubSelect) {
        s.d_flags.reserve(s.n_windows);
        if (options.poison) CK(cudaMemsetAsync(s.d_flags.p, 0xFF, s.d_flags.n, st));
        std::size_t a = 0, b = 0;
        CK(cub::DeviceSelect::Flagged(nullptr, a, thrust::counting_iterator<std::uint32_t>(0), s.d_flags.p, s.d_ids[0].p,
                                      s.d_counts.p, static_cast<int>(s.n_windows)));
        CK(cub::DeviceSelect::Flagged(nullptr, b, s.d_ids[0].p, s.d_flags.p, s.d_ids[1].p, s.d_counts.p,
                                      static_cast<int>(s.n_windows)));
        s.cub_bytes = std::max(a, b);
        s.d_cub.reserve(s.cub_bytes);
    }
    CK(cudaStreamSynchronize(st));  // the tables' host vectors go out of scope
    s.width = image.width;
    s.height = image.height;
    s.channels = image.channels;
    s.order = image.order;
    const std::size_t smem = (kRowsPerBlock + 2) * static_cast<std::size_t>(max_w);
    if (smem > 48 * 1024)
        CK(cudaFuncSetAttribute(row_pass_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
}

// Events between steps when profiling (nullptr entries: no recording).
struct StepEvents {
    cudaEvent_t e[32] = {};
    int n = 0;
    std::vector<int> stage_event;  // event index recorded after each stage
};

void record_event(StepEvents* ev, cudaStream_t stream) {
    if (ev) CK(cudaEventRecord(ev->e[ev->n++], stream));
}

// Enqueues one frame's work on the slot's stream (host input already in s.h_in).
void enqueue(Slot& s, const CudaDetector::Impl& impl, const CascadeModel& model, const DetectParams& params,
             StepEvents* ev) {
    cudaStream_t st = s.stream;
    const std::size_t n_stages = impl.stages.size();
    const std::size_t n_pixels = static_cast<std::size_t>(s.width) * s.height;
    record_event(ev, st);
    CK(cudaMemcpyAsync(s.d_in.p, s.h_in.p, n_pixels * s.channels, cudaMemcpyHostToDevice, st));
    record_event(ev, st);
    gray_kernel<<<blocks_for(n_pixels), kThreads, 0, st>>>(s.d_in.p, s.d_gray.p, static_cast<int>(n_pixels), s.channels,
                                                           s.order == ChannelOrder::BGR ? 1 : 0);
    CK_LAUNCH();
    for (std::size_t k = 1; k < s.octaves.size(); ++k) {
        const Slot::Octave &from = s.octaves[k - 1], &to = s.octaves[k];
        halve_kernel<<<blocks_for(static_cast<std::size_t>(to.width) * to.height), kThreads, 0, st>>>(
            s.d_gray.p + from.at, from.width, s.d_gray.p + to.at, to.width, to.height);
        CK_LAUNCH();
    }
    record_event(ev, st);
    const int n_levels = static_cast<int>(s.levels.size());
    row_pass_kernel<<<s.total_rows, kRowThreads, (kRowsPerBlock + 2) * static_cast<std::size_t>(s.max_width), st>>>(
        s.d_gray.p, s.d_levels.p, n_levels, s.d_xtab.p, s.d_ytab.p, orientation_boundaries(), s.d_A.p, s.d_B.p, s.d_C.p);
    CK_LAUNCH();
    record_event(ev, st);
    column_pass_kernel<<<blocks_for(3 * static_cast<std::size_t>(s.total_cols)), kThreads, 0, st>>>(
        s.d_levels.p, n_levels, s.total_cols, s.d_A.p, s.d_B.p, s.d_C.p);
    CK_LAUNCH();
    record_event(ev, st);
    CK(cudaMemsetAsync(s.d_counts.p, 0, n_stages * sizeof(std::uint32_t), st));
    const int sms = impl.sms;
    for (std::size_t k = 0; k < n_stages; ++k) {
        StageArgs a{};
        a.levels = s.d_levels.p;
        a.n_levels = n_levels;
        a.A = s.d_A.p;
        a.B = s.d_B.p;
        a.C = s.d_C.p;
        a.learners = impl.d_learners.p;
        a.stage = impl.stages[k];
        a.stage_index = static_cast<int>(k);
        a.n_stages = static_cast<int>(n_stages);
        a.stride = params.stride;
        a.norm = model.hog.norm;
        a.epsilon = model.hog.epsilon;
        a.hys_clip = model.hog.hys_clip;
        a.n_windows = s.n_windows;
        a.in_ids = k == 0 ? nullptr : s.d_ids[(k - 1) % 2].p;
        a.in_count = k == 0 ? nullptr : s.d_counts.p + (k - 1);
        a.out_ids = s.d_ids[k % 2].p;
        a.out_count = s.d_counts.p + k;
        a.flags = impl.options.compaction == Compaction::CubSelect ? s.d_flags.p : nullptr;
        a.win_score = s.d_win_score.p;
        a.win_stage = s.d_win_stage.p;
        const bool warp = a.stage.count >= impl.options.warp_stage_min_learners;
        // Grid: enough for every window of the first stage; later stages (fewer survivors, count
        // known only on the device) loop over them with a grid of a few waves.
        const std::size_t work = warp ? static_cast<std::size_t>(s.n_windows) * 32 : s.n_windows;
        const int grid = std::min(blocks_for(work), k == 0 ? blocks_for(work) : sms * 8);
        if (warp) stage_warp_kernel<<<grid, kThreads, 0, st>>>(a);
        else stage_thread_kernel<<<grid, kThreads, 0, st>>>(a);
        CK_LAUNCH();
        if (a.flags) {
            std::size_t bytes = s.cub_bytes;
            if (k == 0)
                CK(cub::DeviceSelect::Flagged(s.d_cub.p, bytes, thrust::counting_iterator<std::uint32_t>(0), s.d_flags.p,
                                              a.out_ids, a.out_count, static_cast<int>(s.n_windows), st));
            else
                CK(cub::DeviceSelect::Flagged(s.d_cub.p, bytes, a.in_ids, s.d_flags.p, a.out_ids, a.out_count,
                                              static_cast<int>(s.n_windows), st));
        }
        if (ev) {
            record_event(ev, st);
            ev->stage_event.push_back(ev->n - 1);
        }
    }
    const std::uint32_t* final_ids = s.d_ids[(n_stages - 1) % 2].p;
    gather_kernel<<<std::min(blocks_for(kOutInGraph), sms * 4), kThreads, 0, st>>>(final_ids, s.d_counts.p + (n_stages - 1),
                                                                                    s.d_win_score.p, s.d_out.p);
    CK_LAUNCH();
    CK(cudaMemcpyAsync(s.h_counts.p, s.d_counts.p, n_stages * sizeof(std::uint32_t), cudaMemcpyDeviceToHost, st));
    CK(cudaMemcpyAsync(s.h_out.p, s.d_out.p, std::min<std::size_t>(kOutInGraph, s.n_windows) * sizeof(OutEntry),
                       cudaMemcpyDeviceToHost, st));
    if (params.keep_rejected) {
        CK(cudaMemcpyAsync(s.h_win_score.p, s.d_win_score.p, s.n_windows * sizeof(float), cudaMemcpyDeviceToHost, st));
        CK(cudaMemcpyAsync(s.h_win_stage.p, s.d_win_stage.p, s.n_windows * sizeof(std::int16_t), cudaMemcpyDeviceToHost, st));
    }
    record_event(ev, st);
}

void stage_input(Slot& s, const ImageView& image) {
    const std::size_t row = static_cast<std::size_t>(image.width) * image.channels;
    for (int y = 0; y < image.height; ++y) std::memcpy(s.h_in.p + y * row, image.data + y * image.stride, row);
}

void launch(Slot& s, const CudaDetector::Impl& impl, const CascadeModel& model, const DetectParams& params) {
    if (!impl.options.use_graph) {
        enqueue(s, impl, model, params, nullptr);
        return;
    }
    if (!s.graph) {
        cudaGraph_t g = nullptr;
        CK(cudaStreamBeginCapture(s.stream, cudaStreamCaptureModeThreadLocal));
        try {
            enqueue(s, impl, model, params, nullptr);
        } catch (...) {
            cudaStreamEndCapture(s.stream, &g);
            if (g) cudaGraphDestroy(g);
            throw;
        }
        CK(cudaStreamEndCapture(s.stream, &g));
        const cudaError_t e = cudaGraphInstantiate(&s.graph, g, 0);
        cudaGraphDestroy(g);
        CK(e);
    }
    CK(cudaGraphLaunch(s.graph, s.stream));
}

DetectResult collect(Slot& s, const CudaDetector::Impl& impl, const CascadeModel& model, const DetectParams& params) {
    CK(cudaStreamSynchronize(s.stream));
    const std::size_t n_stages = impl.stages.size();
    DetectResult r;
    r.stats.windows_scanned = s.n_windows;
    r.stats.levels = static_cast<int>(s.levels.size());
    r.stats.rejected_per_stage.assign(n_stages, 0);
    std::uint64_t in = s.n_windows;
    for (std::size_t k = 0; k < n_stages; ++k) {
        const std::uint64_t out = s.h_counts.p[k];
        r.stats.rejected_per_stage[k] = in - out;
        r.stats.weak_evaluated += in * static_cast<std::uint64_t>(impl.stages[k].count);
        in = out;
    }
    const int ww = model.window_width, wh = model.window_height;
    // Ids come in increasing order (below), so the level only moves forward.
    std::size_t li = 0;
    auto window = [&](std::uint32_t id, float score, int passed) {
        while (li + 1 < s.levels.size() && static_cast<std::uint64_t>(s.levels[li + 1].win0) <= id) ++li;
        const DevLevel& L = s.levels[li];
        const int local = static_cast<int>(id - L.win0);
        const int x = (local % L.cols) * params.stride, y = (local / L.cols) * params.stride;
        const double sc = s.plan[li].scale;
        return Detection{x * sc, y * sc, ww * sc, wh * sc, score, static_cast<int>(li), sc, passed};
    };
    if (params.keep_rejected) {
        r.detections.reserve(s.n_windows);
        for (std::uint32_t id = 0; id < s.n_windows; ++id)
            r.detections.push_back(window(id, s.h_win_score.p[id], s.h_win_stage.p[id]));
        return r;
    }
    const std::uint32_t accepted = s.h_counts.p[n_stages - 1];
    if (accepted > kOutInGraph)
        CK(cudaMemcpy(s.h_out.p + kOutInGraph, s.d_out.p + kOutInGraph, (accepted - kOutInGraph) * sizeof(OutEntry),
                      cudaMemcpyDeviceToHost));
    OutEntry* out = s.h_out.p;  // in survivor order; sorted by id, it is the CPU's order
    std::sort(out, out + accepted, [](const OutEntry& a, const OutEntry& b) { return a.id < b.id; });
    r.detections.reserve(accepted);
    for (std::uint32_t i = 0; i < accepted; ++i) r.detections.push_back(window(out[i].id, out[i].score, static_cast<int>(n_stages)));
    return r;
}

}  // namespace

DetectResult CudaDetector::detect(const ImageView& image) {
    validate(image);
    Slot& s = impl_->slot(0);
    prepare(s, image, model_, params_, impl_->stages.size(), impl_->options);
    stage_input(s, image);
    launch(s, *impl_, model_, params_);
    impl_->last_slot = 0;
    return collect(s, *impl_, model_, params_);
}

std::vector<DetectResult> CudaDetector::detect_batch(const std::vector<ImageView>& images, int slots) {
    for (const ImageView& im : images) validate(im);
    const std::size_t n_slots = static_cast<std::size_t>(std::max(1, slots));
    std::vector<DetectResult> results(images.size());
    std::vector<long long> in_flight(n_slots, -1);
    for (std::size_t i = 0; i < images.size(); ++i) {
        const std::size_t k = i % n_slots;
        Slot& s = impl_->slot(k);
        if (in_flight[k] >= 0) results[static_cast<std::size_t>(in_flight[k])] = collect(s, *impl_, model_, params_);
        prepare(s, images[i], model_, params_, impl_->stages.size(), impl_->options);
        stage_input(s, images[i]);
        launch(s, *impl_, model_, params_);
        in_flight[k] = static_cast<long long>(i);
        impl_->last_slot = static_cast<int>(k);
    }
    for (std::size_t k = 0; k < n_slots; ++k)
        if (in_flight[k] >= 0) results[static_cast<std::size_t>(in_flight[k])] = collect(impl_->slot(k), *impl_, model_, params_);
    return results;
}

CudaStepTimes CudaDetector::profile(const ImageView& image) {
    validate(image);
    Slot& s = impl_->slot(0);
    prepare(s, image, model_, params_, impl_->stages.size(), impl_->options);
    stage_input(s, image);
    StepEvents ev;
    // Events: start, after upload, gray, rows, columns, each stage, download.
    if (impl_->stages.size() + 6 > std::size(ev.e))
        throw DetectError("profile times at most " + std::to_string(std::size(ev.e) - 6) + " stages");
    for (auto& e : ev.e) CK(cudaEventCreate(&e));
    struct Destroy {
        StepEvents& ev;
        ~Destroy() {
            for (auto& e : ev.e) cudaEventDestroy(e);
        }
    } destroy{ev};
    enqueue(s, *impl_, model_, params_, &ev);
    collect(s, *impl_, model_, params_);
    auto ms = [&](int a, int b) {
        float t = 0;
        CK(cudaEventElapsedTime(&t, ev.e[a], ev.e[b]));
        return static_cast<double>(t);
    };
    CudaStepTimes t;
    t.upload = ms(0, 1);
    t.gray = ms(1, 2);
    t.rows = ms(2, 3);
    t.columns = ms(3, 4);
    int prev = 4;
    for (std::size_t k = 0; k < impl_->stages.size(); ++k) {
        const int e = ev.stage_event[k];
        (impl_->stages[k].count >= impl_->options.warp_stage_min_learners ? t.late_stages : t.early_stages) += ms(prev, e);
        prev = e;
    }
    t.download = ms(prev, ev.n - 1);
    t.total = ms(0, ev.n - 1);
    // Rows: writes every point but row 0 (36 bytes); columns: reads and writes rows 2..h of
    // columns 1..w. Gray image reads are small and cached, and not counted.
    std::uint64_t bytes = 0;
    for (const DevLevel& L : s.levels) {
        bytes += static_cast<std::uint64_t>(L.pitch) * L.height * 36;
        bytes += static_cast<std::uint64_t>(L.width) * std::max(L.height - 1, 0) * 72;
    }
    t.integral_histogram_bytes = bytes;
    impl_->last_slot = 0;
    return t;
}

std::vector<std::uint32_t> CudaDetector::level_integral_histogram(int level, int& width, int& height) const {
    const Slot& s = *impl_->slots.at(static_cast<std::size_t>(impl_->last_slot));
    if (level < 0 || level >= static_cast<int>(s.levels.size())) throw std::out_of_range("no such pyramid level");
    const DevLevel& L = s.levels[static_cast<std::size_t>(level)];
    width = L.width;
    height = L.height;
    const std::size_t n = static_cast<std::size_t>(L.pitch) * (L.height + 1);
    std::vector<uint4> a(n), b(n);
    std::vector<std::uint32_t> c(n);
    CK(cudaMemcpy(a.data(), s.d_A.p + L.ih, n * sizeof(uint4), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(b.data(), s.d_B.p + L.ih, n * sizeof(uint4), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(c.data(), s.d_C.p + L.ih, n * sizeof(std::uint32_t), cudaMemcpyDeviceToHost));
    std::vector<std::uint32_t> out(n * kOrientationBins);
    for (std::size_t i = 0; i < n; ++i) {
        std::uint32_t* p = out.data() + i * kOrientationBins;
        p[0] = a[i].x; p[1] = a[i].y; p[2] = a[i].z; p[3] = a[i].w;
        p[4] = b[i].x; p[5] = b[i].y; p[6] = b[i].z; p[7] = b[i].w;
        p[8] = c[i];
    }
    return out;
}

std::vector<std::uint8_t> CudaDetector::last_gray() const {
    const Slot& s = *impl_->slots.at(static_cast<std::size_t>(impl_->last_slot));
    std::vector<std::uint8_t> out(static_cast<std::size_t>(s.width) * s.height);
    CK(cudaMemcpy(out.data(), s.d_gray.p, out.size(), cudaMemcpyDeviceToHost));
    return out;
}

double cuda_copy_bandwidth(std::size_t bytes, int repeats) {
    std::string why;
    if (!cuda_available(&why)) throw DetectError("no CUDA device: " + why);
    DeviceBuffer<std::uint8_t> a, b;
    a.reserve(bytes);
    b.reserve(bytes);
    CK(cudaMemset(a.p, 1, bytes));
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    std::vector<double> gbs;
    for (int i = 0; i < repeats + 1; ++i) {
        CK(cudaEventRecord(e0));
        CK(cudaMemcpy(b.p, a.p, bytes, cudaMemcpyDeviceToDevice));
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        if (i > 0) gbs.push_back(2.0 * static_cast<double>(bytes) / (ms * 1e-3) / 1e9);  // first is warm-up
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    std::sort(gbs.begin(), gbs.end());
    return gbs[gbs.size() / 2];
}

}  // namespace cascadekit
