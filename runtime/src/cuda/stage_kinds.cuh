#pragma once
// Internal (CUDA backend): the seam between the frame's dispatch and a stage kind's kernels. A
// kind gives the features it reads and makes a CudaStage per model stage, which launches that
// stage over the frame's survivors. Kinds are listed once in stage_kinds.cu.
#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string_view>
#include <vector>

#include "cascadekit/model/cascade.hpp"
#include "cascadekit/runtime/cuda_detector.hpp"
#include "cascadekit/runtime/window_evaluator.hpp"
#include "device_types.cuh"

namespace cascadekit::cuda {

// The frame's feature planes the stages read (only those some stage needs are built).
struct FrameFeatures {
    HogPlanes hog{};
    const std::uint32_t* gray = nullptr;  // gray integral images (integral_image_kernels.cuh), level L at L.ih
    const std::uint16_t* gray16 = nullptr;  // or those images modulo 2^16 (Engine::gray16)
    // Instead of hog: gradient planes (a gradient_entry() per pixel, as features' GradientPlane),
    // level L at L.px; hog_svm stages then sum each window's blocks from them.
    const std::uint32_t* gradients = nullptr;
};

// A stage runs as one or more launches ("parts"), each over the survivors of the one before:
// a WaldBoost sequence compacts its survivors at boundaries inside the stage (after 1, 8, 64, …
// weak classifiers), a hog_svm stage is one launch.
class CudaStage {
public:
    virtual ~CudaStage() = default;
    // Weak learners evaluated per window that reaches the stage (for DetectStats); 0 for kinds
    // that count on the device (SurvivorArgs::weak_count), e.g. early rejection inside a stage.
    virtual std::uint32_t weak_per_window() const = 0;
    // Large stages (one warp per window): profiled as "late" stages.
    virtual bool heavy() const = 0;
    virtual int parts() const { return 1; }
    // The stage's weak classifiers done after part `part` (the compaction boundary it ends at).
    virtual std::uint32_t weak_after(int part) const = 0;
    // Enqueues part `part` of the stage over the survivors in `s` (every window when s.in_ids is
    // null). grid_limit: the most blocks a launch over survivors needs (their count is known only
    // on the device), 0 for the frame's first launch (then the grid covers every window).
    virtual void launch(const SurvivorArgs& s, const FrameFeatures& f, int part, int grid_limit, cudaStream_t stream) const = 0;
};

// The model's last stages run as one launch (CudaOptions::hog_tail_from): each window taken
// through stage after stage until one rejects it, recorded and counted as the stages' own
// launches would (the pass count of tail stage j at out_count[j]; the last stage's survivors
// appended at out_count of its last stage). Input: the survivors of the launch before (in_ids).
class CudaTail {
public:
    virtual ~CudaTail() = default;
    virtual void launch(const SurvivorArgs& s, const FrameFeatures& f, int grid_limit, cudaStream_t stream) const = 0;
};

// Where a stage sits and how the detector scans: launch plans that depend on the scan (the
// WaldBoost stage's tiled first launch) are fixed when the stage is made.
struct StageSetting {
    int index = 0;   // the stage's place in the model (0: the frame's first launch is its)
    int stride = 1;  // DetectParams::stride
    bool gray16 = false;  // Engine::gray16: the gray integral images come as FrameFeatures::gray16
};

struct CudaStageKind {
    std::string_view kind;
    FeatureNeeds needs;
    // Copies the stage's data to the current device.
    std::function<std::unique_ptr<CudaStage>(const Stage& stage, const CascadeModel& model, const CudaOptions& options,
                                             const StageSetting& setting)>
        make;
    // Kinds that read gray integral images: whether the stage's features are exact from those
    // images modulo 2^16 (Engine::gray16). Unset for kinds that read none.
    std::function<bool(const Stage& stage)> exact_from_gray16;
};

// nullptr when the CUDA backend has no kernels for that kind.
const CudaStageKind* find_cuda_stage_kind(std::string_view kind);

CudaStageKind hog_svm_cuda_kind();        // hog_svm_kernels.cu
CudaStageKind waldboost_lbp_cuda_kind();  // waldboost_lbp_kernels.cu

// hog_svm_kernels.cu: stages [from, end) as one launch from gradient planes, when they are at
// least two, all hog_svm, each with learners; else nullptr.
std::unique_ptr<CudaTail> make_hog_tail(const std::vector<std::unique_ptr<CudaStage>>& stages, std::size_t from);

}  // namespace cascadekit::cuda
