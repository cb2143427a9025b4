#include "cascadekit/runtime/fusion.hpp"

#include <algorithm>
#include <array>
#include <numeric>
#include <stdexcept>

namespace cascadekit {

std::string to_string(FusionMethod m) { return std::string(kFusionNames.name(m)); }
bool parse_fusion(const std::string& text, FusionMethod& out) { return kFusionNames.parse(text, out); }

FusionParams fusion_params(const OperatingPoint& point) {
    FusionParams f;
    if (!parse_fusion(point.fuse, f.method)) throw std::invalid_argument("unknown fusion '" + point.fuse + "'");
    f.nms_iou = decimal_value(point.nms_iou);
    return f;
}

namespace {
using Vec3 = std::array<double, 3>;

struct Point {
    Vec3 y;        // centre x, centre y, ln scale
    Vec3 inv_var;  // H_i⁻¹ diagonal
    double t;      // weight t(w)
    double norm;   // |H_i|^{-1/2} up to a constant: e^{-2 s_i}
};

double mahalanobis2(const Vec3& a, const Vec3& b, const Vec3& inv_var) {
    double d = 0;
    for (int k = 0; k < 3; ++k) d += (a[k] - b[k]) * (a[k] - b[k]) * inv_var[k];
    return d;
}

Vec3 inv_var_at(double s, const FusionParams& p) {
    const double e = std::exp(s);
    return {1.0 / (e * p.sigma_x * e * p.sigma_x), 1.0 / (e * p.sigma_y * e * p.sigma_y), 1.0 / (p.sigma_s * p.sigma_s)};
}
}  // namespace

std::vector<Detection> fuse_meanshift(const std::vector<Detection>& raw, int window_width, int window_height,
                                      const FusionParams& p) {
    std::vector<Point> pts;
    pts.reserve(raw.size());
    for (const Detection& d : raw) {
        const double s = std::log(d.h / window_height);
        const double t = p.score_weights ? std::max<double>(d.score, 0.0) : 1.0;
        pts.push_back({{d.x + d.w / 2, d.y + d.h / 2, s}, inv_var_at(s, p), t, std::exp(-2.0 * s)});
    }
    struct Mode {
        Vec3 y;
        double density;
        int support = 1;  // seeds that converged here (merged modes add theirs)
    };
    std::vector<Mode> modes;
    constexpr int kMaxIterations = 100;
    for (const Point& seed : pts) {
        if (seed.t <= 0.0) continue;
        Vec3 y = seed.y;
        for (int it = 0; it < kMaxIterations; ++it) {
            Vec3 num{0, 0, 0}, den{0, 0, 0};
            double total = 0;
            for (const Point& q : pts) {
                const double w = q.t * q.norm * std::exp(-0.5 * mahalanobis2(y, q.y, q.inv_var));
                total += w;
                for (int k = 0; k < 3; ++k) {
                    num[k] += w * q.inv_var[k] * q.y[k];
                    den[k] += w * q.inv_var[k];
                }
            }
            if (!(total > 0.0)) break;  // every weight underflowed: stay put
            Vec3 next;
            for (int k = 0; k < 3; ++k) next[k] = num[k] / den[k];  // the w̄ normalisation cancels
            const double moved = mahalanobis2(next, y, inv_var_at(y[2], p));
            y = next;
            if (moved < 1e-8) break;  // less than 1e-4 bandwidths
        }
        double density = 0;
        for (const Point& q : pts) density += q.t * std::exp(-0.5 * mahalanobis2(y, q.y, q.inv_var));
        modes.push_back({y, density});
    }
    // Densest first (stable: ties keep seed order), then merge modes within one bandwidth.
    std::stable_sort(modes.begin(), modes.end(), [](const Mode& a, const Mode& b) { return a.density > b.density; });
    std::vector<Mode> kept;
    for (const Mode& m : modes) {
        const auto into = std::find_if(kept.begin(), kept.end(), [&](const Mode& k) {
            return mahalanobis2(m.y, k.y, inv_var_at(k.y[2], p)) < 1.0;
        });
        if (into == kept.end()) kept.push_back(m);
        else into->support += m.support;
    }
    std::vector<Detection> out;
    for (const Mode& m : kept) {
        const double scale = std::exp(m.y[2]);
        const double w = window_width * scale, h = window_height * scale;
        out.push_back({m.y[0] - w / 2, m.y[1] - h / 2, w, h, static_cast<float>(m.density), -1, scale, -1, m.support});
    }
    return out;
}

std::vector<Detection> fuse_nms(const std::vector<Detection>& raw, double iou_threshold) {
    std::vector<std::size_t> order(raw.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return raw[a].score > raw[b].score; });
    std::vector<Detection> kept;
    for (std::size_t i : order) {
        // The first (best) kept box that suppresses it counts it.
        const auto by = std::find_if(kept.begin(), kept.end(), [&](const Detection& k) { return iou(k.box(), raw[i].box()) > iou_threshold; });
        if (by == kept.end()) {
            kept.push_back(raw[i]);
            kept.back().support = 1;
        } else {
            ++by->support;
        }
    }
    for (Detection& d : kept) d.level = -1;
    return kept;
}

std::vector<Detection> fuse(const std::vector<Detection>& raw, int window_width, int window_height,
                            const FusionParams& params) {
    switch (params.method) {
        case FusionMethod::MeanShift: return fuse_meanshift(raw, window_width, window_height, params);
        case FusionMethod::Nms: return fuse_nms(raw, params.nms_iou);
        case FusionMethod::None: return raw;
    }
    return raw;
}

}  // namespace cascadekit
