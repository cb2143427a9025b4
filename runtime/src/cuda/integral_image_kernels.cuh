#pragma once
// Internal (CUDA backend): every pyramid level's gray integral image (the LBP stages' feature),
// built in two passes over all levels of a frame at once, the level's resampling from its octave
// fused into the first. Same layout as the integral histograms' points: level L's (height + 1) ×
// (width + 1) points start at L.ih, row 0 and column 0 zero; exact uint32 (modular) sums, as
// features' IntegralImage, or with P = std::uint16_t those sums modulo 2^16 (half the bytes; a
// box's sum below 2^16 is still exact from them: CudaOptions::gray_integral_16).
#include <cuda_runtime.h>

#include <cstdint>

#include "device_types.cuh"

namespace cascadekit::cuda {

// Row pass. Thread mapping: one block of 4 warps per (level, 4 rows) (the row blocks of
// DevLevel::row0), a warp per row; each lane resamples 4 consecutive pixels of a 128-pixel chunk,
// a warp-shuffle scan per chunk carries the row on, and the row's running sums are written (point
// row y + 1). No block barrier: a narrow level idles at most a warp's lanes.
template <class P>  // std::uint32_t or std::uint16_t
void launch_gray_row_pass(const std::uint8_t* gray, const DevLevel* levels, int n_levels, const AxisEntry* xtab,
                          const AxisEntry* ytab, int total_row_blocks, P* I, cudaStream_t stream);

// Column pass. Thread mapping: one block of 32 × 8 threads per (level, strip of 32 columns x >= 1):
// lane = column, warp = one of 8 bands of 8 rows in each 64-row chunk. Each warp loads its band's
// rows into registers (coalesced 128-byte rows, 8 loads in flight) and adds them up; the bands'
// totals are scanned in shared memory together with the sum of the chunks above, and each warp
// writes its rows: every point read once and written once. Modular uint32 sums are exact in any
// order, so the result is the CPU's.
template <class P>  // std::uint32_t or std::uint16_t
void launch_gray_column_pass(const DevLevel* levels, int n_levels, int total_strips, P* I, cudaStream_t stream);

}  // namespace cascadekit::cuda
