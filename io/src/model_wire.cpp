#include "model_wire.hpp"

#include <stdexcept>

#include "cascadekit/io/byte_codec.hpp"
#include "cascadekit/io/stage_codec.hpp"

namespace cascadekit::detail {

std::vector<std::uint8_t> encode_model(const CascadeModel& m) {
    ByteWriter o;
    o.pod<std::uint8_t>(1);
    o.pod<std::int32_t>(m.window_width);
    o.pod<std::int32_t>(m.window_height);
    o.pod<std::uint8_t>(static_cast<std::uint8_t>(m.hog.norm));
    o.pod(m.hog.epsilon);
    o.pod(m.hog.hys_clip);
    o.pod<std::uint8_t>(static_cast<std::uint8_t>(m.hog.gamma));
    o.pod<std::uint8_t>(static_cast<std::uint8_t>(m.hog.votes));
    o.pod<std::uint8_t>(static_cast<std::uint8_t>(m.hog.channels));
    for (const std::string* s : {&m.metadata.training_config, &m.metadata.data_description, &m.metadata.created_utc,
                                 &m.metadata.toolkit_version})
        o.str(*s);
    for (float v : {m.object_box.x, m.object_box.y, m.object_box.w, m.object_box.h}) o.pod(v);
    const OperatingPoint& op = m.operating;
    o.pod(op.threshold);
    o.pod(op.stride);
    o.pod(op.scale_step);
    o.pod(op.min_scale);
    o.pod(op.pad);
    o.pod(op.level_pad);
    o.str(op.fuse);
    o.pod(op.nms_iou);
    o.str(op.chosen_on);
    o.pod<std::uint64_t>(m.stages.size());
    for (const Stage& st : m.stages) encode_stage(st, o);
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
        const auto gamma = in.pod<std::uint8_t>();
        if (gamma > static_cast<std::uint8_t>(GrayGamma::Sqrt)) throw std::runtime_error("bad gray gamma");
        m.hog.gamma = static_cast<GrayGamma>(gamma);
        const auto votes = in.pod<std::uint8_t>();
        if (votes > static_cast<std::uint8_t>(OrientationVotes::Split)) throw std::runtime_error("bad orientation votes");
        m.hog.votes = static_cast<OrientationVotes>(votes);
        const auto channels = in.pod<std::uint8_t>();
        if (channels > static_cast<std::uint8_t>(GradientChannels::Colour)) throw std::runtime_error("bad gradient channels");
        m.hog.channels = static_cast<GradientChannels>(channels);
        for (std::string* s : {&m.metadata.training_config, &m.metadata.data_description, &m.metadata.created_utc,
                               &m.metadata.toolkit_version})
            *s = in.str();
        for (float* v : {&m.object_box.x, &m.object_box.y, &m.object_box.w, &m.object_box.h}) *v = in.pod<float>();
        OperatingPoint& op = m.operating;
        op.threshold = in.pod<float>();
        op.stride = in.pod<std::int32_t>();
        op.scale_step = in.pod<float>();
        op.min_scale = in.pod<float>();
        op.pad = in.pod<float>();
        op.level_pad = in.pod<std::int32_t>();
        op.fuse = in.str();
        op.nms_iou = in.pod<float>();
        op.chosen_on = in.str();
        const std::size_t stages = in.count(1, kMaxStages);
        for (std::size_t s = 0; s < stages; ++s) m.stages.push_back(decode_stage(in));
    } else {
        throw std::runtime_error("bad result tag");
    }
    if (!in.at_end()) throw std::runtime_error("trailing bytes");
    return r;
}

}  // namespace cascadekit::detail
