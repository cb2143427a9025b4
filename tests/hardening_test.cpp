// Hostile and unlucky input through the `cascade` command, one test per class of damage: each
// asserts the exit code, the message naming the file and the problem, and that no output was
// written. (model_file_test, trainer_test and fuzz/ cover the same parsers in-process.)
#include <gtest/gtest.h>
#include <hdf5.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <opencv2/imgcodecs.hpp>
#include <random>
#include <thread>

#include "cascadekit/io/model_file.hpp"
#include "cli_support.hpp"
#include "model_edit.hpp"
#include "test_support.hpp"

using namespace cascadekit;
using namespace cascadekit::test;
namespace fs = std::filesystem;

namespace {

std::vector<char> file_bytes(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void put_bytes(const fs::path& p, const std::vector<char>& b) {
    std::ofstream(p, std::ios::binary | std::ios::trunc).write(b.data(), static_cast<std::streamsize>(b.size()));
}

// The files in a folder other than the command's captured output.
std::vector<std::string> outputs(const fs::path& dir, const std::vector<std::string>& inputs) {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(dir)) {
        const std::string n = e.path().filename().string();
        if (n == "stdout.txt" || n == "stderr.txt" || std::find(inputs.begin(), inputs.end(), n) != inputs.end()) continue;
        out.push_back(n);
    }
    return out;
}

void expect_has(const std::string& text, const std::string& part) { EXPECT_NE(text.find(part), std::string::npos) << part << "\n" << text; }

}  // namespace

// 1. A block rectangle whose x + w overflows int: refused at load, never evaluated.
TEST(Hardening, OverflowingRectanglesAreRefused) {
    const Scene s = make_scene("hard_overflow");
    ASSERT_TRUE(edit_model_file(s.model, [](hid_t f) {
        poke(f, "/stages/000/blocks", 0, 0, 2147483640);
        poke(f, "/stages/000/blocks", 0, 1, 0);
        poke(f, "/stages/000/blocks", 0, 2, 16);
        poke(f, "/stages/000/blocks", 0, 3, 16);
    }));
    const CommandResult r = cascade("detect --model " + q(s.model) + " --json " + q(s.dir / "out.json") + " " + q(s.image), s.dir);
    EXPECT_EQ(r.code, 1) << r.err;
    expect_has(r.err, s.model.string() + ": /stages/000/blocks[0]: block (x=2147483640, y=0, w=16, h=16) is not inside the 64x128 window");
    EXPECT_TRUE(outputs(s.dir, {"bar.h5", "bars.pgm"}).empty());
}

// 2. One changed byte anywhere in a model: refused by its checksum before libhdf5 reads it.
TEST(Hardening, DamagedModelIsRefusedBeforeHdf5) {
    const Scene s = make_scene("hard_damaged_model");
    auto b = file_bytes(s.model);
    b[b.size() / 2] = static_cast<char>(b[b.size() / 2] ^ 0x40);
    put_bytes(s.model, b);
    for (const std::string& cmd : {"inspect " + q(s.model) + " --draw " + q(s.dir / "stages.png"),
                                  "detect --model " + q(s.model) + " --json " + q(s.dir / "out.json") + " " + q(s.image)}) {
        const CommandResult r = cascade(cmd, s.dir);
        EXPECT_EQ(r.code, 1) << r.err;
        expect_has(r.err, s.model.string() + ": /: damaged: SHA-256 of the contents is");
        EXPECT_TRUE(outputs(s.dir, {"bar.h5", "bars.pgm"}).empty());
    }
    // A zeroed run of 64 bytes (libhdf5 1.10 looped forever on one): the same, at once. Here it
    // is the HDF5 superblock's, which no layout of the file moves.
    b = file_bytes(s.model);
    std::fill(b.begin() + 512, b.begin() + 576, '\0');
    put_bytes(s.model, b);
    const CommandResult r = cascade("inspect " + q(s.model), s.dir);
    EXPECT_EQ(r.code, 1);
    expect_has(r.err, "damaged");
    // A schema-1 file is refused with the way out; cascade convert is that way (for trusted files).
    const CommandResult conv = cascade("convert " + q(s.model) + " " + q(s.dir / "fixed.h5"), s.dir);
    EXPECT_EQ(conv.code, 1) << conv.err;  // too damaged to convert: HDF5 structures are broken
    EXPECT_FALSE(fs::exists(s.dir / "fixed.h5"));
}

// 3. A model whose weights live in another file (/dev/zero) is refused.
TEST(Hardening, ModelsCannotPullDataFromElsewhere) {
    const Scene s = make_scene("hard_external");
    ASSERT_TRUE(edit_model_file(s.model, [](hid_t f) {
        recreate_float_dataset(f, "/stages/000/weights", {1, 36},
                               [](hid_t dcpl, hid_t) { H5Pset_external(dcpl, "/dev/zero", 0, 144); });
    }));
    const CommandResult r = cascade("detect --model " + q(s.model) + " " + q(s.image), s.dir);
    EXPECT_EQ(r.code, 1);
    expect_has(r.err, s.model.string() + ": /stages/000/weights: keeps its values in an external file; refused");
}

// 4. Declared sizes far beyond the file: refused from the header, nothing allocated.
TEST(Hardening, HugeDeclaredImagesAreRefusedFromTheirHeaders) {
    const Scene s = make_scene("hard_huge_images");
    std::ofstream(s.dir / "huge.pgm", std::ios::binary) << "P5\n100000 100000\n255\n";  // 21 bytes, 10 GB declared
    // An ~800-byte JPEG whose frame header claims 30000x30000 (3.6 GB decoded).
    std::vector<char> jpeg = {'\xFF', '\xD8', '\xFF', '\xC0', 0, 11, 8, '\x75', '\x30', '\x75', '\x30', 1, 1, 0x11, 0};
    jpeg.resize(800, '\0');
    put_bytes(s.dir / "huge.jpg", jpeg);
    const CommandResult r = cascade("detect --model " + q(s.model) + " --json " + q(s.dir / "out.json") + " " +
                                        q(s.dir / "huge.pgm") + " " + q(s.dir / "huge.jpg") + " " + q(s.image),
                                    s.dir);
    EXPECT_EQ(r.code, 2) << r.err;
    expect_has(r.err, "huge.pgm: image 100000x100000 (10000 MPix) is larger than the limit of 100 MPix (--max-megapixels)");
    expect_has(r.err, "huge.jpg: image 30000x30000 (900 MPix) is larger than the limit of 100 MPix (--max-megapixels)");
    // The limit is an option.
    const CommandResult small = cascade("--max-megapixels 0.05 detect --model " + q(s.model) + " " + q(s.image), s.dir);
    EXPECT_EQ(small.code, 2) << small.err;
    expect_has(small.err, "bars.pgm: image 420x400 (0.17 MPix) is larger than the limit of 0.05 MPix");
}

// 5. Truncated JPEG and PNG are failed inputs, not grey-filled images; a FIFO is refused, not
// waited on (the test would hang otherwise).
TEST(Hardening, DamagedImagesAndFifosAreFailedInputs) {
    const Scene s = make_scene("hard_damaged_images");
    cv::Mat img(200, 200, CV_8UC3);
    cv::randu(img, 0, 255);
    for (const char* ext_c : {".jpg", ".png"}) {
        const std::string ext = ext_c;
        std::vector<uchar> enc;
        ASSERT_TRUE(cv::imencode(ext, img, enc));
        put_bytes(s.dir / ("cut" + ext), std::vector<char>(enc.begin(), enc.begin() + static_cast<std::ptrdiff_t>(enc.size() * 2 / 3)));
        put_bytes(s.dir / ("whole" + ext), std::vector<char>(enc.begin(), enc.end()));
    }
    ASSERT_EQ(::mkfifo((s.dir / "x.png").c_str(), 0600), 0);
    const CommandResult r = cascade("detect --model " + q(s.model) + " --json " + q(s.dir / "out.json") + " " +
                                        q(s.dir / "cut.jpg") + " " + q(s.dir / "cut.png") + " " + q(s.dir / "x.png") + " " +
                                        q(s.dir / "whole.jpg") + " " + q(s.dir / "whole.png"),
                                    s.dir);
    EXPECT_EQ(r.code, 2) << r.err;
    expect_has(r.err, "cut.jpg: JPEG data ends before its end-of-image marker (truncated file)");
    expect_has(r.err, "cut.png: PNG data ends before its IEND chunk (truncated file)");
    expect_has(r.err, "x.png: is a FIFO (named pipe), not an image");
    const std::string json = slurp(s.dir / "out.json");
    expect_has(json, "whole.jpg");
    expect_has(json, "whole.png");
}

// 6. A damaged checkpoint through the command (trainer_test covers every index).
TEST(Hardening, DamagedCheckpointIsRefusedByName) {
    const fs::path dir = scratch_dir("hard_checkpoint");
    write_pgm(dir / "p.pgm", constant_image(64, 128, 5));
    write_pgm(dir / "n.pgm", constant_image(200, 200, 5));
    std::ofstream(dir / "pos.txt") << "p.pgm\n";
    std::ofstream(dir / "neg.txt") << "n.pgm\n";
    std::ofstream(dir / "cfg.yaml") << "data: {layout: lists, positives_list: " << (dir / "pos.txt").string()
                                    << ", negatives_list: " << (dir / "neg.txt").string() << ", holdout_every: 0}\n";
    save_model(bar_model(), dir / "m.h5");
    std::ofstream(dir / "m.h5.state", std::ios::binary) << "CKTRNST3" << std::string(200, 'x');
    const CommandResult r = cascade("train --config " + q(dir / "cfg.yaml") + " --out " + q(dir / "m.h5") + " --resume", dir);
    EXPECT_EQ(r.code, 1) << r.err;
    expect_has(r.err, "checkpoint " + (dir / "m.h5.state").string() + " is damaged: SHA-256 of its contents does not match; delete it to start over");
}

// 7. A full disk (here: a file-size limit, the same ENOSPC-like failure for every write): the OS
// reason, exit 1, no crash at exit, no temporary file left, the old output intact.
TEST(Hardening, FullDiskIsReportedWithTheReason) {
    const Scene s = make_scene("hard_full_disk");
    const auto model_before = file_bytes(s.model);
    // SIGXFSZ ignored: writes past the limit fail with EFBIG instead of killing the process.
    const std::string limited = "trap '' XFSZ; ulimit -f 1;";  // 1 KiB blocks
    std::ofstream(s.dir / "out.json") << "old";
    const CommandResult r = cascade("detect --model " + q(s.model) + " --json " + q(s.dir / "out.json") + " " + q(s.image) + " " +
                                        q(s.image),
                                    s.dir, limited);
    EXPECT_EQ(r.code, 1) << r.err;
    expect_has(r.err, "out.json");
    EXPECT_EQ(slurp(s.dir / "out.json"), "old");
    // Models: save_model writes through plain I/O; the reason is the OS's.
    const CommandResult conv = cascade("convert " + q(s.model) + " " + q(s.dir / "copy.h5"), s.dir, "trap '' XFSZ; ulimit -f 4;");
    // 4 KiB is less than the bar model file.
    ASSERT_GT(model_before.size(), 4096u);
    EXPECT_EQ(conv.code, 1) << conv.err;
    expect_has(conv.err, "copy.h5: /: cannot write: File too large");
    EXPECT_FALSE(fs::exists(s.dir / "copy.h5"));
    expect_has(r.err, "out.json: cannot write: File too large");
    // Training: the first model or checkpoint write fails; a clean exit 1 with the reason (HDF5
    // once crashed at exit here), no half-written model.
    write_bar_training_lists(s.dir);
    std::ofstream(s.dir / "cfg.yaml") << "data: {layout: lists, positives_list: " << (s.dir / "pos.txt").string()
                                      << ", negatives_list: " << (s.dir / "neg.txt").string() << ", holdout_every: 0}\n"
                                         "boosting: {candidates_per_round: 8, max_stages: 2, max_learners_per_stage: 4}\n";
    const CommandResult tr = cascade("train --config " + q(s.dir / "cfg.yaml") + " --out " + q(s.dir / "trained.h5"), s.dir,
                                     "trap '' XFSZ; ulimit -f 4;");
    EXPECT_EQ(tr.code, 1) << tr.err;
    expect_has(tr.err, "cannot write: File too large");
    EXPECT_FALSE(fs::exists(s.dir / "trained.h5"));
    for (const auto& e : fs::directory_iterator(s.dir))
        EXPECT_EQ(e.path().filename().string().find(".tmp-"), std::string::npos) << e.path();
}

// 8. Outputs that cannot be written are found before any work; unknown flags are named.
TEST(Hardening, UnwritableOutputsAndBadArgumentsFailFirst) {
    const Scene s = make_scene("hard_outputs");
    fs::create_directories(s.dir / "folder");
    CommandResult r = cascade("detect --model " + q(s.model) + " --json " + q(s.dir / "folder") + " " + q(s.image), s.dir);
    EXPECT_EQ(r.code, 1) << r.err;
    expect_has(r.err, "folder: is a folder; a file name is needed");
    EXPECT_EQ(r.err.find("1 image(s)"), std::string::npos) << "the work ran first:\n" << r.err;
    std::ofstream(s.dir / "file.txt") << "x";
    r = cascade("detect --model " + q(s.model) + " --draw " + q(s.dir / "file.txt") + " " + q(s.image), s.dir);
    EXPECT_EQ(r.code, 1) << r.err;
    expect_has(r.err, "--draw needs a folder");
    std::ofstream(s.dir / "cfg.yaml") << "seed: 1\n";
    r = cascade("train --config " + q(s.dir / "cfg.yaml") + " --out " + q(s.dir / "missing" / "m.h5"), s.dir);
    EXPECT_EQ(r.code, 1) << r.err;
    expect_has(r.err, "m.h5: cannot be written: folder " + (s.dir / "missing").string() + " does not exist");
    EXPECT_EQ(r.err.find("training"), std::string::npos) << r.err;
    // A read-only place (procfs takes no new files, even from root).
    r = cascade("eval --detections " + q(s.dir / "d.json") + " --fppi /proc/cascadekit-fppi.csv", s.dir);
    EXPECT_EQ(r.code, 1) << r.err;
    expect_has(r.err, "/proc/cascadekit-fppi.csv: cannot be written");

    std::ofstream(s.dir / "inf.yaml") << "hog: {epsilon: .inf}\n";
    r = cascade("train --config " + q(s.dir / "inf.yaml") + " --out " + q(s.dir / "m.h5"), s.dir);
    EXPECT_EQ(r.code, 1) << r.err;
    expect_has(r.err, "inf.yaml: hog.epsilon: must be a finite number");

    r = cascade("detect --modle " + q(s.model) + " " + q(s.image), s.dir);
    EXPECT_EQ(r.code, 1);
    expect_has(r.err, "unknown option --modle (did you mean --model?)");
    r = cascade("detect --model " + q(s.model), s.dir);
    EXPECT_EQ(r.code, 1);
    expect_has(r.err, "INPUT is required");
    EXPECT_EQ(cascade("detect --help", s.dir).code, 0);
    EXPECT_TRUE(outputs(s.dir, {"bar.h5", "bars.pgm", "folder", "file.txt", "cfg.yaml", "inf.yaml"}).empty());
}

// kill -9 in the middle of training, then --resume: the same model, bit for bit, as a run that
// was never interrupted.
TEST(Hardening, KillDuringTrainingThenResumeIsBitIdentical) {
    const fs::path dir = scratch_dir("hard_kill");
    write_bar_training_lists(dir);
    std::ofstream(dir / "cfg.yaml") << "seed: 3\n"
                                       "data: {layout: lists, positives_list: " << (dir / "pos.txt").string()
                                    << ", negatives_list: " << (dir / "neg.txt").string() << ", holdout_every: 0}\n"
                                       "boosting: {candidates_per_round: 8, F_target: 0.001, max_stages: 4, max_learners_per_stage: 8}\n"
                                       "mining: {backend: cpu}\n";
    const std::string env = "SOURCE_DATE_EPOCH=1700000000";
    const CommandResult whole = cascade("train --config " + q(dir / "cfg.yaml") + " --out " + q(dir / "whole.h5"), dir, env);
    ASSERT_EQ(whole.code, 0) << whole.err;
    // Killed as soon as its first checkpoint exists (between rounds or in the middle of one). On
    // a busy machine the short run may finish between two polls: then it is tried again.
    const std::string train = std::string("'") + CASCADE_EXE + "' -q train --config " + q(dir / "cfg.yaml") + " --out " +
                              q(dir / "killed.h5");
    const std::string script = env + " " + train + " & pid=$!; i=0; while [ ! -f " + q(dir / "killed.h5.state") +
                               " ] && [ $i -lt 2000 ]; do sleep 0.01; i=$((i+1)); done; kill -9 $pid; wait $pid; echo $? > " +
                               q(dir / "killed-status.txt");
    for (int attempt = 0; attempt < 5; ++attempt) {
        fs::remove(dir / "killed.h5");
        fs::remove(dir / "killed.h5.state");
        ASSERT_EQ(std::system(script.c_str()), 0);
        if (slurp(dir / "killed-status.txt") == "137\n") break;
    }
    EXPECT_EQ(slurp(dir / "killed-status.txt"), "137\n") << "training finished before it could be killed, 5 times";
    const CommandResult resumed = cascade("train --config " + q(dir / "cfg.yaml") + " --out " + q(dir / "killed.h5") + " --resume", dir, env);
    ASSERT_EQ(resumed.code, 0) << resumed.err;
    EXPECT_EQ(file_bytes(dir / "whole.h5"), file_bytes(dir / "killed.h5"));
}
