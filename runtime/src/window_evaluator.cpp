#include "cascadekit/runtime/window_evaluator.hpp"

#include <stdexcept>
#include <string>

namespace cascadekit {

void compute_level_features(const GrayImage& level, FeatureNeeds needs, LevelFeatures& out) {
    if (needs.hog) {
        out.hog.compute(level);
        out.hog_from_gradients = false;
    }
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
    FeatureNeeds so_far;
    for (std::size_t s = 0; s < model_.stages.size(); ++s) {
        FeatureNeeds with = so_far;
        with |= find_cpu_stage_kind(model_.stages[s].kind())->needs;
        if (with == needs_) {
            prefix_ = s;
            prefix_needs_ = s > 0 ? so_far : needs_;
            break;
        }
        so_far = with;
    }
}

bool CascadeEvaluator::evaluate_stages(const LevelFeatures& f, int x, int y, std::size_t begin, std::size_t end,
                                       WindowProgress& p) const {
    // The running sum of the passed stages' margins, in stage order (as on the GPU).
    for (std::size_t s = begin; s < end; ++s) {
        const StageOutcome o = stages_[s]->evaluate(f, x, y);
        p.outcome.weak_evaluated += o.weak_evaluated;
        p.outcome.score = o.score;
        if (o.score < 0.0f) {
            p.outcome.rejected_at = static_cast<int>(s);
            return false;
        }
        p.cleared += o.score;
    }
    return true;
}

WindowOutcome CascadeEvaluator::evaluate(const LevelFeatures& f, int x, int y) const {
    WindowProgress p;
    return evaluate_stages(f, x, y, 0, stages_.size(), p) ? finish(p) : p.outcome;
}

WindowOutcome evaluate_window(const CascadeModel& model, const LevelFeatures& features, int x, int y) {
    return CascadeEvaluator(model).evaluate(features, x, y);
}

}  // namespace cascadekit
