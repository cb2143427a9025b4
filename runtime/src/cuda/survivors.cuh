#pragma once
// Internal (CUDA backend): survivor bookkeeping shared by every stage kind's kernels: where a
// window lies, its running score, and appending it to the next stage's list.
#include <cstdint>

#include "cuda_support.cuh"
#include "device_types.cuh"

namespace cascadekit::cuda {

// The window's level, and its column wx and row wy in that level's grid of windows.
__device__ __forceinline__ const DevLevel& window_level(const SurvivorArgs& a, std::uint32_t id, int& wx, int& wy) {
    const int li = find_level(a.n_levels, id, [&](int l) { return a.levels[l].win0; });
    const DevLevel& L = a.levels[li];
    const int local = static_cast<int>(id - L.win0);
    wy = local / L.cols;
    wx = local - wy * L.cols;
    return L;
}

// The window's level and its top-left point (index into that level's integral histogram).
__device__ __forceinline__ void window_origin(const SurvivorArgs& a, std::uint32_t id, long long& base, int& pitch) {
    int wx, wy;
    const DevLevel& L = window_level(a, id, wx, wy);
    pitch = L.pitch;
    base = L.ih + static_cast<long long>(wy * a.stride) * L.pitch + wx * a.stride;
}

// win_score: a surviving window's running score, the sum of its stages' margins (added in stage
// order, as the CPU's CascadeEvaluator does; a nested stage's margin, `replace`, takes its place),
// a rejected window's rejecting margin. A rejected window is
// only read back with keep_rejected, so it is written only then (at 1920×1080 the first
// WaldBoost launch rejects 9 M windows: 54 MB of writes a frame otherwise).
__device__ __forceinline__ void record(const SurvivorArgs& a, std::uint32_t id, float score, bool pass, bool replace = false) {
    if (!pass && !a.keep_rejected) return;
    const float cleared = a.stage_index == 0 || replace ? 0.0f : a.win_score[id];
    a.win_score[id] = pass && !replace ? cleared + score : score;
    if (!pass || a.stage_index == a.n_stages - 1) a.win_stage[id] = static_cast<std::int16_t>(pass ? a.n_stages : a.stage_index);
}

// Every launch over survivors appends the windows that pass to out_ids (survivor compaction),
// one of three ways (CudaOptions::compaction). Callers loop block-uniformly (every thread of a
// block calls append() the same number of times; `pass` false for threads without a window).
//   flags (CubSelect): flags[i] for input position i; cub::DeviceSelect::Flagged compacts after.
//   warp atomics: a warp's survivors with one global atomicAdd (ballot + popc).
//   block atomics (Macenauer's best): a block's survivors gathered in shared memory with shared
//   atomics, one global atomicAdd per block, then written out contiguously.
__device__ __forceinline__ void append_warp(const SurvivorArgs& a, std::uint32_t id, bool pass) {
    const int lane = threadIdx.x & 31;
    const unsigned m = __ballot_sync(kFullMask, pass);
    if (m) {
        std::uint32_t pos = 0;
        if (lane == 0) pos = atomicAdd(a.out_count, static_cast<std::uint32_t>(__popc(m)));
        pos = __shfl_sync(kFullMask, pos, 0);
        if (pass) a.out_ids[pos + __popc(m & ((1u << lane) - 1u))] = id;
    }
}

template <int Threads>
__device__ __forceinline__ void append_block(const SurvivorArgs& a, std::uint32_t id, bool pass) {
    __shared__ std::uint32_t ids[Threads];
    __shared__ std::uint32_t n, at;
    if (threadIdx.x == 0) n = 0;
    __syncthreads();
    if (pass) ids[atomicAdd(&n, 1u)] = id;
    __syncthreads();
    if (threadIdx.x == 0 && n > 0) at = atomicAdd(a.out_count, n);
    __syncthreads();
    if (threadIdx.x < n) a.out_ids[at + threadIdx.x] = ids[threadIdx.x];
    __syncthreads();  // n and ids are reused by the next call
}

// i: the thread's input position, loop_n the loop's bound (all windows with flags); Threads: the
// block's size.
template <int Threads = kThreads>
__device__ __forceinline__ void append(const SurvivorArgs& a, std::uint32_t i, std::uint32_t loop_n, std::uint32_t id,
                                       bool pass) {
    if (a.flags) {
        if (i < loop_n) a.flags[i] = pass ? 1 : 0;
    } else if (a.block_append) {
        append_block<Threads>(a, id, pass);
    } else {
        append_warp(a, id, pass);
    }
}

// Launches with a warp per window: grid-stride over the survivors a warp at a time, body(w, id)
// for each input position w the warp takes (every lane calls it, with the same w). Positions
// past the survivor count, which only CubSelect's loop over every window reaches, get flag 0.
template <class Body>
__device__ __forceinline__ void for_each_window_per_warp(const SurvivorArgs& a, Body&& body) {
    const std::uint32_t count = a.in_count ? *a.in_count : a.n_windows;
    const std::uint32_t loop_n = a.flags ? a.n_windows : count;
    const std::uint32_t warps = gridDim.x * blockDim.x / 32;
    for (std::uint32_t w = (blockIdx.x * blockDim.x + threadIdx.x) / 32; w < loop_n; w += warps) {
        if (w >= count) {
            if ((threadIdx.x & 31) == 0) a.flags[w] = 0;
            continue;
        }
        body(w, a.in_ids ? a.in_ids[w] : w);
    }
}

// One thread's append for a window that a whole warp or block evaluated (input position w):
// its flag with CubSelect, else one atomicAdd when it passes.
__device__ __forceinline__ void append_one(const SurvivorArgs& a, std::uint32_t w, std::uint32_t id, bool pass) {
    if (a.flags) a.flags[w] = pass ? 1 : 0;
    else if (pass) a.out_ids[atomicAdd(a.out_count, 1u)] = id;
}

// Adds the block's counts of weak classifiers evaluated to the frame's counter: one global atomic
// a block (every thread of the block calls it once, with its own count), instead of one a warp
// on that one counter. Measured: no change in time at 1920×1080;
// kept because it costs nothing.
__device__ __forceinline__ void count_weak(const SurvivorArgs& a, std::uint32_t evaluated) {
    __shared__ unsigned long long block_sum;
    if (threadIdx.x == 0) block_sum = 0;
    __syncthreads();
    const std::uint32_t sum = __reduce_add_sync(kFullMask, evaluated);
    if ((threadIdx.x & 31) == 0 && sum > 0) atomicAdd(&block_sum, static_cast<unsigned long long>(sum));
    __syncthreads();
    if (threadIdx.x == 0 && block_sum > 0) atomicAdd(a.weak_count, block_sum);
}

struct OutEntry {
    std::uint32_t id;
    float score;
};

// The accepted windows' ids and scores, for the read-back. Thread mapping: one thread per accepted
// window (grid-stride; `blocks` blocks).
void launch_gather(const std::uint32_t* ids, const std::uint32_t* count, const float* win_score, OutEntry* out, int blocks,
                   cudaStream_t stream);

}  // namespace cascadekit::cuda
