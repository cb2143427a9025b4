#pragma once
// The evaluation protocols' arithmetic (Dalal & Triggs, CVPR 2005; Dollár et al., PAMI 2012):
// miss rate vs false positives per window (FPPW), miss rate vs false positives per image (FPPI)
// with the log-average miss rate, and the per-stage rejection profile. Pure computations on
// scores and boxes (protocols.hpp runs detectors to get them). Boxes are in image pixels.
// Thread safety: every function here is a pure function of its arguments.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "cascadekit/features/geometry.hpp"
#include "cascadekit/model/cascade.hpp"
#include "cascadekit/runtime/detector.hpp"

namespace cascadekit {

// A single, monotone window score for any cascade: k + σ(s), where k is the index of the deciding
// stage (the rejecting one, or the last for accepted windows) and s that stage's sum minus its
// threshold; σ is the logistic function. Raising a threshold t through [S−½, S) tightens the last
// stage's threshold; lower values relax it and then, in turn, drop the last stages. For a one-stage
// (e.g. dense SVM) model it is σ(margin).
double cascade_window_score(int stages_passed, float stage_score, int stages);

struct CurvePoint {
    double fp = 0;         // FPPW or FPPI
    double miss_rate = 0;
    double threshold = 0;  // windows/detections with score >= threshold are accepted
};

// Miss rate vs FPPW: positives' scores (one per positive window), negatives' scores (only those
// that can matter need be given), out of negative_windows scanned. Points at distinct negative
// scores, strictest first; of runs of equal miss rate only the first and last are kept.
std::vector<CurvePoint> fppw_curve(std::vector<double> positive_scores, std::vector<double> negative_scores,
                                   std::uint64_t negative_windows);

// The miss rate where the curve's FP rate is at most `fp` (the step curve's value there; 1 if
// no threshold is that strict).
double miss_rate_at(const std::vector<CurvePoint>& curve, double fp);

// The person box a detection window stands for, the same rule for every 64×128 people detector:
// INRIA's windows hold a person about 96 px tall (¾ of the window) centred, and PennFudan's 423
// person boxes are on average 0.38 as wide as tall; so the box keeps the window's centre and is
// 0.75·h tall and 0.285·h wide.
Box person_box(double x, double y, double w, double h);

// A detection window as it is (faces, and any model without a box convention).
inline Box window_box(double x, double y, double w, double h) { return {x, y, w, h}; }

// The box a model's detection windows stand for, by name: "person" (person_box), "window"
// (window_box) or "auto" (the model's object box, CascadeModel::object_box). An empty function
// for another name.
using BoxRule = std::function<Box(double x, double y, double w, double h)>;
BoxRule box_rule(const std::string& name, const CascadeModel& model);

struct ScoredBox {
    Box box;
    double score = 0;
};
// A frontal face's points, in image pixels: the eye centres and the mouth centre.
struct FacePoints {
    double left_eye_x = 0, left_eye_y = 0, right_eye_x = 0, right_eye_y = 0, mouth_x = 0, mouth_y = 0;
};

struct ImageTruth {
    std::vector<Box> people;   // objects to find
    std::vector<Box> ignore;   // regions where a detection counts neither way (crowds, tiny or cut objects)
    std::vector<FacePoints> face_points;  // empty, or one per object (faces)
    std::vector<ScoredBox> detections;
};

// When a detection finds an object: the match's quality (higher is better), or a negative
// number for none.
using MatchRule = std::function<double(const ImageTruth& image, std::size_t object, const Box& detection)>;

// The PASCAL rule: IoU with the object's box at least min_iou; quality is the IoU.
MatchRule iou_match(double min_iou = 0.5);

// Faces by their points, fair to any detector's box convention (a detector's box may run from
// eyebrows or forehead to chin, tight or loose): the detection holds both eyes and the mouth
// centre, the three points' centroid lies in its central half (within w/4 and h/4 of its centre),
// and its size √(w·h) is min_size to max_size times the face's eye-to-mouth distance (the
// midpoint of the eyes to the mouth centre: CMU+MIT's own boxes are 1.2–2.2 times it, median
// 1.7). Quality: the closer the centroid to the box centre, the better. An object without points
// never matches.
MatchRule face_points_match(double min_size = 1.0, double max_size = 4.0);

// Miss rate vs FPPI over images: at each threshold detections are matched greedily by score to
// the unmatched object of best quality under `match`; a detection that matches none but overlaps
// an ignore region with IoU >= ignore_iou is dropped; other unmatched detections are false
// positives.
std::vector<CurvePoint> fppi_curve(const std::vector<ImageTruth>& images, const MatchRule& match = iou_match(),
                                   double ignore_iou = 0.5);

// Detection rate (1 − miss rate) at `false_positives` false positives over `images` images, read
// off an FPPI curve (the classic face-detection ROC points: 10, 31, 50, … false positives).
double detection_rate_at(const std::vector<CurvePoint>& fppi, std::size_t images, double false_positives);

// Average precision at the curve's matching rule, COCO's way: the precision envelope (the best
// precision at any recall at least r) averaged over r = 0, 0.01, …, 1. Precision at a point is
// TP / (TP + FP) with TP = (1 − miss rate)·objects and FP = FPPI·images. 0 without objects.
double average_precision(const std::vector<CurvePoint>& fppi, std::size_t images, std::size_t objects);

// The loosest score threshold at which the curve's FP rate is at most `fp` (+inf when none is).
double threshold_at(const std::vector<CurvePoint>& fppi, double fp);

// One operating point: FPPI and miss rate of the detections scoring at least `threshold` (the
// same greedy matching as fppi_curve; exact where the curve keeps only its plateaus' ends).
CurvePoint point_at(const std::vector<ImageTruth>& images, double threshold, const MatchRule& match = iou_match(),
                    double ignore_iou = 0.5);

// Objects by box height and how many of them a detection scoring at least `threshold` finds
// (the same greedy matching as fppi_curve). Bins: [0, edges[0]), [edges[0], edges[1]), …,
// [edges.back(), ∞); edges ascending.
struct SizeBin {
    double min_height = 0, max_height = 0;
    std::size_t objects = 0, found = 0;
};
std::vector<SizeBin> found_by_height(const std::vector<ImageTruth>& images, double threshold, const std::vector<double>& edges,
                                     const MatchRule& match = iou_match(), double ignore_iou = 0.5);

// Mean of log miss rates at 9 FPPI points evenly spaced in log space over [1e-2, 1], as a miss
// rate (Dollár et al.'s log-average miss rate).
double log_average_miss_rate(const std::vector<CurvePoint>& fppi);

struct StageRejection {
    int stage = 0;                 // 1-based
    std::size_t learners = 0;
    double rejected_so_far = 0;    // share of all windows rejected by stages 1..stage
    double learners_per_window = 0;  // mean weak learners evaluated per window by stages 1..stage
};
// From detector statistics summed over the evaluation images. HoG stages are evaluated whole by
// every window reaching them; for WaldBoost stages the split of their evaluations is unknown, so
// their count is taken from stats.weak_evaluated once at the end.
std::vector<StageRejection> rejection_profile(const CascadeModel& model, const DetectStats& stats);

// What `cascade eval --annotations` and Python's evaluate() report on a detector's boxes: the
// FPPI curve (IoU >= 0.5), its summary figures, and which object heights are found at the
// loosest threshold with at most 1 false positive per image (bins < 50, 50-100, 100-200, >= 200 px).
struct FppiReport {
    std::vector<CurvePoint> curve;
    std::size_t images = 0, objects = 0;
    double log_average_miss_rate = 0, miss_rate_at_0_1 = 0, miss_rate_at_1 = 0, ap50 = 0;
    double threshold_at_1 = 0;
    std::vector<SizeBin> found_by_height;
    double detection_rate_at(double false_positives) const;
};
FppiReport fppi_report(const std::vector<ImageTruth>& images);

}  // namespace cascadekit
