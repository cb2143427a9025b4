#pragma once
// Internal: the trainer's checkpoint, one binary file written atomically after every round
// (docs/checkpoint.md documents the format). It alone is authoritative on resume (the model file
// is regenerated from it), so a crash between writing the model and the checkpoint cannot leave
// them inconsistent.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "cascadekit/model/cascade.hpp"
#include "training_data.hpp"

namespace cascadekit::detail {

struct Checkpoint {
    std::uint64_t fingerprint = 0;        // of the configuration text
    std::string created_utc;
    std::vector<Stage> stages;            // completed, of any kind (io's stage encoding)
    std::string current_kind;             // the kind of the stage in training ("" before the first round)
    std::vector<std::uint8_t> current;    // its stage trainer's state (StageTrainer::save_state)
    std::vector<WindowRef> negatives;     // the current stage's negative windows
    double cascade_fp_rate = 1.0;         // product of completed stages' training FP rates
    double seconds = 0;                   // training time so far, all processes
    double mining_seconds = 0;            // bootstrapping that fed the current stage
    std::uint64_t rounds = 0;
    bool finished = false;
    bool exhausted = false;
    std::string stop_reason;
};

inline constexpr std::uint64_t kMaxCheckpointBytes = 4ull << 30;

// Atomic (temporary file, fsync, rename); the payload is covered by a SHA-256 in the header.
void write_checkpoint(const Checkpoint& c, const std::filesystem::path& file);
// Throws TrainError "checkpoint FILE is damaged: ...; delete it to start over" for a checksum
// mismatch or a payload that does not parse (every length is bounded by the file's size).
Checkpoint read_checkpoint(const std::filesystem::path& file);
// The bytes write_checkpoint writes, and read_checkpoint on bytes (for fuzzing).
std::vector<char> checkpoint_bytes(const Checkpoint& c);
Checkpoint parse_checkpoint(std::vector<char> bytes, const std::filesystem::path& file);
// Checks every index and value against the data it will be used with: the completed stages as a
// model of the configuration's window and HoG parameters (validate_model), every negative
// window's image index, scale (min_scale: the configuration's mining.min_scale, up to 1e4) and
// position inside its pyramid level, the progress figures.
// The stage in training is checked by its stage trainer (load_state). Throws TrainError as
// read_checkpoint does.
void validate_checkpoint(const Checkpoint& c, const std::filesystem::path& file, const CascadeModel& shape,
                         const std::vector<Image>& images,
                         double min_scale = 1.0);
// The error read_checkpoint throws, for the trainer's own checks.
TrainError checkpoint_damaged(const std::filesystem::path& file, const std::string& problem);

}  // namespace cascadekit::detail
