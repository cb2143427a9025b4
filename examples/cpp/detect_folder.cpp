// Example: detect people in every image of a folder with cascadekit's runtime.
//
//   build/examples/detect_folder experiments/models/inria-hog-cascade.h5 FOLDER [--cpu]
//
// The runtime takes raw 8-bit buffers (cascadekit::ImageView), so any decoder works; this one
// uses OpenCV's imread, and hands the cv::Mat's pixels to the detector without copying them.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <opencv2/imgcodecs.hpp>
#include <string>
#include <vector>

#include "cascadekit/io/model_file.hpp"      // load_model: reads and verifies a model file
#include "cascadekit/runtime/detector.hpp"   // Detector, DetectParams, ImageView
#include "cascadekit/runtime/fusion.hpp"     // fuse: one box per object

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: %s MODEL.h5 FOLDER [--cpu]\n", argv[0]);
        return 1;
    }
    try {
        // 1. The model: a verified file, or a clear exception naming the file and the problem.
        const cascadekit::CascadeModel model = cascadekit::load_model(argv[1]);

        // 2. How to scan: the operating point stored in the model (chosen on held-out images by
        //    `cascade calibrate`; `cascade inspect` shows it). Change a field to scan otherwise,
        //    e.g. params.scale_step = 1.05 for denser levels.
        const cascadekit::OperatingPoint& point = model.operating;
        cascadekit::DetectParams params = cascadekit::detect_params(point);

        // 3. A detector: CUDA when this build has it and a GPU is present, else the CPU (TBB). Both
        //    give the same detections. One detector serves one call at a time.
        const bool cpu = argc > 3 && std::string(argv[3]) == "--cpu";
        auto detector = cascadekit::Detector::create(model, params, cpu ? cascadekit::Backend::Cpu : cascadekit::Backend::Auto);
        std::printf("backend: %s\n", detector->backend_name().c_str());

        std::vector<std::filesystem::path> images;
        for (const auto& e : std::filesystem::directory_iterator(argv[2]))
            if (e.is_regular_file()) images.push_back(e.path());
        std::sort(images.begin(), images.end());
        for (const auto& path : images) {
            const cv::Mat bgr = cv::imread(path.string(), cv::IMREAD_COLOR);
            if (bgr.empty()) continue;  // not an image
            // 4. The pixels as they are: BGR, with the Mat's row stride.
            const cascadekit::ImageView view{bgr.data, bgr.cols, bgr.rows, static_cast<std::ptrdiff_t>(bgr.step[0]), 3,
                                             cascadekit::ChannelOrder::BGR};
            const cascadekit::DetectResult r = detector->detect(view);
            // 5. Raw accepted windows → one box per person (the model's fusion), kept when they
            //    score at least the model's threshold; each window → the person's box inside it.
            const auto fused = cascadekit::fuse(r.detections, model.window_width, model.window_height,
                                                cascadekit::fusion_params(point));
            std::size_t kept = 0;
            for (const auto& d : fused) kept += d.score >= point.threshold;
            std::printf("%s: %zu windows scanned, %zu boxes\n", path.filename().c_str(),
                        static_cast<std::size_t>(r.stats.windows_scanned), kept);
            for (const auto& d : fused) {
                if (d.score < point.threshold) continue;
                const cascadekit::Box b = cascadekit::object_in_window(model.object_box, d.x, d.y, d.w, d.h);
                std::printf("  x %.0f y %.0f w %.0f h %.0f score %.3f\n", b.x, b.y, b.w, b.h, d.score);
            }
        }
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "error: %s\n", e.what());
        return 1;
    }
}
