#pragma once
// Internal (CUDA backend): every pyramid level's integral histogram, built in two passes over all
// levels of a frame at once (resampling from the level's octave fused into the first).
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "device_types.cuh"

namespace cascadekit::cuda {

constexpr int kRowsPerBlock = 4;  // level rows per block of the row pass

// How a frame's gradients are made (HogParams::gradient()): gamma, the device copy of
// gamma_table(HogParams::gamma), null for none (the resampled gray levels go through it first);
// split, OrientationVotes::Split; rgba, for HogParams::channels colour: the frame's octaves with
// R, G and B in bytes 0-2 of a word a pixel (laid out as the gray octaves), each pixel taking the
// gradient of the channel of largest gx² + gy² (the first on ties); null: the gray octaves.
struct GradientSetting {
    const std::uint8_t* gamma = nullptr;
    bool split = false;
    const std::uint32_t* rgba = nullptr;
};

// Row pass. Thread mapping: one block of 128 threads per (level, 4 rows); each thread takes 4
// consecutive pixels of a 512-pixel tile of a row. Resamples the level rows it needs (fixed-point
// bilinear, pyramid.hpp; of every plane with colour), bins every pixel's [-1 0 1] gradient as
// features/gradient.cpp does and writes each row's running sums (row 0 of every level stays
// zero). gray: the gray octaves (unread with GradientSetting::rgba). grid 2 or kRowsPerBlock (4):
// the table on that grid instead (DevLevel::hog_*; IntegralHistogram::compute's grid): each thread
// sums one cell of grid × grid pixels, one scan per tile of 128 cells.
void launch_row_pass(const std::uint8_t* gray, const DevLevel* levels, int n_levels, const AxisEntry* xtab,
                     const AxisEntry* ytab, int total_row_blocks, int max_width, GradientSetting gradient, int grid, uint4* A,
                     uint4* B, std::uint32_t* C, cudaStream_t stream);
// Sets the row pass's dynamic shared memory limit for rows of up to max_width pixels (host call,
// outside graph capture).
void prepare_row_pass(int max_width);

// Gradient planes instead (hog_svm stages after an LBP prefix, PrefixPlanes::SurvivorBlocks): the
// row pass's resampling and binning without the scan. Thread mapping: one block of 128 threads
// per (level, 4 rows), a thread per pixel of a row; writes gradient_entry() (features'
// GradientPlane) at level L's L.px. prepare_row_pass() sizes its shared memory too.
void launch_gradient_plane(const std::uint8_t* gray, const DevLevel* levels, int n_levels, const AxisEntry* xtab,
                           const AxisEntry* ytab, int total_row_blocks, int max_width, GradientSetting gradient, std::uint32_t* G,
                           cudaStream_t stream);

// Column pass. Thread mapping: one thread per (plane, level, column x >= 1) of the HoG tables
// (DevLevel::hog_*: total_cols columns in all); each adds down its column, 8 loads in flight.
// Modular uint32 addition, as on the CPU.
void launch_column_pass(const DevLevel* levels, int n_levels, int total_cols, uint4* A, uint4* B, std::uint32_t* C,
                        cudaStream_t stream);

}  // namespace cascadekit::cuda
