#pragma once
// Evaluating the cascade on one window of one pyramid level: the single definition of a window's
// score that every backend must reproduce. Stage kinds plug in here: each kind has a
// StageEvaluator (runtime/src/stages/<kind>.cpp) registered by its model name in one list
// (runtime/src/stage_kinds.cpp), or at run time with register_cpu_stage_kind (tests, plug-ins).
//
// Coordinates: (x, y) is the window's top-left in level pixels; the window is the model's
// window_width × window_height. Thread safety: a CascadeEvaluator is immutable after
// construction and may be used from any number of threads at once.
#include <cstdint>
#include <functional>
#include <memory>
#include <string_view>
#include <vector>

#include "cascadekit/features/image.hpp"
#include "cascadekit/features/integral_histogram.hpp"
#include "cascadekit/features/integral_image.hpp"
#include "cascadekit/model/cascade.hpp"

namespace cascadekit {

// Which feature planes of a level the stages read.
struct FeatureNeeds {
    bool hog = false;            // the integral histogram (hog_svm stages)
    bool gray_integral = false;  // the gray integral image (waldboost_lbp stages)
    FeatureNeeds& operator|=(const FeatureNeeds& o) {
        hog = hog || o.hog;
        gray_integral = gray_integral || o.gray_integral;
        return *this;
    }
    // What `this` needs beyond `o`.
    FeatureNeeds minus(const FeatureNeeds& o) const { return {hog && !o.hog, gray_integral && !o.gray_integral}; }
    friend bool operator==(const FeatureNeeds&, const FeatureNeeds&) = default;
};

// Features of one pyramid level; a member is computed only if some stage needs it.
struct LevelFeatures {
    IntegralHistogram hog;  // for hog_svm stages
    IntegralImage gray;     // for waldboost_lbp stages
    // Instead of `hog`, when hog_from_gradients: hog_svm stages sum their blocks' pixels here
    // (the same values; cheaper where few windows reach them: CpuOptions).
    GradientPlane gradients;
    bool hog_from_gradients = false;
    // Instead of `gray`, when lbp_gray is set (DetectParams::approximate_lbp: a level between
    // octaves): waldboost_lbp stages read this gray integral image, of the level's octave, the
    // window at level (x, y) at (lbp_x[x], lbp_y[y]) there, with their cells scaled to the level
    // (scale_lbp_cells, in the level's CascadeEvaluator). lbp_x and lbp_y: an entry for every
    // level column and row, each window's cells inside lbp_gray (the detector's, planned once a
    // frame size).
    const IntegralImage* lbp_gray = nullptr;
    const int* lbp_x = nullptr;
    const int* lbp_y = nullptr;
};

// Computes the planes `needs` asks for from one pyramid level's gray image (others are left as
// they are); gradient: the model's HogParams::gradient(), for the HoG planes, which come from the
// level's colour planes when `colour` is given (HogParams::channels colour). hog_grid: the HoG
// integral histogram's point spacing (IntegralHistogram::compute; hog_block_grid). Parallel inside (TBB).
void compute_level_features(const GrayImage& level, FeatureNeeds needs, GradientParams gradient, LevelFeatures& out,
                            const ColourPlanes* colour = nullptr, int hog_grid = 1);
// The same for a whole image (a window-sized crop): its gray image (to_gray), and its colour
// planes for the HoG planes when it has three channels.
void compute_image_features(const Image& image, FeatureNeeds needs, GradientParams gradient, LevelFeatures& out);

// CascadeEvaluator(model).colour() without building the stages' evaluators: whether images for
// this model keep their colour (some stage reads HoG features, and they come from colour).
bool reads_colour(const CascadeModel& model);

// What one stage says about one window. The window is rejected exactly when score < 0.
struct StageOutcome {
    float score = 0;                   // the stage's sum minus its (final or early) threshold
    std::uint32_t weak_evaluated = 0;  // weak learners it evaluated
};

// One stage, ready to run on the CPU. Implementations keep references into the stage they were
// made from (the CascadeEvaluator keeps the model alive).
class StageEvaluator {
public:
    virtual ~StageEvaluator() = default;
    // Requires: the window inside the level; the features of needs() computed.
    virtual StageOutcome evaluate(const LevelFeatures& features, int x, int y) const = 0;
    // The outcomes of `count` windows of one row, window k at (x0 + k·step, y), into out[k]: each
    // exactly what evaluate() gives it. The default calls evaluate() for each; a kind may evaluate
    // neighbouring windows side by side (SIMD) with the same arithmetic per window.
    virtual void evaluate_row(const LevelFeatures& features, int x0, int step, int count, int y, StageOutcome* out) const;
    // The same for `rows` rows of `count` windows, row j at y0 + j·ystep, its window k into
    // out[j·count + k]. The default calls evaluate_row for each row; a kind may run the rows'
    // windows side by side together (WaldBoost rows of few windows each).
    virtual void evaluate_rows(const LevelFeatures& features, int x0, int step, int count, int y0, int ystep, int rows,
                               StageOutcome* out) const;
    // Whether evaluate_rows gains from several rows at once: a detector then hands this stage, as
    // its first, rows of at least about 1024 windows a call (else one row a call).
    virtual bool runs_rows_together() const { return false; }
    // The outcomes of `count` windows of one row at (xs[k], y) (any positions, e.g. the survivors
    // of the stages before), into out[k]: each exactly what evaluate() gives it. The default calls
    // evaluate() for each; a kind may evaluate them side by side as evaluate_row may.
    virtual void evaluate_windows(const LevelFeatures& features, const int* xs, int count, int y, StageOutcome* out) const;
};

// A stage kind's CPU evaluation: its model name (StageBase::kind()), the features it reads, and
// how to make an evaluator for one stage of the model.
struct CpuStageKind {
    std::string_view kind;
    FeatureNeeds needs;
    std::function<std::unique_ptr<StageEvaluator>(const Stage& stage, const CascadeModel& model)> make;
};
// Adds (or replaces) a kind. Call before creating detectors for models with that kind.
void register_cpu_stage_kind(CpuStageKind kind);
// nullptr when no kind of that name is registered.
const CpuStageKind* find_cpu_stage_kind(std::string_view kind);

struct WindowOutcome {
    int rejected_at = -1;  // index of the rejecting stage, -1 when every stage passed
    // accepted: the running score after the last stage: Σ over stages of (sum − threshold), where
    // a nested stage's margin (HogSvmStage::carry) is its own plus carry × the running score,
    // and replaces it; rejected: that stage's margin
    float score = 0;
    std::uint32_t weak_evaluated = 0;
};

// A window part-way through the cascade: what evaluate_stages carries from one call to the next.
struct WindowProgress {
    WindowOutcome outcome;
    float cleared = 0.0f;  // running score: the passed stages' margins summed in stage order (a nested stage's replaces it)
};

// The model's stages, each with its kind's evaluator.
class CascadeEvaluator {
public:
    // Throws DetectError-like std::invalid_argument naming the stage when a kind has no CPU
    // evaluator. The model must have passed validate_model.
    explicit CascadeEvaluator(const CascadeModel& model);
    const CascadeModel& model() const { return model_; }
    FeatureNeeds needs() const { return needs_; }
    // Whether the HoG planes come from colour planes (HogParams::channels colour, and some stage
    // reads HoG features): images for this model keep their colour (keep_channels).
    bool colour() const { return needs_.hog && model_.hog.colour(); }
    // Runs the stages in order on the window whose top-left is (x, y) in level pixels, stopping at
    // the first that rejects. An accepted window's score is the running sum of every stage's
    // margin in stage order (float), as the GPU forms it.
    WindowOutcome evaluate(const LevelFeatures& features, int x, int y) const;

    // Stages [begin, end) of the window, continuing `progress` (default-constructed for stage 0);
    // false as soon as one rejects (progress.outcome says which). evaluate() is
    // evaluate_stages(0, all) then finish(): the same arithmetic in the same order.
    bool evaluate_stages(const LevelFeatures& features, int x, int y, std::size_t begin, std::size_t end,
                         WindowProgress& progress) const;
    // evaluate_stages(begin, end) for `count` windows of one row, window k at (x0 + k·step, y),
    // each from a default-constructed progress: progress[k] and passed[k] (1: it passed every
    // stage of the range) as that call gives them. Stage `begin` runs row-wise
    // (StageEvaluator::evaluate_row), each later stage on the row's windows still in the cascade
    // (StageEvaluator::evaluate_windows): stage by stage rather than window by window, the same
    // stages for each window in the same order. Requires begin < end.
    void evaluate_stages_row(const LevelFeatures& features, int x0, int step, int count, int y, std::size_t begin,
                             std::size_t end, WindowProgress* progress, std::uint8_t* passed) const;
    // The same for `rows` rows of `count` windows, row j at y0 + j·ystep, its window k at
    // progress[j·count + k] and passed[j·count + k]: stage `begin` over every row's windows at
    // once (StageEvaluator::evaluate_rows), each later stage row by row. Each window's outcome is
    // the one evaluate_stages_row gives it.
    void evaluate_stages_rows(const LevelFeatures& features, int x0, int step, int count, int y0, int ystep, int rows,
                              std::size_t begin, std::size_t end, WindowProgress* progress, std::uint8_t* passed) const;
    // evaluate_stages(begin, end) for `count` windows of one row at (xs[k], y), each continuing
    // progress[k] (as left by the stages before `begin`): progress[k] and passed[k] as that call
    // gives them. Stage by stage over the windows still in the cascade, as evaluate_stages_row.
    void evaluate_stages_windows(const LevelFeatures& features, const int* xs, int count, int y, std::size_t begin,
                                 std::size_t end, WindowProgress* progress, std::uint8_t* passed) const;
    // The outcome of a window that passed every stage.
    static WindowOutcome finish(const WindowProgress& progress) {
        WindowOutcome o = progress.outcome;
        o.score = progress.cleared;
        return o;
    }
    std::size_t stages() const { return stages_.size(); }
    // The first stage's StageEvaluator::runs_rows_together.
    bool runs_rows_together() const { return !stages_.empty() && stages_.front()->runs_rows_together(); }
    // The leading stages that read fewer feature planes than the whole cascade (e.g. an LBP
    // sequence in front of HoG stages: gray integral only), and the planes they read; 0 and
    // needs() when every plane is needed from the first stage on. A detector can build the other
    // planes of a level only where windows survive these stages.
    std::size_t prefix_stages() const { return prefix_; }
    FeatureNeeds prefix_needs() const { return prefix_needs_; }

private:
    // Stages [begin, end) for the windows alive[i] of a row at (xs_of(alive[i]), y), stage by
    // stage; alive keeps those that pass every one.
    template <class XOf>
    void run_alive(const LevelFeatures& features, XOf xs_of, int y, std::size_t begin, std::size_t end, WindowProgress* progress,
                   std::vector<int>& alive) const;
    bool fold(const StageOutcome& outcome, std::size_t stage, WindowProgress& progress) const;

    CascadeModel model_;
    FeatureNeeds needs_, prefix_needs_;
    std::size_t prefix_ = 0;
    std::vector<std::unique_ptr<StageEvaluator>> stages_;
    std::vector<float> carry_;  // per stage: HogSvmStage::carry, 0 for other kinds
};

// CascadeEvaluator(model).evaluate(features, x, y), for one-off windows.
WindowOutcome evaluate_window(const CascadeModel& model, const LevelFeatures& features, int x, int y);

}  // namespace cascadekit
