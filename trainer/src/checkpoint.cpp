#include "checkpoint.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "cascadekit/features/pyramid.hpp"
#include "cascadekit/io/byte_codec.hpp"
#include "cascadekit/io/files.hpp"
#include "cascadekit/io/stage_codec.hpp"

#include "cascadekit/trainer/trainer.hpp"

namespace cascadekit::detail {

namespace {
// File: magic (8 bytes), SHA-256 of the payload (32), payload (docs/checkpoint.md). Version 1 had
// no checksum; version 2 held hog_svm stages only.
constexpr char kMagic[8] = {'C', 'K', 'T', 'R', 'N', 'S', 'T', '3'};
constexpr char kOlderMagic[2][8] = {{'C', 'K', 'T', 'R', 'N', 'S', 'T', '1'}, {'C', 'K', 'T', 'R', 'N', 'S', 'T', '2'}};
constexpr std::size_t kPrefix = 8 + 32;
}  // namespace

TrainError checkpoint_damaged(const std::filesystem::path& file, const std::string& problem) {
    return TrainError("checkpoint " + file.string() + " is damaged: " + problem +
                      "; delete it to start over (or restore it from a backup)");
}

std::vector<char> checkpoint_bytes(const Checkpoint& c) {
    ByteWriter o;
    for (char ch : kMagic) o.pod(ch);
    for (std::size_t i = 0; i < 32; ++i) o.pod('\0');  // SHA-256, filled in below
    o.pod(c.fingerprint);
    o.str(c.created_utc);
    o.pod<std::uint64_t>(c.stages.size());
    for (const Stage& s : c.stages) encode_stage(s, o);
    o.str(c.current_kind);
    o.vec(c.current);
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
    for (const char* older : kOlderMagic)
        if (bytes.size() >= 8 && std::equal(older, older + 8, bytes.begin()))
            throw TrainError("checkpoint " + file.string() + " was written by an older cascadekit (format " +
                             std::string(1, older[7]) + "); delete it to start over");
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
        for (std::size_t i = 0; i < n; ++i) c.stages.push_back(decode_stage(in));
        c.current_kind = in.str();
        c.current = in.vec<std::uint8_t>(kMaxCheckpointBytes);
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

void validate_checkpoint(const Checkpoint& c, const std::filesystem::path& file, const CascadeModel& shape,
                         const std::vector<Image>& images, double min_scale) {
    auto bad = [&](const std::string& problem) { throw checkpoint_damaged(file, problem); };
    const int ww = shape.window_width, wh = shape.window_height;
    if (!c.stages.empty()) {
        CascadeModel m = shape;
        m.stages = c.stages;
        try {
            validate_model(m);
        } catch (const ModelError& e) {
            bad(std::string("its completed stages are not a valid cascade (") + e.what() + ")");
        }
    }
    for (std::size_t i = 0; i < c.negatives.size(); ++i) {
        const WindowRef& r = c.negatives[i];
        const std::string at = "negative window " + std::to_string(i);
        if (r.image >= images.size())
            bad(at + " names image " + std::to_string(r.image) + " of " + std::to_string(images.size()));
        if (!std::isfinite(r.scale) || r.scale < min_scale || r.scale > 1e4) bad(at + " has scale " + std::to_string(r.scale));
        const Image& img = images[r.image];
        const PyramidLevel l = pyramid_level(img.width, img.height, r.scale);
        if (r.x < 0 || r.y < 0 || std::int64_t{r.x} + ww > l.width || std::int64_t{r.y} + wh > l.height)
            bad(at + " lies outside its pyramid level");
    }
    for (double v : {c.cascade_fp_rate, c.seconds, c.mining_seconds})
        if (!std::isfinite(v) || v < 0) bad("a progress figure is negative or not finite");
}

}  // namespace cascadekit::detail
