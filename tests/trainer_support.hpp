#pragma once
// Synthetic training data shared by the trainer tests and the GPU mining test.
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "cascadekit/io/pnm.hpp"
#include "cascadekit/trainer/trainer.hpp"
#include "test_support.hpp"

namespace cascadekit::test {

namespace fs = std::filesystem;

inline GrayImage read_pgm(const fs::path& p) {
    const PnmImage pnm = read_pnm(p);  // throws naming the file
    return to_gray(pnm.view());
}

// 80×144 crops (8-px margin) of a bright bar on textured background, with jitter in width,
// brightness and position; negatives: textured images with bars of the wrong orientation.
struct SyntheticData {
    fs::path dir;
    Dataset train, test;
};

inline GrayImage positive_crop(std::mt19937& rng) {
    GrayImage g = blobby_image(80, 144, static_cast<unsigned>(rng()));
    std::uniform_real_distribution<double> jitter(-2, 2), scale(0.9, 1.1);
    std::uniform_int_distribution<int> value(170, 255);
    draw_bar(g, 8 + jitter(rng), 8 + jitter(rng), scale(rng), static_cast<std::uint8_t>(value(rng)));
    return g;
}

inline GrayImage negative_image(std::mt19937& rng) {
    GrayImage g = blobby_image(200, 220, static_cast<unsigned>(rng()));
    std::uniform_int_distribution<int> y(0, 200), x(0, 190), w(2, 24), len(10, 70), horizontal(0, 1);
    for (int k = 0; k < 10; ++k) {  // bars of the wrong orientation, width or length
        const int y0 = y(rng), x0 = x(rng), bw = w(rng), bl = len(rng);
        const bool h = horizontal(rng) != 0;
        for (int yy = y0; yy < std::min(220, y0 + (h ? bw : bl)); ++yy)
            for (int xx = x0; xx < std::min(200, x0 + (h ? bl : bw)); ++xx) g.at(xx, yy) = 240;
    }
    return g;
}

inline SyntheticData make_data(const std::string& name) {
    SyntheticData d;
    d.dir = scratch_dir(name);
    std::mt19937 rng(99);
    std::ofstream pos(d.dir / "pos.txt"), neg(d.dir / "neg.txt");
    for (int i = 0; i < 160; ++i) {
        const fs::path p = d.dir / ("pos" + std::to_string(i) + ".pgm");
        write_pgm(p, positive_crop(rng));
        PositiveCrop c{p, p.stem().string(), false};
        (i % 4 == 3 ? d.test : d.train).positives.push_back(c);
    }
    for (int i = 0; i < 40; ++i) {
        const fs::path p = d.dir / ("neg" + std::to_string(i) + ".pgm");
        write_pgm(p, negative_image(rng));
        (i % 4 == 3 ? d.test : d.train).negatives.push_back(p);
    }
    d.train.description = "synthetic bars";
    return d;
}

// Colour files (PPM) for the loaders that keep colour: the image as decoded (RGB).
inline Image read_colour(const fs::path& p) { return to_image(read_pnm(p).view()); }

// `gray` in colour, with the marked pixels (mark > 0) shifted by (+60, −30, −3) in R, G, B: a
// change of almost no luma (4899·60 − 9617·30 − 1868·3 = −174 of 2^14 per level), so the mark
// shows in colour gradients and (nearly) not in gray ones. Levels are squeezed into 35…195 first,
// so that no shifted channel clips.
inline Image isoluminant_marks(const GrayImage& gray, const GrayImage& mark) {
    Image out(gray.width, gray.height, 3);
    for (std::size_t i = 0; i < gray.pixels.size(); ++i) {
        const int v = 35 + gray.pixels[i] * 160 / 255, m = mark.pixels[i] > 0;
        out.pixels[3 * i] = static_cast<std::uint8_t>(v + 60 * m);
        out.pixels[3 * i + 1] = static_cast<std::uint8_t>(v - 30 * m);
        out.pixels[3 * i + 2] = static_cast<std::uint8_t>(v - 3 * m);
    }
    return out;
}

// make_data's bars drawn in colour of the background's luma (isoluminant_marks): positives a
// bar of the right orientation, negatives bars of the wrong ones, all as PPM files.
inline SyntheticData make_colour_data(const std::string& name) {
    SyntheticData d;
    d.dir = scratch_dir(name);
    std::mt19937 rng(77);
    for (int i = 0; i < 160; ++i) {
        const fs::path p = d.dir / ("pos" + std::to_string(i) + ".ppm");
        GrayImage mark(80, 144);
        std::uniform_real_distribution<double> jitter(-2, 2), scale(0.9, 1.1);
        draw_bar(mark, 8 + jitter(rng), 8 + jitter(rng), scale(rng));
        write_pnm(p, isoluminant_marks(blobby_image(80, 144, static_cast<unsigned>(rng())), mark).view());
        (i % 4 == 3 ? d.test : d.train).positives.push_back({p, p.stem().string(), false});
    }
    for (int i = 0; i < 40; ++i) {
        const fs::path p = d.dir / ("neg" + std::to_string(i) + ".ppm");
        GrayImage mark(200, 220);
        std::uniform_int_distribution<int> y(0, 200), x(0, 190), w(2, 24), len(10, 70), horizontal(0, 1);
        for (int k = 0; k < 10; ++k) {
            const int y0 = y(rng), x0 = x(rng), bw = w(rng), bl = len(rng);
            const bool h = horizontal(rng) != 0;
            for (int yy = y0; yy < std::min(220, y0 + (h ? bw : bl)); ++yy)
                for (int xx = x0; xx < std::min(200, x0 + (h ? bl : bw)); ++xx) mark.at(xx, yy) = 1;
        }
        write_pnm(p, isoluminant_marks(blobby_image(200, 220, static_cast<unsigned>(rng())), mark).view());
        (i % 4 == 3 ? d.test : d.train).negatives.push_back(p);
    }
    d.train.description = "synthetic colour bars";
    return d;
}

// extra: more YAML lines (keys not set above).
inline TrainConfig tiny_config(const std::string& extra = "") {
    TrainConfig c = parse_train_config(R"(
seed: 5
data: {layout: lists, positives_list: unused, negatives_list: unused, holdout_every: 0}
boosting: {candidates_per_round: 12, d_min: 0.98, f_max: 0.5, F_target: 0.0001, max_stages: 5, max_learners_per_stage: 12}
svm: {C: 0.1, weighting: resample}
mining: {stride: 8, scale_step: 1.25, backend: cpu}
)" + extra, "tiny");
    return c;
}

// A WaldBoost LBP sequence of 24 weak classifiers on the synthetic data.
inline TrainConfig tiny_waldboost_config() {
    return parse_train_config(R"(
seed: 7
data: {layout: lists, positives_list: unused, negatives_list: unused, holdout_every: 0}
boosting: {stage_kind: waldboost_lbp, max_stages: 1}
waldboost: {weak_classifiers: 24, alpha: 0.05, features_per_round: 300, negatives: 300, refill_below: 0.5}
mining: {stride: 8, scale_step: 1.25, backend: cpu}
)", "waldboost-tiny");
}

// A hybrid: 3 LBP weak classifiers, then HoG stages.
inline TrainConfig tiny_hybrid_config() {
    TrainConfig cfg = tiny_config();
    cfg.boosting.stage_sequence = {"waldboost_lbp", "hog_svm"};
    cfg.boosting.max_stages = 3;
    cfg.waldboost.weak_classifiers = 3;
    cfg.waldboost.features_per_round = 200;
    cfg.waldboost.alpha = 0.02;
    return cfg;
}

class Quiet : public TrainObserver {
public:
    int rounds = 0, stages = 0, mining = 0;
    std::vector<std::string> notes;
    std::vector<std::size_t> negatives;  // each stage's
    void on_round(const RoundReport&) override { ++rounds; }
    void on_stage(const StageReport& s) override {
        ++stages;
        negatives.push_back(s.negatives);
    }
    void on_mining(const MiningProgress&) override { ++mining; }
    void on_note(const std::string& n) override { notes.push_back(n); }
};

inline std::vector<char> bytes(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace cascadekit::test
