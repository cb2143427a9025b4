#include "cascadekit/features/gradient.hpp"

#include <algorithm>
#include <cmath>

namespace cascadekit {

namespace {
// cos and sin of the bin boundaries 20°, 40°, …, 160° and centres 10°, 30°, …, 170°. In double,
// the boundary cross-product sign is exact for every integer gradient with |gx|, |gy| <= 255
// (tests/features: exhaustive comparison with atan2): no lattice point of that size lies within
// 1e-6 of a boundary ray, far above double's error.
OrientationGeometry make_geometry() {
    OrientationGeometry g{};
    for (int k = 0; k < 8; ++k) {
        const double a = (k + 1) * 20.0 * M_PI / 180.0;
        g.boundary_cos[k] = std::cos(a);
        g.boundary_sin[k] = std::sin(a);
    }
    for (int k = 0; k < kOrientationBins; ++k) {
        const double a = (10.0 + k * 20.0) * M_PI / 180.0;
        g.centre_cos[k] = std::cos(a);
        g.centre_sin[k] = std::sin(a);
    }
    return g;
}
const OrientationGeometry kGeometry = make_geometry();
}  // namespace

const OrientationGeometry& orientation_geometry() { return kGeometry; }

int orientation_bin(int gx, int gy) { return static_cast<int>(entry_bin(gradient_entry(gx, gy, false, kGeometry))); }

std::uint32_t quantised_magnitude(int gx, int gy) { return entry_magnitude(gradient_entry(gx, gy, false, kGeometry)); }

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

GradientField compute_gradients(const GrayImage& image, OrientationVotes votes) {
    GradientField field;
    field.width = image.width;
    field.height = image.height;
    const std::size_t n = static_cast<std::size_t>(image.width) * image.height;
    field.bin.resize(n);
    field.magnitude.resize(n);
    field.upper.resize(n);
    for (int y = 0; y < image.height; ++y)
        for (int x = 0; x < image.width; ++x) {
            int gx = 0, gy = 0;
            gradient_at(image, x, y, gx, gy);
            const std::size_t i = static_cast<std::size_t>(y) * image.width + x;
            const std::uint32_t e = gradient_entry(gx, gy, votes);
            field.bin[i] = static_cast<std::uint8_t>(entry_bin(e));
            field.magnitude[i] = entry_magnitude(e);
            field.upper[i] = entry_upper(e);
        }
    return field;
}

}  // namespace cascadekit
