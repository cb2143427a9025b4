#include "model_header.hpp"

#include <algorithm>
#include <cstring>
#include <string>

#include "cascadekit/io/files.hpp"
#include "cascadekit/io/model_file.hpp"

namespace cascadekit {

namespace {
// ---------------------------------------------------------------------------------------------
// The integrity header in the HDF5 user block
// ---------------------------------------------------------------------------------------------
constexpr char kHeaderMagic[16] = {'c', 'a', 's', 'c', 'a', 'd', 'e', 'k', 'i', 't', '-', 'm', 'o', 'd', 'e', 'l'};
constexpr std::uint32_t kHeaderVersion = 1;
constexpr std::uint8_t kHdf5Signature[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};

void put_u32(std::uint8_t* p, std::uint32_t v) {
    for (int i = 0; i < 4; ++i) p[i] = static_cast<std::uint8_t>(v >> (8 * i));
}
void put_u64(std::uint8_t* p, std::uint64_t v) {
    for (int i = 0; i < 8; ++i) p[i] = static_cast<std::uint8_t>(v >> (8 * i));
}
std::uint32_t get_u32(const std::uint8_t* p) {
    std::uint32_t v = 0;
    for (int i = 3; i >= 0; --i) v = (v << 8) | p[i];
    return v;
}
std::uint64_t get_u64(const std::uint8_t* p) {
    std::uint64_t v = 0;
    for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
    return v;
}

void write_header_bytes(std::vector<std::uint8_t>& bytes, std::uint32_t schema) {
    std::uint8_t* h = bytes.data();
    std::fill(h, h + kModelHeaderBytes, std::uint8_t{0});
    std::memcpy(h, kHeaderMagic, sizeof kHeaderMagic);
    put_u32(h + 16, kHeaderVersion);
    put_u32(h + 20, schema);
    put_u64(h + 24, bytes.size() - kModelHeaderBytes);
    const Sha256 digest = sha256(h + kModelHeaderBytes, bytes.size() - kModelHeaderBytes);
    std::memcpy(h + 32, digest.data(), digest.size());
}

bool hdf5_signature(const std::vector<std::uint8_t>& bytes) {
    return bytes.size() >= sizeof kHdf5Signature && std::equal(kHdf5Signature, kHdf5Signature + 8, bytes.begin());
}

}  // namespace

namespace detail {
bool has_header_magic(const std::vector<std::uint8_t>& bytes) {
    return bytes.size() >= 16 && std::equal(kHeaderMagic, kHeaderMagic + 16, bytes.begin());
}
bool starts_with_hdf5(const std::vector<std::uint8_t>& bytes) { return hdf5_signature(bytes); }
std::uint32_t header_schema(const std::vector<std::uint8_t>& bytes) { return get_u32(bytes.data() + 20); }
void write_header(std::vector<std::uint8_t>& bytes, std::uint32_t schema) { write_header_bytes(bytes, schema); }
}  // namespace detail

void verify_model_header(const std::vector<std::uint8_t>& bytes, const std::filesystem::path& file) {
    auto fail = [&](const std::string& problem) { throw ModelFileError(file, "/", problem); };
    if (detail::starts_with_hdf5(bytes))
        fail("an HDF5 file without cascadekit's integrity header: a schema-1 model from an older cascadekit, "
             "or not a cascadekit model. If you trust it, convert it: cascade convert " + file.string() + " NEW.h5");
    if (bytes.size() < kModelHeaderBytes || !std::equal(kHeaderMagic, kHeaderMagic + 16, bytes.begin()))
        fail(bytes.size() < 16 ? "not a cascadekit model file (" + std::to_string(bytes.size()) + " bytes)"
                               : "not a cascadekit model file (no cascadekit-model header)");
    const std::uint8_t* h = bytes.data();
    if (get_u32(h + 16) != kHeaderVersion)
        fail("header version " + std::to_string(get_u32(h + 16)) + " is not " + std::to_string(kHeaderVersion) +
             " (damaged, or written by a newer cascadekit)");
    const std::uint32_t schema = get_u32(h + 20);
    if (schema > static_cast<std::uint32_t>(kModelSchemaVersion))
        fail("schema version " + std::to_string(schema) + " is newer than this build of cascadekit supports (" +
             std::to_string(kModelSchemaVersion) + "); upgrade cascadekit");
    if (schema < static_cast<std::uint32_t>(kMinSealedSchemaVersion))
        fail("damaged header: schema version " + std::to_string(schema));
    const std::uint64_t length = get_u64(h + 24);
    if (length != bytes.size() - kModelHeaderBytes)
        fail("damaged or truncated: the header says " + std::to_string(length) + " bytes follow it, the file has " +
             std::to_string(bytes.size() - kModelHeaderBytes));
    if (std::any_of(h + 64, h + kModelHeaderBytes, [](std::uint8_t b) { return b != 0; }))
        fail("damaged header: reserved bytes are not zero");
    Sha256 stored;
    std::memcpy(stored.data(), h + 32, stored.size());
    const Sha256 actual = sha256(h + kModelHeaderBytes, bytes.size() - kModelHeaderBytes);
    if (!same_digest(stored, actual))
        fail("damaged: SHA-256 of the contents is " + hex(actual) + ", the header says " + hex(stored) +
             "; re-save it from a trusted copy (after editing it with HDF5 tools, re-seal it: cascade convert)");
}

}  // namespace cascadekit
