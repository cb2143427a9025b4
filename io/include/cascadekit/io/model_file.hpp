#pragma once
// Reading and writing cascade models as HDF5 files, schema version 1 (io/README.md).
#include <filesystem>
#include <stdexcept>
#include <string>

#include "cascadekit/features/model.hpp"

namespace cascadekit {

inline constexpr int kModelSchemaVersion = 1;
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

// Loads and fully validates a model: schema version, every dataset's presence, type and shape,
// and validate_model()'s invariants. Throws ModelFileError naming the file, the path and the problem.
CascadeModel load_model(const std::filesystem::path& file);

// Validates the model, writes it to a temporary file beside `file` and renames it into place,
// so a reader never sees a half-written model. Saving the same model twice gives identical bytes
// (HDF5 object timestamps are switched off). Throws ModelFileError (or ModelError wrapped in it).
void save_model(const CascadeModel& model, const std::filesystem::path& file);

}  // namespace cascadekit
