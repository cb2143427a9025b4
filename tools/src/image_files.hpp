#pragma once
// Image files for the libraries that take raw buffers. With OpenCV's codecs (the default build)
// every format OpenCV reads; without them (CASCADEKIT_TOOLS_CODECS=OFF, the small build for
// machines without OpenCV) binary PGM/PPM only.
#include <filesystem>
#include <opencv2/core.hpp>

#include "cascadekit/features/image.hpp"

namespace cascadekit::tools {

// Decodes to 8-bit BGR. Throws std::runtime_error naming the file when it cannot be decoded.
cv::Mat read_bgr(const std::filesystem::path& path);

// Decodes and converts with cascadekit's BT.601 gray conversion, exactly as `cascade detect`
// feeds the detector.
GrayImage load_gray(const std::filesystem::path& path);

// Encodes by the file's extension; false when it cannot. Not atomic (see output_files.hpp).
bool write_image(const std::filesystem::path& path, const cv::Mat& bgr);

// $CASCADEKIT_DATA, else ../shared/data.
std::filesystem::path data_root();

}  // namespace cascadekit::tools
