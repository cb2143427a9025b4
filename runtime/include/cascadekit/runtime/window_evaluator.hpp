#pragma once
// Evaluating the cascade on one window of one pyramid level: the single definition of a window's
// score that every backend must reproduce.
#include <cstdint>

#include "cascadekit/features/block.hpp"
#include "cascadekit/features/block_math.hpp"
#include "cascadekit/features/integral_histogram.hpp"
#include "cascadekit/features/integral_image.hpp"
#include "cascadekit/features/model.hpp"

namespace cascadekit {

// Features of one pyramid level; a member is computed only if some stage needs it.
struct LevelFeatures {
    IntegralHistogram hog;  // for hog_svm stages
    IntegralImage gray;     // for waldboost_lbp stages
};

struct WindowOutcome {
    int rejected_at = -1;            // index of the rejecting stage, -1 when every stage passed
    float score = 0;                 // accepted: Σ over stages of (sum − threshold); rejected: that stage's
    std::uint32_t weak_evaluated = 0;
};

// A learner's SVM margin m = weights·v − bias, in float, in dimension order: the one definition
// shared by detection and training so that both see bit-identical margins.
inline float learner_margin(const HogLearner& l, const BlockDescriptor& v) {
    return block_math::margin(l.weights.data(), l.bias, v.data());
}

// Sum of a hog_svm stage on the window at (x, y): Σ α·[m ≥ 0] (binary) or Σ α·m (margin) with
// m = w·x − b over the stage's learners, in learner order, float arithmetic.
float hog_stage_sum(const HogSvmStage& stage, const HogParams& hog, const IntegralHistogram& ih, int x, int y);

// Runs the stages in order on the window whose top-left is (x, y) in level pixels.
// Requires: the window inside the level; the features the model needs computed.
WindowOutcome evaluate_window(const CascadeModel& model, const LevelFeatures& features, int x, int y);

}  // namespace cascadekit
