// features/ against slow, obviously-correct references.
#include <array>
#include <gtest/gtest.h>

#include <algorithm>

#include <cmath>
#include <set>
#include <tuple>
#include <tbb/global_control.h>
#include <tbb/task_arena.h>

#include "cascadekit/features/block.hpp"
#include "cascadekit/features/block_pool.hpp"
#include "cascadekit/features/gradient.hpp"
#include "cascadekit/features/integral_histogram.hpp"
#include "cascadekit/features/integral_image.hpp"
#include "cascadekit/features/lbp.hpp"
#include "cascadekit/features/pyramid.hpp"
#include "test_support.hpp"

using namespace cascadekit;
using namespace cascadekit::test;

namespace {

// ---- references ---------------------------------------------------------------------------
double reference_angle_deg(int gx, int gy) {
    double a = std::atan2(static_cast<double>(gy), static_cast<double>(gx)) * 180.0 / M_PI;
    if (a < 0) a += 180.0;
    if (a >= 180.0) a -= 180.0;
    return a;
}
int reference_bin(int gx, int gy) { return std::min(8, static_cast<int>(std::floor(reference_angle_deg(gx, gy) / 20.0))); }
bool on_boundary(int gx, int gy) {
    const double a = reference_angle_deg(gx, gy) / 20.0;
    return std::abs(a - std::round(a)) < 1e-9;
}
int ref_pixel(const GrayImage& img, int x, int y) {
    return img.at(std::clamp(x, 0, img.width - 1), std::clamp(y, 0, img.height - 1));
}
struct RefGradient {
    int gx, gy;
};
RefGradient ref_gradient(const GrayImage& img, int x, int y) {
    return {ref_pixel(img, x + 1, y) - ref_pixel(img, x - 1, y), ref_pixel(img, x, y + 1) - ref_pixel(img, x, y - 1)};
}
// Per-bin sums over a rectangle, straight from the pixels: quantised (exact) and real-valued.
void ref_rect_sums(const GrayImage& img, const Rect& r, std::uint64_t q[9], double real[9]) {
    for (int b = 0; b < 9; ++b) q[b] = 0, real[b] = 0;
    for (int y = r.y; y < r.y + r.h; ++y)
        for (int x = r.x; x < r.x + r.w; ++x) {
            const auto g = ref_gradient(img, x, y);
            const int b = reference_bin(g.gx, g.gy);
            q[b] += static_cast<std::uint64_t>(std::llround(std::hypot(g.gx, g.gy) * 256.0));
            real[b] += std::hypot(g.gx, g.gy);
        }
}
std::array<double, 36> ref_descriptor(const GrayImage& img, int ox, int oy, const Rect& block, const HogParams& p) {
    std::array<double, 36> v{};
    const int cw = block.w / 2, ch = block.h / 2;
    int k = 0;
    for (int j = 0; j < 2; ++j)
        for (int i = 0; i < 2; ++i) {
            std::uint64_t q[9];
            double real[9];
            ref_rect_sums(img, {ox + block.x + i * cw, oy + block.y + j * ch, cw, ch}, q, real);
            for (int b = 0; b < 9; ++b) v[k++] = real[b];
        }
    auto l2 = [&](double eps) {
        double s = 0;
        for (double x : v) s += x * x;
        for (double& x : v) x /= std::sqrt(s) + eps;
    };
    if (p.norm == BlockNorm::L2) l2(p.epsilon);
    if (p.norm == BlockNorm::L2Hys) {
        l2(p.epsilon);
        for (double& x : v) x = std::min(x, static_cast<double>(p.hys_clip));
        l2(1e-3);
    }
    if (p.norm == BlockNorm::L1Sqrt) {
        double s = 0;
        for (double x : v) s += x;
        for (double& x : v) x = std::sqrt(x / (s + p.epsilon));
    }
    return v;
}
std::uint8_t ref_lbp(const GrayImage& img, int x0, int y0, int cw, int ch) {
    auto cell = [&](int i, int j) {
        long s = 0;
        for (int y = 0; y < ch; ++y)
            for (int x = 0; x < cw; ++x) s += img.at(x0 + i * cw + x, y0 + j * ch + y);
        return s;
    };
    const long c = cell(1, 1);
    const int order[8][2] = {{0, 0}, {1, 0}, {2, 0}, {2, 1}, {2, 2}, {1, 2}, {0, 2}, {0, 1}};
    int code = 0;
    for (int n = 0; n < 8; ++n) code |= (cell(order[n][0], order[n][1]) >= c ? 1 : 0) << (7 - n);
    return static_cast<std::uint8_t>(code);
}
double ref_bilinear(const GrayImage& src, double scale, int u, int v) {
    auto coord = [&](int d, int n, int& i0, int& i1, double& a) {
        double f = (d + 0.5) * scale - 0.5;
        f = std::clamp(f, 0.0, static_cast<double>(n - 1));
        i0 = static_cast<int>(std::floor(f));
        i1 = std::min(i0 + 1, n - 1);
        a = f - i0;
    };
    int x0, x1, y0, y1;
    double ax, ay;
    coord(u, src.width, x0, x1, ax);
    coord(v, src.height, y0, y1, ay);
    return (src.at(x0, y0) * (1 - ax) + src.at(x1, y0) * ax) * (1 - ay) + (src.at(x0, y1) * (1 - ax) + src.at(x1, y1) * ax) * ay;
}

}  // namespace

// ---- gray conversion ----------------------------------------------------------------------
TEST(Gray, Bt601MatchesReferenceAndChannelOrder) {
    std::mt19937 rng(1);
    std::uniform_int_distribution<int> u(0, 255);
    std::vector<std::uint8_t> rgb(3 * 50 * 40), bgr(rgb.size());
    for (std::size_t i = 0; i < rgb.size(); i += 3) {
        rgb[i] = static_cast<std::uint8_t>(u(rng)), rgb[i + 1] = static_cast<std::uint8_t>(u(rng)), rgb[i + 2] = static_cast<std::uint8_t>(u(rng));
        bgr[i] = rgb[i + 2], bgr[i + 1] = rgb[i + 1], bgr[i + 2] = rgb[i];
    }
    const GrayImage a = to_gray({rgb.data(), 50, 40, 150, 3, ChannelOrder::RGB});
    const GrayImage b = to_gray({bgr.data(), 50, 40, 150, 3, ChannelOrder::BGR});
    EXPECT_EQ(a.pixels, b.pixels);
    for (std::size_t p = 0; p < a.pixels.size(); ++p) {
        const double ref = 0.299 * rgb[3 * p] + 0.587 * rgb[3 * p + 1] + 0.114 * rgb[3 * p + 2];
        ASSERT_LE(std::abs(a.pixels[p] - ref), 0.51) << "pixel " << p;
    }
    // Gray in, gray out: equal channels stay exactly themselves.
    std::vector<std::uint8_t> grey3 = {7, 7, 7, 200, 200, 200};
    const GrayImage g = to_gray({grey3.data(), 2, 1, 6, 3, ChannelOrder::BGR});
    EXPECT_EQ(g.pixels, (std::vector<std::uint8_t>{7, 200}));
}

// gray_rows (AVX2 32 and SSSE3 16 pixels at a time, with scalar heads and tails) against the plain integer
// formula, pixel by pixel: widths around the 16-pixel blocks, 3 and 4 channels, both orders,
// padded and bottom-up strides, and streaming stores into destinations at every alignment.
// map_bytes against the plain loop: every byte value, lengths around the 32-byte blocks, every
// start offset within a block, in place too, for the square-root gamma table and random tables.
TEST(Gray, MapBytesEqualsTheTableLookUp) {
    std::mt19937 rng(17);
    std::vector<std::array<std::uint8_t, 256>> tables(3);
    for (int v = 0; v < 256; ++v) tables[0][static_cast<std::size_t>(v)] = gamma_table(GrayGamma::Sqrt)[v];
    for (std::size_t t = 1; t < tables.size(); ++t)
        for (auto& e : tables[t]) e = static_cast<std::uint8_t>(rng());
    std::vector<std::uint8_t> in(300), out(300), want(300);
    for (const auto& table : tables)
        for (std::size_t n : {0, 1, 31, 32, 33, 64, 95, 256, 257, 290})
            for (std::size_t at = 0; at < 8; ++at) {
                for (std::size_t i = 0; i < in.size(); ++i) in[i] = i < 256 ? static_cast<std::uint8_t>(i) : static_cast<std::uint8_t>(rng());
                std::shuffle(in.begin() + static_cast<std::ptrdiff_t>(at), in.begin() + static_cast<std::ptrdiff_t>(std::min(in.size(), at + n)), rng);
                std::fill(out.begin(), out.end(), std::uint8_t{7});
                want = out;
                for (std::size_t i = at; i < at + n && i < in.size(); ++i) want[i] = table[in[i]];
                const std::size_t len = std::min(n, in.size() - at);
                map_bytes(in.data() + at, out.data() + at, len, table.data());
                ASSERT_EQ(out, want) << "n " << n << " at " << at;
                std::vector<std::uint8_t> same = in;
                map_bytes(same.data() + at, same.data() + at, len, table.data());
                for (std::size_t i = at; i < at + len; ++i) ASSERT_EQ(same[i], table[in[i]]) << "in place, byte " << i;
            }
}

TEST(Gray, RowsEqualThePlainFormulaForEveryLayout) {
    std::mt19937 rng(7);
    std::uniform_int_distribution<int> u(0, 255);
    int checked = 0;
    for (int channels : {1, 3, 4})
        for (ChannelOrder order : {ChannelOrder::RGB, ChannelOrder::BGR})
            for (int width : {1, 15, 16, 17, 31, 32, 33, 34, 48, 64, 66, 100, 257})
                for (int misalign : {0, 1, 7, 15}) {
                    const int height = 3;
                    const std::ptrdiff_t row = static_cast<std::ptrdiff_t>(width) * channels + 5;  // padded rows
                    std::vector<std::uint8_t> px(static_cast<std::size_t>(row) * height);
                    for (auto& v : px) v = static_cast<std::uint8_t>(u(rng));
                    // Every pixel value at the extremes too: all-255 and all-0 pixels in row 1.
                    for (int x = 0; x < width; x += 2)
                        for (int c = 0; c < channels; ++c) px[static_cast<std::size_t>(row + x * channels + c)] = x % 4 ? 0 : 255;
                    const bool bottom_up = width % 2 == 1;
                    const ImageView view{bottom_up ? px.data() + (height - 1) * row : px.data(), width, height,
                                         bottom_up ? -row : row, channels, order};
                    const std::ptrdiff_t dst_stride = width + 3;
                    std::vector<std::uint8_t> buffer(static_cast<std::size_t>(dst_stride) * height + 32, 0x5A);
                    std::uint8_t* dst = buffer.data() + (16 - reinterpret_cast<std::uintptr_t>(buffer.data()) % 16) % 16 + misalign;
                    for (bool streaming : {false, true}) {
                        gray_rows(view, 0, height, dst, dst_stride, streaming);
                        for (int y = 0; y < height; ++y)
                            for (int x = 0; x < width; ++x) {
                                const std::uint8_t* p = view.data + y * view.stride + x * channels;
                                const int r = channels == 1 ? p[0] : p[order == ChannelOrder::RGB ? 0 : 2];
                                const int g = channels == 1 ? p[0] : p[1];
                                const int b = channels == 1 ? p[0] : p[order == ChannelOrder::RGB ? 2 : 0];
                                const int want = channels == 1 ? p[0] : (4899 * r + 9617 * g + 1868 * b + 8192) >> 14;
                                ASSERT_EQ(dst[y * dst_stride + x], want) << channels << " channels, width " << width << ", x " << x
                                                                         << ", y " << y << (streaming ? ", streaming" : "");
                                ++checked;
                            }
                    }
                    // Nothing written past a row's end.
                    for (int y = 0; y + 1 < height; ++y)
                        for (std::ptrdiff_t x = width; x < dst_stride; ++x) ASSERT_EQ(dst[y * dst_stride + x], 0x5A);
                    // to_gray gives the same bytes.
                    const GrayImage g = to_gray(view);
                    for (int y = 0; y < height; ++y)
                        ASSERT_TRUE(std::equal(g.pixels.begin() + y * width, g.pixels.begin() + (y + 1) * width, dst + y * dst_stride));
                }
    EXPECT_GT(checked, 50000);
}

TEST(Gray, RejectsBrokenViews) {
    std::uint8_t px[4] = {};
    EXPECT_THROW(to_gray({nullptr, 2, 2, 2, 1}), ImageError);
    EXPECT_THROW(to_gray({px, 2, 2, 1, 1}), ImageError);   // stride shorter than a row
    EXPECT_THROW(to_gray({px, 1, 1, 1, 2}), ImageError);   // 2 channels
    EXPECT_NO_THROW(to_gray({px, 2, 2, 2, 1}));
}

// A setting's names: `name` parses to `value`, `bad` to nothing.
template <class Names, class E>
void expect_names(const Names& names, const char* name, E value, const char* bad) {
    E parsed{};
    EXPECT_TRUE(names.parse(name, parsed));
    EXPECT_EQ(parsed, value);
    EXPECT_FALSE(names.parse(bad, parsed));
}

// ---- gradients ----------------------------------------------------------------------------
TEST(Gradient, OrientationBinMatchesAtan2OverTheWholeDomain) {
    int boundary = 0, mismatches = 0;
    for (int gy = -255; gy <= 255; ++gy)
        for (int gx = -255; gx <= 255; ++gx) {
            if (gx == 0 && gy == 0) continue;
            if (on_boundary(gx, gy)) {
                ++boundary;
                continue;
            }
            if (orientation_bin(gx, gy) != reference_bin(gx, gy)) ++mismatches;
        }
    EXPECT_EQ(mismatches, 0);
    // Only the axis directions (0° and 180°, gy = 0) lie exactly on a boundary for integer
    // gradients (tan 20k° is irrational): 510 of them.
    EXPECT_EQ(boundary, 510);
    EXPECT_EQ(orientation_bin(5, 0), 0);
    EXPECT_EQ(orientation_bin(-5, 0), 0);
    EXPECT_EQ(orientation_bin(0, 5), 4);
    EXPECT_EQ(orientation_bin(0, -5), 4);
    EXPECT_EQ(orientation_bin(0, 0), 0);
}

TEST(Gradient, QuantisedMagnitudeIsRoundedExactValue) {
    std::uint32_t largest = 0;
    for (int gy = -255; gy <= 255; ++gy)
        for (int gx = -255; gx <= 255; ++gx) {
            const std::uint32_t q = quantised_magnitude(gx, gy);
            ASSERT_LE(std::abs(q - std::hypot(gx, gy) * 256.0), 0.5 + 1e-9) << gx << "," << gy;
            largest = std::max(largest, q);
        }
    EXPECT_EQ(largest, kMaxQuantisedMagnitude);
}

TEST(Gradient, FieldMatchesReferenceWithReplicatedBorders) {
    for (auto [w, h] : {std::pair{1, 1}, {2, 3}, {37, 29}}) {
        const GrayImage img = random_image(w, h, 7);
        const GradientField f = compute_gradients(img);
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                const auto g = ref_gradient(img, x, y);
                const std::size_t i = static_cast<std::size_t>(y) * w + x;
                ASSERT_EQ(f.magnitude[i], quantised_magnitude(g.gx, g.gy));
                if (g.gx || g.gy) {
                    ASSERT_EQ(f.bin[i], reference_bin(g.gx, g.gy));
                }
            }
    }
}

// Split votes (OrientationVotes::Split): over the whole gradient domain the lower bin is the one
// whose centre is at or below the angle (across the fold: bin 8 below 10°, bin 0 above 170°), the
// two parts add up to the magnitude, and the upper share is the linear angle fraction
// (θ − c_lo) / 20° within the sine ratio's 0.002 and a half step of 1/256. Nearest-bin entries
// carry no upper share.
TEST(Gradient, SplitVotesShareTheMagnitudeBetweenTheTwoNearestBinCentres) {
    double worst = 0;
    for (int gy = -255; gy <= 255; ++gy)
        for (int gx = -255; gx <= 255; ++gx) {
            const std::uint32_t near = gradient_entry(gx, gy, OrientationVotes::Nearest);
            ASSERT_EQ(entry_upper(near), 0u);
            const std::uint32_t e = gradient_entry(gx, gy, OrientationVotes::Split);
            ASSERT_EQ(entry_magnitude(e), quantised_magnitude(gx, gy));
            ASSERT_LE(entry_upper(e), entry_magnitude(e));
            if (gx == 0 && gy == 0) {
                ASSERT_EQ(e, 0u);
                continue;
            }
            double deg = std::atan2(gy, gx) * 180.0 / M_PI;
            if (deg < 0) deg += 180.0;
            if (deg >= 180.0) deg -= 180.0;
            const double u = (deg - 10.0) / 20.0;  // bin centres at u = 0, 1, …, 8
            const double lo = std::floor(u);
            const double frac = u - lo;
            const int expect_bin = (static_cast<int>(lo) + kOrientationBins) % kOrientationBins;
            const double share = ((e >> kEntryShareShift) & 0x1FFu) / 256.0;
            const bool at_centre = std::abs(frac) < 1e-9 || std::abs(frac - 1.0) < 1e-9;
            if (!at_centre) {
                ASSERT_EQ(static_cast<int>(entry_bin(e)), expect_bin) << gx << "," << gy;
                worst = std::max(worst, std::abs(share - frac));
            } else {  // on a centre, either neighbour with everything in the centre's bin
                const int centre = static_cast<int>(std::lround(u) + kOrientationBins) % kOrientationBins;
                const std::uint32_t b = entry_bin(e), up = entry_upper(e), m = entry_magnitude(e);
                ASSERT_TRUE((static_cast<int>(b) == centre && up == 0) ||
                            (static_cast<int>(next_bin(b)) == centre && up == m)) << gx << "," << gy;
            }
        }
    EXPECT_LE(worst, 0.002 + 0.5 / 256 + 1e-9);
    EXPECT_GT(worst, 0.001);  // the sine ratio is not the linear fraction
    // Straight up (90°) is bin 4's centre; 0° lies half-way between bin 8's (−10°) and bin 0's.
    EXPECT_EQ(entry_bin(gradient_entry(0, 7, OrientationVotes::Split)), 4u);
    EXPECT_EQ(entry_upper(gradient_entry(0, 7, OrientationVotes::Split)), 0u);
    const std::uint32_t flat = gradient_entry(-9, 0, OrientationVotes::Split);
    EXPECT_EQ(entry_bin(flat), 8u);
    EXPECT_EQ((flat >> kEntryShareShift) & 0x1FFu, 128u);
    expect_names(kOrientationVotesNames, "split", OrientationVotes::Split, "bilinear");
}

// With split votes the integral histogram and the gradient plane hold, per bin, each pixel's lower
// part in its bin and its upper part in the next: a plain per-pixel sum over compute_gradients'
// field, for every rectangle of a small image; the plane's cell sums (the SIMD path, at every
// width modulo 8) equal the integral histogram's.
TEST(IntegralHistogram, SplitVotesEqualPlainSumsOfTheTwoParts) {
    const GrayImage img = random_image(23, 19, 5);
    const GradientField f = compute_gradients(img, OrientationVotes::Split);
    IntegralHistogram ih;
    ih.compute(img, {GrayGamma::None, OrientationVotes::Split});
    GradientPlane plane;
    plane.compute(img, {GrayGamma::None, OrientationVotes::Split});
    IntegralHistogram nearest;
    nearest.compute(img);
    int differs_from_nearest = 0;
    for (int y0 = 0; y0 < img.height; y0 += 3)
        for (int x0 = 0; x0 < img.width; x0 += 2)
            for (int h = 1; y0 + h <= img.height; h += 4)
                for (int w = 1; x0 + w <= img.width; ++w) {
                    std::array<std::uint32_t, kOrientationBins> ref{};
                    for (int y = y0; y < y0 + h; ++y)
                        for (int x = x0; x < x0 + w; ++x) {
                            const std::size_t i = static_cast<std::size_t>(y) * img.width + x;
                            ref[f.bin[i]] += f.magnitude[i] - f.upper[i];
                            ref[(f.bin[i] + 1) % kOrientationBins] += f.upper[i];
                        }
                    const Rect r{x0, y0, w, h};
                    ASSERT_EQ(ih.rect_sum(r), ref) << x0 << "," << y0 << " " << w << "x" << h;
                    ASSERT_EQ(plane.rect_sum(r), ref) << x0 << "," << y0 << " " << w << "x" << h;
                    if (nearest.rect_sum(r) != ref) ++differs_from_nearest;
                }
    EXPECT_GT(differs_from_nearest, 0);
}

// ---- integral histograms ------------------------------------------------------------------
TEST(IntegralHistogram, EveryRectangleOfASmallImage) {
    const GrayImage img = random_image(13, 11, 3);
    IntegralHistogram ih;
    ih.compute(img);
    ASSERT_EQ(ih.width(), 13);
    for (int k = 0; k < 9; ++k) {
        ASSERT_EQ(ih.point(5, 0)[k], 0u);
        ASSERT_EQ(ih.point(0, 7)[k], 0u);
    }
    int rects = 0;
    for (int y0 = 0; y0 < 11; ++y0)
        for (int y1 = y0 + 1; y1 <= 11; ++y1)
            for (int x0 = 0; x0 < 13; ++x0)
                for (int x1 = x0 + 1; x1 <= 13; ++x1) {
                    const Rect r{x0, y0, x1 - x0, y1 - y0};
                    std::uint64_t q[9];
                    double real[9];
                    ref_rect_sums(img, r, q, real);
                    const auto s = ih.rect_sum(r);
                    for (int b = 0; b < 9; ++b) {
                        ASSERT_EQ(s[b], q[b]) << "rect " << x0 << "," << y0 << " " << r.w << "x" << r.h << " bin " << b;
                        ASSERT_LE(std::abs(s[b] / 256.0 - real[b]), r.w * r.h / 512.0 + 1e-9);
                    }
                    ++rects;
                }
    EXPECT_EQ(rects, 91 * 66);  // 13·14/2 column pairs × 11·12/2 row pairs
}

TEST(IntegralHistogram, RandomRectanglesOfALargeImageAreExact) {
    const GrayImage img = blobby_image(1000, 700, 4);
    IntegralHistogram ih;
    ih.compute(img);
    std::mt19937 rng(5);
    for (int i = 0; i < 300; ++i) {
        std::uniform_int_distribution<int> uw(1, 128), uh(1, 256);
        const int w = uw(rng), h = std::min(uh(rng), static_cast<int>(kMaxExactRectArea / w));
        std::uniform_int_distribution<int> ux(0, 1000 - w), uy(0, 700 - h);
        const Rect r{ux(rng), uy(rng), w, h};
        std::uint64_t q[9];
        double real[9];
        ref_rect_sums(img, r, q, real);
        const auto s = ih.rect_sum(r);
        for (int b = 0; b < 9; ++b) ASSERT_EQ(s[b], q[b]);
    }
}

// The precision decision, stated as a test: at 1920×1080 with the largest gradient everywhere
// (every bin total far beyond 2^32), rectangle sums are still exact in the quantised units and
// within area/512 gray levels of the real-valued sums: the same bound as for a tiny image.
// A float32 integral image of the same magnitudes loses far more.
TEST(IntegralHistogram, WorstCase1080pErrorIsBoundedByQuantisation) {
    const GrayImage img = max_contrast_image(1920, 1080);
    IntegralHistogram ih;
    ih.compute(img);
    // Every interior pixel has magnitude 255·√2 in bin 2 (45°) or bin 6 (135°): totals overflow.
    const std::uint64_t total_q = static_cast<std::uint64_t>(1918) * 1078 * kMaxQuantisedMagnitude;
    EXPECT_GT(total_q, 0xFFFFFFFFull);

    // float32 integral of the real magnitudes of one bin, for comparison.
    std::vector<float> f32((1921) * static_cast<std::size_t>(1081), 0.0f);
    const GradientField g = compute_gradients(img);
    for (int y = 0; y < 1080; ++y) {
        float row = 0;
        for (int x = 0; x < 1920; ++x) {
            const std::size_t i = static_cast<std::size_t>(y) * 1920 + x;
            if (g.bin[i] == 2) row += static_cast<float>(g.magnitude[i]) / 256.0f;
            f32[(y + 1) * 1921ull + x + 1] = f32[y * 1921ull + x + 1] + row;
        }
    }
    double worst_ours = 0, worst_f32 = 0;
    std::mt19937 rng(6);
    for (int i = 0; i < 200; ++i) {
        std::uniform_int_distribution<int> ux(0, 1920 - 64), uy(0, 1080 - 128);
        const Rect r{ux(rng), uy(rng), 64, 128};
        std::uint64_t q[9];
        double real[9];
        ref_rect_sums(img, r, q, real);
        const auto s = ih.rect_sum(r);
        for (int b = 0; b < 9; ++b) {
            ASSERT_EQ(s[b], q[b]);
            worst_ours = std::max(worst_ours, std::abs(s[b] / 256.0 - real[b]));
        }
        auto F = [&](int x, int y) { return static_cast<double>(f32[y * 1921ull + x]); };
        const double fs = F(r.x + 64, r.y + 128) - F(r.x, r.y + 128) - F(r.x + 64, r.y) + F(r.x, r.y);
        worst_f32 = std::max(worst_f32, std::abs(fs - real[2]));
    }
    const double bound = 64 * 128 / 512.0;  // 16 gray levels on sums up to 64·128·360.6 = 2.95e6
    std::printf("1920x1080 worst-case 64x128 rectangle error: ours %.4f (bound %.1f), float32 %.1f gray levels\n",
                worst_ours, bound, worst_f32);
    EXPECT_LE(worst_ours, bound);
    EXPECT_GT(worst_f32, worst_ours);
}

// Every table entry written once: one pass on one thread; on several, bands of rows whose column
// sums set the table row above each band (the gradient entries kept meanwhile). The one-pass table
// equals a plain per-pixel reference at every point, and the banded tables (arenas of 2, 4 and 16,
// tall and short images, gray and colour, both ways of voting, reused storage) equal it bit for bit.
TEST(IntegralHistogram, BandsInParallelEqualOnePassAndAPlainReference) {
    auto table_of = [](const IntegralHistogram& ih) {
        return std::vector<std::uint32_t>(ih.data(), ih.data() + ih.row_stride() * (static_cast<std::size_t>(ih.height()) + 1));
    };
    auto one_thread = [&](const GradientSource& src, GradientParams params) {
        tbb::global_control limit(tbb::global_control::max_allowed_parallelism, 1);
        IntegralHistogram ih;
        ih.compute(src, params);
        return table_of(ih);
    };
    // The plain reference: each pixel's entry (the gradient plane's, checked against a per-pixel
    // reference by the colour test below) summed into every point below and to its right.
    auto reference = [](const GradientSource& src, GradientParams params) {
        GradientPlane plane;
        plane.compute(src, params);
        const int w = src.width(), h = src.height();
        const std::size_t stride = static_cast<std::size_t>(w + 1) * kOrientationBins;
        std::vector<std::uint32_t> t(stride * (static_cast<std::size_t>(h) + 1), 0u);
        for (int y = 0; y < h; ++y) {
            std::array<std::uint32_t, kOrientationBins> row{};
            for (int x = 0; x < w; ++x) {
                const std::uint32_t e = plane.at(x, y), up = params.votes == OrientationVotes::Split ? entry_upper(e) : 0u;
                row[entry_bin(e)] += entry_magnitude(e) - up;
                row[next_bin(entry_bin(e))] += up;
                for (int k = 0; k < kOrientationBins; ++k) {
                    const std::size_t at = (static_cast<std::size_t>(y) + 1) * stride + (static_cast<std::size_t>(x) + 1) * kOrientationBins + k;
                    t[at] = t[at - stride] + row[k];
                }
            }
        }
        return t;
    };
    const GrayImage gray = random_image(131, 777, 5);
    ColourPlanes colour{random_image(131, 777, 6), random_image(131, 777, 7), blobby_image(131, 777, 8)};
    for (const GradientSource& src : {GradientSource(gray), GradientSource(colour)})
        for (OrientationVotes votes : {OrientationVotes::Nearest, OrientationVotes::Split}) {
            const GradientParams params{GrayGamma::Sqrt, votes};
            const std::vector<std::uint32_t> one = one_thread(src, params);
            ASSERT_EQ(one, reference(src, params)) << src.count << " plane(s)";
            for (int threads : {2, 4, 16}) {
                IntegralHistogram ih;
                ih.compute(random_image(300, 900, 9));  // storage used before, larger
                tbb::task_arena(threads).execute([&] { ih.compute(src, params); });
                ASSERT_EQ(table_of(ih), one) << threads << " threads, " << src.count << " plane(s)";
            }
        }
    // Short images: bands of one or two rows.
    for (int h = 9; h <= 17; h += 4) {
        const GrayImage g = random_image(300, h, static_cast<std::uint32_t>(h));
        IntegralHistogram ih;
        tbb::task_arena(16).execute([&] { ih.compute(g); });
        ASSERT_EQ(table_of(ih), one_thread(g, {})) << "a 300x" << h << " image";
    }
}

// With a grid G, the table holds the full table's points at multiples of G, for odd sizes (pixels
// past the last whole cell in no point), gray and colour, both vote rules, any thread count; and
// a block read through it equals the full table's.
TEST(IntegralHistogram, GridPointsEqualTheFullTable) {
    const GrayImage gray = random_image(133, 203, 15);
    ColourPlanes colour{random_image(133, 203, 16), blobby_image(133, 203, 17), random_image(133, 203, 18)};
    std::size_t points = 0;
    for (const GradientSource& src : {GradientSource(gray), GradientSource(colour)})
        for (OrientationVotes votes : {OrientationVotes::Nearest, OrientationVotes::Split}) {
            const GradientParams params{GrayGamma::Sqrt, votes};
            IntegralHistogram full;
            full.compute(src, params);
            for (int g : {2, 3, 4, 8}) {
                for (int threads : {1, 3}) {
                    IntegralHistogram ih;
                    ih.compute(random_image(300, 500, 19), {}, 1);  // storage used before, larger
                    tbb::task_arena(threads).execute([&] { ih.compute(src, params, g); });
                    ASSERT_EQ(ih.grid(), g);
                    ASSERT_EQ(ih.columns(), static_cast<std::size_t>(133 / g + 1));
                    for (int y = 0; y <= 203 / g * g; y += g)
                        for (int x = 0; x <= 133 / g * g; x += g, ++points)
                            ASSERT_TRUE(std::equal(ih.point(x, y), ih.point(x, y) + kOrientationBins, full.point(x, y)))
                                << "grid " << g << ", point (" << x << ", " << y << "), " << src.count << " plane(s), " << threads << " thread(s)";
                }
                IntegralHistogram ih;
                ih.compute(src, params, g);
                const Rect block{2 * g, 3 * g, 8 * g, 8 * g};
                BlockDescriptor a, b;
                block_descriptor(ih, g, 2 * g, block, HogParams{}, a);
                block_descriptor(full, g, 2 * g, block, HogParams{}, b);
                EXPECT_EQ(a, b) << "grid " << g;
                EXPECT_EQ(ih.rect_sum({g, g, 4 * g, 2 * g}), full.rect_sum({g, g, 4 * g, 2 * g})) << "grid " << g;
            }
        }
    EXPECT_GT(points, 8000u);
    IntegralHistogram tiny;  // smaller than one cell: only the zero row and column
    tiny.compute(constant_image(3, 3, 9), {}, 4);
    EXPECT_EQ(tiny.columns(), 1u);
    EXPECT_EQ(tiny.point(0, 0)[0], 0u);
    EXPECT_THROW(tiny.compute(constant_image(3, 3, 9), {}, 0), std::invalid_argument);
}

namespace {
// The source's integral at (u, v), in its points (clamped to them), read bilinearly: the plain
// definition IntegralHistogram::approximate is held to.
double bilinear_integral(const IntegralHistogram& s, double u, double v, int bin) {
    const double cols = static_cast<double>(s.columns() - 1), rows = static_cast<double>(s.height() / s.grid());
    u = std::clamp(u, 0.0, cols);
    v = std::clamp(v, 0.0, rows);
    const int i = std::min(static_cast<int>(u), static_cast<int>(cols) - 1), j = std::min(static_cast<int>(v), static_cast<int>(rows) - 1);
    const double fu = u - i, fv = v - j;
    const int g = s.grid();
    auto at = [&](int a, int b) { return static_cast<double>(s.point(a * g, b * g)[bin]); };
    return (1 - fv) * ((1 - fu) * at(i, j) + fu * at(i + 1, j)) + fv * ((1 - fu) * at(i, j + 1) + fu * at(i + 1, j + 1));
}
}  // namespace

// approximate: at ratio 1 on the source's own points it is the source; at ratio 2 on a grid of
// the source's, every cell is the 2×2 source cells it covers, exactly; at any ratio, offset (also
// past the source's edges), gain and grid every cell is the plain bilinear reading of the
// source's integral (bilinear_integral) times the gain, rounded (within 1 for float sums); the
// same on one thread or three; bad arguments are refused.
TEST(IntegralHistogram, ApproximateIsTheSourceReadBilinearly) {
    const GrayImage img = blobby_image(157, 121, 23);
    const GradientParams params{GrayGamma::Sqrt, OrientationVotes::Nearest};
    for (int sg : {1, 4}) {
        IntegralHistogram source;
        source.compute(img, params, sg);
        IntegralHistogram same;
        same.approximate(source, 157, 121, sg, 1.0, 0.0, 0.0, 1.0);
        for (int y = 0; y <= 121 / sg * sg; y += sg)
            for (int x = 0; x <= 157 / sg * sg; x += sg)
                ASSERT_TRUE(std::equal(same.point(x, y), same.point(x, y) + kOrientationBins, source.point(x, y))) << sg << " " << x << " " << y;
        IntegralHistogram half;
        half.approximate(source, 78, 60, 4, 2.0, 0.0, 0.0, 1.0);
        for (int y = 0; y + 4 <= 60; y += 4)
            for (int x = 0; x + 4 <= 78; x += 4)
                ASSERT_EQ(half.rect_sum({x, y, 4, 4}), source.rect_sum({2 * x, 2 * y, 8, 8})) << sg << " " << x << " " << y;
    }
    IntegralHistogram source;
    source.compute(img, params, 4);
    std::size_t cells = 0, nonzero = 0;
    for (const auto& [ratio, x0, y0, gain, grid] : {std::tuple{1.37, 3.5, -2.0, 0.7, 4}, std::tuple{1.93, 9.0, 13.25, 1.0 / 1.93, 2},
                                                    std::tuple{1.05, -6.0, 0.5, 1.0, 1}, std::tuple{3.1, 1.0, 2.0, 0.3, 4}}) {
        const int w = static_cast<int>(157 / ratio) + 6, h = static_cast<int>(121 / ratio) + 5;  // reaching past the source
        IntegralHistogram all, one;
        one.compute(random_image(300, 300, 4), {}, 1);  // storage used before, larger
        all.approximate(source, w, h, grid, ratio, x0, y0, gain);
        tbb::task_arena(1).execute([&] { one.approximate(source, w, h, grid, ratio, x0, y0, gain); });
        ASSERT_EQ(all.columns(), static_cast<std::size_t>(w / grid + 1));
        for (int y = 0; y <= h / grid * grid; y += grid)
            for (int x = 0; x <= w / grid * grid; x += grid)
                ASSERT_TRUE(std::equal(one.point(x, y), one.point(x, y) + kOrientationBins, all.point(x, y))) << ratio << " " << x << " " << y;
        auto read = [&](int x, int y, int bin) { return bilinear_integral(source, (x0 + x * ratio) / 4, (y0 + y * ratio) / 4, bin); };
        for (int y = 0; y + grid <= h; y += grid)
            for (int x = 0; x + grid <= w; x += grid, ++cells) {
                const auto got = all.rect_sum({x, y, grid, grid});
                for (int b = 0; b < kOrientationBins; ++b) {
                    const double want = gain * (read(x + grid, y + grid, b) - read(x, y + grid, b) - read(x + grid, y, b) + read(x, y, b));
                    ASSERT_NEAR(static_cast<double>(got[static_cast<std::size_t>(b)]), want, 1.0 + 1e-6 * want)
                        << "ratio " << ratio << ", cell (" << x << ", " << y << "), bin " << b;
                    nonzero += got[static_cast<std::size_t>(b)] > 0;
                }
            }
    }
    EXPECT_GT(cells, 1500u);
    EXPECT_GT(nonzero, 5000u);
    IntegralHistogram bad;
    EXPECT_THROW(bad.approximate(source, 10, 10, 4, 0.9, 0, 0, 1), std::invalid_argument);
    EXPECT_THROW(bad.approximate(source, 10, 10, 0, 1.5, 0, 0, 1), std::invalid_argument);
    EXPECT_THROW(bad.approximate(source, 10, 10, 4, 1.5, std::nan(""), 0, 1), std::invalid_argument);
    EXPECT_THROW(bad.approximate(source, 10, 10, 4, 1.5, 0, 0, -1), std::invalid_argument);
    EXPECT_THROW(bad.approximate(source, -1, 10, 4, 1.5, 0, 0, 1), std::invalid_argument);
    EXPECT_THROW(source.approximate(source, 10, 10, 4, 1.5, 0, 0, 1), std::invalid_argument);
    IntegralHistogram tiny, from_tiny;  // a source without a whole cell: a table of zeros
    tiny.compute(constant_image(3, 3, 9), {}, 4);
    from_tiny.approximate(tiny, 9, 9, 4, 1.0, 0, 0, 1);
    EXPECT_EQ(from_tiny.point(8, 8)[0], 0u);
}

TEST(IntegralHistogram, EdgeCases) {
    IntegralHistogram ih;
    ih.compute(constant_image(1, 1, 200));
    EXPECT_EQ(ih.width(), 1);
    for (int k = 0; k < 9; ++k) EXPECT_EQ(ih.point(1, 1)[k], 0u);
    ih.compute(constant_image(70, 130, 90));
    for (int k = 0; k < 9; ++k) EXPECT_EQ(ih.point(70, 130)[k], 0u);
    // Reuse with a larger image after a smaller one.
    const GrayImage big = random_image(40, 30, 8);
    ih.compute(big);
    std::uint64_t q[9];
    double real[9];
    ref_rect_sums(big, {0, 0, 40, 30}, q, real);
    const auto s = ih.rect_sum({0, 0, 40, 30});
    for (int b = 0; b < 9; ++b) EXPECT_EQ(s[b], q[b]);
}

// ---- block descriptors --------------------------------------------------------------------
TEST(BlockDescriptor, MatchesReferenceForEveryNormalisation) {
    const GrayImage img = blobby_image(160, 200, 9);
    IntegralHistogram ih;
    ih.compute(img);
    const auto pool = make_block_pool("zhu", 64, 128);
    std::mt19937 rng(10);
    std::uniform_int_distribution<std::size_t> pick(0, pool.size() - 1);
    std::uniform_int_distribution<int> ox(0, 160 - 64), oy(0, 200 - 128);
    for (BlockNorm norm : {BlockNorm::L2, BlockNorm::L2Hys, BlockNorm::L1Sqrt}) {
        const HogParams p{norm, 1.0f, 0.2f};
        for (int i = 0; i < 60; ++i) {
            const Rect b = pool[pick(rng)];
            const int x = ox(rng), y = oy(rng);
            BlockDescriptor v;
            block_descriptor(ih, x, y, b, p, v);
            const auto ref = ref_descriptor(img, x, y, b, p);
            for (int k = 0; k < 36; ++k) ASSERT_NEAR(v[k], ref[k], 2e-4) << to_string(norm) << " block " << i << " dim " << k;
        }
    }
}

TEST(BlockDescriptor, FlatImageGivesZerosAndMaximalContrastStaysFinite) {
    for (BlockNorm norm : {BlockNorm::L2, BlockNorm::L2Hys, BlockNorm::L1Sqrt}) {
        const HogParams p{norm, 1.0f, 0.2f};
        IntegralHistogram ih;
        ih.compute(constant_image(64, 128, 128));
        BlockDescriptor v;
        block_descriptor(ih, 0, 0, {0, 0, 64, 128}, p, v);
        for (float x : v) EXPECT_EQ(x, 0.0f);
        ih.compute(max_contrast_image(64, 128));
        block_descriptor(ih, 0, 0, {0, 0, 64, 128}, p, v);
        float n2 = 0;
        for (float x : v) {
            EXPECT_TRUE(std::isfinite(x));
            n2 += x * x;
        }
        if (norm != BlockNorm::L1Sqrt) {
            EXPECT_NEAR(n2, 1.0f, 1e-2f);  // ε keeps it just below 1
        }
    }
}

TEST(BlockDescriptor, NormNamesRoundTrip) {
    for (BlockNorm n : {BlockNorm::L2, BlockNorm::L2Hys, BlockNorm::L1Sqrt}) {
        BlockNorm parsed{};
        ASSERT_TRUE(parse_block_norm(to_string(n), parsed));
        EXPECT_EQ(parsed, n);
    }
    BlockNorm x{};
    EXPECT_FALSE(parse_block_norm("L2", x));
}

// ---- block pools --------------------------------------------------------------------------
TEST(BlockPool, ZhuHas5029BlocksFollowingTheDocumentedRule) {
    const auto pool = make_block_pool("zhu", 64, 128);
    EXPECT_EQ(pool.size(), 5029u);  // Bilgiç's published count
    std::set<Rect> unique(pool.begin(), pool.end());
    EXPECT_EQ(unique.size(), pool.size());
    for (const Rect& r : pool) {
        ASSERT_TRUE(r.inside(64, 128));
        ASSERT_EQ(r.w % 2, 0);
        ASSERT_EQ(r.h % 2, 0);
        ASSERT_GE(std::min(r.w, r.h), 12);
        ASSERT_TRUE(r.w == r.h || r.h == 2 * r.w || r.w == 2 * r.h);
        const int shorter = std::min(r.w, r.h), step = shorter < 16 ? 4 : shorter < 24 ? 6 : 8;
        ASSERT_EQ(r.x % step, 0);
        ASSERT_EQ(r.y % step, 0);
    }
    EXPECT_EQ(pool.front(), (Rect{0, 0, 12, 12}));
    EXPECT_EQ(pool[1], (Rect{4, 0, 12, 12}));
    EXPECT_EQ(pool.back(), (Rect{0, 96, 64, 32}));
    EXPECT_EQ(make_block_pool("zhu", 64, 128), pool);  // deterministic
}

TEST(BlockPool, GridPoolsPutEveryCellCornerOnTheirGrid) {
    for (const auto& [name, g, count] : {std::tuple{"zhu-grid2", 2, 20742u}, {"zhu-grid4", 4, 2521u}, {"zhu-grid8", 8, 452u}}) {
        EXPECT_EQ(block_pool_grid(name), g);
        const auto pool = make_block_pool(name, 64, 128);
        EXPECT_EQ(pool.size(), count) << name;
        EXPECT_EQ(std::set<Rect>(pool.begin(), pool.end()).size(), pool.size()) << name;
        for (const Rect& r : pool) {
            ASSERT_TRUE(r.inside(64, 128)) << name;
            ASSERT_EQ(r.x % g, 0) << name;
            ASSERT_EQ(r.y % g, 0) << name;
            ASSERT_EQ(r.w % (2 * g), 0) << name;  // cells of whole grid steps
            ASSERT_EQ(r.h % (2 * g), 0) << name;
            ASSERT_GE(std::min(r.w, r.h), 12) << name;
            ASSERT_TRUE(r.w == r.h || r.h == 2 * r.w || r.w == 2 * r.h) << name;
        }
        // Every shape at every grid position: the first two squares are neighbours on the grid.
        const int side = (12 + 2 * g - 1) / (2 * g) * (2 * g);
        EXPECT_EQ(pool[0], (Rect{0, 0, side, side})) << name;
        EXPECT_EQ(pool[1], (Rect{g, 0, side, side})) << name;
    }
    EXPECT_EQ(block_pool_grid("zhu"), 1);
    EXPECT_THROW(make_block_pool("zhu-grid4", 64, 128, 7), std::invalid_argument);
}

TEST(BlockPool, DalalTriggsHas105FixedBlocks) {
    const auto pool = make_block_pool("dalal-triggs", 64, 128);
    ASSERT_EQ(pool.size(), 105u);
    for (std::size_t i = 0; i < pool.size(); ++i)
        EXPECT_EQ(pool[i], (Rect{static_cast<int>(i % 7) * 8, static_cast<int>(i / 7) * 8, 16, 16}));
    EXPECT_THROW(make_block_pool("nope", 64, 128), std::invalid_argument);
}

TEST(BlockPool, SmallerBlocksForSmallWindows) {
    // A 24×24 face window has 44 blocks of side >= 12; from side 8 on, 131 (the 44 among them).
    const auto zhu12 = make_block_pool("zhu", 24, 24);
    const auto zhu8 = make_block_pool("zhu", 24, 24, 8);
    EXPECT_EQ(zhu12.size(), 44u);
    ASSERT_EQ(zhu8.size(), 131u);
    EXPECT_EQ(zhu8.front(), (Rect{0, 0, 8, 8}));
    for (const Rect& r : zhu8) {
        EXPECT_GE(std::min(r.w, r.h), 8);
        EXPECT_LE(r.x + r.w, 24);
        EXPECT_LE(r.y + r.h, 24);
    }
    for (const Rect& r : zhu12) EXPECT_NE(std::find(zhu8.begin(), zhu8.end(), r), zhu8.end());
    EXPECT_THROW(make_block_pool("zhu", 24, 24, 7), std::invalid_argument);
    EXPECT_THROW(make_block_pool("zhu", 24, 24, 2), std::invalid_argument);
}

// ---- LBP ----------------------------------------------------------------------------------
TEST(Lbp, EveryGridOfASmallImageMatchesReference) {
    const GrayImage img = random_image(24, 21, 11);
    IntegralImage ii;
    ii.compute(img);
    int grids = 0;
    for (int ch = 1; ch <= 4; ++ch)
        for (int cw = 1; cw <= 4; ++cw)
            for (int y = 0; y + 3 * ch <= 21; ++y)
                for (int x = 0; x + 3 * cw <= 24; ++x) {
                    ASSERT_EQ(lbp_code(ii, 0, 0, {x, y, cw, ch}), ref_lbp(img, x, y, cw, ch));
                    ++grids;
                }
    EXPECT_GT(grids, 3000);
    // Window offset is added to the cell position.
    EXPECT_EQ(lbp_code(ii, 3, 2, {1, 1, 2, 2}), ref_lbp(img, 4, 3, 2, 2));
}

TEST(Lbp, ConstantAndExtremeImages) {
    IntegralImage ii;
    ii.compute(constant_image(9, 9, 77));
    EXPECT_EQ(lbp_code(ii, 0, 0, {0, 0, 3, 3}), 0xFF);  // every neighbour >= centre
    GrayImage dot = constant_image(3, 3, 0);
    dot.at(1, 1) = 255;
    ii.compute(dot);
    EXPECT_EQ(lbp_code(ii, 0, 0, {0, 0, 1, 1}), 0x00);
    dot.at(2, 0) = 255;  // top-right: bit 5
    ii.compute(dot);
    EXPECT_EQ(lbp_code(ii, 0, 0, {0, 0, 1, 1}), 0x20);
    // A large image whose total exceeds 2^32 still gives exact cell sums.
    const GrayImage white = constant_image(4200, 4100, 255);
    ii.compute(white);
    EXPECT_EQ(ii.rect_sum({4000, 4000, 100, 100}), 255u * 10000u);
}

// Codes from integral-image points truncated to 16 bits (the CUDA backend's gray_integral_16):
// equal to the exact codes for every cell of up to kLbpMod16CellPixels pixels, on an image of 0
// and 255 blocks (full cells against empty centres: the largest differences) and random pixels;
// past the bound they can differ.
TEST(Lbp, CodesFromPointsModulo65536MatchForCellsUpTo128Pixels) {
    GrayImage img = random_image(96, 80, 23);
    std::mt19937 rng(3);
    for (int by = 0; by < img.height; by += 8)
        for (int bx = 0; bx < img.width; bx += 8) {
            if (rng() % 5 == 0) continue;  // a few blocks left random
            const std::uint8_t v = rng() % 2 ? 255 : 0;
            for (int y = by; y < by + 8; ++y)
                for (int x = bx; x < bx + 8; ++x) img.at(x, y) = v;
        }
    IntegralImage ii;
    ii.compute(img);
    auto corners = [&](int x, int y, int cw, int ch, bool mod16, std::uint32_t (&p)[4][4]) {
        for (int j = 0; j < 4; ++j)
            for (int i = 0; i < 4; ++i) {
                const std::uint32_t v = ii.data()[static_cast<std::size_t>(y + j * ch) * ii.row_stride() + x + i * cw];
                p[j][i] = mod16 ? v & 0xffffu : v;
            }
    };
    std::size_t grids = 0, extreme = 0;
    for (int ch = 1; ch <= 26; ++ch)
        for (int cw = 1; cw <= 26 && cw * ch <= kLbpMod16CellPixels; ++cw)
            for (int y = 0; y + 3 * ch <= img.height; y += 3)
                for (int x = 0; x + 3 * cw <= img.width; x += 3) {
                    std::uint32_t exact[4][4], mod[4][4];
                    corners(x, y, cw, ch, false, exact);
                    corners(x, y, cw, ch, true, mod);
                    ASSERT_EQ(lbp_code_of_corners_mod16(mod), lbp_code_of_corners(exact)) << x << "," << y << " " << cw << "x" << ch;
                    ++grids;
                    extreme += cw * ch == kLbpMod16CellPixels;
                }
    EXPECT_GT(grids, 20000u);
    EXPECT_GT(extreme, 500u);
    // Past the bound: a full 16×9 cell (144 pixels, sum 36,720) beside an empty centre reads as
    // below it.
    GrayImage big = constant_image(48, 27, 0);
    for (int y = 9; y < 18; ++y)
        for (int x = 0; x < 16; ++x) big.at(x, y) = 255;  // the left cell (bit 0); the centre stays 0
    ii.compute(big);
    std::uint32_t exact[4][4], mod[4][4];
    corners(0, 0, 16, 9, false, exact);
    corners(0, 0, 16, 9, true, mod);
    EXPECT_EQ(lbp_code_of_corners(exact), 0xFF);        // every cell >= the empty centre
    EXPECT_EQ(lbp_code_of_corners_mod16(mod), 0xFE);    // the full cell's 36,720 reads as negative
}

TEST(IntegralImageTest, BandsInParallelEqualAPlainReference) {
    // Tall enough for many bands, with a last band that is not full; the same table from one
    // thread (one pass) and from arenas of 2, 4 and 16 (bands: column sums, their running sums,
    // then each band's rows), and from 16 threads on images of 9 to 17 rows (one or two rows a
    // band past the first).
    const GrayImage img = random_image(131, 777, 5);
    std::vector<std::uint64_t> ref(static_cast<std::size_t>(132) * 778, 0);
    for (int y = 0; y < 777; ++y)
        for (int x = 0; x < 131; ++x)
            ref[static_cast<std::size_t>(y + 1) * 132 + x + 1] = img.at(x, y) + ref[static_cast<std::size_t>(y) * 132 + x + 1] +
                                                                 ref[static_cast<std::size_t>(y + 1) * 132 + x] -
                                                                 ref[static_cast<std::size_t>(y) * 132 + x];
    auto check = [&](const IntegralImage& ii) {
        for (int y = 0; y <= 777; ++y)
            for (int x = 0; x <= 131; ++x)
                ASSERT_EQ(ii.at(x, y), static_cast<std::uint32_t>(ref[static_cast<std::size_t>(y) * 132 + x])) << x << "," << y;
    };
    IntegralImage one, four;
    {
        tbb::global_control limit(tbb::global_control::max_allowed_parallelism, 1);
        one.compute(img);
    }
    tbb::task_arena(4).execute([&] { four.compute(img); });
    check(one);
    check(four);
    for (int threads : {2, 16}) {
        IntegralImage ii;
        tbb::task_arena(threads).execute([&] { ii.compute(img); });
        check(ii);
    }
    // A wide image (column ranges longer than one chunk of 512, whatever the partitioner does).
    {
        const GrayImage wide = random_image(5000, 40, 7);
        IntegralImage a, b;
        {
            tbb::global_control limit(tbb::global_control::max_allowed_parallelism, 1);
            a.compute(wide);
        }
        tbb::task_arena(2).execute([&] { b.compute(wide); });
        for (int y = 0; y <= 40; y += 13)
            for (int x = 0; x <= 5000; ++x) ASSERT_EQ(a.at(x, y), b.at(x, y)) << x << "," << y;
        ASSERT_EQ(a.at(5000, 40), b.at(5000, 40));
    }
    // Short images: a band of one or two rows, and widths past one column chunk (512).
    for (int h = 9; h <= 17; ++h) {
        const GrayImage g = random_image(700, h, static_cast<std::uint32_t>(h));
        IntegralImage a, b;
        {
            tbb::global_control limit(tbb::global_control::max_allowed_parallelism, 1);
            a.compute(g);
        }
        tbb::task_arena(16).execute([&] { b.compute(g); });
        for (int y = 0; y <= h; ++y)
            for (int x = 0; x <= 700; ++x) ASSERT_EQ(a.at(x, y), b.at(x, y)) << x << "," << y << " of a 700x" << h << " image";
    }
    // Reused storage: a smaller image next gives its own table, not the old one's rows.
    four.compute(random_image(20, 150, 6));
    EXPECT_EQ(four.rect_sum({0, 0, 20, 150}), [] {
        const GrayImage g = random_image(20, 150, 6);
        std::uint32_t s = 0;
        for (auto p : g.pixels) s += p;
        return s;
    }());
}

// ---- pyramids -----------------------------------------------------------------------------
// smooth_binomial against the plain definition: each output pixel the 5×5 outer product of
// [1 4 6 4 1] over the clamped neighbourhood, (Σ + 128) / 256, for images from 1×1 to larger than
// a row band, and the same bytes on one thread; a constant image stays constant.
TEST(Pyramid, BinomialSmoothingIsThePlainDefinition) {
    const int k[5] = {1, 4, 6, 4, 1};
    for (const auto& [w, h] : {std::pair{1, 1}, std::pair{2, 3}, std::pair{4, 5}, std::pair{5, 4}, std::pair{37, 23}, std::pair{300, 70}}) {
        const GrayImage src = random_image(w, h, static_cast<unsigned>(w * 1000 + h));
        GrayImage out;
        smooth_binomial(src, out);
        ASSERT_EQ(out.width, w);
        ASSERT_EQ(out.height, h);
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                unsigned sum = 0;
                for (int j = -2; j <= 2; ++j)
                    for (int i = -2; i <= 2; ++i)
                        sum += static_cast<unsigned>(k[i + 2] * k[j + 2]) * src.at(std::clamp(x + i, 0, w - 1), std::clamp(y + j, 0, h - 1));
                ASSERT_EQ(out.at(x, y), (sum + 128) / 256) << w << "x" << h << " at " << x << "," << y;
            }
        GrayImage one;
        {
            tbb::global_control single(tbb::global_control::max_allowed_parallelism, 1);
            smooth_binomial(src, one);
        }
        EXPECT_EQ(one.pixels, out.pixels);
    }
    GrayImage flat = constant_image(40, 30, 77), smoothed;
    smooth_binomial(flat, smoothed);
    EXPECT_EQ(smoothed.pixels, flat.pixels);
    EXPECT_THROW(smooth_binomial(flat, flat), std::invalid_argument);
}

TEST(Pyramid, PlanFollowsScaleStepAndStopsAtTheWindow) {
    const auto levels = plan_pyramid(640, 480, 64, 128, 1.2);
    ASSERT_FALSE(levels.empty());
    for (std::size_t k = 0; k < levels.size(); ++k) {
        EXPECT_NEAR(levels[k].scale, std::pow(1.2, static_cast<double>(k)), 1e-12);
        EXPECT_EQ(levels[k].width, static_cast<int>(std::floor(640 / levels[k].scale)));
        EXPECT_GE(levels[k].height, 128);
    }
    EXPECT_LT(480 / (levels.back().scale * 1.2), 128.0);  // the next level would not fit
    EXPECT_EQ(levels.size(), 8u);                         // 480/1.2^7 = 134 >= 128 > 111
    EXPECT_TRUE(plan_pyramid(63, 500, 64, 128, 1.2).empty());
    EXPECT_TRUE(plan_pyramid(1, 1, 64, 128, 1.2).empty());
    const auto up = plan_pyramid(40, 70, 64, 128, 1.1, 0.5);  // upscaling finds room
    ASSERT_FALSE(up.empty());
    EXPECT_EQ(up.front().width, 80);
    const auto capped = plan_pyramid(640, 480, 64, 128, 1.2, 1.0, 1.5);
    EXPECT_EQ(capped.size(), 3u);  // 1, 1.2, 1.44
    EXPECT_THROW(plan_pyramid(640, 480, 64, 128, 1.0), std::invalid_argument);
}

TEST(Pyramid, BilinearMatchesReference) {
    const GrayImage src = blobby_image(97, 83, 12);
    for (double scale : {1.0, 1.05, 1.2, 1.7, 3.3, 0.5}) {
        const int w = static_cast<int>(97 / scale), h = static_cast<int>(83 / scale);
        GrayImage dst;
        resample_bilinear(src, scale, w, h, dst);
        ASSERT_EQ(dst.width, w);
        for (int v = 0; v < h; ++v)
            for (int u = 0; u < w; ++u) ASSERT_LE(std::abs(dst.at(u, v) - ref_bilinear(src, scale, u, v)), 0.51 + 255.0 / 2048) << scale;
        if (scale == 1.0) {
            EXPECT_EQ(dst.pixels, src.pixels);
        }
    }
    GrayImage one = constant_image(1, 1, 42), out;
    resample_bilinear(one, 0.25, 4, 4, out);
    for (auto p : out.pixels) EXPECT_EQ(p, 42);
}

// The fixed-point formula weighting each destination pixel's four source pixels at once, as the
// CUDA backend computes it: the CPU's resampling (rows in parallel) must give the same bytes.
GrayImage plain_fixed_point(const GrayImage& src, double scale, int w, int h, int pad) {
    const ResampleAxis tx = resample_axis(w, src.width, scale, pad), ty = resample_axis(h, src.height, scale, pad);
    GrayImage out = constant_image(w, h, 0);
    constexpr std::uint32_t one = 1u << kResampleBits;
    for (int v = 0; v < h; ++v)
        for (int u = 0; u < w; ++u) {
            const std::uint32_t wx = static_cast<std::uint32_t>(tx.wt[u]), wy = static_cast<std::uint32_t>(ty.wt[v]);
            const std::uint32_t top = src.at(tx.i0[u], ty.i0[v]) * (one - wx) + src.at(tx.i1[u], ty.i0[v]) * wx;
            const std::uint32_t bot = src.at(tx.i0[u], ty.i1[v]) * (one - wx) + src.at(tx.i1[u], ty.i1[v]) * wx;
            out.at(u, v) = static_cast<std::uint8_t>((top * (one - wy) + bot * wy + (1u << (2 * kResampleBits - 1))) >> (2 * kResampleBits));
        }
    return out;
}

TEST(Pyramid, ResamplingGivesThePlainFixedPointBytes) {
    const GrayImage src = random_image(211, 157, 21);
    for (double scale : {1.0, 1.05, 1.0905077, 1.5, 1.99, 3.3, 0.5, 0.7}) {
        for (int pad : {0, 16}) {
            const int w = static_cast<int>(211 / scale) + 2 * pad, h = static_cast<int>(157 / scale) + 2 * pad;
            GrayImage dst;
            resample_bilinear(src, scale, w, h, dst, pad);
            const GrayImage ref = plain_fixed_point(src, scale, w, h, pad);
            ASSERT_EQ(dst.pixels, ref.pixels) << "scale " << scale << " pad " << pad;
        }
    }
    // One source row or column, and a destination larger than the source in one axis only.
    for (auto [sw, sh] : {std::pair{1, 40}, std::pair{40, 1}, std::pair{2, 2}}) {
        const GrayImage s = random_image(sw, sh, 22);
        GrayImage dst;
        resample_bilinear(s, 0.6, 17, 13, dst, 3);
        EXPECT_EQ(dst.pixels, plain_fixed_point(s, 0.6, 17, 13, 3).pixels) << sw << "x" << sh;
    }
}

TEST(Pyramid, LevelsReadTheOctaveBelowTheirScale) {
    EXPECT_EQ(octave_of(0.5), 0);
    EXPECT_EQ(octave_of(1.0), 0);
    EXPECT_EQ(octave_of(1.999), 0);
    EXPECT_EQ(octave_of(2.0), 1);
    EXPECT_EQ(octave_of(3.9), 1);
    EXPECT_EQ(octave_of(4.0), 2);
    EXPECT_EQ(octave_of(1.2 * 1.2 * 1.2 * 1.2 * 1.2 * 1.2 * 1.2 * 1.2), 2);  // 4.30
    for (const PyramidLevel& l : plan_pyramid(1280, 960, 64, 128, 1.05)) {
        EXPECT_EQ(l.octave, octave_of(l.scale));
        EXPECT_GE(octave_scale(l), 1.0);
        EXPECT_LT(octave_scale(l), 2.0);
        const PyramidLevel again = pyramid_level(1280, 960, l.scale);
        EXPECT_EQ(again.width, l.width);
        EXPECT_EQ(again.height, l.height);
    }
}

TEST(Pyramid, HalvingAveragesTwoByTwoBlocks) {
    const GrayImage src = blobby_image(9, 7, 5);  // odd sizes: the last column and row are dropped
    GrayImage half;
    halve(src, half);
    ASSERT_EQ(half.width, 4);
    ASSERT_EQ(half.height, 3);
    for (int v = 0; v < 3; ++v)
        for (int u = 0; u < 4; ++u) {
            const int sum = src.at(2 * u, 2 * v) + src.at(2 * u + 1, 2 * v) + src.at(2 * u, 2 * v + 1) + src.at(2 * u + 1, 2 * v + 1);
            EXPECT_EQ(half.at(u, v), (sum + 2) / 4);
        }
    EXPECT_THROW(halve(constant_image(1, 5, 0), half), std::invalid_argument);
    Octaves oct;
    EXPECT_THROW(oct.get(0), std::invalid_argument);
    const GrayImage big = blobby_image(64, 40, 6);
    oct.reset(big);
    EXPECT_EQ(&oct.get(0), &big);
    const GrayImage& o2 = oct.get(2);  // builds octave 1 on the way
    GrayImage h1, h2;
    halve(big, h1);
    halve(h1, h2);
    EXPECT_EQ(oct.get(1).pixels, h1.pixels);
    EXPECT_EQ(o2.pixels, h2.pixels);
    EXPECT_EQ(&oct.get(2), &o2);  // references stay valid while deeper octaves are built
    oct.get(3);
    EXPECT_EQ(&oct.get(2), &o2);
}

// Stripes one pixel wide average to mid-gray over any area; a level shrunk by 3 must show that,
// not the stripes aliased into a coarser pattern (plain bilinear from the input, which reads 2 of
// every 3 columns, does).
TEST(Pyramid, OctaveLevelsDoNotAliasFineStripes) {
    GrayImage stripes(300, 240);
    for (int y = 0; y < 240; ++y)
        for (int x = 0; x < 300; ++x) stripes.at(x, y) = (x % 2) ? 255 : 0;
    const PyramidLevel l = pyramid_level(300, 240, 3.0);
    ASSERT_EQ(l.octave, 1);
    Octaves oct;
    oct.reset(stripes);
    GrayImage level, plain;
    resample_level(oct, l, level);
    resample_bilinear(stripes, 3.0, l.width, l.height, plain);
    auto spread = [](const GrayImage& g) {
        const auto [lo, hi] = std::minmax_element(g.pixels.begin(), g.pixels.end());
        return int(*hi) - int(*lo);
    };
    EXPECT_LE(spread(level), 2);  // 2x2 averages are 127.5 → 128 everywhere
    EXPECT_GE(spread(plain), 200);
}

// Each flip and quarter turn sends pixel (x, y) of a 3×2 image where its name says; the turns
// undo each other and two mirrors are the identity.
TEST(ImageTransforms, SendEachPixelWhereTheNameSays) {
    GrayImage g(3, 2);
    for (int y = 0; y < 2; ++y)
        for (int x = 0; x < 3; ++x) g.at(x, y) = static_cast<std::uint8_t>(10 * y + x);  // 0 1 2 / 10 11 12
    auto rows = [](const GrayImage& im) {
        std::vector<std::vector<int>> r(static_cast<std::size_t>(im.height));
        for (int y = 0; y < im.height; ++y)
            for (int x = 0; x < im.width; ++x) r[static_cast<std::size_t>(y)].push_back(im.at(x, y));
        return r;
    };
    using R = std::vector<std::vector<int>>;
    EXPECT_EQ(rows(transformed(g, ImageTransform::Mirror)), (R{{2, 1, 0}, {12, 11, 10}}));
    EXPECT_EQ(rows(transformed(g, ImageTransform::UpsideDown)), (R{{10, 11, 12}, {0, 1, 2}}));
    EXPECT_EQ(rows(transformed(g, ImageTransform::Rotate180)), (R{{12, 11, 10}, {2, 1, 0}}));
    EXPECT_EQ(rows(transformed(g, ImageTransform::Rotate90)), (R{{10, 0}, {11, 1}, {12, 2}}));   // clockwise
    EXPECT_EQ(rows(transformed(g, ImageTransform::Rotate270)), (R{{2, 12}, {1, 11}, {0, 10}}));  // counter-clockwise
    EXPECT_EQ(rows(transformed(g, ImageTransform::Transpose)), (R{{0, 10}, {1, 11}, {2, 12}}));
    EXPECT_EQ(rows(transformed(g, ImageTransform::Transverse)), (R{{12, 2}, {11, 1}, {10, 0}}));
    EXPECT_EQ(transformed(transformed(g, ImageTransform::Rotate90), ImageTransform::Rotate270).pixels, g.pixels);
    EXPECT_EQ(transformed(transformed(g, ImageTransform::Mirror), ImageTransform::Mirror).pixels, g.pixels);
    ImageTransform t{};
    EXPECT_TRUE(kImageTransformNames.parse("transverse", t));
    EXPECT_EQ(t, ImageTransform::Transverse);
    EXPECT_FALSE(kImageTransformNames.parse("rotate45", t));
}

// A block summed from the gradient plane is the integral histogram's block, bit for bit, for
// every normalisation, including blocks at the image's edges.
TEST(GradientPlane, BlocksEqualTheIntegralHistogramsExactly) {
    const GrayImage img = random_image(97, 131, 5);
    IntegralHistogram ih;
    ih.compute(img);
    GradientPlane plane;
    plane.compute(img);
    ASSERT_EQ(plane.width(), 97);
    const auto pool = make_block_pool("zhu", 64, 128);
    for (BlockNorm norm : {BlockNorm::L2, BlockNorm::L2Hys, BlockNorm::L1Sqrt}) {
        HogParams hp;
        hp.norm = norm;
        for (std::size_t b = 0; b < pool.size(); b += 37)
            for (auto [ox, oy] : {std::pair{0, 0}, std::pair{33, 3}}) {
                BlockDescriptor a, c;
                block_descriptor(ih, ox, oy, pool[b], hp, a);
                block_descriptor(plane, ox, oy, pool[b], hp, c);
                ASSERT_EQ(a, c) << "block " << b << " at " << ox << "," << oy;
            }
    }
    const Rect r{90, 120, 7, 11};
    EXPECT_EQ(plane.rect_sum(r), ih.rect_sum(r));
}

// The storage of an integral histogram, a gradient plane and a gray integral image only grows:
// after a larger image, a smaller one gives the same tables, sums and blocks as a fresh object,
// and a larger one after that as well.
TEST(FeatureStorage, ReusedObjectsGiveWhatFreshOnesGive) {
    const GrayImage big = random_image(160, 140, 11), small = random_image(45, 61, 12), bigger = random_image(170, 150, 13);
    IntegralHistogram ih;
    GradientPlane plane;
    IntegralImage ii;
    for (const GrayImage* img : {&big, &small, &bigger}) {
        ih.compute(*img);
        plane.compute(*img);
        ii.compute(*img);
        IntegralHistogram fresh_ih;
        GradientPlane fresh_plane;
        IntegralImage fresh_ii;
        fresh_ih.compute(*img);
        fresh_plane.compute(*img);
        fresh_ii.compute(*img);
        ASSERT_EQ(ih.width(), img->width);
        ASSERT_EQ(plane.height(), img->height);
        for (int y = 0; y <= img->height; ++y)
            for (int x = 0; x <= img->width; ++x) {
                ASSERT_EQ(ii.at(x, y), fresh_ii.at(x, y)) << x << "," << y;
                const std::uint32_t* a = ih.point(x, y);
                const std::uint32_t* b = fresh_ih.point(x, y);
                ASSERT_TRUE(std::equal(a, a + kOrientationBins, b)) << x << "," << y;
            }
        for (const Rect& r : {Rect{0, 0, img->width, img->height}, Rect{3, 5, 17, 9}, Rect{img->width - 7, img->height - 3, 7, 3}})
            EXPECT_EQ(plane.rect_sum(r), fresh_plane.rect_sum(r)) << r.x << "," << r.y << " " << r.w << "x" << r.h;
    }
}

// Square-root gray levels (HogParams::gamma): the table is round(255·√(v/255)), increasing, with
// 0 and 255 fixed; the identity for none. An integral histogram and a gradient plane built with
// it equal those of the image mapped through it first, point for point.
TEST(GrayGamma, SqrtCompressesGrayLevelsBeforeTheGradients) {
    const std::uint8_t* none = gamma_table(GrayGamma::None);
    const std::uint8_t* sqrt_table = gamma_table(GrayGamma::Sqrt);
    for (int v = 0; v < 256; ++v) {
        EXPECT_EQ(none[v], v);
        EXPECT_EQ(sqrt_table[v], static_cast<int>(std::lround(255.0 * std::sqrt(v / 255.0)))) << v;
        if (v > 0) {
            EXPECT_GE(sqrt_table[v], sqrt_table[v - 1]);
        }
    }
    EXPECT_EQ(sqrt_table[0], 0);
    EXPECT_EQ(sqrt_table[64], 128);  // 127.75
    EXPECT_EQ(sqrt_table[255], 255);
    const GrayImage img = random_image(61, 47, 11);
    GrayImage mapped = img;
    for (std::uint8_t& v : mapped.pixels) v = sqrt_table[v];
    IntegralHistogram a, b;
    a.compute(img, {GrayGamma::Sqrt});
    b.compute(mapped);
    ASSERT_EQ(a.width(), b.width());
    EXPECT_TRUE(std::equal(a.data(), a.data() + a.row_stride() * (static_cast<std::size_t>(a.height()) + 1), b.data()));
    IntegralHistogram plain;
    plain.compute(img);
    EXPECT_FALSE(std::equal(a.data(), a.data() + a.row_stride() * (static_cast<std::size_t>(a.height()) + 1), plain.data()));
    GradientPlane pa, pb;
    pa.compute(img, {GrayGamma::Sqrt});
    pb.compute(mapped);
    for (int y = 0; y < img.height; ++y)
        for (int x = 0; x < img.width; ++x) ASSERT_EQ(pa.at(x, y), pb.at(x, y)) << x << "," << y;
    expect_names(kGrayGammaNames, "sqrt", GrayGamma::Sqrt, "Sqrt");
}

// Padded levels: the same scales, each level 2·pad larger, its interior the unpadded level and its
// border the image's edge replicated (exactly so at scale 1).
TEST(Pyramid, PaddedLevelsHoldTheUnpaddedLevelInsideAReplicatedBorder) {
    const GrayImage img = random_image(150, 200, 9);
    const auto plain = plan_pyramid(150, 200, 64, 128, 1.2);
    const auto padded = plan_pyramid(150, 200, 64, 128, 1.2, 1.0, 0.0, 16);
    ASSERT_EQ(plain.size(), padded.size());
    Octaves octaves;
    octaves.reset(img);
    for (std::size_t i = 0; i < plain.size(); ++i) {
        EXPECT_EQ(padded[i].scale, plain[i].scale);
        EXPECT_EQ(padded[i].width, plain[i].width + 32);
        EXPECT_EQ(padded[i].height, plain[i].height + 32);
        EXPECT_EQ(padded[i].pad, 16);
        GrayImage a, b;
        resample_level(octaves, plain[i], a);
        resample_level(octaves, padded[i], b);
        for (int v = 0; v < a.height; ++v)
            for (int u = 0; u < a.width; ++u) ASSERT_EQ(b.at(u + 16, v + 16), a.at(u, v)) << i << ": " << u << "," << v;
        if (i == 0) {  // scale 1: the border is the image's edge pixels
            for (int v = 0; v < b.height; ++v)
                for (int u = 0; u < b.width; ++u)
                    ASSERT_EQ(b.at(u, v), img.at(std::clamp(u - 16, 0, 149), std::clamp(v - 16, 0, 199))) << u << "," << v;
        }
    }
    EXPECT_THROW(plan_pyramid(150, 200, 64, 128, 1.2, 1.0, 0.0, -1), std::invalid_argument);
}

// Colour gradients: each pixel takes the gradient of the colour plane with the largest gx² + gy²
// (the first of R, G, B on ties), after the gamma table: the gradient plane and the integral
// histogram equal a plain per-pixel reference, whatever the buffer's channel order.
TEST(ColourGradients, EachPixelTakesTheStrongestChannelAsAPlainReferenceDoes) {
    // Rows of 1 to 3 pixels (border pixels only), and rows the SIMD path takes in one chunk and in
    // several (128 pixels a chunk; integral_histogram.cpp).
    for (const auto& [w, h] : {std::pair{37, 29}, std::pair{300, 11}, std::pair{1, 5}, std::pair{2, 4}, std::pair{3, 3}}) {
    SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h));
    const GrayImage r = random_image(w, h, 31), g = random_image(w, h, 32), b = random_image(w, h, 33);
    // The same pixels interleaved both ways, rows padded.
    std::vector<std::uint8_t> rgb(static_cast<std::size_t>(w * 3 + 4) * h), bgr(rgb.size());
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            std::uint8_t* p = rgb.data() + static_cast<std::size_t>(y) * (w * 3 + 4) + x * 3;
            std::uint8_t* q = bgr.data() + static_cast<std::size_t>(y) * (w * 3 + 4) + x * 3;
            p[0] = q[2] = r.at(x, y);
            p[1] = q[1] = g.at(x, y);
            p[2] = q[0] = b.at(x, y);
        }
    ColourPlanes from_rgb, from_bgr;
    to_planes({rgb.data(), w, h, w * 3 + 4, 3, ChannelOrder::RGB}, from_rgb);
    to_planes({bgr.data(), w, h, w * 3 + 4, 3, ChannelOrder::BGR}, from_bgr);
    EXPECT_EQ(from_rgb.r.pixels, r.pixels);
    EXPECT_EQ(from_rgb.g.pixels, g.pixels);
    EXPECT_EQ(from_rgb.b.pixels, b.pixels);
    EXPECT_EQ(from_bgr.r.pixels, r.pixels);
    EXPECT_EQ(from_bgr.b.pixels, b.pixels);
    for (GrayGamma gamma : {GrayGamma::None, GrayGamma::Sqrt})
        for (OrientationVotes votes : {OrientationVotes::Nearest, OrientationVotes::Split}) {
            const GradientParams params{gamma, votes};
            const std::uint8_t* lut = gamma_table(gamma);
            GradientPlane plane;
            plane.compute(GradientSource(from_bgr), params);
            IntegralHistogram ih;
            ih.compute(GradientSource(from_rgb), params);
            int from_g = 0, from_b = 0;
            std::vector<std::array<std::uint32_t, kOrientationBins>> ref(static_cast<std::size_t>(w) * h);
            GrayImage mapped[3] = {r, g, b};
            for (GrayImage& m : mapped)
                for (std::uint8_t& v : m.pixels) v = lut[v];
            for (int y = 0; y < h; ++y)
                for (int x = 0; x < w; ++x) {
                    int best = -1, gx = 0, gy = 0, which = 0;
                    for (int c = 0; c < 3; ++c) {
                        const RefGradient d = ref_gradient(mapped[c], x, y);
                        if (d.gx * d.gx + d.gy * d.gy > best) best = d.gx * d.gx + d.gy * d.gy, gx = d.gx, gy = d.gy, which = c;
                    }
                    from_g += which == 1;
                    from_b += which == 2;
                    const std::uint32_t e = gradient_entry(gx, gy, votes);
                    ASSERT_EQ(plane.at(x, y), e) << x << "," << y;
                    auto& s = ref[static_cast<std::size_t>(y) * w + x];
                    s[entry_bin(e)] += entry_magnitude(e) - entry_upper(e);
                    s[next_bin(entry_bin(e))] += entry_upper(e);
                }
            if (w * h > 30) {
                EXPECT_GT(from_g, 0);  // every channel wins somewhere
                EXPECT_GT(from_b, 0);
            }
            for (int y0 = 0; y0 < h; y0 += 5)
                for (int x0 = 0; x0 < w; x0 += std::max(4, w / 16))
                    for (int rh = 1; y0 + rh <= h; rh += 6)
                        for (int rw = 1; x0 + rw <= w; rw += std::max(3, w / 12)) {
                            std::array<std::uint32_t, kOrientationBins> want{};
                            for (int y = y0; y < y0 + rh; ++y)
                                for (int x = x0; x < x0 + rw; ++x)
                                    for (int k = 0; k < kOrientationBins; ++k) want[k] += ref[static_cast<std::size_t>(y) * w + x][k];
                            ASSERT_EQ(ih.rect_sum({x0, y0, rw, rh}), want) << x0 << "," << y0 << " " << rw << "x" << rh;
                        }
        }
    }
}

// Equal channels (a gray photograph, or a gray buffer) give the gray gradients exactly; on a tie
// between different channels the first of R, G, B wins.
TEST(ColourGradients, GrayInputGivesGrayGradientsAndTiesGoToTheFirstChannel) {
    const GrayImage gray = random_image(41, 23, 34);
    ColourPlanes planes;
    to_planes(gray.view(), planes);
    EXPECT_EQ(planes.r.pixels, gray.pixels);
    EXPECT_EQ(planes.g.pixels, gray.pixels);
    EXPECT_EQ(planes.b.pixels, gray.pixels);
    IntegralHistogram a, c;
    a.compute(gray, {GrayGamma::Sqrt});
    c.compute(GradientSource(planes), {GrayGamma::Sqrt});
    EXPECT_TRUE(std::equal(a.data(), a.data() + a.row_stride() * (static_cast<std::size_t>(a.height()) + 1), c.data()));
    // Pixel (1, 1): R has gradient (4, 0) (bin 0), G (0, 4) (bin 4), B (0, 0): R wins the tie.
    ColourPlanes tie;
    for (GrayImage* p : {&tie.r, &tie.g, &tie.b}) *p = GrayImage(3, 3);
    tie.r.at(2, 1) = 4;
    tie.g.at(1, 2) = 4;
    GradientPlane plane;
    plane.compute(GradientSource(tie), {});
    EXPECT_EQ(plane.at(1, 1), gradient_entry(4, 0, OrientationVotes::Nearest));
    std::swap(tie.r, tie.g);  // now G has (4, 0): R's (0, 4) wins
    plane.compute(GradientSource(tie), {});
    EXPECT_EQ(plane.at(1, 1), gradient_entry(0, 4, OrientationVotes::Nearest));
}

// Image: what training and evaluation keep of a file. Channels split and merge back; flips,
// resampling and the like treat each channel alike; gray is the detector's gray; a frame's
// pyramid resamples every plane as resample_level does.
TEST(ColourImages, ChannelsSplitMergeTransformAndResampleAlike) {
    const int w = 23, h = 17;
    const GrayImage r = random_image(w, h, 41), g = random_image(w, h, 42), b = random_image(w, h, 43);
    const Image rgb = merge_channels({r, g, b});
    ASSERT_EQ(rgb.channels, 3);
    EXPECT_EQ(rgb.pixels[3 * (5 * w + 7) + 1], g.at(7, 5));
    EXPECT_EQ(channel(rgb, 0).pixels, r.pixels);
    EXPECT_EQ(channel(rgb, 2).pixels, b.pixels);
    EXPECT_THROW(channel(rgb, 3), ImageError);
    EXPECT_THROW(merge_channels({r, random_image(w + 1, h, 44)}), ImageError);
    // A BGR buffer of the same pixels comes back in RGB order.
    std::vector<std::uint8_t> bgr(rgb.pixels.size());
    for (std::size_t i = 0; i < bgr.size(); i += 3) bgr[i] = rgb.pixels[i + 2], bgr[i + 1] = rgb.pixels[i + 1], bgr[i + 2] = rgb.pixels[i];
    const ImageView bgr_view{bgr.data(), w, h, w * 3, 3, ChannelOrder::BGR};
    EXPECT_EQ(to_image(bgr_view).pixels, rgb.pixels);
    // Gray: kept as is, or reduced as to_gray reduces the buffer.
    EXPECT_EQ(keep_channels(rgb, true).pixels, rgb.pixels);
    const Image gray = keep_channels(rgb, false);
    EXPECT_EQ(gray.channels, 1);
    EXPECT_EQ(gray.pixels, to_gray(bgr_view).pixels);
    EXPECT_EQ(keep_channels(gray, true).pixels, gray.pixels);  // nothing to keep: stays gray
    // Flips and quarter turns: per channel.
    for (ImageTransform t : {ImageTransform::Mirror, ImageTransform::Rotate90, ImageTransform::Transverse}) {
        const Image turned = transformed(rgb, t);
        EXPECT_EQ(channel(turned, 1).pixels, transformed(g, t).pixels);
        EXPECT_EQ(turned.width, transformed(g, t).width);
    }
    // The frame's pyramid: every plane of a level as resample_level makes it from its octaves.
    FramePyramid frame;
    frame.reset(bgr_view, true);
    EXPECT_EQ(frame.frame().pixels, to_gray(bgr_view).pixels);
    const PyramidLevel level = pyramid_level(w, h, 2.3, 2);  // octave 1
    ASSERT_EQ(level.octave, 1);
    FramePyramid::Level images;
    EXPECT_THROW(frame.level(level, images), std::logic_error);  // its octave not prepared
    frame.prepare({level});
    frame.level(level, images);
    ASSERT_NE(images.colour(), nullptr);
    Octaves octaves;
    octaves.reset(b);
    GrayImage expect;
    resample_level(octaves, level, expect);
    EXPECT_EQ(images.colour()->b.pixels, expect.pixels);
    FramePyramid::Level whole;
    frame.level(pyramid_level(w, h, 1.0), whole);
    EXPECT_EQ(&whole.gray(), &frame.frame());  // the frame itself, not a copy
    EXPECT_EQ(whole.colour()->g.pixels, g.pixels);
    EXPECT_EQ(images.colour()->b.pixels, expect.pixels);  // each Level keeps its own images
    // Without gray levels (colour models without LBP stages): the planes alone are resampled.
    frame.reset(bgr_view, true, false);
    frame.prepare({level});
    frame.level(level, images);
    EXPECT_EQ(images.gray().width, 0);
    EXPECT_EQ(images.colour()->b.pixels, expect.pixels);
    frame.reset(bgr_view, false, false);  // gray models always get gray levels
    EXPECT_THROW(frame.level(level, images), std::logic_error);  // reset() forgets the octaves
    frame.prepare({level});
    frame.level(level, images);
    EXPECT_EQ(images.gray().width, level.width);
    EXPECT_EQ(images.colour(), nullptr);
}
