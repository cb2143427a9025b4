// waldboost_lbp in a model file (docs/model-file.md): @final_threshold, cells [n,4] int32,
// responses [n,256], reject_thresholds [n] float32.
#include "cascadekit/model/waldboost_lbp_stage.hpp"
#include "stage_codecs.hpp"

namespace cascadekit {

StageCodec waldboost_lbp_codec() {
    StageCodec c;
    c.kind = WaldBoostLbpStage::kKind;
    c.write = [](const Stage& stage, StageOut& out) {
        const auto& st = stage.as<WaldBoostLbpStage>();
        out.attr_float("final_threshold", st.final_threshold);
        std::vector<std::int32_t> cells;
        std::vector<float> responses, reject;
        for (const LbpWeakClassifier& w : st.weak) {
            append_rect(cells, w.cell);
            responses.insert(responses.end(), w.responses.begin(), w.responses.end());
            reject.push_back(w.reject_threshold);
        }
        const std::size_t n = st.weak.size();
        out.ints("cells", cells, n, 4, 2);
        out.floats("responses", responses, n, 256, 2);
        out.floats("reject_thresholds", reject, n, 1, 1);
    };
    c.read = [](StageIn& in) -> Stage {
        WaldBoostLbpStage st;
        st.final_threshold = in.attr_float("final_threshold");
        std::size_t n = 0, unused = 0;
        const auto cells = in.ints("cells", 2, 4, std::nullopt, n);
        const auto responses = in.floats("responses", 2, 256, n, unused);
        const auto reject = in.floats("reject_thresholds", 1, 1, n, unused);
        st.weak.resize(n);
        for (std::size_t i = 0; i < n; ++i) {
            LbpWeakClassifier& w = st.weak[i];
            w.cell = rect_at(cells, i);
            std::copy_n(responses.begin() + static_cast<std::ptrdiff_t>(i * 256), 256, w.responses.begin());
            w.reject_threshold = reject[i];
        }
        return st;
    };
    return c;
}

}  // namespace cascadekit
