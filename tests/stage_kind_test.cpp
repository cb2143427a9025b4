// A stage kind defined only here ("reject when the window's mean gray is below t") runs through
// every seam a new stage kind needs: the model (validate, value semantics), the file codec (a
// model file round trip, through the isolated parser), the CPU evaluation dispatch, the bulk
// runner and the stage-generic training loop (rounds, mining, checkpoint, resume), with exactly
// one registration line per layer (register_stage_kinds below). The bulk runner's own contract
// (input order, failures by index, thread-count independence) is tested here too.
#include <gtest/gtest.h>
#include <tbb/global_control.h>

#include <algorithm>
#include <cmath>

#include "cascadekit/io/model_file.hpp"
#include "cascadekit/io/stage_codec.hpp"
#include "cascadekit/runtime/bulk_detector.hpp"
#include "cascadekit/runtime/cpu_detector.hpp"
#include "cascadekit/runtime/window_evaluator.hpp"
#include "cascadekit/trainer/stage_trainer.hpp"
#include "cascadekit/trainer/trainer.hpp"
#include "test_support.hpp"
#include "trainer_support.hpp"

using namespace cascadekit;
using namespace cascadekit::test;

namespace {

// ---- model layer: the kind itself --------------------------------------------------------------
struct MeanGrayStage final : StageKind<MeanGrayStage> {
    static constexpr std::string_view kKind = "test_mean_gray";
    float threshold = 0;  // gray level
    std::string_view feature() const override { return "gray"; }
    std::size_t size() const override { return 1; }
    void validate(const CascadeModel&, const std::string& path) const override { require_bounded(threshold, path + "@threshold"); }
    friend bool operator==(const MeanGrayStage& a, const MeanGrayStage& b) { return a.threshold == b.threshold; }
};

// Mean gray of the window at (x, y): the one definition the evaluator and the trainer share.
float window_mean(const IntegralImage& ii, int x, int y, int w, int h) {
    return static_cast<float>(ii.rect_sum({x, y, w, h})) / static_cast<float>(w * h);
}

// ---- runtime layer: CPU evaluation ---------------------------------------------------------------
class MeanGrayEvaluator final : public StageEvaluator {
public:
    MeanGrayEvaluator(const MeanGrayStage& s, const CascadeModel& m) : t_(s.threshold), w_(m.window_width), h_(m.window_height) {}
    StageOutcome evaluate(const LevelFeatures& f, int x, int y) const override {
        return {window_mean(f.gray, x, y, w_, h_) - t_, 1};
    }

private:
    float t_;
    int w_, h_;
};
FeatureNeeds gray_needs() {
    FeatureNeeds n;
    n.gray_integral = true;
    return n;
}

// ---- trainer layer: one round picks the threshold that keeps d_min of the positives ------------
class MeanGrayTrainer final : public StageTrainer {
public:
    explicit MeanGrayTrainer(const TrainConfig& cfg) : cfg_(cfg) {}
    FeatureNeeds needs() const override { return gray_needs(); }
    void resize(std::size_t n) override { means_.resize(n); }
    void store(std::size_t slot, const LevelFeatures& f, int x, int y) override {
        means_[slot] = window_mean(f.gray, x, y, cfg_.window.width, cfg_.window.height);
    }
    void begin_stage(const StageContext&) override { trained_ = false; }
    RoundResult round(const StageContext& ctx) override {
        std::vector<float> pos(means_.begin(), means_.begin() + static_cast<std::ptrdiff_t>(ctx.positives));
        std::sort(pos.begin(), pos.end());
        const auto k = static_cast<std::size_t>(std::floor((1.0 - cfg_.boosting.d_min) * static_cast<double>(pos.size())));
        stage_.threshold = pos[std::min(k, pos.size() - 1)];
        std::size_t dp = 0, fp = 0;
        for (std::size_t i = 0; i < ctx.samples(); ++i)
            if (means_[i] - stage_.threshold >= 0.0f) ++(i < ctx.positives ? dp : fp);
        d_ = static_cast<double>(dp) / static_cast<double>(ctx.positives);
        f_ = static_cast<double>(fp) / static_cast<double>(ctx.negatives);
        trained_ = true;
        RoundResult r;
        r.added = r.stage_complete = true;
        r.weighted_error = f_;
        return r;
    }
    std::size_t size() const override { return trained_ ? 1 : 0; }
    Stage stage() const override { return stage_; }
    double detection_rate() const override { return d_; }
    double fp_rate() const override { return f_; }
    float threshold() const override { return stage_.threshold; }
    void save_state(ByteWriter& out) const override {
        out.pod<std::uint8_t>(trained_);
        out.pod(stage_.threshold);
    }
    void load_state(ByteReader& in, const StageContext&) override {
        trained_ = in.pod<std::uint8_t>() != 0;
        stage_.threshold = in.pod<float>();
    }

private:
    const TrainConfig& cfg_;
    std::vector<float> means_;
    MeanGrayStage stage_;
    bool trained_ = false;
    double d_ = 0, f_ = 1;
};

// ---- the registration: one line per layer ------------------------------------------------------
void register_stage_kinds() {
    static const bool once = [] {
        register_cpu_stage_kind({MeanGrayStage::kKind, gray_needs(), [](const Stage& s, const CascadeModel& m) -> std::unique_ptr<StageEvaluator> { return std::make_unique<MeanGrayEvaluator>(s.as<MeanGrayStage>(), m); }});
        register_stage_codec({MeanGrayStage::kKind, [](const Stage& s, StageOut& out) { out.attr_float("threshold", s.as<MeanGrayStage>().threshold); }, [](StageIn& in) -> Stage { MeanGrayStage s; s.threshold = in.attr_float("threshold"); return s; }});
        register_stage_trainer({MeanGrayStage::kKind, [](const TrainConfig& c) -> std::unique_ptr<StageTrainer> { return std::make_unique<MeanGrayTrainer>(c); }});
        return true;
    }();
    (void)once;
}

MeanGrayStage mean_gray(float t) {
    MeanGrayStage s;
    s.threshold = t;
    return s;
}

// A hybrid: the toy stage in front of the tiny model's HoG stages.
CascadeModel hybrid(float t) {
    CascadeModel m = tiny_model();
    m.stages.insert(m.stages.begin(), mean_gray(t));
    return m;
}

}  // namespace

TEST(StageKinds, AStageKindDefinedInATestIsAValueOfTheModel) {
    const CascadeModel a = hybrid(100.0f);
    CascadeModel b = a;
    EXPECT_EQ(a, b);
    b.stages[0].as<MeanGrayStage>().threshold = 101.0f;  // copy on write: a keeps its value
    EXPECT_EQ(a.stages[0].as<MeanGrayStage>().threshold, 100.0f);
    EXPECT_FALSE(a == b);
    EXPECT_EQ(a.stages[0].kind(), "test_mean_gray");
    EXPECT_EQ(feature_family(a), "hog+gray");
    EXPECT_THROW(a.stages[0].as<HogSvmStage>(), std::bad_cast);
    CascadeModel bad = a;
    bad.stages[0].as<MeanGrayStage>().threshold = NAN;
    try {
        validate_model(bad);
        ADD_FAILURE() << "a NaN threshold passed";
    } catch (const ModelError& e) {
        EXPECT_EQ(e.path(), "/stages/000@threshold");
    }
}

TEST(StageKinds, ItsModelFileRoundTripsThroughTheRegisteredCodec) {
    register_stage_kinds();
    const fs::path dir = scratch_dir("stage_kind_file");
    CascadeModel m = hybrid(87.5f);
    save_model(m, dir / "hybrid.h5");
    EXPECT_EQ(load_model(dir / "hybrid.h5"), m);  // parsed in the isolated child, which inherits the codec
}

TEST(StageKinds, TheCpuDispatchRunsItWindowByWindowAsAPlainReferenceSays) {
    register_stage_kinds();
    const GrayImage img = blobby_image(160, 200, 11);
    CascadeModel m = hybrid(0.0f);
    // A threshold in the middle of the windows' means, so that both outcomes occur.
    IntegralImage ii;
    ii.compute(img);
    std::vector<float> means;
    for (int y = 0; y + 128 <= img.height; y += 8)
        for (int x = 0; x + 64 <= img.width; x += 8) means.push_back(window_mean(ii, x, y, 64, 128));
    std::sort(means.begin(), means.end());
    const float t = means[means.size() / 2];
    m.stages[0].as<MeanGrayStage>().threshold = t;
    DetectParams p;
    p.keep_rejected = true;
    p.scale_step = 10;  // one level: windows at scale 1
    const DetectResult r = CpuDetector(m, p).detect(img.view());
    ASSERT_EQ(r.detections.size(), means.size());
    std::size_t rejected_by_toy = 0;
    const CascadeModel hog_only = tiny_model();
    IntegralHistogram ih;
    ih.compute(img);
    LevelFeatures f;
    f.hog = ih;
    for (const Detection& d : r.detections) {
        const int x = static_cast<int>(d.x), y = static_cast<int>(d.y);
        const float mean = window_mean(ii, x, y, 64, 128);
        if (mean < t) {
            ++rejected_by_toy;
            EXPECT_EQ(d.stages_passed, 0);
            EXPECT_EQ(d.score, mean - t);
        } else {
            // Past the toy stage, the HoG stages decide exactly as they do alone.
            const WindowOutcome o = evaluate_window(hog_only, f, x, y);
            EXPECT_EQ(d.stages_passed, o.rejected_at < 0 ? 1 + static_cast<int>(hog_only.stages.size()) : 1 + o.rejected_at);
        }
    }
    EXPECT_EQ(r.stats.rejected_per_stage[0], rejected_by_toy);
    EXPECT_GT(rejected_by_toy, 0u);
    EXPECT_LT(rejected_by_toy, means.size());
}

TEST(StageKinds, TheBulkRunnerRunsItAndKeepsInputOrderForAnyThreadCount) {
    register_stage_kinds();
    std::vector<GrayImage> images;
    for (int i = 0; i < 19; ++i) images.push_back(blobby_image(100 + 13 * (i % 5), 150 + 29 * (i % 3), 200 + i));
    images[4] = blobby_image(30, 30, 1);  // smaller than the window: a failure at its own index
    const CascadeModel m = hybrid(90.0f);
    auto run = [&](int threads, std::size_t chunk, double alone_megapixels = 0, double chunk_megapixels = 64) {
        tbb::global_control limit(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(threads));
        BulkOptions o;
        o.backend = Backend::Cpu;
        o.chunk = chunk;
        o.alone_megapixels = alone_megapixels;
        o.max_chunk_megapixels = chunk_megapixels;
        BulkDetector bulk(m, DetectParams{}, o);
        std::vector<std::string> log;
        std::vector<DetectResult> results;
        const BulkTotals t = bulk.run(
            images.size(), [&](std::size_t i) { return BulkImage{images[i].view(), nullptr}; },
            [&](std::size_t i, DetectResult&& r, const BulkImage& im, double) {
                EXPECT_EQ(im.view.width, images[i].width);
                log.push_back(std::to_string(i));
                results.push_back(std::move(r));
            },
            [&](std::size_t i, const std::string& message) { log.push_back(std::to_string(i) + ": " + message.substr(0, 11)); });
        EXPECT_EQ(t.images, images.size());
        EXPECT_EQ(t.failed, 1u);
        return std::make_pair(log, results);
    };
    const auto one = run(1, 4), many = run(16, 0);
    // Every image alone on one detector, and chunks of one or two images by the pixel budget.
    const auto alone = run(4, 0, 1e-9), small_chunks = run(4, 0, 0, 0.05);
    EXPECT_EQ(one.first, many.first);
    EXPECT_EQ(one.first, alone.first);
    EXPECT_EQ(one.first, small_chunks.first);
    ASSERT_EQ(one.first.size(), images.size());
    EXPECT_EQ(one.first[4], "4: image 30x30");
    EXPECT_EQ(one.first[5], "5");
    ASSERT_EQ(one.second.size(), images.size() - 1);
    CpuDetector plain(m, DetectParams{});
    for (std::size_t k = 0, i = 0; i < images.size(); ++i) {
        if (i == 4) continue;
        const DetectResult want = plain.detect(images[i].view());
        EXPECT_EQ(one.second[k].detections, want.detections) << i;
        EXPECT_EQ(one.second[k].stats, want.stats) << i;
        EXPECT_EQ(many.second[k].detections, want.detections) << i;
        EXPECT_EQ(alone.second[k].detections, want.detections) << i;
        EXPECT_EQ(small_chunks.second[k].stats, want.stats) << i;
        ++k;
    }
    // Without a failure handler the first failure is rethrown, as a DetectError.
    BulkDetector bulk(m, DetectParams{}, {Backend::Cpu});
    EXPECT_THROW(bulk.run(images.size(), [&](std::size_t i) { return BulkImage{images[i].view(), nullptr}; },
                          [](std::size_t, DetectResult&&, const BulkImage&, double) {}),
                 DetectError);
    // A device failure is never an image's failure: it stops the run even with a handler.
    EXPECT_THROW(bulk.run(
                     images.size(),
                     [&](std::size_t i) {
                         if (i == 3) throw DeviceError("device lost");
                         return BulkImage{images[i].view(), nullptr};
                     },
                     [](std::size_t, DetectResult&&, const BulkImage&, double) {}, [](std::size_t, const std::string&) {}),
                 DeviceError);
}

TEST(StageKinds, TheTrainingLoopTrainsItWithMiningCheckpointsAndExactResume) {
    register_stage_kinds();
    const SyntheticData d = make_data("stage_kind_train");
    TrainConfig cfg = tiny_config();
    cfg.boosting.stage_kind = "test_mean_gray";
    cfg.boosting.max_stages = 3;
    cfg.boosting.d_min = 0.9;
    TrainOptions whole;
    whole.model_out = d.dir / "whole.h5";
    whole.created_utc = "2026-11-22T00:00:00Z";
    Quiet obs;
    const TrainSummary s = train(cfg, d.train, read_pgm, whole, obs);
    const CascadeModel m = load_model(whole.model_out);
    ASSERT_GE(m.stages.size(), 1u);
    for (const Stage& st : m.stages) EXPECT_EQ(st.kind(), "test_mean_gray");
    EXPECT_EQ(static_cast<int>(m.stages.size()), s.stages);
    EXPECT_GE(obs.mining, 1) << "no bootstrapping between stages";
    // Stopped after every round and resumed: the same bytes.
    TrainOptions part = whole;
    part.model_out = d.dir / "part.h5";
    part.stop_after_rounds = 1;
    for (int i = 0; i < 10 && !train(cfg, d.train, read_pgm, part, obs).finished; ++i) part.resume = true;
    EXPECT_EQ(bytes(whole.model_out), bytes(part.model_out));
}
