#include <spdlog/spdlog.h>

#include <cmath>
#include <limits>
#include <fstream>
#include <map>
#include <optional>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cascadekit/io/files.hpp"
#include "cascadekit/io/dataset.hpp"
#include "cascadekit/io/model_file.hpp"
#include "cascadekit/runtime/object_detector.hpp"
#include "cascadekit/eval/protocols.hpp"
#include "cascadekit/trainer/data_selection.hpp"
#include "commands.hpp"
#include "cascadekit/workflow/image_files.hpp"
#include "inputs.hpp"
#include "output_files.hpp"
#include "plot.hpp"

namespace cascadekit::tools {


namespace {
namespace fs = std::filesystem;

nlohmann::json read_json(const std::string& file) {
    const std::string text = read_text_file(file, "JSON file");
    try {
        return nlohmann::json::parse(text);
    } catch (const std::exception& e) {
        throw std::runtime_error(file + ": not valid JSON: " + e.what());
    }
}

// The held-out data of the configuration's split.
Dataset held_out(const TrainConfig& cfg) {
    return held_out_dataset(cfg, data_root(), [](const std::string& n) { spdlog::info("{}", n); });
}

// Another detector's detections (cascade detect's JSON: images[].path, images[].detections[]
// with x, y, w, h, score) on an annotated set, matched to its images by folder and file stem.
// Raw windows (fuse) are fused as `fusion` says, `window` being their size at scale 1; each box
// becomes the object box it stands for by to_box.
std::vector<ImageTruth> truth_from_detections(const AnnotatedImages& set, const std::string& file, bool fuse_raw,
                                              const FusionParams& fusion, WindowShape window,
                                              const BoxRule& to_box) {
    // By folder and stem (CMU+MIT's two folders share no names, but other sets may), else by
    // stem alone where that is unique (the detections may come from a copy in another folder).
    auto folder_stem = [](const fs::path& p) { return p.parent_path().filename().string() + "/" + p.stem().string(); };
    constexpr std::size_t kAmbiguous = static_cast<std::size_t>(-1);
    std::vector<ImageTruth> truth(set.size());
    std::map<std::string, std::size_t> by_folder_stem, by_stem;
    for (std::size_t i = 0; i < set.size(); ++i) {
        const AnnotatedImage a = set.at(i);
        truth[i].people = a.objects;
        truth[i].ignore = a.ignore;
        truth[i].face_points = a.face_points;
        by_folder_stem[folder_stem(a.image)] = i;
        const auto [it, fresh] = by_stem.emplace(a.image.stem().string(), i);
        if (!fresh) it->second = kAmbiguous;
    }
    auto find = [&](const fs::path& p) {
        if (const auto it = by_folder_stem.find(folder_stem(p)); it != by_folder_stem.end()) return it->second;
        const auto it = by_stem.find(p.stem().string());
        return it == by_stem.end() ? kAmbiguous : it->second;
    };
    const auto j = read_json(file);
    std::size_t matched = 0;
    try {
        for (const auto& im : j.at("images")) {
            const std::size_t index = find(im.at("path").get<std::string>());
            if (index == kAmbiguous) continue;
            ++matched;
            std::vector<Detection> raw, dets;
            for (const auto& d : im.at("detections")) {
                Detection det;
                det.x = d.at("x");
                det.y = d.at("y");
                det.w = d.at("w");
                det.h = d.at("h");
                det.score = d.at("score").get<float>();
                det.scale = det.h / window.height;
                raw.push_back(det);
            }
            if (fuse_raw) {
                BoxSettings every;  // fused, every box kept: the curves sweep the threshold
                every.fusion = fusion;
                every.threshold = -std::numeric_limits<double>::infinity();
                every.window_boxes = true;
                dets.clear();
                for (FoundObject& f : objects_from_windows(std::move(raw), 0, window.width, window.height, ObjectBox{}, every))
                    dets.push_back(f.window);
            } else {
                dets = std::move(raw);
            }
            for (const Detection& d : dets) truth[index].detections.push_back({to_box(d.x, d.y, d.w, d.h), d.score});
        }
    } catch (const nlohmann::json::exception& e) {
        throw std::runtime_error(file + ": not a detections file: " + e.what());
    }
    if (matched == 0) throw std::runtime_error(file + ": none of its images is in " + set.name());
    if (matched < set.size())
        spdlog::warn("{}: {} of the {} images of {} have no entry (counted as no detections)", file, set.size() - matched,
                     set.size(), set.name());
    return truth;
}


std::string fixed2(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f", v);
    return buf;
}

std::string csv(const std::vector<CurvePoint>& curve, const char* fp_name) {
    std::ostringstream out;
    out << fp_name << ",miss_rate,threshold\n";
    out.precision(9);
    for (const auto& p : curve) out << p.fp << "," << p.miss_rate << "," << p.threshold << "\n";
    return out.str();
}

// One `cascade eval` run: its options, the model (with --model), and the held-out data, read
// once when an evaluation needs it. Each evaluation the options ask for is one method.
class EvalRun {
public:
    explicit EvalRun(const EvalOptions& o) : o_(o) {
        check_request();
        if (!o.model.empty()) model_ = load_model(o.model);
        params_ = o.scan;
        params_.stride = o.stride;
        params_.scale_step = o.scale_step;
        params_.min_scale = o.min_scale;
        params_.level_pad = o.level_pad;
        validate(params_);
        label_ = o.label.empty() ? (o.model.empty() ? o.window_scores + o.detections : o.model) : o.label;
        check_outputs();
    }

    void run() {
        if (!o_.write_lists.empty()) write_lists();
        if (!o_.fppw.empty() || !o_.rejection.empty()) window_level();
        if (!o_.survival.empty()) survival();
        if (!o_.fppi.empty()) pennfudan();
        if (!o_.faces.empty()) faces();
        if (!o_.annotations.empty()) annotations();
    }

private:
    void check_request() const {
        if (o_.fppw.empty() && o_.rejection.empty() && o_.survival.empty() && o_.fppi.empty() && o_.faces.empty() &&
            o_.annotations.empty() && o_.write_lists.empty())
            throw std::runtime_error(
                "nothing to measure: give one or more of --annotations FILE (any VOC, COCO, dlib or OpenCV annotated set: "
                "miss rate vs FPPI, AP, detection rate), --fppi CSV (PennFudan), --faces CSV (CMU+MIT faces), --fppw CSV "
                "(held-out windows of --config), --rejection CSV, --survival CSV, --write-lists DIR (see cascade eval --help)");
        const int sources = !o_.model.empty() + !o_.window_scores.empty() + !o_.detections.empty();
        if (sources != 1) throw std::runtime_error("give exactly one of --model, --window-scores, --detections");
    }

    // Every output is checked before the (long) evaluation starts; curves to compare with are
    // read (and checked) then too.
    void check_outputs() {
        for (const std::string* out : {&o_.fppw, &o_.rejection, &o_.survival, &o_.fppi, &o_.faces, &o_.curve, &o_.plot})
            if (!out->empty()) check_writable_file(*out);
        if ((!o_.plot.empty() || !o_.compare.empty()) && o_.annotations.empty())
            throw std::runtime_error("--plot and --compare go with --annotations");
        for (const std::string& c : o_.compare) {
            const auto eq = c.find('=');
            if (eq == std::string::npos || eq == 0) throw std::runtime_error("--compare takes NAME=CSV, not '" + c + "'");
            others_.push_back({c.substr(0, eq), read_curve_csv(c.substr(eq + 1))});
        }
        if (!o_.write_lists.empty()) {
            fs::create_directories(o_.write_lists);
            check_writable_file(fs::path(o_.write_lists) / "pennfudan.txt");
        }
    }

    // How --model scans a full-image set (PennFudan, CMU+MIT, --annotations).
    FullImageOptions full_image(double pad) const {
        FullImageOptions fo;
        fo.params = params_;
        fo.fusion = o_.fusion;
        fo.pad = pad;
        fo.upscale_below = o_.upscale_below;
        fo.bulk.backend = o_.backend;
        fo.bulk.device = o_.device;
        return fo;
    }

    // The held-out data of the configuration the model was trained with (stored in it), unless
    // --config says otherwise.
    const Dataset& held_out_set() {
        if (!held_out_data_) {
            if (!o_.config_given && model_ && !model_->metadata.training_config.empty()) {
                spdlog::info("held-out data of the configuration stored in {} (--config overrides it)", o_.model);
                held_out_data_ = held_out(parse_train_config(model_->metadata.training_config, o_.model + " (its stored configuration)"));
            } else {
                held_out_data_ = held_out(load_train_config(o_.config));
            }
        }
        return *held_out_data_;
    }

    void write_lists() {
        const Dataset& test = held_out_set();
        fs::create_directories(o_.write_lists);
        std::string pos, neg, pf;
        for (const auto& p : test.positives) pos += p.path.string() + "\n";
        for (const auto& n : test.negatives) neg += n.string() + "\n";
        const auto pennfudan = pennfudan_images(o_.pennfudan.empty() ? data_root() / "PennFudanPed" : fs::path(o_.pennfudan));
        for (std::size_t i = 0; i < pennfudan->size(); ++i) pf += pennfudan->at(i).image.string() + "\n";
        write_text_atomically(fs::path(o_.write_lists) / "heldout-positives.txt", pos);
        write_text_atomically(fs::path(o_.write_lists) / "heldout-negatives.txt", neg);
        write_text_atomically(fs::path(o_.write_lists) / "pennfudan.txt", pf);
        spdlog::info("wrote held-out and PennFudan lists to {}", o_.write_lists);
    }

    // --fppw and --rejection: the held-out crops' and negative images' window scores.
    void window_level() {
        WindowScores ws;
        if (model_) {
            const Dataset& test = held_out_set();
            spdlog::info("{}: scoring {} held-out positive crops and every window of {} held-out negative images "
                         "(stride {}, scale step {})", label_, test.positives.size(), test.negatives.size(), o_.stride, o_.scale_step);
            BulkOptions bulk;
            bulk.backend = o_.backend;
            bulk.device = o_.device;
            ws = score_windows(*model_, test, params_, bulk, load_image);
        } else if (!o_.window_scores.empty()) {
            const auto j = read_json(o_.window_scores);
            ws.positives = j.at("positives").get<std::vector<double>>();
            ws.negatives = j.at("negatives").get<std::vector<double>>();
            ws.negative_windows = j.at("negative_windows").get<std::uint64_t>();
        } else {
            throw std::runtime_error("--fppw and --rejection need --model or --window-scores");
        }
        if (!o_.fppw.empty()) {
            const auto curve = fppw_curve(ws.positives, ws.negatives, ws.negative_windows);
            write_text_atomically(o_.fppw, csv(curve, "fppw"));
            std::printf("%s: FPPW over %zu positives and %llu negative windows: miss rate %.4f at 1e-4, %.4f at 1e-3 FPPW\n",
                        label_.c_str(), ws.positives.size(), static_cast<unsigned long long>(ws.negative_windows),
                        miss_rate_at(curve, 1e-4), miss_rate_at(curve, 1e-3));
        }
        if (!o_.rejection.empty()) rejection(ws.stats);
    }

    void rejection(const DetectStats& stats) const {
        if (!model_) throw std::runtime_error("--rejection needs --model");
        const auto prof = rejection_profile(*model_, stats);
        std::ostringstream out;
        out << "stage,learners,rejected_so_far,learners_per_window\n";
        std::printf("%s: rejection profile over %llu windows\n  stage  learners  rejected so far  learners/window\n",
                    label_.c_str(), static_cast<unsigned long long>(stats.windows_scanned));
        for (const auto& r : prof) {
            out << r.stage << "," << r.learners << "," << r.rejected_so_far << "," << r.learners_per_window << "\n";
            std::printf("  %5d  %8zu  %15.4f  %15.3f\n", r.stage, r.learners, r.rejected_so_far, r.learners_per_window);
        }
        write_text_atomically(o_.rejection, out.str());
    }

    void survival() {
        if (!model_) throw std::runtime_error("--survival needs --model");
        const Dataset& test = held_out_set();
        spdlog::info("{}: counting the weak classifiers every window of {} held-out negative images needs (CPU)", label_,
                     test.negatives.size());
        const WeakSurvival ws = weak_survival(*model_, test.negatives, params_, load_image);
        std::ostringstream out;
        out << "weak_classifiers,surviving\n";
        out.precision(9);
        for (std::size_t k = 0; k <= ws.rejected_by.size(); ++k) out << k << "," << ws.surviving(k) << "\n";
        write_text_atomically(o_.survival, out.str());
        std::printf("%s: %llu windows of %zu held-out negative images: %.2f weak classifiers per window; surviving",
                    label_.c_str(), static_cast<unsigned long long>(ws.windows), test.negatives.size(), ws.mean_weak());
        // Macenauer's points, then the long sequences' (the share that runs a 1024-table one to its end)
        for (std::size_t k : {1, 8, 64, 256, 1024, 2048})
            if (k <= ws.rejected_by.size()) std::printf(" %.4g%% after %zu", 100 * ws.surviving(k), k);
        std::printf("\n");
    }

    // How much work a full-image scan did (--model only; nothing for given detections): the mean
    // weak classifiers a window over the protocol's own windows (padding, level padding and
    // enlargement included), and the share of them reaching each stage after the first (where that work
    // goes: a stage's learners times that share is its part of the mean).
    void print_scan(const DetectStats& scan, const std::string& set_name) const {
        if (scan.windows_scanned == 0) return;
        std::printf("%s: %sscan: %llu windows, %.2f weak classifiers per window", label_.c_str(),
                    set_name.empty() ? "" : (set_name + " ").c_str(), static_cast<unsigned long long>(scan.windows_scanned),
                    static_cast<double>(scan.weak_evaluated) / static_cast<double>(scan.windows_scanned));
        std::uint64_t left = scan.windows_scanned;
        for (std::size_t s = 0; s + 1 < scan.rejected_per_stage.size(); ++s) {
            left -= std::min(left, scan.rejected_per_stage[s]);
            std::printf("%s %zu: %.1f%%", s == 0 ? "; reaching stage" : ",", s + 2,
                        100.0 * static_cast<double>(left) / static_cast<double>(scan.windows_scanned));
        }
        std::printf("\n");
    }

    // The set's truth and this detector's boxes on it: --model scans it, --detections are read.
    std::vector<ImageTruth> truth_on(const AnnotatedImages& set, double pad, const BoxRule& rule, bool fuse_given,
                                     WindowShape window, const BoxRule& given_rule, const char* option, DetectStats& scan) const {
        if (model_) return detect_annotated(*model_, set, full_image(pad), load_image, rule, &scan);
        if (!o_.detections.empty()) return truth_from_detections(set, o_.detections, fuse_given, o_.fusion, window, given_rule);
        throw std::runtime_error(std::string(option) + " needs --model or --detections");
    }

    void pennfudan() const {
        const fs::path root = o_.pennfudan.empty() ? data_root() / "PennFudanPed" : fs::path(o_.pennfudan);
        const auto set = pennfudan_images(root);
        DetectStats scan_stats;
        // Raw windows in a detections file are people windows at scale 1 (64x128).
        const std::vector<ImageTruth> truth =
            truth_on(*set, o_.pad, person_box, o_.fuse_detections, kPeopleWindow, person_box, "--fppi", scan_stats);
        const FppiReport rep = fppi_report(truth);
        write_text_atomically(o_.fppi, csv(rep.curve, "fppi"));
        // The scan's border, enlargement and level padding: ours (--model) only; detections come as they are.
        const std::string scan = model_ ? "padding " + fixed2(o_.pad) + (o_.level_pad ? ", level padding " + std::to_string(o_.level_pad) : "") +
                                              (o_.upscale_below ? ", under " + std::to_string(o_.upscale_below) + " px enlarged 2x" : "")
                                        : "detections as given";
        std::printf("%s: PennFudan (%zu images, %zu people, %s): log-average miss rate %.4f; miss rate %.4f at 0.1 FPPI, %.4f at 1 FPPI\n",
                    label_.c_str(), rep.images, rep.objects, scan.c_str(), rep.log_average_miss_rate, rep.miss_rate_at_0_1,
                    rep.miss_rate_at_1);
        print_scan(scan_stats, "PennFudan");
    }

    void faces() const {
        const auto set = cmu_mit_faces(o_.cmu_mit.empty() ? data_root() / "Faces" / "cmu-mit" : fs::path(o_.cmu_mit));
        // Detections are taken as the boxes they are: the face-points rule (the default) is
        // fair to any box convention; with --face-match iou the box must be CMU+MIT's own.
        DetectStats scan_stats;
        const std::vector<ImageTruth> truth =
            truth_on(*set, 0, window_box, o_.fuse_detections, WindowShape{24, 24}, window_box, "--faces", scan_stats);
        std::size_t faces = 0;
        for (const ImageTruth& t : truth) faces += t.people.size();
        const bool points = o_.face_match == "points";
        const auto curve = fppi_curve(truth, points ? face_points_match() : iou_match());
        write_text_atomically(o_.faces, csv(curve, "fppi"));
        auto print = [&](const std::vector<CurvePoint>& c, const char* rule) {
            std::printf("%s: %s (%zu images, %zu faces), %s: detection rate", label_.c_str(), set->name().c_str(), truth.size(),
                        faces, rule);
            for (int fp : {10, 31, 50, 65, 78, 95, 167}) std::printf(" %.3f@%d", detection_rate_at(c, truth.size(), fp), fp);
            std::printf(" false positives; log-average miss rate %.4f\n", log_average_miss_rate(c));
        };
        const char* points_rule = "face points rule";
        const char* iou_rule = "IoU >= 0.5 with the boxes";
        print(curve, points ? points_rule : iou_rule);
        print(fppi_curve(truth, points ? iou_match() : face_points_match()), points ? iou_rule : points_rule);
        print_scan(scan_stats, set->name());
    }

    void annotations() {
        AnnotatedSet read = read_annotated_set(o_.annotations, o_.format, o_.object_class, o_.images);
        const AnnotationFormat format = read.format;
        const auto set = annotated_list(fs::path(o_.annotations).filename().string(), std::move(read.images));
        DetectStats scan_stats;
        // Given detections are boxes as they are: cascade detect's JSON, or any detector's in that form.
        const std::vector<ImageTruth> truth =
            truth_on(*set, o_.pad, model_ ? box_rule(o_.box, *model_) : BoxRule(window_box), false, kPeopleWindow, window_box,
                     "--annotations", scan_stats);
        const FppiReport rep = fppi_report(truth);
        if (!o_.curve.empty()) write_text_atomically(o_.curve, csv(rep.curve, "fppi"));
        const std::string cls = o_.object_class.empty() ? "" : ", class " + o_.object_class;
        std::printf("%s: %s (%s, %zu images, %zu objects%s, padding %.2f): log-average miss rate %.4f; miss rate %.4f at "
                    "0.1 FPPI, %.4f at 1 FPPI; AP@0.5 %.4f; detection rate",
                    label_.c_str(), set->name().c_str(), std::string(kAnnotationFormatNames.name(format)).c_str(), rep.images,
                    rep.objects, cls.c_str(), model_ ? o_.pad : 0.0, rep.log_average_miss_rate, rep.miss_rate_at_0_1,
                    rep.miss_rate_at_1, rep.ap50);
        for (int fp : {10, 50, 100}) std::printf(" %.3f@%d", rep.detection_rate_at(fp), fp);
        std::printf(" false positives\n");
        print_scan(scan_stats, "");  // the set's name is on the line above
        print_found_by_height(rep);
        if (!o_.plot.empty()) {
            others_.insert(others_.begin(), NamedCurve{label_, rep.curve});
            write_fppi_plot(o_.plot, set->name() + " (" + std::to_string(rep.images) + " images, " + std::to_string(rep.objects) +
                                         " objects" + cls + ")", others_);
        }
    }

    // Which sizes it finds: at the loosest threshold with at most 1 false positive per image.
    void print_found_by_height(const FppiReport& rep) const {
        std::printf("%s: found at 1 FPPI (score >= %.4g), by object height:", label_.c_str(), rep.threshold_at_1);
        for (const SizeBin& b : rep.found_by_height)
            if (b.objects > 0)
                std::printf(" %s %zu/%zu (%.3f);",
                            (std::isinf(b.max_height) ? ">= " + std::to_string(static_cast<int>(b.min_height)) + " px"
                                                      : std::to_string(static_cast<int>(b.min_height)) + "-" +
                                                            std::to_string(static_cast<int>(b.max_height)) + " px")
                                .c_str(),
                            b.found, b.objects, static_cast<double>(b.found) / static_cast<double>(b.objects));
        std::printf("\n");
    }

    const EvalOptions& o_;
    std::optional<CascadeModel> model_;
    DetectParams params_;
    std::string label_;
    std::vector<NamedCurve> others_;
    std::optional<Dataset> held_out_data_;
};
}  // namespace

int run_eval(const EvalOptions& o) {
    try {
        EvalRun(o).run();
        return kExitOk;
    } catch (const std::exception& e) {
        spdlog::error("{}", e.what());
        return kExitFatal;
    }
}

}  // namespace cascadekit::tools
