#pragma once
// Internal (CUDA backend): the data the kernels share, in device memory or kernel arguments.
// Window ids: the windows of a frame are numbered level by level, row-major inside a level
// (DevLevel::win0 is a level's first id), so ids in increasing order are the CPU's scan order.
#include <cuda_runtime.h>

#include <cstdint>

#include "cascadekit/features/gradient.hpp"

namespace cascadekit::cuda {

// One pyramid level of a frame.
struct DevLevel {
    int width, height;  // level pixels
    long long src;      // first pixel of the octave image it is resampled from (in the gray buffer)
    int src_w;          // that octave's width
    int pitch;          // integral-histogram points per row (width + 1)
    int cols, rows;     // windows
    int xtab, ytab;     // first entry of this level's resampling tables
    int row0;           // first row block of the row pass (kRowsPerBlock rows each)
    int col0;           // first global column (column pass threads)
    int strip0;         // first 32-column strip (gray integral column pass blocks)
    long long ih;       // first point of this level's integral histogram
    long long px;       // first pixel of this level's gradient plane (width × height, row-major)
    long long win0;     // first window id
    int tile0;          // first kTileW × kTileH window tile (the tiled first WaldBoost launch)
};

// Window tiles: the tiled first launch of a WaldBoost sequence gives each block kTileW × kTileH
// neighbouring windows of one level (one thread each) and their patch of the integral image in
// shared memory.
constexpr int kTileW = 32, kTileH = 8;

// A resampled pixel's two source pixels along one axis and the weight of the second (11-bit).
struct AxisEntry {
    int i0, i1, wt;
};

// Integral histograms in three planes per frame: bins 0-3 and 4-7 as uint4, bin 8 as uint32
// (one point = two 16-byte loads and one 4-byte load). Exact uint32 sums, as on the CPU.
struct HogPlanes {
    const uint4* A;
    const uint4* B;
    const std::uint32_t* C;
};

// What every stage kernel reads and writes about survivors (survivors.cuh).
struct SurvivorArgs {
    const DevLevel* levels;
    int n_levels;
    int stage_index, n_stages, stride;
    std::uint32_t n_windows;        // all windows of the frame
    int n_tiles;                    // all kTileW × kTileH window tiles of the frame (DevLevel::tile0)
    const std::uint32_t* in_ids;    // nullptr: the first stage, ids 0..n_windows-1
    const std::uint32_t* in_count;  // nullptr: n_windows
    std::uint32_t* out_ids;
    std::uint32_t* out_count;
    std::uint8_t* flags;            // CubSelect: flags[i] for input position i; else nullptr
    bool block_append;              // BlockAtomics: survivors gathered in shared memory per block
    float* win_score;               // per window id: see record()
    std::int16_t* win_stage;        // per window id: rejecting stage, or n_stages when accepted
    float* stage_sum;               // per window id: a stage's running sum between its launches (LBP)
    unsigned long long* weak_count; // weak classifiers evaluated, for kinds that count on the device
};

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

}  // namespace cascadekit::cuda
