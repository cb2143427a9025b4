// hog_svm stages on the GPU: a window's stage sum from its blocks' descriptors (81 integral-
// histogram points each), with the CPU's float arithmetic (block_math.hpp, --fmad=false).
#include <algorithm>
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <vector>

#include "cascadekit/features/block_math.hpp"
#include "cascadekit/model/hog_svm_stage.hpp"
#include "stage_kinds.cuh"
#include "survivors.cuh"

namespace cascadekit::cuda {

namespace {
struct DevLearner {
    int bx, by, bw, bh;
    float w[kBlockDims];
    float bias, alpha;
    // For the sums from gradient planes (plane_stage_sum): the learner's threads of its chunk
    // (plane_threads: t0 … t0 + threads - 1), the block rows they cover a pass (threads / bw; 1 when
    // fewer threads than columns), and ceil(2^32 / bw), so that a thread's row is
    // __umulhi(t - t0, bw_magic) = (t - t0) / bw without a division (exact for t · bw < 2^32).
    int t0, threads, rows_per_pass;
    std::uint32_t bw_magic;
};

struct DevStage {
    int count;  // learners
    float threshold;
    int vote;     // block_math::vote rule
    float carry;  // HogSvmStage::carry (0: not nested)
};

// The stage's margin as the CPU's CascadeEvaluator forms it: sum − threshold, and for a nested
// stage plus carry × the window's running score (win_score, which record() keeps; the nested
// stage's margin then replaces it: record(…, replace)).
__device__ __forceinline__ float stage_margin(const SurvivorArgs& a, const DevStage& s, std::uint32_t id, float sum) {
    const float m = sum - s.threshold;
    if (s.carry == 0.0f) return m;
    return block_math::carried(m, s.carry, a.stage_index == 0 ? 0.0f : a.win_score[id]);
}

// What a hog_svm stage kernel reads besides the survivors.
struct HogStageArgs {
    HogPlanes planes;
    const DevLearner* learners;
    DevStage stage;
    BlockNorm norm;
    float epsilon, hys_clip;
    bool split;  // HogParams::votes is split: gradient-plane entries carry an upper share
    const std::uint8_t* owner;  // plane sums: chunk c's thread t sums learner owner[c · kPlaneThreads + t] of the chunk (kIdle: none)
};

// The window's top-left point in the HoG tables (HogPlanes::grid_shift: on the grid, whose points
// every window position and block corner lie on) and the tables' row pitch.
__device__ __forceinline__ void hog_window_origin(const SurvivorArgs& a, const HogStageArgs& h, std::uint32_t id, long long& base,
                                                  int& pitch) {
    int wx, wy;
    const DevLevel& L = window_level(a, id, wx, wy);
    pitch = L.hog_pitch;
    const int s = h.planes.grid_shift;
    base = L.hog_ih + static_cast<long long>((wy * a.stride) >> s) * L.hog_pitch + ((wx * a.stride) >> s);
}

__device__ __forceinline__ float learner_vote(const DevLearner& l, const HogStageArgs& a, long long base, int pitch) {
    const int s = a.planes.grid_shift;
    const int xs[3] = {l.bx >> s, (l.bx + l.bw / 2) >> s, (l.bx + l.bw) >> s};
    const int ys[3] = {l.by >> s, (l.by + l.bh / 2) >> s, (l.by + l.bh) >> s};
    uint4 pa[9], pb[9];
    std::uint32_t pc[9];
#pragma unroll
    for (int j = 0; j < 3; ++j)
#pragma unroll
        for (int i = 0; i < 3; ++i) {
            const long long idx = base + static_cast<long long>(ys[j]) * pitch + xs[i];
            pa[j * 3 + i] = __ldg(a.planes.A + idx);
            pb[j * 3 + i] = __ldg(a.planes.B + idx);
            pc[j * 3 + i] = __ldg(a.planes.C + idx);
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
    return block_math::vote(a.stage.vote, l.alpha, m);
}

// Small stages. Thread mapping: one thread per window (grid-stride over the survivors, a block
// at a time); survivors appended as CudaOptions::compaction says (survivors.cuh).
__global__ void __launch_bounds__(kThreads) stage_thread_kernel(SurvivorArgs a, HogStageArgs h) {
    const std::uint32_t count = a.in_count ? *a.in_count : a.n_windows;
    const std::uint32_t loop_n = a.flags ? a.n_windows : count;
    const std::uint32_t step = gridDim.x * blockDim.x;
    // Block-uniform loop: append() may synchronise the block.
    for (std::uint32_t block_i = blockIdx.x * blockDim.x; block_i < loop_n; block_i += step) {
        const std::uint32_t i = block_i + threadIdx.x;
        bool pass = false;
        std::uint32_t id = 0;
        if (i < count) {
            id = a.in_ids ? a.in_ids[i] : i;
            long long origin;
            int pitch;
            hog_window_origin(a, h, id, origin, pitch);
            float sum = 0.0f;
            for (int k = 0; k < h.stage.count; ++k) sum += learner_vote(h.learners[k], h, origin, pitch);
            const float score = stage_margin(a, h.stage, id, sum);
            pass = score >= 0.0f;
            record(a, id, score, pass, h.stage.carry != 0.0f);
        }
        append(a, i, loop_n, id, pass);
    }
}

// Large stages. Thread mapping: one warp per window; lane l evaluates learners l, l+32, …; the
// votes are summed in learner order (shuffles from lane 0 to 31), so the sum is the CPU's.
__global__ void __launch_bounds__(kThreads) stage_warp_kernel(SurvivorArgs a, HogStageArgs h) {
    const int lane = threadIdx.x & 31;
    for_each_window_per_warp(a, [&](std::uint32_t w, std::uint32_t id) {
        long long origin;
        int pitch;
        hog_window_origin(a, h, id, origin, pitch);
        float sum = 0.0f;
        for (int c0 = 0; c0 < h.stage.count; c0 += 32) {
            const int k = c0 + lane;
            const float vote = k < h.stage.count ? learner_vote(h.learners[k], h, origin, pitch) : 0.0f;
            const int lim = min(32, h.stage.count - c0);
            for (int j = 0; j < lim; ++j) sum += __shfl_sync(kFullMask, vote, j);
        }
        const float score = stage_margin(a, h.stage, id, sum);
        const bool pass = score >= 0.0f;
        if (lane == 0) {
            record(a, id, score, pass, h.stage.carry != 0.0f);
            append_one(a, w, id, pass);
        }
    });
}

// After an LBP prefix, from gradient planes (PrefixPlanes::SurvivorBlocks): no integral
// histograms; each survivor's blocks are summed pixel by pixel. Thread mapping: one block of
// kPlaneThreads threads per window (grid-stride over the survivors); the learners in chunks of up
// to kPlaneChunk: the chunk's learners side by side, each on its share of the block's threads
// (plane_threads), which add its pixels into its 36 cell bins in shared memory (shared atomics: integer sums, exact in any order, so
// equal to the integral histogram's differences); lane j of warp 0 then normalises learner j and
// votes, and warp 0 adds the votes in learner order (shuffles), as hog_stage_sum does on the CPU,
// while the other warps sum the next chunk's pixels (plane_stage_sum). A stage's pixels are
// spread over the whole block, so its critical path is short even for the few windows of late
// stages (a warp per learner took 50 µs a stage at 1280×960).
constexpr int kPlaneThreads = 256, kPlaneChunk = 16;
constexpr std::uint8_t kIdle = 0xFF;  // HogStageArgs::owner: a thread with no learner

// Shares a chunk's kPlaneThreads threads among its m learners (blocks bw × bh) so that the one
// with the most pixels a thread has few: every learner starts with one thread, then the learner
// whose threads have the most pixels each gets more (one more while it has fewer threads than
// columns, then another row of bw) until that one cannot. Sets each learner's t0, threads,
// rows_per_pass and bw_magic and writes the chunk's owner table (kIdle for threads left over).
void plane_threads(DevLearner* chunk, int m, std::uint8_t* owner) {
    auto pixels_a_thread = [](const DevLearner& l, int u) {
        return u < l.bw ? l.bh * ((l.bw + u - 1) / u) : ((l.bh + u / l.bw - 1) / (u / l.bw));
    };
    auto more = [](const DevLearner& l, int u) { return u < l.bw ? 1 : (u / l.bw + 1) * l.bw - u; };
    std::vector<int> u(static_cast<std::size_t>(m), 1);
    int left = kPlaneThreads - m;
    for (;;) {  // the chunk takes as long as its slowest learner: help that one while threads are left
        int slowest = 0;
        for (int j = 1; j < m; ++j)
            if (pixels_a_thread(chunk[j], u[j]) > pixels_a_thread(chunk[slowest], u[slowest])) slowest = j;
        const int add = more(chunk[slowest], u[slowest]);
        if (add > left) break;
        left -= add;
        u[static_cast<std::size_t>(slowest)] += add;
    }
    std::fill(owner, owner + kPlaneThreads, kIdle);
    int t0 = 0;
    for (int j = 0; j < m; ++j) {
        DevLearner& l = chunk[j];
        l.t0 = t0;
        l.threads = u[static_cast<std::size_t>(j)];
        l.rows_per_pass = std::max(1, l.threads / l.bw);
        l.bw_magic = static_cast<std::uint32_t>(((std::uint64_t{1} << 32) + static_cast<std::uint64_t>(l.bw) - 1) /
                                                static_cast<std::uint64_t>(l.bw));
        std::fill(owner + t0, owner + t0 + l.threads, static_cast<std::uint8_t>(j));
        t0 += l.threads;
    }
}

// The window's first gradient-plane pixel (level L, window id) and the level's row length.
__device__ __forceinline__ const std::uint32_t* window_plane(const SurvivorArgs& a, const std::uint32_t* G, std::uint32_t id,
                                                             int& width) {
    int wx, wy;
    const DevLevel& L = window_level(a, id, wx, wy);
    width = L.width;
    return G + L.px + static_cast<long long>(wy * a.stride) * L.width + wx * a.stride;
}

// The plane sums' cell bins in shared memory: two chunks' worth, so that warp 0 can normalise one
// chunk while the other warps sum the next chunk's pixels into the other. A pixel phase always
// starts on zeroed bins: plane_bins_clear zeroes both when a block starts, and afterwards each
// learner's bins are zeroed by the lane that reads them (chunk_votes).
using PlaneBins = std::uint32_t[2][kPlaneChunk * kBlockDims];

__device__ __forceinline__ void plane_bins_clear(PlaneBins& bins) {
    for (int i = threadIdx.x; i < 2 * kPlaneChunk * kBlockDims; i += kPlaneThreads) (&bins[0][0])[i] = 0;
    __syncthreads();
}

// Warp 0: the votes of the chunk's m learners (lane j: learner c0 + j) from its bins, which it
// zeroes as it reads them, added to `sum` in learner order (every lane gets the same sum).
__device__ __forceinline__ float chunk_votes(const HogStageArgs& h, int c0, int m, std::uint32_t* bins, float sum) {
    constexpr float kToGray = 1.0f / kMagnitudeScale;
    const int lane = static_cast<int>(threadIdx.x);
    float vote = 0.0f;
    if (lane < m) {
        const DevLearner& l = h.learners[c0 + lane];
        float v[kBlockDims];
        for (int i = 0; i < kBlockDims; ++i) {
            v[i] = static_cast<float>(bins[lane * kBlockDims + i]) * kToGray;
            bins[lane * kBlockDims + i] = 0;
        }
        block_math::normalise(v, h.norm, h.epsilon, h.hys_clip);
        vote = block_math::vote(h.stage.vote, l.alpha, block_math::margin(l.w, l.bias, v));
    }
    for (int j = 0; j < m; ++j) sum += __shfl_sync(kFullMask, vote, j);
    return sum;
}

// One stage's sum of votes for the window at `plane` (the whole block calls it; the sum is warp
// 0's). Split: the model's votes are split (HogStageArgs::split; a template parameter, so that
// nearest-bin models run the plain loop). One barrier a chunk: after it, warp 0 normalises the
// chunk (chunk_votes) while the other warps go on to the next chunk's pixels in the other bins;
// warp 0 joins them when it is done. On return only warp 0 has finished: the caller
// synchronises the block before the bins are used again or the sum is shared.
template <bool Split>
__device__ float plane_stage_sum(const HogStageArgs& h, const std::uint32_t* plane, int width, PlaneBins& bins) {
    float sum = 0.0f;
    int buf = 0;
    for (int c0 = 0; c0 < h.stage.count; c0 += kPlaneChunk, buf ^= 1) {
        const int m = min(kPlaneChunk, h.stage.count - c0);
        // The chunk's learners side by side, each on its own threads (plane_threads), so that a
        // chunk takes as long as its slowest share, not the sum of its learners. Thread t of a
        // learner's u threads takes column t mod bw of rows t / bw, t / bw + rows, … (when u < bw:
        // columns t, t + u, … of every row), so its cell column is fixed and its pixel pointer
        // advances by a constant: a pixel costs a load, a shift, a mask and a shared atomic.
        const int t = static_cast<int>(threadIdx.x);
        if (const int j = h.owner[c0 / kPlaneChunk * kPlaneThreads + t]; j != kIdle) {
            const DevLearner& l = h.learners[c0 + j];
            const int bw = l.bw, bh = l.bh, rows = l.rows_per_pass, u = t - l.t0;
            const int row0 = static_cast<int>(__umulhi(static_cast<std::uint32_t>(u), l.bw_magic));
            if (row0 < rows) {
                const long long step = static_cast<long long>(rows) * width;
                const int hh = bh / 2;
                for (int col = u - row0 * bw; col < bw; col += l.threads) {
                    const std::uint32_t* p = plane + static_cast<long long>(l.by + row0) * width + l.bx + col;
                    std::uint32_t* cell = bins[buf] + j * kBlockDims + (col >= bw / 2 ? kOrientationBins : 0);
                    auto add = [&](std::uint32_t* c, std::uint32_t e) {
                        // The lower part to the bin, the upper (split votes only) to the next.
                        const std::uint32_t bin = entry_bin(e), high = Split ? entry_upper(e) : 0u;
                        atomicAdd(c + bin, entry_magnitude(e) - high);
                        if (Split && high) atomicAdd(c + next_bin(bin), high);
                    };
                    // The column's rows y = row0, row0 + rows, … < bh, four loads in flight: the
                    // top cell's bins for y < bh / 2, the bottom cell's after.
                    std::uint32_t* const bottom = cell + 2 * kOrientationBins;
                    auto to = [&](int yy) { return yy < hh ? cell : bottom; };
                    int y = row0;
                    for (; y + 3 * rows < bh; y += 4 * rows, p += 4 * step) {
                        const std::uint32_t e0 = __ldg(p), e1 = __ldg(p + step), e2 = __ldg(p + 2 * step), e3 = __ldg(p + 3 * step);
                        add(to(y), e0);
                        add(to(y + rows), e1);
                        add(to(y + 2 * rows), e2);
                        add(to(y + 3 * rows), e3);
                    }
                    for (; y < bh; y += rows, p += step) add(to(y), __ldg(p));
                }
            }
        }
        // The chunk's sums are complete, and (warp 0 having passed it only after the chunk
        // before's votes) the other bins are zero again for the next chunk.
        __syncthreads();
        if (t < 32) sum = chunk_votes(h, c0, m, bins[buf], sum);
    }
    return sum;
}

template <bool Split>
__global__ void __launch_bounds__(kPlaneThreads) stage_plane_kernel(SurvivorArgs a, HogStageArgs h,
                                                                     const std::uint32_t* __restrict__ G) {
    __shared__ PlaneBins bins;
    plane_bins_clear(bins);
    const std::uint32_t count = a.in_count ? *a.in_count : a.n_windows;
    const std::uint32_t loop_n = a.flags ? a.n_windows : count;
    for (std::uint32_t w = blockIdx.x; w < loop_n; w += gridDim.x) {
        if (w >= count) {
            if (threadIdx.x == 0) a.flags[w] = 0;  // only reached with flags (loop_n > count)
            continue;
        }
        const std::uint32_t id = a.in_ids ? a.in_ids[w] : w;
        int width;
        const float sum = plane_stage_sum<Split>(h, window_plane(a, G, id, width), width, bins);
        if (threadIdx.x == 0) {
            const float score = stage_margin(a, h.stage, id, sum);
            const bool pass = score >= 0.0f;
            record(a, id, score, pass, h.stage.carry != 0.0f);
            append_one(a, w, id, pass);
        }
        __syncthreads();  // warp 0's last votes (and zeroed bins) before the next window's pixels
    }
}

// The model's last stages in one launch (CudaOptions::hog_tail_from), from gradient planes. The
// late stages of a hybrid see a few hundred windows each, and as launches of their own each
// costs more in launch and drain than in work. Thread mapping: one block per window (grid-stride
// over the survivors), which it takes through stage after stage (the same sums as
// stage_plane_kernel, recorded as each stage's launch would) until one rejects it. Counts: the
// windows that pass tail stage j are counted at out_count[j] (the count slot of that stage's
// launch, for DetectStats); those that pass the last are appended at out_count[n - 1].
template <bool Split>
__global__ void __launch_bounds__(kPlaneThreads) tail_plane_kernel(SurvivorArgs a, const HogStageArgs* __restrict__ stages, int n,
                                                                    const std::uint32_t* __restrict__ G) {
    __shared__ int pass_all;
    __shared__ PlaneBins bins;
    plane_bins_clear(bins);
    const std::uint32_t count = *a.in_count;
    const int first = a.stage_index;
    for (std::uint32_t w = blockIdx.x; w < count; w += gridDim.x) {
        const std::uint32_t id = a.in_ids[w];
        int width;
        const std::uint32_t* plane = window_plane(a, G, id, width);
        for (int j = 0; j < n; ++j) {
            const HogStageArgs& h = stages[j];
            // Synchronises the block before it writes (every stage has learners: make_hog_tail), so
            // every thread has read the stage before's pass_all.
            const float sum = plane_stage_sum<Split>(h, plane, width, bins);
            if (threadIdx.x == 0) {
                SurvivorArgs at = a;
                at.stage_index = first + j;
                const float score = stage_margin(at, h.stage, id, sum);
                const bool pass = score >= 0.0f;
                record(at, id, score, pass, h.stage.carry != 0.0f);
                if (pass && j + 1 < n) atomicAdd(a.out_count + j, 1u);
                if (pass && j + 1 == n) a.out_ids[atomicAdd(a.out_count + j, 1u)] = id;
                pass_all = pass ? 1 : 0;
            }
            __syncthreads();
            if (!pass_all) break;
        }
        __syncthreads();  // pass_all read by every thread before the next window's stages
    }
}

class HogSvmCudaStage final : public CudaStage {
public:
    HogSvmCudaStage(const HogSvmStage& stage, const HogParams& hog, const CudaOptions& options) {
        std::vector<DevLearner> learners;
        for (const HogLearner& l : stage.learners) {
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
        // Each chunk's threads for the sums from gradient planes (plane_threads writes every entry
        // of its chunk's table; a stage with no learners keeps one table that nothing reads).
        const std::size_t chunks = (learners.size() + kPlaneChunk - 1) / kPlaneChunk;
        std::vector<std::uint8_t> owner(std::max<std::size_t>(chunks, 1) * kPlaneThreads);
        for (std::size_t c = 0; c < chunks; ++c)
            plane_threads(learners.data() + c * kPlaneChunk, static_cast<int>(std::min<std::size_t>(kPlaneChunk, learners.size() - c * kPlaneChunk)),
                          owner.data() + c * kPlaneThreads);
        learners_.reserve(learners.size());
        CK(cudaMemcpy(learners_.p, learners.data(), learners.size() * sizeof(DevLearner), cudaMemcpyHostToDevice));
        owner_.reserve(owner.size());
        CK(cudaMemcpy(owner_.p, owner.data(), owner.size(), cudaMemcpyHostToDevice));
        args_.learners = learners_.p;
        args_.owner = owner_.p;
        args_.stage = {static_cast<int>(stage.learners.size()), stage.threshold, vote_rule(stage.vote), stage.carry};
        args_.norm = hog.norm;
        args_.epsilon = hog.epsilon;
        args_.hys_clip = hog.hys_clip;
        args_.split = hog.votes == OrientationVotes::Split;
        warp_ = args_.stage.count >= options.warp_stage_min_learners;
    }
    std::uint32_t weak_per_window() const override { return static_cast<std::uint32_t>(args_.stage.count); }
    bool heavy() const override { return warp_; }
    std::uint32_t weak_after(int) const override { return static_cast<std::uint32_t>(args_.stage.count); }
    void launch(const SurvivorArgs& s, const FrameFeatures& f, int, int grid_limit, cudaStream_t stream) const override {
        HogStageArgs h = args_;
        h.planes = f.hog;
        if (f.gradients) {  // a block per survivor; never the frame's first launch (an LBP prefix runs first)
            const int all = static_cast<int>(std::min<std::size_t>(s.n_windows, 0x7fffffff));
            const int grid = grid_limit > 0 ? std::min(all, grid_limit * 4) : all;
            auto kernel = h.split ? stage_plane_kernel<true> : stage_plane_kernel<false>;
            kernel<<<grid, kPlaneThreads, 0, stream>>>(s, h, f.gradients);
            CK_LAUNCH();
            return;
        }
        // Grid: enough for every window of the first stage; later stages (fewer survivors, count
        // known only on the device) loop over them with a grid of a few waves.
        const std::size_t work = warp_ ? static_cast<std::size_t>(s.n_windows) * 32 : s.n_windows;
        const int grid = grid_limit > 0 ? std::min(blocks_for(work), grid_limit) : blocks_for(work);
        if (warp_) stage_warp_kernel<<<grid, kThreads, 0, stream>>>(s, h);
        else stage_thread_kernel<<<grid, kThreads, 0, stream>>>(s, h);
        CK_LAUNCH();
    }

    const HogStageArgs& args() const { return args_; }

private:
    DeviceBuffer<DevLearner> learners_;
    DeviceBuffer<std::uint8_t> owner_;
    HogStageArgs args_{};
    bool warp_ = false;
};

class HogTail final : public CudaTail {
public:
    explicit HogTail(const std::vector<HogStageArgs>& stages) : n_(static_cast<int>(stages.size())), split_(stages.front().split) {
        stages_.reserve(stages.size());
        CK(cudaMemcpy(stages_.p, stages.data(), stages.size() * sizeof(HogStageArgs), cudaMemcpyHostToDevice));
    }
    void launch(const SurvivorArgs& s, const FrameFeatures& f, int grid_limit, cudaStream_t stream) const override {
        auto kernel = split_ ? tail_plane_kernel<true> : tail_plane_kernel<false>;
        kernel<<<grid_limit * 4, kPlaneThreads, 0, stream>>>(s, stages_.p, n_, f.gradients);
        CK_LAUNCH();
    }

private:
    DeviceBuffer<HogStageArgs> stages_;
    int n_;
    bool split_;  // every stage's HogStageArgs::split (one model)
};
}  // namespace

std::unique_ptr<CudaTail> make_hog_tail(const std::vector<std::unique_ptr<CudaStage>>& stages, std::size_t from) {
    std::vector<HogStageArgs> args;
    for (std::size_t k = from; k < stages.size(); ++k) {
        const auto* h = dynamic_cast<const HogSvmCudaStage*>(stages[k].get());
        if (h == nullptr || h->args().stage.count == 0) return nullptr;
        args.push_back(h->args());
    }
    if (args.size() < 2) return nullptr;  // a single stage: its own launch is the same
    return std::make_unique<HogTail>(args);
}

CudaStageKind hog_svm_cuda_kind() {
    FeatureNeeds needs;
    needs.hog = true;
    return {HogSvmStage::kKind, needs,
            [](const Stage& s, const CascadeModel& m, const CudaOptions& o, const StageSetting&) -> std::unique_ptr<CudaStage> {
                return std::make_unique<HogSvmCudaStage>(s.as<HogSvmStage>(), m.hog, o);
            },
            {}};  // reads no gray integral images
}

}  // namespace cascadekit::cuda
