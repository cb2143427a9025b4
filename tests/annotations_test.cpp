// io/annotations.hpp: the PASCAL VOC, COCO, dlib imglab and OpenCV annotation readers.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "cascadekit/io/annotations.hpp"
#include "test_support.hpp"

using namespace cascadekit;
namespace fs = std::filesystem;

namespace {
fs::path fresh_dir(const std::string& name) {
    const fs::path d = fs::temp_directory_path() / ("cascadekit-annotations-" + name);
    fs::remove_all(d);
    fs::create_directories(d);
    return d;
}
void write(const fs::path& p, const std::string& text) {
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
}
// The error's message, or "" when the call did not throw AnnotationError.
template <class F>
std::string error_of(F&& f) {
    try {
        f();
    } catch (const AnnotationError& e) {
        return e.what();
    }
    return "";
}

// Two images: a.jpg with a person at (10, 20) 30×60, a difficult/crowd/ignored person at
// (100, 50) 20×40 and a car at (200, 10) 50×30; b.jpg with nothing.
const Box kPerson{10, 20, 30, 60}, kIgnored{100, 50, 20, 40}, kCar{200, 10, 50, 30};

std::string voc_xml(const std::string& filename, bool with_objects) {
    std::string s = "<annotation><folder>x</folder><filename>" + filename + "</filename><size><width>320</width></size>";
    if (with_objects)
        s += "<object><name>person</name><difficult>0</difficult><bndbox><xmin>11</xmin><ymin>21</ymin><xmax>40</xmax>"
             "<ymax>80</ymax></bndbox></object>"
             "<object><name>person</name><difficult>1</difficult><bndbox><xmin>101</xmin><ymin>51</ymin><xmax>120</xmax>"
             "<ymax>90</ymax></bndbox></object>"
             "<object><name>car</name><bndbox><xmin>201</xmin><ymin>11</ymin><xmax>250</xmax><ymax>40</ymax></bndbox></object>";
    return s + "</annotation>";
}
}  // namespace

TEST(Annotations, EveryFormatGivesTheSameBoxes) {
    const fs::path d = fresh_dir("same");
    // VOC: Annotations/ beside JPEGImages/.
    write(d / "voc/Annotations/a.xml", voc_xml("a.jpg", true));
    write(d / "voc/Annotations/b.xml", voc_xml("b.jpg", false));
    fs::create_directories(d / "voc/JPEGImages");
    write(d / "coco.json", R"({"images": [{"id": 7, "file_name": "a.jpg", "width": 320, "height": 240},
                                           {"id": 9, "file_name": "b.jpg"}],
        "annotations": [{"image_id": 7, "bbox": [10, 20, 30, 60], "category_id": 1, "iscrowd": 0},
                        {"image_id": 7, "bbox": [100, 50, 20, 40], "category_id": 1, "iscrowd": 1},
                        {"image_id": 7, "bbox": [200, 10, 50, 30], "category_id": 3}],
        "categories": [{"id": 1, "name": "person"}, {"id": 3, "name": "car"}]})");
    write(d / "dlib.xml", R"(<?xml version='1.0'?><dataset><name>x</name><images>
        <image file='a.jpg'><box top='20' left='10' width='30' height='60'><label>person</label></box>
          <box top='50' left='100' width='20' height='40' ignore='1'/>
          <box top='10' left='200' width='50' height='30'><label>car</label></box></image>
        <image file='b.jpg'/></images></dataset>)");
    write(d / "opencv.txt", "# opencv_annotation\na.jpg 2 10 20 30 60 200 10 50 30\nb.jpg 0\n");

    struct Case {
        fs::path path;
        AnnotationFormat format;
        fs::path images;  // where a.jpg is
        bool has_ignore, has_labels;
    };
    for (const Case& c : {Case{d / "voc/Annotations", AnnotationFormat::Voc, d / "voc/JPEGImages", true, true},
                          Case{d / "coco.json", AnnotationFormat::Coco, d, true, true},
                          Case{d / "dlib.xml", AnnotationFormat::Dlib, d, true, true},
                          Case{d / "opencv.txt", AnnotationFormat::OpenCv, d, false, false}}) {
        SCOPED_TRACE(c.path.string());
        EXPECT_EQ(guess_annotation_format(c.path), c.format);
        const auto all = read_annotations(c.path, c.format);
        ASSERT_EQ(all.size(), 2u);
        EXPECT_EQ(all[0].image, c.images / "a.jpg");
        EXPECT_EQ(all[1].image, c.images / "b.jpg");
        EXPECT_TRUE(all[1].objects.empty() && all[1].ignore.empty());
        EXPECT_EQ(all[0].objects, (std::vector<Box>{kPerson, kCar}));
        EXPECT_EQ(all[0].ignore, c.has_ignore ? std::vector<Box>{kIgnored} : std::vector<Box>{});
        if (c.has_labels) {  // a class: its objects only; regions to ignore stay
            AnnotationOptions people;
            people.label = "person";
            const auto p = read_annotations(c.path, c.format, people);
            EXPECT_EQ(p[0].objects, std::vector<Box>{kPerson});
            EXPECT_EQ(p[0].ignore, std::vector<Box>{kIgnored});
        }
        AnnotationOptions elsewhere;
        elsewhere.images = "/data/photos";
        EXPECT_EQ(read_annotations(c.path, c.format, elsewhere)[0].image, fs::path("/data/photos/a.jpg"));
    }
    // One VOC file alone; without JPEGImages beside its folder, images are beside the XML.
    write(d / "single/a.xml", voc_xml("a.jpg", true));
    const auto one = read_annotations(d / "single/a.xml", AnnotationFormat::Voc);
    ASSERT_EQ(one.size(), 1u);
    EXPECT_EQ(one[0].image, d / "single/a.jpg");
}

TEST(Annotations, DamagedFilesNameTheFileThePlaceAndTheProblem) {
    const fs::path d = fresh_dir("damaged");
    struct Case {
        std::string name, text;
        AnnotationFormat format;
        std::string says;
    };
    const std::vector<Case> cases = {
        {"cut.xml", "<annotation><filename>a.jpg</filename><object>", AnnotationFormat::Voc, "not well-formed XML"},
        {"root.xml", "<dataset/>", AnnotationFormat::Voc, "no <annotation> root"},
        {"nofile.xml", "<annotation><object/></annotation>", AnnotationFormat::Voc, "<filename>: missing"},
        {"nobox.xml", "<annotation><filename>a</filename><object><name>p</name></object></annotation>", AnnotationFormat::Voc,
         "<object> 1: no <bndbox>"},
        {"nan.xml",
         "<annotation><filename>a</filename><object><bndbox><xmin>1</xmin><ymin>x2</ymin><xmax>3</xmax><ymax>4</ymax></bndbox>"
         "</object></annotation>",
         AnnotationFormat::Voc, "<object> 1 <ymin>: 'x2' is not a number"},
        {"flat.xml",
         "<annotation><filename>a</filename><object><bndbox><xmin>5</xmin><ymin>1</ymin><xmax>3</xmax><ymax>4</ymax></bndbox>"
         "</object></annotation>",
         AnnotationFormat::Voc, "width and height must be > 0"},
        {"huge.xml",
         "<annotation><filename>a</filename><object><bndbox><xmin>1</xmin><ymin>1</ymin><xmax>1e300</xmax><ymax>4</ymax>"
         "</bndbox></object></annotation>",
         AnnotationFormat::Voc, "out of range"},
        {"bad.json", "{\"images\": [", AnnotationFormat::Coco, "not valid JSON"},
        {"noimages.json", "{}", AnnotationFormat::Coco, "no \"images\" array"},
        {"dup.json", R"({"images": [{"id": 1, "file_name": "a"}, {"id": 1, "file_name": "b"}]})", AnnotationFormat::Coco,
         "images[1]: duplicate image id"},
        {"orphan.json", R"({"images": [{"id": 1, "file_name": "a"}], "annotations": [{"image_id": 2, "bbox": [1, 2, 3, 4]}]})",
         AnnotationFormat::Coco, "annotations[0]: image_id names no image"},
        {"bbox.json", R"({"images": [{"id": 1, "file_name": "a"}], "annotations": [{"image_id": 1, "bbox": [1, 2, 3]}]})",
         AnnotationFormat::Coco, "annotations[0].bbox: needs 4 numbers"},
        {"zero.json", R"({"images": [{"id": 1, "file_name": "a"}], "annotations": [{"image_id": 1, "bbox": [1, 2, 0, 4]}]})",
         AnnotationFormat::Coco, "width and height must be > 0"},
        {"noset.xml", "<dataset><name/></dataset>", AnnotationFormat::Dlib, "no <images> element"},
        {"nofile2.xml", "<dataset><images><image/></images></dataset>", AnnotationFormat::Dlib, "<image> 1: no file attribute"},
        {"notop.xml", "<dataset><images><image file='a'><box left='1' width='2' height='3'/></image></images></dataset>",
         AnnotationFormat::Dlib, "<image> 1 <box> 1 top: missing"},
        {"count.txt", "a.jpg 2 1 2 3 4\n", AnnotationFormat::OpenCv, "line 1: box 2 needs x y w h"},
        {"extra.txt", "a.jpg 1 1 2 3 4 5\n", AnnotationFormat::OpenCv, "line 1: more values than its box count says"},
        {"word.txt", "\n\na.jpg one\n", AnnotationFormat::OpenCv, "line 3 (box count): 'one' is not a number"},
        {"frac.txt", "a.jpg 1.5 1 2 3 4\n", AnnotationFormat::OpenCv, "is not a count"},
    };
    for (const Case& c : cases) {
        write(d / c.name, c.text);
        const std::string e = error_of([&] { read_annotations(d / c.name, c.format); });
        EXPECT_NE(e.find((d / c.name).string()), std::string::npos) << c.name << ": " << e;
        EXPECT_NE(e.find(c.says), std::string::npos) << c.name << ": " << e;
    }
    AnnotationOptions cat;
    cat.label = "cat";
    write(d / "people.json", R"({"images": [], "categories": [{"id": 1, "name": "person"}]})");
    EXPECT_NE(error_of([&] { read_annotations(d / "people.json", AnnotationFormat::Coco, cat); }).find("no category named 'cat'"),
              std::string::npos);
    EXPECT_NE(error_of([&] { read_annotations(d / "missing.json", AnnotationFormat::Coco); }).find("missing.json"), std::string::npos);
    fs::create_directories(d / "empty");
    EXPECT_NE(error_of([&] { read_annotations(d / "empty", AnnotationFormat::Voc); }).find("no .xml annotation files"),
              std::string::npos);
    // A folder whose first file is damaged names that file.
    EXPECT_NE(error_of([&] { read_annotations(d, AnnotationFormat::Voc); }).find("cut.xml: not well-formed"), std::string::npos);
    EXPECT_NE(error_of([&] { guess_annotation_format(d / "nothing"); }).find("no such file or folder"), std::string::npos);
}
