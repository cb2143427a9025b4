#include "cascadekit/runtime/cpu_detector.hpp"

#include "cascadekit/runtime/scaled_windows.hpp"
#include "cascadekit/runtime/stages/hog_svm.hpp"

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
// The octave min_scale·2^k at or below a level's scale: its k.
int octave_of_level(double scale, double min_scale) {
    return std::max(0, static_cast<int>(std::floor(std::log2(scale / min_scale) + 1e-9)));
}

const CascadeModel& validated(const CascadeModel& model, const DetectParams& params, const CpuOptions& options) {
    validate_model(model);
    validate(params);
    if (!(options.integral_from_survivors >= 0))
        throw std::invalid_argument("CpuOptions::integral_from_survivors must be at least 0");
    if (options.levels_in_flight < 1)
        throw std::invalid_argument("CpuOptions::levels_in_flight must be at least 1, not " + std::to_string(options.levels_in_flight));
    return model;
}

// Survivors of the prefix evaluated by one task (lazy features): a task per row left the rows
// with many survivors (a person's neighbourhood) to one thread each.
constexpr int kSurvivorChunk = 16;
// Windows a call of a first stage that runs rows together (StageEvaluator::runs_rows_together)
// takes at least, in whole rows (a row of more takes one call): a WaldBoost stage then keeps its
// chunks of 512 full (waldboost_lbp.cpp).
constexpr int kRowBatchWindows = 1024;
}  // namespace

// What one level's windows produced, row by row; merged in level and row order so that the
// output is independent of threads and levels in flight. Reused between frames.
struct CpuDetector::LevelRows {
    struct Row {
        std::vector<Detection> detections;
        std::vector<std::uint64_t> rejected;
        std::uint64_t weak = 0;
        std::uint64_t scanned = 0;
        // Lazy features: the windows past the prefix, their x, their progress and whether they
        // passed the rest.
        std::vector<int> survivor_x;
        std::vector<WindowProgress> survivors;
        std::vector<std::uint8_t> passed;
    };
    std::vector<Row> rows;
};

// One level in flight's storage: its images and feature planes. Reused between levels and
// frames: no allocation after the first frame of a size.
struct CpuDetector::LevelWork {
    // A run of one row's survivors.
    struct Chunk {
        int scan, row, begin, end;
    };
    FramePyramid::Level images;
    // DetectParams::scale_windows: the octave's images smoothed (smooth_binomial), which the
    // features are computed from.
    GrayImage smoothed;
    ColourPlanes smoothed_colour;
    LevelFeatures features;
    std::vector<Chunk> chunks;
    std::size_t pixels = 0;  // of the largest level it held: what its storage has grown to
};

// DetectParams::approximate_hog: an octave of the frame, smoothed, and its HoG histogram;
// approximate_lbp: its gray integral image (of the octave as it is: the LBP cells' sums smooth).
struct CpuDetector::Octave {
    PyramidLevel image;  // with a border that covers its levels' (level_pad at scale < 2)
    bool hog_read = false, gray_read = false;  // whether some level reads its HoG histogram, its gray integral
    FramePyramid::Level images;
    GrayImage smoothed;
    ColourPlanes smoothed_colour;
    IntegralHistogram hog;
    HistogramCells cells;  // hog's cells, which its levels read
    IntegralImage gray;
};

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

// One unit's scan (a level, or an octave with its levels): its pixels loaded when first needed,
// its planes, every window through the first stages, and the survivors through the rest.
struct CpuDetector::UnitScan {
    const CpuDetector& d;
    const Unit& unit;
    LevelWork& work;
    const std::size_t n_stages = d.model_.stages.size();
    const std::size_t prefix = d.evaluator_.prefix_stages();
    const GradientParams gradient = d.model_.hog.gradient();
    const PyramidLevel& image = unit.image;
    // A level whose planes come from its octave (approximate_hog, approximate_lbp) may read no
    // pixels of its own: they are resampled when first needed.
    const Octave* octave = unit.octave >= 0 ? d.octaves_[static_cast<std::size_t>(unit.octave)].get() : nullptr;
    const GrayImage* gray = nullptr;
    const ColourPlanes* level_colour = nullptr;
    // Every window through the stages its first planes serve: the whole cascade, or (lazy) only
    // the prefix, keeping the survivors for the other planes.
    const std::size_t first = d.lazy_ ? prefix : n_stages;

    void run() {
        work.features.lbp_gray = nullptr;
        level_features(d.lazy_ ? d.evaluator_.prefix_needs() : d.evaluator_.needs());
        std::atomic<bool> any(false);
        for (const Scan& scan : unit.scans) scan_first_stages(scan, any);
        if (any.load()) finish_survivors();
    }

    void load_pixels() {
        if (gray) return;
        d.frames_.level(image, work.images);
        gray = &work.images.gray();
        level_colour = work.images.colour();
        if (d.params_.scale_windows) {
            // An octave's features serve levels up to twice as coarse: smoothed first, its gradients
            // and cells come closer to those levels' (PennFudanPed log-average miss rate of the
            // people hybrid 0.583 against 0.633 unsmoothed, 0.552 with resampled levels).
            if (!d.evaluator_.colour() || d.evaluator_.needs().gray_integral) {  // the features read gray levels
                smooth_binomial(*gray, work.smoothed);
                gray = &work.smoothed;
            }
            if (level_colour) {
                smooth_binomial(*level_colour, work.smoothed_colour);
                level_colour = &work.smoothed_colour;
            }
        }
    }

    // The planes `needs` names: from the level's pixels, or its HoG histogram interpolated from
    // its octave's. The histogram's sums are scaled by 1/ratio: over a level ratio times coarser a
    // gradient spans ratio times fewer pixels (a ramp's magnitude ratio times larger on 1/ratio²
    // as many pixels; an edge's the same on 1/ratio as many), so that ε keeps its weight.
    void level_features(FeatureNeeds needs) {
        LevelFeatures& features = work.features;
        if (unit.hog_from_octave && needs.hog) {
            const double origin = octave->image.pad - image.pad * unit.ratio;  // the level's corner (0, 0) on the octave
            features.hog.approximate(octave->cells, image.width, image.height, d.hog_grid_, unit.ratio, origin, origin, 1.0 / unit.ratio);
            features.hog_from_gradients = false;
            needs.hog = false;
        }
        if (unit.lbp_from_octave && needs.gray_integral) {
            features.lbp_gray = &octave->gray;
            features.lbp_x = unit.lbp_x.data();
            features.lbp_y = unit.lbp_y.data();
            needs.gray_integral = false;
        }
        if (!needs.hog && !needs.gray_integral) return;
        load_pixels();
        compute_level_features(*gray, needs, gradient, features, level_colour, d.hog_grid_);
    }

    // Counts a window's outcome into its row and keeps it as a detection when it is one: a window
    // at (x, y) on the image covers input pixels from ((x − pad)·scale, (y − pad)·scale), its
    // level's model window times the level's scale.
    void record(const Scan& scan, LevelRows::Row& out, int x, int y, const WindowOutcome& w) const {
        out.weak += w.weak_evaluated;
        if (w.rejected_at >= 0) ++out.rejected[static_cast<std::size_t>(w.rejected_at)];
        if (w.rejected_at >= 0 && !d.params_.keep_rejected) return;
        const int passed = w.rejected_at >= 0 ? w.rejected_at : static_cast<int>(n_stages);
        out.detections.push_back({(x - image.pad) * image.scale, (y - image.pad) * image.scale, d.model_.window_width * scan.scale,
                                  d.model_.window_height * scan.scale, w.score, scan.level, scan.scale, passed});
    }

    // Every window of the scan through the first stages, in parallel rows; `any` set where a
    // window survived them and waits for the other planes.
    void scan_first_stages(const Scan& scan, std::atomic<bool>& any) {
        const CascadeModel& m = scan.evaluator->model();
        // The level's windows lie in the image less `offset` on every side.
        const int free_w = image.width - 2 * scan.offset, free_h = image.height - 2 * scan.offset;
        const bool fits = free_w >= m.window_width && free_h >= m.window_height;
        const int rows = fits ? (free_h - m.window_height) / scan.stride + 1 : 0;
        const int cols = fits ? (free_w - m.window_width) / scan.stride + 1 : 0;
        LevelRows& out_rows = *d.rows_[static_cast<std::size_t>(scan.level)];
        out_rows.rows.resize(static_cast<std::size_t>(rows));
        for (LevelRows::Row& rr : out_rows.rows) {
            rr.detections.clear();
            rr.rejected.assign(n_stages, 0);
            rr.weak = rr.scanned = 0;
            rr.survivor_x.clear();
            rr.survivors.clear();
        }
        // Rows of few windows go to a first stage that runs rows together several at a time
        // (evaluate_stages_rows: WaldBoost rows side by side together); every window's outcome is
        // the same either way. Other first stages one row a call, as before: a HoG stage gains
        // nothing from batches (a HoG cascade's rows in batches measured 0–6 % slower on one
        // thread).
        const int batch = scan.evaluator->runs_rows_together() ? std::max(1, kRowBatchWindows / std::max(1, cols)) : 1;
        tbb::parallel_for(tbb::blocked_range<int>(0, rows, static_cast<std::size_t>(batch)), [&](const tbb::blocked_range<int>& r) {
            const std::size_t held = static_cast<std::size_t>(cols) * static_cast<std::size_t>(std::min(batch, static_cast<int>(r.size())));
            std::vector<WindowProgress> progress(held);  // per range, not per row
            std::vector<std::uint8_t> passed(held);
            for (int row0 = r.begin(); row0 < r.end(); row0 += batch) {
                const int n_rows = std::min(batch, r.end() - row0);
                scan.evaluator->evaluate_stages_rows(work.features, scan.offset, scan.stride, cols, scan.offset + row0 * scan.stride,
                                                     scan.stride, n_rows, 0, first, progress.data(), passed.data());
                for (int j = 0; j < n_rows; ++j)
                    record_row(scan, out_rows, row0 + j, cols, progress.data() + static_cast<std::size_t>(j) * static_cast<std::size_t>(cols),
                               passed.data() + static_cast<std::size_t>(j) * static_cast<std::size_t>(cols), any);
            }
        });
    }

    // One row's outcomes after the first stages: recorded, or kept as survivors.
    void record_row(const Scan& scan, LevelRows& out_rows, int row, int cols, const WindowProgress* row_progress,
                    const std::uint8_t* row_passed, std::atomic<bool>& any) const {
        LevelRows::Row& out = out_rows.rows[static_cast<std::size_t>(row)];
        const int y = scan.offset + row * scan.stride;
        out.scanned += static_cast<std::uint64_t>(cols);
        for (int col = 0; col < cols; ++col) {
            const int x = scan.offset + col * scan.stride;
            const WindowProgress& p = row_progress[col];
            if (!row_passed[col]) record(scan, out, x, y, p.outcome);
            else if (first == n_stages) record(scan, out, x, y, CascadeEvaluator::finish(p));
            else out.survivor_x.push_back(x), out.survivors.push_back(p);
        }
        if (!out.survivors.empty()) any.store(true, std::memory_order_relaxed);
    }

    // The other planes only for an image where some window survived the prefix, and the rest of
    // the cascade only on the survivors, in runs of a row's survivors. PerLevel: survivor blocks
    // while the survivors are few for the image's size, else its integral histogram.
    void finish_survivors() {
        std::size_t survivors = 0;
        for (const Scan& scan : unit.scans)
            for (const LevelRows::Row& rr : d.rows_[static_cast<std::size_t>(scan.level)]->rows) survivors += rr.survivors.size();
        const double level_mpx = static_cast<double>(image.width) * static_cast<double>(image.height) / 1e6;
        const bool blocks = !unit.hog_from_octave && d.survivor_blocks_ &&
                            (d.options_.prefix_planes == PrefixPlanes::SurvivorBlocks ||
                             static_cast<double>(survivors) < d.options_.integral_from_survivors * level_mpx);
        if (blocks) {
            load_pixels();
            work.features.gradients.compute(level_colour ? GradientSource(*level_colour) : GradientSource(*gray), gradient);
            work.features.hog_from_gradients = true;
        } else {
            level_features(d.rest_needs_);
        }
        run_survivor_chunks();
        for (const Scan& scan : unit.scans) record_survivors(scan);
    }

    void run_survivor_chunks() {
        work.chunks.clear();
        for (std::size_t si = 0; si < unit.scans.size(); ++si) {
            LevelRows& out_rows = *d.rows_[static_cast<std::size_t>(unit.scans[si].level)];
            for (std::size_t row = 0; row < out_rows.rows.size(); ++row) {
                LevelRows::Row& out = out_rows.rows[row];
                const int n = static_cast<int>(out.survivors.size());
                out.passed.resize(out.survivors.size());
                for (int b = 0; b < n; b += kSurvivorChunk)
                    work.chunks.push_back({static_cast<int>(si), static_cast<int>(row), b, std::min(n, b + kSurvivorChunk)});
            }
        }
        tbb::parallel_for(tbb::blocked_range<std::size_t>(0, work.chunks.size(), 1), [&](const tbb::blocked_range<std::size_t>& r) {
            for (std::size_t c = r.begin(); c < r.end(); ++c) {
                const LevelWork::Chunk& k = work.chunks[c];
                const Scan& scan = unit.scans[static_cast<std::size_t>(k.scan)];
                LevelRows::Row& out = d.rows_[static_cast<std::size_t>(scan.level)]->rows[static_cast<std::size_t>(k.row)];
                scan.evaluator->evaluate_stages_windows(work.features, out.survivor_x.data() + k.begin, k.end - k.begin,
                                                        scan.offset + k.row * scan.stride, prefix, n_stages,
                                                        out.survivors.data() + k.begin, out.passed.data() + k.begin);
            }
        });
    }

    void record_survivors(const Scan& scan) const {
        LevelRows& out_rows = *d.rows_[static_cast<std::size_t>(scan.level)];
        tbb::parallel_for(tbb::blocked_range<int>(0, static_cast<int>(out_rows.rows.size())), [&](const tbb::blocked_range<int>& r) {
            for (int row = r.begin(); row < r.end(); ++row) {
                LevelRows::Row& out = out_rows.rows[static_cast<std::size_t>(row)];
                for (std::size_t i = 0; i < out.survivors.size(); ++i)
                    record(scan, out, out.survivor_x[i], scan.offset + row * scan.stride,
                           out.passed[i] ? CascadeEvaluator::finish(out.survivors[i]) : out.survivors[i].outcome);
            }
        });
    }
};

void CpuDetector::detect_unit(const Unit& unit, LevelWork& work) const { UnitScan{*this, unit, work}.run(); }

void CpuDetector::plan_units(const std::vector<PyramidLevel>& levels, int width, int height) {
    // The units depend on the frame's size only: planned again (allocating) when it changes.
    if (width == units_width_ && height == units_height_) return;
    units_width_ = width;
    units_height_ = height;
    units_.clear();
    octaves_.clear();
    if (!params_.scale_windows) {
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
        return;
    }
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
