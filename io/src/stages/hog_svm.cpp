// hog_svm in a model file (docs/model-file.md): @vote_mode, @threshold, @carry (schema 8, when not 0), blocks [n,4] int32,
// weights [n,36], bias [n], alpha [n] float32.
#include "cascadekit/model/hog_svm_stage.hpp"
#include "stage_codecs.hpp"

namespace cascadekit {

StageCodec hog_svm_codec() {
    StageCodec c;
    c.kind = HogSvmStage::kKind;
    c.write = [](const Stage& stage, StageOut& out) {
        const auto& st = stage.as<HogSvmStage>();
        out.attr_string("vote_mode", st.vote == VoteMode::Binary ? "binary" : st.vote == VoteMode::Margin ? "margin" : "clipped");
        out.attr_float("threshold", st.threshold);
        out.attr_float_optional("carry", st.carry, 0.0f);  // schema 8: nested stages
        std::vector<std::int32_t> blocks;
        std::vector<float> weights, bias, alpha;
        for (const HogLearner& l : st.learners) {
            append_rect(blocks, l.block);
            weights.insert(weights.end(), l.weights.begin(), l.weights.end());
            bias.push_back(l.bias);
            alpha.push_back(l.alpha);
        }
        const std::size_t n = st.learners.size();
        out.ints("blocks", blocks, n, 4, 2);
        out.floats("weights", weights, n, kBlockDims, 2);
        out.floats("bias", bias, n, 1, 1);
        out.floats("alpha", alpha, n, 1, 1);
    };
    c.read = [](StageIn& in) -> Stage {
        HogSvmStage st;
        const std::string mode = in.attr_string("vote_mode");
        if (mode == "binary") st.vote = VoteMode::Binary;
        else if (mode == "margin") st.vote = VoteMode::Margin;
        else if (mode == "clipped") st.vote = VoteMode::Clipped;
        else in.fail("@vote_mode", "unknown vote mode '" + mode + "' (expected binary, margin or clipped)");
        st.threshold = in.attr_float("threshold");
        st.carry = in.attr_float_optional("carry", 0.0f);
        std::size_t n = 0, unused = 0;
        const auto blocks = in.ints("blocks", 2, 4, std::nullopt, n);
        const auto weights = in.floats("weights", 2, kBlockDims, n, unused);
        const auto bias = in.floats("bias", 1, 1, n, unused);
        const auto alpha = in.floats("alpha", 1, 1, n, unused);
        st.learners.resize(n);
        for (std::size_t i = 0; i < n; ++i) {
            HogLearner& l = st.learners[i];
            l.block = rect_at(blocks, i);
            std::copy_n(weights.begin() + static_cast<std::ptrdiff_t>(i * kBlockDims), kBlockDims, l.weights.begin());
            l.bias = bias[i];
            l.alpha = alpha[i];
        }
        return st;
    };
    return c;
}

}  // namespace cascadekit
