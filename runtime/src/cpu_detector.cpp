#include "cascadekit/runtime/cpu_detector.hpp"

#include "cascadekit/runtime/scaled_windows.hpp"
#include "cascadekit/runtime/stages/hog_svm.hpp"
#include "cpu_parts.hpp"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_group.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <string>

namespace cascadekit {

namespace {
const CascadeModel& validated(const CascadeModel& model, const DetectParams& params, const CpuOptions& options) {
    validate_model(model);
    validate(params);
    if (!(options.integral_from_survivors >= 0))
        throw std::invalid_argument("CpuOptions::integral_from_survivors must be at least 0");
    if (options.levels_in_flight < 1)
        throw std::invalid_argument("CpuOptions::levels_in_flight must be at least 1, not " + std::to_string(options.levels_in_flight));
    return model;
}

}  // namespace

CpuDetector::CpuDetector(CascadeModel model, DetectParams params, CpuOptions options)
    : model_(std::move(model)), params_(params), options_(options), evaluator_(validated(model_, params_, options_)) {
    // Detections stay in scan order either way; keep_rejected wants every window in that order.
    lazy_ = options_.prefix_planes != PrefixPlanes::EveryLevel && evaluator_.prefix_stages() > 0 && !params_.keep_rejected;
    const FeatureNeeds needs = evaluator_.needs();
    rest_needs_ = needs.minus(evaluator_.prefix_needs());
    survivor_blocks_ = lazy_ && (options_.prefix_planes == PrefixPlanes::SurvivorBlocks || options_.prefix_planes == PrefixPlanes::PerLevel) &&
                       rest_needs_.hog && !rest_needs_.gray_integral;
    // PerLevel: any level may take an integral histogram.
    const bool only_blocks = survivor_blocks_ && options_.prefix_planes == PrefixPlanes::SurvivorBlocks;
    if (options_.grid_histograms && needs.hog) hog_grid_ = hog_scan_grid(model_, params_.stride);
    const std::size_t histogram_bytes = std::max<std::size_t>(4, 4 * kOrientationBins / static_cast<std::size_t>(hog_grid_ * hog_grid_));
    // With a gamma table the HoG planes also keep the level's planes mapped through it (1 byte a
    // pixel, 3 for colour: IntegralHistogram and GradientPlane's storage).
    const std::size_t mapped_bytes = needs.hog && model_.hog.gamma != GrayGamma::None ? (evaluator_.colour() ? 3 : 1) : 0;
    bytes_per_level_pixel_ = 1 + (evaluator_.colour() ? 3 : 0) + (needs.gray_integral ? 4 : 0) +
                             (needs.hog ? (only_blocks ? 4 : histogram_bytes) + mapped_bytes : 0);
    if (params_.scale_windows) bytes_per_level_pixel_ += 1 + (evaluator_.colour() ? 3 : 0);  // the smoothed images
}

CpuDetector::~CpuDetector() = default;

void CpuDetector::plan_units(const std::vector<PyramidLevel>& levels, int width, int height) {
    // The units depend on the frame's size only: planned again (allocating) when it changes.
    if (width == units_width_ && height == units_height_) return;
    units_width_ = width;
    units_height_ = height;
    units_.clear();
    octaves_.clear();
    if (params_.scale_windows) plan_octave_units(levels, width, height);
    else plan_level_units(levels, width, height);
}

DetectResult CpuDetector::detect(const ImageView& image) {
    // A colour model reads gray levels only for its LBP stages.
    frames_.reset(image, evaluator_.colour(), evaluator_.needs().gray_integral);
    const GrayImage& gray = frames_.frame();
    const int ww = model_.window_width, wh = model_.window_height;
    const auto levels = plan_pyramid(gray.width, gray.height, ww, wh, params_.scale_step, params_.min_scale,
                                     params_.max_scale, params_.level_pad);
    if (levels.empty()) throw DetectError(window_fit_problem(gray.width, gray.height, ww, wh, params_));
    plan_units(levels, gray.width, gray.height);
    frames_.prepare(levels);  // a unit reads no deeper octave than its levels do
    prepare_octaves();
    while (rows_.size() < levels.size()) rows_.push_back(std::make_unique<LevelRows>());
    detect_units();
    return merged(levels.size());
}

void CpuDetector::prepare_octaves() {
    // approximate_hog, approximate_lbp: the octaves' smoothed histograms and gray integral images,
    // before any level reads them.
    tbb::parallel_for(std::size_t{0}, octaves_.size(), [&](std::size_t i) {
        Octave& o = *octaves_[i];
        frames_.level(o.image, o.images);
        if (o.gray_read) o.gray.compute(o.images.gray());
        if (!o.hog_read) return;
        if (const ColourPlanes* c = o.images.colour()) {
            smooth_binomial(*c, o.smoothed_colour);
            o.hog.compute(GradientSource(o.smoothed_colour), model_.hog.gradient(), hog_grid_);
        } else {
            smooth_binomial(o.images.gray(), o.smoothed);
            o.hog.compute(GradientSource(o.smoothed), model_.hog.gradient(), hog_grid_);
        }
        o.cells.compute(o.hog);
    });
}

void CpuDetector::detect_units() {
    // The units (levels, or octaves) as tasks: started in order (the largest first), up to
    // levels_in_flight at once and, beyond the first, only while the units in flight take at most
    // level_memory_in_flight bytes of storage (each in flight has its own); each parallel inside,
    // so threads that would idle at one unit's joins take up another. A finished unit frees its
    // storage and starts what now fits. The rows are merged in level order at the end.
    const std::size_t n = units_.size();
    free_.clear();
    for (const auto& w : work_) free_.push_back(w.get());
    const std::size_t per_pixel = bytes_per_level_pixel_;
    auto area = [&](std::size_t li) {
        return static_cast<std::size_t>(units_[li].image.width) * static_cast<std::size_t>(units_[li].image.height);
    };
    auto bytes = [&](std::size_t li) { return area(li) * per_pixel; };
    const std::size_t budget = options_.level_memory_in_flight;
    const std::size_t most = static_cast<std::size_t>(options_.levels_in_flight);
    std::mutex lock;  // guards next, flying, flying_bytes, free_ and work_
    std::size_t next = 0, flying = 0, flying_bytes = 0;
    tbb::task_group tasks;
    // Starts the levels that fit; the caller holds `lock`.
    std::function<void()> start = [&] {
        while (next < n && flying < most && (flying == 0 || flying_bytes + bytes(next) <= budget)) {
            if (free_.empty()) {
                work_.push_back(std::make_unique<LevelWork>());
                free_.push_back(work_.back().get());
            }
            // The largest free storage: levels come largest first, so storages grow only at the
            // first frame of a size (taking any would grow each to the first level in turn).
            const auto largest = std::max_element(free_.begin(), free_.end(), [](const LevelWork* a, const LevelWork* b) {
                return a->pixels < b->pixels;
            });
            LevelWork* w = *largest;
            free_.erase(largest);
            const std::size_t li = next++;
            w->pixels = std::max(w->pixels, area(li));
            ++flying;
            flying_bytes += bytes(li);
            tasks.run([&, li, w] {
                detect_unit(units_[li], *w);
                std::lock_guard guard(lock);
                free_.push_back(w);
                --flying;
                flying_bytes -= bytes(li);
                start();
            });
        }
    };
    {
        std::lock_guard guard(lock);
        start();
    }
    tasks.wait();
}

// The levels' rows in level and row order: the same output for any threads and levels in flight.
DetectResult CpuDetector::merged(std::size_t levels) const {
    DetectResult result;
    const std::size_t n_stages = model_.stages.size();
    result.stats.rejected_per_stage.assign(n_stages, 0);
    result.stats.levels = static_cast<int>(levels);
    for (std::size_t li = 0; li < levels; ++li)
        for (const LevelRows::Row& rr : rows_[li]->rows) {
            result.stats.windows_scanned += rr.scanned;
            result.stats.weak_evaluated += rr.weak;
            for (std::size_t s = 0; s < n_stages; ++s) result.stats.rejected_per_stage[s] += rr.rejected[s];
            result.detections.insert(result.detections.end(), rr.detections.begin(), rr.detections.end());
        }
    return result;
}

}  // namespace cascadekit
