#pragma once
// The CPU backend: TBB over the pyramid's levels, several at once (CpuOptions: each level in
// flight with its own images and features), and inside each level over its features, window rows
// and survivors. Output is independent of the number of threads and of the levels in flight:
// each level's windows are merged in level order.
#include <memory>
#include <vector>

#include "cascadekit/features/pyramid.hpp"
#include "cascadekit/runtime/detector.hpp"
#include "cascadekit/runtime/window_evaluator.hpp"

namespace cascadekit {

struct CpuOptions {
    PrefixPlanes prefix_planes = PrefixPlanes::SurvivorBlocks;
    // Pyramid levels detected at once, each in its own storage (its images and feature planes),
    // started in order, the largest first: at most levels_in_flight, and beyond the first only
    // while the levels in flight hold at most level_area_in_flight times the first level's
    // pixels, which bounds the storage to about that many first levels' (a HoG model's integral
    // histograms take 36 bytes a pixel). levels_in_flight 1: one level after another, each
    // parallel inside, whose joins leave threads idle at every small level.
    // experiments/results/cpu-scaling.md measures them. levels_in_flight >= 1; area >= 0.
    int levels_in_flight = 8;
    double level_area_in_flight = 2.0;
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
    struct LevelWork;  // one level in flight's storage: its images and feature planes
    struct LevelRows;  // what one level's rows of windows produced
    void detect_level(const PyramidLevel& level, int index, LevelWork& work, LevelRows& rows) const;

    // Reused between frames: no allocation after the first frame of a size.
    FramePyramid frames_;                           // the frame's gray (and colour) pyramid
    std::vector<std::unique_ptr<LevelWork>> work_;  // as many as were ever in flight at once
    std::vector<LevelWork*> free_;                  // those not in flight
    std::vector<std::unique_ptr<LevelRows>> rows_;  // a level's each
};

}  // namespace cascadekit
