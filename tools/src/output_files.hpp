#pragma once
// Tool outputs go through io's one atomic writer (write_file_atomically: temporary file beside
// the target, fsync, rename), so no reader ever sees a half-written file.
#include <filesystem>
#include <functional>
#include <stdexcept>
#include <string>

namespace cascadekit::tools {

class OutputError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Text through write_file_atomically; throws OutputError with the OS's reason.
void write_text_atomically(const std::filesystem::path& target, const std::string& text);

}  // namespace cascadekit::tools
