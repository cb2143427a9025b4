#pragma once
// Internal (CUDA backend): survivor bookkeeping shared by every stage kind's kernels: where a
// window lies, its running score, and appending it to the next stage's list.
#include <cstdint>

#include "cuda_support.cuh"
#include "device_types.cuh"

namespace cascadekit::cuda {

// The window's level and its top-left point (index into that level's integral histogram).
__device__ __forceinline__ void window_origin(const SurvivorArgs& a, std::uint32_t id, long long& base, int& pitch) {
    const int li = find_level(a.n_levels, id, [&](int l) { return a.levels[l].win0; });
    const DevLevel& L = a.levels[li];
    const int local = static_cast<int>(id - L.win0);
    const int wy = local / L.cols, wx = local - wy * L.cols;
    pitch = L.pitch;
    base = L.ih + static_cast<long long>(wy * a.stride) * L.pitch + wx * a.stride;
}

// win_score: a surviving window's running sum of its stages' margins (added in stage order, as
// the CPU's CascadeEvaluator does), a rejected window's rejecting margin.
__device__ __forceinline__ void record(const SurvivorArgs& a, std::uint32_t id, float score, bool pass) {
    const float cleared = a.stage_index == 0 ? 0.0f : a.win_score[id];
    a.win_score[id] = pass ? cleared + score : score;
    if (!pass || a.stage_index == a.n_stages - 1) a.win_stage[id] = static_cast<std::int16_t>(pass ? a.n_stages : a.stage_index);
}

// A warp's survivors appended with one atomicAdd (lane-aligned calls: every lane of the warp
// calls it, `pass` false for lanes without a window), or flags for CUB's select.
__device__ __forceinline__ void append_warp(const SurvivorArgs& a, std::uint32_t i, std::uint32_t loop_n, std::uint32_t id,
                                            bool pass) {
    if (a.flags) {
        if (i < loop_n) a.flags[i] = pass ? 1 : 0;
        return;
    }
    const int lane = threadIdx.x & 31;
    const unsigned m = __ballot_sync(kFullMask, pass);
    if (m) {
        std::uint32_t pos = 0;
        if (lane == 0) pos = atomicAdd(a.out_count, static_cast<std::uint32_t>(__popc(m)));
        pos = __shfl_sync(kFullMask, pos, 0);
        if (pass) a.out_ids[pos + __popc(m & ((1u << lane) - 1u))] = id;
    }
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
