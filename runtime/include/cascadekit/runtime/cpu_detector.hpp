#pragma once
// The CPU backend: TBB over the pyramid's levels, several at once (CpuOptions: each level in
// flight with its own images and features), and inside each level over its features, window rows
// and survivors. Output is independent of the number of threads and of the levels in flight:
// each level's windows are merged in level order.
#include <cstddef>
#include <memory>
#include <vector>

#include "cascadekit/features/pyramid.hpp"
#include "cascadekit/runtime/detector.hpp"
#include "cascadekit/runtime/window_evaluator.hpp"

namespace cascadekit {

struct CpuOptions {
    PrefixPlanes prefix_planes = PrefixPlanes::PerLevel;
    // PerLevel: a level whose survivors of the prefix number at least this many per megapixel
    // of the level gets its integral histogram; below, survivor blocks. The shipped people hybrid
    // on three PennFudan photos at 1280×960 (×1.05, stride 8, one thread): 100–250 equally fast,
    // 78–100 ms a frame against 97–209 with survivor blocks everywhere; 1000 already 1.2–1.5×
    // slower.
    double integral_from_survivors = 250.0;
    // HoG integral histograms only at the points of the grid that every block corner of the
    // model and every window position lie on (hog_block_grid and the stride: their greatest
    // common divisor, when it is 2 or more): the same sums from 1/G² of the points, so the same
    // detections (IntegralHistogram::compute). false: every pixel's point, always.
    bool grid_histograms = true;
    // Pyramid levels detected at once, each in its own storage (its images and feature planes),
    // started in order, the largest first: at most levels_in_flight, and beyond the first only
    // while the levels in flight take at most level_memory_in_flight bytes of storage (estimated
    // from the planes the model reads: 1 byte a pixel for the gray level, 3 more for colour, 4
    // for a gray integral image or a gradient plane, 36 for a HoG integral histogram (36 / G² on
    // a grid of G, at least 4), 1 or 3 for the HoG planes' levels through a gamma table).
    // Not in it: the frame's octaves that DetectParams::approximate_hog and approximate_lbp
    // read, kept for the whole frame (each octave's pixels, its smoothed copy, its HoG table and
    // cells, its gray integral image: some 10-20 bytes a frame pixel over all octaves with both,
    // for a gray model on a grid of 4).
    // levels_in_flight 1: one level after another, each parallel inside, whose joins leave
    // threads idle at every small level.
    // levels_in_flight >= 1.
    int levels_in_flight = 8;
    std::size_t level_memory_in_flight = std::size_t{256} << 20;
};

// Thread safety: as Detector (one detect() at a time per object; it parallelises inside).
class CpuDetector final : public Detector {
public:
    // Validates model and params (ModelError / std::invalid_argument); throws
    // std::invalid_argument naming the stage when a stage kind has no CPU evaluator.
    CpuDetector(CascadeModel model, DetectParams params, CpuOptions options = {});
    ~CpuDetector() override;
    // Detections in input pixels, ordered by level, then y, then x (the CUDA backend's order too).
    DetectResult detect(const ImageView& image) override;
    std::string backend_name() const override { return "cpu"; }
    const CascadeModel& model() const override { return model_; }
    const DetectParams& params() const override { return params_; }

private:
    CascadeModel model_;
    DetectParams params_;
    CpuOptions options_;
    CascadeEvaluator evaluator_;
    struct LevelWork;  // one image in flight's storage: its images and feature planes
    struct LevelRows;  // what one level's rows of windows produced
    struct UnitScan;   // one unit's scan (cpu_unit_scan.cpp)
    // One level's windows on an image of the frame: its own (the resampled level), or with
    // DetectParams::scale_windows its octave's, scanned by the model scaled to the level.
    struct Scan {
        int level = 0;                                // index in the frame's levels (and rows_)
        double scale = 1.0;                           // the level's: input pixels per level pixel
        const CascadeEvaluator* evaluator = nullptr;  // evaluator_, or the scaled model's
        int stride = 1;                               // window step on the image
        int offset = 0;                               // the first window's x and y on the image
    };
    // An image of the frame and the levels scanned on it: the unit of work in flight.
    struct Unit {
        PyramidLevel image;
        std::vector<Scan> scans;
        // DetectParams::approximate_hog and approximate_lbp: the octave (in octaves_) that this
        // level's HoG histogram is interpolated from and/or its LBP stages read, and the level's
        // scale over the octave's; -1: the level's own pixels for both.
        int octave = -1;
        double ratio = 1.0;
        bool hog_from_octave = false;  // approximate_hog
        bool lbp_from_octave = false;  // approximate_lbp (the scan's evaluator: scale_lbp_cells)
        std::vector<int> lbp_x{}, lbp_y{};  // and then each level column's and row's octave pixel (LevelFeatures)
    };
    void detect_unit(const Unit& unit, LevelWork& work) const;
    void prepare_octaves();                        // approximate scans: the octaves' planes first
    void detect_units();                           // every unit, several in flight
    DetectResult merged(std::size_t levels) const;  // the units' rows in level order
    // The frame's units: its levels, or its octaves (DetectParams::scale_windows).
    void plan_units(const std::vector<PyramidLevel>& levels, int width, int height);
    void plan_level_units(const std::vector<PyramidLevel>& levels, int width, int height);   // cpu_scan_levels.cpp
    void plan_octave_units(const std::vector<PyramidLevel>& levels, int width, int height);  // cpu_scan_octaves.cpp
    // Fixed by the model, parameters and options (set by the constructor):
    bool lazy_ = false;             // an LBP prefix runs first, the other planes only where windows survive it
    FeatureNeeds rest_needs_;       // what the stages after the prefix read beyond the prefix's planes
    bool survivor_blocks_ = false;  // lazy_ and the rest's HoG blocks come from gradient planes (SurvivorBlocks)
    std::size_t bytes_per_level_pixel_ = 0;  // a level's storage (CpuOptions::level_memory_in_flight)
    int hog_grid_ = 1;                       // the HoG integral histograms' grid (CpuOptions::grid_histograms)

    // Reused between frames: no allocation after the first frame of a size.
    FramePyramid frames_;                           // the frame's gray (and colour) pyramid
    std::vector<std::unique_ptr<LevelWork>> work_;  // as many as were ever in flight at once
    std::vector<LevelWork*> free_;                  // those not in flight
    std::vector<std::unique_ptr<LevelRows>> rows_;  // a level's each
    std::vector<Unit> units_;                       // the frame's, for frames of this size:
    int units_width_ = -1, units_height_ = -1;
    // DetectParams::scale_windows: level i's model scaled to its octave; approximate_lbp: its
    // LBP cells scaled (the same for every frame: the levels' scales do not depend on the
    // frame's size), built when first needed.
    std::vector<std::unique_ptr<CascadeEvaluator>> scaled_;
    // DetectParams::approximate_hog and approximate_lbp: the frame's octaves that levels read,
    // for frames of this size; their planes are computed before the levels are detected.
    struct Octave;
    std::vector<std::unique_ptr<Octave>> octaves_;
};

}  // namespace cascadekit
