// libFuzzer: values through the writer. Starts from a valid model and lets the input change its
// numbers, shapes and rectangles (window size, stage count, learner count, block rects, LBP
// cells, weights, thresholds, epsilon...). Whatever validate_model accepts must save, load back
// bit for bit through the checked loader, and run through the CPU detector without a fault;
// whatever it refuses must be refused by save_model too.
#include <tbb/global_control.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "cascadekit/features/block_pool.hpp"
#include "cascadekit/io/model_file.hpp"
#include "cascadekit/model/hog_svm_stage.hpp"
#include "cascadekit/model/waldboost_lbp_stage.hpp"
#include "cascadekit/runtime/detector.hpp"

using namespace cascadekit;

namespace {
class Bytes {
public:
    Bytes(const std::uint8_t* d, std::size_t n) : d_(d), n_(n) {}
    bool empty() const { return i_ >= n_; }
    std::uint8_t u8() { return i_ < n_ ? d_[i_++] : 0; }
    std::int32_t i32() {
        std::uint32_t v = 0;
        for (int k = 0; k < 4; ++k) v = (v << 8) | u8();
        return static_cast<std::int32_t>(v);
    }
    float f32() {
        const std::uint32_t v = static_cast<std::uint32_t>(i32());
        float f;
        std::memcpy(&f, &v, 4);
        return f;
    }

private:
    const std::uint8_t* d_;
    std::size_t n_, i_ = 0;
};

CascadeModel base_model() {
    CascadeModel m;
    const auto pool = make_block_pool("zhu", 64, 128);
    for (int s = 0; s < 3; ++s) {  // one stage of each vote mode
        HogSvmStage st;
        st.vote = s == 0 ? VoteMode::Binary : s == 1 ? VoteMode::Margin : VoteMode::Clipped;
        st.carry = s == 2 ? 0.5f : 0.0f;  // the last one nested
        for (int i = 0; i < 3; ++i) {
            HogLearner l;
            l.block = pool[static_cast<std::size_t>(97 * (s * 3 + i) + 11) % pool.size()];
            for (int k = 0; k < kBlockDims; ++k) l.weights[k] = 0.1f * static_cast<float>((k * 7 + i) % 13 - 6);
            l.bias = 0.2f;
            l.alpha = 1.0f;
            st.learners.push_back(l);
        }
        m.stages.push_back(st);
    }
    WaldBoostLbpStage wb;
    LbpWeakClassifier c;
    c.cell = {4, 8, 3, 5};
    for (int k = 0; k < 256; ++k) c.responses[k] = 0.01f * static_cast<float>(k % 17 - 8);
    c.reject_threshold = -1.0f;
    wb.weak.push_back(c);
    wb.final_threshold = -0.5f;
    m.stages.insert(m.stages.begin(), wb);
    m.metadata = {"fuzz", "fuzz", "2026-11-22T00:00:00Z", "0.1.0"};
    return m;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    // One thread: a fuzzer input is tiny, and TBB's workers would only add scheduling noise.
    static tbb::global_control one_thread(tbb::global_control::max_allowed_parallelism, 1);
    static const CascadeModel base = base_model();
    static const GrayImage frame = [] {
        GrayImage g(80, 140);  // one pyramid level, a few windows: fast under instrumentation
        for (int y = 0; y < g.height; ++y)
            for (int x = 0; x < g.width; ++x) g.at(x, y) = static_cast<std::uint8_t>((x * 37 + y * 11 + x * y) & 255);
        return g;
    }();
    CascadeModel m = base;
    Bytes in(data, size);
    while (!in.empty()) {
        const std::uint8_t op = in.u8();
        const std::size_t s = in.u8() % (m.stages.size() + 1);
        switch (op % 12) {
        case 0: m.window_width = in.i32(); break;
        case 1: m.window_height = in.i32(); break;
        case 2: m.hog.epsilon = in.f32(); break;
        case 3: m.hog.hys_clip = in.f32(); break;
        case 4: if (m.stages.size() < 8 && s < m.stages.size()) m.stages.push_back(m.stages[s]); break;
        case 5: if (s < m.stages.size()) m.stages.erase(m.stages.begin() + static_cast<std::ptrdiff_t>(s)); break;
        default:
            if (s >= m.stages.size()) break;
            if (auto* h = m.stages[s].get_if<HogSvmStage>()) {
                const std::size_t l = h->learners.empty() ? 0 : in.u8() % h->learners.size();
                switch (op % 12) {
                case 6: ((in.u8() & 1) != 0 ? h->carry : h->threshold) = in.f32(); break;
                case 7: if (!h->learners.empty()) h->learners[l].block = {in.i32(), in.i32(), in.i32(), in.i32()}; break;
                case 8: if (!h->learners.empty()) h->learners[l].weights[in.u8() % kBlockDims] = in.f32(); break;
                case 9: if (!h->learners.empty()) h->learners[l].alpha = in.f32(); break;
                case 10: if (!h->learners.empty()) h->learners[l].bias = in.f32(); break;
                default: if (h->learners.size() < 64 && !h->learners.empty()) h->learners.push_back(h->learners[l]);
                         else if (!h->learners.empty()) h->learners.pop_back();
                }
            } else {
                auto& w = m.stages[s].as<WaldBoostLbpStage>();
                const std::size_t l = w.weak.empty() ? 0 : in.u8() % w.weak.size();
                switch (op % 12) {
                case 6: w.final_threshold = in.f32(); break;
                case 7: if (!w.weak.empty()) w.weak[l].cell = {in.i32(), in.i32(), in.i32(), in.i32()}; break;
                case 8: if (!w.weak.empty()) w.weak[l].responses[in.u8()] = in.f32(); break;
                case 9: if (!w.weak.empty()) w.weak[l].reject_threshold = in.f32(); break;
                default: if (w.weak.size() < 64 && !w.weak.empty()) w.weak.push_back(w.weak[l]);
                         else if (!w.weak.empty()) w.weak.pop_back();
                }
            }
        }
    }
    bool valid = true;
    try {
        validate_model(m);
    } catch (const ModelError&) {
        valid = false;
    }
    std::vector<std::uint8_t> bytes;
    try {
        bytes = model_file_bytes(m, "fuzz.h5");
    } catch (const ModelFileError&) {
        if (valid) __builtin_trap();  // the writer refused a valid model
        return 0;
    }
    if (!valid) __builtin_trap();  // the writer accepted an invalid one
    const CascadeModel back = parse_model_file(bytes, "fuzz.h5");
    if (!(back == m)) __builtin_trap();
    // The detector runs what the loader accepts: every rect inside the window, no overflow.
    try {
        DetectParams p;
        p.stride = 8;
        p.scale_step = 1.5;
        auto det = Detector::create(back, p, Backend::Cpu);
        (void)det->detect(frame.view());
    } catch (const DetectError&) {
    }
    return 0;
}
