#include "cascadekit/features/integral_histogram.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "bands.hpp"
#include "cascadekit/features/image.hpp"
#include "cascadekit/features/simd.hpp"
#include "gradient_table.hpp"

namespace cascadekit {

namespace {
constexpr int table_index(int gx, int gy) { return (gy + 255) * detail::kGradientTableSide + (gx + 255); }

// Pixel x's gradient (gx, gy) on row y of Planes planes whose rows above, at and below y start at
// up, mid and down, with the row's left and right neighbours at xl and xr (clamped at the
// borders, or x ∓ 1 inside): with colour planes, the gradient of the plane with the largest
// gx² + gy², the first of them on ties. Selects, not a branch: which plane wins changes from
// pixel to pixel, and the branch mispredicted often enough to double the colour pass's time.
template <int Planes>
[[gnu::always_inline]] inline void pixel_gradient(const std::uint8_t* const* up, const std::uint8_t* const* mid,
                                                  const std::uint8_t* const* down, int x, int xl, int xr, int& gx, int& gy) {
    gx = mid[0][xr] - mid[0][xl];
    gy = down[0][x] - up[0][x];
    int best = gx * gx + gy * gy;
    for (int c = 1; c < Planes; ++c) {
        const int cx = mid[c][xr] - mid[c][xl], cy = down[c][x] - up[c][x], m = cx * cx + cy * cy;
        const bool take = m > best;
        best = take ? m : best;
        gx = take ? cx : gx;
        gy = take ? cy : gy;
    }
}

// Row y's gradient-table entries (gradient_entry.hpp), replicated borders: what both the integral
// histogram and the gradient plane are built from. Calls emit(x, entry). The planes' levels are
// read as they are: the callers map them through the gamma table once beforehand (gamma_mapped),
// instead of four look-ups a pixel (twelve for colour) here.
// The inside of the row (pixels 1 … w − 2) goes in chunks: first the chunk's table indices in a
// loop without look-ups or border clamps, which the AVX2 clones run eight pixels at a time (the
// same integers as pixel by pixel), then each pixel's entry emitted in order; the two border
// pixels alone. On one thread of the development machine the mapping and the chunks took the gray
// people cascade from 59–61 to 52–54 ms a 1280×960 frame (×1.05, stride 8) and the colour one from
// 130–136 to 100–103.
// Always inlined: its callers are compiled for AVX2 and for the baseline (CASCADEKIT_SIMD_CLONES),
// and called out of the AVX2 clone it ran in the baseline's code (the gray integral histograms of
// a 1280×960 frame's pyramid took 73 ms on one thread instead of 41).
template <int Planes, class Emit>
[[gnu::always_inline]] inline void gradient_row_of(const GradientSource& src, int y, const std::uint32_t* table, Emit&& emit) {
    const int w = src.width(), h = src.height();
    const std::size_t up_off = static_cast<std::size_t>(std::max(y - 1, 0)) * w;
    const std::size_t mid_off = static_cast<std::size_t>(y) * w;
    const std::size_t down_off = static_cast<std::size_t>(std::min(y + 1, h - 1)) * w;
    const std::uint8_t *up[Planes], *mid[Planes], *down[Planes];
    for (int c = 0; c < Planes; ++c) {
        const std::uint8_t* px = src.planes[c]->pixels.data();
        up[c] = px + up_off;
        mid[c] = px + mid_off;
        down[c] = px + down_off;
    }
    auto border = [&](int x) __attribute__((always_inline)) {
        int gx, gy;
        pixel_gradient<Planes>(up, mid, down, x, std::max(x - 1, 0), std::min(x + 1, w - 1), gx, gy);
        emit(x, table[table_index(gx, gy)]);
    };
    if (w < 3) {
        for (int x = 0; x < w; ++x) border(x);
        return;
    }
    border(0);
    constexpr int kChunk = 128;
    alignas(32) std::int32_t index[kChunk];
    for (int x0 = 1; x0 < w - 1; x0 += kChunk) {
        const int n = std::min(kChunk, w - 1 - x0);
        for (int i = 0; i < n; ++i) {
            int gx, gy;
            pixel_gradient<Planes>(up, mid, down, x0 + i, x0 + i - 1, x0 + i + 1, gx, gy);
            index[i] = table_index(gx, gy);
        }
        for (int i = 0; i < n; ++i) emit(x0 + i, table[index[i]]);
    }
    border(w - 1);
}

template <class Emit>
[[gnu::always_inline]] inline void gradient_row(const GradientSource& src, int y, const std::uint32_t* table, Emit&& emit) {
    if (src.count == 1) gradient_row_of<1>(src, y, table, emit);
    else gradient_row_of<3>(src, y, table, emit);
}

// The source's planes as gradient_row reads them: with a gamma table (GradientParams::gamma),
// each plane mapped through it once, into `out` (its storage reused; r alone for gray); without
// one the source as it is.
GradientSource gamma_mapped(const GradientSource& src, GrayGamma gamma, ColourPlanes& out) {
    if (gamma == GrayGamma::None) return src;
    const std::uint8_t* table = gamma_table(gamma);
    const int w = src.width(), h = src.height();
    GrayImage* planes[3] = {&out.r, &out.g, &out.b};
    const int count = src.count;
    for (GrayImage* p : std::span(planes, static_cast<std::size_t>(count))) {
        p->width = w;
        p->height = h;
        p->pixels.resize(static_cast<std::size_t>(w) * h);  // keeps its capacity when it shrinks
    }
    tbb::parallel_for(tbb::blocked_range<int>(0, h, 16), [&](const tbb::blocked_range<int>& rows) {
        const std::size_t begin = static_cast<std::size_t>(rows.begin()) * w, end = static_cast<std::size_t>(rows.end()) * w;
        for (int c = 0; c < count; ++c) map_bytes(src.planes[c]->pixels.data() + begin, planes[c]->pixels.data() + begin, end - begin, table);
    });
    return count == 3 ? GradientSource(out) : GradientSource(out.r);
}

// Adds one pixel's entry to per-bin sums (nearest-bin entries carry no upper part): the column
// sums of a band, in memory.
template <bool Split>
inline void vote(std::uint32_t e, std::uint32_t* sums) {
    const std::uint32_t b = entry_bin(e), up = Split ? entry_upper(e) : 0u;
    sums[b] += entry_magnitude(e) - up;
    if constexpr (Split) sums[next_bin(b)] += up;
}

// A row's running per-bin sums in registers: bins 0-7 as eight lanes, bin 8 apart. A pixel adds
// its magnitude to the lane its bin names by a compare and a mask (no indexed store, so no
// store-to-load chain through memory); a table point is then one 8-lane load, add and store plus
// one scalar. Integer sums, the same whatever the order: equal to the per-bin additions.
using Lanes = std::uint32_t __attribute__((vector_size(32)));
static_assert(kOrientationBins == 9, "eight lanes and one scalar");
struct RowSums {
    Lanes low = {};
    std::uint32_t last = 0;

    template <bool Split>
    void vote(std::uint32_t e) {
        const Lanes lane = {0, 1, 2, 3, 4, 5, 6, 7};
        const std::uint32_t b = entry_bin(e), up = Split ? entry_upper(e) : 0u, mine = entry_magnitude(e) - up;
        low += reinterpret_cast<Lanes>(lane == b) & mine;
        last += b == 8 ? mine : 0u;
        if constexpr (Split) {
            const std::uint32_t n = next_bin(b);
            low += reinterpret_cast<Lanes>(lane == n) & up;
            last += n == 8 ? up : 0u;
        }
    }
    // Table point = the point above + these sums.
    void store(const std::uint32_t* above, std::uint32_t* out) const {
        Lanes a;
        std::memcpy(&a, above, sizeof a);
        a += low;
        std::memcpy(out, &a, sizeof a);
        out[8] = above[8] + last;
    }
};

// Table row y + 1 from image row y's gradients, accumulated onto `above` (the table row before it,
// or the band's carry row): the row's prefix sums along x added point by point, so each table
// entry is written once and the row above is read while it is still in cache.
template <bool Split>
CASCADEKIT_SIMD_CLONES void integrate_gradient_row(const GradientSource& src, int y, const std::uint32_t* table,
                                                   const std::uint32_t* above, std::uint32_t* out) {
    RowSums sums;
    std::fill_n(out, kOrientationBins, 0u);  // column 0
    gradient_row(src, y, table, [&](int x, std::uint32_t e) {
        sums.vote<Split>(e);
        const std::size_t at = (static_cast<std::size_t>(x) + 1) * kOrientationBins;
        sums.store(above + at, out + at);
    });
}

// The banded path's first step for image row y: its gradient entries kept in `entries`, and
// added to the band's per-bin column sums.
template <bool Split>
CASCADEKIT_SIMD_CLONES void column_sums_row(const GradientSource& src, int y, const std::uint32_t* table,
                                            std::uint32_t* entries, std::uint32_t* sums) {
    gradient_row(src, y, table, [&](int x, std::uint32_t e) {
        entries[x] = e;
        vote<Split>(e, sums + static_cast<std::size_t>(x) * kOrientationBins);
    });
}

// The same from stored entries (the banded path). (The vote-and-store pair, folded into one member
// of RowSums called from both, stopped being inlined into the AVX2 clones: twice the time.)
template <bool Split>
CASCADEKIT_SIMD_CLONES void integrate_entry_row(const std::uint32_t* entries, int w, const std::uint32_t* above, std::uint32_t* out) {
    RowSums sums;
    std::fill_n(out, kOrientationBins, 0u);
    for (int x = 0; x < w; ++x) {
        sums.vote<Split>(entries[x]);
        const std::size_t at = (static_cast<std::size_t>(x) + 1) * kOrientationBins;
        sums.store(above + at, out + at);
    }
}

// Image row y's gradients added into its cells' per-bin sums (cells: `columns` cells of `grid`
// pixels, 9 bins each; the pixels past the last whole cell add to nothing): each cell's pixels
// are summed in registers (RowSums), then added to the cell once.
template <bool Split>
CASCADEKIT_SIMD_CLONES void cell_sums_row(const GradientSource& src, int y, const std::uint32_t* table,
                                          int grid, int columns, std::uint32_t* cells) {
    RowSums sums;
    int left = grid, cell = 0;
    gradient_row(src, y, table, [&](int, std::uint32_t e) __attribute__((always_inline)) {
        if (cell >= columns) return;
        sums.vote<Split>(e);
        if (--left == 0) {
            std::uint32_t* c = cells + static_cast<std::size_t>(cell) * kOrientationBins;
            sums.store(c, c);
            sums = {};
            left = grid;
            ++cell;
        }
    });
}
}  // namespace

// The grid's table (compute with grid > 1): each band of whole cell rows sums its pixels into its
// cells (in parallel), then the cells are integrated row after row (1/G² of the points: cheap).
void IntegralHistogram::compute_grid(const GradientSource& source, GradientParams params) {
    const int g = grid_;
    const int cols = width_ / g, rows = height_ / g;
    const std::size_t stride = row_stride();
    const std::size_t n = stride * (static_cast<std::size_t>(rows) + 1);
    if (data_.size() < n) data_.resize(n);
    if (cols == 0 || rows == 0) {  // no whole cell: every point zero
        std::fill_n(data_.begin(), n, 0u);
        return;
    }
    std::fill_n(data_.begin(), stride, 0u);  // row 0
    const std::uint32_t* table = detail::gradient_table(params.votes);
    const GradientSource image = gamma_mapped(source, params.gamma, levels_);
    const bool split = params.votes == OrientationVotes::Split;
    // The cells' sums go where their table row will be (row cy + 1, from column 1), then each
    // row is integrated in place: along x, then the row above added.
    std::uint32_t* ih = data_.data();
    tbb::parallel_for(tbb::blocked_range<int>(0, rows), [&](const tbb::blocked_range<int>& r) {
        for (int cy = r.begin(); cy < r.end(); ++cy) {
            std::uint32_t* row = ih + (static_cast<std::size_t>(cy) + 1) * stride;
            std::fill_n(row, stride, 0u);
            std::uint32_t* cells = row + kOrientationBins;
            for (int y = cy * g; y < (cy + 1) * g; ++y) {
                if (split) cell_sums_row<true>(image, y, table, g, cols, cells);
                else cell_sums_row<false>(image, y, table, g, cols, cells);
            }
        }
    });
    for (int cy = 1; cy <= rows; ++cy) {
        std::uint32_t* row = ih + static_cast<std::size_t>(cy) * stride;
        const std::uint32_t* above = row - stride;
        std::uint32_t run[kOrientationBins] = {};
        for (std::size_t p = kOrientationBins; p < stride; p += kOrientationBins)
            for (int b = 0; b < kOrientationBins; ++b) {
                run[b] += row[p + static_cast<std::size_t>(b)];
                row[p + static_cast<std::size_t>(b)] = above[p + static_cast<std::size_t>(b)] + run[b];
            }
    }
}

void IntegralHistogram::compute(const GradientSource& source, GradientParams params, int grid) {
    if (grid < 1) throw std::invalid_argument("IntegralHistogram: grid must be at least 1, not " + std::to_string(grid));
    width_ = source.width();
    height_ = source.height();
    grid_ = grid;
    if (grid > 1) {
        compute_grid(source, params);
        return;
    }
    const std::size_t stride = row_stride();
    // The storage only grows (as IntegralImage's): resize would zero 36 bytes a point on one
    // thread for each frame's first level.
    if (const std::size_t n = stride * (static_cast<std::size_t>(height_) + 1); data_.size() < n) data_.resize(n);
    std::fill_n(data_.begin(), stride, 0u);  // row 0
    if (width_ == 0 || height_ == 0) return;
    const std::uint32_t* table = detail::gradient_table(params.votes);
    const GradientSource image = gamma_mapped(source, params.gamma, levels_);
    const bool split = params.votes == OrientationVotes::Split;
    const int w = width_, h = height_;
    std::uint32_t* ih = data_.data();
    auto row_at = [&](int y) { return ih + static_cast<std::size_t>(y) * stride; };  // table row y

    // Two passes over the table (the textbook way): the rows' prefix sums
    // (36 bytes a point written), then a column pass reading and writing every point again, cost
    // as much again on one thread.
    // Now each table entry is written once, as IntegralImage::compute does: one pass on one thread;
    // on several, bands of rows whose column sums set the table row above each band first (bands.hpp).
    const detail::Bands bands = detail::plan_bands(h);
    if (bands.n <= 1) {
        for (int y = 0; y < h; ++y) {
            if (split) integrate_gradient_row<true>(image, y, table, row_at(y), row_at(y + 1));
            else integrate_gradient_row<false>(image, y, table, row_at(y), row_at(y + 1));
        }
        return;
    }
    // 1. Each band's gradient entries (kept, 4 bytes a pixel) and per-bin column sums (a row of
    //    `stride` entries: column x's bins at x · 9).
    if (entries_.size() < static_cast<std::size_t>(w) * h) entries_.resize(static_cast<std::size_t>(w) * h);
    if (sums_.size() < static_cast<std::size_t>(bands.n) * stride) sums_.resize(static_cast<std::size_t>(bands.n) * stride);
    std::uint32_t* entries = entries_.data();
    std::uint32_t* sums = sums_.data();
    tbb::parallel_for(0, bands.n, [&](int b) {
        std::uint32_t* c = sums + static_cast<std::size_t>(b) * stride;
        std::fill_n(c, stride, 0u);
        const auto [y0, y1] = bands.rows(b, h);
        for (int y = y0; y < y1; ++y) {
            std::uint32_t* e = entries + static_cast<std::size_t>(y) * w;
            if (split) column_sums_row<true>(image, y, table, e, c);
            else column_sums_row<false>(image, y, table, e, c);
        }
    });
    // 2. Band b's column sums become those of every image row above it.
    detail::sums_above_bands(sums, bands.n, stride, static_cast<std::size_t>(w) * kOrientationBins);
    // 3. Each band: the table row above it, then its rows from the entries.
    tbb::parallel_for(0, bands.n, [&](int b) {
        const auto [y0, y1] = bands.rows(b, h);
        const std::uint32_t* above = row_at(0);
        if (b > 0) {
            std::uint32_t* c = sums + static_cast<std::size_t>(b) * stride;
            detail::carry_row(c, w, kOrientationBins);
            above = c;
        }
        for (int y = y0; y < y1; ++y) {
            const std::uint32_t* e = entries + static_cast<std::size_t>(y) * w;
            if (split) integrate_entry_row<true>(e, w, y == y0 ? above : row_at(y), row_at(y + 1));
            else integrate_entry_row<false>(e, w, y == y0 ? above : row_at(y), row_at(y + 1));
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

namespace {
// A gradient plane's row y: the entries as they are.
CASCADEKIT_SIMD_CLONES void gradient_plane_row(const GradientSource& src, int y, const std::uint32_t* table,
                                               std::uint32_t* out) {
    gradient_row(src, y, table, [&](int x, std::uint32_t e) { out[x] = e; });
}
}  // namespace

void GradientPlane::compute(const GradientSource& source, GradientParams params) {
    width_ = source.width();
    height_ = source.height();
    split_ = params.votes == OrientationVotes::Split;
    // Grows only, as the integral histogram's storage; the slack past the plane is read but masked.
    if (const std::size_t n = static_cast<std::size_t>(width_) * height_ + kPlaneSlack; data_.size() < n) data_.resize(n);
    const std::uint32_t* table = detail::gradient_table(params.votes);
    const GradientSource image = gamma_mapped(source, params.gamma, levels_);
    const int w = width_, h = height_;
    tbb::parallel_for(tbb::blocked_range<int>(0, h, 8), [&](const tbb::blocked_range<int>& rows) {
        for (int y = rows.begin(); y < rows.end(); ++y) {
            std::uint32_t* out = data_.data() + static_cast<std::size_t>(y) * w;
            gradient_plane_row(image, y, table, out);
        }
    });
}

namespace {
// Eight pixels at a time: each lane adds its magnitude to the bin it names, by comparing its bin
// with every bin (no scatter, so no chain of dependent adds into one bin); with split votes, its
// lower part to its bin and its upper part to the next. The last chunk of a row masks the lanes
// past the rect; it may read up to 7 pixels past them, which the plane's storage holds
// (kPlaneSlack). Integer sums, exact in any order: the same as pixel by pixel.
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

namespace {
// detail::CellOverlaps for points at `at` (positions in source cells, clamped to the source).
void overlaps(const std::vector<double>& at, std::size_t source_cells, detail::CellOverlaps& o) {
    const std::size_t cells = at.size() - 1;
    o.first.resize(cells);
    o.taps = 1;
    for (std::size_t i = 0; i < cells; ++i) {
        o.first[i] = std::min(static_cast<std::size_t>(at[i]), source_cells - 1);
        o.taps = std::max(o.taps, static_cast<std::size_t>(std::ceil(at[i + 1])) - o.first[i]);
    }
    o.weights.assign(cells * o.taps, 0.0f);
    for (std::size_t i = 0; i < cells; ++i)
        for (std::size_t t = 0; t < o.taps && o.first[i] + t < source_cells; ++t) {
            const double c = static_cast<double>(o.first[i] + t);
            o.weights[i * o.taps + t] = static_cast<float>(std::max(0.0, std::min(at[i + 1], c + 1) - std::max(at[i], c)));
        }
}

// out[k] = Σ_t w[t]·rows[t][k], k < n: source cell rows (HistogramCells) weighted, the products
// added in t order. One pass over the row for the usual 1–3 taps (a fill and a pass a tap had a
// loop-carried store the compiler left scalar: 9 % of the approximated hybrid's samples).
CASCADEKIT_SIMD_CLONES
void weighted_rows(const float* const* rows, const float* w, std::size_t taps, std::size_t n, float* __restrict out) {
    const float* __restrict a = rows[0];
    const float w0 = w[0];
    if (taps == 1) {
        for (std::size_t k = 0; k < n; ++k) out[k] = w0 * a[k];
        return;
    }
    const float* __restrict b = rows[1];
    const float w1 = w[1];
    if (taps == 2) {
        for (std::size_t k = 0; k < n; ++k) out[k] = w0 * a[k] + w1 * b[k];
        return;
    }
    const float* __restrict c = rows[2];
    const float w2 = w[2];
    for (std::size_t k = 0; k < n; ++k) out[k] = w0 * a[k] + w1 * b[k] + w2 * c[k];
    for (std::size_t t = 3; t < taps; ++t) {
        const float* __restrict from = rows[t];
        const float wt = w[t];
        for (std::size_t k = 0; k < n; ++k) out[k] += wt * from[k];
    }
}

// A row of a grid table's cells as floats: modular differences of its point rows, exact.
CASCADEKIT_SIMD_CLONES
void cell_row(const std::uint32_t* __restrict top, const std::uint32_t* __restrict bottom, std::size_t n, float* __restrict out) {
    constexpr std::size_t B = kOrientationBins;
    for (std::size_t k = 0; k < n; ++k) out[k] = static_cast<float>(bottom[k + B] - bottom[k] - top[k + B] + top[k]);
}

// One row of the coarser table from its cells' source row sums (weighted_rows): each cell's
// sums along x, times gain, rounded and integrated along the row. Bins 0–7 as one 8-lane vector
// and bin 8 alone, each bin's products added in tap order as before (9 scalar bins did not
// vectorise: 10 % of the approximated hybrid's samples).
CASCADEKIT_SIMD_CLONES
void approximate_row(const float* sums, const detail::CellOverlaps& ox, float gain, std::uint32_t* __restrict row) {
    constexpr std::size_t B = kOrientationBins;
    static_assert(B == 9, "approximate_row: bins 0-7 as a vector and bin 8");
    using Floats = float __attribute__((vector_size(32)));
    using Ints = std::int32_t __attribute__((vector_size(32)));
    using Words = std::uint32_t __attribute__((vector_size(32)));
    const Floats most = {2.0e9f, 2.0e9f, 2.0e9f, 2.0e9f, 2.0e9f, 2.0e9f, 2.0e9f, 2.0e9f};
    std::fill_n(row, B, 0u);
    const std::size_t cells = ox.first.size(), taps = ox.taps;
    Words total = {};
    std::uint32_t total8 = 0;
    for (std::size_t i = 0; i < cells; ++i) {
        const float* from = sums + ox.first[i] * B;
        const float* w = ox.weights.data() + i * taps;
        Floats cell = {};
        float cell8 = 0.0f;
        for (std::size_t t = 0; t < taps; ++t) {
            Floats v;
            std::memcpy(&v, from + t * B, sizeof v);
            cell += w[t] * v;
            cell8 += w[t] * from[t * B + 8];
        }
        const Floats scaled = gain * cell;
        const Floats capped = scaled < most ? scaled : most;
        total += reinterpret_cast<Words>(__builtin_convertvector(capped + 0.5f, Ints));
        total8 += static_cast<std::uint32_t>(static_cast<std::int32_t>(std::min(gain * cell8, 2.0e9f) + 0.5f));
        std::memcpy(row + (i + 1) * B, &total, sizeof total);
        row[(i + 1) * B + 8] = total8;
    }
}
}  // namespace

void HistogramCells::compute(const IntegralHistogram& table) {
    grid_ = table.grid();
    columns_ = table.columns() - 1;
    rows_ = static_cast<std::size_t>(table.height() / grid_);
    const std::size_t n = columns_ * kOrientationBins;
    if (sums_.size() < n * rows_) sums_.resize(n * rows_);
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, rows_), [&](const tbb::blocked_range<std::size_t>& range) {
        for (std::size_t r = range.begin(); r < range.end(); ++r) {
            const std::uint32_t* top = table.data() + r * table.row_stride();
            cell_row(top, top + table.row_stride(), n, sums_.data() + r * n);
        }
    });
}

void IntegralHistogram::approximate(const IntegralHistogram& source, int width, int height, int grid, double ratio, double x0,
                                    double y0, double gain) {
    if (&source == this) throw std::invalid_argument("IntegralHistogram::approximate: the source must be another table");
    HistogramCells cells;
    cells.compute(source);
    approximate(cells, width, height, grid, ratio, x0, y0, gain);
}

void IntegralHistogram::approximate(const HistogramCells& source, int width, int height, int grid, double ratio, double x0,
                                    double y0, double gain) {
    if (grid < 1) throw std::invalid_argument("IntegralHistogram::approximate: grid must be at least 1, not " + std::to_string(grid));
    if (!(ratio >= 1.0) || !std::isfinite(ratio) || !std::isfinite(x0) || !std::isfinite(y0) || !(gain >= 0.0) || !std::isfinite(gain))
        throw std::invalid_argument("IntegralHistogram::approximate: ratio must be at least 1, offsets finite, gain finite and >= 0");
    if (width < 0 || height < 0) throw std::invalid_argument("IntegralHistogram::approximate: negative size");
    width_ = width;
    height_ = height;
    grid_ = grid;
    const std::size_t cols = columns(), rows = static_cast<std::size_t>(height_ / grid_) + 1, stride = row_stride();
    if (const std::size_t n = stride * rows; data_.size() < n) data_.resize(n);
    const int sg = source.grid();
    const std::size_t scells = source.columns(), srows = source.rows();  // source cells
    if (scells == 0 || srows == 0) {  // a source without a whole cell: no sums
        std::fill_n(data_.begin(), stride * rows, 0u);
        return;
    }
    // Each cell of this table sums the source cells it overlaps, each weighted by the share of
    // it inside (the source's integral read bilinearly at this table's points: every source
    // cell's sums spread evenly over it): first down, a row of source cells per row of this
    // table's cells, then along the row; its sums rounded to integers and integrated, so that
    // every rectangle of this table sums exactly.
    const double step = grid_ * ratio / sg;
    auto positions = [step](double origin, std::size_t points, std::size_t cells) {
        std::vector<double> at(points);
        for (std::size_t i = 0; i < points; ++i) at[i] = std::clamp(origin + static_cast<double>(i) * step, 0.0, static_cast<double>(cells));
        return at;
    };
    overlaps(positions(x0 / sg, cols, scells), scells, across_);
    overlaps(positions(y0 / sg, rows, srows), srows, down_);
    std::fill_n(data_.begin(), stride, 0u);  // row 0
    const std::size_t n = scells * kOrientationBins;
    const auto g = static_cast<float>(gain);
    tbb::parallel_for(tbb::blocked_range<std::size_t>(1, rows), [&](const tbb::blocked_range<std::size_t>& range) {
        thread_local std::vector<float> sums;
        thread_local std::vector<const float*> from;
        sums.assign(n + across_.taps * kOrientationBins, 0.0f);  // zeros past the last cell, which weigh 0
        from.resize(down_.taps);
        for (std::size_t j = range.begin(); j < range.end(); ++j) {
            const std::size_t taps = std::min(down_.taps, srows - down_.first[j - 1]);
            for (std::size_t t = 0; t < taps; ++t) from[t] = source.row(down_.first[j - 1] + t);
            weighted_rows(from.data(), down_.weights.data() + (j - 1) * down_.taps, taps, n, sums.data());
            approximate_row(sums.data(), across_, g, data_.data() + j * stride);
        }
    });
    for (std::size_t j = 1; j < rows; ++j) {
        std::uint32_t* row = data_.data() + j * stride;
        const std::uint32_t* up = row - stride;
        for (std::size_t k = 0; k < stride; ++k) row[k] += up[k];
    }
}

}  // namespace cascadekit
