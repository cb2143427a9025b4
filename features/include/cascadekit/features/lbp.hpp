#pragma once
// Multi-block local binary patterns (Šochman & Matas, CVPR 2005; Macenauer, Brno 2015).
#include <cstddef>
#include <cstdint>

#include "cascadekit/features/geometry.hpp"
#include "cascadekit/features/host_device.hpp"
#include "cascadekit/features/integral_image.hpp"

namespace cascadekit {

// The 8-bit code of a 3×3 grid of cells, each cell.w × cell.h pixels, whose top-left corner is
// (ox + cell.x, oy + cell.y). Each of the 8 outer cells is compared with the centre cell by sum:
// its bit is 1 when its sum >= the centre's. Bit order, clockwise from the top-left cell:
// bit 7 top-left, 6 top, 5 top-right, 4 right, 3 bottom-right, 2 bottom, 1 bottom-left, 0 left.
// Uses the 4×4 grid of cell corners: 16 integral-image look-ups.
// Requires: the 3·cell.w × 3·cell.h grid lies inside the integral image's image.
// Inline: the detector's innermost operation (a call per weak classifier per window otherwise).
inline std::uint8_t lbp_code(const std::uint32_t* origin, std::size_t row_stride, const Rect& cell);
inline std::uint8_t lbp_code(const IntegralImage& ii, int ox, int oy, const Rect& cell) {
    return lbp_code(ii.data() + static_cast<std::size_t>(oy) * ii.row_stride() + ox, ii.row_stride(), cell);
}

// The same from raw integral-image points: origin points at the window's top-left point,
// row_stride is the distance between vertically adjacent points. Used for training windows kept
// as patches of their level's integral image (rectangle sums take differences only, so a patch
// gives exactly the full image's codes), and by the CUDA backend (the same definition on the
// device: cell corner (cx, cy), cell size cw × ch).
// The code from the 4×4 grid of cell corners p[row][column].
CASCADEKIT_HD std::uint8_t lbp_code_of_corners(const std::uint32_t (&p)[4][4]) {
    auto sum = [&](int i, int j) { return p[j + 1][i + 1] - p[j][i + 1] - p[j + 1][i] + p[j][i]; };
    const std::uint32_t c = sum(1, 1);
    // Clockwise from the top-left cell; the first gets bit 7.
    return static_cast<std::uint8_t>((sum(0, 0) >= c) << 7 | (sum(1, 0) >= c) << 6 | (sum(2, 0) >= c) << 5 |
                                     (sum(2, 1) >= c) << 4 | (sum(2, 2) >= c) << 3 | (sum(1, 2) >= c) << 2 |
                                     (sum(0, 2) >= c) << 1 | (sum(0, 1) >= c));
}
// The same code from the corners taken modulo 2^16 (integral images kept in 16-bit points, as
// the CUDA backend does for small cells: CudaOptions::gray_integral_16), exact when every cell has
// at most kLbpMod16CellPixels pixels. The uint32 arithmetic gives each cell's sum modulo 2^16; a
// cell's sum is then at most 128 × 255 < 2^15, so a neighbour's sum minus the centre's lies in
// (−2^15, 2^15), and bit 15 of that difference modulo 2^16 is its sign: the bit set above
// (neighbour >= centre) is its complement. No comparison instruction a cell.
inline constexpr int kLbpMod16CellPixels = 128;
static_assert(kLbpMod16CellPixels * 255 < 1 << 15, "a cell's sum must stay below 2^15");
CASCADEKIT_HD std::uint8_t lbp_code_of_corners_mod16(const std::uint32_t (&p)[4][4]) {
    auto sum = [&](int i, int j) { return p[j + 1][i + 1] - p[j][i + 1] - p[j + 1][i] + p[j][i]; };
    const std::uint32_t c = sum(1, 1);
    // Bit `bit` set where the cell's sum is below the centre's; bit order as above.
    auto below = [&](int i, int j, int bit) { return (sum(i, j) - c) >> (15 - bit) & 1u << bit; };
    return static_cast<std::uint8_t>(~(below(0, 0, 7) | below(1, 0, 6) | below(2, 0, 5) | below(2, 1, 4) | below(2, 2, 3) |
                                       below(1, 2, 2) | below(0, 2, 1) | below(0, 1, 0)));
}
CASCADEKIT_HD std::uint8_t lbp_code(const std::uint32_t* origin, std::size_t row_stride, int cx, int cy, int cw, int ch) {
    std::uint32_t p[4][4];
    for (int j = 0; j < 4; ++j) {
        const std::uint32_t* row = origin + static_cast<std::size_t>(cy + j * ch) * row_stride;
        for (int i = 0; i < 4; ++i) p[j][i] = row[cx + i * cw];
    }
    return lbp_code_of_corners(p);
}
inline std::uint8_t lbp_code(const std::uint32_t* origin, std::size_t row_stride, const Rect& cell) {
    return lbp_code(origin, row_stride, cell.x, cell.y, cell.w, cell.h);
}

}  // namespace cascadekit
