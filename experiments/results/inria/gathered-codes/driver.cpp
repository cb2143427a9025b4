// Built: sed -n '/^GrayImage bench_image/,/^}/p' tools/src/bench_command.cpp > /tmp/bench_image.inc && g++ -DBENCH_IMAGE='"/tmp/bench_image.inc"' -O2 -std=c++20 -I runtime/include -I model/include -I features/include -I io/include -isystem /usr/local/cuda/include driver.cpp -o drv build/runtime/libcascadekit_runtime.a build/io/libcascadekit_io.a build/model/libcascadekit_model.a build/features/libcascadekit_features.a -ltbb -lhdf5_serial -L/usr/local/cuda/lib64 -lcudart_static -lcrypto -ldl -lpthread -lrt
// Env: PREFIX_ONLY (the first stage alone), STRIDE, STEP, W, H. Prints min and median ms and a hash of the detections.
// Throw-away timing driver: one thread, CpuDetector::detect on the bench's synthetic frame (or a
// PPM), configs given as flags; prints min and median ms over N frames.
#include "cascadekit/io/model_file.hpp"
#include "cascadekit/runtime/cpu_detector.hpp"
#include <tbb/global_control.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>
using namespace cascadekit;
// The bench's synthetic frame: `cascade bench`'s own bench_image (tools/src/bench_command.cpp),
// pulled in when built (see the first line).
#include BENCH_IMAGE
int main(int argc, char** argv) {
    // drv MODEL N [hog] [lbp] [scaled]
    tbb::global_control one(tbb::global_control::max_allowed_parallelism, 1);
    CascadeModel m = load_model(argv[1]);
    if (std::getenv("PREFIX_ONLY")) m.stages.erase(m.stages.begin() + 1, m.stages.end());
    const int n = std::atoi(argv[2]);
    DetectParams p;
    p.stride = std::getenv("STRIDE") ? std::atoi(std::getenv("STRIDE")) : 8; p.scale_step = std::getenv("STEP") ? std::atof(std::getenv("STEP")) : 1.05; p.min_scale = 1.0;
    for (int i = 3; i < argc; ++i) {
        if (!std::strcmp(argv[i], "hog")) p.approximate_hog = true;
        if (!std::strcmp(argv[i], "lbp")) p.approximate_lbp = true;
        if (!std::strcmp(argv[i], "scaled")) p.scale_windows = true;
    }
    const int W = std::getenv("W") ? std::atoi(std::getenv("W")) : 1280, H = std::getenv("H") ? std::atoi(std::getenv("H")) : 960;
    const GrayImage g = bench_image(W, H);
    std::vector<std::uint8_t> bgr(g.pixels.size() * 3);
    for (std::size_t i = 0; i < g.pixels.size(); ++i) bgr[3 * i] = bgr[3 * i + 1] = bgr[3 * i + 2] = g.pixels[i];
    const ImageView view{bgr.data(), W, H, W * 3, 3, ChannelOrder::BGR};
    CpuDetector d(m, p);
    d.detect(view);
    std::vector<double> t;
    std::size_t dets = 0;
    unsigned long long hash = 1469598103934665603ull;
    for (int i = 0; i < n; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        const auto r = d.detect(view);
        dets = r.detections.size();
        if (i == 0) for (const auto& e : r.detections) { unsigned b; std::memcpy(&b, &e.score, 4); hash = (hash ^ b ^ (unsigned long long)(e.x * 16) << 20 ^ (unsigned long long)(e.y * 16) << 40) * 1099511628211ull; }
        t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    std::sort(t.begin(), t.end());
    std::printf("min %.1f med %.1f (%zu dets, %016llx)\n", t[0], t[t.size() / 2], dets, hash);
}
