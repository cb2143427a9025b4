#include <spdlog/spdlog.h>
#include <tbb/global_control.h>
#include <tbb/info.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <fstream>
#include <functional>
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#include <random>
#include <set>
#include <sstream>
#include <utility>

#include "cascadekit/features/integral_histogram.hpp"
#include "cascadekit/io/files.hpp"
#include "bench_util.hpp"
#include "commands.hpp"
#include "output_files.hpp"

namespace cascadekit::tools {

// A deterministic image with natural-looking statistics: smooth shading, random rectangles
// (edges of every orientation after the shading) and mild noise.
GrayImage bench_image(int w, int h) {
    std::mt19937 rng(12345);
    std::vector<double> canvas(static_cast<std::size_t>(w) * h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) canvas[static_cast<std::size_t>(y) * w + x] = 100 + 60 * std::sin(x * 0.013) * std::cos(y * 0.021);
    std::uniform_int_distribution<int> ux(0, w - 1), uy(0, h - 1), us(4, 80), uv(-60, 60);
    for (int i = 0; i < w * h / 2000; ++i) {
        const int x0 = ux(rng), y0 = uy(rng), rw = us(rng), rh = us(rng), dv = uv(rng);
        for (int y = y0; y < std::min(h, y0 + rh); ++y)
            for (int x = x0; x < std::min(w, x0 + rw); ++x) canvas[static_cast<std::size_t>(y) * w + x] += dv;
    }
    std::normal_distribution<double> noise(0, 4);
    GrayImage img(w, h);
    for (std::size_t i = 0; i < canvas.size(); ++i)
        img.pixels[i] = static_cast<std::uint8_t>(std::clamp(std::lround(canvas[i] + noise(rng)), 0L, 255L));
    return img;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

double median_ms(int repeats, const std::function<void()>& work, bool warm_up) {
    if (warm_up) work();  // first-touch of buffers, LUT construction, graph capture
    std::vector<double> t;
    for (int i = 0; i < repeats; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        work();
        t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    return median(std::move(t));
}

namespace {
// The straightforward OpenCV way to the same 9 integral images: [-1 0 1] derivatives
// (Sobel ksize 1, replicated border), cartToPolar, 9 masked planes, 9 cv::integral (double).
struct OpenCvPeer {
    cv::Mat dx, dy, mag, ang, q, mask, plane, sums[9];
    void run(const cv::Mat& gray) {
        cv::Sobel(gray, dx, CV_32F, 1, 0, 1, 1, 0, cv::BORDER_REPLICATE);
        cv::Sobel(gray, dy, CV_32F, 0, 1, 1, 1, 0, cv::BORDER_REPLICATE);
        cv::cartToPolar(dx, dy, mag, ang, true);
        ang.convertTo(q, CV_8U, 1.0 / 20.0, -0.5);  // floor(angle / 20°) in 0..17
        cv::subtract(q, 9, q, q >= 9);              // unsigned: 0..8
        for (int b = 0; b < 9; ++b) {
            plane.create(mag.size(), CV_32F);
            plane.setTo(0);
            cv::compare(q, b, mask, cv::CMP_EQ);
            mag.copyTo(plane, mask);
            cv::integral(plane, sums[b], CV_64F);
        }
    }
};

}  // namespace

std::string cpu_name() {
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
    return "unknown CPU";
}

std::string cpu_cores() {
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    std::set<std::pair<int, int>> cores;
    std::set<int> sockets;
    int threads = 0, socket = -1;
    while (std::getline(in, line)) {
        int v = 0;
        if (line.rfind("processor", 0) == 0) ++threads;
        else if (line.rfind("physical id", 0) == 0 && std::sscanf(line.c_str() + line.find(':') + 1, "%d", &v) == 1) sockets.insert(socket = v);
        else if (line.rfind("core id", 0) == 0 && std::sscanf(line.c_str() + line.find(':') + 1, "%d", &v) == 1) cores.insert({socket, v});
    }
    std::string s = std::to_string(threads) + " hardware threads";
    if (!cores.empty())
        s += " on " + std::to_string(cores.size()) + " cores in " + std::to_string(sockets.size()) + (sockets.size() == 1 ? " socket" : " sockets");
    return s;
}

bool parse_size(const std::string& s, int& w, int& h) {
    return std::sscanf(s.c_str(), "%dx%d", &w, &h) == 2 && w > 0 && h > 0;
}

int run_bench_features(const BenchFeaturesOptions& o) {
    if (o.repeats < 1) {
        spdlog::error("--repeats must be >= 1");
        return kExitFatal;
    }
    if (!o.out.empty()) {
        try {
            check_writable_file(o.out);
        } catch (const std::exception& e) {
            spdlog::error("{}", e.what());
            return kExitFatal;
        }
    }
    const int all = tbb::info::default_concurrency();
    std::ostringstream md;
    char date[32];
    const std::time_t now = std::time(nullptr);
    std::strftime(date, sizeof date, "%Y-%m-%d", std::gmtime(&now));
    md << "# CPU features: gradients + integral histograms\n\n"
       << "Gray 8-bit input to the 9 exclusive integral histograms (gradients, orientation bins, quantised\n"
       << "magnitudes, row and column prefix sums): `IntegralHistogram::compute`. Median of " << o.repeats
       << " runs after one warm-up,\nmegapixels of input per second. Peer in the same run: OpenCV "
       << CV_VERSION << " doing the same job the straightforward way\n(Sobel ksize 1, cartToPolar, 9 masked planes, "
       << "9 × cv::integral to CV_64F).\n\n"
       << "- command: `" << o.command_line << "`\n"
       << "- machine: " << cpu_name() << ", " << all << " hardware threads\n"
       << "- date: " << date << "\n\n"
       << "| image | MPix | ours 1 thread ms | MPix/s | ours " << all << " threads ms | MPix/s | OpenCV 1 thread ms | OpenCV "
       << all << " threads ms | ours/OpenCV 1 thread | ours/OpenCV " << all << " threads |\n"
       << "|---|---|---|---|---|---|---|---|---|---|\n";
    for (const std::string& size : o.sizes) {
        int w = 0, h = 0;
        if (!parse_size(size, w, h)) {
            spdlog::error("bad size '{}' (expected WxH, e.g. 640x480)", size);
            return kExitFatal;
        }
        const GrayImage img = bench_image(w, h);
        const cv::Mat gray(h, w, CV_8U, const_cast<std::uint8_t*>(img.pixels.data()));
        IntegralHistogram ih;
        OpenCvPeer peer;
        auto ours = [&](int threads) {
            tbb::global_control limit(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(threads));
            return median_ms(o.repeats, [&] { ih.compute(img); });
        };
        auto theirs = [&](int threads) {
            cv::setNumThreads(threads);
            return median_ms(o.repeats, [&] { peer.run(gray); });
        };
        const double mpix = w * static_cast<double>(h) / 1e6;
        const double o1 = ours(1), on = ours(all);
        const double c1 = o.opencv_peer ? theirs(1) : NAN, cn = o.opencv_peer ? theirs(all) : NAN;
        char row[512];
        std::snprintf(row, sizeof row, "| %s | %.3f | %.2f | %.0f | %.2f | %.0f | %.2f | %.2f | %.2fx | %.2fx |\n",
                      size.c_str(), mpix, o1, mpix / o1 * 1e3, on, mpix / on * 1e3, c1, cn, c1 / o1, cn / on);
        md << row;
        spdlog::info("{}: ours {:.2f} ms (1 thread), {:.2f} ms ({} threads); OpenCV {:.2f} / {:.2f} ms", size, o1, on,
                     all, c1, cn);
    }
    md << "\nRatios above 1 mean cascadekit is faster. Our sums are exact uint32 (see\n"
       << "features/include/cascadekit/features/integral_histogram.hpp); the peer's are double, twice the memory.\n";
    std::fputs(md.str().c_str(), stdout);
    if (!o.out.empty()) {
        try {
            write_text_atomically(o.out, md.str());
        } catch (const std::exception& e) {
            spdlog::error("{}", e.what());
            return kExitFatal;
        }
    }
    return kExitOk;
}

}  // namespace cascadekit::tools
