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

using namespace cascadekit;
using namespace cascadekit::test;
namespace fs = std::filesystem;

namespace {

GrayImage read_pgm(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::string magic;
    int w = 0, h = 0, maxv = 0;
    in >> magic >> w >> h >> maxv;
    in.get();
    if (magic != "P5" || w <= 0 || h <= 0) throw std::runtime_error(p.string() + ": not a PGM file");
    GrayImage g(w, h);
    in.read(reinterpret_cast<char*>(g.pixels.data()), static_cast<std::streamsize>(g.pixels.size()));
    if (!in) throw std::runtime_error(p.string() + ": truncated PGM");
    return g;
}

// 80×144 crops (8-px margin) of a bright bar on textured background, with jitter in width,
// brightness and position; negatives: textured images with bars of the wrong orientation.
struct SyntheticData {
    fs::path dir;
    Dataset train, test;
};

GrayImage positive_crop(std::mt19937& rng) {
    GrayImage g = blobby_image(80, 144, static_cast<unsigned>(rng()));
    std::uniform_real_distribution<double> jitter(-2, 2), scale(0.9, 1.1);
    std::uniform_int_distribution<int> value(170, 255);
    draw_bar(g, 8 + jitter(rng), 8 + jitter(rng), scale(rng), static_cast<std::uint8_t>(value(rng)));
    return g;
}

GrayImage negative_image(std::mt19937& rng) {
    GrayImage g = blobby_image(200, 220, static_cast<unsigned>(rng()));
    std::uniform_int_distribution<int> y(0, 200), x(0, 190), w(2, 24), len(10, 70), horizontal(0, 1);
    for (int k = 0; k < 10; ++k) {  // bars of the wrong orientation, width or length
        const int y0 = y(rng), x0 = x(rng), bw = w(rng), bl = len(rng);
        const bool h = horizontal(rng) != 0;
        for (int yy = y0; yy < std::min(220, y0 + (h ? bw : bl)); ++yy)
            for (int xx = x0; xx < std::min(200, x0 + (h ? bl : bw)); ++xx) g.at(xx, yy) = 240;
    }
    return g;
}

SyntheticData make_data(const std::string& name) {
    SyntheticData d;
    d.dir = scratch_dir(name);
    std::mt19937 rng(99);
    std::ofstream pos(d.dir / "pos.txt"), neg(d.dir / "neg.txt");
    for (int i = 0; i < 160; ++i) {
        const fs::path p = d.dir / ("pos" + std::to_string(i) + ".pgm");
        write_pgm(p, positive_crop(rng));
        PositiveCrop c{p, p.stem().string(), false};
        (i % 4 == 3 ? d.test : d.train).positives.push_back(c);
    }
    for (int i = 0; i < 40; ++i) {
        const fs::path p = d.dir / ("neg" + std::to_string(i) + ".pgm");
        write_pgm(p, negative_image(rng));
        (i % 4 == 3 ? d.test : d.train).negatives.push_back(p);
    }
    d.train.description = "synthetic bars";
    return d;
}

TrainConfig tiny_config() {
    TrainConfig c = parse_train_config(R"(
seed: 5
data: {layout: lists, positives_list: unused, negatives_list: unused, holdout_every: 0}
boosting: {candidates_per_round: 12, d_min: 0.98, f_max: 0.5, F_target: 0.0001, max_stages: 5, max_learners_per_stage: 12}
svm: {C: 0.1, weighting: resample}
mining: {stride: 8, scale_step: 1.25, backend: cpu}
)", "tiny");
    return c;
}

class Quiet : public TrainObserver {
public:
    int rounds = 0, stages = 0, mining = 0;
    std::vector<std::string> notes;
    void on_round(const RoundReport&) override { ++rounds; }
    void on_stage(const StageReport&) override { ++stages; }
    void on_mining(const MiningProgress&) override { ++mining; }
    void on_note(const std::string& n) override { notes.push_back(n); }
};

std::vector<char> bytes(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

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
