#pragma once
// Scanning an octave with the model's windows scaled (DetectParams::scale_windows): instead of
// resampling the input to every level of a ×1.05 pyramid, only its octaves are resampled (scales
// min_scale·2^k), and each level in between is scanned on its octave with the model scaled by the
// level's ratio to the octave, r ∈ [1, 2) — as Viola & Jones scaled their detector rather than
// the image (IJCV 2004, §5). The features at those levels are approximations: a cell or block
// covers the area the level's cell would, rounded to whole pixels, on the octave smoothed by
// smooth_binomial (features/pyramid.hpp) in place of the resampling's coarser pixels. Scores
// differ from the resampled levels' and so do detections; only the CPU backend scans this way.
#include "cascadekit/model/cascade.hpp"

namespace cascadekit {

// The model scaled by `ratio` (> 0) for scanning an octave: a window of round(w·r) × round(h·r);
// each LBP cell round(w·r) × round(h·r) at (round(x·r), round(y·r)), at least 1 × 1 and moved
// inside the window; each HoG block's cells rounded to a multiple of `grid` (at least one grid
// step) and its corner to a grid point, moved inside the window, so that an integral histogram on
// that grid serves it (hog_scan_grid); HoG ε × r, since a block's summed magnitude grows about as
// r (r² pixels, gradients 1/r as steep). Thresholds and weights unchanged. A ratio of 1 with blocks
// already on the grid gives the model itself. Requires grid >= 1; the result passes validate_model.
CascadeModel scale_model(const CascadeModel& model, double ratio, int grid);

// The model with only its LBP cells scaled by `ratio` (> 0), as scale_model scales them (moved
// inside a window of round(w·r) × round(h·r)); the window, HoG blocks and every threshold
// unchanged. DetectParams::approximate_lbp: the waldboost_lbp stages of a level between octaves
// read the octave's gray integral image, the window's other stages the level's own planes. For
// ratio > 1 the cells may reach past the model's window, so the result is no model to scan or
// save on its own (it would fail validate_model).
CascadeModel scale_lbp_cells(const CascadeModel& model, double ratio);

// The window step of a level scanned at `ratio` on its octave: stride·r rounded to a multiple of
// `grid`, at least `grid` (window positions on the HoG histograms' grid).
int scaled_stride(int stride, double ratio, int grid);

}  // namespace cascadekit
