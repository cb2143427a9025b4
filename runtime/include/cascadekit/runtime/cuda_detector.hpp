#pragma once
// The CUDA backend (Bilgiç, MIT 2010; Dalal, PhD thesis 2006), behind the Detector interface. Present in builds with
// CASCADEKIT_HAVE_CUDA; this header needs no CUDA headers (the device state is private).
//
// Per frame, on the detector's stream and without allocating after the first frame of a size:
//   upload   the raw frame from a pinned host buffer;
//   gray     BT.601 fixed-point luma (the same integers as to_gray), then its octaves (2×2 box
//            halvings as features' halve(), one launch each, only as deep as a level needs);
//   rows     one block per (level, 4 rows), all levels in one launch: fixed-point bilinear resampling
//            of the level rows it needs from the level's octave (pyramid.hpp), [-1 0 1] gradients, orientation bin and quantised
//            magnitude from features' gradient_entry() (one __host__ __device__ definition), and a
//            block-wide scan along the row;
//   columns  the scan down every column of every level, 16-byte loads;
//   gray integral (models with LBP stages) the same two passes for each level's gray integral
//            image, exact uint32, the level's resampling fused into the row pass;
//   stages   launches over the surviving windows only (survivor compaction); hog_svm: one launch
//            a stage, small stages one thread per window, large ones one warp per window (lanes
//            over learners, summed in learner order); waldboost_lbp: a launch per part between
//            compaction boundaries (CudaOptions::lbp_boundaries), a thread per window in the
//            early parts (the frame's first part several windows a thread, lbp_first_rows, or
//            tiled, CudaOptions::lbp_tiled; survivors compacted inside blocks at lbp_tile_cuts and
//            lbp_part_cuts), a warp per
//            window from lbp_warp_from, a block per window from lbp_block_from, early rejection
//            after every weak classifier; a survivor's score accumulates its stage margins;
//   download per-stage counts and the accepted windows.
// Integral histograms are uint32 (exact: every rectangle sum of area <= kMaxExactRectArea is the
// true sum, see integral_histogram.hpp) in three planes per level: bins 0-3 and 4-7 as uint4,
// bin 8 as uint32, so a point is two 16-byte loads and one 4-byte load. Descriptors, margins and
// stage sums use block_math.hpp compiled without fused multiply-add: the GPU's accept/reject
// decisions and scores are bit-identical to the CPU backend's.
// After the first frame of a size the launches are replayed as one CUDA graph.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cascadekit/features/enum_names.hpp"
#include "cascadekit/runtime/detector.hpp"

namespace cascadekit {

// True when a CUDA device can be used; otherwise false and, if why is given, the reason.
bool cuda_available(std::string* why = nullptr);
// Creates device's CUDA context now (warm_up runs it on a thread of its own); does nothing where
// there is no such device, and leaves every error for the first detector to report.
void cuda_warm_up(int device) noexcept;

// How survivors are compacted between stages.
enum class Compaction {
    WarpAtomics,   // each warp appends its survivors with one atomicAdd (order not kept; ids sorted at the end)
    BlockAtomics,  // each block gathers its survivors with shared-memory atomics, then one global atomicAdd
                   // (Macenauer's fastest, and ours; launches with a warp or a block per window append
                   // one survivor at a time)
    CubSelect      // stage writes flags, cub::DeviceSelect::Flagged keeps id order
};
inline constexpr EnumNames<Compaction, 3> kCompactionNames{{{{Compaction::WarpAtomics, "warp-atomics"},
                                                             {Compaction::BlockAtomics, "block-atomics"},
                                                             {Compaction::CubSelect, "cub-select"}}}};

struct CudaOptions {
    // Block atomics by default: at 1920×1080 the first WaldBoost launch keeps 12 M windows, and a
    // warp's atomicAdd each on one counter queued at the L2.
    Compaction compaction = Compaction::BlockAtomics;
    // Stages with at least this many learners use one warp per window; smaller ones one thread.
    int warp_stage_min_learners = 16;
    // WaldBoost LBP sequences: survivors are compacted after these numbers of weak classifiers
    // (and at the sequence's end); each part between two boundaries is one launch over the
    // survivors of the one before. Macenauer (Brno 2015) used 1, 8, 64, 256, 512. On the shipped
    // face model (97 % of windows pass its first weak classifier) 4, 16, 64, 256 was fastest
    // untiled; with the tiled first launch below, 16, 64, 256 and an in-block cut at 4. The face
    // sequence shipped (backward pruning: its late thresholds reject
    // a little at every table) is faster with one launch from 64 on: 16, 64. Since the warp
    // parts' chained sums 8, 64 was faster than 16, 64 in all six benchmark
    // runs at 1920×1080, and 4, 64 faster still in every run that had it (0.918–0.940 against
    // 0.984–0.989 ms batched at stride 1, 0.404–0.408 against 0.415–0.425 at stride 2, the
    // people hybrid 0.539 against 0.550): the default since. The face
    // sequence trained with α 0.15 leaves fewer windows after its first
    // tables, and 2, 64 beat 4, 64 in all nine benchmark runs that had both (0.741–0.756 against
    // 0.768–0.794 ms batched for it, 0.701–0.727 against 0.723–0.755 for its variants; the people
    // hybrid within noise, 0.452–0.459 against 0.451–0.465), and 1, 64 beat 2, 64 in both runs
    // that had it (0.706–0.710 against 0.750–0.752 ms for the face sequence, 0.340–0.342 against
    // 0.348 at stride 2; the people hybrid 0.457 against 0.454): the default since then, checked
    // window by window against the CPU on the device.
    std::vector<int> lbp_boundaries = {1, 64};
    // Threads per block of the WaldBoost launches: 64, 128, 256 or 512 (CudaDetector refuses
    // others). Block atomics gather one block's survivors at a time.
    int lbp_block_threads = 256;
    // Parts that start at this weak classifier or later run one warp per window; earlier parts
    // one thread per window. The warp's lanes look up a round of weak classifiers at once, then
    // add their responses in order: rounds of 32, 64, 128, … up to 32 × lbp_warp_round (1, 2, 4
    // or 8 look-ups a lane; CudaDetector refuses others). 2 gave the shortest latency and batched
    // times with the shipped face sequence at 1920×1080; 8 was 3 % slower batched.
    int lbp_warp_from = 64;
    int lbp_warp_round = 2;
    // Parts that start at this weak classifier or later run a block of 256 threads per window
    // instead of a warp: rounds of up to 256 look-ups at once, one a thread, added in order by one
    // warp. For the few windows that run a long sequence to its end, whose look-ups a warp would
    // take dozens at a time one round after another. Past the sequence's length: never. With the
    // shipped face sequence padded to 2048 at 1920×1080, stride 1, the part from 256 this way took
    // batched time from 1.08 to 1.04–1.05 ms and latency from 1.48–1.51 to 1.47–1.49 ms.
    // With the default boundaries no part starts at 256, so the warp kernel runs the tail: the
    // pruned face sequence's 12,000 windows past table 256 mostly leave soon, where a block per
    // window is slower than a warp.
    int lbp_block_from = 256;
    // The frame's first WaldBoost launch (the first part of a model's first stage) gives each
    // block a tile of 32 × 8 neighbouring windows and copies their patch of the gray integral image
    // to shared memory, when the patch fits in 48 KiB at the detector's stride (24×24 faces at
    // strides 1–8: yes; 64×128 people windows at stride 8: no). false (default): never. Since
    // the untiled first launch takes several windows a thread (lbp_first_rows)
    // it is the faster at strides 1 and 2 with the shipped face sequence.
    bool lbp_tiled = false;
    // ... and only when the detector's stride is at least this (with lbp_tiled). Before the
    // untiled launch took several windows a thread, the tiled one was the faster from stride 2.
    // 1: at every stride.
    int lbp_tiled_from_stride = 2;
    // Where the frame's first WaldBoost launch is not tiled, each thread takes this many windows
    // of one column of a 32 × 8 tile, one above another, sharing their weak classifiers' corner
    // offsets and loading their corners at once (1, 2, 4 or 8; CudaDetector refuses others).
    // 0: one thread per window, the window's level and place found by each thread, as every later
    // part does. With the shipped face sequence at 1920×1080, stride 1 (H100, batched ms per
    // frame): 0: 0.71, 1: 0.69, 2: 0.64, 4: 0.60, 8: 0.60.
    int lbp_first_rows = 4;
    // Inside that tiled launch, the block's surviving windows are compacted in shared memory (in
    // window order) after these weak classifiers (at most 6; those at or past the first part's
    // end are ignored). Untiled, they are boundaries like lbp_boundaries.
    std::vector<int> lbp_tile_cuts = {4};
    // The untiled parts that run a thread per window (before lbp_warp_from) compact their
    // surviving windows inside each block after these numbers of weak classifiers (at most 6 a
    // part; those on a part's boundary are ignored), so that warps whose windows were all
    // rejected retire instead of waiting on the block's last window. Not with CubSelect. Empty:
    // none. 24, 32, 48 (inside the part from 16 to 64) was the fastest of five sets with the
    // shipped face sequence at 1920×1080: 2 % less batched time at stride 1, 4–5 % at stride 2,
    // against none.
    std::vector<int> lbp_part_cuts = {24, 32, 48};
    // Models with an LBP prefix in front of HoG stages: EveryLevel builds every level's integral
    // histograms (as without a prefix); SurvivorBlocks builds only a per-pixel gradient plane per
    // level and sums each survivor's blocks from it. WhereSurvivors and PerLevel are CPU-only.
    // Unset (default): EveryLevel when the integral histograms can be kept on a grid of 2 or 4
    // pixels (grid_histograms, and the model's blocks and the stride allow it: hog_scan_grid),
    // since those cost a quarter or a sixteenth of the points; else SurvivorBlocks. The hybrid
    // trained on a 4-pixel block grid (models/inria-hybrid.h5) took 0.441 ms batched
    // at 1280×960, ×1.05, stride 8 with every level's grid histograms against 0.579 with survivor
    // blocks; the one on Zhu's pool 0.48 with survivor blocks.
    // prefix_planes() says which one a detector uses.
    std::optional<PrefixPlanes> prefix_planes = std::nullopt;
    // With SurvivorBlocks, the hog_svm stages from this model stage (0-based) to the end run as
    // one launch: a block per window takes it through stage after stage until one rejects it,
    // instead of a launch per stage whose few windows cost less than the launch. Applies when
    // they are at least two and the compaction is not CubSelect; -1: a launch per stage. The
    // default, every HoG stage after a one-stage prefix: 0.75 → 0.63 ms per frame for the shipped
    // hybrid at 1280×960, ×1.05.
    int hog_tail_from = 1;
    // Models that read no colour (no HoG channels: colour): each frame is converted to gray on the
    // host while it is copied to the pinned staging buffer (the same bytes as to_gray), so a third
    // of an RGB frame's bytes is uploaded, straight into the gray octave, and no conversion kernel
    // runs. false: the RGB bytes are staged and uploaded, and a kernel converts them. Faces at
    // 1920×1080 on the H100: latency 1.42 → 1.34–1.38 ms at stride 1, 0.73 → 0.66 ms at stride 2.
    bool host_gray = true;
    // The gray integral images (the LBP stages' feature) in 2 bytes a point, modulo 2^16, for
    // models whose LBP cells all have at most 128 pixels (every cell of a 24×24 or 26×26 face
    // window: 8×8 at most); other models keep uint32 points. A cell's sum is then at most
    // 128 × 255 < 2^15, so the difference of two cells' sums computed from the truncated points
    // and read as a signed 16-bit number is the exact difference, and every LBP code, score and
    // decision is the CPU's, whose integral images are exact uint32 (gpu tests compare them
    // window by window, and the images point by point modulo 2^16). Half the bytes to write and
    // read: the images of a 1920×1080 frame at 8 levels an octave (13 M points) fit the H100's
    // L2 cache. false: uint32 points for every model.
    bool gray_integral_16 = true;
    // HoG integral histograms only at the points of a 4-pixel (else 2-pixel) grid when every block
    // corner of the model and every window position lie on it (hog_block_grid and the stride both
    // multiples of 4, or of 2: block_pool.hpp's zhu-gridG pools at strides 2, 4, 8, …): the same
    // sums from 1/16 (1/4) of the points (CpuOptions::grid_histograms). false: every pixel's point.
    bool grid_histograms = true;
    bool use_graph = true;  // replay the frame's launches as a CUDA graph
    int device = 0;  // the CUDA device the detector lives and runs on
    // Tests: fill every device buffer with 0xFF bytes when it is sized, so that any output the
    // kernels fail to write shows as a wrong value.
    bool poison = false;
};

// Milliseconds per step of one frame, from CUDA events (the steps of Bilgiç's Table 7-2, MIT 2010).
// rows and columns: the integral histograms' two passes; gray_integral: the gray integral
// images' two passes (LBP stages). One entry per launch in `launches`.
struct CudaStepTimes {
    double upload = 0, gray = 0, rows = 0, columns = 0, gray_integral = 0, early_stages = 0, late_stages = 0, download = 0,
           total = 0;
    std::uint64_t integral_histogram_bytes = 0;  // bytes the rows + columns steps read and write
    struct Launch {
        int stage = 0;                    // 0-based
        std::uint32_t weak_after = 0;     // the stage's weak classifiers (learners) done after this launch
        std::uint64_t survivors = 0;      // windows that passed this launch
        double ms = 0;
    };
    std::vector<Launch> launches;
};

// What a detector's frames cost its slots, since it was built (CudaDetector::slot_work): frames
// that planned their slot's pyramid and uploaded its tables (a slot new, or last prepared for
// another frame size or scan), and graphs of another detector's frame or another frame size
// updated with this one's arguments, or instantiated (new, or an update refused: other nodes).
struct CudaSlotWork {
    std::uint64_t prepared = 0, graphs_updated = 0, graphs_instantiated = 0;
};

class CudaDetector final : public Detector {
public:
    // Throws DetectError when no device is usable, options.device does not exist, the model
    // has stages the GPU does not run (supports()) or params ask for DetectParams::scale_windows,
    // approximate_hog or approximate_lbp (CPU scans only); DeviceError when the device fails.
    // Everything the detector allocates lives on options.device, and every call runs there
    // (the caller's current device is restored after each call).
    CudaDetector(CascadeModel model, DetectParams params, CudaOptions options = {});
    // The frame slots (a stream with its pinned and device buffers, grown to the largest frames
    // served) outlive the detector: up to 64 a device wait for the next detector on that device,
    // which then allocates nothing for frames no larger (the trainer builds a detector for every
    // bootstrapping pass), and, with the same window and scan, plans no pyramid for frames of the
    // size a slot served last and updates its graph rather than instantiating one
    // (slot_work()). They are released when the process ends.
    ~CudaDetector() override;
    CudaDetector(const CudaDetector&) = delete;
    CudaDetector& operator=(const CudaDetector&) = delete;

    DetectResult detect(const ImageView& image) override;
    // Many frames (bulk processing, mining): up to `slots` frames in flight on their own streams
    // and buffers; results in input order. All images may differ in size. With 8 slots or more,
    // one host thread (of TBB's) for every 4 slots stages and launches the frames; TBB's other
    // workers put each frame read back in the CPU's order meanwhile (a `keep` callback is called
    // from them, for different frames at once).
    std::vector<DetectResult> detect_batch(const std::vector<ImageView>& images, int slots = 4) override;
    // Makes detections of the kept windows only (picked from the frame's accepted windows without
    // sorting them all).
    std::vector<DetectResult> detect_batch(const std::vector<ImageView>& images, int slots, const KeepRanks& keep) override;
    // One frame with events between the steps (no graph), for benchmarks.
    CudaStepTimes profile(const ImageView& image);
    // The integral histogram of pyramid level `level` of the last frame, in the CPU layout
    // ((h+1) x (w+1) x 9 uint32, as IntegralHistogram; on a grid of G (grid_histograms):
    // (h/G+1) x (w/G+1) x 9), for tests.
    std::vector<std::uint32_t> level_integral_histogram(int level, int& width, int& height) const;
    // The gray integral image of pyramid level `level` of the last frame ((h+1) x (w+1) uint32, as
    // IntegralImage; modulo 2^16 where gray_integral_16() is true), for tests; the model must have
    // an LBP stage.
    std::vector<std::uint32_t> level_integral_image(int level, int& width, int& height) const;
    // Whether this detector keeps its gray integral images modulo 2^16 (CudaOptions::gray_integral_16).
    bool gray_integral_16() const;
    // The preparations and graphs its frames have needed so far (tests, benchmarks).
    CudaSlotWork slot_work() const;
    // The gray image of the last frame, for tests.
    std::vector<std::uint8_t> last_gray() const;

    std::string backend_name() const override { return "cuda"; }
    const CascadeModel& model() const override { return model_; }
    const DetectParams& params() const override { return params_; }
    std::string device_name() const;
    int device() const;
    // How this detector builds the HoG planes after an LBP prefix (CudaOptions::prefix_planes, or
    // the default's choice for this model and stride).
    PrefixPlanes prefix_planes() const;
    // True when the backend has kernels for every stage kind of the model (hog_svm, waldboost_lbp);
    // otherwise false and, if why is given, which stage it cannot run.
    static bool supports(const CascadeModel& model, std::string* why = nullptr);

    struct Impl;

private:
    CascadeModel model_;
    DetectParams params_;
    std::unique_ptr<Impl> impl_;
};

// Device-to-device copy bandwidth in GB/s (bytes read + written per second), the median of
// `repeats` copies of `bytes` bytes: the roofline the benchmark compares with.
double cuda_copy_bandwidth(std::size_t bytes = std::size_t{1} << 30, int repeats = 9);

}  // namespace cascadekit
