#pragma once
// Internal (CUDA backend): the input frame to gray, and its octaves.
#include <cuda_runtime.h>

#include <cstdint>

namespace cascadekit::cuda {

// BT.601 fixed-point luma, the CPU's integers (kLuma*). Thread mapping: one thread per pixel.
void launch_gray(const std::uint8_t* in, std::uint8_t* gray, int n_pixels, int channels, bool bgr, cudaStream_t stream);

// The input's R, G and B channels in bytes 0-2 of a word a pixel (features' to_planes; a gray
// input gives three copies). Thread mapping: one thread per pixel.
void launch_rgba(const std::uint8_t* in, std::uint32_t* rgba, int n_pixels, int channels, bool bgr, cudaStream_t stream);

// Octave k+1 from octave k: 2×2 box average, rounded, floor sizes (features' halve()).
// Thread mapping: one thread per output pixel.
void launch_halve(const std::uint8_t* src, int src_width, std::uint8_t* dst, int dst_width, int dst_height,
                  cudaStream_t stream);
// The same for each of the R, G, B bytes of launch_rgba's words.
void launch_halve_rgba(const std::uint32_t* src, int src_width, std::uint32_t* dst, int dst_width, int dst_height,
                       cudaStream_t stream);

}  // namespace cascadekit::cuda
