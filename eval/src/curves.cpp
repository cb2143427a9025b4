#include "cascadekit/eval/curves.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "cascadekit/model/hog_svm_stage.hpp"

namespace cascadekit {

namespace {
// Keeps the first and the last point of every run of equal miss rate: the step curve, and
// miss_rate_at() on it, are unchanged, and a million-window curve shrinks to a few thousand points.
std::vector<CurvePoint> plateau_ends(const std::vector<CurvePoint>& c) {
    std::vector<CurvePoint> out;
    for (std::size_t i = 0; i < c.size(); ++i)
        if (i == 0 || i + 1 == c.size() || c[i].miss_rate != c[i - 1].miss_rate || c[i].miss_rate != c[i + 1].miss_rate)
            out.push_back(c[i]);
    return out;
}
}  // namespace

double cascade_window_score(int stages_passed, float stage_score, int stages) {
    const int k = std::min(stages_passed, stages - 1);
    return k + 1.0 / (1.0 + std::exp(-static_cast<double>(stage_score)));
}

std::vector<CurvePoint> fppw_curve(std::vector<double> pos, std::vector<double> neg, std::uint64_t windows) {
    std::sort(pos.begin(), pos.end());
    std::sort(neg.begin(), neg.end(), std::greater<>());
    std::vector<CurvePoint> out;
    const double P = static_cast<double>(pos.size()), N = static_cast<double>(std::max<std::uint64_t>(windows, 1));
    for (std::size_t i = 0; i < neg.size(); ++i) {
        if (i + 1 < neg.size() && neg[i + 1] == neg[i]) continue;  // the last of equal scores
        const double t = neg[i];
        const auto missed = static_cast<double>(std::lower_bound(pos.begin(), pos.end(), t) - pos.begin());
        out.push_back({static_cast<double>(i + 1) / N, missed / P, t});
    }
    return plateau_ends(out);
}

double miss_rate_at(const std::vector<CurvePoint>& curve, double fp) {
    double best = 1.0;
    for (const CurvePoint& p : curve)
        if (p.fp <= fp) best = std::min(best, p.miss_rate);
    return best;
}

Box person_box(double x, double y, double w, double h) {
    const double cx = x + w / 2, cy = y + h / 2, ph = 0.75 * h, pw = 0.38 * ph;
    return {cx - pw / 2, cy - ph / 2, pw, ph};
}

MatchRule iou_match(double min_iou) {
    return [min_iou](const ImageTruth& im, std::size_t g, const Box& d) {
        const double o = iou(d, im.people[g]);
        return o >= min_iou ? o : -1.0;
    };
}

MatchRule face_points_match(double min_size, double max_size) {
    return [min_size, max_size](const ImageTruth& im, std::size_t g, const Box& d) {
        if (g >= im.face_points.size()) return -1.0;
        const FacePoints& f = im.face_points[g];
        auto inside = [&](double x, double y) { return x >= d.x && x <= d.x + d.w && y >= d.y && y <= d.y + d.h; };
        if (!inside(f.left_eye_x, f.left_eye_y) || !inside(f.right_eye_x, f.right_eye_y) || !inside(f.mouth_x, f.mouth_y))
            return -1.0;
        const double eye_mouth = std::hypot((f.left_eye_x + f.right_eye_x) / 2 - f.mouth_x, (f.left_eye_y + f.right_eye_y) / 2 - f.mouth_y);
        const double size = std::sqrt(d.w * d.h);
        if (!(size >= min_size * eye_mouth && size <= max_size * eye_mouth)) return -1.0;
        const double dx = (f.left_eye_x + f.right_eye_x + f.mouth_x) / 3 - (d.x + d.w / 2);
        const double dy = (f.left_eye_y + f.right_eye_y + f.mouth_y) / 3 - (d.y + d.h / 2);
        if (std::abs(dx) > d.w / 4 || std::abs(dy) > d.h / 4) return -1.0;
        return 1.0 - std::hypot(dx / d.w, dy / d.h);
    };
}

namespace {
// Greedy matching by descending score, once at the loosest threshold: a detection's status (true
// or false positive) does not change as the threshold rises, because a lower-scored detection
// never affects a higher one. Calls on_detection(score, true_positive) for every detection not
// dropped on an ignore region, and on_object(image, object, score of the detection that found it).
template <class OnDetection, class OnObject>
void match_greedily(const std::vector<ImageTruth>& images, const MatchRule& match, double ignore_iou, OnDetection&& on_detection,
                    OnObject&& on_object) {
    for (std::size_t m = 0; m < images.size(); ++m) {
        const ImageTruth& im = images[m];
        std::vector<std::size_t> order(im.detections.size());
        for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
        std::stable_sort(order.begin(), order.end(),
                         [&](std::size_t a, std::size_t b) { return im.detections[a].score > im.detections[b].score; });
        std::vector<bool> taken(im.people.size(), false);
        for (std::size_t i : order) {
            double best = -1;
            int found = -1;
            for (std::size_t g = 0; g < im.people.size(); ++g) {
                if (taken[g]) continue;
                const double q = match(im, g, im.detections[i].box);
                if (q >= 0 && q >= best) best = q, found = static_cast<int>(g);
            }
            if (found >= 0) {
                taken[static_cast<std::size_t>(found)] = true;
                on_object(m, static_cast<std::size_t>(found), im.detections[i].score);
            } else if (std::any_of(im.ignore.begin(), im.ignore.end(),
                                   [&](const Box& g) { return iou(im.detections[i].box, g) >= ignore_iou; })) {
                continue;  // on an ignore region: neither a hit nor a false positive
            }
            on_detection(im.detections[i].score, found >= 0);
        }
    }
}
}  // namespace

std::vector<CurvePoint> fppi_curve(const std::vector<ImageTruth>& images, const MatchRule& match, double ignore_iou) {
    struct Scored {
        double score;
        bool tp;
    };
    std::vector<Scored> all;
    std::size_t people = 0;
    for (const ImageTruth& im : images) people += im.people.size();
    match_greedily(images, match, ignore_iou, [&](double score, bool tp) { all.push_back({score, tp}); },
                   [](std::size_t, std::size_t, double) {});
    std::sort(all.begin(), all.end(), [](const Scored& a, const Scored& b) { return a.score > b.score; });
    std::vector<CurvePoint> out;
    std::size_t tp = 0, fp = 0;
    const double n_images = static_cast<double>(std::max<std::size_t>(images.size(), 1));
    for (std::size_t i = 0; i < all.size(); ++i) {
        (all[i].tp ? tp : fp) += 1;
        if (i + 1 < all.size() && all[i + 1].score == all[i].score) continue;
        out.push_back({static_cast<double>(fp) / n_images,
                       people ? 1.0 - static_cast<double>(tp) / static_cast<double>(people) : 0.0, all[i].score});
    }
    return plateau_ends(out);
}

CurvePoint point_at(const std::vector<ImageTruth>& images, double threshold, const MatchRule& match, double ignore_iou) {
    std::size_t tp = 0, fp = 0, objects = 0;
    for (const ImageTruth& im : images) objects += im.people.size();
    match_greedily(images, match, ignore_iou, [&](double score, bool hit) {
        if (score >= threshold) (hit ? tp : fp) += 1;
    }, [](std::size_t, std::size_t, double) {});
    const double n_images = static_cast<double>(std::max<std::size_t>(images.size(), 1));
    return {static_cast<double>(fp) / n_images, objects ? 1.0 - static_cast<double>(tp) / static_cast<double>(objects) : 0.0,
            threshold};
}

double detection_rate_at(const std::vector<CurvePoint>& fppi, std::size_t images, double false_positives) {
    return 1.0 - miss_rate_at(fppi, false_positives / static_cast<double>(std::max<std::size_t>(images, 1)) + 1e-12);
}

double log_average_miss_rate(const std::vector<CurvePoint>& fppi) {
    double sum = 0;
    for (int i = 0; i < 9; ++i) {
        const double ref = std::pow(10.0, -2.0 + 2.0 * i / 8.0);
        sum += std::log(std::max(miss_rate_at(fppi, ref), 1e-10));
    }
    return std::exp(sum / 9.0);
}

std::vector<StageRejection> rejection_profile(const CascadeModel& model, const DetectStats& stats) {
    std::vector<StageRejection> out;
    const double windows = static_cast<double>(std::max<std::uint64_t>(stats.windows_scanned, 1));
    std::uint64_t reaching = stats.windows_scanned, rejected = 0;
    double learners = 0;
    for (std::size_t s = 0; s < model.stages.size(); ++s) {
        const std::size_t n = model.stages[s].size();
        if (model.stages[s].is<HogSvmStage>()) learners += static_cast<double>(reaching * n);
        rejected += stats.rejected_per_stage[s];
        reaching -= stats.rejected_per_stage[s];
        out.push_back({static_cast<int>(s) + 1, n, static_cast<double>(rejected) / windows, learners / windows});
    }
    if (!out.empty()) out.back().learners_per_window = static_cast<double>(stats.weak_evaluated) / windows;
    return out;
}

double average_precision(const std::vector<CurvePoint>& fppi, std::size_t images, std::size_t objects) {
    if (objects == 0) return 0.0;
    std::vector<std::pair<double, double>> pr;  // (recall, precision)
    for (const CurvePoint& p : fppi) {
        const double tp = (1.0 - p.miss_rate) * static_cast<double>(objects), fp = p.fp * static_cast<double>(images);
        if (tp + fp > 0) pr.emplace_back(1.0 - p.miss_rate, tp / (tp + fp));
    }
    double sum = 0;
    for (int k = 0; k <= 100; ++k) {
        const double r = k / 100.0;
        double best = 0;
        for (const auto& [recall, precision] : pr)
            if (recall >= r - 1e-12) best = std::max(best, precision);
        sum += best;
    }
    return sum / 101.0;
}

std::vector<SizeBin> found_by_height(const std::vector<ImageTruth>& images, double threshold, const std::vector<double>& edges,
                                     const MatchRule& match, double ignore_iou) {
    std::vector<SizeBin> bins;
    for (std::size_t k = 0; k <= edges.size(); ++k)
        bins.push_back({k == 0 ? 0.0 : edges[k - 1], k == edges.size() ? std::numeric_limits<double>::infinity() : edges[k], 0, 0});
    auto bin_of = [&](double h) {
        return static_cast<std::size_t>(std::upper_bound(edges.begin(), edges.end(), h) - edges.begin());
    };
    for (const ImageTruth& im : images)
        for (const Box& b : im.people) ++bins[bin_of(b.h)].objects;
    match_greedily(images, match, ignore_iou, [](double, bool) {},
                   [&](std::size_t m, std::size_t g, double score) {
                       if (score >= threshold) ++bins[bin_of(images[m].people[g].h)].found;
                   });
    return bins;
}

double threshold_at(const std::vector<CurvePoint>& fppi, double fp) {
    double t = std::numeric_limits<double>::infinity();
    for (const CurvePoint& p : fppi)
        if (p.fp <= fp) t = p.threshold;
    return t;
}

BoxRule box_rule(const std::string& name, const CascadeModel& model) {
    if (name == "person") return person_box;
    if (name == "window") return window_box;
    if (name == "auto") {
        const ObjectBox b = model.object_box;
        return [b](double x, double y, double w, double h) { return object_in_window(b, x, y, w, h); };
    }
    return {};
}

double FppiReport::detection_rate_at(double false_positives) const {
    return cascadekit::detection_rate_at(curve, images, false_positives);
}

FppiReport fppi_report(const std::vector<ImageTruth>& images) {
    FppiReport r;
    r.curve = fppi_curve(images);
    r.images = images.size();
    for (const ImageTruth& t : images) r.objects += t.people.size();
    r.log_average_miss_rate = log_average_miss_rate(r.curve);
    r.miss_rate_at_0_1 = miss_rate_at(r.curve, 0.1);
    r.miss_rate_at_1 = miss_rate_at(r.curve, 1.0);
    r.ap50 = average_precision(r.curve, r.images, r.objects);
    r.threshold_at_1 = threshold_at(r.curve, 1.0);
    r.found_by_height = found_by_height(images, r.threshold_at_1, {50, 100, 200});
    return r;
}

}  // namespace cascadekit
