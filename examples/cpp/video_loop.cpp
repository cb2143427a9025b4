// Example: the runtime in a video loop. Reads frames with OpenCV, detects people in each, draws
// the boxes and writes the frames as PNGs; prints the time per frame.
//
//   build/examples/video_loop experiments/models/inria-hog-cascade.h5 VIDEO OUT_FOLDER [FRAMES]
//
// The detector is made once and reused: it keeps its buffers (and, on the GPU, its device
// memory and CUDA graph) from one frame of a size to the next, so frames after the first cost
// no allocation.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/videoio.hpp>
#include <string>

#include "cascadekit/io/model_file.hpp"
#include "cascadekit/runtime/detector.hpp"
#include "cascadekit/runtime/fusion.hpp"

int main(int argc, char** argv) {
    if (argc < 4) {
        std::fprintf(stderr, "usage: %s MODEL.h5 VIDEO OUT_FOLDER [FRAMES]\n", argv[0]);
        return 1;
    }
    try {
        const cascadekit::CascadeModel model = cascadekit::load_model(argv[1]);
        cv::VideoCapture video(argv[2]);
        if (!video.isOpened()) throw std::runtime_error(std::string(argv[2]) + ": cannot open the video");
        const int frames = argc > 4 ? std::stoi(argv[4]) : 0;  // 0: every frame
        std::filesystem::create_directories(argv[3]);

        cascadekit::DetectParams params;  // stride 8, ×1.2: the fast default scan
        auto detector = cascadekit::Detector::create(model, params);
        cascadekit::FusionParams fusion;  // mean shift: one box per person

        cv::Mat frame;
        for (int n = 0; (frames == 0 || n < frames) && video.read(frame); ++n) {
            const auto t0 = std::chrono::steady_clock::now();
            const cascadekit::ImageView view{frame.data, frame.cols, frame.rows, static_cast<std::ptrdiff_t>(frame.step[0]),
                                             frame.channels(), cascadekit::ChannelOrder::BGR};
            const auto boxes = cascadekit::fuse(detector->detect(view).detections, model.window_width, model.window_height, fusion);
            const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
            for (const auto& b : boxes)
                cv::rectangle(frame, cv::Rect(static_cast<int>(b.x), static_cast<int>(b.y), static_cast<int>(b.w), static_cast<int>(b.h)),
                              cv::Scalar(0, 255, 0), 2);
            char name[32];
            std::snprintf(name, sizeof name, "/frame-%04d.png", n);
            cv::imwrite(std::string(argv[3]) + name, frame);
            std::printf("frame %d: %zu boxes, %.1f ms (%s)\n", n, boxes.size(), ms, detector->backend_name().c_str());
        }
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "error: %s\n", e.what());
        return 1;
    }
}
