#include "cascadekit/eval/protocols.hpp"

#include <tbb/parallel_for.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "cascadekit/features/pyramid.hpp"
#include "cascadekit/runtime/bulk_detector.hpp"
#include "cascadekit/runtime/object_detector.hpp"
#include "cascadekit/runtime/window_evaluator.hpp"

namespace cascadekit {

WindowScores score_windows(const CascadeModel& m, const Dataset& test, const DetectParams& base, const BulkOptions& options,
                           const ImageLoader& loader) {
    WindowScores ws;
    const int S = static_cast<int>(m.stages.size());
    ws.positives.resize(test.positives.size());
    const CascadeEvaluator evaluator(m);
    tbb::parallel_for(std::size_t{0}, test.positives.size(), [&](std::size_t i) {
        Image g = keep_channels(loader(test.positives[i].path), evaluator.colour());
        if (test.positives[i].flip) g = transformed(g, ImageTransform::Mirror);
        LevelFeatures f;
        compute_image_features(g, evaluator.needs(), m.hog.gradient(), f);
        const WindowOutcome o = evaluator.evaluate(f, (g.width - m.window_width) / 2, (g.height - m.window_height) / 2);
        ws.positives[i] = cascade_window_score(o.rejected_at < 0 ? S : o.rejected_at, o.score, S);
    });
    DetectParams p = base;
    p.keep_rejected = true;
    BulkDetector bulk(m, p, options);
    const BulkTotals totals = bulk.run(
        test.negatives.size(),
        [&](std::size_t i) {
            auto g = std::make_shared<Image>(keep_channels(loader(test.negatives[i]), evaluator.colour()));
            return BulkImage{g->view(), g};
        },
        [&](std::size_t, DetectResult&& r, const BulkImage&, double) {
            for (const Detection& d : r.detections) ws.negatives.push_back(cascade_window_score(d.stages_passed, d.score, S));
        });
    ws.stats = totals.stats;
    ws.negative_windows = ws.stats.windows_scanned;
    return ws;
}

double WeakSurvival::surviving(std::size_t k) const {
    std::uint64_t rejected = 0;
    for (std::size_t i = 0; i < std::min(k, rejected_by.size()); ++i) rejected += rejected_by[i];
    return windows ? 1.0 - static_cast<double>(rejected) / static_cast<double>(windows) : 0;
}

WeakSurvival weak_survival(const CascadeModel& m, const std::vector<std::filesystem::path>& images, const DetectParams& params,
                           const ImageLoader& loader) {
    validate(params);
    const CascadeEvaluator evaluator(m);
    std::size_t total = 0;
    for (const Stage& s : m.stages) total += s.size();
    std::vector<WeakSurvival> per_image(images.size());
    // The detector's scan (runtime/src/cpu_detector.cpp): its pyramid, its levels' features, its
    // window positions; here each window's weak-classifier count is kept, which it does not report.
    tbb::parallel_for(std::size_t{0}, images.size(), [&](std::size_t i) {
        WeakSurvival& out = per_image[i];
        out.rejected_by.assign(total, 0);
        FramePyramid frame;
        frame.reset(loader(images[i]).view(), evaluator.colour(), evaluator.needs().gray_integral);
        const GrayImage& g = frame.frame();
        LevelFeatures f;
        const auto levels = plan_pyramid(g.width, g.height, m.window_width, m.window_height, params.scale_step, params.min_scale,
                                         params.max_scale);
        frame.prepare(levels);
        FramePyramid::Level level_images;
        for (const PyramidLevel& level : levels) {
            frame.level(level, level_images);
            compute_level_features(level_images.gray(), evaluator.needs(), m.hog.gradient(), f, level_images.colour());
            for (int y = 0; y + m.window_height <= level.height; y += params.stride)
                for (int x = 0; x + m.window_width <= level.width; x += params.stride) {
                    const WindowOutcome w = evaluator.evaluate(f, x, y);
                    ++out.windows;
                    out.weak_evaluated += w.weak_evaluated;
                    if (w.rejected_at >= 0 && w.weak_evaluated > 0) ++out.rejected_by[w.weak_evaluated - 1];
                }
        }
    });
    WeakSurvival all;
    all.rejected_by.assign(total, 0);
    for (const WeakSurvival& w : per_image) {
        all.windows += w.windows;
        all.weak_evaluated += w.weak_evaluated;
        for (std::size_t k = 0; k < total; ++k) all.rejected_by[k] += w.rejected_by[k];
    }
    return all;
}

std::vector<ImageTruth> detect_annotated(const CascadeModel& model, const AnnotatedImages& set, const FullImageOptions& o,
                                         const ImageLoader& loader, const BoxRule& to_box, DetectStats* scan) {
    std::vector<AnnotatedImage> images(set.size());
    std::vector<ImageTruth> truth(set.size());
    for (std::size_t i = 0; i < images.size(); ++i) {
        images[i] = set.at(i);
        truth[i].people = images[i].objects;
        truth[i].ignore = images[i].ignore;
        truth[i].face_points = images[i].face_points;
    }
    Operation op;
    op.scan = o.params;
    op.boxes.pad = o.pad;
    op.boxes.fusion = o.fusion;
    op.boxes.threshold = -std::numeric_limits<double>::infinity();  // every box: the curves sweep the threshold
    op.boxes.window_boxes = true;                                     // to_box puts the object in the window
    ObjectDetector detector(model, op, o.bulk);
    const bool colour = reads_colour(model);
    std::vector<double> factors(images.size(), 1.0);
    const BulkTotals totals = detector.run(
        images.size(),
        [&](std::size_t i) {
            auto g = std::make_shared<Image>(keep_channels(loader(images[i].image), colour));
            if (o.upscale_below > 0 && g->height < o.upscale_below) {  // small images enlarged 2×, boxes halved back
                *g = per_channel(*g, [](const GrayImage& c) {
                    GrayImage big;
                    resample_bilinear(c, 0.5, 2 * c.width, 2 * c.height, big);
                    return big;
                });
                factors[i] = 2.0;
            }
            return BulkImage{g->view(), g};
        },
        [&](std::size_t i, ObjectResult&& r, const BulkImage&, double) {
            const double f = factors[i];
            for (const FoundObject& found : r.objects) {
                const Detection& d = found.window;
                truth[i].detections.push_back({to_box(d.x / f, d.y / f, d.w / f, d.h / f), d.score});
            }
        });
    if (scan) *scan = totals.stats;
    return truth;
}

}  // namespace cascadekit
