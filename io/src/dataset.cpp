#include "cascadekit/io/dataset.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "cascadekit/io/files.hpp"

namespace cascadekit {

namespace fs = std::filesystem;

namespace {
bool is_image(const fs::path& p) {
    std::string e = p.extension().string();
    std::transform(e.begin(), e.end(), e.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return e == ".png" || e == ".jpg" || e == ".jpeg" || e == ".pgm" || e == ".ppm" || e == ".bmp";
}

std::vector<fs::path> images_in(const fs::path& dir) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) throw DatasetError(dir.string() + ": no such folder");
    std::vector<fs::path> out;
    for (const auto& e : fs::directory_iterator(dir, ec))
        if (e.is_regular_file(ec) && is_image(e.path())) out.push_back(e.path());
    if (ec) throw DatasetError(dir.string() + ": cannot list folder: " + ec.message());
    if (out.empty()) throw DatasetError(dir.string() + ": folder holds no images (.png, .jpg, ...)");
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace

namespace {
std::string read_text(const fs::path& file, const std::string& what) {
    try {
        return read_text_file(file, what);
    } catch (const FileError& e) {
        throw DatasetError(e.what());
    }
}
}  // namespace

std::vector<fs::path> read_path_list(const fs::path& list) {
    std::istringstream in(read_text(list, "list file"));
    std::vector<fs::path> out;
    std::string line;
    while (std::getline(in, line)) {
        const auto b = line.find_first_not_of(" \t\r");
        if (b == std::string::npos || line[b] == '#') continue;
        const auto e = line.find_last_not_of(" \t\r");
        fs::path p = line.substr(b, e - b + 1);
        if (p.is_relative()) p = list.parent_path() / p;
        out.push_back(p);
    }
    if (out.empty()) throw DatasetError(list.string() + ": list file names no inputs");
    return out;
}

Dataset load_inria(const fs::path& root) {
    Dataset d;
    for (const fs::path& p : images_in(root / "96X160H96" / "Train" / "pos")) {
        std::string stem = p.stem().string();
        if (stem.size() > 1 && std::isalpha(static_cast<unsigned char>(stem.back()))) stem.pop_back();
        d.positives.push_back({p, stem, false});
    }
    d.negatives = images_in(root / "Train" / "neg");
    d.description = "INRIA Person (" + root.string() + "): " + std::to_string(d.positives.size()) + " positive crops, " +
                    std::to_string(d.negatives.size()) + " negative images";
    return d;
}

Dataset load_lists(const fs::path& positives_list, const fs::path& negatives_list) {
    Dataset d;
    for (const fs::path& p : read_path_list(positives_list)) d.positives.push_back({p, p.stem().string(), false});
    d.negatives = read_path_list(negatives_list);
    d.description = "lists " + positives_list.string() + " (" + std::to_string(d.positives.size()) + " crops), " +
                    negatives_list.string() + " (" + std::to_string(d.negatives.size()) + " images)";
    return d;
}

Dataset load_folders(const fs::path& positives_dir, const std::vector<fs::path>& negatives_dirs) {
    Dataset d;
    for (const fs::path& p : images_in(positives_dir)) d.positives.push_back({p, p.stem().string(), false});
    if (negatives_dirs.empty()) throw DatasetError("no negative image folders given");
    // Built with append: GCC 12 warns falsely (-Wrestrict) on "literal" + std::string&&.
    d.description.append("crops ").append(positives_dir.string()).append(" (").append(std::to_string(d.positives.size()))
        .append("), negative images");
    for (const fs::path& dir : negatives_dirs) {
        const auto images = images_in(dir);
        d.negatives.insert(d.negatives.end(), images.begin(), images.end());
        d.description.append(" ").append(dir.string()).append(" (").append(std::to_string(images.size())).append(")");
    }
    return d;
}

Box window_region(const Box& b, const PositiveRules& r) {
    const double s = b.h / (static_cast<double>(r.object.h) * r.window.height);  // image pixels per window pixel
    const double cx = b.x + b.w / 2, cy = b.y + b.h / 2;
    const double ox = (static_cast<double>(r.object.x) + r.object.w / 2.0) * r.window.width;
    const double oy = (static_cast<double>(r.object.y) + r.object.h / 2.0) * r.window.height;
    return {cx - (ox + r.margin) * s, cy - (oy + r.margin) * s, (r.window.width + 2.0 * r.margin) * s,
            (r.window.height + 2.0 * r.margin) * s};
}

AnnotatedPositives annotated_positives(const std::vector<AnnotatedFile>& files, const PositiveRules& r) {
    AnnotatedPositives out;
    const double object_aspect = (static_cast<double>(r.object.w) * r.window.width) / (static_cast<double>(r.object.h) * r.window.height);
    out.min_height = r.min_height > 0 ? r.min_height : static_cast<double>(r.object.h) * r.window.height / 2.0;
    for (const AnnotatedFile& f : files)
        for (std::size_t k = 0; k < f.objects.size(); ++k) {
            const Box& b = f.objects[k];
            ++out.objects;
            if (b.h < out.min_height) {
                ++out.too_small;
                continue;
            }
            const double aspect = (b.w / b.h) / object_aspect;
            if (aspect > r.max_aspect || aspect < 1 / r.max_aspect) {
                ++out.wrong_aspect;
                continue;
            }
            PositiveCrop c;
            c.path = f.image;
            c.source = f.image.filename().string();
            c.region = window_region(b, r);
            c.width = r.window.width + 2 * r.margin;
            c.height = r.window.height + 2 * r.margin;
            out.crops.push_back(c);
            out.object_of.push_back(k);
        }
    return out;
}

bool negative_window_allowed(const Box& window, const ObjectBox& object, const std::vector<Box>& keep_clear, double max_iou) {
    const Box o = object_in_window(object, window.x, window.y, window.w, window.h);
    const double area = o.w * o.h;
    for (const Box& b : keep_clear) {
        if (iou(o, b) >= max_iou) return false;
        const double iw = std::min(o.x + o.w, b.x + b.w) - std::max(o.x, b.x);
        const double ih = std::min(o.y + o.h, b.y + b.h) - std::max(o.y, b.y);
        if (iw > 0 && ih > 0 && iw * ih > 0.5 * area) return false;
    }
    return true;
}

Dataset load_annotated(const std::vector<AnnotatedFile>& files, const PositiveRules& rules, const std::string& name,
                       const std::vector<fs::path>& more_negatives) {
    AnnotatedPositives p = annotated_positives(files, rules);
    if (p.crops.empty())
        throw DatasetError(name + ": none of its " + std::to_string(p.objects) + " objects gives a positive (" +
                           std::to_string(p.too_small) + " shorter than " + std::to_string(static_cast<int>(p.min_height)) +
                           " px, " + std::to_string(p.wrong_aspect) + " of the wrong aspect)");
    Dataset d;
    d.positives = p.crops;
    for (const AnnotatedFile& f : files) {
        d.negatives.push_back(f.image);
        std::vector<Box> clear = f.objects;
        clear.insert(clear.end(), f.ignore.begin(), f.ignore.end());
        if (!clear.empty()) d.keep_clear[f.image] = std::move(clear);
    }
    std::sort(d.negatives.begin(), d.negatives.end());
    d.negatives.erase(std::unique(d.negatives.begin(), d.negatives.end()), d.negatives.end());
    d.description.append("annotated images ").append(name).append(" (").append(std::to_string(files.size()))
        .append(" images, ").append(std::to_string(p.crops.size())).append(" positives of ").append(std::to_string(p.objects))
        .append(" objects; skipped ").append(std::to_string(p.too_small)).append(" shorter than ")
        .append(std::to_string(static_cast<int>(std::lround(p.min_height)))).append(" px and ")
        .append(std::to_string(p.wrong_aspect)).append(" of the wrong aspect)");
    for (const fs::path& dir : more_negatives) {
        const auto images = images_in(dir);
        d.negatives.insert(d.negatives.end(), images.begin(), images.end());
        d.description.append(", negative images ").append(dir.string()).append(" (").append(std::to_string(images.size())).append(")");
    }
    return d;
}

void add_flipped_positives(Dataset& data) {
    const std::size_t n = data.positives.size();
    for (std::size_t i = 0; i < n; ++i) {
        PositiveCrop c = data.positives[i];
        c.flip = !c.flip;
        data.positives.push_back(c);
    }
    data.description += ", plus mirrored positives";
}

HeldOutSplit make_every_kth_split(const Dataset& data, int k) {
    if (k < 2) throw DatasetError("held-out split: every k-th needs k >= 2, got " + std::to_string(k));
    std::set<std::string> sources;
    for (const auto& p : data.positives) sources.insert(p.source);
    HeldOutSplit s;
    int i = 0;
    for (const auto& src : sources)
        if (++i % k == 0) s.positive_sources.insert(src);
    std::vector<std::string> names;
    for (const auto& n : data.negatives) names.push_back(n.filename().string());
    std::sort(names.begin(), names.end());
    for (std::size_t j = 0; j < names.size(); ++j)
        if ((j + 1) % static_cast<std::size_t>(k) == 0) s.negative_names.insert(names[j]);
    // Annotated images are sources and negative images at once: held out whole.
    const std::set<std::string> all_names(names.begin(), names.end());
    for (const std::string& src : s.positive_sources)
        if (all_names.count(src)) s.negative_names.insert(src);
    for (const std::string& n : std::vector<std::string>(s.negative_names.begin(), s.negative_names.end()))
        if (sources.count(n)) s.positive_sources.insert(n);
    return s;
}

void write_split(const HeldOutSplit& split, const fs::path& file) {
    std::ostringstream out;
    out << "# cascadekit held-out split: training never sees these; evaluation uses only them.\n"
        << "# " << split.positive_sources.size() << " positive source photos, " << split.negative_names.size()
        << " negative images\n";
    for (const auto& s : split.positive_sources) out << "positive_source " << s << "\n";
    for (const auto& n : split.negative_names) out << "negative " << n << "\n";
    const std::string text = out.str();
    try {
        write_file_atomically(file, text.data(), text.size());
    } catch (const FileError& e) {
        throw DatasetError(std::string("cannot write split file ") + e.what());
    }
}

HeldOutSplit read_split(const fs::path& file) {
    std::istringstream in(read_text(file, "split file"));
    HeldOutSplit s;
    std::string line;
    int n = 0;
    while (std::getline(in, line)) {
        ++n;
        if (line.empty() || line[0] == '#') continue;
        std::istringstream ls(line);
        std::string kind, name;
        ls >> kind >> name;
        if (kind == "positive_source" && !name.empty()) s.positive_sources.insert(name);
        else if (kind == "negative" && !name.empty()) s.negative_names.insert(name);
        else throw DatasetError(file.string() + ":" + std::to_string(n) + ": expected 'positive_source NAME' or 'negative NAME'");
    }
    return s;
}

Dataset without(const Dataset& data, const HeldOutSplit& split) {
    Dataset d;
    for (const auto& p : data.positives)
        if (!split.holds(p)) d.positives.push_back(p);
    for (const auto& n : data.negatives)
        if (!split.holds(n)) d.negatives.push_back(n);
    d.keep_clear = data.keep_clear;
    d.description = data.description + "; training part";
    return d;
}

Dataset only(const Dataset& data, const HeldOutSplit& split) {
    Dataset d;
    for (const auto& p : data.positives)
        if (split.holds(p)) d.positives.push_back(p);
    for (const auto& n : data.negatives)
        if (split.holds(n)) d.negatives.push_back(n);
    d.keep_clear = data.keep_clear;
    d.description = data.description + "; held-out part";
    return d;
}

}  // namespace cascadekit
