#pragma once
// Image sizes read from file headers, before any decoder allocates: a few hundred bytes claiming
// 30000×30000 pixels must be refused, not decoded (a decoder allocates what the header says).
// And whether the compressed data is complete: libjpeg decodes a truncated JPEG with grey fill
// and only a warning, so truncation is found here. No codec library is needed.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace cascadekit {

// 100 million pixels: the default limit on an image's (or video frame's) declared size. At 3
// bytes a pixel plus the pyramid and integral histograms, detection at this size takes ~4 GB.
inline constexpr std::int64_t kDefaultMaxImagePixels = 100'000'000;

struct ImageHeader {
    std::string format;  // "png", "jpeg", "bmp", "tiff", "webp", "pnm"
    std::int64_t width = 0, height = 0;
    std::int64_t pixels() const { return width * height; }
};

// Format and declared size of PNG, JPEG, BMP, TIFF, WebP and binary PGM/PPM data; nullopt when
// the data is none of these or its header is cut short or malformed.
std::optional<ImageHeader> read_image_header(const std::uint8_t* data, std::size_t size);

// Empty when the compressed data looks complete; else what is missing. JPEG: an end-of-image
// marker after the last start-of-scan. PNG: an IEND chunk at the end. Other formats: empty.
std::string image_data_problem(const ImageHeader& header, const std::uint8_t* data, std::size_t size);

}  // namespace cascadekit
