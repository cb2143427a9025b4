#pragma once
// The model file's HDF5 schema (docs/model-file.md): a model to an in-memory HDF5 file image and
// back, every link, type, shape, storage and value checked on the way in. libhdf5 is only given
// bytes whose integrity header verified (model_header.hpp) or files the user trusts, and it
// parses them in a child process (model_file.cpp).
#include <cstdint>
#include <filesystem>
#include <vector>

#include "cascadekit/model/cascade.hpp"

namespace cascadekit::detail {

// Turns off libhdf5's printing of its error stack (errors come back as ModelFileError).
void silence_hdf5();

// The model in the HDF5 image `bytes` (its user block included). `legacy`: a schema-1 file;
// header_schema: the schema the integrity header names (0: none). Throws ModelFileError naming
// `file`, the path in the file and the problem.
CascadeModel read_model_hdf5(const std::vector<std::uint8_t>& bytes, const std::filesystem::path& file, bool legacy,
                             int header_schema);

// A valid model's HDF5 image, after kModelHeaderBytes of user block left zero for the header.
// Throws ModelFileError naming `file`.
std::vector<std::uint8_t> model_hdf5_bytes(const CascadeModel& model, const std::filesystem::path& file);

}  // namespace cascadekit::detail
