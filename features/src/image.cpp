#include "cascadekit/features/image.hpp"

#include <cstdlib>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

namespace cascadekit {

namespace {
// Byte offsets of R, G and B within a pixel of the view (all 0 for gray).
struct RgbOffsets {
    int r, g, b;
};
RgbOffsets rgb_offsets(const ImageView& image) {
    if (image.channels == 1) return {0, 0, 0};
    return image.order == ChannelOrder::BGR ? RgbOffsets{2, 1, 0} : RgbOffsets{0, 1, 2};
}
}  // namespace

void validate(const ImageView& image) {
    if (image.width < 0 || image.height < 0)
        throw ImageError("image has negative size " + std::to_string(image.width) + "x" +
                         std::to_string(image.height));
    if (image.channels != 1 && image.channels != 3 && image.channels != 4)
        throw ImageError("image has " + std::to_string(image.channels) +
                         " channels; expected 1, 3 or 4");
    if (image.width == 0 || image.height == 0) return;
    if (image.data == nullptr) throw ImageError("image data is null");
    if (std::llabs(image.stride) < static_cast<long long>(image.width) * image.channels)
        throw ImageError("image stride " + std::to_string(image.stride) + " is shorter than a row of " +
                         std::to_string(image.width * image.channels) + " bytes");
}

void to_gray(const ImageView& image, GrayImage& out) {
    validate(image);
    out.width = image.width;
    out.height = image.height;
    out.pixels.resize(static_cast<std::size_t>(image.width) * image.height);
    // BT.601 luma in 14-bit fixed point: 0.299, 0.587, 0.114 times 2^14, summing to 2^14.
    const RgbOffsets o = rgb_offsets(image);
    // Rows are independent: in parallel, 16 to a task.
    tbb::parallel_for(tbb::blocked_range<int>(0, image.height, 16), [&](const tbb::blocked_range<int>& rows) {
        for (int y = rows.begin(); y < rows.end(); ++y) {
            const std::uint8_t* row = image.data + y * image.stride;
            std::uint8_t* dst = out.pixels.data() + static_cast<std::size_t>(y) * image.width;
            if (image.channels == 1) {
                for (int x = 0; x < image.width; ++x) dst[x] = row[x];
                continue;
            }
            for (int x = 0; x < image.width; ++x) {
                const std::uint8_t* p = row + x * image.channels;
                const std::uint32_t r = p[o.r], g = p[o.g], b = p[o.b];
                dst[x] = static_cast<std::uint8_t>((kLumaR * r + kLumaG * g + kLumaB * b + kLumaHalf) >> kLumaShift);
            }
        }
    });
}

void to_planes(const ImageView& image, ColourPlanes& out) {
    validate(image);
    GrayImage* planes[3] = {&out.r, &out.g, &out.b};
    for (GrayImage* p : planes) {
        p->width = image.width;
        p->height = image.height;
        p->pixels.resize(static_cast<std::size_t>(image.width) * image.height);
    }
    const int c = image.channels;
    const RgbOffsets o = rgb_offsets(image);
    const int off[3] = {o.r, o.g, o.b};
    tbb::parallel_for(tbb::blocked_range<int>(0, image.height, 16), [&](const tbb::blocked_range<int>& rows) {
        for (int y = rows.begin(); y < rows.end(); ++y) {
            const std::uint8_t* row = image.data + y * image.stride;
            for (int k = 0; k < 3; ++k) {
                std::uint8_t* dst = planes[k]->pixels.data() + static_cast<std::size_t>(y) * image.width;
                for (int x = 0; x < image.width; ++x) dst[x] = row[x * c + off[k]];
            }
        }
    });
}

GrayImage to_gray(const ImageView& image) {
    GrayImage out;
    to_gray(image, out);
    return out;
}

Box transformed_box(const Box& b, int width, int height, ImageTransform t) {
    const double W = width, H = height;
    switch (t) {
        case ImageTransform::Mirror: return {W - b.x - b.w, b.y, b.w, b.h};
        case ImageTransform::UpsideDown: return {b.x, H - b.y - b.h, b.w, b.h};
        case ImageTransform::Rotate180: return {W - b.x - b.w, H - b.y - b.h, b.w, b.h};
        case ImageTransform::Rotate90: return {H - b.y - b.h, b.x, b.h, b.w};
        case ImageTransform::Rotate270: return {b.y, W - b.x - b.w, b.h, b.w};
        case ImageTransform::Transpose: return {b.y, b.x, b.h, b.w};
        case ImageTransform::Transverse: return {H - b.y - b.h, W - b.x - b.w, b.h, b.w};
    }
    return b;
}

GrayImage transformed(const GrayImage& g, ImageTransform t) {
    const bool swap = t == ImageTransform::Rotate90 || t == ImageTransform::Rotate270 || t == ImageTransform::Transpose ||
                      t == ImageTransform::Transverse;
    GrayImage out(swap ? g.height : g.width, swap ? g.width : g.height);
    const int W = g.width - 1, H = g.height - 1;
    for (int y = 0; y < g.height; ++y)
        for (int x = 0; x < g.width; ++x) {
            int u = x, v = y;  // where source pixel (x, y) lands
            switch (t) {
                case ImageTransform::Mirror: u = W - x; break;
                case ImageTransform::UpsideDown: v = H - y; break;
                case ImageTransform::Rotate180: u = W - x, v = H - y; break;
                case ImageTransform::Rotate90: u = H - y, v = x; break;
                case ImageTransform::Rotate270: u = y, v = W - x; break;
                case ImageTransform::Transpose: u = y, v = x; break;
                case ImageTransform::Transverse: u = H - y, v = W - x; break;
            }
            out.at(u, v) = g.at(x, y);
        }
    return out;
}

Image transformed(const Image& image, ImageTransform t) {
    return per_channel(image, [t](const GrayImage& g) { return transformed(g, t); });
}

Image to_image(const ImageView& image) {
    validate(image);
    if (image.channels == 1) return to_gray(image);
    Image out(image.width, image.height, 3);
    const int c = image.channels;
    const RgbOffsets o = rgb_offsets(image);
    for (int y = 0; y < image.height; ++y) {
        const std::uint8_t* src = image.data + y * image.stride;
        std::uint8_t* dst = out.pixels.data() + static_cast<std::size_t>(y) * image.width * 3;
        for (int x = 0; x < image.width; ++x, src += c, dst += 3) {
            dst[0] = src[o.r];
            dst[1] = src[o.g];
            dst[2] = src[o.b];
        }
    }
    return out;
}

Image keep_channels(Image image, bool colour) {
    if (colour || image.channels == 1) return image;
    return to_gray(image.view());
}

GrayImage channel(const Image& image, int c) {
    if (c < 0 || c >= image.channels) throw ImageError("channel " + std::to_string(c) + " of a " + std::to_string(image.channels) + "-channel image");
    GrayImage out(image.width, image.height);
    if (image.channels == 1) {
        out.pixels = image.pixels;
        return out;
    }
    const std::size_t n = out.pixels.size(), step = static_cast<std::size_t>(image.channels);
    for (std::size_t i = 0; i < n; ++i) out.pixels[i] = image.pixels[i * step + static_cast<std::size_t>(c)];
    return out;
}

std::vector<GrayImage> split_channels(const Image& image) {
    std::vector<GrayImage> out;
    out.reserve(static_cast<std::size_t>(image.channels));
    for (int c = 0; c < image.channels; ++c) out.push_back(channel(image, c));
    return out;
}

Image merge_channels(std::vector<GrayImage> channels) {
    if (channels.empty()) throw ImageError("an image of no channels");
    const GrayImage& first = channels.front();
    for (const GrayImage& g : channels)
        if (g.width != first.width || g.height != first.height) throw ImageError("channels of different sizes");
    if (channels.size() == 1) return std::move(channels.front());
    Image out(first.width, first.height, static_cast<int>(channels.size()));
    const std::size_t n = first.pixels.size(), step = channels.size();
    for (std::size_t c = 0; c < step; ++c)
        for (std::size_t i = 0; i < n; ++i) out.pixels[i * step + c] = channels[c].pixels[i];
    return out;
}

}  // namespace cascadekit
