// Stages in the byte encoding (stage_codec.hpp): the codec's fields in order.
#include <string>

#include "cascadekit/io/byte_codec.hpp"
#include "cascadekit/io/stage_codec.hpp"

namespace cascadekit {

namespace {
class WireOut final : public StageOut {
public:
    explicit WireOut(ByteWriter& o) : o_(o) {}
    void attr_string(const char*, const std::string& v) override { o_.str(v); }
    void attr_float(const char*, float v) override { o_.pod(v); }
    void attr_float_optional(const char*, float v, float) override { o_.pod(v); }
    void ints(const char*, const std::vector<std::int32_t>& v, std::size_t rows, std::size_t, int) override {
        o_.pod<std::uint64_t>(rows);
        for (std::int32_t x : v) o_.pod(x);
    }
    void floats(const char*, const std::vector<float>& v, std::size_t rows, std::size_t, int) override {
        o_.pod<std::uint64_t>(rows);
        for (float x : v) o_.pod(x);
    }

private:
    ByteWriter& o_;
};

class WireIn final : public StageIn {
public:
    explicit WireIn(ByteReader& in) : in_(in) {}
    std::string attr_string(const char*) override { return in_.str(); }
    float attr_float(const char*) override { return in_.pod<float>(); }
    float attr_float_optional(const char*, float) override { return in_.pod<float>(); }
    std::vector<std::int32_t> ints(const char* name, int, std::size_t cols, std::optional<std::size_t> rows,
                                   std::size_t& rows_out) override {
        return table<std::int32_t>(name, cols, rows, rows_out);
    }
    std::vector<float> floats(const char* name, int, std::size_t cols, std::optional<std::size_t> rows,
                              std::size_t& rows_out) override {
        return table<float>(name, cols, rows, rows_out);
    }
    [[noreturn]] void fail(const std::string& field, const std::string& problem) override {
        throw ByteCodecError(field + ": " + problem);
    }

private:
    template <class T>
    std::vector<T> table(const char* name, std::size_t cols, std::optional<std::size_t> rows, std::size_t& rows_out) {
        const std::size_t n = in_.count(sizeof(T) * cols, kMaxStageSize);
        if (rows && n != *rows) fail(std::string("/") + name, "expected " + std::to_string(*rows) + " rows, found " + std::to_string(n));
        rows_out = n;
        std::vector<T> v(n * cols);
        for (T& x : v) x = in_.pod<T>();
        return v;
    }
    ByteReader& in_;
};
}  // namespace

void encode_stage(const Stage& stage, ByteWriter& out) {
    const StageCodec* codec = find_stage_codec(stage.kind());
    if (codec == nullptr) throw std::invalid_argument("stage kind '" + std::string(stage.kind()) + "' has no codec");
    out.str(std::string(stage.kind()));
    WireOut w(out);
    codec->write(stage, w);
}

Stage decode_stage(ByteReader& in) {
    const std::string kind = in.str();
    const StageCodec* codec = find_stage_codec(kind);
    if (codec == nullptr) throw ByteCodecError("unknown stage kind '" + kind + "'");
    WireIn r(in);
    return codec->read(r);
}

}  // namespace cascadekit
