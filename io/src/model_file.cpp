#include "cascadekit/io/model_file.hpp"
#include "cascadekit/model/hog_svm_stage.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <optional>
#include <vector>

#include "cascadekit/io/files.hpp"
#include "model_hdf5.hpp"
#include "model_header.hpp"
#include "model_wire.hpp"

namespace cascadekit {

namespace {
// ---------------------------------------------------------------------------------------------
// Isolation: libhdf5 parses in a child process
// ---------------------------------------------------------------------------------------------
// The checksum proves a file undamaged, not well-meant: a file crafted with a correct checksum
// still reaches libhdf5, whose 1.10 parser can crash, loop or allocate without bound (a
// libFuzzer run made it ask for 197 GB in its metadata cache). So libhdf5 runs in a forked
// child with a time and memory budget; the child sends the model back over a pipe in a plain
// encoding (model_wire.hpp) that the parent decodes with bounds and validates again. A crash,
// hang or runaway allocation in libhdf5 becomes an error naming the file.
constexpr double kParseSeconds = 20.0;
constexpr std::uint64_t kParseRssBytes = 1ull << 30;

std::uint64_t rss_bytes(pid_t pid) {
    char path[64];
    std::snprintf(path, sizeof path, "/proc/%d/statm", static_cast<int>(pid));
    std::FILE* f = std::fopen(path, "r");
    if (!f) return 0;
    unsigned long long size = 0, resident = 0;
    const int n = std::fscanf(f, "%llu %llu", &size, &resident);
    std::fclose(f);
    return n == 2 ? resident * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE)) : 0;
}

void write_all(int fd, const std::vector<std::uint8_t>& b) {
    std::size_t done = 0;
    while (done < b.size()) {
        const ssize_t n = ::write(fd, b.data() + done, b.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return;
        done += static_cast<std::size_t>(n);
    }
}

// Runs in the child: parse, encode, write, _exit (no destructors, no atexit handlers, no stdio
// flushes of the parent's buffers).
[[noreturn]] void parse_in_child(int fd, const std::vector<std::uint8_t>& bytes, const std::filesystem::path& file,
                                 bool legacy) {
    std::vector<std::uint8_t> out;
    try {
        const bool sealed = bytes.size() >= kModelHeaderBytes && detail::has_header_magic(bytes);
        const int schema = sealed ? static_cast<int>(detail::header_schema(bytes)) : 0;
        out = detail::encode_model(detail::read_model_hdf5(bytes, file, legacy, schema));
    } catch (const ModelFileError& e) {
        out = detail::encode_error(e.path_in_file(), e.problem());
    } catch (const std::exception& e) {
        out = detail::encode_error("/", e.what());
    }
    write_all(fd, out);
    ::_exit(0);
}

CascadeModel parse_isolated(const std::vector<std::uint8_t>& bytes, const std::filesystem::path& file, bool legacy) {
    auto fail = [&](const std::string& problem) -> CascadeModel { throw ModelFileError(file, "/", problem); };
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) return fail(std::string("cannot create a pipe: ") + std::strerror(errno));
    std::fflush(nullptr);
    const pid_t pid = ::fork();
    if (pid < 0) {
        ::close(fds[0]);
        ::close(fds[1]);
        return fail(std::string("cannot start the HDF5 parser process: ") + std::strerror(errno));
    }
    if (pid == 0) {
        ::close(fds[0]);
        parse_in_child(fds[1], bytes, file, legacy);
    }
    ::close(fds[1]);
    std::vector<std::uint8_t> result;
    const auto start = std::chrono::steady_clock::now();
    std::string killed;
    const std::size_t max_result = 4 * bytes.size() + 4096;  // the encoding is never much larger than the file
    for (;;) {
        pollfd p{fds[0], POLLIN, 0};
        const int ready = ::poll(&p, 1, 20);
        if (ready > 0) {
            std::uint8_t buf[1 << 16];
            const ssize_t n = ::read(fds[0], buf, sizeof buf);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) break;  // EOF: the child is done (or died)
            result.insert(result.end(), buf, buf + n);
            if (result.size() > max_result) killed = "it sent more than the file can hold";
        }
        if (killed.empty() && rss_bytes(pid) > kParseRssBytes)
            killed = "libhdf5 used more than " + std::to_string(kParseRssBytes >> 20) + " MiB parsing it";
        if (killed.empty() && std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > kParseSeconds)
            killed = "libhdf5 took more than " + std::to_string(static_cast<int>(kParseSeconds)) + " s parsing it";
        if (!killed.empty()) {
            ::kill(pid, SIGKILL);
            break;
        }
    }
    ::close(fds[0]);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    const std::string beneath = " (HDF5 structures crafted or corrupt beneath a valid checksum)";
    if (!killed.empty()) return fail(killed + beneath);
    if (WIFSIGNALED(status))
        return fail("libhdf5 crashed parsing it (signal " + std::to_string(WTERMSIG(status)) + ")" + beneath);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return fail("libhdf5 failed parsing it (exit status " + std::to_string(WEXITSTATUS(status)) + ")" + beneath);
    detail::WireResult r;
    try {
        r = detail::decode(result);
    } catch (const std::exception& e) {
        return fail(std::string("the HDF5 parser process returned a malformed result (") + e.what() + ")");
    }
    if (!r.ok) throw ModelFileError(file, r.path_in_file, r.problem);
    try {
        validate_model(r.model);  // again, in this process
    } catch (const ModelError& e) {
        const std::string what = e.what();
        throw ModelFileError(file, e.path(), what.substr(e.path().size() + 2));
    }
    return r.model;
}

std::vector<std::uint8_t> read_model_bytes(const std::filesystem::path& file) {
    try {
        return read_file_bytes(file, kMaxModelFileBytes, "model file");
    } catch (const FileError& e) {
        throw ModelFileError(file, "/", e.problem());
    }
}

}  // namespace

CascadeModel load_model(const std::filesystem::path& file) { return parse_model_file(read_model_bytes(file), file); }

CascadeModel parse_model_file(const std::vector<std::uint8_t>& bytes, const std::filesystem::path& file) {
    detail::silence_hdf5();
    if (bytes.size() > kMaxModelFileBytes) throw ModelFileError(file, "/", "larger than the model file limit");
    verify_model_header(bytes, file);
    return parse_isolated(bytes, file, false);
}

CascadeModel load_model_unverified(const std::filesystem::path& file) {
    detail::silence_hdf5();
    const std::vector<std::uint8_t> bytes = read_model_bytes(file);
    const bool sealed = detail::has_header_magic(bytes);
    if (!sealed && !detail::starts_with_hdf5(bytes)) throw ModelFileError(file, "/", "not an HDF5 file");
    return parse_isolated(bytes, file, true);
}

int model_schema_version(const CascadeModel& model) {
    for (const Stage& s : model.stages)
        if (const auto* h = s.get_if<HogSvmStage>(); h != nullptr && h->carry != 0.0f) return 8;
    for (const Stage& s : model.stages)
        if (const auto* h = s.get_if<HogSvmStage>(); h != nullptr && h->vote == VoteMode::Clipped) return 7;
    if (model.hog.channels != GradientChannels::Gray) return 6;
    if (model.hog.votes != OrientationVotes::Nearest) return 5;
    return model.hog.gamma == GrayGamma::None ? 3 : 4;
}

std::vector<std::uint8_t> model_file_bytes(const CascadeModel& model, const std::filesystem::path& file) {
    detail::silence_hdf5();
    try {
        validate_model(model);
    } catch (const ModelError& e) {
        const std::string what = e.what();
        throw ModelFileError(file, e.path(), "refusing to save an invalid model: " + what.substr(e.path().size() + 2));
    }
    std::vector<std::uint8_t> bytes = detail::model_hdf5_bytes(model, file);
    detail::write_header(bytes, static_cast<std::uint32_t>(model_schema_version(model)));
    return bytes;
}
void save_model(const CascadeModel& model, const std::filesystem::path& file) {
    const std::vector<std::uint8_t> bytes = model_file_bytes(model, file);
    try {
        write_file_atomically(file, bytes.data(), bytes.size());
    } catch (const FileError& e) {
        throw ModelFileError(file, "/", e.problem());
    }
}

void reseal_model_file(const std::filesystem::path& file) {
    std::vector<std::uint8_t> bytes = read_model_bytes(file);
    if (bytes.size() <= kModelHeaderBytes || !detail::has_header_magic(bytes))
        throw ModelFileError(file, "/", "has no cascadekit-model header to re-seal");
    // The schema the header names stays (a schema-2 file edited with HDF5 tools is still one).
    const std::uint32_t schema = detail::header_schema(bytes);
    detail::write_header(bytes, schema >= static_cast<std::uint32_t>(kMinSealedSchemaVersion) &&
                                schema <= static_cast<std::uint32_t>(kModelSchemaVersion)
                            ? schema
                            : static_cast<std::uint32_t>(kModelSchemaVersion));
    try {
        write_file_atomically(file, bytes.data(), bytes.size());
    } catch (const FileError& e) {
        throw ModelFileError(file, "/", e.problem());
    }
}

}  // namespace cascadekit
