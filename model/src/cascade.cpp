#include "cascadekit/model/cascade.hpp"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <cstdint>
#include <functional>
#include <iterator>

namespace cascadekit {

double decimal_value(float v) {
    char buf[32];
    const auto r = std::to_chars(buf, buf + sizeof buf - 1, v);
    *r.ptr = '\0';
    return std::strtod(buf, nullptr);
}

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
    validate_detect_settings(m.object_box, m.operating);
}

void validate_detect_settings(const ObjectBox& b, const OperatingPoint& o) {
    for (float v : {b.x, b.y, b.w, b.h}) require_finite(v, "/detect/object_box");
    if (!(b.w > 0 && b.h > 0 && b.x >= 0 && b.y >= 0 && b.x + b.w <= 1.0f + 1e-6f && b.y + b.h <= 1.0f + 1e-6f))
        throw ModelError("/detect/object_box", "the object box (" + std::to_string(b.x) + ", " + std::to_string(b.y) + ", " +
                                                   std::to_string(b.w) + ", " + std::to_string(b.h) +
                                                   ") must lie inside the window (fractions in [0, 1], sides > 0)");
    auto in = [](float v, float lo, float hi, const char* path, const char* range) {
        require_finite(v, path);
        if (!(v >= lo && v <= hi)) throw ModelError(path, std::to_string(v) + " is out of range (" + range + ")");
    };
    in(o.threshold, -1e6f, 1e6f, "/detect@threshold", "-1e6 to 1e6");
    if (o.stride < 1 || o.stride > 256) throw ModelError("/detect@stride", std::to_string(o.stride) + " is out of range (1 to 256)");
    in(o.scale_step, 1.01f, 10.0f, "/detect@scale_step", "1.01 to 10");
    in(o.min_scale, 1.0f / 16, 64.0f, "/detect@min_scale", "1/16 to 64");
    in(o.pad, 0.0f, 1.0f, "/detect@pad", "0 to 1");
    if (o.level_pad < 0 || o.level_pad > 256)
        throw ModelError("/detect@level_pad", std::to_string(o.level_pad) + " is out of range (0 to 256)");
    if (std::find(std::begin(kFuseNames), std::end(kFuseNames), o.fuse) == std::end(kFuseNames))
        throw ModelError("/detect@fuse", "unknown fusion '" + o.fuse + "' (expected meanshift, nms or none)");
    require_finite(o.nms_iou, "/detect@nms_iou");
    if (!(o.nms_iou > 0 && o.nms_iou <= 1)) throw ModelError("/detect@nms_iou", std::to_string(o.nms_iou) + " must be in (0, 1]");
}

}  // namespace cascadekit
