#pragma once
// The cascade model: what a trained detector is, independent of how it is stored (io/) or run
// (runtime/). docs/model-file.md documents the file schema that mirrors these types.
// Coordinates of every rectangle in a stage are window pixels, origin at the window's top-left.
#include <cstdint>
#include <string>
#include <vector>

#include "cascadekit/features/block.hpp"
#include "cascadekit/model/stage.hpp"

namespace cascadekit {

struct ModelMetadata {
    std::string training_config;   // the configuration text the trainer ran with
    std::string data_description;  // what it was trained on
    std::string created_utc;       // ISO 8601
    std::string toolkit_version;
    friend bool operator==(const ModelMetadata&, const ModelMetadata&) = default;
};

// The detection window, in pixels at scale 1.
struct WindowShape {
    int width = 64;
    int height = 128;
    friend bool operator==(const WindowShape&, const WindowShape&) = default;
};
// The people detectors' window (INRIA, Dalal & Triggs).
inline constexpr WindowShape kPeopleWindow{64, 128};

// Thread safety: a value; const access from any number of threads.
struct CascadeModel {
    int window_width = kPeopleWindow.width;
    int window_height = kPeopleWindow.height;
    HogParams hog;  // block normalisation of the hog features (used by hog_svm stages)
    std::vector<Stage> stages;
    ModelMetadata metadata;
    WindowShape window() const { return {window_width, window_height}; }
    friend bool operator==(const CascadeModel&, const CascadeModel&) = default;
};

// The distinct features of the stages joined by '+', in reverse alphabetical order: "hog" (only
// hog_svm stages), "lbp" (only waldboost_lbp), "lbp+hog" (both).
std::string feature_family(const CascadeModel& model);

inline constexpr float kMaxEpsilon = 1e6f;  // ε in gray levels of summed magnitude
inline constexpr float kMaxHysClip = 1.0f;  // components of a unit vector never exceed 1

// Checks every invariant the detector relies on: a window of positive size whose area keeps
// integral-histogram sums exact; 1 to kMaxStages stages of 1 to kMaxStageSize learners;
// 0 < ε ≤ kMaxEpsilon; 0 < hys_clip ≤ 1; then each stage's own invariants (StageBase::validate:
// rectangles inside the window in 64-bit arithmetic, values finite and bounded). Throws
// ModelError on the first violation.
void validate_model(const CascadeModel& model);

}  // namespace cascadekit
