// tools/: the `cascade` command, run as a user runs it.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <fstream>
#include <nlohmann/json.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/videoio.hpp>
#include <sstream>

#include "cascadekit/io/model_file.hpp"
#include "cli_support.hpp"
#include "test_support.hpp"

using namespace cascadekit;
using namespace cascadekit::test;
namespace fs = std::filesystem;

namespace {


}  // namespace

// Also leaves build/demo/ with a model and an image for README's example command.
TEST(Cli, DemoModelAndImageForTheReadme) {
    const fs::path demo = fs::path(CASCADEKIT_BINARY_DIR) / "demo";
    fs::create_directories(demo);
    save_model(bar_model(), demo / "vertical-bar.h5");
    GrayImage img = constant_image(420, 400, 0);
    draw_bar(img, 32, 24, 1.0);
    draw_bar(img, 160 * 1.44, 80 * 1.44, 1.44);
    write_pgm(demo / "bars.pgm", img);
    const CommandResult r = cascade("detect --model " + q(demo / "vertical-bar.h5") + " --json " + q(demo / "bars.json") + " " +
                              q(demo / "bars.pgm"),
                          demo);
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(nlohmann::json::parse(slurp(demo / "bars.json"))["images"][0]["detections"].size(), 2u);
}

TEST(Cli, DetectWritesJsonAndDrawings) {
    const Scene s = make_scene("detect_json");
    const CommandResult r = cascade("detect --model " + q(s.model) + " --json " + q(s.dir / "out.json") + " --draw " +
                              q(s.dir / "drawn") + " " + q(s.image),
                          s.dir);
    ASSERT_EQ(r.code, 0) << r.err;
    const auto j = nlohmann::json::parse(slurp(s.dir / "out.json"));
    EXPECT_EQ(j["model"], s.model.string());
    EXPECT_EQ(j["params"]["stride"], 8);
    EXPECT_EQ(j["params"]["scale_step"], 1.2);
    EXPECT_EQ(j["params"]["fuse"], "meanshift");
    ASSERT_EQ(j["images"].size(), 1u);
    const auto& im = j["images"][0];
    EXPECT_EQ(im["path"], s.image.string());
    EXPECT_EQ(im["width"], 420);
    EXPECT_EQ(im["height"], 400);
    ASSERT_EQ(im["detections"].size(), 2u);
    // The denser mode first; both near their bars' windows.
    const double expect[2][3] = {{32, 24, 64}, {230.4, 115.2, 92.16}};
    for (const auto& e : expect) {
        bool found = false;
        for (const auto& d : im["detections"])
            found |= std::abs(d["x"].get<double>() - e[0]) < 6 && std::abs(d["y"].get<double>() - e[1]) < 24 &&
                     std::abs(d["w"].get<double>() / e[2] - 1) < 0.25;
        EXPECT_TRUE(found) << "no detection near " << e[0] << "," << e[1];
    }
    EXPECT_GT(im["stats"]["windows_scanned"].get<long>(), 1000);
    const cv::Mat drawn = cv::imread((s.dir / "drawn" / "bars.png").string());
    ASSERT_FALSE(drawn.empty());
    EXPECT_EQ(drawn.cols, 420);
    // Green box edges were painted.
    EXPECT_EQ(drawn.at<cv::Vec3b>(24 + 64, 32 + 64)[1] + drawn.at<cv::Vec3b>(24 + 64, 32)[1] > 0, true);
    for (const auto& e : fs::directory_iterator(s.dir / "drawn")) EXPECT_EQ(e.path().filename().string()[0] != '.', true);
}

// --approximate-hog (and --approximate-lbp with it, which changes nothing for this model without
// LBP stages): the JSON says so, the CPU runs it, and it finds both bars (the second, at scale
// 1.44, from octave 0's histogram); with --scale-windows as well the run stops before any output,
// naming both options.
TEST(Cli, ApproximatedHogFindsTheBarsAndIsOneScanOnly) {
    const Scene s = make_scene("detect_approximated");
    for (const std::string lbp : {"", "--approximate-lbp "}) {
        const CommandResult r = cascade("detect --approximate-hog " + lbp + "--model " + q(s.model) + " --json " + q(s.dir / "out.json") + " " + q(s.image), s.dir);
        ASSERT_EQ(r.code, 0) << r.err;
        const auto j = nlohmann::json::parse(slurp(s.dir / "out.json"));
        EXPECT_EQ(j["params"]["approximate_hog"], true);
        EXPECT_EQ(j["params"]["approximate_lbp"], !lbp.empty());
        EXPECT_EQ(j["params"]["scale_windows"], false);
        EXPECT_EQ(j["backend"], "cpu");
        const auto& dets = j["images"][0]["detections"];
        ASSERT_EQ(dets.size(), 2u);
        for (const auto& e : {std::array<double, 3>{32, 24, 64}, std::array<double, 3>{230.4, 115.2, 92.16}})
            EXPECT_TRUE(std::any_of(dets.begin(), dets.end(), [&](const auto& d) {
                return std::abs(d["x"].template get<double>() - e[0]) < 6 && std::abs(d["y"].template get<double>() - e[1]) < 24 &&
                       std::abs(d["w"].template get<double>() / e[2] - 1) < 0.25;
            })) << "no detection near " << e[0] << "," << e[1];
    }
    for (const std::string other : {"--approximate-hog", "--approximate-lbp"}) {
        const CommandResult both = cascade("detect " + other + " --scale-windows --model " + q(s.model) + " --json " +
                                               q(s.dir / "both.json") + " " + q(s.image),
                                           s.dir);
        EXPECT_NE(both.code, 0) << other;
        EXPECT_NE(both.err.find("--scale-windows, " + other), std::string::npos) << both.err;
        EXPECT_FALSE(fs::exists(s.dir / "both.json")) << other;
    }
}

TEST(Cli, FusionChoicesAndParameters) {
    const Scene s = make_scene("detect_fuse");
    const CommandResult none = cascade("detect --model " + q(s.model) + " --fuse none --json " + q(s.dir / "none.json") + " " + q(s.image), s.dir);
    ASSERT_EQ(none.code, 0) << none.err;
    const CommandResult nms = cascade("detect --model " + q(s.model) + " --fuse nms --stride 4 --scale-step 1.1 --json " +
                                q(s.dir / "nms.json") + " " + q(s.image), s.dir);
    ASSERT_EQ(nms.code, 0) << nms.err;
    const auto jn = nlohmann::json::parse(slurp(s.dir / "none.json"));
    const auto jm = nlohmann::json::parse(slurp(s.dir / "nms.json"));
    EXPECT_GT(jn["images"][0]["detections"].size(), 2u);  // raw windows
    EXPECT_EQ(jm["params"]["stride"], 4);
    EXPECT_EQ(jm["params"]["fuse"], "nms");
    EXPECT_GE(jm["images"][0]["detections"].size(), 2u);
    const CommandResult bad = cascade("detect --model " + q(s.model) + " --fuse average " + q(s.image), s.dir);
    EXPECT_NE(bad.code, 0);
    const CommandResult bad_step = cascade("detect --model " + q(s.model) + " --scale-step 0.9 --json " + q(s.dir / "x.json") + " " + q(s.image), s.dir);
    EXPECT_EQ(bad_step.code, 1);
    EXPECT_NE(bad_step.err.find("scale step must be in [1.01, 10]"), std::string::npos) << bad_step.err;
    EXPECT_FALSE(fs::exists(s.dir / "x.json"));
    // The JSON's folder is created; one that cannot be (its parent is a file) stops the run first.
    const CommandResult new_dir = cascade("detect --model " + q(s.model) + " --json " + q(s.dir / "new" / "x.json") + " " + q(s.image), s.dir);
    EXPECT_EQ(new_dir.code, 0) << new_dir.err;
    EXPECT_TRUE(fs::exists(s.dir / "new" / "x.json"));
    const CommandResult no_dir = cascade("detect --model " + q(s.model) + " --json " + q(s.image / "x.json") + " " + q(s.image), s.dir);
    EXPECT_EQ(no_dir.code, 1);
    EXPECT_NE(no_dir.err.find("cannot create folder"), std::string::npos) << no_dir.err;
}

TEST(Cli, BadModelStopsBeforeAnyOutput) {
    const Scene s = make_scene("detect_bad_model");
    std::ofstream(s.dir / "broken.h5") << "not a model";
    const CommandResult r = cascade("detect --model " + q(s.dir / "broken.h5") + " --json " + q(s.dir / "out.json") + " --draw " +
                              q(s.dir / "drawn") + " " + q(s.image),
                          s.dir);
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.err.find((s.dir / "broken.h5").string() + ": /: not a cascadekit model file"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(s.dir / "out.json"));
    EXPECT_FALSE(fs::exists(s.dir / "drawn"));
}

TEST(Cli, UnreadableInputsAreNamedSkippedAndFailTheRun) {
    const Scene s = make_scene("detect_bad_inputs");
    std::ofstream(s.dir / "corrupt.png") << "\x89PNG but then nothing";
    write_pgm(s.dir / "tiny.pgm", constant_image(30, 30, 9));
    fs::create_directories(s.dir / "empty");
    const CommandResult r = cascade("detect --model " + q(s.model) + " --json " + q(s.dir / "out.json") + " " + q(s.dir / "corrupt.png") +
                              " " + q(s.dir / "missing.jpg") + " " + q(s.image) + " " + q(s.dir / "tiny.pgm") + " " + q(s.dir / "empty"),
                          s.dir);
    EXPECT_EQ(r.code, 2);
    for (const char* name : {"corrupt.png: not a readable image", "missing.jpg: no such file or folder",
                             "tiny.pgm: image 30x30 is smaller than the model window 64x128", "empty: folder holds no images"})
        EXPECT_NE(r.err.find(name), std::string::npos) << name << "\n" << r.err;
    const auto j = nlohmann::json::parse(slurp(s.dir / "out.json"));
    EXPECT_EQ(j["images"].size(), 1u);  // the good image still processed
    EXPECT_EQ(j["errors"].size(), 4u);
    // With --pad the message names the image as read and the border that was added to it.
    const CommandResult padded = cascade("detect --model " + q(s.model) + " --pad 0.25 " + q(s.dir / "tiny.pgm"), s.dir);
    EXPECT_EQ(padded.code, 2);
    EXPECT_NE(padded.err.find("tiny.pgm: image 30x30 with a border of 8 px (pad 0.25 of its height): image 46x46 is smaller "
                              "than the model window 64x128 at scale 1 "),
              std::string::npos)
        << padded.err;
}

TEST(Cli, FoldersListsAndVideos) {
    const Scene s = make_scene("detect_inputs");
    fs::create_directories(s.dir / "folder");
    fs::copy_file(s.image, s.dir / "folder" / "b.pgm");
    fs::copy_file(s.image, s.dir / "folder" / "a.pgm");
    std::ofstream(s.dir / "folder" / "notes.md") << "not an image";
    std::ofstream(s.dir / "list.txt") << "# two images\nfolder/a.pgm\n\n" << s.image.string() << "\n";
    {
        cv::VideoWriter video((s.dir / "clip.avi").string(), cv::VideoWriter::fourcc('M', 'J', 'P', 'G'), 10, {420, 400}, true);
        ASSERT_TRUE(video.isOpened());
        const cv::Mat frame = cv::imread(s.image.string());
        for (int i = 0; i < 4; ++i) video.write(frame);
    }
    const CommandResult r = cascade("detect --model " + q(s.model) + " --max-frames 3 --json " + q(s.dir / "out.json") + " --draw " +
                              q(s.dir / "drawn") + " " + q(s.dir / "folder") + " " + q(s.dir / "list.txt") + " " + q(s.dir / "clip.avi"),
                          s.dir);
    ASSERT_EQ(r.code, 0) << r.err;
    const auto j = nlohmann::json::parse(slurp(s.dir / "out.json"));
    ASSERT_EQ(j["images"].size(), 2u + 2u + 3u);
    EXPECT_EQ(fs::path(j["images"][0]["path"].get<std::string>()).filename(), "a.pgm");
    EXPECT_EQ(fs::path(j["images"][1]["path"].get<std::string>()).filename(), "b.pgm");
    EXPECT_EQ(j["images"][6]["frame"], 2);
    for (const auto& im : j["images"]) EXPECT_EQ(im["detections"].size(), 2u) << im["path"];
    EXPECT_TRUE(fs::exists(s.dir / "drawn" / "a.png"));
    EXPECT_TRUE(fs::exists(s.dir / "drawn" / "a-2.png"));  // the list names a.pgm again
    EXPECT_TRUE(fs::exists(s.dir / "drawn" / "clip_f000002.png"));
}

TEST(Cli, ConvertKeepsTheFirstStagesWhenAsked) {
    const fs::path dir = scratch_dir("convert-stages");
    const CascadeModel m = random_model(3, 2, 3, 2);
    save_model(m, dir / "m.h5");
    const CommandResult r = cascade("convert " + q(dir / "m.h5") + " " + q(dir / "cut.h5") + " --stages 2", dir);
    ASSERT_EQ(r.code, 0) << r.err;
    const CascadeModel cut = load_model(dir / "cut.h5");
    ASSERT_EQ(cut.stages.size(), 2u);
    for (std::size_t s = 0; s < 2; ++s) EXPECT_TRUE(cut.stages[s] == m.stages[s]) << "stage " << s + 1;
    const CommandResult more = cascade("convert " + q(dir / "m.h5") + " " + q(dir / "more.h5") + " --stages 4", dir);
    EXPECT_EQ(more.code, 1);
    EXPECT_NE(more.err.find("--stages 4 but the model has only 3 stage(s)"), std::string::npos) << more.err;
    EXPECT_FALSE(fs::exists(dir / "more.h5"));
}

TEST(Cli, InspectPrintsStagesAndDrawsBlocks) {
    const fs::path dir = scratch_dir("inspect");
    CascadeModel m = random_model(3, 2, 3, 2);
    save_model(m, dir / "m.h5");
    const CommandResult r = cascade("inspect " + q(dir / "m.h5") + " --draw " + q(dir / "stages.png"), dir);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("window 64x128, features lbp+hog"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("3 stage(s)"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("waldboost_lbp"), std::string::npos);
    EXPECT_NE(r.out.find("margin"), std::string::npos);
    EXPECT_NE(r.out.find("8 weak learner(s) in all"), std::string::npos) << r.out;
    const cv::Mat png = cv::imread((dir / "stages.png").string());
    ASSERT_FALSE(png.empty());
    EXPECT_GT(png.cols, 3 * 64 * 3);
    // --weak: one panel per weak classifier of the WaldBoost stage (2 here), 6x zoom, over a background.
    write_pgm(dir / "face.pgm", blobby_image(64, 128, 4));
    const CommandResult weak = cascade("inspect " + q(dir / "m.h5") + " --draw " + q(dir / "weak.png") + " --weak 5 --background " +
                                           q(dir / "face.pgm"), dir);
    ASSERT_EQ(weak.code, 0) << weak.err;
    const cv::Mat wpng = cv::imread((dir / "weak.png").string());
    ASSERT_FALSE(wpng.empty());
    EXPECT_EQ(wpng.cols, 2 * (64 * 6 + 6) + 6);
    const CommandResult no_wb = cascade("inspect " + q(dir / "m.h5") + " --draw " + q(dir / "w2.png") + " --weak 5 --stages 2", dir);
    EXPECT_EQ(no_wb.code, 1);
    EXPECT_NE(no_wb.err.find("has no waldboost_lbp stage among --stages"), std::string::npos) << no_wb.err;
    EXPECT_FALSE(fs::exists(dir / "w2.png"));
    const CommandResult pool = cascade("inspect --pool zhu", dir);
    EXPECT_EQ(pool.code, 0);
    EXPECT_EQ(pool.out, "pool zhu: 5029 blocks\n");
    EXPECT_EQ(cascade("inspect --pool dalal-triggs", dir).out, "pool dalal-triggs: 105 blocks\n");
    EXPECT_EQ(cascade("inspect --pool zhu-grid4", dir).out, "pool zhu-grid4: 2521 blocks\n");
    const CommandResult bad = cascade("inspect " + q(dir / "nope.h5"), dir);
    EXPECT_EQ(bad.code, 1);
    EXPECT_NE(bad.err.find("no such file"), std::string::npos);
}

TEST(Cli, BenchFeaturesWritesATable) {
    const fs::path dir = scratch_dir("bench");
    const CommandResult r = cascade("bench features --sizes 96x64,160x120 --repeats 1 --out " + q(dir / "bench.md"), dir);
    ASSERT_EQ(r.code, 0) << r.err;
    const std::string md = slurp(dir / "bench.md");
    EXPECT_NE(md.find("| 96x64 | 0.006 |"), std::string::npos) << md;
    EXPECT_NE(md.find("| 160x120 |"), std::string::npos) << md;
    EXPECT_NE(md.find("command: `cascade bench features"), std::string::npos);
    EXPECT_EQ(cascade("bench features --sizes 12 --repeats 1", dir).code, 1);
}

TEST(Cli, BenchDetectScalingTable) {
    const fs::path dir = scratch_dir("bench_detect");
    const std::string model = (source_dir() / "models" / "faces-lbp.h5").string();
    const CommandResult r = cascade("bench detect --backend cpu --model " + q(model) +
                                        " --sizes 160x120 --scale-steps 1.2 --strides 2 --cpu-repeats 1 --cpu-threads 1,2 --out " +
                                        q(dir / "bench.md"),
                                    dir);
    ASSERT_EQ(r.code, 0) << r.err;
    const std::string md = slurp(dir / "bench.md");
    EXPECT_NE(md.find("## CPU scaling"), std::string::npos) << md;
    EXPECT_NE(md.find("| 160x120 | ×1.2 | 2 | 1 | "), std::string::npos) << md;
    EXPECT_NE(md.find("| 160x120 | ×1.2 | 2 | 2 | "), std::string::npos) << md;
    EXPECT_NE(md.find(" | 1.00× | 100 % |"), std::string::npos) << md;
    EXPECT_NE(md.find("Interleaved: 1 round, each timing one frame at every count in turn"), std::string::npos) << md;
    EXPECT_NE(md.find(" hardware threads"), std::string::npos) << md;
    EXPECT_NE(md.find("| many frames, ms a frame | speed-up | efficiency |"), std::string::npos) << md;
    EXPECT_EQ(cascade("bench detect --backend cpu --model " + q(model) + " --cpu-threads 0", dir).code, 1);
}

TEST(Cli, TrainResumeInspectAndEvaluate) {
    const fs::path dir = scratch_dir("cli_train");
    write_bar_training_lists(dir);
    std::ofstream(dir / "cfg.yaml") << "seed: 3\n"
                                       "data: {layout: lists, positives_list: " << (dir / "pos.txt").string()
                                    << ", negatives_list: " << (dir / "neg.txt").string() << ", holdout_every: 5, split_file: "
                                    << (dir / "split.txt").string() << "}\n"
                                       "boosting: {candidates_per_round: 8, F_target: 0.01, max_stages: 3, max_learners_per_stage: 6}\n"
                                       "mining: {backend: cpu}\n";
    const CommandResult first = cascade("train --config " + q(dir / "cfg.yaml") + " --out " + q(dir / "m.h5") + " --stop-after-rounds 1", dir);
    ASSERT_EQ(first.code, 0) << first.err;
    EXPECT_NE(first.err.find("stage  1 round   1"), std::string::npos) << first.err;
    EXPECT_NE(first.err.find("mining for stage 2"), std::string::npos) << first.err;
    EXPECT_NE(first.err.find("continue with --resume"), std::string::npos) << first.err;
    EXPECT_TRUE(fs::exists(dir / "split.txt"));
    const CommandResult resumed = cascade("train --config " + q(dir / "cfg.yaml") + " --out " + q(dir / "m.h5") + " --resume", dir);
    ASSERT_EQ(resumed.code, 0) << resumed.err;
    EXPECT_NE(resumed.err.find("resuming"), std::string::npos) << resumed.err;
    EXPECT_NE(resumed.err.find("finished"), std::string::npos) << resumed.err;
    EXPECT_EQ(cascade("inspect " + q(dir / "m.h5"), dir).code, 0);

    const CommandResult ev = cascade("eval --model " + q(dir / "m.h5") + " --config " + q(dir / "cfg.yaml") + " --fppw " +
                                         q(dir / "fppw.csv") + " --rejection " + q(dir / "rej.csv") + " --label tiny", dir);
    ASSERT_EQ(ev.code, 0) << ev.err;
    EXPECT_NE(ev.out.find("tiny: FPPW over 12 positives"), std::string::npos) << ev.out;
    EXPECT_NE(ev.out.find("rejection profile"), std::string::npos) << ev.out;
    EXPECT_EQ(slurp(dir / "fppw.csv").rfind("fppw,miss_rate,threshold\n", 0), 0u);
    // Without --config: the configuration stored in the model names the same held-out data.
    const CommandResult stored = cascade("eval --model " + q(dir / "m.h5") + " --fppw " + q(dir / "fppw2.csv") + " --label tiny", dir);
    ASSERT_EQ(stored.code, 0) << stored.err;
    EXPECT_NE(stored.err.find("held-out data of the configuration stored in"), std::string::npos) << stored.err;
    EXPECT_NE(stored.out.find("tiny: FPPW over 12 positives"), std::string::npos) << stored.out;
    EXPECT_EQ(slurp(dir / "fppw2.csv"), slurp(dir / "fppw.csv"));

    // Another detector's detections on a PennFudan-like folder.
    fs::create_directories(dir / "pf" / "PNGImages");
    fs::create_directories(dir / "pf" / "Annotation");
    write_pgm(dir / "pf" / "PNGImages" / "img1.png", constant_image(10, 10, 0));  // content unused
    std::ofstream(dir / "pf" / "Annotation" / "img1.txt")
        << "Bounding box for object 1 \"PASpersonWalking\" (Xmin, Ymin) - (Xmax, Ymax) : (100, 100) - (137, 195)\n";
    std::ofstream(dir / "dets.json") << R"({"images": [{"path": "x/img1.png", "detections": [
        {"x": 86.5, "y": 84, "w": 64, "h": 128, "score": 2.0}, {"x": 400, "y": 0, "w": 64, "h": 128, "score": 1.0}]}]})";
    const CommandResult pf = cascade("eval --detections " + q(dir / "dets.json") + " --pennfudan " + q(dir / "pf") + " --fppi " +
                                         q(dir / "fppi.csv") + " --label peer", dir);
    ASSERT_EQ(pf.code, 0) << pf.err;
    EXPECT_NE(pf.out.find("peer: PennFudan (1 images, 1 people, detections as given)"), std::string::npos) << pf.out;
    EXPECT_NE(pf.out.find("0.0000 at 1 FPPI"), std::string::npos) << pf.out;
    EXPECT_EQ(cascade("eval --fppw x.csv", dir).code, 1);
    EXPECT_EQ(cascade("train --config " + q(dir / "cfg.yaml") + " --out " + q(dir / "m2.h5") + " --resume", dir).code, 1);
}

// --device is checked: a CUDA device that does not exist is refused by number (CPU builds: the
// CUDA backend is absent, said as much); with --backend cpu the option is accepted and ignored.
TEST(Cli, DeviceOptionIsCheckedAndIgnoredOnTheCpu) {
    const auto scene = make_scene("cli_device");
    const auto cpu = cascade("detect --backend cpu --device 3 --model " + q(scene.model) + " " + q(scene.image), scene.dir);
    EXPECT_EQ(cpu.code, 0) << cpu.err;
    const auto cuda = cascade("detect --backend cuda --device 99 --model " + q(scene.model) + " " + q(scene.image), scene.dir);
    EXPECT_EQ(cuda.code, 1) << cuda.err;
    EXPECT_TRUE(cuda.err.find("CUDA device 99 does not exist") != std::string::npos ||
                cuda.err.find("CUDA backend") != std::string::npos)
        << cuda.err;
    EXPECT_EQ(cascade("detect --device -1 --model " + q(scene.model) + " " + q(scene.image), scene.dir).code, 1);
}

// eval --faces with another detector's boxes: the face-points rule takes a loose box that IoU
// with CMU+MIT's boxes refuses; both rules are printed.
TEST(Cli, EvalFacesTakesAnotherDetectorsBoxConvention) {
    const fs::path dir = scratch_dir("cli_faces");
    for (const char* part : {"test", "test-low"}) {
        fs::create_directories(dir / "cmu" / part);
        write_pgm(dir / "cmu" / part / (std::string(part) + "-a.png"), constant_image(10, 10, 0));  // content unused
        std::ofstream(dir / "cmu" / part / "facegroundtruth.txt") << part << "-a.png 100 100 40 44\n";
        std::ofstream(dir / "cmu" / part / "groundtruth.txt")
            << "#filename left-eye right-eye nose left-corner-mouth center-mouth right-corner-mouth\n"
            << part << "-a.png 110 112 130 112 120 122 114 132 120 132 126 132\n";
    }
    // test: a loose box (forehead to chin) and a far-off one; test-low: nothing.
    std::ofstream(dir / "dets.json") << R"({"images": [{"path": "elsewhere/test/test-a.png", "detections": [
        {"x": 88, "y": 84, "w": 64, "h": 70, "score": 5}, {"x": 300, "y": 0, "w": 40, "h": 40, "score": 1}]}]})";
    const CommandResult r = cascade("eval --detections " + q(dir / "dets.json") + " --cmu-mit " + q(dir / "cmu") + " --faces " +
                                        q(dir / "faces.csv") + " --label peer",
                                    dir);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("peer: CMU+MIT frontal faces (2 images, 2 faces), face points rule: detection rate 0.500@10"),
              std::string::npos) << r.out;
    EXPECT_NE(r.out.find("IoU >= 0.5 with the boxes: detection rate 0.000@10"), std::string::npos) << r.out;
    EXPECT_NE(r.err.find("1 of the 2 images of CMU+MIT frontal faces have no entry"), std::string::npos) << r.err;
    EXPECT_TRUE(fs::exists(dir / "faces.csv"));
    std::ofstream(dir / "bad.json") << R"({"images": [{"path": "test/test-a.png", "detections": [{"x": 1}]}]})";
    const CommandResult bad = cascade("eval --detections " + q(dir / "bad.json") + " --cmu-mit " + q(dir / "cmu") + " --faces " +
                                          q(dir / "f2.csv"), dir);
    EXPECT_EQ(bad.code, 1);
    EXPECT_NE(bad.err.find("bad.json: not a detections file"), std::string::npos) << bad.err;
    EXPECT_FALSE(fs::exists(dir / "f2.csv"));
}

// --annotations: the same set in the four labelling tools' formats gives the same figures (the
// bar model's binary votes tie every score, so the figures themselves are not the point); a
// class keeps its objects only; an ignored region is neither hit nor false positive; a damaged
// file is named and no curve is written; eval with nothing to measure says what it can do.
TEST(Cli, EvalAnnotationsInEveryFormat) {
    const Scene s = make_scene("cli_annotations");
    const std::string img = s.image.filename().string();
    // The two bars' windows (runtime tests): (32, 24) at scale 1, (230.4, 115.2) at scale 1.44.
    std::ofstream(s.dir / "bars.txt") << img << " 2 32 24 64 128 230.4 115.2 92.16 184.32\n";
    std::ofstream(s.dir / "bars.json") << R"({"images": [{"id": 1, "file_name": ")" << img
                                         << R"("}], "categories": [{"id": 1, "name": "bar"}, {"id": 2, "name": "post"}],
        "annotations": [{"image_id": 1, "bbox": [32, 24, 64, 128], "category_id": 1},
                        {"image_id": 1, "bbox": [230.4, 115.2, 92.16, 184.32], "category_id": 1}]})";
    std::ofstream(s.dir / "dlib.xml") << "<dataset><images><image file='" << img
                                      << "'><box top='24' left='32' width='64' height='128'/>"
                                         "<box top='115.2' left='230.4' width='92.16' height='184.32'/></image></images></dataset>";
    fs::create_directories(s.dir / "voc");
    std::ofstream(s.dir / "voc/bars.xml") << "<annotation><filename>" << img
                                          << "</filename><object><name>bar</name><bndbox><xmin>33</xmin><ymin>25</ymin>"
                                             "<xmax>96</xmax><ymax>152</ymax></bndbox></object><object><name>bar</name>"
                                             "<bndbox><xmin>231.4</xmin><ymin>116.2</ymin><xmax>322.56</xmax><ymax>299.52</ymax>"
                                             "</bndbox></object></annotation>";
    const std::string common = "eval --model " + q(s.model) + " --pad 0 --label bars --annotations ";
    std::string first;
    for (const std::string& a : {q(s.dir / "bars.txt"), q(s.dir / "bars.json") + " --class bar", q(s.dir / "dlib.xml"),
                                 q(s.dir / "voc") + " --images " + q(s.dir)}) {
        const CommandResult r = cascade(common + a + " --curve " + q(s.dir / "c.csv"), s.dir);
        ASSERT_EQ(r.code, 0) << a << ": " << r.err;
        EXPECT_NE(r.out.find("1 images, 2 objects"), std::string::npos) << r.out;
        const std::string figures = r.out.substr(r.out.find("padding"));
        EXPECT_NE(figures.find("AP@0.5 "), std::string::npos) << r.out;
        // The scan's work: weak classifiers per window and the share of windows reaching the next stages.
        EXPECT_NE(figures.find("weak classifiers per window; reaching stage 2: "), std::string::npos) << r.out;
        if (first.empty()) first = figures;
        EXPECT_EQ(figures, first) << a;
        EXPECT_TRUE(fs::exists(s.dir / "c.csv"));
    }
    // A plot of this curve and an earlier one; a malformed curve to compare is refused first.
    const CommandResult plot = cascade(common + q(s.dir / "bars.txt") + " --plot " + q(s.dir / "p.png") + " --compare " +
                                           q("earlier=" + (s.dir / "c.csv").string()), s.dir);
    ASSERT_EQ(plot.code, 0) << plot.err;
    const cv::Mat png = cv::imread((s.dir / "p.png").string());
    EXPECT_EQ(png.cols, 760);
    EXPECT_EQ(png.rows, 560);
    std::ofstream(s.dir / "notcurve.csv") << "a,b\n1,2\n";
    const CommandResult badcurve = cascade(common + q(s.dir / "bars.txt") + " --plot " + q(s.dir / "p2.png") + " --compare " +
                                               q("x=" + (s.dir / "notcurve.csv").string()), s.dir);
    EXPECT_EQ(badcurve.code, 1);
    EXPECT_NE(badcurve.err.find("notcurve.csv: not an FPPI curve"), std::string::npos) << badcurve.err;
    EXPECT_FALSE(fs::exists(s.dir / "p2.png"));
    // A class with no objects here, and one bar turned into a crowd (ignored) region.
    const CommandResult post = cascade(common + q(s.dir / "bars.json") + " --class post", s.dir);
    EXPECT_NE(post.out.find("1 images, 0 objects"), std::string::npos) << post.out << post.err;
    std::ofstream(s.dir / "crowd.json") << R"({"images": [{"id": 1, "file_name": ")" << img << R"("}],
        "annotations": [{"image_id": 1, "bbox": [32, 24, 64, 128]},
                        {"image_id": 1, "bbox": [230.4, 115.2, 92.16, 184.32], "iscrowd": 1}]})";
    const CommandResult crowd = cascade(common + q(s.dir / "crowd.json"), s.dir);
    EXPECT_NE(crowd.out.find("1 images, 1 objects"), std::string::npos) << crowd.out << crowd.err;
    // Damage: named, exit 1, no curve.
    std::ofstream(s.dir / "bad.json") << R"({"images": [{"id": 1, "file_name": "x"}], "annotations": [{"image_id": 1, "bbox": [1, 2, -3, 4]}]})";
    const CommandResult bad = cascade(common + q(s.dir / "bad.json") + " --curve " + q(s.dir / "bad.csv"), s.dir);
    EXPECT_EQ(bad.code, 1);
    EXPECT_NE(bad.err.find("bad.json: annotations[0]: box of size"), std::string::npos) << bad.err;
    EXPECT_FALSE(fs::exists(s.dir / "bad.csv"));
    const CommandResult nothing = cascade("eval --model " + q(s.model), s.dir);
    EXPECT_EQ(nothing.code, 1);
    EXPECT_NE(nothing.err.find("nothing to measure"), std::string::npos) << nothing.err;
}

// Operating points: --threshold and --min-neighbors on fused boxes, --min-size/--max-size
// as window heights; each box says how many windows it stands for; conflicting options refused.
TEST(Cli, DetectOperatingPoints) {
    const Scene s = make_scene("cli_operating_points");
    auto boxes = [&](const std::string& args) {
        const CommandResult r = cascade("-q detect --model " + q(s.model) + " --json " + q(s.dir / "d.json") + " " + args + " " +
                                            q(s.image), s.dir);
        EXPECT_EQ(r.code, 0) << args << ": " << r.err;
        return nlohmann::json::parse(slurp(s.dir / "d.json"));
    };
    const auto raw = boxes("--fuse none");
    const auto& windows = raw["images"][0]["detections"];
    ASSERT_GT(windows.size(), 4u);
    for (const auto& d : windows) EXPECT_EQ(d["windows"], 1);
    const auto nms = boxes("--fuse nms");
    int counted = 0;
    for (const auto& d : nms["images"][0]["detections"]) counted += d["windows"].get<int>();
    EXPECT_EQ(counted, static_cast<int>(windows.size()));  // each window counted by exactly one box
    const auto strict = boxes("--fuse nms --min-neighbors 2");
    EXPECT_LT(strict["images"][0]["detections"].size(), nms["images"][0]["detections"].size());
    for (const auto& d : strict["images"][0]["detections"]) EXPECT_GT(d["windows"].get<int>(), 2);
    EXPECT_EQ(boxes("--fuse none --threshold 1e9")["images"][0]["detections"].size(), 0u);
    // The bar model's window is 128 tall: --min-size 184.32 is scale 1.44, the second bar's.
    const auto big = boxes("--fuse none --min-size 184.32");
    EXPECT_DOUBLE_EQ(big["params"]["min_scale"].get<double>(), 1.44);
    for (const auto& d : big["images"][0]["detections"]) EXPECT_GE(d["h"].get<double>(), 184.32 - 1e-9);
    const CommandResult both = cascade("detect --model " + q(s.model) + " --min-size 100 --min-scale 2 " + q(s.image), s.dir);
    EXPECT_EQ(both.code, 1);
    EXPECT_NE(both.err.find("excludes"), std::string::npos) << both.err;
    // --pad: the image scanned with a border (100 px here): more windows; boxes in the image's
    // coordinates, none further out than the border.
    const auto padded = boxes("--fuse none --pad 0.25");
    EXPECT_DOUBLE_EQ(padded["params"]["pad"].get<double>(), 0.25);
    for (const auto& d : padded["images"][0]["detections"]) {
        const double x = d["x"], y = d["y"], w = d["w"], h = d["h"];
        EXPECT_GE(x, -100.0);
        EXPECT_GE(y, -100.0);
        EXPECT_LE(x + w, 420.0 + 100.0);
        EXPECT_LE(y + h, 400.0 + 100.0);
    }
    EXPECT_GT(padded["images"][0]["stats"]["windows_scanned"].get<double>(), raw["images"][0]["stats"]["windows_scanned"].get<double>());
    const CommandResult far = cascade("detect --model " + q(s.model) + " --pad 2 " + q(s.image), s.dir);
    EXPECT_EQ(far.code, 1);
    EXPECT_NE(far.err.find("--pad"), std::string::npos) << far.err;
    const CommandResult none = cascade("detect --model " + q(s.model) + " --fuse none --min-neighbors 1 " + q(s.image), s.dir);
    EXPECT_EQ(none.code, 1);
    EXPECT_NE(none.err.find("--min-neighbors needs fusion"), std::string::npos) << none.err;
}

// cascade calibrate chooses a threshold on half the images for a target FPPI, stores it with the
// scan and fusion in the model; detect then runs that way unless told otherwise.
TEST(Cli, CalibrateStoresTheOperatingPointDetectUses) {
    const Scene s = make_scene("cli_calibrate");
    fs::copy_file(s.image, s.dir / "bars2.pgm");
    std::ofstream(s.dir / "bars.txt") << "bars.pgm 2 32 24 64 128 230.4 115.2 92.16 184.32\n"
                                         "bars2.pgm 2 32 24 64 128 230.4 115.2 92.16 184.32\n";
    const fs::path out = s.dir / "calibrated.h5";
    const CommandResult r = cascade("calibrate --model " + q(s.model) + " --out " + q(out) + " --annotations " +
                                        q(s.dir / "bars.txt") + " --fppi 0.5 --scale-step 1.44 --fuse meanshift --min-scale 1", s.dir);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("threshold "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("chosen on 1 images: FPPI "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("checked on the other 1: FPPI "), std::string::npos) << r.out;
    const CascadeModel m = load_model(out);
    EXPECT_EQ(m.stages, load_model(s.model).stages);  // only the operating point changed
    EXPECT_EQ(m.operating.stride, 8);  // not given: the model's
    EXPECT_FLOAT_EQ(m.operating.scale_step, 1.44f);
    EXPECT_EQ(m.operating.fuse, "meanshift");
    EXPECT_NE(m.operating.chosen_on.find("FPPI <= 0.500 on 1 of the 2 images"), std::string::npos) << m.operating.chosen_on;
    const CommandResult insp = cascade("inspect " + q(out), s.dir);
    EXPECT_NE(insp.out.find("operating point: threshold "), std::string::npos) << insp.out;
    EXPECT_NE(insp.out.find("stride 8, scale step 1.44"), std::string::npos) << insp.out;

    // detect takes it all from the model; options given replace single values.
    const CommandResult d = cascade("-q detect --model " + q(out) + " --json " + q(s.dir / "d.json") + " " + q(s.image), s.dir);
    ASSERT_EQ(d.code, 0) << d.err;
    const auto j = nlohmann::json::parse(slurp(s.dir / "d.json"));
    EXPECT_EQ(j["params"]["stride"], 8);
    EXPECT_EQ(j["params"]["scale_step"], 1.44);
    EXPECT_EQ(j["params"]["fuse"], "meanshift");
    EXPECT_EQ(j["params"]["threshold"].get<double>(), decimal_value(m.operating.threshold));
    EXPECT_EQ(j["operating_point"], m.operating.chosen_on);
    ASSERT_FALSE(j["images"][0]["detections"].empty());
    for (const auto& b : j["images"][0]["detections"]) EXPECT_GE(b["score"].get<double>(), decimal_value(m.operating.threshold) - 1e-4);
    const CommandResult d8 = cascade("-q detect --model " + q(out) + " --stride 4 --threshold 0 --json " + q(s.dir / "d8.json") + " " +
                                         q(s.image), s.dir);
    ASSERT_EQ(d8.code, 0) << d8.err;
    const auto j8 = nlohmann::json::parse(slurp(s.dir / "d8.json"));
    EXPECT_EQ(j8["params"]["stride"], 4);
    EXPECT_EQ(j8["params"]["threshold"], 0.0);
    EXPECT_EQ(j8["params"]["scale_step"], 1.44);  // still the model's

    // Bad requests: named, exit 1, nothing written.
    const fs::path none = s.dir / "none.h5";
    for (const auto& [args, says] : std::vector<std::pair<std::string, std::string>>{
             {"", "give the images to calibrate on"},
             {" --annotations " + q(s.dir / "bars.txt") + " --fppi 0", "--fppi must be a positive number"},
             {" --annotations " + q(s.dir / "bars.txt") + " --stride 0", "/detect@stride"},
             {" --annotations " + q(s.dir / "missing.txt"), "missing.txt"},
             // every box of the binary bar model scores alike: no threshold removes its extra NMS boxes
             {" --annotations " + q(s.dir / "bars.txt") + " --stride 4 --fuse nms --fppi 0.1", "even the strictest threshold"}}) {
        const CommandResult bad = cascade("calibrate --model " + q(s.model) + " --out " + q(none) + args, s.dir);
        EXPECT_EQ(bad.code, 1) << args;
        EXPECT_NE(bad.err.find(says), std::string::npos) << args << ": " << bad.err;
        EXPECT_FALSE(fs::exists(none));
    }
    std::ofstream(s.dir / "one.txt") << "bars.pgm 2 32 24 64 128 230.4 115.2 92.16 184.32\n";
    const CommandResult one = cascade("calibrate --model " + q(s.model) + " --out " + q(none) + " --annotations " + q(s.dir / "one.txt"), s.dir);
    EXPECT_EQ(one.code, 1);
    EXPECT_NE(one.err.find("at least 2 images"), std::string::npos) << one.err;
}

// Boxes are the object's box inside each window (the model's object box); the JSON keeps the
// window; --window-boxes reports windows.
TEST(Cli, DetectReportsObjectBoxes) {
    const Scene s = make_scene("cli_object_boxes");
    CascadeModel m = load_model(s.model);
    m.object_box = {0.25f, 0.125f, 0.5f, 0.75f};
    save_model(m, s.model);
    auto detections = [&](const std::string& args) {
        const CommandResult r = cascade("-q detect --model " + q(s.model) + " --fuse nms --json " + q(s.dir / "d.json") + " " + args +
                                            " " + q(s.image), s.dir);
        EXPECT_EQ(r.code, 0) << r.err;
        return nlohmann::json::parse(slurp(s.dir / "d.json"));
    };
    const auto objects = detections("");
    const auto windows = detections("--window-boxes");
    EXPECT_EQ(objects["params"]["boxes"], "object");
    EXPECT_EQ(windows["params"]["boxes"], "window");
    EXPECT_EQ(objects["object_box"], nlohmann::json::array({0.25, 0.125, 0.5, 0.75}));
    const auto& o = objects["images"][0]["detections"];
    const auto& w = windows["images"][0]["detections"];
    ASSERT_EQ(o.size(), w.size());
    ASSERT_FALSE(o.empty());
    for (std::size_t k = 0; k < o.size(); ++k) {
        const auto& win = o[k]["window"];
        EXPECT_NEAR(win[0].get<double>(), w[k]["x"].get<double>(), 1e-9);
        EXPECT_NEAR(win[3].get<double>(), w[k]["h"].get<double>(), 1e-9);
        EXPECT_NEAR(o[k]["x"].get<double>(), win[0].get<double>() + 0.25 * win[2].get<double>(), 0.011);
        EXPECT_NEAR(o[k]["y"].get<double>(), win[1].get<double>() + 0.125 * win[3].get<double>(), 0.011);
        EXPECT_NEAR(o[k]["w"].get<double>(), 0.5 * win[2].get<double>(), 0.011);
        EXPECT_NEAR(o[k]["h"].get<double>(), 0.75 * win[3].get<double>(), 0.011);
    }
}

// --coco: COCO results JSON with image ids by input order, or from a COCO annotation file by
// file name; an image that file does not list is a failed input (exit 2), a bad file stops the
// run before any output.
TEST(Cli, DetectWritesCocoResults) {
    const Scene s = make_scene("cli_coco");
    const std::string base = "-q detect --model " + q(s.model) + " --fuse nms --json " + q(s.dir / "d.json") + " --coco ";
    const CommandResult r = cascade(base + q(s.dir / "r.json") + " " + q(s.image) + " " + q(s.image), s.dir);
    ASSERT_EQ(r.code, 0) << r.err;
    const auto results = nlohmann::json::parse(slurp(s.dir / "r.json"));
    const auto detect = nlohmann::json::parse(slurp(s.dir / "d.json"));
    ASSERT_TRUE(results.is_array());
    const std::size_t per_image = detect["images"][0]["detections"].size();
    ASSERT_GT(per_image, 0u);
    ASSERT_EQ(results.size(), 2 * per_image);
    EXPECT_EQ(results[0]["image_id"], 1);
    EXPECT_EQ(results[per_image]["image_id"], 2);
    EXPECT_EQ(results[0]["category_id"], 1);
    const auto& d0 = detect["images"][0]["detections"][0];
    EXPECT_EQ(results[0]["bbox"], nlohmann::json({d0["x"], d0["y"], d0["w"], d0["h"]}));
    EXPECT_EQ(results[0]["score"], d0["score"]);
    std::ofstream(s.dir / "gt.json") << R"({"images": [{"id": 42, "file_name": "somewhere/bars.pgm"}]})";
    const CommandResult ids = cascade(base + q(s.dir / "r2.json") + " --coco-annotations " + q(s.dir / "gt.json") +
                                          " --coco-category 7 " + q(s.image), s.dir);
    ASSERT_EQ(ids.code, 0) << ids.err;
    const auto r2 = nlohmann::json::parse(slurp(s.dir / "r2.json"));
    EXPECT_EQ(r2[0]["image_id"], 42);
    EXPECT_EQ(r2[0]["category_id"], 7);
    std::ofstream(s.dir / "other.json") << R"({"images": [{"id": 5, "file_name": "else.png"}]})";
    const CommandResult unknown = cascade(base + q(s.dir / "r3.json") + " --coco-annotations " + q(s.dir / "other.json") + " " +
                                              q(s.image), s.dir);
    EXPECT_EQ(unknown.code, 2);
    EXPECT_NE(unknown.err.find("not among the images of"), std::string::npos) << unknown.err;
    std::ofstream(s.dir / "bad.json") << "{\"images\": 3}";
    const CommandResult bad = cascade(base + q(s.dir / "r4.json") + " --coco-annotations " + q(s.dir / "bad.json") + " " +
                                          q(s.image), s.dir);
    EXPECT_EQ(bad.code, 1);
    EXPECT_NE(bad.err.find("bad.json: not a COCO annotation file"), std::string::npos) << bad.err;
    EXPECT_FALSE(fs::exists(s.dir / "r4.json"));
}

// cascade crop: each box placed in the window by the object-box convention, boxes too small or of
// the wrong aspect counted and skipped, a box at the image's edge filled by a replicated border,
// an unreadable image named (exit 2).
TEST(Cli, CropCutsPositivesFromAnnotations) {
    const fs::path dir = scratch_dir("cli_crop");
    GrayImage img = constant_image(200, 160, 30);
    for (int y = 40; y < 100; ++y)
        for (int x = 50; x < 80; ++x) img.at(x, y) = 220;  // a 30x60 "person"
    write_pgm(dir / "a.pgm", img);
    // The person; one too small (under 48 px: half of 3/4 of 128); one too wide; one at the edge.
    std::ofstream(dir / "a.txt") << "a.pgm 4 50 40 30 60 10 10 8 16 100 20 120 50 0 100 25 60\nmissing.pgm 1 1 1 30 60\n";
    const CommandResult r = cascade("crop --annotations " + q(dir / "a.txt") + " --out " + q(dir / "crops"), dir);
    EXPECT_EQ(r.code, 2) << r.err;  // missing.pgm
    EXPECT_NE(r.err.find("missing.pgm"), std::string::npos) << r.err;
    EXPECT_NE(r.out.find("2 crops of 64x128 from 2 annotated images"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("1 too small"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("1 of the wrong aspect"), std::string::npos) << r.out;
    const cv::Mat person = cv::imread((dir / "crops" / "a-1.png").string(), cv::IMREAD_GRAYSCALE);
    ASSERT_EQ(person.cols, 64);
    ASSERT_EQ(person.rows, 128);
    // The box fills 0.75 of the window's height, centred: rows 16..111 bright, the corners dark.
    EXPECT_GT(person.at<std::uint8_t>(64, 32), 200);
    EXPECT_LT(person.at<std::uint8_t>(4, 4), 60);
    EXPECT_LT(person.at<std::uint8_t>(123, 32), 60);
    EXPECT_TRUE(fs::exists(dir / "crops" / "a-4.png"));  // at the edge
    // The box as the whole window (faces): --object-box 0,0,1,1 and a square window.
    const CommandResult faces = cascade("crop --annotations " + q(dir / "a.txt") + " --out " + q(dir / "sq") +
                                            " --window 24x24 --object-box 0,0,1,1 --max-aspect 3 --min-height 1", dir);
    EXPECT_NE(faces.out.find("4 crops of 24x24"), std::string::npos) << faces.out << faces.err;
    const CommandResult bad = cascade("crop --annotations " + q(dir / "a.txt") + " --out " + q(dir / "x") + " --object-box 0.5,0,0.8,1", dir);
    EXPECT_EQ(bad.code, 1);
    EXPECT_NE(bad.err.find("--object-box"), std::string::npos) << bad.err;
}
