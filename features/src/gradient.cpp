#include "cascadekit/features/gradient.hpp"

#include <algorithm>
#include <cmath>

namespace cascadekit {

namespace {
// cos and sin of the bin boundaries 20°, 40°, …, 160°. In double, the cross-product sign is exact
// for every integer gradient with |gx|, |gy| <= 255 (tests/features: exhaustive comparison with
// atan2): no lattice point of that size lies within 1e-6 of a boundary ray, far above double's error.
OrientationBoundaries make_boundaries() {
    OrientationBoundaries b{};
    for (int k = 0; k < 8; ++k) {
        const double a = (k + 1) * 20.0 * M_PI / 180.0;
        b.c[k] = std::cos(a);
        b.s[k] = std::sin(a);
    }
    return b;
}
const OrientationBoundaries kBoundaries = make_boundaries();
}  // namespace

const OrientationBoundaries& orientation_boundaries() { return kBoundaries; }

int orientation_bin(int gx, int gy) {
    if (gx == 0 && gy == 0) return 0;  // no orientation; its magnitude is 0 anyway
    // Fold into the half-plane of angles [0°, 180°): unsigned orientation.
    if (gy < 0 || (gy == 0 && gx < 0)) {
        gx = -gx;
        gy = -gy;
    }
    // angle >= 20k°  <=>  sin(angle − 20k°) >= 0  <=>  gy·cos(20k°) − gx·sin(20k°) >= 0,
    // valid because angle − 20k° stays in [−160°, 180°).
    int bin = 0;
    for (int k = 0; k < 8; ++k) bin += (gy * kBoundaries.c[k] - gx * kBoundaries.s[k] >= 0.0) ? 1 : 0;
    return bin;
}

std::uint32_t quantised_magnitude(int gx, int gy) {
    // sqrt of an exact integer below 2^53 is correctly rounded and never exactly halfway between
    // integers (it is an integer or irrational), so rounding is exact.
    const double s = static_cast<double>(gx * gx + gy * gy) * (kMagnitudeScale * kMagnitudeScale);
    return static_cast<std::uint32_t>(std::llround(std::sqrt(s)));
}

const std::uint8_t* gamma_table(GrayGamma gamma) {
    struct Tables {
        std::uint8_t t[2][256];
        Tables() {
            for (int v = 0; v < 256; ++v) {
                t[0][v] = static_cast<std::uint8_t>(v);
                t[1][v] = static_cast<std::uint8_t>(std::lround(std::sqrt(v / 255.0) * 255.0));
            }
        }
    };
    static const Tables tables;
    return tables.t[gamma == GrayGamma::Sqrt ? 1 : 0];
}

void gradient_at(const GrayImage& image, int x, int y, int& gx, int& gy) {
    const int xl = std::max(x - 1, 0), xr = std::min(x + 1, image.width - 1);
    const int yu = std::max(y - 1, 0), yd = std::min(y + 1, image.height - 1);
    gx = int(image.at(xr, y)) - int(image.at(xl, y));
    gy = int(image.at(x, yd)) - int(image.at(x, yu));
}

GradientField compute_gradients(const GrayImage& image) {
    GradientField field;
    field.width = image.width;
    field.height = image.height;
    const std::size_t n = static_cast<std::size_t>(image.width) * image.height;
    field.bin.resize(n);
    field.magnitude.resize(n);
    for (int y = 0; y < image.height; ++y)
        for (int x = 0; x < image.width; ++x) {
            int gx = 0, gy = 0;
            gradient_at(image, x, y, gx, gy);
            const std::size_t i = static_cast<std::size_t>(y) * image.width + x;
            field.bin[i] = static_cast<std::uint8_t>(orientation_bin(gx, gy));
            field.magnitude[i] = quantised_magnitude(gx, gy);
        }
    return field;
}

}  // namespace cascadekit
