// trainer/evaluation: the protocols' arithmetic on hand-made scores and boxes.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>

#include "cascadekit/eval/curves.hpp"
#include "cascadekit/eval/annotated_images.hpp"
#include "cascadekit/eval/protocols.hpp"
#include "cascadekit/model/hog_svm_stage.hpp"
#include "cascadekit/runtime/cpu_detector.hpp"
#include "test_support.hpp"

using namespace cascadekit;

TEST(Evaluation, CascadeWindowScoreOrdersByStageThenScore) {
    EXPECT_LT(cascade_window_score(0, 5.0f, 3), cascade_window_score(1, -5.0f, 3));
    EXPECT_LT(cascade_window_score(2, -0.1f, 3), cascade_window_score(3, 0.0f, 3));  // rejected by the last < accepted
    EXPECT_NEAR(cascade_window_score(3, 0.0f, 3), 2.5, 1e-12);
    EXPECT_LT(cascade_window_score(3, 0.5f, 3), 3.0);
    EXPECT_NEAR(cascade_window_score(1, 0.0f, 1), 0.5, 1e-12);  // one-stage model: σ(margin)
}

TEST(Evaluation, FppwCurveCountsMissesAndFalsePositives) {
    // 4 positives, 5 scored negatives out of 1000 windows.
    const auto curve = fppw_curve({0.1, 0.5, 0.7, 0.9}, {0.8, 0.6, 0.6, 0.2, 0.05}, 1000);
    ASSERT_EQ(curve.size(), 4u);  // distinct negative scores
    EXPECT_DOUBLE_EQ(curve[0].threshold, 0.8);
    EXPECT_DOUBLE_EQ(curve[0].fp, 0.001);
    EXPECT_DOUBLE_EQ(curve[0].miss_rate, 0.75);  // only 0.9 >= 0.8
    EXPECT_DOUBLE_EQ(curve[1].fp, 0.003);        // 0.8, 0.6, 0.6
    EXPECT_DOUBLE_EQ(curve[1].miss_rate, 0.5);
    EXPECT_DOUBLE_EQ(curve[3].miss_rate, 0.0);
    EXPECT_DOUBLE_EQ(miss_rate_at(curve, 0.002), 0.75);
    EXPECT_DOUBLE_EQ(miss_rate_at(curve, 0.0005), 1.0);  // nothing that strict
}

TEST(Evaluation, FppiMatchesGreedilyOncePerPerson) {
    ImageTruth a;
    a.people = {{0, 0, 10, 20}, {100, 0, 10, 20}};
    a.detections = {{{0, 0, 10, 20}, 0.9}, {{1, 0, 10, 20}, 0.8}, {{100, 1, 10, 20}, 0.5}, {{300, 0, 10, 20}, 0.7}};
    ImageTruth b;  // no people, one false positive
    b.detections = {{{5, 5, 10, 10}, 0.6}};
    const auto curve = fppi_curve({a, b});
    // Scores in order: .9 TP, .8 FP (duplicate), .7 FP, .6 FP, .5 TP.
    // Miss rates .5 .5 .5 .5 0 at FPPI 0 .5 1 1.5 1.5: only the plateau's ends are kept.
    ASSERT_EQ(curve.size(), 3u);
    EXPECT_DOUBLE_EQ(curve[0].miss_rate, 0.5);
    EXPECT_DOUBLE_EQ(curve[0].fp, 0.0);
    EXPECT_DOUBLE_EQ(curve[1].fp, 1.5);
    EXPECT_DOUBLE_EQ(curve[1].miss_rate, 0.5);
    EXPECT_DOUBLE_EQ(curve[2].miss_rate, 0.0);
    EXPECT_DOUBLE_EQ(miss_rate_at(curve, 1.0), 0.5);
    EXPECT_DOUBLE_EQ(iou({0, 0, 10, 10}, {5, 0, 10, 10}), 50.0 / 150.0);
}

// COCO's 101-point interpolated AP on the curve above: precision 1 up to recall 0.5 (the first
// detection), then 2/5 at recall 1 (the fifth); the envelope is 1 for r <= 0.5 (51 points) and
// 0.4 above (50 points).
TEST(Evaluation, AveragePrecisionIsCocosInterpolation) {
    ImageTruth a;
    a.people = {{0, 0, 10, 20}, {100, 0, 10, 20}};
    a.detections = {{{0, 0, 10, 20}, 0.9}, {{1, 0, 10, 20}, 0.8}, {{100, 1, 10, 20}, 0.5}, {{300, 0, 10, 20}, 0.7}};
    ImageTruth b;
    b.detections = {{{5, 5, 10, 10}, 0.6}};
    const auto curve = fppi_curve({a, b});
    EXPECT_NEAR(average_precision(curve, 2, 2), (51 * 1.0 + 50 * 0.4) / 101, 1e-12);
    // Perfect: every object found before any false positive.
    ImageTruth c;
    c.people = {{0, 0, 10, 20}};
    c.detections = {{{0, 0, 10, 20}, 2.0}, {{50, 0, 10, 20}, 1.0}};
    EXPECT_NEAR(average_precision(fppi_curve({c}), 1, 1), 1.0, 1e-12);
    EXPECT_EQ(average_precision(fppi_curve({b}), 1, 0), 0.0);  // no objects
    ImageTruth none;  // objects, no detections
    none.people = {{0, 0, 10, 20}};
    EXPECT_EQ(average_precision(fppi_curve({none}), 1, 1), 0.0);
}

// Objects by height, found at a threshold by the same greedy matching as the curve.
TEST(Evaluation, FoundByHeightAtAThreshold) {
    ImageTruth a;
    a.people = {{0, 0, 10, 30}, {100, 0, 40, 120}, {300, 0, 100, 300}};
    a.detections = {{{0, 0, 10, 30}, 0.9}, {{100, 0, 40, 120}, 0.4}, {{500, 0, 10, 30}, 0.8}};
    const auto curve = fppi_curve({a});
    EXPECT_DOUBLE_EQ(threshold_at(curve, 0.0), 0.9);  // no false positive: only the first
    EXPECT_DOUBLE_EQ(threshold_at(curve, 1.0), 0.4);
    EXPECT_TRUE(std::isinf(threshold_at({}, 1.0)));
    const auto bins = found_by_height({a}, 0.5, {50, 100, 200});
    ASSERT_EQ(bins.size(), 4u);
    EXPECT_EQ(bins[0].objects, 1u);  // 30 px: found at 0.9
    EXPECT_EQ(bins[0].found, 1u);
    EXPECT_EQ(bins[1].objects, 0u);
    EXPECT_EQ(bins[2].objects, 1u);  // 120 px: its detection scores 0.4 < 0.5
    EXPECT_EQ(bins[2].found, 0u);
    EXPECT_EQ(bins[3].objects, 1u);  // 300 px: no detection
    EXPECT_EQ(bins[3].found, 0u);
    EXPECT_EQ(found_by_height({a}, 0.4, {50, 100, 200})[2].found, 1u);
}

TEST(Evaluation, LogAverageMissRate) {
    EXPECT_NEAR(log_average_miss_rate({{0.001, 0.2, 1}}), 0.2, 1e-12);  // flat curve: its value
    // Miss 1 below 0.1 FPPI, 0.1 from 0.1 on: 4 reference points (0.01…0.056) at 1, 5 at 0.1.
    EXPECT_NEAR(log_average_miss_rate({{0.1, 0.1, 1}}), std::exp(5 * std::log(0.1) / 9), 1e-12);
}

TEST(Evaluation, PersonBoxKeepsTheCentre) {
    const Box b = person_box(10, 20, 64, 128);
    EXPECT_NEAR(b.x + b.w / 2, 42, 1e-12);
    EXPECT_NEAR(b.y + b.h / 2, 84, 1e-12);
    EXPECT_NEAR(b.h, 96, 1e-12);
    EXPECT_NEAR(b.w / b.h, 0.38, 1e-12);
}

TEST(Evaluation, RejectionProfileFromStats) {
    CascadeModel m = test::random_model(1, 3, 2, 0);
    DetectStats s;
    s.windows_scanned = 100;
    s.rejected_per_stage = {50, 30, 10};
    s.weak_evaluated = 100 * 2 + 50 * 2 + 20 * 2;
    const auto p = rejection_profile(m, s);
    ASSERT_EQ(p.size(), 3u);
    EXPECT_DOUBLE_EQ(p[0].rejected_so_far, 0.5);
    EXPECT_DOUBLE_EQ(p[1].rejected_so_far, 0.8);
    EXPECT_DOUBLE_EQ(p[0].learners_per_window, 2.0);
    EXPECT_DOUBLE_EQ(p[1].learners_per_window, 3.0);
    EXPECT_DOUBLE_EQ(p[2].learners_per_window, 3.4);
}

TEST(Evaluation, ReadsPascalAnnotations) {
    const auto dir = test::scratch_dir("pascal");
    std::ofstream(dir / "a.txt") << "# Compatible with PASCAL Annotation Version 1.00\n"
                                    "Bounding box for object 1 \"PASpersonWalking\" (Xmin, Ymin) - (Xmax, Ymax) : (160, 182) - (302, 431)\n"
                                    "Original label for object 2 \"PASpersonWalking\" : \"PennFudanPed\"\n"
                                    "Bounding box for object 2 \"PASpersonWalking\" (Xmin, Ymin) - (Xmax, Ymax) : (420, 171) - (535, 486)\n";
    const auto boxes = read_pascal_annotation((dir / "a.txt").string());
    ASSERT_EQ(boxes.size(), 2u);
    EXPECT_EQ(boxes[0].x, 160);
    EXPECT_EQ(boxes[0].w, 143);
    EXPECT_EQ(boxes[1].h, 316);
    EXPECT_THROW(read_pascal_annotation((dir / "none.txt").string()), std::runtime_error);
    // Damage: a huge line (std::regex would recurse per character), absurd numbers, inverted boxes.
    const std::pair<std::string, std::string> bad[] = {
        {"Bounding box for object 1 \"" + std::string(5'000'000, 'x') + "\"", "line 1 is 5000028 characters long"},
        {"Bounding box for object 1 \"P\" (Xmin, Ymin) - (Xmax, Ymax) : (1, 2) - (99999999999999999999, 4)",
         "line 1: coordinate out of range"},
        {"x\nBounding box for object 1 \"P\" (Xmin, Ymin) - (Xmax, Ymax) : (10, 20) - (5, 40)", "line 2: box with Xmax < Xmin"},
    };
    for (const auto& [text, message] : bad) {
        std::ofstream(dir / "bad.txt", std::ios::trunc) << text << "\n";
        try {
            read_pascal_annotation((dir / "bad.txt").string());
            ADD_FAILURE() << "accepted: " << message;
        } catch (const std::runtime_error& e) {
            EXPECT_NE(std::string(e.what()).find("bad.txt: " + message), std::string::npos) << e.what();
        }
    }
}

// An ignore region takes a detection out of the count: neither a hit nor a false positive.
TEST(Evaluation, DetectionsOnIgnoreRegionsCountNeitherWay) {
    ImageTruth im;
    im.people = {{0, 0, 10, 20}};
    im.ignore = {{100, 0, 10, 20}};
    im.detections = {{{0, 0, 10, 20}, 0.9}, {{100, 0, 10, 20}, 0.8}, {{200, 0, 10, 20}, 0.7}};
    const auto with = fppi_curve({im});
    ASSERT_FALSE(with.empty());
    EXPECT_DOUBLE_EQ(with.back().fp, 1.0);  // only the detection at x=200
    EXPECT_DOUBLE_EQ(with.back().miss_rate, 0.0);
    im.ignore.clear();
    EXPECT_DOUBLE_EQ(fppi_curve({im}).back().fp, 2.0);
}

// INRIA's full-image layout: annotated positives first, then person-free negatives; either part
// may be missing.
TEST(Evaluation, InriaAndListReadersGiveImagesWithTheirBoxes) {
    const auto dir = cascadekit::test::scratch_dir("eval_inria");
    std::filesystem::create_directories(dir / "Test" / "pos");
    std::filesystem::create_directories(dir / "Test" / "annotations");
    std::filesystem::create_directories(dir / "Test" / "neg");
    std::ofstream(dir / "Test" / "pos" / "p1.png") << "x";
    std::ofstream(dir / "Test" / "neg" / "n1.jpg") << "x";
    std::ofstream(dir / "Test" / "neg" / "n0.jpg") << "x";
    std::ofstream(dir / "Test" / "annotations" / "p1.txt")
        << "Bounding box for object 1 \"PASperson\" (Xmin, Ymin) - (Xmax, Ymax) : (10, 20) - (39, 99)\n";
    const auto set = inria_images(dir, "Test");
    ASSERT_EQ(set->size(), 3u);
    EXPECT_EQ(set->at(0).image.filename(), "p1.png");
    ASSERT_EQ(set->at(0).objects.size(), 1u);
    EXPECT_EQ(set->at(0).objects[0], (Box{10, 20, 30, 80}));
    EXPECT_EQ(set->at(1).image.filename(), "n0.jpg");
    EXPECT_TRUE(set->at(2).objects.empty());
    EXPECT_THROW(inria_images(dir, "Train"), std::runtime_error);
    const auto list = annotated_list("held-out negatives", {{dir / "a.png", {}, {}, {}}});
    EXPECT_EQ(list->name(), "held-out negatives");
    EXPECT_EQ(list->size(), 1u);
}

// "NAME x y w h" box files (CMU+MIT's facegroundtruth.txt), and the ROC's detection rate at N
// false positives.
TEST(Evaluation, BoxFilesAndDetectionRateAtFalsePositives) {
    const auto dir = cascadekit::test::scratch_dir("eval_boxfile");
    for (const char* n : {"a.png", "b.png"}) std::ofstream(dir / n) << "x";
    std::ofstream(dir / "gt.txt") << "# comment\nb.png 10 20 24 26\nb.png 50 20 20 22\n";
    const auto set = box_file_images(dir, dir / "gt.txt", "faces");
    ASSERT_EQ(set->size(), 2u);
    EXPECT_TRUE(set->at(0).objects.empty());
    ASSERT_EQ(set->at(1).objects.size(), 2u);
    EXPECT_EQ(set->at(1).objects[1], (Box{50, 20, 20, 22}));
    std::ofstream(dir / "bad.txt") << "c.png 1 2 3 4\n";
    EXPECT_THROW(box_file_images(dir, dir / "bad.txt", "x"), std::runtime_error);
    std::ofstream(dir / "bad2.txt") << "a.png 1 2 -3 4\n";
    EXPECT_THROW(box_file_images(dir, dir / "bad2.txt", "x"), std::runtime_error);
    // 2 images, 2 faces: at 0 FP one face is found, at 1 FP both.
    ImageTruth a, b;
    b.people = {{10, 20, 24, 26}, {50, 20, 20, 22}};
    b.detections = {{{10, 20, 24, 26}, 0.9}, {{200, 0, 10, 10}, 0.8}, {{50, 20, 20, 22}, 0.7}};
    const auto curve = fppi_curve({a, b});
    EXPECT_DOUBLE_EQ(detection_rate_at(curve, 2, 0), 0.5);
    EXPECT_DOUBLE_EQ(detection_rate_at(curve, 2, 1), 1.0);
}

TEST(Evaluation, FacePointsFileGivesEachBoxItsPoints) {
    const auto dir = cascadekit::test::scratch_dir("eval_points");
    for (const char* n : {"a.png", "b.png"}) std::ofstream(dir / n) << "x";
    std::ofstream(dir / "gt.txt") << "b.png 10 20 24 26\nb.png 50 20 20 22\n";
    std::ofstream(dir / "pts.txt") << "#filename left-eye right-eye nose left-corner-mouth center-mouth right-corner-mouth\n"
                                      "b.png 15 28 27 28 21 34 16 40 21 41 26 40\n"
                                      "b.png 54 27 64 27 59 32 55 36 59 37 63 36\n";
    const auto set = box_file_images(dir, dir / "gt.txt", "faces", dir / "pts.txt");
    ASSERT_EQ(set->at(1).face_points.size(), 2u);
    const FacePoints f = set->at(1).face_points[1];  // a copy: at() returns by value
    EXPECT_DOUBLE_EQ(f.left_eye_x, 54);
    EXPECT_DOUBLE_EQ(f.right_eye_x, 64);
    EXPECT_DOUBLE_EQ(f.mouth_x, 59);  // the mouth centre, not a corner
    EXPECT_DOUBLE_EQ(f.mouth_y, 37);
    std::ofstream(dir / "short.txt") << "b.png 15 28 27 28 21 34 16 40 21 41 26 40\n";  // 1 of 2 faces
    EXPECT_THROW(box_file_images(dir, dir / "gt.txt", "faces", dir / "short.txt"), std::runtime_error);
    std::ofstream(dir / "cut.txt") << "b.png 15 28 27\n";
    EXPECT_THROW(box_file_images(dir, dir / "gt.txt", "faces", dir / "cut.txt"), std::runtime_error);
}

TEST(Evaluation, FacePointsRuleAcceptsAnyBoxConventionButNotOffFaceBoxes) {
    ImageTruth im;
    im.people = {{100, 100, 40, 44}};
    // eyes at (110, 112) and (130, 112), mouth centre (120, 132): eye-to-mouth distance 20
    im.face_points = {{110, 112, 130, 112, 120, 132}};
    const MatchRule rule = face_points_match();
    EXPECT_GE(rule(im, 0, {100, 100, 40, 44}), 0);   // the set's own box
    EXPECT_GE(rule(im, 0, {90, 85, 60, 70}), 0);     // a loose box from the forehead to the chin
    EXPECT_GE(rule(im, 0, {108, 108, 24, 26}), 0);   // a tight one (IoU with the box < 0.5)
    EXPECT_LT(iou_match()(im, 0, {108, 108, 24, 26}), 0);
    EXPECT_LT(rule(im, 0, {112, 100, 40, 44}), 0);   // the left eye outside
    EXPECT_LT(rule(im, 0, {60, 60, 100, 100}), 0);   // holds the points but 5x the distance, face in a corner
    EXPECT_LT(rule(im, 0, {40, 40, 160, 160}), 0);   // centred but 8x the distance
    ImageTruth no_points = im;
    no_points.face_points.clear();
    EXPECT_LT(rule(no_points, 0, {100, 100, 40, 44}), 0);
    // A centred box beats an off-centre one for the same face; the second is a false positive.
    im.detections = {{{96, 102, 48, 48}, 0.9}, {{100, 100, 40, 44}, 0.8}};
    const auto curve = fppi_curve({im}, rule);
    EXPECT_DOUBLE_EQ(curve.back().fp, 1.0);
    EXPECT_DOUBLE_EQ(curve.back().miss_rate, 0.0);
}

TEST(Evaluation, CmuMitFacePointsLieInTheirBoxes) {
    const auto root = cascadekit::test::data_dir() / "Faces" / "cmu-mit";
    if (!std::filesystem::exists(root / "test" / "groundtruth.txt")) GTEST_SKIP() << "CMU+MIT faces not found under " << root;
    const auto set = cmu_mit_faces(root);
    // Each face's points match its own box, but for two upside-down faces on playing cards whose
    // boxes lie just beside their points.
    std::size_t faces = 0;
    std::vector<std::string> off;
    for (std::size_t i = 0; i < set->size(); ++i) {
        const AnnotatedImage a = set->at(i);
        ASSERT_EQ(a.face_points.size(), a.objects.size()) << a.image;
        ImageTruth t;
        t.people = a.objects;
        t.face_points = a.face_points;
        for (std::size_t k = 0; k < a.objects.size(); ++k, ++faces)
            if (face_points_match()(t, k, a.objects[k]) < 0) off.push_back(a.image.filename().string() + " " + std::to_string(k));
    }
    EXPECT_EQ(faces, 326u);
    EXPECT_EQ(off, (std::vector<std::string>{"cards-perp-sml.png 8", "cards-perp-sml.png 9"}));
}

// The weak-classifier survival scan counts what the CPU detector counts (windows, weak
// classifiers, rejections), and places each rejection at its weak classifier.
TEST(Evaluation, WeakSurvivalAgreesWithTheDetectorsCounts) {
    CascadeModel m = cascadekit::test::random_model(3, 2, 4, 12);
    m.stages[1].as<HogSvmStage>().threshold = 2.0f;
    m.stages[2].as<HogSvmStage>().threshold = 0.5f;
    std::vector<std::filesystem::path> images;
    std::map<std::string, GrayImage> pixels;
    for (unsigned i = 0; i < 3; ++i) {
        images.push_back("n" + std::to_string(i));
        pixels[images.back().string()] = cascadekit::test::blobby_image(150 + 10 * static_cast<int>(i), 200, 40 + i);
    }
    DetectParams p;
    p.stride = 4;
    p.scale_step = 1.3;
    auto load = [&](const std::filesystem::path& f) { return pixels.at(f.string()); };
    const WeakSurvival ws = weak_survival(m, images, p, load);
    DetectStats stats;
    auto det = Detector::create(m, p, Backend::Cpu);
    for (const auto& f : images) {
        const DetectStats s = det->detect(load(f).view()).stats;
        stats.windows_scanned += s.windows_scanned;
        stats.weak_evaluated += s.weak_evaluated;
        stats.rejected_per_stage.resize(s.rejected_per_stage.size());
        for (std::size_t k = 0; k < s.rejected_per_stage.size(); ++k) stats.rejected_per_stage[k] += s.rejected_per_stage[k];
    }
    EXPECT_EQ(ws.windows, stats.windows_scanned);
    EXPECT_EQ(ws.weak_evaluated, stats.weak_evaluated);
    ASSERT_EQ(ws.rejected_by.size(), 12u + 8u);
    // The LBP stage's rejections fall on weak classifiers 1..12, the HoG stages' on their last learners.
    std::uint64_t lbp = 0;
    for (std::size_t k = 0; k < 12; ++k) lbp += ws.rejected_by[k];
    EXPECT_EQ(lbp, stats.rejected_per_stage[0]);
    EXPECT_EQ(ws.rejected_by[15], stats.rejected_per_stage[1]);
    EXPECT_EQ(ws.rejected_by[19], stats.rejected_per_stage[2]);
    EXPECT_DOUBLE_EQ(ws.surviving(0), 1.0);
    EXPECT_DOUBLE_EQ(ws.surviving(20), static_cast<double>(stats.windows_accepted()) / static_cast<double>(stats.windows_scanned));
    EXPECT_GT(lbp, 0u);
    EXPECT_GT(stats.rejected_per_stage[1] + stats.rejected_per_stage[2], 0u);
}

// The OpenCV-style protocol's two scan options: images under upscale_below pixels are enlarged 2×
// (a bar half the window's size is found, its box halved back into the image), and every level
// padded (a bar cut by the left edge is found at x < 0).
TEST(Protocols, SmallImagesEnlargedAndLevelsPaddedFindWhatThePlainScanMisses) {
    using test::bar_model, test::constant_image, test::draw_bar;
    GrayImage small = constant_image(200, 180, 0);
    draw_bar(small, 40, 50, 0.5);  // window (40, 50, 32, 64)
    GrayImage cut = constant_image(300, 200, 0);
    draw_bar(cut, -24, 40, 1.0);   // window (-24, 40, 64, 128)
    std::map<std::string, GrayImage> files{{"small", small}, {"cut", cut}};
    const ImageLoader loader = [&](const std::filesystem::path& p) { return files.at(p.string()); };
    const auto set = annotated_list("bars", {{"small", {{40, 50, 32, 64}}, {}, {}}, {"cut", {{-24, 40, 64, 128}}, {}, {}}});
    auto found = [&](int upscale_below, int level_pad) {
        FullImageOptions o;
        o.params.scale_step = 1.2;
        o.params.level_pad = level_pad;
        o.upscale_below = upscale_below;
        o.fusion.method = FusionMethod::Nms;
        o.bulk.backend = Backend::Cpu;
        const auto truth = detect_annotated(bar_model(), *set, o, loader, window_box);
        std::vector<bool> hit;
        for (const ImageTruth& t : truth) {
            bool any = false;
            for (const ScoredBox& d : t.detections) any |= iou(d.box, t.people[0]) >= 0.5;
            hit.push_back(any);
        }
        return hit;
    };
    EXPECT_EQ(found(0, 0), (std::vector<bool>{false, false}));
    EXPECT_EQ(found(400, 0), (std::vector<bool>{true, false}));
    EXPECT_EQ(found(400, 32), (std::vector<bool>{true, true}));
    EXPECT_EQ(found(100, 32), (std::vector<bool>{false, true}));  // 180 px is not under 100
}

// detect_annotated's scan statistics (the PennFudan evaluation's "weak classifiers per window")
// are the detector's own, summed over the images as the protocol scans them.
TEST(Protocols, ScanStatisticsAreTheDetectorsSummedOverTheImages) {
    using test::bar_model, test::constant_image, test::draw_bar;
    GrayImage a = constant_image(220, 260, 0);
    draw_bar(a, 60, 70, 1.0);
    GrayImage b = constant_image(300, 200, 30);
    std::map<std::string, GrayImage> files{{"a", a}, {"b", b}};
    const ImageLoader loader = [&](const std::filesystem::path& p) { return files.at(p.string()); };
    const auto set = annotated_list("bars", {{"a", {{60, 70, 64, 128}}, {}, {}}, {"b", {}, {}, {}}});
    FullImageOptions o;
    o.params.scale_step = 1.2;
    o.bulk.backend = Backend::Cpu;
    DetectStats scan;
    detect_annotated(bar_model(), *set, o, loader, window_box, &scan);
    DetectStats want;
    for (const GrayImage* g : {&a, &b}) {
        const DetectStats s = CpuDetector(bar_model(), o.params).detect(g->view()).stats;
        want.windows_scanned += s.windows_scanned;
        want.weak_evaluated += s.weak_evaluated;
    }
    EXPECT_GT(scan.windows_scanned, 0u);
    EXPECT_EQ(scan.windows_scanned, want.windows_scanned);
    EXPECT_EQ(scan.weak_evaluated, want.weak_evaluated);
    EXPECT_GE(scan.weak_evaluated, scan.windows_scanned);  // every window meets at least one learner
}
