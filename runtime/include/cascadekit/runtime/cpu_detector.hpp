#pragma once
// The CPU backend: TBB over window rows of each pyramid level (levels in order, features of a
// level computed in parallel first). Output is independent of the number of threads.
#include "cascadekit/features/pyramid.hpp"
#include "cascadekit/runtime/detector.hpp"
#include "cascadekit/runtime/window_evaluator.hpp"

namespace cascadekit {

struct CpuOptions {
    PrefixPlanes prefix_planes = PrefixPlanes::SurvivorBlocks;
};

// Thread safety: as Detector (one detect() at a time per object; it parallelises inside).
class CpuDetector final : public Detector {
public:
    // Validates model and params (ModelError / std::invalid_argument); throws
    // std::invalid_argument naming the stage when a stage kind has no CPU evaluator.
    CpuDetector(CascadeModel model, DetectParams params, CpuOptions options = {});
    // Detections in input pixels, ordered by level, then y, then x (the CUDA backend's order too).
    DetectResult detect(const ImageView& image) override;
    std::string backend_name() const override { return "cpu"; }
    const CascadeModel& model() const override { return model_; }
    const DetectParams& params() const override { return params_; }

private:
    CascadeModel model_;
    DetectParams params_;
    CpuOptions options_;
    CascadeEvaluator evaluator_;
    // Reused between frames: no allocation after the first frame of a size.
    FramePyramid frames_;  // the frame's gray (and colour) pyramid
    LevelFeatures features_;
};

}  // namespace cascadekit
