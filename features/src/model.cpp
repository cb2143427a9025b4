#include "cascadekit/features/model.hpp"

#include <cmath>
#include <cstdint>
#include <cstdio>

namespace cascadekit {

std::string stage_path(std::size_t index) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "/stages/%03zu", index);
    return buf;
}

std::string_view stage_kind(const Stage& stage) {
    return std::holds_alternative<HogSvmStage>(stage) ? "hog_svm" : "waldboost_lbp";
}

std::size_t stage_size(const Stage& stage) {
    if (const auto* hog = std::get_if<HogSvmStage>(&stage)) return hog->learners.size();
    return std::get<WaldBoostLbpStage>(stage).weak.size();
}

std::string feature_family(const CascadeModel& model) {
    bool hog = false, lbp = false;
    for (const Stage& s : model.stages) (std::holds_alternative<HogSvmStage>(s) ? hog : lbp) = true;
    return hog && lbp ? "lbp+hog" : lbp ? "lbp" : "hog";
}

namespace {
std::string rect_text(const Rect& r) {
    return "(x=" + std::to_string(r.x) + ", y=" + std::to_string(r.y) + ", w=" + std::to_string(r.w) +
           ", h=" + std::to_string(r.h) + ")";
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

std::string window_text(const CascadeModel& m) {
    return std::to_string(m.window_width) + "x" + std::to_string(m.window_height) + " window";
}

void validate_hog(const HogSvmStage& st, const std::string& base, const CascadeModel& m) {
    require_bounded(st.threshold, base + "@threshold");
    bool any_vote = false;
    for (std::size_t i = 0; i < st.learners.size(); ++i) {
        const HogLearner& l = st.learners[i];
        const std::string at = index_path(base + "/blocks", i);
        if (!l.block.inside(m.window_width, m.window_height))
            throw ModelError(at, "block " + rect_text(l.block) + " is not inside the " + window_text(m));
        if (l.block.w % 2 != 0 || l.block.h % 2 != 0)
            throw ModelError(at, "block " + rect_text(l.block) + " has an odd side; 2x2 cells need even sides");
        for (std::size_t k = 0; k < l.weights.size(); ++k)
            require_bounded(l.weights[k], index_path(base + "/weights", i) + "[" + std::to_string(k) + "]");
        require_bounded(l.bias, index_path(base + "/bias", i));
        require_bounded(l.alpha, index_path(base + "/alpha", i));
        any_vote = any_vote || l.alpha != 0.0f;
    }
    if (!any_vote) throw ModelError(base + "/alpha", "every vote weight is 0: the stage cannot tell windows apart");
}

void validate_lbp(const WaldBoostLbpStage& st, const std::string& base, const CascadeModel& m) {
    require_bounded(st.final_threshold, base + "@final_threshold");
    for (std::size_t i = 0; i < st.weak.size(); ++i) {
        const LbpWeakClassifier& c = st.weak[i];
        // The 3x3 grid spans 3w x 3h pixels; in 64 bits, so no side can overflow.
        const Rect& r = c.cell;
        const bool inside = r.w > 0 && r.h > 0 && r.x >= 0 && r.y >= 0 &&
                            std::int64_t{r.x} + 3 * std::int64_t{r.w} <= m.window_width &&
                            std::int64_t{r.y} + 3 * std::int64_t{r.h} <= m.window_height;
        if (!inside)
            throw ModelError(index_path(base + "/cells", i),
                             "3x3 grid of cells " + rect_text(c.cell) + " is not inside the " + window_text(m));
        for (std::size_t k = 0; k < c.responses.size(); ++k)
            require_bounded(c.responses[k], index_path(base + "/responses", i) + "[" + std::to_string(k) + "]");
        require_bounded(c.reject_threshold, index_path(base + "/reject_thresholds", i));
    }
}
}  // namespace

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
        if (stage_size(m.stages[s]) == 0) throw ModelError(base, "stage " + std::to_string(s) + " is empty");
        if (stage_size(m.stages[s]) > kMaxStageSize)
            throw ModelError(base, "stage " + std::to_string(s) + " has " + std::to_string(stage_size(m.stages[s])) +
                                       " learners, more than the limit of " + std::to_string(kMaxStageSize));
        if (const auto* hog = std::get_if<HogSvmStage>(&m.stages[s]))
            validate_hog(*hog, base, m);
        else
            validate_lbp(std::get<WaldBoostLbpStage>(m.stages[s]), base, m);
    }
}

}  // namespace cascadekit
