#include <spdlog/spdlog.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/task_arena.h>
#include <tbb/parallel_for.h>

#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cascadekit/io/files.hpp"
#include "cascadekit/io/dataset.hpp"
#include "cascadekit/io/model_file.hpp"
#include "cascadekit/runtime/bulk_detector.hpp"
#include "cascadekit/runtime/fusion.hpp"
#include "cascadekit/runtime/window_evaluator.hpp"
#include "cascadekit/trainer/evaluation.hpp"
#include "cascadekit/trainer/trainer.hpp"
#include "commands.hpp"
#include "configured_data.hpp"
#include "image_files.hpp"
#include "output_files.hpp"

namespace cascadekit::tools {


namespace {
namespace fs = std::filesystem;

struct WindowScores {
    std::vector<double> positives, negatives;
    std::uint64_t negative_windows = 0;
};

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
    if (cfg.data.holdout_every == 0) throw std::runtime_error("the configuration holds nothing out (data.holdout_every: 0)");
    if (cfg.data.split_file.empty() || !fs::exists(cfg.data.split_file))
        throw std::runtime_error("held-out split " + cfg.data.split_file + " not found: train with this configuration first");
    const Dataset all = configured_dataset(cfg);
    return only(all, held_out_split(cfg, all));
}

WindowScores model_window_scores(const CascadeModel& m, const Dataset& test, const DetectParams& base, Backend backend,
                                 DetectStats& stats) {
    WindowScores ws;
    const int S = static_cast<int>(m.stages.size());
    ws.positives.resize(test.positives.size());
    const CascadeEvaluator evaluator(m);
    tbb::parallel_for(std::size_t{0}, test.positives.size(), [&](std::size_t i) {
        GrayImage g = load_gray(test.positives[i].path);
        if (test.positives[i].flip)
            for (int y = 0; y < g.height; ++y) std::reverse(&g.at(0, y), &g.at(0, y) + g.width);
        LevelFeatures f;
        compute_level_features(g, evaluator.needs(), f);
        const WindowOutcome o = evaluator.evaluate(f, (g.width - m.window_width) / 2, (g.height - m.window_height) / 2);
        ws.positives[i] = cascade_window_score(o.rejected_at < 0 ? S : o.rejected_at, o.score, S);
    });
    DetectParams p = base;
    p.keep_rejected = true;
    BulkOptions options;
    options.backend = backend;
    BulkDetector bulk(m, p, options);
    const BulkTotals totals = bulk.run(
        test.negatives.size(),
        [&](std::size_t i) {
            auto g = std::make_shared<GrayImage>(load_gray(test.negatives[i]));
            return BulkImage{g->view(), g};
        },
        [&](std::size_t, DetectResult&& r, const BulkImage&, double) {
            for (const Detection& d : r.detections) ws.negatives.push_back(cascade_window_score(d.stages_passed, d.score, S));
        });
    stats = totals.stats;
    ws.negative_windows = stats.windows_scanned;
    return ws;
}

std::vector<fs::path> pennfudan_images(const fs::path& root) {
    std::vector<fs::path> out;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(root / "PNGImages", ec))
        if (e.path().extension() == ".png") out.push_back(e.path());
    if (ec || out.empty()) throw std::runtime_error((root / "PNGImages").string() + ": no PennFudan images found");
    std::sort(out.begin(), out.end());
    return out;
}

std::vector<Box> truth_for(const fs::path& root, const fs::path& image) {
    return read_pascal_annotation((root / "Annotation" / (image.stem().string() + ".txt")).string());
}

// The image with `pad` pixels of replicated border on every side, so that windows may reach past
// the image edge (people filling the frame need a window larger than the image; OpenCV's
// detectMultiScale pads likewise).
GrayImage pad_replicate(const GrayImage& g, int pad) {
    if (pad <= 0) return g;
    GrayImage out(g.width + 2 * pad, g.height + 2 * pad);
    for (int y = 0; y < out.height; ++y)
        for (int x = 0; x < out.width; ++x)
            out.at(x, y) = g.at(std::clamp(x - pad, 0, g.width - 1), std::clamp(y - pad, 0, g.height - 1));
    return out;
}

std::string csv(const std::vector<CurvePoint>& curve, const char* fp_name) {
    std::ostringstream out;
    out << fp_name << ",miss_rate,threshold\n";
    out.precision(9);
    for (const auto& p : curve) out << p.fp << "," << p.miss_rate << "," << p.threshold << "\n";
    return out.str();
}
}  // namespace

int run_eval(const EvalOptions& o) {
    try {
        const int sources = !o.model.empty() + !o.window_scores.empty() + !o.detections.empty();
        if (sources != 1) throw std::runtime_error("give exactly one of --model, --window-scores, --detections");
        std::optional<CascadeModel> model;
        if (!o.model.empty()) model = load_model(o.model);
        DetectParams params;
        params.stride = o.stride;
        params.scale_step = o.scale_step;
        validate(params);
        const std::string label = o.label.empty() ? (o.model.empty() ? o.window_scores + o.detections : o.model) : o.label;
        // Every output is checked before the (long) evaluation starts.
        for (const std::string* out : {&o.fppw, &o.rejection, &o.fppi})
            if (!out->empty()) check_writable_file(*out);
        if (!o.write_lists.empty()) {
            fs::create_directories(o.write_lists);
            check_writable_file(fs::path(o.write_lists) / "pennfudan.txt");
        }

        if (!o.write_lists.empty()) {
            const Dataset test = held_out(load_train_config(o.config));
            fs::create_directories(o.write_lists);
            std::string pos, neg, pf;
            for (const auto& p : test.positives) pos += p.path.string() + "\n";
            for (const auto& n : test.negatives) neg += n.string() + "\n";
            for (const auto& p : pennfudan_images(o.pennfudan.empty() ? data_root() / "PennFudanPed" : fs::path(o.pennfudan)))
                pf += p.string() + "\n";
            write_text_atomically(fs::path(o.write_lists) / "heldout-positives.txt", pos);
            write_text_atomically(fs::path(o.write_lists) / "heldout-negatives.txt", neg);
            write_text_atomically(fs::path(o.write_lists) / "pennfudan.txt", pf);
            spdlog::info("wrote held-out and PennFudan lists to {}", o.write_lists);
        }

        if (!o.fppw.empty() || !o.rejection.empty()) {
            WindowScores ws;
            DetectStats stats;
            if (model) {
                const Dataset test = held_out(load_train_config(o.config));
                spdlog::info("{}: scoring {} held-out positive crops and every window of {} held-out negative images "
                             "(stride {}, scale step {})", label, test.positives.size(), test.negatives.size(), o.stride, o.scale_step);
                ws = model_window_scores(*model, test, params, o.backend, stats);
            } else if (!o.window_scores.empty()) {
                const auto j = read_json(o.window_scores);
                ws.positives = j.at("positives").get<std::vector<double>>();
                ws.negatives = j.at("negatives").get<std::vector<double>>();
                ws.negative_windows = j.at("negative_windows").get<std::uint64_t>();
            } else {
                throw std::runtime_error("--fppw and --rejection need --model or --window-scores");
            }
            if (!o.fppw.empty()) {
                const auto curve = fppw_curve(ws.positives, ws.negatives, ws.negative_windows);
                write_text_atomically(o.fppw, csv(curve, "fppw"));
                std::printf("%s: FPPW over %zu positives and %llu negative windows: miss rate %.4f at 1e-4, %.4f at 1e-3 FPPW\n",
                            label.c_str(), ws.positives.size(), static_cast<unsigned long long>(ws.negative_windows),
                            miss_rate_at(curve, 1e-4), miss_rate_at(curve, 1e-3));
            }
            if (!o.rejection.empty()) {
                if (!model) throw std::runtime_error("--rejection needs --model");
                const auto prof = rejection_profile(*model, stats);
                std::ostringstream out;
                out << "stage,learners,rejected_so_far,learners_per_window\n";
                std::printf("%s: rejection profile over %llu windows\n  stage  learners  rejected so far  learners/window\n",
                            label.c_str(), static_cast<unsigned long long>(stats.windows_scanned));
                for (const auto& r : prof) {
                    out << r.stage << "," << r.learners << "," << r.rejected_so_far << "," << r.learners_per_window << "\n";
                    std::printf("  %5d  %8zu  %15.4f  %15.3f\n", r.stage, r.learners, r.rejected_so_far, r.learners_per_window);
                }
                write_text_atomically(o.rejection, out.str());
            }
        }

        if (!o.fppi.empty()) {
            const fs::path root = o.pennfudan.empty() ? data_root() / "PennFudanPed" : fs::path(o.pennfudan);
            const auto images = pennfudan_images(root);
            std::vector<ImageTruth> truth(images.size());
            std::size_t people = 0;
            for (std::size_t i = 0; i < images.size(); ++i) people += (truth[i].people = truth_for(root, images[i])).size();
            if (model) {
                BulkOptions options;
                options.backend = o.backend;
                BulkDetector bulk(*model, params, options);
                std::vector<int> pads(images.size(), 0);
                bulk.run(
                    images.size(),
                    [&](std::size_t i) {
                        const GrayImage g = load_gray(images[i]);
                        pads[i] = static_cast<int>(std::lround(o.pad * g.height));
                        auto padded = std::make_shared<GrayImage>(pad_replicate(g, pads[i]));
                        return BulkImage{padded->view(), padded};
                    },
                    [&](std::size_t i, DetectResult&& raw, const BulkImage&, double) {
                        const auto fused = fuse(raw.detections, model->window_width, model->window_height, o.fusion);
                        const int pad = pads[i];
                        for (const Detection& d : fused) truth[i].detections.push_back({person_box(d.x - pad, d.y - pad, d.w, d.h), d.score});
                    });
            } else if (!o.detections.empty()) {
                const auto j = read_json(o.detections);
                std::map<std::string, std::size_t> by_stem;
                for (std::size_t i = 0; i < images.size(); ++i) by_stem[images[i].stem().string()] = i;
                const CascadeModel shape;  // the default 64x128 window: the raw windows' shape at scale 1
                for (const auto& im : j.at("images")) {
                    const auto it = by_stem.find(fs::path(im.at("path").get<std::string>()).stem().string());
                    if (it == by_stem.end()) continue;
                    std::vector<Detection> dets;
                    for (const auto& d : im.at("detections")) {
                        Detection det;
                        det.x = d.at("x");
                        det.y = d.at("y");
                        det.w = d.at("w");
                        det.h = d.at("h");
                        det.score = d.at("score").get<float>();
                        det.scale = det.h / shape.window_height;
                        dets.push_back(det);
                    }
                    if (o.fuse_detections) dets = fuse(dets, shape.window_width, shape.window_height, o.fusion);
                    for (const Detection& d : dets) truth[it->second].detections.push_back({person_box(d.x, d.y, d.w, d.h), d.score});
                }
            } else {
                throw std::runtime_error("--fppi needs --model or --detections");
            }
            const auto curve = fppi_curve(truth);
            write_text_atomically(o.fppi, csv(curve, "fppi"));
            std::printf("%s: PennFudan (%zu images, %zu people, padding %.2f): log-average miss rate %.4f; miss rate %.4f at 0.1 FPPI, %.4f at 1 FPPI\n",
                        label.c_str(), images.size(), people, o.pad, log_average_miss_rate(curve), miss_rate_at(curve, 0.1),
                        miss_rate_at(curve, 1.0));
        }
        return kExitOk;
    } catch (const std::exception& e) {
        spdlog::error("{}", e.what());
        return kExitFatal;
    }
}

}  // namespace cascadekit::tools
