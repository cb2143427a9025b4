#pragma once
// The seam between the training loop and a stage kind. The loop (trainer.cpp, CascadeLoop) owns
// the data, the stages, bootstrapping, checkpoints and resuming, and knows no stage kind; a
// StageTrainer owns what is particular to its kind: how it stores training windows, one boosting
// round, when its stage is complete, and its part of the checkpoint. Kinds are listed in
// trainer/src/stages/stage_trainers.cpp (one line each), or added with register_stage_trainer.
//
// Samples are numbered positives first: [0, positives) are positive windows, [positives,
// positives + negatives) negative ones. Everything a trainer does must be a function of the
// configuration's seed and the stored samples (RandomStream, trainer/random.hpp), so that
// training is deterministic for any thread count and a resumed run gives the same bytes.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cascadekit/io/byte_codec.hpp"
#include "cascadekit/model/cascade.hpp"
#include "cascadekit/runtime/window_evaluator.hpp"
#include "cascadekit/trainer/config.hpp"

namespace cascadekit {

// The cascade's leading stages of kinds other than hog_svm (a hybrid's LBP prefix) run on every
// stored sample by the detector's own evaluator (CascadeEvaluator::evaluate_stages).
struct PrefixRun {
    std::size_t stages = 0;              // how many leading stages
    std::vector<float> running;          // per sample: the running score after them
    std::vector<std::uint8_t> rejected;  // per sample: 1 when one of them rejects it
};

struct StageContext {
    const TrainConfig& config;
    int stage = 1;              // 1-based
    std::size_t positives = 0;  // sample counts
    std::size_t negatives = 0;
    // 1 marks a positive (of [0, positives)) that only calibrates thresholds (the stage kind's
    // calibration_every: boosting's for HoG stages, waldboost's for WaldBoost stages); null or
    // empty when there are none.
    const std::vector<std::uint8_t>* calibration = nullptr;
    // The cascade's finished stages, in order (null: none): what a nested stage's running score
    // (HogSvmStage::carry) comes from.
    const std::vector<Stage>* stages = nullptr;
    // For a nested stage after stages of another kind (a hybrid's LBP prefix): each sample's
    // running score after those leading stages, as the detector forms it, and whether they reject
    // it; null when the cascade has no such stages or no stage is nested.
    const PrefixRun* prefix = nullptr;
    std::size_t samples() const { return positives + negatives; }
    bool calibrates(std::size_t i) const { return calibration && i < calibration->size() && (*calibration)[i] != 0; }
};

struct RoundResult {
    bool added = false;           // a weak learner was added (false: the stage could not grow)
    bool stage_complete = false;  // the loop closes the stage after this round
    // The negatives left are too few: the loop mines a new pool through the cascade so far and
    // this stage as it stands (windows they all accept), stores it and calls refilled().
    bool wants_negatives = false;
    std::size_t negatives_left = 0;  // with wants_negatives: the pool's negatives still in play
    double weighted_error = 0;    // of the added learner (WaldBoost: its normaliser Z)
    double progress = -1;         // share of the stage done, when the trainer knows it (ETA); < 0 unknown
    std::string note;             // a notable event for the log ("no candidate beats chance…"), or empty
};

class StageTrainer {
public:
    virtual ~StageTrainer() = default;
    // The level features store() reads.
    virtual FeatureNeeds needs() const = 0;
    // Sample storage: resize keeps samples below the new count; store is called from many
    // threads at once, each slot once, with the window at (x, y) of a level's features.
    virtual void resize(std::size_t samples) = 0;
    virtual void store(std::size_t slot, const LevelFeatures& features, int x, int y) = 0;

    // A new, empty stage on the stored samples.
    virtual void begin_stage(const StageContext& ctx) = 0;
    // One round: adds at most one weak learner and says whether the stage is complete.
    virtual RoundResult round(const StageContext& ctx) = 0;

    // The stage ends (complete, or cut short by the data or --finish) and is about to be stored:
    // a last change to it, e.g. thresholds set from the finished stage. Returns a note for the
    // log (empty: nothing to say).
    virtual std::string close_stage(const StageContext&) { return {}; }
    // The negative samples were replaced (a refill asked for by round()); the stage goes on.
    virtual void refilled(const StageContext& ctx) { begin_stage(ctx); }
    // The negative pool size the stage wants (0: the loop's default, boosting.negatives_per_stage
    // or as many as positives).
    virtual std::size_t negatives_wanted() const { return 0; }
    // The fewest negatives worth going on with after a refill inside the stage: a refill that
    // finds fewer ends the stage (and the run) as if the negatives were exhausted.
    virtual std::size_t negatives_needed() const { return 1; }

    virtual std::size_t size() const = 0;  // weak learners in the stage so far
    virtual Stage stage() const = 0;       // the stage so far
    // A stage of this kind that detectors can run before the stage has a learner, to set the
    // mining backend up ahead of the first bootstrapping pass (its windows need not mean
    // anything). The default, the stage so far, suits kinds whose first pass comes after many
    // rounds; a kind whose first round may already ask for negatives gives one of its own.
    virtual Stage warm_up_stage() const { return stage(); }
    // On the stage's own training samples, with its current threshold.
    virtual double detection_rate() const = 0;
    virtual double fp_rate() const = 0;
    virtual float threshold() const = 0;

    // The stage so far and whatever else the next round needs (sample weights…), for the
    // checkpoint; load_state is called after the samples are stored, instead of begin_stage, and
    // throws ByteCodecError or ModelError when the state is damaged or does not fit the samples.
    virtual void save_state(ByteWriter& out) const = 0;
    virtual void load_state(ByteReader& in, const StageContext& ctx) = 0;
};

struct StageTrainerKind {
    // The name configurations use: the model stage kind it trains (StageBase::kind()), or, for a
    // second trainer of a kind, its own name (hog_dense trains hog_svm stages).
    std::string_view kind;
    std::function<std::unique_ptr<StageTrainer>(const TrainConfig& config)> make;
};
// Adds (or replaces) a kind; call before parsing configurations that name it.
void register_stage_trainer(StageTrainerKind kind);
const StageTrainerKind* find_stage_trainer(std::string_view kind);
std::string known_stage_trainers();  // "hog_svm", for messages

}  // namespace cascadekit
