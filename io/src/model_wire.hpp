#pragma once
// Internal: a plain binary encoding of a CascadeModel (or of an error), how the process that
// parses a model file with libhdf5 hands its result back (model_file.cpp, "Isolation"). The
// decoder trusts nothing: every count is bounded by the bytes present and the model limits.
#include <cstdint>
#include <string>
#include <vector>

#include "cascadekit/model/cascade.hpp"

namespace cascadekit::detail {

std::vector<std::uint8_t> encode_model(const CascadeModel& m);
std::vector<std::uint8_t> encode_error(const std::string& path_in_file, const std::string& problem);

// One of the two; throws std::runtime_error when the bytes are neither.
struct WireResult {
    bool ok = false;
    CascadeModel model;
    std::string path_in_file, problem;
};
WireResult decode(const std::vector<std::uint8_t>& bytes);

}  // namespace cascadekit::detail
