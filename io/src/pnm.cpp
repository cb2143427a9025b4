#include "cascadekit/io/pnm.hpp"

#include <cctype>
#include <fstream>
#include <string>

namespace cascadekit {

namespace {
// Next header token, skipping whitespace and # comments.
int header_int(std::istream& in, const std::filesystem::path& path, const char* what) {
    int c = in.get();
    while (in && (std::isspace(c) || c == '#')) {
        if (c == '#')
            while (in && c != '\n') c = in.get();
        c = in.get();
    }
    std::string digits;
    while (in && std::isdigit(c)) {
        digits.push_back(static_cast<char>(c));
        c = in.get();
    }
    if (digits.empty() || digits.size() > 6) throw std::runtime_error(path.string() + ": bad PNM header (" + what + ")");
    return std::stoi(digits);  // the single whitespace after maxval was consumed as c
}
}  // namespace

bool is_pnm_path(const std::filesystem::path& path) {
    const std::string e = path.extension().string();
    return e == ".pgm" || e == ".ppm" || e == ".pnm" || e == ".PGM" || e == ".PPM" || e == ".PNM";
}

PnmImage read_pnm(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error(path.string() + ": cannot open");
    char magic[2] = {};
    in.read(magic, 2);
    if (!in || magic[0] != 'P' || (magic[1] != '5' && magic[1] != '6'))
        throw std::runtime_error(path.string() + ": not a binary PGM/PPM file (P5 or P6)");
    PnmImage img;
    img.channels = magic[1] == '5' ? 1 : 3;
    img.width = header_int(in, path, "width");
    img.height = header_int(in, path, "height");
    const int maxval = header_int(in, path, "maxval");
    if (img.width <= 0 || img.height <= 0) throw std::runtime_error(path.string() + ": empty image");
    if (maxval != 255) throw std::runtime_error(path.string() + ": only 8-bit PNM (maxval 255) is supported");
    img.pixels.resize(static_cast<std::size_t>(img.width) * img.height * img.channels);
    in.read(reinterpret_cast<char*>(img.pixels.data()), static_cast<std::streamsize>(img.pixels.size()));
    if (!in) throw std::runtime_error(path.string() + ": truncated pixel data");
    return img;
}

void write_pnm(const std::filesystem::path& path, const ImageView& image) {
    validate(image);
    std::ofstream out(path, std::ios::binary);
    const int ch = image.channels == 1 ? 1 : 3;
    out << (ch == 1 ? "P5\n" : "P6\n") << image.width << " " << image.height << "\n255\n";
    std::vector<std::uint8_t> row(static_cast<std::size_t>(image.width) * ch);
    for (int y = 0; y < image.height; ++y) {
        const std::uint8_t* src = image.data + y * image.stride;
        for (int x = 0; x < image.width; ++x) {
            const std::uint8_t* p = src + x * image.channels;
            if (ch == 1) {
                row[static_cast<std::size_t>(x)] = p[0];
            } else {
                const bool bgr = image.order == ChannelOrder::BGR;
                row[3 * static_cast<std::size_t>(x)] = bgr ? p[2] : p[0];
                row[3 * static_cast<std::size_t>(x) + 1] = p[1];
                row[3 * static_cast<std::size_t>(x) + 2] = bgr ? p[0] : p[2];
            }
        }
        out.write(reinterpret_cast<const char*>(row.data()), static_cast<std::streamsize>(row.size()));
    }
    if (!out) throw std::runtime_error(path.string() + ": cannot write");
}

}  // namespace cascadekit
