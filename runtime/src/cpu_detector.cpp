#include "cascadekit/runtime/cpu_detector.hpp"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <atomic>

#include "cascadekit/features/pyramid.hpp"

namespace cascadekit {

namespace {
const CascadeModel& validated(const CascadeModel& model, const DetectParams& params) {
    validate_model(model);
    validate(params);
    return model;
}
}  // namespace

CpuDetector::CpuDetector(CascadeModel model, DetectParams params, CpuOptions options)
    : model_(std::move(model)), params_(params), options_(options), evaluator_(validated(model_, params_)) {}

namespace {
// What one row of windows produced; rows are merged in order so the output is thread-independent.
struct RowResult {
    std::vector<Detection> detections;
    std::vector<std::uint64_t> rejected;
    std::uint64_t weak = 0;
    std::uint64_t scanned = 0;
    // Lazy features: the windows past the prefix, their x and their progress.
    std::vector<int> survivor_x;
    std::vector<WindowProgress> survivors;
};
}  // namespace

DetectResult CpuDetector::detect(const ImageView& image) {
    // A colour model reads gray levels only for its LBP stages.
    frames_.reset(image, evaluator_.colour(), evaluator_.needs().gray_integral);
    const GrayImage& gray = frames_.frame();
    const int ww = model_.window_width, wh = model_.window_height;
    const auto levels = plan_pyramid(gray.width, gray.height, ww, wh, params_.scale_step, params_.min_scale,
                                     params_.max_scale, params_.level_pad);
    if (levels.empty())
        throw DetectError("image " + std::to_string(gray.width) + "x" + std::to_string(gray.height) +
                          " is smaller than the model window " + std::to_string(ww) + "x" + std::to_string(wh) +
                          " at scale " + std::to_string(params_.min_scale) +
                          " (a min scale below 1 upscales the image)");
    DetectResult result;
    result.stats.rejected_per_stage.assign(model_.stages.size(), 0);
    result.stats.levels = static_cast<int>(levels.size());
    const std::size_t n_stages = model_.stages.size();
    const std::size_t prefix = evaluator_.prefix_stages();
    // Detections stay in scan order either way; keep_rejected wants every window in that order.
    const bool lazy = options_.prefix_planes != PrefixPlanes::EveryLevel && prefix > 0 && !params_.keep_rejected;
    const GradientParams gradient = model_.hog.gradient();

    for (std::size_t li = 0; li < levels.size(); ++li) {
        const PyramidLevel& level = levels[li];
        frames_.select(level);
        const GrayImage* img = &frames_.gray();
        const ColourPlanes* level_colour = frames_.colour();
        const int rows = (level.height - wh) / params_.stride + 1;
        const int cols = (level.width - ww) / params_.stride + 1;
        std::vector<RowResult> row_results(static_cast<std::size_t>(rows));
        // Counts a window's outcome into its row and keeps it as a detection when it is one.
        auto record = [&](RowResult& out, int x, int y, const WindowOutcome& w) {
            out.weak += w.weak_evaluated;
            if (w.rejected_at >= 0) ++out.rejected[static_cast<std::size_t>(w.rejected_at)];
            if (w.rejected_at >= 0 && !params_.keep_rejected) return;
            const int passed = w.rejected_at >= 0 ? w.rejected_at : static_cast<int>(n_stages);
            out.detections.push_back({(x - level.pad) * level.scale, (y - level.pad) * level.scale, ww * level.scale,
                                      wh * level.scale, w.score, static_cast<int>(li), level.scale, passed});
        };
        // Every window through the stages its first planes serve: the whole cascade, or (lazy)
        // only the prefix, keeping the survivors for the other planes.
        const std::size_t first = lazy ? prefix : n_stages;
        compute_level_features(*img, lazy ? evaluator_.prefix_needs() : evaluator_.needs(), gradient, features_, level_colour);
        std::atomic<bool> any(false);
        tbb::parallel_for(tbb::blocked_range<int>(0, rows), [&](const tbb::blocked_range<int>& r) {
            std::vector<WindowProgress> progress(static_cast<std::size_t>(cols));  // per range, not per row
            std::vector<std::uint8_t> passed(static_cast<std::size_t>(cols));
            for (int row = r.begin(); row < r.end(); ++row) {
                RowResult& out = row_results[static_cast<std::size_t>(row)];
                out.rejected.assign(n_stages, 0);
                const int y = row * params_.stride;
                evaluator_.evaluate_stages_row(features_, 0, params_.stride, cols, y, 0, first, progress.data(), passed.data());
                out.scanned += static_cast<std::uint64_t>(cols);
                for (int col = 0; col < cols; ++col) {
                    const int x = col * params_.stride;
                    const WindowProgress& p = progress[static_cast<std::size_t>(col)];
                    if (!passed[static_cast<std::size_t>(col)]) record(out, x, y, p.outcome);
                    else if (first == n_stages) record(out, x, y, CascadeEvaluator::finish(p));
                    else out.survivor_x.push_back(x), out.survivors.push_back(p);
                }
                if (!out.survivors.empty()) any.store(true, std::memory_order_relaxed);
            }
        });
        // The other planes only for a level where some window survived the prefix, and the rest
        // of the cascade only on the survivors.
        if (any.load()) {
            const FeatureNeeds rest = evaluator_.needs().minus(evaluator_.prefix_needs());
            if (options_.prefix_planes == PrefixPlanes::SurvivorBlocks && rest.hog && !rest.gray_integral) {
                features_.gradients.compute(level_colour ? GradientSource(*level_colour) : GradientSource(*img), gradient);
                features_.hog_from_gradients = true;
            } else {
                compute_level_features(*img, rest, gradient, features_, level_colour);
            }
            tbb::parallel_for(tbb::blocked_range<int>(0, rows), [&](const tbb::blocked_range<int>& r) {
                std::vector<std::uint8_t> passed;
                for (int row = r.begin(); row < r.end(); ++row) {
                    RowResult& out = row_results[static_cast<std::size_t>(row)];
                    const int y = row * params_.stride;
                    const int n = static_cast<int>(out.survivors.size());
                    passed.resize(out.survivors.size());
                    evaluator_.evaluate_stages_windows(features_, out.survivor_x.data(), n, y, prefix, n_stages,
                                                       out.survivors.data(), passed.data());
                    for (std::size_t i = 0; i < out.survivors.size(); ++i)
                        record(out, out.survivor_x[i], y,
                               passed[i] ? CascadeEvaluator::finish(out.survivors[i]) : out.survivors[i].outcome);
                }
            });
        }
        for (RowResult& rr : row_results) {
            result.stats.windows_scanned += rr.scanned;
            result.stats.weak_evaluated += rr.weak;
            for (std::size_t s = 0; s < n_stages; ++s) result.stats.rejected_per_stage[s] += rr.rejected[s];
            result.detections.insert(result.detections.end(), rr.detections.begin(), rr.detections.end());
        }
    }
    return result;
}

}  // namespace cascadekit
