#pragma once
// Writing outputs so that no reader ever sees a half-written file: write beside the target under
// a temporary name, then rename into place.
#include <filesystem>
#include <functional>
#include <stdexcept>
#include <string>

namespace cascadekit::tools {

class OutputError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Calls write(temporary_path) and renames the result to target. The temporary path keeps the
// target's extension (image encoders choose the format by it). Throws OutputError naming the
// target when write returns false or the rename fails; the temporary file is removed.
void write_atomically(const std::filesystem::path& target,
                      const std::function<bool(const std::filesystem::path&)>& write);

// write_atomically for text.
void write_text_atomically(const std::filesystem::path& target, const std::string& text);

}  // namespace cascadekit::tools
