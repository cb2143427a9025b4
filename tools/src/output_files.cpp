#include "output_files.hpp"

#include <unistd.h>

#include <fstream>

#include "cascadekit/io/files.hpp"

namespace cascadekit::tools {

void write_atomically(const std::filesystem::path& target,
                      const std::function<bool(const std::filesystem::path&)>& write) {
    std::string name = ".";
    name.append(target.stem().string()).append(".tmp-").append(std::to_string(::getpid())).append(target.extension().string());
    const std::filesystem::path tmp = target.parent_path() / name;
    bool ok = false;
    try {
        ok = write(tmp);
    } catch (...) {
        std::error_code ec;
        std::filesystem::remove(tmp, ec);
        throw;
    }
    std::error_code ec;
    if (!ok) {
        std::filesystem::remove(tmp, ec);
        throw OutputError(target.string() + ": cannot write file");
    }
    std::filesystem::rename(tmp, target, ec);
    if (ec) {
        std::error_code ignored;
        std::filesystem::remove(tmp, ignored);
        throw OutputError(target.string() + ": cannot move the written file into place: " + ec.message());
    }
}

void write_text_atomically(const std::filesystem::path& target, const std::string& text) {
    try {
        write_file_atomically(target, text.data(), text.size());  // fsynced, with the OS's reason on failure
    } catch (const FileError& e) {
        throw OutputError(e.what());
    }
}

}  // namespace cascadekit::tools
