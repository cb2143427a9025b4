#include "cascadekit/runtime/window_evaluator.hpp"

#include "cascadekit/features/block.hpp"
#include "cascadekit/features/lbp.hpp"

namespace cascadekit {

float hog_stage_sum(const HogSvmStage& stage, const HogParams& hog, const IntegralHistogram& ih, int x, int y) {
    float sum = 0.0f;
    BlockDescriptor v;
    for (const HogLearner& l : stage.learners) {
        block_descriptor(ih, x, y, l.block, hog, v);
        const float m = learner_margin(l, v);
        sum += block_math::vote(stage.vote == VoteMode::Binary, l.alpha, m);
    }
    return sum;
}

WindowOutcome evaluate_window(const CascadeModel& model, const LevelFeatures& f, int x, int y) {
    WindowOutcome out;
    float cleared = 0.0f;  // running sum of the passed stages' margins, in stage order (as on the GPU)
    for (std::size_t s = 0; s < model.stages.size(); ++s) {
        if (const auto* hog = std::get_if<HogSvmStage>(&model.stages[s])) {
            out.weak_evaluated += static_cast<std::uint32_t>(hog->learners.size());
            out.score = hog_stage_sum(*hog, model.hog, f.hog, x, y) - hog->threshold;
            if (out.score < 0.0f) {
                out.rejected_at = static_cast<int>(s);
                return out;
            }
            cleared += out.score;
        } else {
            const auto& wb = std::get<WaldBoostLbpStage>(model.stages[s]);
            float h = 0.0f;
            bool rejected = false;
            for (const LbpWeakClassifier& c : wb.weak) {
                ++out.weak_evaluated;
                h += c.responses[lbp_code(f.gray, x, y, c.cell)];
                if (h < c.reject_threshold) {
                    out.score = h - c.reject_threshold;
                    rejected = true;
                    break;
                }
            }
            if (!rejected) out.score = h - wb.final_threshold;
            if (rejected || out.score < 0.0f) {
                out.rejected_at = static_cast<int>(s);
                return out;
            }
            cleared += out.score;
        }
    }
    out.score = cleared;
    return out;
}

}  // namespace cascadekit
