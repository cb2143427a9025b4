#include "cascadekit/runtime/cpu_detector.hpp"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <atomic>

#include "cpu_parts.hpp"

namespace cascadekit {

using detail::kRowBatchWindows;
using detail::kSurvivorChunk;

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

}  // namespace cascadekit
