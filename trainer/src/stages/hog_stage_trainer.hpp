#pragma once
// Internal: what the two trainers of hog_svm stages share (hog_svm_trainer.cpp: AdaBoost of block
// SVMs; hog_dense_trainer.cpp: one SVM over every Dalal-Triggs block): the training windows as
// integral-histogram patches, the stage in training, its threshold and its rates.
#include "../window_set.hpp"
#include "cascadekit/model/hog_svm_stage.hpp"
#include "stage_trainers.hpp"

namespace cascadekit {

class HogStageTrainer : public StageTrainer {
public:
    explicit HogStageTrainer(const TrainConfig& cfg) : cfg_(cfg), samples_(cfg.window.width, cfg.window.height, kOrientationBins) {}

    FeatureNeeds needs() const final {
        FeatureNeeds n;
        n.hog = true;
        return n;
    }
    void resize(std::size_t n) final { samples_.resize(n); }
    void store(std::size_t slot, const LevelFeatures& f, int x, int y) final { samples_.store(slot, f.hog, x, y); }
    std::size_t size() const final { return current_.learners.size(); }
    Stage stage() const final { return current_; }
    double detection_rate() const final { return d_; }
    double fp_rate() const final { return f_; }
    float threshold() const final { return current_.threshold; }

protected:
    // The threshold that keeps d_min of the positives, from every sample's stage sum (a nested
    // stage: from the limit at which the detector's test passes it, carried share included, and
    // only the positives the cascade so far keeps count. Counting the others too, with the
    // running score the stages would give them, as a plain stage counts every positive, spends
    // the stage's d_min share on people already lost, and the stages grow: on INRIA 19.5
    // learners per PennFudan window instead of 7.8).
    void set_threshold(const std::vector<float>& sums, const StageContext& ctx) {
        if (running_.empty()) {
            set_d_min_threshold(sums, ctx, cfg_.boosting.d_min, current_.threshold, d_, f_);
            return;
        }
        std::vector<float> limits(sums.size());
        for (std::size_t i = 0; i < sums.size(); ++i) limits[i] = detail::nested_pass_limit(sums[i], current_.carry * running_[i]);
        set_d_min_threshold(limits, ctx, cfg_.boosting.d_min, current_.threshold, d_, f_, &lost_);
    }

    const TrainConfig& cfg_;
    detail::WindowSet samples_;
    HogSvmStage current_;
    double d_ = 0, f_ = 1;
    // Nested stages (boosting.nested, stages after the first): each sample's running score
    // through the cascade so far, as the detector forms it, and 1 for the positives the cascade
    // so far rejects (they weigh nothing and set no threshold). Empty otherwise.
    std::vector<float> running_;
    std::vector<std::uint8_t> lost_;
};

}  // namespace cascadekit
