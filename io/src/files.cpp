#include "cascadekit/io/files.hpp"

#include <fcntl.h>
#include <openssl/evp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace cascadekit {

namespace {
std::string os_reason(int err) { return std::strerror(err); }

// Owns a file descriptor.
class Fd {
public:
    explicit Fd(int fd) : fd_(fd) {}
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    ~Fd() { close(); }
    int get() const { return fd_; }
    // Closes now; returns 0 or the errno of close (NFS and full disks report write errors here).
    int close() {
        int err = 0;
        if (fd_ >= 0 && ::close(fd_) != 0) err = errno;
        fd_ = -1;
        return err;
    }

private:
    int fd_;
};

std::string kind_of(mode_t mode) {
    if (S_ISDIR(mode)) return "a folder";
    if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
    if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
    if (S_ISSOCK(mode)) return "a socket";
    return "not a regular file";
}

// Opens for reading without blocking (FIFOs) and checks it is a regular file.
int open_regular(const std::filesystem::path& file, const std::string& what, struct stat& st) {
    const int fd = ::open(file.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        const int err = errno;
        throw FileError(file, err == ENOENT ? "no such file" : "cannot open " + what + ": " + os_reason(err));
    }
    if (::fstat(fd, &st) != 0) {
        const int err = errno;
        ::close(fd);
        throw FileError(file, "cannot read " + what + ": " + os_reason(err));
    }
    if (!S_ISREG(st.st_mode)) {
        ::close(fd);
        const bool vowel = !what.empty() && std::string("aeiou").find(what[0]) != std::string::npos;
        throw FileError(file, "is " + kind_of(st.st_mode) + ", not " + (vowel ? "an " : "a ") + what);
    }
    return fd;
}
}  // namespace

std::uint64_t regular_file_size(const std::filesystem::path& file, const std::string& what) {
    struct stat st {};
    Fd fd(open_regular(file, what, st));
    return static_cast<std::uint64_t>(st.st_size);
}

std::vector<std::uint8_t> read_file_bytes(const std::filesystem::path& file, std::uint64_t max_bytes,
                                          const std::string& what) {
    struct stat st {};
    Fd fd(open_regular(file, what, st));
    const auto size = static_cast<std::uint64_t>(st.st_size);
    if (size > max_bytes)
        throw FileError(file, what + " of " + std::to_string(size) + " bytes is larger than the limit of " +
                                  std::to_string(max_bytes) + " bytes");
    std::vector<std::uint8_t> bytes(static_cast<std::size_t>(size));
    std::size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::read(fd.get(), bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) throw FileError(file, "cannot read " + what + ": " + os_reason(errno));
        if (n == 0) throw FileError(file, "shrank while being read");
        done += static_cast<std::size_t>(n);
    }
    return bytes;
}

std::string read_text_file(const std::filesystem::path& file, const std::string& what) {
    const std::vector<std::uint8_t> bytes = read_file_bytes(file, kMaxTextFileBytes, what);
    return std::string(bytes.begin(), bytes.end());
}

void write_file_atomically(const std::filesystem::path& file, const void* data, std::size_t size) {
    // Built with append: GCC 12 warns falsely (-Wrestrict, PR 105329) on "literal" + std::string&&.
    std::string name = ".";
    name.append(file.filename().string()).append(".tmp-").append(std::to_string(::getpid()));
    const std::filesystem::path tmp = file.parent_path() / name;
    auto fail = [&](const std::string& problem) {
        ::unlink(tmp.c_str());
        throw FileError(file, problem);
    };
    Fd fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
    if (fd.get() < 0) {
        const int err = errno;
        throw FileError(file, "cannot create " + tmp.string() + ": " + os_reason(err));
    }
    const auto* p = static_cast<const std::uint8_t*>(data);
    std::size_t done = 0;
    while (done < size) {
        const ssize_t n = ::write(fd.get(), p + done, size - done);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) fail("cannot write: " + os_reason(errno));
        done += static_cast<std::size_t>(n);
    }
    if (::fsync(fd.get()) != 0 && errno != EINVAL) fail("cannot write: " + os_reason(errno));
    if (const int err = fd.close(); err != 0) fail("cannot write: " + os_reason(err));
    if (::rename(tmp.c_str(), file.c_str()) != 0) fail("cannot move the written file into place: " + os_reason(errno));
}

void check_writable_file(const std::filesystem::path& file) {
    std::error_code ec;
    if (std::filesystem::is_directory(file, ec)) throw FileError(file, "is a folder; a file name is needed");
    const std::filesystem::path parent = file.parent_path().empty() ? std::filesystem::path(".") : file.parent_path();
    if (!std::filesystem::is_directory(parent, ec))
        throw FileError(file, "cannot be written: folder " + parent.string() + " does not exist");
    const std::filesystem::path probe = parent / std::string(".cascadekit-probe-").append(std::to_string(::getpid()));
    const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) {
        const int err = errno;
        throw FileError(file, "cannot be written: " + os_reason(err) + " (in " + parent.string() + ")");
    }
    ::close(fd);
    ::unlink(probe.c_str());
}

Sha256 sha256(const void* data, std::size_t size) {
    Sha256 out{};
    unsigned int len = 0;
    if (EVP_Digest(data, size, out.data(), &len, EVP_sha256(), nullptr) != 1 || len != out.size())
        throw std::runtime_error("SHA-256 failed (OpenSSL)");
    return out;
}

bool same_digest(const Sha256& a, const Sha256& b) {
    volatile std::uint8_t acc = 0;
    for (std::size_t i = 0; i < a.size(); ++i) acc = static_cast<std::uint8_t>(acc | (a[i] ^ b[i]));
    return acc == 0;
}

std::string hex(const Sha256& digest) {
    static const char* digits = "0123456789abcdef";
    std::string s;
    for (std::uint8_t b : digest) {
        s.push_back(digits[b >> 4]);
        s.push_back(digits[b & 15]);
    }
    return s;
}

}  // namespace cascadekit
