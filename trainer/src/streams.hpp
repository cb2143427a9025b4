#pragma once
// Internal: the trainer's random streams, one per purpose. Each is RandomStream(seed, path) with
// a fixed path, so any step can be replayed alone (exact resume, thread-count independence).
// The paths are part of what a seed means: changing one changes every trained model.
#include <cstdint>

#include "cascadekit/trainer/random.hpp"

namespace cascadekit::detail::streams {

// The first stage's negatives: random windows of the negative images (also the dense
// baseline's initial negatives).
inline RandomStream initial_negatives(std::uint64_t seed) { return RandomStream(seed, {0, 0, 7}); }
// The candidate blocks of one boosting round.
inline RandomStream candidate_blocks(std::uint64_t seed, std::uint64_t stage, std::uint64_t round) {
    return RandomStream(seed, {1, stage, round});
}
// The weighted resample one round's SVMs train on (svm.weighting: resample).
inline RandomStream weighted_resample(std::uint64_t seed, std::uint64_t stage, std::uint64_t round) {
    return RandomStream(seed, {2, stage, round});
}
// Which mined false positives a stage keeps when there are more than it wants.
inline RandomStream mined_subsample(std::uint64_t seed, std::uint64_t stage) { return RandomStream(seed, {3, stage}); }

// Which mined windows refill a stage's negative pool during the stage (WaldBoost), when there
// are more than it wants; `weak` is the stage's size at the refill.
inline RandomStream refill_subsample(std::uint64_t seed, std::uint64_t stage, std::uint64_t weak) {
    return RandomStream(seed, {4, stage, weak});
}
// The candidate features of one WaldBoost round (waldboost.features_per_round > 0).
inline RandomStream candidate_features(std::uint64_t seed, std::uint64_t stage, std::uint64_t weak) {
    return RandomStream(seed, {5, stage, weak});
}

// The jitter of copy `copy` of positive crop `crop` (data.jitter_copies).
inline RandomStream positive_jitter(std::uint64_t seed, std::uint64_t copy, std::uint64_t crop) {
    return RandomStream(seed, {6, copy, crop});
}

}  // namespace cascadekit::detail::streams
