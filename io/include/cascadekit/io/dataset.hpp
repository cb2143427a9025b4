#pragma once
// Training and evaluation data: INRIA Person's layout or list files, and the held-out split.
// Only paths are handled here; decoding images is the caller's (tools/ uses OpenCV), so this
// library stays free of image codecs.
#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "cascadekit/features/geometry.hpp"
#include "cascadekit/features/image.hpp"
#include "cascadekit/io/annotations.hpp"
#include "cascadekit/model/cascade.hpp"

namespace cascadekit {

// Decodes an image file to 8-bit RGB (or gray for gray files: users reduce it with keep_channels
// to what a model reads); throws (any std::exception) naming the file on failure. Called from
// several threads at once. (Codecs live in the caller: tools/ uses OpenCV.)
using ImageLoader = std::function<Image(const std::filesystem::path&)>;

class DatasetError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// A positive crop; the detection window is centred in it (INRIA's 96×160 crops hold the 64×128
// window with a 16-pixel margin on every side).
struct PositiveCrop {
    std::filesystem::path path;
    std::string source;  // the photo it was cut from: crops of one source are never split
    bool flip = false;   // mirror horizontally when loading
    // Cut from an annotated image: the region of `path` (image pixels, may reach past its edges:
    // replicated) resampled to width × height, the window with its margin. Empty (w = 0): the
    // file is the crop.
    Box region{};
    int width = 0, height = 0;
};

struct Dataset {
    std::vector<PositiveCrop> positives;
    std::vector<std::filesystem::path> negatives;  // images to draw negative windows from, sorted by name
    // Boxes of annotated negative images (objects and regions to ignore), in image pixels, that
    // negative windows keep clear of (negative_window_allowed); images without an entry are free of objects.
    std::map<std::filesystem::path, std::vector<Box>> keep_clear;
    std::string description;
};

// How positives are cut from annotated images (the rules `cascade crop` and `cascade train`
// share): each object's box sits in the window at `object` (fractions of the window), the
// window keeps its aspect, the box's height sets its scale and the centres coincide; `margin`
// window pixels are added on every side (INRIA's crops: 16 around 64×128). Boxes shorter than
// min_height image pixels (0: half the object's height in the window) or whose width/height
// differs from the object box's by more than max_aspect times are skipped and counted.
struct PositiveRules {
    WindowShape window;
    ObjectBox object = kPeopleObjectBox;
    double min_height = 0;
    double max_aspect = 2;
    int margin = 0;
};
struct AnnotatedPositives {
    std::vector<PositiveCrop> crops;  // source: the image's file name; region and size set
    std::vector<std::size_t> object_of;  // crops[i] is object object_of[i] (0-based) of its image
    std::size_t objects = 0, too_small = 0, wrong_aspect = 0;
    double min_height = 0;  // the rule's value in pixels
};
// The window's region (with the margin) for an object's box.
Box window_region(const Box& object, const PositiveRules& rules);
AnnotatedPositives annotated_positives(const std::vector<AnnotatedFile>& files, const PositiveRules& rules);

// Whether a window (image pixels) may be a negative of an image with keep-clear boxes: the
// object box it stands for (object_in_window) has IoU below max_iou with every box, and at most
// half of it lies inside any one box (large ignore regions: crowds).
bool negative_window_allowed(const Box& window, const ObjectBox& object, const std::vector<Box>& keep_clear, double max_iou);

// Annotated images: positives cut by `rules` from every object; every image is also a negative
// image whose windows keep clear of its objects and ignore regions; every image of
// more_negatives (folders) is a negative image too. The description counts the skipped boxes.
// Throws DatasetError when no object gives a positive.
Dataset load_annotated(const std::vector<AnnotatedFile>& files, const PositiveRules& rules, const std::string& name,
                       const std::vector<std::filesystem::path>& more_negatives = {});

// INRIA Person: ROOT/96X160H96/Train/pos/*.png|jpg (crops; source = the name without its last
// letter: crop001001a and crop001001b are one photo and its mirror image) and
// ROOT/Train/neg/*.png|jpg. Throws DatasetError naming the folder when a part is missing or empty.
Dataset load_inria(const std::filesystem::path& root);

// List files: one path a line, '#' comments, relative paths from the list's folder. Each positive
// is its own source. Throws DatasetError naming the file.
Dataset load_lists(const std::filesystem::path& positives_list, const std::filesystem::path& negatives_list);

// The paths a list file names: one a line, blank lines and '#' comments skipped, surrounding
// spaces trimmed, relative paths taken from the list's folder. Throws DatasetError naming the
// file when it cannot be read or names nothing.
std::vector<std::filesystem::path> read_path_list(const std::filesystem::path& list);

// Folders: every image of positives_dir is a crop (its own source), every image of each
// negatives folder a negative image; sorted by name within each folder. Throws DatasetError
// naming a folder that is missing or holds no image.
Dataset load_folders(const std::filesystem::path& positives_dir, const std::vector<std::filesystem::path>& negatives_dirs);

// Adds a mirrored copy of every positive (same source).
void add_flipped_positives(Dataset& data);

// A held-out split: whole source photos of the positives and whole negative images, by file name.
struct HeldOutSplit {
    std::set<std::string> positive_sources;
    std::set<std::string> negative_names;  // file names (no folder)
    bool holds(const PositiveCrop& p) const { return positive_sources.count(p.source) > 0; }
    bool holds(const std::filesystem::path& negative) const { return negative_names.count(negative.filename().string()) > 0; }
};

// Every k-th source photo (sorted by name, 1-based: the k-th, 2k-th, …) and every k-th negative
// image (sorted by name). k >= 2. An image that is both a source (annotated images: by file
// name) and a negative image is held out in both roles when either picks it.
HeldOutSplit make_every_kth_split(const Dataset& data, int k);

// Text file: '#' comments, then lines "positive_source NAME" and "negative NAME".
void write_split(const HeldOutSplit& split, const std::filesystem::path& file);  // atomic
HeldOutSplit read_split(const std::filesystem::path& file);

// The data without (training) or with only (evaluation) the held-out part.
Dataset without(const Dataset& data, const HeldOutSplit& split);
Dataset only(const Dataset& data, const HeldOutSplit& split);

}  // namespace cascadekit
