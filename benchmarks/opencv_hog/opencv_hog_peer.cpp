// The peer detector: OpenCV's HOGDescriptor with its default people detector (Dalal & Triggs'
// INRIA SVM), run through cascadekit's evaluation by writing our formats.
//
//   opencv_hog_peer detect --json OUT.json [--scale-step F] [--stride N] [--pad F] [--pad-level N] [--upscale-below PX]
//                          [--group N] LIST.txt|IMAGE...
//       detectMultiScale with OpenCV's own grouping; boxes are 64x128 windows in input pixels, as
//       `cascade detect` writes them, so `cascade eval --detections` applies the same box rule.
//       --pad F adds F × image height of replicated border first, as `cascade eval --pad` does;
//       --pad-level N is detectMultiScale's padding (every pyramid level, as `cascade --pad-level`);
//       --upscale-below PX enlarges images less tall than PX by 2 first (boxes halved back).
//       --group N is detectMultiScale's finalThreshold (default 2: clusters of at least 3 windows,
//       scored by their best window); 0 writes every window scoring above 0, unfused, for
//       `cascade eval --detections … --fuse-detections`.
//   opencv_hog_peer window-scores --positives LIST --negatives LIST --out OUT.json [--scale-step F] [--stride N]
//       the SVM score of every held-out positive window (centred in its crop) and of every window
//       scanned over the negative images (pyramid by cv::resize, floor(size/scale)), for
//       `cascade eval --window-scores`.
//   opencv_hog_peer time --threads N --repeats R [--scale-step F] [--stride N] IMAGE
//       detectMultiScale on one frame R times after a warm-up with cv::setNumThreads(N); prints
//       "median_ms X" (for `cascade bench detect --peer`).
// Built without OpenCV's imgcodecs (CASCADEKIT_TOOLS_CODECS=OFF) it reads PGM/PPM images only.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <opencv2/objdetect.hpp>
#include <string>
#include <vector>

#include "../peer_support.hpp"

namespace {
int usage() {
    std::fprintf(stderr, "usage: opencv_hog_peer detect --json OUT [--scale-step F] [--stride N] [--pad F] [--pad-level N] "
                         "[--upscale-below PX] [--group N] INPUT...\n"
                         "       opencv_hog_peer window-scores --positives LIST --negatives LIST --out OUT [--scale-step F] [--stride N]\n"
                         "       opencv_hog_peer time --threads N --repeats R [--scale-step F] [--stride N] IMAGE\n");
    return 1;
}
}  // namespace

// The command line's options.
struct Options {
    std::string mode, json, positives, negatives;
    double scale_step = 1.2, pad = 0.0;
    int stride = 8, threads = 1, repeats = 5, group = 2, pad_level = 0, upscale_below = 0;
    std::vector<std::string> inputs;
};

// Throws std::runtime_error naming an option without its value.
Options parse(int argc, char** argv) {
    Options o;
    o.mode = argv[1];
    for (int i = 2; i < argc; ++i) {
        const std::string a = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) throw std::runtime_error(a + " needs a value");
            return argv[++i];
        };
        if (a == "--json" || a == "--out") o.json = value();
        else if (a == "--positives") o.positives = value();
        else if (a == "--negatives") o.negatives = value();
        else if (a == "--scale-step") o.scale_step = std::stod(value());
        else if (a == "--stride") o.stride = std::stoi(value());
        else if (a == "--group") o.group = std::stoi(value());
        else if (a == "--pad") o.pad = std::stod(value());
        else if (a == "--pad-level") o.pad_level = std::stoi(value());
        else if (a == "--upscale-below") o.upscale_below = std::stoi(value());
        else if (a == "--threads") o.threads = std::stoi(value());
        else if (a == "--repeats") o.repeats = std::stoi(value());
        else o.inputs.push_back(a);
    }
    return o;
}

// detect: our detect JSON of OpenCV's detections, scanned as the options say.
void detect_mode(cv::HOGDescriptor& hog, const Options& o) {
    const double scale_step = o.scale_step, pad = o.pad;
    const int stride = o.stride, group = o.group, pad_level = o.pad_level, upscale_below = o.upscale_below;
    nlohmann::json out{{"model", "opencv-hog-default-people"}, {"params", {{"stride", stride}, {"scale_step", scale_step}}}};
    out["images"] = nlohmann::json::array();
    for (const auto& path : peer::expand(o.inputs)) {
        const cv::Mat raw = peer::load(path);
        cv::Mat src = raw;
        double factor = 1.0;
        if (upscale_below > 0 && raw.rows < upscale_below) {  // as cascade eval --upscale-below
            cv::resize(raw, src, cv::Size(2 * raw.cols, 2 * raw.rows), 0, 0, cv::INTER_LINEAR);
            factor = 2.0;
        }
        const int p = static_cast<int>(std::lround(pad * src.rows));  // as cascade eval --pad
        cv::Mat img;
        cv::copyMakeBorder(src, img, p, p, p, p, cv::BORDER_REPLICATE);
        std::vector<cv::Rect> found;
        std::vector<double> weights;
        // padding: OpenCV pads every pyramid level by this much (as cascade's --pad-level).
        hog.detectMultiScale(img, found, weights, 0.0, cv::Size(stride, stride), cv::Size(pad_level, pad_level), scale_step,
                             group, false);
        out["images"].push_back(peer::image_entry(path, raw, found, weights, -p, -p, factor));
    }
    peer::write(o.json, out);
}

// time: the median milliseconds of a frame.
int time_mode(cv::HOGDescriptor& hog, const Options& o) {
    if (o.inputs.size() != 1 || o.repeats < 1) return usage();
    const cv::Mat img = peer::load(o.inputs[0]);
    cv::setNumThreads(o.threads);
    peer::print_median_ms(o.repeats, [&] {
        std::vector<cv::Rect> found;
        std::vector<double> weights;
        hog.detectMultiScale(img, found, weights, 0.0, cv::Size(o.stride, o.stride), cv::Size(0, 0), o.scale_step, 2.0, false);
    });
    return 0;
}

// window-scores: the held-out crops' centred windows and every window of the negative images.
int window_scores_mode(cv::HOGDescriptor& hog, const Options& o) {
    const double scale_step = o.scale_step;
    const int stride = o.stride;
    if (o.positives.empty() || o.negatives.empty()) return usage();
    std::vector<double> pos, neg;
    for (const auto& path : peer::read_list(o.positives)) {
        const cv::Mat img = peer::load(path);
        std::vector<cv::Point> hits;
        std::vector<double> w;
        const cv::Point at((img.cols - 64) / 2, (img.rows - 128) / 2);
        hog.detect(img, hits, w, -1e9, cv::Size(8, 8), cv::Size(0, 0), {at});
        pos.push_back(w.empty() ? -1e9 : w[0]);
    }
    std::uint64_t windows = 0;
    for (const auto& path : peer::read_list(o.negatives)) {
        const cv::Mat img = peer::load(path);
        for (int k = 0;; ++k) {
            const double s = std::pow(scale_step, k);
            const int w = static_cast<int>(std::floor(img.cols / s + 1e-9)), h = static_cast<int>(std::floor(img.rows / s + 1e-9));
            if (w < 64 || h < 128) break;
            cv::Mat level;
            cv::resize(img, level, cv::Size(w, h), 0, 0, cv::INTER_LINEAR);
            std::vector<cv::Point> hits;
            std::vector<double> ws;
            hog.detect(level, hits, ws, -1e9, cv::Size(stride, stride), cv::Size(0, 0));
            windows += static_cast<std::uint64_t>((w - 64) / stride + 1) * static_cast<std::uint64_t>((h - 128) / stride + 1);
            neg.insert(neg.end(), ws.begin(), ws.end());
        }
    }
    peer::write(o.json, {{"detector", "opencv-hog-default-people"}, {"positives", pos}, {"negatives", neg}, {"negative_windows", windows}});
    return 0;
}

int main(int argc, char** argv) {
    if (argc < 2) return usage();
    Options o;
    try {
        o = parse(argc, argv);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "opencv_hog_peer: %s\n", e.what());
        return 1;
    }
    if (o.json.empty() && o.mode != "time") return usage();
    cv::HOGDescriptor hog;  // 64x128 window, 8x8 cells, 16x16 blocks, L2-Hys: Dalal & Triggs
    hog.setSVMDetector(cv::HOGDescriptor::getDefaultPeopleDetector());
    try {
        if (o.mode == "detect") detect_mode(hog, o);
        else if (o.mode == "time") return time_mode(hog, o);
        else if (o.mode == "window-scores") return window_scores_mode(hog, o);
        else return usage();
    } catch (const std::exception& e) {
        std::fprintf(stderr, "opencv_hog_peer: %s\n", e.what());
        return 1;
    }
    return 0;
}
