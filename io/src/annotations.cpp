// Readers of labelling tools' annotation formats (annotations.hpp): tinyxml2 for the XML ones,
// nlohmann-json for COCO, a line parser for OpenCV's text.
#include "cascadekit/io/annotations.hpp"

#include <tinyxml2.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cascadekit/io/files.hpp"

namespace cascadekit {

namespace {
namespace fs = std::filesystem;

constexpr double kMaxCoordinate = 1e7;

[[noreturn]] void fail(const fs::path& file, const std::string& where, const std::string& what) {
    throw AnnotationError(file.string() + ": " + where + (where.empty() ? "" : ": ") + what);
}

// A finite number in [−kMaxCoordinate, kMaxCoordinate] from text (the whole text).
double number(const fs::path& file, const std::string& where, const char* text) {
    if (text == nullptr) fail(file, where, "missing");
    const std::string s(text);
    const auto first = s.find_first_not_of(" \t\r\n");
    if (first == std::string::npos) fail(file, where, "empty, not a number");
    char* end = nullptr;
    errno = 0;
    const double v = std::strtod(s.c_str() + first, &end);
    if (end == s.c_str() + first || s.find_first_not_of(" \t\r\n", static_cast<std::size_t>(end - s.c_str())) != std::string::npos)
        fail(file, where, "'" + s.substr(0, 40) + "' is not a number");
    if (!std::isfinite(v) || std::abs(v) > kMaxCoordinate) fail(file, where, "'" + s.substr(0, 40) + "' is out of range");
    return v;
}

Box checked_box(const fs::path& file, const std::string& where, double x, double y, double w, double h) {
    if (!(w > 0 && h > 0))
        fail(file, where, "box of size " + std::to_string(w) + " x " + std::to_string(h) + " (width and height must be > 0)");
    return {x, y, w, h};
}

struct Counter {
    std::size_t boxes = 0;
    void add(const fs::path& file, std::size_t n) {
        boxes += n;
        if (boxes > kMaxAnnotatedBoxes) fail(file, "", "more than " + std::to_string(kMaxAnnotatedBoxes) + " boxes");
    }
};

fs::path image_path(const AnnotationOptions& o, const fs::path& default_root, const std::string& name) {
    const fs::path p(name);
    if (p.is_absolute()) return p;
    return (o.images.empty() ? default_root : o.images) / p;
}

void parse_xml(tinyxml2::XMLDocument& doc, const fs::path& file) {
    const std::string text = read_text_file(file, "annotation file");
    if (doc.Parse(text.data(), text.size()) != tinyxml2::XML_SUCCESS)
        fail(file, "", std::string("not well-formed XML: ") + (doc.ErrorStr() ? doc.ErrorStr() : "?"));
}

const char* child_text(const tinyxml2::XMLElement* e, const char* name) {
    const tinyxml2::XMLElement* c = e->FirstChildElement(name);
    return c ? c->GetText() : nullptr;
}

// ---- PASCAL VOC -----------------------------------------------------------------------------
AnnotatedFile read_voc_file(const fs::path& file, const AnnotationOptions& o, Counter& count) {
    tinyxml2::XMLDocument doc;
    parse_xml(doc, file);
    const tinyxml2::XMLElement* root = doc.RootElement();
    if (!root || std::string(root->Name()) != "annotation") fail(file, "", "not a PASCAL VOC annotation (no <annotation> root)");
    const char* filename = child_text(root, "filename");
    if (!filename || !*filename) fail(file, "<filename>", "missing");
    fs::path images_root = file.parent_path();
    if (fs::is_directory(file.parent_path().parent_path() / "JPEGImages")) images_root = file.parent_path().parent_path() / "JPEGImages";
    AnnotatedFile out;
    out.image = image_path(o, images_root, filename);
    int k = 0;
    for (const tinyxml2::XMLElement* obj = root->FirstChildElement("object"); obj; obj = obj->NextSiblingElement("object")) {
        const std::string where = "<object> " + std::to_string(++k);
        const char* name = child_text(obj, "name");
        const char* difficult = child_text(obj, "difficult");
        const bool ignore = difficult && std::string(difficult) == "1";
        if (!ignore && !o.label.empty() && (!name || o.label != name)) continue;
        const tinyxml2::XMLElement* bb = obj->FirstChildElement("bndbox");
        if (!bb) fail(file, where, "no <bndbox>");
        const double x0 = number(file, where + " <xmin>", child_text(bb, "xmin"));
        const double y0 = number(file, where + " <ymin>", child_text(bb, "ymin"));
        const double x1 = number(file, where + " <xmax>", child_text(bb, "xmax"));
        const double y1 = number(file, where + " <ymax>", child_text(bb, "ymax"));
        (ignore ? out.ignore : out.objects).push_back(checked_box(file, where, x0 - 1, y0 - 1, x1 - x0 + 1, y1 - y0 + 1));
        count.add(file, 1);
    }
    return out;
}

std::vector<AnnotatedFile> read_voc(const fs::path& path, const AnnotationOptions& o) {
    Counter count;
    if (!fs::is_directory(path)) return {read_voc_file(path, o, count)};
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(path))
        if (e.path().extension() == ".xml") files.push_back(e.path());
    if (files.empty()) fail(path, "", "no .xml annotation files in this folder");
    std::sort(files.begin(), files.end());
    std::vector<AnnotatedFile> out;
    for (const fs::path& f : files) out.push_back(read_voc_file(f, o, count));
    return out;
}

// ---- dlib imglab ----------------------------------------------------------------------------
std::vector<AnnotatedFile> read_dlib(const fs::path& file, const AnnotationOptions& o) {
    tinyxml2::XMLDocument doc;
    parse_xml(doc, file);
    const tinyxml2::XMLElement* root = doc.RootElement();
    if (!root || std::string(root->Name()) != "dataset") fail(file, "", "not a dlib imglab file (no <dataset> root)");
    const tinyxml2::XMLElement* images = root->FirstChildElement("images");
    if (!images) fail(file, "", "no <images> element");
    Counter count;
    std::vector<AnnotatedFile> out;
    int i = 0;
    for (const tinyxml2::XMLElement* img = images->FirstChildElement("image"); img; img = img->NextSiblingElement("image")) {
        const std::string where = "<image> " + std::to_string(++i);
        const char* name = img->Attribute("file");
        if (!name || !*name) fail(file, where, "no file attribute");
        AnnotatedFile a;
        a.image = image_path(o, file.parent_path(), name);
        int k = 0;
        for (const tinyxml2::XMLElement* b = img->FirstChildElement("box"); b; b = b->NextSiblingElement("box")) {
            const std::string bw = where + " <box> " + std::to_string(++k);
            const char* ig = b->Attribute("ignore");
            const bool ignore = ig && std::string(ig) == "1";
            const char* label = child_text(b, "label");
            if (!ignore && !o.label.empty() && (!label || o.label != label)) continue;
            const double top = number(file, bw + " top", b->Attribute("top"));
            const double left = number(file, bw + " left", b->Attribute("left"));
            const double width = number(file, bw + " width", b->Attribute("width"));
            const double height = number(file, bw + " height", b->Attribute("height"));
            (ignore ? a.ignore : a.objects).push_back(checked_box(file, bw, left, top, width, height));
            count.add(file, 1);
        }
        out.push_back(std::move(a));
    }
    return out;
}

// ---- COCO -----------------------------------------------------------------------------------
std::vector<AnnotatedFile> read_coco(const fs::path& file, const AnnotationOptions& o) {
    using nlohmann::json;
    json doc;
    try {
        doc = json::parse(read_text_file(file, "annotation file"));
    } catch (const json::exception& e) {
        fail(file, "", std::string("not valid JSON: ") + e.what());
    }
    if (!doc.is_object() || !doc.contains("images") || !doc["images"].is_array())
        fail(file, "", "not a COCO annotation file (no \"images\" array)");
    auto id_of = [&](const json& v, const std::string& where) -> std::int64_t {
        if (!v.is_number_integer()) fail(file, where, "id is not an integer");
        return v.get<std::int64_t>();
    };
    std::vector<AnnotatedFile> out;
    std::map<std::int64_t, std::size_t> by_id;
    for (std::size_t i = 0; i < doc["images"].size(); ++i) {
        const json& img = doc["images"][i];
        const std::string where = "images[" + std::to_string(i) + "]";
        if (!img.is_object() || !img.contains("id") || !img.contains("file_name") || !img["file_name"].is_string())
            fail(file, where, "needs \"id\" and \"file_name\"");
        if (!by_id.emplace(id_of(img["id"], where), out.size()).second) fail(file, where, "duplicate image id");
        out.push_back({image_path(o, file.parent_path(), img["file_name"].get<std::string>()), {}, {}});
    }
    std::map<std::int64_t, std::string> category;
    if (doc.contains("categories") && doc["categories"].is_array())
        for (std::size_t i = 0; i < doc["categories"].size(); ++i) {
            const json& c = doc["categories"][i];
            const std::string where = "categories[" + std::to_string(i) + "]";
            if (!c.is_object() || !c.contains("id") || !c.contains("name") || !c["name"].is_string())
                fail(file, where, "needs \"id\" and \"name\"");
            category[id_of(c["id"], where)] = c["name"].get<std::string>();
        }
    if (!o.label.empty() && std::none_of(category.begin(), category.end(), [&](const auto& c) { return c.second == o.label; }))
        fail(file, "categories", "no category named '" + o.label + "'");
    Counter count;
    if (doc.contains("annotations")) {
        if (!doc["annotations"].is_array()) fail(file, "annotations", "not an array");
        for (std::size_t i = 0; i < doc["annotations"].size(); ++i) {
            const json& a = doc["annotations"][i];
            const std::string where = "annotations[" + std::to_string(i) + "]";
            if (!a.is_object() || !a.contains("image_id") || !a.contains("bbox")) fail(file, where, "needs \"image_id\" and \"bbox\"");
            const auto img = by_id.find(id_of(a["image_id"], where + ".image_id"));
            if (img == by_id.end()) fail(file, where, "image_id names no image");
            const json& bb = a["bbox"];
            if (!bb.is_array() || bb.size() != 4) fail(file, where + ".bbox", "needs 4 numbers [x, y, w, h]");
            double v[4];
            for (std::size_t k = 0; k < 4; ++k) {
                if (!bb[k].is_number()) fail(file, where + ".bbox", "needs 4 numbers [x, y, w, h]");
                v[k] = bb[k].get<double>();
                if (!std::isfinite(v[k]) || std::abs(v[k]) > kMaxCoordinate) fail(file, where + ".bbox", "value out of range");
            }
            const bool crowd = a.contains("iscrowd") && a["iscrowd"].is_number() && a["iscrowd"].get<double>() != 0;
            if (!crowd && !o.label.empty()) {
                const bool has = a.contains("category_id") && a["category_id"].is_number_integer();
                const auto c = has ? category.find(a["category_id"].get<std::int64_t>()) : category.end();
                if (c == category.end() || c->second != o.label) continue;
            }
            AnnotatedFile& f = out[img->second];
            (crowd ? f.ignore : f.objects).push_back(checked_box(file, where, v[0], v[1], v[2], v[3]));
            count.add(file, 1);
        }
    }
    return out;
}

// ---- OpenCV opencv_annotation ---------------------------------------------------------------
std::vector<AnnotatedFile> read_opencv(const fs::path& file, const AnnotationOptions& o) {
    std::istringstream in(read_text_file(file, "annotation file"));
    std::vector<AnnotatedFile> out;
    Counter count;
    std::string line;
    int number_of_line = 0;
    while (std::getline(in, line)) {
        ++number_of_line;
        const std::string where = "line " + std::to_string(number_of_line);
        if (line.find_first_not_of(" \t\r") == std::string::npos || line[line.find_first_not_of(" \t\r")] == '#') continue;
        std::istringstream fields(line);
        std::string name, n_text;
        fields >> name >> n_text;
        if (n_text.empty()) fail(file, where, "needs 'PATH n x y w h …'");
        const double n = number(file, where + " (box count)", n_text.c_str());
        if (n < 0 || n != std::floor(n) || n > 1e6) fail(file, where, "box count '" + n_text + "' is not a count");
        AnnotatedFile a;
        a.image = image_path(o, file.parent_path(), name);
        for (int k = 0; k < static_cast<int>(n); ++k) {
            std::string t[4];
            for (auto& s : t) fields >> s;
            if (t[3].empty()) fail(file, where, "box " + std::to_string(k + 1) + " needs x y w h");
            const std::string bw = where + " box " + std::to_string(k + 1);
            a.objects.push_back(checked_box(file, bw, number(file, bw, t[0].c_str()), number(file, bw, t[1].c_str()),
                                            number(file, bw, t[2].c_str()), number(file, bw, t[3].c_str())));
            count.add(file, 1);
        }
        std::string extra;
        if (fields >> extra) fail(file, where, "more values than its box count says");
        out.push_back(std::move(a));
    }
    return out;
}
}  // namespace

AnnotationFormat guess_annotation_format(const fs::path& path) {
    std::error_code ec;
    if (!fs::exists(path, ec)) throw AnnotationError(path.string() + ": no such file or folder");
    if (fs::is_directory(path, ec)) return AnnotationFormat::Voc;
    const std::string ext = path.extension().string();
    if (ext == ".json") return AnnotationFormat::Coco;
    if (ext == ".xml") {
        tinyxml2::XMLDocument doc;
        parse_xml(doc, path);
        const tinyxml2::XMLElement* root = doc.RootElement();
        return root && std::string(root->Name()) == "dataset" ? AnnotationFormat::Dlib : AnnotationFormat::Voc;
    }
    return AnnotationFormat::OpenCv;
}

AnnotationFormat annotation_format(const std::string& name, const fs::path& path) {
    if (name == "auto") return guess_annotation_format(path);
    AnnotationFormat f{};
    if (!kAnnotationFormatNames.parse(name, f))
        throw AnnotationError("unknown annotation format '" + name + "' (auto, " + kAnnotationFormatNames.choices() + ")");
    return f;
}

std::vector<AnnotatedFile> read_annotations(const fs::path& path, AnnotationFormat format, const AnnotationOptions& options) {
    try {
        switch (format) {
            case AnnotationFormat::Voc: return read_voc(path, options);
            case AnnotationFormat::Coco: return read_coco(path, options);
            case AnnotationFormat::Dlib: return read_dlib(path, options);
            case AnnotationFormat::OpenCv: return read_opencv(path, options);
        }
    } catch (const FileError& e) {
        throw AnnotationError(e.what());
    } catch (const fs::filesystem_error& e) {
        throw AnnotationError(path.string() + ": " + e.what());
    }
    throw AnnotationError(path.string() + ": unknown annotation format");
}

}  // namespace cascadekit
