// CPU evaluation of hog_svm stages (one thread per window; the caller parallelises).
#include "cascadekit/runtime/stages/hog_svm.hpp"

#include "cascadekit/runtime/window_evaluator.hpp"
#include "stage_kinds.hpp"

namespace cascadekit {

namespace {
template <class Source>
float stage_sum(const HogSvmStage& stage, const HogParams& hog, const Source& source, int x, int y) {
    float sum = 0.0f;
    BlockDescriptor v;
    for (const HogLearner& l : stage.learners) {
        block_descriptor(source, x, y, l.block, hog, v);
        const float m = learner_margin(l, v);
        sum += block_math::vote(vote_rule(stage.vote), l.alpha, m);
    }
    return sum;
}
}  // namespace

float hog_stage_sum(const HogSvmStage& stage, const HogParams& hog, const IntegralHistogram& ih, int x, int y) {
    return stage_sum(stage, hog, ih, x, y);
}

float hog_stage_sum(const HogSvmStage& stage, const HogParams& hog, const GradientPlane& plane, int x, int y) {
    return stage_sum(stage, hog, plane, x, y);
}

namespace {
class HogSvmEvaluator final : public StageEvaluator {
public:
    HogSvmEvaluator(const HogSvmStage& stage, const HogParams& hog) : stage_(stage), hog_(hog) {}
    StageOutcome evaluate(const LevelFeatures& f, int x, int y) const override {
        const float sum = f.hog_from_gradients ? hog_stage_sum(stage_, hog_, f.gradients, x, y)
                                               : hog_stage_sum(stage_, hog_, f.hog, x, y);
        return {sum - stage_.threshold,
                static_cast<std::uint32_t>(stage_.learners.size())};
    }

private:
    const HogSvmStage& stage_;
    HogParams hog_;  // a copy: the model may move
};
}  // namespace

CpuStageKind hog_svm_cpu_kind() {
    FeatureNeeds needs;
    needs.hog = true;
    return {HogSvmStage::kKind, needs, [](const Stage& s, const CascadeModel& m) -> std::unique_ptr<StageEvaluator> {
                return std::make_unique<HogSvmEvaluator>(s.as<HogSvmStage>(), m.hog);
            }};
}

}  // namespace cascadekit
