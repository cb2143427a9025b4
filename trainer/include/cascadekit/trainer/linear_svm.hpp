#pragma once
// Linear SVM training through LIBLINEAR (L2-regularised L2-loss SVC, primal trust-region Newton
// solver: unlike the dual solvers it draws no random numbers, so results are deterministic and
// calls may run in parallel).
#include <vector>

namespace cascadekit {

struct LinearSvm {
    std::vector<float> weights;  // one per feature
    float bias = 0.0f;           // decision: weights·x − bias >= 0 means positive
};

// features: rows × dims, row-major; labels: +1 / −1 per row; rows: which rows to train on
// (repeats allowed: weighted resampling); C > 0. Requires features.size() == labels.size() × dims
// and every row index < labels.size(). Thread-safe (no shared state). Throws std::runtime_error
// if LIBLINEAR refuses.
LinearSvm train_linear_svm(const std::vector<float>& features, int dims, const std::vector<int>& labels,
                           const std::vector<int>& rows, double C);

}  // namespace cascadekit
