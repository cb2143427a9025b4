#pragma once
// Internal: the dense Dalal-Triggs baseline (kind: dense).
#include "cascadekit/trainer/trainer.hpp"

namespace cascadekit::detail {

// One SVM on the 105 blocks' 3780-D concatenation, one round of bootstrapping, stored as one
// `margin` hog_svm stage so that the same detector and evaluation run it. No checkpoints.
TrainSummary train_dense(const TrainConfig& cfg, const Dataset& data, const ImageLoader& loader, const TrainOptions& opt,
                         TrainObserver& obs);

}  // namespace cascadekit::detail
