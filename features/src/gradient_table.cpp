#include "gradient_table.hpp"

#include <vector>

#include "cascadekit/features/gradient.hpp"

namespace cascadekit::detail {

namespace {
std::vector<std::uint32_t> make_table(OrientationVotes votes) {
    std::vector<std::uint32_t> t(static_cast<std::size_t>(kGradientTableSide) * kGradientTableSide);
    for (int gy = -255; gy <= 255; ++gy)
        for (int gx = -255; gx <= 255; ++gx)
            t[static_cast<std::size_t>(gy + 255) * kGradientTableSide + (gx + 255)] = gradient_entry(gx, gy, votes);
    return t;
}
}  // namespace

const std::uint32_t* gradient_table(OrientationVotes votes) {
    if (votes == OrientationVotes::Split) {
        static const std::vector<std::uint32_t> split = make_table(OrientationVotes::Split);
        return split.data();
    }
    static const std::vector<std::uint32_t> nearest = make_table(OrientationVotes::Nearest);
    return nearest.data();
}

}  // namespace cascadekit::detail
