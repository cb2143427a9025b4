#pragma once
// The cascade model: what a trained detector is, independent of how it is stored (io/) or run
// (runtime/). docs/model-file.md documents the file schema that mirrors these types.
// Coordinates of every rectangle in a stage are window pixels, origin at the window's top-left.
#include <cstdint>
#include <string>
#include <vector>

#include "cascadekit/features/block.hpp"
#include "cascadekit/features/geometry.hpp"
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

// Where the object's box sits inside the detection window, as fractions of the window's width and
// height: a detection window (x, y, w, h) stands for the box (x + bx·w, y + by·h, bw·w, bh·h).
// {0, 0, 1, 1}: the box is the window (faces). People windows (INRIA): a person 3/4 of the window
// tall, centred, 0.38 as wide as tall: kPeopleObjectBox.
struct ObjectBox {
    float x = 0, y = 0, w = 1, h = 1;
    friend bool operator==(const ObjectBox&, const ObjectBox&) = default;
};
inline constexpr ObjectBox kPeopleObjectBox{0.215f, 0.125f, 0.57f, 0.75f};
// The object's box in a detection window (x, y, w, h) of input pixels.
inline Box object_in_window(const ObjectBox& b, double x, double y, double w, double h) {
    return {x + b.x * w, y + b.y * h, b.w * w, b.h * h};
}
// The detection window (x, y, w, h) whose object box is `object` (the inverse).
inline Box window_of_object(const ObjectBox& b, const Box& object) {
    const double w = object.w / b.w, h = object.h / b.h;
    return {object.x - b.x * w, object.y - b.y * h, w, h};
}

// How the model is meant to be run (schema 3): the scan, the fusion of windows into boxes and the
// score threshold on those boxes, chosen together on held-out data (`cascade calibrate`). The
// detector's tools and the Python module use them unless told otherwise. Models of schema 2 read
// with these defaults (threshold 0: every box; chosen_on empty).
inline constexpr const char* kFuseNames[] = {"meanshift", "nms", "none"};
struct OperatingPoint {
    float threshold = 0;       // boxes (after fusion) scoring below are dropped
    std::int32_t stride = 8;   // window step in level pixels
    float scale_step = 1.2f;   // ratio between pyramid levels
    float min_scale = 1;       // smallest window scale (< 1 upscales)
    float pad = 0;             // replicated border on every side, a share of the image height
    std::int32_t level_pad = 0;  // level pixels of replicated border around every pyramid level
    std::string fuse = "meanshift";  // kFuseNames
    float nms_iou = 0.5f;      // with fuse nms
    std::string chosen_on;     // how the point was chosen (data, target), for people reading the file
    friend bool operator==(const OperatingPoint&, const OperatingPoint&) = default;
};

// A stored float as the double of its shortest decimal form (1.2f → 1.2, not
// 1.2000000476837158): how the operating point's values reach the detector and its reports.
double decimal_value(float v);

// Thread safety: a value; const access from any number of threads.
struct CascadeModel {
    int window_width = kPeopleWindow.width;
    int window_height = kPeopleWindow.height;
    HogParams hog;  // block normalisation of the hog features (used by hog_svm stages)
    std::vector<Stage> stages;
    ModelMetadata metadata;
    ObjectBox object_box;
    OperatingPoint operating;
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
// ModelError on the first violation. The object box lies inside the window with positive sides;
// the operating point's values are finite and in the detector's ranges (threshold |t| ≤ 1e6,
// stride 1–256, scale step 1.01–10, min scale 1/16–64, pad 0–1, level pad 0–256, a fusion name,
// IoU in (0, 1]).
void validate_model(const CascadeModel& model);
// The object box and operating point checks of validate_model alone (paths /detect/…).
void validate_detect_settings(const ObjectBox& box, const OperatingPoint& point);

}  // namespace cascadekit
