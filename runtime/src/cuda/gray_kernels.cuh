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
// Where an octave lies in a frame's octave buffer (octave 0, the gray frame, at 0).
struct GrayOctave {
    long long at;  // first pixel
    int width, height;
};
// Octaves 1 .. n − 1 from octave 0, each launch_halve()'s of the one before, in `gray` as
// `octaves` lay them out: the first kFusedHalvings by one kernel, the rest (frames over 3072
// pixels a side) by launch_halve each. Thread mapping: a block per 64×64 tile of octave 0, which
// halves it into shared memory again and again (32×32, 16×16, ... 1×1), writing each octave's
// pixels of the tile; 256 threads, each several pixels of an octave. It also sets the frame's
// `clear_words` counters at `clear` to zero (a memset for frames of one octave). One kernel where
// a 640×480 frame had four and a memset: a frame's graph node costs host time at every launch and
// a step on its stream. Requires octave 1, when there is one, of at least 1×1 (make_frame_plan's are).
constexpr int kFusedHalvings = 6;
void launch_octaves(std::uint8_t* gray, const GrayOctave* octaves, int n, std::uint32_t* clear, int clear_words, cudaStream_t stream);
// The same for each of the R, G, B bytes of launch_rgba's words.
void launch_halve_rgba(const std::uint32_t* src, int src_width, std::uint32_t* dst, int dst_width, int dst_height,
                       cudaStream_t stream);

}  // namespace cascadekit::cuda
