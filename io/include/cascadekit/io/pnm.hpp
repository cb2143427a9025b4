#pragma once
// Binary PGM (P5) and PPM (P6) files, 8-bit: the image format every build can read and write,
// including builds without OpenCV's codecs (the small GPU-machine build, see tools/README.md).
#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <vector>

#include "cascadekit/features/image.hpp"
#include "cascadekit/io/image_header.hpp"

namespace cascadekit {

struct PnmImage {
    int width = 0, height = 0, channels = 1;  // 1 (P5) or 3 (P6, RGB order)
    std::vector<std::uint8_t> pixels;          // rows packed
    ImageView view() const {
        return {pixels.data(), width, height, static_cast<std::ptrdiff_t>(width) * channels, channels, ChannelOrder::RGB};
    }
};

// Throws std::runtime_error naming the file and the problem (not a regular file, not PNM, maxval
// other than 255, more than max_pixels pixels, truncated data). The declared size is checked
// against the limit and the file's bytes before any pixel buffer is allocated.
PnmImage read_pnm(const std::filesystem::path& path, std::int64_t max_pixels = kDefaultMaxImagePixels);
// The same from a file's bytes (path names it in errors).
PnmImage decode_pnm(const std::vector<std::uint8_t>& bytes, const std::filesystem::path& path,
                    std::int64_t max_pixels = kDefaultMaxImagePixels);
bool is_pnm_path(const std::filesystem::path& path);  // .pgm, .ppm or .pnm
// P5 for 1 channel, P6 for 3 or 4 (alpha dropped); BGR views are written as RGB.
std::vector<std::uint8_t> encode_pnm(const ImageView& image);
// encode_pnm written with write_file_atomically (files.hpp); throws FileError.
void write_pnm(const std::filesystem::path& path, const ImageView& image);

}  // namespace cascadekit
