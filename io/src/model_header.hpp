#pragma once
// The model file's integrity header, in the HDF5 user block (docs/model-file.md, "Trust"): a
// magic, the header and schema versions, the length and the SHA-256 of what follows.
// verify_model_header (model_file.hpp) checks it before libhdf5 sees a byte.
#include <cstdint>
#include <vector>

namespace cascadekit::detail {

// Whether the bytes start with the header's magic.
bool has_header_magic(const std::vector<std::uint8_t>& bytes);
// Whether they start with HDF5's signature (a file without our header).
bool starts_with_hdf5(const std::vector<std::uint8_t>& bytes);
// The schema version the header names. Requires bytes.size() >= kModelHeaderBytes.
std::uint32_t header_schema(const std::vector<std::uint8_t>& bytes);
// Writes the header over the first kModelHeaderBytes: the schema, the length and the SHA-256
// of the rest.
void write_header(std::vector<std::uint8_t>& bytes, std::uint32_t schema);

}  // namespace cascadekit::detail
