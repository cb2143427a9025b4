// libFuzzer: the PGM/PPM reader and the image-header sniffer (sizes and completeness of PNG,
// JPEG, BMP, TIFF, WebP and PNM data) that guard every decode. Must never crash or allocate
// beyond the pixel limit (libFuzzer's -rss_limit_mb catches that).
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "cascadekit/io/image_header.hpp"
#include "cascadekit/io/pnm.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::vector<std::uint8_t> bytes(data, data + size);
    try {
        const cascadekit::PnmImage img = cascadekit::decode_pnm(bytes, "fuzz.pgm", 1 << 20);
        if (img.pixels.size() != static_cast<std::size_t>(img.width) * img.height * img.channels) __builtin_trap();
    } catch (const std::runtime_error&) {
    }
    if (const auto h = cascadekit::read_image_header(data, size)) {
        if (h->width <= 0 || h->height <= 0) __builtin_trap();
        (void)cascadekit::image_data_problem(*h, data, size);
    }
    return 0;
}
