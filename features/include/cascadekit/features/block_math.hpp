#pragma once
// The floating-point arithmetic of a block descriptor's normalisation and of a learner's margin,
// written once for the CPU and the CUDA backend. nvcc compiles it with --fmad=false, and x86-64
// code without -mfma has no fused multiply-add either, so both backends round every operation
// the same way and give bit-identical descriptors, margins and stage sums.
#include <cmath>

#include "cascadekit/features/block.hpp"
#include "cascadekit/features/host_device.hpp"

namespace cascadekit::block_math {

CASCADEKIT_HD float sqrt_rn(float x) {
#if defined(__CUDA_ARCH__)
    return __fsqrt_rn(x);  // correctly rounded, as std::sqrt is
#else
    return std::sqrt(x);
#endif
}

// v ← v / (‖v‖₂ + ε), sums in dimension order.
CASCADEKIT_HD void scale_l2(float* v, float epsilon) {
    float sq = 0.0f;
    for (int k = 0; k < kBlockDims; ++k) sq += v[k] * v[k];
    const float inv = 1.0f / (sqrt_rn(sq) + epsilon);
    for (int k = 0; k < kBlockDims; ++k) v[k] *= inv;
}

// Normalises raw cell-histogram sums (gray levels) in place (see BlockNorm).
CASCADEKIT_HD void normalise(float* v, BlockNorm norm, float epsilon, float hys_clip) {
    switch (norm) {
        case BlockNorm::L2:
            scale_l2(v, epsilon);
            break;
        case BlockNorm::L2Hys:
            scale_l2(v, epsilon);
            for (int k = 0; k < kBlockDims; ++k) v[k] = v[k] > hys_clip ? hys_clip : v[k];
            // The clipped vector is already of unit scale, so ε (in gray levels) would dominate
            // here; renormalise with a small fixed ε as OpenCV's HOGDescriptor does.
            scale_l2(v, kHysRenormEpsilon);
            break;
        case BlockNorm::L1Sqrt: {
            float l1 = 0.0f;
            for (int k = 0; k < kBlockDims; ++k) l1 += v[k];  // sums of magnitudes, never negative
            const float inv = 1.0f / (l1 + epsilon);
            for (int k = 0; k < kBlockDims; ++k) v[k] = sqrt_rn(v[k] * inv);
            break;
        }
    }
}

// m = weights·v − bias, in dimension order.
CASCADEKIT_HD float margin(const float* weights, float bias, const float* v) {
    float m = 0.0f;
    for (int k = 0; k < kBlockDims; ++k) m += weights[k] * v[k];
    return m - bias;
}

// A learner's contribution to its stage's sum, by vote rule (VoteMode's values): 0, binary:
// α·[m ≥ 0]; 1, margin: α·m; 2, clipped: α·clamp(m, −1, 1).
inline constexpr int kBinaryVote = 0, kMarginVote = 1, kClippedVote = 2;
CASCADEKIT_HD float vote(int rule, float alpha, float m) {
    if (rule == kBinaryVote) return m >= 0.0f ? alpha : 0.0f;
    if (rule == kClippedVote) return alpha * (m < -1.0f ? -1.0f : (m > 1.0f ? 1.0f : m));
    return alpha * m;
}

// A nested stage's margin (HogSvmStage::carry): its own margin plus carry × the window's running
// score, the product and the sum each rounded once.
CASCADEKIT_HD float carried(float margin, float carry, float running) { return margin + carry * running; }
// The running score after a stage the window passed with `margin` (carried, for a nested stage):
// a plain stage's margin adds to it, a nested stage's replaces it.
CASCADEKIT_HD float running_after(float running, float margin, float carry) { return carry == 0.0f ? running + margin : margin; }

// ---- The same arithmetic for L windows side by side (CPU only) ----------------------------------
// v[k][l] is dimension k of window l's descriptor. Each window (lane) goes through exactly the
// operations of the scalar functions above, in the same order, so its results have the same
// bits; the loops over lanes carry no dependency, so the compiler may run them as SIMD and the
// lanes' chains of dependent additions overlap (one window's chain is latency-bound).
// Test: CpuDetector.HogRowsSideBySideEqualWindowByWindow. Always inlined, so that a caller
// compiled for AVX2 (CASCADEKIT_SIMD_CLONES) runs them as AVX2, not as a call to baseline code.
template <int L>
[[gnu::always_inline]] inline void scale_l2_lanes(float (*v)[L], float epsilon) {
    float sq[L] = {};
    for (int k = 0; k < kBlockDims; ++k)
        for (int l = 0; l < L; ++l) sq[l] += v[k][l] * v[k][l];
    float inv[L];
    for (int l = 0; l < L; ++l) inv[l] = 1.0f / (sqrt_rn(sq[l]) + epsilon);
    for (int k = 0; k < kBlockDims; ++k)
        for (int l = 0; l < L; ++l) v[k][l] *= inv[l];
}

template <int L>
[[gnu::always_inline]] inline void normalise_lanes(float (*v)[L], BlockNorm norm, float epsilon, float hys_clip) {
    switch (norm) {
        case BlockNorm::L2:
            scale_l2_lanes<L>(v, epsilon);
            break;
        case BlockNorm::L2Hys:
            scale_l2_lanes<L>(v, epsilon);
            for (int k = 0; k < kBlockDims; ++k)
                for (int l = 0; l < L; ++l) v[k][l] = v[k][l] > hys_clip ? hys_clip : v[k][l];
            scale_l2_lanes<L>(v, kHysRenormEpsilon);
            break;
        case BlockNorm::L1Sqrt: {
            float l1[L] = {};
            for (int k = 0; k < kBlockDims; ++k)
                for (int l = 0; l < L; ++l) l1[l] += v[k][l];
            float inv[L];
            for (int l = 0; l < L; ++l) inv[l] = 1.0f / (l1[l] + epsilon);
            for (int k = 0; k < kBlockDims; ++k)
                for (int l = 0; l < L; ++l) v[k][l] = sqrt_rn(v[k][l] * inv[l]);
            break;
        }
    }
}

template <int L>
[[gnu::always_inline]] inline void margin_lanes(const float* weights, float bias, const float (*v)[L], float* m) {
    for (int l = 0; l < L; ++l) m[l] = 0.0f;
    for (int k = 0; k < kBlockDims; ++k)
        for (int l = 0; l < L; ++l) m[l] += weights[k] * v[k][l];
    for (int l = 0; l < L; ++l) m[l] -= bias;
}

}  // namespace cascadekit::block_math
