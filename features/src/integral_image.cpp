#include "cascadekit/features/integral_image.hpp"

#include <algorithm>
#include <utility>

#include <tbb/parallel_for.h>

#include "bands.hpp"

namespace cascadekit {

namespace {
// Rows [y0, y1) of the image into rows y0+1 … y1 of the table, the first of them accumulated onto
// `above` (the table row before it, or nullptr for zeros). Row prefix sums along x, then down.
void integrate_rows(const GrayImage& image, int y0, int y1, const std::uint32_t* above, std::uint32_t* table, std::size_t stride) {
    const int w = image.width;
    for (int y = y0; y < y1; ++y) {
        std::uint32_t* row = table + (static_cast<std::size_t>(y) + 1) * stride;
        const std::uint32_t* prev = y == y0 ? above : row - stride;
        const std::uint8_t* px = image.pixels.data() + static_cast<std::size_t>(y) * w;
        row[0] = 0;
        std::uint32_t sum = 0;
        if (prev) {
            for (int x = 0; x < w; ++x) {
                sum += px[x];
                row[x + 1] = prev[x + 1] + sum;
            }
        } else {
            for (int x = 0; x < w; ++x) {
                sum += px[x];
                row[x + 1] = sum;
            }
        }
    }
}
}  // namespace

void IntegralImage::compute(const GrayImage& image) {
    width_ = image.width;
    height_ = image.height;
    const std::size_t stride = row_stride();
    // The storage only grows: std::vector::resize zeroes what it adds, on one thread, and a
    // frame's first level follows the last frame's smallest (8 MB at 1920×1080, every frame).
    if (const std::size_t n = stride * (static_cast<std::size_t>(height_) + 1); data_.size() < n) data_.resize(n);
    std::fill_n(data_.begin(), stride, 0u);  // row 0
    std::uint32_t* table = data_.data();
    // Bands of rows (bands.hpp). Every table entry is written once:
    //   1. each band's column sums (the band's pixels read once);
    //   2. band b's column sums become those of every row above it (detail::sums_above_bands);
    //   3. each band integrates its rows as the one-pass path does, starting from the table row
    //      above it, which it forms from those column sums (detail::carry_row).
    // Bands of 64 rows integrated each from zero, then raised by the band above in a second pass
    // over the table, were slower: on 16 threads the gray integral images of a
    // 1920×1080 frame's 40 levels took 4.1 ms against 7.4 on one thread.
    const detail::Bands bands = detail::plan_bands(height_);
    if (bands.n <= 1) {
        integrate_rows(image, 0, height_, table, table, stride);  // one pass
        return;
    }
    const int w = width_;
    // A band's column sums in a row of `stride` (w + 1) entries: step 3 turns it in place into the
    // table row above the band.
    if (sums_.size() < static_cast<std::size_t>(bands.n) * stride) sums_.resize(static_cast<std::size_t>(bands.n) * stride);
    std::uint32_t* sums = sums_.data();
    tbb::parallel_for(0, bands.n, [&](int b) {
        // The bound in a local and __restrict__: otherwise the stores might change the bound or
        // the pixels (uint8_t may alias anything), and GCC leaves the loop scalar.
        const int n = w;
        std::uint32_t* __restrict__ c = sums + static_cast<std::size_t>(b) * stride;
        std::fill_n(c, n, 0u);
        const auto [y0, y1] = bands.rows(b, height_);
        for (int y = y0; y < y1; ++y) {
            const std::uint8_t* __restrict__ px = image.pixels.data() + static_cast<std::size_t>(y) * static_cast<std::size_t>(n);
            for (int x = 0; x < n; ++x) c[x] += px[x];
        }
    });
    detail::sums_above_bands(sums, bands.n, stride, static_cast<std::size_t>(w));
    tbb::parallel_for(0, bands.n, [&](int b) {
        const auto [y0, y1] = bands.rows(b, height_);
        if (b == 0) return integrate_rows(image, y0, y1, nullptr, table, stride);
        std::uint32_t* c = sums + static_cast<std::size_t>(b) * stride;
        detail::carry_row(c, w, 1);  // table row y0: the image rows above the band
        integrate_rows(image, y0, y1, c, table, stride);
    });
}

}  // namespace cascadekit
