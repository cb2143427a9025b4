#pragma once
// CPU evaluation of hog_svm stages: the definitions that detection and training share, so both
// see bit-identical margins and sums (block_math.hpp: float, dimension order, no fused multiply-add).
#include "cascadekit/features/block.hpp"
#include "cascadekit/features/block_math.hpp"
#include "cascadekit/features/integral_histogram.hpp"
#include "cascadekit/model/hog_svm_stage.hpp"

namespace cascadekit {

// A learner's SVM margin m = weights·v − bias, in float, in dimension order.
inline float learner_margin(const HogLearner& l, const BlockDescriptor& v) {
    return block_math::margin(l.weights.data(), l.bias, v.data());
}

// Sum of a hog_svm stage on the window at (x, y): Σ α·[m ≥ 0] (binary) or Σ α·m (margin) with
// m = w·x − b over the stage's learners, in learner order, float arithmetic.
float hog_stage_sum(const HogSvmStage& stage, const HogParams& hog, const IntegralHistogram& ih, int x, int y);
// The same from a level's gradient plane (bit-identical).
float hog_stage_sum(const HogSvmStage& stage, const HogParams& hog, const GradientPlane& plane, int x, int y);

// The largest grid (pixels) that every cell corner of every hog_svm learner of the model lies on:
// the greatest common divisor of their blocks' x, y, w / 2 and h / 2 (block_pool.hpp's zhu-gridG
// pools give G or a multiple of it; Zhu's own pool usually 1). 0 when the model has no HoG
// learner. A detector whose window positions are multiples of G may read the blocks from an
// integral histogram on that grid (IntegralHistogram::compute): the same sums from 1/G² of the points.
int hog_block_grid(const CascadeModel& model);
// The grid a scan at `stride` may keep the model's integral histograms on: the greatest common
// divisor of hog_block_grid and the stride (window positions are multiples of the stride), at
// least 1. CpuOptions::grid_histograms uses it as it is; the CUDA backend takes 4 or 2 of it.
int hog_scan_grid(const CascadeModel& model, int stride);

}  // namespace cascadekit
