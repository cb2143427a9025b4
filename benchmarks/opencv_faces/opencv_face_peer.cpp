// The face peers: OpenCV's CascadeClassifier with its shipped frontal-face cascades (Debian's
// opencv-data: Viola & Jones' Haar cascades in /usr/share/opencv4/haarcascades, Liao et al.'s
// LBP cascades in /usr/share/opencv4/lbpcascades), run through cascadekit's evaluation by
// writing `cascade detect`'s JSON.
//
//   opencv_face_peer detect --cascade XML --json OUT [--scale-step F] [--min-neighbors N]
//                           [--min-size PX] [--score neighbours|weights] INPUT...
//       detectMultiScale on the gray image (equalised, as OpenCV's face samples do) with OpenCV's
//       own grouping (groups of more than N windows kept; default 1). Each group's score is its
//       window count (neighbours: the knob OpenCV users turn) or its last stage's sum
//       (weights, detectMultiScale3's levelWeights), so `cascade eval --faces --detections`
//       sweeps a ROC. Boxes are OpenCV's, as they are: the face-points rule does not care.
//   opencv_face_peer time --cascade XML --threads N --repeats R [--scale-step F]
//                         [--min-neighbors N] [--min-size PX] IMAGE
//       detectMultiScale on one frame R times after a warm-up with cv::setNumThreads(N); prints
//       "median_ms X" (for `cascade bench detect --peer`). --stride N is accepted and ignored: a
//       CascadeClassifier picks its own step, 2 level pixels at scales up to 2 and 1 above.
// Built without OpenCV's imgcodecs (CASCADEKIT_TOOLS_CODECS=OFF) it reads PGM/PPM images only.
#include <cstdio>
#include <opencv2/objdetect.hpp>
#include <string>
#include <vector>

#include "../peer_support.hpp"

namespace {
int usage() {
    std::fprintf(stderr,
                 "usage: opencv_face_peer detect --cascade XML --json OUT [--scale-step F] [--min-neighbors N] [--min-size PX]\n"
                 "                               [--score neighbours|weights] INPUT...\n"
                 "       opencv_face_peer time --cascade XML --threads N --repeats R [--scale-step F] [--min-neighbors N]\n"
                 "                             [--min-size PX] [--stride N (ignored)] IMAGE\n");
    return 1;
}

cv::Mat gray_equalised(const cv::Mat& bgr) {
    cv::Mat gray;
    cv::cvtColor(bgr, gray, cv::COLOR_BGR2GRAY);
    cv::equalizeHist(gray, gray);
    return gray;
}
}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) return usage();
    const std::string mode = argv[1];
    std::string json, cascade_file, score = "neighbours";
    double scale_step = 1.1;
    int min_neighbors = 1, min_size = 0, threads = 1, repeats = 5;
    std::vector<std::string> inputs;
    for (int i = 2; i < argc; ++i) {
        const std::string a = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) throw std::runtime_error(a + " needs a value");
            return argv[++i];
        };
        try {
            if (a == "--json") json = value();
            else if (a == "--cascade") cascade_file = value();
            else if (a == "--score") score = value();
            else if (a == "--scale-step") scale_step = std::stod(value());
            else if (a == "--min-neighbors") min_neighbors = std::stoi(value());
            else if (a == "--min-size") min_size = std::stoi(value());
            else if (a == "--stride") value();  // accepted for `cascade bench detect`; see the header
            else if (a == "--threads") threads = std::stoi(value());
            else if (a == "--repeats") repeats = std::stoi(value());
            else inputs.push_back(a);
        } catch (const std::exception& e) {
            std::fprintf(stderr, "opencv_face_peer: %s\n", e.what());
            return 1;
        }
    }
    if (cascade_file.empty() || (json.empty() && mode == "detect") || (score != "neighbours" && score != "weights")) return usage();
    try {
        cv::CascadeClassifier cascade;
        if (!cascade.load(cascade_file)) throw std::runtime_error(cascade_file + ": cannot load the cascade");
        const cv::Size smallest(min_size, min_size);
        if (mode == "detect") {
            nlohmann::json out{{"model", cascade_file},
                               {"params", {{"scale_step", scale_step}, {"min_neighbors", min_neighbors}, {"score", score}}}};
            out["images"] = nlohmann::json::array();
            for (const auto& path : peer::expand(inputs)) {
                const cv::Mat raw = peer::load(path);
                const cv::Mat gray = gray_equalised(raw);
                std::vector<cv::Rect> found;
                std::vector<double> scores;
                if (score == "neighbours") {
                    std::vector<int> neighbours;
                    cascade.detectMultiScale(gray, found, neighbours, scale_step, min_neighbors, 0, smallest);
                    scores.assign(neighbours.begin(), neighbours.end());
                } else {
                    std::vector<int> levels;
                    cascade.detectMultiScale(gray, found, levels, scores, scale_step, min_neighbors, 0, smallest, cv::Size(), true);
                }
                out["images"].push_back(peer::image_entry(path, raw, found, scores));
            }
            peer::write(json, out);
        } else if (mode == "time") {
            if (inputs.size() != 1 || repeats < 1) return usage();
            const cv::Mat img = peer::load(inputs[0]);
            cv::setNumThreads(threads);
            peer::print_median_ms(repeats, [&] {
                std::vector<cv::Rect> found;
                cascade.detectMultiScale(gray_equalised(img), found, scale_step, min_neighbors, 0, smallest);
            });
        } else {
            return usage();
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "opencv_face_peer: %s\n", e.what());
        return 1;
    }
    return 0;
}
