#include "cascadekit/features/lbp.hpp"

namespace cascadekit {

std::uint8_t lbp_code(const std::uint32_t* origin, std::size_t row_stride, const Rect& cell) {
    std::uint32_t p[4][4];
    for (int j = 0; j < 4; ++j) {
        const std::uint32_t* row = origin + static_cast<std::size_t>(cell.y + j * cell.h) * row_stride;
        for (int i = 0; i < 4; ++i) p[j][i] = row[cell.x + i * cell.w];
    }
    auto sum = [&](int i, int j) { return p[j + 1][i + 1] - p[j][i + 1] - p[j + 1][i] + p[j][i]; };
    const std::uint32_t c = sum(1, 1);
    // Clockwise from the top-left cell; the first gets bit 7.
    static constexpr int kOrder[8][2] = {{0, 0}, {1, 0}, {2, 0}, {2, 1}, {2, 2}, {1, 2}, {0, 2}, {0, 1}};
    unsigned code = 0;
    for (const auto& o : kOrder) code = (code << 1) | (sum(o[0], o[1]) >= c ? 1u : 0u);
    return static_cast<std::uint8_t>(code);
}

std::uint8_t lbp_code(const IntegralImage& ii, int ox, int oy, const Rect& cell) {
    return lbp_code(ii.data() + static_cast<std::size_t>(oy) * ii.row_stride() + ox, ii.row_stride(), cell);
}

}  // namespace cascadekit
