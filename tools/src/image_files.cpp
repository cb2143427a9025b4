#include "image_files.hpp"

#include <cstdlib>
#include <opencv2/imgproc.hpp>
#include <stdexcept>

#include "cascadekit/io/pnm.hpp"
#if CASCADEKIT_TOOLS_CODECS
#include <opencv2/imgcodecs.hpp>
#endif

namespace cascadekit::tools {

cv::Mat read_bgr(const std::filesystem::path& path) {
#if CASCADEKIT_TOOLS_CODECS
    if (!is_pnm_path(path)) {
        cv::Mat bgr = cv::imread(path.string(), cv::IMREAD_COLOR);
        if (bgr.empty()) throw std::runtime_error(path.string() + ": cannot read or decode image");
        return bgr;
    }
#else
    if (!is_pnm_path(path))
        throw std::runtime_error(path.string() + ": this cascade was built without image codecs "
                                 "(CASCADEKIT_TOOLS_CODECS=OFF) and reads PGM/PPM files only");
#endif
    const PnmImage pnm = read_pnm(path);
    const cv::Mat src(pnm.height, pnm.width, pnm.channels == 1 ? CV_8UC1 : CV_8UC3, const_cast<std::uint8_t*>(pnm.pixels.data()));
    cv::Mat bgr;
    cv::cvtColor(src, bgr, pnm.channels == 1 ? cv::COLOR_GRAY2BGR : cv::COLOR_RGB2BGR);
    return bgr;
}

GrayImage load_gray(const std::filesystem::path& path) {
    const cv::Mat bgr = read_bgr(path);
    return to_gray({bgr.data, bgr.cols, bgr.rows, static_cast<std::ptrdiff_t>(bgr.step[0]), 3, ChannelOrder::BGR});
}

bool write_image(const std::filesystem::path& path, const cv::Mat& bgr) {
    if (is_pnm_path(path)) {
        write_pnm(path, {bgr.data, bgr.cols, bgr.rows, static_cast<std::ptrdiff_t>(bgr.step[0]), bgr.channels(), ChannelOrder::BGR});
        return true;
    }
#if CASCADEKIT_TOOLS_CODECS
    return cv::imwrite(path.string(), bgr);
#else
    return false;
#endif
}

std::filesystem::path data_root() {
    if (const char* d = std::getenv("CASCADEKIT_DATA"); d && *d) return d;
    return std::filesystem::path("..") / "shared" / "data";
}

}  // namespace cascadekit::tools
