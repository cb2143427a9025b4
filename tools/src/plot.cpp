#include "plot.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <opencv2/imgproc.hpp>
#include <sstream>
#include <stdexcept>

#include "cascadekit/io/files.hpp"
#include "cascadekit/workflow/image_files.hpp"

namespace cascadekit::tools {

namespace {
constexpr int kWidth = 760, kHeight = 560, kLeft = 80, kRight = 20, kTop = 50, kBottom = 60;
constexpr double kXMin = -2, kXMax = 1;                       // log10 FPPI
constexpr double kYMin = std::log10(0.05), kYMax = 0.0;       // log10 miss rate

cv::Point to_px(double fppi, double miss) {
    const double lx = std::clamp(std::log10(std::max(fppi, 1e-9)), kXMin, kXMax);
    const double ly = std::clamp(std::log10(std::max(miss, 1e-9)), kYMin, kYMax);
    const int w = kWidth - kLeft - kRight, h = kHeight - kTop - kBottom;
    return {kLeft + static_cast<int>(std::lround((lx - kXMin) / (kXMax - kXMin) * w)),
            kTop + static_cast<int>(std::lround((kYMax - ly) / (kYMax - kYMin) * h))};
}

void text(cv::Mat& img, const std::string& s, cv::Point at, double size = 0.45, cv::Scalar colour = {0, 0, 0}) {
    cv::putText(img, s, at, cv::FONT_HERSHEY_SIMPLEX, size, colour, 1, cv::LINE_AA);
}
}  // namespace

void write_fppi_plot(const std::filesystem::path& png, const std::string& title, const std::vector<NamedCurve>& curves) {
    cv::Mat img(kHeight, kWidth, CV_8UC3, cv::Scalar(255, 255, 255));
    const cv::Scalar grid(225, 225, 225), axis(0, 0, 0);
    // Grid and ticks: FPPI decades (and 2…9 minor lines), miss rate .05 .1 .2 .3 .4 .5 .64 .8 1.
    for (int d = -2; d <= 1; ++d)
        for (int k = 1; k <= 9 && !(d == 1 && k > 1); ++k) {
            const double v = k * std::pow(10.0, d);
            cv::line(img, to_px(v, 1.0), to_px(v, 0.05), k == 1 ? cv::Scalar(190, 190, 190) : grid, 1);
            if (k == 1) {
                char label[16];
                std::snprintf(label, sizeof label, "%g", v);
                text(img, label, to_px(v, 0.05) + cv::Point(-12, 20));
            }
        }
    for (double m : {0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.64, 0.8, 1.0}) {
        cv::line(img, to_px(1e-2, m), to_px(10, m), grid, 1);
        char label[16];
        std::snprintf(label, sizeof label, "%.2f", m);
        text(img, label, to_px(1e-2, m) + cv::Point(-45, 5));
    }
    cv::rectangle(img, to_px(1e-2, 1.0), to_px(10, 0.05), axis, 1);
    text(img, "false positives per image", {kLeft + (kWidth - kLeft - kRight) / 2 - 100, kHeight - 15}, 0.5);
    text(img, "miss rate", {8, kTop - 12}, 0.5);
    text(img, title, {kLeft, 28}, 0.55);
    // Curves (steps, as the curve is: miss rate holds until the next point), legend bottom-left.
    const cv::Scalar colours[] = {{200, 60, 20}, {30, 30, 200}, {30, 150, 30}, {160, 40, 160}, {0, 140, 220}, {90, 90, 90}};
    for (std::size_t c = 0; c < curves.size(); ++c) {
        const cv::Scalar colour = colours[c % std::size(colours)];
        const auto& pts = curves[c].points;
        for (std::size_t i = 0; i + 1 < pts.size(); ++i) {
            const cv::Point a = to_px(pts[i].fp, pts[i].miss_rate), b = to_px(pts[i + 1].fp, pts[i].miss_rate),
                            d = to_px(pts[i + 1].fp, pts[i + 1].miss_rate);
            cv::line(img, a, b, colour, 2, cv::LINE_AA);
            cv::line(img, b, d, colour, 2, cv::LINE_AA);
        }
        if (!pts.empty()) cv::line(img, to_px(pts.back().fp, pts.back().miss_rate), to_px(10, pts.back().miss_rate), colour, 2, cv::LINE_AA);
        char lamr[48];
        std::snprintf(lamr, sizeof lamr, "%.3f  ", log_average_miss_rate(pts));
        const cv::Point at{kLeft + 12, kHeight - kBottom - 14 - static_cast<int>(curves.size() - 1 - c) * 20};
        cv::line(img, at + cv::Point(0, -4), at + cv::Point(24, -4), colour, 3);
        text(img, std::string(lamr) + curves[c].name, at + cv::Point(30, 0));
    }
    text(img, "log-average miss rate, name:", {kLeft + 12, kHeight - kBottom - 14 - static_cast<int>(curves.size()) * 20});
    write_image(png, img);
}

std::vector<CurvePoint> read_curve_csv(const std::filesystem::path& csv) {
    std::istringstream in(read_text_file(csv, "curve file"));
    std::string line;
    std::vector<CurvePoint> out;
    int n = 0;
    while (std::getline(in, line)) {
        if (++n == 1) {
            if (line.rfind("fppi,miss_rate", 0) != 0)
                throw std::runtime_error(csv.string() + ": not an FPPI curve (its first line is not 'fppi,miss_rate,threshold')");
            continue;
        }
        if (line.empty()) continue;
        CurvePoint p;
        char comma1 = 0, comma2 = 0;
        std::istringstream f(line);
        if (!(f >> p.fp >> comma1 >> p.miss_rate >> comma2 >> p.threshold) || comma1 != ',' || comma2 != ',' ||
            !std::isfinite(p.fp) || !std::isfinite(p.miss_rate) || p.fp < 0 || p.miss_rate < 0 || p.miss_rate > 1)
            throw std::runtime_error(csv.string() + ": line " + std::to_string(n) + " is not 'fppi,miss_rate,threshold'");
        out.push_back(p);
    }
    return out;
}

}  // namespace cascadekit::tools
