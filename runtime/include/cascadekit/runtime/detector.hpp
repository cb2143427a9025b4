#pragma once
// The Detector interface (Bilgiç, MIT 2010; Dalal, PhD thesis 2006): scan a model's window over an image pyramid,
// evaluate the cascade's stages in order with early rejection, return the accepted windows and
// per-stage statistics. Backends: CPU (TBB) now, CUDA behind the same interface.
#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "cascadekit/features/enum_names.hpp"
#include "cascadekit/features/image.hpp"
#include "cascadekit/model/cascade.hpp"

namespace cascadekit {

// How the window is scanned. Defaults are Bilgiç's sparse scan (stride 8, ×1.2).
// Limits validate() enforces on DetectParams: the work and memory of a scan stay bounded.
inline constexpr double kMinScaleStep = 1.01, kMaxScaleStep = 10.0;
inline constexpr double kMinMinScale = 1.0 / 16;

struct DetectParams {
    int stride = 8;            // window step in level pixels, both axes
    double scale_step = 1.2;   // ratio of consecutive pyramid scales, > 1
    double min_scale = 1.0;    // smallest window scale (input pixels per level pixel); < 1 upscales
    double max_scale = 0.0;    // largest window scale; 0 = until the level is smaller than the window
    // Level pixels of replicated border on every side of every pyramid level (OpenCV's
    // detectMultiScale pads by 16 for its 8-pixel stride), so that windows reach past the image's
    // edges at every scale: people cut by the frame, or filling it. 0–256.
    int level_pad = 0;
    // Also return rejected windows (for evaluation: every window's deciding stage and score).
    bool keep_rejected = false;
    // false: every level is the input resampled to its scale and scanned by the model's windows.
    // true (CPU backend only): only the octaves are resampled (scales min_scale·2^k) and smoothed
    // (smooth_binomial), and each level in between is scanned on its octave by the model scaled
    // to the level (scale_model, runtime/scaled_windows.hpp; scaled_stride): about an eighth of
    // the pixels to resample and integrate, with approximate features at those levels, so other
    // scores and detections. A
    // level's level_pad is rounded to the HoG histograms' grid. The CUDA backend refuses it.
    // The shipped people hybrid at 1280×960, ×1.05, stride 8 on one thread: 1.4–2.8× faster,
    // 0.01–0.03 less accurate on PennFudanPed.
    bool scale_windows = false;
    // false: every level's HoG integral histogram is computed from the level's own pixels.
    // true (CPU backend only; not with scale_windows): only at the octaves (scales
    // min_scale·2^k) are HoG histograms computed from pixels, of the octave smoothed
    // (smooth_binomial); every level of scale in [min_scale·2^k, min_scale·2^(k+1)) gets its
    // histogram by interpolating octave k's (IntegralHistogram::approximate: Dollár et al.'s fast
    // feature pyramids, PAMI 2014; the octave's own level takes its cells as they are) and is
    // scanned by the model itself, as resampled. Levels still get their own gray images where an
    // LBP stage reads them (unless approximate_lbp); after an LBP prefix a level's HoG histogram is
    // always the interpolated one (CpuOptions::prefix_planes' survivor blocks would need the
    // level's own gradients). Other scores and detections than the resampled
    // scan, of about the same accuracy; faster on the CPU. The CUDA backend refuses it.
    bool approximate_hog = false;
    // false: LBP stages read every level's own gray integral image.
    // true (CPU backend only; not with scale_windows; alone or with approximate_hog): every level
    // of scale in [min_scale·2^k, min_scale·2^(k+1)) is scanned by its LBP stages on octave k's
    // gray integral image, a window at level (x, y) at the octave pixel nearest to where the level
    // puts it, with the stage's cells scaled by the level's ratio to the octave (scale_lbp_cells,
    // runtime/scaled_windows.hpp) and rounded to whole pixels; the window's other stages read the
    // level's own (or, with approximate_hog, interpolated) planes at the level's windows. Such a
    // level needs no pixels of its own for its LBP stages: with approximate_hog, or where no
    // window passes an LBP prefix, it is never resampled. The octave's own level reads it
    // unscaled: the same sums as from its own pixels. Other scores and detections than the
    // resampled scan, of about the same accuracy; faster on the CPU. The CUDA backend refuses it.
    bool approximate_lbp = false;
};

// Throws std::invalid_argument naming the bad parameter.
void validate(const DetectParams& params);

// The option (as `cascade detect` spells it) that makes params a CPU-only scan, or null:
// scale_windows, approximate_hog or approximate_lbp. Backend::Auto then takes the CPU, and
// CudaDetector refuses it.
const char* cpu_only_scan(const DetectParams& params);

// Empty when a width × height input holds at least one window of the scan; else why not, in
// words ("image 3x3 is smaller than the model window 64x128 at scale 0.75 ..."). Both backends
// throw DetectError with it, and `cascade detect` checks its padded frames with it.
std::string window_fit_problem(int width, int height, int window_width, int window_height, const DetectParams& params);

// The scan a model's operating point names (stride, scale step, smallest scale; no largest).
DetectParams detect_params(const OperatingPoint& point);

// An accepted window in input pixels: the window's top-left (x, y) and its size (w, h) =
// model window × level scale. score: for an accepted window, the sum over all stages of (stage
// sum − threshold), each term >= 0: by how much the window cleared the whole cascade (the last
// stage's margin alone ranks detections worse; a
// nested stage's margin, which carries a share of the sum so far, replaces the sum: HogSvmStage); for a
// rejected window (kept with keep_rejected), the rejecting stage's sum minus its threshold (< 0).
struct Detection {
    double x = 0, y = 0, w = 0, h = 0;
    float score = 0;
    int level = 0;  // pyramid level, -1 after fusion
    double scale = 1.0;
    int stages_passed = -1;  // number of stages the window passed (all of them when accepted)
    // After fusion: the raw windows the box stands for (mean shift: those whose mode it is; NMS:
    // itself and those it suppressed), OpenCV's "neighbours" plus one. A raw window: 1.
    int support = 1;
    Box box() const { return {x, y, w, h}; }
    friend bool operator==(const Detection&, const Detection&) = default;
};

struct DetectStats {
    std::uint64_t windows_scanned = 0;
    std::vector<std::uint64_t> rejected_per_stage;  // windows rejected by stage s (one entry per stage)
    std::uint64_t weak_evaluated = 0;               // HoG learners plus LBP weak classifiers evaluated
    int levels = 0;                                 // pyramid levels scanned
    std::uint64_t windows_accepted() const {
        std::uint64_t r = 0;
        for (auto n : rejected_per_stage) r += n;
        return windows_scanned - r;
    }
    friend bool operator==(const DetectStats&, const DetectStats&) = default;
};

struct DetectResult {
    std::vector<Detection> detections;  // raw accepted windows (all with keep_rejected), by level, y, x
    DetectStats stats;
};

// A detection request that cannot be served (e.g. an image smaller than the window). Other
// requests to the same detector still can be.
class DetectError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// The device failed (a CUDA error: a kernel fault, lost device, out of device memory). The
// detector, and often every detector on that device, cannot be used any more: callers stop.
// Not a DetectError, so that code which skips unservable inputs does not skip this.
class DeviceError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

enum class Backend { Auto, Cpu, Cuda };
inline constexpr EnumNames<Backend, 3> kBackendNames{{{{Backend::Auto, "auto"}, {Backend::Cpu, "cpu"}, {Backend::Cuda, "cuda"}}}};
std::string to_string(Backend backend);
bool parse_backend(const std::string& text, Backend& out);

// How a cascade whose first stages read fewer feature planes than the rest (an LBP prefix in
// front of HoG stages) gets the HoG planes of a level (CpuOptions, CudaOptions). The same
// detections every way.
enum class PrefixPlanes {
    EveryLevel,          // every plane of every level first, then every stage (as without a prefix)
    WhereSurvivors,      // the prefix on every window; a level's integral histogram only when some
                         // window survived it, then the other stages on the survivors (CPU only)
    SurvivorBlocks,      // the prefix on every window; then only a per-pixel gradient plane, and each
                         // survivor's blocks summed from it (no integral histogram at all)
    PerLevel,            // the prefix on every window; then per level whichever costs less by
                         // CpuOptions::integral_from_survivors: survivor blocks where the survivors
                         // are few, the level's integral histogram where they are many (CPU only)
};

// Which of a frame's detections to keep (Detector::detect_batch, BulkDetector::run): given the
// frame (its index in the batch or run) and how many detections detect() gives for it (the
// accepted windows; every window with keep_rejected), the ranks of those to keep in detect()'s
// order, each below that count and none twice, in the order wanted. The frame's result then holds
// just those detections, in that order; its stats are unchanged. Called from worker threads,
// several frames at once. The trainer's bootstrapping keeps a few dozen of the tens of thousands
// of windows a frame of its first passes accepts; the CUDA backend then makes only those.
using KeepRanks = std::function<std::vector<std::uint32_t>(std::size_t frame, std::uint64_t detections)>;

// Keeps result.detections[ranks[0]], [ranks[1]], … in that order (take_rank's errors).
void keep_ranks(DetectResult& result, const std::vector<std::uint32_t>& ranks);
// A kept rank of `count` detections: throws std::out_of_range for one past the end,
// std::invalid_argument for one in `taken` already; then marks it taken.
void take_rank(std::uint32_t rank, std::size_t count, std::vector<bool>& taken);

// Thread safety: one Detector serves one detect() call at a time (it owns reusable buffers);
// use one Detector per thread for concurrent calls. Results do not depend on the thread count.
class Detector {
public:
    virtual ~Detector() = default;
    // Requires: a valid image (see validate(ImageView)). Throws DetectError when no pyramid level
    // fits the window (the image, scaled by 1/min_scale, is smaller than the window).
    virtual DetectResult detect(const ImageView& image) = 0;
    // Many images (bulk processing, bootstrapping), results in input order, each equal to
    // detect()'s. The CUDA backend keeps up to `in_flight` frames on their own streams; the
    // default runs them in turn.
    virtual std::vector<DetectResult> detect_batch(const std::vector<ImageView>& images, int in_flight = 4);
    // The same, each frame keeping only the detections `keep` names (an empty `keep`: all).
    virtual std::vector<DetectResult> detect_batch(const std::vector<ImageView>& images, int in_flight, const KeepRanks& keep);
    virtual std::string backend_name() const = 0;
    virtual const CascadeModel& model() const = 0;
    virtual const DetectParams& params() const = 0;

    // Validates model and params (throws ModelError / std::invalid_argument). Backend::Auto picks
    // CUDA when this build has it, a device is present and it runs every stage kind of the model
    // and the scan (not params.scale_windows), else CPU; Backend::Cuda throws DetectError when
    // unavailable or asked for scale_windows. `device`: the CUDA device every
    // call of the detector runs on (ignored by the CPU backend).
    static std::unique_ptr<Detector> create(const CascadeModel& model, const DetectParams& params,
                                            Backend backend = Backend::Auto, int device = 0);
};

// Starts the backend's one-time set-up, the CUDA context of `device` (a third of a second on an
// H100 host), on a thread of its own, so that it overlaps other work, such as a training run's
// data loading, and the first detector finds it done. Returns at once; the future waits for the
// set-up when destroyed. Nothing to do for Backend::Cpu, in a build without CUDA or where no
// device is present; a set-up that fails is left for the first detector to report.
std::future<void> warm_up(Backend backend, int device = 0);

}  // namespace cascadekit
