// Writes the seed corpora of the fuzz harnesses into DIR/<harness>/ (tests/fuzz/run.sh runs it),
// so no binary seed lives in the repository: a small sealed model and its header, checkpoint
// payloads, and minimal headers of every image format the sniffer reads.
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "cascadekit/io/files.hpp"
#include "cascadekit/io/model_file.hpp"
#include "cascadekit/trainer/trainer.hpp"
#include "cascadekit/io/byte_codec.hpp"
#include "cascadekit/io/stage_codec.hpp"
#include "checkpoint.hpp"
#include "test_support.hpp"

using namespace cascadekit;
namespace fs = std::filesystem;

namespace {
template <class Bytes>
void put(const fs::path& dir, const std::string& name, const Bytes& b) {
    fs::create_directories(dir);
    std::ofstream(dir / name, std::ios::binary).write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
}
std::vector<std::uint8_t> bytes(std::initializer_list<int> v) { return {v.begin(), v.end()}; }

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::cerr << "usage: fuzz_seeds DIR\n";
        return 1;
    }
    const fs::path dir = argv[1];
    const std::vector<std::uint8_t> model = model_file_bytes(test::tiny_model(), "seed.h5");
    put(dir / "model_loader", "small.h5", model);
    put(dir / "model_loader", "header-only.h5", std::vector<std::uint8_t>(model.begin(), model.begin() + 512));
    CascadeModel newest = test::tiny_model();  // schema 6: /hog@gamma, /hog@votes and /hog@channels
    newest.hog.gamma = GrayGamma::Sqrt;
    newest.hog.votes = OrientationVotes::Split;
    newest.hog.channels = GradientChannels::Colour;
    put(dir / "model_loader", "colour.h5", model_file_bytes(newest, "seed-colour.h5"));

    detail::Checkpoint c;
    c.fingerprint = 42;
    c.created_utc = "2026-11-22T00:00:00Z";
    c.stages = {test::tiny_model().stages[0]};
    ByteWriter state;  // the hog_svm stage trainer's: the stage so far, one weight per sample
    encode_stage(c.stages[0], state);
    state.vec(std::vector<double>(7, 1.0 / 7));
    c.current_kind = "hog_svm";
    c.current = state.bytes;
    c.negatives = {{0, 0, 1.0, 8, 8}, {2, 0, 1.2, 16, 0}};
    c.rounds = 3;
    const std::vector<char> ck = detail::checkpoint_bytes(c);
    put(dir / "checkpoint", "sealed.state", ck);
    put(dir / "checkpoint", "payload.bin", std::vector<char>(ck.begin() + 40, ck.end()));  // the harness seals it

    const std::string p5 = std::string("P5\n# c\n4 2\n255\n") + std::string(8, '\x7f');
    const std::string p6 = std::string("P6 2 2 255\n") + std::string(12, '\x10');
    put(dir / "pnm", "gray.pgm", p5);
    put(dir / "pnm", "rgb.ppm", p6);
    put(dir / "pnm", "png", bytes({0x89, 'P', 'N', 'G', 13, 10, 26, 10, 0, 0, 0, 13, 'I', 'H', 'D', 'R', 0, 0, 0, 8, 0, 0, 0, 8,
                                   8, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 'I', 'E', 'N', 'D', 0xAE, 0x42, 0x60, 0x82}));
    put(dir / "pnm", "jpeg", bytes({0xFF, 0xD8, 0xFF, 0xE0, 0, 4, 'J', 'F', 0xFF, 0xC0, 0, 11, 8, 0, 8, 0, 8, 1, 1, 0x11, 0,
                                    0xFF, 0xDA, 0, 8, 1, 1, 0, 0, 63, 0, 0x12, 0x34, 0xFF, 0xD9}));
    put(dir / "pnm", "bmp", bytes({'B', 'M', 0, 0, 0, 0, 0, 0, 0, 0, 54, 0, 0, 0, 40, 0, 0, 0, 8, 0, 0, 0, 0xF8, 0xFF, 0xFF, 0xFF,
                                   1, 0, 24, 0}));
    put(dir / "pnm", "tiff", bytes({'I', 'I', 42, 0, 8, 0, 0, 0, 2, 0, 0, 1, 3, 0, 1, 0, 0, 0, 8, 0, 0, 0, 1, 1, 4, 0, 1, 0, 0, 0,
                                    9, 0, 0, 0}));
    put(dir / "pnm", "webp", bytes({'R', 'I', 'F', 'F', 30, 0, 0, 0, 'W', 'E', 'B', 'P', 'V', 'P', '8', 'X', 10, 0, 0, 0, 0, 0,
                                    0, 0, 7, 0, 0, 7, 0, 0}));

    put(dir / "config", "small.yaml", std::string("seed: 3\nkind: cascade\ndata: {layout: lists, positives_list: p.txt, "
                                                  "negatives_list: n.txt, holdout_every: 0}\nhog: {block_norm: l2-hys, "
                                                  "epsilon: 1.0, hys_clip: 0.2, channels: colour}\nboosting: {d_min: 0.99, f_max: 0.65}\n"));
    put(dir / "model_values", "ops.bin", bytes({0, 0, 0, 0, 0, 64, 7, 1, 0, 0, 0, 0, 16, 0, 0, 0, 4, 0, 0, 0, 4, 8, 2, 3}));
    std::cout << "seeds written to " << dir.string() << "\n";
    return 0;
}
