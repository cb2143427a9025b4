#include "cascadekit/io/pnm.hpp"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <string>

#include "cascadekit/io/files.hpp"

namespace cascadekit {

namespace {
// Next header token, skipping whitespace and # comments; at most 6 digits (so values stay far
// from int overflow).
int header_int(const std::vector<std::uint8_t>& b, std::size_t& i, const std::filesystem::path& path, const char* what) {
    while (i < b.size() && (std::isspace(b[i]) || b[i] == '#')) {
        if (b[i] == '#')
            while (i < b.size() && b[i] != '\n') ++i;
        else
            ++i;
    }
    int v = 0, digits = 0;
    while (i < b.size() && std::isdigit(b[i]) && digits <= 6) {
        v = 10 * v + (b[i++] - '0');
        ++digits;
    }
    if (digits == 0 || digits > 6) throw std::runtime_error(path.string() + ": bad PNM header (" + what + ")");
    return v;
}
}  // namespace

bool is_pnm_path(const std::filesystem::path& path) {
    const std::string e = path.extension().string();
    return e == ".pgm" || e == ".ppm" || e == ".pnm" || e == ".PGM" || e == ".PPM" || e == ".PNM";
}

PnmImage decode_pnm(const std::vector<std::uint8_t>& b, const std::filesystem::path& path, std::int64_t max_pixels) {
    if (b.size() < 2 || b[0] != 'P' || (b[1] != '5' && b[1] != '6'))
        throw std::runtime_error(path.string() + ": not a binary PGM/PPM file (P5 or P6)");
    PnmImage img;
    img.channels = b[1] == '5' ? 1 : 3;
    std::size_t i = 2;
    img.width = header_int(b, i, path, "width");
    img.height = header_int(b, i, path, "height");
    const int maxval = header_int(b, i, path, "maxval");
    if (i >= b.size() || !std::isspace(b[i])) throw std::runtime_error(path.string() + ": bad PNM header (after maxval)");
    ++i;  // the single whitespace after maxval
    if (img.width <= 0 || img.height <= 0) throw std::runtime_error(path.string() + ": empty image");
    if (maxval != 255) throw std::runtime_error(path.string() + ": only 8-bit PNM (maxval 255) is supported");
    const std::int64_t pixels = std::int64_t{img.width} * img.height;
    if (pixels > max_pixels)
        throw std::runtime_error(path.string() + ": image " + std::to_string(img.width) + "x" + std::to_string(img.height) +
                                 " has more pixels than the limit of " + std::to_string(max_pixels));
    // The declared size is checked against the bytes present before anything is allocated.
    const std::uint64_t need = static_cast<std::uint64_t>(pixels) * static_cast<std::uint64_t>(img.channels);
    if (b.size() - i < need)
        throw std::runtime_error(path.string() + ": truncated pixel data (" + std::to_string(b.size() - i) + " of " +
                                 std::to_string(need) + " bytes)");
    img.pixels.assign(b.begin() + static_cast<std::ptrdiff_t>(i), b.begin() + static_cast<std::ptrdiff_t>(i + need));
    return img;
}

PnmImage read_pnm(const std::filesystem::path& path, std::int64_t max_pixels) {
    // Header (at most a few KB with comments) plus 3 bytes a pixel.
    const auto limit = static_cast<std::uint64_t>(std::max<std::int64_t>(max_pixels, 0)) * 3u + (1u << 16);
    std::vector<std::uint8_t> bytes;
    try {
        bytes = read_file_bytes(path, limit, "PGM/PPM image");
    } catch (const FileError& e) {
        throw std::runtime_error(e.what());
    }
    return decode_pnm(bytes, path, max_pixels);
}

std::vector<std::uint8_t> encode_pnm(const ImageView& image) {
    validate(image);
    const int ch = image.channels == 1 ? 1 : 3;
    const std::string header = std::string(ch == 1 ? "P5\n" : "P6\n") + std::to_string(image.width) + " " +
                               std::to_string(image.height) + "\n255\n";
    std::vector<std::uint8_t> out(header.begin(), header.end());
    out.reserve(out.size() + static_cast<std::size_t>(image.width) * image.height * ch);
    for (int y = 0; y < image.height; ++y) {
        const std::uint8_t* src = image.data + y * image.stride;
        for (int x = 0; x < image.width; ++x) {
            const std::uint8_t* p = src + x * image.channels;
            if (ch == 1) {
                out.push_back(p[0]);
            } else {
                const bool bgr = image.order == ChannelOrder::BGR;
                out.push_back(bgr ? p[2] : p[0]);
                out.push_back(p[1]);
                out.push_back(bgr ? p[0] : p[2]);
            }
        }
    }
    return out;
}

void write_pnm(const std::filesystem::path& path, const ImageView& image) {
    const std::vector<std::uint8_t> bytes = encode_pnm(image);
    write_file_atomically(path, bytes.data(), bytes.size());
}

}  // namespace cascadekit
