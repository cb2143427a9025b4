// The stage kinds the trainer trains: one line per kind.
#include <bit>
#include <cstdint>
#include <limits>

#include "cascadekit/model/kind_registry.hpp"
#include "stage_trainers.hpp"

namespace cascadekit {

namespace {
KindRegistry<StageTrainerKind>& registry() {
    static KindRegistry<StageTrainerKind> r{
        hog_svm_trainer_kind(),
        waldboost_lbp_trainer_kind(),
        hog_dense_trainer_kind(),
    };
    return r;
}
}  // namespace

void register_stage_trainer(StageTrainerKind kind) { registry().register_kind(std::move(kind)); }
const StageTrainerKind* find_stage_trainer(std::string_view kind) { return registry().find(kind); }
std::string known_stage_trainers() { return registry().names(); }

namespace detail {
VoteWeight confidence_rated_alpha(const std::vector<float>& margins, const std::vector<int>& labels,
                                  const std::vector<double>& weights) {
    // u_i = y_i·m_i over the samples that weigh anything.
    std::vector<double> u, w;
    double max_abs = 0;
    for (std::size_t i = 0; i < margins.size(); ++i)
        if (weights[i] > 0) {
            u.push_back(labels[i] > 0 ? static_cast<double>(margins[i]) : -static_cast<double>(margins[i]));
            w.push_back(weights[i]);
            max_abs = std::max(max_abs, std::abs(u.back()));
        }
    // Z and its first two derivatives at a.
    const auto at = [&](double a, double& z, double& d1, double& d2) {
        z = d1 = d2 = 0;
        for (std::size_t i = 0; i < u.size(); ++i) {
            const double t = w[i] * std::exp(-a * u[i]);
            z += t;
            d1 -= t * u[i];
            d2 += t * u[i] * u[i];
        }
    };
    VoteWeight out;
    double z, d1, d2;
    at(0.0, z, d1, d2);
    out.z = z;
    if (!(d1 < 0) || max_abs == 0) return out;  // Z does not fall for any α > 0
    double lo = 0, hi = 50.0 / max_abs;          // Z'(lo) < 0; the cap
    at(hi, z, d1, d2);
    if (d1 <= 0) {  // still falling at the cap
        out.alpha = hi;
        out.z = z;
        return out;
    }
    double a = 0;
    at(a, z, d1, d2);
    for (int it = 0; it < 100 && hi - lo > 1e-12 * hi; ++it) {
        if (d1 < 0) lo = a;
        else hi = a;
        double next = d2 > 0 ? a - d1 / d2 : 0.5 * (lo + hi);
        if (!(next > lo && next < hi)) next = 0.5 * (lo + hi);
        if (std::abs(next - a) <= 1e-12 * std::max(1.0, a)) break;
        a = next;
        at(a, z, d1, d2);
    }
    out.alpha = a;
    out.z = z;
    return out;
}

namespace {
// Floats in order as unsigned integers (−FLT_MAX … FLT_MAX map to increasing values).
std::uint32_t float_order(float f) {
    const auto u = std::bit_cast<std::uint32_t>(f);
    return (u & 0x80000000u) != 0 ? ~u : u | 0x80000000u;
}
float order_float(std::uint32_t o) { return std::bit_cast<float>((o & 0x80000000u) != 0 ? o & 0x7fffffffu : ~o); }
}  // namespace

float nested_pass_limit(float sum, float carried) {
    const auto passes = [&](float t) { return (sum - t) + carried >= 0.0f; };
    // −FLT_MAX passes and FLT_MAX fails (|sum|, |carried| are far below it): bisect between.
    std::uint32_t lo = float_order(-std::numeric_limits<float>::max()), hi = float_order(std::numeric_limits<float>::max());
    while (hi - lo > 1) {
        const std::uint32_t mid = lo + (hi - lo) / 2;
        (passes(order_float(mid)) ? lo : hi) = mid;
    }
    return order_float(lo);
}

double running_score_weight(const std::vector<float>& running, const std::vector<int>& labels, const std::vector<double>& weights) {
    double max_abs = 0;
    for (std::size_t i = 0; i < running.size(); ++i)
        if (weights[i] > 0) max_abs = std::max(max_abs, std::abs(static_cast<double>(running[i])));
    if (max_abs == 0) return 0;
    // f(β) = log P(β) + log N(β) is convex; its slope is the negatives' mean r minus the
    // positives', each under weights tilted by exp(∓β·r).
    const auto slope = [&](double beta) {
        double p = 0, p1 = 0, n = 0, n1 = 0;
        for (std::size_t i = 0; i < running.size(); ++i) {
            if (!(weights[i] > 0)) continue;
            const double r = running[i];
            if (labels[i] > 0) {
                const double t = weights[i] * std::exp(-beta * r);
                p += t, p1 += t * r;
            } else {
                const double t = weights[i] * std::exp(beta * r);
                n += t, n1 += t * r;
            }
        }
        return p > 0 && n > 0 ? n1 / n - p1 / p : 0.0;
    };
    double lo = 0, hi = 50.0 / max_abs;
    if (!(slope(lo) < 0)) return 0;  // the running score does not separate the classes
    if (slope(hi) <= 0) return hi;
    for (int it = 0; it < 100 && hi - lo > 1e-12 * hi; ++it) {
        const double mid = 0.5 * (lo + hi);
        (slope(mid) < 0 ? lo : hi) = mid;
    }
    return 0.5 * (lo + hi);
}
}  // namespace detail

}  // namespace cascadekit
