#include "cascadekit/runtime/cpu_detector.hpp"

#include <algorithm>
#include <cmath>

#include "cascadekit/runtime/scaled_windows.hpp"
#include "cpu_parts.hpp"

namespace cascadekit {

using detail::octave_of_level;

// The resampled scan: a unit a level, scanned by the model itself. With approximate_hog or
// approximate_lbp a level reads its planes from its octave (Dollár et al.'s fast feature
// pyramids, PAMI 2014): the octaves are planned here, their planes made before any level reads them.
void CpuDetector::plan_level_units(const std::vector<PyramidLevel>& levels, int width, int height) {
    const bool hog = params_.approximate_hog && evaluator_.needs().hog;
    const bool lbp = params_.approximate_lbp && evaluator_.needs().gray_integral;
    while (scaled_.size() < levels.size()) scaled_.push_back(nullptr);
    for (std::size_t i = 0; i < levels.size(); ++i) {
        units_.push_back({levels[i], {{static_cast<int>(i), levels[i].scale, &evaluator_, params_.stride, 0}}});
        if (!hog && !lbp) continue;
        // A level of scale in [min_scale·2^k, min_scale·2^(k+1)) reads octave k's planes, the
        // octave's own level too (ratio 1: its histogram the smoothed octave's, its gray
        // integral the octave's itself). PennFudanPed: the same accuracy as octave levels from
        // their own pixels, 10 % less time for the people hybrid.
        const double octave_scale = std::ldexp(params_.min_scale, octave_of_level(levels[i].scale, params_.min_scale));
        const double ratio = std::max(1.0, levels[i].scale / octave_scale);
        if (octaves_.empty() || octaves_.back()->image.scale != octave_scale) {
            octaves_.push_back(std::make_unique<Octave>());
            octaves_.back()->image = pyramid_level(width, height, octave_scale, 2 * params_.level_pad);
        }
        Octave& o = *octaves_.back();
        Unit& u = units_.back();
        u.octave = static_cast<int>(octaves_.size()) - 1;
        u.ratio = ratio;
        u.hog_from_octave = hog;
        // The LBP windows scaled to the level inside the octave (else the level's own pixels:
        // a level of about one window, where the octave's rounding may leave it a pixel short).
        u.lbp_from_octave = lbp && std::lround(model_.window_width * ratio) <= o.image.width &&
                            std::lround(model_.window_height * ratio) <= o.image.height;
        o.hog_read = o.hog_read || u.hog_from_octave;
        o.gray_read = o.gray_read || u.lbp_from_octave;
        if (!u.lbp_from_octave) continue;
        // A level pixel x is octave pixel origin + x·ratio, each window's scaled cells inside.
        const double origin = o.image.pad - levels[i].pad * ratio;
        auto place = [&](std::vector<int>& at, int n, int window, int octave_size) {
            const int most = octave_size - std::max(1, static_cast<int>(std::lround(window * ratio)));
            at.resize(static_cast<std::size_t>(n));
            for (int k = 0; k < n; ++k) at[static_cast<std::size_t>(k)] = std::clamp(static_cast<int>(std::lround(origin + k * ratio)), 0, most);
        };
        place(u.lbp_x, levels[i].width, model_.window_width, o.image.width);
        place(u.lbp_y, levels[i].height, model_.window_height, o.image.height);
        if (ratio < 1.0 + 1e-9) continue;  // the model's own cells
        if (!scaled_[i]) scaled_[i] = std::make_unique<CascadeEvaluator>(scale_lbp_cells(model_, ratio));
        u.scans[0].evaluator = scaled_[i].get();
    }
}

}  // namespace cascadekit
