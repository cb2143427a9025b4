// Writes frame INDEX of a video as a binary PGM (gray), for tests in languages without a video
// decoder (the Python module's tests read it with NumPy). Usage: sample_frame VIDEO INDEX OUT.pgm
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <opencv2/imgproc.hpp>
#include <opencv2/videoio.hpp>

int main(int argc, char** argv) {
    if (argc != 4) {
        std::fprintf(stderr, "usage: sample_frame VIDEO INDEX OUT.pgm\n");
        return 2;
    }
    cv::VideoCapture cap(argv[1]);
    if (!cap.isOpened()) {
        std::fprintf(stderr, "%s: cannot open video\n", argv[1]);
        return 1;
    }
    const long index = std::strtol(argv[2], nullptr, 10);
    cv::Mat frame;
    for (long i = 0; i <= index; ++i)
        if (!cap.read(frame)) {
            std::fprintf(stderr, "%s: has no frame %ld\n", argv[1], index);
            return 1;
        }
    cv::Mat gray;
    cv::cvtColor(frame, gray, cv::COLOR_BGR2GRAY);
    const std::filesystem::path target(argv[3]);
    if (target.has_parent_path()) std::filesystem::create_directories(target.parent_path());
    std::ofstream out(target, std::ios::binary);
    out << "P5\n" << gray.cols << " " << gray.rows << "\n255\n";
    for (int y = 0; y < gray.rows; ++y) out.write(reinterpret_cast<const char*>(gray.ptr(y)), gray.cols);
    return out ? 0 : 1;
}
