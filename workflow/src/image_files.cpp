#include "cascadekit/workflow/image_files.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <opencv2/imgproc.hpp>
#include <stdexcept>

#include "cascadekit/io/files.hpp"
#include "cascadekit/io/image_header.hpp"
#include "cascadekit/io/pnm.hpp"
#if CASCADEKIT_TOOLS_CODECS
#include <opencv2/imgcodecs.hpp>
#endif

namespace cascadekit {

namespace {
std::int64_t g_max_pixels = kDefaultMaxImagePixels;

std::string megapixels(std::int64_t pixels) {
    char buf[32];
    const double mp = static_cast<double>(pixels) / 1e6;
    std::snprintf(buf, sizeof buf, mp < 10 ? "%.2f MPix" : "%.0f MPix", mp);
    return buf;
}
}  // namespace

void set_max_image_pixels(std::int64_t pixels) { g_max_pixels = pixels; }
std::int64_t max_image_pixels() { return g_max_pixels; }

void check_scan_size(double width, double height, double min_scale) {
    auto size = [&] { return std::to_string(std::llround(width)) + "x" + std::to_string(std::llround(height)); };
    if (!(width >= 1 && height >= 1 && width < 1e9 && height < 1e9))
        throw std::runtime_error("image " + size() + " is empty or absurdly large");
    const double enlarge = min_scale < 1.0 ? 1.0 / min_scale : 1.0;
    const double level = width * enlarge * height * enlarge;
    if (level > static_cast<double>(g_max_pixels))
        throw std::runtime_error("image " + size() + " enlarged " + std::to_string(enlarge) + " times (min scale " +
                                 std::to_string(min_scale) + ") makes a " + megapixels(static_cast<std::int64_t>(level)) +
                                 " pyramid level, more than the limit of " + megapixels(g_max_pixels) + " (--max-megapixels)");
}

cv::Mat read_bgr(const std::filesystem::path& path) {
    // Compressed files stay far below 8 bytes a pixel; the bound only keeps reading finite.
    const std::uint64_t max_bytes = std::max<std::uint64_t>(64ull << 20, static_cast<std::uint64_t>(g_max_pixels) * 8u);
    std::vector<std::uint8_t> bytes;
    try {
        bytes = read_file_bytes(path, max_bytes, "image");
    } catch (const FileError& e) {
        throw std::runtime_error(e.what());
    }
    const std::optional<ImageHeader> header = read_image_header(bytes.data(), bytes.size());
    if (!header)
        throw std::runtime_error(path.string() + ": not a readable image (PNG, JPEG, BMP, TIFF, WebP or binary PGM/PPM), "
                                 "or its header is damaged");
    if (header->pixels() > g_max_pixels)
        throw std::runtime_error(path.string() + ": image " + std::to_string(header->width) + "x" +
                                 std::to_string(header->height) + " (" + megapixels(header->pixels()) +
                                 ") is larger than the limit of " + megapixels(g_max_pixels) + " (--max-megapixels)");
    if (const std::string problem = image_data_problem(*header, bytes.data(), bytes.size()); !problem.empty())
        throw std::runtime_error(path.string() + ": " + problem);
    if (header->format != "pnm") {
#if CASCADEKIT_TOOLS_CODECS
        cv::Mat bgr = cv::imdecode(cv::Mat(1, static_cast<int>(bytes.size()), CV_8UC1, bytes.data()), cv::IMREAD_COLOR);
        if (bgr.empty()) throw std::runtime_error(path.string() + ": cannot decode image (damaged " + header->format + " data)");
        if (bgr.cols != header->width || bgr.rows != header->height)
            throw std::runtime_error(path.string() + ": decoded size " + std::to_string(bgr.cols) + "x" + std::to_string(bgr.rows) +
                                     " differs from the header's (damaged file)");
        return bgr;
#else
        throw std::runtime_error(path.string() + ": this cascade was built without image codecs "
                                 "(CASCADEKIT_TOOLS_CODECS=OFF) and reads PGM/PPM files only");
#endif
    }
    const PnmImage pnm = decode_pnm(bytes, path, g_max_pixels);
    const cv::Mat src(pnm.height, pnm.width, pnm.channels == 1 ? CV_8UC1 : CV_8UC3, const_cast<std::uint8_t*>(pnm.pixels.data()));
    cv::Mat bgr;
    cv::cvtColor(src, bgr, pnm.channels == 1 ? cv::COLOR_GRAY2BGR : cv::COLOR_RGB2BGR);
    return bgr;
}

GrayImage load_gray(const std::filesystem::path& path) {
    const cv::Mat bgr = read_bgr(path);
    return to_gray({bgr.data, bgr.cols, bgr.rows, static_cast<std::ptrdiff_t>(bgr.step[0]), 3, ChannelOrder::BGR});
}

Image load_image(const std::filesystem::path& path) {
    const cv::Mat bgr = read_bgr(path);
    return to_image({bgr.data, bgr.cols, bgr.rows, static_cast<std::ptrdiff_t>(bgr.step[0]), 3, ChannelOrder::BGR});
}

void write_image(const std::filesystem::path& path, const cv::Mat& bgr) {
    std::vector<std::uint8_t> bytes;
    if (is_pnm_path(path)) {
        bytes = encode_pnm({bgr.data, bgr.cols, bgr.rows, static_cast<std::ptrdiff_t>(bgr.step[0]), bgr.channels(), ChannelOrder::BGR});
    } else {
#if CASCADEKIT_TOOLS_CODECS
        if (!cv::imencode(path.extension().string(), bgr, bytes))
            throw FileError(path, "cannot encode a " + path.extension().string() + " image");
#else
        throw FileError(path, "this build writes PGM/PPM images only (CASCADEKIT_TOOLS_CODECS=OFF)");
#endif
    }
    write_file_atomically(path, bytes.data(), bytes.size());
}

std::filesystem::path data_root() {
    if (const char* d = std::getenv("CASCADEKIT_DATA"); d && *d) return d;
    return std::filesystem::path("..") / "shared" / "data";
}

}  // namespace cascadekit
