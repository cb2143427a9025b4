// CPU evaluation of hog_svm stages: one window, or up to 8 windows side by side (the caller parallelises).
#include "cascadekit/runtime/stages/hog_svm.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <numeric>

#include "cascadekit/features/simd.hpp"
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
// Windows evaluated side by side: enough independent chains to hide the latency of one window's
// 36-term sums, few enough that their descriptors stay in registers and L1.
constexpr int kLanes = 8;

// The stage sums of the windows at (xs[l], y), l < n ≤ L, side by side: per window the
// arithmetic of stage_sum (block_descriptor, block_math's normalisation and margin, the vote),
// operation for operation, so each sum has the bits stage_sum gives it.
// Compiled for AVX2 and for the baseline (CASCADEKIT_SIMD_CLONES; the same floats in the same
// order either way): the lanes' loops are eight floats wide, one AVX2 operation or two SSE ones.
template <int L>
CASCADEKIT_SIMD_CLONES void stage_sums_lanes(const HogSvmStage& stage, const HogParams& hog, const IntegralHistogram& ih, const int* xs, int n, int y,
                      float* sums) {
    const std::uint32_t* origin[L];
    for (int l = 0; l < L; ++l) origin[l] = ih.point(xs[l < n ? l : 0], y);  // spare lanes repeat window 0
    const int rule = vote_rule(stage.vote);
    float sum[L] = {}, m[L];
    alignas(32) float v[kBlockDims][L];
    for (const HogLearner& le : stage.learners) {
        const BlockCorners c = block_corners(le.block, ih.row_stride(), ih.grid());
        int k = 0;
        for (int j = 0; j < 2; ++j)
            for (int i = 0; i < 2; ++i)
                for (int bin = 0; bin < kOrientationBins; ++bin, ++k)
                    for (int l = 0; l < L; ++l) v[k][l] = cell_bin(origin[l], c, i, j, bin);
        block_math::normalise_lanes<L>(v, hog.norm, hog.epsilon, hog.hys_clip);
        block_math::margin_lanes<L>(le.weights.data(), le.bias, v, m);
        for (int l = 0; l < L; ++l) sum[l] += block_math::vote(rule, le.alpha, m[l]);
    }
    for (int l = 0; l < n; ++l) sums[l] = sum[l];
}

class HogSvmEvaluator final : public StageEvaluator {
public:
    HogSvmEvaluator(const HogSvmStage& stage, const HogParams& hog) : stage_(stage), hog_(hog) {}
    StageOutcome evaluate(const LevelFeatures& f, int x, int y) const override {
        const float sum = f.hog_from_gradients ? hog_stage_sum(stage_, hog_, f.gradients, x, y)
                                               : hog_stage_sum(stage_, hog_, f.hog, x, y);
        return outcome(sum);
    }
    void evaluate_row(const LevelFeatures& f, int x0, int step, int count, int y, StageOutcome* out) const override {
        int xs[kLanes];
        for (int c0 = 0; c0 < count; c0 += kLanes) {
            const int n = std::min(kLanes, count - c0);
            for (int l = 0; l < n; ++l) xs[l] = x0 + (c0 + l) * step;
            evaluate_windows(f, xs, n, y, out + c0);
        }
    }
    void evaluate_windows(const LevelFeatures& f, const int* xs, int count, int y, StageOutcome* out) const override {
        if (f.hog_from_gradients) {  // box sums over the gradient plane: one window at a time
            StageEvaluator::evaluate_windows(f, xs, count, y, out);
            return;
        }
        // Groups of 8, the rest by 4 or one at a time (a lane left empty costs as much as a window).
        float sums[kLanes];
        for (int c0 = 0; c0 < count;) {
            const int n = std::min(kLanes, count - c0);
            if (n > kLanes / 2) {
                stage_sums_lanes<kLanes>(stage_, hog_, f.hog, xs + c0, n, y, sums);
            } else if (n > 2) {
                stage_sums_lanes<kLanes / 2>(stage_, hog_, f.hog, xs + c0, n, y, sums);
            } else {
                for (int l = 0; l < n; ++l) sums[l] = hog_stage_sum(stage_, hog_, f.hog, xs[c0 + l], y);
            }
            for (int l = 0; l < n; ++l) out[c0 + l] = outcome(sums[l]);
            c0 += n;
        }
    }

private:
    StageOutcome outcome(float sum) const {
        return {sum - stage_.threshold, static_cast<std::uint32_t>(stage_.learners.size())};
    }

    const HogSvmStage& stage_;
    HogParams hog_;  // a copy: the model may move
};
}  // namespace

int hog_block_grid(const CascadeModel& model) {
    int g = 0;
    for (const Stage& s : model.stages)
        if (const auto* h = s.get_if<HogSvmStage>())
            for (const HogLearner& l : h->learners)
                g = std::gcd(std::gcd(g, std::gcd(l.block.x, l.block.y)), std::gcd(l.block.w / 2, l.block.h / 2));
    return g;
}

int hog_scan_grid(const CascadeModel& model, int stride) { return std::max(1, std::gcd(hog_block_grid(model), stride)); }

CpuStageKind hog_svm_cpu_kind() {
    FeatureNeeds needs;
    needs.hog = true;
    return {HogSvmStage::kKind, needs, [](const Stage& s, const CascadeModel& m) -> std::unique_ptr<StageEvaluator> {
                return std::make_unique<HogSvmEvaluator>(s.as<HogSvmStage>(), m.hog);
            }};
}

}  // namespace cascadekit
