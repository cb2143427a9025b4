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
    // The threshold that keeps d_min of the positives, from every sample's stage sum.
    void set_threshold(const std::vector<float>& sums, const StageContext& ctx) {
        set_d_min_threshold(sums, ctx, cfg_.boosting.d_min, current_.threshold, d_, f_);
    }

    const TrainConfig& cfg_;
    detail::WindowSet samples_;
    HogSvmStage current_;
    double d_ = 0, f_ = 1;
};

}  // namespace cascadekit
