#pragma once
// The evaluation protocols, run through the runtime's BulkDetector: window-level scores on
// held-out crops and negative images (for FPPW and the rejection profile), and full-image
// detections on an annotated set (for FPPI and the log-average miss rate). The CLI parses
// options, calls these and prints; nothing here decodes images (callers pass an ImageLoader).
// Thread safety: each call runs on the calling thread and parallelises inside (TBB); calls may
// run at once from several threads when their loaders may. Results do not depend on the backend
// or the thread count. Errors: a model or scan the detector refuses throws as Detector::create
// does; an image that cannot be loaded or scanned throws DetectError naming it.
#include <cstdint>
#include <vector>

#include "cascadekit/eval/annotated_images.hpp"
#include "cascadekit/eval/curves.hpp"
#include "cascadekit/io/dataset.hpp"
#include "cascadekit/runtime/bulk_detector.hpp"
#include "cascadekit/runtime/detector.hpp"
#include "cascadekit/runtime/fusion.hpp"

namespace cascadekit {

struct WindowScores {
    std::vector<double> positives, negatives;  // cascade_window_score of each window
    std::uint64_t negative_windows = 0;
    DetectStats stats;  // over the negative images
};

// Every held-out positive crop's centred window (mirrored where the crop says so) and every window
// of every negative image (scan as `params` says), scored by cascade_window_score. Positives in
// crop order, negatives in image then scan order: the same for any thread count and backend.
WindowScores score_windows(const CascadeModel& model, const Dataset& test, const DetectParams& params,
                           const BulkOptions& bulk, const ImageLoader& loader);

// How soon a cascade rejects windows, weak classifier by weak classifier (Šochman & Matas' and
// Macenauer's measure for WaldBoost): every window of the images (scanned as `params` says,
// without fusion) evaluated on the CPU, counting the weak classifiers it needed. The k-th weak
// classifier is counted over the whole cascade (a HoG stage's learners all count where a window
// reaches that stage).
struct WeakSurvival {
    std::uint64_t windows = 0;
    std::vector<std::uint64_t> rejected_by;  // [k]: windows rejected by weak classifier k + 1
    std::uint64_t weak_evaluated = 0;
    double mean_weak() const { return windows ? static_cast<double>(weak_evaluated) / static_cast<double>(windows) : 0; }
    // Share of the windows not rejected by the first k weak classifiers.
    double surviving(std::size_t k) const;
};
WeakSurvival weak_survival(const CascadeModel& model, const std::vector<std::filesystem::path>& images,
                           const DetectParams& params, const ImageLoader& loader);

struct FullImageOptions {
    DetectParams params;
    FusionParams fusion;
    double pad = 0;  // replicated border on every side, as a share of the image height (reaches people cut by the frame)
    int upscale_below = 0;  // images less tall than this (pixels) are enlarged 2× (bilinear) before the scan; 0: none
    BulkOptions bulk;  // backend, CUDA device, …
};

// Every image of the set through the detector (padded, fused), each detection turned into the
// object box the window stands for by `to_box` (e.g. person_box), with the set's objects and
// ignore regions: the input of fppi_curve. Annotations are all read first, so a damaged one
// fails before any detection runs. scan, when given, receives the scan's statistics summed over
// the images (windows scanned, weak classifiers evaluated: the mean learners per window of the
// protocol's own windows, padding and enlargement included).
std::vector<ImageTruth> detect_annotated(const CascadeModel& model, const AnnotatedImages& set, const FullImageOptions& options,
                                         const ImageLoader& loader, const BoxRule& to_box, DetectStats* scan = nullptr);

}  // namespace cascadekit
