#pragma once
// A WaldBoost sequence of multi-block LBP look-up tables (Šochman & Matas, CVPR 2005;
// Macenauer, Brno 2015).
#include <array>
#include <vector>

#include "cascadekit/features/geometry.hpp"
#include "cascadekit/model/stage.hpp"

namespace cascadekit {

// One weak classifier: a 256-entry response table indexed by the LBP code of the 3×3 grid of
// cells at (cell.x, cell.y) (window pixels) of size cell.w × cell.h (features/lbp.hpp).
struct LbpWeakClassifier {
    Rect cell;
    std::array<float, 256> responses{};
    float reject_threshold = 0.0f;  // θ_B: reject when the running sum H_t < θ_B
    friend bool operator==(const LbpWeakClassifier&, const LbpWeakClassifier&) = default;
};

// H_t = Σ_{s≤t} h_s(code_s), float, in order; rejected as soon as H_t < θ_B(t); a window that
// survives every classifier passes when H_T >= final_threshold.
// Invariants (validate): 1..kMaxStageSize classifiers; every 3×3 grid inside the window; every
// value finite and within ±kMaxModelMagnitude.
struct WaldBoostLbpStage final : StageKind<WaldBoostLbpStage> {
    static constexpr std::string_view kKind = "waldboost_lbp";
    float final_threshold = 0.0f;
    std::vector<LbpWeakClassifier> weak;

    std::string_view feature() const override { return "lbp"; }
    std::size_t size() const override { return weak.size(); }
    void validate(const CascadeModel& model, const std::string& path) const override;
    friend bool operator==(const WaldBoostLbpStage& a, const WaldBoostLbpStage& b) {
        return a.final_threshold == b.final_threshold && a.weak == b.weak;
    }
};

}  // namespace cascadekit
