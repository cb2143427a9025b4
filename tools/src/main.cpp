// cascade: train, detect, evaluate, inspect and benchmark boosted rejection cascades.
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <tbb/global_control.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <memory>
#include <optional>
#include <set>

#include "cascadekit/features/block_pool.hpp"
#include "cascadekit/io/image_header.hpp"
#include "commands.hpp"
#include "cascadekit/workflow/image_files.hpp"

using namespace cascadekit;
using namespace cascadekit::tools;

namespace {
std::string joined_command_line(int argc, char** argv) {
    std::string s = "cascade";
    for (int i = 1; i < argc; ++i) s += std::string(" ") + argv[i];
    return s;
}

// Levenshtein distance, for "did you mean" on unknown options.
std::size_t edit_distance(const std::string& a, const std::string& b) {
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diag = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t up = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] != b[j - 1])});
            diag = up;
        }
    }
    return row[b.size()];
}

void collect_option_names(const CLI::App* app, std::set<std::string>& names) {
    for (const CLI::Option* opt : app->get_options()) {
        for (const std::string& n : opt->get_lnames()) names.insert("--" + n);
        for (const std::string& n : opt->get_snames()) names.insert("-" + n);
    }
    for (const CLI::App* sub : app->get_subcommands([](const CLI::App*) { return true; })) collect_option_names(sub, names);
}

// CLI11 checks required options before it reports unexpected ones, so `--modle x.h5` would say
// "--model is required". Every word that looks like an option is checked first, by name.
std::string unknown_option(const CLI::App& app, int argc, char** argv) {
    std::set<std::string> names;
    collect_option_names(&app, names);
    for (int i = 1; i < argc; ++i) {
        std::string arg = argv[i];
        if (arg == "--") break;
        if (arg.size() < 2 || arg[0] != '-') continue;
        if (std::isdigit(static_cast<unsigned char>(arg[1])) || arg[1] == '.') continue;  // a negative number
        if (const auto eq = arg.find('='); eq != std::string::npos) arg.resize(eq);
        if (arg.size() > 2 && arg[1] != '-') arg.resize(2);  // -q3 style short options
        if (names.count(arg)) continue;
        std::string best;
        std::size_t best_d = 3;
        for (const std::string& n : names)
            if (const std::size_t d = edit_distance(arg, n); d < best_d) best_d = d, best = n;
        return "unknown option " + arg + (best.empty() ? "" : " (did you mean " + best + "?)");
    }
    return {};
}

// CLI11 check: a choice from a fixed list.
CLI::IsMember choices(std::vector<std::string> v) { return CLI::IsMember(std::move(v)); }

// --format, --class and --images: how crop, eval and calibrate read an annotated set.
void add_annotation_set_options(CLI::App* app, std::string& format, std::string& object_class, std::string& images,
                                const std::string& prefix) {
    app->add_option("--format", format, prefix + "format: auto (by the file), voc, coco, dlib, opencv")
        ->check(choices({"auto", "voc", "coco", "dlib", "opencv"}))->capture_default_str();
    app->add_option("--class", object_class, prefix + "only objects of this class (VOC name, COCO category, dlib label)");
    app->add_option("--images", images, prefix + "the folder the image names are relative to (default: the format's)");
}

// The operating-point options an app was given (detect, calibrate), from the values CLI11 bound
// them to; a null field is an option the app does not have.
struct PointValues {
    double* threshold;
    int* stride;
    double *scale_step, *min_scale, *pad;
    int* level_pad;
    std::string* fuse;
    double* nms_iou;
};
cascadekit::PointOverrides given_point(CLI::App* app, const PointValues& v) {
    cascadekit::PointOverrides o;
    auto given = [&](const char* name) { return app->get_option(name)->count() > 0; };
    if (v.threshold && given("--threshold")) o.threshold = *v.threshold;
    if (given("--stride")) o.stride = *v.stride;
    if (given("--scale-step")) o.scale_step = *v.scale_step;
    if (given("--min-scale")) o.min_scale = *v.min_scale;
    if (given("--pad")) o.pad = *v.pad;
    if (given("--pad-level")) o.level_pad = *v.level_pad;
    if (given("--fuse")) o.fuse = *v.fuse;
    if (given("--nms-iou")) o.nms_iou = *v.nms_iou;
    return o;
}

// Fusion options shared by detect and eval, so both fuse windows the same way by default.
// from_model: detect, whose --fuse and --nms-iou default to the model's operating point.
void add_fusion_options(CLI::App* app, std::string& fuse, cascadekit::FusionParams& fusion, bool from_model = false) {
    auto* f = app->add_option("--fuse", fuse, std::string("Fusion of overlapping windows: meanshift, nms or none") +
                                                  (from_model ? " (default: the model's operating point)" : ""))
                  ->check(choices({"meanshift", "nms", "none"}));
    auto* iou = app->add_option("--nms-iou", fusion.nms_iou,
                                std::string("IoU above which NMS drops the weaker box") +
                                    (from_model ? " (default: the model's operating point)" : ""));
    if (!from_model) f->capture_default_str(), iou->capture_default_str();
    app->add_option("--sigma-x", fusion.sigma_x, "Mean-shift bandwidth in x at scale 1 (pixels)")->capture_default_str();
    app->add_option("--sigma-y", fusion.sigma_y, "Mean-shift bandwidth in y at scale 1 (pixels)")->capture_default_str();
    app->add_option("--sigma-s", fusion.sigma_s, "Mean-shift bandwidth in ln(scale)")->capture_default_str();
    app->add_flag("--score-weights", fusion.score_weights, "Weight mean-shift points by score instead of 1");
}

// Each subcommand: its options (bound to its fields by add()) and what runs it.

struct DetectCommand {
    DetectOptions det;
    std::string fuse = "meanshift", backend = "auto";
    double upscale = 0.0;
    CLI::App* detect = nullptr;

    void add(CLI::App& parent) {
        detect = parent.add_subcommand("detect", "Detect objects in images, folders, lists of paths or videos");
        detect->add_option("--model", det.model, "Cascade model file (.h5)")->required();
        detect->add_option("INPUT", det.inputs,
                           "Image, folder of images, list file (.txt/.lst, one path a line) or video")->required();
        // Scan, fusion, threshold and pad default to the operating point stored in the model
        // (`cascade inspect` shows it; `cascade calibrate` chooses it on annotated images).
        detect->add_option("--stride", det.params.stride, "Window step in pyramid-level pixels (default: the model's operating point)");
        detect->add_option("--scale-step", det.params.scale_step,
                           "Ratio between pyramid levels, 1.01 to 10 (default: the model's operating point)");
        detect->add_option("--min-scale", det.params.min_scale,
                           "Smallest window scale, >= 1/16; below 1 upscales the input for small objects (default: the model's "
                           "operating point)");
        detect->add_option("--max-scale", det.params.max_scale, "Largest window scale (0 = no limit)")->capture_default_str();
        detect->add_option("--pad-level", det.params.level_pad,
                           "Level pixels of replicated border on every side of every pyramid level, so that windows reach past "
                           "the image at every scale (OpenCV's detectMultiScale: 16), 0-256; --pad pads the image once instead "
                           "(default: the model's operating point)");
        detect->add_flag("--scale-windows", det.params.scale_windows,
                         "Resample only the octaves of the input and scan the levels between them with the model's windows, cells "
                         "and blocks scaled (Viola & Jones' scaled detector): faster on the CPU, approximate features at those "
                         "levels, so other detections; CPU backend only (auto picks it)");
        detect->add_flag("--approximate-hog", det.params.approximate_hog,
                         "Compute HoG histograms only at the octaves of the input (smoothed) and interpolate every level's "
                         "from its octave's (Dollar et al.'s fast feature pyramids): faster on the CPU, about as "
                         "accurate, other scores than the resampled levels'; not with --scale-windows; CPU backend only (auto "
                         "picks it)");
        detect->add_flag("--approximate-lbp", det.params.approximate_lbp,
                         "Scan the LBP stages of every level on its octave's gray integral image, their "
                         "cells scaled to the level, so that those levels need no pixels of their own for them: faster on the "
                         "CPU, about as accurate, other scores; alone or with --approximate-hog, not with --scale-windows; CPU "
                         "backend only (auto picks it)");
        detect->add_option("--upscale", upscale, "Shorthand for --min-scale 1/F (e.g. 2 finds objects half the window size)");
        add_fusion_options(detect, fuse, det.fusion, true);
        detect->add_option("--backend", backend, "cpu, cuda, or auto (CUDA when present)")->check(choices({"auto", "cpu", "cuda"}))->capture_default_str();
        detect->add_option("--device", det.device, "CUDA device to run on (0, 1, …)")->check(CLI::NonNegativeNumber)->capture_default_str();
        detect->add_option("--json", det.json, "Write detections as JSON to this file");
        detect->add_option("--draw", det.draw_dir, "Write annotated images into this folder");
        detect->add_option("--max-frames", det.max_frames, "Frames to read from each video (0 = all)")->check(CLI::NonNegativeNumber);
        add_output_options();
    }
    void add_output_options() {
        detect->add_option("--threshold", det.threshold,
                           "Drop boxes scoring below this after fusion (a window's score is the sum of the cascade's stage margins, "
                           ">= 0; an NMS box keeps its best window's; a mean-shift box scores the density of windows at its mode): raise "
                           "it for fewer, surer detections (default: the model's "
                           "recommended threshold, 0 for models without one)");
        detect->add_option("--min-neighbors", det.min_neighbors,
                                             "Keep a fused box only when more than N other windows fused into it (OpenCV's "
                                             "minNeighbors; needs --fuse meanshift or nms)")
                              ->check(CLI::NonNegativeNumber)->capture_default_str();
        auto* min_size = detect->add_option("--min-size", det.min_size,
                                            "Smallest window height in input pixels (sets --min-scale to SIZE / the model's window "
                                            "height; below the window height it upscales)")->check(CLI::PositiveNumber);
        detect->add_option("--max-size", det.max_size, "Largest window height in input pixels (sets --max-scale likewise)")
            ->check(CLI::PositiveNumber);
        min_size->excludes(detect->get_option("--min-scale"));
        min_size->excludes(detect->get_option("--upscale"));
        detect->get_option("--max-size")->excludes(detect->get_option("--max-scale"));
        detect->add_option("--pad", det.pad,
                           "Replicated border added on every side, as a share of the image height (0 to 1), so that windows "
                           "reach past the edges: people cut by the frame or filling it (cascade eval pads PennFudan by 0.25); "
                           "boxes stay in the image's coordinates and may extend past its edges (default: the model's operating "
                           "point)")
            ->check(CLI::Range(0.0, 1.0));
        detect->add_flag("--window-boxes", det.window_boxes,
                         "Report and draw the detection windows themselves instead of the object's box inside each (the "
                         "model's object box; the JSON gives both)");
        detect->add_option("--coco", det.coco,
                           "Also write the boxes as COCO results JSON ([{image_id, category_id, bbox: [x, y, w, h], score}]) to "
                           "this file, for COCO's evaluation tools");
        detect->add_option("--coco-annotations", det.coco_annotations,
                           "With --coco: take each image's id from this COCO annotation file (matched by file name); without "
                           "it, images are numbered 1, 2, … in input order (video frames too)");
        detect->add_option("--coco-category", det.coco_category, "With --coco: the category_id of every box")->capture_default_str();

    }
    int run() {
        parse_fusion(fuse, det.fusion.method);
        parse_backend(backend, det.backend);
        if (upscale > 0.0) det.params.min_scale = 1.0 / upscale;
        det.point = given_point(detect, {&det.threshold, &det.params.stride, &det.params.scale_step, &det.params.min_scale,
                                         &det.pad, &det.params.level_pad, &fuse, &det.fusion.nms_iou});
        if (upscale > 0.0) det.point.min_scale = det.params.min_scale;  // --min-size: run_detect, in the model's window
        return run_detect(det);
    }
};

struct CropCommand {
    CropOptions crop;
    std::string crop_window = "64x128";
    std::vector<double> crop_object;
    CLI::App* crop_cmd = nullptr;

    void add(CLI::App& parent) {
        crop_cmd = parent.add_subcommand("crop", "Cut training positives from an annotated set (VOC, COCO, dlib, OpenCV) as PNGs");
        crop_cmd->add_option("--annotations", crop.annotations, "Annotation file or VOC folder")->required();
        add_annotation_set_options(crop_cmd, crop.format, crop.object_class, crop.images, "");
        crop_cmd->add_option("--out", crop.out, "Folder to write the crops into (NAME-K.png)")->required();
        crop_cmd->add_option("--window", crop_window, "Window size WxH of the crops (the model's window)")->capture_default_str();
        crop_cmd->add_option("--object-box", crop_object,
                             "Where the object's box sits in the window: X,Y,W,H as fractions of it (default 0.215,0.125,0.57,0.75: "
                             "a person 3/4 of a 64x128 window tall, as INRIA's crops; 0,0,1,1: the box is the window)")
            ->delimiter(',')->expected(4);
        crop_cmd->add_option("--min-height", crop.min_height,
                             "Skip boxes shorter than this many pixels (default: half the object's height in the window)")
            ->check(CLI::NonNegativeNumber);
        crop_cmd->add_option("--max-aspect", crop.max_aspect,
                             "Skip boxes whose width/height differs from the object box's by more than this factor")
            ->check(CLI::Range(1.0, 100.0))->capture_default_str();

    }
    int run() {
        if (std::sscanf(crop_window.c_str(), "%dx%d", &crop.window_width, &crop.window_height) != 2) {
            spdlog::error("--window must be WxH, e.g. 64x128, not '{}'", crop_window);
            return kExitFatal;
        }
        if (!crop_object.empty()) std::copy(crop_object.begin(), crop_object.end(), crop.object.begin());
        return run_crop(crop);
    }
};

struct TrainCommand {
    TrainCommandOptions tr;
    CLI::App* train = nullptr;

    void add(CLI::App& parent) {
        train = parent.add_subcommand("train", "Train a cascade (or the dense baseline) from a configuration file");
        train->add_option("--config", tr.config, "Training configuration (YAML; see configs/)")->required()->check(CLI::ExistingFile);
        train->add_option("--out", tr.out, "Model file to write (rewritten after every round; checkpoint beside it as FILE.state)")->required();
        train->add_flag("--resume", tr.resume, "Continue an interrupted run from FILE.state");
        train->add_flag("--finish", tr.finish,
                        "With --resume: end the run now, keeping the stage in training as it stands (e.g. a WaldBoost "
                        "sequence of the weak classifiers so far) as the last stage, and write the model");
        train->add_option("--backend", tr.backend, "Bootstrapping detector: cpu, cuda or auto (overrides the config's mining.backend)")
            ->check(choices({"auto", "cpu", "cuda"}));
        train->add_option("--stop-after-rounds", tr.stop_after_rounds,
                          "Stop after N boosting rounds, checkpoint saved, as if interrupted (for testing --resume)")
            ->check(CLI::NonNegativeNumber);

    }
    int run() { return run_train(tr); }
};

struct EvalCommand {
    EvalOptions ev;
    std::string eval_fuse = "nms", eval_backend = "auto";
    CLI::App* eval = nullptr;

    void add(CLI::App& parent) {
        eval = parent.add_subcommand("eval", "Measure a model: miss rate vs FPPW, rejection profile, miss rate vs FPPI");
        eval->add_option("--model", ev.model, "Cascade model to evaluate");
        eval->add_option("--window-scores", ev.window_scores,
                         "Evaluate another detector's window scores instead (JSON: positives, negatives, negative_windows)");
        eval->add_option("--detections", ev.detections,
                         "Evaluate another detector's detections (cascade detect's JSON) for --fppi or --faces");
        eval->add_flag("--fuse-detections", ev.fuse_detections,
                       "--detections are raw windows (64x128 people, e.g. opencv_hog_peer detect --group 0; square faces, "
                       "24x24 at scale 1): fuse them as --fuse says");
        eval->add_option("--config", ev.config,
                         "Training configuration naming the data and the held-out split (default: the one stored in --model, "
                         "else this file)")->capture_default_str();
        eval->add_option("--fppw", ev.fppw, "Miss rate vs false positives per window on the held-out data, to this CSV");
        eval->add_option("--rejection", ev.rejection, "Per-stage rejection profile on the held-out negatives, to this CSV");
        eval->add_option("--survival", ev.survival,
                         "Share of the held-out negative windows surviving each weak classifier, to this CSV; prints the "
                         "mean weak classifiers per window and the share left after 1, 8, 64, 256, 1024 and 2048 (those the sequences have; CPU)");
        eval->add_option("--fppi", ev.fppi, "Miss rate vs false positives per image on PennFudan, to this CSV");
        eval->add_option("--pennfudan", ev.pennfudan, "PennFudanPed folder (default $CASCADEKIT_DATA/PennFudanPed)");
        eval->add_option("--write-lists", ev.write_lists, "Write the held-out and PennFudan image lists into this folder");
        eval->add_option("--label", ev.label, "Name printed with the results");
        eval->add_option("--stride", ev.stride, "Window stride for negatives and PennFudan")->capture_default_str();
        eval->add_option("--scale-step", ev.scale_step, "Pyramid scale step")->capture_default_str();
        eval->add_option("--backend", eval_backend, "Detector for --model scans: cpu, cuda, or auto (CUDA when present)")
            ->check(choices({"auto", "cpu", "cuda"}))->capture_default_str();
        eval->add_option("--device", ev.device, "CUDA device to run on (0, 1, …)")->check(CLI::NonNegativeNumber)->capture_default_str();
        add_fusion_options(eval, eval_fuse, ev.fusion);
        add_full_image_options();
    }
    void add_full_image_options() {
        eval->add_option("--faces", ev.faces, "Miss rate vs false positives per image on the CMU+MIT frontal faces, to this CSV; "
                                              "prints the detection rate at 10, 31, 50, 65, 78, 95 and 167 false positives");
        eval->add_option("--cmu-mit", ev.cmu_mit, "CMU+MIT faces folder (default $CASCADEKIT_DATA/Faces/cmu-mit)");
        eval->add_option("--face-match", ev.face_match,
                         "--faces matching rule: points (the detection holds both eyes and the mouth centre near its middle "
                         "and is 1 to 4 times the eye-to-mouth distance: fair to any box convention) or iou (IoU >= 0.5 with "
                         "CMU+MIT's boxes); the other rule's figures are printed too")
            ->check(choices({"points", "iou"}))->capture_default_str();
        eval->add_option("--min-scale", ev.min_scale, "Full-image scans: smallest window scale, >= 1/16 (below 1 upscales)")
            ->capture_default_str();
        eval->add_option("--pad-level", ev.level_pad,
                         "Full-image scans: level pixels of replicated border on every side of every pyramid level (OpenCV's "
                         "detectMultiScale: 16), 0-256")->capture_default_str();
        eval->add_flag("--scale-windows", ev.scan.scale_windows,
                       "Full-image scans: resample only the octaves and scan the levels between them with the model scaled "
                       "(cascade detect --scale-windows); CPU backend only");
        eval->add_flag("--approximate-hog", ev.scan.approximate_hog,
                       "Full-image scans: HoG histograms of the levels interpolated from their octaves' (cascade "
                       "detect --approximate-hog); CPU backend only");
        eval->add_flag("--approximate-lbp", ev.scan.approximate_lbp,
                       "Full-image scans: LBP stages of the levels on their octaves' gray integral images "
                       "(cascade detect --approximate-lbp); CPU backend only");
        eval->add_option("--upscale-below", ev.upscale_below,
                         "Full-image scans: images less tall than this many pixels are enlarged 2x (bilinear) first and their "
                         "boxes halved back (the protocol OpenCV's people detector is usually scored by: 400); 0: none")
            ->check(CLI::NonNegativeNumber)->capture_default_str();
        eval->add_option("--annotations", ev.annotations,
                         "An annotated set to detect on and score: a PASCAL VOC XML file or folder, a COCO JSON, a dlib imglab XML "
                         "or an opencv_annotation text file; prints the log-average miss rate, the miss rate at 0.1 and 1 FPPI, AP "
                         "at IoU 0.5 (COCO's 101-point interpolation) and the detection rate at 10, 50 and 100 false positives");
        add_annotation_set_options(eval, ev.format, ev.object_class, ev.images, "--annotations: ");
        eval->add_option("--curve", ev.curve, "--annotations: write the miss rate vs FPPI curve to this CSV");
        eval->add_option("--plot", ev.plot,
                         "--annotations: draw miss rate vs FPPI (log-log) into this PNG, named by --label and the set, with "
                         "the log-average miss rate in the legend");
        eval->add_option("--compare", ev.compare,
                         "--annotations --plot: also draw these curves, each NAME=CSV (an earlier --curve file of another model "
                         "or detector on the same set); repeatable");
        eval->add_option("--box", ev.box,
                         "--annotations: the box a detection stands for: window (the model's window), person (the person inside a "
                         "64x128 people window, as for PennFudan), auto (person for 64x128 models, else window)")
            ->check(choices({"auto", "window", "person"}))->capture_default_str();
        eval->add_option("--pad", ev.pad, "PennFudan and --annotations with --model: replicated border added on every side, as a "
                                          "share of the image height (people fill the frame; the window needs room around them; "
                                          "0 for none). --faces scans unpadded")->capture_default_str();

    }
    int run() {
        ev.config_given = eval->get_option("--config")->count() > 0;
        parse_fusion(eval_fuse, ev.fusion.method);
        parse_backend(eval_backend, ev.backend);
        return run_eval(ev);
    }
};

struct InspectCommand {
    InspectOptions insp;
    CLI::App* inspect = nullptr;

    void add(CLI::App& parent) {
        inspect = parent.add_subcommand("inspect", "Print a model's stages, or a block pool's size");
        inspect->add_option("FILE", insp.model, "Cascade model file (.h5)");
        inspect->add_option("--draw", insp.draw, "Paint each stage's blocks over a window-sized panel into this PNG");
        inspect->add_option("--stages", insp.stages, "With --draw: only these stages (1-based), e.g. 1,3,5")->delimiter(',');
        inspect->add_option("--weak", insp.weak,
                            "With --draw: the first N weak classifiers of the (first, or first of --stages) waldboost_lbp stage, "
                            "one panel each: the 3x3 grid of cells, the centre cell tinted")
            ->check(CLI::Range(1, 4096));
        inspect->add_option("--background", insp.background,
                            "With --weak: an image (e.g. a face crop the size of the window) under each panel")
            ->check(CLI::ExistingFile);
        const auto pools = block_pool_names();
        inspect->add_option("--pool", insp.pool, "Print the size of a block pool")->check(choices({pools.begin(), pools.end()}));

    }
    int run() { return run_inspect(insp); }
};

struct ConvertCommand {
    ConvertOptions conv;
    CLI::App* convert = nullptr;

    void add(CLI::App& parent) {
        convert = parent.add_subcommand("convert", "Re-save a model you trust (schema 1, or edited with HDF5 tools) as "
                                                      "the current schema with a fresh integrity header");
        convert->add_option("IN", conv.in, "Model file to read (parsed without the integrity check: only files you trust)")->required();
        convert->add_option("OUT", conv.out, "Model file to write (may be IN)")->required();
        convert->add_option("--stages", conv.stages,
                            "Keep only the first N stages: the cascade cut short, to measure what its later stages add "
                            "(the operating point is kept: calibrate the result again)")
            ->check(CLI::Range(1, 100000));

    }
    int run() { return run_convert(conv); }
};

struct CalibrateCommand {
    CalibrateOptions cal;
    int cal_stride = 8;
    double cal_scale_step = 1.2, cal_min_scale = 1, cal_pad = 0, cal_nms_iou = 0.5;
    int cal_level_pad = 0;
    std::string cal_fuse = "meanshift", cal_backend = "auto";
    CLI::App* calibrate = nullptr;

    void add(CLI::App& parent) {
        calibrate = parent.add_subcommand(
            "calibrate", "Choose a model's operating point (score threshold, with its scan and fusion) on annotated images and "
                         "write the model with it; detect then uses it by default");
        calibrate->add_option("--model", cal.model, "Model file (.h5)")->required();
        calibrate->add_option("--out", cal.out, "Model file to write (may be --model)")->required();
        calibrate->add_option("--annotations", cal.annotations,
                              "Annotated images held out from training: a PASCAL VOC XML file or folder, a COCO JSON, a dlib imglab "
                              "XML or an opencv_annotation text file; detections match objects at IoU >= 0.5 with the model's object "
                              "box. The threshold is chosen on the 1st, 3rd, … image and checked on the others");
        add_annotation_set_options(calibrate, cal.format, cal.object_class, cal.images, "--annotations: ");
        calibrate->add_flag("--faces", cal.faces, "Calibrate on CMU+MIT's frontal faces (matched by their eye and mouth points)");
        calibrate->add_option("--cmu-mit", cal.cmu_mit, "--faces: the CMU+MIT folder (default $CASCADEKIT_DATA/Faces/cmu-mit)");
        calibrate->add_option("--fppi", cal.fppi, "Target false positives per image: the loosest threshold keeping at most this many")
            ->capture_default_str();
        calibrate->add_option("--stride", cal_stride, "Window step of the scan (default: the model's operating point)");
        calibrate->add_option("--scale-step", cal_scale_step, "Ratio between pyramid levels (default: the model's)");
        calibrate->add_option("--min-scale", cal_min_scale, "Smallest window scale, >= 1/16 (default: the model's)");
        calibrate->add_option("--pad", cal_pad, "Replicated border, a share of the image height (default: the model's)");
        calibrate->add_option("--pad-level", cal_level_pad, "Border around every pyramid level, level pixels (default: the model's)");
        calibrate->add_option("--fuse", cal_fuse, "Fusion: meanshift, nms or none (default: the model's)")
            ->check(choices({"meanshift", "nms", "none"}));
        calibrate->add_option("--nms-iou", cal_nms_iou, "IoU above which NMS drops the weaker box (default: the model's)");
        calibrate->add_option("--backend", cal_backend, "cpu, cuda, or auto (CUDA when present)")
            ->check(choices({"auto", "cpu", "cuda"}))->capture_default_str();
        calibrate->add_option("--device", cal.device, "CUDA device to run on")->check(CLI::NonNegativeNumber);

    }
    int run() {
        cal.point = given_point(calibrate, {nullptr, &cal_stride, &cal_scale_step, &cal_min_scale, &cal_pad, &cal_level_pad,
                                            &cal_fuse, &cal_nms_iou});
        parse_backend(cal_backend, cal.backend);
        return run_calibrate(cal);
    }
};

struct BenchCommands {
    BenchFeaturesOptions bf;
    bool no_peer = false;
    BenchDetectOptions bd;
    CLI::App *bench_features = nullptr, *bench_detect = nullptr;

    void add(CLI::App& parent) {
        auto* bench = parent.add_subcommand("bench", "Measure speed");
        bench->require_subcommand(1);
        bench_features = bench->add_subcommand("features", "Gradients + integral histograms, MPix/s, 1 and all threads");
        bench_features->add_option("--sizes", bf.sizes, "Image sizes WxH")->delimiter(',')->capture_default_str();
        bench_features->add_option("--repeats", bf.repeats, "Timed runs per measurement (median reported)")->capture_default_str();
        bench_features->add_option("--out", bf.out, "Also write the Markdown table to this file");
        bench_features->add_flag("--no-opencv", no_peer, "Skip the OpenCV peer");

        add_detect(*bench);
    }
    void add_detect(CLI::App& bench) {
        bench_detect = bench.add_subcommand("detect", "Detection per frame: CUDA and CPU backends and OpenCV's HOG, one table");
        bench_detect->add_option("--model", bd.model, "Cascade model")->capture_default_str();
        bench_detect->add_option("--backend", bd.backend, "cuda, cpu, or auto (cuda rows when a device is present)")
            ->check(choices({"auto", "cpu", "cuda"}))->capture_default_str();
        bench_detect->add_option("--sizes", bd.sizes, "Frame sizes WxH")->delimiter(',')->capture_default_str();
        bench_detect->add_option("--scale-steps", bd.scale_steps, "Pyramid scale steps")->delimiter(',')->capture_default_str();
        bench_detect->add_option("--strides", bd.strides, "Window strides")->delimiter(',')->capture_default_str();
        bench_detect->add_option("--min-scale", bd.min_scale, "Smallest window scale (input pixels per level pixel)")
            ->capture_default_str();
        bench_detect->add_option("--max-scale", bd.max_scale,
                                 "Largest window scale, 0 = no limit (e.g. 16 with --scale-steps 1.0905077: 8 levels per octave "
                                 "over 4 octaves, as Macenauer)")
            ->capture_default_str();
        bench_detect->add_option("--lbp-weak", bd.lbp_weak,
                                 "Pad the model's last WaldBoost sequence to N weak classifiers by repeating its tables, with "
                                 "no rejection after its own (an upper bound on a longer sequence's cost), 0 = as it is")
            ->capture_default_str();
        bench_detect->add_option("--repeats", bd.repeats, "GPU frames per median")->capture_default_str();
        bench_detect->add_option("--cpu-repeats", bd.cpu_repeats, "CPU and OpenCV frames per median")->capture_default_str();
        bench_detect->add_option("--cpu-threads", bd.cpu_threads,
                                 "Also time the CPU backend (and the peer) at these thread counts, e.g. 1,2,4,8,16: a scaling table")
            ->delimiter(',')
            ->check(CLI::Range(1, 1024));
        bench_detect->add_option("--cpu-levels", bd.cpu_levels,
                                 "Pyramid levels our CPU backend detects at once (CpuOptions::levels_in_flight; 1: one level at a "
                                 "time, each parallel inside), 0 = its default")
            ->check(CLI::Range(0, 1024))
            ->capture_default_str();
        bench_detect->add_option("--cpu-level-mib", bd.cpu_level_mib,
                                 "Beyond the first, the levels in flight of our CPU backend take at most this many MiB of storage "
                                 "(CpuOptions::level_memory_in_flight), default: its default")
            ->check(CLI::Range(0.0, 1e6));
        add_detect_runs();
    }
    void add_detect_runs() {
        bench_detect->add_option("--batch", bd.batch, "Frames per batched GPU call")->capture_default_str();
        bench_detect->add_option("--slots", bd.slots, "Frames in flight in a batch (streams)")->capture_default_str();
        bench_detect->add_flag("--scale-windows", bd.scan.scale_windows,
                               "Our CPU rows scan the levels between octaves with the model scaled (cascade detect "
                               "--scale-windows); no CUDA rows then");
        bench_detect->add_flag("--approximate-hog", bd.scan.approximate_hog,
                               "Our CPU rows interpolate the levels' HoG histograms from their octaves' (cascade detect "
                               "--approximate-hog); no CUDA rows then");
        bench_detect->add_flag("--approximate-lbp", bd.scan.approximate_lbp,
                               "Our CPU rows scan the levels' LBP stages on their octaves (cascade detect "
                               "--approximate-lbp); no CUDA rows then");
        bench_detect->add_option("--frame", bd.frame, "Image resized to every size (default: a synthetic frame)");
        bench_detect->add_option("--peer", bd.peer,
                                 "opencv_hog_peer or opencv_face_peer executable: adds OpenCV rows (1 and all threads)");
        bench_detect->add_option("--peer-args", bd.peer_args,
                                 "Extra arguments to the peer's time mode, e.g. \"--cascade "
                                 "/usr/share/opencv4/lbpcascades/lbpcascade_frontalface.xml\"");
        bench_detect->add_option("--peer-name", bd.peer_name, "The peer's name in the tables")->capture_default_str();
        bench_detect->add_flag("--no-cpu", bd.no_cpu, "Do not time our CPU backend");
        bench_detect->add_option("--out", bd.out, "Also write the Markdown tables to this file");

    }
    // `command_line`: the command as typed, for the tables' provenance.
    int run(const std::string& command_line) {
        if (bench_detect->parsed()) {
            bd.command_line = command_line;
            return run_bench_detect(bd);
        }
        bf.opencv_peer = !no_peer;
        bf.command_line = command_line;
        return run_bench_features(bf);
    }
};
}  // namespace

int main(int argc, char** argv) {
    auto logger = spdlog::stderr_color_mt("cascade");
    spdlog::set_default_logger(logger);
    spdlog::set_pattern("[%H:%M:%S] %^%l%$ %v");

    CLI::App app{"cascade: boosted rejection cascades for object detection (cascadekit " CASCADEKIT_VERSION ")"};
    app.require_subcommand(1);
    app.fallthrough();  // global options (--threads, -q) also work after the subcommand
    app.set_version_flag("--version", CASCADEKIT_VERSION);
    bool quiet = false;
    int threads = 0;
    app.add_flag("-q,--quiet", quiet, "Only warnings and errors on stderr");
    app.add_option("--threads", threads, "Worker threads (default: all hardware threads)")->check(CLI::NonNegativeNumber);
    double max_megapixels = static_cast<double>(kDefaultMaxImagePixels) / 1e6;
    app.add_option("--max-megapixels", max_megapixels,
                   "Largest image or video frame read, in millions of pixels (checked from the file's header before "
                   "decoding)")->check(CLI::PositiveNumber)->capture_default_str();

    // The subcommands, in the order --help lists them.
    DetectCommand detect;
    CropCommand crop;
    TrainCommand train;
    EvalCommand eval;
    InspectCommand inspect;
    ConvertCommand convert;
    CalibrateCommand calibrate;
    BenchCommands bench;
    detect.add(app);
    crop.add(app);
    train.add(app);
    eval.add(app);
    inspect.add(app);
    convert.add(app);
    calibrate.add(app);
    bench.add(app);

    // Argument errors exit with kExitFatal (1) like every other error that stops a command
    // before it runs; --help and --version with 0.
    if (const std::string unknown = unknown_option(app, argc, argv); !unknown.empty()) {
        std::fprintf(stderr, "%s\nRun with --help for more information.\n", unknown.c_str());
        return kExitFatal;
    }
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        const int code = app.exit(e);
        return code == 0 ? kExitOk : kExitFatal;
    }
    set_max_image_pixels(static_cast<std::int64_t>(max_megapixels * 1e6));
    if (quiet) spdlog::set_level(spdlog::level::warn);
    std::optional<tbb::global_control> limit;
    if (threads > 0) limit.emplace(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(threads));

    if (detect.detect->parsed()) return detect.run();
    if (crop.crop_cmd->parsed()) return crop.run();
    if (inspect.inspect->parsed()) return inspect.run();
    if (convert.convert->parsed()) return convert.run();
    if (calibrate.calibrate->parsed()) return calibrate.run();
    if (train.train->parsed()) return train.run();
    if (eval.eval->parsed()) return eval.run();
    if (bench.bench_detect->parsed() || bench.bench_features->parsed()) return bench.run(joined_command_line(argc, argv));
    return kExitFatal;
}
