// cascade calibrate: chooses a model's operating point (the score threshold, with the scan and
// fusion it holds for) on annotated images and writes the model with it, so that `detect`, eval
// and the Python module run it that way by default.
//
// The threshold is chosen on half of the images (the 1st, 3rd, 5th, …) as the loosest at which
// the false positives per image stay at most --fppi; the other half checks it: its FPPI and miss
// rate at that threshold are printed and stored in the model's note (`chosen_on`).
#include <spdlog/spdlog.h>

#include <cmath>
#include <cstdio>
#include <limits>

#include "cascadekit/eval/protocols.hpp"
#include "cascadekit/io/files.hpp"
#include "cascadekit/io/model_file.hpp"
#include "cascadekit/runtime/fusion.hpp"
#include "commands.hpp"
#include "image_files.hpp"
#include "inputs.hpp"

namespace cascadekit::tools {

namespace {
namespace fs = std::filesystem;

// The largest float not above t: a detection scoring exactly t keeps passing once stored.
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

OperatingPoint calibrated_scan(const CalibrateOptions& o, const CascadeModel& model) {
    OperatingPoint p = model.operating;
    if (o.stride) p.stride = *o.stride;
    if (o.scale_step) p.scale_step = static_cast<float>(*o.scale_step);
    if (o.min_scale) p.min_scale = static_cast<float>(*o.min_scale);
    if (o.pad) p.pad = static_cast<float>(*o.pad);
    if (o.fuse) p.fuse = *o.fuse;
    if (o.nms_iou) p.nms_iou = static_cast<float>(*o.nms_iou);
    return p;
}

int run_calibrate(const CalibrateOptions& o) {
    try {
        if (o.annotations.empty() == !o.faces)
            throw std::runtime_error("give the images to calibrate on: --annotations FILE (VOC, COCO, dlib or OpenCV) or --faces");
        if (!(o.fppi > 0) || !std::isfinite(o.fppi)) throw std::runtime_error("--fppi must be a positive number");
        CascadeModel model = load_model(o.model);
        OperatingPoint point = calibrated_scan(o, model);
        model.operating = point;
        validate_model(model);  // the scan given on the command line, in the stored ranges

        std::unique_ptr<AnnotatedImages> set;
        std::string what;
        if (o.faces) {
            set = cmu_mit_faces(o.cmu_mit.empty() ? data_root() / "Faces" / "cmu-mit" : fs::path(o.cmu_mit));
            what = set->name() + " (face points rule)";
        } else {
            AnnotatedSet read = read_annotated_set(o.annotations, o.format, o.object_class, o.images);
            std::vector<AnnotatedImage> listed;
            for (AnnotatedFile& f : read.images) listed.push_back({std::move(f.image), std::move(f.objects), std::move(f.ignore), {}});
            set = annotated_list(fs::path(o.annotations).filename().string(), std::move(listed));
            what = set->name() + (o.object_class.empty() ? "" : " (class " + o.object_class + ")") + " (IoU >= 0.5)";
        }
        if (set->size() < 2) throw std::runtime_error(set->name() + ": calibrating needs at least 2 images (half choose, half check)");
        check_writable_file(o.out);

        FullImageOptions fo;
        fo.params = detect_params(point);
        fo.fusion = fusion_params(point);
        fo.pad = decimal_value(point.pad);
        fo.bulk.backend = o.backend;
        fo.bulk.device = o.device;
        spdlog::info("scanning {} images of {} (stride {}, scale step {}, min scale {}, pad {}, fuse {})", set->size(), set->name(),
                     point.stride, decimal_value(point.scale_step), decimal_value(point.min_scale), decimal_value(point.pad),
                     point.fuse);
        // Faces: windows as they are, matched by the face points; others: the model's object box.
        const std::vector<ImageTruth> truth =
            detect_annotated(model, *set, fo, load_gray, o.faces ? BoxRule(window_box) : box_rule("auto", model));
        std::vector<ImageTruth> choose, check;
        for (std::size_t i = 0; i < truth.size(); ++i) (i % 2 == 0 ? choose : check).push_back(truth[i]);
        const MatchRule match = o.faces ? face_points_match() : iou_match();

        const std::vector<CurvePoint> curve = fppi_curve(choose, match);
        const double t = threshold_at(curve, o.fppi);
        if (!std::isfinite(t))
            throw std::runtime_error(
                "no threshold keeps the false positives at or below " + fixed(o.fppi, 3) + " per image on " + set->name() +
                "'s first half: " +
                (curve.empty() ? std::string("the model finds nothing there")
                               : "even the strictest threshold leaves " + fixed(curve.front().fp, 3) +
                                     " per image (boxes scoring alike; try another --fuse or a larger --fppi)"));
        point.threshold = float_at_most(t);
        const CurvePoint on_choose = point_at(choose, point.threshold, match);
        const CurvePoint on_check = point_at(check, point.threshold, match);
        const double check_lamr = log_average_miss_rate(fppi_curve(check, match));
        point.chosen_on = "threshold for FPPI <= " + fixed(o.fppi, 3) + " on " + std::to_string(choose.size()) + " of the " +
                          std::to_string(truth.size()) + " images (1st, 3rd, ...) of " + what + "; on the other " +
                          std::to_string(check.size()) + ": FPPI " + fixed(on_check.fp, 3) + ", miss rate " +
                          fixed(on_check.miss_rate, 3);
        model.operating = point;
        save_model(model, o.out);
        std::printf("%s: threshold %.6g (stride %d, scale step %g, min scale %g, pad %g, fuse %s)\n", o.out.c_str(),
                    decimal_value(point.threshold), point.stride, decimal_value(point.scale_step),
                    decimal_value(point.min_scale), decimal_value(point.pad), point.fuse.c_str());
        std::printf("  chosen on %zu images: FPPI %.3f, miss rate %.3f\n", choose.size(), on_choose.fp, on_choose.miss_rate);
        std::printf("  checked on the other %zu: FPPI %.3f, miss rate %.3f (log-average miss rate there %.4f)\n", check.size(),
                    on_check.fp, on_check.miss_rate, check_lamr);
        return kExitOk;
    } catch (const std::exception& e) {
        spdlog::error("{}", e.what());
        return kExitFatal;
    }
}

}  // namespace cascadekit::tools
