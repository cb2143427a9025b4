#include "cascadekit/features/integral_histogram.hpp"

#include <algorithm>
#include <cstring>
#include <type_traits>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "cascadekit/features/simd.hpp"
#include "gradient_table.hpp"

namespace cascadekit {

namespace {
// Row y's gradient-table entries (gradient_entry.hpp), replicated borders: what
// both the integral histogram and the gradient plane are built from. Calls emit(x, entry).
// Gray levels go through `lut` (gamma_table) first, or are read as they are when it is null.
// With colour planes, each pixel takes the gradient of the plane with the largest gx² + gy² (the
// first of them on ties).
template <class Emit>
void gradient_row(const GradientSource& src, int y, const std::uint32_t* table, const std::uint8_t* lut, Emit&& emit) {
    const int w = src.width(), h = src.height();
    const std::size_t up_off = static_cast<std::size_t>(std::max(y - 1, 0)) * w;
    const std::size_t mid_off = static_cast<std::size_t>(y) * w;
    const std::size_t down_off = static_cast<std::size_t>(std::min(y + 1, h - 1)) * w;
    // One loop per plane count, instantiated with and without the table look-up (the plain gray
    // one stays lean).
    auto row = [&](auto level) {
        if (src.count == 1) {
            const std::uint8_t* px = src.planes[0]->pixels.data();
            const std::uint8_t *up = px + up_off, *mid = px + mid_off, *down = px + down_off;
            for (int x = 0; x < w; ++x) {
                const int gx = level(mid[std::min(x + 1, w - 1)]) - level(mid[std::max(x - 1, 0)]);
                const int gy = level(down[x]) - level(up[x]);
                emit(x, table[(gy + 255) * detail::kGradientTableSide + (gx + 255)]);
            }
            return;
        }
        const std::uint8_t* px[3] = {src.planes[0]->pixels.data(), src.planes[1]->pixels.data(), src.planes[2]->pixels.data()};
        for (int x = 0; x < w; ++x) {
            const int xl = std::max(x - 1, 0), xr = std::min(x + 1, w - 1);
            int gx = 0, gy = 0, best = -1;
            for (int c = 0; c < 3; ++c) {
                const int cx = level(px[c][mid_off + xr]) - level(px[c][mid_off + xl]);
                const int cy = level(px[c][down_off + x]) - level(px[c][up_off + x]);
                const int m = cx * cx + cy * cy;
                if (m > best) {
                    best = m;
                    gx = cx;
                    gy = cy;
                }
            }
            emit(x, table[(gy + 255) * detail::kGradientTableSide + (gx + 255)]);
        }
    };
    if (lut == nullptr) row([](std::uint8_t v) { return int(v); });
    else row([lut](std::uint8_t v) { return int(lut[v]); });
}
const std::uint8_t* lut_of(GrayGamma gamma) { return gamma == GrayGamma::None ? nullptr : gamma_table(gamma); }
}  // namespace

void IntegralHistogram::compute(const GradientSource& image, GradientParams params) {
    width_ = image.width();
    height_ = image.height();
    const std::size_t stride = row_stride();
    // The storage only grows (as IntegralImage's): resize would zero 36 bytes a point on one
    // thread for each frame's first level.
    if (const std::size_t n = stride * (static_cast<std::size_t>(height_) + 1); data_.size() < n) data_.resize(n);
    std::fill_n(data_.begin(), stride, 0u);  // row 0
    if (width_ == 0 || height_ == 0) return;
    const std::uint32_t* table = detail::gradient_table(params.votes);
    const std::uint8_t* lut = lut_of(params.gamma);
    const bool split = params.votes == OrientationVotes::Split;
    const int h = height_;

    // Pass 1, parallel over rows: gradient, bin and magnitude of each pixel, accumulated along the
    // row, so that row y+1 holds the row-prefix sums of image row y.
    tbb::parallel_for(tbb::blocked_range<int>(0, h, 8), [&](const tbb::blocked_range<int>& rows) {
        for (int y = rows.begin(); y < rows.end(); ++y) {
            std::uint32_t* out = data_.data() + (static_cast<std::size_t>(y) + 1) * stride;
            std::uint32_t sums[kOrientationBins] = {};
            std::memset(out, 0, kOrientationBins * sizeof(std::uint32_t));  // column 0
            const auto store = [&](int x) {
                std::memcpy(out + (static_cast<std::size_t>(x) + 1) * kOrientationBins, sums, sizeof sums);
            };
            // Instantiated per way of voting: nearest-bin entries carry no upper part to add.
            auto accumulate = [&](auto split_votes) {
                gradient_row(image, y, table, lut, [&](int x, std::uint32_t e) {
                    const std::uint32_t b = entry_bin(e), up = split_votes ? entry_upper(e) : 0u;
                    sums[b] += entry_magnitude(e) - up;
                    if constexpr (decltype(split_votes)::value) sums[next_bin(b)] += up;
                    store(x);
                });
            };
            if (split) accumulate(std::true_type{});
            else accumulate(std::false_type{});
        }
    });

    // Pass 2, parallel over columns of the flattened rows: accumulate down the image.
    // Unsigned addition wraps modulo 2^32 by definition, which is what makes rect sums exact.
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, stride, 2048), [&](const tbb::blocked_range<std::size_t>& cols) {
        for (int y = 2; y <= h; ++y) {
            std::uint32_t* row = data_.data() + static_cast<std::size_t>(y) * stride;
            const std::uint32_t* prev = row - stride;
            for (std::size_t j = cols.begin(); j < cols.end(); ++j) row[j] += prev[j];
        }
    });
}

std::array<std::uint32_t, kOrientationBins> IntegralHistogram::rect_sum(const Rect& r) const {
    const std::uint32_t* a = point(r.x, r.y);
    const std::uint32_t* b = point(r.x + r.w, r.y);
    const std::uint32_t* c = point(r.x, r.y + r.h);
    const std::uint32_t* d = point(r.x + r.w, r.y + r.h);
    std::array<std::uint32_t, kOrientationBins> s{};
    for (int k = 0; k < kOrientationBins; ++k) s[k] = d[k] - b[k] - c[k] + a[k];
    return s;
}

void GradientPlane::compute(const GradientSource& image, GradientParams params) {
    width_ = image.width();
    height_ = image.height();
    split_ = params.votes == OrientationVotes::Split;
    // Grows only, as the integral histogram's storage; the slack past the plane is read but masked.
    if (const std::size_t n = static_cast<std::size_t>(width_) * height_ + kPlaneSlack; data_.size() < n) data_.resize(n);
    const std::uint32_t* table = detail::gradient_table(params.votes);
    const std::uint8_t* lut = lut_of(params.gamma);
    const int w = width_, h = height_;
    tbb::parallel_for(tbb::blocked_range<int>(0, h, 8), [&](const tbb::blocked_range<int>& rows) {
        for (int y = rows.begin(); y < rows.end(); ++y) {
            std::uint32_t* out = data_.data() + static_cast<std::size_t>(y) * w;
            gradient_row(image, y, table, lut, [&](int x, std::uint32_t e) { out[x] = e; });
        }
    });
}

namespace {
// Eight pixels at a time: each lane adds its magnitude to the bin it names, by comparing its bin
// with every bin (no scatter, so no chain of dependent adds into one bin); with split votes, its
// lower part to its bin and its upper part to the next. The last chunk of a row masks the lanes
// past the rect; it may read up to 7 pixels past them, which the plane's storage holds
// (kPlaneSlack). Integer sums, exact in any order: the same as pixel by pixel.
using Lanes = std::uint32_t __attribute__((vector_size(32)));
constexpr int kLanes = 8;

template <bool Split>
CASCADEKIT_SIMD_CLONES void plane_rect_sum(const std::uint32_t* data, int width, const Rect& r, std::uint32_t* out) {
    Lanes acc[kOrientationBins] = {};
    const Lanes lane = {0, 1, 2, 3, 4, 5, 6, 7};
    for (int y = r.y; y < r.y + r.h; ++y) {
        const std::uint32_t* row = data + static_cast<std::size_t>(y) * width + r.x;
        for (int x = 0; x < r.w; x += kLanes) {
            Lanes v;
            std::memcpy(&v, row + x, sizeof v);
            const Lanes keep = reinterpret_cast<Lanes>(lane < static_cast<std::uint32_t>(r.w - x));  // all ones or zero
            const Lanes bin = v >> kEntryBinShift;
            const Lanes mag = v & kEntryMagnitudeMask & keep;
            if constexpr (Split) {
                const Lanes up = (mag * ((v >> kEntryShareShift) & 0x1FFu) + 128u) >> 8;  // entry_upper()
                const Lanes low = mag - up;
                const Lanes next = bin + 1u;  // bin 9 stands for bin 0
                acc[0] += reinterpret_cast<Lanes>(next == static_cast<std::uint32_t>(kOrientationBins)) & up;
                for (int b = 0; b < kOrientationBins; ++b)
                    acc[b] += (reinterpret_cast<Lanes>(bin == static_cast<std::uint32_t>(b)) & low) +
                              (reinterpret_cast<Lanes>(next == static_cast<std::uint32_t>(b)) & up);
            } else {
                for (int b = 0; b < kOrientationBins; ++b)
                    acc[b] += reinterpret_cast<Lanes>(bin == static_cast<std::uint32_t>(b)) & mag;
            }
        }
    }
    for (int b = 0; b < kOrientationBins; ++b) {
        std::uint32_t s = 0;
        for (int l = 0; l < kLanes; ++l) s += acc[b][l];
        out[b] = s;
    }
}
}  // namespace

std::array<std::uint32_t, kOrientationBins> GradientPlane::rect_sum(const Rect& r) const {
    std::array<std::uint32_t, kOrientationBins> s{};
    if (split_) plane_rect_sum<true>(data_.data(), width_, r, s.data());
    else plane_rect_sum<false>(data_.data(), width_, r, s.data());
    return s;
}

}  // namespace cascadekit
