#pragma once
// Multi-block local binary patterns (Šochman & Matas, CVPR 2005; Macenauer, Brno 2015).
#include <cstddef>
#include <cstdint>

#include "cascadekit/features/geometry.hpp"
#include "cascadekit/features/integral_image.hpp"

namespace cascadekit {

// The 8-bit code of a 3×3 grid of cells, each cell.w × cell.h pixels, whose top-left corner is
// (ox + cell.x, oy + cell.y). Each of the 8 outer cells is compared with the centre cell by sum:
// its bit is 1 when its sum >= the centre's. Bit order, clockwise from the top-left cell:
// bit 7 top-left, 6 top, 5 top-right, 4 right, 3 bottom-right, 2 bottom, 1 bottom-left, 0 left.
// Uses the 4×4 grid of cell corners: 16 integral-image look-ups.
// Requires: the 3·cell.w × 3·cell.h grid lies inside the integral image's image.
std::uint8_t lbp_code(const IntegralImage& ii, int ox, int oy, const Rect& cell);

// The same from raw integral-image points: origin points at the window's top-left point,
// row_stride is the distance between vertically adjacent points. Used for training windows kept
// as patches of their level's integral image (rectangle sums take differences only, so a patch
// gives exactly the full image's codes).
std::uint8_t lbp_code(const std::uint32_t* origin, std::size_t row_stride, const Rect& cell);

}  // namespace cascadekit
