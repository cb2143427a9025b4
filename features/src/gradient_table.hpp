#pragma once
// Internal: a look-up table from an integer gradient (gx, gy), |gx|,|gy| <= 255, to its
// orientation bin and quantised magnitude, built once from orientation_bin() and
// quantised_magnitude(), so it inherits their exactness. 511×511 entries of 4 bytes (1 MiB);
// most gradients of natural images are small, so the hot part stays in cache.
#include <cstdint>

namespace cascadekit::detail {

// Entry: magnitude in the low 24 bits (<= 92319 < 2^24), bin in the high 8.
const std::uint32_t* gradient_table();  // index [(gy + 255) * 511 + (gx + 255)]
inline constexpr int kGradientTableSide = 511;

}  // namespace cascadekit::detail
