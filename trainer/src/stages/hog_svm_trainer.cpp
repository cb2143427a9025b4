// The hog_svm stage trainer (Zhu et al., CVPR 2006; Bilgiç, MIT 2010): AdaBoost whose weak
// learners are LIBLINEAR SVMs on single HoG blocks. Each round trains candidate SVMs on
// `candidates_per_round` distinct random blocks of the pool (in parallel), keeps the best, and
// lowers the stage threshold so that d_min of the positives pass. With binary votes (discrete
// AdaBoost, the default) the best candidate has the least weighted error and votes
// α = ½ ln((1−e)/e) when its margin is ≥ 0; with confidence-rated votes (boosting.vote: margin,
// h = m, or clipped, h = clamp(m, −1, 1); Schapire & Singer 1999) each candidate's vote α·h
// takes the α that minimises the normaliser Z = Σ w·exp(−α·y·h), and the candidate of least Z wins.
// Nested stages (boosting.nested; Huang et al., ICPR 2004; Xiao et al., ICCV 2003) begin with the
// running score of the stages before them as a first weak learner (HogSvmStage::carry).
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include "../streams.hpp"
#include "cascadekit/features/block_pool.hpp"
#include "cascadekit/io/stage_codec.hpp"
#include "cascadekit/model/hog_svm_stage.hpp"
#include "cascadekit/runtime/stages/hog_svm.hpp"
#include "cascadekit/trainer/linear_svm.hpp"
#include "hog_stage_trainer.hpp"

namespace cascadekit {

namespace {
class HogSvmTrainer final : public HogStageTrainer {
public:
    explicit HogSvmTrainer(const TrainConfig& cfg)
        : HogStageTrainer(cfg), pool_(make_block_pool(cfg.boosting.pool, cfg.window.width, cfg.window.height, cfg.boosting.min_block)) {}

    void begin_stage(const StageContext& ctx) override {
        current_ = {};
        current_.vote = vote_of_stage(cfg_, ctx.stage);
        nest(ctx);
        reset_weights(ctx);
        if (!running_.empty()) weigh_running_scores(ctx);
        recompute_sums(ctx);
    }

    RoundResult round(const StageContext& ctx) override {
        const std::size_t count = ctx.samples();
        const auto round_index = static_cast<std::uint64_t>(current_.learners.size());
        const auto stage = static_cast<std::uint64_t>(ctx.stage);
        const std::vector<std::size_t> order = candidate_order(stage, round_index);
        const std::size_t nc = std::min<std::size_t>(static_cast<std::size_t>(cfg_.boosting.candidates_per_round), pool_.size());
        const std::vector<int> rows = training_rows(ctx, stage, round_index);
        std::vector<int> labels(count);
        for (std::size_t i = 0; i < count; ++i) labels[i] = i < ctx.positives ? 1 : -1;
        std::vector<Candidate> cands = train_candidates(order, nc, rows, labels);
        Candidate& win = cands[best_candidate(cands)];
        RoundResult result;
        const double e = std::clamp(win.error, 1e-10, 1.0 - 1e-10);
        if (confidence_votes() ? !(win.alpha > 0) : e >= 0.5) {
            result.note = "stage " + std::to_string(ctx.stage) + ": no candidate beats chance (" +
                          (confidence_votes() ? "normaliser Z " + std::to_string(win.z) : "weighted error " + std::to_string(e)) +
                          "); closing the stage";
            result.stage_complete = true;
            add_fmax_note(result, ctx.stage);
            return result;
        }
        win.learner.alpha = static_cast<float>(confidence_votes() ? win.alpha : 0.5 * std::log((1.0 - e) / e));
        current_.learners.push_back(win.learner);
        reweight(win, labels);
        update_threshold(ctx);
        result.added = true;
        result.weighted_error = win.error;
        result.stage_complete =
            f_ <= cfg_.boosting.f_max || static_cast<int>(current_.learners.size()) >= cfg_.boosting.max_learners_per_stage;
        add_fmax_note(result, ctx.stage);
        return result;
    }


    void save_state(ByteWriter& out) const override {
        encode_stage(current_, out);
        out.vec(weights_);
    }
    void load_state(ByteReader& in, const StageContext& ctx) override {
        current_ = restore_stage<HogSvmStage>(in, cfg_);
        nest(ctx);
        weights_ = in.vec<double>(ctx.samples());
        if (!weights_.empty() && weights_.size() != ctx.samples())
            throw ByteCodecError(std::to_string(weights_.size()) + " sample weights for " + std::to_string(ctx.samples()) +
                                 " samples (did the data change?)");
        for (double w : weights_)
            if (!std::isfinite(w) || w < 0) throw ByteCodecError("a sample weight is negative or not finite");
        if (weights_.empty()) {
            reset_weights(ctx);
            if (!running_.empty()) weigh_running_scores(ctx);
        }
        recompute_sums(ctx);
    }

private:
    struct Candidate {
        HogLearner learner;
        double error = 1.0;                  // weighted error of [m >= 0]
        double alpha = 0.0, z = 1.0;         // margin or clipped votes: the α of least Z, and that Z
        std::vector<float> margins;          // per sample, as the detector computes them
    };

    bool confidence_votes() const { return current_.vote != VoteMode::Binary; }  // margin or clipped: α·h of least Z

    // The pool's blocks in this round's order; the first candidates_per_round are its candidates.
    std::vector<std::size_t> candidate_order(std::uint64_t stage, std::uint64_t round_index) const {
        // Candidate blocks: distinct, drawn from the pool by this round's own random stream.
        RandomStream pick = detail::streams::candidate_blocks(cfg_.seed, stage, round_index);
        std::vector<std::size_t> order(pool_.size());
        std::iota(order.begin(), order.end(), 0);
        const std::size_t nc = std::min<std::size_t>(static_cast<std::size_t>(cfg_.boosting.candidates_per_round), pool_.size());
        for (std::size_t i = 0; i < nc; ++i) std::swap(order[i], order[i + pick.below(order.size() - i)]);
        return order;
    }

    std::vector<int> training_rows(const StageContext& ctx, std::uint64_t stage, std::uint64_t round_index) const {
        const std::size_t count = ctx.samples();
        // The rows each SVM trains on.
        std::vector<int> rows(count);
        if (cfg_.svm.weighting == SvmWeighting::Resample) {
            std::vector<double> cum(count);
            std::partial_sum(weights_.begin(), weights_.end(), cum.begin());
            RandomStream draw = detail::streams::weighted_resample(cfg_.seed, stage, round_index);
            for (auto& r : rows) {
                const double u = draw.unit() * cum.back();
                r = static_cast<int>(std::min<std::size_t>(
                    static_cast<std::size_t>(std::upper_bound(cum.begin(), cum.end(), u) - cum.begin()), count - 1));
            }
        } else {  // every sample but the calibration positives and the lost ones (their weight is 0)
            rows.clear();
            for (std::size_t i = 0; i < count; ++i)
                if (!ctx.calibrates(i) && (lost_.empty() || lost_[i] == 0)) rows.push_back(static_cast<int>(i));
        }
        return rows;
    }

    // Each candidate block's SVM, its margins on every sample, and its error (or α and Z).
    std::vector<Candidate> train_candidates(const std::vector<std::size_t>& order, std::size_t nc, const std::vector<int>& rows,
                                            const std::vector<int>& labels) const {
        const std::size_t count = labels.size();
        std::vector<Candidate> cands(nc);
        tbb::parallel_for(std::size_t{0}, nc, [&](std::size_t c) {
            const Rect block = pool_[order[c]];
            std::vector<float> feats(count * kBlockDims);
            BlockDescriptor v;
            for (std::size_t i = 0; i < count; ++i) {
                samples_.descriptor(i, block, cfg_.hog, v);
                std::copy(v.begin(), v.end(), feats.begin() + static_cast<std::ptrdiff_t>(i * kBlockDims));
            }
            const LinearSvm svm = train_linear_svm(feats, kBlockDims, labels, rows, cfg_.svm.C);
            Candidate& out = cands[c];
            out.learner.block = block;
            std::copy(svm.weights.begin(), svm.weights.end(), out.learner.weights.begin());
            out.learner.bias = svm.bias;
            out.margins.resize(count);
            double err = 0;
            for (std::size_t i = 0; i < count; ++i) {
                std::copy_n(feats.begin() + static_cast<std::ptrdiff_t>(i * kBlockDims), kBlockDims, v.begin());
                out.margins[i] = learner_margin(out.learner, v);
                if ((out.margins[i] >= 0.0f) != (labels[i] > 0)) err += weights_[i];
            }
            out.error = err;
            if (confidence_votes()) {  // h = the vote of α = 1
                std::vector<float> h(count);
                for (std::size_t i = 0; i < count; ++i) h[i] = block_math::vote(vote_rule(current_.vote), 1.0f, out.margins[i]);
                const detail::VoteWeight vw = detail::confidence_rated_alpha(h, labels, weights_);
                out.alpha = vw.alpha;
                out.z = vw.z;
            }
        });
        return cands;
    }

    std::size_t best_candidate(const std::vector<Candidate>& cands) const {
        const std::size_t nc = cands.size();
        // The candidate of least weighted error (binary votes) or least normaliser Z (margin or
        // clipped votes); ties go to the first drawn, so any thread count picks the same one.
        std::size_t best = 0;
        for (std::size_t c = 1; c < nc; ++c)
            if (confidence_votes() ? cands[c].z < cands[best].z : cands[c].error < cands[best].error) best = c;
        return best;
    }

    void reweight(const Candidate& win, const std::vector<int>& labels) {
        const std::size_t count = labels.size();
        // Reweight by the vote as the detector adds it (float), so the weights follow the sums.
        const int rule = vote_rule(current_.vote);
        double total = 0;
        for (std::size_t i = 0; i < count; ++i) {
            const double h = rule == block_math::kBinaryVote ? (win.margins[i] >= 0.0f ? 1.0 : -1.0)
                                                             : static_cast<double>(block_math::vote(rule, 1.0f, win.margins[i]));
            weights_[i] *= std::exp(-static_cast<double>(win.learner.alpha) * labels[i] * h);
            total += weights_[i];
            sums_[i] += block_math::vote(rule, win.learner.alpha, win.margins[i]);
        }
        for (double& w : weights_) w /= total;
    }

    void add_fmax_note(RoundResult& r, int stage) const {
        if (!r.stage_complete || current_.learners.empty() || f_ <= cfg_.boosting.f_max) return;
        const std::string note = "stage " + std::to_string(stage) + " stopped at " + std::to_string(current_.learners.size()) +
                                 " learners with FP rate " + std::to_string(f_) + " > f_max";
        r.note = r.note.empty() ? note : r.note + "\n" + note;
    }

    // Uniform weights within each class, the classes weighing half each (Viola & Jones).
    // Calibration positives weigh 0: no SVM trains on them (the resample never draws them) and
    // they count in no weighted error; so do, for a nested stage, the positives that the cascade
    // so far rejects.
    void reset_weights(const StageContext& ctx) {
        weights_.assign(ctx.samples(), 0.0);
        const double n = static_cast<double>(ctx.negatives);
        const auto idle = [&](std::size_t i) { return ctx.calibrates(i) || (!lost_.empty() && lost_[i] != 0); };
        std::size_t p = 0;
        for (std::size_t i = 0; i < ctx.positives; ++i) p += idle(i) ? 0 : 1;
        for (std::size_t i = 0; i < ctx.samples(); ++i)
            weights_[i] = i < ctx.positives ? (idle(i) ? 0.0 : 0.5 / static_cast<double>(std::max<std::size_t>(p, 1))) : 0.5 / n;
    }

    // A nested stage: every sample's running score through the finished stages, computed as the
    // detector computes it (stage sums in learner order, margins, carried shares, all float).
    void nest(const StageContext& ctx) {
        running_.clear();
        lost_.clear();
        if (!cfg_.boosting.nested || ctx.stages == nullptr || ctx.stages->empty()) return;
        if (cfg_.boosting.nested_until > 0 && ctx.stage > cfg_.boosting.nested_until) return;  // a plain stage after the nested ones
        // The leading stages of another kind (a hybrid's LBP prefix) come as the loop ran them
        // (StageContext::prefix); every stage after them must be a hog_svm stage.
        const PrefixRun* prefix = ctx.prefix;
        const std::size_t first = prefix != nullptr ? prefix->stages : 0;
        if (prefix != nullptr && (prefix->running.size() != ctx.samples() || prefix->rejected.size() != ctx.samples()))
            throw std::logic_error("boosting.nested: the prefix's running scores do not cover the samples");
        std::vector<const HogSvmStage*> before;
        for (std::size_t k = first; k < ctx.stages->size(); ++k) {
            const auto* h = (*ctx.stages)[k].get_if<HogSvmStage>();
            if (h == nullptr) throw std::invalid_argument("boosting.nested: stage " + std::to_string(k + 1) + " is not a hog_svm stage");
            before.push_back(h);
        }
        running_.assign(ctx.samples(), 0.0f);
        lost_.assign(ctx.samples(), 0);
        tbb::parallel_for(tbb::blocked_range<std::size_t>(0, ctx.samples()), [&](const tbb::blocked_range<std::size_t>& r) {
            BlockDescriptor v;
            for (std::size_t i = r.begin(); i != r.end(); ++i) {
                float cleared = prefix != nullptr ? prefix->running[i] : 0.0f;
                bool rejected = prefix != nullptr && prefix->rejected[i] != 0;
                for (const HogSvmStage* h : before) {
                    float m = stage_sum(i, *h, v) - h->threshold;
                    if (h->carry != 0.0f) m = block_math::carried(m, h->carry, cleared);
                    rejected = rejected || m < 0.0f;
                    cleared = block_math::running_after(cleared, m, h->carry);
                }
                running_[i] = cleared;
                lost_[i] = rejected && i < ctx.positives ? 1 : 0;  // negatives were mined through these stages
            }
        });
    }

    // The running score as the stage's first weak learner: its weight β (AdaBoost's, with the
    // best offset; binary votes count α·[m ≥ 0], half of AdaBoost's ±α, so their carry is β/2)
    // and the sample weights it leaves, w·exp(−y·β·r), each class again weighing half.
    void weigh_running_scores(const StageContext& ctx) {
        std::vector<int> labels(ctx.samples());
        for (std::size_t i = 0; i < labels.size(); ++i) labels[i] = i < ctx.positives ? 1 : -1;
        const double beta = detail::running_score_weight(running_, labels, weights_);
        current_.carry = static_cast<float>(current_.vote == VoteMode::Binary ? 0.5 * beta : beta);
        double total[2] = {0, 0};
        for (std::size_t i = 0; i < weights_.size(); ++i) {
            weights_[i] *= std::exp(-beta * labels[i] * static_cast<double>(running_[i]));
            total[labels[i] > 0 ? 1 : 0] += weights_[i];
        }
        for (std::size_t i = 0; i < weights_.size(); ++i)
            if (total[labels[i] > 0 ? 1 : 0] > 0) weights_[i] *= 0.5 / total[labels[i] > 0 ? 1 : 0];
    }

    // Stage sums exactly as the detector forms them: float, learner order.
    void recompute_sums(const StageContext& ctx) {
        sums_.assign(ctx.samples(), 0.0f);
        BlockDescriptor v;
        for (std::size_t i = 0; i < ctx.samples(); ++i) sums_[i] = stage_sum(i, current_, v);
        update_threshold(ctx);
    }

    // Sample i's sum of a stage's votes, in learner order, as the detector forms it.
    float stage_sum(std::size_t i, const HogSvmStage& s, BlockDescriptor& v) const {
        float sum = 0.0f;
        for (const HogLearner& l : s.learners) {
            samples_.descriptor(i, l.block, cfg_.hog, v);
            sum += block_math::vote(vote_rule(s.vote), l.alpha, learner_margin(l, v));
        }
        return sum;
    }

    void update_threshold(const StageContext& ctx) { set_threshold(sums_, ctx); }

    std::vector<Rect> pool_;
    std::vector<double> weights_;
    std::vector<float> sums_;
};
}  // namespace

StageTrainerKind hog_svm_trainer_kind() {
    return {HogSvmStage::kKind, [](const TrainConfig& cfg) -> std::unique_ptr<StageTrainer> {
                return std::make_unique<HogSvmTrainer>(cfg);
            }};
}

}  // namespace cascadekit
