#pragma once
// Test helpers that need the runtime library.
#include <algorithm>
#include <random>
#include <utility>
#include <vector>

#include "cascadekit/features/lbp.hpp"
#include "cascadekit/model/waldboost_lbp_stage.hpp"
#include "cascadekit/runtime/stages/hog_svm.hpp"
#include "cascadekit/runtime/window_evaluator.hpp"

namespace cascadekit::test {

// Sets every hog stage threshold to the median stage sum over windows of img, so that about half
// the windows reaching each stage pass it (a random model would otherwise reject everything).
// colour: the image's colour planes, for a model with colour gradients.
inline void calibrate_thresholds(CascadeModel& m, const GrayImage& img, const ColourPlanes* colour = nullptr) {
    LevelFeatures f;
    f.hog.compute(colour ? GradientSource(*colour) : GradientSource(img), m.hog.gradient());
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

// A random WaldBoost LBP sequence of n weak classifiers for a ww × wh window, with cells of every
// size that fits (1 .. ww/3 by 1 .. wh/3 pixels, anywhere in the window) and rejection thresholds
// calibrated on level 0 of img so that windows leave all along the sequence, as in a trained
// detector: about 50 % at the first weak classifier, 30 % at each of the next 7, 5 % at each up
// to 64 and 0.2 % after that; the final threshold passes half of what is left.
// max_cell_pixels > 0: every cell has at most that many pixels (its height drawn again until it fits).
inline CascadeModel random_lbp_model(unsigned seed, int n, int ww, int wh, const GrayImage& img, int stride, int max_cell_pixels = 0) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> n01(0.0f, 1.0f);
    CascadeModel m;
    m.window_width = ww;
    m.window_height = wh;
    WaldBoostLbpStage wb;
    for (int t = 0; t < n; ++t) {
        LbpWeakClassifier c;
        c.cell.w = std::uniform_int_distribution<int>(1, ww / 3)(rng);
        c.cell.h = std::uniform_int_distribution<int>(1, wh / 3)(rng);
        while (max_cell_pixels > 0 && c.cell.w * c.cell.h > max_cell_pixels)
            c.cell.h = std::uniform_int_distribution<int>(1, std::max(1, std::min(wh / 3, max_cell_pixels / c.cell.w)))(rng);
        c.cell.x = std::uniform_int_distribution<int>(0, ww - 3 * c.cell.w)(rng);
        c.cell.y = std::uniform_int_distribution<int>(0, wh - 3 * c.cell.h)(rng);
        for (auto& r : c.responses) r = 0.5f * n01(rng);
        wb.weak.push_back(c);
    }
    IntegralImage ii;
    ii.compute(img);
    std::vector<float> h;  // running sums of the windows still in
    std::vector<std::pair<int, int>> at;
    for (int y = 0; y + wh <= img.height; y += stride)
        for (int x = 0; x + ww <= img.width; x += stride) {
            at.emplace_back(x, y);
            h.push_back(0.0f);
        }
    for (int t = 0; t < n; ++t) {
        LbpWeakClassifier& c = wb.weak[static_cast<std::size_t>(t)];
        for (std::size_t i = 0; i < h.size(); ++i) h[i] += c.responses[lbp_code(ii, at[i].first, at[i].second, c.cell)];
        const double reject = t == 0 ? 0.5 : t < 8 ? 0.3 : t < 64 ? 0.05 : 0.002;
        if (h.empty()) {
            c.reject_threshold = -1e6f;
            continue;
        }
        std::vector<float> sorted = h;
        const std::size_t q = static_cast<std::size_t>(reject * static_cast<double>(sorted.size()));
        std::nth_element(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(q), sorted.end());
        c.reject_threshold = sorted[q];
        std::vector<float> kept_h;
        std::vector<std::pair<int, int>> kept_at;
        for (std::size_t i = 0; i < h.size(); ++i)
            if (!(h[i] < c.reject_threshold)) {
                kept_h.push_back(h[i]);
                kept_at.push_back(at[i]);
            }
        h.swap(kept_h);
        at.swap(kept_at);
    }
    if (!h.empty()) {
        std::nth_element(h.begin(), h.begin() + static_cast<std::ptrdiff_t>(h.size() / 2), h.end());
        wb.final_threshold = h[h.size() / 2];
    } else {
        wb.final_threshold = -1e6f;
    }
    m.stages.push_back(wb);
    validate_model(m);
    return m;
}

}  // namespace cascadekit::test
