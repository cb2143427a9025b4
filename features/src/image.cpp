#include "cascadekit/features/image.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#define CASCADEKIT_GRAY_SSSE3 1
#include <immintrin.h>
#endif

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

// The BT.601 luma of one pixel (the definition every other path must equal).
inline std::uint8_t luma(std::uint32_t r, std::uint32_t g, std::uint32_t b) {
    return static_cast<std::uint8_t>((kLumaR * r + kLumaG * g + kLumaB * b + kLumaHalf) >> kLumaShift);
}

// Pixels [x0, x1) of one row of a 3- or 4-channel view, one at a time.
void gray_span(const std::uint8_t* row, int channels, const RgbOffsets& o, std::uint8_t* dst, int x0, int x1) {
    for (int x = x0; x < x1; ++x) {
        const std::uint8_t* p = row + static_cast<std::ptrdiff_t>(x) * channels;
        dst[x] = luma(p[o.r], p[o.g], p[o.b]);
    }
}

#if CASCADEKIT_GRAY_SSSE3
// Written with intrinsics rather than left to the compiler: the build targets baseline x86-64
// (SSE2), where a stride-3 byte gather does not vectorise, and the CUDA backend stages every
// frame through this loop (one core's scalar loop took longer than the GPU's whole frame). Even
// compiled for AVX2 (features/simd.hpp's clones) GCC 12's vectorised plain loop took 0.71 ms a
// 1920×1080 frame on this project's machine, against 0.32 ms for gray_blocks_avx2 below.

// pshufb masks that spread a group of 4 pixels (of `channels` bytes each, from byte 0) into 16-bit
// lanes: (r, g) pairs, and (b, 0) pairs (the 0 then set to 1); -128 (bit 7) makes a zero byte.
struct GroupMasks {
    alignas(16) std::int8_t rg[16];
    alignas(16) std::int8_t b1[16];
};
GroupMasks group_masks(int channels, const RgbOffsets& o) {
    GroupMasks m;
    for (int i = 0; i < 4; ++i) {
        m.rg[4 * i + 0] = static_cast<std::int8_t>(channels * i + o.r);
        m.rg[4 * i + 2] = static_cast<std::int8_t>(channels * i + o.g);
        m.b1[4 * i + 0] = static_cast<std::int8_t>(channels * i + o.b);
        m.rg[4 * i + 1] = m.rg[4 * i + 3] = m.b1[4 * i + 1] = m.b1[4 * i + 2] = m.b1[4 * i + 3] = -128;
    }
    return m;
}

bool cpu_has_ssse3() {
    static const bool has = __builtin_cpu_supports("ssse3");
    return has;
}
bool cpu_has_avx2() {
    static const bool has = __builtin_cpu_supports("avx2");
    return has;
}

// Pixels [x0, x0 + 16 * n) of a row of C (3 or 4) channels, 16 at a time, as 4 groups of 4
// pixels. Each group's 12 or 16 bytes are brought to the front of a vector (palignr for 3
// channels); pshufb spreads them into 16-bit lanes, (r, g) pairs in one vector and (b, 1) pairs in
// another; pmaddwd against (kLumaR, kLumaG) and (kLumaB, kLumaHalf) gives each pixel's exact 32-bit
// sum, so the bytes are luma()'s. `streaming` requires dst + x0 aligned to 16 bytes.
__attribute__((target("ssse3"))) inline __m128i luma4(__m128i v, __m128i m_rg, __m128i m_b1, __m128i ones, __m128i w_rg,
                                                      __m128i w_b1) {
    const __m128i s = _mm_add_epi32(_mm_madd_epi16(_mm_shuffle_epi8(v, m_rg), w_rg),
                                    _mm_madd_epi16(_mm_or_si128(_mm_shuffle_epi8(v, m_b1), ones), w_b1));
    return _mm_srli_epi32(s, kLumaShift);
}

template <int C>
__attribute__((target("ssse3"))) void gray_blocks_ssse3(const std::uint8_t* row, const RgbOffsets& o, std::uint8_t* dst, int x0, int n,
                                                        bool streaming) {
    const GroupMasks gm = group_masks(C, o);
    const __m128i m_rg = _mm_load_si128(reinterpret_cast<const __m128i*>(gm.rg));
    const __m128i m_b1 = _mm_load_si128(reinterpret_cast<const __m128i*>(gm.b1));
    const __m128i ones = _mm_set1_epi32(1 << 16);  // the 1 of each (b, 1) pair
    const __m128i w_rg = _mm_set1_epi32(static_cast<int>(kLumaR | kLumaG << 16));
    const __m128i w_b1 = _mm_set1_epi32(static_cast<int>(kLumaB | kLumaHalf << 16));
    auto group = [&](__m128i v) { return luma4(v, m_rg, m_b1, ones, w_rg, w_b1); };
    for (int j = 0; j < n; ++j) {
        const int x = x0 + 16 * j;
        const std::uint8_t* p = row + static_cast<std::ptrdiff_t>(x) * C;
        const __m128i a0 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
        const __m128i a1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16));
        const __m128i a2 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 32));
        __m128i g0, g1, g2, g3;
        if constexpr (C == 4) {
            g0 = a0, g1 = a1, g2 = a2;
            g3 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 48));
        } else {  // groups at bytes 0, 12, 24, 36
            g0 = a0;
            g1 = _mm_alignr_epi8(a1, a0, 12);
            g2 = _mm_alignr_epi8(a2, a1, 8);
            g3 = _mm_srli_si128(a2, 4);
        }
        const __m128i y = _mm_packus_epi16(_mm_packs_epi32(group(g0), group(g1)), _mm_packs_epi32(group(g2), group(g3)));
        if (streaming) _mm_stream_si128(reinterpret_cast<__m128i*>(dst + x), y);
        else _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + x), y);
    }
}

// The same 32 pixels at a time with AVX2, for CPUs whose one shuffle port bounds the SSSE3 loop
// (14 shuffles per 16 pixels there; 12 per 32 here: the device host took 0.82 ms a 1920×1080 frame
// on one core with SSSE3). Two groups of 4 pixels per register (one per 128-bit lane, pshufb
// works within lanes); packs, packus and one vpermd put the 32 lumas in order. With 3 channels a
// block reads 4 bytes past its 96 (the last group's 16-byte load): callers leave room.
// `streaming` requires dst + x0 aligned to 16 bytes.
__attribute__((target("avx2"), always_inline)) inline __m256i luma4x2(__m256i v, __m256i m_rg, __m256i m_b1, __m256i ones, __m256i w_rg,
                                                     __m256i w_b1) {
    const __m256i s = _mm256_add_epi32(_mm256_madd_epi16(_mm256_shuffle_epi8(v, m_rg), w_rg),
                                       _mm256_madd_epi16(_mm256_or_si256(_mm256_shuffle_epi8(v, m_b1), ones), w_b1));
    return _mm256_srli_epi32(s, kLumaShift);
}

// Groups 2k and 2k + 1 (4 pixels each, 4·C bytes apart) in the two lanes of one register.
template <int C>
__attribute__((target("avx2"), always_inline)) inline __m256i pair(const std::uint8_t* p, int k) {
    return _mm256_loadu2_m128i(reinterpret_cast<const __m128i*>(p + 4 * C * (2 * k + 1)), reinterpret_cast<const __m128i*>(p + 4 * C * (2 * k)));
}

template <int C>
__attribute__((target("avx2"))) void gray_blocks_avx2(const std::uint8_t* row, const RgbOffsets& o, std::uint8_t* dst, int x0, int n,
                                                      bool streaming) {
    const GroupMasks gm = group_masks(C, o);
    const __m256i m_rg = _mm256_broadcastsi128_si256(_mm_load_si128(reinterpret_cast<const __m128i*>(gm.rg)));
    const __m256i m_b1 = _mm256_broadcastsi128_si256(_mm_load_si128(reinterpret_cast<const __m128i*>(gm.b1)));
    const __m256i ones = _mm256_set1_epi32(1 << 16);
    const __m256i w_rg = _mm256_set1_epi32(static_cast<int>(kLumaR | kLumaG << 16));
    const __m256i w_b1 = _mm256_set1_epi32(static_cast<int>(kLumaB | kLumaHalf << 16));
    const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    for (int j = 0; j < n; ++j) {
        const int x = x0 + 32 * j;
        const std::uint8_t* p = row + static_cast<std::ptrdiff_t>(x) * C;
        const __m256i s0 = luma4x2(pair<C>(p, 0), m_rg, m_b1, ones, w_rg, w_b1), s1 = luma4x2(pair<C>(p, 1), m_rg, m_b1, ones, w_rg, w_b1);
        const __m256i s2 = luma4x2(pair<C>(p, 2), m_rg, m_b1, ones, w_rg, w_b1), s3 = luma4x2(pair<C>(p, 3), m_rg, m_b1, ones, w_rg, w_b1);
        // Lanes: packs -> [g0 g2 | g1 g3], [g4 g6 | g5 g7]; packus -> [g0 g2 g4 g6 | g1 g3 g5 g7] (4 bytes each).
        const __m256i y = _mm256_permutevar8x32_epi32(_mm256_packus_epi16(_mm256_packs_epi32(s0, s1), _mm256_packs_epi32(s2, s3)), order);
        if (streaming) {
            _mm_stream_si128(reinterpret_cast<__m128i*>(dst + x), _mm256_castsi256_si128(y));
            _mm_stream_si128(reinterpret_cast<__m128i*>(dst + x + 16), _mm256_extracti128_si256(y, 1));
        }
        else _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + x), y);
    }
}
#endif

// One row of a validated 3- or 4-channel view in gray.
void gray_row(const std::uint8_t* row, int width, int channels, const RgbOffsets& o, std::uint8_t* dst, bool streaming) {
#if CASCADEKIT_GRAY_SSSE3
    if (cpu_has_ssse3()) {
        const bool avx2 = cpu_has_avx2();
        // Streaming stores (16 bytes each) need an aligned destination: the pixels before its first
        // 16-byte boundary one by one. (Aligning the AVX2 loop's stores to 32 bytes instead cost
        // 3.6× the time where rows start 16 bytes off: plain stores of the head then share cache
        // lines with the streamed ones.)
        const int head = streaming ? std::min(width, static_cast<int>((16 - reinterpret_cast<std::uintptr_t>(dst) % 16) % 16)) : 0;
        gray_span(row, channels, o, dst, 0, head);
        int x = head;
        if (avx2) {
            // 3 channels: a block of 32 pixels reads 4 bytes past its own, so 2 pixels must follow it.
            const int n = std::max(0, width - x - (channels == 3 ? 2 : 0)) / 32;
            if (channels == 3) gray_blocks_avx2<3>(row, o, dst, x, n, streaming);
            else gray_blocks_avx2<4>(row, o, dst, x, n, streaming);
            x += 32 * n;
        }
        const int n = (width - x) / 16;
        if (channels == 3) gray_blocks_ssse3<3>(row, o, dst, x, n, streaming);
        else gray_blocks_ssse3<4>(row, o, dst, x, n, streaming);
        gray_span(row, channels, o, dst, x + 16 * n, width);
        return;
    }
#endif
    (void)streaming;
    gray_span(row, channels, o, dst, 0, width);
}

// out[i] = table[in[i]], 32 bytes at a time: the table as sixteen 16-entry rows, each byte looked
// up in every row by its low nibble (pshufb) and kept from the row its high nibble names: 0.25 ns
// a byte on one thread of the development machine against 0.65–0.73 for the plain loop (3.7 MB,
// the square-root table).
__attribute__((target("avx2"))) std::size_t map_bytes_avx2(const std::uint8_t* in, std::uint8_t* out, std::size_t n,
                                                          const std::uint8_t* table) {
    __m256i rows[16];
    for (int k = 0; k < 16; ++k)
        rows[k] = _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(table + 16 * k)));
    const __m256i nibble = _mm256_set1_epi8(0x0F);
    std::size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i));
        const __m256i lo = _mm256_and_si256(x, nibble);
        const __m256i hi = _mm256_and_si256(_mm256_srli_epi16(x, 4), nibble);
        __m256i r = _mm256_setzero_si256();
        for (int k = 0; k < 16; ++k) {
            const __m256i mine = _mm256_cmpeq_epi8(hi, _mm256_set1_epi8(static_cast<char>(k)));
            r = _mm256_or_si256(r, _mm256_and_si256(mine, _mm256_shuffle_epi8(rows[k], lo)));
        }
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), r);
    }
    return i;
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

void map_bytes(const std::uint8_t* in, std::uint8_t* out, std::size_t n, const std::uint8_t* table) {
    const std::size_t done = cpu_has_avx2() ? map_bytes_avx2(in, out, n, table) : 0;
    for (std::size_t i = done; i < n; ++i) out[i] = table[in[i]];
}

void to_gray(const ImageView& image, GrayImage& out) {
    validate(image);
    out.width = image.width;
    out.height = image.height;
    out.pixels.resize(static_cast<std::size_t>(image.width) * image.height);
    // BT.601 luma in 14-bit fixed point: 0.299, 0.587, 0.114 times 2^14, summing to 2^14 (luma()).
    // Rows are independent: in parallel, 16 to a task.
    tbb::parallel_for(tbb::blocked_range<int>(0, image.height, 16), [&](const tbb::blocked_range<int>& rows) {
        gray_rows(image, rows.begin(), rows.end(), out.pixels.data() + static_cast<std::size_t>(rows.begin()) * image.width,
                  image.width);
    });
}

void gray_rows(const ImageView& image, int y0, int y1, std::uint8_t* dst, std::ptrdiff_t dst_stride, bool streaming) {
    const RgbOffsets o = rgb_offsets(image);
    for (int y = y0; y < y1; ++y) {
        const std::uint8_t* row = image.data + y * image.stride;
        std::uint8_t* d = dst + (y - y0) * dst_stride;
        if (image.channels == 1) std::memcpy(d, row, static_cast<std::size_t>(image.width));
        else gray_row(row, image.width, image.channels, o, d, streaming);
    }
#if CASCADEKIT_GRAY_SSSE3
    if (streaming) _mm_sfence();
#endif
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
