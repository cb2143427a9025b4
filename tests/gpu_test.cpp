// The CUDA backend against the CPU backend (CTest label gpu). Every test skips with a message
// where no CUDA device is present, as on CI; run them on the GPU machine (see runtime/README.md).
#include <gtest/gtest.h>

#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <random>
#if CASCADEKIT_TOOLS_CODECS
#include <opencv2/imgcodecs.hpp>
#endif

#include "cascadekit/io/pnm.hpp"

#include "cascadekit/features/integral_histogram.hpp"
#include "cascadekit/features/lbp.hpp"
#include "cascadekit/features/pyramid.hpp"
#include "cascadekit/io/model_file.hpp"
#include "cascadekit/runtime/bulk_detector.hpp"
#include "cascadekit/runtime/cpu_detector.hpp"
#include "cascadekit/runtime/cuda_detector.hpp"
#include "cascadekit/runtime/stages/hog_svm.hpp"
#include "cascadekit/runtime/fusion.hpp"
#include "runtime_support.hpp"
#include "test_support.hpp"
#include "trainer_support.hpp"

using namespace cascadekit;
using namespace cascadekit::test;
namespace fs = std::filesystem;

namespace {

#define REQUIRE_GPU()                                                                  \
    do {                                                                               \
        std::string why_;                                                              \
        if (!cuda_available(&why_)) GTEST_SKIP() << "no CUDA device here (" << why_ << "): GPU test skipped"; \
    } while (0)

// An RGB or gray buffer with the gray image's values in every channel but noise in the others, so
// the luma conversion is exercised.
struct Frame {
    std::vector<std::uint8_t> bytes;
    ImageView view;
};
Frame colour_frame(const GrayImage& g, int channels, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> u(0, 255);
    Frame f;
    const int stride = g.width * channels + 5;  // padded rows
    f.bytes.resize(static_cast<std::size_t>(stride) * g.height);
    for (int y = 0; y < g.height; ++y)
        for (int x = 0; x < g.width; ++x)
            for (int c = 0; c < channels; ++c)
                f.bytes[static_cast<std::size_t>(y) * stride + x * channels + c] =
                    c == 1 || channels == 1 ? g.at(x, y) : static_cast<std::uint8_t>(u(rng));
    f.view = {f.bytes.data(), g.width, g.height, stride, channels, ChannelOrder::RGB};
    return f;
}

// Three different blobby planes as an RGB frame, so that colour gradients (HogParams::channels)
// take each plane somewhere; the model's thresholds calibrated on it (calibrate_thresholds).
Frame rgb_frame(int w, int h, unsigned seed) {
    const Image rgb = merge_channels({blobby_image(w, h, seed), blobby_image(w, h, seed + 1), blobby_image(w, h, seed + 2)});
    Frame f;
    f.bytes = rgb.pixels;
    f.view = {f.bytes.data(), w, h, w * 3, 3, ChannelOrder::RGB};
    return f;
}
void calibrate_on(CascadeModel& m, const ImageView& view) {
    ColourPlanes planes;
    to_planes(view, planes);
    calibrate_thresholds(m, to_gray(view), m.hog.channels == GradientChannels::Colour ? &planes : nullptr);
}

struct Agreement {
    std::size_t windows = 0, same_decision = 0, bit_identical = 0, near_threshold_differences = 0;
};

// Per-window comparison of keep_rejected results: the decisions (stages passed) must agree except
// where the score is within 1e-4 of its threshold, on >= 99.9 % of windows.
Agreement compare_windows(const DetectResult& cpu, const DetectResult& gpu) {
    Agreement a;
    EXPECT_EQ(cpu.detections.size(), gpu.detections.size());
    const std::size_t n = std::min(cpu.detections.size(), gpu.detections.size());
    a.windows = n;
    for (std::size_t i = 0; i < n; ++i) {
        const Detection& c = cpu.detections[i];
        const Detection& g = gpu.detections[i];
        EXPECT_EQ(c.x, g.x);
        EXPECT_EQ(c.y, g.y);
        EXPECT_EQ(c.level, g.level);
        if (c.stages_passed == g.stages_passed) {
            ++a.same_decision;
            if (c.score == g.score) ++a.bit_identical;
            else EXPECT_NEAR(c.score, g.score, 1e-4) << "window " << i;
        } else {
            ++a.near_threshold_differences;
            // The window decided earlier by one backend has a score within 1e-4 of that threshold.
            const Detection& early = c.stages_passed < g.stages_passed ? c : g;
            EXPECT_LT(std::abs(early.score), 1e-4) << "window " << i << ": stages " << c.stages_passed << " vs "
                                                    << g.stages_passed;
        }
    }
    EXPECT_GE(static_cast<double>(a.same_decision), 0.999 * static_cast<double>(n));
    return a;
}

void expect_same_stats(const DetectStats& c, const DetectStats& g) {
    EXPECT_EQ(c.windows_scanned, g.windows_scanned);
    EXPECT_EQ(c.levels, g.levels);
    EXPECT_EQ(c.rejected_per_stage, g.rejected_per_stage);
    EXPECT_EQ(c.weak_evaluated, g.weak_evaluated);
}

DetectParams with_rejected(DetectParams p) {
    p.keep_rejected = true;
    return p;
}

CascadeModel load_shipped(const std::string& name) {
    return load_model((source_dir() / "models" / name).string());
}

// The first n PennFudan photos: PNG where this build decodes PNG, PPM copies otherwise (the small
// GPU-machine build reads PNM only; its data folder holds PPM conversions).
std::vector<fs::path> pennfudan_images(std::size_t n) {
    const fs::path dir = data_dir() / "PennFudanPed" / "PNGImages";
    std::vector<fs::path> out;
    if (!fs::is_directory(dir)) return out;
    for (const auto& e : fs::directory_iterator(dir))
        if (is_pnm_path(e.path()) || (CASCADEKIT_TOOLS_CODECS && e.path().extension() == ".png")) out.push_back(e.path());
    std::sort(out.begin(), out.end());
    out.resize(std::min(n, out.size()));
    return out;
}

// A photo as a BGR or RGB view; the second member owns the pixels.
std::pair<ImageView, std::shared_ptr<void>> load_photo(const fs::path& photo) {
#if CASCADEKIT_TOOLS_CODECS
    if (!is_pnm_path(photo)) {
        auto m = std::make_shared<cv::Mat>(cv::imread(photo.string(), cv::IMREAD_COLOR));
        if (m->empty()) throw std::runtime_error(photo.string() + ": cannot decode");
        return {ImageView{m->data, m->cols, m->rows, static_cast<std::ptrdiff_t>(m->step), 3, ChannelOrder::BGR}, m};
    }
#endif
    auto pnm = std::make_shared<PnmImage>(read_pnm(photo));
    return {pnm->view(), pnm};
}

// The GPU with `options` (and poisoned buffers) on one image gives `want`, the CPU's result:
// the same accepted windows and statistics.
void expect_gpu_gives(const CascadeModel& m, const DetectParams& p, const ImageView& image, CudaOptions options,
                      const DetectResult& want, const std::string& what) {
    SCOPED_TRACE(what);
    options.poison = true;
    CudaDetector gpu(m, p, options);
    const DetectResult r = gpu.detect(image);
    EXPECT_EQ(r.detections, want.detections);
    expect_same_stats(r.stats, want.stats);
}

// The GPU with `options` against the CPU's result with rejected windows (with_rejected(p)): every
// window's decision and score the same bits, and the same statistics.
void expect_gpu_windows(const CascadeModel& m, const DetectParams& p, const ImageView& image, CudaOptions options,
                        const DetectResult& cpu_all, const std::string& what) {
    SCOPED_TRACE(what);
    options.poison = true;
    CudaDetector gpu(m, with_rejected(p), options);
    const DetectResult g = gpu.detect(image);
    expect_same_stats(cpu_all.stats, g.stats);
    const Agreement a = compare_windows(cpu_all, g);
    std::printf("  %s: %zu windows, %zu same decision, %zu bit-identical scores, %zu differences near a threshold\n", what.c_str(),
                a.windows, a.same_decision, a.bit_identical, a.near_threshold_differences);
    EXPECT_EQ(a.bit_identical, cpu_all.detections.size());
}

// CPU and GPU on one image with one model: per window (keep_rejected), then accepted windows and
// fused detections.
void compare_backends(const CascadeModel& model, const DetectParams& params, const ImageView& image, const std::string& what,
                      CudaOptions options = {}) {
    SCOPED_TRACE(what);
    options.poison = true;
    CpuDetector cpu(model, with_rejected(params));
    CudaDetector gpu(model, with_rejected(params), options);
    const DetectResult c = cpu.detect(image);
    const DetectResult g = gpu.detect(image);
    expect_same_stats(c.stats, g.stats);
    const Agreement a = compare_windows(c, g);
    std::printf("  %s: %zu windows, %zu same decision, %zu bit-identical scores, %zu differences near a threshold\n",
                what.c_str(), a.windows, a.same_decision, a.bit_identical, a.near_threshold_differences);

    CpuDetector cpu_acc(model, params);
    CudaDetector gpu_acc(model, params, options);
    const DetectResult ca = cpu_acc.detect(image);
    const DetectResult ga = gpu_acc.detect(image);
    expect_same_stats(ca.stats, ga.stats);
    if (a.near_threshold_differences == 0) {
        EXPECT_EQ(ca.detections, ga.detections);
        if (ca.detections.size() > 5000) return;  // mean-shift fusion is quadratic; equal inputs fuse equally
        const FusionParams fp;
        EXPECT_EQ(fuse(ca.detections, model.window_width, model.window_height, fp),
                  fuse(ga.detections, model.window_width, model.window_height, fp));
    }
}

// The CPU's pyramid levels of a gray frame for a window of ww × wh under p (each level's plan and
// its resampled image), as the detectors build them.
std::vector<std::pair<PyramidLevel, GrayImage>> cpu_levels(const GrayImage& gray, int ww, int wh, const DetectParams& p) {
    Octaves octaves;
    octaves.reset(gray);
    std::vector<std::pair<PyramidLevel, GrayImage>> out;
    for (const PyramidLevel& pl : plan_pyramid(gray.width, gray.height, ww, wh, p.scale_step, p.min_scale, p.max_scale, p.level_pad)) {
        out.emplace_back(pl, GrayImage{});
        resample_level(octaves, pl, out.back().second);
    }
    return out;
}

// Entries of a GPU buffer that differ from the CPU's (same length).
std::size_t differences(const std::vector<std::uint32_t>& gpu, const std::uint32_t* cpu) {
    std::size_t n = 0;
    for (std::size_t i = 0; i < gpu.size(); ++i) n += gpu[i] != cpu[i];
    return n;
}

}  // namespace

TEST(GpuFeatures, GrayAndIntegralHistogramsEqualTheCpusOnOddSizes) {
    REQUIRE_GPU();
    struct Case {
        int w, h, channels;
        double min_scale;
        OrientationVotes votes = OrientationVotes::Nearest;
    };
    // Every integer gradient: a 3x3 cell per (gx, gy) whose centre's four neighbours are its own,
    // so level 0's integral histogram holds each gradient's bin and magnitude (1533x1533).
    GrayImage every(3 * 511, 3 * 511);
    std::fill(every.pixels.begin(), every.pixels.end(), std::uint8_t{0});
    for (int gy = -255; gy <= 255; ++gy)
        for (int gx = -255; gx <= 255; ++gx) {
            const int cx = 3 * (gx + 255) + 1, cy = 3 * (gy + 255) + 1;
            every.at(cx - 1, cy) = static_cast<std::uint8_t>(std::max(0, -gx));
            every.at(cx + 1, cy) = static_cast<std::uint8_t>(std::max(0, -gx) + gx);
            every.at(cx, cy - 1) = static_cast<std::uint8_t>(std::max(0, -gy));
            every.at(cx, cy + 1) = static_cast<std::uint8_t>(std::max(0, -gy) + gy);
        }
    // Split votes (HogParams::votes) too: the every-gradient image and a padded one.
    for (const Case& k : {Case{97, 131, 1, 1.0}, Case{333, 257, 3, 0.8}, Case{641, 479, 4, 1.0}, Case{1920, 1080, 3, 1.0},
                          Case{every.width, every.height, 1, 1.0}, Case{every.width, every.height, 1, 1.0, OrientationVotes::Split},
                          Case{333, 257, 3, 0.8, OrientationVotes::Split}}) {
        SCOPED_TRACE(std::to_string(k.w) + "x" + std::to_string(k.h) + "x" + std::to_string(k.channels) + " votes " +
                     std::string(kOrientationVotesNames.name(k.votes)));
        const GrayImage src = k.w == every.width ? every : random_image(k.w, k.h, static_cast<unsigned>(k.w));
        const Frame f = colour_frame(src, k.channels, 7);
        // Padded rows, except the 2.3 MB gradient image: contiguous rows (the staging copy takes
        // bands of rows in parallel either way, from 1 MiB on).
        const ImageView view = k.w == every.width ? ImageView{every.pixels.data(), every.width, every.height, every.width, 1, ChannelOrder::RGB}
                                                  : f.view;
        DetectParams p;
        p.scale_step = 1.1;
        p.min_scale = k.min_scale;
        p.level_pad = k.w == 333 || k.w == 641 ? 16 : 0;  // padded levels: the border from the same tables
        CascadeModel bars = bar_model();
        bars.hog.votes = k.votes;
        ASSERT_EQ(hog_block_grid(bars) % 4, 0);  // so the GPU may keep its tables on a 4-px grid at stride 8
        // Every pixel's point, then the grid's (the row pass's cells: CudaOptions::grid_histograms;
        // a 2-px grid where the stride is 6).
        for (const int grid : {1, 2, 4}) {
            SCOPED_TRACE("grid " + std::to_string(grid));
            p.stride = grid == 2 ? 6 : 8;
            CudaOptions o;
            o.poison = true;
            o.grid_histograms = grid > 1;
            CudaDetector gpu(bars, p, o);
            gpu.detect(view);
            const GrayImage gray = to_gray(view);
            EXPECT_EQ(gpu.last_gray(), gray.pixels);
            const auto levels = cpu_levels(gray, 64, 128, p);
            ASSERT_FALSE(levels.empty());
            for (std::size_t li = 0; li < levels.size(); ++li) {
                IntegralHistogram ih;
                ih.compute(levels[li].second, bars.hog.gradient(), grid);
                int w = 0, h = 0;
                const std::vector<std::uint32_t> g = gpu.level_integral_histogram(static_cast<int>(li), w, h);
                ASSERT_EQ(std::pair(w, h), std::pair(levels[li].first.width, levels[li].first.height));
                ASSERT_EQ(g.size(), ih.row_stride() * (static_cast<std::size_t>(h / grid) + 1));
                EXPECT_EQ(differences(g, ih.point(0, 0)), 0u) << "level " << li;
            }
        }
    }
}

TEST(GpuFeatures, GrayIntegralImagesEqualTheCpusOnEveryLevel) {
    REQUIRE_GPU();
    struct Case {
        int w, h, channels;
        double min_scale, step;
    };
    // The last: eight octaves, more than launch_octaves' one kernel makes (kFusedHalvings).
    for (const Case& k : {Case{97, 131, 1, 1.0, 1.1}, Case{333, 257, 3, 0.7, 1.0905077}, Case{1920, 1080, 3, 1.0, 1.0905077},
                          Case{641, 479, 4, 1.0, 1.2}, Case{3101, 3089, 1, 1.0, 2.0}}) {
        SCOPED_TRACE(std::to_string(k.w) + "x" + std::to_string(k.h) + "x" + std::to_string(k.channels));
        const GrayImage src = random_image(k.w, k.h, static_cast<unsigned>(k.w + k.h));
        const Frame f = colour_frame(src, k.channels, 11);
        DetectParams p;
        p.scale_step = k.step;
        p.min_scale = k.min_scale;
        p.stride = 2;
        const CascadeModel m = random_lbp_model(5, 3, 24, 24, src, 4);
        // The frame staged in gray on the host (CudaOptions::host_gray, default) or converted by a
        // kernel; integral images in uint32 points or modulo 2^16 (gray_integral_16, the default
        // for a 24×24 window's cells): then equal to the CPU's modulo 2^16.
        for (const bool host_gray : {true, false})
        for (const bool narrow : {true, false}) {
            SCOPED_TRACE(std::string(host_gray ? "gray staged on the host" : "gray converted on the device") +
                         (narrow ? ", 16-bit points" : ", 32-bit points"));
            CudaDetector gpu(m, p, CudaOptions{.host_gray = host_gray, .gray_integral_16 = narrow, .poison = true});
            EXPECT_EQ(gpu.gray_integral_16(), narrow);
            gpu.detect(f.view);
            const GrayImage gray = to_gray(f.view);
            EXPECT_EQ(gpu.last_gray(), gray.pixels);
            const auto levels = cpu_levels(gray, 24, 24, p);
            ASSERT_FALSE(levels.empty());
            if (k.w > 3000) {
                ASSERT_EQ(levels.back().first.octave, 7);
            }
            for (std::size_t li = 0; li < levels.size(); ++li) {
                IntegralImage ii;
                ii.compute(levels[li].second);
                int w = 0, h = 0;
                const std::vector<std::uint32_t> g = gpu.level_integral_image(static_cast<int>(li), w, h);
                ASSERT_EQ(std::pair(w, h), std::pair(levels[li].first.width, levels[li].first.height));
                ASSERT_EQ(g.size(), ii.row_stride() * (static_cast<std::size_t>(h) + 1));
                std::vector<std::uint32_t> want(ii.data(), ii.data() + g.size());
                if (narrow)
                    for (std::uint32_t& v : want) v &= 0xffffu;
                EXPECT_EQ(differences(g, want.data()), 0u) << "level " << li;
            }
        }
    }
}

// Random WaldBoost sequences of 1 to 2048 weak classifiers, cells of every size, on synthetic
// images and photos: every window's decision, score and weak-classifier count as on the CPU, with
// each way of compacting survivors and with compaction boundaries that cut the sequence anywhere.
TEST(GpuDetector, RandomWaldBoostModelsMatchTheCpuWindowByWindow) {
    REQUIRE_GPU();
    struct Case {
        int weak, ww, wh, stride;
        double step;
    };
    int run = 0;
    for (const Case& k : {Case{1, 24, 24, 1, 1.1}, Case{8, 24, 24, 2, 1.0905077}, Case{9, 26, 26, 1, 1.2},
                          Case{97, 24, 24, 2, 1.1}, Case{600, 64, 128, 4, 1.1}, Case{2048, 24, 24, 2, 1.0905077}}) {
        const GrayImage img = blobby_image(353 + 31 * run, 287 + 17 * run, 40u + static_cast<unsigned>(run));
        // Thresholds calibrated on the image the model runs on (a model calibrated on another
        // image may let most windows run the whole sequence: minutes on the CPU for 2048).
        auto model_for = [&](const GrayImage& g) {
            return random_lbp_model(70u + static_cast<unsigned>(run), k.weak, k.ww, k.wh, g, k.stride);
        };
        const CascadeModel m = model_for(img);
        DetectParams p;
        p.stride = k.stride;
        p.scale_step = k.step;
        const std::string what = std::to_string(k.weak) + " weak classifiers, " + std::to_string(k.ww) + "x" +
                                 std::to_string(k.wh) + " window, stride " + std::to_string(k.stride);
        const Frame f = colour_frame(img, 3, 5);
        compare_backends(m, p, f.view, what + " synthetic");
        // The same from uint32 gray integral images (by default modulo 2^16 where every cell has
        // at most 128 pixels: here every window but 64×128), untiled and tiled (below).
        compare_backends(m, p, f.view, what + " synthetic, 32-bit gray integrals", CudaOptions{.gray_integral_16 = false});
        for (const fs::path& photo : pennfudan_images(1)) {
            const auto [view, keep] = load_photo(photo);
            compare_backends(model_for(to_gray(view)), p, view, what + " " + photo.filename().string());
        }
        // Other compactions, boundaries, block sizes and thread mappings: the same accepted windows
        // and statistics.
        CpuDetector cpu(m, p);
        const DetectResult want = cpu.detect(f.view);
        for (Compaction c : {Compaction::BlockAtomics, Compaction::CubSelect})
            for (const std::vector<int>& cuts : {std::vector<int>{}, std::vector<int>{2, 3, 5, 8, 13, 1000}}) {
                // Other block sizes; a thread per window throughout, or a warp per window throughout.
                const bool block = c == Compaction::BlockAtomics;
                expect_gpu_gives(m, p, f.view,
                                 CudaOptions{.compaction = c, .lbp_boundaries = cuts, .lbp_block_threads = block ? 64 : 512,
                                             .lbp_warp_from = block ? 1 << 30 : 0},
                                 want, what + ", " + std::string(kCompactionNames.name(c)) + ", " + std::to_string(cuts.size()) + " boundaries");
            }
        // The untiled first launch (the default) with 1, 2, 4 (default) or 8 windows a thread, or a
        // thread per window (0), at every stride, under each compaction, its part one weak
        // classifier long or longer (3, or the whole sequence); and the tiled one: every window,
        // rejected ones included, bit for bit.
        struct FirstLaunch {
            int rows;
            Compaction c;
            std::vector<int> cuts;
            bool tiled = false;
        };
        const DetectResult want_all = CpuDetector(m, with_rejected(p)).detect(f.view);
        expect_gpu_windows(m, p, f.view, CudaOptions{.lbp_tiled = true, .lbp_tiled_from_stride = 1, .gray_integral_16 = false}, want_all,
                           what + ", first launch tiled, 32-bit gray integrals");
        std::vector<FirstLaunch> firsts;
        for (int rows : {0, 1, 2, 4, 8})
            for (const std::vector<int>& cuts : {std::vector<int>{1, 64}, std::vector<int>{3}}) firsts.push_back({rows, Compaction::BlockAtomics, cuts});
        for (int rows : {4, 8}) {
            firsts.push_back({rows, Compaction::WarpAtomics, {3}});
            firsts.push_back({rows, Compaction::CubSelect, {1, 64}});
        }
        firsts.push_back({4, Compaction::BlockAtomics, {}});
        firsts.push_back({4, Compaction::WarpAtomics, {2, 7, 64}, true});
        for (const FirstLaunch& t : firsts)
            expect_gpu_windows(m, p, f.view,
                               CudaOptions{.compaction = t.c, .lbp_boundaries = t.cuts, .lbp_tiled = t.tiled, .lbp_tiled_from_stride = 1,
                                           .lbp_first_rows = t.rows},
                               want_all,
                               what + ", first launch " + (t.tiled ? std::string("tiled") : std::to_string(t.rows) + " rows a thread") + ", " +
                                   std::string(kCompactionNames.name(t.c)) + ", first part " +
                                   std::to_string(t.cuts.empty() ? k.weak : std::min(t.cuts[0], k.weak)));
        // The warp parts' rounds: up to 1, 2, 4 or 8 look-ups a lane (2 from the 64th is the
        // default, above), a warp per window from the first weak classifier on and from the 64th.
        for (int round : {1, 2, 4, 8})
            for (int from : {0, 64}) {
                expect_gpu_gives(m, p, f.view, CudaOptions{.lbp_warp_from = from, .lbp_warp_round = round, .lbp_block_from = 1 << 30}, want,
                                 what + ", rounds of " + std::to_string(round) + " look-ups a lane from " + std::to_string(from));
            }

        // In-block cuts in the one-thread-per-window parts (untiled), under block and warp atomics:
        // at the first weak classifiers, inside later parts, and (a thread per window throughout)
        // deep in long sequences.
        struct PartCuts {
            Compaction c;
            std::vector<int> cuts;
            int warp_from;
        };
        for (const PartCuts& t : {PartCuts{Compaction::BlockAtomics, {1, 2, 3}, 64}, PartCuts{Compaction::WarpAtomics, {2, 5, 20, 40}, 64},
                                  PartCuts{Compaction::BlockAtomics, {2, 8, 24, 100, 300, 900}, 1 << 30}}) {
            expect_gpu_gives(m, p, f.view,
                             CudaOptions{.compaction = t.c, .lbp_boundaries = {4, 16, 64, 256}, .lbp_warp_from = t.warp_from,
                                         .lbp_tiled = false, .lbp_part_cuts = t.cuts},
                             want, what + ", " + std::string(kCompactionNames.name(t.c)) + ", " + std::to_string(t.cuts.size()) + " in-block cuts");
        }
        // The tiled first launch (a block per 32×8 windows, their integral-image patch in shared
        // memory) with in-block compaction after any weak classifier, under each compaction; and
        // the untiled first launch.
        struct Tiling {
            bool tiled;
            Compaction c;
            std::vector<int> boundaries, cuts;
        };
        for (const Tiling& t : {Tiling{true, Compaction::BlockAtomics, {}, {1, 2, 3, 5, 8, 13}},
                                Tiling{true, Compaction::CubSelect, {21}, {2, 7}}, Tiling{true, Compaction::WarpAtomics, {64}, {1, 4, 16}},
                                Tiling{false, Compaction::BlockAtomics, {4, 16, 64, 256}, {4}}}) {
            expect_gpu_gives(m, p, f.view,
                             CudaOptions{.compaction = t.c, .lbp_boundaries = t.boundaries, .lbp_tiled = t.tiled,
                                         .lbp_tiled_from_stride = 1, .lbp_tile_cuts = t.cuts},
                             want, what + ", " + std::string(kCompactionNames.name(t.c)) + (t.tiled ? ", tiled, " : ", untiled, ") +
                                       std::to_string(t.cuts.size()) + " cuts");
        }
        ++run;
    }
}

// Gray integral images modulo 2^16 (CudaOptions::gray_integral_16) at their limit: cells of up to
// 128 pixels (8×16, 16×8, 11×11, …) over a frame of 0 and 255 blocks, where a full cell's sum
// (32,640) against an empty centre is the largest difference the 16-bit codes must still sign
// right. Every window's decision and score equals the CPU's; a model with one cell of 129 pixels
// or more keeps uint32 points.
TEST(GpuDetector, SixteenBitGrayIntegralsGiveTheCpusCodesAtTheirLimit) {
    REQUIRE_GPU();
    GrayImage img = random_image(331, 263, 17u);
    std::mt19937 rng(5);
    for (int by = 0; by < img.height; by += 8)
        for (int bx = 0; bx < img.width; bx += 8) {
            const std::uint8_t v = rng() % 2 ? 255 : 0;  // 8×8 blocks of 0 or 255, one in 7 left random
            if (rng() % 7 == 0) continue;
            for (int y = by; y < std::min(by + 8, img.height); ++y)
                for (int x = bx; x < std::min(bx + 8, img.width); ++x) img.pixels[static_cast<std::size_t>(y) * img.width + x] = v;
        }
    const Frame f = colour_frame(img, 3, 7);
    DetectParams p;
    p.stride = 1;
    p.scale_step = 1.25;
    CascadeModel m = random_lbp_model(31, 200, 48, 48, img, 1, 128);
    // Cells of exactly 128 pixels, in both orientations, among the first weak classifiers.
    auto& weak = m.stages.front().as<WaldBoostLbpStage>().weak;
    weak[0].cell = {3, 0, 8, 16};
    weak[1].cell = {0, 0, 16, 8};
    weak[3].cell = {24, 24, 8, 8};
    int biggest = 0;
    for (const LbpWeakClassifier& c : weak) biggest = std::max(biggest, c.cell.w * c.cell.h);
    EXPECT_EQ(biggest, 128);
    ASSERT_TRUE(CudaDetector(m, p).gray_integral_16());
    const DetectResult want_all = CpuDetector(m, with_rejected(p)).detect(f.view);
    for (const int rows : {0, 4})
        expect_gpu_windows(m, p, f.view, CudaOptions{.lbp_first_rows = rows}, want_all,
                           "cells up to 128 pixels, 16-bit gray integrals, " + std::to_string(rows) + " rows a thread");
    expect_gpu_windows(m, p, f.view, CudaOptions{.lbp_tiled = true, .lbp_tiled_from_stride = 1}, want_all,
                       "cells up to 128 pixels, 16-bit gray integrals, tiled");
    expect_gpu_windows(m, p, f.view, CudaOptions{.lbp_warp_from = 0}, want_all, "cells up to 128 pixels, 16-bit, a warp per window");
    expect_gpu_windows(m, p, f.view, CudaOptions{.lbp_block_from = 0}, want_all, "cells up to 128 pixels, 16-bit, a block per window");
    // One cell of 130 pixels: uint32 points, and still the CPU's.
    weak[7].cell = {1, 2, 13, 10};
    ASSERT_FALSE(CudaDetector(m, p).gray_integral_16());
    expect_gpu_windows(m, p, f.view, CudaOptions{}, CpuDetector(m, with_rejected(p)).detect(f.view),
                       "a cell of 130 pixels, 32-bit gray integrals");
}

// Detectors built one after another take the slots (streams and buffers) of those gone, as the
// trainer's bootstrapping passes do: a HoG cascade and a WaldBoost sequence in turn, on frames of
// the sizes their predecessors served and on larger ones, each give the CPU's results.
TEST(GpuDetector, DetectorsOnTheSlotsOfEarlierOnesMatchTheCpu) {
    REQUIRE_GPU();
    const CascadeModel lbp = random_lbp_model(41, 300, 24, 24, blobby_image(200, 160, 11), 2);
    DetectParams lbp_params;
    lbp_params.stride = 2;
    lbp_params.scale_step = 1.2;
    std::size_t compared = 0, found = 0;
    for (int round = 0; round < 3; ++round)
        for (const bool hog : {true, false}) {
            std::vector<GrayImage> images;
            for (int i = 0; i < 6; ++i) {
                const int w = 200 + 40 * round * (i % 2), h = 160 + 24 * round;
                images.push_back(blobby_image(i % 3 ? w : h, i % 3 ? h : w, 500 + 10 * round + i));
                draw_bar(images.back(), 8 * i, 0, 1.0);
            }
            std::vector<ImageView> views;
            for (const GrayImage& im : images) views.push_back(im.view());
            const CascadeModel& m = hog ? bar_model() : lbp;
            const DetectParams p = hog ? DetectParams{} : lbp_params;
            CudaDetector gpu(m, p);
            CpuDetector cpu(m, p);
            const std::vector<DetectResult> batch = gpu.detect_batch(views, 4);
            ASSERT_EQ(batch.size(), views.size());
            for (std::size_t i = 0; i < views.size(); ++i) {
                const DetectResult want = cpu.detect(views[i]);
                EXPECT_EQ(batch[i].detections, want.detections) << "round " << round << (hog ? ", HoG" : ", LBP") << ", frame " << i;
                EXPECT_EQ(batch[i].stats, want.stats) << "round " << round << (hog ? ", HoG" : ", LBP") << ", frame " << i;
                ++compared;
                found += want.detections.size();
            }
        }
    EXPECT_EQ(compared, 36u);
    EXPECT_GT(found, 0u);
}

// As in the trainer's bootstrapping: a new detector for every pass, its sequence longer, the same
// window and scan. Its slots come from the pool still prepared for their frame size (no pyramid
// planned, no table uploaded) and their graphs are updated with the new sequence's kernel
// arguments. A sequence with fewer launches, or another stride, prepares again. Every detector
// gives the CPU's detections on frames of one size, then of two in mixed order.
TEST(GpuDetector, NextDetectorsOfTheSameScanKeepTheSlotsPreparation) {
    REQUIRE_GPU();
    std::vector<GrayImage> one, two;
    for (int i = 0; i < 16; ++i) {
        one.push_back(blobby_image(176, 144, 700u + static_cast<unsigned>(i)));
        two.push_back(blobby_image(i % 3 ? 176 : 144, i % 3 ? 144 : 176, 800u + static_cast<unsigned>(i)));
        draw_bar(two.back(), 4 * i, 0, 1.0);
    }
    std::vector<ImageView> views_one, views_two;
    for (const GrayImage& im : one) views_one.push_back(im.view());
    for (const GrayImage& im : two) views_two.push_back(im.view());
    DetectParams p;
    p.stride = 2;
    p.scale_step = 1.2;
    // First: the pool's slots come from earlier tests. Same: the window, stride and launches of the
    // pass before. Launches: another number of launches than the pass before (other graph nodes).
    // Stride: another stride (the same nodes, other arguments).
    enum class Scan { First, Same, Launches, Stride };
    struct Pass {
        int weak;
        int stride;
        Scan scan;
    };
    const Pass passes[] = {{70, 2, Scan::First},    {100, 2, Scan::Same}, {300, 2, Scan::Same},
                           {30, 2, Scan::Launches}, {40, 2, Scan::Same},  {40, 4, Scan::Stride}};
    std::size_t compared = 0, found = 0;
    for (const Pass& pass : passes) {
        const std::string what = std::to_string(pass.weak) + " weak classifiers, stride " + std::to_string(pass.stride);
        const CascadeModel m = random_lbp_model(60u + static_cast<unsigned>(pass.weak), pass.weak, 24, 24, one[0], 2);
        p.stride = pass.stride;
        CudaDetector gpu(m, p);
        CpuDetector cpu(m, p);
        const std::vector<DetectResult> batch = gpu.detect_batch(views_one, 8);
        const CudaSlotWork work = gpu.slot_work();
        if (pass.scan == Scan::Same) {
            // The pass before left at least two slots of each host thread prepared for this size
            // (a thread alternates between two at least), with graphs of its sequence.
            EXPECT_EQ(work.prepared, 0u) << what;
            EXPECT_EQ(work.graphs_instantiated, 0u) << what;
            EXPECT_GE(work.graphs_updated, 4u) << what;
        } else if (pass.scan != Scan::First) {
            // Every slot was prepared for another scan: each of the 8 is prepared once. Its graph
            // is instantiated anew where the launches differ, else updated.
            EXPECT_EQ(work.prepared, 8u) << what;
            EXPECT_EQ(work.graphs_instantiated, pass.scan == Scan::Launches ? 8u : 0u) << what;
            EXPECT_EQ(work.graphs_updated, pass.scan == Scan::Launches ? 0u : 8u) << what;
        }
        std::vector<DetectResult> mixed = gpu.detect_batch(views_two, 8);
        ASSERT_EQ(batch.size(), views_one.size());
        ASSERT_EQ(mixed.size(), views_two.size());
        for (std::size_t i = 0; i < views_one.size(); ++i) {
            const DetectResult want = cpu.detect(views_one[i]), want_mixed = cpu.detect(views_two[i]);
            EXPECT_EQ(batch[i].detections, want.detections) << what << ", frame " << i;
            EXPECT_EQ(batch[i].stats, want.stats) << what << ", frame " << i;
            EXPECT_EQ(mixed[i].detections, want_mixed.detections) << what << ", mixed sizes, frame " << i;
            EXPECT_EQ(mixed[i].stats, want_mixed.stats) << what << ", mixed sizes, frame " << i;
            compared += 2;
            found += want.detections.size() + want_mixed.detections.size();
        }
        // The next pass's frames of the first size find every slot prepared for it again.
        gpu.detect_batch(views_one, 8);
    }
    EXPECT_EQ(compared, 6u * 32u);
    EXPECT_GT(found, 0u);
}

// The block-per-window parts (CudaOptions::lbp_block_from; by default from weak classifier 256,
// where the default boundaries start no part): from the
// first weak classifier on, from the 64th and from the 256th, under each compaction, on random
// sequences of 1 to 2048 weak classifiers (rounds of 32 to 256 look-ups, windows rejected inside
// a round, and windows that run to the end). Small images: a test that compute-sanitizer's
// racecheck can run.
TEST(GpuDetector, BlockPerWindowPartsMatchTheCpu) {
    REQUIRE_GPU();
    int run = 0;
    for (int weak : {1, 300, 2048}) {
        const GrayImage img = blobby_image(181 + 13 * run, 149 + 7 * run, 90u + static_cast<unsigned>(run));
        const CascadeModel m = random_lbp_model(95u + static_cast<unsigned>(run), weak, 24, 24, img, 2);
        DetectParams p;
        p.stride = 2;
        p.scale_step = 1.2;
        const Frame f = colour_frame(img, 3, 5);
        const std::string what = std::to_string(weak) + " weak classifiers";
        compare_backends(m, p, f.view, what + ", a block per window from 0", CudaOptions{.lbp_block_from = 0});
        CpuDetector cpu(m, p);
        const DetectResult want = cpu.detect(f.view);
        for (Compaction c : {Compaction::BlockAtomics, Compaction::WarpAtomics, Compaction::CubSelect})
            for (int from : {0, 64, 256}) {
                expect_gpu_gives(m, p, f.view, CudaOptions{.compaction = c, .lbp_block_from = from}, want,
                                 what + ", a block per window from " + std::to_string(from) + ", " + std::string(kCompactionNames.name(c)));
            }
        ++run;
    }
}

// Hybrids (an LBP prefix, then HoG stages): the HoG stages from every level's integral histograms
// and from the survivors' blocks summed over gradient planes give the CPU's decisions and scores.
TEST(GpuDetector, HybridModelsMatchTheCpuWithBothWaysOfBuildingHogBlocks) {
    REQUIRE_GPU();
    int run = 0;
    for (int learners : {3, 40}) {
        // Stages 2 and 4 nested (HogSvmStage::carry): their margins add a share of the running score.
        CascadeModel m = nest_stages(random_model(300u + static_cast<unsigned>(run), 4, learners, 6));
        if (learners == 40) m.hog.gamma = GrayGamma::Sqrt;  // square-root gray levels for the HoG planes
        if (learners == 3) m.hog.votes = OrientationVotes::Split;  // orientation votes split between two bins
        if (learners == 40) m.hog.channels = GradientChannels::Colour;  // gradients from the strongest colour plane
        const Frame f = rgb_frame(401 + 29 * run, 333 + 7 * run, 60u + static_cast<unsigned>(run));
        calibrate_on(m, f.view);
        DetectParams p;  // a sparse scan: the random prefix rejects little, and racecheck runs this test
        p.stride = 8;
        p.scale_step = 1.2;
        for (PrefixPlanes planes : {PrefixPlanes::SurvivorBlocks, PrefixPlanes::EveryLevel}) {
            const std::string what = "nested hybrid " + std::to_string(learners) + " learners a stage, votes " +
                                     std::string(kOrientationVotesNames.name(m.hog.votes)) + ", " +
                                     std::string(kGradientChannelsNames.name(m.hog.channels)) + ", " +
                                     (planes == PrefixPlanes::EveryLevel ? "integral histograms" : "survivor blocks");
            compare_backends(m, p, f.view, what + " synthetic", CudaOptions{.prefix_planes = planes});
            for (const fs::path& photo : pennfudan_images(1)) {
                const auto [view, keep] = load_photo(photo);
                compare_backends(m, p, view, what + " " + photo.filename().string(), CudaOptions{.prefix_planes = planes});
            }
        }
        // The last HoG stages as one launch (CudaOptions::hog_tail_from; the default is 1, above):
        // from the second or third, or never; under each compaction (CubSelect: never fused).
        for (int from : {2, 3, -1})
            for (Compaction c : {Compaction::BlockAtomics, Compaction::WarpAtomics, Compaction::CubSelect}) {
                const std::string what = "hybrid " + std::to_string(learners) + " learners a stage, tail from " +
                                         std::to_string(from) + ", " + std::string(kCompactionNames.name(c));
                compare_backends(m, p, f.view, what + " synthetic", CudaOptions{.compaction = c, .hog_tail_from = from});
                for (const fs::path& photo : pennfudan_images(1)) {
                    const auto [view, keep] = load_photo(photo);
                    compare_backends(m, p, view, what + " " + photo.filename().string(),
                                     CudaOptions{.compaction = c, .hog_tail_from = from});
                }
            }
        ++run;
    }
    // Blocks wider than the plane kernels' kPlaneThreads (256) threads, in a 320-wide window: each
    // thread then sums more than one column of a block.
    CascadeModel m = random_model(333u, 3, 6, 6);
    m.window_width = 320;
    const Rect wide[] = {{0, 0, 320, 128}, {8, 6, 300, 40}, {2, 60, 258, 64}};
    for (Stage& s : m.stages)
        if (s.kind() == HogSvmStage::kKind) {
            auto& learners = s.as<HogSvmStage>().learners;
            for (std::size_t i = 0; i < learners.size(); i += 2) learners[i].block = wide[i / 2 % 3];
        }
    const Frame f = rgb_frame(517, 311, 77u);
    calibrate_on(m, f.view);
    DetectParams p;
    p.stride = 4;
    p.scale_step = 1.2;
    compare_backends(m, p, f.view, "hybrid, blocks up to 320 wide, survivor blocks", CudaOptions{.prefix_planes = PrefixPlanes::SurvivorBlocks});
}

TEST(GpuDetector, RandomModelsMatchTheCpuWindowByWindow) {
    REQUIRE_GPU();
    int run = 0;
    for (BlockNorm norm : {BlockNorm::L2, BlockNorm::L2Hys, BlockNorm::L1Sqrt})
        for (int learners : {3, 40}) {  // thread-per-window and warp-per-window stages
            CascadeModel m = random_model(100u + static_cast<unsigned>(run), 4, learners, 0);
            if (run >= 3) m = nest_stages(m);  // stages 2 (and 4) nested: thread-, warp- and tail-summed stages
            m.hog.norm = norm;
            if (run % 2 == 1) m.hog.gamma = GrayGamma::Sqrt;  // square-root gray levels before the gradients
            if (run == 2 || run == 5) m.hog.votes = OrientationVotes::Split;  // votes split between two bins
            if (run == 1 || run == 5) m.hog.channels = GradientChannels::Colour;  // gradients from the strongest plane
            const GrayImage img = blobby_image(413 + 37 * run, 301 + 11 * run, static_cast<unsigned>(run));
            const Frame f = m.hog.channels == GradientChannels::Colour ? rgb_frame(img.width, img.height, 70u + static_cast<unsigned>(run))
                                                                       : colour_frame(img, 3, 3);
            calibrate_on(m, f.view);
            DetectParams p;
            p.stride = 4 + 4 * (run % 2);
            p.scale_step = 1.1;
            p.level_pad = run % 3 == 1 ? 16 : 0;
            const std::string what = "random model " + std::to_string(run) + (run >= 3 ? " nested" : "") + " (" + std::string(to_string(norm)) + ", " +
                                     std::to_string(learners) + " learners a stage, gamma " +
                                     std::string(kGrayGammaNames.name(m.hog.gamma)) + ", votes " +
                                     std::string(kOrientationVotesNames.name(m.hog.votes)) + ", " +
                                     std::string(kGradientChannelsNames.name(m.hog.channels)) + ")";
            compare_backends(m, p, f.view, what + " synthetic");
            if (m.hog.channels == GradientChannels::Colour) {
                compare_backends(m, p, img.view(), what + " gray input");  // three equal planes
                // Rows wide enough that the row pass's shared memory passes 48 KiB.
                const Frame wide = rgb_frame(2100, 140, 90u + static_cast<unsigned>(run));
                compare_backends(m, p, wide.view, what + " 2100 px wide");
            }
            for (const fs::path& photo : pennfudan_images(2)) {
                const auto [view, keep] = load_photo(photo);
                compare_backends(m, p, view, what + " " + photo.filename().string());
            }
            ++run;
        }
}

// Models whose blocks lie on a 4-px grid (zhu-grid4): at strides 4, 8 and 12 the GPU builds its
// integral histograms on that grid (the cell pass), at stride 6 on a 2-px grid; with an LBP prefix
// and integral histograms of every level, the gray integral images and the grid's tables side by
// side; a zhu-grid2 model at stride 8 (a 2-px grid). Every way the CPU's detections and statistics.
TEST(GpuDetector, GridHistogramsMatchTheCpu) {
    REQUIRE_GPU();
    struct Run {
        int learners, lbp;  // 3: thread-per-window stages, 20: warp-per-window
        bool colour, split, sqrt;
        int pad;
        std::vector<int> strides;  // the first also on a photo
    };
    const Run runs[] = {{3, 0, false, false, false, 0, {8, 6}},
                        {20, 0, true, false, true, 16, {4}},
                        {3, 0, true, true, false, 0, {12}},
                        {20, 6, false, true, false, 0, {8}},
                        {20, 0, true, true, false, 0, {8}}};  // zhu-grid2: a 2-px grid
    int run = 0;
    for (const Run& r : runs) {
        const bool grid2 = run == 4;
        CascadeModel m = random_model(700u + static_cast<unsigned>(run), 3, r.learners, r.lbp, grid2 ? "zhu-grid2" : "zhu-grid4");
        ASSERT_EQ(hog_block_grid(m) % (grid2 ? 2 : 4), 0);
        if (r.colour) m.hog.channels = GradientChannels::Colour;
        if (r.split) m.hog.votes = OrientationVotes::Split;
        if (r.sqrt) m.hog.gamma = GrayGamma::Sqrt;
        const Frame f = rgb_frame(421 + 31 * run, 317 + 13 * run, 700u + static_cast<unsigned>(run));
        calibrate_on(m, f.view);
        for (int stride : r.strides) {
            DetectParams p;
            p.stride = stride;
            p.scale_step = 1.15;
            p.level_pad = r.pad;
            for (bool grid : {true, false}) {
                CudaOptions o;
                o.grid_histograms = grid;
                if (r.lbp > 0) {
                    // The default after an LBP prefix: every level's histograms where they can be
                    // kept on the grid, else survivor blocks; then survivor blocks asked for.
                    EXPECT_EQ(CudaDetector(m, p, o).prefix_planes(), grid ? PrefixPlanes::EveryLevel : PrefixPlanes::SurvivorBlocks);
                    CudaOptions blocks = o;
                    blocks.prefix_planes = PrefixPlanes::SurvivorBlocks;
                    compare_backends(m, p, f.view, "grid-4 model " + std::to_string(run) + ", survivor blocks synthetic", blocks);
                }
                const std::string what = "grid-4 model " + std::to_string(run) + ", stride " + std::to_string(stride) +
                                         (grid ? ", grid histograms" : ", full histograms");
                compare_backends(m, p, f.view, what + " synthetic", o);
                if (stride != r.strides.front()) continue;
                for (const fs::path& photo : pennfudan_images(1)) {
                    const auto [view, keep] = load_photo(photo);
                    compare_backends(m, p, view, what + " " + photo.filename().string(), o);
                }
            }
        }
        ++run;
    }
}

TEST(GpuDetector, ShippedModelsMatchTheCpuOnSyntheticAndPennFudanImages) {
    REQUIRE_GPU();
    const auto photos = pennfudan_images(6);
    if (photos.empty()) std::printf("  PennFudanPed not found under %s: synthetic images only\n", data_dir().c_str());
    struct Shipped {
        std::string name;
        int stride;
    };
    for (const Shipped& k : {Shipped{"inria-hog-cascade.h5", 8}, Shipped{"inria-hog-cascade-all.h5", 8}, Shipped{"inria-hog-colour.h5", 8},
                             Shipped{"inria-hog-nested.h5", 8}, Shipped{"inria-hog-nested-all.h5", 8}, Shipped{"inria-dalal-triggs.h5", 8}, Shipped{"inria-hybrid.h5", 8},
                             Shipped{"inria-lbp.h5", 8}, Shipped{"faces-lbp.h5", 1}, Shipped{"faces-lbp-fast.h5", 1},
                             Shipped{"faces-hybrid.h5", 1}}) {
        const std::string& name = k.name;
        const CascadeModel model = load_shipped(name);
        for (double step : {1.05, 1.2}) {
            DetectParams p;
            p.scale_step = step;
            p.stride = k.stride;
            p.level_pad = step == 1.05 ? 16 : 0;  // OpenCV's protocol: ×1.05, 16 px around every level
            const GrayImage synthetic = blobby_image(640, 480, 5);
            compare_backends(model, p, synthetic.view(), name + " synthetic 640x480 x" + std::to_string(step));
            for (const fs::path& photo : photos) {
                const auto [view, keep] = load_photo(photo);
                compare_backends(model, p, view, name + " " + photo.filename().string() + " x" + std::to_string(step));
            }
        }
    }
}

TEST(GpuDetector, CompactionGraphsAndBatchesGiveTheSameResult) {
    REQUIRE_GPU();
    const CascadeModel model = load_shipped("inria-hog-cascade.h5");
    DetectParams p;
    p.stride = 4;
    p.scale_step = 1.1;
    std::vector<GrayImage> images = {blobby_image(640, 480, 1), blobby_image(320, 240, 2), blobby_image(640, 480, 3),
                                     blobby_image(801, 613, 4), blobby_image(640, 480, 5)};
    std::vector<ImageView> views;
    for (const auto& im : images) views.push_back(im.view());
    CpuDetector cpu(model, p);
    std::vector<DetectResult> want;
    for (const auto& v : views) want.push_back(cpu.detect(v));
    for (Compaction c : {Compaction::WarpAtomics, Compaction::BlockAtomics, Compaction::CubSelect})
        for (bool graph : {true, false}) {
            CudaDetector gpu(model, p, CudaOptions{.compaction = c, .use_graph = graph, .poison = true});
            for (int pass = 0; pass < 2; ++pass)  // the second pass replays graphs and reuses buffers
                for (std::size_t i = 0; i < views.size(); ++i) {
                    const DetectResult r = gpu.detect(views[i]);
                    EXPECT_EQ(r.detections, want[i].detections) << "image " << i;
                    expect_same_stats(r.stats, want[i].stats);
                }
            const auto batch = gpu.detect_batch(views, 3);
            ASSERT_EQ(batch.size(), views.size());
            for (std::size_t i = 0; i < views.size(); ++i) EXPECT_EQ(batch[i].detections, want[i].detections) << "batch " << i;
        }
}

TEST(GpuDetector, ManyAcceptedWindowsComeBackBeyondTheInGraphCopy) {
    REQUIRE_GPU();
    // A model that accepts every window: one margin stage with threshold far below any sum.
    CascadeModel m = random_model(9, 1, 2, 0);
    m.stages[0].as<HogSvmStage>().vote = VoteMode::Margin;
    m.stages[0].as<HogSvmStage>().threshold = -1e6f;
    DetectParams p;
    p.stride = 2;
    const GrayImage img = blobby_image(900, 700, 8);
    CpuDetector cpu(m, p);
    CudaDetector gpu(m, p, CudaOptions{.poison = true});
    const DetectResult c = cpu.detect(img.view()), g = gpu.detect(img.view());
    EXPECT_GT(c.detections.size(), 4096u);
    EXPECT_EQ(c.detections, g.detections);
}

TEST(GpuDetector, RejectsWhatItCannotRun) {
    REQUIRE_GPU();
    CudaDetector gpu(bar_model(), DetectParams{});
    int w_ = 0, h_ = 0;
    const GrayImage small = blobby_image(63, 200, 1), fine = blobby_image(640, 480, 2);
    const DetectResult before = gpu.detect(fine.view());
    EXPECT_THROW(gpu.detect(small.view()), DetectError);
    // A side the packed resampling tables cannot index is refused by name, not wrapped.
    const GrayImage wide(1 << 21, 1);  // checked before the pyramid, which would refuse it as too small
    try {
        gpu.detect(wide.view());
        ADD_FAILURE() << "a 2^21-pixel-wide image accepted";
    } catch (const DetectError& e) {
        EXPECT_NE(std::string(e.what()).find("has a side over the CUDA backend's 2097151 pixels"), std::string::npos) << e.what();
    }
    // The failed frames leave the detector serving its current size.
    const DetectResult after = gpu.detect(fine.view());
    EXPECT_EQ(before.detections, after.detections);
    EXPECT_EQ(after.detections, CpuDetector(bar_model(), DetectParams{}).detect(fine.view()).detections);
    const CascadeModel lbp = random_model(3, 1, 2, 4);  // hybrid: both stage kinds run on the GPU
    EXPECT_EQ(Detector::create(lbp, DetectParams{}, Backend::Auto)->backend_name(), "cuda");
    EXPECT_EQ(Detector::create(bar_model(), DetectParams{}, Backend::Auto)->backend_name(), "cuda");
    // Scaled windows are a CPU scan: auto takes the CPU, and the CUDA backend refuses them by name.
    DetectParams scaled;
    scaled.scale_windows = true;
    EXPECT_EQ(Detector::create(lbp, scaled, Backend::Auto)->backend_name(), "cpu");
    try {
        CudaDetector(bar_model(), scaled);
        ADD_FAILURE() << "scale_windows accepted";
    } catch (const DetectError& e) {
        EXPECT_NE(std::string(e.what()).find("scale_windows"), std::string::npos) << e.what();
    }
    // So are approximated HoG histograms.
    DetectParams approximated;
    approximated.approximate_hog = true;
    EXPECT_EQ(Detector::create(bar_model(), approximated, Backend::Auto)->backend_name(), "cpu");
    try {
        CudaDetector(bar_model(), approximated);
        ADD_FAILURE() << "approximate_hog accepted";
    } catch (const DetectError& e) {
        EXPECT_NE(std::string(e.what()).find("approximate_hog"), std::string::npos) << e.what();
    }
    // And LBP stages on the octaves.
    DetectParams lbp_octaves;
    lbp_octaves.approximate_lbp = true;
    EXPECT_EQ(Detector::create(bar_model(), lbp_octaves, Backend::Auto)->backend_name(), "cpu");
    try {
        CudaDetector(bar_model(), lbp_octaves);
        ADD_FAILURE() << "approximate_lbp accepted";
    } catch (const DetectError& e) {
        EXPECT_NE(std::string(e.what()).find("approximate_lbp"), std::string::npos) << e.what();
    }
    // A device that does not exist is refused by number, not a CUDA error later.
    try {
        CudaDetector(bar_model(), DetectParams{}, CudaOptions{.device = 99});
        ADD_FAILURE() << "device 99 accepted";
    } catch (const DetectError& e) {
        EXPECT_NE(std::string(e.what()).find("CUDA device 99 does not exist"), std::string::npos) << e.what();
    }
    EXPECT_TRUE(CudaDetector::supports(lbp));
    EXPECT_TRUE(CudaDetector::supports(bar_model()));
    EXPECT_THROW(CudaDetector(lbp, DetectParams{}, CudaOptions{.prefix_planes = PrefixPlanes::WhereSurvivors}), DetectError);
    // Bad launch shapes are refused by name.
    for (const CudaOptions& bad : {CudaOptions{.lbp_block_threads = 96}, CudaOptions{.lbp_warp_round = 3}, CudaOptions{.lbp_warp_round = 16},
                                   CudaOptions{.lbp_first_rows = 3}, CudaOptions{.lbp_first_rows = -1}}) {
        try {
            CudaDetector(lbp, DetectParams{}, bad);
            ADD_FAILURE() << "bad CudaOptions accepted";
        } catch (const DetectError& e) {
            EXPECT_NE(std::string(e.what()).find("CudaOptions::lbp_"), std::string::npos) << e.what();
        }
    }
    // A model without LBP stages has no gray integral images to show.
    EXPECT_THROW(gpu.level_integral_image(0, w_, h_), std::logic_error);
}

// The bulk runner on the GPU (detect_batch, frames in flight) gives the CPU runner's results, in
// input order, with an unservable image reported at its own index.
TEST(GpuBulk, GpuAndCpuBulkRunsGiveTheSameResultsInOrder) {
    REQUIRE_GPU();
    std::vector<GrayImage> images;
    for (int i = 0; i < 21; ++i) images.push_back(blobby_image(120 + 37 * (i % 7), 200 + 23 * (i % 5), 100 + i));
    images[9] = blobby_image(40, 60, 7);  // smaller than the window
    auto run = [&](Backend b) {
        BulkOptions o;
        o.backend = b;
        o.chunk = 8;
        BulkDetector bulk(bar_model(), DetectParams{}, o);
        EXPECT_EQ(bulk.backend_name(), b == Backend::Cuda ? "cuda" : "cpu");
        std::vector<std::string> order;
        std::vector<DetectResult> results;
        bulk.run(
            images.size(), [&](std::size_t i) { return BulkImage{images[i].view(), nullptr}; },
            [&](std::size_t i, DetectResult&& r, const BulkImage&, double) {
                order.push_back(std::to_string(i));
                results.push_back(std::move(r));
            },
            [&](std::size_t i, const std::string& m) { order.push_back(std::to_string(i) + " failed: " + m.substr(0, 20)); });
        return std::make_pair(order, results);
    };
    const auto cpu = run(Backend::Cpu), gpu = run(Backend::Cuda);
    EXPECT_EQ(cpu.first, gpu.first);
    ASSERT_EQ(cpu.second.size(), 20u);
    ASSERT_EQ(gpu.second.size(), 20u);
    for (std::size_t i = 0; i < 20; ++i) {
        EXPECT_EQ(cpu.second[i].detections, gpu.second[i].detections) << i;
        EXPECT_EQ(cpu.second[i].stats, gpu.second[i].stats) << i;
    }
    EXPECT_EQ(cpu.first[9], "9 failed: image 40x60 is small");
}

// Frames of two sizes in no order, as the trainer's negatives (photos turned a quarter or not):
// detect_batch keeps each size to slots prepared for it; whatever the frames in flight, and with
// them the host threads that stage and launch them (one for every 4: 8, 12 and 16 in flight take
// 2, 3 and 4, and 16 frames in flight over 40 frames give threads of 10 frames each), every
// result is the CPU's, in order, and a batch of one frame or of fewer frames than threads too.
TEST(GpuBulk, FramesOfTwoSizesInAnyOrderGiveTheCpusResults) {
    REQUIRE_GPU();
    std::vector<GrayImage> images;
    std::uint32_t pattern = 0x9e3779b9u;
    for (int i = 0; i < 40; ++i) {
        pattern = pattern * 1664525u + 1013904223u;
        const bool turned = (pattern >> 28) & 1u;
        images.push_back(blobby_image(turned ? 130 : 170, turned ? 170 : 130, 300 + i));
    }
    std::vector<ImageView> views;
    for (const GrayImage& im : images) views.push_back(im.view());
    const CascadeModel m = random_lbp_model(61, 100, 24, 24, images[0], 2);
    DetectParams p;
    p.stride = 2;
    p.scale_step = 1.2;
    CpuDetector cpu(m, p);
    CudaDetector gpu(m, p);
    for (int in_flight : {1, 2, 3, 4, 8, 12, 16}) {
        SCOPED_TRACE(in_flight);
        const std::vector<DetectResult> batch = gpu.detect_batch(views, in_flight);
        ASSERT_EQ(batch.size(), images.size());
        std::size_t found = 0;
        for (std::size_t i = 0; i < images.size(); ++i) {
            const DetectResult want = cpu.detect(views[i]);
            EXPECT_EQ(batch[i].detections, want.detections) << i;
            EXPECT_EQ(batch[i].stats, want.stats) << i;
            found += want.detections.size();
        }
        EXPECT_GT(found, 0u);  // something to compare
    }
    for (std::size_t n : {std::size_t{1}, std::size_t{5}}) {
        SCOPED_TRACE(n);
        const std::vector<ImageView> few(views.begin(), views.begin() + static_cast<std::ptrdiff_t>(n));
        const std::vector<DetectResult> batch = gpu.detect_batch(few, 16);
        ASSERT_EQ(batch.size(), n);
        for (std::size_t i = 0; i < n; ++i) EXPECT_EQ(batch[i].detections, cpu.detect(views[i]).detections) << i;
    }
}

// KeepRanks on the GPU: detections made for the kept ranks only (picked from the accepted
// windows without sorting them all), equal to the CPU's detections at those ranks in the order
// asked, for frames of two sizes, from detect_batch and from the bulk runner.
TEST(GpuBulk, KeptRanksAreTheCpusDetectionsAtThoseRanks) {
    REQUIRE_GPU();
    std::vector<GrayImage> images;
    for (int i = 0; i < 24; ++i) images.push_back(blobby_image(i % 3 ? 170 : 130, i % 3 ? 130 : 170, 400u + static_cast<unsigned>(i)));
    std::vector<ImageView> views;
    for (const GrayImage& im : images) views.push_back(im.view());
    const CascadeModel m = random_lbp_model(62, 30, 24, 24, images[0], 2);
    DetectParams p;
    p.stride = 2;
    p.scale_step = 1.2;
    // A few ranks a frame in a frame-dependent shuffled order; none of frame 5's.
    const auto some = [](std::size_t frame, std::uint64_t n) {
        std::vector<std::uint32_t> ranks;
        if (frame == 5) return ranks;
        for (std::uint64_t r = 0; r < n; r += 3) ranks.push_back(static_cast<std::uint32_t>(r));
        std::shuffle(ranks.begin(), ranks.end(), std::mt19937(static_cast<unsigned>(frame)));
        return ranks;
    };
    CpuDetector cpu(m, p);
    std::vector<DetectResult> want;
    std::size_t kept = 0;
    for (std::size_t i = 0; i < views.size(); ++i) {
        want.push_back(cpu.detect(views[i]));
        keep_ranks(want.back(), some(i, want.back().detections.size()));
        kept += want.back().detections.size();
    }
    EXPECT_GT(kept, 20u);
    CudaDetector gpu(m, p);
    const std::vector<DetectResult> batch = gpu.detect_batch(views, 8, some);
    ASSERT_EQ(batch.size(), views.size());
    for (std::size_t i = 0; i < views.size(); ++i) {
        EXPECT_EQ(batch[i].detections, want[i].detections) << i;
        EXPECT_EQ(batch[i].stats, want[i].stats) << i;
    }
    BulkOptions o;
    o.backend = Backend::Cuda;
    o.in_flight = 8;
    BulkDetector bulk(m, p, o);
    std::vector<DetectResult> got;
    bulk.run(
        views.size(), [&](std::size_t i) { return BulkImage{views[i], nullptr}; },
        [&](std::size_t, DetectResult&& r, const BulkImage&, double) { got.push_back(std::move(r)); }, {}, {}, {}, some);
    ASSERT_EQ(got.size(), views.size());
    for (std::size_t i = 0; i < views.size(); ++i) EXPECT_EQ(got[i].detections, want[i].detections) << "bulk " << i;
    // A rank past the end is the caller's error, from the GPU's batch too.
    EXPECT_THROW(gpu.detect_batch(views, 8, [](std::size_t, std::uint64_t n) { return std::vector<std::uint32_t>{static_cast<std::uint32_t>(n)}; }),
                 std::out_of_range);
}

// HoG cascades, WaldBoost LBP sequences and hybrids: mined on the GPU, the same negatives and the
// same model, byte for byte, as mined on the CPU.
TEST(GpuMining, TrainingWithGpuMiningGivesTheCpuMinedModel) {
    REQUIRE_GPU();
    // Records what each bootstrapping pass found.
    class Mining : public Quiet {
    public:
        std::vector<std::string> passes;
        void on_mining(const MiningProgress& p) override {
            if (p.finished)
                passes.push_back("stage " + std::to_string(p.stage) + ": " + std::to_string(p.windows_scanned) + " windows, " +
                                 std::to_string(p.false_positives) + " false positives");
        }
    };
    for (const auto& [kind, config] : {std::pair{"hog", tiny_config()}, std::pair{"waldboost", tiny_waldboost_config()},
                                       std::pair{"hybrid", tiny_hybrid_config()},
                                       std::pair{"colour", tiny_config("hog: {channels: colour}\n")}}) {
    SCOPED_TRACE(kind);
    const bool colour = config.hog.channels == GradientChannels::Colour;  // colour files, kept in colour
    const SyntheticData d = colour ? make_colour_data("gpu_mining_colour") : make_data(std::string("gpu_mining_") + kind);
    const ImageLoader load = colour ? ImageLoader(read_colour) : ImageLoader(read_pgm);
    std::vector<std::vector<char>> models;
    std::vector<std::vector<std::string>> passes;
    for (const char* backend : {"cpu", "cuda"}) {
        TrainConfig cfg = config;
        parse_backend(backend, cfg.mining.backend);
        TrainOptions opt;
        opt.model_out = d.dir / (std::string(backend) + std::to_string(models.size()) + ".h5");
        opt.created_utc = "2026-11-22T00:00:00Z";
        Mining obs;
        const TrainSummary s = train(cfg, d.train, load, opt, obs);
        EXPECT_GE(s.stages, 1) << backend;
        EXPECT_FALSE(obs.passes.empty()) << backend << ": no bootstrapping pass";
        models.push_back(bytes(opt.model_out));
        passes.push_back(obs.passes);
        std::printf("  %s, %s mining:", kind, backend);
        for (const auto& x : obs.passes) std::printf(" [%s]", x.c_str());
        std::printf("\n");
    }
    EXPECT_EQ(passes[0], passes[1]);
    // Same seed, same mined negatives, same model: byte for byte.
    EXPECT_EQ(models[0], models[1]);
    // What mining sees: the CPU-trained cascade's detections on every negative image, one thread
    // and many threads (one CudaDetector per thread, as the trainer runs them).
    const CascadeModel m = load_model(d.dir / "cpu0.h5");
    {
        const CascadeModel mg = load_model(d.dir / "cuda1.h5");
        std::printf("  cpu-mined: %zu stages, cuda-mined: %zu stages\n", m.stages.size(), mg.stages.size());
        for (std::size_t k = 0; k < std::max(m.stages.size(), mg.stages.size()); ++k) {
            auto describe = [&](const CascadeModel& x) -> std::string {
                if (k >= x.stages.size()) return "-";
                return std::string(x.stages[k].kind()) + ", " + std::to_string(x.stages[k].size()) + " learners";
            };
            std::printf("  stage %zu: cpu %s | cuda %s\n", k + 1, describe(m).c_str(), describe(mg).c_str());
        }
    }
    DetectParams p;
    p.stride = 8;
    p.scale_step = 1.25;
    std::vector<Image> negs;
    for (const auto& n : d.train.negatives) negs.push_back(load(n));
    CpuDetector cpu(m, p);
    CudaDetector gpu(m, p);
    std::vector<DetectResult> want;
    for (const auto& g : negs) want.push_back(cpu.detect(g.view()));
    for (std::size_t k = 1; k <= m.stages.size(); ++k) {  // every cascade the trainer mined with
        CascadeModel prefix = m;
        prefix.stages.erase(prefix.stages.begin() + static_cast<std::ptrdiff_t>(k), prefix.stages.end());
        CpuDetector c(prefix, p);
        CudaDetector g(prefix, p);
        std::size_t bad = 0, stats_bad = 0;
        for (const auto& n : negs) {
            const DetectResult a = c.detect(n.view()), b = g.detect(n.view());
            bad += !(a.detections == b.detections);
            stats_bad += !(a.stats == b.stats);
        }
        EXPECT_EQ(bad, 0u) << "first " << k << " stages";
        EXPECT_EQ(stats_bad, 0u) << "first " << k << " stages";
    }
    std::size_t differ = 0;
    for (std::size_t i = 0; i < negs.size(); ++i) differ += !(gpu.detect(negs[i].view()).detections == want[i].detections);
    EXPECT_EQ(differ, 0u) << "sequential";
    std::vector<DetectResult> got(negs.size());
    tbb::enumerable_thread_specific<std::unique_ptr<Detector>> dets([&] { return Detector::create(m, p, Backend::Cuda); });
    tbb::parallel_for(std::size_t{0}, negs.size(), [&](std::size_t i) { got[i] = dets.local()->detect(negs[i].view()); });
    differ = 0;
    for (std::size_t i = 0; i < negs.size(); ++i) differ += !(got[i].detections == want[i].detections);
    EXPECT_EQ(differ, 0u) << "threads";
    }
}
