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
    // The HoG integral histogram's layout: as ih, pitch, height and col0, or on the grid of
    // Engine::hog_grid pixels (hog_pitch = width / G + 1 points a row, hog_rows = height / G rows
    // after the zero row).
    long long hog_ih;
    int hog_pitch, hog_rows, hog_col0;
};

// Window tiles: the tiled first launch of a WaldBoost sequence gives each block kTileW × kTileH
// neighbouring windows of one level (one thread each) and their patch of the integral image in
// shared memory.
constexpr int kTileW = 32, kTileH = 8;

// A resampled pixel's first source pixel along one axis (bits 0-20) and the weight of the next one
// (bits 21-31: kResampleBits = 11 bits) in 4 bytes: the row passes read an entry per pixel, and at
// 12 bytes those reads were most of their L1 traffic. The next source pixel is i0 + 1 where the
// weight is not zero (resample_axis() clamps i1 to i0 only with a zero weight), so a zero weight
// reads i0 alone: the same sum. pack_axis() builds it from resample_axis()'s tables.
struct AxisEntry {
    std::uint32_t v;
};
constexpr int kAxisIndexBits = 21;  // source sides up to 2^21 - 1 pixels
__host__ __device__ __forceinline__ int axis_i0(AxisEntry e) { return static_cast<int>(e.v & ((1u << kAxisIndexBits) - 1u)); }
__host__ __device__ __forceinline__ std::uint32_t axis_wt(AxisEntry e) { return e.v >> kAxisIndexBits; }

// Integral histograms in three planes per frame: bins 0-3 and 4-7 as uint4, bin 8 as uint32
// (one point = two 16-byte loads and one 4-byte load). Exact uint32 sums, as on the CPU.
struct HogPlanes {
    const uint4* A;
    const uint4* B;
    const std::uint32_t* C;
    int grid_shift;  // points every 2^grid_shift pixels (Engine::hog_grid), at DevLevel::hog_ih
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
    bool keep_rejected;             // DetectParams::keep_rejected: record rejected windows too
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
