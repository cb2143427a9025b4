#include "output_files.hpp"

#include <unistd.h>

#include <fstream>

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
    write_atomically(target, [&](const std::filesystem::path& tmp) {
        std::ofstream out(tmp, std::ios::binary);
        out << text;
        out.close();
        return static_cast<bool>(out);
    });
}

}  // namespace cascadekit::tools
