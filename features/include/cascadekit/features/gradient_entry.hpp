#pragma once
// A pixel's gradient as one 32-bit entry, and the one definition of it that the CPU and the CUDA
// backend both compile (CASCADEKIT_HD), so both give the same bits.
//
// Entry layout: bits 0-16 the quantised magnitude m (round(|g|·kMagnitudeScale) <= 92320 < 2^17),
// bits 17-25 the upper share q (0…256), bits 28-31 the orientation bin b. The pixel adds
// m − u to bin b and u = (m·q + 128) >> 8 to bin b + 1 (mod 9); with nearest-bin votes q is 0.
//
// Orientation: the gradient (gx, gy), |gx|, |gy| <= 255, folded into [0°, 180°) (unsigned). Bin k
// covers [20k°, 20k° + 20°) and is centred at 10° + 20k°.
// - Nearest: the whole magnitude to the bin whose interval holds the angle, decided by the sign
//   of the cross product with each inner boundary 20°, 40°, …, 160°.
// - Split (Dalal & Triggs' interpolation between neighbouring bin centres): the magnitude is
//   shared between the two bin centres c_lo <= θ < c_hi around the angle θ (across the fold at
//   0°/180°: bins 8 and 0). The upper share is s = sin(θ − c_lo) / (sin(θ − c_lo) + sin(c_hi − θ)),
//   i.e. the two cross products of g with the centre directions, so no atan: it is within 0.002 of
//   the linear fraction (θ − c_lo) / 20° (0 at c_lo, ½ half-way, 1 at c_hi). q = round(256·s).
// Every step is one IEEE double operation rounded to nearest, in a fixed order (the CUDA build
// uses --fmad=false and the C++ build does not contract, so no fused multiply-add), and the
// magnitude's square root is correctly rounded on both.
#include <cmath>
#include <cstdint>

#include "cascadekit/features/host_device.hpp"

namespace cascadekit {

inline constexpr int kOrientationBins = 9;  // unsigned, 20° each over [0°, 180°)

// Magnitudes are stored in fixed point with this many units per gray level so that integral
// histograms can be exact 32-bit integers (see integral_histogram.hpp for the error bound).
inline constexpr int kMagnitudeScale = 256;
// Largest quantised magnitude: round(sqrt(255² + 255²) * 256) = round(92319.8) = 92320.
inline constexpr std::uint32_t kMaxQuantisedMagnitude = 92320;

inline constexpr std::uint32_t kEntryMagnitudeMask = (1u << 17) - 1;
inline constexpr int kEntryShareShift = 17;
inline constexpr int kEntryBinShift = 28;

// How a pixel's magnitude votes into the orientation bins (HogParams::votes).
enum class OrientationVotes : std::uint8_t { Nearest, Split };

// cos and sin of the 8 inner bin boundaries 20°, …, 160° and of the 9 bin centres 10°, …, 170°.
struct OrientationGeometry {
    double boundary_cos[8];
    double boundary_sin[8];
    double centre_cos[kOrientationBins];
    double centre_sin[kOrientationBins];
};

CASCADEKIT_HD std::uint32_t entry_bin(std::uint32_t e) { return e >> kEntryBinShift; }
CASCADEKIT_HD std::uint32_t entry_magnitude(std::uint32_t e) { return e & kEntryMagnitudeMask; }
// The part of the magnitude that goes to the next bin (0 for nearest-bin votes).
CASCADEKIT_HD std::uint32_t entry_upper(std::uint32_t e) {
    return (entry_magnitude(e) * ((e >> kEntryShareShift) & 0x1FFu) + 128u) >> 8;
}
CASCADEKIT_HD std::uint32_t next_bin(std::uint32_t b) { return b == kOrientationBins - 1 ? 0u : b + 1; }

// The entry of gradient (gx, gy), |gx|, |gy| <= 255. The zero gradient is bin 0, magnitude 0.
CASCADEKIT_HD std::uint32_t gradient_entry(int gx, int gy, bool split, const OrientationGeometry& g) {
    // sqrt of an exact integer below 2^53 is correctly rounded and never exactly halfway between
    // integers (it is an integer or irrational), so adding ½ and flooring rounds exactly.
    const double v = static_cast<double>(gx * gx + gy * gy) * (kMagnitudeScale * kMagnitudeScale);
    const std::uint32_t mag = static_cast<std::uint32_t>(floor(sqrt(v) + 0.5));
    if (gx == 0 && gy == 0) return 0;
    if (gy < 0 || (gy == 0 && gx < 0)) {  // fold into [0°, 180°)
        gx = -gx;
        gy = -gy;
    }
    const double x = gx, y = gy;
    if (!split) {
        // angle >= 20k°  <=>  sin(angle − 20k°) >= 0  <=>  gy·cos(20k°) − gx·sin(20k°) >= 0,
        // valid because angle − 20k° stays in [−160°, 180°).
        std::uint32_t bin = 0;
        for (int k = 0; k < 8; ++k) bin += (y * g.boundary_cos[k] - x * g.boundary_sin[k] >= 0.0) ? 1u : 0u;
        return bin << kEntryBinShift | mag;
    }
    // cross[k] = |g|·sin(θ − c_k); θ − c_k lies in [−170°, 170°), so its sign says whether c_k <= θ.
    double cross[kOrientationBins];
    int above = 0;  // centres at or below θ
    for (int k = 0; k < kOrientationBins; ++k) {
        cross[k] = y * g.centre_cos[k] - x * g.centre_sin[k];
        above += cross[k] >= 0.0 ? 1 : 0;
    }
    // Below the first centre (θ < 10°) the lower centre is bin 8's, 180° back (−10°); at or past the
    // last (θ >= 170°) the upper one is bin 0's, 180° on (190°). Negating a direction negates its
    // cross product exactly.
    const int lo = above == 0 ? kOrientationBins - 1 : above - 1;
    const double a = above == 0 ? -cross[kOrientationBins - 1] : cross[lo];      // |g|·sin(θ − c_lo) >= 0
    const double b = above == kOrientationBins ? cross[0] : -cross[above];     // |g|·sin(c_hi − θ) > 0
    const double s = a / (a + b);
    const std::uint32_t q = static_cast<std::uint32_t>(floor(s * 256.0 + 0.5));
    return static_cast<std::uint32_t>(lo) << kEntryBinShift | q << kEntryShareShift | mag;
}

}  // namespace cascadekit
