#include "cascadekit/features/model.hpp"

#include <cmath>
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

void validate_hog(const HogSvmStage& st, const std::string& base, const CascadeModel& m) {
    require_finite(st.threshold, base + "@threshold");
    for (std::size_t i = 0; i < st.learners.size(); ++i) {
        const HogLearner& l = st.learners[i];
        const std::string at = index_path(base + "/blocks", i);
        if (!l.block.inside(m.window_width, m.window_height))
            throw ModelError(at, "block " + rect_text(l.block) + " is not inside the " +
                                     std::to_string(m.window_width) + "x" + std::to_string(m.window_height) + " window");
        if (l.block.w % 2 != 0 || l.block.h % 2 != 0)
            throw ModelError(at, "block " + rect_text(l.block) + " has an odd side; 2x2 cells need even sides");
        for (std::size_t k = 0; k < l.weights.size(); ++k)
            require_finite(l.weights[k], index_path(base + "/weights", i) + "[" + std::to_string(k) + "]");
        require_finite(l.bias, index_path(base + "/bias", i));
        require_finite(l.alpha, index_path(base + "/alpha", i));
    }
}

void validate_lbp(const WaldBoostLbpStage& st, const std::string& base, const CascadeModel& m) {
    require_finite(st.final_threshold, base + "@final_threshold");
    for (std::size_t i = 0; i < st.weak.size(); ++i) {
        const LbpWeakClassifier& c = st.weak[i];
        const Rect grid{c.cell.x, c.cell.y, 3 * c.cell.w, 3 * c.cell.h};
        if (c.cell.w <= 0 || c.cell.h <= 0 || !grid.inside(m.window_width, m.window_height))
            throw ModelError(index_path(base + "/cells", i),
                             "3x3 grid of cells " + rect_text(c.cell) + " is not inside the " +
                                 std::to_string(m.window_width) + "x" + std::to_string(m.window_height) + " window");
        for (std::size_t k = 0; k < c.responses.size(); ++k)
            require_finite(c.responses[k], index_path(base + "/responses", i) + "[" + std::to_string(k) + "]");
        require_finite(c.reject_threshold, index_path(base + "/reject_thresholds", i));
    }
}
}  // namespace

void validate_model(const CascadeModel& m) {
    if (m.window_width <= 0 || m.window_height <= 0)
        throw ModelError("/@window_width", "window " + std::to_string(m.window_width) + "x" +
                                               std::to_string(m.window_height) + " must have positive sides");
    if (static_cast<long long>(m.window_width) * m.window_height > kMaxExactRectArea)
        throw ModelError("/@window_width", "window area " + std::to_string(m.window_width * m.window_height) +
                                               " exceeds " + std::to_string(kMaxExactRectArea) +
                                               " pixels, the largest whose HoG sums are exact");
    require_finite(m.hog.epsilon, "/hog@epsilon");
    if (!(m.hog.epsilon > 0.0f)) throw ModelError("/hog@epsilon", "epsilon must be > 0 (it keeps flat blocks finite)");
    require_finite(m.hog.hys_clip, "/hog@hys_clip");
    if (!(m.hog.hys_clip > 0.0f)) throw ModelError("/hog@hys_clip", "hys_clip must be > 0");
    if (m.stages.empty()) throw ModelError("/stages", "the cascade has no stages");
    for (std::size_t s = 0; s < m.stages.size(); ++s) {
        const std::string base = stage_path(s);
        if (stage_size(m.stages[s]) == 0) throw ModelError(base, "stage " + std::to_string(s) + " is empty");
        if (const auto* hog = std::get_if<HogSvmStage>(&m.stages[s]))
            validate_hog(*hog, base, m);
        else
            validate_lbp(std::get<WaldBoostLbpStage>(m.stages[s]), base, m);
    }
}

}  // namespace cascadekit
