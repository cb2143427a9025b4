#pragma once
// Internal (CUDA backend): the input frame to gray, and its octaves.
#include <cuda_runtime.h>

#include <cstdint>

namespace cascadekit::cuda {

// BT.601 fixed-point luma, the CPU's integers (kLuma*). Thread mapping: one thread per pixel.
void launch_gray(const std::uint8_t* in, std::uint8_t* gray, int n_pixels, int channels, bool bgr, cudaStream_t stream);

// The input's R, G and B channels as three planes, plane c at planes + c·plane_stride (features'
// to_planes; a gray input gives three copies). Thread mapping: one thread per pixel.
void launch_planes(const std::uint8_t* in, std::uint8_t* planes, long long plane_stride, int n_pixels, int channels, bool bgr,
                   cudaStream_t stream);

// Octave k+1 from octave k: 2×2 box average, rounded, floor sizes (features' halve()).
// Thread mapping: one thread per output pixel.
void launch_halve(const std::uint8_t* src, int src_width, std::uint8_t* dst, int dst_width, int dst_height,
                  cudaStream_t stream);

}  // namespace cascadekit::cuda
