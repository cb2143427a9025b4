#include "cascadekit/features/integral_image.hpp"

#include <algorithm>
#include <utility>

#include <tbb/blocked_range.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

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
    data_.resize(stride * (static_cast<std::size_t>(height_) + 1));
    std::fill_n(data_.begin(), stride, 0u);  // row 0
    std::uint32_t* table = data_.data();
    // Bands of rows, integrated each on its own in parallel, then each band's rows raised by the
    // sum of every band above it. Unsigned sums wrap modulo 2^32, so the table is the same
    // whatever the bands and threads: exact integers in any order.
    constexpr int kBand = 64;
    const int bands = (height_ + kBand - 1) / kBand;
    const std::size_t threads = std::min<std::size_t>(static_cast<std::size_t>(tbb::this_task_arena::max_concurrency()),
                                                      tbb::global_control::active_value(tbb::global_control::max_allowed_parallelism));
    if (bands <= 1 || threads <= 1) {
        integrate_rows(image, 0, height_, table, table, stride);  // one pass
        return;
    }
    auto band_rows = [&](int b) { return std::pair{b * kBand, std::min(height_, (b + 1) * kBand)}; };
    tbb::parallel_for(0, bands, [&](int b) {
        const auto [y0, y1] = band_rows(b);
        integrate_rows(image, y0, y1, nullptr, table, stride);
    });
    // The last row of each band, in order: it then holds the sums of every row above it.
    for (int b = 1; b < bands; ++b) {
        const std::uint32_t* above = table + static_cast<std::size_t>(band_rows(b - 1).second) * stride;
        std::uint32_t* last = table + static_cast<std::size_t>(band_rows(b).second) * stride;
        for (std::size_t j = 0; j < stride; ++j) last[j] += above[j];
    }
    // Every other row of band b gets the (now complete) last row of band b - 1.
    tbb::parallel_for(tbb::blocked_range<int>(1, bands), [&](const tbb::blocked_range<int>& r) {
        for (int b = r.begin(); b < r.end(); ++b) {
            const auto [y0, y1] = band_rows(b);
            const std::uint32_t* above = table + static_cast<std::size_t>(y0) * stride;
            for (int y = y0 + 1; y < y1; ++y) {
                std::uint32_t* row = table + static_cast<std::size_t>(y) * stride;
                for (std::size_t j = 0; j < stride; ++j) row[j] += above[j];
            }
        }
    });
}

}  // namespace cascadekit
