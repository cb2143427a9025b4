// trainer/: a tiny cascade trained on synthetic data must separate held-out positives from
// negatives far better than chance; training is deterministic for any thread count and resuming
// an interrupted run gives the very same model file.
#include <gtest/gtest.h>
#include <tbb/global_control.h>

#include <fstream>
#include <iterator>

#include "cascadekit/io/model_file.hpp"
#include "cascadekit/runtime/detector.hpp"
#include "cascadekit/runtime/window_evaluator.hpp"
#include "cascadekit/trainer/trainer.hpp"
#include "test_support.hpp"
#include "trainer_support.hpp"

using namespace cascadekit;
using namespace cascadekit::test;
namespace fs = std::filesystem;

namespace {

// Share of held-out positives accepted and of held-out negative windows accepted.
std::pair<double, double> held_out_rates(const CascadeModel& m, const SyntheticData& d) {
    std::size_t accepted = 0;
    for (const auto& p : d.test.positives) {
        const GrayImage g = read_pgm(p.path);
        LevelFeatures f;
        f.hog.compute(g);
        accepted += evaluate_window(m, f, 8, 8).rejected_at < 0;
    }
    std::uint64_t windows = 0, fps = 0;
    auto det = Detector::create(m, {}, Backend::Cpu);
    for (const auto& n : d.test.negatives) {
        const auto r = det->detect(read_pgm(n).view());
        windows += r.stats.windows_scanned;
        fps += r.detections.size();
    }
    return {double(accepted) / double(d.test.positives.size()), double(fps) / double(windows)};
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
    TrainOptions many = whole;
    many.model_out = d.dir / "many.h5";
    {
        tbb::global_control sixteen(tbb::global_control::max_allowed_parallelism, 16);
        train(cfg, d.train, read_pgm, many, obs);
    }
    EXPECT_EQ(bytes(whole.model_out), bytes(many.model_out));
}

TEST(Trainer, ExhaustedNegativesStopTrainingAndSaySo) {
    SyntheticData d = make_data("trainer_exhaust");
    TrainConfig cfg = tiny_config();
    cfg.F_target = 1e-15;
    cfg.max_stages = 30;
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
    cfg.kind = "dense";
    cfg.dense_random_negatives_per_image = 10;
    cfg.svm_c = 0.01;
    TrainOptions opt;
    opt.model_out = d.dir / "dense.h5";
    Quiet obs;
    train(cfg, d.train, read_pgm, opt, obs);
    const CascadeModel m = load_model(opt.model_out);
    ASSERT_EQ(m.stages.size(), 1u);
    const auto& st = std::get<HogSvmStage>(m.stages[0]);
    EXPECT_EQ(st.vote, VoteMode::Margin);
    EXPECT_EQ(st.learners.size(), 105u);
    const auto [detection, fppw] = held_out_rates(m, d);
    std::printf("dense held-out: detection %.3f, false positives per window %.5f\n", detection, fppw);
    EXPECT_GE(detection, 0.8);
    EXPECT_LE(fppw, 0.02);
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
