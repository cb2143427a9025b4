#include "cascadekit/io/image_header.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>

namespace cascadekit {

namespace {
std::uint32_t be16(const std::uint8_t* p) { return (std::uint32_t{p[0]} << 8) | p[1]; }
std::uint32_t be32(const std::uint8_t* p) { return (be16(p) << 16) | be16(p + 2); }
std::uint32_t le16(const std::uint8_t* p) { return (std::uint32_t{p[1]} << 8) | p[0]; }
std::uint32_t le32(const std::uint8_t* p) { return (le16(p + 2) << 16) | le16(p); }
std::uint32_t le24(const std::uint8_t* p) { return (std::uint32_t{p[2]} << 16) | le16(p); }

bool starts(const std::uint8_t* d, std::size_t n, const char* magic, std::size_t m) {
    return n >= m && std::memcmp(d, magic, m) == 0;
}

std::optional<ImageHeader> png(const std::uint8_t* d, std::size_t n) {
    if (n < 24 || std::memcmp(d + 12, "IHDR", 4) != 0) return std::nullopt;
    return ImageHeader{"png", be32(d + 16), be32(d + 20)};
}

std::optional<ImageHeader> jpeg(const std::uint8_t* d, std::size_t n) {
    std::size_t i = 2;
    while (i + 4 <= n) {
        if (d[i] != 0xFF) return std::nullopt;
        const std::uint8_t m = d[i + 1];
        if (m == 0xFF) { ++i; continue; }  // fill byte
        if (m == 0x01 || (m >= 0xD0 && m <= 0xD7)) { i += 2; continue; }  // no length
        if (m == 0xD9 || m == 0xDA) return std::nullopt;  // image or scan before any frame header
        const std::uint32_t len = be16(d + i + 2);
        if (len < 2) return std::nullopt;
        const bool sof = m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC;
        if (sof) {
            if (i + 9 > n || len < 7) return std::nullopt;
            return ImageHeader{"jpeg", be16(d + i + 7), be16(d + i + 5)};
        }
        i += 2 + len;
    }
    return std::nullopt;
}

std::optional<ImageHeader> bmp(const std::uint8_t* d, std::size_t n) {
    if (n < 26) return std::nullopt;
    const std::uint32_t dib = le32(d + 14);
    if (dib == 12) return ImageHeader{"bmp", le16(d + 18), le16(d + 20)};
    const auto w = static_cast<std::int32_t>(le32(d + 18)), h = static_cast<std::int32_t>(le32(d + 22));
    if (dib < 40 || w <= 0 || h == 0 || h == INT32_MIN) return std::nullopt;
    return ImageHeader{"bmp", w, h < 0 ? -std::int64_t{h} : h};
}

std::optional<ImageHeader> tiff(const std::uint8_t* d, std::size_t n) {
    const bool little = d[0] == 'I';
    auto u16 = [&](std::size_t at) { return little ? le16(d + at) : be16(d + at); };
    auto u32 = [&](std::size_t at) { return little ? le32(d + at) : be32(d + at); };
    if (n < 8) return std::nullopt;
    const std::size_t ifd = u32(4);
    if (ifd + 2 > n) return std::nullopt;
    const std::size_t entries = u16(ifd);
    std::int64_t w = -1, h = -1;
    for (std::size_t e = 0; e < entries; ++e) {
        const std::size_t at = ifd + 2 + 12 * e;
        if (at + 12 > n) return std::nullopt;
        const std::uint32_t tag = u16(at), type = u16(at + 2);
        if (tag != 256 && tag != 257) continue;
        const std::int64_t v = type == 3 ? u16(at + 8) : type == 4 ? u32(at + 8) : -1;
        (tag == 256 ? w : h) = v;
    }
    if (w <= 0 || h <= 0) return std::nullopt;
    return ImageHeader{"tiff", w, h};
}

std::optional<ImageHeader> webp(const std::uint8_t* d, std::size_t n) {
    if (n < 30) return std::nullopt;
    const std::uint8_t* c = d + 12;  // first chunk
    if (std::memcmp(c, "VP8 ", 4) == 0) {
        if (c[11] != 0x9d || c[12] != 0x01 || c[13] != 0x2a) return std::nullopt;
        return ImageHeader{"webp", le16(c + 14) & 0x3FFF, le16(c + 16) & 0x3FFF};
    }
    if (std::memcmp(c, "VP8L", 4) == 0) {
        if (c[8] != 0x2f) return std::nullopt;
        const std::uint32_t bits = le32(c + 9);
        return ImageHeader{"webp", (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1};
    }
    if (std::memcmp(c, "VP8X", 4) == 0) return ImageHeader{"webp", le24(c + 12) + 1, le24(c + 15) + 1};
    return std::nullopt;
}

// P5/P6 header: magic, width, height, maxval, separated by whitespace and # comments.
std::optional<ImageHeader> pnm(const std::uint8_t* d, std::size_t n) {
    std::size_t i = 2;
    std::int64_t v[2] = {0, 0};
    for (std::int64_t& x : v) {
        while (i < n && (std::isspace(d[i]) || d[i] == '#')) {
            if (d[i] == '#')
                while (i < n && d[i] != '\n') ++i;
            else
                ++i;
        }
        std::size_t digits = 0;
        while (i < n && std::isdigit(d[i]) && digits < 10) {
            x = 10 * x + (d[i++] - '0');
            ++digits;
        }
        if (digits == 0 || digits == 10) return std::nullopt;
    }
    return ImageHeader{"pnm", v[0], v[1]};
}
}  // namespace

std::optional<ImageHeader> read_image_header(const std::uint8_t* d, std::size_t n) {
    std::optional<ImageHeader> h;
    if (starts(d, n, "\x89PNG\r\n\x1a\n", 8)) h = png(d, n);
    else if (n >= 3 && d[0] == 0xFF && d[1] == 0xD8 && d[2] == 0xFF) h = jpeg(d, n);
    else if (starts(d, n, "BM", 2)) h = bmp(d, n);
    else if (starts(d, n, "II*\0", 4) || starts(d, n, "MM\0*", 4)) h = tiff(d, n);
    else if (starts(d, n, "RIFF", 4) && n >= 12 && std::memcmp(d + 8, "WEBP", 4) == 0) h = webp(d, n);
    else if (n >= 2 && d[0] == 'P' && (d[1] == '5' || d[1] == '6')) h = pnm(d, n);
    if (h && (h->width <= 0 || h->height <= 0)) return std::nullopt;
    return h;
}

std::string image_data_problem(const ImageHeader& header, const std::uint8_t* d, std::size_t n) {
    if (header.format == "jpeg") {
        // Entropy-coded data escapes 0xFF as FF 00 and uses only RSTn (FF D0-D7) as markers, so an
        // FF D9 after the last FF DA is the end-of-image marker, not image data.
        std::size_t last_sos = 0;
        for (std::size_t i = 0; i + 1 < n; ++i)
            if (d[i] == 0xFF && d[i + 1] == 0xDA) last_sos = i;
        if (last_sos == 0) return "JPEG data holds no scan (truncated file)";
        for (std::size_t i = last_sos + 2; i + 1 < n; ++i)
            if (d[i] == 0xFF && d[i + 1] == 0xD9) return {};
        return "JPEG data ends before its end-of-image marker (truncated file)";
    }
    if (header.format == "png") {
        static const std::uint8_t iend[12] = {0, 0, 0, 0, 'I', 'E', 'N', 'D', 0xAE, 0x42, 0x60, 0x82};
        if (std::search(d, d + n, iend, iend + 12) == d + n) return "PNG data ends before its IEND chunk (truncated file)";
        return {};
    }
    return {};
}

}  // namespace cascadekit
