#pragma once
// Training boosted HoG cascades (Zhu et al., CVPR 2006; Bilgiç, MIT 2010) and the dense Dalal-Triggs baseline, with
// bootstrapping through the runtime, progress reports, atomic checkpoints and exact resume.
#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>

#include "cascadekit/features/image.hpp"
#include "cascadekit/model/cascade.hpp"
#include "cascadekit/io/dataset.hpp"
#include "cascadekit/trainer/config.hpp"

namespace cascadekit {

class TrainError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct RoundReport {
    int stage = 0;      // 1-based
    int round = 0;      // learners in the stage so far
    double detection_rate = 0;  // of the stage on its training positives
    double fp_rate = 0;         // of the stage on its training negatives
    double weighted_error = 0;  // of the chosen learner
    double seconds = 0;         // since training started (this process and earlier ones)
    double eta_seconds = -1;    // estimate for the whole run, < 0 unknown
};
struct StageReport {
    int stage = 0;
    int learners = 0;
    float threshold = 0;
    float carry = 0;              // a nested stage's weight on the running score (0: not nested)
    double detection_rate = 0, fp_rate = 0;
    double cascade_fp_rate = 0;   // F so far: product of the stages' training FP rates
    double mining_seconds = 0;    // bootstrapping that fed this stage
    std::size_t negatives = 0;
    double peak_memory_mb = 0;
};
struct MiningProgress {
    int stage = 0;              // the stage the negatives are for
    std::size_t images_done = 0, images = 0;
    std::uint64_t windows_scanned = 0, false_positives = 0;
    double seconds = 0, eta_seconds = -1;
    bool finished = false;
    // When finished: of `seconds`, the detector's (loading and scanning the images) and the
    // training's (turning the windows it accepts into negatives).
    double detect_seconds = 0, collect_seconds = 0;
};

// How training reports; the tool logs these. Calls come from one thread at a time.
class TrainObserver {
public:
    virtual ~TrainObserver() = default;
    virtual void on_round(const RoundReport&) {}
    virtual void on_stage(const StageReport&) {}
    virtual void on_mining(const MiningProgress&) {}
    virtual void on_note(const std::string&) {}  // notable events: negatives ran short, data exhausted…
};

struct TrainOptions {
    std::filesystem::path model_out;   // the model, rewritten atomically after every round
    std::filesystem::path state_file;  // default: model_out + ".state"
    bool resume = false;
    int stop_after_rounds = 0;  // > 0: stop (checkpoint saved) after that many rounds in this process
    // With resume: end the run now, keeping the stage in training as it stands (a WaldBoost
    // sequence of the weak classifiers so far; HoG stage learners with their threshold) as the
    // last stage, and write the model: for a run that would take longer than it is worth.
    bool finish = false;
    std::string created_utc;    // metadata; default now (or $SOURCE_DATE_EPOCH, for reproducible files)
};

struct TrainSummary {
    int stages = 0;
    int learners = 0;
    double cascade_fp_rate = 1.0;
    double seconds = 0;
    double peak_memory_mb = 0;
    bool finished = false;          // reached F_target / max_stages / exhausted negatives
    bool negatives_exhausted = false;
    std::string stop_reason;
    // The model as options.model_out holds it at the end of this call (no stages when no stage
    // was trained yet): what a caller keeps working on, e.g. to choose its operating point, without
    // reading the file back.
    CascadeModel model;
};

// Trains per config.kind on `data` (already without its held-out part). Requires: a config from
// parse_train_config (checked), non-empty positives and negatives. Ensures: the model and its
// checkpoint (options.state_file) are written atomically after every round; the same config,
// data and seed give the same model bytes for any thread count and any number of interruptions.
// Blocks the calling thread; parallel inside (TBB). Throws TrainError, ConfigError or
// DatasetError with a message naming what is wrong.
TrainSummary train(const TrainConfig& config, const Dataset& data, const ImageLoader& loader,
                   const TrainOptions& options, TrainObserver& observer);

// Peak resident memory of this process so far, in MiB.
double peak_memory_mb();

}  // namespace cascadekit
