#include "cascadekit/eval/annotated_images.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <regex>
#include <sstream>
#include <stdexcept>

#include "cascadekit/io/files.hpp"

namespace cascadekit {

namespace {
namespace fs = std::filesystem;

std::vector<fs::path> images_in(const fs::path& folder) {
    std::vector<fs::path> out;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(folder, ec)) {
        std::string ext = e.path().extension().string();
        std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        if (ext == ".png" || ext == ".jpg" || ext == ".jpeg" || ext == ".ppm" || ext == ".pgm") out.push_back(e.path());
    }
    std::sort(out.begin(), out.end());
    return out;
}

// Images whose boxes come from PASCAL files in `annotations` (empty path: no boxes).
class PascalImages final : public AnnotatedImages {
public:
    struct Item {
        fs::path image, annotation;
    };
    PascalImages(std::string name, std::vector<Item> items) : name_(std::move(name)), items_(std::move(items)) {}
    std::string name() const override { return name_; }
    std::size_t size() const override { return items_.size(); }
    AnnotatedImage at(std::size_t i) const override {
        AnnotatedImage a;
        a.image = items_.at(i).image;
        if (!items_[i].annotation.empty()) a.objects = read_pascal_annotation(items_[i].annotation.string());
        return a;
    }

private:
    std::string name_;
    std::vector<Item> items_;
};

class ListImages final : public AnnotatedImages {
public:
    ListImages(std::string name, std::vector<AnnotatedImage> images) : name_(std::move(name)), images_(std::move(images)) {}
    std::string name() const override { return name_; }
    std::size_t size() const override { return images_.size(); }
    AnnotatedImage at(std::size_t i) const override { return images_.at(i); }

private:
    std::string name_;
    std::vector<AnnotatedImage> images_;
};
}  // namespace

std::unique_ptr<AnnotatedImages> pennfudan_images(const fs::path& root) {
    std::vector<PascalImages::Item> items;
    for (const fs::path& p : images_in(root / "PNGImages"))
        if (p.extension() == ".png") items.push_back({p, root / "Annotation" / (p.stem().string() + ".txt")});
    if (items.empty()) throw std::runtime_error((root / "PNGImages").string() + ": no PennFudan images found");
    return std::make_unique<PascalImages>("PennFudanPed", std::move(items));
}

std::unique_ptr<AnnotatedImages> inria_images(const fs::path& root, const std::string& part) {
    std::vector<PascalImages::Item> items;
    for (const fs::path& p : images_in(root / part / "pos"))
        items.push_back({p, root / part / "annotations" / (p.stem().string() + ".txt")});
    for (const fs::path& p : images_in(root / part / "neg")) items.push_back({p, {}});
    if (items.empty()) throw std::runtime_error((root / part).string() + ": no INRIA images found (pos/ or neg/)");
    return std::make_unique<PascalImages>("INRIA " + part, std::move(items));
}

namespace {
// Calls row(file name, numbers, where) for every line "NAME v1 … vn" of `file` ('#' comments and
// blank lines skipped); `where` names the file and line for errors. Throws on a short or
// non-finite line.
void read_rows(const fs::path& file, std::size_t n, const std::string& expected,
               const std::function<void(const std::string&, const std::vector<double>&, const std::string&)>& row) {
    std::istringstream in(read_text_file(file.string(), "annotation"));
    std::string line;
    int number = 0;
    std::vector<double> v(n);
    while (std::getline(in, line)) {
        ++number;
        if (line.empty() || line[0] == '#') continue;
        std::istringstream fields(line);
        std::string name;
        const std::string where = file.string() + ": line " + std::to_string(number);
        bool ok = static_cast<bool>(fields >> name);
        for (double& x : v) ok = ok && (fields >> x) && std::isfinite(x);
        if (!ok) throw std::runtime_error(where + ": expected " + expected);
        row(name, v, where);
    }
}
}  // namespace

std::unique_ptr<AnnotatedImages> box_file_images(const fs::path& folder, const fs::path& boxes, std::string name,
                                                 const fs::path& points) {
    std::vector<AnnotatedImage> images;
    std::map<std::string, std::size_t> by_name;
    for (const fs::path& p : images_in(folder)) {
        by_name[p.filename().string()] = images.size();
        images.push_back({p, {}, {}, {}});
    }
    if (images.empty()) throw std::runtime_error(folder.string() + ": no images found");
    auto image_of = [&](const std::string& file, const std::string& where) -> AnnotatedImage& {
        const auto it = by_name.find(file);
        if (it == by_name.end()) throw std::runtime_error(where + ": no image " + file + " in " + folder.string());
        return images[it->second];
    };
    read_rows(boxes, 4, "NAME x y w h with w, h > 0", [&](const std::string& file, const std::vector<double>& v, const std::string& where) {
        if (!(v[2] > 0) || !(v[3] > 0)) throw std::runtime_error(where + ": expected NAME x y w h with w, h > 0");
        image_of(file, where).objects.push_back({v[0], v[1], v[2], v[3]});
    });
    if (!points.empty()) {
        read_rows(points, 12, "NAME and six points x y (eyes, nose, mouth corners and centre)",
                  [&](const std::string& file, const std::vector<double>& v, const std::string& where) {
                      image_of(file, where).face_points.push_back({v[0], v[1], v[2], v[3], v[8], v[9]});
                  });
        for (const AnnotatedImage& im : images)
            if (im.face_points.size() != im.objects.size())
                throw std::runtime_error(points.string() + ": " + im.image.filename().string() + " has " +
                                         std::to_string(im.face_points.size()) + " faces' points but " +
                                         std::to_string(im.objects.size()) + " boxes in " + boxes.string());
    }
    return std::make_unique<ListImages>(std::move(name), std::move(images));
}

std::unique_ptr<AnnotatedImages> cmu_mit_faces(const fs::path& root) {
    std::vector<AnnotatedImage> all;
    for (const char* part : {"test", "test-low"}) {
        const auto set = box_file_images(root / part, root / part / "facegroundtruth.txt", part, root / part / "groundtruth.txt");
        for (std::size_t i = 0; i < set->size(); ++i) all.push_back(set->at(i));
    }
    return std::make_unique<ListImages>("CMU+MIT frontal faces", std::move(all));
}

std::unique_ptr<AnnotatedImages> annotated_list(std::string name, std::vector<AnnotatedImage> images) {
    return std::make_unique<ListImages>(std::move(name), std::move(images));
}

std::unique_ptr<AnnotatedImages> annotated_list(std::string name, std::vector<AnnotatedFile> files) {
    std::vector<AnnotatedImage> images;
    for (AnnotatedFile& f : files) images.push_back({std::move(f.image), std::move(f.objects), std::move(f.ignore), {}});
    return annotated_list(std::move(name), std::move(images));
}

std::unique_ptr<AnnotatedImages> annotation_file_images(const fs::path& path, AnnotationFormat format,
                                                        const AnnotationOptions& options, std::string name) {
    return annotated_list(std::move(name), read_annotations(path, format, options));
}

std::vector<Box> read_pascal_annotation(const std::string& file) {
    std::istringstream in(read_text_file(file, "annotation"));
    static const std::regex box(R"(Bounding box for object \d+ "[^"]*" \(Xmin, Ymin\) - \(Xmax, Ymax\) : \((\d+), (\d+)\) - \((\d+), (\d+)\))");
    std::vector<Box> out;
    std::string line;
    std::smatch m;
    int number = 0;
    while (std::getline(in, line)) {
        ++number;
        // std::regex recurses per character: a huge line could overflow the stack. PASCAL
        // annotation lines are short; longer ones are refused, not matched.
        if (line.size() > 1000)
            throw std::runtime_error(file + ": line " + std::to_string(number) + " is " + std::to_string(line.size()) +
                                     " characters long; not a PASCAL annotation");
        if (std::regex_search(line, m, box)) {
            double v[4];
            for (int k = 0; k < 4; ++k) {
                if (m[k + 1].length() > 9)
                    throw std::runtime_error(file + ": line " + std::to_string(number) + ": coordinate out of range");
                v[k] = std::stod(m[k + 1]);
            }
            if (v[2] < v[0] || v[3] < v[1])
                throw std::runtime_error(file + ": line " + std::to_string(number) + ": box with Xmax < Xmin or Ymax < Ymin");
            out.push_back({v[0], v[1], v[2] - v[0] + 1, v[3] - v[1] + 1});
        }
    }
    return out;
}

}  // namespace cascadekit
