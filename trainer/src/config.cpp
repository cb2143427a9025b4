#include "cascadekit/trainer/config.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <string>
#include <string_view>
#include <type_traits>

#include "cascadekit/features/block_pool.hpp"
#include "cascadekit/features/integral_histogram.hpp"
#include "cascadekit/model/cascade.hpp"
#include "cascadekit/io/annotations.hpp"
#include "cascadekit/io/files.hpp"
#include "cascadekit/trainer/stage_trainer.hpp"
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>

namespace cascadekit {

namespace {
// Reads a flat or one-level nested YAML map into "section.key" → node, rejecting unknown keys.
class Reader {
public:
    Reader(const YAML::Node& root, std::string origin) : origin_(std::move(origin)) { flatten(root, ""); }

    template <class T>
    void get(const std::string& key, T& out) {
        auto it = values_.find(key);
        if (it == values_.end()) return;
        used_.insert(key);
        try {
            out = it->second.as<T>();
        } catch (const YAML::Exception&) {
            fail(key, "has the wrong type");
        }
        if constexpr (std::is_floating_point_v<T>)
            if (!std::isfinite(out)) fail(key, "must be a finite number");
    }
    bool has(const std::string& key) const { return values_.count(key) != 0; }
    [[noreturn]] void fail(const std::string& key, const std::string& problem) const {
        throw ConfigError(origin_ + ": " + key + ": " + problem);
    }
    void reject_unknown() const {
        for (const auto& [k, v] : values_)
            if (!used_.count(k)) fail(k, "unknown option (see configs/README.md)");
    }

private:
    void flatten(const YAML::Node& n, const std::string& prefix) {
        if (!n.IsMap()) {
            if (!n.IsNull()) throw ConfigError(origin_ + ": expected a map of options");
            return;
        }
        std::set<std::string> seen;  // yaml-cpp keeps both copies of a duplicated key
        for (const auto& kv : n) {
            if (!kv.first.IsScalar()) throw ConfigError(origin_ + ": option names must be plain words");
            const std::string key = prefix + kv.first.as<std::string>();
            if (!seen.insert(key).second) fail(key, "given twice");
            if (kv.second.IsMap()) flatten(kv.second, key + ".");
            else values_[key] = kv.second;
        }
    }
    std::string origin_;
    std::map<std::string, YAML::Node> values_;
    std::set<std::string> used_;
};
}  // namespace

namespace {
// A calibration_every key: 0 or >= 2, and only where a stage kind that reads it is trained
// (boosting's by the HoG stage trainers, waldboost's by the WaldBoost one).
void check_calibration_every(const Reader& r, const TrainConfig& c, const std::string& key, int every,
                             std::initializer_list<std::string_view> users, const std::string& none) {
    const BoostingConfig& b = c.boosting;
    std::vector<std::string> trained_kinds = b.stage_sequence.empty() ? std::vector<std::string>{b.stage_kind} : b.stage_sequence;
    trained_kinds.push_back(b.final_stage);
    if (every < 0 || every == 1) r.fail(key, "must be 0 (off) or >= 2 (every Nth source photo calibrates)");
    const auto used = [&](const std::string& k) { return std::find(users.begin(), users.end(), k) != users.end(); };
    if (every > 0 && (c.kind != TrainKind::Cascade || std::none_of(trained_kinds.begin(), trained_kinds.end(), used)))
        r.fail(key, none);
}

// What a configuration gives as text (names of choices) or in other units before it is parsed
// into TrainConfig and checked.
struct GivenValues {
    std::string kind = "cascade", layout = "inria", norm, gamma, votes, channels, weighting = "resample", wald_rule = "spread",
                vote = "binary", backend = "auto";
    std::vector<std::string> transforms, vote_sequence;
    std::vector<double> object_box;
    double scale_step = 0, min_scale = 0, pad = 0, nms_iou = 0;
};

GivenValues given_defaults(const TrainConfig& c) {
    GivenValues n;
    n.norm = std::string(to_string(c.hog.norm));
    n.gamma = std::string(kGrayGammaNames.name(c.hog.gamma));
    n.votes = std::string(kOrientationVotesNames.name(c.hog.votes));
    n.channels = std::string(kGradientChannelsNames.name(c.hog.channels));
    const OperatingPoint& op = c.detect.point;
    n.scale_step = op.scale_step, n.min_scale = op.min_scale, n.pad = op.pad, n.nms_iou = op.nms_iou;
    return n;
}

// Every key of the data, window and detect sections.
void read_data(Reader& r, TrainConfig& c, GivenValues& n) {
    DataConfig& d = c.data;
    OperatingPoint& op = c.detect.point;
    r.get("seed", c.seed);
    r.get("kind", n.kind);
    r.get("data.layout", n.layout);
    r.get("data.inria_root", d.inria_root);
    r.get("data.positives_list", d.positives_list);
    r.get("data.negatives_list", d.negatives_list);
    r.get("data.positives_dir", d.positives_dir);
    r.get("data.negatives_dirs", d.negatives_dirs);
    r.get("data.flip_positives", d.flip_positives);
    r.get("data.jitter_copies", d.jitter_copies);
    r.get("data.jitter_rotate", d.jitter_rotate);
    r.get("data.jitter_scale", d.jitter_scale);
    r.get("data.jitter_shift", d.jitter_shift);
    r.get("data.jitter_low_res", d.jitter_low_res);
    r.get("data.jitter_only_for", d.jitter_only_for);
    r.get("data.negative_transforms", n.transforms);
    r.get("data.holdout_every", d.holdout_every);
    r.get("data.split_file", d.split_file);
    r.get("data.max_positives", d.max_positives);
    r.get("data.max_negative_images", d.max_negative_images);
    r.get("data.annotations", d.annotations);
    r.get("data.annotation_format", d.annotation_format);
    r.get("data.annotation_class", d.annotation_class);
    r.get("data.annotation_images", d.annotation_images);
    r.get("data.positive_margin", d.positive_margin);
    r.get("data.min_object_height", d.min_object_height);
    r.get("data.max_object_aspect", d.max_object_aspect);
    r.get("data.negative_max_iou", d.negative_max_iou);
    r.get("window.width", c.window.width);
    r.get("window.height", c.window.height);
    r.get("window.object_box", n.object_box);
    r.get("detect.stride", op.stride);
    r.get("detect.scale_step", n.scale_step);
    r.get("detect.min_scale", n.min_scale);
    r.get("detect.pad", n.pad);
    r.get("detect.level_pad", op.level_pad);
    r.get("detect.fuse", op.fuse);
    r.get("detect.nms_iou", n.nms_iou);
    r.get("detect.fppi", c.detect.fppi);
}

// Every key of the hog, boosting, waldboost, svm, dense and mining sections.
void read_training(Reader& r, TrainConfig& c, GivenValues& n) {
    BoostingConfig& b = c.boosting;
    r.get("hog.block_norm", n.norm);
    r.get("hog.gamma", n.gamma);
    r.get("hog.votes", n.votes);
    r.get("hog.channels", n.channels);
    r.get("hog.epsilon", c.hog.epsilon);
    r.get("hog.hys_clip", c.hog.hys_clip);
    r.get("boosting.stage_kind", b.stage_kind);
    r.get("boosting.stage_sequence", b.stage_sequence);
    r.get("boosting.final_stage", b.final_stage);
    r.get("boosting.pool", b.pool);
    r.get("boosting.min_block", b.min_block);
    r.get("boosting.candidates_per_round", b.candidates_per_round);
    r.get("boosting.d_min", b.d_min);
    r.get("boosting.f_max", b.f_max);
    r.get("boosting.F_target", b.F_target);
    r.get("boosting.max_stages", b.max_stages);
    r.get("boosting.max_learners_per_stage", b.max_learners_per_stage);
    r.get("boosting.negatives_per_stage", b.negatives_per_stage);
    r.get("boosting.calibration_every", b.calibration_every);
    r.get("boosting.vote", n.vote);
    r.get("boosting.vote_sequence", n.vote_sequence);
    r.get("boosting.stop_when_stalled", b.stop_when_stalled);
    r.get("boosting.nested", b.nested);
    r.get("boosting.nested_until", b.nested_until);
    WaldBoostConfig& wb = c.waldboost;
    r.get("waldboost.weak_classifiers", wb.weak_classifiers);
    r.get("waldboost.alpha", wb.alpha);
    r.get("waldboost.budget_power", wb.budget_power);
    r.get("waldboost.rule", n.wald_rule);
    r.get("waldboost.rejection_rounds", wb.rejection_rounds);
    r.get("waldboost.calibration_every", wb.calibration_every);
    r.get("waldboost.backward_pruning", wb.backward_pruning);
    r.get("waldboost.pruning_quantile", wb.pruning_quantile);
    r.get("waldboost.features_per_round", wb.features_per_round);
    r.get("waldboost.max_cell", wb.max_cell);
    r.get("waldboost.negatives", wb.negatives);
    r.get("waldboost.refill_below", wb.refill_below);
    r.get("waldboost.min_negatives", wb.min_negatives);
    r.get("waldboost.rescan", wb.rescan);
    r.get("waldboost.smoothing", wb.smoothing);
    r.get("svm.C", c.svm.C);
    r.get("svm.weighting", n.weighting);
    r.get("dense.random_negatives_per_image", c.dense.random_negatives_per_image);
    r.get("dense.max_hard_negatives", c.dense.max_hard_negatives);
    r.get("mining.stride", c.mining.stride);
    r.get("mining.scale_step", c.mining.scale_step);
    r.get("mining.min_scale", c.mining.min_scale);
    r.get("mining.backend", n.backend);
    r.get("mining.in_flight", c.mining.in_flight);
}

void check_data(const Reader& r, TrainConfig& c, const GivenValues& n) {
    DataConfig& d = c.data;
    if (!kTrainKindNames.parse(n.kind, c.kind)) r.fail("kind", "must be " + kTrainKindNames.choices() + ", not '" + n.kind + "'");
    if (!kDataLayoutNames.parse(n.layout, d.layout)) r.fail("data.layout", "must be " + kDataLayoutNames.choices());
    if (d.layout == DataLayout::Lists && (d.positives_list.empty() || d.negatives_list.empty()))
        r.fail("data.positives_list", "layout lists needs data.positives_list and data.negatives_list");
    if (d.layout == DataLayout::Folders && (d.positives_dir.empty() || d.negatives_dirs.empty()))
        r.fail("data.positives_dir", "layout folders needs data.positives_dir and data.negatives_dirs (a list)");
    if (d.layout == DataLayout::Annotated && d.annotations.empty())
        r.fail("data.annotations", "layout annotated needs data.annotations (a VOC folder or XML, COCO JSON, dlib XML or "
                                   "opencv_annotation text)");
    {
        AnnotationFormat f{};
        if (d.annotation_format != "auto" && !kAnnotationFormatNames.parse(d.annotation_format, f))
            r.fail("data.annotation_format", "must be auto or " + kAnnotationFormatNames.choices());
    }
    if (d.positive_margin < -1 || d.positive_margin > 64) r.fail("data.positive_margin", "must be -1 (auto) or in [0, 64] pixels");
    if (!(d.min_object_height >= 0) || d.min_object_height > 1e5) r.fail("data.min_object_height", "must be in [0, 1e5] pixels (0: auto)");
    if (!(d.max_object_aspect >= 1) || d.max_object_aspect > 100) r.fail("data.max_object_aspect", "must be in [1, 100]");
    if (!(d.negative_max_iou > 0 && d.negative_max_iou <= 1)) r.fail("data.negative_max_iou", "must be in (0, 1]");
    for (const std::string& t : n.transforms) {
        ImageTransform v{};
        if (!kImageTransformNames.parse(t, v))
            r.fail("data.negative_transforms", "'" + t + "' is not a transform (" + kImageTransformNames.choices() + ")");
        if (std::find(d.negative_transforms.begin(), d.negative_transforms.end(), v) != d.negative_transforms.end())
            r.fail("data.negative_transforms", "'" + t + "' given twice");
        d.negative_transforms.push_back(v);
    }
    if (d.jitter_copies < 0 || d.jitter_copies > 16) r.fail("data.jitter_copies", "must be in [0, 16]");
    if (!(d.jitter_rotate >= 0 && d.jitter_rotate <= 45)) r.fail("data.jitter_rotate", "must be in [0, 45] degrees");
    if (!(d.jitter_scale >= 0 && d.jitter_scale <= 0.5)) r.fail("data.jitter_scale", "must be in [0, 0.5]");
    if (!(d.jitter_shift >= 0 && d.jitter_shift <= 8)) r.fail("data.jitter_shift", "must be in [0, 8] pixels");
    if (!(d.jitter_low_res >= 1 && d.jitter_low_res <= 4)) r.fail("data.jitter_low_res", "must be in [1, 4] (a reduction factor; 1: none)");
    if (d.holdout_every != 0 && d.holdout_every < 2) r.fail("data.holdout_every", "must be 0 (no held-out part) or >= 2");
    if (d.max_positives < 0) r.fail("data.max_positives", "must be >= 0 (0 = all)");
    if (d.max_negative_images < 0) r.fail("data.max_negative_images", "must be >= 0 (0 = all)");
}

// The window, the object box and the operating point, reported against their keys.
void check_window_and_detect(const Reader& r, TrainConfig& c, const GivenValues& n) {
    OperatingPoint& op = c.detect.point;
    if (c.window.width < 8 || c.window.height < 8) r.fail("window.width", "window sides must be >= 8");
    if (std::int64_t{c.window.width} * c.window.height > kMaxExactRectArea)
        r.fail("window.width", "window " + std::to_string(c.window.width) + "x" + std::to_string(c.window.height) +
                                   " has more than " + std::to_string(kMaxExactRectArea) +
                                   " pixels, the largest whose HoG sums are exact");
    if (n.object_box.empty()) {
        c.object_box = c.window == kPeopleWindow ? kPeopleObjectBox : ObjectBox{};
    } else {
        if (n.object_box.size() != 4) r.fail("window.object_box", "must be [x, y, w, h], fractions of the window");
        c.object_box = {static_cast<float>(n.object_box[0]), static_cast<float>(n.object_box[1]), static_cast<float>(n.object_box[2]),
                        static_cast<float>(n.object_box[3])};
    }
    op.scale_step = static_cast<float>(n.scale_step);
    op.min_scale = static_cast<float>(n.min_scale);
    op.pad = static_cast<float>(n.pad);
    op.nms_iou = static_cast<float>(n.nms_iou);
    {
        // The model's own checks on the box and the operating point, reported against the keys.
        try {
            validate_detect_settings(c.object_box, op);
        } catch (const ModelError& e) {
            const std::string key = e.path() == "/detect/object_box" ? "window.object_box" : "detect." + e.path().substr(e.path().find('@') + 1);
            const std::string what = e.what();
            r.fail(key, what.substr(e.path().size() + 2));
        }
    }
}

void check_hog_and_boosting(const Reader& r, TrainConfig& c, const GivenValues& n) {
    BoostingConfig& b = c.boosting;
    if (!(c.detect.fppi > 0 && c.detect.fppi <= 100)) r.fail("detect.fppi", "must be in (0, 100] false positives per image");
    if (!parse_block_norm(n.norm, c.hog.norm)) r.fail("hog.block_norm", "must be " + kBlockNormNames.choices());
    if (!kGrayGammaNames.parse(n.gamma, c.hog.gamma)) r.fail("hog.gamma", "must be " + kGrayGammaNames.choices());
    if (!kOrientationVotesNames.parse(n.votes, c.hog.votes)) r.fail("hog.votes", "must be " + kOrientationVotesNames.choices());
    if (!kGradientChannelsNames.parse(n.channels, c.hog.channels)) r.fail("hog.channels", "must be " + kGradientChannelsNames.choices());
    if (!(c.hog.epsilon > 0) || c.hog.epsilon > kMaxEpsilon) r.fail("hog.epsilon", "must be in (0, 1e6]");
    if (!(c.hog.hys_clip > 0) || c.hog.hys_clip > kMaxHysClip) r.fail("hog.hys_clip", "must be in (0, 1]");
    if (const auto names = block_pool_names(); std::find(names.begin(), names.end(), b.pool) == names.end())
        r.fail("boosting.pool", "must be " + block_pool_choices());
    if (b.min_block < 4 || b.min_block % 2 != 0 || b.min_block > std::min(c.window.width, c.window.height))
        r.fail("boosting.min_block", "must be an even number of pixels, at least 4 and at most the window's shorter side");
    if (const int g = block_pool_grid(b.pool); g > 1 && make_block_pool(b.pool, c.window.width, c.window.height, b.min_block).empty())
        r.fail("boosting.pool", b.pool + " has no block in a " + std::to_string(c.window.width) + "x" + std::to_string(c.window.height) +
                                    " window (its sides are multiples of " + std::to_string(2 * g) + " px, at least min_block)");
    if (b.candidates_per_round < 1) r.fail("boosting.candidates_per_round", "must be >= 1");
    if (!(b.d_min > 0 && b.d_min <= 1)) r.fail("boosting.d_min", "must be in (0, 1]");
    if (!(b.f_max > 0 && b.f_max < 1)) r.fail("boosting.f_max", "must be in (0, 1)");
    if (!(b.F_target > 0 && b.F_target < 1)) r.fail("boosting.F_target", "must be in (0, 1)");
    if (b.max_stages < 1 || static_cast<std::size_t>(b.max_stages) > kMaxStages)
        r.fail("boosting.max_stages", "must be in [1, " + std::to_string(kMaxStages) + "]");
    if (b.max_learners_per_stage < 1 || static_cast<std::size_t>(b.max_learners_per_stage) > kMaxStageSize)
        r.fail("boosting.max_learners_per_stage", "must be in [1, " + std::to_string(kMaxStageSize) + "]");
    if (b.negatives_per_stage < 0) r.fail("boosting.negatives_per_stage", "must be >= 0");
    check_calibration_every(r, c, "boosting.calibration_every", b.calibration_every, {"hog_svm", "hog_dense"},
                            "only hog_svm and hog_dense stages use calibration crops, and this run trains none");
    if (b.stop_when_stalled < 0) r.fail("boosting.stop_when_stalled", "must be >= 0 (0 = off)");
    if (!kVoteModeNames.parse(n.vote, b.vote)) r.fail("boosting.vote", "must be " + kVoteModeNames.choices());
    if (n.vote_sequence.size() > kMaxStages) r.fail("boosting.vote_sequence", "more entries than the stage limit");
    if (!n.vote_sequence.empty() && r.has("boosting.vote"))
        r.fail("boosting.vote_sequence", "give either boosting.vote (every stage) or boosting.vote_sequence (stage by stage), not both");
    for (const std::string& v : n.vote_sequence)
        if (!kVoteModeNames.parse(v, b.vote_sequence.emplace_back()))
            r.fail("boosting.vote_sequence", "entry '" + v + "' must be " + kVoteModeNames.choices());
}

void check_waldboost_svm_mining(const Reader& r, TrainConfig& c, const GivenValues& n) {
    WaldBoostConfig& wb = c.waldboost;
    if (!(c.svm.C > 0) || !std::isfinite(c.svm.C)) r.fail("svm.C", "must be > 0");
    if (!kSvmWeightingNames.parse(n.weighting, c.svm.weighting)) r.fail("svm.weighting", "must be " + kSvmWeightingNames.choices());
    if (c.mining.stride < 1) r.fail("mining.stride", "must be >= 1");
    if (!(c.mining.scale_step > 1) || c.mining.scale_step > 10) r.fail("mining.scale_step", "must be in (1, 10]");
    if (!(c.mining.min_scale >= kMinMinScale && c.mining.min_scale <= 1))
        r.fail("mining.min_scale", "must be in [1/16, 1] (below 1 also scans upscaled levels)");
    if (!parse_backend(n.backend, c.mining.backend)) r.fail("mining.backend", "must be " + kBackendNames.choices());
    if (c.mining.in_flight < 1 || c.mining.in_flight > 64) r.fail("mining.in_flight", "must be in [1, 64]");
    if (wb.weak_classifiers < 1 || static_cast<std::size_t>(wb.weak_classifiers) > kMaxStageSize)
        r.fail("waldboost.weak_classifiers", "must be in [1, " + std::to_string(kMaxStageSize) + "]");
    if (!(wb.alpha > 0 && wb.alpha < 1)) r.fail("waldboost.alpha", "must be in (0, 1)");
    if (!(wb.budget_power >= 0.05 && wb.budget_power <= 1)) r.fail("waldboost.budget_power", "must be in [0.05, 1]");
    if (!kWaldRuleNames.parse(n.wald_rule, wb.rule)) r.fail("waldboost.rule", "must be " + kWaldRuleNames.choices());
    if (wb.rejection_rounds < 0 || wb.rejection_rounds > wb.weak_classifiers)
        r.fail("waldboost.rejection_rounds", "must be in [0, weak_classifiers]");
    check_calibration_every(r, c, "waldboost.calibration_every", wb.calibration_every, {"waldboost_lbp"},
                            "only waldboost_lbp stages use it, and this run trains none");
    if (!(wb.pruning_quantile >= 0 && wb.pruning_quantile <= 0.5)) r.fail("waldboost.pruning_quantile", "must be in [0, 0.5]");
    if (wb.pruning_quantile > 0 && !wb.backward_pruning)
        r.fail("waldboost.pruning_quantile", "is used only with waldboost.backward_pruning: true");
    if (wb.features_per_round < 0) r.fail("waldboost.features_per_round", "must be >= 0 (0 = every feature)");
    if (wb.max_cell < 0) r.fail("waldboost.max_cell", "must be >= 0 (0 = no limit)");
    if (wb.negatives < 0) r.fail("waldboost.negatives", "must be >= 0 (0 = as many as positives)");
    if (!(wb.refill_below > 0 && wb.refill_below <= 1)) r.fail("waldboost.refill_below", "must be in (0, 1]");
    if (wb.min_negatives < 0) r.fail("waldboost.min_negatives", "must be >= 0 (0 = until none is left)");
    if (!(wb.smoothing > 0) || wb.smoothing > 1e6) r.fail("waldboost.smoothing", "must be in (0, 1e6]");
}

void check_stage_trainers(const Reader& r, TrainConfig& c) {
    BoostingConfig& b = c.boosting;
    if (c.dense.random_negatives_per_image < 1) r.fail("dense.random_negatives_per_image", "must be >= 1");
    if (c.dense.max_hard_negatives < 0) r.fail("dense.max_hard_negatives", "must be >= 0");
    auto require_trainer = [&](const char* key, const std::string& name) {
        if (find_stage_trainer(name) == nullptr)
            r.fail(key, "no stage trainer '" + name + "' (this build trains: " + known_stage_trainers() + ")");
    };
    if (c.kind == TrainKind::Cascade) require_trainer("boosting.stage_kind", b.stage_kind);
    if (b.stage_sequence.size() > kMaxStages) r.fail("boosting.stage_sequence", "more entries than the stage limit");
    for (const std::string& k : b.stage_sequence)
        if (c.kind == TrainKind::Cascade) require_trainer("boosting.stage_sequence", k);
    if (!c.data.jitter_only_for.empty()) require_trainer("data.jitter_only_for", c.data.jitter_only_for);
    if (b.nested_until < 0 || b.nested_until == 1) r.fail("boosting.nested_until", "must be 0 (every stage after the first) or >= 2 (the last nested stage)");
    if (b.nested_until > 0 && !b.nested) r.fail("boosting.nested_until", "is used only with boosting.nested: true");
    if (b.nested && c.kind == TrainKind::Cascade) {
        // hog_svm stages, after at most a prefix of other kinds (a hybrid's LBP sequence, whose
        // running score the first hog_svm stage starts from).
        const auto hog = [](const std::string& k) { return k == "hog_svm"; };
        const auto first_hog = std::find_if(b.stage_sequence.begin(), b.stage_sequence.end(), hog);
        if (b.stage_sequence.empty() ? !hog(b.stage_kind) : first_hog == b.stage_sequence.end() || !std::all_of(first_hog, b.stage_sequence.end(), hog))
            r.fail("boosting.nested", "nests hog_svm stages on the stages before them: after a prefix of other kinds (a hybrid's LBP "
                                      "sequence) every stage must be a hog_svm stage");
    }
    if (c.kind == TrainKind::Cascade && !b.final_stage.empty()) {
        require_trainer("boosting.final_stage", b.final_stage);
        const bool repeats = b.stage_sequence.empty() ? b.stage_kind == b.final_stage
                                                      : std::find(b.stage_sequence.begin(), b.stage_sequence.end(), b.final_stage) !=
                                                            b.stage_sequence.end();
        if (repeats) r.fail("boosting.final_stage", "'" + b.final_stage + "' already trains the cascade's stages; name another trainer");
        if (static_cast<std::size_t>(b.max_stages) >= kMaxStages)
            r.fail("boosting.final_stage", "max_stages leaves no room for one more stage (at most " + std::to_string(kMaxStages) + ")");
        if (b.final_stage == "hog_dense" && make_block_pool("dalal-triggs", c.window.width, c.window.height).empty())
            r.fail("boosting.final_stage", "hog_dense needs a window that holds 16x16 blocks");
    }
}

}  // namespace

TrainConfig parse_train_config(const std::string& text, const std::string& origin) {
    YAML::Node root;
    try {
        root = YAML::Load(text);
    } catch (const YAML::Exception& e) {
        throw ConfigError(origin + ": not valid YAML: " + e.what());
    }
    Reader r(root, origin);
    TrainConfig c;
    GivenValues n = given_defaults(c);
    read_data(r, c, n);
    read_training(r, c, n);
    r.reject_unknown();
    check_data(r, c, n);
    check_window_and_detect(r, c, n);
    check_hog_and_boosting(r, c, n);
    check_waldboost_svm_mining(r, c, n);
    check_stage_trainers(r, c);
    c.text = text;
    return c;
}

TrainConfig load_train_config(const std::string& file) {
    std::vector<std::uint8_t> bytes;
    try {
        bytes = read_file_bytes(file, kMaxConfigBytes, "configuration file");
    } catch (const FileError& e) {
        throw ConfigError(e.what());
    }
    return parse_train_config(std::string(bytes.begin(), bytes.end()), file);
}

namespace {
// Entry `stage` (1-based) of a per-stage list whose last entry repeats; `otherwise` when it is empty.
template <class T>
const T& stage_entry(const std::vector<T>& seq, const T& otherwise, int stage) {
    if (seq.empty()) return otherwise;
    return seq[std::min(static_cast<std::size_t>(std::max(stage, 1)) - 1, seq.size() - 1)];
}
}  // namespace

const std::string& stage_kind_of(const TrainConfig& c, int stage) {
    return stage_entry(c.boosting.stage_sequence, c.boosting.stage_kind, stage);
}

VoteMode vote_of_stage(const TrainConfig& c, int stage) { return stage_entry(c.boosting.vote_sequence, c.boosting.vote, stage); }

std::string to_string(TrainKind kind) { return std::string(kTrainKindNames.name(kind)); }

std::uint64_t config_fingerprint(const TrainConfig& c) {
    std::uint64_t h = 1469598103934665603ull;
    for (unsigned char ch : c.text) h = (h ^ ch) * 1099511628211ull;
    return h;
}

}  // namespace cascadekit
