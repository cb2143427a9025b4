#include "cascadekit/runtime/scaled_windows.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "cascadekit/model/hog_svm_stage.hpp"
#include "cascadekit/model/waldboost_lbp_stage.hpp"

namespace cascadekit {

namespace {
int scaled(int v, double ratio) { return static_cast<int>(std::lround(v * ratio)); }
// v rounded to the nearest multiple of grid (halves up).
int on_grid(int v, int grid) { return (v + grid / 2) / grid * grid; }

void check_ratio(const char* what, double ratio) {
    if (!(ratio > 0.0) || !std::isfinite(ratio)) throw std::invalid_argument(std::string(what) + ": ratio must be positive and finite");
}

// An LBP stage's 3×3 grids of cells scaled by `ratio` inside a window of ww × wh: each cell at
// most a third of the window.
void scale_lbp_stage(WaldBoostLbpStage& lbp, double ratio, int ww, int wh) {
    for (LbpWeakClassifier& c : lbp.weak) {
        const int w = std::clamp(scaled(c.cell.w, ratio), 1, std::max(1, ww / 3));
        const int h = std::clamp(scaled(c.cell.h, ratio), 1, std::max(1, wh / 3));
        const int x = std::clamp(scaled(c.cell.x, ratio), 0, std::max(0, ww - 3 * w));
        const int y = std::clamp(scaled(c.cell.y, ratio), 0, std::max(0, wh - 3 * h));
        c.cell = {x, y, w, h};
    }
}
}  // namespace

CascadeModel scale_model(const CascadeModel& model, double ratio, int grid) {
    check_ratio("scale_model", ratio);
    if (grid < 1) throw std::invalid_argument("scale_model: grid must be at least 1");
    CascadeModel out = model;
    const int ww = std::max(1, scaled(model.window_width, ratio)), wh = std::max(1, scaled(model.window_height, ratio));
    out.window_width = ww;
    out.window_height = wh;
    out.hog.epsilon = static_cast<float>(model.hog.epsilon * ratio);
    for (Stage& s : out.stages) {
        if (auto* lbp = s.get_if<WaldBoostLbpStage>()) {
            scale_lbp_stage(*lbp, ratio, ww, wh);
        } else if (auto* hog = s.get_if<HogSvmStage>()) {
            // Cells of whole grid steps, blocks of two cells, inside the window on the grid.
            const int most_w = std::max(grid, ww / (2 * grid) * grid), most_h = std::max(grid, wh / (2 * grid) * grid);
            for (HogLearner& l : hog->learners) {
                const int cw = std::clamp(on_grid(scaled(l.block.w, ratio / 2), grid), grid, most_w);
                const int ch = std::clamp(on_grid(scaled(l.block.h, ratio / 2), grid), grid, most_h);
                const int x = std::clamp(on_grid(scaled(l.block.x, ratio), grid), 0, std::max(0, (ww - 2 * cw) / grid * grid));
                const int y = std::clamp(on_grid(scaled(l.block.y, ratio), grid), 0, std::max(0, (wh - 2 * ch) / grid * grid));
                l.block = {x, y, 2 * cw, 2 * ch};
            }
        }
    }
    validate_model(out);
    return out;
}

CascadeModel scale_lbp_cells(const CascadeModel& model, double ratio) {
    check_ratio("scale_lbp_cells", ratio);
    CascadeModel out = model;
    const int ww = std::max(1, scaled(model.window_width, ratio)), wh = std::max(1, scaled(model.window_height, ratio));
    for (Stage& s : out.stages)
        if (auto* lbp = s.get_if<WaldBoostLbpStage>()) scale_lbp_stage(*lbp, ratio, ww, wh);
    return out;  // not validate_model: the cells may reach past the (unscaled) window
}

int scaled_stride(int stride, double ratio, int grid) { return std::max(grid, on_grid(scaled(stride, ratio), grid)); }

}  // namespace cascadekit
