#pragma once
// The cascade model: what a trained detector is, independent of how it is stored (io/) or run
// (runtime/). io/README.md documents the file schema that mirrors these types.
#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include "cascadekit/features/block.hpp"
#include "cascadekit/features/geometry.hpp"

namespace cascadekit {

// One weak learner of a HoG stage: a linear SVM on one block's 36-D descriptor.
// Its margin is m = weights·x − bias.
struct HogLearner {
    Rect block;                     // in window pixels; w, h even
    std::array<float, kBlockDims> weights{};
    float bias = 0.0f;
    float alpha = 1.0f;             // vote weight
    friend bool operator==(const HogLearner&, const HogLearner&) = default;
};

enum class VoteMode {
    Binary,  // stage sum Σ α·[m ≥ 0]   (discrete AdaBoost, Zhu et al., CVPR 2006; Bilgiç, MIT 2010)
    Margin   // stage sum Σ α·m         (one such stage of 105 blocks is a dense Dalal-Triggs SVM)
};

// A boosted HoG stage: a window passes when its stage sum >= threshold.
struct HogSvmStage {
    VoteMode vote = VoteMode::Binary;
    float threshold = 0.0f;
    std::vector<HogLearner> learners;
    friend bool operator==(const HogSvmStage&, const HogSvmStage&) = default;
};

// One weak classifier of a WaldBoost stage: a 256-entry response table indexed by the LBP code
// of the 3×3 grid of cells at (cell.x, cell.y) of size cell.w × cell.h.
struct LbpWeakClassifier {
    Rect cell;
    std::array<float, 256> responses{};
    float reject_threshold = 0.0f;  // θ_B: reject when the running sum H_t < θ_B
    friend bool operator==(const LbpWeakClassifier&, const LbpWeakClassifier&) = default;
};

// A WaldBoost sequence (Šochman & Matas, CVPR 2005; Macenauer, Brno 2015): H_t = Σ_{s≤t} h_s(code_s); rejected as soon as
// H_t < θ_B(t); a window that survives every classifier passes when H_T >= final_threshold.
struct WaldBoostLbpStage {
    float final_threshold = 0.0f;
    std::vector<LbpWeakClassifier> weak;
    friend bool operator==(const WaldBoostLbpStage&, const WaldBoostLbpStage&) = default;
};

using Stage = std::variant<HogSvmStage, WaldBoostLbpStage>;

struct ModelMetadata {
    std::string training_config;   // the configuration text the trainer ran with
    std::string data_description;  // what it was trained on
    std::string created_utc;       // ISO 8601
    std::string toolkit_version;
    friend bool operator==(const ModelMetadata&, const ModelMetadata&) = default;
};

struct CascadeModel {
    int window_width = 64;
    int window_height = 128;
    HogParams hog;
    std::vector<Stage> stages;
    ModelMetadata metadata;
    friend bool operator==(const CascadeModel&, const CascadeModel&) = default;
};

// "hog" (only hog_svm stages), "lbp" (only waldboost_lbp) or "lbp+hog" (both).
std::string feature_family(const CascadeModel& model);
std::string_view stage_kind(const Stage& stage);  // "hog_svm" or "waldboost_lbp"
std::size_t stage_size(const Stage& stage);       // learners or weak classifiers

// A model that breaks an invariant. what() starts with the schema path of the offending value
// (as in io/README.md, e.g. "/stages/003/weights[2][7]") followed by ": " and the problem.
class ModelError : public std::runtime_error {
public:
    ModelError(std::string path, const std::string& problem)
        : std::runtime_error(path + ": " + problem), path_(std::move(path)) {}
    const std::string& path() const { return path_; }

private:
    std::string path_;
};

// Bounds no trained model comes near, so a crafted or damaged model cannot pass with values that
// make the detector meaningless or its memory unbounded (io/README.md, "Checks").
inline constexpr std::size_t kMaxStages = 4096;
inline constexpr std::size_t kMaxStageSize = 100000;  // learners or weak classifiers in one stage
inline constexpr float kMaxModelMagnitude = 1e6f;     // |weight|, |bias|, |α|, |response|, |threshold|
inline constexpr float kMaxEpsilon = 1e6f;            // ε in gray levels of summed magnitude
inline constexpr float kMaxHysClip = 1.0f;            // components of a unit vector never exceed 1

// Checks every invariant the detector relies on: a window of positive size whose area keeps
// integral-histogram sums exact; 1 to kMaxStages stages of 1 to kMaxStageSize learners; every
// rect inside the window (64-bit arithmetic: no int overflow for any input); block sides even;
// every real value finite and within kMaxModelMagnitude; 0 < ε ≤ kMaxEpsilon; 0 < hys_clip ≤ 1;
// no hog_svm stage whose every α is 0 (it could not tell windows apart). Throws ModelError on the
// first violation.
void validate_model(const CascadeModel& model);

// Schema path of stage i, "/stages/003".
std::string stage_path(std::size_t index);

}  // namespace cascadekit
