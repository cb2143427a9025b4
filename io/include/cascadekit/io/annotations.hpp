#pragma once
// Object annotations in the formats labelling tools write: PASCAL VOC XML, COCO JSON, dlib's
// imglab XML and OpenCV's opencv_annotation text. Every reader gives the same thing: per image,
// its path and the boxes of the objects to find and of regions to ignore, in image pixels
// (top-left x, y and size w, h; the pixel (x, y) is the square [x, x+1) × [y, y+1)).
//
// | format | file | boxes | ignore | image paths |
// | --- | --- | --- | --- | --- |
// | voc | one XML per image (`<annotation>`), or a folder of them | `<object><bndbox>` xmin…ymax, 1-based inclusive pixel indices: x = xmin − 1, w = xmax − xmin + 1 | `<difficult>1` | `<filename>` in `images`, else `../JPEGImages/` beside the XML's folder when it exists, else the XML's folder |
// | coco | one JSON (`images`, `annotations`, `categories`) | `bbox` [x, y, w, h] | `iscrowd` 1 | `file_name` in `images`, else the JSON's folder |
// | dlib | imglab XML (`<dataset><images><image file=…><box top left width height>`) | `<box>` | `ignore='1'` | `file` in `images`, else the XML's folder |
// | opencv | text, a line per image: `PATH n x y w h …` | the n boxes | none | PATH in `images`, else the text file's folder |
//
// A class name (`label`) keeps the objects of that class (VOC `<name>`, COCO category name,
// dlib `<label>`); other objects are left out, and regions to ignore are kept whatever their
// class. Images with no box stay in the set (every window of them is a negative).
//
// Bad input gives AnnotationError naming the file and the place (element, line or index) and
// what is wrong: malformed XML or JSON, a missing or non-numeric coordinate, a box of zero or
// negative size or beyond ±1e7 pixels, an annotation naming an unknown image, more than
// kMaxAnnotatedBoxes boxes in a set. Files are read with read_text_file's size bound.
#include <cstddef>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "cascadekit/features/enum_names.hpp"
#include "cascadekit/features/geometry.hpp"

namespace cascadekit {

enum class AnnotationFormat { Voc, Coco, Dlib, OpenCv };
inline constexpr EnumNames<AnnotationFormat, 4> kAnnotationFormatNames{{{{AnnotationFormat::Voc, "voc"},
                                                                         {AnnotationFormat::Coco, "coco"},
                                                                         {AnnotationFormat::Dlib, "dlib"},
                                                                         {AnnotationFormat::OpenCv, "opencv"}}}};

inline constexpr std::size_t kMaxAnnotatedBoxes = 10'000'000;

class AnnotationError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct AnnotatedFile {
    std::filesystem::path image;
    std::vector<Box> objects;  // to be found
    std::vector<Box> ignore;   // neither hits nor false positives
    friend bool operator==(const AnnotatedFile&, const AnnotatedFile&) = default;
};

struct AnnotationOptions {
    std::string label;              // keep only objects of this class ("": every object)
    std::filesystem::path images;   // folder the image names are relative to ("": the format's default)
};

// The format of `path`: a folder or an XML file whose root is <annotation> → voc, an XML file
// whose root is <dataset> → dlib, .json → coco, anything else → opencv. Throws AnnotationError
// when the path does not exist.
AnnotationFormat guess_annotation_format(const std::filesystem::path& path);

// A format by its name (kAnnotationFormatNames), or "auto": guess_annotation_format(path).
// Throws AnnotationError for another name.
AnnotationFormat annotation_format(const std::string& name, const std::filesystem::path& path);

// The annotated images of `path` in the file's order (a VOC folder: by file name).
std::vector<AnnotatedFile> read_annotations(const std::filesystem::path& path, AnnotationFormat format,
                                            const AnnotationOptions& options = {});

}  // namespace cascadekit
