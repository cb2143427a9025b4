#pragma once
// Training configuration, read from YAML. configs/*.yaml document every option in place.
#include <cstdint>
#include <stdexcept>
#include <string>

#include "cascadekit/features/block.hpp"

namespace cascadekit {

class ConfigError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

enum class SvmWeighting {
    Resample,  // each round trains the candidate SVMs on a weighted resample of the training set
    Select     // SVMs see every sample once; AdaBoost weights only choose the best candidate
};

struct TrainConfig {
    std::uint64_t seed = 1;
    std::string kind = "cascade";  // "cascade" (Zhu/Bilgiç boosted stages) or "dense" (Dalal-Triggs SVM)

    // data
    std::string layout = "inria";  // "inria" or "lists"
    std::string inria_root = "INRIAPerson";  // relative paths are taken from $CASCADEKIT_DATA
    std::string positives_list, negatives_list;
    bool flip_positives = false;
    int holdout_every = 5;         // every k-th source photo and negative image is held out
    std::string split_file;        // where the held-out split is read from or written to
    int max_positives = 0;         // 0 = all (smaller numbers make quick runs)
    int max_negative_images = 0;   // 0 = all

    // window and features
    int window_width = 64;
    int window_height = 128;
    HogParams hog;

    // boosting (kind: cascade)
    std::string pool = "zhu";
    int candidates_per_round = 125;
    double d_min = 0.99;
    double f_max = 0.65;
    double F_target = 1e-4;
    int max_stages = 30;
    int max_learners_per_stage = 100;
    int negatives_per_stage = 0;   // 0 = as many as positives
    double svm_c = 0.1;
    SvmWeighting svm_weighting = SvmWeighting::Resample;

    // dense baseline (kind: dense)
    int dense_random_negatives_per_image = 10;
    int dense_max_hard_negatives = 20000;

    // bootstrapping
    int mining_stride = 8;
    double mining_scale_step = 1.2;
    std::string mining_backend = "auto";

    std::string text;  // the YAML it was read from (stored in the model's metadata)
};

// Parses and validates; unknown keys and out-of-range values throw ConfigError naming `origin`
// (the file) and the key.
TrainConfig parse_train_config(const std::string& yaml_text, const std::string& origin);
// Reads at most kMaxConfigBytes of a regular file. Every value is checked: types, ranges (finite
// reals only), unknown and duplicated keys; ConfigError names the file and the key.
inline constexpr std::uint64_t kMaxConfigBytes = 1u << 20;
TrainConfig load_train_config(const std::string& file);

// A stable 64-bit fingerprint (FNV-1a) of the configuration text: resuming checks it.
std::uint64_t config_fingerprint(const TrainConfig& config);

}  // namespace cascadekit
