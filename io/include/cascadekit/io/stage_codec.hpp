#pragma once
// How a stage kind is stored: its attributes and its per-learner tables, described once per kind
// (io/src/stages/<kind>.cpp) and used by every encoding of a model: the HDF5 model file
// (docs/model-file.md), the parser process's reply (model_file.cpp, "Isolation") and the
// trainer's checkpoint. Kinds are listed in io/src/stages/stage_codecs.cpp, or added at run time
// with register_stage_codec (tests, plug-ins).
//
// A codec's write and read must name the same fields in the same order (the binary encodings
// keep order, not names). Thread safety: register before reading or writing models.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cascadekit/features/geometry.hpp"
#include "cascadekit/model/cascade.hpp"

namespace cascadekit {

// Where a codec writes a stage's fields. Tables are rows × cols values in row-major order:
// rank 2 is a rows × cols dataset, rank 1 (cols == 1) a vector.
class StageOut {
public:
    virtual ~StageOut() = default;
    virtual void attr_string(const char* name, const std::string& value) = 0;
    virtual void attr_float(const char* name, float value) = 0;
    // A number that older files lack: the HDF5 file stores it only when it is not `absent`; the
    // binary encodings always store it.
    virtual void attr_float_optional(const char* name, float value, float absent) = 0;
    virtual void ints(const char* name, const std::vector<std::int32_t>& values, std::size_t rows, std::size_t cols,
                      int rank) = 0;
    virtual void floats(const char* name, const std::vector<float>& values, std::size_t rows, std::size_t cols,
                        int rank) = 0;
};

// Where a codec reads them from. Every call checks what it reads (type, shape, rows <=
// kMaxStageSize, values present in the bytes) and fails with the field's schema path.
class StageIn {
public:
    virtual ~StageIn() = default;
    virtual std::string attr_string(const char* name) = 0;
    virtual float attr_float(const char* name) = 0;
    // attr_float_optional's number: `absent` where an HDF5 file does not store it.
    virtual float attr_float_optional(const char* name, float absent) = 0;
    // rows: the required row count, or nullopt for any; rows_out receives the count read.
    virtual std::vector<std::int32_t> ints(const char* name, int rank, std::size_t cols,
                                           std::optional<std::size_t> rows, std::size_t& rows_out) = 0;
    virtual std::vector<float> floats(const char* name, int rank, std::size_t cols, std::optional<std::size_t> rows,
                                      std::size_t& rows_out) = 0;
    // Throws the encoding's error for `field` of this stage ("@vote_mode", "/blocks").
    [[noreturn]] virtual void fail(const std::string& field, const std::string& problem) = 0;
};

struct StageCodec {
    std::string_view kind;  // StageBase::kind()
    std::function<void(const Stage& stage, StageOut& out)> write;
    std::function<Stage(StageIn& in)> read;
};

// Adds (or replaces) a kind's codec.
void register_stage_codec(StageCodec codec);
// nullptr when no codec of that name is registered.
const StageCodec* find_stage_codec(std::string_view kind);
// "hog_svm, waldboost_lbp": the kinds this build reads, for error messages.
std::string known_stage_kinds();

// Rectangles as rows of 4 int32 (x, y, w, h), the layout of every rectangle table.
void append_rect(std::vector<std::int32_t>& table, const Rect& r);
Rect rect_at(const std::vector<std::int32_t>& table, std::size_t row);

}  // namespace cascadekit

namespace cascadekit {
class ByteWriter;
class ByteReader;

// A stage in cascadekit's own binary encoding (byte_codec.hpp): its kind's name, then the fields
// its codec writes, in order (strings and floats as themselves, tables as a row count and the
// values). decode_stage checks every count against the bytes present and throws
// ByteCodecError ("unknown stage kind", a shape that does not match, data that ends early).
void encode_stage(const Stage& stage, ByteWriter& out);
Stage decode_stage(ByteReader& in);
}  // namespace cascadekit
