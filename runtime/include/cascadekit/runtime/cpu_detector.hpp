#pragma once
// The CPU backend: TBB over window rows of each pyramid level (features of a level computed in
// parallel first); the large levels one after another, the small ones (too few rows to keep every
// thread busy) side by side. Output is independent of the number of threads.
#include <memory>
#include <mutex>
#include <vector>

#include "cascadekit/features/pyramid.hpp"
#include "cascadekit/runtime/detector.hpp"
#include "cascadekit/runtime/window_evaluator.hpp"

namespace cascadekit {

struct CpuOptions {
    PrefixPlanes prefix_planes = PrefixPlanes::SurvivorBlocks;
    // Scan the small levels (fewer than 2 window rows a thread) side by side; false: every level
    // in order, each parallel over its rows only (for comparison in `cascade bench detect`).
    bool small_levels_side_by_side = true;
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
    struct LevelWork;    // a level's image, planes and row results
    struct LevelOutput;  // a level's detections and counts
    void detect_level(const PyramidLevel& level, int index, LevelWork& work, LevelOutput& out);
    std::unique_ptr<LevelWork> take_work();
    void give_work(std::unique_ptr<LevelWork> work);

    // Reused between frames: no allocation after the first frame of a size.
    GrayImage gray_;
    Octaves octaves_;  // of gray_, built per frame before the levels read them
    std::mutex pool_mutex_;
    std::vector<std::unique_ptr<LevelWork>> pool_;  // one per level being scanned at once
};

}  // namespace cascadekit
