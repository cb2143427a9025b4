#pragma once
// Integral histograms of oriented gradients (Zhu et al., CVPR 2006; Bilgiç, MIT 2010): one exclusive integral image per
// orientation bin, I_b(x, y) = sum of quantised magnitudes of bin b over pixels u < x, v < y.
//
// Precision decision: the 9 integral images hold uint32 sums of fixed-point magnitudes
// (1/256 gray level) and wrap modulo 2^32. A rectangle's sum I(x1,y1) - I(x0,y1) - I(x1,y0) +
// I(x0,y0), done in the same modular arithmetic, is exact whenever the true sum is below 2^32,
// i.e. for every rectangle of at most 2^32 / 92320 = 46,522 pixels (any block of a 64×128
// window, or of a 128×256 one) whatever the image size. So the only error is the quantisation
// of each magnitude: at most 1/512 gray level per pixel, area/512 for a rectangle, the same for a
// 1920×1080 image as for a 64×128 one (tests/features: IntegralHistogram.WorstCase1080p). float32
// sums would instead lose ~64 units at 1080p's totals (~7.5e8) and double would double memory.
// Integer sums are also associative, so the CPU and GPU builds agree bit for bit.
//
// Layout: (height+1) rows of (width+1) points, each point 9 consecutive uint32 (one per bin);
// row 0 and column 0 are zero. With a grid G (compute): height/G + 1 rows of width/G + 1 points.
#include <array>
#include <cstdint>
#include <vector>

#include "cascadekit/features/geometry.hpp"
#include "cascadekit/features/gradient.hpp"
#include "cascadekit/features/image.hpp"

namespace cascadekit {

// What the gradients of a level are taken from: one gray plane, or the three colour planes of
// the level (Dalal & Triggs, CVPR 2005: colour gradients beat gray ones for people). With colour,
// each pixel's gradient is that of the plane with the largest gx² + gy², the first of R, G, B on
// ties; each plane's levels go through the same gamma table first. Non-owning: the planes must
// outlive the compute() call. Every plane has the same size.
struct GradientSource {
    const GrayImage* planes[3] = {nullptr, nullptr, nullptr};
    int count = 0;
    GradientSource(const GrayImage& gray) : planes{&gray, nullptr, nullptr}, count(1) {}  // NOLINT: gray converts
    explicit GradientSource(const ColourPlanes& c) : planes{&c.r, &c.g, &c.b}, count(3) {}
    int width() const { return planes[0]->width; }
    int height() const { return planes[0]->height; }
};

// Largest rectangle area (pixels) whose integral-histogram sums are guaranteed exact.
inline constexpr long long kMaxExactRectArea = 0xFFFFFFFFLL / kMaxQuantisedMagnitude;  // 46522

class HistogramCells;

namespace detail {
// IntegralHistogram::approximate: the share of each source cell inside each cell between
// consecutive points of the coarser table, along one axis: cell i reads source cells first[i] …
// first[i] + taps − 1 with weights[i·taps …] (0 past the source's last cell).
struct CellOverlaps {
    std::vector<std::size_t> first;
    std::vector<float> weights;
    std::size_t taps = 1;
};
}  // namespace detail

class IntegralHistogram {
public:
    IntegralHistogram() = default;

    // Computes gradients, bins and the 9 integral images of image, each table entry written once:
    // one pass on one thread; on several (TBB), bands of rows whose column sums are formed first
    // (the gradient entries kept meanwhile, 4 bytes a pixel). Deterministic.
    // Reuses this object's storage when the size does not grow. params: the gray levels'
    // compression before the gradients and how each pixel votes (gradient.hpp). image: a gray
    // image, or colour planes (GradientSource). With a gamma table the planes are first mapped
    // through it into this object's storage (1 byte a pixel, 3 for colour).
    //
    // grid G > 1: the table only at the points whose x and y are multiples of G (the corners of
    // G×G cells; pixels right of the last whole cell column or below the last whole cell row are
    // in no point's sums, and no grid rectangle reaches them). Each point holds the same sums as
    // with G = 1, so every rectangle with grid corners sums to the same integers, from 1/G² of the
    // table: for detectors whose blocks and window positions all lie on the grid (block_pool.hpp's
    // zhu-gridG pools scanned at a stride that is a multiple of G). The pixels' gradients are
    // added into their cells, then the cells integrated.
    void compute(const GradientSource& image, GradientParams params = {}, int grid = 1);

    // Approximates the grid-G table of an image `width`×`height` that samples `source`'s image
    // more coarsely (Dollár et al., "Fast Feature Pyramids for Object Detection", PAMI 2014:
    // gradient histograms of a coarser level predicted from a finer one instead of computed
    // from the level's own pixels). This image's corner (X, Y) lies at the source image's
    // corner (x0 + X·ratio, y0 + Y·ratio); the source's table is read there by bilinear
    // interpolation between its points (its bins' density taken as uniform inside each of its
    // cells; corners outside it clamp to its edge), and every cell's interpolated sums times
    // `gain` are rounded to integers and integrated, so that every rectangle's sums are exact
    // integers of this table as for compute(). The weighted sums are floats: within 1 of the
    // exact reading while a cell's sums stay below 2^24 (the source's cells on grids up to 4 and
    // ratios below 2); a cell's sum saturates at 2·10^9. ratio ≥ 1 (a coarser image); grid ≥ 1;
    // gain ≥ 0; std::invalid_argument otherwise. Parallel over rows (TBB); reuses storage;
    // deterministic for any thread count.
    void approximate(const IntegralHistogram& source, int width, int height, int grid, double ratio, double x0, double y0,
                     double gain);
    // The same from the source's cells (HistogramCells::compute of it): for a source that many
    // levels read, whose cells are then formed once.
    void approximate(const HistogramCells& source, int width, int height, int grid, double ratio, double x0, double y0,
                     double gain);

    int width() const { return width_; }    // image width
    int height() const { return height_; }  // image height
    int grid() const { return grid_; }      // points every grid() pixels (1: every pixel)

    // Pointer to the 9 bins of integral point (x, y), 0 <= x <= width, 0 <= y <= height; x and y
    // multiples of grid().
    const std::uint32_t* point(int x, int y) const {
        return data_.data() + (static_cast<std::size_t>(y / grid_) * columns() + static_cast<std::size_t>(x / grid_)) * kOrientationBins;
    }
    // Points per row: width + 1, or width / grid + 1.
    std::size_t columns() const { return static_cast<std::size_t>(width_ / grid_) + 1; }
    // Distance (uint32) between vertically adjacent points.
    std::size_t row_stride() const { return columns() * kOrientationBins; }
    const std::uint32_t* data() const { return data_.data(); }

    // Per-bin sums of quantised magnitude over rect (exact for rect.w*rect.h <= kMaxExactRectArea).
    // Requires: rect inside the image, its corners multiples of grid().
    std::array<std::uint32_t, kOrientationBins> rect_sum(const Rect& rect) const;

private:
    void compute_grid(const GradientSource& image, GradientParams params);

    int width_ = 0;
    int height_ = 0;
    int grid_ = 1;
    std::vector<std::uint32_t> data_;
    std::vector<std::uint32_t> entries_;  // compute's gradient entries (several threads), kept for reuse
    std::vector<std::uint32_t> sums_;     // and its per-band column sums
    ColourPlanes levels_;                 // the source's planes through the gamma table (r alone for gray), kept for reuse
    detail::CellOverlaps across_, down_;  // approximate's, along x and y, kept for reuse
};

// A grid integral histogram's cells: each G×G cell's 9 sums as floats (exact below 2^24: cells of
// grids up to 4), cells in rows, the source IntegralHistogram::approximate reads.
class HistogramCells {
public:
    // Reuses storage; parallel over rows (TBB).
    void compute(const IntegralHistogram& table);
    int grid() const { return grid_; }  // the table's
    std::size_t columns() const { return columns_; }  // whole cells along x and y
    std::size_t rows() const { return rows_; }
    const float* row(std::size_t r) const { return sums_.data() + r * columns_ * kOrientationBins; }

private:
    int grid_ = 1;
    std::size_t columns_ = 0, rows_ = 0;
    std::vector<float> sums_;
};

// The per-pixel input of an integral histogram without the integration: each pixel's
// gradient_entry() (the same gradient table: bin, magnitude and upper share). One
// pass and 4 bytes per pixel instead of two passes and 36 bytes per point: for blocks wanted at
// only a few windows (the survivors of an LBP prefix), summed pixel by pixel. A cell's per-bin
// sums equal the integral histogram's rect_sum exactly (the same integers, added exactly).
class GradientPlane {
public:
    // Parallel over rows (TBB); reuses storage. image and params as for IntegralHistogram::compute.
    void compute(const GradientSource& image, GradientParams params = {});
    int width() const { return width_; }
    int height() const { return height_; }
    std::uint32_t at(int x, int y) const { return data_[static_cast<std::size_t>(y) * width_ + x]; }
    // Per-bin sums over rect (inside the image).
    std::array<std::uint32_t, kOrientationBins> rect_sum(const Rect& rect) const;

private:
    static constexpr std::size_t kPlaneSlack = 8;  // storage past the last pixel that rect_sum's 8-pixel reads may touch
    int width_ = 0;
    int height_ = 0;
    bool split_ = false;  // entries carry upper shares (OrientationVotes::Split)
    ColourPlanes levels_;  // the source's planes through the gamma table (r alone for gray), kept for reuse
    std::vector<std::uint32_t> data_;
};

}  // namespace cascadekit
