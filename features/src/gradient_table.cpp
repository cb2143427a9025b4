#include "gradient_table.hpp"

#include <vector>

#include "cascadekit/features/gradient.hpp"

namespace cascadekit::detail {

const std::uint32_t* gradient_table() {
    static const std::vector<std::uint32_t> table = [] {
        std::vector<std::uint32_t> t(static_cast<std::size_t>(kGradientTableSide) * kGradientTableSide);
        for (int gy = -255; gy <= 255; ++gy)
            for (int gx = -255; gx <= 255; ++gx)
                t[static_cast<std::size_t>(gy + 255) * kGradientTableSide + (gx + 255)] =
                    quantised_magnitude(gx, gy) | (static_cast<std::uint32_t>(orientation_bin(gx, gy)) << 24);
        return t;
    }();
    return table.data();
}

}  // namespace cascadekit::detail
