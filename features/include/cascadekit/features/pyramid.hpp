#pragma once
// Image pyramids (ALGORITHMS.md §3). Level k is the input shrunk by scale_k = first_scale ·
// step^k; a detection window at level k covers window × scale_k input pixels.
#include <cstdint>
#include <vector>

#include "cascadekit/features/image.hpp"

namespace cascadekit {

struct PyramidLevel {
    double scale = 1.0;  // input pixels per level pixel
    int width = 0;       // floor(input width / scale)
    int height = 0;
};

// Levels with scale first_scale · step^k, k = 0, 1, … while the level is at least the window
// (both sides) and, when max_scale > 0, scale <= max_scale. first_scale < 1 upscales the input
// (for objects smaller than the window). Empty when the first level is smaller than the window.
// Requires: step > 1, first_scale > 0, window sides > 0; throws std::invalid_argument otherwise.
std::vector<PyramidLevel> plan_pyramid(int image_width, int image_height, int window_width,
                                       int window_height, double step, double first_scale = 1.0,
                                       double max_scale = 0.0);

// Bilinear resampling of src to dst_width × dst_height with the given scale (src pixels per dst
// pixel): dst(u, v) samples src at ((u + ½)·scale − ½, (v + ½)·scale − ½), clamped to the image,
// with 11-bit fixed-point weights and rounding (every backend produces the same bytes).
// Like Bilgiç's texture fetch, each level is resampled straight from the input: shrinking by more
// than 2 aliases, as plain bilinear does.
// One axis of that resampling: destination index u reads source indices i0[u] and i1[u] with
// weight wt[u] / 2^kResampleBits on i1 (the CUDA backend uploads these tables).
inline constexpr int kResampleBits = 11;
struct ResampleAxis {
    std::vector<int> i0, i1, wt;
};
ResampleAxis resample_axis(int dst, int src, double scale);

void resample_bilinear(const GrayImage& src, double scale, int dst_width, int dst_height,
                       GrayImage& dst);

}  // namespace cascadekit
