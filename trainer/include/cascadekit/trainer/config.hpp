#pragma once
// Training configuration, read from YAML into typed sections and checked once, when it is read.
// configs/*.yaml document every option in place; configs/README.md lists them.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "cascadekit/features/block.hpp"
#include "cascadekit/features/image.hpp"
#include "cascadekit/model/cascade.hpp"
#include "cascadekit/model/hog_svm_stage.hpp"
#include "cascadekit/runtime/detector.hpp"

namespace cascadekit {

class ConfigError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

enum class TrainKind {
    Cascade,  // boosted stages (Zhu et al., CVPR 2006; Bilgiç, MIT 2010), trained by the stage-generic loop
    Dense     // Dalal & Triggs' single SVM on every block, one round of bootstrapping
};
inline constexpr EnumNames<TrainKind, 2> kTrainKindNames{{{{TrainKind::Cascade, "cascade"}, {TrainKind::Dense, "dense"}}}};
inline constexpr EnumNames<VoteMode, 3> kVoteModeNames{
    {{{VoteMode::Binary, "binary"}, {VoteMode::Margin, "margin"}, {VoteMode::Clipped, "clipped"}}}};
enum class DataLayout { Inria, Lists, Folders, Annotated };
inline constexpr EnumNames<DataLayout, 4> kDataLayoutNames{{{{DataLayout::Inria, "inria"},
                                                             {DataLayout::Lists, "lists"},
                                                             {DataLayout::Folders, "folders"},
                                                             {DataLayout::Annotated, "annotated"}}}};
enum class SvmWeighting {
    Resample,  // each round trains the candidate SVMs on a weighted resample of the training set
    Select     // SVMs see every sample once; AdaBoost weights only choose the best candidate
};
inline constexpr EnumNames<SvmWeighting, 2> kSvmWeightingNames{
    {{{SvmWeighting::Resample, "resample"}, {SvmWeighting::Select, "select"}}}};
// How a WaldBoost sequence's rejection thresholds may spend the allowed miss rate α.
enum class WaldRule {
    Spread,  // on the surviving samples' shares, the loss of positives spread over the T planned classifiers
    Wald     // Wald's test on the joint probabilities: the shares scaled by the sequence's false-positive rate
};
inline constexpr EnumNames<WaldRule, 2> kWaldRuleNames{{{{WaldRule::Spread, "spread"}, {WaldRule::Wald, "wald"}}}};

struct DataConfig {
    DataLayout layout = DataLayout::Inria;
    std::string inria_root = "INRIAPerson";  // relative paths are taken from $CASCADEKIT_DATA
    std::string positives_list, negatives_list;
    std::string positives_dir;                // layout folders: crops (relative: from $CASCADEKIT_DATA)
    std::vector<std::string> negatives_dirs;  // layout folders: negative image folders; annotated: more (object-free) images
    // Layout annotated: full images with boxes (io/annotations.hpp formats). Positives are cut
    // from the objects' boxes (window.object_box places them in the window; positive_margin window
    // pixels around, -1: a quarter of the window's shorter side; boxes shorter than
    // min_object_height pixels, 0: half the object's height in the window, or of an aspect more
    // than max_object_aspect times off are skipped and counted); negatives are windows of every
    // image whose object box overlaps no object or ignore region (IoU below negative_max_iou, at
    // most half inside any one), plus negatives_dirs' images.
    std::string annotations, annotation_format = "auto", annotation_class, annotation_images;
    int positive_margin = -1;
    double min_object_height = 0, max_object_aspect = 2, negative_max_iou = 0.3;
    bool flip_positives = false;
    // Jittered copies of every positive crop (after flipping): each copy turned by up to
    // ±jitter_rotate degrees, scaled by up to ±jitter_scale (a share) and shifted by up to
    // ±jitter_shift pixels about the crop's centre, drawn per crop from the run's seed. 0 copies: none.
    int jitter_copies = 0;
    double jitter_rotate = 0, jitter_scale = 0, jitter_shift = 0;
    // Each jittered copy is also blurred as a small, low-quality photo would show it: reduced by a
    // factor drawn in [1, jitter_low_res] (area average) and enlarged back (bilinear). 1: none.
    double jitter_low_res = 1;
    // The jittered copies train only the stages of this stage trainer (e.g. waldboost_lbp: a
    // hybrid's LBP prefix, whose thresholds must keep people a little turned or off-centre);
    // the other stages train on the crops as they are. Empty: every stage.
    std::string jitter_only_for;
    // Negative images are also scanned in these flips and quarter turns (mirror, upside_down,
    // rotate180, rotate90, rotate270, transpose, transverse): up to 8× the windows to bootstrap from.
    std::vector<ImageTransform> negative_transforms;
    int holdout_every = 5;        // every k-th source photo and negative image is held out; 0 = none
    std::string split_file;       // where the held-out split is read from or written to
    int max_positives = 0;        // 0 = all (smaller numbers make quick runs)
    int max_negative_images = 0;  // 0 = all
};

struct BoostingConfig {
    std::string stage_kind = "hog_svm";  // the stage trainer (trainer/stage_trainer.hpp) of every stage
    // Hybrid cascades: the kind of stage 1, 2, …; the last entry repeats for the stages after it
    // (e.g. [waldboost_lbp, hog_svm]: an LBP sequence in front of HoG stages). Empty: stage_kind.
    std::vector<std::string> stage_sequence;
    // One more stage, trained by this trainer once the cascade is complete (F_target or
    // max_stages reached), on the positives and the negatives mined through the whole cascade:
    // e.g. hog_dense, a Dalal-Triggs SVM over the whole window. Empty: none. It must not be a
    // trainer of stage_kind or stage_sequence.
    std::string final_stage;
    std::string pool = "zhu";            // candidate blocks: zhu | zhu-grid2 | zhu-grid4 | zhu-grid8 | dalal-triggs (features/block_pool.hpp)
    int min_block = 12;                  // zhu and zhu-gridG pools: the smallest block side in pixels (even, >= 4)
    int candidates_per_round = 125;
    double d_min = 0.99;   // each stage keeps at least this share of its training positives
    double f_max = 0.65;   // a stage is complete when its FP rate on its negatives is at most this
    double F_target = 1e-4;
    int max_stages = 30;
    int max_learners_per_stage = 100;
    int negatives_per_stage = 0;  // 0 = as many as positives
    // hog_svm stages: every Nth source photo's positives (its crops, flips and jittered copies) are
    // kept out of the SVMs and AdaBoost weights and only help set each stage threshold, which then
    // keeps d_min of these unseen positives as well as of the training ones. 0: off.
    int calibration_every = 0;
    // End the cascade once this many hog_svm stages in a row have each used all
    // max_learners_per_stage learners (their FP rates stayed above f_max): later stages would
    // reject little for their cost. 0: off.
    int stop_when_stalled = 0;
    // hog_svm stages: how a learner votes. Binary: α·[m ≥ 0] with α from the weighted error
    // (discrete AdaBoost, Zhu et al.); margin: α·h with h = m, clipped: with h = clamp(m, −1, 1);
    // α minimising Schapire & Singer's normaliser Z = Σ w·exp(−α·y·h) (confidence-rated
    // AdaBoost), the block of least Z winning.
    VoteMode vote = VoteMode::Binary;
    // hog_svm stages 1, 2, …: the vote of each, the last repeating (e.g. clipped votes for the
    // first stages, which every window meets, and binary votes after); empty: `vote` for all.
    std::vector<VoteMode> vote_sequence;
    // hog_svm stages after the first: nested stages (Huang et al., ICPR 2004; Xiao et al.'s
    // boosting chain, ICCV 2003). Each stage starts from the running score a window brings
    // from the stages before it, as a first weak learner of weight carry (HogSvmStage::carry,
    // chosen on the training samples); the positives that the cascade so far rejects train and
    // count for nothing. Every stage before a nested one must be a hog_svm stage.
    bool nested = false;
    // With nested: the last nested stage (N ≥ 2: stages 2..N nested, the later ones plain); 0:
    // every stage after the first.
    int nested_until = 0;
};

// WaldBoost sequences of multi-block LBP tables (Šochman & Matas, CVPR 2005), the
// waldboost_lbp stage trainer's settings.
struct WaldBoostConfig {
    int weak_classifiers = 1024;   // T: length of the sequence
    double alpha = 0.05;           // allowed miss rate: SPRT bound A = 1/alpha; at most alpha of the training positives are rejected in all
    // How the budget of rejected positives is spread: by weak classifier t at most
    // alpha·P·(t/T)^budget_power of the P training positives are rejected. 1: evenly; below 1 the
    // first weak classifiers may spend more of it (and reject more negatives early).
    double budget_power = 1;
    // spread: the above. wald: classifier t may reject below θ when the windows it rejects there
    // are at least 1/alpha times as likely among all negative windows as among the positives
    // (shares scaled by the sequence's false-positive rate so far), so the first classifiers,
    // facing every window, reject most; the loss stays within alpha in all by Wald's bound.
    WaldRule rule = WaldRule::Spread;
    // The first rejection_rounds weak classifiers are chosen for what they reject rather than by
    // Z: each candidate's table is built as usual and its SPRT threshold found, and the candidate
    // whose threshold rejects the most of the active negatives wins (ties: the lower Z). Every
    // window meets these classifiers, so what they reject sets a detector's speed. 0: Z throughout.
    int rejection_rounds = 0;
    // Every Nth source photo's positives (its crops, flips and jittered copies) are kept out of the
    // tables and weights and are the positives of the rejection test: alpha then bounds the share
    // of unseen positives that the sequence rejects, not of those its tables were fitted to (whose
    // running sums lie higher). 0: off, the training positives set the thresholds.
    int calibration_every = 0;
    // Direct backward pruning (Zhang & Viola, NIPS 2007), once the sequence is complete: every
    // rejection threshold is raised to the lowest running sum, at that weak classifier, of the
    // test positives (the calibration ones where there are such) that the sequence keeps with a
    // final sum at or above their pruning_quantile quantile. Those positives still pass; windows
    // whose sums fall below all of them leave sooner instead of running the rest of the sequence.
    // The final threshold stays, so scores (and operating points above the quantile's score)
    // keep their meaning.
    bool backward_pruning = false;
    double pruning_quantile = 0;   // in [0, 0.5]: the share of kept test positives, lowest final sums first, given up
    int features_per_round = 0;    // candidate features per round, drawn at random; 0 = every feature of the pool
    int max_cell = 0;              // largest cell side in pixels; 0 = any that fits (3 cells across the window)
    int negatives = 0;             // negative pool size; 0 = as many as positives
    double refill_below = 0.5;     // refill the pool by bootstrapping when fewer negatives than this share are left
    int min_negatives = 0;         // end the sequence when a refill finds fewer (0: go on until none is left)
    // After a refill that found fewer negatives than the pool holds (the backgrounds nearly used
    // up): true, scan the backgrounds again each time the pool runs low; false, scan no more and
    // train on the negatives left until the sequence is complete or rejects them all (a new scan
    // would mostly find those same windows again).
    bool rescan = true;
    double smoothing = 0.5;        // response tables: h(j) = ½ ln((W⁺ⱼ + ε)/(W⁻ⱼ + ε)), ε = smoothing / samples
};

struct SvmConfig {
    double C = 0.1;
    SvmWeighting weighting = SvmWeighting::Resample;
};

struct DenseConfig {
    int random_negatives_per_image = 10;
    int max_hard_negatives = 20000;
};

struct MiningConfig {
    int stride = 8;
    double scale_step = 1.2;
    double min_scale = 1.0;  // smallest window scale of bootstrapping scans; < 1 also scans upscaled levels (as a detector run with --min-scale does)
    Backend backend = Backend::Auto;  // not part of the fingerprint's meaning: every backend mines the same windows
    int in_flight = 16;  // CUDA: frames in flight while mining (BulkOptions::in_flight), a host thread for every 4; the same windows for any value
};

// How the trained model is meant to be run (stored in it, CascadeModel::operating), and the
// false positives per image its threshold is chosen for on held-out annotated images (`cascade
// train` calibrates when the data are annotated and a part is held out).
struct DetectConfig {
    OperatingPoint point;
    double fppi = 0.1;
};

struct TrainConfig {
    std::uint64_t seed = 1;
    TrainKind kind = TrainKind::Cascade;
    DataConfig data;
    WindowShape window;
    ObjectBox object_box;  // window.object_box; default: kPeopleObjectBox for 64×128 windows, else the window
    DetectConfig detect;
    HogParams hog;
    BoostingConfig boosting;
    SvmConfig svm;
    WaldBoostConfig waldboost;
    DenseConfig dense;
    MiningConfig mining;
    std::string text;  // the YAML it was read from (stored in the model's metadata)
};

std::string to_string(TrainKind kind);

// The stage kind of stage `stage` (1-based) under config.boosting.
const std::string& stage_kind_of(const TrainConfig& config, int stage);
// How stage `stage` (1-based)'s hog_svm learners vote: boosting.vote_sequence, else boosting.vote.
VoteMode vote_of_stage(const TrainConfig& config, int stage);

// Thread safety: the functions below are pure (load_train_config reads its file); a TrainConfig
// is a value.

// Parses and validates; unknown keys and out-of-range values throw ConfigError naming `origin`
// (the file) and the key. Units: window in pixels; hog.epsilon in gray levels of summed gradient
// magnitude; mining.stride in level pixels; rates (d_min, f_max, F_target) as fractions.
TrainConfig parse_train_config(const std::string& yaml_text, const std::string& origin);
// Reads at most kMaxConfigBytes of a regular file. Every value is checked: types, ranges (finite
// reals only), unknown and duplicated keys; ConfigError names the file and the key.
inline constexpr std::uint64_t kMaxConfigBytes = 1u << 20;
TrainConfig load_train_config(const std::string& file);

// A stable 64-bit fingerprint (FNV-1a) of the configuration text: resuming checks it.
std::uint64_t config_fingerprint(const TrainConfig& config);

}  // namespace cascadekit
