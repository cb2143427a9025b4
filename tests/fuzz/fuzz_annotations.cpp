// libFuzzer: the annotation readers of eval/ (PASCAL v1.00 files; "NAME x y w h" box files with
// their "NAME x1 y1 … x6 y6" face-point files, as CMU+MIT's). Input: the box file, a NUL byte,
// the points file (without a NUL: a PASCAL annotation). A set it accepts must hold only boxes
// with positive sizes and finite values, and exactly one set of points per box; the face-points
// rule must take any of them.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

#include "cascadekit/eval/annotated_images.hpp"
#include "cascadekit/eval/curves.hpp"

namespace {
namespace fs = std::filesystem;
const fs::path& dir() {
    static const fs::path d = [] {
        const fs::path p = fs::temp_directory_path() / ("cascadekit-fuzz-annotations-" + std::to_string(::getpid()));
        fs::create_directories(p);
        for (const char* n : {"a.png", "b.png"}) std::ofstream(p / n) << "x";
        return p;
    }();
    return d;
}
void write(const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }
bool finite_box(const cascadekit::Box& b) {
    return std::isfinite(b.x) && std::isfinite(b.y) && std::isfinite(b.w) && std::isfinite(b.h);
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string in(reinterpret_cast<const char*>(data), size);
    const auto nul = in.find('\0');
    try {
        if (nul == std::string::npos) {
            write(dir() / "pascal.txt", in);
            for (const cascadekit::Box& b : cascadekit::read_pascal_annotation((dir() / "pascal.txt").string()))
                if (!(b.w > 0 && b.h > 0) || !finite_box(b)) __builtin_trap();
            return 0;
        }
        write(dir() / "boxes.txt", in.substr(0, nul));
        write(dir() / "points.txt", in.substr(nul + 1));
        const auto set = cascadekit::box_file_images(dir(), dir() / "boxes.txt", "fuzz", dir() / "points.txt");
        for (std::size_t i = 0; i < set->size(); ++i) {
            const cascadekit::AnnotatedImage a = set->at(i);
            if (a.face_points.size() != a.objects.size()) __builtin_trap();
            cascadekit::ImageTruth t;
            t.people = a.objects;
            t.face_points = a.face_points;
            for (std::size_t k = 0; k < a.objects.size(); ++k) {
                if (!(a.objects[k].w > 0 && a.objects[k].h > 0) || !finite_box(a.objects[k])) __builtin_trap();
                const double q = cascadekit::face_points_match()(t, k, a.objects[k]);
                if (std::isnan(q)) __builtin_trap();
            }
        }
    } catch (const std::runtime_error&) {
    }
    return 0;
}
