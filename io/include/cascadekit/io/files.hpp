#pragma once
// Reading and writing whole files with plain POSIX I/O, for every parser of cascadekit: files are
// read only when they are regular files no larger than the caller's limit (a FIFO or device
// named like an image must not block or balloon a run), and written beside the target, flushed
// to disk and renamed into place, so a reader sees the old file or the whole new one.
#include <array>
#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

namespace cascadekit {

// A file that cannot be read or written. what() is "<file>: <problem>", the problem in words
// (the operating system's reason where it gave one).
class FileError : public std::runtime_error {
public:
    FileError(const std::filesystem::path& file, const std::string& problem)
        : std::runtime_error(file.string() + ": " + problem), file_(file), problem_(problem) {}
    const std::filesystem::path& file() const { return file_; }
    const std::string& problem() const { return problem_; }

private:
    std::filesystem::path file_;
    std::string problem_;
};

// The whole file. Refuses (FileError) what is not a regular file (folder, FIFO, device: opened
// non-blocking, so a FIFO never blocks), a file larger than max_bytes, and read errors. `what`
// names the kind of file in messages ("model file", "image").
std::vector<std::uint8_t> read_file_bytes(const std::filesystem::path& file, std::uint64_t max_bytes,
                                          const std::string& what);

// A text file (lists, splits, annotations, JSON) of at most kMaxTextFileBytes, as read_file_bytes.
inline constexpr std::uint64_t kMaxTextFileBytes = 256ull << 20;
std::string read_text_file(const std::filesystem::path& file, const std::string& what);

// Size of a regular file without reading it; FileError as read_file_bytes for anything else.
std::uint64_t regular_file_size(const std::filesystem::path& file, const std::string& what);

// Writes bytes to a temporary file beside `file` (".NAME.tmp-PID"), fsyncs it and renames it
// into place. On any failure (full disk, read-only place, missing folder) the temporary file is
// removed, `file` is untouched and FileError gives the operating system's reason.
void write_file_atomically(const std::filesystem::path& file, const void* data, std::size_t size);

// Checks up front that a file can be created at `file` (its folder exists and is writable, the
// path is not a folder), so long work is not done for an output that cannot be written. Creates
// and removes a probe file; does not touch an existing `file`. FileError names the reason.
void check_writable_file(const std::filesystem::path& file);

// SHA-256 (OpenSSL), for the integrity headers of model files and checkpoints.
using Sha256 = std::array<std::uint8_t, 32>;
Sha256 sha256(const void* data, std::size_t size);
std::string hex(const Sha256& digest);
// Constant-time equality (XOR-accumulated, no early exit, no memcmp): it leaks nothing about the
// stored digest, to a timer or to a coverage-guided fuzzer (libFuzzer learns the operands of
// memcmp and would copy the computed digest into the header to forge a "verified" file).
bool same_digest(const Sha256& a, const Sha256& b);

}  // namespace cascadekit
