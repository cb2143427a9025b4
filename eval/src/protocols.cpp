#include "cascadekit/eval/protocols.hpp"

#include <tbb/parallel_for.h>

#include <algorithm>
#include <cmath>

#include "cascadekit/runtime/bulk_detector.hpp"
#include "cascadekit/runtime/window_evaluator.hpp"

namespace cascadekit {

WindowScores score_windows(const CascadeModel& m, const Dataset& test, const DetectParams& base, const BulkOptions& options,
                           const ImageLoader& loader) {
    WindowScores ws;
    const int S = static_cast<int>(m.stages.size());
    ws.positives.resize(test.positives.size());
    const CascadeEvaluator evaluator(m);
    tbb::parallel_for(std::size_t{0}, test.positives.size(), [&](std::size_t i) {
        GrayImage g = loader(test.positives[i].path);
        if (test.positives[i].flip)
            for (int y = 0; y < g.height; ++y) std::reverse(&g.at(0, y), &g.at(0, y) + g.width);
        LevelFeatures f;
        compute_level_features(g, evaluator.needs(), f);
        const WindowOutcome o = evaluator.evaluate(f, (g.width - m.window_width) / 2, (g.height - m.window_height) / 2);
        ws.positives[i] = cascade_window_score(o.rejected_at < 0 ? S : o.rejected_at, o.score, S);
    });
    DetectParams p = base;
    p.keep_rejected = true;
    BulkDetector bulk(m, p, options);
    const BulkTotals totals = bulk.run(
        test.negatives.size(),
        [&](std::size_t i) {
            auto g = std::make_shared<GrayImage>(loader(test.negatives[i]));
            return BulkImage{g->view(), g};
        },
        [&](std::size_t, DetectResult&& r, const BulkImage&, double) {
            for (const Detection& d : r.detections) ws.negatives.push_back(cascade_window_score(d.stages_passed, d.score, S));
        });
    ws.stats = totals.stats;
    ws.negative_windows = ws.stats.windows_scanned;
    return ws;
}

GrayImage pad_replicate(const GrayImage& g, int pad) {
    if (pad <= 0) return g;
    GrayImage out(g.width + 2 * pad, g.height + 2 * pad);
    for (int y = 0; y < out.height; ++y)
        for (int x = 0; x < out.width; ++x)
            out.at(x, y) = g.at(std::clamp(x - pad, 0, g.width - 1), std::clamp(y - pad, 0, g.height - 1));
    return out;
}

std::vector<ImageTruth> detect_annotated(const CascadeModel& model, const AnnotatedImages& set, const FullImageOptions& o,
                                         const ImageLoader& loader, Box (*to_box)(double, double, double, double)) {
    std::vector<AnnotatedImage> images(set.size());
    std::vector<ImageTruth> truth(set.size());
    for (std::size_t i = 0; i < images.size(); ++i) {
        images[i] = set.at(i);
        truth[i].people = images[i].objects;
        truth[i].ignore = images[i].ignore;
        truth[i].face_points = images[i].face_points;
    }
    BulkDetector bulk(model, o.params, o.bulk);
    std::vector<int> pads(images.size(), 0);
    bulk.run(
        images.size(),
        [&](std::size_t i) {
            const GrayImage g = loader(images[i].image);
            pads[i] = static_cast<int>(std::lround(o.pad * g.height));
            auto padded = std::make_shared<GrayImage>(pad_replicate(g, pads[i]));
            return BulkImage{padded->view(), padded};
        },
        [&](std::size_t i, DetectResult&& raw, const BulkImage&, double) {
            const auto fused = fuse(raw.detections, model.window_width, model.window_height, o.fusion);
            for (const Detection& d : fused) truth[i].detections.push_back({to_box(d.x - pads[i], d.y - pads[i], d.w, d.h), d.score});
        });
    return truth;
}

}  // namespace cascadekit
