#include <spdlog/spdlog.h>

#include <cmath>

#include "cascadekit/io/dataset.hpp"
#include "cascadekit/io/files.hpp"
#include "cascadekit/io/model_file.hpp"
#include "cascadekit/trainer/data_selection.hpp"
#include "cascadekit/trainer/trainer.hpp"
#include "cascadekit/workflow/training.hpp"
#include "commands.hpp"
#include "cascadekit/workflow/image_files.hpp"

namespace cascadekit::tools {

namespace {
std::string duration(double s) {
    if (s < 0) return "?";
    char buf[32];
    if (s < 1) std::snprintf(buf, sizeof buf, "%.3f s", s);  // short mining passes: device timings
    else if (s < 10) std::snprintf(buf, sizeof buf, "%.2f s", s);
    else if (s < 120) std::snprintf(buf, sizeof buf, "%.0f s", s);
    else if (s < 7200) std::snprintf(buf, sizeof buf, "%.1f min", s / 60);
    else std::snprintf(buf, sizeof buf, "%.1f h", s / 3600);
    return buf;
}

class LogObserver final : public TrainObserver {
public:
    void on_round(const RoundReport& r) override {
        spdlog::info("stage {:2d} round {:3d}: d {:.4f}  f {:.4f}  err {:.4f}  elapsed {}  ETA {}", r.stage, r.round,
                     r.detection_rate, r.fp_rate, r.weighted_error, duration(r.seconds), duration(r.eta_seconds));
    }
    void on_stage(const StageReport& s) override {
        spdlog::info("stage {:2d} done: {} learners, threshold {:.4g}{}, d {:.4f}, f {:.4f}, F {:.3g}, {} negatives "
                     "(mined in {}), peak memory {:.0f} MiB",
                     s.stage, s.learners, s.threshold, s.carry != 0.0f ? fmt::format(", carry {:.4g}", s.carry) : std::string(), s.detection_rate, s.fp_rate, s.cascade_fp_rate, s.negatives,
                     duration(s.mining_seconds), s.peak_memory_mb);
    }
    void on_mining(const MiningProgress& p) override {
        const double rate = p.windows_scanned ? double(p.false_positives) / double(p.windows_scanned) : 0.0;
        spdlog::info("mining for stage {}: {}/{} images, {} windows, {} false positives (FP rate {:.3g}){}", p.stage,
                     p.images_done, p.images, p.windows_scanned, p.false_positives, rate,
                     p.finished ? ", done in " + duration(p.seconds) +
                                      fmt::format(" (detector {}, negatives {})", duration(p.detect_seconds), duration(p.collect_seconds))
                                : ", ETA " + duration(p.eta_seconds));
    }
    void on_note(const std::string& text) override { spdlog::info("{}", text); }
};

}  // namespace

int run_train(const TrainCommandOptions& o) {
    try {
        // The model and its checkpoint beside it are written after every round: a place that
        // cannot take them is refused now, not after the first round's work.
        check_writable_file(o.out);
        TrainConfig cfg = load_train_config(o.config);
        // The detector that mines does not change the result (same windows on every backend), so
        // it is not part of the configuration's fingerprint: a CPU run may resume on the GPU.
        if (!o.backend.empty() && !parse_backend(o.backend, cfg.mining.backend))
            throw std::runtime_error("--backend must be auto, cpu or cuda, not '" + o.backend + "'");
        const Dataset data = training_dataset(cfg, data_root(), [](const std::string& n) { spdlog::info("{}", n); });
        spdlog::info("training {} from {}: {} positives, {} negative images (seed {})", to_string(cfg.kind), o.config,
                     data.positives.size(), data.negatives.size(), cfg.seed);
        spdlog::info("data: {}", data.description);
        TrainOptions opt;
        opt.model_out = o.out;
        opt.resume = o.resume;
        opt.finish = o.finish;
        opt.stop_after_rounds = o.stop_after_rounds;
        LogObserver log;
        const TrainingRun run = train_model(cfg, data, data_root(), load_image, opt, log);
        const TrainSummary& s = run.summary;
        spdlog::info("{}: {} stage(s), {} learners, F {:.3g}, {} , peak memory {:.0f} MiB{}", o.out, s.stages, s.learners,
                     s.cascade_fp_rate, duration(s.seconds), s.peak_memory_mb,
                     s.finished ? " (finished: " + s.stop_reason + ")" : " (not finished; continue with --resume)");
        if (run.threshold) {
            std::printf("%s: threshold %.6g chosen on held-out images\n", o.out.c_str(), decimal_value(run.threshold->threshold));
            print_calibration(*run.threshold);
        } else if (!run.no_threshold.empty()) {
            spdlog::warn("{}: no threshold chosen, the model keeps threshold 0: {}", o.out, run.no_threshold);
        }
        return kExitOk;
    } catch (const std::exception& e) {
        spdlog::error("{}", e.what());
        return kExitFatal;
    }
}

}  // namespace cascadekit::tools
