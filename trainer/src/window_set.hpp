#pragma once
// Internal: training windows kept as patches of their level's integral histogram
// ((W+1)×(H+1) points × 9 bins), so every descriptor a round needs is 81 look-ups away and equal
// bit for bit to what the detector computes at that window.
#include <cstdint>
#include <vector>

#include "cascadekit/features/block.hpp"
#include "cascadekit/features/integral_histogram.hpp"

namespace cascadekit::detail {

class WindowSet {
public:
    WindowSet(int window_width, int window_height)
        : wh_(window_height),
          row_stride_(static_cast<std::size_t>(window_width + 1) * kOrientationBins),
          patch_size_(row_stride_ * static_cast<std::size_t>(window_height + 1)) {}
    void resize(std::size_t n) { data_.resize(n * patch_size_); }
    std::size_t size() const { return data_.size() / patch_size_; }
    // Copies the window at (x, y) of ih into slot i.
    void store(std::size_t i, const IntegralHistogram& ih, int x, int y) {
        std::uint32_t* dst = data_.data() + i * patch_size_;
        for (int r = 0; r <= wh_; ++r) {
            const std::uint32_t* src = ih.point(x, y + r);
            std::copy(src, src + row_stride_, dst + static_cast<std::size_t>(r) * row_stride_);
        }
    }
    void descriptor(std::size_t i, const Rect& block, const HogParams& p, BlockDescriptor& out) const {
        block_descriptor(data_.data() + i * patch_size_, row_stride_, block, p, out);
    }

private:
    int wh_;
    std::size_t row_stride_, patch_size_;
    std::vector<std::uint32_t> data_;
};

}  // namespace cascadekit::detail
