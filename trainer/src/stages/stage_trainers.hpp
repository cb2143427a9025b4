#pragma once
// Internal: each stage kind's trainer, listed once in stage_trainers.cpp.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "cascadekit/io/byte_codec.hpp"
#include "cascadekit/io/stage_codec.hpp"
#include "cascadekit/trainer/stage_trainer.hpp"

namespace cascadekit {

// A stage trainer's stage from its checkpoint state: decodes a stage record, requires kind S, and
// checks it against the configuration's window and HoG parameters when it holds any learner.
// Throws ByteCodecError (wrong kind, damaged record) or ModelError.
template <class S>
S restore_stage(ByteReader& in, const TrainConfig& cfg) {
    const Stage s = decode_stage(in);
    const S* typed = s.get_if<S>();
    if (typed == nullptr)
        throw ByteCodecError("the stage in training is a " + std::string(s.kind()) + " stage, not " + std::string(S::kKind));
    if (typed->size() > 0) {
        CascadeModel m;
        m.window_width = cfg.window.width;
        m.window_height = cfg.window.height;
        m.hog = cfg.hog;
        typed->validate(m, "the stage in training");
    }
    return *typed;
}

// Sets the stage threshold that keeps d_min of the positives (samples [0, positives) of `sums`,
// then the negatives), and the detection and false-positive rates it gives on these samples.
// With calibration positives (StageContext::calibration) the threshold keeps d_min of the
// training positives and d_min of the calibration ones (the lower of the two thresholds), and
// the detection rate is the lower of the two rates. Positives i with (*skip)[i] != 0 (those the
// cascade so far rejects, for a nested stage) count in neither.
inline void set_d_min_threshold(const std::vector<float>& sums, const StageContext& ctx, double d_min, float& threshold,
                                double& detection_rate, double& fp_rate, const std::vector<std::uint8_t>* skip = nullptr) {
    const std::size_t positives = ctx.positives;
    const auto skipped = [&](std::size_t i) { return skip != nullptr && i < skip->size() && (*skip)[i] != 0; };
    std::vector<float> group[2];  // training, calibration
    for (std::size_t i = 0; i < positives; ++i)
        if (!skipped(i)) group[ctx.calibrates(i) ? 1 : 0].push_back(sums[i]);
    threshold = std::numeric_limits<float>::infinity();
    for (std::vector<float>& pos : group) {
        if (pos.empty()) continue;
        std::sort(pos.begin(), pos.end());
        const auto k = static_cast<std::size_t>(std::floor((1.0 - d_min) * static_cast<double>(pos.size()) + 1e-9));
        threshold = std::min(threshold, pos[std::min(k, pos.size() - 1)]);
    }
    std::size_t kept[2] = {0, 0}, fp = 0;
    for (std::size_t i = 0; i < sums.size(); ++i)
        if (sums[i] >= threshold && !skipped(i)) {
            if (i < positives) ++kept[ctx.calibrates(i) ? 1 : 0];
            else ++fp;
        }
    detection_rate = 1.0;
    for (int g = 0; g < 2; ++g)
        if (!group[g].empty())
            detection_rate = std::min(detection_rate, static_cast<double>(kept[g]) / static_cast<double>(group[g].size()));
    const std::size_t negatives = sums.size() - positives;
    fp_rate = negatives > 0 ? static_cast<double>(fp) / static_cast<double>(negatives) : 0.0;
}

namespace detail {
struct VoteWeight {
    double alpha = 0;  // ≥ 0; 0 when the margins do not agree with the labels at all
    double z = 1;      // Σ w·exp(−α·y·m) at that α
};
// Confidence-rated AdaBoost (Schapire & Singer, 1999) for a weak learner that votes α·m: the α
// that minimises the normaliser Z(α) = Σ_i w_i·exp(−α·y_i·m_i) (convex in α; Newton steps inside
// a bisection bracket). α is capped so that no weight grows by more than e^50 in one round (a
// learner that separates every weighted sample would otherwise take α → ∞).
VoteWeight confidence_rated_alpha(const std::vector<float>& margins, const std::vector<int>& labels,
                                  const std::vector<double>& weights);

// Nested stages (HogSvmStage::carry). The largest float θ at which a window of stage sum `sum`
// passes, its carried share being `carried` (carry × running score, float): the detector's test
// (sum − θ) + carried ≥ 0, each operation rounded. The test is monotone in θ, so a threshold
// passes exactly the windows whose limit is at least it.
float nested_pass_limit(float sum, float carried);
// The weight β ≥ 0 of the running score r as a stage's first weak learner (AdaBoost's vote β·r
// with the best offset): the β minimising log Σ_pos w·exp(−β·r) + log Σ_neg w·exp(β·r) over the
// samples that weigh anything, capped where a weight would grow by e^50.
double running_score_weight(const std::vector<float>& running, const std::vector<int>& labels, const std::vector<double>& weights);
}  // namespace detail

StageTrainerKind hog_svm_trainer_kind();        // stages/hog_svm_trainer.cpp
StageTrainerKind waldboost_lbp_trainer_kind();  // stages/waldboost_lbp_trainer.cpp
StageTrainerKind hog_dense_trainer_kind();      // stages/hog_dense_trainer.cpp

}  // namespace cascadekit
