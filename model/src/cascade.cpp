#include "cascadekit/model/cascade.hpp"

#include <algorithm>
#include <cstdint>
#include <functional>

namespace cascadekit {

std::string feature_family(const CascadeModel& model) {
    std::vector<std::string_view> features;
    for (const Stage& s : model.stages)
        if (std::find(features.begin(), features.end(), s.feature()) == features.end()) features.push_back(s.feature());
    std::sort(features.begin(), features.end(), std::greater<>());
    std::string out;
    for (std::string_view f : features) out.append(out.empty() ? "" : "+").append(f);
    return out.empty() ? "hog" : out;
}

void validate_model(const CascadeModel& m) {
    if (m.window_width <= 0 || m.window_height <= 0)
        throw ModelError("/@window_width", "window " + std::to_string(m.window_width) + "x" +
                                               std::to_string(m.window_height) + " must have positive sides");
    const std::int64_t area = std::int64_t{m.window_width} * m.window_height;
    if (area > kMaxExactRectArea)
        throw ModelError("/@window_width", "window " + std::to_string(m.window_width) + "x" +
                                               std::to_string(m.window_height) + " has area " + std::to_string(area) +
                                               ", more than " + std::to_string(kMaxExactRectArea) +
                                               " pixels, the largest whose HoG sums are exact");
    require_finite(m.hog.epsilon, "/hog@epsilon");
    if (!(m.hog.epsilon > 0.0f)) throw ModelError("/hog@epsilon", "epsilon must be > 0 (it keeps flat blocks finite)");
    if (m.hog.epsilon > kMaxEpsilon)
        throw ModelError("/hog@epsilon", "epsilon " + std::to_string(m.hog.epsilon) + " is out of range (<= " +
                                             std::to_string(static_cast<long long>(kMaxEpsilon)) +
                                             "; it would flatten every block)");
    require_finite(m.hog.hys_clip, "/hog@hys_clip");
    if (!(m.hog.hys_clip > 0.0f) || m.hog.hys_clip > kMaxHysClip)
        throw ModelError("/hog@hys_clip", "hys_clip " + std::to_string(m.hog.hys_clip) + " must be in (0, 1]");
    if (m.stages.empty()) throw ModelError("/stages", "the cascade has no stages");
    if (m.stages.size() > kMaxStages)
        throw ModelError("/stages", std::to_string(m.stages.size()) + " stages, more than the limit of " +
                                        std::to_string(kMaxStages));
    for (std::size_t s = 0; s < m.stages.size(); ++s) {
        const std::string base = stage_path(s);
        const std::size_t n = m.stages[s].size();
        if (n == 0) throw ModelError(base, "stage " + std::to_string(s) + " is empty");
        if (n > kMaxStageSize)
            throw ModelError(base, "stage " + std::to_string(s) + " has " + std::to_string(n) +
                                       " learners, more than the limit of " + std::to_string(kMaxStageSize));
        m.stages[s].base().validate(m, base);
    }
}

}  // namespace cascadekit
