#pragma once
// The CPU backend: TBB over the pyramid's levels, several at once (a pipeline whose tokens are
// the levels in flight, each with its own images and features), and inside each level over its
// features and window rows. Output is independent of the number of threads and of the levels in
// flight: each level's windows are merged in level order.
#include <memory>
#include <vector>

#include "cascadekit/features/pyramid.hpp"
#include "cascadekit/runtime/detector.hpp"
#include "cascadekit/runtime/window_evaluator.hpp"

namespace cascadekit {

struct CpuOptions {
    PrefixPlanes prefix_planes = PrefixPlanes::SurvivorBlocks;
    // Pyramid levels detected at once, each in its own storage (a level's images and feature
    // planes: the memory of one more level a level in flight). 1: one level after another, each
    // parallel inside, whose fork-joins leave threads idle at every small level. Must be >= 1.
    int levels_in_flight = 4;
};

// Thread safety: as Detector (one detect() at a time per object; it parallelises inside).
class CpuDetector final : public Detector {
public:
    // Validates model and params (ModelError / std::invalid_argument); throws
    // std::invalid_argument naming the stage when a stage kind has no CPU evaluator.
    CpuDetector(CascadeModel model, DetectParams params, CpuOptions options = {});
    ~CpuDetector() override;
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
    struct LevelWork;  // one level in flight: its images, feature planes and rows' results
    void detect_level(const PyramidLevel& level, int index, LevelWork& work) const;

    // Reused between frames: no allocation after the first frame of a size.
    FramePyramid frames_;                           // the frame's gray (and colour) pyramid
    std::vector<std::unique_ptr<LevelWork>> work_;  // levels_in_flight of them, in use or free
    std::vector<LevelWork*> free_;
};

}  // namespace cascadekit
