#pragma once
// Internal: the dense Dalal-Triggs baseline (kind: dense).
#include <vector>

#include "cascadekit/features/geometry.hpp"
#include "cascadekit/model/hog_svm_stage.hpp"
#include "cascadekit/trainer/linear_svm.hpp"
#include "cascadekit/trainer/trainer.hpp"

namespace cascadekit::detail {

// An SVM over the concatenation of `blocks` (36 dimensions each, in order) as a `margin` hog_svm
// stage: one learner per block, α 1, the SVM's bias carried by the first; threshold 0.
HogSvmStage dense_stage(const LinearSvm& svm, const std::vector<Rect>& blocks);

// One SVM on the 105 blocks' 3780-D concatenation, one round of bootstrapping, stored as one
// `margin` hog_svm stage so that the same detector and evaluation run it. No checkpoints.
TrainSummary train_dense(const TrainConfig& cfg, const Dataset& data, const ImageLoader& loader, const TrainOptions& opt,
                         TrainObserver& obs);

}  // namespace cascadekit::detail
