#include "cascadekit/model/stage.hpp"

#include <cmath>
#include <cstdio>

namespace cascadekit {

std::string stage_path(std::size_t index) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "/stages/%03zu", index);
    return buf;
}

std::string index_path(const std::string& dataset, std::size_t i) { return dataset + "[" + std::to_string(i) + "]"; }

void require_finite(float v, const std::string& path) {
    if (!std::isfinite(v)) throw ModelError(path, "value is not finite (" + std::to_string(v) + ")");
}

// Finite and within ±kMaxModelMagnitude: 3e38 passes isfinite but no trained model holds it.
void require_bounded(float v, const std::string& path) {
    require_finite(v, path);
    if (std::fabs(v) > kMaxModelMagnitude)
        throw ModelError(path, "value " + std::to_string(v) + " is out of range (|value| <= " +
                                   std::to_string(static_cast<long long>(kMaxModelMagnitude)) +
                                   " in every trained model)");
}

}  // namespace cascadekit
