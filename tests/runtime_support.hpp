#pragma once
// Test helpers that need the runtime library.
#include <algorithm>
#include <vector>

#include "cascadekit/runtime/stages/hog_svm.hpp"
#include "cascadekit/runtime/window_evaluator.hpp"

namespace cascadekit::test {

// Sets every hog stage threshold to the median stage sum over windows of img, so that about half
// the windows reaching each stage pass it (a random model would otherwise reject everything).
inline void calibrate_thresholds(CascadeModel& m, const GrayImage& img) {
    LevelFeatures f;
    f.hog.compute(img);
    f.gray.compute(img);
    for (std::size_t s = 0; s < m.stages.size(); ++s) {
        auto* hog = m.stages[s].get_if<HogSvmStage>();
        if (!hog) continue;
        std::vector<float> sums;
        for (int y = 0; y + 128 <= img.height; y += 8)
            for (int x = 0; x + 64 <= img.width; x += 8) sums.push_back(hog_stage_sum(*hog, m.hog, f.hog, x, y));
        std::nth_element(sums.begin(), sums.begin() + static_cast<std::ptrdiff_t>(sums.size() / 3), sums.end());
        hog->threshold = sums[sums.size() / 3] + 1e-3f;
    }
}

}  // namespace cascadekit::test
