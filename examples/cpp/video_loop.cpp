// Example: the runtime in a video loop. Reads frames with OpenCV, detects people in each, draws
// the boxes and writes the frames as PNGs; prints the time per frame.
//
//   build/examples/video_loop models/inria-hog-cascade.h5 VIDEO OUT_FOLDER [FRAMES]
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
#include "cascadekit/runtime/object_detector.hpp"

int main(int argc, char** argv) {
    if (argc < 4) {
        std::fprintf(stderr, "usage: %s MODEL.h5 VIDEO OUT_FOLDER [FRAMES]\n", argv[0]);
        return 1;
    }
    try {
        cv::VideoCapture video(argv[2]);
        if (!video.isOpened()) throw std::runtime_error(std::string(argv[2]) + ": cannot open the video");
        const int frames = argc > 4 ? std::stoi(argv[4]) : 0;  // 0: every frame
        std::filesystem::create_directories(argv[3]);

        // The model run as its operating point says (scan, border, fusion, threshold), as
        // `cascade detect` runs it.
        cascadekit::ObjectDetector detector(cascadekit::load_model(argv[1]));

        cv::Mat frame;
        for (int n = 0; (frames == 0 || n < frames) && video.read(frame); ++n) {
            const auto t0 = std::chrono::steady_clock::now();
            const cascadekit::ImageView view{frame.data, frame.cols, frame.rows, static_cast<std::ptrdiff_t>(frame.step[0]),
                                             frame.channels(), cascadekit::ChannelOrder::BGR};
            const cascadekit::ObjectResult r = detector.detect(view);
            const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
            for (const auto& found : r.objects) {
                const cascadekit::Box& b = found.box;  // the person
                cv::rectangle(frame, cv::Rect(static_cast<int>(b.x), static_cast<int>(b.y), static_cast<int>(b.w), static_cast<int>(b.h)),
                              cv::Scalar(0, 255, 0), 2);
            }
            char name[32];
            std::snprintf(name, sizeof name, "/frame-%04d.png", n);
            cv::imwrite(std::string(argv[3]) + name, frame);
            std::printf("frame %d: %zu boxes, %.1f ms (%s)\n", n, r.objects.size(), ms, detector.backend_name().c_str());
        }
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "error: %s\n", e.what());
        return 1;
    }
}
