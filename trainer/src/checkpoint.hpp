#pragma once
// Internal: the trainer's checkpoint, one binary file written atomically after every round.
// It alone is authoritative on resume (the model file is regenerated from it), so a crash between
// writing the model and the checkpoint cannot leave them inconsistent.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "cascadekit/features/model.hpp"
#include "training_data.hpp"

namespace cascadekit::detail {

struct Checkpoint {
    std::uint64_t fingerprint = 0;       // of the configuration text
    std::string created_utc;
    std::vector<HogSvmStage> stages;     // completed
    HogSvmStage current;                 // the stage being trained (learners so far)
    std::vector<double> weights;         // AdaBoost weights: positives then negatives
    std::vector<WindowRef> negatives;    // the current stage's negative windows
    double cascade_fp_rate = 1.0;        // product of completed stages' training FP rates
    double seconds = 0;                  // training time so far, all processes
    double mining_seconds = 0;           // bootstrapping that fed the current stage
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
// Checks every index and value against the data it will be used with: learners' blocks inside
// the window, finite values, one weight per sample, every negative window's image index, scale
// and position inside its pyramid level. Throws TrainError as read_checkpoint does.
void validate_checkpoint(const Checkpoint& c, const std::filesystem::path& file, int window_width, int window_height,
                         std::size_t positives, const std::vector<GrayImage>& images);

}  // namespace cascadekit::detail
