// trainer/: a tiny cascade trained on synthetic data must separate held-out positives from
// negatives far better than chance; training is deterministic for any thread count and resuming
// an interrupted run gives the very same model file.
#include <gtest/gtest.h>
#include <tbb/global_control.h>

#include <sys/stat.h>

#include <fstream>
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <iterator>
#include <numeric>
#include <random>

#include "cascadekit/io/model_file.hpp"
#include "cascadekit/io/byte_codec.hpp"
#include "cascadekit/io/stage_codec.hpp"
#include "cascadekit/runtime/detector.hpp"
#include "cascadekit/runtime/fusion.hpp"
#include "cascadekit/runtime/object_detector.hpp"
#include "cascadekit/runtime/stages/hog_svm.hpp"
#include "cascadekit/runtime/window_evaluator.hpp"
#include "cascadekit/trainer/data_selection.hpp"
#include "cascadekit/trainer/trainer.hpp"
#include "training_data.hpp"  // trainer/src: negative images and their transforms
#include "checkpoint.hpp"  // trainer/src: the checkpoint format, to build damaged-but-sealed files
#include "run_support.hpp"  // trainer/src: mine and mine_pool
#include "stages/stage_trainers.hpp"  // trainer/src: detail::confidence_rated_alpha
#include "test_support.hpp"
#include "trainer_support.hpp"

using namespace cascadekit;
using namespace cascadekit::test;
namespace fs = std::filesystem;

namespace {

// Share of held-out positives accepted and of held-out negative windows accepted, with the
// features every stage of the model reads (HoG, LBP or both). The images are read by `load`
// (colour kept for models with colour gradients).
std::pair<double, double> held_out_rates(const CascadeModel& m, const SyntheticData& d, const ImageLoader& load = read_pgm) {
    const CascadeEvaluator eval(m);
    std::size_t accepted = 0;
    for (const auto& p : d.test.positives) {
        LevelFeatures f;
        compute_image_features(load(p.path), eval.needs(), m.hog.gradient(), f);
        accepted += eval.evaluate(f, 8, 8).rejected_at < 0;
    }
    std::uint64_t windows = 0, fps = 0;
    auto det = Detector::create(m, {}, Backend::Cpu);
    for (const auto& n : d.test.negatives) {
        const auto r = det->detect(load(n).view());
        windows += r.stats.windows_scanned;
        fps += r.detections.size();
    }
    return {double(accepted) / double(d.test.positives.size()), double(fps) / double(windows)};
}

// Trains `cfg` again `rounds` rounds at a time, resuming after each stop, and expects the model
// `whole` (trained in one go with the same options) byte for byte.
void expect_resumed_run_gives_the_same_bytes(const TrainConfig& cfg, const SyntheticData& d, const TrainOptions& whole, int rounds,
                                             const ImageLoader& load = read_pgm) {
    TrainOptions part = whole;
    part.model_out = whole.model_out;
    part.model_out.replace_extension(".resumed.h5");
    part.stop_after_rounds = rounds;
    Quiet obs;
    int calls = 0;
    while (!train(cfg, d.train, load, part, obs).finished && ++calls < 400) part.resume = true;
    EXPECT_GT(calls, 0) << "the run finished before its first stop";
    EXPECT_EQ(bytes(whole.model_out), bytes(part.model_out));
}

// Trains `cfg` again with at most `threads` threads and expects the model `whole` byte for byte.
void expect_same_bytes_with_threads(const TrainConfig& cfg, const SyntheticData& d, const TrainOptions& whole, int threads,
                                    const ImageLoader& load = read_pgm) {
    TrainOptions other = whole;
    other.model_out.replace_extension(".threads" + std::to_string(threads) + ".h5");
    Quiet obs;
    {
        tbb::global_control limit(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(threads));
        train(cfg, d.train, load, other, obs);
    }
    EXPECT_EQ(bytes(whole.model_out), bytes(other.model_out)) << threads << " threads";
}

// Trains `cfg` on `d` until it stops after `rounds` rounds, leaving a checkpoint at
// d.dir / "m.h5.state", and returns the options that resume it.
TrainOptions stopped_run(const TrainConfig& cfg, const SyntheticData& d, int rounds, const std::string& created_utc, Quiet& obs) {
    TrainOptions opt;
    opt.model_out = d.dir / "m.h5";
    opt.created_utc = created_utc;
    opt.stop_after_rounds = rounds;
    EXPECT_FALSE(train(cfg, d.train, read_pgm, opt, obs).finished);
    opt.resume = true;
    return opt;
}

// Writes the checkpoint `good` to `state`, lets `change` edit its decoded form and seals it again:
// checksums right, contents wrong.
void reseal_checkpoint(const fs::path& state, const std::vector<char>& good, const std::function<void(detail::Checkpoint&)>& change) {
    std::ofstream(state, std::ios::binary | std::ios::trunc).write(good.data(), static_cast<std::streamsize>(good.size()));
    detail::Checkpoint c = detail::read_checkpoint(state);
    change(c);
    detail::write_checkpoint(c, state);
}

}  // namespace

TEST(Trainer, TinyCascadeSeparatesHeldOutDataFarBetterThanChance) {
    const SyntheticData d = make_data("trainer_tiny");
    TrainOptions opt;
    opt.model_out = d.dir / "tiny.h5";
    opt.created_utc = "2026-11-22T00:00:00Z";
    Quiet obs;
    const TrainSummary s = train(tiny_config(), d.train, read_pgm, opt, obs);
    EXPECT_TRUE(s.finished);
    EXPECT_GE(s.stages, 2);
    EXPECT_GT(obs.rounds, s.stages);
    EXPECT_EQ(obs.stages, s.stages);
    EXPECT_GT(obs.mining, 0);
    const CascadeModel m = load_model(opt.model_out);
    EXPECT_EQ(static_cast<int>(m.stages.size()), s.stages);
    const auto [detection, fppw] = held_out_rates(m, d);
    std::printf("held-out: detection %.3f, false positives per window %.5f\n", detection, fppw);
    // Chance would accept positives and negative windows alike.
    EXPECT_GE(detection, 0.7);
    EXPECT_LE(fppw, 0.005);
    EXPECT_GT(detection, 100 * fppw);
    EXPECT_EQ(m.metadata.created_utc, "2026-11-22T00:00:00Z");
    EXPECT_NE(m.metadata.training_config.find("candidates_per_round: 12"), std::string::npos);
}

// hog.channels colour: bars whose colour differs from the background's but whose luma does not
// (make_colour_data) are found by a cascade trained on colour gradients and (nearly) not by one
// trained on gray; the colour run is deterministic for any thread count and resumes exactly.
TEST(Trainer, ColourGradientsFindEdgesThatGrayCannotSee) {
    const SyntheticData d = make_colour_data("trainer_colour");
    Quiet obs;
    TrainOptions opt;
    opt.model_out = d.dir / "colour.h5";
    opt.created_utc = "2026-11-24T00:00:00Z";
    const TrainConfig colour = tiny_config("hog: {channels: colour}\n");
    ASSERT_EQ(colour.hog.channels, GradientChannels::Colour);
    EXPECT_TRUE(train(colour, d.train, read_colour, opt, obs).finished);
    const CascadeModel m = load_model(opt.model_out);
    EXPECT_EQ(m.hog.channels, GradientChannels::Colour);
    const auto [detection, fppw] = held_out_rates(m, d, read_colour);
    TrainOptions gray_opt = opt;
    gray_opt.model_out = d.dir / "gray.h5";
    train(tiny_config(), d.train, read_colour, gray_opt, obs);
    const auto [gray_detection, gray_fppw] = held_out_rates(load_model(gray_opt.model_out), d, read_colour);
    std::printf("held-out: colour detection %.3f at %.5f false positives per window, gray %.3f at %.5f\n", detection, fppw,
                gray_detection, gray_fppw);
    EXPECT_GE(detection, 0.7);
    EXPECT_LE(fppw, 0.005);
    EXPECT_TRUE(gray_detection < detection - 0.3 || gray_fppw > 10 * fppw) << "gray saw the bars as well as colour";
    expect_same_bytes_with_threads(colour, d, opt, 1, read_colour);
    expect_resumed_run_gives_the_same_bytes(colour, d, opt, 7, read_colour);
}

TEST(Trainer, SameSeedSameModelForAnyThreadCountAndResumeIsExact) {
    const SyntheticData d = make_data("trainer_resume");
    const TrainConfig cfg = tiny_config();
    TrainOptions whole;
    whole.model_out = d.dir / "whole.h5";
    whole.created_utc = "2026-11-22T00:00:00Z";
    Quiet obs;
    {
        tbb::global_control one(tbb::global_control::max_allowed_parallelism, 1);
        train(cfg, d.train, read_pgm, whole, obs);
    }
    // Interrupted twice (once inside a stage, once after more rounds), resumed with 2 threads.
    TrainOptions part = whole;
    part.model_out = d.dir / "resumed.h5";
    part.stop_after_rounds = 3;
    EXPECT_FALSE(train(cfg, d.train, read_pgm, part, obs).finished);
    part.resume = true;
    part.stop_after_rounds = 7;
    {
        tbb::global_control two(tbb::global_control::max_allowed_parallelism, 2);
        EXPECT_FALSE(train(cfg, d.train, read_pgm, part, obs).finished);
        part.stop_after_rounds = 0;
        EXPECT_TRUE(train(cfg, d.train, read_pgm, part, obs).finished);
    }
    EXPECT_EQ(bytes(whole.model_out), bytes(part.model_out));
    // Resuming a finished run changes nothing; a changed configuration is refused.
    EXPECT_TRUE(train(cfg, d.train, read_pgm, part, obs).finished);
    EXPECT_EQ(bytes(whole.model_out), bytes(part.model_out));
    TrainConfig other = cfg;
    other.text += "\n# changed\n";
    EXPECT_THROW(train(other, d.train, read_pgm, part, obs), TrainError);
    // Many more threads than cores (as on a 16-core machine): bootstrapping must not let a thread
    // that waits inside its detector's own parallel loop start another image on that detector.
    expect_same_bytes_with_threads(cfg, d, whole, 16);
}

// boosting.calibration_every: every Nth source photo's crops (with their jittered copies) leave
// the SVMs and AdaBoost weights and only set the stage thresholds, which then keep d_min of them
// as well as of the training crops.
TEST(Trainer, CalibrationPositivesOnlySetTheStageThresholds) {
    {  // the mask: by source in sorted order, copies following their crop
        std::vector<PositiveCrop> crops;
        for (const char* src : {"b", "a", "a", "c", "d"}) crops.push_back({fs::path(std::string(src) + ".pgm"), src, false});
        const std::vector<std::uint8_t> expect{1, 0, 0, 0, 1, 1, 0, 0, 0, 1};
        EXPECT_EQ(detail::calibration_mask(crops, 10, 2), expect);
        EXPECT_TRUE(detail::calibration_mask(crops, 10, 0).empty());
    }
    SyntheticData d = make_data("trainer_calibration");
    TrainConfig cfg = tiny_config();
    cfg.boosting.calibration_every = 4;
    cfg.text += "\n# calibration_every: 4\n";
    TrainOptions opt;
    opt.model_out = d.dir / "cal.h5";
    opt.created_utc = "2026-11-24T00:00:00Z";
    Quiet obs;
    EXPECT_TRUE(train(cfg, d.train, read_pgm, opt, obs).finished);
    EXPECT_TRUE(std::any_of(obs.notes.begin(), obs.notes.end(),
                            [](const std::string& n) { return n.find("30 of the 120 positives") != std::string::npos; }));
    const CascadeModel m = load_model(opt.model_out);
    ASSERT_GE(m.stages.size(), 2u);
    // Each stage on its own keeps d_min of the calibration crops and of the training crops.
    const std::vector<std::uint8_t> mask = detail::calibration_mask(d.train.positives, d.train.positives.size(), 4);
    for (std::size_t s = 0; s < m.stages.size(); ++s) {
        CascadeModel one = m;
        one.stages = {m.stages[s]};
        std::size_t kept[2] = {0, 0}, total[2] = {0, 0};
        for (std::size_t i = 0; i < d.train.positives.size(); ++i) {
            LevelFeatures f;
            compute_image_features(read_pgm(d.train.positives[i].path), {true, false}, m.hog.gradient(), f);
            ++total[mask[i]];
            kept[mask[i]] += evaluate_window(one, f, 8, 8).rejected_at < 0;
        }
        ASSERT_EQ(total[1], 30u);
        for (int g = 0; g < 2; ++g)
            EXPECT_GE(static_cast<double>(kept[g]), cfg.boosting.d_min * static_cast<double>(total[g]))
                << "stage " << s + 1 << (g ? ": calibration" : ": training") << " crops";
    }
    const auto [detection, fppw] = held_out_rates(m, d);
    EXPECT_GE(detection, 0.7);
    EXPECT_LE(fppw, 0.005);
    // No SVM trains on the calibration crops: blanking them leaves the first learner as it was,
    // while without calibration the same change moves it.
    auto first_learner = [&](TrainConfig c, const SyntheticData& data, const std::string& name) {
        c.boosting.max_stages = 1;
        TrainOptions o;
        o.model_out = data.dir / name;
        Quiet q;
        train(c, data.train, read_pgm, o, q);
        return load_model(o.model_out).stages.at(0).get_if<HogSvmStage>()->learners.at(0);
    };
    SyntheticData blank = d;
    blank.dir = scratch_dir("trainer_calibration_blank");
    for (std::size_t i = 0; i < blank.train.positives.size(); ++i) {
        if (!mask[i]) continue;
        const fs::path p = blank.dir / blank.train.positives[i].path.filename();
        GrayImage flat(80, 144);
        std::fill(flat.pixels.begin(), flat.pixels.end(), std::uint8_t{128});
        write_pgm(p, flat);
        blank.train.positives[i].path = p;
    }
    const HogLearner a = first_learner(cfg, d, "a.h5"), b = first_learner(cfg, blank, "b.h5");
    EXPECT_EQ(a.block, b.block);
    EXPECT_EQ(a.weights, b.weights);
    EXPECT_EQ(a.bias, b.bias);
    TrainConfig plain = tiny_config();
    const HogLearner c = first_learner(plain, d, "c.h5"), e = first_learner(plain, blank, "e.h5");
    EXPECT_FALSE(c.weights == e.weights && c.bias == e.bias) << "blanking positives should move an SVM trained on them";
    // Deterministic and resumable with calibration as without.
    expect_resumed_run_gives_the_same_bytes(cfg, d, opt, 4);
}

// boosting.vote: margin and clipped. Each learner votes α·h (h = m, or clamp(m, −1, 1)) with the α
// of least normaliser Z (confidence-rated AdaBoost); the block of least Z wins; stage sums and
// thresholds follow the detector's votes.
TEST(Trainer, MarginVotesTakeTheAlphaOfLeastZAndKeepDMin) {
    {  // the α: Z's minimum, found against a fine grid; none when the margins disagree; the cap
        std::mt19937 rng(5);
        std::normal_distribution<float> noise(0.0f, 1.0f);
        std::uniform_real_distribution<double> weight(0.1, 1.0);
        std::vector<float> margins;
        std::vector<int> labels;
        std::vector<double> weights;
        for (int i = 0; i < 400; ++i) {
            labels.push_back(i % 3 == 0 ? 1 : -1);
            margins.push_back(0.6f * static_cast<float>(labels.back()) + noise(rng));
            weights.push_back(weight(rng));
        }
        const auto z_at = [&](double a) {
            double z = 0;
            for (std::size_t i = 0; i < margins.size(); ++i) z += weights[i] * std::exp(-a * labels[i] * margins[i]);
            return z;
        };
        const detail::VoteWeight v = detail::confidence_rated_alpha(margins, labels, weights);
        EXPECT_GT(v.alpha, 0.1);
        EXPECT_NEAR(v.z, z_at(v.alpha), 1e-9 * v.z);
        for (double a = 0; a <= 3; a += 1e-3) EXPECT_LE(v.z, z_at(a) * (1 + 1e-12)) << "Z(" << a << ") is lower";
        EXPECT_LT(v.z, z_at(0));
        // A sample that weighs nothing changes nothing, however wrong its margin.
        std::vector<float> m2 = margins;
        std::vector<int> l2 = labels;
        std::vector<double> w2 = weights;
        m2.push_back(-1e6f);
        l2.push_back(1);
        w2.push_back(0.0);
        EXPECT_EQ(detail::confidence_rated_alpha(m2, l2, w2).alpha, v.alpha);
        // Margins against the labels: no α > 0 lowers Z.
        std::vector<float> wrong(margins.size());
        for (std::size_t i = 0; i < margins.size(); ++i) wrong[i] = -std::abs(margins[i]) * static_cast<float>(labels[i]);
        const detail::VoteWeight none = detail::confidence_rated_alpha(wrong, labels, weights);
        EXPECT_EQ(none.alpha, 0.0);
        EXPECT_NEAR(none.z, z_at(0), 1e-9);
        // Margins that separate every sample: α stops at the cap, 50 / max |m|.
        std::vector<float> right(margins.size());
        for (std::size_t i = 0; i < margins.size(); ++i) right[i] = (0.5f + std::abs(margins[i])) * static_cast<float>(labels[i]);
        const float max_abs = *std::max_element(right.begin(), right.end(), [](float a, float b) { return std::abs(a) < std::abs(b); });
        EXPECT_DOUBLE_EQ(detail::confidence_rated_alpha(right, labels, weights).alpha, 50.0 / std::abs(static_cast<double>(max_abs)));
    }
  for (const VoteMode mode : {VoteMode::Margin, VoteMode::Clipped}) {
    const std::string name = mode == VoteMode::Margin ? "margin" : "clipped";
    SyntheticData d = make_data("trainer_" + name + "_votes");
    TrainConfig cfg = tiny_config();
    cfg.boosting.vote = mode;
    cfg.text += "\n# vote: " + name + "\n";
    TrainOptions opt;
    opt.model_out = d.dir / (name + ".h5");
    opt.created_utc = "2026-11-25T00:00:00Z";
    Quiet obs;
    EXPECT_TRUE(train(cfg, d.train, read_pgm, opt, obs).finished);
    const CascadeModel m = load_model(opt.model_out);
    ASSERT_GE(m.stages.size(), 2u);
    for (std::size_t s = 0; s < m.stages.size(); ++s) {
        const HogSvmStage* h = m.stages[s].get_if<HogSvmStage>();
        ASSERT_NE(h, nullptr);
        EXPECT_EQ(h->vote, mode) << "stage " << s + 1;
        for (const HogLearner& l : h->learners) EXPECT_GT(l.alpha, 0.0f);
        // The stage on its own, as the detector sums its margin votes, keeps d_min of the crops.
        CascadeModel one = m;
        one.stages = {m.stages[s]};
        std::size_t kept = 0;
        for (const PositiveCrop& c : d.train.positives) {
            LevelFeatures f;
            compute_image_features(read_pgm(c.path), {true, false}, m.hog.gradient(), f);
            kept += evaluate_window(one, f, 8, 8).rejected_at < 0;
        }
        EXPECT_GE(static_cast<double>(kept), cfg.boosting.d_min * static_cast<double>(d.train.positives.size())) << "stage " << s + 1;
    }
    const auto [detection, fppw] = held_out_rates(m, d);
    std::printf("%s votes, held-out: detection %.3f, false positives per window %.5f, %zu stages\n", name.c_str(), detection, fppw,
                m.stages.size());
    // Held out: far better than chance (the margin thresholds sit exactly at d_min of the training
    // crops, where binary sums leave some slack: 0.650 here with margin or clipped votes, 0.775 with binary ones).
    EXPECT_GE(detection, 0.6);
    EXPECT_LE(fppw, 0.005);
    EXPECT_GT(detection, 100 * fppw);
    expect_resumed_run_gives_the_same_bytes(cfg, d, opt, 2);
    if (mode == VoteMode::Clipped) expect_same_bytes_with_threads(cfg, d, opt, 1);
  }
}

// boosting.nested (Huang et al. 2004; Xiao et al. 2003): every stage after the first starts
// from the running score of the stages before it, weighted by its carry. The threshold helpers
// first: the pass limit is exactly where the detector's float test flips; the running score's
// weight minimises its loss, and is 0 when the score does not separate the classes. Then a
// training: each stage keeps d_min of the training positives that the stages before it keep, as
// the detector tests them; held-out far better than chance; resume and thread count change no byte.
TEST(Trainer, NestedStagesStartFromTheRunningScoreAndKeepDMin) {
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    for (int i = 0; i < 20000; ++i) {
        const float scale = std::pow(10.0f, 3.0f * u(rng));
        const float sum = scale * u(rng), carried = i % 3 == 0 ? -sum * (1.0f + 1e-6f * u(rng)) : scale * std::abs(u(rng));
        const float limit = detail::nested_pass_limit(sum, carried);
        ASSERT_TRUE((sum - limit) + carried >= 0.0f) << sum << " " << carried;
        const float above = std::nextafter(limit, std::numeric_limits<float>::infinity());
        ASSERT_FALSE((sum - above) + carried >= 0.0f) << sum << " " << carried;
    }
    {
        std::vector<float> running;
        std::vector<int> labels;
        std::vector<double> weights;
        std::normal_distribution<float> noise(0.0f, 1.0f);
        for (int i = 0; i < 600; ++i) {
            labels.push_back(i % 2 == 0 ? 1 : -1);
            running.push_back(std::abs((labels.back() > 0 ? 2.0f : 1.0f) + 0.8f * noise(rng)));
            weights.push_back(1.0);
        }
        const auto loss = [&](double b) {
            double p = 0, n = 0;
            for (std::size_t i = 0; i < running.size(); ++i) (labels[i] > 0 ? p : n) += weights[i] * std::exp(-b * labels[i] * running[i]);
            return std::log(p) + std::log(n);
        };
        const double beta = detail::running_score_weight(running, labels, weights);
        EXPECT_GT(beta, 0.1);
        for (double b = 0; b <= 5; b += 1e-3) EXPECT_LE(loss(beta), loss(b) + 1e-9) << "loss(" << b << ") is lower";
        for (int& l : labels) l = -l;  // the score now favours the negatives
        EXPECT_EQ(detail::running_score_weight(running, labels, weights), 0.0);
    }
    SyntheticData d = make_data("trainer_nested");
    TrainConfig cfg = tiny_config();
    cfg.boosting.nested = true;
    cfg.text += "\n# nested\n";
    TrainOptions opt;
    opt.model_out = d.dir / "nested.h5";
    opt.created_utc = "2026-11-27T00:00:00Z";
    Quiet obs;
    EXPECT_TRUE(train(cfg, d.train, read_pgm, opt, obs).finished);
    const CascadeModel m = load_model(opt.model_out);
    ASSERT_GE(m.stages.size(), 3u);
    EXPECT_EQ(m.stages[0].as<HogSvmStage>().carry, 0.0f);
    float most = 0.0f;
    for (const Stage& st : m.stages) most = std::max(most, st.as<HogSvmStage>().carry);
    EXPECT_GT(most, 0.0f) << "no stage uses the running score";
    // Each stage as the detector tests it: of the crops the stages before it keep, ≥ d_min pass.
    const std::size_t n = d.train.positives.size();
    std::vector<float> running(n, 0.0f);
    std::vector<std::uint8_t> alive(n, 1);
    std::vector<LevelFeatures> crops(n);
    for (std::size_t i = 0; i < n; ++i) compute_image_features(read_pgm(d.train.positives[i].path), {true, false}, m.hog.gradient(), crops[i]);
    for (std::size_t s = 0; s < m.stages.size(); ++s) {
        const HogSvmStage& h = m.stages[s].as<HogSvmStage>();
        std::size_t before = 0, kept = 0;
        for (std::size_t i = 0; i < n; ++i) {
            if (!alive[i]) continue;
            float margin = hog_stage_sum(h, m.hog, crops[i].hog, 8, 8) - h.threshold;
            if (h.carry != 0.0f) margin = margin + h.carry * running[i];
            ++before;
            kept += margin >= 0.0f;
            alive[i] = margin >= 0.0f;
            running[i] = h.carry != 0.0f ? margin : running[i] + margin;
        }
        const auto allowed = static_cast<std::size_t>(std::floor((1.0 - cfg.boosting.d_min) * static_cast<double>(before) + 1e-9));
        EXPECT_GE(kept + allowed, before) << "stage " << s + 1 << " carry " << h.carry;
    }
    // The detector agrees on which crops the whole cascade keeps, and on their scores.
    const CascadeEvaluator eval(m);
    for (std::size_t i = 0; i < n; ++i) {
        const WindowOutcome o = eval.evaluate(crops[i], 8, 8);
        ASSERT_EQ(o.rejected_at < 0, alive[i] != 0) << "crop " << i;
        if (alive[i]) {
            EXPECT_EQ(o.score, running[i]) << "crop " << i;
        }
    }
    const auto [detection, fppw] = held_out_rates(m, d);
    std::printf("nested, held-out: detection %.3f, false positives per window %.5f, %zu stages\n", detection, fppw, m.stages.size());
    EXPECT_GE(detection, 0.6);
    EXPECT_LE(fppw, 0.005);
    EXPECT_GT(detection, 100 * fppw);
    expect_resumed_run_gives_the_same_bytes(cfg, d, opt, 2);
    expect_same_bytes_with_threads(cfg, d, opt, 1);
    // nested_until: 2 nests stage 2 alone: stages 1 and 2 are the run's above, the later ones plain.
    TrainConfig until = cfg;
    until.boosting.nested_until = 2;
    until.text += "# nested_until: 2\n";
    TrainOptions o2 = opt;
    o2.model_out = d.dir / "nested-until-2.h5";
    EXPECT_TRUE(train(until, d.train, read_pgm, o2, obs).finished);
    const CascadeModel m2 = load_model(o2.model_out);
    ASSERT_GE(m2.stages.size(), 3u);
    EXPECT_TRUE(m2.stages[0] == m.stages[0] && m2.stages[1] == m.stages[1]);
    for (std::size_t s = 2; s < m2.stages.size(); ++s) EXPECT_EQ(m2.stages[s].as<HogSvmStage>().carry, 0.0f) << "stage " << s + 1;
}

// A nested hybrid: the first HoG stage starts from the LBP prefix's running score (which the
// trainer takes from the detector's own evaluator). Each HoG stage, run by the detector, keeps
// d_min of the training crops the stages before it keep; the model separates held-out data; resume
// and thread count change no byte.
TEST(Trainer, NestedHybridStagesStartFromThePrefixsRunningScore) {
    SyntheticData d = make_data("trainer_nested_hybrid");
    TrainConfig cfg = tiny_hybrid_config();
    cfg.boosting.nested = true;
    cfg.boosting.max_stages = 4;
    cfg.text += "\n# nested hybrid\n";
    TrainOptions opt;
    opt.model_out = d.dir / "nested-hybrid.h5";
    opt.created_utc = "2026-11-28T00:00:00Z";
    Quiet obs;
    ASSERT_TRUE(train(cfg, d.train, read_pgm, opt, obs).finished);
    const CascadeModel m = load_model(opt.model_out);
    ASSERT_GE(m.stages.size(), 3u);
    EXPECT_EQ(m.stages[0].kind(), "waldboost_lbp");
    EXPECT_GT(m.stages[1].as<HogSvmStage>().carry, 0.0f) << "the first HoG stage does not use the prefix's score";
    const CascadeEvaluator eval(m);
    const std::size_t n = d.train.positives.size();
    std::vector<LevelFeatures> crops(n);
    std::vector<std::pair<int, int>> at(n);
    std::vector<WindowProgress> progress(n);
    std::vector<std::uint8_t> alive(n, 1);
    for (std::size_t i = 0; i < n; ++i) {
        const GrayImage g = read_pgm(d.train.positives[i].path);
        compute_level_features(g, eval.needs(), m.hog.gradient(), crops[i]);
        at[i] = {(g.width - 64) / 2, (g.height - 128) / 2};
        alive[i] = eval.evaluate_stages(crops[i], at[i].first, at[i].second, 0, 1, progress[i]) ? 1 : 0;
    }
    for (std::size_t s = 1; s < m.stages.size(); ++s) {
        std::size_t before = 0, kept = 0;
        for (std::size_t i = 0; i < n; ++i) {
            if (!alive[i]) continue;
            ++before;
            alive[i] = eval.evaluate_stages(crops[i], at[i].first, at[i].second, s, s + 1, progress[i]) ? 1 : 0;
            kept += alive[i];
        }
        const auto allowed = static_cast<std::size_t>(std::floor((1.0 - cfg.boosting.d_min) * static_cast<double>(before) + 1e-9));
        EXPECT_GE(kept + allowed, before) << "stage " << s + 1 << " carry " << m.stages[s].as<HogSvmStage>().carry;
    }
    const auto [detection, fppw] = held_out_rates(m, d);
    std::printf("nested hybrid, held-out: detection %.3f, false positives per window %.5f, %zu stages\n", detection, fppw, m.stages.size());
    EXPECT_GE(detection, 0.6);
    EXPECT_LE(fppw, 0.005);
    expect_resumed_run_gives_the_same_bytes(cfg, d, opt, 2);
    expect_same_bytes_with_threads(cfg, d, opt, 1);
}

// boosting.vote_sequence: each stage votes as its entry says (the last repeating). The first
// stage is the all-clipped run's, byte for byte; the later ones are binary; resume, which restarts
// inside the second stage, keeps each stage's votes.
TEST(Trainer, VoteSequenceSetsEachStagesVotes) {
    SyntheticData d = make_data("trainer_vote_sequence");
    TrainConfig clipped = tiny_config();
    clipped.boosting.vote = VoteMode::Clipped;
    clipped.boosting.max_stages = 3;
    clipped.text += "\n# vote: clipped\n";
    TrainOptions all;
    all.model_out = d.dir / "clipped.h5";
    Quiet q0;
    ASSERT_TRUE(train(clipped, d.train, read_pgm, all, q0).finished);
    TrainConfig cfg = tiny_config();
    cfg.boosting.vote_sequence = {VoteMode::Clipped, VoteMode::Binary};
    cfg.boosting.max_stages = 3;
    cfg.text += "\n# vote_sequence: [clipped, binary]\n";
    TrainOptions opt;
    opt.model_out = d.dir / "sequence.h5";
    opt.created_utc = "2026-11-25T00:00:00Z";
    Quiet obs;
    ASSERT_TRUE(train(cfg, d.train, read_pgm, opt, obs).finished);
    const CascadeModel m = load_model(opt.model_out), c = load_model(all.model_out);
    ASSERT_EQ(m.stages.size(), 3u);
    EXPECT_TRUE(m.stages[0] == c.stages[0]) << "stage 1 differs from the all-clipped run's";
    for (std::size_t s = 0; s < m.stages.size(); ++s)
        EXPECT_EQ(m.stages[s].as<HogSvmStage>().vote, s == 0 ? VoteMode::Clipped : VoteMode::Binary) << "stage " << s + 1;
    const auto [detection, fppw] = held_out_rates(m, d);
    EXPECT_GT(detection, 100 * fppw);
    expect_resumed_run_gives_the_same_bytes(cfg, d, opt, 5);
}

// boosting.stop_when_stalled: the cascade ends once N hog_svm stages in a row have each used all
// max_learners_per_stage learners, and says so; resumed runs count the same.
TEST(Trainer, StalledStagesEndTheCascadeAndSaySo) {
    SyntheticData d = make_data("trainer_stalled");
    TrainConfig cfg = tiny_config();
    cfg.boosting.f_max = 0.001;  // no stage of 2 learners gets there
    cfg.boosting.max_learners_per_stage = 2;
    cfg.boosting.max_stages = 6;
    TrainOptions plain;
    plain.model_out = d.dir / "plain.h5";
    Quiet q0;
    const TrainSummary all = train(cfg, d.train, read_pgm, plain, q0);
    ASSERT_EQ(all.stages, 6) << all.stop_reason;  // without the option: every stage, all stalled
    cfg.boosting.stop_when_stalled = 3;
    cfg.text += "\n# stop_when_stalled: 3\n";
    TrainOptions opt;
    opt.model_out = d.dir / "stalled.h5";
    opt.created_utc = "2026-11-25T00:00:00Z";
    Quiet obs;
    const TrainSummary s = train(cfg, d.train, read_pgm, opt, obs);
    EXPECT_TRUE(s.finished);
    EXPECT_FALSE(s.negatives_exhausted);
    EXPECT_EQ(s.stages, 3);
    EXPECT_NE(s.stop_reason.find("stalled: stages 1-3 each used all 2 learners"), std::string::npos) << s.stop_reason;
    const CascadeModel m = load_model(opt.model_out);
    ASSERT_EQ(m.stages.size(), 3u);
    // The stalled model is the plain run's first three stages.
    const CascadeModel p = load_model(plain.model_out);
    for (std::size_t i = 0; i < 3; ++i) EXPECT_TRUE(m.stages[i] == p.stages[i]) << "stage " << i + 1;
    expect_resumed_run_gives_the_same_bytes(cfg, d, opt, 3);  // stops inside stages 2 and 3
}

TEST(Trainer, ExhaustedNegativesStopTrainingAndSaySo) {
    SyntheticData d = make_data("trainer_exhaust");
    TrainConfig cfg = tiny_config();
    cfg.boosting.F_target = 1e-15;
    cfg.boosting.max_stages = 30;
    TrainOptions opt;
    opt.model_out = d.dir / "m.h5";
    Quiet obs;
    const TrainSummary s = train(cfg, d.train, read_pgm, opt, obs);
    EXPECT_TRUE(s.finished);
    EXPECT_TRUE(s.negatives_exhausted) << s.stop_reason;
    EXPECT_LT(s.stages, 30);
    EXPECT_TRUE(std::any_of(obs.notes.begin(), obs.notes.end(), [](const std::string& n) { return n.find("exhausted") != std::string::npos; }));
    EXPECT_NO_THROW(load_model(opt.model_out));
}

TEST(Trainer, DenseBaselineIsOneMarginStageOf105Blocks) {
    const SyntheticData d = make_data("trainer_dense");
    TrainConfig cfg = tiny_config();
    cfg.kind = TrainKind::Dense;
    cfg.dense.random_negatives_per_image = 10;
    cfg.svm.C = 0.01;
    TrainOptions opt;
    opt.model_out = d.dir / "dense.h5";
    Quiet obs;
    train(cfg, d.train, read_pgm, opt, obs);
    const CascadeModel m = load_model(opt.model_out);
    ASSERT_EQ(m.stages.size(), 1u);
    const auto& st = m.stages[0].as<HogSvmStage>();
    EXPECT_EQ(st.vote, VoteMode::Margin);
    EXPECT_EQ(st.learners.size(), 105u);
    const auto [detection, fppw] = held_out_rates(m, d);
    std::printf("dense held-out: detection %.3f, false positives per window %.5f\n", detection, fppw);
    EXPECT_GE(detection, 0.8);
    EXPECT_LE(fppw, 0.02);
}

// boosting.final_stage: hog_dense: after the boosted stages, one Dalal-Triggs SVM over the whole
// window, trained on the negatives the cascade still accepts; resumable bit for bit, also from
// inside the final stage.
TEST(Trainer, FinalDenseStageEndsTheCascadeAndResumesExactly) {
    const SyntheticData d = make_data("trainer_final_dense");
    std::string text = tiny_config().text;
    const std::string plain = "max_stages: 5, max_learners_per_stage: 12}";
    ASSERT_NE(text.find(plain), std::string::npos);
    text.replace(text.find(plain), plain.size(), "max_stages: 3, max_learners_per_stage: 12, final_stage: hog_dense}");
    const TrainConfig cfg = parse_train_config(text, "final-dense");
    ASSERT_EQ(cfg.boosting.final_stage, "hog_dense");
    TrainOptions whole;
    whole.model_out = d.dir / "whole.h5";
    whole.created_utc = "2026-11-23T00:00:00Z";
    struct Reports : Quiet {
        std::vector<StageReport> reports;
        void on_stage(const StageReport& r) override { reports.push_back(r); }
    } obs;
    const TrainSummary s = train(cfg, d.train, read_pgm, whole, obs);
    EXPECT_TRUE(s.finished);
    EXPECT_NE(s.stop_reason.find("then trained the final hog_dense stage"), std::string::npos) << s.stop_reason;
    const CascadeModel m = load_model(whole.model_out);
    ASSERT_GE(m.stages.size(), 2u);
    for (std::size_t i = 0; i + 1 < m.stages.size(); ++i) EXPECT_EQ(m.stages[i].as<HogSvmStage>().vote, VoteMode::Binary);
    const auto& last = m.stages.back().as<HogSvmStage>();
    EXPECT_EQ(last.vote, VoteMode::Margin);
    EXPECT_EQ(last.learners.size(), 105u);
    // The stage keeps d_min of its training positives (the trainer's own count), and it can only
    // reject: on held-out windows the model with it finds no more than the boosted stages alone.
    ASSERT_FALSE(obs.reports.empty());
    EXPECT_GE(obs.reports.back().detection_rate, cfg.boosting.d_min);
    EXPECT_EQ(obs.reports.back().learners, 105);
    const auto [detection, fppw] = held_out_rates(m, d);
    CascadeModel boosted = m;
    boosted.stages.pop_back();
    const auto [boosted_detection, boosted_fppw] = held_out_rates(boosted, d);
    std::printf("held-out: boosted stages detection %.3f, FPPW %.5f; with the final dense stage %.3f, %.5f\n", boosted_detection,
                boosted_fppw, detection, fppw);
    EXPECT_LE(detection, boosted_detection);
    EXPECT_LE(fppw, boosted_fppw);
    EXPECT_GT(detection, 0.3);  // 25 negatives for 3780 dimensions: it overfits here (INRIA: results file)
    // Two rounds at a time, resumed each time: one of the stops falls just before the final stage
    // or inside it.
    expect_resumed_run_gives_the_same_bytes(cfg, d, whole, 2);
}

TEST(Trainer, BadInputIsReportedClearly) {
    const SyntheticData d = make_data("trainer_bad");
    Dataset broken = d.train;
    std::ofstream(d.dir / "corrupt.pgm") << "P5 nonsense";
    broken.positives.push_back({d.dir / "corrupt.pgm", "corrupt", false});
    TrainOptions opt;
    opt.model_out = d.dir / "m.h5";
    Quiet obs;
    try {
        train(tiny_config(), broken, read_pgm, opt, obs);
        FAIL() << "trained on a corrupt crop";
    } catch (const TrainError& e) {
        EXPECT_NE(std::string(e.what()).find("corrupt.pgm"), std::string::npos) << e.what();
    }
    EXPECT_FALSE(fs::exists(opt.model_out));
    Dataset empty = d.train;
    empty.negatives.clear();
    EXPECT_THROW(train(tiny_config(), empty, read_pgm, opt, obs), TrainError);
    EXPECT_THROW(parse_train_config("boosting: {d_min: 2}", "x.yaml"), ConfigError);
    try {
        parse_train_config("boosting: {candidate_per_round: 5}", "x.yaml");
        FAIL();
    } catch (const ConfigError& e) {
        EXPECT_NE(std::string(e.what()).find("x.yaml: boosting.candidate_per_round: unknown option"), std::string::npos) << e.what();
    }
    opt.resume = true;
    EXPECT_THROW(train(tiny_config(), d.train, read_pgm, opt, obs), TrainError);  // nothing to resume
}

// A damaged checkpoint is refused by name, never crashes, never resumes into a different model,
// and leaves the model file as it was.
TEST(Trainer, DamagedCheckpointsAreRefusedByName) {
    const SyntheticData d = make_data("trainer_bad_checkpoint");
    const TrainConfig cfg = tiny_config();
    Quiet obs;
    TrainOptions opt = stopped_run(cfg, d, 6, "2026-11-22T00:00:00Z", obs);
    const fs::path state = d.dir / "m.h5.state";
    const std::vector<char> good = bytes(state);
    const std::vector<char> model_before = bytes(opt.model_out);
    auto expect_refused = [&](const std::string& what, const std::string& problem) {
        try {
            train(cfg, d.train, read_pgm, opt, obs);
            ADD_FAILURE() << what << ": resumed from a damaged checkpoint";
        } catch (const TrainError& e) {
            const std::string msg = e.what();
            EXPECT_NE(msg.find(state.string()), std::string::npos) << what << ": " << msg;
            EXPECT_NE(msg.find(problem), std::string::npos) << what << ": " << msg;
        }
        EXPECT_EQ(bytes(opt.model_out), model_before) << what;
    };
    auto write = [&](const std::vector<char>& b) {
        std::ofstream(state, std::ios::binary | std::ios::trunc).write(b.data(), static_cast<std::streamsize>(b.size()));
    };
    std::mt19937 rng(11);
    for (int trial = 0; trial < 20; ++trial) {
        std::vector<char> b = good;
        const std::size_t at = trial < 4 ? std::size_t(trial) * 13 : rng() % b.size();  // magic, hash, payload
        b[at] = static_cast<char>(b[at] ^ (1 << (rng() % 8)));
        write(b);
        expect_refused("flip at " + std::to_string(at), at < 8 ? "not a cascadekit training checkpoint" : "is damaged");
    }
    write(std::vector<char>(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(good.size() / 2)));
    expect_refused("truncated", "is damaged");

    // Checksums right, indices wrong (a checkpoint of other data, or a bug): every index is checked.
    auto with = [&](const std::function<void(detail::Checkpoint&)>& change) { reseal_checkpoint(state, good, change); };
    with([](detail::Checkpoint& c) { c.negatives.at(0).image = 99999; });
    expect_refused("image index", "negative window 0 names image 99999");
    with([](detail::Checkpoint& c) { c.negatives.at(1).x = 1 << 30; });
    expect_refused("position", "negative window 1 lies outside its pyramid level");
    with([](detail::Checkpoint& c) { c.negatives.at(2).scale = -1; });
    expect_refused("scale", "negative window 2 has scale");
    // The hog_svm stage trainer's state: the stage so far, then one weight per sample.
    auto with_state = [&](const std::function<void(HogSvmStage&, std::vector<double>&)>& change) {
        with([&](detail::Checkpoint& c) {
            ByteReader in(c.current.data(), c.current.size());
            Stage stage = decode_stage(in);
            auto weights = in.vec<double>(1u << 20);
            change(stage.as<HogSvmStage>(), weights);
            ByteWriter out;
            encode_stage(stage, out);
            out.vec(weights);
            c.current = out.bytes;
        });
    };
    with_state([](HogSvmStage&, std::vector<double>& w) { w.pop_back(); });
    expect_refused("weights", "sample weights for");
    with_state([](HogSvmStage& st, std::vector<double>&) { st.learners.at(0).block.x = 2147483646; });
    expect_refused("block", "is not inside the 64x128 window");
    with([](detail::Checkpoint& c) { c.current_kind = "waldboost_lbp"; });
    expect_refused("kind", "its stage in training is of kind 'waldboost_lbp'");

    // The good checkpoint still resumes.
    write(good);
    opt.stop_after_rounds = 0;
    EXPECT_TRUE(train(cfg, d.train, read_pgm, opt, obs).finished);
}

// Every bad value is refused when the configuration is read, naming the file and the key.
TEST(Trainer, BadConfigurationValuesAreRefusedByKey) {
    const std::pair<const char*, const char*> cases[] = {
        {"hog: {epsilon: .inf}", "x.yaml: hog.epsilon: must be a finite number"},
        {"hog: {hys_clip: .nan}", "x.yaml: hog.hys_clip: must be a finite number"},
        {"hog: {gamma: cube}", "x.yaml: hog.gamma: must be none or sqrt"},
        {"hog: {votes: bilinear}", "x.yaml: hog.votes: must be nearest or split"},
        {"mining: {scale_step: .inf}", "x.yaml: mining.scale_step: must be a finite number"},
        {"data: {max_positives: -5}", "x.yaml: data.max_positives: must be >= 0"},
        {"data: {max_negative_images: -1}", "x.yaml: data.max_negative_images: must be >= 0"},
        {"window: {width: 1000, height: 1000}", "x.yaml: window.width: window 1000x1000 has more than 46522 pixels"},
        {"seed: 1\nseed: 2\n", "x.yaml: seed: given twice"},
        {"boosting: {d_min: 0.9, d_min: 0.95}", "x.yaml: boosting.d_min: given twice"},
        {"boosting: {max_stages: 100000}", "x.yaml: boosting.max_stages: must be in [1, 4096]"},
        {"boosting: {calibration_every: 1}", "x.yaml: boosting.calibration_every: must be 0 (off) or >= 2"},
        {"boosting: {calibration_every: -3}", "x.yaml: boosting.calibration_every: must be 0 (off) or >= 2"},
        {"boosting: {calibration_every: 5, stage_kind: waldboost_lbp}", "x.yaml: boosting.calibration_every: only hog_svm and hog_dense"},
        {"kind: dense\nboosting: {calibration_every: 5}", "x.yaml: boosting.calibration_every: only hog_svm and hog_dense"},
        {"waldboost: {calibration_every: 1}", "x.yaml: waldboost.calibration_every: must be 0 (off) or >= 2"},
        {"waldboost: {calibration_every: 4}", "x.yaml: waldboost.calibration_every: only waldboost_lbp stages use it"},
        {"boosting: {stop_when_stalled: -1}", "x.yaml: boosting.stop_when_stalled: must be >= 0"},
        {"boosting: {nested: true, stage_sequence: [hog_svm, waldboost_lbp]}", "x.yaml: boosting.nested: nests hog_svm stages"},
        {"boosting: {nested: true, stage_sequence: [waldboost_lbp]}", "x.yaml: boosting.nested: nests hog_svm stages"},
        {"boosting: {nested: 2}", "x.yaml: boosting.nested: has the wrong type"},
        {"boosting: {nested: true, nested_until: 1}", "x.yaml: boosting.nested_until: must be 0"},
        {"boosting: {nested_until: 3}", "x.yaml: boosting.nested_until: is used only with boosting.nested: true"},
        {"boosting: {vote: real}", "x.yaml: boosting.vote: must be binary, margin or clipped"},
        {"boosting: {vote_sequence: [clipped, real]}", "x.yaml: boosting.vote_sequence: entry 'real' must be binary, margin or clipped"},
        {"boosting: {vote: binary, vote_sequence: [clipped]}", "x.yaml: boosting.vote_sequence: give either boosting.vote"},
        {"boosting: {vote_sequence: clipped}", "x.yaml: boosting.vote_sequence: has the wrong type"},
        {"window: {width: 99999999999}", "x.yaml: window.width: has the wrong type"},
        {"data: {negative_transforms: [mirror, rotate45]}", "x.yaml: data.negative_transforms: 'rotate45' is not a transform"},
        {"data: {negative_transforms: [mirror, mirror]}", "x.yaml: data.negative_transforms: 'mirror' given twice"},
        {"mining: {min_scale: 1.5}", "x.yaml: mining.min_scale: must be in [1/16, 1]"},
        {"mining: {in_flight: 0}", "x.yaml: mining.in_flight: must be in [1, 64]"},
        {"data: {jitter_copies: 17}", "x.yaml: data.jitter_copies: must be in [0, 16]"},
        {"data: {jitter_rotate: -1}", "x.yaml: data.jitter_rotate: must be in [0, 45] degrees"},
        {"boosting: {min_block: 7}", "x.yaml: boosting.min_block: must be an even number of pixels"},
        {"boosting: {pool: zhu-grid3}", "x.yaml: boosting.pool: must be zhu, zhu-grid2, zhu-grid4, zhu-grid8 or dalal-triggs"},
        {"window: {width: 12, height: 12}\nboosting: {pool: zhu-grid8}", "x.yaml: boosting.pool: zhu-grid8 has no block in a 12x12 window"},
        {"window: {width: 24, height: 24}\nboosting: {min_block: 26}", "x.yaml: boosting.min_block: must be an even number"},
        {"boosting: {final_stage: hog_svm}", "x.yaml: boosting.final_stage: 'hog_svm' already trains the cascade's stages"},
        {"boosting: {final_stage: dense}", "x.yaml: boosting.final_stage: no stage trainer 'dense'"},
        {"boosting: {final_stage: hog_dense, max_stages: 4096}", "x.yaml: boosting.final_stage: max_stages leaves no room"},
        {"window: {width: 12, height: 12}\nboosting: {final_stage: hog_dense}", "x.yaml: boosting.final_stage: hog_dense needs a window"},
    };
    EXPECT_EQ(parse_train_config("window: {width: 24, height: 24}\nboosting: {min_block: 8}", "x.yaml").boosting.min_block, 8);
    EXPECT_EQ(parse_train_config("boosting: {pool: zhu-grid4}", "x.yaml").boosting.pool, "zhu-grid4");
    EXPECT_EQ(parse_train_config("hog: {gamma: sqrt}", "x.yaml").hog.gamma, GrayGamma::Sqrt);
    EXPECT_EQ(parse_train_config("hog: {votes: split}", "x.yaml").hog.votes, OrientationVotes::Split);
    EXPECT_EQ(parse_train_config("hog: {gamma: sqrt}", "x.yaml").hog.votes, OrientationVotes::Nearest);
    {  // stages 1, 2, … take the listed votes, the last repeating; without a list, boosting.vote
        const TrainConfig v = parse_train_config("boosting: {vote_sequence: [clipped, margin, binary]}", "x.yaml");
        const VoteMode want[] = {VoteMode::Clipped, VoteMode::Margin, VoteMode::Binary, VoteMode::Binary, VoteMode::Binary};
        for (int s = 1; s <= 5; ++s) EXPECT_EQ(vote_of_stage(v, s), want[s - 1]) << "stage " << s;
        const TrainConfig one = parse_train_config("boosting: {vote: clipped}", "x.yaml");
        for (int s = 1; s <= 3; ++s) EXPECT_EQ(vote_of_stage(one, s), VoteMode::Clipped);
    }
    for (const auto& [text, message] : cases) {
        try {
            parse_train_config(text, "x.yaml");
            ADD_FAILURE() << "accepted: " << text;
        } catch (const ConfigError& e) {
            EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << text << "\n" << e.what();
        }
    }
    // Files: a FIFO is refused at once, not waited on.
    const fs::path dir = scratch_dir("trainer_config_files");
    ASSERT_EQ(::mkfifo((dir / "fifo.yaml").c_str(), 0600), 0);
    try {
        load_train_config((dir / "fifo.yaml").string());
        ADD_FAILURE() << "read a FIFO";
    } catch (const ConfigError& e) {
        EXPECT_NE(std::string(e.what()).find("is a FIFO (named pipe), not a configuration file"), std::string::npos) << e.what();
    }
}

// Every configuration shipped in configs/ is one the trainer accepts (they are what the results
// files and models/README.md tell users to run); the colour one keeps its colour gradients.
TEST(TrainConfig, EveryShippedConfigurationLoads) {
    std::size_t n = 0;
    for (const auto& e : fs::directory_iterator(source_dir() / "configs")) {
        if (e.path().extension() != ".yaml") continue;
        SCOPED_TRACE(e.path().string());
        EXPECT_NO_THROW(load_train_config(e.path().string()));
        ++n;
    }
    EXPECT_GE(n, 9u);
    const TrainConfig c = load_train_config((source_dir() / "configs" / "inria-hog-colour.yaml").string());
    EXPECT_EQ(c.hog.channels, GradientChannels::Colour);
    EXPECT_EQ(c.boosting.calibration_every, 5);
    const TrainConfig nested = load_train_config((source_dir() / "configs" / "inria-hog-nested.yaml").string());
    EXPECT_TRUE(nested.boosting.nested);
    EXPECT_EQ(nested.boosting.vote_sequence, (std::vector<VoteMode>{VoteMode::Clipped, VoteMode::Binary}));
}

// ---- WaldBoost LBP sequences (the waldboost_lbp stage trainer) ----------------------------------
namespace {
// The model with its WaldBoost sequence cut after its first t weak classifiers (all it has when fewer).
CascadeModel sequence_prefix(const CascadeModel& m, std::size_t t) {
    CascadeModel prefix = m;
    auto& wb = prefix.stages[0].as<WaldBoostLbpStage>();
    wb.weak.resize(std::min(t, wb.weak.size()));
    wb.final_threshold = wb.weak.back().reject_threshold;
    return prefix;
}

// Share of the crops' centred windows the model accepts.
// A sequence's final threshold is its last classifier's θ, or where that rejects nothing, a real
// sum (the lowest of a kept positive): never the −10⁶ that would leave detection scores H + 10⁶,
// of which float keeps only sixteenths.
void expect_final_threshold_keeps_the_sequence(const WaldBoostLbpStage& wb) {
    const float last = wb.weak.back().reject_threshold;
    if (last > -1e6f) EXPECT_EQ(wb.final_threshold, last);
    else EXPECT_GT(wb.final_threshold, -1e4f);
}

double accepted_share(const CascadeModel& m, const std::vector<PositiveCrop>& crops) {
    const CascadeEvaluator ev(m);
    std::size_t accepted = 0;
    for (const auto& p : crops) {
        const GrayImage g = read_pgm(p.path);
        LevelFeatures f;
        compute_level_features(g, ev.needs(), m.hog.gradient(), f);
        accepted += ev.evaluate(f, (g.width - 64) / 2, (g.height - 128) / 2).rejected_at < 0;
    }
    return static_cast<double>(accepted) / static_cast<double>(crops.size());
}
}  // namespace

TEST(WaldBoost, TrainsASequenceWhoseSprtThresholdsKeepAllButAlphaOfThePositives) {
    const SyntheticData d = make_data("waldboost_train");
    const TrainConfig cfg = tiny_waldboost_config();
    TrainOptions opt;
    opt.model_out = d.dir / "wb.h5";
    opt.created_utc = "2026-11-22T00:00:00Z";
    Quiet obs;
    const TrainSummary s = train(cfg, d.train, read_pgm, opt, obs);
    const CascadeModel m = load_model(opt.model_out);
    ASSERT_EQ(m.stages.size(), 1u) << s.stop_reason;
    const auto& wb = m.stages[0].as<WaldBoostLbpStage>();
    // These backgrounds run out after a few weak classifiers: training stops, saves and says so.
    EXPECT_GE(wb.weak.size(), 3u);
    EXPECT_TRUE(wb.weak.size() == 24u || (s.finished && s.negatives_exhausted)) << s.stop_reason;
    expect_final_threshold_keeps_the_sequence(wb);
    // SPRT with beta = 0 rejects at most alpha of the training positives in all.
    EXPECT_GE(accepted_share(m, d.train.positives), 1.0 - 0.05 - 1e-9);
    // Held out: most positives pass; the negatives' windows mostly do not.
    EXPECT_GE(accepted_share(m, d.test.positives), 0.8);
    std::uint64_t windows = 0, fps = 0;
    auto det = Detector::create(m, {}, Backend::Cpu);
    for (const auto& n : d.test.negatives) {
        const DetectResult r = det->detect(read_pgm(n).view());
        windows += r.stats.windows_scanned;
        fps += r.detections.size();
    }
    EXPECT_LT(static_cast<double>(fps) / static_cast<double>(windows), 0.05) << fps << " of " << windows;
    // Thresholds rise: early ones reject little, and each is a real SPRT bound or "reject none".
    for (const auto& c : wb.weak) EXPECT_GE(c.reject_threshold, -1e6f);
    // The pool was refilled by bootstrapping, and the log says so with the refill rate.
    EXPECT_TRUE(std::any_of(obs.notes.begin(), obs.notes.end(), [](const std::string& n) {
        return n.find("pool refilled with") != std::string::npos && n.find("windows scanned") != std::string::npos;
    }));
    EXPECT_TRUE(std::any_of(obs.notes.begin(), obs.notes.end(),
                            [](const std::string& n) { return n.find("negative data exhausted") != std::string::npos; }) ||
                wb.weak.size() == 24u);
}

// waldboost.budget_power below 1 lets the first weak classifiers spend more of the budget of
// rejected positives: by weak classifier t at most alpha·P·(t/T)^p of the training positives are
// gone, and the early thresholds reject more than with the budget spread evenly.
TEST(WaldBoost, BudgetPowerFrontLoadsTheRejectedPositives) {
    const SyntheticData d = make_data("waldboost_budget");
    auto run = [&](double power) {
        TrainConfig cfg = tiny_waldboost_config();
        cfg.waldboost.budget_power = power;
        TrainOptions opt;
        opt.model_out = d.dir / ("wb" + std::to_string(power) + ".h5");
        opt.created_utc = "2026-11-23T00:00:00Z";
        Quiet obs;
        train(cfg, d.train, read_pgm, opt, obs);
        return load_model(opt.model_out);
    };
    // Training positives rejected by the first t weak classifiers.
    auto lost_by = [&](const CascadeModel& m, std::size_t t) {
        return (1.0 - accepted_share(sequence_prefix(m, t), d.train.positives)) * static_cast<double>(d.train.positives.size());
    };
    const CascadeModel even = run(1.0), early = run(0.3);
    const double P = static_cast<double>(d.train.positives.size()), T = 24;
    const auto& ew = early.stages[0].as<WaldBoostLbpStage>().weak;
    ASSERT_GE(ew.size(), 3u);
    double more = 0;
    for (std::size_t t = 1; t <= ew.size(); ++t) {
        EXPECT_LE(lost_by(early, t), std::floor(0.05 * P * std::pow(static_cast<double>(t) / T, 0.3) + 1e-9) + 1e-9) << t;
        if (t <= 3 && t <= even.stages[0].as<WaldBoostLbpStage>().weak.size()) more += lost_by(early, t) - lost_by(even, t);
    }
    EXPECT_GT(more, 0.0);  // the first thresholds took more of the budget
    EXPECT_THROW(parse_train_config("waldboost: {budget_power: 0}\n", "x"), ConfigError);
}

// waldboost.rule wald: Wald's test on joint probabilities. The first classifier faces every
// window, so it may reject where negatives are 1/alpha times likelier than positives; later ones,
// facing only what the sequence still accepts, reject positives only where that holds of the
// whole negative distribution. The sequence rejects more negatives early than the spread rule,
// and by Wald's bound at most alpha of the training positives in all.
TEST(WaldBoost, WaldRuleRejectsMoreEarlyAndKeepsAllButAlpha) {
    const SyntheticData d = make_data("waldboost_wald_rule");
    auto run = [&](WaldRule rule) {
        TrainConfig cfg = tiny_waldboost_config();
        cfg.waldboost.rule = rule;
        TrainOptions opt;
        opt.model_out = d.dir / ("wb" + std::to_string(static_cast<int>(rule)) + ".h5");
        opt.created_utc = "2026-11-24T00:00:00Z";
        Quiet obs;
        train(cfg, d.train, read_pgm, opt, obs);
        return load_model(opt.model_out);
    };
    // Share of the held-out negative images' windows still accepted after the first t classifiers.
    auto left_after = [&](const CascadeModel& m, std::size_t t) {
        std::uint64_t windows = 0, accepted = 0;
        auto det = Detector::create(sequence_prefix(m, t), {}, Backend::Cpu);
        for (const auto& n : d.test.negatives) {
            const DetectResult r = det->detect(read_pgm(n).view());
            windows += r.stats.windows_scanned;
            accepted += r.stats.windows_accepted();
        }
        return static_cast<double>(accepted) / static_cast<double>(windows);
    };
    const CascadeModel spread = run(WaldRule::Spread), wald = run(WaldRule::Wald);
    ASSERT_GE(wald.stages[0].as<WaldBoostLbpStage>().weak.size(), 2u);
    const double P = static_cast<double>(d.train.positives.size());
    EXPECT_LE((1.0 - accepted_share(wald, d.train.positives)) * P, std::floor(0.05 * P + 1e-9) + 1e-9);
    EXPECT_GE(accepted_share(wald, d.test.positives), 0.8);
    for (std::size_t t : {1u, 2u}) EXPECT_LT(left_after(wald, t), left_after(spread, t)) << t;
    EXPECT_NE(std::string(kWaldRuleNames.choices()).find("wald"), std::string::npos);
    EXPECT_THROW(parse_train_config("waldboost: {rule: sprt}\n", "x"), ConfigError);
    EXPECT_EQ(parse_train_config("waldboost: {rule: wald}\n", "x").waldboost.rule, WaldRule::Wald);
}

// waldboost.rejection_rounds: the first classifiers are chosen for the negatives their SPRT
// threshold rejects. Where the two runs first choose differently they hold the same pool and the
// same candidates, among them Z's choice, so the rejection choice rejects at least as many of the
// pool (here strictly more); the positives' loss stays within α, and held-out faces still pass.
TEST(WaldBoost, RejectionRoundsChooseTheFirstClassifiersForWhatTheyReject) {
    const SyntheticData d = make_data("waldboost_rejection_rounds");
    struct Rounds : Quiet {
        std::vector<double> fp;  // the pool's share still active after each round
        void on_round(const RoundReport& r) override { fp.push_back(r.fp_rate); }
    };
    auto run = [&](int rejection_rounds, Rounds& obs) {
        TrainConfig cfg = tiny_waldboost_config();
        cfg.waldboost.rule = WaldRule::Wald;
        cfg.waldboost.rejection_rounds = rejection_rounds;
        TrainOptions opt;
        opt.model_out = d.dir / ("rr" + std::to_string(rejection_rounds) + ".h5");
        opt.created_utc = "2026-11-25T00:00:00Z";
        train(cfg, d.train, read_pgm, opt, obs);
        return load_model(opt.model_out);
    };
    Rounds by_z, by_rejection;
    const CascadeModel z = run(0, by_z), r = run(4, by_rejection);
    ASSERT_FALSE(by_z.fp.empty());
    ASSERT_FALSE(by_rejection.fp.empty());
    // Up to the first round whose choices differ, both runs are in the same state (the same
    // sequence, so the same pool after every refill): there the rejection choice rejects more.
    const auto& zw = z.stages[0].as<WaldBoostLbpStage>().weak;
    const auto& rw = r.stages[0].as<WaldBoostLbpStage>().weak;
    std::size_t first = 0;
    while (first < 4 && first < zw.size() && first < rw.size() && zw[first].cell == rw[first].cell) ++first;
    ASSERT_LT(first, 4u) << "the criteria agree on the first 4 classifiers: the synthetic data no longer tells them apart";
    ASSERT_LT(first, std::min(by_z.fp.size(), by_rejection.fp.size()));
    EXPECT_LT(by_rejection.fp[first], by_z.fp[first]) << "round " << first + 1;
    const double P = static_cast<double>(d.train.positives.size());
    EXPECT_LE((1.0 - accepted_share(r, d.train.positives)) * P, std::floor(0.05 * P + 1e-9) + 1e-9);
    EXPECT_GE(accepted_share(r, d.test.positives), 0.8);
    EXPECT_EQ(parse_train_config("waldboost: {rejection_rounds: 4}\n", "x").waldboost.rejection_rounds, 4);
    EXPECT_THROW(parse_train_config("waldboost: {rejection_rounds: -1}\n", "x"), ConfigError);
    EXPECT_THROW(parse_train_config("waldboost: {weak_classifiers: 8, rejection_rounds: 9}\n", "x"), ConfigError);
}

// The flips and quarter turns of the backgrounds are more negatives: each transform of every
// image follows the decoded images, in the configured order, and the run says how many it has.
TEST(WaldBoost, NegativeTransformsGiveMoreNegativesToBootstrapFrom) {
    const SyntheticData d = make_data("waldboost_transforms");
    const std::vector<fs::path> two{d.train.negatives[0], d.train.negatives[1]};
    const std::vector<ImageTransform> ts{ImageTransform::Rotate90, ImageTransform::Mirror};
    const auto images = detail::load_images(two, read_pgm, ts);
    ASSERT_EQ(images.size(), 6u);
    for (std::size_t t = 0; t < ts.size(); ++t)
        for (std::size_t k = 0; k < two.size(); ++k)
            EXPECT_EQ(images[(t + 1) * 2 + k].pixels, transformed(images[k], ts[t]).pixels) << t << " " << k;
    EXPECT_EQ(images[2].width, images[0].height);

    TrainConfig cfg = tiny_waldboost_config();
    cfg.data.negative_transforms = {ImageTransform::Mirror,   ImageTransform::UpsideDown, ImageTransform::Rotate180,
                                    ImageTransform::Rotate90, ImageTransform::Rotate270,  ImageTransform::Transpose,
                                    ImageTransform::Transverse};
    TrainOptions opt;
    opt.model_out = d.dir / "more.h5";
    opt.created_utc = "2026-11-22T00:00:00Z";
    Quiet obs;
    train(cfg, d.train, read_pgm, opt, obs);
    EXPECT_TRUE(std::any_of(obs.notes.begin(), obs.notes.end(), [](const std::string& n) {
        return n.find("30 negative images (×8 with their transforms)") != std::string::npos;
    }));
}

// Jittered positives: the warp is exact where it should be, each copy is drawn from the seed and
// the crop (the same for any thread count), and the run says how many positives it has.
TEST(WaldBoost, JitteredPositiveCopies) {
    GrayImage g(5, 5);
    for (int y = 0; y < 5; ++y)
        for (int x = 0; x < 5; ++x) g.at(x, y) = static_cast<std::uint8_t>(10 * y + x);
    EXPECT_EQ(detail::jittered(g, 0, 1, 0, 0).pixels, g.pixels);
    const GrayImage shifted = detail::jittered(g, 0, 1, 1, 0);  // content moves one pixel right
    EXPECT_EQ(shifted.at(3, 2), g.at(2, 2));
    EXPECT_EQ(shifted.at(0, 2), g.at(0, 2));  // edge replicated
    const GrayImage turned = detail::jittered(g, 90, 1, 0, 0);  // a quarter turn about the centre
    EXPECT_EQ(turned.pixels, transformed(g, ImageTransform::Rotate90).pixels);
    // Reduced 2× and enlarged back: a 2×2 checkerboard of 2-pixel squares becomes flat grey where
    // each small pixel averages one square, and a flat image stays as it is.
    GrayImage board(8, 8), flat(7, 5);
    for (int y = 0; y < 8; ++y)
        for (int x = 0; x < 8; ++x) board.at(x, y) = ((x / 2 + y / 2) % 2) ? 200 : 40;
    std::fill(flat.pixels.begin(), flat.pixels.end(), std::uint8_t{90});
    EXPECT_EQ(detail::low_res(board, 1).pixels, board.pixels);
    EXPECT_EQ(detail::low_res(flat, 2.7).pixels, flat.pixels);
    const GrayImage board4 = detail::low_res(board, 4);  // each small pixel covers 2×2 squares: mean 120
    for (std::uint8_t v : board4.pixels) EXPECT_EQ(v, 120);
    const GrayImage zoomed = detail::jittered(g, 0, 2, 0, 0);
    EXPECT_EQ(zoomed.at(2, 2), g.at(2, 2));
    EXPECT_EQ(zoomed.at(4, 2), g.at(3, 2));  // twice as large: 2 pixels out shows 1 pixel out

    const SyntheticData d = make_data("waldboost_jitter");
    DataConfig data;
    data.jitter_copies = 2;
    data.jitter_rotate = 8;
    data.jitter_scale = 0.05;
    data.jitter_shift = 1;
    const std::vector<PositiveCrop> crops(d.train.positives.begin(), d.train.positives.begin() + 10);
    const auto a = detail::load_crops(crops, read_pgm, 64, 128, data, 3);
    ASSERT_EQ(a.size(), 30u);
    std::vector<Image> b;
    {
        tbb::global_control single(tbb::global_control::max_allowed_parallelism, 1);
        b = detail::load_crops(crops, read_pgm, 64, 128, data, 3);
    }
    for (std::size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].pixels, b[i].pixels) << i;
    EXPECT_NE(a[10].pixels, a[0].pixels);
    EXPECT_NE(a[20].pixels, a[10].pixels);
    EXPECT_NE(detail::load_crops(crops, read_pgm, 64, 128, data, 4)[10].pixels, a[10].pixels);  // another seed
    DataConfig blurred = data;
    blurred.jitter_low_res = 3;
    const auto c = detail::load_crops(crops, read_pgm, 64, 128, blurred, 3);
    for (std::size_t i = 0; i < 10; ++i) EXPECT_EQ(c[i].pixels, a[i].pixels) << i;  // the crops themselves stay sharp
    EXPECT_NE(c[10].pixels, a[10].pixels);

    TrainConfig cfg = tiny_waldboost_config();
    cfg.data.jitter_copies = 1;
    cfg.data.jitter_rotate = 5;
    TrainOptions opt;
    opt.model_out = d.dir / "jit.h5";
    opt.created_utc = "2026-11-22T00:00:00Z";
    Quiet obs;
    train(cfg, d.train, read_pgm, opt, obs);
    EXPECT_TRUE(std::any_of(obs.notes.begin(), obs.notes.end(), [](const std::string& n) {
        return n.find("120 positive crops (×2 with jittered copies)") != std::string::npos;
    }));
}

// --resume --finish: the sequence trained so far becomes the model, at once.
TEST(WaldBoost, FinishEndsTheRunWithTheSequenceSoFar) {
    const SyntheticData d = make_data("waldboost_finish");
    const TrainConfig cfg = tiny_waldboost_config();
    TrainOptions opt;
    opt.model_out = d.dir / "wb.h5";
    opt.created_utc = "2026-11-22T00:00:00Z";
    opt.stop_after_rounds = 3;
    Quiet obs;
    EXPECT_FALSE(train(cfg, d.train, read_pgm, opt, obs).finished);
    EXPECT_FALSE(fs::exists(opt.model_out));  // a sequence in training is not a model yet
    opt.stop_after_rounds = 0;
    opt.finish = true;
    EXPECT_THROW(train(cfg, d.train, read_pgm, opt, obs), TrainError);  // --finish needs --resume
    opt.resume = true;
    const TrainSummary s = train(cfg, d.train, read_pgm, opt, obs);
    EXPECT_TRUE(s.finished);
    EXPECT_NE(s.stop_reason.find("ended on request (--finish) with 1 stage(s), the last with 3 learner(s)"), std::string::npos)
        << s.stop_reason;
    const CascadeModel m = load_model(opt.model_out);
    ASSERT_EQ(m.stages.size(), 1u);
    const auto& wb = m.stages[0].as<WaldBoostLbpStage>();
    EXPECT_EQ(wb.weak.size(), 3u);
    expect_final_threshold_keeps_the_sequence(wb);
    opt.finish = false;  // a finished run stays finished
    EXPECT_TRUE(train(cfg, d.train, read_pgm, opt, obs).finished);
    EXPECT_EQ(load_model(opt.model_out).stages[0].size(), 3u);
}

// waldboost.min_negatives: a refill that finds fewer ends the sequence there, and says so; the
// sequence is the start of the one trained until nothing is left.
TEST(WaldBoost, MinNegativesEndsTheSequenceWhenARefillFindsTooFew) {
    const SyntheticData d = make_data("waldboost_min_negatives");
    TrainConfig cfg = tiny_waldboost_config();
    TrainOptions opt;
    opt.model_out = d.dir / "all.h5";
    opt.created_utc = "2026-11-22T00:00:00Z";
    Quiet obs;
    train(cfg, d.train, read_pgm, opt, obs);
    cfg.waldboost.min_negatives = 250;  // of a 300-window pool
    opt.model_out = d.dir / "early.h5";
    const TrainSummary s = train(cfg, d.train, read_pgm, opt, obs);
    EXPECT_TRUE(s.finished && s.negatives_exhausted);
    EXPECT_NE(s.stop_reason.find("negative data nearly exhausted"), std::string::npos) << s.stop_reason;
    EXPECT_NE(s.stop_reason.find("fewer than the 250 it needs to go on: waldboost.min_negatives"), std::string::npos)
        << s.stop_reason;
    const CascadeModel all_model = load_model(d.dir / "all.h5"), early_model = load_model(d.dir / "early.h5");
    const auto& all = all_model.stages[0].as<WaldBoostLbpStage>();
    const auto& early = early_model.stages[0].as<WaldBoostLbpStage>();
    ASSERT_LT(early.weak.size(), all.weak.size());
    for (std::size_t k = 0; k < early.weak.size(); ++k) EXPECT_EQ(early.weak[k], all.weak[k]) << k;
    EXPECT_THROW(parse_train_config("waldboost: {min_negatives: -1}", "x.yaml"), ConfigError);
}

// waldboost.rescan false: once a refill finds fewer negatives than the pool holds, the backgrounds
// are not scanned again; the sequence goes on with the negatives left (the same weak classifiers
// as with rescans until the pool first runs low after that refill) until it is complete or has
// rejected them all, says so, and resumes bit-identically.
TEST(WaldBoost, WithoutRescanTheSequenceTrainsOnTheNegativesLeftAfterAShortRefill) {
    const SyntheticData d = make_data("waldboost_rescan");
    TrainConfig cfg = tiny_waldboost_config();
    cfg.waldboost.weak_classifiers = 40;
    TrainOptions opt;
    opt.model_out = d.dir / "rescan.h5";
    opt.created_utc = "2026-11-22T00:00:00Z";
    Quiet with_rescan;
    train(cfg, d.train, read_pgm, opt, with_rescan);
    cfg.waldboost.rescan = false;
    opt.model_out = d.dir / "keep.h5";
    Quiet obs;
    const TrainSummary s = train(cfg, d.train, read_pgm, opt, obs);
    auto is_refill = [](const std::string& n) { return n.find("pool refilled with") != std::string::npos; };
    const auto short_refill = std::find_if(obs.notes.begin(), obs.notes.end(), [&](const std::string& n) {
        return is_refill(n) && n.find("left (wanted 300)") != std::string::npos;
    });
    ASSERT_NE(short_refill, obs.notes.end()) << "these backgrounds should run short of a 300-window pool";
    EXPECT_NE(short_refill->find("waldboost.rescan is false: no more scans"), std::string::npos) << *short_refill;
    EXPECT_EQ(std::find_if(short_refill + 1, obs.notes.end(), is_refill), obs.notes.end()) << "scanned again";
    // With rescans the same run scans again after that refill.
    const auto count_refills = [&](const Quiet& q) { return std::count_if(q.notes.begin(), q.notes.end(), is_refill); };
    EXPECT_GT(count_refills(with_rescan), count_refills(obs));
    const CascadeModel rescan_model = load_model(d.dir / "rescan.h5"), keep_model = load_model(opt.model_out);
    const auto& rescanned = rescan_model.stages[0].as<WaldBoostLbpStage>();
    const auto& kept = keep_model.stages[0].as<WaldBoostLbpStage>();
    // "stage 1, K weak classifiers: pool refilled …". The two runs agree up to their first refill;
    // from there on a short pool of this run also holds the windows beyond the per-image share.
    auto weak_at = [](const std::string& note) { return std::stoul(note.substr(note.find(", ") + 2)); };
    const std::size_t k = weak_at(*short_refill);
    ASSERT_GT(kept.weak.size(), k + 1) << *short_refill;
    const std::size_t first = weak_at(*std::find_if(with_rescan.notes.begin(), with_rescan.notes.end(), is_refill));
    ASSERT_GE(rescanned.weak.size(), first);
    for (std::size_t i = 0; i < first; ++i) EXPECT_EQ(kept.weak[i], rescanned.weak[i]) << i;
    EXPECT_TRUE(s.finished);
    if (kept.weak.size() < 40u) {
        EXPECT_TRUE(s.negatives_exhausted);
        EXPECT_NE(s.stop_reason.find("negatives left (the backgrounds are not scanned again: waldboost.rescan is false)"),
                  std::string::npos) << s.stop_reason;
        // The short pool held every window the sequence accepted, so a sequence that rejects
        // them all accepts no window of the backgrounds, scanned as mining scans them.
        DetectParams scan;
        scan.stride = cfg.mining.stride;
        scan.scale_step = cfg.mining.scale_step;
        auto det = Detector::create(keep_model, scan, Backend::Cpu);
        std::size_t accepted = 0;
        for (const auto& n : d.train.negatives) accepted += det->detect(read_pgm(n).view()).detections.size();
        EXPECT_EQ(accepted, 0u);
    }
    // Stopped after the short refill and resumed, it decides the same way (the pool's size is in
    // the checkpoint).
    expect_resumed_run_gives_the_same_bytes(cfg, d, opt, static_cast<int>(k) + 2);
    EXPECT_THROW(parse_train_config("waldboost: {rescan: maybe}", "x.yaml"), ConfigError);
}

// mining.min_scale below 1 bootstraps from upscaled levels too (as `detect --min-scale` scans),
// and those windows are replayed exactly: the run and its resume give the same model.
TEST(WaldBoost, MiningMinScaleBelowOneFindsNegativesOnUpscaledLevels) {
    const SyntheticData d = make_data("waldboost_min_scale");
    TrainConfig cfg = tiny_waldboost_config();
    cfg.mining.min_scale = 0.7;
    TrainOptions opt;
    opt.model_out = d.dir / "up.h5";
    opt.created_utc = "2026-11-22T00:00:00Z";
    opt.stop_after_rounds = 4;  // after the first refill
    Quiet obs;
    train(cfg, d.train, read_pgm, opt, obs);
    const detail::Checkpoint c = detail::read_checkpoint(d.dir / "up.h5.state");
    ASSERT_FALSE(c.negatives.empty());
    EXPECT_TRUE(std::any_of(c.negatives.begin(), c.negatives.end(), [](const detail::WindowRef& r) { return r.scale < 1.0; }));
    opt.stop_after_rounds = 0;
    opt.resume = true;
    train(cfg, d.train, read_pgm, opt, obs);
    TrainOptions whole = opt;
    whole.resume = false;
    whole.model_out = d.dir / "whole.h5";
    train(cfg, d.train, read_pgm, whole, obs);
    EXPECT_EQ(bytes(opt.model_out), bytes(whole.model_out));
}

// waldboost.calibration_every: every Nth source photo's positives only set the rejection
// thresholds. They weigh nothing in the tables, so the first table is bit for bit that of a run
// trained without them; the thresholds keep all but α of them (wald rule: at most ⌊α·P⌋ in all,
// P the calibration positives); held-out positives still pass.
TEST(WaldBoost, CalibrationPositivesSetTheThresholdsAndNotTheTables) {
    const SyntheticData d = make_data("waldboost_calibration");
    const std::vector<std::uint8_t> mask = detail::calibration_mask(d.train.positives, d.train.positives.size(), 3);
    Dataset fit = d.train, calibrating = d.train;
    fit.positives.clear();
    calibrating.positives.clear();
    for (std::size_t i = 0; i < mask.size(); ++i) (mask[i] ? calibrating : fit).positives.push_back(d.train.positives[i]);
    ASSERT_GE(calibrating.positives.size(), 10u);
    ASSERT_GE(fit.positives.size(), 10u);
    auto run = [&](const Dataset& data, int every, const std::string& name, Quiet& obs) {
        TrainConfig cfg = tiny_waldboost_config();
        cfg.waldboost.rule = WaldRule::Wald;
        cfg.waldboost.calibration_every = every;
        TrainOptions opt;
        opt.model_out = d.dir / (name + ".h5");
        opt.created_utc = "2026-11-26T00:00:00Z";
        train(cfg, data, read_pgm, opt, obs);
        return load_model(opt.model_out);
    };
    Quiet cal_obs, fit_obs;
    const CascadeModel cal = run(d.train, 3, "cal", cal_obs), alone = run(fit, 0, "fit", fit_obs);
    EXPECT_TRUE(std::any_of(cal_obs.notes.begin(), cal_obs.notes.end(), [&](const std::string& n) {
        return n.find(std::to_string(calibrating.positives.size()) + " of the " + std::to_string(d.train.positives.size()) +
                      " positives") != std::string::npos;
    }));
    const auto& cw = cal.stages[0].as<WaldBoostLbpStage>().weak;
    const auto& aw = alone.stages[0].as<WaldBoostLbpStage>().weak;
    ASSERT_GE(cw.size(), 2u);
    ASSERT_GE(aw.size(), 1u);
    EXPECT_EQ(cw[0].cell, aw[0].cell);
    EXPECT_EQ(cw[0].responses, aw[0].responses);
    expect_final_threshold_keeps_the_sequence(cal.stages[0].as<WaldBoostLbpStage>());
    const double P = static_cast<double>(calibrating.positives.size());
    EXPECT_LE((1.0 - accepted_share(cal, calibrating.positives)) * P, std::floor(0.05 * P + 1e-9) + 1e-9);
    EXPECT_GE(accepted_share(cal, d.test.positives), 0.8);
    // Nothing to calibrate with (or only that): a clear error before any training.
    TrainConfig all = tiny_waldboost_config();
    all.waldboost.calibration_every = 1000;
    Dataset one = d.train;
    one.positives.resize(1);
    TrainOptions opt;
    opt.model_out = d.dir / "one.h5";
    Quiet obs;
    try {
        train(all, one, read_pgm, opt, obs);
        ADD_FAILURE() << "trained with a single positive to both fit and calibrate";
    } catch (const TrainError& e) {
        EXPECT_NE(std::string(e.what()).find("waldboost.calibration_every 1000 leaves no positives"), std::string::npos) << e.what();
    }
    EXPECT_FALSE(fs::exists(opt.model_out));
}

// waldboost.backward_pruning: the finished sequence's thresholds are raised to the lowest running
// sums of the calibration positives it keeps with a final sum at or above the pruning quantile.
// The tables and the final threshold stay; every such positive still passes with the same score,
// checked against the unpruned sequence's scores (a plain sort, not the trainer's code); windows
// of the backgrounds leave sooner.
TEST(WaldBoost, BackwardPruningKeepsThePositivesAboveTheQuantileAndRejectsSooner) {
    const SyntheticData d = make_data("waldboost_pruning");
    const std::vector<std::uint8_t> mask = detail::calibration_mask(d.train.positives, d.train.positives.size(), 3);
    std::vector<PositiveCrop> calibrating;
    for (std::size_t i = 0; i < mask.size(); ++i)
        if (mask[i]) calibrating.push_back(d.train.positives[i]);
    auto run = [&](bool prune, double q, Quiet& obs) {
        TrainConfig cfg = tiny_waldboost_config();
        cfg.waldboost.rule = WaldRule::Wald;
        cfg.waldboost.calibration_every = 3;
        cfg.waldboost.backward_pruning = prune;
        cfg.waldboost.pruning_quantile = q;
        TrainOptions opt;
        opt.model_out = d.dir / ("p" + std::to_string(prune) + "_" + std::to_string(q) + ".h5");
        opt.created_utc = "2026-11-26T00:00:00Z";
        train(cfg, d.train, read_pgm, opt, obs);
        return load_model(opt.model_out);
    };
    // Each calibration crop's outcome (centre window, as accepted_share reads it).
    auto outcomes = [&](const CascadeModel& m) {
        const CascadeEvaluator ev(m);
        std::vector<StageOutcome> out;
        for (const auto& p : calibrating) {
            const GrayImage g = read_pgm(p.path);
            LevelFeatures f;
            compute_level_features(g, ev.needs(), m.hog.gradient(), f);
            const WindowOutcome o = ev.evaluate(f, (g.width - 64) / 2, (g.height - 128) / 2);
            out.push_back({o.rejected_at < 0 ? o.score : -1.0f, o.weak_evaluated});  // rejected: -1
        }
        return out;
    };
    auto background_weak = [&](const CascadeModel& m) {
        DetectParams scan;
        scan.stride = 4;
        scan.scale_step = 1.25;
        auto det = Detector::create(m, scan, Backend::Cpu);
        std::uint64_t weak = 0;
        for (const auto& n : d.train.negatives) weak += det->detect(read_pgm(n).view()).stats.weak_evaluated;
        return weak;
    };
    Quiet plain_obs, all_obs, q_obs;
    const CascadeModel plain = run(false, 0, plain_obs), all = run(true, 0, all_obs), pruned = run(true, 0.25, q_obs);
    const auto& pw = plain.stages[0].as<WaldBoostLbpStage>();
    const std::vector<StageOutcome> base = outcomes(plain);
    std::vector<float> kept;  // the kept calibration crops' scores, H_T - final threshold
    for (const StageOutcome& o : base)
        if (o.score >= 0) kept.push_back(o.score);
    ASSERT_GE(kept.size(), 8u);
    std::sort(kept.begin(), kept.end());
    for (const auto& [model, q, obs] : {std::tuple{&all, 0.0, &all_obs}, std::tuple{&pruned, 0.25, &q_obs}}) {
        SCOPED_TRACE(q);
        const auto& w = model->stages[0].as<WaldBoostLbpStage>();
        ASSERT_EQ(w.weak.size(), pw.weak.size());
        EXPECT_EQ(w.final_threshold, pw.final_threshold);
        std::size_t raised = 0;
        for (std::size_t t = 0; t < w.weak.size(); ++t) {
            EXPECT_EQ(w.weak[t].cell, pw.weak[t].cell);
            EXPECT_EQ(w.weak[t].responses, pw.weak[t].responses);
            EXPECT_GE(w.weak[t].reject_threshold, pw.weak[t].reject_threshold) << t;
            raised += w.weak[t].reject_threshold > pw.weak[t].reject_threshold;
        }
        if (q > 0) {
            EXPECT_GT(raised, 0u);  // (with every kept positive, these thresholds may already sit there)
        }
        const float floor_score = kept[static_cast<std::size_t>(std::floor(q * static_cast<double>(kept.size()) + 1e-9))];
        const std::vector<StageOutcome> now = outcomes(*model);
        std::size_t lost = 0;
        for (std::size_t i = 0; i < base.size(); ++i) {
            if (base[i].score >= floor_score) {
                EXPECT_EQ(std::bit_cast<std::uint32_t>(now[i].score), std::bit_cast<std::uint32_t>(base[i].score)) << i;
            } else {
                EXPECT_LT(now[i].score, floor_score) << i;  // rejected, or kept below the floor
                lost += base[i].score >= 0 && now[i].score < 0;
            }
        }
        if (q == 0.0) {
            EXPECT_EQ(lost, 0u);
            EXPECT_LE(background_weak(*model), background_weak(plain));
        } else {
            EXPECT_GT(lost, 0u);
            EXPECT_LT(background_weak(*model), background_weak(plain));
        }
        EXPECT_TRUE(std::any_of(obs->notes.begin(), obs->notes.end(), [](const std::string& n) {
            return n.find("backward pruning: ") != std::string::npos && n.find(" rejection thresholds raised") != std::string::npos;
        }));
    }
    EXPECT_THROW(parse_train_config("waldboost: {backward_pruning: true, pruning_quantile: 0.6}", "x.yaml"), ConfigError);
    EXPECT_THROW(parse_train_config("waldboost: {pruning_quantile: 0.1}", "x.yaml"), ConfigError);
    EXPECT_THROW(parse_train_config("waldboost: {backward_pruning: 2}", "x.yaml"), ConfigError);
}

// Both threshold rules: the wald rule's checkpoint also holds the pool's false-positive rate, which
// a refill changes. Also with rejection rounds and with calibration positives.
// The stage a WaldBoost trainer offers for setting the mining backend up before its first round
// (StageTrainer::warm_up_stage): a valid model that rejects every window. A HoG stage trainer
// offers its stage, invalid until its first learner (the loop then waits for that round).
TEST(WaldBoost, WarmUpStageIsValidAndRejectsEveryWindowBeforeTheFirstTable) {
    const SyntheticData d = make_data("waldboost_warm_up");
    const TrainConfig cfg = tiny_hybrid_config();
    const StageTrainerKind* kind = find_stage_trainer("waldboost_lbp");
    ASSERT_NE(kind, nullptr);
    const std::unique_ptr<StageTrainer> t = kind->make(cfg);
    CascadeModel m;
    m.window_width = cfg.window.width;
    m.window_height = cfg.window.height;
    m.hog = cfg.hog;
    m.stages = {t->warm_up_stage()};
    ASSERT_NO_THROW(validate_model(m));
    EXPECT_EQ(m.stages[0].as<WaldBoostLbpStage>().weak.size(), 1u);
    EXPECT_TRUE(t->stage().as<WaldBoostLbpStage>().weak.empty());
    auto det = Detector::create(m, {}, Backend::Cpu);
    std::uint64_t windows = 0;
    for (const auto& neg : d.train.negatives) {
        const DetectResult r = det->detect(read_pgm(neg).view());
        windows += r.stats.windows_scanned;
        EXPECT_TRUE(r.detections.empty()) << neg;
    }
    EXPECT_GT(windows, 0u);
    const std::unique_ptr<StageTrainer> hog = find_stage_trainer("hog_svm")->make(cfg);
    m.stages = {hog->warm_up_stage()};
    EXPECT_THROW(validate_model(m), ModelError) << "a HoG stage without learners";
}

// The draw every bootstrapping path shares: first_of_shuffle is the first t entries of the plain
// Fisher-Yates shuffle of an n-entry array (swap i with i + below(n − i)), and subsample keeps the
// refs at those entries in their order, the others going to `rest` in theirs.
TEST(WaldBoost, FirstOfShuffleAndSubsampleAreThePlainArraysShuffle) {
    std::size_t compared = 0;
    for (std::size_t n : {1u, 2u, 7u, 100u, 5000u})
        for (std::size_t t : {std::size_t{0}, std::size_t{1}, n / 2, n - 1, n}) {
            const RandomStream rng(11, {n, t});
            std::vector<std::uint32_t> plain(n);
            std::iota(plain.begin(), plain.end(), 0u);
            RandomStream r = rng;
            for (std::size_t i = 0; i < t; ++i) std::swap(plain[i], plain[i + r.below(n - i)]);
            plain.resize(t);
            EXPECT_EQ(detail::first_of_shuffle(n, t, rng), plain) << n << " " << t;
            std::vector<detail::WindowRef> refs;
            for (std::uint32_t i = 0; i < n; ++i) refs.push_back(detail::WindowRef{i, 0, 1.0, static_cast<std::int32_t>(i), 0});
            std::vector<detail::WindowRef> rest;
            const std::vector<detail::WindowRef> got = detail::subsample(refs, t, rng, &rest);
            std::vector<std::uint32_t> chosen = plain;
            std::sort(chosen.begin(), chosen.end());
            ASSERT_EQ(got.size(), chosen.size()) << n << " " << t;
            for (std::size_t k = 0; k < got.size(); ++k) EXPECT_EQ(got[k].image, chosen[k]) << n << " " << t;
            ASSERT_EQ(rest.size(), n - got.size());
            for (std::size_t k = 1; k < rest.size(); ++k) EXPECT_LT(rest[k - 1].image, rest[k].image);
            for (const detail::WindowRef& w : rest) EXPECT_FALSE(std::binary_search(chosen.begin(), chosen.end(), w.image));
            ++compared;
        }
    EXPECT_EQ(compared, 25u);
}

// mine_pool draws each image's windows on the bulk runner's workers (the first per_image of
// subsample's shuffle) and keeps as many of them as the pool has room for. The pool must be what
// the plain procedure gives: every accepted window of each image in the shuffled order, then
// subsample(windows, min(per_image, room), RandomStream(seed, {image})), until the pool is full,
// for per-image limits above and below the images' counts and pools that end inside an image,
// with and without a window filter.
TEST(WaldBoost, PoolDrawnOnTheWorkersEqualsSubsamplingEachImage) {
    const SyntheticData d = make_data("waldboost_pool_draw");
    TrainConfig cfg = tiny_waldboost_config();
    CascadeModel m;
    m.window_width = cfg.window.width;
    m.window_height = cfg.window.height;
    m.hog = cfg.hog;
    WaldBoostLbpStage stage;
    LbpWeakClassifier c;
    c.cell = {4, 8, 6, 10};
    std::mt19937 rng(3);
    for (float& r : c.responses) r = rng() % 3 == 0 ? 1.0f : -1.0f;  // about a third of the codes pass
    c.reject_threshold = -10.0f;
    stage.weak.push_back(c);
    stage.final_threshold = 0.0f;
    m.stages.push_back(stage);
    validate_model(m);
    const std::vector<Image> images = detail::load_images(d.train.negatives, read_pgm);
    Quiet obs;
    std::mutex mutex;
    // The pools of every size against the plain procedure, for the windows `allowed` lets through
    // (annotated images' keep-clear rule) or all of them.
    const auto expect_plain_pools = [&](const detail::WindowFilter& allowed) {
        const std::vector<detail::WindowRef> all = detail::mine(m, cfg, images, 1, obs, mutex, nullptr, allowed);
        ASSERT_GT(all.size(), 200u);
        std::map<std::uint32_t, std::vector<detail::WindowRef>> of_image;  // each image's in scan order
        for (const detail::WindowRef& w : all) of_image[w.image].push_back(w);
        for (const auto& [want, per_image] : std::vector<std::pair<std::size_t, std::size_t>>{{50, 7}, {333, 20}, {1000, 1000}, {100000, 60}}) {
            const RandomStream stream(cfg.seed, {42, want});
            const std::vector<detail::WindowRef> pool =
                detail::mine_pool(m, cfg, images, want, per_image, stream, 1, obs, mutex, nullptr, allowed);
            RandomStream r = stream;
            std::vector<std::uint32_t> order;
            for (std::uint32_t i = 0; i < images.size(); ++i)
                if (images[i].width >= m.window_width && images[i].height >= m.window_height) order.push_back(i);
            for (std::size_t i = 0; i + 1 < order.size(); ++i) std::swap(order[i], order[i + r.below(order.size() - i)]);
            const std::uint64_t seed = r.next();
            std::vector<detail::WindowRef> expected;
            for (std::uint32_t image : order) {
                if (expected.size() >= want) break;
                const auto it = of_image.find(image);
                if (it == of_image.end()) continue;
                const std::vector<detail::WindowRef> drawn =
                    detail::subsample(it->second, std::min(per_image, want - expected.size()), RandomStream(seed, {image}));
                expected.insert(expected.end(), drawn.begin(), drawn.end());
            }
            ASSERT_EQ(pool.size(), expected.size()) << want << " wanted, " << per_image << " an image";
            for (std::size_t i = 0; i < pool.size(); ++i)
                ASSERT_TRUE(pool[i].image == expected[i].image && pool[i].scale == expected[i].scale && pool[i].x == expected[i].x &&
                            pool[i].y == expected[i].y)
                    << "window " << i << " of " << want << " wanted, " << per_image << " an image";
        }
    };
    expect_plain_pools({});
    expect_plain_pools([](const detail::WindowRef& w) { return (w.x / 8 + w.y / 8) % 3 != 0; });
}

TEST(WaldBoost, ResumesBitIdenticallyAndIgnoresTheThreadCount) {
    struct Case {
        WaldRule rule;
        int rejection_rounds;
        int calibration_every = 0;
        bool pruning = false;
    };
    for (const Case c : {Case{WaldRule::Spread, 0}, Case{WaldRule::Wald, 0}, Case{WaldRule::Wald, 3}, Case{WaldRule::Wald, 0, 3},
                         Case{WaldRule::Wald, 0, 3, true}}) {
        const std::string name = std::string(kWaldRuleNames.name(c.rule)) + "_" + std::to_string(c.rejection_rounds) + "_" +
                                 std::to_string(c.calibration_every) + (c.pruning ? "_pruned" : "");
        SCOPED_TRACE(name);
        const SyntheticData d = make_data("waldboost_resume_" + name);
        TrainConfig cfg = tiny_waldboost_config();
        cfg.waldboost.weak_classifiers = 12;
        cfg.waldboost.rule = c.rule;
        cfg.waldboost.rejection_rounds = c.rejection_rounds;
        cfg.waldboost.calibration_every = c.calibration_every;
        cfg.waldboost.backward_pruning = c.pruning;
        cfg.waldboost.pruning_quantile = c.pruning ? 0.1 : 0.0;
        TrainOptions whole;
        whole.model_out = d.dir / "whole.h5";
        whole.created_utc = "2026-11-22T00:00:00Z";
        Quiet obs;
        train(cfg, d.train, read_pgm, whole, obs);
        EXPECT_TRUE(std::any_of(obs.notes.begin(), obs.notes.end(),
                                [](const std::string& n) { return n.find("pool refilled with") != std::string::npos; }));
        expect_resumed_run_gives_the_same_bytes(cfg, d, whole, 1);
        expect_same_bytes_with_threads(cfg, d, whole, 1);
    }
}

// The wald rule's checkpoint carries the pool's false-positive rate after the stage record: a
// value outside (0, 1], or none, is refused by name; the good checkpoint still resumes.
TEST(WaldBoost, DamagedPoolRateInTheCheckpointIsRefusedByName) {
    const SyntheticData d = make_data("waldboost_bad_rate");
    TrainConfig cfg = tiny_waldboost_config();
    cfg.waldboost.rule = WaldRule::Wald;
    Quiet obs;
    TrainOptions opt = stopped_run(cfg, d, 4, "2026-11-24T00:00:00Z", obs);
    ASSERT_FALSE(HasFailure());
    const fs::path state = d.dir / "m.h5.state";
    const std::vector<char> good = bytes(state);
    auto resume_with = [&](const std::function<void(ByteWriter&, double)>& tail) {
        reseal_checkpoint(state, good, [&](detail::Checkpoint& c) {
            ByteReader in(c.current.data(), c.current.size());
            const Stage stage = decode_stage(in);
            const double rate = in.pod<double>();
            EXPECT_TRUE(in.at_end());
            EXPECT_GT(rate, 0.0);
            EXPECT_LE(rate, 1.0);
            ByteWriter out;
            encode_stage(stage, out);
            tail(out, rate);
            c.current = out.bytes;
        });
    };
    for (double bad : {0.0, 2.0, std::nan("")}) {
        resume_with([&](ByteWriter& out, double) { out.pod(bad); });
        try {
            train(cfg, d.train, read_pgm, opt, obs);
            ADD_FAILURE() << "resumed with a pool rate of " << bad;
        } catch (const TrainError& e) {
            EXPECT_NE(std::string(e.what()).find(state.string()), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find("false-positive rate is not in (0, 1]"), std::string::npos) << e.what();
        }
    }
    resume_with([](ByteWriter&, double) {});  // the rate left out
    EXPECT_THROW(train(cfg, d.train, read_pgm, opt, obs), TrainError);
    resume_with([](ByteWriter& out, double rate) { out.pod(rate); });  // re-sealed as it was
    opt.stop_after_rounds = 0;
    EXPECT_TRUE(train(cfg, d.train, read_pgm, opt, obs).finished);
}

// layout: folders: every image of the crops folder and of each negative folder, no list files.
TEST(Trainer, FoldersLayoutReadsCropsAndNegativeFolders) {
    const fs::path dir = scratch_dir("trainer_folders");
    fs::create_directories(dir / "crops");
    fs::create_directories(dir / "bg1");
    fs::create_directories(dir / "bg2");
    // Names built by appending: GCC 12 warns (-Wrestrict, a false positive) on "c" + std::string here.
    auto name = [](char c, int i) {
        std::string n(1, c);
        n += std::to_string(i);
        n += ".pgm";
        return n;
    };
    for (int i = 0; i < 10; ++i) write_pgm(dir / "crops" / name('c', i), blobby_image(36, 36, static_cast<unsigned>(i)));
    for (int i = 0; i < 4; ++i) write_pgm(dir / "bg1" / name('a', i), blobby_image(80, 60, 50u + static_cast<unsigned>(i)));
    write_pgm(dir / "bg2" / "z.pgm", blobby_image(80, 60, 99));
    const TrainConfig cfg = parse_train_config(
        "data: {layout: folders, positives_dir: crops, negatives_dirs: [bg1, bg2], holdout_every: 5, split_file: " +
            (dir / "split.txt").string() + "}\nwindow: {width: 24, height: 24}\n",
        "folders.yaml");
    const Dataset all = configured_dataset(cfg, dir);
    EXPECT_EQ(all.positives.size(), 10u);
    EXPECT_EQ(all.negatives.size(), 5u);
    const Dataset train = training_dataset(cfg, dir);
    EXPECT_EQ(train.positives.size(), 8u);  // every 5th crop held out
    EXPECT_EQ(train.negatives.size(), 4u);
    EXPECT_THROW(parse_train_config("data: {layout: folders, positives_dir: crops}", "x.yaml"), ConfigError);
    EXPECT_THROW(configured_dataset(parse_train_config("data: {layout: folders, positives_dir: nope, negatives_dirs: [bg1]}", "y.yaml"), dir),
                 DatasetError);
}

// A hybrid: a WaldBoost LBP sequence in front of HoG stages, trained in one run, each stage on
// the negatives the cascade so far still accepts; one model the detector runs.
TEST(WaldBoost, HybridSequenceTrainsAnLbpPrefixThenHogStages) {
    const SyntheticData d = make_data("waldboost_hybrid");
    const TrainConfig cfg = tiny_hybrid_config();
    TrainOptions opt;
    opt.model_out = d.dir / "hybrid.h5";
    opt.created_utc = "2026-11-22T00:00:00Z";
    Quiet obs;
    const TrainSummary s = train(cfg, d.train, read_pgm, opt, obs);
    const CascadeModel m = load_model(opt.model_out);
    ASSERT_GE(m.stages.size(), 2u) << s.stop_reason;
    EXPECT_EQ(m.stages[0].kind(), "waldboost_lbp");
    for (std::size_t k = 1; k < m.stages.size(); ++k) EXPECT_EQ(m.stages[k].kind(), "hog_svm");
    EXPECT_EQ(feature_family(m), "lbp+hog");
    EXPECT_GE(accepted_share(m, d.test.positives), 0.8);
    // Resumed after every round: the same bytes.
    expect_resumed_run_gives_the_same_bytes(cfg, d, opt, 1);
    EXPECT_THROW(parse_train_config("boosting: {stage_sequence: [waldboost_lbp, nope]}", "x.yaml"), ConfigError);
}

// data.jitter_only_for: the jittered copies train the LBP prefix only. The prefix is then the
// same as with jitter for every stage (the same positives and negatives), the HoG stages are not
// (they see the crops alone), and the run resumes bit for bit across the switch.
TEST(WaldBoost, JitteredCopiesCanTrainThePrefixOnly) {
    const SyntheticData d = make_data("waldboost_jitter_prefix");
    TrainConfig all = tiny_hybrid_config();
    all.data.jitter_copies = 1;
    all.data.jitter_rotate = 5;
    all.data.jitter_shift = 2;
    TrainConfig prefix = all;
    prefix.data.jitter_only_for = "waldboost_lbp";
    prefix.text.push_back('\n');  // another run: its own fingerprint
    TrainOptions a, b;
    a.model_out = d.dir / "all.h5";
    b.model_out = d.dir / "prefix.h5";
    a.created_utc = b.created_utc = "2026-11-23T00:00:00Z";
    Quiet obs, obs_b;
    train(all, d.train, read_pgm, a, obs);
    train(prefix, d.train, read_pgm, b, obs_b);
    const CascadeModel ma = load_model(a.model_out), mb = load_model(b.model_out);
    // The HoG stages train on as many negatives as their own positives (the crops alone), not as
    // the prefix's (crops and copies).
    ASSERT_GE(obs_b.negatives.size(), 2u);
    for (std::size_t k = 1; k < obs_b.negatives.size(); ++k) EXPECT_LE(obs_b.negatives[k], d.train.positives.size()) << "stage " << k + 1;
    ASSERT_GE(ma.stages.size(), 2u);
    ASSERT_GE(mb.stages.size(), 2u);
    EXPECT_EQ(ma.stages[0], mb.stages[0]);
    EXPECT_NE(ma.stages[1], mb.stages[1]);
    EXPECT_GE(accepted_share(mb, d.test.positives), 0.8);
    expect_resumed_run_gives_the_same_bytes(prefix, d, b, 1);
    EXPECT_THROW(parse_train_config("data: {jitter_only_for: lbp}", "x.yaml"), ConfigError);
}

// cut_region against a plain reference: shrinking by 2 averages 2×2 blocks, a region past the
// edges replicates them, enlarging interpolates.
TEST(AnnotatedData, CutRegionAveragesWhenShrinkingAndReplicatesEdges) {
    const GrayImage g = random_image(40, 30, 3);
    const GrayImage half = detail::cut_region(g, {4, 6, 20, 16}, 10, 8);
    for (int v = 0; v < 8; ++v)
        for (int u = 0; u < 10; ++u) {
            const int x = 4 + 2 * u, y = 6 + 2 * v;
            const double mean = (g.at(x, y) + g.at(x + 1, y) + g.at(x, y + 1) + g.at(x + 1, y + 1)) / 4.0;
            EXPECT_NEAR(half.at(u, v), mean, 0.5 + 1e-9) << u << "," << v;
        }
    const GrayImage same = detail::cut_region(g, {-5, -5, 40, 30}, 40, 30);  // shifted by 5: edges replicated
    for (int v = 0; v < 30; ++v)
        for (int u = 0; u < 40; ++u) EXPECT_EQ(same.at(u, v), g.at(std::clamp(u - 5, 0, 39), std::clamp(v - 5, 0, 29)));
    const GrayImage twice = detail::cut_region(g, {10, 10, 5, 5}, 10, 10);  // bilinear: centres at 10.25, 10.75, …
    EXPECT_NEAR(twice.at(1, 1), 0.5625 * g.at(10, 10) + 0.1875 * (g.at(11, 10) + g.at(10, 11)) + 0.0625 * g.at(11, 11), 0.5 + 1e-9);
}

// A negative window's object box keeps clear of annotated boxes, through the image transforms.
TEST(AnnotatedData, NegativeWindowsKeepClearOfObjectsInEveryTransform) {
    const std::vector<Box> clear{{100, 50, 30, 90}};
    const ObjectBox whole{};
    EXPECT_FALSE(negative_window_allowed({100, 50, 30, 90}, whole, clear, 0.3));
    EXPECT_FALSE(negative_window_allowed({105, 60, 30, 90}, whole, clear, 0.3));  // IoU 0.6
    EXPECT_TRUE(negative_window_allowed({160, 50, 30, 90}, whole, clear, 0.3));
    EXPECT_FALSE(negative_window_allowed({102, 60, 20, 40}, whole, clear, 0.3));  // small, inside the object: IoU 0.3 → refused
    EXPECT_FALSE(negative_window_allowed({110, 70, 10, 20}, whole, clear, 0.9));  // wholly inside (a crowd region): refused
    EXPECT_TRUE(negative_window_allowed({0, 0, 400, 400}, whole, clear, 0.3));    // a much larger window: the object is small in it
    // Transformed boxes land where transformed() moves the pixels.
    GrayImage g = constant_image(40, 30, 0);
    const Box b{5, 7, 6, 4};
    for (int y = 7; y < 11; ++y)
        for (int x = 5; x < 11; ++x) g.at(x, y) = 200;
    for (const auto& [t, name] : kImageTransformNames.items) {
        const GrayImage tg = transformed(g, t);
        const Box tb = transformed_box(b, 40, 30, t);
        int inside = 0, lit = 0;
        for (int y = 0; y < tg.height; ++y)
            for (int x = 0; x < tg.width; ++x) {
                const bool in = x >= tb.x && x < tb.x + tb.w && y >= tb.y && y < tb.y + tb.h;
                lit += tg.at(x, y) == 200;
                inside += in && tg.at(x, y) == 200;
            }
        EXPECT_EQ(lit, 24) << name;
        EXPECT_EQ(inside, 24) << name;
        EXPECT_DOUBLE_EQ(tb.w * tb.h, 24.0) << name;
    }
}

// Training from annotated full images: positives cut from the boxes (too small ones counted and
// skipped), negatives from the same images away from the boxes; the model finds held-out objects.
TEST(AnnotatedData, TrainsFromAnnotatedImagesAndFindsHeldOutObjects) {
    const fs::path dir = scratch_dir("trainer_annotated");
    std::mt19937 rng(11);
    std::ofstream list(dir / "bars.txt");
    std::vector<std::pair<fs::path, std::vector<Box>>> scenes;
    for (int i = 0; i < 48; ++i) {
        GrayImage g = negative_image(rng);  // clutter: bars of the wrong orientation, width or length
        GrayImage big(320, 300);
        for (int y = 0; y < 300; ++y)
            for (int x = 0; x < 320; ++x) big.at(x, y) = g.at(x % 200, y % 220);
        std::vector<Box> bars;
        std::uniform_real_distribution<double> s(0.9, 1.3);
        for (const double wx : {10.0, 170.0}) {
            const double scale = s(rng), wy = 20 + 30 * (i % 3);
            draw_bar(big, wx, wy, scale, 230);
            bars.push_back({wx + 28 * scale, wy, 8 * scale, 128 * scale});  // the bar is the object
        }
        if (i == 0) bars.push_back({150, 10, 4, 20});  // too small to be a positive
        const fs::path p = dir / ("scene" + std::to_string(i) + ".pgm");
        write_pgm(p, big);
        list << p.filename().string() << " " << bars.size();
        for (const Box& b : bars) list << " " << b.x << " " << b.y << " " << b.w << " " << b.h;
        list << "\n";
        scenes.push_back({p, bars});
    }
    list.close();
    TrainConfig cfg = parse_train_config("seed: 3\ndata: {layout: annotated, annotations: " + (dir / "bars.txt").string() +
                                             ", holdout_every: 4, positive_margin: 8}\n"
                                             "window: {width: 64, height: 128, object_box: [0.4375, 0, 0.125, 1]}\n"
                                             "boosting: {candidates_per_round: 12, d_min: 0.98, f_max: 0.5, F_target: 0.001, "
                                             "max_stages: 6, max_learners_per_stage: 12}\n"
                                             "mining: {stride: 8, scale_step: 1.25, backend: cpu}\n"
                                             "detect: {stride: 4, scale_step: 1.1, fuse: nms}\n",
                                         "annotated.yaml");
    const Dataset all = configured_dataset(cfg, dir);
    EXPECT_EQ(all.positives.size(), 96u);  // 2 bars an image; the small one skipped
    EXPECT_NE(all.description.find("skipped 1 shorter than 64 px"), std::string::npos) << all.description;
    EXPECT_EQ(all.negatives.size(), 48u);
    EXPECT_EQ(all.keep_clear.size(), 48u);
    EXPECT_EQ(all.positives[0].width, 80);  // the window with 8 pixels around
    const Dataset train_part = training_dataset(cfg, dir);
    const HeldOutSplit split = held_out_split(cfg, all);
    for (const PositiveCrop& p : train_part.positives) EXPECT_FALSE(split.holds(p.path)) << p.path;  // whole images held out
    EXPECT_EQ(train_part.negatives.size(), 36u);
    TrainOptions opt;
    opt.model_out = dir / "bars.h5";
    Quiet obs;
    const TrainSummary s = train(cfg, train_part, read_pgm, opt, obs);
    EXPECT_GE(s.stages, 2);
    const CascadeModel m = load_model(opt.model_out);
    EXPECT_EQ(m.object_box, (ObjectBox{0.4375f, 0, 0.125f, 1}));
    EXPECT_EQ(m.operating.stride, 4);
    EXPECT_EQ(m.operating.fuse, "nms");
    // The held-out scenes: bars found (IoU >= 0.5 of the object box), few false boxes.
    const std::vector<AnnotatedFile> held = held_out_annotations(cfg, dir);
    ASSERT_EQ(held.size(), 12u);
    ObjectOptions options;  // the model's operating point, every box kept (threshold 0)
    options.point.threshold = 0.0;
    options.bulk.backend = Backend::Cpu;
    ObjectDetector det(m, options);
    std::size_t objects = 0, found = 0, false_boxes = 0;
    for (const AnnotatedFile& f : held) {
        std::vector<bool> used(f.objects.size(), false);
        for (const FoundObject& box : det.detect(read_pgm(f.image).view()).objects) {
            const Box& o = box.box;
            bool hit = false;
            for (std::size_t k = 0; k < f.objects.size(); ++k)
                if (!used[k] && iou(o, f.objects[k]) >= 0.5) used[k] = hit = true;
            false_boxes += !hit;
        }
        objects += f.objects.size();
        for (bool u : used) found += u;
    }
    std::printf("held-out annotated scenes: %zu of %zu bars found, %zu false boxes\n", found, objects, false_boxes);
    EXPECT_GE(found, objects * 3 / 4);
    EXPECT_LE(false_boxes, 6 * held.size());  // a 6-stage toy at threshold 0: cascade calibrate picks the operating point

    // Negative windows drawn from the annotated images keep clear of the bars; unfiltered, many would not.
    const auto images = detail::load_images(train_part.negatives, read_pgm);
    const detail::WindowFilter allowed = detail::keep_clear_filter(train_part, images, {}, cfg);
    ASSERT_TRUE(allowed);
    auto overlapping = [&](const std::vector<detail::WindowRef>& refs) {
        std::size_t n = 0;
        for (const auto& r : refs) {
            const Box w{r.x * r.scale, r.y * r.scale, 64 * r.scale, 128 * r.scale};
            const Box o = object_in_window(cfg.object_box, w.x, w.y, w.w, w.h);
            for (const Box& b : train_part.keep_clear.at(train_part.negatives[r.image])) n += iou(o, b) >= 0.3;
        }
        return n;
    };
    const auto free = detail::random_windows(images, 3000, 64, 128, 1.1, RandomStream(1, {1}), allowed);
    const auto any = detail::random_windows(images, 3000, 64, 128, 1.1, RandomStream(1, {1}));
    EXPECT_EQ(free.size(), 3000u);
    EXPECT_EQ(overlapping(free), 0u);
    EXPECT_GT(overlapping(any), 10u);
}
