#include "output_files.hpp"

#include "cascadekit/io/files.hpp"

namespace cascadekit::tools {

void write_text_atomically(const std::filesystem::path& target, const std::string& text) {
    try {
        write_file_atomically(target, text.data(), text.size());  // fsynced, with the OS's reason on failure
    } catch (const FileError& e) {
        throw OutputError(e.what());
    }
}

}  // namespace cascadekit::tools
