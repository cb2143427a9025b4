// libFuzzer: the checkpoint reader. Input bytes are used twice: as a whole file (almost always
// refused by the SHA-256), and as a payload sealed with a correct SHA-256 so the parser and the
// index validation behind the checksum get fuzzed too (where a bit-flipped image index once
// reached freed memory), and the hog_svm stage trainer's state inside it (load_state checks
// every learner and weight against the samples).
#include <cstdint>
#include <cstring>
#include <vector>

#include "cascadekit/features/image.hpp"
#include "cascadekit/io/files.hpp"
#include "cascadekit/io/byte_codec.hpp"
#include "cascadekit/trainer/stage_trainer.hpp"
#include "cascadekit/trainer/trainer.hpp"
#include "checkpoint.hpp"

using namespace cascadekit;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const std::vector<Image> images = {GrayImage(200, 160), GrayImage(64, 128), GrayImage(330, 250)};
    try {
        detail::parse_checkpoint(std::vector<char>(data, data + size), "fuzz.state");
    } catch (const TrainError&) {
    }
    std::vector<char> sealed = {'C', 'K', 'T', 'R', 'N', 'S', 'T', '3'};
    const Sha256 digest = sha256(data, size);
    sealed.insert(sealed.end(), digest.begin(), digest.end());
    sealed.insert(sealed.end(), data, data + size);
    try {
        const detail::Checkpoint c = detail::parse_checkpoint(std::move(sealed), "fuzz.state");
        static const TrainConfig cfg;  // a 64x128 window, hog_svm stages
        CascadeModel shape;
        detail::validate_checkpoint(c, "fuzz.state", shape, images);
        // The stage in training, as the loop restores it (few samples: each is a 300 KB patch).
        if (c.current_kind == "hog_svm" && c.negatives.size() <= 59) {
            const StageContext ctx{cfg, 1, 5, c.negatives.size()};
            auto trainer = find_stage_trainer("hog_svm")->make(cfg);
            trainer->resize(ctx.samples());
            ByteReader in(c.current.data(), c.current.size());
            try {
                trainer->load_state(in, ctx);
            } catch (const ByteCodecError&) {
            } catch (const ModelError&) {
            }
        }
        // A checkpoint that passes round-trips exactly.
        const std::vector<char> again = detail::checkpoint_bytes(c);
        if (again.size() != size + 40 || std::memcmp(again.data() + 40, data, size) != 0) {
            // Padding inside WindowRef is not part of the value: only the parse of `again` must agree.
            const detail::Checkpoint d = detail::parse_checkpoint(again, "again.state");
            if (d.negatives.size() != c.negatives.size() || d.stages.size() != c.stages.size()) __builtin_trap();
        }
    } catch (const TrainError&) {
    }
    return 0;
}
