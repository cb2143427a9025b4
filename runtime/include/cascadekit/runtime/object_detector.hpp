#pragma once
// Image → boxes in one call: the one place where a model's operating point turns a scan's raw
// windows into the boxes a user sees (pad the image, scan it, take the pad off, fuse, drop
// boxes below the threshold, put the object's box inside each window). `cascade detect`, the
// Python module, evaluation and the examples all call it, so that they report the same boxes.
// As dlib's object_detector: "suppresses overlapping detections and reports the results".
//
//   ObjectDetector detector(load_model("people.h5"));      // the model's operating point
//   ObjectResult found = detector.detect(view);              // found.objects[k].box
//
// Coordinates are input pixels of the unpadded image, origin at its top-left corner.
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "cascadekit/runtime/bulk_detector.hpp"
#include "cascadekit/runtime/detector.hpp"
#include "cascadekit/runtime/fusion.hpp"

namespace cascadekit {

// What turns raw windows into boxes. box_settings(point) gives a model's stored values.
struct BoxSettings {
    double pad = 0;          // replicated border on every side, a share of the image height, in [0, 1]
    FusionParams fusion;     // how overlapping windows merge into one box
    double threshold = 0;    // fused boxes scoring below it are dropped (-infinity keeps every box)
    int min_neighbors = 0;   // fused boxes standing for this many raw windows or fewer are dropped
    bool window_boxes = false;  // report the window itself, not the object's box inside it
};

// The box settings a model's operating point names (mean-shift bandwidths at their defaults).
BoxSettings box_settings(const OperatingPoint& point);

// Throws std::invalid_argument naming the bad value: pad outside [0, 1], an NMS IoU outside
// (0, 1], a negative min_neighbors, or min_neighbors without fusion.
void validate(const BoxSettings& settings);

// The pixels of border a pad share gives an image `height` pixels tall.
int pad_pixels(double pad, int height);

// Values that replace single fields of a model's operating point; unset ones keep the model's.
struct PointOverrides {
    std::optional<double> threshold, scale_step, min_scale, pad, nms_iou;
    std::optional<int> stride, level_pad;
    std::optional<std::string> fuse;  // "meanshift", "nms" or "none"
};
OperatingPoint overridden(OperatingPoint point, const PointOverrides& given);

// What a caller may set beyond the model's operating point. Everything defaults to the model's.
struct ObjectOptions {
    PointOverrides point;
    double max_scale = 0;           // largest window scale; 0: no limit
    double min_size = 0;            // smallest window height in input pixels (sets min_scale); 0: the point's
    double max_size = 0;            // largest window height in input pixels (sets max_scale); 0: none
    bool scale_windows = false;     // CPU-only scans: DetectParams says what each does
    bool approximate_hog = false;
    bool approximate_lbp = false;
    FusionParams mean_shift;        // its bandwidths and weights; method and IoU come from the point
    int min_neighbors = 0;
    bool window_boxes = false;
    BulkOptions bulk;               // backend, CUDA device, chunking
};

// A model's operating point with the options applied: the scan and the box settings.
struct Operation {
    DetectParams scan;
    BoxSettings boxes;
};
// Ensures: the result is validated (throws std::invalid_argument or ModelError naming the value).
Operation operation(const CascadeModel& model, const ObjectOptions& options);

// One box a detector reports.
struct FoundObject {
    Box box;           // the object's box inside the window (or the window, with window_boxes)
    Detection window;  // the fused window: its place and size, score and support (raw windows)
};

struct ObjectResult {
    std::vector<FoundObject> objects;  // best first (fusion's order), none below the threshold
    DetectStats stats;                 // of the scan, padding included
    std::size_t raw_windows = 0;       // accepted windows before fusion
};

// The last step alone, for windows found elsewhere (another detector's raw windows): `raw` in
// the padded image's pixels, `pad` its border in pixels; fused for a window_width ×
// window_height window and kept as `settings` say.
std::vector<FoundObject> objects_from_windows(std::vector<Detection> raw, int pad, int window_width, int window_height,
                                              const ObjectBox& object_box, const BoxSettings& settings);

// Thread safety: one call at a time per ObjectDetector (detect() or run()); run() and the
// backends parallelise inside. Results do not depend on the backend or the thread count.
class ObjectDetector {
public:
    // The model's operating point with `options` applied. Validates everything and builds the
    // backend now: a bad model, value or backend throws here.
    explicit ObjectDetector(const CascadeModel& model, const ObjectOptions& options = {});
    // An explicit scan and box settings (evaluation protocols that do not use the stored point).
    ObjectDetector(const CascadeModel& model, const Operation& operation, const BulkOptions& bulk = {});
    ~ObjectDetector();
    ObjectDetector(const ObjectDetector&) = delete;
    ObjectDetector& operator=(const ObjectDetector&) = delete;

    // One image. Requires a valid view (validate(ImageView)). Throws DetectError when no window
    // fits the padded image (naming the image, its border and the pad share), DeviceError when
    // the GPU fails.
    ObjectResult detect(const ImageView& image);
    // The same with other box settings for this call (the scan stays the detector's).
    ObjectResult detect(const ImageView& image, const BoxSettings& boxes);

    // Many images, as BulkDetector::run: `load` gives each unpadded image (from worker threads),
    // `consume` receives its result in input order with that image; `failed` names an image
    // that could not be served (without it the first failure is rethrown as DetectError).
    using Consumer = std::function<void(std::size_t index, ObjectResult&& result, const BulkImage& image, double ms)>;
    BulkTotals run(std::size_t count, const BulkDetector::Loader& load, const Consumer& consume,
                   const BulkDetector::Failure& failed = {});

    const Operation& operation() const;
    const CascadeModel& model() const;
    std::string backend_name() const;

private:
    Operation operation_;
    std::unique_ptr<BulkDetector> bulk_;
};

}  // namespace cascadekit
