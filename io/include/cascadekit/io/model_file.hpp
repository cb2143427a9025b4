#pragma once
// Reading and writing cascade models as HDF5 files, schema version 3, 4 for models whose HoG
// features compress gray levels first (HogParams::gamma), or 5 for models whose gradients split
// their votes between two orientation bins (HogParams::votes) (docs/model-file.md; schema 2
// files read too, with the default object box and operating point): an HDF5
// file whose 512-byte user block holds an integrity header (magic, schema version, length and
// SHA-256 of everything after it), checked with plain file I/O before libhdf5 sees a byte.
#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "cascadekit/model/cascade.hpp"

namespace cascadekit {

inline constexpr int kModelSchemaVersion = 8;       // the newest schema load_model reads
// What save_model writes: 3; 4 when model.hog.gamma is not none; 5 when model.hog.votes is split;
// 6 when model.hog.channels is colour (so that older builds, which would ignore /hog@gamma,
// /hog@votes or /hog@channels, refuse those files instead of misreading them).
int model_schema_version(const CascadeModel& model);
inline constexpr int kMinSealedSchemaVersion = 2;  // the oldest schema with the integrity header (read as is)
inline constexpr std::size_t kModelHeaderBytes = 512;             // the HDF5 user block
inline constexpr std::uint64_t kMaxModelFileBytes = 64ull << 20;  // larger files are refused unread
inline constexpr const char* kModelFormatName = "cascadekit-cascade";

// A model file that cannot be read or written. what() is "<file>: <path in file>: <problem>"
// (the path is "/" for problems with the file as a whole).
class ModelFileError : public std::runtime_error {
public:
    ModelFileError(const std::filesystem::path& file, const std::string& path_in_file, const std::string& problem)
        : std::runtime_error(file.string() + ": " + path_in_file + ": " + problem),
          file_(file), path_in_file_(path_in_file), problem_(problem) {}
    const std::filesystem::path& file() const { return file_; }
    const std::string& path_in_file() const { return path_in_file_; }
    const std::string& problem() const { return problem_; }

private:
    std::filesystem::path file_;
    std::string path_in_file_;
    std::string problem_;
};

// Thread safety: call these from one thread at a time. A load forks a child process for libhdf5,
// and a save names its temporary file by the process id, so two saves of one file in one
// process would share it.

// Loads and fully validates a model: the integrity header (refused before libhdf5 opens anything
// when the file is not a regular file, larger than kMaxModelFileBytes, of schema 1, truncated or
// damaged anywhere), then every dataset's presence, type, shape and storage (hard links only,
// no external or virtual storage, no filters) and validate_model()'s invariants.
// Throws ModelFileError naming the file, the path and the problem.
CascadeModel load_model(const std::filesystem::path& file);

// load_model on a file's bytes (for models embedded elsewhere, and fuzzing); `file` names it.
CascadeModel parse_model_file(const std::vector<std::uint8_t>& bytes, const std::filesystem::path& file);

// The integrity check alone, on a file's bytes (load_model's first step; also for fuzzing).
void verify_model_header(const std::vector<std::uint8_t>& bytes, const std::filesystem::path& file);

// For `cascade convert` only: reads a schema-1 file (no integrity header) or a schema-2 file
// whose checksum no longer matches (edited with HDF5 tools), with every other check of
// load_model. libhdf5 parses the file unverified: only for files you trust.
CascadeModel load_model_unverified(const std::filesystem::path& file);

// Validates the model and writes it (temporary file beside `file`, fsync, rename), so a reader
// never sees a half-written model; a full disk or unwritable place is reported with the OS's
// reason and leaves `file` as it was. Equal models give byte-identical files (HDF5 timestamps
// off). Throws ModelFileError (ModelError wrapped in it for an invalid model).
void save_model(const CascadeModel& model, const std::filesystem::path& file);

// The bytes save_model writes (header included); `file` only names it in errors.
std::vector<std::uint8_t> model_file_bytes(const CascadeModel& model, const std::filesystem::path& file);

// Recomputes the header of a sealed file in place after it was edited with HDF5 tools, keeping
// the schema version it names (tests build damaged-but-sealed files with it). Trusts the
// contents: only for files you trust.
void reseal_model_file(const std::filesystem::path& file);

}  // namespace cascadekit
