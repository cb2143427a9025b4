// Example: detect people in every image of a folder with cascadekit's runtime.
//
//   build/examples/detect_folder models/inria-hog-cascade.h5 FOLDER [--cpu]
//
// The runtime takes raw 8-bit buffers (cascadekit::ImageView), so any decoder works; this one
// uses OpenCV's imread, and hands the cv::Mat's pixels to the detector without copying them.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <opencv2/imgcodecs.hpp>
#include <string>
#include <vector>

#include "cascadekit/io/model_file.hpp"               // load_model: reads and verifies a model file
#include "cascadekit/runtime/object_detector.hpp"     // ObjectDetector: image in, boxes out

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: %s MODEL.h5 FOLDER [--cpu]\n", argv[0]);
        return 1;
    }
    try {
        // 1. The model: a verified file, or a clear exception naming the file and the problem.
        const cascadekit::CascadeModel model = cascadekit::load_model(argv[1]);

        // 2. A detector that runs the model as its operating point says (scan, border, fusion,
        //    threshold: chosen on held-out images by `cascade calibrate`; `cascade inspect` shows
        //    them), as `cascade detect` does. Set a field of the options to run otherwise, e.g.
        //    options.point.scale_step = 1.05 for denser levels. CUDA when this build has it and a
        //    GPU is present, else the CPU (TBB): both give the same boxes.
        cascadekit::ObjectOptions options;
        if (argc > 3 && std::string(argv[3]) == "--cpu") options.bulk.backend = cascadekit::Backend::Cpu;
        cascadekit::ObjectDetector detector(model, options);
        std::printf("backend: %s\n", detector.backend_name().c_str());

        std::vector<std::filesystem::path> images;
        for (const auto& e : std::filesystem::directory_iterator(argv[2]))
            if (e.is_regular_file()) images.push_back(e.path());
        std::sort(images.begin(), images.end());
        for (const auto& path : images) {
            const cv::Mat bgr = cv::imread(path.string(), cv::IMREAD_COLOR);
            if (bgr.empty()) continue;  // not an image
            // 3. The pixels as they are: BGR, with the Mat's row stride.
            const cascadekit::ImageView view{bgr.data, bgr.cols, bgr.rows, static_cast<std::ptrdiff_t>(bgr.step[0]), 3,
                                             cascadekit::ChannelOrder::BGR};
            // 4. One call: one box per person, best first, each the person's box inside the
            //    window that found it (found.window: that window, its score and support).
            const cascadekit::ObjectResult r = detector.detect(view);
            std::printf("%s: %zu windows scanned, %zu boxes\n", path.filename().c_str(),
                        static_cast<std::size_t>(r.stats.windows_scanned), r.objects.size());
            for (const auto& found : r.objects) {
                const cascadekit::Box& b = found.box;
                std::printf("  x %.0f y %.0f w %.0f h %.0f score %.3f\n", b.x, b.y, b.w, b.h, found.window.score);
            }
        }
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "error: %s\n", e.what());
        return 1;
    }
}
