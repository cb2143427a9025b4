#pragma once
// Choosing a model's operating point on annotated images (`cascade calibrate`, and `cascade
// train` on its held-out annotated images): the loosest score threshold whose false positives
// per image stay at most a target on half of the images (the 1st, 3rd, …), checked on the other
// half, at the scan and fusion the model's operating point names.
#include <cstddef>
#include <string>

#include "cascadekit/eval/annotated_images.hpp"
#include "cascadekit/eval/curves.hpp"
#include "cascadekit/io/dataset.hpp"
#include "cascadekit/runtime/bulk_detector.hpp"

namespace cascadekit {

struct CalibrationOptions {
    double fppi = 0.1;        // target false positives per image
    bool face_points = false;  // match faces by their points (CMU+MIT) instead of IoU >= 0.5 with the object box
    BulkOptions bulk;          // backend and device of the scans
};

struct CalibrationReport {
    std::size_t chosen_on = 0, checked_on = 0;  // images of each half
    CurvePoint on_choose, on_check;             // FPPI and miss rate at the chosen threshold
    double check_log_average_miss_rate = 0;     // the check half's whole curve
    float threshold = 0;                        // the threshold chosen (stored in the model)
};

// Sets model.operating.threshold (the largest float not above the chosen score) and its
// chosen_on note (naming `set_description`, the target and the check half's figures). Throws
// std::runtime_error when the set has fewer than 2 images or no threshold meets the target.
CalibrationReport calibrate(CascadeModel& model, const AnnotatedImages& set, const std::string& set_description,
                            const ImageLoader& loader, const CalibrationOptions& options = {});

}  // namespace cascadekit
