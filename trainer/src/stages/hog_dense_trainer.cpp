// The hog_dense stage trainer: one linear SVM over every block of the Dalal & Triggs layout
// (CVPR 2005: 105 blocks of 2×2 cells of 8 px, a stride of 8 px, in a 64×128 window; 3780
// dimensions), trained in a single round on the stage's samples, and written as a hog_svm stage
// with a margin vote (one learner per block, the SVM's bias on the first), as `kind: dense` models
// are. Used as a cascade's final stage (`boosting.final_stage: hog_dense`): it sees the windows
// that pass every boosted stage, positives and the hard negatives mined through the cascade, and
// ranks them with the whole window's blocks at once. Its threshold keeps d_min of the positives.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "../dense.hpp"
#include "cascadekit/features/block_math.hpp"
#include "cascadekit/features/block_pool.hpp"
#include "cascadekit/io/stage_codec.hpp"
#include "cascadekit/model/hog_svm_stage.hpp"
#include "cascadekit/runtime/stages/hog_svm.hpp"
#include "cascadekit/trainer/linear_svm.hpp"
#include "hog_stage_trainer.hpp"

namespace cascadekit {

namespace {
class HogDenseTrainer final : public HogStageTrainer {
public:
    explicit HogDenseTrainer(const TrainConfig& cfg)
        : HogStageTrainer(cfg), blocks_(make_block_pool("dalal-triggs", cfg.window.width, cfg.window.height)) {}

    void begin_stage(const StageContext&) override {
        current_ = {};
        d_ = 0;
        f_ = 1;
    }

    RoundResult round(const StageContext& ctx) override {
        RoundResult result;
        result.stage_complete = true;
        if (!current_.learners.empty() || blocks_.empty()) return result;  // one round makes the stage
        const std::size_t count = ctx.samples();
        const int dims = static_cast<int>(blocks_.size()) * kBlockDims;
        std::vector<float> feats(count * static_cast<std::size_t>(dims));
        BlockDescriptor v;
        for (std::size_t i = 0; i < count; ++i)
            for (std::size_t b = 0; b < blocks_.size(); ++b) {
                samples_.descriptor(i, blocks_[b], cfg_.hog, v);
                std::copy(v.begin(), v.end(), feats.begin() + static_cast<std::ptrdiff_t>(i * static_cast<std::size_t>(dims) + b * kBlockDims));
            }
        std::vector<int> labels(count), rows;
        for (std::size_t i = 0; i < count; ++i) {
            labels[i] = i < ctx.positives ? 1 : -1;
            if (!ctx.calibrates(i)) rows.push_back(static_cast<int>(i));  // calibration positives only set the threshold
        }
        current_ = detail::dense_stage(train_linear_svm(feats, dims, labels, rows, cfg_.svm.C), blocks_);
        update_threshold(ctx);
        result.added = true;
        result.progress = 1.0;
        result.note = "stage " + std::to_string(ctx.stage) + ": dense SVM over " + std::to_string(blocks_.size()) + " blocks (" +
                      std::to_string(dims) + "-D) on " + std::to_string(ctx.positives) + " positives and " +
                      std::to_string(ctx.negatives) + " negatives";
        return result;
    }

    void save_state(ByteWriter& out) const override { encode_stage(current_, out); }
    void load_state(ByteReader& in, const StageContext& ctx) override {
        current_ = restore_stage<HogSvmStage>(in, cfg_);
        if (!current_.learners.empty()) update_threshold(ctx);
    }

private:
    // The stage sum of every sample as the detector forms it (hog_stage_sum: float, learner
    // order), and the threshold that keeps d_min of the positives.
    void update_threshold(const StageContext& ctx) {
        std::vector<float> sums(ctx.samples(), 0.0f);
        BlockDescriptor v;
        for (std::size_t i = 0; i < ctx.samples(); ++i)
            for (const HogLearner& l : current_.learners) {
                samples_.descriptor(i, l.block, cfg_.hog, v);
                sums[i] += block_math::vote(block_math::kMarginVote, l.alpha, learner_margin(l, v));
            }
        set_threshold(sums, ctx);
    }

    std::vector<Rect> blocks_;
};
}  // namespace

StageTrainerKind hog_dense_trainer_kind() {
    return {"hog_dense", [](const TrainConfig& cfg) -> std::unique_ptr<StageTrainer> { return std::make_unique<HogDenseTrainer>(cfg); }};
}

}  // namespace cascadekit
