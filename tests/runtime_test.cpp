// runtime/: the CPU detector end to end, against a plain reference, and fusion.
#include <gtest/gtest.h>
#include <tbb/global_control.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "cascadekit/features/gradient.hpp"
#include "cascadekit/features/pyramid.hpp"
#include "cascadekit/runtime/bulk_detector.hpp"
#include "cascadekit/runtime/cpu_detector.hpp"
#include "cascadekit/runtime/cuda_detector.hpp"
#include "cascadekit/runtime/fusion.hpp"
#include "cascadekit/runtime/scaled_windows.hpp"
#include "cascadekit/runtime/stages/hog_svm.hpp"
#include "host_copy.hpp"  // runtime/src/cuda: the CUDA backend's staging copy (host code, always built)
#include "id_order.hpp"   // ... and its ordering of accepted windows (header only)
#include "runtime_support.hpp"
#include "test_support.hpp"

using namespace cascadekit;
using namespace cascadekit::test;

namespace {

DetectResult detect(const CascadeModel& m, const GrayImage& img, DetectParams p = {}) {
    return Detector::create(m, p, Backend::Cpu)->detect(img.view());
}

// ---- a plain reference detector: per-pixel gradients, cell sums by loops, double arithmetic ----
struct RefWindow {
    int rejected_at = -1;
    double min_margin = 1e30;  // smallest |decision quantity| met (learner margin or stage score)
    double cleared = 0;        // sum of the passed stages' scores (an accepted window's score)
};

RefWindow reference_window(const CascadeModel& m, const GrayImage& img, const GradientField& g, int wx, int wy) {
    RefWindow out;
    for (std::size_t s = 0; s < m.stages.size(); ++s) {
        double score = 0;
        if (const auto* hog = m.stages[s].get_if<HogSvmStage>()) {
            for (const HogLearner& l : hog->learners) {
                double v[36] = {};
                const int cw = l.block.w / 2, ch = l.block.h / 2;
                for (int j = 0; j < 2; ++j)
                    for (int i = 0; i < 2; ++i)
                        for (int y = 0; y < ch; ++y)
                            for (int x = 0; x < cw; ++x) {
                                const std::size_t p = static_cast<std::size_t>(wy + l.block.y + j * ch + y) * img.width +
                                                      (wx + l.block.x + i * cw + x);
                                v[(j * 2 + i) * 9 + g.bin[p]] += (g.magnitude[p] - g.upper[p]) / 256.0;
                                v[(j * 2 + i) * 9 + (g.bin[p] + 1) % 9] += g.upper[p] / 256.0;
                            }
                double n = 0;
                for (double x : v) n += x * x;
                n = std::sqrt(n) + m.hog.epsilon;
                double margin = -l.bias;
                for (int k = 0; k < 36; ++k) margin += l.weights[k] * v[k] / n;
                out.min_margin = std::min(out.min_margin, std::abs(margin));
                score += hog->vote == VoteMode::Binary   ? (margin >= 0 ? l.alpha : 0.0)
                         : hog->vote == VoteMode::Margin ? l.alpha * margin
                                                         : l.alpha * std::clamp(margin, -1.0, 1.0);
            }
            score -= hog->threshold;
            score += hog->carry * out.cleared;  // a nested stage
        } else {
            const auto& wb = m.stages[s].as<WaldBoostLbpStage>();
            double h = 0;
            bool rejected = false;
            for (const LbpWeakClassifier& c : wb.weak) {
                long sums[3][3] = {};
                for (int j = 0; j < 3; ++j)
                    for (int i = 0; i < 3; ++i)
                        for (int y = 0; y < c.cell.h; ++y)
                            for (int x = 0; x < c.cell.w; ++x)
                                sums[j][i] += img.at(wx + c.cell.x + i * c.cell.w + x, wy + c.cell.y + j * c.cell.h + y);
                const int order[8][2] = {{0, 0}, {1, 0}, {2, 0}, {2, 1}, {2, 2}, {1, 2}, {0, 2}, {0, 1}};
                int code = 0;
                for (int k = 0; k < 8; ++k) code |= (sums[order[k][1]][order[k][0]] >= sums[1][1] ? 1 : 0) << (7 - k);
                h += c.responses[code];
                out.min_margin = std::min(out.min_margin, std::abs(h - c.reject_threshold));
                if (h < c.reject_threshold) {
                    rejected = true;
                    break;
                }
            }
            score = rejected ? -1.0 : h - wb.final_threshold;
        }
        out.min_margin = std::min(out.min_margin, std::abs(score));
        if (score < 0) {
            out.rejected_at = static_cast<int>(s);
            return out;
        }
        const auto* nested = m.stages[s].get_if<HogSvmStage>();
        out.cleared = nested && nested->carry != 0 ? score : out.cleared + score;  // a nested stage's margin replaces the running score
    }
    return out;
}

struct Bar {
    double wx, wy, s;  // the window the bar is centred in: top-left and scale
};

GrayImage bar_scene(int w, int h, const std::vector<Bar>& bars) {
    GrayImage img = constant_image(w, h, 0);
    for (const Bar& b : bars) draw_bar(img, b.wx, b.wy, b.s);
    return img;
}

}  // namespace

TEST(CpuDetector, FindsBarsAtTheirPlacesAndScalesAndNowhereElse) {
    // Bar A fits a level-0 window at (32, 24); bar B a level-2 (scale 1.44) window at level
    // position (160, 80), i.e. (230.4, 115.2) in the input.
    const std::vector<Bar> bars = {{32, 24, 1.0}, {160 * 1.44, 80 * 1.44, 1.44}};
    const GrayImage img = bar_scene(420, 400, bars);
    const CascadeModel model = bar_model();
    const DetectResult r = detect(model, img);
    ASSERT_FALSE(r.detections.empty());
    // Every raw window has a bar through its central block (the only place the model looks) and
    // along most of its height: nothing fires anywhere else.
    for (const Detection& d : r.detections) {
        const bool on_bar = std::any_of(bars.begin(), bars.end(), [&](const Bar& b) {
            const double bx0 = b.wx + 28 * b.s, bx1 = b.wx + 36 * b.s, by0 = b.wy, by1 = b.wy + 128 * b.s;
            const double overlap_y = std::min(by1, d.y + d.h) - std::max(by0, d.y);
            return bx0 < d.x + 48 * d.scale && bx1 > d.x + 16 * d.scale && overlap_y >= 0.5 * d.h;
        });
        EXPECT_TRUE(on_bar) << "stray window at " << d.x << "," << d.y << " scale " << d.scale;
    }
    const auto fused = fuse_meanshift(r.detections, 64, 128, {});
    ASSERT_EQ(fused.size(), bars.size()) << "one mode per bar";
    for (const Bar& b : bars) {
        const double cx = b.wx + 32 * b.s, cy = b.wy + 64 * b.s;
        const bool found = std::any_of(fused.begin(), fused.end(), [&](const Detection& d) {
            return std::abs(d.x + d.w / 2 - cx) <= 4 * b.s && std::abs(d.y + d.h / 2 - cy) <= 16 * b.s &&
                   d.scale / b.s < 1.25 && b.s / d.scale < 1.25;
        });
        EXPECT_TRUE(found) << "bar at " << b.wx << "," << b.wy << " scale " << b.s << "; modes: " << [&] {
            std::string t;
            for (const auto& d : fused) t += std::to_string(d.x) + "," + std::to_string(d.y) + " s " + std::to_string(d.scale) + "; ";
            return t;
        }();
    }
    // The bar at level 0, exactly centred, is detected at exactly its window.
    EXPECT_TRUE(std::any_of(r.detections.begin(), r.detections.end(),
                            [](const Detection& d) { return d.x == 32 && d.y == 24 && d.level == 0 && d.w == 64; }));
}

TEST(CpuDetector, NothingOnFlatOrBarFreeImages) {
    const CascadeModel model = bar_model();
    EXPECT_TRUE(detect(model, constant_image(300, 300, 0)).detections.empty());
    EXPECT_TRUE(detect(model, constant_image(300, 300, 255)).detections.empty());
    // A horizontal bar has the wrong orientation.
    GrayImage img = constant_image(300, 300, 0);
    for (int y = 100; y < 108; ++y)
        for (int x = 0; x < 300; ++x) img.at(x, y) = 255;
    EXPECT_TRUE(detect(model, img).detections.empty());
}

TEST(CpuDetector, UpscalingFindsABarSmallerThanTheWindow) {
    const GrayImage img = bar_scene(120, 120, {{16, 8, 0.5}});
    const CascadeModel model = bar_model();
    EXPECT_THROW(detect(model, img), DetectError);  // 120 < 128 at scale 1
    DetectParams p;
    p.min_scale = 0.5;
    const DetectResult r = detect(model, img, p);
    ASSERT_FALSE(r.detections.empty());
    EXPECT_TRUE(std::any_of(r.detections.begin(), r.detections.end(),
                            [](const Detection& d) { return d.x == 16 && d.y == 8 && d.scale == 0.5; }));
}

TEST(CpuDetector, StatisticsAddUp) {
    CascadeModel m = random_model(31, 3, 3, 4);
    const GrayImage img = blobby_image(300, 260, 32);
    calibrate_thresholds(m, img);
    DetectParams p;
    p.scale_step = 1.1;
    const DetectResult r = detect(m, img, p);
    // Windows: the sum over levels of rows × columns of window positions.
    std::uint64_t expected = 0;
    for (const auto& l : plan_pyramid(300, 260, 64, 128, 1.1))
        expected += static_cast<std::uint64_t>((l.width - 64) / 8 + 1) * ((l.height - 128) / 8 + 1);
    EXPECT_EQ(r.stats.windows_scanned, expected);
    EXPECT_EQ(r.stats.levels, static_cast<int>(plan_pyramid(300, 260, 64, 128, 1.1).size()));
    ASSERT_EQ(r.stats.rejected_per_stage.size(), 4u);
    EXPECT_EQ(r.stats.windows_accepted(), r.detections.size());
    // Weak learners: HoG stages are evaluated whole by every window that reaches them.
    std::uint64_t reaching = r.stats.windows_scanned - r.stats.rejected_per_stage[0], hog_weak = 0;
    for (std::size_t s = 1; s < 4; ++s) {
        hog_weak += reaching * 3;
        reaching -= r.stats.rejected_per_stage[s];
    }
    const std::uint64_t lbp_weak = r.stats.weak_evaluated - hog_weak;
    EXPECT_GE(lbp_weak, r.stats.windows_scanned);      // at least one LBP classifier per window
    EXPECT_LE(lbp_weak, r.stats.windows_scanned * 4);  // at most all four
    for (std::size_t s = 0; s < 4; ++s) EXPECT_GT(r.stats.rejected_per_stage[s], 0u) << "stage " << s;
    EXPECT_GT(r.detections.size(), 0u);
}

// Also with nested stages (HogSvmStage::carry), with square-root gray levels for the HoG features (HogParams::gamma): the reference maps
// each resampled level through the table, then takes its plain gradients; and with split votes
// (HogParams::votes), which the reference adds pixel by pixel to both bins.
TEST(CpuDetector, AgreesWithAPlainReferenceOnEveryWindow) {
    for (unsigned seed : {41u, 42u, 43u, 44u}) {
        CascadeModel m = random_model(seed, 4, 4, 6);  // binary, margin, binary, clipped votes
        if (seed % 2 == 0) m = nest_stages(m);          // stages 2 and 4 (the LBP stage is 0) nested
        m.hog.epsilon = 0.5f;
        if (seed >= 43u) m.hog.gamma = GrayGamma::Sqrt;
        if (seed == 44u) m.hog.votes = OrientationVotes::Split;
        const GrayImage img = blobby_image(260, 300, seed);
        calibrate_thresholds(m, img);
        DetectParams p;
        p.scale_step = 1.15;
        p.stride = 6;
        const DetectResult r = detect(m, img, p);
        std::size_t windows = 0, differ = 0, accepted = 0;
        std::vector<std::uint64_t> rejected(m.stages.size(), 0);
        std::size_t next = 0;
        GrayImage level;
        Octaves octaves;
        octaves.reset(img);
        for (const auto& l : plan_pyramid(img.width, img.height, 64, 128, p.scale_step)) {
            resample_level(octaves, l, level);
            GrayImage compressed = level;
            for (std::uint8_t& v : compressed.pixels) v = gamma_table(m.hog.gamma)[v];
            const GradientField g = compute_gradients(compressed, m.hog.votes);
            for (int y = 0; y + 128 <= l.height; y += p.stride)
                for (int x = 0; x + 64 <= l.width; x += p.stride) {
                    ++windows;
                    const RefWindow ref = reference_window(m, level, g, x, y);
                    const bool ours_accepted = next < r.detections.size() && r.detections[next].x == x * l.scale &&
                                               r.detections[next].y == y * l.scale && r.detections[next].scale == l.scale;
                    if (ours_accepted && ref.rejected_at < 0) {  // score: the sum of every stage's margin
                        EXPECT_NEAR(r.detections[next].score, ref.cleared, 1e-3 * (1.0 + std::abs(ref.cleared)));
                    }
                    if (ours_accepted) ++next;
                    if (ref.rejected_at < 0) ++accepted;
                    else ++rejected[static_cast<std::size_t>(ref.rejected_at)];
                    if (ours_accepted != (ref.rejected_at < 0)) {
                        ++differ;
                        EXPECT_LT(ref.min_margin, 1e-4) << "window " << x << "," << y << " scale " << l.scale;
                    }
                }
        }
        EXPECT_EQ(next, r.detections.size());
        EXPECT_EQ(windows, r.stats.windows_scanned);
        EXPECT_LE(differ * 1000, windows);  // at most 0.1 %, and only at the threshold
        if (differ == 0) {
            EXPECT_EQ(rejected, r.stats.rejected_per_stage);
        }
        EXPECT_GT(accepted, 0u);
    }
}

// Colour gradients (HogParams::channels): the reference resamples each colour plane as the gray
// one, maps it through the gamma table and takes, pixel by pixel, the gradient of the plane
// where gx² + gy² is largest (the first of R, G, B on ties). The input buffer's channel order
// does not matter, and the same model fed gray pixels finds the gray model's windows.
TEST(CascadeEvaluator, ReadsColourOnlyWhereAHogStageReadsColourPlanes) {
    // reads_colour answers what CascadeEvaluator::colour() does, without building the evaluators.
    struct Case {
        int hog_stages, lbp_weak;
        GradientChannels channels;
        bool expect;
    };
    for (const Case& c : {Case{2, 0, GradientChannels::Colour, true}, Case{2, 0, GradientChannels::Gray, false},
                          Case{1, 5, GradientChannels::Colour, true}, Case{0, 5, GradientChannels::Colour, false}}) {
        CascadeModel m = random_model(7, c.hog_stages, 2, c.lbp_weak);
        m.hog.channels = c.channels;
        EXPECT_EQ(reads_colour(m), c.expect) << c.hog_stages << " hog stages, " << c.lbp_weak << " weak";
        EXPECT_EQ(CascadeEvaluator(m).colour(), c.expect);
    }
}

TEST(CpuDetector, ColourGradientsAgreeWithAPlainReferenceOnEveryWindow) {
    for (unsigned seed : {61u, 62u}) {
        CascadeModel m = random_model(seed, 3, 4, 6);
        m.hog.channels = GradientChannels::Colour;
        if (seed == 62u) m.hog.gamma = GrayGamma::Sqrt;
        const int w = 250, h = 290;
        ColourPlanes planes;
        planes.r = blobby_image(w, h, seed);
        planes.g = blobby_image(w, h, seed + 100);
        planes.b = blobby_image(w, h, seed + 200);
        const std::vector<std::uint8_t> bgr = bgr_bytes(planes);
        const ImageView view{bgr.data(), w, h, w * 3, 3, ChannelOrder::BGR};
        const GrayImage gray = to_gray(view);
        calibrate_thresholds(m, gray, &planes);
        DetectParams p;
        p.scale_step = 1.15;
        p.stride = 6;
        const DetectResult r = Detector::create(m, p, Backend::Cpu)->detect(view);
        std::size_t windows = 0, differ = 0, accepted = 0, next = 0;
        Octaves octaves[3];
        const GrayImage* src[3] = {&planes.r, &planes.g, &planes.b};
        for (int c = 0; c < 3; ++c) octaves[c].reset(*src[c]);
        Octaves gray_octaves;
        gray_octaves.reset(gray);
        for (const auto& l : plan_pyramid(w, h, 64, 128, p.scale_step)) {
            GrayImage level_gray, level[3];
            resample_level(gray_octaves, l, level_gray);
            for (int c = 0; c < 3; ++c) {
                resample_level(octaves[c], l, level[c]);
                for (std::uint8_t& v : level[c].pixels) v = gamma_table(m.hog.gamma)[v];
            }
            GradientField g;
            g.width = l.width;
            g.height = l.height;
            for (int y = 0; y < l.height; ++y)
                for (int x = 0; x < l.width; ++x) {
                    int best = -1, gx = 0, gy = 0;
                    for (int c = 0; c < 3; ++c) {
                        int cx = 0, cy = 0;
                        gradient_at(level[c], x, y, cx, cy);
                        if (cx * cx + cy * cy > best) best = cx * cx + cy * cy, gx = cx, gy = cy;
                    }
                    const std::uint32_t e = gradient_entry(gx, gy, m.hog.votes);
                    g.bin.push_back(static_cast<std::uint8_t>(entry_bin(e)));
                    g.magnitude.push_back(entry_magnitude(e));
                    g.upper.push_back(entry_upper(e));
                }
            for (int y = 0; y + 128 <= l.height; y += p.stride)
                for (int x = 0; x + 64 <= l.width; x += p.stride) {
                    ++windows;
                    const RefWindow ref = reference_window(m, level_gray, g, x, y);
                    const bool ours_accepted = next < r.detections.size() && r.detections[next].x == x * l.scale &&
                                               r.detections[next].y == y * l.scale && r.detections[next].scale == l.scale;
                    if (ours_accepted && ref.rejected_at < 0) {
                        EXPECT_NEAR(r.detections[next].score, ref.cleared, 1e-3 * (1.0 + std::abs(ref.cleared)));
                    }
                    if (ours_accepted) ++next;
                    if (ref.rejected_at < 0) ++accepted;
                    if (ours_accepted != (ref.rejected_at < 0)) {
                        ++differ;
                        EXPECT_LT(ref.min_margin, 1e-4) << "window " << x << "," << y << " scale " << l.scale;
                    }
                }
        }
        EXPECT_EQ(next, r.detections.size());
        EXPECT_EQ(windows, r.stats.windows_scanned);
        EXPECT_LE(differ * 1000, windows);
        EXPECT_GT(accepted, 0u);
        EXPECT_LT(accepted, windows);
        // The same pixels as RGB give the same windows; gray pixels give the gray model's.
        std::vector<std::uint8_t> rgb = bgr;
        for (std::size_t i = 0; i < rgb.size(); i += 3) std::swap(rgb[i], rgb[i + 2]);
        EXPECT_EQ(Detector::create(m, p, Backend::Cpu)->detect({rgb.data(), w, h, w * 3, 3, ChannelOrder::RGB}).detections,
                  r.detections);
        CascadeModel gray_model = m;
        gray_model.hog.channels = GradientChannels::Gray;
        EXPECT_EQ(Detector::create(m, p, Backend::Cpu)->detect(gray.view()).detections,
                  Detector::create(gray_model, p, Backend::Cpu)->detect(gray.view()).detections);
    }
}

// Any thread count and any levels in flight (CpuOptions::levels_in_flight and
// level_memory_in_flight: levels detected at once, each in its own storage, merged in level order;
// memory 0: one at a time, as levels_in_flight 1) give the same bytes, on a
// HoG cascade and on a hybrid whose HoG stages see only the survivors of its LBP prefix.
TEST(CpuDetector, SameOutputEveryRunAndForAnyThreadCount) {
    for (const auto& [seed, lbp] : {std::pair{51u, 0}, std::pair{61u, 6}}) {
        CascadeModel m = random_model(seed, 2, 5, lbp);
        const GrayImage img = blobby_image(640, 480, seed + 1);
        calibrate_thresholds(m, img);
        if (lbp) m.stages[0].as<WaldBoostLbpStage>().final_threshold = -3.0f;  // many survivors
        DetectParams p;
        p.scale_step = 1.05;
        DetectResult first;
        {
            tbb::global_control one(tbb::global_control::max_allowed_parallelism, 1);
            first = CpuDetector(m, p, CpuOptions{.levels_in_flight = 1}).detect(img.view());
        }
        ASSERT_GT(first.detections.size(), 0u);
        EXPECT_GT(first.stats.levels, 8);
        for (std::size_t threads : {1u, 2u, 3u, 8u}) {
            // An arena of that many threads, so that the per-pixel loops (the integral image in
            // bands among them) split as they would on a machine with that many cores.
            tbb::global_control limit(tbb::global_control::max_allowed_parallelism, threads);
            tbb::task_arena(static_cast<int>(threads)).execute([&] {
                // Memory budgets: the default, none (one level at a time, as levels_in_flight 1),
                // about two first levels, and more than all levels need.
                constexpr std::size_t kMiB = std::size_t{1} << 20;
                for (const auto& [in_flight, memory] : {std::pair{1, 256 * kMiB}, std::pair{2, 1024 * kMiB}, std::pair{5, std::size_t{0}},
                                                        std::pair{8, 256 * kMiB}, std::pair{64, 3 * kMiB}, std::pair{64, 1024 * kMiB}}) {
                    CpuDetector detector(m, p, CpuOptions{.levels_in_flight = in_flight, .level_memory_in_flight = memory});
                    for (int run = 0; run < 2; ++run) {  // also reusing the detector's buffers
                        const DetectResult again = detector.detect(img.view());
                        const std::string what = std::to_string(threads) + " threads, " + std::to_string(in_flight) +
                                                 " levels in flight, " + std::to_string(memory) + " bytes";
                        EXPECT_EQ(again.detections, first.detections) << what;
                        EXPECT_EQ(again.stats, first.stats) << what;
                    }
                }
            });
        }
    }
}

TEST(CpuDetector, RejectsBadRequests) {
    const CascadeModel m = bar_model();
    EXPECT_THROW(detect(m, constant_image(1, 1, 0)), DetectError);
    try {
        detect(m, constant_image(63, 500, 0));
        FAIL();
    } catch (const DetectError& e) {
        EXPECT_NE(std::string(e.what()).find("smaller than the model window 64x128"), std::string::npos) << e.what();
    }
    DetectParams upscaled;
    upscaled.min_scale = 0.75;
    upscaled.level_pad = 4;
    EXPECT_EQ(window_fit_problem(40, 80, 64, 128, upscaled),
              "image 40x80 is smaller than the model window 64x128 at scale 0.75 with 4 px of level padding (a min scale below 1 "
              "upscales the image)");
    EXPECT_EQ(window_fit_problem(48, 96, 64, 128, upscaled), "");  // 64x128 at scale 0.75
    DetectParams p;
    p.stride = 0;
    EXPECT_THROW(Detector::create(m, p), std::invalid_argument);
    p = {};
    p.scale_step = 1.0;
    EXPECT_THROW(Detector::create(m, p), std::invalid_argument);
    p.scale_step = 1.001;  // thousands of levels: unbounded work
    EXPECT_THROW(Detector::create(m, p), std::invalid_argument);
    p.scale_step = 1e300;
    EXPECT_THROW(Detector::create(m, p), std::invalid_argument);
    p = {};
    p.min_scale = 1e-300;  // the input enlarged 1e300 times
    EXPECT_THROW(Detector::create(m, p), std::invalid_argument);
    p = {};
    p.max_scale = 0.5;
    EXPECT_THROW(Detector::create(m, p), std::invalid_argument);
    CascadeModel bad = m;
    bad.stages[0].as<HogSvmStage>().learners[0].weights[0] = NAN;
    EXPECT_THROW(Detector::create(bad, {}), ModelError);
    // Without a usable GPU the CUDA backend refuses to start (on the GPU machine it starts:
    // gpu_test covers it there).
#if CASCADEKIT_HAVE_CUDA
    const bool gpu = cuda_available();
#else
    const bool gpu = false;
#endif
    if (!gpu) {
        EXPECT_THROW(Detector::create(m, {}, Backend::Cuda), DetectError);
    }
    EXPECT_THROW(CpuDetector(m, {}, CpuOptions{.levels_in_flight = 0}), std::invalid_argument);
    std::uint8_t px = 0;
    EXPECT_THROW(Detector::create(m, {})->detect({&px, 1, 1, 1, 2}), ImageError);
}

TEST(CpuDetector, ColourInputEqualsItsGrayConversion) {
    GrayImage g = bar_scene(200, 200, {{40, 40, 1.0}});
    std::vector<std::uint8_t> bgr(200 * 200 * 3);
    for (std::size_t i = 0; i < g.pixels.size(); ++i) bgr[3 * i] = bgr[3 * i + 1] = bgr[3 * i + 2] = g.pixels[i];
    auto det = Detector::create(bar_model(), {});
    const DetectResult a = det->detect(g.view());
    const DetectResult b = det->detect({bgr.data(), 200, 200, 600, 3, ChannelOrder::BGR});
    EXPECT_EQ(a.detections, b.detections);
    EXPECT_FALSE(a.detections.empty());
}

// ---- fusion -------------------------------------------------------------------------------
TEST(Fusion, MeanShiftFindsTheModesOfTwoClusters) {
    std::vector<Detection> raw;
    for (int dy : {-16, -8, 0, 8, 16}) raw.push_back({100, 50.0 + dy, 64, 128, 1, 0, 1.0});
    for (int dx : {-8, 0, 8}) raw.push_back({400.0 + dx, 200, 64 * 1.44, 128 * 1.44, 1, 2, 1.44});
    const auto fused = fuse_meanshift(raw, 64, 128, {});
    ASSERT_EQ(fused.size(), 2u);
    // Symmetric clusters: the modes are their centres; the denser cluster comes first.
    EXPECT_NEAR(fused[0].x, 100, 1e-3);
    EXPECT_NEAR(fused[0].y, 50, 1e-3);
    EXPECT_NEAR(fused[0].scale, 1.0, 1e-6);
    EXPECT_NEAR(fused[1].x, 400, 1e-3);
    EXPECT_NEAR(fused[1].scale, 1.44, 1e-6);
    EXPECT_GT(fused[0].score, fused[1].score);
    EXPECT_LE(fused[0].score, 5.0f);
    EXPECT_GT(fused[0].score, 3.0f);
    EXPECT_EQ(fused[0].level, -1);
}

TEST(Fusion, MeanShiftKeepsASingleDetectionAndHandlesNone) {
    const Detection d{10, 20, 64, 128, 0.7f, 0, 1.0};
    const auto one = fuse_meanshift({d}, 64, 128, {});
    ASSERT_EQ(one.size(), 1u);
    EXPECT_NEAR(one[0].x, 10, 1e-9);
    EXPECT_NEAR(one[0].score, 1.0f, 1e-6);
    EXPECT_TRUE(fuse_meanshift({}, 64, 128, {}).empty());
    FusionParams weighted;
    weighted.score_weights = true;
    EXPECT_TRUE(fuse_meanshift({{10, 20, 64, 128, 0.0f, 0, 1.0}}, 64, 128, weighted).empty());
}

TEST(Fusion, ScoreWeightsPullTheModeTowardsStrongerDetections) {
    std::vector<Detection> raw = {{100, 100, 64, 128, 1.0f, 0, 1.0}, {104, 100, 64, 128, 3.0f, 0, 1.0}};
    FusionParams p;
    p.score_weights = true;
    const auto fused = fuse_meanshift(raw, 64, 128, p);
    ASSERT_EQ(fused.size(), 1u);
    // Equal weights would put the mode midway, at 102; weights 1 and 3 pull it to the stronger.
    EXPECT_GT(fused[0].x, 102.5);
    EXPECT_LT(fused[0].x, 104.0);
}

TEST(Fusion, NmsKeepsTheBestOfOverlappingBoxes) {
    std::vector<Detection> raw = {{0, 0, 10, 10, 0.5f, 0, 1}, {1, 0, 10, 10, 0.9f, 0, 1}, {30, 30, 10, 10, 0.1f, 0, 1},
                                  {5, 0, 10, 10, 0.3f, 0, 1}};
    const auto kept = fuse_nms(raw, 0.5);
    ASSERT_EQ(kept.size(), 3u);  // (1,0) suppresses (0,0) (IoU 0.82) but not (5,0) (IoU 0.43)
    EXPECT_EQ(kept[0].x, 1);
    EXPECT_EQ(kept[1].x, 5);
    EXPECT_EQ(kept[2].x, 30);
    EXPECT_NEAR(iou(raw[0].box(), raw[1].box()), 90.0 / 110.0, 1e-12);
    FusionParams none;
    none.method = FusionMethod::None;
    EXPECT_EQ(fuse(raw, 64, 128, none), raw);
    FusionMethod m{};
    EXPECT_TRUE(parse_fusion("nms", m));
    EXPECT_EQ(m, FusionMethod::Nms);
    EXPECT_FALSE(parse_fusion("average", m));
}

TEST(CpuDetector, KeepRejectedReturnsEveryWindowWithItsDecidingStage) {
    CascadeModel m = random_model(61, 3, 3, 0);
    const GrayImage img = blobby_image(260, 240, 62);
    calibrate_thresholds(m, img);
    const DetectResult normal = detect(m, img);
    DetectParams p;
    p.keep_rejected = true;
    const DetectResult all = detect(m, img, p);
    EXPECT_EQ(all.stats, normal.stats);
    ASSERT_EQ(all.detections.size(), all.stats.windows_scanned);
    std::vector<std::uint64_t> rejected(3, 0);
    std::vector<Detection> accepted;
    for (const Detection& d : all.detections) {
        ASSERT_GE(d.stages_passed, 0);
        ASSERT_LE(d.stages_passed, 3);
        if (d.stages_passed < 3) {
            ++rejected[static_cast<std::size_t>(d.stages_passed)];
            EXPECT_LT(d.score, 0.0f);
        } else {
            EXPECT_GE(d.score, 0.0f);
            accepted.push_back(d);
        }
    }
    EXPECT_EQ(rejected, all.stats.rejected_per_stage);
    EXPECT_EQ(accepted, normal.detections);
}

// An LBP prefix in front of HoG stages: the HoG planes of a level are built only where windows
// survive the prefix, or replaced by a gradient plane whose pixels the survivors' blocks sum,
// with the same detections and statistics as building every plane first.
TEST(CpuDetector, LazyFeaturesAfterAnLbpPrefixChangeNothing) {
    CascadeModel m = random_model(61, 2, 4, 6);
    const GrayImage img = blobby_image(320, 400, 62);
    calibrate_thresholds(m, img);
    EXPECT_EQ(CascadeEvaluator(m).prefix_stages(), 1u);
    EXPECT_TRUE(CascadeEvaluator(m).prefix_needs().gray_integral);
    EXPECT_FALSE(CascadeEvaluator(m).prefix_needs().hog);
    EXPECT_EQ(CascadeEvaluator(random_model(61, 2, 4, 0)).prefix_stages(), 0u);  // HoG only
    CascadeModel lbp_only = m;
    lbp_only.stages.erase(lbp_only.stages.begin() + 1, lbp_only.stages.end());
    EXPECT_EQ(CascadeEvaluator(lbp_only).prefix_stages(), 0u);
    DetectParams p;
    p.scale_step = 1.1;
    p.stride = 4;
    std::size_t with_detections = 0;
    // From a prefix most windows pass to one none passes (then no HoG plane is built at all); the
    // last two with square-root gray levels for the HoG planes, the very last with split votes too.
    for (float final_threshold : {-1e6f, -3.0f, -1.0f, 0.5f, 1e6f, -2.0f, -2.5f}) {
        if (final_threshold == -2.0f) m.hog.gamma = GrayGamma::Sqrt;
        if (final_threshold == -2.5f) m.hog.votes = OrientationVotes::Split;
        auto& wb = m.stages[0].as<WaldBoostLbpStage>();
        wb.final_threshold = final_threshold;
        const DetectResult lazy = CpuDetector(m, p, CpuOptions{PrefixPlanes::WhereSurvivors}).detect(img.view());
        const DetectResult eager = CpuDetector(m, p, CpuOptions{PrefixPlanes::EveryLevel}).detect(img.view());
        const DetectResult blocks = CpuDetector(m, p, CpuOptions{PrefixPlanes::SurvivorBlocks}).detect(img.view());
        // Per level: integral histograms everywhere (threshold 0), survivor blocks everywhere (no
        // level reaches the threshold), and the default's mix.
        for (double from : {0.0, 1e12, CpuOptions{}.integral_from_survivors}) {
            const DetectResult per_level =
                CpuDetector(m, p, CpuOptions{.prefix_planes = PrefixPlanes::PerLevel, .integral_from_survivors = from}).detect(img.view());
            EXPECT_EQ(per_level.detections, eager.detections) << final_threshold << " from " << from;
            EXPECT_EQ(per_level.stats, eager.stats) << final_threshold << " from " << from;
        }
        EXPECT_EQ(lazy.detections, eager.detections) << final_threshold;
        EXPECT_EQ(lazy.stats, eager.stats) << final_threshold;
        EXPECT_EQ(blocks.detections, eager.detections) << final_threshold;
        EXPECT_EQ(blocks.stats, eager.stats) << final_threshold;
        with_detections += !lazy.detections.empty();
        if (final_threshold == 1e6f) {
            EXPECT_EQ(lazy.stats.rejected_per_stage[0], lazy.stats.windows_scanned);
        }
    }
    EXPECT_GE(with_detections, 2u);
}

namespace {
// A colour frame (blobby, random and blobby planes), its BGR bytes and its gray conversion.
struct ColourScene {
    ColourPlanes planes;
    std::vector<std::uint8_t> bgr;
    ImageView rgb;
    GrayImage gray;
    ColourScene(int w, int h, unsigned seed)
        : planes{blobby_image(w, h, seed), random_image(w, h, seed + 1), blobby_image(w, h, seed + 2)},
          bgr(bgr_bytes(planes)),
          rgb{bgr.data(), w, h, w * 3, 3, ChannelOrder::BGR},
          gray(to_gray(rgb)) {}
    ImageView view(bool colour) const { return colour ? rgb : gray.view(); }
};

// Calls fn(model, colour, label) for random models whose blocks lie on a 4-px grid, with and
// without an LBP prefix, gray and colour (split votes), thresholds calibrated on the scene.
template <class Fn>
void for_grid_models(const ColourScene& scene, unsigned seed, Fn fn) {
    for (int lbp : {0, 4})
        for (bool colour : {false, true}) {
            CascadeModel m = random_model(seed + static_cast<unsigned>(lbp), 3, 5, lbp, "zhu-grid4");
            EXPECT_EQ(hog_block_grid(m) % 4, 0);
            if (colour) m.hog.channels = GradientChannels::Colour;
            m.hog.votes = colour ? OrientationVotes::Split : OrientationVotes::Nearest;
            calibrate_thresholds(m, scene.gray, colour ? &scene.planes : nullptr);
            fn(m, colour, "lbp " + std::to_string(lbp) + ", colour " + std::to_string(colour));
        }
}
}  // namespace

// A model whose blocks lie on a 4-px grid, scanned at strides that are multiples of 4, 2 or
// neither: the grid histograms (hog_block_grid and the stride's common divisor) give the same
// detections and statistics as full ones, gray and colour, with and without an LBP prefix.
TEST(CpuDetector, GridHistogramsChangeNothing) {
    EXPECT_EQ(hog_block_grid(random_model(5, 2, 30, 0)), 1);  // Zhu's pool: odd cell sides
    EXPECT_EQ(hog_block_grid(random_model(5, 0, 0, 3)), 0);   // no HoG learner
    const ColourScene scene(300, 260, 72);
    std::size_t detections = 0;
    for_grid_models(scene, 80, [&](const CascadeModel& m, bool colour, const std::string& what) {
        for (int stride : {8, 4, 6, 3}) {
            DetectParams p;
            p.scale_step = 1.15;
            p.stride = stride;
            p.level_pad = stride == 6 ? 10 : 0;
            const DetectResult grid = CpuDetector(m, p).detect(scene.view(colour));
            const DetectResult full = CpuDetector(m, p, CpuOptions{.grid_histograms = false}).detect(scene.view(colour));
            EXPECT_EQ(grid.detections, full.detections) << "stride " << stride << ", " << what;
            EXPECT_EQ(grid.stats, full.stats) << "stride " << stride << ", " << what;
            detections += grid.detections.size();
        }
    });
    EXPECT_GT(detections, 20u);
}

// HoG stages run 8 or 4 windows side by side (runtime/src/stages/hog_svm.cpp), and rows go
// through the cascade stage by stage over the windows still in it: every window's outcome, score
// bits, cleared sum and learner count equal the window-by-window evaluation, for every block
// normalisation and vote rule, steps 1 to 8, rows of 1 to 200 windows, several rows at once, and
// arbitrary lists of windows (evaluate_windows, and evaluate_stages_windows continuing after the
// first stage).
TEST(CpuDetector, HogRowsSideBySideEqualWindowByWindow) {
    const GrayImage img = blobby_image(260, 200, 7);
    std::size_t cases = 0, passed_all = 0;
    std::vector<std::size_t> rejected_at(4, 0);
    for (const BlockNorm norm : {BlockNorm::L2, BlockNorm::L2Hys, BlockNorm::L1Sqrt}) {
        CascadeModel m = random_model(300u + static_cast<unsigned>(norm), 4, 6, 0);  // binary, margin, binary, clipped
        m.hog.norm = norm;
        LevelFeatures f;
        compute_image_features(img, {true, false}, m.hog.gradient(), f);
        // Thresholds at the 35th percentile of each stage's sums over a grid of windows: about a
        // third of the windows leave at each stage.
        for (Stage& st : m.stages) {
            HogSvmStage& h = st.as<HogSvmStage>();
            std::vector<float> sums;
            for (int y = 0; y + 128 <= img.height; y += 9)
                for (int x = 0; x + 64 <= img.width; x += 7) sums.push_back(hog_stage_sum(h, m.hog, f.hog, x, y));
            std::nth_element(sums.begin(), sums.begin() + static_cast<std::ptrdiff_t>(sums.size() * 35 / 100), sums.end());
            h.threshold = sums[sums.size() * 35 / 100];
        }
        const CascadeEvaluator ev(m);
        const auto same = [&](const WindowProgress& p, const WindowProgress& q, const std::string& where) {
            ASSERT_EQ(p.outcome.rejected_at, q.outcome.rejected_at) << where;
            ASSERT_EQ(p.outcome.weak_evaluated, q.outcome.weak_evaluated) << where;
            ASSERT_EQ(std::bit_cast<std::uint32_t>(p.outcome.score), std::bit_cast<std::uint32_t>(q.outcome.score)) << where;
            ASSERT_EQ(std::bit_cast<std::uint32_t>(p.cleared), std::bit_cast<std::uint32_t>(q.cleared)) << where;
        };
        for (int step : {1, 3, 8})
            for (int y : {0, 31, img.height - 128}) {
                const int count = (img.width - 64) / step + 1;
                for (int x0 : {0, step == 1 ? 5 : 0})
                    for (int n : {1, 3, 5, 8, 13, count - x0 / step}) {
                        if (n > count - x0) continue;
                        std::vector<WindowProgress> progress(static_cast<std::size_t>(n));
                        std::vector<std::uint8_t> passed(static_cast<std::size_t>(n));
                        ev.evaluate_stages_row(f, x0, step, n, y, 0, m.stages.size(), progress.data(), passed.data());
                        for (int k = 0; k < n; ++k) {
                            WindowProgress p;
                            const bool ok = ev.evaluate_stages(f, x0 + k * step, y, 0, m.stages.size(), p);
                            const std::string where = std::string(to_string(norm)) + " step " + std::to_string(step) + " y " +
                                                      std::to_string(y) + " window " + std::to_string(k) + " of " + std::to_string(n);
                            ASSERT_EQ(ok, passed[static_cast<std::size_t>(k)] != 0) << where;
                            same(p, progress[static_cast<std::size_t>(k)], where);
                            ++cases;
                            if (ok) ++passed_all;
                            else ++rejected_at[static_cast<std::size_t>(p.outcome.rejected_at)];
                        }
                    }
            }
        // Several rows at once (evaluate_stages_rows), each later stage row by row.
        for (int step : {3, 8}) {
            const int n = (img.width - 64) / step + 1, rows = 4, y0 = 5, ystep = 13;
            std::vector<WindowProgress> progress(static_cast<std::size_t>(n * rows));
            std::vector<std::uint8_t> passed(progress.size());
            ev.evaluate_stages_rows(f, 0, step, n, y0, ystep, rows, 0, m.stages.size(), progress.data(), passed.data());
            for (std::size_t i = 0; i < progress.size(); ++i) {
                const int x = static_cast<int>(i % static_cast<std::size_t>(n)) * step, y = y0 + static_cast<int>(i / static_cast<std::size_t>(n)) * ystep;
                WindowProgress p;
                const bool ok = ev.evaluate_stages(f, x, y, 0, m.stages.size(), p);
                const std::string where = std::string(to_string(norm)) + " rows at step " + std::to_string(step) + ", x " +
                                          std::to_string(x) + " y " + std::to_string(y);
                ASSERT_EQ(ok, passed[i] != 0) << where;
                same(p, progress[i], where);
            }
        }
        // Lists of windows anywhere in a row, as the survivors of earlier stages are.
        std::mt19937 rng(11);
        std::uniform_int_distribution<int> any_x(0, img.width - 64);
        for (int count = 1; count <= 40; count += 3) {  // continuing after stage 1 (evaluate_stages_windows)
            std::vector<int> xs;
            std::vector<WindowProgress> progress;
            while (static_cast<int>(xs.size()) < count) {
                const int x = any_x(rng);
                WindowProgress p;
                if (ev.evaluate_stages(f, x, 60, 0, 1, p)) xs.push_back(x), progress.push_back(p);
            }
            std::vector<std::uint8_t> passed(xs.size());
            ev.evaluate_stages_windows(f, xs.data(), count, 60, 1, m.stages.size(), progress.data(), passed.data());
            for (int k = 0; k < count; ++k) {
                WindowProgress p;
                const bool ok = ev.evaluate_stages(f, xs[static_cast<std::size_t>(k)], 60, 0, m.stages.size(), p);
                const std::string where = std::string(to_string(norm)) + " list of " + std::to_string(count) + ", window " + std::to_string(k);
                ASSERT_EQ(ok, passed[static_cast<std::size_t>(k)] != 0) << where;
                same(p, progress[static_cast<std::size_t>(k)], where);
            }
        }
        for (std::size_t s = 0; s < m.stages.size(); ++s) {
            const std::unique_ptr<StageEvaluator> one = find_cpu_stage_kind("hog_svm")->make(m.stages[s], m);
            for (int count = 1; count <= 19; ++count) {
                std::vector<int> xs(static_cast<std::size_t>(count));
                for (int& x : xs) x = any_x(rng);
                std::vector<StageOutcome> out(xs.size());
                one->evaluate_windows(f, xs.data(), count, 40, out.data());
                for (int k = 0; k < count; ++k) {
                    const StageOutcome o = one->evaluate(f, xs[static_cast<std::size_t>(k)], 40);
                    ASSERT_EQ(std::bit_cast<std::uint32_t>(o.score), std::bit_cast<std::uint32_t>(out[static_cast<std::size_t>(k)].score))
                        << to_string(norm) << " stage " << s << " list of " << count << ", window " << k;
                    ASSERT_EQ(o.weak_evaluated, out[static_cast<std::size_t>(k)].weak_evaluated);
                }
            }
        }
    }
    // Windows left at every stage and windows went through all of them.
    for (std::size_t s = 0; s < rejected_at.size(); ++s) EXPECT_GT(rejected_at[s], cases / 40) << "stage " << s;
    EXPECT_GT(passed_all, cases / 40);
}

// WaldBoost rows run side by side (SIMD code loops, then the survivors alone): every window's
// outcome, score bits and weak-classifier count equal the window-by-window evaluation, for
// sequences from 1 to 300 weak classifiers, every step the detector may use (1 and 2 have their
// own loops), rows shorter and longer than a chunk of windows, several rows at once (at steps
// above 2 their windows go side by side together, chunks spanning rows), and thresholds from "all
// pass" to "all leave at the first".
TEST(CpuDetector, WaldBoostRowsSideBySideEqualWindowByWindow) {
    const GrayImage img = blobby_image(300, 90, 81);
    LevelFeatures f;
    f.gray.compute(img);
    std::size_t cases = 0, rejected_early = 0, passed_all = 0;
    for (int weak : {1, 8, 70, 300})
        for (int step : {1, 2, 3, 5}) {
            CascadeModel m = random_lbp_model(90u + static_cast<unsigned>(weak * 7 + step), weak, 24, 26, img, step);
            for (float shift : {0.0f, -1e6f, 1e6f}) {  // as calibrated, nothing rejected, everything rejected
                auto& wb = m.stages[0].as<WaldBoostLbpStage>();
                CascadeModel shifted = m;
                for (LbpWeakClassifier& c : shifted.stages[0].as<WaldBoostLbpStage>().weak) c.reject_threshold += shift;
                shifted.stages[0].as<WaldBoostLbpStage>().final_threshold = wb.final_threshold + shift;
                const CascadeEvaluator ev(shifted);
                // One row (evaluate_stages_row), or several at once (evaluate_stages_rows: at steps
                // above 2 their windows side by side together, across chunks).
                struct Rows {
                    int y0, ystep, rows;
                };
                for (const Rows& rows : {Rows{0, 1, 1}, Rows{17, 1, 1}, Rows{img.height - 26, 1, 1}, Rows{0, 7, 9}, Rows{5, 3, 20}}) {
                    const int count = (img.width - 24) / step + 1;
                    for (int x0 : {0, step == 1 ? 3 : 0}) {
                        const int n = x0 ? std::min(count - x0, 40) : count;  // a row shorter than a chunk
                        const std::size_t all = static_cast<std::size_t>(n) * static_cast<std::size_t>(rows.rows);
                        std::vector<WindowProgress> progress(all);
                        std::vector<std::uint8_t> passed(all);
                        if (rows.rows == 1) ev.evaluate_stages_row(f, x0, step, n, rows.y0, 0, 1, progress.data(), passed.data());
                        else ev.evaluate_stages_rows(f, x0, step, n, rows.y0, rows.ystep, rows.rows, 0, 1, progress.data(), passed.data());
                        for (std::size_t i = 0; i < all; ++i) {
                            const int k = static_cast<int>(i % static_cast<std::size_t>(n));
                            const int y = rows.y0 + static_cast<int>(i / static_cast<std::size_t>(n)) * rows.ystep;
                            WindowProgress p;
                            const bool ok = ev.evaluate_stages(f, x0 + k * step, y, 0, 1, p);
                            const WindowProgress& q = progress[i];
                            ASSERT_EQ(ok, passed[i] != 0) << weak << " " << step << " " << k << " y " << y;
                            ASSERT_EQ(p.outcome.rejected_at, q.outcome.rejected_at);
                            ASSERT_EQ(p.outcome.weak_evaluated, q.outcome.weak_evaluated);
                            ASSERT_EQ(std::bit_cast<std::uint32_t>(p.outcome.score), std::bit_cast<std::uint32_t>(q.outcome.score));
                            ASSERT_EQ(std::bit_cast<std::uint32_t>(p.cleared), std::bit_cast<std::uint32_t>(q.cleared));
                            ++cases;
                            rejected_early += !ok && p.outcome.weak_evaluated < static_cast<std::uint32_t>(weak);
                            passed_all += ok;
                        }
                    }
                }
            }
        }
    // Both phases ran: windows left early and windows went through whole sequences.
    EXPECT_GT(rejected_early, cases / 4);
    EXPECT_GT(passed_all, cases / 10);
}

// On an octave's gray integral (LevelFeatures::lbp_gray, DetectParams::approximate_lbp) a row's
// windows sit at uneven points lbp_x[x], lbp_y[y]: side by side, and window by window, every
// outcome equals the sum of the tables' responses to lbp_code at those points, by hand.
TEST(CpuDetector, WaldBoostRowsOnAnOctaveReadItsPoints) {
    const GrayImage img = blobby_image(300, 90, 81), octave = blobby_image(420, 130, 82);
    const double ratio = 1.37;
    LevelFeatures f;
    IntegralImage octave_gray;
    octave_gray.compute(octave);
    f.lbp_gray = &octave_gray;
    const int sw = static_cast<int>(std::lround(24 * ratio)), sh = static_cast<int>(std::lround(26 * ratio));
    std::vector<int> xs, ys;
    for (int x = 0; x < img.width; ++x) xs.push_back(std::min(static_cast<int>(std::lround(3 + x * ratio)), octave.width - sw));
    for (int y = 0; y < img.height; ++y) ys.push_back(std::min(static_cast<int>(std::lround(2 + y * ratio)), octave.height - sh));
    f.lbp_x = xs.data();
    f.lbp_y = ys.data();
    std::size_t cases = 0, rejected_early = 0, passed_all = 0;
    for (int weak : {8, 70})
        for (int step : {1, 4}) {
            const CascadeModel m = scale_lbp_cells(random_lbp_model(190u + static_cast<unsigned>(weak + step), weak, 24, 26, img, step), ratio);
            const auto& wb = m.stages[0].as<WaldBoostLbpStage>();
            const CascadeEvaluator ev(m);
            // Rows one at a time, and several at once (their windows side by side together).
            for (const auto& [y0, ystep, rows] : {std::tuple{0, 1, 1}, std::tuple{30, 1, 1}, std::tuple{img.height - 26, 1, 1},
                                                  std::tuple{1, 5, 13}}) {
                const int n = (img.width - 24) / step + 1;
                const std::size_t all = static_cast<std::size_t>(n) * static_cast<std::size_t>(rows);
                std::vector<WindowProgress> progress(all);
                std::vector<std::uint8_t> passed(all);
                ev.evaluate_stages_rows(f, 0, step, n, y0, ystep, rows, 0, 1, progress.data(), passed.data());
                const std::size_t stride = octave_gray.row_stride();
                for (std::size_t i = 0; i < all; ++i) {
                    const int k = static_cast<int>(i % static_cast<std::size_t>(n));
                    const int x = k * step, y = y0 + static_cast<int>(i / static_cast<std::size_t>(n)) * ystep;
                    const std::uint32_t* origin = octave_gray.data() + static_cast<std::size_t>(f.lbp_y[static_cast<std::size_t>(y)]) * stride +
                                                  static_cast<std::size_t>(f.lbp_x[static_cast<std::size_t>(x)]);
                    float h = 0.0f;
                    std::uint32_t evaluated = 0;
                    bool left = false;
                    for (const LbpWeakClassifier& c : wb.weak) {
                        ++evaluated;
                        h += c.responses[lbp_code(origin, stride, c.cell)];
                        if (h < c.reject_threshold) {
                            left = true;
                            break;
                        }
                    }
                    const bool ok = !left && h >= wb.final_threshold;
                    const WindowProgress& q = progress[i];
                    ASSERT_EQ(ok, passed[i] != 0) << weak << " " << step << " " << k << " y " << y;
                    ASSERT_EQ(q.outcome.weak_evaluated, evaluated) << weak << " " << step << " " << k << " y " << y;
                    WindowProgress p;
                    ASSERT_EQ(ev.evaluate_stages(f, x, y, 0, 1, p), ok);
                    ASSERT_EQ(std::bit_cast<std::uint32_t>(p.outcome.score), std::bit_cast<std::uint32_t>(q.outcome.score));
                    ++cases;
                    rejected_early += left;
                    passed_all += ok;
                }
            }
        }
    EXPECT_GT(rejected_early, cases / 4);
    EXPECT_GT(passed_all, 0u);
}

// --pad-level: a bar cut by the image's left edge is found only by windows that reach past it,
// at x < 0 in image coordinates; every other window is where the unpadded scan puts it.
TEST(CpuDetector, LevelPaddingFindsObjectsCutByTheEdge) {
    GrayImage img = constant_image(300, 200, 0);
    draw_bar(img, -24, 40, 1.0);  // the window at x = -24: the bar at x 4..12
    DetectParams p;
    p.scale_step = 1.2;
    const DetectResult plain = detect(bar_model(), img, p);
    p.level_pad = 32;
    const DetectResult padded = detect(bar_model(), img, p);
    auto found_at = [](const DetectResult& r, double x, double y) {
        for (const Detection& d : r.detections)
            if (d.scale == 1.0 && d.x == x && d.y == y) return true;
        return false;
    };
    EXPECT_FALSE(found_at(plain, -24, 40));
    EXPECT_TRUE(found_at(padded, -24, 40));
    EXPECT_GT(padded.stats.windows_scanned, plain.stats.windows_scanned);
    for (const Detection& d : plain.detections) EXPECT_TRUE(found_at(padded, d.x, d.y) || d.scale != 1.0);
    p.level_pad = 300;
    EXPECT_THROW(detect(bar_model(), img, p), std::invalid_argument);
}

// scale_model (DetectParams::scale_windows): the window, LBP cells and HoG blocks scaled by the
// ratio within rounding, blocks on the grid asked for, everything inside the window (scale_model
// validates its result), ε scaled; at ratio 1 a model whose blocks lie on the grid comes back
// unchanged. scaled_stride: on the grid, within half a grid step of stride·ratio.
TEST(ScaledWindows, ScaledModelsKeepTheirCellsAndBlocksInsideAndOnTheGrid) {
    for (const char* pool : {"zhu-grid4", "zhu"}) {
        const CascadeModel m = random_model(91, 3, 12, 24, pool);
        const int grid = std::string(pool) == "zhu" ? 1 : 4;
        ASSERT_EQ(hog_block_grid(m) % grid, 0);
        EXPECT_EQ(scale_model(m, 1.0, grid), m) << pool;
        for (double r : {0.8, 1.0, 1.05, 1.2599, 1.5, 1.7411, 1.999}) {
            const CascadeModel s = scale_model(m, r, grid);
            EXPECT_EQ(s.window_width, std::lround(64 * r));
            EXPECT_EQ(s.window_height, std::lround(128 * r));
            EXPECT_FLOAT_EQ(s.hog.epsilon, static_cast<float>(m.hog.epsilon * r));
            EXPECT_EQ(hog_block_grid(s) % grid, 0) << pool << " ratio " << r;
            ASSERT_EQ(s.stages.size(), m.stages.size());
            const auto& a = m.stages[0].as<WaldBoostLbpStage>().weak;
            const auto& b = s.stages[0].as<WaldBoostLbpStage>().weak;
            for (std::size_t i = 0; i < a.size(); ++i) {
                EXPECT_LE(std::abs(b[i].cell.w - a[i].cell.w * r), 0.5 + 1e-9);
                EXPECT_LE(std::abs(b[i].cell.h - a[i].cell.h * r), 0.5 + 1e-9);
                EXPECT_EQ(b[i].responses, a[i].responses);
                EXPECT_EQ(b[i].reject_threshold, a[i].reject_threshold);
            }
            for (std::size_t st = 1; st < m.stages.size(); ++st) {
                const auto& la = m.stages[st].as<HogSvmStage>().learners;
                const auto& lb = s.stages[st].as<HogSvmStage>().learners;
                for (std::size_t i = 0; i < la.size(); ++i) {
                    // A cell within half a grid step of its scaled width (a pixel more for the
                    // rounding before it), unless the window clamps it.
                    if (2 * lb[i].block.w < s.window_width) {
                        EXPECT_LE(std::abs(lb[i].block.w / 2 - la[i].block.w / 2 * r), grid / 2.0 + 1.0) << pool << " ratio " << r;
                    }
                    EXPECT_EQ(lb[i].weights, la[i].weights);
                }
            }
        }
        for (int stride : {4, 8}) {
            if (stride % grid) continue;
            for (double r : {1.0, 1.3, 1.5, 1.99}) {
                const int st = scaled_stride(stride, r, grid);
                EXPECT_EQ(st % grid, 0);
                EXPECT_GE(st, grid);
                EXPECT_LE(std::abs(st - stride * r), grid / 2.0 + 0.5) << stride << " ratio " << r;
            }
        }
    }
    EXPECT_THROW(scale_model(bar_model(), 0.0, 4), std::invalid_argument);
    EXPECT_THROW(scale_model(bar_model(), 1.5, 0), std::invalid_argument);
}

// scale_lbp_cells (DetectParams::approximate_lbp): the LBP cells exactly as scale_model scales
// them, everything else (window, HoG blocks, ε, thresholds) the model's; at ratio 1 the model.
TEST(ScaledWindows, LbpCellsScaledAloneAreScaleModelsCells) {
    const CascadeModel m = random_model(92, 3, 12, 24, "zhu-grid4");
    EXPECT_EQ(scale_lbp_cells(m, 1.0), m);
    for (double r : {1.05, 1.2599, 1.5, 1.999}) {
        const CascadeModel s = scale_lbp_cells(m, r), whole = scale_model(m, r, 4);
        CascadeModel expected = m;
        expected.stages[0] = whole.stages[0];
        EXPECT_EQ(s, expected) << r;
        EXPECT_NE(s.stages[0], m.stages[0]) << r;
    }
    EXPECT_THROW(scale_lbp_cells(m, 0.0), std::invalid_argument);
    EXPECT_THROW(scale_lbp_cells(m, std::nan("")), std::invalid_argument);
}

namespace {
// A scan by hand: every level of p's pyramid of img, its features from `features(evaluator,
// level, octaves, f)`, every window evaluated alone, by the evaluator `features` returns (null:
// the model's own); the accepted ones as the detectors report them.
template <class Features>
std::vector<Detection> reference_scan(const CascadeModel& m, const GrayImage& img, const DetectParams& p, Features features) {
    const auto levels = plan_pyramid(img.width, img.height, m.window_width, m.window_height, p.scale_step, p.min_scale, p.max_scale,
                                     p.level_pad);
    Octaves octaves;
    octaves.reset(img);
    const CascadeEvaluator evaluator(m);
    std::vector<Detection> out;
    for (std::size_t i = 0; i < levels.size(); ++i) {
        const PyramidLevel& level = levels[i];
        LevelFeatures f;
        const std::unique_ptr<CascadeEvaluator> own = features(evaluator, level, octaves, f);
        const CascadeEvaluator& e = own ? *own : evaluator;
        for (int y = 0; y + m.window_height <= level.height; y += p.stride)
            for (int x = 0; x + m.window_width <= level.width; x += p.stride) {
                const WindowOutcome o = e.evaluate(f, x, y);
                if (o.rejected_at >= 0) continue;
                out.push_back({(x - level.pad) * level.scale, (y - level.pad) * level.scale, m.window_width * level.scale,
                               m.window_height * level.scale, o.score, static_cast<int>(i), level.scale,
                               static_cast<int>(m.stages.size())});
            }
    }
    return out;
}

// The scaled-window scan at a scale step of 2 by hand: every level is an octave, scanned by the
// model itself (ratio 1) on its image smoothed (smooth_binomial).
std::vector<Detection> octave_scan_reference(const CascadeModel& m, const GrayImage& img, const DetectParams& p) {
    return reference_scan(m, img, p, [&](const CascadeEvaluator& evaluator, const PyramidLevel& level, Octaves& octaves, LevelFeatures& f) {
        GrayImage resampled, smoothed;
        resample_level(octaves, level, resampled);
        smooth_binomial(resampled, smoothed);
        compute_level_features(smoothed, evaluator.needs(), m.hog.gradient(), f);
        return std::unique_ptr<CascadeEvaluator>();
    });
}

// The bars of FindsBarsAtTheirPlacesAndScalesAndNowhereElse at scales 1 and 1.44 (the second
// between octaves 0 and 1), and what a scan `p` of them must find: one fused mode a bar, where it
// is, a window between scales 1.3 and 1.6, nothing on a blank image, the CPU for Backend::Auto.
const std::vector<Bar> kBarsBetweenOctaves = {{32, 24, 1.0}, {160 * 1.44, 80 * 1.44, 1.44}};
void expect_bars_between_octaves(const DetectResult& r, const DetectParams& p) {
    const auto fused = fuse_meanshift(r.detections, 64, 128, {});
    ASSERT_EQ(fused.size(), kBarsBetweenOctaves.size());
    for (const Bar& b : kBarsBetweenOctaves) {
        const double cx = b.wx + 32 * b.s, cy = b.wy + 64 * b.s;
        EXPECT_TRUE(std::any_of(fused.begin(), fused.end(), [&](const Detection& d) {
            return std::abs(d.x + d.w / 2 - cx) <= 6 * b.s && std::abs(d.y + d.h / 2 - cy) <= 16 * b.s && d.scale / b.s < 1.25 &&
                   b.s / d.scale < 1.25;
        })) << "bar at scale " << b.s;
    }
    EXPECT_TRUE(std::any_of(r.detections.begin(), r.detections.end(), [](const Detection& d) { return d.scale > 1.3 && d.scale < 1.6; }));
    EXPECT_TRUE(detect(bar_model(), constant_image(420, 400, 90), p).detections.empty());
    EXPECT_EQ(Detector::create(bar_model(), p)->backend_name(), "cpu");
}
}  // namespace

// With a scale step of 2 the scaled-window scan is the reference above, detection for detection,
// with and without an LBP prefix, with level padding (on the grid: scaled levels' borders are
// rounded to it) and upscaling; and the same on one thread or all, gray or colour. At a step of
// 1.15 (ratios other than 1), every way of building the HoG planes after the prefix gives the same
// detections, as for resampled levels.
TEST(CpuDetector, ScaledWindowsAtOctaveStepsAreSmoothedOctaves) {
    const ColourScene scene(260, 240, 172);
    std::size_t detections = 0;
    for_grid_models(scene, 180, [&](const CascadeModel& m, bool colour, const std::string& model) {
        for (const auto& [pad, min_scale] : {std::pair{0, 1.0}, std::pair{8, 1.0}, std::pair{0, 0.75}}) {
            DetectParams p;
            p.scale_step = 2.0;
            p.stride = 4;
            p.level_pad = pad;
            p.min_scale = min_scale;
            p.scale_windows = true;
            const DetectResult scaled = CpuDetector(m, p).detect(scene.view(colour));
            DetectResult one_thread;
            {
                tbb::global_control one(tbb::global_control::max_allowed_parallelism, 1);
                one_thread = CpuDetector(m, p).detect(scene.view(colour));
            }
            const std::string what = model + ", pad " + std::to_string(pad) + ", min scale " + std::to_string(min_scale);
            if (!colour) {
                EXPECT_EQ(scaled.detections, octave_scan_reference(m, scene.gray, p)) << what;
            }
            EXPECT_EQ(one_thread.detections, scaled.detections) << what;
            EXPECT_EQ(one_thread.stats, scaled.stats) << what;
            detections += scaled.detections.size();
            if (pad != 0 || min_scale != 1.0) continue;
            p.scale_step = 1.15;
            const DetectResult between = CpuDetector(m, p).detect(scene.view(colour));
            for (PrefixPlanes planes : {PrefixPlanes::EveryLevel, PrefixPlanes::WhereSurvivors, PrefixPlanes::SurvivorBlocks}) {
                const DetectResult other = CpuDetector(m, p, CpuOptions{planes}).detect(scene.view(colour));
                EXPECT_EQ(other.detections, between.detections) << what << ", planes " << static_cast<int>(planes);
                EXPECT_EQ(other.stats, between.stats) << what << ", planes " << static_cast<int>(planes);
            }
        }
    });
    EXPECT_GT(detections, 10u);
}

// Between octaves the scaled windows find what the resampled levels find: the two bars of
// FindsBarsAtTheirPlacesAndScalesAndNowhereElse (at scales 1 and 1.44: the second on octave 0 by
// the model scaled by 1.44), one fused mode each, where they are; and nothing on a blank image.
// About as many windows as the resampled scan.
TEST(CpuDetector, ScaledWindowsFindTheBarsBetweenOctaves) {
    const GrayImage img = bar_scene(420, 400, kBarsBetweenOctaves);
    DetectParams p;
    p.scale_step = 1.2;
    p.stride = 4;
    const DetectResult resampled = detect(bar_model(), img, p);
    p.scale_windows = true;
    const DetectResult r = detect(bar_model(), img, p);
    EXPECT_NEAR(static_cast<double>(r.stats.windows_scanned), static_cast<double>(resampled.stats.windows_scanned),
                0.1 * static_cast<double>(resampled.stats.windows_scanned));
    EXPECT_EQ(r.stats.levels, resampled.stats.levels);
    expect_bars_between_octaves(r, p);
}

namespace {
// The approximated scans by hand (gray). A level of scale in [min_scale·2^k, min_scale·2^(k+1)),
// with octave k's image bordered by twice the level pad: approximate_hog, the histogram of that
// image smoothed (smooth_binomial), read at the level's points (IntegralHistogram::approximate,
// sums over the ratio); approximate_lbp, the LBP stages with their cells scaled (scale_lbp_cells)
// on that image's gray integral as it is, the window at level (x, y) at the nearest octave pixel
// to origin + (x, y)·ratio, moved inside. The octave's own level likewise (ratio 1); the planes
// not approximated from each level's own image; every window evaluated alone.
std::vector<Detection> approximated_scan_reference(const CascadeModel& m, const GrayImage& img, const DetectParams& p) {
    const int grid = std::max(1, hog_scan_grid(m, p.stride));
    std::vector<std::unique_ptr<IntegralImage>> octave_grays;  // what the levels' features point to
    std::vector<int> xs, ys;                                    // the level's placements (one level at a time)
    return reference_scan(m, img, p, [&](const CascadeEvaluator& evaluator, const PyramidLevel& level, Octaves& octaves, LevelFeatures& f) {
        GrayImage resampled;
        resample_level(octaves, level, resampled);
        compute_level_features(resampled, evaluator.needs(), m.hog.gradient(), f, nullptr, grid);
        const int k = static_cast<int>(std::floor(std::log2(level.scale / p.min_scale) + 1e-9));
        const double octave_scale = std::ldexp(p.min_scale, k), ratio = level.scale / octave_scale;
        std::unique_ptr<CascadeEvaluator> own;
        const PyramidLevel octave = pyramid_level(img.width, img.height, octave_scale, 2 * p.level_pad);
        GrayImage image, smoothed;
        resample_level(octaves, octave, image);
        const double origin = octave.pad - level.pad * ratio;
        if (p.approximate_hog && evaluator.needs().hog) {
            smooth_binomial(image, smoothed);
            IntegralHistogram source;
            source.compute(smoothed, m.hog.gradient(), grid);
            f.hog.approximate(source, level.width, level.height, grid, ratio, origin, origin, 1 / ratio);
        }
        const int sw = static_cast<int>(std::lround(m.window_width * ratio)), sh = static_cast<int>(std::lround(m.window_height * ratio));
        if (!p.approximate_lbp || !evaluator.needs().gray_integral || sw > octave.width || sh > octave.height) return own;
        octave_grays.push_back(std::make_unique<IntegralImage>());
        octave_grays.back()->compute(image);
        f.lbp_gray = octave_grays.back().get();
        xs.clear();
        ys.clear();
        for (int x = 0; x < level.width; ++x) xs.push_back(std::clamp(static_cast<int>(std::lround(origin + x * ratio)), 0, octave.width - sw));
        for (int y = 0; y < level.height; ++y) ys.push_back(std::clamp(static_cast<int>(std::lround(origin + y * ratio)), 0, octave.height - sh));
        f.lbp_x = xs.data();
        f.lbp_y = ys.data();
        own = std::make_unique<CascadeEvaluator>(scale_lbp_cells(m, ratio));
        return own;
    });
}
}  // namespace

namespace {
// An approximated scan p of the scene by m is the by-hand reference above (gray), the same on
// one thread as on all and for every way of building the HoG planes after the prefix; its
// detections, and those at levels between octaves, are added to the counts.
void expect_approximated_scan(const CascadeModel& m, const ColourScene& scene, bool colour, const DetectParams& p,
                              const std::string& what, std::size_t& detections, std::size_t& between) {
    const DetectResult approximated = CpuDetector(m, p).detect(scene.view(colour));
    if (!colour) {
        EXPECT_EQ(approximated.detections, approximated_scan_reference(m, scene.gray, p)) << what;
    }
    DetectResult one_thread;
    {
        tbb::global_control one(tbb::global_control::max_allowed_parallelism, 1);
        one_thread = CpuDetector(m, p).detect(scene.view(colour));
    }
    EXPECT_EQ(one_thread.detections, approximated.detections) << what;
    EXPECT_EQ(one_thread.stats, approximated.stats) << what;
    for (PrefixPlanes planes : {PrefixPlanes::EveryLevel, PrefixPlanes::WhereSurvivors, PrefixPlanes::SurvivorBlocks}) {
        const DetectResult other = CpuDetector(m, p, CpuOptions{planes}).detect(scene.view(colour));
        EXPECT_EQ(other.detections, approximated.detections) << what << ", planes " << static_cast<int>(planes);
        EXPECT_EQ(other.stats, approximated.stats) << what << ", planes " << static_cast<int>(planes);
    }
    detections += approximated.detections.size();
    between += static_cast<std::size_t>(std::count_if(approximated.detections.begin(), approximated.detections.end(), [&](const Detection& d) {
        const double r = d.scale / std::ldexp(p.min_scale, static_cast<int>(std::floor(std::log2(d.scale / p.min_scale) + 1e-9)));
        return r > 1.01;
    }));
}
}  // namespace

// Approximated HoG histograms (DetectParams::approximate_hog) are the reference above, detection
// for detection, with and without an LBP prefix, with level padding and upscaling; the same on
// one thread or all and for every way of building the HoG planes after the prefix, gray or colour;
// at a scale step of 2 (every level an octave, read from its smoothed histogram) a model without
// LBP stages gives the scaled-window scan's smoothed octaves. Scale windows with it are refused.
TEST(CpuDetector, ApproximatedHogIsTheSmoothedOctaveReadAtEachLevel) {
    const ColourScene scene(260, 240, 172);
    std::size_t detections = 0, between = 0;
    for_grid_models(scene, 190, [&](const CascadeModel& m, bool colour, const std::string& model) {
        for (const auto& [pad, min_scale] : {std::pair{0, 1.0}, std::pair{8, 1.0}, std::pair{0, 0.75}}) {
            DetectParams p;
            p.scale_step = 1.15;
            p.stride = 4;
            p.level_pad = pad;
            p.min_scale = min_scale;
            p.approximate_hog = true;
            const std::string what = model + ", pad " + std::to_string(pad) + ", min scale " + std::to_string(min_scale);
            expect_approximated_scan(m, scene, colour, p, what, detections, between);
            if (m.stages[0].get_if<WaldBoostLbpStage>() != nullptr) continue;  // its LBP stages read unsmoothed levels
            DetectParams octaves = p;
            octaves.scale_step = 2.0;
            DetectParams smoothed = octaves;
            smoothed.approximate_hog = false;
            smoothed.scale_windows = true;
            const DetectResult a = CpuDetector(m, octaves).detect(scene.view(colour)), r = CpuDetector(m, smoothed).detect(scene.view(colour));
            EXPECT_EQ(a.detections, r.detections) << what;
            EXPECT_EQ(a.stats, r.stats) << what;
            if (!colour) {
                EXPECT_EQ(a.detections, octave_scan_reference(m, scene.gray, octaves)) << what;
            }
        }
    });
    EXPECT_GT(detections, 10u);
    EXPECT_GT(between, 5u);
    DetectParams both;
    both.approximate_hog = both.scale_windows = true;
    EXPECT_THROW(CpuDetector(bar_model(), both), std::invalid_argument);
}

// LBP stages on the octaves (DetectParams::approximate_lbp), alone and with approximate_hog, are
// the reference above, detection for detection: the models with an LBP prefix with level
// padding and upscaling, and an LBP sequence alone; the same on one thread or all and for every
// way of building the HoG planes after the prefix, gray or colour; at a scale step of 2 (every
// level an octave, its LBP stages on the octave's image itself) without approximate_hog the
// resampled scan itself. A model without LBP stages scans as without it. Scale windows with it
// are refused.
TEST(CpuDetector, ApproximatedLbpReadsTheOctaveAtEachLevel) {
    const ColourScene scene(260, 240, 172);
    std::size_t detections = 0, between = 0;
    auto check = [&](const CascadeModel& m, bool colour, const std::string& model, int pad, double min_scale, bool hog) {
        DetectParams p;
        p.scale_step = 1.15;
        p.stride = 4;
        p.level_pad = pad;
        p.min_scale = min_scale;
        p.approximate_lbp = true;
        p.approximate_hog = hog;
        const std::string what = model + ", pad " + std::to_string(pad) + ", min scale " + std::to_string(min_scale) + ", hog " +
                                 std::to_string(hog);
        expect_approximated_scan(m, scene, colour, p, what, detections, between);
        if (hog) return;
        DetectParams octaves = p;
        octaves.scale_step = 2.0;
        DetectParams resampled = octaves;
        resampled.approximate_lbp = false;
        const DetectResult a = CpuDetector(m, octaves).detect(scene.view(colour)), r = CpuDetector(m, resampled).detect(scene.view(colour));
        EXPECT_EQ(a.detections, r.detections) << what;
        EXPECT_EQ(a.stats, r.stats) << what;
    };
    for_grid_models(scene, 190, [&](const CascadeModel& m, bool colour, const std::string& model) {
        if (m.stages[0].get_if<WaldBoostLbpStage>() == nullptr) {
            DetectParams p;
            p.scale_step = 1.15;
            p.stride = 4;
            const DetectResult resampled = CpuDetector(m, p).detect(scene.view(colour));
            p.approximate_lbp = true;
            const DetectResult approximated = CpuDetector(m, p).detect(scene.view(colour));
            EXPECT_EQ(approximated.detections, resampled.detections) << model;
            EXPECT_EQ(approximated.stats, resampled.stats) << model;
            return;
        }
        check(m, colour, model, 0, 1.0, false);
        check(m, colour, model, 0, 1.0, true);
        check(m, colour, model, 8, 1.0, true);
        check(m, colour, model, 0, 0.75, false);
    });
    const CascadeModel lbp = random_lbp_model(191, 30, 24, 26, scene.gray, 4);
    check(lbp, false, "lbp alone", 0, 1.0, false);
    check(lbp, false, "lbp alone", 8, 0.75, false);
    EXPECT_GT(detections, 10u);
    EXPECT_GT(between, 5u);
    DetectParams both;
    both.approximate_lbp = both.scale_windows = true;
    EXPECT_THROW(CpuDetector(bar_model(), both), std::invalid_argument);
}

// Between octaves approximated histograms find what the resampled levels find: the two bars (at
// scales 1 and 1.44: the second read from octave 0's histogram), one fused mode each, where they
// are, with as many windows scanned; nothing on a blank image; Backend::Auto gives the CPU.
TEST(CpuDetector, ApproximatedHogFindsTheBarsBetweenOctaves) {
    const GrayImage img = bar_scene(420, 400, kBarsBetweenOctaves);
    DetectParams p;
    p.scale_step = 1.2;
    p.stride = 4;
    const DetectResult resampled = detect(bar_model(), img, p);
    p.approximate_hog = true;
    const DetectResult r = detect(bar_model(), img, p);
    EXPECT_EQ(r.stats.windows_scanned, resampled.stats.windows_scanned);
    expect_bars_between_octaves(r, p);
}

// The CUDA backend's staging copy (host code, built in every configuration): every byte arrives,
// at destination offsets 0-15 from a 16-byte boundary, from padded, contiguous and bottom-up rows,
// for frames below and above 1 MiB (the size from which bands of rows are copied in parallel with
// streaming stores); and stream_copy alone for lengths around its 16- and 64-byte steps.
TEST(HostCopy, RowsArriveIntactAtEveryAlignmentAndStride) {
    std::mt19937 rng(11);
    std::uniform_int_distribution<int> byte(0, 255);
    struct Shape {
        int rows;
        std::size_t row_bytes;
    };
    for (const Shape k : {Shape{7, 13}, Shape{600, 1923}, Shape{1080, 5760}}) {
        for (const int pad : {0, 5}) {
            const std::size_t stride = k.row_bytes + static_cast<std::size_t>(pad);
            std::vector<std::uint8_t> src(stride * static_cast<std::size_t>(k.rows));
            for (auto& b : src) b = static_cast<std::uint8_t>(byte(rng));
            for (const bool bottom_up : {false, true}) {
                std::vector<std::uint8_t> want(k.row_bytes * static_cast<std::size_t>(k.rows));
                for (int y = 0; y < k.rows; ++y) {
                    const int from = bottom_up ? k.rows - 1 - y : y;
                    std::copy_n(src.data() + static_cast<std::size_t>(from) * stride, k.row_bytes, want.data() + static_cast<std::size_t>(y) * k.row_bytes);
                }
                const std::uint8_t* first = bottom_up ? src.data() + static_cast<std::size_t>(k.rows - 1) * stride : src.data();
                const std::ptrdiff_t step = bottom_up ? -static_cast<std::ptrdiff_t>(stride) : static_cast<std::ptrdiff_t>(stride);
                for (const int offset : {0, 1, 7, 15}) {
                    SCOPED_TRACE(std::to_string(k.rows) + "x" + std::to_string(k.row_bytes) + " pad " + std::to_string(pad) +
                                 (bottom_up ? " bottom-up" : "") + " offset " + std::to_string(offset));
                    std::vector<std::uint8_t> buffer(want.size() + 48, 0xA5);
                    std::uint8_t* base = buffer.data() + (16 - reinterpret_cast<std::uintptr_t>(buffer.data()) % 16) % 16;
                    cuda::copy_rows(base + offset, first, k.rows, k.row_bytes, step);
                    EXPECT_TRUE(std::equal(want.begin(), want.end(), base + offset));
                    EXPECT_EQ(base[offset + want.size()], 0xA5) << "wrote past the end";
                    if (offset > 0) {
                        EXPECT_EQ(base[offset - 1], 0xA5) << "wrote before the start";
                    }
                }
            }
        }
    }
    std::vector<std::uint8_t> src(300), out(400);
    for (auto& b : src) b = static_cast<std::uint8_t>(byte(rng));
    for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{15}, std::size_t{16}, std::size_t{63}, std::size_t{64},
                                std::size_t{65}, std::size_t{129}, std::size_t{300}})
        for (const int offset : {0, 3, 16, 31}) {
            std::fill(out.begin(), out.end(), std::uint8_t{0x5A});
            cuda::stream_copy(out.data() + offset, src.data(), n);
            EXPECT_TRUE(std::equal(src.begin(), src.begin() + static_cast<std::ptrdiff_t>(n), out.begin() + offset)) << n << " at " << offset;
            EXPECT_EQ(out[static_cast<std::size_t>(offset) + n], 0x5A) << n << " at " << offset;
        }
}

// The staging of frames in gray (CudaOptions::host_gray): to_gray's bytes, rows packed, for frames
// below 64 KiB, below 1 MiB (streaming stores) and above (bands in parallel, streaming), 1, 3 and
// 4 channels, both orders, rows back to back, padded and bottom-up; nothing written past the frame.
TEST(HostCopy, GrayStagingEqualsToGray) {
    std::mt19937 rng(12);
    std::uniform_int_distribution<int> byte(0, 255);
    for (const int channels : {1, 3, 4})
        for (const auto& [w, h] : {std::pair{37, 5}, std::pair{640, 480}, std::pair{1283, 331}, std::pair{1920, 1080}})
            for (const bool bottom_up : {false, true})
            for (const int pad : {0, 3}) {
                const ChannelOrder order = bottom_up ? ChannelOrder::RGB : ChannelOrder::BGR;
                const std::ptrdiff_t stride = static_cast<std::ptrdiff_t>(w) * channels + pad;
                std::vector<std::uint8_t> src(static_cast<std::size_t>(stride) * h);
                for (auto& b : src) b = static_cast<std::uint8_t>(byte(rng));
                const ImageView view{bottom_up ? src.data() + (h - 1) * stride : src.data(), w, h, bottom_up ? -stride : stride, channels,
                                     order};
                SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h) + ", " + std::to_string(channels) + " channels" +
                             (bottom_up ? ", bottom-up" : "") + (pad ? ", padded rows" : ""));
                const GrayImage want = to_gray(view);
                std::vector<std::uint8_t> out(want.pixels.size() + 64, 0xA5);
                std::uint8_t* got = out.data() + 16 - reinterpret_cast<std::uintptr_t>(out.data()) % 16;  // 16-byte aligned
                cuda::stage_gray(got, view);
                EXPECT_TRUE(std::equal(want.pixels.begin(), want.pixels.end(), got));
                EXPECT_EQ(got[want.pixels.size()], 0xA5) << "wrote past the end";
            }
}

// The CUDA backend's task group (host_copy.hpp), which finishes a batch's frames while others
// are scanned: every task runs once, wait() rethrows a task's exception after all have run, and
// the group can be used again.
TEST(HostCopy, TaskGroupRunsEveryTaskAndRethrows) {
    std::vector<std::atomic<int>> runs(1000);
    cuda::TaskGroup group;
    for (std::size_t i = 0; i < runs.size(); ++i) group.run([&, i] { ++runs[i]; });
    group.wait();
    for (const auto& r : runs) EXPECT_EQ(r.load(), 1);
    std::atomic<int> done{0};
    for (int i = 0; i < 100; ++i)
        group.run([&, i] {
            ++done;
            if (i == 37) throw std::runtime_error("task 37");
        });
    EXPECT_THROW(group.wait(), std::runtime_error);
    EXPECT_GE(done.load(), 1);
    std::atomic<int> again{0};
    group.run([&] { ++again; });
    group.wait();
    EXPECT_EQ(again.load(), 1);
}

// The CUDA backend's host-side ordering of accepted windows (id_order.hpp): the radix sort, and the
// entries at a few ranks without sorting all, equal std::sort's order on unique ids, dense and
// sparse, of every width up to 32 bits, with ranks in any order, few and many.
TEST(IdOrder, SortAndRanksEqualAPlainSort) {
    struct Entry {
        std::uint32_t id;
        float score;
    };
    std::mt19937 rng(31);
    for (const std::size_t n : {0u, 1u, 300u, 2047u, 2048u, 5000u, 100000u})
        for (const std::uint32_t span : {0u, 4u, 1000u, 0xFFFFFFFFu}) {  // ids n·span apart at most (0: all of 0 .. n − 1)
            std::vector<std::uint32_t> ids;
            if (span == 0) {
                ids.resize(n);
                for (std::size_t i = 0; i < n; ++i) ids[i] = static_cast<std::uint32_t>(i);
            } else {
                std::uniform_int_distribution<std::uint32_t> any(0, span == 0xFFFFFFFFu ? span : static_cast<std::uint32_t>(std::min<std::uint64_t>(0xFFFFFFFFu, std::uint64_t{span} * n)));
                std::vector<std::uint32_t> drawn;
                while (drawn.size() < n) {
                    drawn.push_back(any(rng));
                    if (drawn.size() == n) {
                        std::sort(drawn.begin(), drawn.end());
                        drawn.erase(std::unique(drawn.begin(), drawn.end()), drawn.end());
                    }
                }
                ids = drawn;
            }
            std::shuffle(ids.begin(), ids.end(), rng);
            std::vector<Entry> v;
            for (std::uint32_t id : ids) v.push_back({id, static_cast<float>(id % 977) * 0.5f});
            std::vector<Entry> want = v;
            std::sort(want.begin(), want.end(), [](const Entry& a, const Entry& b) { return a.id < b.id; });
            const std::string what = std::to_string(n) + " ids, span " + std::to_string(span);
            std::vector<Entry> sorted = v;
            cuda::sort_by_id(sorted);
            ASSERT_EQ(sorted.size(), want.size()) << what;
            for (std::size_t i = 0; i < n; ++i) ASSERT_TRUE(sorted[i].id == want[i].id && sorted[i].score == want[i].score) << what << ", rank " << i;
            for (const std::size_t k : {std::size_t{0}, std::size_t{1}, std::size_t{80}, n / 2, n}) {
                std::vector<std::uint32_t> ranks(n);
                for (std::size_t i = 0; i < n; ++i) ranks[i] = static_cast<std::uint32_t>(i);
                std::shuffle(ranks.begin(), ranks.end(), rng);
                ranks.resize(std::min(k, n));
                if (n > 2) ranks.push_back(static_cast<std::uint32_t>(n - 1) == ranks.front() ? 0u : static_cast<std::uint32_t>(n - 1));  // the last rank too
                if (n > 2 && std::count(ranks.begin(), ranks.end(), ranks.back()) > 1) ranks.pop_back();
                const std::vector<Entry> got = cuda::at_id_ranks(v, ranks, want.empty() ? 0 : std::uint64_t{want.back().id} + 1 + span);
                ASSERT_EQ(got.size(), ranks.size()) << what << ", " << k << " ranks";
                for (std::size_t j = 0; j < ranks.size(); ++j)
                    ASSERT_TRUE(got[j].id == want[ranks[j]].id && got[j].score == want[ranks[j]].score)
                        << what << ", " << k << " ranks: rank " << ranks[j];
            }
        }
}

// KeepRanks: the bulk runner (CPU; the GPU's own making of kept detections is in gpu_test) and
// Detector::detect_batch keep exactly the ranks asked for, in the order asked, with the stats of
// the whole frame; chunks of many images and images alone on one detector alike.
TEST(BulkRunner, KeptRanksAreTheDetectionsAtThoseRanksInTheOrderAsked) {
    std::vector<GrayImage> images;
    for (int i = 0; i < 11; ++i) images.push_back(blobby_image(120 + 16 * (i % 3), 100 + 8 * (i % 2), 900u + static_cast<unsigned>(i)));
    const CascadeModel m = random_lbp_model(77, 40, 24, 24, images[0], 2);
    DetectParams p;
    p.stride = 2;
    p.scale_step = 1.2;
    // Every other detection, the last first; none of image 7's.
    const auto every_other_backwards = [](std::size_t frame, std::uint64_t n) {
        std::vector<std::uint32_t> ranks;
        if (frame != 7)
            for (std::uint64_t r = n; r-- > 0;)
                if (r % 2 == 0) ranks.push_back(static_cast<std::uint32_t>(r));
        return ranks;
    };
    CpuDetector plain(m, p);
    std::vector<DetectResult> want;
    std::size_t kept = 0;
    for (std::size_t i = 0; i < images.size(); ++i) {
        const DetectResult all = plain.detect(images[i].view());
        want.push_back(all);
        keep_ranks(want.back(), every_other_backwards(i, all.detections.size()));
        EXPECT_EQ(want.back().detections.size(), i == 7 ? 0u : (all.detections.size() + 1) / 2) << i;
        if (!want.back().detections.empty()) {
            EXPECT_EQ(want.back().detections.front(), all.detections[(all.detections.size() - 1) / 2 * 2]) << i;
        }
        kept += want.back().detections.size();
    }
    EXPECT_GT(kept, 0u);
    for (const double alone_megapixels : {0.0, 1e-9}) {
        BulkOptions o;
        o.backend = Backend::Cpu;
        o.alone_megapixels = alone_megapixels;
        BulkDetector bulk(m, p, o);
        std::vector<DetectResult> got;
        bulk.run(
            images.size(), [&](std::size_t i) { return BulkImage{images[i].view(), nullptr}; },
            [&](std::size_t, DetectResult&& r, const BulkImage&, double) { got.push_back(std::move(r)); }, {}, {}, {},
            every_other_backwards);
        ASSERT_EQ(got.size(), images.size());
        for (std::size_t i = 0; i < images.size(); ++i) {
            EXPECT_EQ(got[i].detections, want[i].detections) << i << (alone_megapixels > 0 ? ", alone" : "");
            EXPECT_EQ(got[i].stats, want[i].stats) << i;
        }
    }
    std::vector<ImageView> views;
    for (const GrayImage& im : images) views.push_back(im.view());
    const std::vector<DetectResult> batch = plain.detect_batch(views, 4, every_other_backwards);
    ASSERT_EQ(batch.size(), images.size());
    for (std::size_t i = 0; i < images.size(); ++i) EXPECT_EQ(batch[i].detections, want[i].detections) << i;
    // A rank past the end, or given twice, is the caller's error.
    DetectResult three{std::vector<Detection>(3), {}};
    EXPECT_THROW(keep_ranks(three, {0, 3}), std::out_of_range);
    EXPECT_THROW(keep_ranks(three, {1, 1}), std::invalid_argument);
    keep_ranks(three, {2, 0});
    EXPECT_EQ(three.detections.size(), 2u);
}

// The bulk runner loads the run's first image alone, to see its size, and then the rest of a
// first chunk of that size (not a chunk of the one image, which cost every bootstrapping pass on
// the GPU a round trip of its own); a pixel budget below two images keeps chunks of one.
TEST(BulkRunner, TheFirstChunkIsAsLargeAsTheFirstImageAllows) {
    std::vector<GrayImage> images;
    for (int i = 0; i < 23; ++i) images.push_back(blobby_image(96, 80, 300u + static_cast<unsigned>(i)));
    const CascadeModel m = random_lbp_model(78, 10, 24, 24, images[0], 2);
    DetectParams p;
    p.stride = 4;
    // Threads limited by global_control, as cascade --threads limits them: the runner sizes its
    // chunks by them, not by the machine's cores (16 on the GPU machine, 2 here).
    for (const std::size_t threads : {1u, 2u}) {
        tbb::global_control limit(tbb::global_control::max_allowed_parallelism, threads);
        for (const double megapixels : {64.0, 0.01}) {
            BulkOptions o;
            o.backend = Backend::Cpu;
            o.max_chunk_megapixels = megapixels;
            BulkDetector bulk(m, p, o);
            std::atomic<std::size_t> loads{0};
            std::vector<std::size_t> loaded_when_consumed;
            bulk.run(
                images.size(),
                [&](std::size_t i) {
                    ++loads;
                    return BulkImage{images[i].view(), nullptr};
                },
                [&](std::size_t, DetectResult&&, const BulkImage&, double) { loaded_when_consumed.push_back(loads.load()); });
            ASSERT_EQ(loaded_when_consumed.size(), images.size());
            // 8 images a worker thread (2: chunks of 16, the first one too); or one image a chunk.
            EXPECT_EQ(loaded_when_consumed.front(), megapixels > 1 ? 8 * threads : 1u) << megapixels << ", threads " << threads;
            EXPECT_EQ(loaded_when_consumed.back(), images.size()) << megapixels << ", threads " << threads;
        }
    }
}
