#pragma once
// Exclusive integral image of an 8-bit gray image, for LBP cell sums (Šochman & Matas, CVPR 2005; Macenauer, Brno 2015).
// uint32 with modular arithmetic, like IntegralHistogram: rectangle sums are exact for any
// rectangle of at most 2^32/255 (16.8 million) pixels, whatever the image size.
#include <cstdint>
#include <vector>

#include "cascadekit/features/geometry.hpp"
#include "cascadekit/features/image.hpp"

namespace cascadekit {

class IntegralImage {
public:
    void compute(const GrayImage& image);
    int width() const { return width_; }
    int height() const { return height_; }
    std::uint32_t at(int x, int y) const { return data_[static_cast<std::size_t>(y) * (width_ + 1) + x]; }
    const std::uint32_t* data() const { return data_.data(); }
    std::size_t row_stride() const { return static_cast<std::size_t>(width_) + 1; }
    // Sum of gray values over rect. Requires: rect inside the image.
    std::uint32_t rect_sum(const Rect& rect) const {
        return at(rect.x + rect.w, rect.y + rect.h) - at(rect.x, rect.y + rect.h) -
               at(rect.x + rect.w, rect.y) + at(rect.x, rect.y);
    }

private:
    int width_ = 0;
    int height_ = 0;
    std::vector<std::uint32_t> data_;
    std::vector<std::uint32_t> sums_;  // compute's per-band column sums (several threads), kept for reuse
};

}  // namespace cascadekit
