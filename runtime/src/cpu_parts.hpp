#pragma once
// The CPU detector's internal parts, shared by its files: cpu_detector.cpp (the frame: octaves,
// units in flight, the merge), cpu_unit_scan.cpp (one unit's windows), cpu_scan_levels.cpp and
// cpu_scan_octaves.cpp (the units each scan mode plans).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "cascadekit/features/pyramid.hpp"
#include "cascadekit/runtime/cpu_detector.hpp"

namespace cascadekit::detail {

// The octave min_scale·2^k at or below a level's scale: its k.
inline int octave_of_level(double scale, double min_scale) {
    return std::max(0, static_cast<int>(std::floor(std::log2(scale / min_scale) + 1e-9)));
}

// Survivors of the prefix evaluated by one task (lazy features): a task per row left the rows
// with many survivors (a person's neighbourhood) to one thread each.
constexpr int kSurvivorChunk = 16;
// Windows a call of a first stage that runs rows together (StageEvaluator::runs_rows_together)
// takes at least, in whole rows (a row of more takes one call): a WaldBoost stage then keeps its
// chunks of 512 full (waldboost_lbp.cpp).
constexpr int kRowBatchWindows = 1024;

}  // namespace cascadekit::detail

namespace cascadekit {

// What one level's windows produced, row by row; merged in level and row order so that the
// output is independent of threads and levels in flight. Reused between frames.
struct CpuDetector::LevelRows {
    struct Row {
        std::vector<Detection> detections;
        std::vector<std::uint64_t> rejected;
        std::uint64_t weak = 0;
        std::uint64_t scanned = 0;
        // Lazy features: the windows past the prefix, their x, their progress and whether they
        // passed the rest.
        std::vector<int> survivor_x;
        std::vector<WindowProgress> survivors;
        std::vector<std::uint8_t> passed;
    };
    std::vector<Row> rows;
};

// One level in flight's storage: its images and feature planes. Reused between levels and
// frames: no allocation after the first frame of a size.
struct CpuDetector::LevelWork {
    // A run of one row's survivors.
    struct Chunk {
        int scan, row, begin, end;
    };
    FramePyramid::Level images;
    // DetectParams::scale_windows: the octave's images smoothed (smooth_binomial), which the
    // features are computed from.
    GrayImage smoothed;
    ColourPlanes smoothed_colour;
    LevelFeatures features;
    std::vector<Chunk> chunks;
    std::size_t pixels = 0;  // of the largest level it held: what its storage has grown to
};

// DetectParams::approximate_hog: an octave of the frame, smoothed, and its HoG histogram;
// approximate_lbp: its gray integral image (of the octave as it is: the LBP cells' sums smooth).
struct CpuDetector::Octave {
    PyramidLevel image;  // with a border that covers its levels' (level_pad at scale < 2)
    bool hog_read = false, gray_read = false;  // whether some level reads its HoG histogram, its gray integral
    FramePyramid::Level images;
    GrayImage smoothed;
    ColourPlanes smoothed_colour;
    IntegralHistogram hog;
    HistogramCells cells;  // hog's cells, which its levels read
    IntegralImage gray;
};

}  // namespace cascadekit
