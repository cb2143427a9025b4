#pragma once
// What `cascade detect` accepts as INPUT: an image file, a folder of images, a text file of
// paths (.txt or .lst, one per line, '#' comments, relative paths taken from the list's folder)
// or a video file.
#include <filesystem>
#include <string>
#include <vector>

#include "cascadekit/io/annotations.hpp"

namespace cascadekit::tools {

enum class InputKind { Image, Video };

struct InputItem {
    std::filesystem::path path;
    InputKind kind = InputKind::Image;
};

struct InputProblem {
    std::string path;
    std::string problem;
};

// Expands the command-line INPUTs in order (folders sorted by name). Inputs that do not exist,
// empty folders and unreadable lists are reported in problems, not thrown.
std::vector<InputItem> expand_inputs(const std::vector<std::string>& args, std::vector<InputProblem>& problems);

// An annotated set as `eval --annotations` and `crop` take it: --format (auto: by the file, as
// guess_annotation_format), --class and --images. Throws AnnotationError.
struct AnnotatedSet {
    AnnotationFormat format = AnnotationFormat::Voc;
    std::vector<AnnotatedFile> images;
};
AnnotatedSet read_annotated_set(const std::string& path, const std::string& format, const std::string& object_class,
                                const std::string& images);

bool is_image_path(const std::filesystem::path& p);
bool is_video_path(const std::filesystem::path& p);

}  // namespace cascadekit::tools
