#include "cascadekit/model/waldboost_lbp_stage.hpp"

#include <cstdint>

#include "cascadekit/model/cascade.hpp"
#include "rect_text.hpp"

namespace cascadekit {

void WaldBoostLbpStage::validate(const CascadeModel& m, const std::string& base) const {
    require_bounded(final_threshold, base + "@final_threshold");
    for (std::size_t i = 0; i < weak.size(); ++i) {
        const LbpWeakClassifier& c = weak[i];
        // The 3x3 grid spans 3w x 3h pixels; in 64 bits, so no side can overflow.
        const Rect& r = c.cell;
        const bool inside = r.w > 0 && r.h > 0 && r.x >= 0 && r.y >= 0 &&
                            std::int64_t{r.x} + 3 * std::int64_t{r.w} <= m.window_width &&
                            std::int64_t{r.y} + 3 * std::int64_t{r.h} <= m.window_height;
        if (!inside)
            throw ModelError(index_path(base + "/cells", i), "3x3 grid of cells " + detail::rect_text(c.cell) +
                                                                 " is not inside the " + detail::window_text(m));
        for (std::size_t k = 0; k < c.responses.size(); ++k)
            require_bounded(c.responses[k], [&] { return index_path(base + "/responses", i) + "[" + std::to_string(k) + "]"; });
        require_bounded(c.reject_threshold, [&] { return index_path(base + "/reject_thresholds", i); });
    }
}

}  // namespace cascadekit
