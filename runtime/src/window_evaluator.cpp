#include "cascadekit/runtime/window_evaluator.hpp"

#include <stdexcept>
#include <string>

#include "cascadekit/features/block_math.hpp"
#include "cascadekit/model/hog_svm_stage.hpp"

namespace cascadekit {

void compute_level_features(const GrayImage& level, FeatureNeeds needs, GradientParams gradient, LevelFeatures& out,
                            const ColourPlanes* colour, int hog_grid) {
    if (needs.hog) {
        out.hog.compute(colour ? GradientSource(*colour) : GradientSource(level), gradient, hog_grid);
        out.hog_from_gradients = false;
    }
    if (needs.gray_integral) out.gray.compute(level);
}

void compute_image_features(const Image& image, FeatureNeeds needs, GradientParams gradient, LevelFeatures& out) {
    const GrayImage gray = to_gray(image.view());
    if (image.channels == 1) return compute_level_features(gray, needs, gradient, out);
    ColourPlanes planes;
    to_planes(image.view(), planes);
    compute_level_features(gray, needs, gradient, out, &planes);
}

bool reads_colour(const CascadeModel& model) {
    if (!model.hog.colour()) return false;
    for (const Stage& stage : model.stages)
        if (const CpuStageKind* kind = find_cpu_stage_kind(stage.kind()); kind && kind->needs.hog) return true;
    return false;
}

CascadeEvaluator::CascadeEvaluator(const CascadeModel& model) : model_(model) {
    stages_.reserve(model_.stages.size());
    for (std::size_t s = 0; s < model_.stages.size(); ++s) {
        const Stage& stage = model_.stages[s];
        const CpuStageKind* kind = find_cpu_stage_kind(stage.kind());
        if (kind == nullptr)
            throw std::invalid_argument(stage_path(s) + ": stage kind '" + std::string(stage.kind()) +
                                        "' has no CPU evaluator in this build");
        needs_ |= kind->needs;
        stages_.push_back(kind->make(stage, model_));
        const auto* hog = stage.get_if<HogSvmStage>();
        carry_.push_back(hog != nullptr ? hog->carry : 0.0f);
    }
    FeatureNeeds so_far;
    for (std::size_t s = 0; s < model_.stages.size(); ++s) {
        FeatureNeeds with = so_far;
        with |= find_cpu_stage_kind(model_.stages[s].kind())->needs;
        if (with == needs_) {
            prefix_ = s;
            prefix_needs_ = s > 0 ? so_far : needs_;
            break;
        }
        so_far = with;
    }
}

void StageEvaluator::evaluate_row(const LevelFeatures& f, int x0, int step, int count, int y, StageOutcome* out) const {
    for (int k = 0; k < count; ++k) out[k] = evaluate(f, x0 + k * step, y);
}

void StageEvaluator::evaluate_rows(const LevelFeatures& f, int x0, int step, int count, int y0, int ystep, int rows,
                                   StageOutcome* out) const {
    for (int j = 0; j < rows; ++j) evaluate_row(f, x0, step, count, y0 + j * ystep, out + static_cast<std::size_t>(j) * static_cast<std::size_t>(count));
}

void StageEvaluator::evaluate_windows(const LevelFeatures& f, const int* xs, int count, int y, StageOutcome* out) const {
    for (int k = 0; k < count; ++k) out[k] = evaluate(f, xs[k], y);
}

// Folds one stage's outcome into a window's progress; false when the stage rejected it. A nested
// stage (carry != 0) adds carry × the running score to its margin, which then replaces the
// running score; another stage's margin adds to it.
bool CascadeEvaluator::fold(const StageOutcome& o, std::size_t stage, WindowProgress& p) const {
    p.outcome.weak_evaluated += o.weak_evaluated;
    const float carry = carry_[stage];
    const float score = carry == 0.0f ? o.score : block_math::carried(o.score, carry, p.cleared);
    p.outcome.score = score;
    if (score < 0.0f) {
        p.outcome.rejected_at = static_cast<int>(stage);
        return false;
    }
    p.cleared = block_math::running_after(p.cleared, score, carry);
    return true;
}

template <class XOf>
void CascadeEvaluator::run_alive(const LevelFeatures& f, XOf xs_of, int y, std::size_t begin, std::size_t end,
                                 WindowProgress* progress, std::vector<int>& alive) const {
    thread_local std::vector<int> xs;  // reused call after call (no allocation per row)
    thread_local std::vector<StageOutcome> outcome;
    for (std::size_t s = begin; s < end && !alive.empty(); ++s) {
        xs.resize(alive.size());
        outcome.resize(alive.size());
        for (std::size_t i = 0; i < alive.size(); ++i) xs[i] = xs_of(alive[i]);
        stages_[s]->evaluate_windows(f, xs.data(), static_cast<int>(xs.size()), y, outcome.data());
        std::size_t kept = 0;
        for (std::size_t i = 0; i < alive.size(); ++i)
            if (fold(outcome[i], s, progress[alive[i]])) alive[kept++] = alive[i];
        alive.resize(kept);
    }
}

void CascadeEvaluator::evaluate_stages_row(const LevelFeatures& f, int x0, int step, int count, int y, std::size_t begin,
                                           std::size_t end, WindowProgress* progress, std::uint8_t* passed) const {
    evaluate_stages_rows(f, x0, step, count, y, 0, 1, begin, end, progress, passed);
}

void CascadeEvaluator::evaluate_stages_rows(const LevelFeatures& f, int x0, int step, int count, int y0, int ystep, int rows,
                                            std::size_t begin, std::size_t end, WindowProgress* progress, std::uint8_t* passed) const {
    thread_local std::vector<StageOutcome> first;  // reused call after call (no allocation per row)
    thread_local std::vector<int> alive;           // a row's windows still in the cascade
    const std::size_t n = static_cast<std::size_t>(count), all = n * static_cast<std::size_t>(rows);
    first.resize(all);
    stages_[begin]->evaluate_rows(f, x0, step, count, y0, ystep, rows, first.data());
    for (int j = 0; j < rows; ++j) {
        const std::size_t row = static_cast<std::size_t>(j) * n;
        WindowProgress* row_progress = progress + row;
        std::uint8_t* row_passed = passed + row;
        const StageOutcome* row_first = first.data() + row;
        alive.clear();
        for (int k = 0; k < count; ++k) {
            WindowProgress& p = row_progress[k];
            p = {};
            row_passed[k] = 0;
            if (fold(row_first[k], begin, p)) alive.push_back(k);
        }
        run_alive(f, [&](int k) { return x0 + k * step; }, y0 + j * ystep, begin + 1, end, row_progress, alive);
        for (const int k : alive) row_passed[k] = 1;
    }
}

void CascadeEvaluator::evaluate_stages_windows(const LevelFeatures& f, const int* xs, int count, int y, std::size_t begin,
                                               std::size_t end, WindowProgress* progress, std::uint8_t* passed) const {
    thread_local std::vector<int> alive;
    alive.resize(static_cast<std::size_t>(count));
    for (int k = 0; k < count; ++k) alive[static_cast<std::size_t>(k)] = k, passed[k] = 0;
    run_alive(f, [&](int k) { return xs[k]; }, y, begin, end, progress, alive);
    for (const int k : alive) passed[k] = 1;
}

bool CascadeEvaluator::evaluate_stages(const LevelFeatures& f, int x, int y, std::size_t begin, std::size_t end,
                                       WindowProgress& p) const {
    // The running sum of the passed stages' margins, in stage order (as on the GPU).
    for (std::size_t s = begin; s < end; ++s)
        if (!fold(stages_[s]->evaluate(f, x, y), s, p)) return false;
    return true;
}

WindowOutcome CascadeEvaluator::evaluate(const LevelFeatures& f, int x, int y) const {
    WindowProgress p;
    return evaluate_stages(f, x, y, 0, stages_.size(), p) ? finish(p) : p.outcome;
}

WindowOutcome evaluate_window(const CascadeModel& model, const LevelFeatures& features, int x, int y) {
    return CascadeEvaluator(model).evaluate(features, x, y);
}

}  // namespace cascadekit
