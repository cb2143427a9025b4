// CPU evaluation of waldboost_lbp stages: the running sum with early rejection after every weak
// classifier (Šochman & Matas, CVPR 2005).
#include "cascadekit/features/lbp.hpp"
#include "cascadekit/model/waldboost_lbp_stage.hpp"
#include "cascadekit/runtime/window_evaluator.hpp"
#include "stage_kinds.hpp"

namespace cascadekit {

namespace {
class WaldBoostLbpEvaluator final : public StageEvaluator {
public:
    explicit WaldBoostLbpEvaluator(const WaldBoostLbpStage& stage) : stage_(stage) {}
    StageOutcome evaluate(const LevelFeatures& f, int x, int y) const override {
        StageOutcome out;
        float h = 0.0f;
        const std::size_t stride = f.gray.row_stride();
        const std::uint32_t* origin = f.gray.data() + static_cast<std::size_t>(y) * stride + static_cast<std::size_t>(x);
        for (const LbpWeakClassifier& c : stage_.weak) {
            ++out.weak_evaluated;
            h += c.responses[lbp_code(origin, stride, c.cell)];
            if (h < c.reject_threshold) {
                out.score = h - c.reject_threshold;
                return out;
            }
        }
        out.score = h - stage_.final_threshold;
        return out;
    }

private:
    const WaldBoostLbpStage& stage_;
};
}  // namespace

CpuStageKind waldboost_lbp_cpu_kind() {
    FeatureNeeds needs;
    needs.gray_integral = true;
    return {WaldBoostLbpStage::kKind, needs, [](const Stage& s, const CascadeModel&) -> std::unique_ptr<StageEvaluator> {
                return std::make_unique<WaldBoostLbpEvaluator>(s.as<WaldBoostLbpStage>());
            }};
}

}  // namespace cascadekit
