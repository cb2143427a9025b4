#include "cascadekit/model/hog_svm_stage.hpp"

#include "cascadekit/model/cascade.hpp"
#include "rect_text.hpp"

namespace cascadekit {

void HogSvmStage::validate(const CascadeModel& m, const std::string& base) const {
    using detail::rect_text;
    require_bounded(threshold, base + "@threshold");
    require_bounded(carry, base + "@carry");
    if (carry < 0.0f) throw ModelError(base + "@carry", "negative carry " + std::to_string(carry) + " (a nested stage adds a share >= 0 of the running score)");
    bool any_vote = false;
    for (std::size_t i = 0; i < learners.size(); ++i) {
        const HogLearner& l = learners[i];
        const std::string at = index_path(base + "/blocks", i);
        if (!l.block.inside(m.window_width, m.window_height))
            throw ModelError(at, "block " + rect_text(l.block) + " is not inside the " + detail::window_text(m));
        if (l.block.w % 2 != 0 || l.block.h % 2 != 0)
            throw ModelError(at, "block " + rect_text(l.block) + " has an odd side; 2x2 cells need even sides");
        for (std::size_t k = 0; k < l.weights.size(); ++k)
            require_bounded(l.weights[k], [&] { return index_path(base + "/weights", i) + "[" + std::to_string(k) + "]"; });
        require_bounded(l.bias, index_path(base + "/bias", i));
        require_bounded(l.alpha, index_path(base + "/alpha", i));
        any_vote = any_vote || l.alpha != 0.0f;
    }
    if (!any_vote) throw ModelError(base + "/alpha", "every vote weight is 0: the stage cannot tell windows apart");
}

}  // namespace cascadekit
