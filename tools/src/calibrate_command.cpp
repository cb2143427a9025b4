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

#include "cascadekit/eval/calibration.hpp"
#include "cascadekit/eval/protocols.hpp"
#include "cascadekit/io/files.hpp"
#include "cascadekit/io/model_file.hpp"
#include "cascadekit/runtime/fusion.hpp"
#include "commands.hpp"
#include "cascadekit/workflow/image_files.hpp"
#include "inputs.hpp"

namespace cascadekit::tools {

namespace fs = std::filesystem;

void print_calibration(const CalibrationReport& r) {
    std::printf("  chosen on %zu images: FPPI %.3f, miss rate %.3f\n", r.chosen_on, r.on_choose.fp, r.on_choose.miss_rate);
    std::printf("  checked on the other %zu: FPPI %.3f, miss rate %.3f (log-average miss rate there %.4f)\n", r.checked_on,
                r.on_check.fp, r.on_check.miss_rate, r.check_log_average_miss_rate);
}

int run_calibrate(const CalibrateOptions& o) {
    try {
        if (o.annotations.empty() == !o.faces)
            throw std::runtime_error("give the images to calibrate on: --annotations FILE (VOC, COCO, dlib or OpenCV) or --faces");
        if (!(o.fppi > 0) || !std::isfinite(o.fppi)) throw std::runtime_error("--fppi must be a positive number");
        CascadeModel model = load_model(o.model);
        model.operating = overridden(model.operating, o.point);
        validate_model(model);  // the scan given on the command line, in the stored ranges

        std::unique_ptr<AnnotatedImages> set;
        std::string what;
        if (o.faces) {
            set = cmu_mit_faces(o.cmu_mit.empty() ? data_root() / "Faces" / "cmu-mit" : fs::path(o.cmu_mit));
            what = set->name() + " (face points rule)";
        } else {
            AnnotatedSet read = read_annotated_set(o.annotations, o.format, o.object_class, o.images);
            set = annotated_list(fs::path(o.annotations).filename().string(), std::move(read.images));
            what = set->name() + (o.object_class.empty() ? "" : " (class " + o.object_class + ")") + " (IoU >= 0.5)";
        }
        check_writable_file(o.out);
        spdlog::info("scanning {} images of {}", set->size(), set->name());
        CalibrationOptions co;
        co.fppi = o.fppi;
        co.face_points = o.faces;
        co.bulk.backend = o.backend;
        co.bulk.device = o.device;
        const CalibrationReport rep = calibrate(model, *set, what, load_image, co);
        save_model(model, o.out);
        const OperatingPoint& point = model.operating;
        std::printf("%s: threshold %.6g (stride %d, scale step %g, min scale %g, pad %g, fuse %s)\n", o.out.c_str(),
                    decimal_value(point.threshold), point.stride, decimal_value(point.scale_step),
                    decimal_value(point.min_scale), decimal_value(point.pad), point.fuse.c_str());
        print_calibration(rep);
        return kExitOk;
    } catch (const std::exception& e) {
        spdlog::error("{}", e.what());
        return kExitFatal;
    }
}

}  // namespace cascadekit::tools
