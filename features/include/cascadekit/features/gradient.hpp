#pragma once
// Gradient orientation and magnitude of an 8-bit gray image (Zhu et al., CVPR 2006; Bilgiç, MIT 2010).
//
// Gradients use the centred kernel [-1 0 1] in x and y with no smoothing, as Dalal & Triggs
// found smoothing hurts. At the image border the edge pixel is replicated, so a border pixel's
// gradient is a one-sided difference. Because the input is 8-bit, gx and gy are integers in
// [-255, 255]: every quantity below is computed exactly, so every backend agrees bit for bit.
#include <cstdint>

#include "cascadekit/features/gradient_entry.hpp"
#include "cascadekit/features/image.hpp"

namespace cascadekit {

// Unsigned orientation bin of the gradient (gx, gy): floor(angle / 20°) with the angle of
// atan2(gy, gx) folded into [0°, 180°), i.e. the bin of gradient_entry() with nearest-bin votes.
// Requires |gx|, |gy| <= 255 (tested exhaustively over that domain against atan2). The zero
// gradient is bin 0.
int orientation_bin(int gx, int gy);

// The boundary and centre directions that gradient_entry() compares with (the CUDA backend passes
// these very values to its kernels).
const OrientationGeometry& orientation_geometry();

// round(sqrt(gx² + gy²) * kMagnitudeScale), exact (integer square root of an exact integer).
std::uint32_t quantised_magnitude(int gx, int gy);

inline std::uint32_t gradient_entry(int gx, int gy, OrientationVotes votes) {
    return gradient_entry(gx, gy, votes == OrientationVotes::Split, orientation_geometry());
}

// Gray-level compression before the gradients of HoG features (Dalal & Triggs, CVPR 2005, found
// square-root gamma compression slightly better at low false-positive rates). Sqrt maps level v
// to round(255·√(v/255)) through a 256-entry table, so gradients stay differences of 8-bit values
// and every backend computes the same integers (the CUDA backend copies this very table).
enum class GrayGamma : std::uint8_t { None, Sqrt };
// The table of `gamma` (the identity for None): 256 entries, valid for the program's lifetime.
const std::uint8_t* gamma_table(GrayGamma gamma);

// Which planes the gradients of HoG features are taken from: the gray image, or the three colour
// channels, each pixel taking the channel with the strongest gradient (Dalal & Triggs, CVPR 2005;
// GradientSource in integral_histogram.hpp).
enum class GradientChannels : std::uint8_t { Gray, Colour };

// What the gradients of HoG features are computed from and how they vote (HogParams::gradient()).
struct GradientParams {
    GrayGamma gamma = GrayGamma::None;
    OrientationVotes votes = OrientationVotes::Nearest;
};

// Per-pixel gradient of a gray image: the orientation bin, the quantised magnitude and the part
// of it that goes to the next bin (entry_upper(); 0 with nearest-bin votes).
struct GradientField {
    int width = 0;
    int height = 0;
    std::vector<std::uint8_t> bin;         // row-major, width*height
    std::vector<std::uint32_t> magnitude;  // row-major, width*height, units of 1/kMagnitudeScale
    std::vector<std::uint32_t> upper;      // row-major: to bin (bin + 1) mod 9; magnitude − upper to bin
};

// Computes gx = I(x+1,y) - I(x-1,y), gy = I(x,y+1) - I(x,y-1) with replicated borders.
void gradient_at(const GrayImage& image, int x, int y, int& gx, int& gy);
GradientField compute_gradients(const GrayImage& image, OrientationVotes votes = OrientationVotes::Nearest);

}  // namespace cascadekit
