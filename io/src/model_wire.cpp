#include "model_wire.hpp"

#include <stdexcept>

#include "cascadekit/io/byte_codec.hpp"

namespace cascadekit::detail {

namespace {
void put_rect(ByteWriter& o, const Rect& r) {
    for (int v : {r.x, r.y, r.w, r.h}) o.pod<std::int32_t>(v);
}
Rect get_rect(ByteReader& in) {
    Rect r;
    r.x = in.pod<std::int32_t>();
    r.y = in.pod<std::int32_t>();
    r.w = in.pod<std::int32_t>();
    r.h = in.pod<std::int32_t>();
    return r;
}
}  // namespace

std::vector<std::uint8_t> encode_model(const CascadeModel& m) {
    ByteWriter o;
    o.pod<std::uint8_t>(1);
    o.pod<std::int32_t>(m.window_width);
    o.pod<std::int32_t>(m.window_height);
    o.pod<std::uint8_t>(static_cast<std::uint8_t>(m.hog.norm));
    o.pod(m.hog.epsilon);
    o.pod(m.hog.hys_clip);
    for (const std::string* s : {&m.metadata.training_config, &m.metadata.data_description, &m.metadata.created_utc,
                                 &m.metadata.toolkit_version})
        o.str(*s);
    o.pod<std::uint64_t>(m.stages.size());
    for (const Stage& st : m.stages) {
        if (const auto* h = std::get_if<HogSvmStage>(&st)) {
            o.pod<std::uint8_t>(0);
            o.pod<std::uint8_t>(h->vote == VoteMode::Binary ? 0 : 1);
            o.pod(h->threshold);
            o.pod<std::uint64_t>(h->learners.size());
            for (const HogLearner& l : h->learners) {
                put_rect(o, l.block);
                for (float w : l.weights) o.pod(w);
                o.pod(l.bias);
                o.pod(l.alpha);
            }
        } else {
            const auto& w = std::get<WaldBoostLbpStage>(st);
            o.pod<std::uint8_t>(1);
            o.pod(w.final_threshold);
            o.pod<std::uint64_t>(w.weak.size());
            for (const LbpWeakClassifier& c : w.weak) {
                put_rect(o, c.cell);
                for (float r : c.responses) o.pod(r);
                o.pod(c.reject_threshold);
            }
        }
    }
    return o.bytes;
}

std::vector<std::uint8_t> encode_error(const std::string& path_in_file, const std::string& problem) {
    ByteWriter o;
    o.pod<std::uint8_t>(0);
    o.str(path_in_file);
    o.str(problem);
    return o.bytes;
}

WireResult decode(const std::vector<std::uint8_t>& bytes) {
    ByteReader in(bytes.data(), bytes.size());
    WireResult r;
    const auto tag = in.pod<std::uint8_t>();
    if (tag == 0) {
        r.path_in_file = in.str();
        r.problem = in.str();
    } else if (tag == 1) {
        r.ok = true;
        CascadeModel& m = r.model;
        m.window_width = in.pod<std::int32_t>();
        m.window_height = in.pod<std::int32_t>();
        const auto norm = in.pod<std::uint8_t>();
        if (norm > static_cast<std::uint8_t>(BlockNorm::L1Sqrt)) throw std::runtime_error("bad block norm");
        m.hog.norm = static_cast<BlockNorm>(norm);
        m.hog.epsilon = in.pod<float>();
        m.hog.hys_clip = in.pod<float>();
        for (std::string* s : {&m.metadata.training_config, &m.metadata.data_description, &m.metadata.created_utc,
                               &m.metadata.toolkit_version})
            *s = in.str();
        const std::size_t stages = in.count(1, kMaxStages);
        for (std::size_t s = 0; s < stages; ++s) {
            const auto kind = in.pod<std::uint8_t>();
            if (kind == 0) {
                HogSvmStage h;
                const auto vote = in.pod<std::uint8_t>();
                if (vote > 1) throw std::runtime_error("bad vote mode");
                h.vote = vote == 0 ? VoteMode::Binary : VoteMode::Margin;
                h.threshold = in.pod<float>();
                h.learners.resize(in.count(16 + 4 * (kBlockDims + 2), kMaxStageSize));
                for (HogLearner& l : h.learners) {
                    l.block = get_rect(in);
                    for (float& w : l.weights) w = in.pod<float>();
                    l.bias = in.pod<float>();
                    l.alpha = in.pod<float>();
                }
                m.stages.emplace_back(std::move(h));
            } else if (kind == 1) {
                WaldBoostLbpStage w;
                w.final_threshold = in.pod<float>();
                w.weak.resize(in.count(16 + 4 * 257, kMaxStageSize));
                for (LbpWeakClassifier& c : w.weak) {
                    c.cell = get_rect(in);
                    for (float& v : c.responses) v = in.pod<float>();
                    c.reject_threshold = in.pod<float>();
                }
                m.stages.emplace_back(std::move(w));
            } else {
                throw std::runtime_error("bad stage kind");
            }
        }
    } else {
        throw std::runtime_error("bad result tag");
    }
    if (!in.at_end()) throw std::runtime_error("trailing bytes");
    return r;
}

}  // namespace cascadekit::detail
