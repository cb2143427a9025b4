#pragma once
// Image files for the libraries that take raw buffers. With OpenCV's codecs (the default build)
// every format OpenCV reads; without them (CASCADEKIT_TOOLS_CODECS=OFF, the small build for
// machines without OpenCV) binary PGM/PPM only.
#include <cstdint>
#include <filesystem>
#include <opencv2/core.hpp>

#include "cascadekit/features/image.hpp"

namespace cascadekit {

// The largest image (or video frame) decoded, in pixels: --max-megapixels, default
// kDefaultMaxImagePixels (100 MPix). Checked against the file's header before decoding.
void set_max_image_pixels(std::int64_t pixels);
std::int64_t max_image_pixels();

// Refuses (std::runtime_error) an empty or absurd size (doubles: video containers declare theirs
// as doubles), and a scan whose largest pyramid level, the input enlarged by 1/min_scale when
// min_scale < 1, would have more than max_image_pixels() pixels.
void check_scan_size(double width, double height, double min_scale);

// Decodes to 8-bit BGR. Reads only regular files (a FIFO named x.png is refused, not waited on),
// checks the header's declared size against max_image_pixels() before the decoder allocates, and
// refuses truncated JPEG and PNG data (libjpeg would fill the rest with grey and only warn).
// Formats: PNG, JPEG, BMP, TIFF, WebP and binary PGM/PPM (PGM/PPM only without the codecs).
// Throws std::runtime_error naming the file and the problem.
cv::Mat read_bgr(const std::filesystem::path& path);

// Decodes and converts with cascadekit's BT.601 gray conversion, exactly as `cascade detect`
// feeds the detector.
GrayImage load_gray(const std::filesystem::path& path);
// Decodes to RGB (an ImageLoader: the trainer and the evaluations keep what a model reads).
Image load_image(const std::filesystem::path& path);

// Encodes by the file's extension; false when it cannot. Not atomic (see output_files.hpp).
void write_image(const std::filesystem::path& path, const cv::Mat& bgr);

// $CASCADEKIT_DATA, else ../shared/data.
std::filesystem::path data_root();

}  // namespace cascadekit
