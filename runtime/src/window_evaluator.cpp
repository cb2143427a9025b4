#include "cascadekit/runtime/window_evaluator.hpp"

#include <stdexcept>
#include <string>

namespace cascadekit {

void compute_level_features(const GrayImage& level, FeatureNeeds needs, LevelFeatures& out) {
    if (needs.hog) out.hog.compute(level);
    if (needs.gray_integral) out.gray.compute(level);
}

CascadeEvaluator::CascadeEvaluator(const CascadeModel& model) : model_(model) {
    stages_.reserve(model_.stages.size());
    for (std::size_t s = 0; s < model_.stages.size(); ++s) {
        const Stage& stage = model_.stages[s];
        const CpuStageKind* kind = find_cpu_stage_kind(stage.kind());
        if (kind == nullptr)
            throw std::invalid_argument(stage_path(s) + ": stage kind '" + std::string(stage.kind()) +
                                        "' has no CPU evaluator in this build");
        needs_ |= kind->needs;
        stages_.push_back(kind->make(stage, model_));
    }
}

WindowOutcome CascadeEvaluator::evaluate(const LevelFeatures& f, int x, int y) const {
    WindowOutcome out;
    float cleared = 0.0f;  // running sum of the passed stages' margins, in stage order (as on the GPU)
    for (std::size_t s = 0; s < stages_.size(); ++s) {
        const StageOutcome o = stages_[s]->evaluate(f, x, y);
        out.weak_evaluated += o.weak_evaluated;
        out.score = o.score;
        if (o.score < 0.0f) {
            out.rejected_at = static_cast<int>(s);
            return out;
        }
        cleared += o.score;
    }
    out.score = cleared;
    return out;
}

WindowOutcome evaluate_window(const CascadeModel& model, const LevelFeatures& features, int x, int y) {
    return CascadeEvaluator(model).evaluate(features, x, y);
}

}  // namespace cascadekit
