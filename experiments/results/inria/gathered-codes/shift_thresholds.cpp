// Built: g++ -O2 -std=c++20 -I model/include -I features/include -I io/include shift_thresholds.cpp -o thr build/io/libcascadekit_io.a build/model/libcascadekit_model.a build/features/libcascadekit_features.a -lhdf5_serial -lcrypto -ltbb
// thr IN (prints the tables); thr IN OUT delta: every rejection threshold and the final one raised by delta.
// Throw-away: shift the WaldBoost prefix's rejection thresholds. thr IN OUT delta [ramp_T]
#include "cascadekit/io/model_file.hpp"
#include "cascadekit/model/waldboost_lbp_stage.hpp"
#include <cstdio>
#include <cstdlib>
using namespace cascadekit;
int main(int argc, char** argv) {
    CascadeModel m = load_model(argv[1]);
    auto& s = m.stages[0].as<WaldBoostLbpStage>();
    if (argc < 4) { for (std::size_t t = 0; t < s.weak.size(); ++t) { float lo = 1e9, hi = -1e9; for (float r : s.weak[t].responses) lo = std::min(lo, r), hi = std::max(hi, r); std::printf("%zu cell %d,%d %dx%d thr %.3f resp [%.2f, %.2f]\n", t, s.weak[t].cell.x, s.weak[t].cell.y, s.weak[t].cell.w, s.weak[t].cell.h, s.weak[t].reject_threshold, lo, hi);} std::printf("final %.3f\n", s.final_threshold); return 0; }
    const float d = std::atof(argv[3]);
    const int T = argc > 4 ? std::atoi(argv[4]) : 0;
    for (std::size_t t = 0; t < s.weak.size(); ++t) {
        float w = T > 0 ? std::min(1.0f, float(t + 1) / T) : 1.0f;
        if (s.weak[t].reject_threshold > -1e30f) s.weak[t].reject_threshold += d * w;
    }
    s.final_threshold += d;
    save_model(m, argv[2]);
}
