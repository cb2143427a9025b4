#pragma once
// Training and evaluation data: INRIA Person's layout or list files, and the held-out split.
// Only paths are handled here; decoding images is the caller's (tools/ uses OpenCV), so this
// library stays free of image codecs.
#include <filesystem>
#include <functional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "cascadekit/features/image.hpp"

namespace cascadekit {

// Decodes an image file to 8-bit gray; throws (any std::exception) naming the file on failure.
// Called from several threads at once. (Codecs live in the caller: tools/ uses OpenCV.)
using ImageLoader = std::function<GrayImage(const std::filesystem::path&)>;

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
};

struct Dataset {
    std::vector<PositiveCrop> positives;
    std::vector<std::filesystem::path> negatives;  // full person-free images, sorted by name
    std::string description;
};

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
// image (sorted by name). k >= 2.
HeldOutSplit make_every_kth_split(const Dataset& data, int k);

// Text file: '#' comments, then lines "positive_source NAME" and "negative NAME".
void write_split(const HeldOutSplit& split, const std::filesystem::path& file);  // atomic
HeldOutSplit read_split(const std::filesystem::path& file);

// The data without (training) or with only (evaluation) the held-out part.
Dataset without(const Dataset& data, const HeldOutSplit& split);
Dataset only(const Dataset& data, const HeldOutSplit& split);

}  // namespace cascadekit
