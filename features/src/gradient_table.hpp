#pragma once
// Internal: a look-up table from an integer gradient (gx, gy), |gx|,|gy| <= 255, to its
// gradient_entry() (gradient_entry.hpp), one per way of voting, built once, so it inherits that
// function's exactness. 511×511 entries of 4 bytes (1 MiB); most gradients of natural images are
// small, so the hot part stays in cache.
#include <cstdint>

#include "cascadekit/features/gradient_entry.hpp"

namespace cascadekit::detail {

const std::uint32_t* gradient_table(OrientationVotes votes);  // index [(gy + 255) * 511 + (gx + 255)]
inline constexpr int kGradientTableSide = 511;

}  // namespace cascadekit::detail
