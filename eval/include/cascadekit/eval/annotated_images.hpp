#pragma once
// Annotated image sets for full-image evaluation: images with the boxes of the objects to find
// and of regions to ignore, in image pixels (top-left, size). One reader per layout; every
// protocol takes the AnnotatedImages interface.
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "cascadekit/eval/curves.hpp"
#include "cascadekit/features/geometry.hpp"
#include "cascadekit/io/annotations.hpp"

namespace cascadekit {

struct AnnotatedImage {
    std::filesystem::path image;
    std::vector<Box> objects;  // to be found
    std::vector<Box> ignore;   // detections here count neither as hits nor as false positives
    std::vector<FacePoints> face_points;  // empty, or one per object (faces with landmarks)
};

class AnnotatedImages {
public:
    virtual ~AnnotatedImages() = default;
    virtual std::string name() const = 0;  // for reports, e.g. "PennFudanPed"
    virtual std::size_t size() const = 0;
    // Image i with its boxes (read when asked: annotation files are parsed here, checked).
    // Throws std::runtime_error naming the file when an annotation is damaged.
    virtual AnnotatedImage at(std::size_t i) const = 0;
};

// PennFudanPed: ROOT/PNGImages/*.png with ROOT/Annotation/<stem>.txt (PASCAL v1.00), sorted by
// name. Throws std::runtime_error naming the folder when it holds no images.
std::unique_ptr<AnnotatedImages> pennfudan_images(const std::filesystem::path& root);

// INRIA Person's full-image layout: ROOT/PART/pos/* with ROOT/PART/annotations/<stem>.txt
// (PASCAL v1.00) and ROOT/PART/neg/* (person-free: no boxes), positives first, each sorted by
// name; either folder may be missing (the training part here ships only neg/). Throws when
// neither holds an image.
std::unique_ptr<AnnotatedImages> inria_images(const std::filesystem::path& root, const std::string& part);

// Images of a folder with their boxes from a text file of lines "NAME x y w h" (one object a
// line; '#' comments; images without a line have no object), as the CMU+MIT frontal face set's
// facegroundtruth.txt. Every image of the folder is in the set, sorted by name. With `points`
// (a file of lines "NAME x1 y1 … x6 y6": left eye, right eye, nose, left mouth corner, mouth
// centre, right mouth corner, as CMU+MIT's groundtruth.txt), each object also gets its face
// points, the k-th line of an image for its k-th box. Throws std::runtime_error naming the file
// and line of a malformed entry or an unknown image, or the image whose box and point counts differ.
std::unique_ptr<AnnotatedImages> box_file_images(const std::filesystem::path& folder, const std::filesystem::path& boxes,
                                                 std::string name, const std::filesystem::path& points = {});

// CMU+MIT frontal faces as shipped in $CASCADEKIT_DATA/Faces/cmu-mit: test/ and test-low/, each
// with its facegroundtruth.txt and groundtruth.txt (face points).
std::unique_ptr<AnnotatedImages> cmu_mit_faces(const std::filesystem::path& root);

// The images and boxes of a labelling tool's annotation file or folder (PASCAL VOC, COCO, dlib
// imglab, OpenCV: io/annotations.hpp), read at once (AnnotationError on damage).
std::unique_ptr<AnnotatedImages> annotation_file_images(const std::filesystem::path& path, AnnotationFormat format,
                                                        const AnnotationOptions& options, std::string name);

// An explicit list (e.g. held-out negative images: no boxes).
std::unique_ptr<AnnotatedImages> annotated_list(std::string name, std::vector<AnnotatedImage> images);
// The same from a labelling tool's files as io/annotations.hpp reads them (no face points).
std::unique_ptr<AnnotatedImages> annotated_list(std::string name, std::vector<AnnotatedFile> files);

// Parses a PASCAL v1.00 annotation file's "Bounding box for object N ... (Xmin, Ymin) -
// (Xmax, Ymax)" lines into boxes (pixel corners; w = Xmax − Xmin + 1). Throws std::runtime_error.
std::vector<Box> read_pascal_annotation(const std::string& file);

}  // namespace cascadekit
