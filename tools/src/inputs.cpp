#include "inputs.hpp"

#include "cascadekit/io/dataset.hpp"

#include <algorithm>
#include <array>
#include <cctype>

namespace cascadekit::tools {

namespace {
std::string lower_extension(const std::filesystem::path& p) {
    std::string e = p.extension().string();
    std::transform(e.begin(), e.end(), e.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return e;
}
template <std::size_t N>
bool has_extension(const std::filesystem::path& p, const std::array<const char*, N>& exts) {
    const std::string e = lower_extension(p);
    return std::any_of(exts.begin(), exts.end(), [&](const char* x) { return e == x; });
}
constexpr std::array<const char*, 11> kImageExts = {".png", ".jpg", ".jpeg", ".pgm", ".ppm", ".pnm", ".bmp",
                                                    ".tif", ".tiff", ".webp", ".jp2"};
constexpr std::array<const char*, 9> kVideoExts = {".avi", ".mp4", ".mkv", ".mov", ".mpg", ".mpeg", ".webm", ".m4v", ".wmv"};
constexpr std::array<const char*, 2> kListExts = {".txt", ".lst"};

void add_path(const std::filesystem::path& p, std::vector<InputItem>& out, std::vector<InputProblem>& problems,
              bool from_list);

void add_folder(const std::filesystem::path& dir, std::vector<InputItem>& out, std::vector<InputProblem>& problems) {
    std::vector<std::filesystem::path> files;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec))
        if (entry.is_regular_file(ec) && is_image_path(entry.path())) files.push_back(entry.path());
    if (ec) {
        problems.push_back({dir.string(), "cannot list folder: " + ec.message()});
        return;
    }
    if (files.empty()) {
        problems.push_back({dir.string(), "folder holds no images (.png, .jpg, .jpeg, .pgm, .ppm, .bmp, .tif, ...)"});
        return;
    }
    std::sort(files.begin(), files.end());
    for (auto& f : files) out.push_back({f, InputKind::Image});
}

void add_list(const std::filesystem::path& list, std::vector<InputItem>& out, std::vector<InputProblem>& problems) {
    try {
        for (const auto& p : read_path_list(list)) add_path(p, out, problems, true);
    } catch (const DatasetError& e) {
        const std::string what = e.what();
        problems.push_back({list.string(), what.substr(list.string().size() + 2)});  // drop "LIST: "
    }
}

void add_path(const std::filesystem::path& p, std::vector<InputItem>& out, std::vector<InputProblem>& problems,
              bool from_list) {
    std::error_code ec;
    if (!std::filesystem::exists(p, ec)) {
        problems.push_back({p.string(), "no such file or folder"});
        return;
    }
    if (std::filesystem::is_directory(p, ec)) {
        add_folder(p, out, problems);
    } else if (!from_list && has_extension(p, kListExts)) {
        add_list(p, out, problems);
    } else if (is_video_path(p)) {
        out.push_back({p, InputKind::Video});
    } else {
        out.push_back({p, InputKind::Image});  // decoding tells whether it really is one
    }
}
}  // namespace

bool is_image_path(const std::filesystem::path& p) { return has_extension(p, kImageExts); }
bool is_video_path(const std::filesystem::path& p) { return has_extension(p, kVideoExts); }

std::vector<InputItem> expand_inputs(const std::vector<std::string>& args, std::vector<InputProblem>& problems) {
    std::vector<InputItem> out;
    for (const std::string& a : args) add_path(a, out, problems, false);
    return out;
}

AnnotatedSet read_annotated_set(const std::string& path, const std::string& format, const std::string& object_class,
                                const std::string& images) {
    AnnotatedSet set;
    set.format = annotation_format(format, path);
    AnnotationOptions options;
    options.label = object_class;
    options.images = images;
    set.images = read_annotations(path, set.format, options);
    return set;
}

}  // namespace cascadekit::tools
