#pragma once
// Decoding image files with OpenCV for the libraries that take raw buffers.
#include <filesystem>

#include "cascadekit/features/image.hpp"

namespace cascadekit::tools {

// Decodes to BGR and converts with cascadekit's BT.601 gray conversion, exactly as `cascade detect`
// feeds the detector. Throws std::runtime_error naming the file when it cannot be decoded.
GrayImage load_gray(const std::filesystem::path& path);

// $CASCADEKIT_DATA, else ../shared/data.
std::filesystem::path data_root();

}  // namespace cascadekit::tools
