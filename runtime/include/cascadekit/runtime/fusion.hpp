#pragma once
// Fusing overlapping detections (Bilgiç, MIT 2010; Dalal, PhD thesis 2006). Boxes in input
// pixels; pure functions of their input (thread-safe, deterministic: ties keep input order).
#include <cmath>
#include <string>
#include <vector>

#include "cascadekit/runtime/detector.hpp"

namespace cascadekit {

enum class FusionMethod { MeanShift, Nms, None };
inline constexpr EnumNames<FusionMethod, 3> kFusionNames{
    {{{FusionMethod::MeanShift, "meanshift"}, {FusionMethod::Nms, "nms"}, {FusionMethod::None, "none"}}}};
std::string to_string(FusionMethod method);
bool parse_fusion(const std::string& text, FusionMethod& out);

struct FusionParams {
    // Mean shift gives one box per object even where many windows score alike (detect's default);
    // NMS ranks people above clutter better with the cascade's score, the sum of its stage
    // margins (PennFudanPed log-average miss rate 0.59 vs 0.75 for the shipped cascade), so `cascade eval` defaults to NMS.
    FusionMethod method = FusionMethod::MeanShift;
    // Mean-shift bandwidths at scale 1 (Dalal's PhD thesis, 2006): input pixels in x, y;
    // natural-log scale units in s.
    double sigma_x = 8.0;
    double sigma_y = 16.0;
    double sigma_s = std::log(1.3);
    // Point weights t(w): false gives every detection weight 1 (binary cascade decisions); true
    // uses max(score, 0), detections of score 0 then seed no mode.
    bool score_weights = false;
    double nms_iou = 0.5;  // greedy NMS drops a box whose IoU with a kept, better box exceeds this
};

// Mean-shift mode seeking in (centre x, centre y, ln scale). From every detection, iterates
// y ← H_h(y) Σ w̄_i(y) H_i⁻¹ y_i with H_i = diag((e^{s_i}σx)², (e^{s_i}σy)², σs²) and
// w̄_i ∝ t_i |H_i|^{-1/2} exp(−D²(y, y_i; H_i)/2) until it moves less than 1e-4 bandwidths;
// modes within one bandwidth (D² < 1) merge into the denser. A mode becomes a window-sized box
// at its scale; its score is the density Σ t_i exp(−D²/2) (a soft count of supporting windows).
// Output ordered by descending score. level = -1.
std::vector<Detection> fuse_meanshift(const std::vector<Detection>& raw, int window_width, int window_height,
                                      const FusionParams& params);

// Greedy non-maximum suppression by intersection over union; ordered by descending score.
std::vector<Detection> fuse_nms(const std::vector<Detection>& raw, double iou_threshold);

// The fusion a model's operating point names (method and NMS IoU; mean-shift bandwidths at
// their defaults).
FusionParams fusion_params(const OperatingPoint& point);

// Dispatches on params.method (None returns raw unchanged).
std::vector<Detection> fuse(const std::vector<Detection>& raw, int window_width, int window_height,
                            const FusionParams& params);

}  // namespace cascadekit
