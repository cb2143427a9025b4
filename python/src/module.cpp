// The `cascadekit` Python module (pybind11): the runtime, the model file and the trainer from
// Python, with NumPy images in and NumPy boxes out.
//
//   import cascadekit
//   det = cascadekit.Detector("models/inria-hog-cascade.h5", backend="auto")
//   boxes = det.detect(img)          # img: uint8 H×W (gray), H×W×3 (BGR) or H×W×4; any strides
//   # boxes: float64 N×6, rows (x, y, w, h, score, windows), best first after fusion
//
// The GIL is released while a detector or the trainer works, so other Python threads run.
#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <algorithm>
#include <string>

#include "cascadekit/eval/annotated_images.hpp"
#include "cascadekit/eval/calibration.hpp"
#include "cascadekit/eval/protocols.hpp"
#include "cascadekit/io/model_file.hpp"
#include "cascadekit/runtime/detector.hpp"
#include "cascadekit/runtime/object_detector.hpp"
#include "cascadekit/trainer/config.hpp"
#include "cascadekit/trainer/data_selection.hpp"
#include "cascadekit/trainer/trainer.hpp"
#include "cascadekit/workflow/training.hpp"
#include "cascadekit/workflow/image_files.hpp"

namespace py = pybind11;

namespace cascadekit::python {

namespace {

template <class Enum, std::size_t N>
Enum parse_name(const EnumNames<Enum, N>& names, const std::string& text, const char* what) {
    Enum value{};
    if (!names.parse(text, value)) throw py::value_error(std::string(what) + " must be " + names.choices() + ", not '" + text + "'");
    return value;
}

// The array as an ImageView, and the array that owns its pixels (the input itself, or a
// contiguous copy when its pixels are not contiguous within a row, e.g. a[:, ::2]).
struct Pixels {
    py::array owner;
    ImageView view;
};

Pixels pixels_of(const py::array& input, const std::string& order) {
    if (!py::isinstance<py::array_t<std::uint8_t>>(input))
        throw py::type_error("image must be a uint8 array (H×W gray, H×W×3 or H×W×4), not dtype " +
                             py::str(input.dtype()).cast<std::string>());
    if (input.ndim() != 2 && input.ndim() != 3)
        throw py::value_error("image must have 2 (H×W) or 3 (H×W×C) dimensions, not " + std::to_string(input.ndim()));
    const int channels = input.ndim() == 2 ? 1 : static_cast<int>(input.shape(2));
    if (channels != 1 && channels != 3 && channels != 4)
        throw py::value_error("image must have 1, 3 or 4 channels, not " + std::to_string(channels));
    Pixels p{input, {}};
    const bool row_contiguous = input.strides(1) == channels && (input.ndim() == 2 || input.strides(2) == 1) && input.strides(0) > 0;
    if (!row_contiguous) p.owner = py::array_t<std::uint8_t, py::array::c_style | py::array::forcecast>::ensure(input);
    p.view.data = static_cast<const std::uint8_t*>(p.owner.data());
    p.view.height = static_cast<int>(p.owner.shape(0));
    p.view.width = static_cast<int>(p.owner.shape(1));
    p.view.stride = p.owner.strides(0);
    p.view.channels = channels;
    if (order == "bgr") p.view.order = ChannelOrder::BGR;
    else if (order == "rgb") p.view.order = ChannelOrder::RGB;
    else throw py::value_error("order must be 'bgr' or 'rgb', not '" + order + "'");
    return p;
}

py::dict stage_info(const Stage& s) {
    py::dict d;
    d["kind"] = std::string(s.kind());
    d["feature"] = std::string(s.feature());
    d["size"] = s.size();
    return d;
}

py::dict stats_dict(const DetectStats& s) {
    py::dict d;
    d["windows_scanned"] = s.windows_scanned;
    d["windows_accepted"] = s.windows_accepted();
    d["weak_evaluated"] = s.weak_evaluated;
    d["levels"] = s.levels;
    d["rejected_per_stage"] = s.rejected_per_stage;
    return d;
}

CascadeModel model_from(const py::object& model_or_path) {
    if (py::isinstance<CascadeModel>(model_or_path)) return model_or_path.cast<CascadeModel>();
    return load_model(py::str(model_or_path).cast<std::string>());  // a str or a pathlib.Path
}

// Scan options left as None take the model's operating point (Model.operating_point); so do
// detect()'s box options.
class PyDetector {
public:
    PyDetector(const py::object& model, const std::string& backend, std::optional<int> stride, std::optional<double> scale_step,
               std::optional<double> min_scale, double max_scale, int device, std::optional<int> level_pad, bool scale_windows,
               bool approximate_hog, bool approximate_lbp) {
        ObjectOptions o;
        o.point.stride = stride;
        o.point.scale_step = scale_step;
        o.point.min_scale = min_scale;
        o.point.level_pad = level_pad;
        o.max_scale = max_scale;
        o.scale_windows = scale_windows;
        o.approximate_hog = approximate_hog;
        o.approximate_lbp = approximate_lbp;
        o.bulk.backend = parse_name(kBackendNames, backend, "backend");
        o.bulk.device = device;
        detector_ = std::make_unique<ObjectDetector>(model_from(model), o);  // detect() gives the box options each call
    }

    py::array_t<double> detect(const py::array& image, const std::optional<std::string>& fuse, std::optional<double> nms_iou,
                               std::optional<double> threshold, int min_neighbors, const std::string& order,
                               std::optional<double> pad, const std::string& boxes_as) {
        const Pixels px = pixels_of(image, order);
        BoxSettings boxes = box_settings(model().operating);
        if (fuse) boxes.fusion.method = parse_name(kFusionNames, *fuse, "fuse");
        if (nms_iou) boxes.fusion.nms_iou = *nms_iou;
        if (threshold) boxes.threshold = *threshold;
        if (pad) boxes.pad = *pad;
        if (!(boxes.pad >= 0 && boxes.pad <= 1)) throw py::value_error("pad must be in [0, 1] (a share of the image height)");
        if (boxes_as != "object" && boxes_as != "window") throw py::value_error("boxes must be 'object' or 'window', not '" + boxes_as + "'");
        boxes.window_boxes = boxes_as == "window";
        if (min_neighbors < 0) throw py::value_error("min_neighbors must be >= 0");
        if (min_neighbors > 0 && boxes.fusion.method == FusionMethod::None) throw py::value_error("min_neighbors needs fuse='meanshift' or 'nms'");
        boxes.min_neighbors = min_neighbors;
        ObjectResult r;
        {
            py::gil_scoped_release unlocked;
            r = detector_->detect(px.view, boxes);
        }
        last_stats_ = r.stats;
        py::array_t<double> out({static_cast<py::ssize_t>(r.objects.size()), py::ssize_t{6}});
        auto o = out.mutable_unchecked<2>();
        for (std::size_t i = 0; i < r.objects.size(); ++i) {
            const auto k = static_cast<py::ssize_t>(i);
            const FoundObject& f = r.objects[i];
            o(k, 0) = f.box.x, o(k, 1) = f.box.y, o(k, 2) = f.box.w, o(k, 3) = f.box.h;
            o(k, 4) = f.window.score, o(k, 5) = f.window.support;
        }
        return out;
    }

    std::string backend() const { return detector_->backend_name(); }
    const CascadeModel& model() const { return detector_->model(); }
    py::dict last_stats() const { return stats_dict(last_stats_); }

private:
    std::unique_ptr<ObjectDetector> detector_;
    DetectStats last_stats_;
};

// Training events for a Python callable: one dict per event, with the GIL held.
class PyObserver final : public TrainObserver {
public:
    explicit PyObserver(py::object progress) : progress_(std::move(progress)) {}
    void on_round(const RoundReport& r) override {
        send("round", {{"stage", r.stage}, {"round", r.round}, {"detection_rate", r.detection_rate}, {"fp_rate", r.fp_rate},
                       {"seconds", r.seconds}, {"eta_seconds", r.eta_seconds}});
    }
    void on_stage(const StageReport& s) override {
        send("stage", {{"stage", s.stage}, {"learners", s.learners}, {"detection_rate", s.detection_rate},
                       {"fp_rate", s.fp_rate}, {"cascade_fp_rate", s.cascade_fp_rate}, {"negatives", static_cast<double>(s.negatives)}});
    }
    void on_mining(const MiningProgress& m) override {
        send("mining", {{"stage", m.stage}, {"images_done", static_cast<double>(m.images_done)}, {"images", static_cast<double>(m.images)},
                        {"false_positives", static_cast<double>(m.false_positives)}, {"seconds", m.seconds}});
    }
    void on_note(const std::string& text) override {
        if (progress_.is_none()) return;
        py::gil_scoped_acquire locked;
        py::dict d;
        d["event"] = "note";
        d["text"] = text;
        progress_(d);
    }

private:
    void send(const char* event, std::initializer_list<std::pair<const char*, double>> fields) {
        if (progress_.is_none()) return;
        py::gil_scoped_acquire locked;
        py::dict d;
        d["event"] = event;
        for (const auto& [k, v] : fields) d[k] = v;
        progress_(d);
    }
    py::object progress_;
};

py::dict train(const std::filesystem::path& config, const std::filesystem::path& out, bool resume, bool finish, const std::string& backend,
               const py::object& progress) {
    TrainConfig cfg = load_train_config(config.string());
    if (!backend.empty()) cfg.mining.backend = parse_name(kBackendNames, backend, "backend");
    PyObserver observer(progress);
    TrainOptions opt;
    opt.model_out = out;
    opt.resume = resume;
    opt.finish = finish;
    TrainingRun run;
    {
        py::gil_scoped_release unlocked;
        const Dataset data = training_dataset(cfg, data_root(), [&](const std::string& n) { observer.on_note(n); });
        run = train_model(cfg, data, data_root(), load_image, opt, observer);
    }
    const TrainSummary& s = run.summary;
    py::dict d;
    // Annotated data, as cascade train: the finished model's threshold chosen on its held-out images.
    if (run.threshold) {
        d["threshold"] = decimal_value(run.threshold->threshold);
        d["held_out_fppi"] = run.threshold->on_check.fp;
        d["held_out_miss_rate"] = run.threshold->on_check.miss_rate;
    } else if (!run.no_threshold.empty()) {
        d["threshold_error"] = run.no_threshold;
    }
    d["stages"] = s.stages;
    d["learners"] = s.learners;
    d["cascade_fp_rate"] = s.cascade_fp_rate;
    d["seconds"] = s.seconds;
    d["peak_memory_mb"] = s.peak_memory_mb;
    d["finished"] = s.finished;
    d["stop_reason"] = s.stop_reason;
    return d;
}

// cascade eval --annotations, from Python: the same figures, as a dict.
py::dict evaluate(const py::object& model_or_path, const std::filesystem::path& annotations, const std::string& format,
                  const std::string& object_class, const py::object& images, int stride, double scale_step,
                  double min_scale, double pad, const std::string& fuse, double nms_iou, const std::string& box,
                  const std::string& backend) {
    const CascadeModel model = model_from(model_or_path);
    const AnnotationFormat f = annotation_format(format, annotations);
    const BoxRule to_box = box_rule(box, model);
    if (!to_box) throw py::value_error("box must be auto, window or person, not '" + box + "'");
    AnnotationOptions ao;
    ao.label = object_class;
    if (!images.is_none()) ao.images = py::str(images).cast<std::string>();  // a str or a pathlib.Path
    FullImageOptions fo;
    fo.params.stride = stride;
    fo.params.scale_step = scale_step;
    fo.params.min_scale = min_scale;
    validate(fo.params);
    fo.fusion.method = parse_name(kFusionNames, fuse, "fuse");
    fo.fusion.nms_iou = nms_iou;
    fo.pad = pad;
    fo.bulk.backend = parse_name(kBackendNames, backend, "backend");
    std::vector<ImageTruth> truth;
    {
        py::gil_scoped_release unlocked;
        const auto set = annotation_file_images(annotations, f, ao, annotations.filename().string());
        truth = detect_annotated(model, *set, fo, load_image, to_box);
    }
    const FppiReport rep = fppi_report(truth);
    py::array_t<double> points({static_cast<py::ssize_t>(rep.curve.size()), py::ssize_t{3}});
    auto p = points.mutable_unchecked<2>();
    for (std::size_t i = 0; i < rep.curve.size(); ++i) {
        const auto k = static_cast<py::ssize_t>(i);
        p(k, 0) = rep.curve[i].fp, p(k, 1) = rep.curve[i].miss_rate, p(k, 2) = rep.curve[i].threshold;
    }
    py::dict rates;
    for (int fp : {10, 50, 100}) rates[py::int_(fp)] = rep.detection_rate_at(fp);
    py::dict d;
    d["images"] = rep.images;
    d["objects"] = rep.objects;
    d["log_average_miss_rate"] = rep.log_average_miss_rate;
    d["miss_rate_at_0.1_fppi"] = rep.miss_rate_at_0_1;
    d["miss_rate_at_1_fppi"] = rep.miss_rate_at_1;
    d["ap50"] = rep.ap50;
    d["detection_rate_at"] = rates;
    py::list sizes;  // at 1 FPPI, by object height (as cascade eval --annotations prints)
    for (const SizeBin& b : rep.found_by_height) {
        py::dict bin;
        bin["min_height"] = b.min_height;
        bin["max_height"] = b.max_height;
        bin["objects"] = b.objects;
        bin["found"] = b.found;
        sizes.append(bin);
    }
    d["found_by_height_at_1_fppi"] = sizes;
    d["curve"] = points;
    return d;
}

}  // namespace

namespace {
void bind_model(py::module_& m) {
    py::class_<CascadeModel>(m, "Model", "A trained cascade (load_model, or Detector.model)")
        .def_property_readonly("window", [](const CascadeModel& c) { return py::make_tuple(c.window_width, c.window_height); },
                               "(width, height) of the detection window in pixels")
        .def_property_readonly("feature_family", [](const CascadeModel& c) { return feature_family(c); },
                               "'hog', 'lbp' or 'lbp+hog'")
        .def_property_readonly(
            "stages",
            [](const CascadeModel& c) {
                py::list l;
                for (const Stage& s : c.stages) l.append(stage_info(s));
                return l;
            },
            "one dict per stage: kind ('hog_svm', 'waldboost_lbp'), feature, size (learners)")
        .def_property_readonly("training_config", [](const CascadeModel& c) { return c.metadata.training_config; })
        .def_property_readonly(
            "object_box",
            [](const CascadeModel& c) {
                const ObjectBox& b = c.object_box;
                return py::make_tuple(decimal_value(b.x), decimal_value(b.y), decimal_value(b.w), decimal_value(b.h));
            },
            "where the object's box sits in the window: (x, y, w, h) as fractions of it")
        .def_property_readonly(
            "operating_point",
            [](const CascadeModel& c) {
                const OperatingPoint& o = c.operating;
                py::dict d;
                d["threshold"] = decimal_value(o.threshold);
                d["stride"] = o.stride;
                d["scale_step"] = decimal_value(o.scale_step);
                d["min_scale"] = decimal_value(o.min_scale);
                d["pad"] = decimal_value(o.pad);
                d["level_pad"] = o.level_pad;
                d["fuse"] = o.fuse;
                d["nms_iou"] = decimal_value(o.nms_iou);
                d["chosen_on"] = o.chosen_on;
                return d;
            },
            "how the model is meant to be run (Detector's defaults): threshold, stride, scale_step, min_scale, pad, fuse, "
            "nms_iou, and chosen_on (how the threshold was chosen; empty for the detector's defaults)")
        .def_property_readonly("created_utc", [](const CascadeModel& c) { return c.metadata.created_utc; })
        .def("save", [](const CascadeModel& c, const std::filesystem::path& path) { save_model(c, path); }, py::arg("path"),
             "write the model file (atomically)")
        .def("__repr__", [](const CascadeModel& c) {
            return "<cascadekit.Model " + feature_family(c) + ", " + std::to_string(c.stages.size()) + " stages, window " +
                   std::to_string(c.window_width) + "x" + std::to_string(c.window_height) + ">";
        });
    m.def("load_model", [](const std::filesystem::path& path) { return load_model(path); }, py::arg("path"),
          "Load and verify a model file (raises RuntimeError naming the file and the problem)");
}

void bind_detector(py::module_& m) {
    py::class_<PyDetector>(m, "Detector", "A detector for one model: CPU (TBB) or CUDA backend, the same detections")
        .def(py::init<const py::object&, const std::string&, std::optional<int>, std::optional<double>, std::optional<double>,
                      double, int, std::optional<int>, bool, bool, bool>(),
             py::arg("model"), py::arg("backend") = "auto", py::arg("stride") = py::none(), py::arg("scale_step") = py::none(),
             py::arg("min_scale") = py::none(), py::arg("max_scale") = 0.0, py::arg("device") = 0, py::arg("level_pad") = py::none(),
             py::arg("scale_windows") = false, py::arg("approximate_hog") = false, py::arg("approximate_lbp") = false,
             "model: a path or a Model; backend: 'auto' (CUDA when present), 'cpu' or 'cuda'; stride: window step in level "
             "pixels; scale_step: ratio of pyramid scales; min_scale below 1 upscales; max_scale 0 = no limit. stride, "
             "scale_step and min_scale left None are the model's operating point (Model.operating_point); level_pad: level "
             "pixels of replicated border around every pyramid level (as cascade detect --pad-level); scale_windows: "
             "resample only the octaves and scan the levels between them with the model scaled (as cascade detect "
             "--scale-windows: faster on the CPU, approximate features between octaves; the CPU backend only); "
             "approximate_hog: HoG histograms computed at the octaves only and interpolated for the levels from them "
             "(as cascade detect --approximate-hog: faster on the CPU, about as accurate; the CPU backend only; not with "
             "scale_windows); approximate_lbp: the levels' LBP stages scanned on their octaves' gray integral "
             "images with their cells scaled (as cascade detect --approximate-lbp; alone or with approximate_hog; the CPU "
             "backend only; not with scale_windows)")
        .def("detect", &PyDetector::detect, py::arg("image"), py::arg("fuse") = py::none(), py::arg("nms_iou") = py::none(),
             py::arg("threshold") = py::none(), py::arg("min_neighbors") = 0, py::arg("order") = "bgr", py::arg("pad") = py::none(),
             py::arg("boxes") = "object",
             "Detect on a uint8 image: H×W gray, H×W×3 or H×W×4 (order 'bgr' or 'rgb'), any strides. Returns a float64 "
             "array N×6 of (x, y, w, h, score, windows) in input pixels, windows being the raw windows a box stands for. "
             "boxes: 'object' (the object's box inside each window, Model.object_box) or 'window'. fuse: 'meanshift', "
             "'nms' (greedy, nms_iou) or 'none' (every accepted window). threshold: boxes scoring below it are dropped "
             "after fusion, as are those standing for min_neighbors other windows or fewer; pad: replicated border, a "
             "share of the image height. fuse, nms_iou, threshold and pad left None are the model's operating point "
             "(as cascade detect)")
        .def_property_readonly("backend", &PyDetector::backend, "'cpu' or 'cuda'")
        .def_property_readonly("model", &PyDetector::model)
        .def_property_readonly("last_stats", &PyDetector::last_stats,
                               "the last detect()'s windows scanned and accepted, weak learners evaluated, levels, and "
                               "windows rejected by each stage");
}

void bind_functions(py::module_& m) {
    m.def("evaluate", &evaluate, py::arg("model"), py::arg("annotations"), py::arg("format") = "auto",
          py::arg("object_class") = "", py::arg("images") = py::none(), py::arg("stride") = 8,
          py::arg("scale_step") = 1.2, py::arg("min_scale") = 1.0, py::arg("pad") = 0.25, py::arg("fuse") = "nms",
          py::arg("nms_iou") = 0.5, py::arg("box") = "auto", py::arg("backend") = "auto",
          "Detect on an annotated set (PASCAL VOC, COCO, dlib imglab or opencv_annotation; format 'auto' tells them "
          "apart) and score it as `cascade eval --annotations`: a dict with images, objects, log_average_miss_rate, "
          "miss_rate_at_0.1_fppi, miss_rate_at_1_fppi, ap50, detection_rate_at {10, 50, 100}, found_by_height_at_1_fppi "
          "(objects and found under 50, 50-100, 100-200 and from 200 px) and curve (N×3: FPPI, miss rate, score threshold)");
    m.def("train", &train, py::arg("config"), py::arg("out"), py::arg("resume") = false, py::arg("finish") = false,
          py::arg("backend") = "", py::arg("progress") = py::none(),
          "Train from a YAML configuration (configs/README.md) into the model file `out`, as `cascade train` does (data "
          "from $CASCADEKIT_DATA). progress: a callable given one dict per event ('round', 'stage', 'mining', 'note'). "
          "Returns a summary dict; with annotated data (data.layout: annotated) and a held-out part also threshold, "
          "held_out_fppi and held_out_miss_rate: the threshold chosen on the held-out images and stored in the model.");
}
}  // namespace

PYBIND11_MODULE(cascadekit, m) {
    m.doc() = "cascadekit: boosted rejection cascades (HoG-block SVMs, WaldBoost LBP) for object detection";
    m.attr("__version__") = CASCADEKIT_VERSION;
    bind_model(m);
    bind_detector(m);
    bind_functions(m);
}

}  // namespace cascadekit::python
