#include "cascadekit/features/integral_image.hpp"

namespace cascadekit {

void IntegralImage::compute(const GrayImage& image) {
    width_ = image.width;
    height_ = image.height;
    const std::size_t stride = row_stride();
    data_.assign(stride * (static_cast<std::size_t>(height_) + 1), 0u);
    for (int y = 0; y < height_; ++y) {
        std::uint32_t* row = data_.data() + (static_cast<std::size_t>(y) + 1) * stride;
        const std::uint32_t* prev = row - stride;
        std::uint32_t sum = 0;
        for (int x = 0; x < width_; ++x) {
            sum += image.at(x, y);
            row[x + 1] = prev[x + 1] + sum;
        }
    }
}

}  // namespace cascadekit
