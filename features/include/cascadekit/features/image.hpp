#pragma once
// Raw image buffers: what the runtime accepts (no OpenCV types cross this boundary).
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "cascadekit/features/enum_names.hpp"
#include "cascadekit/features/geometry.hpp"

namespace cascadekit {

// Order of the colour channels in a 3- or 4-channel buffer. OpenCV decodes to BGR.
enum class ChannelOrder { BGR, RGB };

// A non-owning view of an 8-bit image.
// Requires: data points to height rows of stride bytes, each holding width * channels bytes;
//           channels is 1 (gray), 3 (BGR/RGB) or 4 (BGRA/RGBA, alpha ignored).
// Pixel (x, y) is the square [x, x+1) x [y, y+1); its first byte is data[y*stride + x*channels].
struct ImageView {
    const std::uint8_t* data = nullptr;
    int width = 0;
    int height = 0;
    std::ptrdiff_t stride = 0;  // bytes between the starts of consecutive rows
    int channels = 1;
    ChannelOrder order = ChannelOrder::BGR;
};

// Thrown for buffers that break ImageView's contract (null data, bad channels, short stride).
class ImageError : public std::invalid_argument {
public:
    using std::invalid_argument::invalid_argument;
};

// An owning 8-bit single-channel image, rows packed (stride == width).
struct GrayImage {
    int width = 0;
    int height = 0;
    std::vector<std::uint8_t> pixels;

    GrayImage() = default;
    GrayImage(int w, int h) : width(w), height(h), pixels(static_cast<std::size_t>(w) * h) {}
    std::uint8_t at(int x, int y) const { return pixels[static_cast<std::size_t>(y) * width + x]; }
    std::uint8_t& at(int x, int y) { return pixels[static_cast<std::size_t>(y) * width + x]; }
    ImageView view() const { return {pixels.data(), width, height, width, 1, ChannelOrder::BGR}; }
};

// Checks the view against its contract; throws ImageError saying what is wrong.
void validate(const ImageView& image);

// Converts to 8-bit gray with the ITU-R BT.601 luma weights in 14-bit fixed point
// (0.299 R + 0.587 G + 0.114 B, rounded), so that every backend produces the same bytes.
// A 1-channel view is copied. Ensures: result has the view's width and height.
GrayImage to_gray(const ImageView& image);
// The fixed-point weights (they sum to 2^14) and the rounding term, shared with the CUDA backend.
inline constexpr std::uint32_t kLumaR = 4899, kLumaG = 9617, kLumaB = 1868, kLumaHalf = 1u << 13;
inline constexpr int kLumaShift = 14;
void to_gray(const ImageView& image, GrayImage& out);  // reuses out's storage
// Rows [y0, y1) of the view in gray, to_gray's bytes exactly: row y goes to dst + (y - y0) *
// dst_stride. One thread (callers split the rows); 32 pixels at a time with AVX2, or 16 with SSSE3,
// where the CPU has them. `streaming`: write with non-temporal stores where the CPU has them (SSE2) and fence them,
// for a buffer that a DMA engine reads next (the CUDA backend's pinned staging buffer).
// Requires: validate(image) passes; 0 <= y0 <= y1 <= image.height.
void gray_rows(const ImageView& image, int y0, int y1, std::uint8_t* dst, std::ptrdiff_t dst_stride, bool streaming = false);

// out[i] = table[in[i]] for i < n, through a 256-entry byte table (gradient.hpp's gamma_table):
// 32 bytes at a time with AVX2 where the CPU has it, the plain loop's bytes. in == out is allowed
// (other overlaps are not).
void map_bytes(const std::uint8_t* in, std::uint8_t* out, std::size_t n, const std::uint8_t* table);

// The colour channels of an image as three gray planes, always in R, G, B order (whatever the
// buffer's order), for colour gradients (gradient.hpp). A 1-channel view gives three copies of
// its gray plane. Ensures: each plane has the view's width and height.
struct ColourPlanes {
    GrayImage r, g, b;
};
void to_planes(const ImageView& image, ColourPlanes& out);  // reuses out's storage

// An owning 8-bit image of 1 (gray) or 3 (R, G, B) interleaved channels, rows packed: what an
// image file decodes to (io's ImageLoader) and what training and evaluation keep of it.
struct Image {
    int width = 0;
    int height = 0;
    int channels = 1;
    std::vector<std::uint8_t> pixels;

    Image() = default;
    Image(int w, int h, int c) : width(w), height(h), channels(c), pixels(static_cast<std::size_t>(w) * h * c) {}
    Image(GrayImage g) : width(g.width), height(g.height), pixels(std::move(g.pixels)) {}  // NOLINT: gray converts
    ImageView view() const {
        return {pixels.data(), width, height, static_cast<std::ptrdiff_t>(width) * channels, channels, ChannelOrder::RGB};
    }
};

// A copy of a view: RGB for 3 or 4 channels (alpha dropped), gray for 1.
Image to_image(const ImageView& image);
// What features need of an image: itself when `colour` (HogParams::channels), else its gray
// image by to_gray, so that detection and training see the same gray bytes either way.
Image keep_channels(Image image, bool colour);
// Channel c (0 ≤ c < channels) as a gray image; all of them; an image of equal-sized channels.
GrayImage channel(const Image& image, int c);
std::vector<GrayImage> split_channels(const Image& image);
Image merge_channels(std::vector<GrayImage> channels);
// op (a GrayImage in, a GrayImage out) applied to each channel alike: resampling, flips, crops.
// Split once (split_channels) when many ops read one image.
template <class Op>
Image per_channel(const std::vector<GrayImage>& channels, Op&& op) {
    std::vector<GrayImage> out;
    out.reserve(channels.size());
    for (const GrayImage& c : channels) out.push_back(op(c));
    return merge_channels(std::move(out));
}
template <class Op>
Image per_channel(const Image& image, Op&& op) {
    return per_channel(split_channels(image), std::forward<Op>(op));
}

// The seven flips and quarter turns of an image (with the identity, the symmetries of a
// rectangle's grid): more negative images for bootstrapping from the same photographs.
enum class ImageTransform { Mirror, UpsideDown, Rotate180, Rotate90, Rotate270, Transpose, Transverse };
inline constexpr EnumNames<ImageTransform, 7> kImageTransformNames{{{{ImageTransform::Mirror, "mirror"},
                                                                     {ImageTransform::UpsideDown, "upside_down"},
                                                                     {ImageTransform::Rotate180, "rotate180"},
                                                                     {ImageTransform::Rotate90, "rotate90"},
                                                                     {ImageTransform::Rotate270, "rotate270"},
                                                                     {ImageTransform::Transpose, "transpose"},
                                                                     {ImageTransform::Transverse, "transverse"}}}};
// mirror: left–right; upside_down: top–bottom; rotate90 / rotate270: a quarter turn clockwise /
// counter-clockwise; transpose: across the main diagonal; transverse: across the other one.
GrayImage transformed(const GrayImage& image, ImageTransform t);
Image transformed(const Image& image, ImageTransform t);  // every channel alike
// Where a box (pixels [x, x+w) × [y, y+h)) of a width × height image lands in transformed(image, t).
Box transformed_box(const Box& box, int width, int height, ImageTransform t);

}  // namespace cascadekit
