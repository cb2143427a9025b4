// The waldboost_lbp stage trainer (Šochman & Matas, CVPR 2005): one sequence of multi-block LBP
// look-up tables. Each round picks, among the candidate features (every 3×3 grid of w×h cells that
// fits the window, or a random sample of them), the one whose real-AdaBoost table has the least
// normaliser Z = 2 Σⱼ √(W⁺ⱼ W⁻ⱼ) on the active samples' weights w ∝ exp(−y·H), sets its response
// table h(j) = ½ ln((W⁺ⱼ + ε)/(W⁻ⱼ + ε)), and then the rejection threshold θ_B by Wald's sequential
// probability ratio test with β = 0: the largest θ at which the negatives' share below θ is at
// least A = 1/α times the positives' share (estimated on the active samples), with the loss of
// positives spread over the sequence: by classifier t at most α·P·(t/T)^p of the P training
// positives are rejected in all (so the whole sequence rejects at most α of them; p =
// waldboost.budget_power, 1 by default: evenly, so the first classifiers cannot spend the budget
// at once; below 1 they may spend more of it). With waldboost.rule wald the test is Wald's own,
// on joint probabilities: the negatives' share below θ is scaled by the sequence's false-positive
// rate so far (the product of the pool's surviving shares at each refill, since a refill draws
// windows the sequence accepts) and compared with the positives' share of all training
// positives, so a classifier facing every window may reject much and a late one little; Wald's
// bound then keeps the loss within α·P without a schedule. Samples below θ leave the active set;
// when the negatives left fall below waldboost.refill_below of the pool, the loop refills the pool
// by bootstrapping through the sequence as it stands (with waldboost.rescan false, only until a
// refill comes up short; then the sequence goes on with the negatives left).
//
// With waldboost.rejection_rounds N, the first N rounds choose instead the candidate whose table,
// with its threshold found as above, rejects the most active negatives (ties: the lower Z): every
// window meets the first classifiers, so their rejection sets the detector's speed, while Z favours
// tables that separate the classes over all bins, not in the low tail that θ_B cuts off.
//
// With waldboost.calibration_every, the positives split in two: those that fit the tables (their
// weights) and those that only set the thresholds (the test's positives, P in the bounds above).
// A table's own positives score higher than unseen ones, so thresholds set on them reject more
// unseen positives than α says; set on the held-back ones, α bounds what unseen positives lose.
//
// With waldboost.backward_pruning, the finished sequence's thresholds are raised to the lowest
// running sums of the test positives it keeps above a quantile of their final sums (Zhang &
// Viola's direct backward pruning, close_stage()): windows that fall below all of them leave
// early instead of running the rest of the sequence.
//
// Everything is a function of the stored samples and the sequence: H, the active set and the
// weights are replayed from the sequence after a refill and on resume, so the checkpoint holds
// only the sequence (and, for the wald rule, the false-positive rate the pool stands for).
#include <tbb/parallel_for.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <numeric>

#include "../streams.hpp"
#include "../window_set.hpp"
#include "cascadekit/features/lbp.hpp"
#include "cascadekit/io/stage_codec.hpp"
#include "cascadekit/model/waldboost_lbp_stage.hpp"
#include "stage_trainers.hpp"

namespace cascadekit {

namespace {

// Every 3×3 grid of w×h cells inside a ww×wh window (cell sides up to max_cell; 0 = any).
std::vector<Rect> lbp_feature_pool(int ww, int wh, int max_cell) {
    std::vector<Rect> pool;
    const int max_w = max_cell > 0 ? std::min(max_cell, ww / 3) : ww / 3;
    const int max_h = max_cell > 0 ? std::min(max_cell, wh / 3) : wh / 3;
    for (int h = 1; h <= max_h; ++h)
        for (int w = 1; w <= max_w; ++w)
            for (int y = 0; y + 3 * h <= wh; ++y)
                for (int x = 0; x + 3 * w <= ww; ++x) pool.push_back({x, y, w, h});
    return pool;
}

class WaldBoostLbpTrainer final : public StageTrainer {
public:
    explicit WaldBoostLbpTrainer(const TrainConfig& cfg)
        : cfg_(cfg), pool_(lbp_feature_pool(cfg.window.width, cfg.window.height, cfg.waldboost.max_cell)),
          samples_(cfg.window.width, cfg.window.height, 1) {}

    FeatureNeeds needs() const override {
        FeatureNeeds n;
        n.gray_integral = true;
        return n;
    }
    void store(std::size_t slot, const LevelFeatures& f, int x, int y) override { samples_.store(slot, f.gray, x, y); }

    void begin_stage(const StageContext& ctx) override {
        stage_ = {};
        pool_fp_ = 1.0;  // the first pool: windows the stage's input accepts, unfiltered by it
        replay(ctx);
    }
    void refilled(const StageContext& ctx) override {
        // The old pool's surviving share (at least one in pool + 1, as for a stage): the new pool
        // stands for that many times fewer windows. active_ still covers the old samples here.
        const std::size_t old_negatives = active_.size() - ctx.positives;
        pool_fp_ *= std::max(f_, 1.0 / static_cast<double>(old_negatives + 1));
        replay(ctx);
    }
    void resize(std::size_t n) override {
        samples_.resize(n);
        cached_samples_ = 0;  // the code cache is rebuilt for the samples stored next
    }
    std::size_t negatives_wanted() const override { return static_cast<std::size_t>(cfg_.waldboost.negatives); }
    std::size_t negatives_needed() const override {
        return std::max<std::size_t>(1, static_cast<std::size_t>(cfg_.waldboost.min_negatives));
    }

    RoundResult round(const StageContext& ctx) override {
        const std::size_t n = ctx.samples();
        const auto t = static_cast<std::uint64_t>(stage_.weak.size());
        const std::vector<std::size_t> cands = candidates(ctx, t);
        const std::vector<double> w = round_weights(ctx);
        // Smoothing over the samples that fit the table (all of them but calibration positives).
        const double eps = cfg_.waldboost.smoothing / static_cast<double>(n - calibration_count_);
        const auto [index, z] = best_candidate(ctx, cands, w, eps, t);
        add_weak(ctx, pool_[cands[index]], w, eps);
        return round_result(ctx, z);
    }

    std::vector<double> round_weights(const StageContext& ctx) const {
        const std::size_t n = ctx.samples();
        // Weights w ∝ c_y·exp(−y·H) over the active samples, each class starting at one half;
        // calibration positives weigh nothing (they only set thresholds).
        std::vector<double> w(n, 0.0);
        double total = 0;
        const double cp = 0.5 / static_cast<double>(fitting_positives(ctx)), cn = 0.5 / static_cast<double>(std::max<std::size_t>(ctx.negatives, 1));
        for (std::size_t i = 0; i < n; ++i)
            if (active_[i] && !ctx.calibrates(i))
                total += w[i] = (i < ctx.positives ? cp * std::exp(-static_cast<double>(H_[i])) : cn * std::exp(static_cast<double>(H_[i])));
        for (double& v : w) v /= total;
        return w;
    }

    // The index in `cands` of the round's table, and its Z.
    std::pair<std::size_t, double> best_candidate(const StageContext& ctx, const std::vector<std::size_t>& cands,
                                                  const std::vector<double>& w, double eps, std::uint64_t t) {
        const std::size_t n = ctx.samples();
        // Each candidate's Z; in the first waldboost.rejection_rounds rounds also the active
        // negatives its table's SPRT threshold would reject, which then decides (more first).
        struct Best {
            double z = 1e300;
            std::size_t rejected = 0;
            std::size_t index = 0;
        };
        const bool by_rejection = t < static_cast<std::uint64_t>(cfg_.waldboost.rejection_rounds);
        const bool cached = use_cache(n);
        std::vector<Best> best(cands.size());
        tbb::parallel_for(std::size_t{0}, cands.size(), [&](std::size_t c) {
            const Rect& cell = pool_[cands[c]];
            const std::uint8_t* codes = cached ? codes_.data() + cands[c] * n : nullptr;
            auto code_of = [&](std::size_t i) { return codes ? codes[i] : code(i, cell); };
            double wp[256] = {}, wn[256] = {};
            for (std::size_t i = 0; i < n; ++i)
                if (active_[i]) (i < ctx.positives ? wp : wn)[code_of(i)] += w[i];
            double z = 0;
            for (int j = 0; j < 256; ++j) z += std::sqrt(wp[j] * wn[j]);
            best[c] = {2 * z, 0, c};
            if (by_rejection) {
                const std::array<float, 256> table = responses(wp, wn, eps);
                std::vector<float> h(n, 0.0f);
                for (std::size_t i = 0; i < n; ++i)
                    if (active_[i]) h[i] = H_[i] + table[code_of(i)];
                best[c].rejected = sprt(ctx, h).negatives;
            }
        });
        const Best win = *std::min_element(best.begin(), best.end(), [](const Best& a, const Best& b) {
            if (a.rejected != b.rejected) return a.rejected > b.rejected;
            return a.z < b.z || (a.z == b.z && a.index < b.index);
        });
        return {win.index, win.z};
    }

    // The table of `cell` fitted to the weights, added with its rejection threshold.
    void add_weak(const StageContext& ctx, const Rect& cell, const std::vector<double>& w, double eps) {
        const std::size_t n = ctx.samples();
        LbpWeakClassifier weak;
        weak.cell = cell;
        {
            double wp[256] = {}, wn[256] = {};
            for (std::size_t i = 0; i < n; ++i)
                if (active_[i]) (i < ctx.positives ? wp : wn)[code(i, weak.cell)] += w[i];  // w = 0: calibration
            weak.responses = responses(wp, wn, eps);
        }
        for (std::size_t i = 0; i < n; ++i)
            if (active_[i]) H_[i] += weak.responses[code(i, weak.cell)];  // float, in order: as the detector sums
        weak.reject_threshold = sprt(ctx, H_).theta;
        stage_.weak.push_back(weak);
        apply_threshold(ctx, weak.reject_threshold);
        stage_.final_threshold = final_threshold(ctx, weak.reject_threshold);

    }

    RoundResult round_result(const StageContext& ctx, double z) const {
        const std::size_t n = ctx.samples();
        RoundResult r;
        r.added = true;
        r.weighted_error = z;
        r.progress = static_cast<double>(stage_.weak.size()) / cfg_.waldboost.weak_classifiers;
        const std::size_t active_neg = active_count(ctx.positives, n);
        if (stage_.weak.size() >= static_cast<std::size_t>(cfg_.waldboost.weak_classifiers)) r.stage_complete = true;
        else if (active_count(0, ctx.positives) == 0) {
            r.stage_complete = true;
            r.note = "stage " + std::to_string(ctx.stage) + ": every training positive is rejected; closing the stage";
        } else if (active_positives(ctx, false) == 0 || active_positives(ctx, true) == 0) {
            r.stage_complete = true;
            r.note = "stage " + std::to_string(ctx.stage) + ": every " + (active_positives(ctx, false) == 0 ? "fitting" : "calibration") +
                     " positive is rejected (waldboost.calibration_every); closing the stage";
        } else {
            r.wants_negatives = static_cast<double>(active_neg) < cfg_.waldboost.refill_below * static_cast<double>(ctx.negatives);
            r.negatives_left = active_neg;
        }
        return r;
    }

    // waldboost.backward_pruning: each θ_t raised to the lowest running sum at t of the kept test
    // positives whose final sum is at or above the pruning_quantile quantile of theirs (Zhang &
    // Viola's direct backward pruning). The sums are the detector's (float, in order), so each of
    // those positives still passes every raised threshold (rejection is H < θ).
    std::string close_stage(const StageContext& ctx) override {
        if (!cfg_.waldboost.backward_pruning || stage_.weak.empty()) return {};
        std::vector<std::size_t> kept;
        for (std::size_t i = 0; i < ctx.positives; ++i)
            if (active_[i] && tests(ctx, i)) kept.push_back(i);
        if (kept.empty()) return "backward pruning: no test positive passes the sequence; thresholds left as they are";
        // The quantile's positive: the one at rank `drop` in (H, index) order, a total order, so
        // nth_element finds the same one a full sort would (the minima below take kept in any order).
        const auto drop = std::min(static_cast<std::size_t>(std::floor(cfg_.waldboost.pruning_quantile * static_cast<double>(kept.size()) + 1e-9)),
                                   kept.size() - 1);
        std::nth_element(kept.begin(), kept.begin() + static_cast<std::ptrdiff_t>(drop), kept.end(),
                         [&](std::size_t a, std::size_t b) { return H_[a] < H_[b] || (H_[a] == H_[b] && a < b); });
        const float floor_sum = H_[kept[drop]];
        std::vector<float> lowest(stage_.weak.size(), kMaxModelMagnitude);
        for (std::size_t i : kept) {
            if (H_[i] < floor_sum) continue;  // ties with the quantile's sum stay in
            float h = 0.0f;
            for (std::size_t t = 0; t < stage_.weak.size(); ++t) {
                const LbpWeakClassifier& c = stage_.weak[t];
                h += c.responses[code(i, c.cell)];
                lowest[t] = std::min(lowest[t], h);
            }
        }
        const std::size_t negatives_before = active_count(ctx.positives, ctx.samples());
        std::size_t raised = 0;
        for (std::size_t t = 0; t < stage_.weak.size(); ++t)
            if (lowest[t] > stage_.weak[t].reject_threshold) {
                stage_.weak[t].reject_threshold = lowest[t];
                ++raised;
            }
        replay(ctx);
        char score[32], quantile[32];
        std::snprintf(score, sizeof score, "%.4g", static_cast<double>(floor_sum - stage_.final_threshold));
        std::snprintf(quantile, sizeof quantile, "%g", cfg_.waldboost.pruning_quantile);
        return "backward pruning: " + std::to_string(raised) + " of " + std::to_string(stage_.weak.size()) +
               " rejection thresholds raised to keep the " + std::to_string(active_positives(ctx, true)) + " of " +
               std::to_string(kept.size()) + " kept test positives that end at a score of " + score +
                " or more (waldboost.pruning_quantile " + quantile +
               "); active pool negatives " + std::to_string(negatives_before) + " -> " +
               std::to_string(active_count(ctx.positives, ctx.samples()));
    }

    std::size_t size() const override { return stage_.weak.size(); }
    Stage stage() const override { return stage_; }
    // A refill may follow the first round: before it, one table that rejects every window.
    Stage warm_up_stage() const override {
        if (!stage_.weak.empty()) return stage_;
        WaldBoostLbpStage s = stage_;
        LbpWeakClassifier c;
        c.cell = {0, 0, std::max(cfg_.window.width / 3, 1), std::max(cfg_.window.height / 3, 1)};
        c.responses.fill(-1.0f);
        c.reject_threshold = 0.0f;
        s.weak.push_back(c);
        return s;
    }
    double detection_rate() const override { return d_; }
    double fp_rate() const override { return f_; }
    float threshold() const override { return stage_.final_threshold; }

    void save_state(ByteWriter& out) const override {
        encode_stage(stage_, out);
        if (cfg_.waldboost.rule == WaldRule::Wald) out.pod(pool_fp_);
    }
    void load_state(ByteReader& in, const StageContext& ctx) override {
        stage_ = restore_stage<WaldBoostLbpStage>(in, cfg_);
        pool_fp_ = 1.0;
        if (cfg_.waldboost.rule == WaldRule::Wald) {
            pool_fp_ = in.pod<double>();
            if (!(pool_fp_ > 0 && pool_fp_ <= 1)) throw ByteCodecError("the pool's false-positive rate is not in (0, 1]");
        }
        replay(ctx);
    }

private:
    std::uint8_t code(std::size_t sample, const Rect& cell) const {
        return lbp_code(samples_.patch(sample), samples_.row_stride(), cell);
    }

    // When every feature is a candidate every round (features_per_round 0), each feature's code
    // on every sample, kept while the samples stay (rebuilt after a refill) if it fits
    // kMaxCacheBytes: a round then reads codes instead of computing them. With sampled
    // candidates a round computes only its candidates' codes.
    static constexpr std::size_t kMaxCacheBytes = std::size_t{1} << 30;
    bool use_cache(std::size_t n) {
        const auto k = static_cast<std::size_t>(cfg_.waldboost.features_per_round);
        if ((k != 0 && k < pool_.size()) || pool_.size() * n > kMaxCacheBytes) return false;
        if (cached_samples_ == n) return true;
        codes_.resize(pool_.size() * n);
        tbb::parallel_for(std::size_t{0}, pool_.size(), [&](std::size_t f) {
            std::uint8_t* out = codes_.data() + f * n;
            for (std::size_t i = 0; i < n; ++i) out[i] = code(i, pool_[f]);
        });
        cached_samples_ = n;
        return true;
    }

    std::vector<std::size_t> candidates(const StageContext& ctx, std::uint64_t t) const {
        std::vector<std::size_t> order(pool_.size());
        std::iota(order.begin(), order.end(), 0);
        const std::size_t k = static_cast<std::size_t>(cfg_.waldboost.features_per_round);
        if (k == 0 || k >= pool_.size()) return order;
        RandomStream pick = detail::streams::candidate_features(cfg_.seed, static_cast<std::uint64_t>(ctx.stage), t);
        for (std::size_t i = 0; i < k; ++i) std::swap(order[i], order[i + pick.below(order.size() - i)]);
        order.resize(k);
        std::sort(order.begin(), order.end());  // ties in Z go to the lowest pool index, whatever the draw order
        return order;
    }

    std::size_t active_count(std::size_t from, std::size_t to) const {
        return static_cast<std::size_t>(std::count(active_.begin() + static_cast<std::ptrdiff_t>(from),
                                                   active_.begin() + static_cast<std::ptrdiff_t>(to), std::uint8_t{1}));
    }

    // The positives of the rejection test: the calibration ones (waldboost.calibration_every), else all.
    bool calibrating(const StageContext& ctx) const { return ctx.calibration && !ctx.calibration->empty(); }
    bool tests(const StageContext& ctx, std::size_t i) const { return i < ctx.positives && (!calibrating(ctx) || ctx.calibrates(i)); }
    // The counts, from calibration_count_ (fixed while a stage's positives are: set by replay()).
    std::size_t test_positives(const StageContext& ctx) const {
        return std::max<std::size_t>(calibrating(ctx) ? calibration_count_ : ctx.positives, 1);
    }
    std::size_t fitting_positives(const StageContext& ctx) const { return std::max<std::size_t>(ctx.positives - calibration_count_, 1); }
    // Active positives of the test (test true) or of the tables (false; without calibration both are all).
    std::size_t active_positives(const StageContext& ctx, bool test) const {
        std::size_t k = 0;
        for (std::size_t i = 0; i < ctx.positives; ++i)
            if (active_[i] && (test ? tests(ctx, i) : !ctx.calibrates(i))) ++k;
        return k;
    }

    // Real AdaBoost's table from the classes' weights in each bin: ½ ln((W⁺ⱼ + ε)/(W⁻ⱼ + ε)).
    static std::array<float, 256> responses(const double* wp, const double* wn, double eps) {
        std::array<float, 256> r{};
        for (std::size_t j = 0; j < 256; ++j) r[j] = static_cast<float>(0.5 * std::log((wp[j] + eps) / (wn[j] + eps)));
        return r;
    }

    struct Sprt {
        float theta;            // reject H < θ
        std::size_t negatives;  // the active negatives below θ
    };

    // The largest θ (reject H < θ) whose negatives' share below θ is at least 1/α times the
    // positives' share, within the budget of α·P·(t/T)^p positives rejected by classifier t in all
    // (rule spread), or whose joint probability among all negative windows is at least 1/α times
    // that among all positives, within α·P in all (rule wald); θ = −10⁶ (reject nothing) when none
    // qualifies. H: the running sums of the samples with this classifier added (active ones read).
    // The positives are the test's (tests(): the calibration ones where there are such).
    Sprt sprt(const StageContext& ctx, const std::vector<float>& H) const {
        std::vector<std::size_t> idx;
        for (std::size_t i = 0; i < ctx.samples(); ++i)
            if (active_[i] && (i >= ctx.positives || tests(ctx, i))) idx.push_back(i);
        std::sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) { return H[a] < H[b] || (H[a] == H[b] && a < b); });
        const double A = 1.0 / cfg_.waldboost.alpha;
        const double t = static_cast<double>(stage_.weak.size() + 1), T = cfg_.waldboost.weak_classifiers;
        const double power = cfg_.waldboost.budget_power;
        const bool wald = cfg_.waldboost.rule == WaldRule::Wald;
        const double P = static_cast<double>(test_positives(ctx));
        const double share = wald           ? cfg_.waldboost.alpha * P
                             : power == 1.0 ? cfg_.waldboost.alpha * P * t / T
                                            : cfg_.waldboost.alpha * P * std::pow(t / T, power);
        const auto budget = static_cast<std::size_t>(std::floor(share + 1e-9));
        // wald: the negatives' share of all negative windows is pool_fp_ · below / pool size.
        const double neg_scale =
            wald ? pool_fp_ / static_cast<double>(std::max<std::size_t>(ctx.negatives, 1)) : 1.0 / static_cast<double>(active_count(ctx.positives, ctx.samples()));
        const double pos_scale = wald ? 1.0 / P : 1.0 / static_cast<double>(active_positives(ctx, true));
        Sprt out{-kMaxModelMagnitude, 0};
        std::size_t pos_below = 0, neg_below = 0;
        for (std::size_t k = 0; k < idx.size(); ++k) {
            // θ = H of sample k rejects exactly the samples before it in this order that are strictly lower.
            if (k > 0 && H[idx[k]] != H[idx[k - 1]] && neg_below > 0) {
                const bool ratio = pos_below == 0 || static_cast<double>(neg_below) * neg_scale >= A * static_cast<double>(pos_below) * pos_scale;
                if (ratio && rejected_pos_ + pos_below <= budget) out = {H[idx[k]], neg_below};
            }
            ++(idx[k] < ctx.positives ? pos_below : neg_below);
        }
        return out;
    }

    // The sequence's final threshold if it ended here: the last classifier's θ, or where that
    // rejects nothing (−10⁶), the lowest running sum of a positive the test keeps. Both pass every
    // window the sequence keeps that scores like a kept positive, but a detection's score is
    // H − final threshold in float: against −10⁶ it would keep only 1/16 of a unit, too coarse to
    // rank detections by (nor may `cascade calibrate` store a threshold past ±10⁶).
    float final_threshold(const StageContext& ctx, float theta) const {
        if (theta > -kMaxModelMagnitude) return theta;
        float lowest = theta;
        bool any = false;
        for (std::size_t i = 0; i < ctx.positives; ++i)
            if (active_[i] && tests(ctx, i) && (!any || H_[i] < lowest)) {
                lowest = H_[i];
                any = true;
            }
        return lowest;
    }

    void apply_threshold(const StageContext& ctx, float theta) {
        for (std::size_t i = 0; i < ctx.samples(); ++i)
            if (active_[i] && H_[i] < theta) {
                active_[i] = 0;
                if (tests(ctx, i)) ++rejected_pos_;
            }
        d_ = static_cast<double>(active_positives(ctx, true)) / static_cast<double>(test_positives(ctx));
        f_ = ctx.negatives ? static_cast<double>(active_count(ctx.positives, ctx.samples())) / static_cast<double>(ctx.negatives) : 0.0;
    }

    // H, the active set and the rejected positives, from the sequence on the stored samples:
    // exactly what the detector computes for those windows.
    void replay(const StageContext& ctx) {
        const std::size_t n = ctx.samples();
        calibration_count_ = 0;
        for (std::size_t i = 0; i < ctx.positives; ++i) calibration_count_ += ctx.calibrates(i) ? 1 : 0;
        H_.assign(n, 0.0f);
        active_.assign(n, 1);
        rejected_pos_ = 0;
        tbb::parallel_for(std::size_t{0}, n, [&](std::size_t i) {
            float h = 0.0f;
            for (const LbpWeakClassifier& c : stage_.weak) {
                h += c.responses[code(i, c.cell)];
                if (h < c.reject_threshold) {
                    active_[i] = 0;
                    break;
                }
            }
            H_[i] = h;
        });
        rejected_pos_ = test_positives(ctx) - active_positives(ctx, true);
        d_ = static_cast<double>(active_positives(ctx, true)) / static_cast<double>(test_positives(ctx));
        f_ = ctx.negatives ? static_cast<double>(active_count(ctx.positives, n)) / static_cast<double>(ctx.negatives) : 0.0;
    }

    const TrainConfig& cfg_;
    std::vector<Rect> pool_;
    detail::WindowSet samples_;  // gray integral-image patches
    std::vector<std::uint8_t> codes_;  // feature-major: codes_[f * samples + i]
    std::size_t cached_samples_ = 0;   // samples codes_ holds (0: none)
    WaldBoostLbpStage stage_;
    std::vector<float> H_;
    std::vector<std::uint8_t> active_;
    std::size_t rejected_pos_ = 0;
    double d_ = 1, f_ = 1;
    std::size_t calibration_count_ = 0;  // positives that only set thresholds (waldboost.calibration_every)
    double pool_fp_ = 1;  // the sequence's false-positive rate (on the stage's input) when the pool was filled
};
}  // namespace

StageTrainerKind waldboost_lbp_trainer_kind() {
    return {WaldBoostLbpStage::kKind, [](const TrainConfig& cfg) -> std::unique_ptr<StageTrainer> {
                return std::make_unique<WaldBoostLbpTrainer>(cfg);
            }};
}

}  // namespace cascadekit
