#include "image_files.hpp"

#include <cstdlib>
#include <opencv2/imgcodecs.hpp>
#include <stdexcept>

namespace cascadekit::tools {

GrayImage load_gray(const std::filesystem::path& path) {
    const cv::Mat bgr = cv::imread(path.string(), cv::IMREAD_COLOR);
    if (bgr.empty()) throw std::runtime_error(path.string() + ": cannot read or decode image");
    return to_gray({bgr.data, bgr.cols, bgr.rows, static_cast<std::ptrdiff_t>(bgr.step[0]), 3, ChannelOrder::BGR});
}

std::filesystem::path data_root() {
    if (const char* d = std::getenv("CASCADEKIT_DATA"); d && *d) return d;
    return std::filesystem::path("..") / "shared" / "data";
}

}  // namespace cascadekit::tools
