// Tests on the public datasets ($CASCADEKIT_DATA, default ../shared/data); each skips with a
// message naming the missing folder when the data is absent.
#include <gtest/gtest.h>
#include <tbb/global_control.h>

#include <algorithm>
#include <cstdio>

#include "cascadekit/eval/annotated_images.hpp"
#include "cascadekit/eval/curves.hpp"
#include "cascadekit/eval/protocols.hpp"
#include "cascadekit/features/gradient.hpp"
#include "cascadekit/features/integral_histogram.hpp"
#include "cascadekit/io/model_file.hpp"
#include "cascadekit/runtime/detector.hpp"
#include "cascadekit/workflow/image_files.hpp"
#include "test_support.hpp"

using namespace cascadekit;
using namespace cascadekit::test;
namespace fs = std::filesystem;

namespace {
std::vector<fs::path> list(const fs::path& dir, std::initializer_list<const char*> exts) {
    std::vector<fs::path> out;
    if (!fs::is_directory(dir)) return out;
    for (const auto& e : fs::directory_iterator(dir))
        for (const char* x : exts)
            if (e.path().extension() == x) out.push_back(e.path());
    std::sort(out.begin(), out.end());
    return out;
}
fs::path inria() { return data_dir() / "INRIAPerson"; }
#define REQUIRE_INRIA()                                                                                    \
    if (!fs::is_directory(inria())) GTEST_SKIP() << "INRIA Person not found at " << inria()                \
                                                 << " (set CASCADEKIT_DATA to the folder holding it)"
// The tools' decoders: load_gray as `cascade detect` feeds a detector, load_image (RGB) as the
// evaluations do; both throw naming a file they cannot read.
}  // namespace

TEST(InriaData, LayoutIsWhatTheLoadersExpect) {
    REQUIRE_INRIA();
    EXPECT_EQ(list(inria() / "96X160H96" / "Train" / "pos", {".png", ".jpg"}).size(), 2416u);
    EXPECT_EQ(list(inria() / "Train" / "neg", {".png", ".jpg"}).size(), 1218u);
}

// Integral histograms of real photographs against brute-force sums.
TEST(InriaData, IntegralHistogramsOfRealImagesAreExact) {
    REQUIRE_INRIA();
    const auto neg = list(inria() / "Train" / "neg", {".png", ".jpg"});
    ASSERT_FALSE(neg.empty());
    std::mt19937 rng(3);
    IntegralHistogram ih;
    for (std::size_t i = 0; i < neg.size(); i += neg.size() / 8) {
        const GrayImage img = load_gray(neg[i]);
        ASSERT_GT(img.width, 0) << neg[i];
        ih.compute(img);
        const GradientField g = compute_gradients(img);
        for (int k = 0; k < 50; ++k) {
            std::uniform_int_distribution<int> uw(1, 64), uh(1, 128);
            const int w = uw(rng), h = uh(rng);
            std::uniform_int_distribution<int> ux(0, img.width - w), uy(0, img.height - h);
            const Rect r{ux(rng), uy(rng), w, h};
            std::uint64_t ref[9] = {};
            for (int y = r.y; y < r.y + h; ++y)
                for (int x = r.x; x < r.x + w; ++x) {
                    const std::size_t p = static_cast<std::size_t>(y) * img.width + x;
                    ref[g.bin[p]] += g.magnitude[p];
                }
            const auto s = ih.rect_sum(r);
            for (int b = 0; b < 9; ++b) ASSERT_EQ(s[b], ref[b]) << neg[i];
        }
    }
}

// Real photographs, a random cascade: identical output for 1 and all threads.
TEST(InriaData, DetectionOnRealImagesIsThreadIndependent) {
    REQUIRE_INRIA();
    const auto neg = list(inria() / "Train" / "neg", {".png", ".jpg"});
    ASSERT_GE(neg.size(), 3u);
    CascadeModel m = random_model(77, 2, 4, 0);
    for (auto& s : m.stages) s.as<HogSvmStage>().threshold = -0.5f;
    for (std::size_t i : {std::size_t{0}, neg.size() / 2, neg.size() - 1}) {
        const GrayImage img = load_gray(neg[i]);
        DetectResult one;
        {
            tbb::global_control limit(tbb::global_control::max_allowed_parallelism, 1);
            one = Detector::create(m, {})->detect(img.view());
        }
        const DetectResult all = Detector::create(m, {})->detect(img.view());
        EXPECT_EQ(one.detections, all.detections) << neg[i];
        EXPECT_EQ(one.stats, all.stats) << neg[i];
        EXPECT_GT(one.stats.windows_scanned, 100u);
    }
}

// The shipped people cascades on PennFudanPed, a set neither was trained on (the held-out INRIA
// split cannot test inria-hog-cascade-all.h5, which trained on all of INRIA): `cascade eval
// --fppi`'s scan (stride 8, ×1.2, a border of 0.25 of the image height, NMS), person boxes matched
// at IoU 0.5. Shipped figures: 0.558 and 0.550 log-average miss rate (0.520 for the colour
// cascade); OpenCV's default people detector scores 0.615 this way.
// How the people tests scan PennFudan: stride 8, ×1.2, images padded by a quarter of the window,
// NMS, on the CPU.
FullImageOptions pennfudan_scan() {
    FullImageOptions o;
    o.params.stride = 8;
    o.params.scale_step = 1.2;
    o.pad = 0.25;
    o.fusion.method = FusionMethod::Nms;
    o.bulk.backend = Backend::Cpu;
    return o;
}

// Every shipped people model on a few PennFudan photos through the CPU's bulk path: the small
// version of the test below, which .ci/run's sanitizer pass runs instead of it (over all 170
// photos, it takes minutes there).
TEST(ShippedModels, EveryPeopleModelFindsPeopleInAFewPennFudanPhotos) {
    const fs::path root = data_dir() / "PennFudanPed";
    if (!fs::is_directory(root)) GTEST_SKIP() << "PennFudanPed not found at " << root << " (set CASCADEKIT_DATA)";
    const auto all = pennfudan_images(root);
    std::vector<AnnotatedImage> few;
    for (std::size_t i = 0; i < all->size(); i += all->size() / 10) few.push_back(all->at(i));
    const auto set = annotated_list("PennFudanPed, 10 photos", few);
    // The share of the 18 people in these photos each may miss with every detection accepted (the
    // LBP-only baseline is the weakest by design).
    const std::pair<const char*, double> models[] = {{"inria-hog-cascade.h5", 0.35}, {"inria-hog-cascade-all.h5", 0.35},
                                                     {"inria-hog-colour.h5", 0.35},  {"inria-hog-nested.h5", 0.35},
                                                     {"inria-hog-nested-all.h5", 0.35},
                                                     {"inria-hybrid.h5", 0.35},      {"inria-lbp.h5", 0.75},
                                                     {"inria-dalal-triggs.h5", 0.35}};
    for (const auto& [name, max_miss_rate] : models) {
        SCOPED_TRACE(name);
        const CascadeModel model = load_model(source_dir() / "models" / name);
        const auto truth = detect_annotated(model, *set, pennfudan_scan(), load_image, person_box);
        ASSERT_EQ(truth.size(), set->size());
        const auto curve = fppi_curve(truth);
        ASSERT_FALSE(curve.empty());
        const CurvePoint loosest = curve.back();  // every detection accepted
        std::printf("  %s: %zu photos, lowest miss rate %.3f at %.2f false positives per image\n", name, set->size(),
                    loosest.miss_rate, loosest.fp);
        EXPECT_LT(loosest.miss_rate, max_miss_rate);
    }
}

TEST(ShippedModels, PeopleCascadesFindPennFudanPeople) {
    const fs::path root = data_dir() / "PennFudanPed";
    if (!fs::is_directory(root)) GTEST_SKIP() << "PennFudanPed not found at " << root << " (set CASCADEKIT_DATA)";
    const auto set = pennfudan_images(root);
    for (const char* name : {"inria-hog-cascade.h5", "inria-hog-cascade-all.h5", "inria-hog-colour.h5", "inria-hog-nested.h5",
                             "inria-hog-nested-all.h5"}) {
        SCOPED_TRACE(name);
        const CascadeModel model = load_model(source_dir() / "models" / name);
        const auto truth = detect_annotated(model, *set, pennfudan_scan(), load_image, person_box);
        ASSERT_EQ(truth.size(), set->size());
        const double lamr = log_average_miss_rate(fppi_curve(truth));
        std::printf("  %s: PennFudan log-average miss rate %.4f\n", name, lamr);
        EXPECT_LT(lamr, 0.60);
        EXPECT_GT(lamr, 0.40);  // a sanity bound: far better would mean the matching broke
    }
}
