#include "cascadekit/runtime/cpu_detector.hpp"

#include <algorithm>
#include <cmath>

#include "cascadekit/runtime/scaled_windows.hpp"
#include "cpu_parts.hpp"

namespace cascadekit {

using detail::octave_of_level;

// DetectParams::scale_windows (Viola & Jones' scaled detector): a unit an octave of the input.
void CpuDetector::plan_octave_units(const std::vector<PyramidLevel>& levels, int width, int height) {
    // Octave k: the input at min_scale·2^k, holding the levels of scale in [min_scale·2^k,
    // min_scale·2^(k+1)), each scanned by the model scaled to its ratio to the octave. Window
    // positions, blocks and the octave's border on the HoG histograms' grid: a level's border of
    // level_pad level pixels is level_pad·ratio octave pixels, ratio < 2.
    const int grid = std::max(1, hog_grid_);
    const int pad = (2 * params_.level_pad + grid - 1) / grid * grid;
    while (scaled_.size() < levels.size()) scaled_.push_back(nullptr);
    for (std::size_t i = 0; i < levels.size(); ++i) {
        const double octave_scale = std::ldexp(params_.min_scale, octave_of_level(levels[i].scale, params_.min_scale));
        if (units_.empty() || units_.back().image.scale != octave_scale) units_.push_back({pyramid_level(width, height, octave_scale, pad), {}});
        const double ratio = levels[i].scale / octave_scale;
        if (!scaled_[i]) scaled_[i] = std::make_unique<CascadeEvaluator>(scale_model(model_, ratio, grid));
        const int level_border = grid * static_cast<int>(std::lround(params_.level_pad * ratio / grid));
        units_.back().scans.push_back({static_cast<int>(i), levels[i].scale, scaled_[i].get(), scaled_stride(params_.stride, ratio, grid),
                                       pad - level_border});
    }
}

}  // namespace cascadekit
