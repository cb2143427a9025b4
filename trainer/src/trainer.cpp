// The training loop, which knows no stage kind: stages, rounds, bootstrapping, checkpoints and
// resuming. What a stage kind adds (its samples' features, a round, its completion test, its
// checkpoint state) is its StageTrainer's (stage_trainer.hpp, stages/).
#include "cascadekit/trainer/trainer.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <mutex>

#include "cascadekit/io/model_file.hpp"
#include "cascadekit/model/hog_svm_stage.hpp"
#include "cascadekit/trainer/stage_trainer.hpp"
#include "checkpoint.hpp"
#include "dense.hpp"
#include "run_support.hpp"
#include "streams.hpp"

namespace cascadekit {

double peak_memory_mb() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return static_cast<double>(u.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

namespace {
using detail::Checkpoint;
using detail::Clock;
using detail::MiningTotals;
using detail::seconds_since;

class CascadeLoop {
public:
    CascadeLoop(const TrainConfig& cfg, const Dataset& data, const ImageLoader& loader, const TrainOptions& opt,
                TrainObserver& obs)
        : cfg_(cfg), data_(data), loader_(loader), opt_(opt), obs_(obs) {}

    TrainSummary run() {
        const auto t0 = Clock::now();
        if (opt_.resume) {
            ck_ = detail::read_checkpoint(state_file());
            if (ck_.fingerprint != config_fingerprint(cfg_))
                throw TrainError(state_file().string() + ": the configuration changed since this run started; "
                                 "resume with the same configuration file or start afresh without --resume");
        } else {
            ck_.fingerprint = config_fingerprint(cfg_);
            ck_.created_utc = opt_.created_utc.empty() ? detail::utc_now() : opt_.created_utc;
        }
        const double seconds_before = ck_.seconds;
        auto elapsed = [&] { return seconds_before + seconds_since(t0); };
        if (ck_.finished) return summary(elapsed());

        // The GPU's context starts while the data load (a third of a second of the first mining
        // pass on an H100 host otherwise).
        warm_ = warm_up(cfg_.mining.backend);
        const auto& transforms = cfg_.data.negative_transforms;
        const int copies = cfg_.data.jitter_copies;
        obs_.on_note("loading " + std::to_string(data_.positives.size()) + " positive crops" +
                     (copies > 0 ? " (×" + std::to_string(copies + 1) + " with jittered copies)" : std::string()) + " and " +
                     std::to_string(data_.negatives.size()) + " negative images" +
                     (transforms.empty() ? std::string() : " (×" + std::to_string(transforms.size() + 1) + " with their transforms)"));
        const bool colour = cfg_.hog.colour();
        crops_ = detail::load_crops(data_.positives, loader_, cfg_.window.width, cfg_.window.height, cfg_.data, cfg_.seed, colour);
        images_ = detail::load_images(data_.negatives, loader_, transforms, colour);
        calibration_ = calibration_mask(cfg_.boosting.calibration_every, "boosting.calibration_every", "calibrate the HoG stage thresholds");
        wald_calibration_ =
            calibration_mask(cfg_.waldboost.calibration_every, "waldboost.calibration_every", "set the WaldBoost rejection thresholds");
        allowed_ = detail::keep_clear_filter(data_, images_, transforms, cfg_);
        if (opt_.resume)
            detail::validate_checkpoint(ck_, state_file(), detail::model_of(cfg_, {}, "", ""), images_,
                                        cfg_.mining.min_scale);
        // A run stopped in its final stage resumes there (the final trainer is no stage_sequence entry).
        final_ = opt_.resume && !cfg_.boosting.final_stage.empty() && ck_.current_kind == cfg_.boosting.final_stage;
        make_trainer();
        if (!opt_.resume) {
            ck_.negatives = detail::random_windows(images_, target_negatives(), cfg_.window.width, cfg_.window.height,
                                                   cfg_.mining.scale_step, detail::streams::initial_negatives(cfg_.seed), allowed_);
            obs_.on_note("stage 1 negatives: " + std::to_string(ck_.negatives.size()) + " random windows");
        }
        start_stage(opt_.resume);
        if (opt_.finish) {
            if (!opt_.resume) throw TrainError("--finish ends a checkpointed run: give it with --resume");
            finish_requested_ = true;
            finish_stage();
            ck_.seconds = elapsed();
            save();
            obs_.on_note(ck_.stop_reason);
            return summary(elapsed());
        }

        start_warm_mining();  // not for --finish: no mining follows
        int rounds_here = 0;
        while (!ck_.finished) {
            const RoundResult r = trainer_->round(context());
            if (!r.note.empty()) obs_.on_note(r.note);
            if (r.added) {
                report_round(r);
                start_warm_mining();  // a no-op once started
            }
            ++ck_.rounds;
            ++rounds_here;
            if (r.wants_negatives && !r.stage_complete && !more_negatives(r)) exhausted_in_stage_ = true;
            if (r.stage_complete || exhausted_in_stage_) finish_stage();
            ck_.seconds = elapsed();
            save();
            if (opt_.stop_after_rounds > 0 && rounds_here >= opt_.stop_after_rounds && !ck_.finished) {
                obs_.on_note("stopping after " + std::to_string(rounds_here) + " round(s) as asked; continue with --resume");
                break;
            }
        }
        return summary(elapsed());
    }

private:
    std::filesystem::path state_file() const {
        if (!opt_.state_file.empty()) return opt_.state_file;
        auto p = opt_.model_out;
        p += ".state";
        return p;
    }
    // The crops (with their copies) that only calibrate, every `every`th source photo's (0: none);
    // says how many, and refuses a split that leaves none on either side.
    std::vector<std::uint8_t> calibration_mask(int every, const std::string& key, const std::string& what) {
        std::vector<std::uint8_t> mask = detail::calibration_mask(data_.positives, crops_.size(), every);
        if (every <= 0) return mask;
        const auto n = static_cast<std::size_t>(std::count(mask.begin(), mask.end(), std::uint8_t{1}));
        if (n == 0 || n == mask.size())
            throw TrainError(key + " " + std::to_string(every) + " leaves " + (n == 0 ? "no positives to calibrate with" : "no positives to train on") +
                             " (" + std::to_string(data_.positives.size()) + " positive crops): lower it or set it to 0");
        obs_.on_note(std::to_string(n) + " of the " + std::to_string(crops_.size()) + " positives (the crops of one source photo in " +
                     std::to_string(every) + ") only " + what + " (" + key + ")");
        return mask;
    }
    int stage_number() const { return static_cast<int>(ck_.stages.size()) + 1; }
    // The calibration positives of the current stage's kind: waldboost.calibration_every for
    // WaldBoost stages, boosting.calibration_every for the others.
    StageContext context() const {
        const std::vector<std::uint8_t>& mask = trainer_kind_ == "waldboost_lbp" ? wald_calibration_ : calibration_;
        return {cfg_, stage_number(), positives(), ck_.negatives.size(), mask.empty() ? nullptr : &mask, &ck_.stages,
                prefix_.stages > 0 ? &prefix_ : nullptr};
    }
    // The positives the current stage trainer sees: crops [0, positives()) (data.jitter_only_for:
    // the jittered copies, which follow the crops, only for that trainer's stages).
    std::size_t positives() const {
        const std::string& only = cfg_.data.jitter_only_for;
        if (only.empty() || trainer_kind_ == only) return crops_.size();
        return crops_.size() / static_cast<std::size_t>(1 + std::max(cfg_.data.jitter_copies, 0));  // the crops alone
    }
    // The kind of stage `stage` (1-based): boosting.stage_sequence, else boosting.stage_kind.
    std::string_view kind_of_stage(int stage) const {
        return final_ ? std::string_view(cfg_.boosting.final_stage) : std::string_view(stage_kind_of(cfg_, stage));
    }

    // The negatives a stage trains on: what its trainer wants, else the configured default.
    std::size_t target_negatives() const {
        if (trainer_ && trainer_->negatives_wanted() > 0) return trainer_->negatives_wanted();
        return cfg_.boosting.negatives_per_stage > 0 ? static_cast<std::size_t>(cfg_.boosting.negatives_per_stage) : positives();
    }

    // Makes (or keeps) the stage trainer of the next stage, with the positives stored.
    void make_trainer() {
        const std::string_view kind = kind_of_stage(stage_number());
        if (trainer_ && trainer_kind_ == kind) return;
        const StageTrainerKind* k = find_stage_trainer(kind);
        if (k == nullptr) throw TrainError("no stage trainer for stage kind '" + std::string(kind) + "'");
        trainer_ = k->make(cfg_);
        trainer_kind_ = std::string(kind);
        trainer_->resize(positives());
        detail::visit_positives(crops_, trainer_->needs(), cfg_.hog.gradient(), cfg_.window.width, cfg_.window.height,
                                [&](std::size_t i, const LevelFeatures& f, int x, int y) { trainer_->store(i, f, x, y); }, positives());
    }

    // Stores the negatives in the stage trainer, visiting each negative image's levels once; a
    // nested hog_svm stage after a prefix of other kinds also gets the prefix's running scores
    // from the same visit (and from the crops).
    void store_negatives() {
        trainer_->resize(positives() + ck_.negatives.size());
        const std::unique_ptr<CascadeEvaluator> prefix = prefix_evaluator();
        FeatureNeeds needs = trainer_->needs();
        if (prefix) needs |= prefix->needs();
        detail::visit_windows(ck_.negatives, images_, positives(), needs, cfg_.hog.gradient(),
                              [&](std::size_t i, const LevelFeatures& f, int x, int y) {
                                  trainer_->store(i, f, x, y);
                                  if (prefix) run_prefix(*prefix, i, f, x, y);
                              });
        if (prefix)
            detail::visit_positives(crops_, prefix->needs(), cfg_.hog.gradient(), cfg_.window.width, cfg_.window.height,
                                    [&](std::size_t i, const LevelFeatures& f, int x, int y) { run_prefix(*prefix, i, f, x, y); },
                                    positives());
    }

    // A nested hog_svm stage after stages of another kind (a hybrid's LBP prefix) starts from the
    // running score those stages leave, which the detector's own evaluator computes for every
    // stored sample (the crops and the negatives as visited for the stage trainer): a function of
    // the stages and the samples, so a resumed run finds the same. The evaluator of those
    // stages, with prefix_ sized for the samples; null (and prefix_ empty) when there are none.
    std::unique_ptr<CascadeEvaluator> prefix_evaluator() {
        prefix_ = {};
        if (!cfg_.boosting.nested || trainer_kind_ != "hog_svm") return nullptr;
        std::size_t k = 0;
        while (k < ck_.stages.size() && ck_.stages[k].get_if<HogSvmStage>() == nullptr) ++k;
        if (k == 0) return nullptr;
        const std::size_t n = positives() + ck_.negatives.size();
        prefix_.stages = k;
        prefix_.running.assign(n, 0.0f);
        prefix_.rejected.assign(n, 0);
        return std::make_unique<CascadeEvaluator>(
            detail::model_of(cfg_, {ck_.stages.begin(), ck_.stages.begin() + static_cast<std::ptrdiff_t>(k)}, "", ""));
    }
    void run_prefix(const CascadeEvaluator& prefix, std::size_t i, const LevelFeatures& f, int x, int y) {
        WindowProgress p;
        prefix_.rejected[i] = prefix.evaluate_stages(f, x, y, 0, prefix_.stages, p) ? 0 : 1;
        prefix_.running[i] = p.cleared;
    }

    // A stage's pool ran low: refill it, or (waldboost.rescan false, the pool already short of what
    // the stage wants: the backgrounds are used up) go on with the negatives left while any are.
    // The pool's size is in the checkpoint, so a resumed run decides the same way.
    bool more_negatives(const RoundResult& r) {
        if (cfg_.waldboost.rescan || ck_.negatives.size() >= target_negatives()) return refill();
        if (r.negatives_left > 0) return true;
        ck_.stop_reason = "negative data exhausted: stage " + std::to_string(stage_number()) + " with " +
                          std::to_string(trainer_->size()) + " weak classifiers rejects every one of the " +
                          std::to_string(ck_.negatives.size()) +
                          " negatives left (the backgrounds are not scanned again: waldboost.rescan is false)";
        obs_.on_note(ck_.stop_reason);
        return false;
    }

    // Bootstrapping inside a stage: a new negative pool of windows that the cascade so far and the
    // stage as it stands all accept. False when the negative images hold none.
    bool refill() {
        const int stage = stage_number();
        const auto t = Clock::now();
        std::vector<Stage> with = ck_.stages;
        with.push_back(trainer_->stage());
        MiningTotals totals;
        const std::size_t want = target_negatives();
        // From each image at most a share of the pool (so that at least ~100 images contribute),
        // images in a seeded order, scanning only as many as the pool needs.
        const std::size_t per_image = std::max<std::size_t>(1, want / 100);
        wait_warm_mining();
        const auto found = detail::mine_pool(detail::model_of(cfg_, with, data_.description, ck_.created_utc), cfg_, images_, want,
                                             per_image,
                                             detail::streams::refill_subsample(cfg_.seed, static_cast<std::uint64_t>(stage), trainer_->size()),
                                             stage, obs_, observer_mutex_, &totals, allowed_, !cfg_.waldboost.rescan);
        ck_.mining_seconds += seconds_since(t);
        if (found.empty()) {
            ck_.stop_reason = "negative data exhausted: stage " + std::to_string(stage) + " with " +
                              std::to_string(trainer_->size()) + " weak classifiers accepts no window of the negative images";
            obs_.on_note(ck_.stop_reason);
            return false;
        }
        if (found.size() < trainer_->negatives_needed()) {
            ck_.stop_reason = "negative data nearly exhausted: stage " + std::to_string(stage) + " with " +
                              std::to_string(trainer_->size()) + " weak classifiers accepts only " +
                              std::to_string(found.size()) + " windows of the negative images (fewer than the " +
                              std::to_string(trainer_->negatives_needed()) + " it needs to go on: waldboost.min_negatives)";
            obs_.on_note(ck_.stop_reason);
            return false;
        }
        obs_.on_note("stage " + std::to_string(stage) + ", " + std::to_string(trainer_->size()) + " weak classifiers: pool refilled with " +
                     std::to_string(found.size()) + " negatives (1 accepted per " +
                     std::to_string(totals.windows / std::max<std::uint64_t>(totals.accepted, 1)) + " windows scanned)" +
                     (found.size() < want ? "; only " + std::to_string(found.size()) + " left (wanted " + std::to_string(want) + "), training on those" +
                                                (cfg_.waldboost.rescan ? std::string() : std::string(" until every one is rejected (waldboost.rescan is false: no more scans)"))
                                          : ""));
        ck_.negatives = found;
        store_negatives();
        trainer_->refilled(context());
        return true;
    }

    // Stores the stage's negatives and starts the stage, or, on resume, restores the stage in
    // training from the checkpoint.
    void start_stage(bool resuming) {
        make_trainer();
        store_negatives();
        if (resuming && !ck_.current.empty()) {
            if (ck_.current_kind != trainer_kind_)
                throw detail::checkpoint_damaged(state_file(), "its stage in training is of kind '" + ck_.current_kind +
                                                                   "', the configuration trains '" + trainer_kind_ + "'");
            ByteReader in(ck_.current.data(), ck_.current.size());
            try {
                trainer_->load_state(in, context());
                if (!in.at_end()) throw ByteCodecError("bytes after the stage in training");
            } catch (const std::exception& e) {
                throw detail::checkpoint_damaged(state_file(), std::string("the stage in training: ") + e.what());
            }
            obs_.on_note("resuming: " + std::to_string(ck_.stages.size()) + " stage(s) done, stage " +
                         std::to_string(stage_number()) + " has " + std::to_string(trainer_->size()) + " learner(s)");
        } else {
            trainer_->begin_stage(context());
        }
    }

    // Sets the mining backend up ahead of the first bootstrapping pass (detail::warm_mining), with
    // the cascade as it stands (mining runs its kinds of stage until the next kind starts), once
    // the stage trainer's warm-up stage makes it a valid model: at the run's start, or after the
    // first round.
    void start_warm_mining() {
        if (warm_mining_started_) return;
        std::vector<Stage> with = ck_.stages;
        with.push_back(trainer_->warm_up_stage());
        CascadeModel model = detail::model_of(cfg_, std::move(with), "", "");
        try {
            validate_model(model);
        } catch (const ModelError&) {
            return;  // no learner yet: after the first round
        }
        warm_mining_ = detail::warm_mining(std::move(model), cfg_, images_);
        warm_mining_started_ = true;
    }

    // Bootstrapping does not share the device with the warm-up (detail::warm_mining).
    void wait_warm_mining() {
        if (warm_mining_.valid()) warm_mining_.get();
    }

    void report_round(const RoundResult& res) {
        RoundReport r;
        r.stage = stage_number();
        r.round = static_cast<int>(trainer_->size());
        r.detection_rate = trainer_->detection_rate();
        r.fp_rate = trainer_->fp_rate();
        r.weighted_error = res.weighted_error;
        r.seconds = ck_.seconds;
        const double F_now = ck_.cascade_fp_rate * std::max(trainer_->fp_rate(), 1e-12);
        // The stage trainer's own progress when it knows it (a sequence of fixed length), else
        // how far the false-positive rate has come towards F_target.
        const double progress = res.progress >= 0
                                    ? (static_cast<double>(ck_.stages.size()) + res.progress) / cfg_.boosting.max_stages
                                    : std::log(F_now) / std::log(cfg_.boosting.F_target);
        r.eta_seconds = progress > 0.02 ? r.seconds * (1.0 - progress) / progress : -1.0;
        obs_.on_round(r);
    }

    static std::string rate_text(double r) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.3g", r);
        return buf;
    }

    // How many hog_svm stages at the end of the cascade each used all max_learners_per_stage
    // learners. Read off the stages themselves, so a resumed run counts as the first did.
    int stalled_stages() const {
        int n = 0;
        for (auto it = ck_.stages.rbegin(); it != ck_.stages.rend(); ++it, ++n) {
            const auto* h = it->get_if<HogSvmStage>();
            if (h == nullptr || static_cast<int>(h->learners.size()) < cfg_.boosting.max_learners_per_stage) break;
        }
        return n;
    }

    void finish_stage() {
        const int stage = stage_number();
        if (finish_requested_) {
            ck_.finished = true;
            ck_.stop_reason = "ended on request (--finish) with " + std::to_string(ck_.stages.size() + (trainer_->size() > 0)) +
                              " stage(s), the last with " + std::to_string(trainer_->size()) + " learner(s)";
            if (trainer_->size() == 0) return;  // the completed stages are the model
        }
        if (trainer_->size() == 0) {
            ck_.finished = true;
            ck_.stop_reason = "stage " + std::to_string(stage) + " could not be trained";
            return;
        }
        if (const std::string note = trainer_->close_stage(context()); !note.empty()) obs_.on_note(note);
        ck_.stages.push_back(trainer_->stage());
        // A stage that rejects every training negative says little about the rate on new data:
        // count it as below one in (negatives + 1), and let bootstrapping find out what is left.
        ck_.cascade_fp_rate *= std::max(trainer_->fp_rate(), 1.0 / static_cast<double>(ck_.negatives.size() + 1));
        report_stage(stage);
        ck_.current.clear();
        ck_.current_kind.clear();
        if (final_) {
            ck_.finished = true;
            ck_.stop_reason += "; then trained the final " + cfg_.boosting.final_stage + " stage";
            return;
        }
        if (finish_requested_) return;
        if (exhausted_in_stage_) {
            ck_.finished = true;
            ck_.exhausted = true;
            return;
        }
        const bool complete = cascade_complete(stage);
        if (complete && cfg_.boosting.final_stage.empty()) return;
        bootstrap_next(stage, complete);
    }

    void report_stage(int stage) {
        StageReport s;
        s.stage = stage;
        s.learners = static_cast<int>(trainer_->size());
        s.threshold = trainer_->threshold();
        if (const auto* h = ck_.stages.back().get_if<HogSvmStage>()) s.carry = h->carry;
        s.detection_rate = trainer_->detection_rate();
        s.fp_rate = trainer_->fp_rate();
        s.cascade_fp_rate = ck_.cascade_fp_rate;
        s.mining_seconds = ck_.mining_seconds;
        s.negatives = ck_.negatives.size();
        s.peak_memory_mb = peak_memory_mb();
        obs_.on_stage(s);
    }

    // Complete (F_target, max_stages or stalled): the run is finished, and says why, unless
    // boosting.final_stage asks for one more stage.
    bool cascade_complete(int stage) {
        const int stalled = stalled_stages();
        const bool complete = ck_.cascade_fp_rate <= cfg_.boosting.F_target ||
                              static_cast<int>(ck_.stages.size()) >= cfg_.boosting.max_stages ||
                              (cfg_.boosting.stop_when_stalled > 0 && stalled >= cfg_.boosting.stop_when_stalled);
        if (complete) {
            ck_.finished = true;
            if (ck_.cascade_fp_rate <= cfg_.boosting.F_target) ck_.stop_reason = "reached F_target";
            else if (static_cast<int>(ck_.stages.size()) >= cfg_.boosting.max_stages) ck_.stop_reason = "reached max_stages";
            else
                ck_.stop_reason = "stalled: stages " + std::to_string(stage - stalled + 1) + "-" + std::to_string(stage) +
                                  " each used all " + std::to_string(cfg_.boosting.max_learners_per_stage) +
                                  " learners without reaching f_max (boosting.stop_when_stalled), at F " +
                                  rate_text(ck_.cascade_fp_rate);
        }
        return complete;
    }

    // Bootstrapping: the next stage (or the final one) trains on the cascade's false positives.
    void bootstrap_next(int stage, bool complete) {
        const auto t = Clock::now();
        const CascadeModel so_far = detail::model_of(cfg_, ck_.stages, data_.description, ck_.created_utc);
        wait_warm_mining();
        const auto found = detail::mine(so_far, cfg_, images_, stage + 1, obs_, observer_mutex_, nullptr, allowed_);
        ck_.mining_seconds = seconds_since(t);
        if (found.empty()) {
            ck_.finished = true;
            if (complete) {
                ck_.stop_reason += "; no negative window passes the cascade, so the final " + cfg_.boosting.final_stage +
                                   " stage was not trained";
            } else {
                ck_.exhausted = true;
                ck_.stop_reason = "negative data exhausted: the cascade accepts no window of the negative images";
            }
            obs_.on_note(ck_.stop_reason);
            return;
        }
        if (complete) {
            ck_.finished = false;
            final_ = true;  // from here on kind_of_stage() names the final trainer
            obs_.on_note(ck_.stop_reason + ": the final " + cfg_.boosting.final_stage + " stage trains on the " +
                         std::to_string(found.size()) + " negative windows the cascade accepts (at most the stage's share)");
        }
        make_trainer();  // the next stage's trainer: its positives, and so its negatives' count
        const std::size_t want = target_negatives();
        if (found.size() < want)
            obs_.on_note("only " + std::to_string(found.size()) + " false positives left (wanted " + std::to_string(want) +
                         "); stage " + std::to_string(stage + 1) + " trains on those");
        ck_.negatives = detail::subsample(found, want,
                                          detail::streams::mined_subsample(cfg_.seed, static_cast<std::uint64_t>(stage + 1)));
        start_stage(false);
    }

    void save() {
        if (!ck_.stages.empty())
            save_model(detail::model_of(cfg_, ck_.stages, data_.description, ck_.created_utc), opt_.model_out);
        ByteWriter state;
        trainer_->save_state(state);
        ck_.current = std::move(state.bytes);
        ck_.current_kind = trainer_kind_;
        detail::write_checkpoint(ck_, state_file());
    }

    TrainSummary summary(double seconds) const {
        TrainSummary s;
        s.stages = static_cast<int>(ck_.stages.size());
        for (const Stage& st : ck_.stages) s.learners += static_cast<int>(st.size());
        s.cascade_fp_rate = ck_.cascade_fp_rate;
        s.seconds = seconds;
        s.peak_memory_mb = peak_memory_mb();
        s.finished = ck_.finished;
        s.negatives_exhausted = ck_.exhausted;
        s.stop_reason = ck_.stop_reason;
        if (!ck_.stages.empty()) s.model = detail::model_of(cfg_, ck_.stages, data_.description, ck_.created_utc);
        return s;
    }

    const TrainConfig& cfg_;
    const Dataset& data_;
    const ImageLoader& loader_;
    const TrainOptions& opt_;
    TrainObserver& obs_;
    std::future<void> warm_;  // the mining backend's set-up (warm_up), waited for when the run ends
    std::mutex observer_mutex_;
    std::vector<Image> crops_, images_;
    std::vector<std::uint8_t> calibration_;       // boosting.calibration_every, per crop (empty: off)
    std::vector<std::uint8_t> wald_calibration_;  // waldboost.calibration_every, per crop (empty: off)
    std::future<void> warm_mining_;  // the first bootstrapping pass's set-up (detail::warm_mining), after images_
    bool warm_mining_started_ = false;
    PrefixRun prefix_;  // a nested hog_svm stage's running scores after a prefix of another kind (run_prefix)
    detail::WindowFilter allowed_;  // annotated images: negatives keep clear of their objects
    bool exhausted_in_stage_ = false;
    bool finish_requested_ = false;  // TrainOptions::finish
    bool final_ = false;             // training boosting.final_stage
    Checkpoint ck_;
    std::unique_ptr<StageTrainer> trainer_;
    std::string trainer_kind_;
};
}  // namespace

TrainSummary train(const TrainConfig& config, const Dataset& data, const ImageLoader& loader, const TrainOptions& options,
                   TrainObserver& observer) {
    if (data.positives.empty()) throw TrainError("no positive training crops");
    if (data.negatives.empty()) throw TrainError("no negative training images");
    if (config.kind == TrainKind::Dense) {
        if (options.resume) observer.on_note("dense training has no checkpoints: training from the start");
        return detail::train_dense(config, data, loader, options, observer);
    }
    return CascadeLoop(config, data, loader, options, observer).run();
}

}  // namespace cascadekit
