#include "cascadekit/eval/calibration.hpp"

#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>

#include "cascadekit/eval/protocols.hpp"
#include "cascadekit/runtime/fusion.hpp"

namespace cascadekit {

namespace {
// The largest float not above t: a box scoring exactly t keeps passing once stored.
float float_at_most(double t) {
    float f = static_cast<float>(t);
    if (static_cast<double>(f) > t) f = std::nextafter(f, -std::numeric_limits<float>::infinity());
    return f;
}

std::string fixed(double v, int digits) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", digits, v);
    return buf;
}
}  // namespace

CalibrationReport calibrate(CascadeModel& model, const AnnotatedImages& set, const std::string& set_description,
                            const ImageLoader& loader, const CalibrationOptions& o) {
    if (!(o.fppi > 0) || !std::isfinite(o.fppi)) throw std::runtime_error("the target FPPI must be a positive number");
    if (set.size() < 2) throw std::runtime_error(set.name() + ": calibrating needs at least 2 images (half choose, half check)");
    OperatingPoint& point = model.operating;
    FullImageOptions fo;
    fo.params = detect_params(point);
    fo.fusion = fusion_params(point);
    fo.pad = decimal_value(point.pad);
    fo.bulk = o.bulk;
    // Faces: windows as they are, matched by their points; others: the model's object box.
    const std::vector<ImageTruth> truth =
        detect_annotated(model, set, fo, loader, o.face_points ? BoxRule(window_box) : box_rule("auto", model));
    std::vector<ImageTruth> choose, check;
    for (std::size_t i = 0; i < truth.size(); ++i) (i % 2 == 0 ? choose : check).push_back(truth[i]);
    const MatchRule match = o.face_points ? face_points_match() : iou_match();

    const std::vector<CurvePoint> curve = fppi_curve(choose, match);
    const double t = threshold_at(curve, o.fppi);
    if (!std::isfinite(t))
        throw std::runtime_error("no threshold keeps the false positives at or below " + fixed(o.fppi, 3) + " per image on " +
                                 set.name() + "'s first half: " +
                                 (curve.empty() ? std::string("the model finds nothing there")
                                                : "even the strictest threshold leaves " + fixed(curve.front().fp, 3) +
                                                      " per image (boxes scoring alike; try another fusion or a larger FPPI)"));
    point.threshold = float_at_most(t);
    CalibrationReport r;
    r.threshold = point.threshold;
    r.chosen_on = choose.size();
    r.checked_on = check.size();
    r.on_choose = point_at(choose, point.threshold, match);
    r.on_check = point_at(check, point.threshold, match);
    r.check_log_average_miss_rate = log_average_miss_rate(fppi_curve(check, match));
    point.chosen_on = "threshold for FPPI <= " + fixed(o.fppi, 3) + " on " + std::to_string(r.chosen_on) + " of the " +
                      std::to_string(truth.size()) + " images (1st, 3rd, ...) of " + set_description + "; on the other " +
                      std::to_string(r.checked_on) + ": FPPI " + fixed(r.on_check.fp, 3) + ", miss rate " +
                      fixed(r.on_check.miss_rate, 3);
    return r;
}

}  // namespace cascadekit
