#pragma once
// A boosted stage of HoG-block linear SVMs (Zhu et al., CVPR 2006; Bilgiç, MIT 2010), and the
// dense Dalal-Triggs SVM as one such stage (Dalal & Triggs, CVPR 2005).
#include <array>
#include <vector>

#include "cascadekit/features/block.hpp"
#include "cascadekit/features/block_math.hpp"
#include "cascadekit/features/geometry.hpp"
#include "cascadekit/model/stage.hpp"

namespace cascadekit {

// One weak learner: a linear SVM on one block's 36-D descriptor. Its margin is m = weights·x − bias.
struct HogLearner {
    Rect block;  // in window pixels (origin: the window's top-left); w, h even
    std::array<float, kBlockDims> weights{};
    float bias = 0.0f;
    float alpha = 1.0f;  // vote weight
    friend bool operator==(const HogLearner&, const HogLearner&) = default;
};

// The values are block_math::vote's rules.
enum class VoteMode {
    Binary = block_math::kBinaryVote,    // Σ α·[m ≥ 0] (discrete AdaBoost, Zhu et al., CVPR 2006; Bilgiç, MIT 2010)
    Margin = block_math::kMarginVote,    // Σ α·m (one such stage of 105 blocks is a dense Dalal-Triggs SVM)
    Clipped = block_math::kClippedVote   // Σ α·clamp(m, −1, 1) (confidence-rated AdaBoost, Schapire & Singer 1999;
                                         // schema 7): no block outvotes the others by an outlying margin
};
inline int vote_rule(VoteMode v) { return static_cast<int>(v); }

// A window passes when its stage sum (learner order, float arithmetic) >= threshold. The
// margin, sum − threshold, adds to the window's running score (which starts at 0), and the
// window's detection score is the running score after the last stage. With a carry c != 0 (a
// nested stage: Huang et al., ICPR 2004; Xiao et al.'s boosting chain, ICCV 2003) the margin is
// (sum − threshold) + c·r, r the running score so far (float: the product, then the sum, each
// rounded once); the window passes when it is >= 0, and it replaces the running score.
// Invariants (validate): 1..kMaxStageSize learners; every block inside the window with even
// sides; every value finite and within ±kMaxModelMagnitude; some α != 0; carry ≥ 0.
struct HogSvmStage final : StageKind<HogSvmStage> {
    static constexpr std::string_view kKind = "hog_svm";
    VoteMode vote = VoteMode::Binary;
    float threshold = 0.0f;
    float carry = 0.0f;
    std::vector<HogLearner> learners;

    std::string_view feature() const override { return "hog"; }
    std::size_t size() const override { return learners.size(); }
    void validate(const CascadeModel& model, const std::string& path) const override;
    friend bool operator==(const HogSvmStage& a, const HogSvmStage& b) {
        return a.vote == b.vote && a.threshold == b.threshold && a.carry == b.carry && a.learners == b.learners;
    }
};

}  // namespace cascadekit
