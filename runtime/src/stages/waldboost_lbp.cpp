// CPU evaluation of waldboost_lbp stages: the running sum with early rejection after every weak
// classifier (Šochman & Matas, CVPR 2005).
//
// Rows of windows go side by side (evaluate_row): each weak classifier's codes, look-ups and
// running sums for a chunk of windows in loops the compiler vectorises, with no branch on
// whether a window leaves (at the first weak classifiers about half of such branches would
// mispredict). Every window sees the same float additions in the same order as evaluate().
#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>

#include "cascadekit/features/lbp.hpp"
#include "cascadekit/model/waldboost_lbp_stage.hpp"
#include "cascadekit/runtime/window_evaluator.hpp"
#include "cascadekit/features/simd.hpp"
#include "stage_kinds.hpp"

// The code loop is compiled for AVX2 and for the baseline (features/simd.hpp).

namespace cascadekit {

namespace {

// Measured on the shipped face model, 1920×1080, ×1.1, stride 2, one thread (AMD EPYC, AVX2):
// chunks of 64, 256 and 512 windows took 205, 171 and 163 ms; first packing below 1/2, 1/4
// and 1/8 alive 181, 163 and 166 ms (window by window: 281 ms).
constexpr int kChunk = 512;  // windows side by side (a row of a 1080p level at stride 2: 950)
constexpr int kDenseShare = 4;  // dense loads until at most 1/4 of the chunk is alive
// At most kAlone packed survivors go on one window at a time. A 1024-table face model (0.02 %
// of windows run all its tables), same frame: side by side to the end
// 121-127 ms; one at a time from 1, 4, 16, 32 left 113-114, 105-108, 101-106, 97-103 ms.
constexpr int kAlone = 32;

// The codes of one cell grid for n ≤ kChunk windows. Window k's top-left integral-image point is
// origin + k·step (dense: neighbouring windows, plain vector loads; step 1 and 2 have their own
// loops) or, when `at` is given, origin + at[k] (windows at uneven points, survivors: indexed loads).
CASCADEKIT_SIMD_CLONES
void grid_codes(const std::uint32_t* origin, std::size_t stride, int step, const std::ptrdiff_t* __restrict at,
                const Rect& cell, int n, std::uint8_t* __restrict codes) {
    const std::uint32_t* r[4][4];
    for (int j = 0; j < 4; ++j)
        for (int i = 0; i < 4; ++i)
            r[j][i] = origin + static_cast<std::size_t>(cell.y + j * cell.h) * stride + static_cast<std::size_t>(cell.x + i * cell.w);
    auto codes_at = [&](auto offset) {
        for (int k = 0; k < n; ++k) {
            const auto o = offset(k);
            auto sum = [&](int i, int j) { return r[j + 1][i + 1][o] - r[j][i + 1][o] - r[j + 1][i][o] + r[j][i][o]; };
            const std::uint32_t c = sum(1, 1);
            // The bits of lbp_code (features/lbp.hpp), in its order; written out here because
            // calling lbp_code in this loop vectorises worse (185 against 163 ms on the frame
            // above). CpuDetector.WaldBoostRowsSideBySideEqualWindowByWindow holds them equal.
            codes[k] = static_cast<std::uint8_t>((sum(0, 0) >= c) << 7 | (sum(1, 0) >= c) << 6 | (sum(2, 0) >= c) << 5 |
                                                 (sum(2, 1) >= c) << 4 | (sum(2, 2) >= c) << 3 | (sum(1, 2) >= c) << 2 |
                                                 (sum(0, 2) >= c) << 1 | (sum(0, 1) >= c));
        }
    };
    if (at) codes_at([at](int k) { return at[k]; });
    else if (step == 1) codes_at([](int k) { return k; });
    else if (step == 2) codes_at([](int k) { return 2 * k; });
    else codes_at([step](int k) { return k * step; });
}

// One weak classifier's step for n windows side by side, without branches (whether a window
// leaves is data, not control flow, so the loop vectorises and no branch mispredicts): an alive
// window adds its response and leaves when the sum falls below the threshold (score: the sum
// minus the threshold; weak: the classifiers it evaluated). Returns how many are alive after it.
CASCADEKIT_SIMD_CLONES
int row_step(const std::uint8_t* __restrict codes, const float* __restrict responses, float threshold, int n,
             float* __restrict h, std::int32_t* __restrict alive, float* __restrict score,
             std::int32_t* __restrict weak) {
    int left = 0;
    for (int k = 0; k < n; ++k) {
        // Every store unconditional (a select of values), so that the loop has no branch. A window
        // that has left keeps adding to h, which nothing reads any more.
        const float v = h[k] + responses[codes[k]], margin = v - threshold, was = score[k];
        const std::int32_t live = alive[k];
        const std::int32_t leaves = live & static_cast<std::int32_t>(v < threshold);
        h[k] = v;
        // The select on the bits: a float select would put the subtraction under a condition,
        // which the compiler may not if-convert (it could trap).
        const std::int32_t take = -leaves;  // all ones when the window leaves here
        score[k] = std::bit_cast<float>((std::bit_cast<std::int32_t>(margin) & take) | (std::bit_cast<std::int32_t>(was) & ~take));
        weak[k] += live;
        alive[k] = live - leaves;
        left += live - leaves;
    }
    return left;
}

class WaldBoostLbpEvaluator final : public StageEvaluator {
public:
    explicit WaldBoostLbpEvaluator(const WaldBoostLbpStage& stage) : stage_(stage) {}
    StageOutcome evaluate(const LevelFeatures& f, int x, int y) const override {
        const IntegralImage& gray = table(f);
        return go_on(gray.data() + point(f, gray.row_stride(), x, y), gray.row_stride(), 0, 0.0f);
    }

    // Windows side by side in chunks (run). While more than a quarter of a chunk is alive, every
    // window's codes are formed (dense loads); then the survivors are packed together and go on
    // side by side (indexed loads: the compiler makes them scalar, which beat AVX2 gathers here),
    // packed again each time half of them have left.
    //
    // On an octave's gray integral (LevelFeatures::lbp_gray) the windows' points there are not
    // evenly spaced: every window's codes come from indexed loads, and such runs pack each time
    // a quarter have left.
    void evaluate_row(const LevelFeatures& f, int x0, int step, int count, int y, StageOutcome* out) const override {
        evaluate_rows(f, x0, step, count, y, 0, 1, out);
    }

    // Rows whose windows come from indexed loads anyway (on an octave, or at a step above 2) go
    // into one run, so that the chunks stay full after the first packings: a row of a level at
    // stride 8 has about 100 windows, which after two packings went on one at a time, at three
    // times a side-by-side code's cost (the people hybrid's LBP prefix on octaves, 1280×960,
    // ×1.05: 0.30 M of its 1.7 M codes). Rows at steps 1 and 2 are long and have their own dense loops: one by one.
    bool runs_rows_together() const override { return true; }
    void evaluate_rows(const LevelFeatures& f, int x0, int step, int count, int y0, int ystep, int rows,
                       StageOutcome* out) const override {
        const IntegralImage& gray = table(f);
        const std::size_t stride = gray.row_stride();
        if (!f.lbp_gray && step <= 2) {
            for (int j = 0; j < rows; ++j)
                run(gray.data() + point(f, stride, x0, y0 + j * ystep), stride, count, step, [step](int k) { return std::ptrdiff_t{k} * step; },
                    out + static_cast<std::size_t>(j) * static_cast<std::size_t>(count));
            return;
        }
        run(gray.data(), stride, rows * count, 0, [&](int i) { return point(f, stride, x0 + i % count * step, y0 + i / count * ystep); }, out);
    }

private:
    // The gray integral image the stage reads: the octave's (approximate_lbp) or the level's.
    static const IntegralImage& table(const LevelFeatures& f) { return f.lbp_gray ? *f.lbp_gray : f.gray; }
    // The window at level (x, y): its top-left point in table(f), as an offset from its start.
    static std::ptrdiff_t point(const LevelFeatures& f, std::size_t stride, int x, int y) {
        if (f.lbp_gray) x = f.lbp_x[static_cast<std::size_t>(x)], y = f.lbp_y[static_cast<std::size_t>(y)];
        return static_cast<std::ptrdiff_t>(static_cast<std::size_t>(y) * stride + static_cast<std::size_t>(x));
    }

    // n windows side by side, window i's top-left integral-image point at base + at(i), into
    // out[i]. dense: the points are evenly `dense` apart (at(i) = i·dense), and a chunk's codes
    // come from plain loads until a quarter is left; 0: from indexed loads, packed each time a
    // quarter have left.
    template <class At>
    void run(const std::uint32_t* base, std::size_t stride, int count, int dense, At at_of, StageOutcome* out) const {
        float h[kChunk], score[kChunk];
        std::int32_t evaluated[kChunk], alive[kChunk], window[kChunk];
        std::ptrdiff_t at[kChunk];
        std::uint8_t codes[kChunk];
        for (int c0 = 0; c0 < count; c0 += kChunk) {
            const int n = std::min(kChunk, count - c0);
            const std::uint32_t* origin = dense ? base + static_cast<std::size_t>(c0) * static_cast<std::size_t>(dense) : base;
            std::fill_n(h, n, 0.0f);
            std::fill_n(score, n, 0.0f);
            std::fill_n(evaluated, n, 0);
            std::fill_n(alive, n, 1);
            for (int k = 0; k < n; ++k) window[k] = k, at[k] = dense ? std::ptrdiff_t{k} * dense : at_of(c0 + k);
            bool packed = false;
            int m = n;  // windows in the arrays (alive or not yet written out)
            for (std::size_t t = 0; t < stage_.weak.size(); ++t) {
                if (packed && m <= kAlone) {
                    // The last few go on one at a time: side by side, each classifier would cost a
                    // loop's set-up for a window or two.
                    for (int k = 0; k < m; ++k)
                        out[c0 + window[k]] = alive[k] ? go_on(origin + at[k], stride, t, h[k])
                                                       : StageOutcome{score[k], static_cast<std::uint32_t>(evaluated[k])};
                    m = 0;
                    break;
                }
                const LbpWeakClassifier& c = stage_.weak[t];
                grid_codes(origin, stride, dense, packed || !dense ? at : nullptr, c.cell, m, codes);
                const int left = row_step(codes, c.responses.data(), c.reject_threshold, m, h, alive, score, evaluated);
                // Dense rows pack below a quarter alive, then each time half have left. Windows at
                // uneven points cost indexed loads whether packed or not: packed each time a
                // quarter have left (the people hybrid's prefix on octaves: 1.72 M codes formed
                // for 1.32 M needed when packed at half; the face model's rows at stride 2 were
                // 6 % slower packed so after their first packing).
                if (dense ? (packed ? 2 : kDenseShare) * left > m : 4 * left > 3 * m) continue;
                // Pack: write out the windows that left, move the survivors to the front.
                int j = 0;
                for (int k = 0; k < m; ++k) {
                    if (!alive[k]) {
                        out[c0 + window[k]] = {score[k], static_cast<std::uint32_t>(evaluated[k])};
                        continue;
                    }
                    h[j] = h[k], score[j] = score[k], evaluated[j] = evaluated[k], alive[j] = 1;
                    window[j] = window[k], at[j] = at[k];
                    ++j;
                }
                m = j;
                packed = true;
                if (m == 0) break;
            }
            for (int k = 0; k < m; ++k)
                out[c0 + window[k]] = alive[k] ? StageOutcome{h[k] - stage_.final_threshold, static_cast<std::uint32_t>(evaluated[k])}
                                               : StageOutcome{score[k], static_cast<std::uint32_t>(evaluated[k])};
        }
    }

    // The window at `origin` from weak classifier t on, with running sum h after the first t.
    StageOutcome go_on(const std::uint32_t* origin, std::size_t stride, std::size_t t, float h) const {
        StageOutcome out;
        out.weak_evaluated = static_cast<std::uint32_t>(t);
        for (; t < stage_.weak.size(); ++t) {
            const LbpWeakClassifier& c = stage_.weak[t];
            ++out.weak_evaluated;
            h += c.responses[lbp_code(origin, stride, c.cell)];
            if (h < c.reject_threshold) {
                out.score = h - c.reject_threshold;
                return out;
            }
        }
        out.score = h - stage_.final_threshold;
        return out;
    }

    const WaldBoostLbpStage& stage_;
};
}  // namespace

CpuStageKind waldboost_lbp_cpu_kind() {
    FeatureNeeds needs;
    needs.gray_integral = true;
    return {WaldBoostLbpStage::kKind, needs, [](const Stage& s, const CascadeModel&) -> std::unique_ptr<StageEvaluator> {
                return std::make_unique<WaldBoostLbpEvaluator>(s.as<WaldBoostLbpStage>());
            }};
}

}  // namespace cascadekit
