#include "checkpoint.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "cascadekit/features/pyramid.hpp"
#include "cascadekit/io/byte_codec.hpp"
#include "cascadekit/io/files.hpp"

#include "cascadekit/trainer/trainer.hpp"

namespace cascadekit::detail {

namespace {
// File: magic (8 bytes), SHA-256 of the payload (32), payload. Version 1 had no checksum.
constexpr char kMagic[8] = {'C', 'K', 'T', 'R', 'N', 'S', 'T', '2'};
constexpr char kMagicV1[8] = {'C', 'K', 'T', 'R', 'N', 'S', 'T', '1'};
constexpr std::size_t kPrefix = 8 + 32;

TrainError checkpoint_damaged(const std::filesystem::path& file, const std::string& problem) {
    return TrainError("checkpoint " + file.string() + " is damaged: " + problem +
                      "; delete it to start over (or restore it from a backup)");
}

void put_stage(ByteWriter& o, const HogSvmStage& s) {
    o.pod<std::int32_t>(s.vote == VoteMode::Binary ? 0 : 1);
    o.pod(s.threshold);
    o.vec(s.learners);
}

HogSvmStage get_stage(ByteReader& in) {
    HogSvmStage s;
    const auto vote = in.pod<std::int32_t>();
    if (vote != 0 && vote != 1) throw ByteCodecError("bad vote mode");
    s.vote = vote == 0 ? VoteMode::Binary : VoteMode::Margin;
    s.threshold = in.pod<float>();
    s.learners = in.vec<HogLearner>(kMaxStageSize);
    return s;
}
}  // namespace

std::vector<char> checkpoint_bytes(const Checkpoint& c) {
    ByteWriter o;
    for (char ch : kMagic) o.pod(ch);
    for (std::size_t i = 0; i < 32; ++i) o.pod('\0');  // SHA-256, filled in below
    o.pod(c.fingerprint);
    o.str(c.created_utc);
    o.pod<std::uint64_t>(c.stages.size());
    for (const auto& s : c.stages) put_stage(o, s);
    put_stage(o, c.current);
    o.vec(c.weights);
    o.vec(c.negatives);
    o.pod(c.cascade_fp_rate);
    o.pod(c.seconds);
    o.pod(c.mining_seconds);
    o.pod(c.rounds);
    o.pod<std::uint8_t>(c.finished);
    o.pod<std::uint8_t>(c.exhausted);
    o.str(c.stop_reason);
    std::vector<char> bytes(o.bytes.begin(), o.bytes.end());
    const Sha256 digest = sha256(bytes.data() + kPrefix, bytes.size() - kPrefix);
    std::memcpy(bytes.data() + 8, digest.data(), digest.size());
    return bytes;
}

void write_checkpoint(const Checkpoint& c, const std::filesystem::path& file) {
    const std::vector<char> bytes = checkpoint_bytes(c);
    try {
        write_file_atomically(file, bytes.data(), bytes.size());
    } catch (const FileError& e) {
        throw TrainError(std::string("cannot write checkpoint ") + e.what());
    }
}

Checkpoint read_checkpoint(const std::filesystem::path& file) {
    std::error_code ec;
    if (!std::filesystem::exists(file, ec)) throw TrainError(file.string() + ": no checkpoint to resume from");
    std::vector<std::uint8_t> raw;
    try {
        raw = read_file_bytes(file, kMaxCheckpointBytes, "training checkpoint");
    } catch (const FileError& e) {
        throw TrainError(e.what());
    }
    return parse_checkpoint(std::vector<char>(raw.begin(), raw.end()), file);
}

Checkpoint parse_checkpoint(std::vector<char> bytes, const std::filesystem::path& file) {
    if (bytes.size() >= 8 && std::equal(kMagicV1, kMagicV1 + 8, bytes.begin()))
        throw TrainError("checkpoint " + file.string() + " was written by an older cascadekit (no checksum); "
                         "delete it to start over");
    if (bytes.size() < kPrefix || !std::equal(kMagic, kMagic + 8, bytes.begin()))
        throw TrainError(file.string() + ": not a cascadekit training checkpoint (delete it to start over)");
    Sha256 stored;
    std::memcpy(stored.data(), bytes.data() + 8, stored.size());
    if (!same_digest(sha256(bytes.data() + kPrefix, bytes.size() - kPrefix), stored))
        throw checkpoint_damaged(file, "SHA-256 of its contents does not match");
    ByteReader in(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size(), kPrefix);
    Checkpoint c;
    try {
        c.fingerprint = in.pod<std::uint64_t>();
        c.created_utc = in.str();
        const std::size_t n = in.count(1, kMaxStages);
        for (std::size_t i = 0; i < n; ++i) c.stages.push_back(get_stage(in));
        c.current = get_stage(in);
        c.weights = in.vec<double>(kMaxCheckpointBytes);
        c.negatives = in.vec<WindowRef>(kMaxCheckpointBytes);
        c.cascade_fp_rate = in.pod<double>();
        c.seconds = in.pod<double>();
        c.mining_seconds = in.pod<double>();
        c.rounds = in.pod<std::uint64_t>();
        c.finished = in.pod<std::uint8_t>() != 0;
        c.exhausted = in.pod<std::uint8_t>() != 0;
        c.stop_reason = in.str();
        if (!in.at_end()) throw ByteCodecError("bytes after the end");
    } catch (const ByteCodecError& e) {
        throw checkpoint_damaged(file, std::string("its contents do not parse (") + e.what() + ")");
    }
    return c;
}

namespace {
void check_stage(const HogSvmStage& st, const std::string& what, int ww, int wh, const std::filesystem::path& file) {
    auto bad = [&](const std::string& problem) { throw checkpoint_damaged(file, what + ": " + problem); };
    if (!std::isfinite(st.threshold)) bad("threshold is not finite");
    if (st.learners.size() > kMaxStageSize) bad("too many learners");
    for (const HogLearner& l : st.learners) {
        if (!l.block.inside(ww, wh) || l.block.w % 2 != 0 || l.block.h % 2 != 0) bad("a block is not a valid block of the window");
        if (!std::isfinite(l.bias) || !std::isfinite(l.alpha) ||
            !std::all_of(l.weights.begin(), l.weights.end(), [](float v) { return std::isfinite(v); }))
            bad("a learner holds a non-finite value");
    }
}
}  // namespace

void validate_checkpoint(const Checkpoint& c, const std::filesystem::path& file, int ww, int wh, std::size_t positives,
                         const std::vector<GrayImage>& images) {
    auto bad = [&](const std::string& problem) { throw checkpoint_damaged(file, problem); };
    for (std::size_t s = 0; s < c.stages.size(); ++s) {
        check_stage(c.stages[s], "stage " + std::to_string(s + 1), ww, wh, file);
        if (c.stages[s].learners.empty()) bad("stage " + std::to_string(s + 1) + " has no learners");
    }
    check_stage(c.current, "the stage in training", ww, wh, file);
    if (!c.weights.empty() && c.weights.size() != positives + c.negatives.size())
        bad(std::to_string(c.weights.size()) + " sample weights for " + std::to_string(positives + c.negatives.size()) +
            " samples (did the data change?)");
    for (double w : c.weights)
        if (!std::isfinite(w) || w < 0) bad("a sample weight is negative or not finite");
    for (std::size_t i = 0; i < c.negatives.size(); ++i) {
        const WindowRef& r = c.negatives[i];
        const std::string at = "negative window " + std::to_string(i);
        if (r.image >= images.size())
            bad(at + " names image " + std::to_string(r.image) + " of " + std::to_string(images.size()));
        if (!std::isfinite(r.scale) || r.scale < 1.0 || r.scale > 1e4) bad(at + " has scale " + std::to_string(r.scale));
        const GrayImage& img = images[r.image];
        const PyramidLevel l = pyramid_level(img.width, img.height, r.scale);
        if (r.x < 0 || r.y < 0 || std::int64_t{r.x} + ww > l.width || std::int64_t{r.y} + wh > l.height)
            bad(at + " lies outside its pyramid level");
    }
    for (double v : {c.cascade_fp_rate, c.seconds, c.mining_seconds})
        if (!std::isfinite(v) || v < 0) bad("a progress figure is negative or not finite");
}

}  // namespace cascadekit::detail
