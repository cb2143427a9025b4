#pragma once
// What the OpenCV peers share: image lists, image loading (PGM/PPM through cascadekit_io, other
// formats through OpenCV's imgcodecs when built with them), JSON output, and timing.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#if PEER_CODECS
#include <opencv2/imgcodecs.hpp>
#endif
#include <opencv2/imgproc.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "cascadekit/io/pnm.hpp"

namespace peer {

inline std::vector<std::string> read_list(const std::string& file) {
    std::ifstream in(file);
    if (!in) throw std::runtime_error(file + ": cannot read list");
    std::vector<std::string> out;
    for (std::string line; std::getline(in, line);)
        if (!line.empty() && line[0] != '#') out.push_back(line);
    return out;
}

// Arguments ending in .txt are lists of images; the others are images.
inline std::vector<std::string> expand(const std::vector<std::string>& args) {
    std::vector<std::string> out;
    for (const auto& a : args) {
        if (a.size() > 4 && a.substr(a.size() - 4) == ".txt") {
            const auto l = read_list(a);
            out.insert(out.end(), l.begin(), l.end());
        } else {
            out.push_back(a);
        }
    }
    return out;
}

// The image as 8-bit BGR.
inline cv::Mat load(const std::string& path) {
    if (cascadekit::is_pnm_path(path)) {
        const cascadekit::PnmImage pnm = cascadekit::read_pnm(path);
        const cv::Mat src(pnm.height, pnm.width, pnm.channels == 1 ? CV_8UC1 : CV_8UC3, const_cast<std::uint8_t*>(pnm.pixels.data()));
        cv::Mat bgr;
        cv::cvtColor(src, bgr, pnm.channels == 1 ? cv::COLOR_GRAY2BGR : cv::COLOR_RGB2BGR);
        return bgr;
    }
#if PEER_CODECS
    cv::Mat m = cv::imread(path, cv::IMREAD_COLOR);
    if (m.empty()) throw std::runtime_error(path + ": cannot read or decode image");
    return m;
#else
    throw std::runtime_error(path + ": built without image codecs, PGM/PPM only");
#endif
}

inline void write(const std::string& file, const nlohmann::json& j) {
    const std::string tmp = file + ".tmp";
    std::ofstream(tmp) << j.dump() << "\n";
    if (std::rename(tmp.c_str(), file.c_str()) != 0) throw std::runtime_error(file + ": cannot write");
}

// One image's entry of `cascade detect`'s JSON: each box moved by (dx, dy) (e.g. undoing a
// padding), with its score (0 where the detector gave none).
// Boxes found on a padded (dx, dy: minus the border) and enlarged (factor) copy, in the image's pixels.
inline nlohmann::json image_entry(const std::string& path, const cv::Mat& image, const std::vector<cv::Rect>& found,
                                  const std::vector<double>& scores, int dx = 0, int dy = 0, double factor = 1.0) {
    nlohmann::json dets = nlohmann::json::array();
    for (std::size_t k = 0; k < found.size(); ++k)
        dets.push_back({{"x", (found[k].x + dx) / factor}, {"y", (found[k].y + dy) / factor}, {"w", found[k].width / factor},
                        {"h", found[k].height / factor}, {"score", k < scores.size() ? scores[k] : 0.0}});
    return {{"path", path}, {"width", image.cols}, {"height", image.rows}, {"detections", dets}};
}

// Runs detect() once to warm up, then `repeats` times, and prints "median_ms X" (the line
// `cascade bench detect --peer` reads).
template <class Detect>
void print_median_ms(int repeats, Detect&& detect) {
    std::vector<double> ms;
    for (int r = 0; r <= repeats; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        detect();
        if (r > 0) ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    std::sort(ms.begin(), ms.end());
    std::printf("median_ms %.3f\n", ms[ms.size() / 2]);
}

}  // namespace peer
