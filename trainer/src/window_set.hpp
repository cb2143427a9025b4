#pragma once
// Internal: training windows kept as patches of their level's integral planes, (W+1)×(H+1)
// points of `channels` uint32 each: 9 bins for the integral histogram (hog_svm: every
// descriptor a round needs is 81 look-ups away), 1 for the gray integral image (waldboost_lbp:
// 16 look-ups per LBP code). Rectangle sums take differences only, so a patch gives exactly the
// values of the full plane, bit for bit what the detector computes at that window.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "cascadekit/features/block.hpp"
#include "cascadekit/features/integral_histogram.hpp"
#include "cascadekit/features/integral_image.hpp"

namespace cascadekit::detail {

class WindowSet {
public:
    WindowSet(int window_width, int window_height, int channels)
        : wh_(window_height),
          row_stride_(static_cast<std::size_t>(window_width + 1) * static_cast<std::size_t>(channels)),
          patch_size_(row_stride_ * static_cast<std::size_t>(window_height + 1)) {}
    void resize(std::size_t n) { data_.resize(n * patch_size_); }
    std::size_t size() const { return data_.size() / patch_size_; }
    std::size_t row_stride() const { return row_stride_; }
    // Copies the window whose top-left point is `top_left` in a plane of `source_row_stride`
    // uint32 per row into slot i.
    void store(std::size_t i, const std::uint32_t* top_left, std::size_t source_row_stride) {
        std::uint32_t* dst = data_.data() + i * patch_size_;
        for (int r = 0; r <= wh_; ++r)
            std::copy_n(top_left + static_cast<std::size_t>(r) * source_row_stride, row_stride_,
                        dst + static_cast<std::size_t>(r) * row_stride_);
    }
    void store(std::size_t i, const IntegralHistogram& ih, int x, int y) {
        store(i, ih.point(x, y), static_cast<std::size_t>(ih.point(x, y + 1) - ih.point(x, y)));
    }
    void store(std::size_t i, const IntegralImage& ii, int x, int y) {
        store(i, ii.data() + static_cast<std::size_t>(y) * ii.row_stride() + x, ii.row_stride());
    }
    const std::uint32_t* patch(std::size_t i) const { return data_.data() + i * patch_size_; }
    // hog_svm: a block's descriptor in slot i.
    void descriptor(std::size_t i, const Rect& block, const HogParams& p, BlockDescriptor& out) const {
        block_descriptor(patch(i), row_stride_, block, p, out);
    }

private:
    int wh_;
    std::size_t row_stride_, patch_size_;
    std::vector<std::uint32_t> data_;
};

}  // namespace cascadekit::detail
