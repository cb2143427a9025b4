#pragma once
// Synthetic images and hand-built models shared by the tests.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include "cascadekit/features/block_pool.hpp"
#include "cascadekit/features/image.hpp"
#include "cascadekit/model/cascade.hpp"
#include "cascadekit/model/hog_svm_stage.hpp"
#include "cascadekit/model/waldboost_lbp_stage.hpp"

namespace cascadekit::test {

// Uniform random pixels.
inline GrayImage random_image(int w, int h, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> u(0, 255);
    GrayImage img(w, h);
    for (auto& p : img.pixels) p = static_cast<std::uint8_t>(u(rng));
    return img;
}

// Smooth shading plus random rectangles plus noise: edges of many orientations and strengths,
// closer to natural images than uniform noise.
inline GrayImage blobby_image(int w, int h, unsigned seed) {
    std::mt19937 rng(seed);
    std::vector<int> v(static_cast<std::size_t>(w) * h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) v[static_cast<std::size_t>(y) * w + x] = 110 + static_cast<int>(40 * std::sin(x * 0.05 + y * 0.03));
    std::uniform_int_distribution<int> ux(0, std::max(0, w - 1)), uy(0, std::max(0, h - 1)), us(3, 40), uv(-70, 70);
    for (int i = 0; i < w * h / 300 + 1; ++i) {
        const int x0 = ux(rng), y0 = uy(rng), rw = us(rng), rh = us(rng), dv = uv(rng);
        for (int y = y0; y < std::min(h, y0 + rh); ++y)
            for (int x = x0; x < std::min(w, x0 + rw); ++x) v[static_cast<std::size_t>(y) * w + x] += dv;
    }
    std::uniform_int_distribution<int> noise(-3, 3);
    GrayImage img(w, h);
    for (std::size_t i = 0; i < v.size(); ++i) img.pixels[i] = static_cast<std::uint8_t>(std::clamp(v[i] + noise(rng), 0, 255));
    return img;
}

inline GrayImage constant_image(int w, int h, std::uint8_t value) {
    GrayImage img(w, h);
    std::fill(img.pixels.begin(), img.pixels.end(), value);
    return img;
}

// Every pixel has |gx| = |gy| = 255 (the largest gradient possible): 2×2 squares of 0 and 255
// alternating, so each [-1 0 1] difference spans one black and one white pixel.
inline GrayImage max_contrast_image(int w, int h) {
    GrayImage img(w, h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) img.at(x, y) = (((x + 1) / 2 + (y + 1) / 2) % 2) ? 255 : 0;
    return img;
}

// A model that fires on a bright vertical bar of width 8 running through a 64×128 window:
// stage 0, one learner on the central 32×64 block whose weights reward orientation bin 0
// (horizontal gradient, i.e. vertical edges) in all four cells and punish every other bin: with
// the bar centred (x 28..36) its edges fall in the left and the right cells, margin 2 − 1.5;
// shifted by 8 px both edges fall in the left cells, margin 1.41 − 1.5 < 0. Stage 1, the same on
// the narrow full-height block (24, 0, 16, 128) with bias 1.8: both edges must lie within 8 px of
// the centre line and the bar must run through the top and the bottom half of the window, which
// rejects bars much wider or shorter than the window's (the same bar seen at another scale).
inline CascadeModel bar_model() {
    CascadeModel m;
    for (const auto& [block, bias] : {std::pair{Rect{16, 32, 32, 64}, 1.5f}, std::pair{Rect{24, 0, 16, 128}, 1.8f}}) {
        HogLearner l;
        l.block = block;
        for (int c = 0; c < 4; ++c)
            for (int b = 0; b < 9; ++b) l.weights[c * 9 + b] = b == 0 ? 1.0f : -1.0f;
        l.bias = bias;
        l.alpha = 1.0f;
        HogSvmStage st;
        st.vote = VoteMode::Binary;
        st.threshold = 0.5f;
        st.learners.push_back(l);
        m.stages.push_back(st);
    }
    m.metadata = {"hand-built: block SVMs firing on a bright vertical bar", "none (synthetic)",
                  "2026-11-22T00:00:00Z", "0.1.0"};
    return m;
}

// Draws a bright bar as it looks in a window of the given scale whose top-left is (wx, wy):
// x from wx + 28·s to wx + 36·s, the window's full height.
inline void draw_bar(GrayImage& img, double wx, double wy, double s, std::uint8_t value = 255) {
    const int x0 = static_cast<int>(std::lround(wx + 28 * s)), x1 = static_cast<int>(std::lround(wx + 36 * s));
    const int y0 = static_cast<int>(std::lround(wy)), y1 = static_cast<int>(std::lround(wy + 128 * s));
    for (int y = std::max(0, y0); y < std::min(img.height, y1); ++y)
        for (int x = std::max(0, x0); x < std::min(img.width, x1); ++x) img.at(x, y) = value;
}

// A random model: `hog_stages` hog_svm stages (binary, margin, binary, clipped votes, repeating) with random
// blocks from the zhu pool, optionally a waldboost_lbp stage first. Thresholds are set by the
// caller or left at 0.
// pool: any make_block_pool name (zhu-grid4: every block corner on a 4-px grid).
inline CascadeModel random_model(unsigned seed, int hog_stages, int learners, int lbp_weak, const char* pool_name = "zhu") {
    std::mt19937 rng(seed);
    std::normal_distribution<float> n01(0.0f, 1.0f);
    const auto pool = make_block_pool(pool_name, 64, 128);
    std::uniform_int_distribution<std::size_t> pick(0, pool.size() - 1);
    CascadeModel m;
    if (lbp_weak > 0) {
        WaldBoostLbpStage wb;
        std::uniform_int_distribution<int> cs(1, 4), px(0, 40), py(0, 100);
        for (int i = 0; i < lbp_weak; ++i) {
            LbpWeakClassifier c;
            c.cell = {px(rng), py(rng), cs(rng), cs(rng)};
            for (auto& r : c.responses) r = 0.3f * n01(rng);
            c.reject_threshold = -0.6f * static_cast<float>(i + 1);
            wb.weak.push_back(c);
        }
        wb.final_threshold = -0.5f * static_cast<float>(lbp_weak);
        m.stages.push_back(wb);
    }
    for (int s = 0; s < hog_stages; ++s) {
        HogSvmStage st;
        st.vote = s % 4 == 3 ? VoteMode::Clipped : s % 2 == 0 ? VoteMode::Binary : VoteMode::Margin;
        for (int i = 0; i < learners; ++i) {
            HogLearner l;
            l.block = pool[pick(rng)];
            for (auto& w : l.weights) w = n01(rng);
            l.bias = 0.3f * n01(rng);
            l.alpha = 0.5f + std::abs(n01(rng));
            st.learners.push_back(l);
        }
        m.stages.push_back(st);
    }
    return m;
}

// Makes hog_svm stages 2, 4, 6, … (counting from 0) nested (HogSvmStage::carry): each adds `carry` times the running score to its margin.
inline CascadeModel nest_stages(CascadeModel m, float carry = 0.25f) {
    for (std::size_t s = 2; s < m.stages.size(); s += 2)
        if (auto* h = m.stages[s].get_if<HogSvmStage>()) h->carry = carry;
    return m;
}

// The planes as interleaved B, G, R bytes (an ImageView of w × h, 3 channels, ChannelOrder::BGR).
inline std::vector<std::uint8_t> bgr_bytes(const ColourPlanes& planes) {
    const std::size_t n = planes.r.pixels.size();
    std::vector<std::uint8_t> bgr(n * 3);
    for (std::size_t i = 0; i < n; ++i) {
        bgr[3 * i] = planes.b.pixels[i];
        bgr[3 * i + 1] = planes.g.pixels[i];
        bgr[3 * i + 2] = planes.r.pixels[i];
    }
    return bgr;
}

// Writes a binary PGM (8-bit gray) that OpenCV and every image viewer read.
inline void write_pgm(const std::filesystem::path& path, const GrayImage& img) {
    std::ofstream out(path, std::ios::binary);
    out << "P5\n" << img.width << " " << img.height << "\n255\n";
    out.write(reinterpret_cast<const char*>(img.pixels.data()), static_cast<std::streamsize>(img.pixels.size()));
}

// The source tree: $CASCADEKIT_SOURCE_DIR (tests run from a copied tree, as on the GPU machine),
// else where the tests were built from.
inline std::filesystem::path source_dir() {
    if (const char* d = std::getenv("CASCADEKIT_SOURCE_DIR"); d && *d) return d;
    return CASCADEKIT_SOURCE_DIR;
}

// $CASCADEKIT_DATA, else ../shared/data relative to the source tree.
inline std::filesystem::path data_dir() {
    if (const char* d = std::getenv("CASCADEKIT_DATA"); d && *d) return d;
    return source_dir() / ".." / "shared" / "data";
}

// A fresh, empty scratch folder under the build tree ($CASCADEKIT_SCRATCH when set).
inline std::filesystem::path scratch_dir(const std::string& name) {
    const char* root = std::getenv("CASCADEKIT_SCRATCH");
    const auto dir = (root && *root ? std::filesystem::path(root) : std::filesystem::path(CASCADEKIT_BINARY_DIR) / "test-scratch") / name;
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    return dir;
}

// A tiny training set for the command line: 60 positive crops (80x144, a bar in the window at
// (8, 8)) listed in DIR/pos.txt and 10 negative images (180x200) in DIR/neg.txt, as PGM files.
inline void write_bar_training_lists(const std::filesystem::path& dir, unsigned seed = 5) {
    std::mt19937 rng(seed);
    std::ofstream pos(dir / "pos.txt"), neg(dir / "neg.txt");
    for (int i = 0; i < 60; ++i) {
        GrayImage g = blobby_image(80, 144, static_cast<unsigned>(rng()));
        draw_bar(g, 8, 8, 1.0);
        write_pgm(dir / ("p" + std::to_string(i) + ".pgm"), g);
        pos << "p" << i << ".pgm\n";
    }
    for (int i = 0; i < 10; ++i) {
        write_pgm(dir / ("n" + std::to_string(i) + ".pgm"), blobby_image(180, 200, static_cast<unsigned>(rng())));
        neg << "n" << i << ".pgm\n";
    }
}

// The smallest useful model: two one-learner hog_svm stages (the seed of the model fuzzers,
// and the base of a libFuzzer finding replayed in model_file_test).
inline CascadeModel tiny_model() {
    CascadeModel m;
    HogLearner l;
    l.block = {16, 32, 32, 64};
    for (int k = 0; k < kBlockDims; ++k) l.weights[k] = k % 9 == 0 ? 1.0f : -1.0f;
    l.bias = 1.5f;
    HogSvmStage st;
    st.threshold = 0.5f;
    st.learners = {l};
    m.stages = {st, st};
    m.metadata = {"seed: 1", "fuzz seed", "2026-11-22T00:00:00Z", "0.1.0"};
    return m;
}

}  // namespace cascadekit::test
