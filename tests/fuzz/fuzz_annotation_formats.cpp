// libFuzzer: the labelling tools' annotation readers of io/annotations.hpp (PASCAL VOC XML, COCO
// JSON, dlib imglab XML, OpenCV text). Input: a format byte (its value mod 4 picks voc, coco,
// dlib, opencv; mod 8 ≥ 4 also asks for the class "person"), then the file. Every set a reader
// accepts must hold only boxes of positive, finite size within the documented ±1e7 pixels.
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

#include "cascadekit/io/annotations.hpp"

namespace {
namespace fs = std::filesystem;
const fs::path& dir() {
    static const fs::path d = [] {
        const fs::path p = fs::temp_directory_path() / ("cascadekit-fuzz-annotation-formats-" + std::to_string(::getpid()));
        fs::create_directories(p);
        return p;
    }();
    return d;
}
bool sane(const cascadekit::Box& b) {
    for (double v : {b.x, b.y, b.w, b.h})
        if (!std::isfinite(v) || std::abs(v) > 2e7) return false;
    return b.w > 0 && b.h > 0;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    constexpr cascadekit::AnnotationFormat kFormats[] = {cascadekit::AnnotationFormat::Voc, cascadekit::AnnotationFormat::Coco,
                                                         cascadekit::AnnotationFormat::Dlib, cascadekit::AnnotationFormat::OpenCv};
    const auto format = kFormats[data[0] % 4];
    cascadekit::AnnotationOptions options;
    if (data[0] % 8 >= 4) options.label = "person";
    const fs::path file = dir() / "annotations";
    std::ofstream(file, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(data + 1),
                                                                  static_cast<std::streamsize>(size - 1));
    try {
        for (const cascadekit::AnnotatedFile& a : cascadekit::read_annotations(file, format, options)) {
            for (const cascadekit::Box& b : a.objects)
                if (!sane(b)) __builtin_trap();
            for (const cascadekit::Box& b : a.ignore)
                if (!sane(b)) __builtin_trap();
        }
    } catch (const cascadekit::AnnotationError&) {
    }
    return 0;
}
