// `cascade bench detect`: the detector's speed per frame on the CPU backend (1 and all threads),
// the CUDA backend (latency with transfers, batched throughput, time per step) and OpenCV's HOG
// people detector (through experiments' opencv_hog_peer), on the same frame and settings in one
// run, so every ratio comes from one machine.
#include <spdlog/spdlog.h>
#include <tbb/global_control.h>
#include <tbb/info.h>

#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <map>
#include <memory>
#include <opencv2/imgproc.hpp>
#include <sstream>
#include <unistd.h>

#include "bench_util.hpp"
#include "cascadekit/io/files.hpp"
#include "cascadekit/io/model_file.hpp"
#include "cascadekit/io/pnm.hpp"
#include "cascadekit/model/waldboost_lbp_stage.hpp"
#include "cascadekit/runtime/bulk_detector.hpp"
#include "cascadekit/runtime/cpu_detector.hpp"
#include "cascadekit/runtime/stages/hog_svm.hpp"
#include "commands.hpp"
#include "cascadekit/workflow/image_files.hpp"
#include "output_files.hpp"
#if CASCADEKIT_HAVE_CUDA
#include "cascadekit/runtime/cuda_detector.hpp"
#endif

namespace cascadekit::tools {

namespace {

struct Row {
    std::string size;
    double step = 0;
    int stride = 0;
    std::uint64_t windows = 0;
    double stages_per_window = 0, learners_per_window = 0;
    double cpu1 = NAN, cpun = NAN, gpu_latency = NAN, gpu_batched = NAN, peer1 = NAN, peern = NAN;
    double gpu_latency_no_graph = NAN, gpu_batched_cub = NAN;  // the alternatives the backend does not use by default
    double gpu_batched_warp = NAN;                            // warp-aggregated atomics (the default: block atomics)
    // Models with WaldBoost stages: batched ms per frame for each compaction × LBP block size
    // (Macenauer's Table layout), in the order of kImplementations × kBlockSizes.
    std::vector<double> lbp_designs;
    std::vector<std::pair<double, double>> lbp_boundaries;  // latency and batched ms for each of kBoundarySets
    double gpu_batched_thread_only = NAN;  // WaldBoost: one thread per window in every part
    std::vector<std::pair<double, double>> lbp_tiles;       // latency and batched ms for each of kTileDesigns
    std::vector<std::pair<double, double>> lbp_lates;       // latency and batched ms for each of kLateDesigns
    std::vector<std::pair<double, double>> lbp_warp_rounds;  // latency and batched ms for each of kWarpRounds
    std::vector<std::pair<double, double>> lbp_first_rows;   // latency and batched ms for each of kFirstRows
    std::vector<std::pair<double, double>> lbp_part_cuts;    // latency and batched ms for each of kPartCuts
    std::vector<std::pair<double, double>> lbp_block_froms;  // latency and batched ms for each of kBlockFroms
    std::vector<std::pair<double, double>> gray_staging;     // latency and batched ms, gray staged on the host / converted on the device
    std::vector<std::pair<double, double>> gray_points;      // latency and batched ms, gray integral images in 16 / 32-bit points
    double gpu_batched_every_level = NAN;       // LBP prefix: every level's integral histograms
    double gpu_batched_survivor_blocks = NAN;   // LBP prefix: survivor blocks from gradient planes
    std::string gpu_prefix_default;             // LBP prefix: the one CudaOptions' default takes
    std::vector<double> hog_tails;         // LBP prefix: batched ms per frame for each of kTailFroms
    // Models with an LBP prefix, CPU 1 thread: every plane of every level first; integral
    // histograms only where windows survive the prefix (the default is survivor blocks: cpu1).
    double cpu1_every_level = NAN, cpu1_where_survivors = NAN, cpu1_blocks = NAN;
    // Models whose blocks lie on a grid that the stride keeps (hog_block_grid): CPU 1 thread with
    // the integral histograms at every pixel's point instead of the grid's (CpuOptions::grid_histograms).
    int grid = 1;
    double cpu1_full_histograms = NAN;
    // The same on the GPU (CudaOptions::grid_histograms; a grid of 4 when G is a multiple of 4, else 2):
    // batched ms per frame with every pixel's point.
    double gpu_batched_full_histograms = NAN;
    // --cpu-threads: ms per frame at each thread count (medians), and the speed-up over the first
    // count (the median of the rounds' ratios; see interleaved_scaling)
    std::vector<double> cpu_at, peer_at, cpu_up, peer_up;
    // --cpu-threads, many frames: BulkDetector on the CPU, one frame a thread (2 × threads copies
    // of the frame a run), ms per frame and speed-up, as above
    std::vector<double> bulk_at, bulk_up;
    // --cpu-threads, one level at a time (CpuOptions::levels_in_flight 1), ms and speed-up as above
    std::vector<double> level1_at, level1_up;
#if CASCADEKIT_HAVE_CUDA
    CudaStepTimes steps;
#endif
};

// Runs the peer's `time` mode; NaN (and a warning) when it fails.
double peer_ms(const std::string& peer, const std::string& args, const std::filesystem::path& frame, double step, int stride,
               int threads, int repeats) {
    const std::string cmd = "'" + peer + "' time " + args + " --threads " + std::to_string(threads) + " --repeats " + std::to_string(repeats) +
                            " --scale-step " + std::to_string(step) + " --stride " + std::to_string(stride) + " '" +
                            frame.string() + "'";
    FILE* p = popen(cmd.c_str(), "r");
    if (!p) return NAN;
    double ms = NAN;
    char line[256];
    while (std::fgets(line, sizeof line, p))
        if (std::sscanf(line, "median_ms %lf", &ms) == 1) break;
    if (pclose(p) != 0 || std::isnan(ms)) {
        spdlog::warn("peer failed: {}", cmd);
        return NAN;
    }
    return ms;
}

// Times at several thread counts, interleaved: each of `rounds` rounds times one run at every
// count in turn (time_at(threads) → ms), so that a slow spell of the host (its clock, its
// neighbours) falls on every count alike instead of on one count's block of runs. Gives each
// count's median time and the median over the rounds of (time at the first count / time at this
// one). Shared hosts swing by 70 % at one thread from one block of runs to the next,
// which made block-by-block speed-ups meaningless there.
void interleaved_scaling(const std::vector<int>& counts, int rounds, const std::function<double(int)>& time_at,
                         std::vector<double>& ms, std::vector<double>& up) {
    std::vector<std::vector<double>> t(counts.size());
    for (int r = 0; r < rounds; ++r)
        for (std::size_t k = 0; k < counts.size(); ++k) t[k].push_back(time_at(counts[k]));
    ms.clear();
    up.clear();
    for (std::size_t k = 0; k < counts.size(); ++k) {
        std::vector<double> ratio;
        for (int r = 0; r < rounds; ++r) ratio.push_back(t[0][static_cast<std::size_t>(r)] / t[k][static_cast<std::size_t>(r)]);
        ms.push_back(median(t[k]));
        up.push_back(median(ratio));
    }
}

#if CASCADEKIT_HAVE_CUDA
constexpr Compaction kImplementations[] = {Compaction::WarpAtomics, Compaction::BlockAtomics, Compaction::CubSelect};
constexpr int kBlockSizes[] = {64, 128, 256, 512};
// CudaOptions::lbp_warp_round: the most look-ups a lane of the warp kernel takes a round.
constexpr int kWarpRounds[] = {1, 2, 4, 8};
// CudaOptions::lbp_first_rows: windows a thread in the untiled first launch (the default first; 0: the thread-per-window kernel).
constexpr int kFirstRows[] = {CudaOptions{}.lbp_first_rows, 0, 1, 2, 8};
// CudaOptions::lbp_block_from: the first weak classifier of the block-per-window parts (the default first; 1 << 30: never).
constexpr int kBlockFroms[] = {256, 1 << 30, 128, 512, 1024};
// CudaOptions::lbp_part_cuts: in-block compaction inside the thread-per-window parts (the default first).
const std::vector<std::vector<int>> kPartCuts = {{24, 32, 48}, {}, {20, 24, 32, 40, 48}, {8, 24, 32, 48}, {2, 8, 24, 32, 48}, {6, 10, 20, 32}};
// The default first (CudaOptions' own, so the table follows it), then the default before it,
// Macenauer's and the others measured.
const std::vector<std::vector<int>> kBoundarySets = {CudaOptions{}.lbp_boundaries, {2, 64}, {1, 8, 64, 256, 512}, {8, 64, 256}, {2, 8, 32, 128, 512},
                                                     {16, 128}, {16, 64, 256}, {64, 256}, {16, 32, 64, 256}, {16, 24, 32, 64, 256},
                                                     {16, 32, 128}, {16, 48}, {16, 96}, {16, 64, 512}, {16, 64}, {8, 64}, {8, 32, 64},
                                                     {4, 64}, {4, 32, 64}, {4, 96}, {4, 48}, {3, 64}, {6, 64}, {2, 32, 64},
                                                     {2, 96}};
// The first launch: untiled, or tiled with in-block compaction cuts (CudaOptions::lbp_tiled,
// lbp_tile_cuts), each with its own global boundaries.
struct TileDesign {
    bool tiled;
    std::vector<int> boundaries, cuts;  // cuts: CudaOptions::lbp_tile_cuts (boundaries too where untiled)
    std::vector<int> part_cuts = CudaOptions{}.lbp_part_cuts;
};
// The first is the default (untiled: the tile cut at 4 a boundary), the second an earlier default
// from stride 2 (tiled, its first part one table long, so the cut at 4
// falls outside it); then the part from 1 to 64 in one launch, with in-block cuts, and tiled
// first launches that go further.
const std::vector<TileDesign> kTileDesigns = {{false, CudaOptions{}.lbp_boundaries, CudaOptions{}.lbp_tile_cuts},
                                              {true, CudaOptions{}.lbp_boundaries, CudaOptions{}.lbp_tile_cuts},
                                              {false, {1, 64}, {}},
                                              {false, {1, 64}, {}, {4, 24, 32, 48}},
                                              {false, {1, 64}, {}, {2, 4, 8, 24, 32, 48}},
                                              {true, {64}, {1, 4}},
                                              {true, {4, 64}, {1}},
                                              {true, {16, 64, 256}, {4}}};
// The parts after weak classifier 64: a warp per window from 64 (the default, first), or a thread
// per window further on (CudaOptions::lbp_warp_from) with in-block cuts inside that part
// (lbp_part_cuts) and a boundary where the warps (or blocks: lbp_block_from) take over.
struct LateDesign {
    int warp_from;
    std::vector<int> boundaries, part_cuts;
    int block_from;
};
const std::vector<LateDesign> kLateDesigns = {
    {CudaOptions{}.lbp_warp_from, CudaOptions{}.lbp_boundaries, CudaOptions{}.lbp_part_cuts, CudaOptions{}.lbp_block_from},
    {128, {1, 64, 128}, {24, 32, 48, 80, 96, 112}, 256},
    {256, {1, 64, 256}, {24, 32, 48, 96, 128, 192}, 256},
    {256, {1, 64, 256}, {24, 32, 48, 96, 128, 192}, 1 << 30},
    {512, {1, 64, 512}, {24, 32, 48, 128, 256, 384}, 512},
    {256, {1, 256}, {24, 32, 48, 64, 96, 128}, 256}};
// CudaOptions::hog_tail_from: the default (1) first; -1: a launch per stage.
constexpr int kTailFroms[] = {1, -1, 2, 3, 5, 8};
std::string list(const std::vector<int>& v) {
    std::string s;
    for (int x : v) s += (s.empty() ? "" : ", ") + std::to_string(x);
    return s;
}
#endif

// The model with its last WaldBoost sequence padded to `weak` weak classifiers: its own tables
// again in order, with no rejection after its own end (every window that survives it runs them
// all: an upper bound on what a trained sequence of that length costs).
CascadeModel pad_lbp(CascadeModel m, int weak) {
    for (auto it = m.stages.rbegin(); it != m.stages.rend(); ++it)
        if (auto* wb = it->get_if<WaldBoostLbpStage>()) {
            const std::size_t own = wb->weak.size();
            if (static_cast<std::size_t>(weak) <= own) return m;
            for (std::size_t t = own; t < static_cast<std::size_t>(weak); ++t) {
                LbpWeakClassifier c = wb->weak[t % own];
                c.reject_threshold = -kMaxModelMagnitude;
                wb->weak.push_back(c);
            }
            validate_model(m);
            return m;
        }
    throw std::runtime_error("--lbp-weak: the model has no waldboost_lbp stage");
}

std::string fmt(double v, const char* f = "%.2f") {
    if (std::isnan(v)) return "–";
    char b[64];
    std::snprintf(b, sizeof b, f, v);
    return b;
}


// What a benchmark run measures with, set up once: its options, the model (padded with
// --lbp-weak), what the model has, whether CUDA rows run, and where the GPU rows came from.
struct Bench {
    const BenchDetectOptions& o;
    CascadeModel model;
    bool lbp = false;             // some waldboost_lbp stage
    bool prefix = false;          // an LBP prefix in front of HoG stages
    bool gpu = false;             // CUDA rows (CUDA builds only)
    int all = 0;                  // hardware threads
    double bandwidth = NAN;       // device-to-device copy bandwidth, GB/s
    std::string device = "none";  // the GPU that ran the rows
};

// Checks the options and the backend and loads the model; throws naming the problem.
Bench set_up(const BenchDetectOptions& o) {
    if (o.repeats < 1 || o.cpu_repeats < 1 || o.batch < 1) throw std::runtime_error("--repeats, --cpu-repeats and --batch must be >= 1");
    if (!o.out.empty()) check_writable_file(o.out);
    Backend backend = Backend::Auto;
    if (!parse_backend(o.backend, backend)) throw std::runtime_error("bad --backend " + o.backend);
    if (o.lbp_weak < 0) throw std::runtime_error("--lbp-weak must be >= 0");
    const CascadeModel model = o.lbp_weak > 0 ? pad_lbp(load_model(o.model), o.lbp_weak) : load_model(o.model);
    const bool lbp = feature_family(model) != "hog";  // some waldboost_lbp stage
    const bool prefix = CascadeEvaluator(model).prefix_stages() > 0;  // an LBP prefix in front of HoG stages
    bool gpu = false;  // set only in CUDA builds
#if CASCADEKIT_HAVE_CUDA
    std::string why;
    gpu = backend != Backend::Cpu && cuda_available(&why);
    if (backend == Backend::Cuda && !gpu) throw std::runtime_error("--backend cuda: no usable CUDA device (" + why + ")");
    if (gpu && !CudaDetector::supports(model, &why)) {
        // As Detector::create does for auto: the CPU rows only, and why.
        if (backend == Backend::Cuda) throw std::runtime_error("--backend cuda: " + why);
        spdlog::warn("no CUDA rows: {}", why);
        gpu = false;
    }
    if (const char* option = cpu_only_scan(o.scan); gpu && option) {
        if (backend == Backend::Cuda) throw std::runtime_error(std::string("--backend cuda: ") + option + " is a CPU scan only");
        gpu = false;
    }
#else
    if (backend == Backend::Cuda) throw std::runtime_error("--backend cuda: this build has no CUDA backend");
#endif
    Bench b{o, model};
    b.lbp = lbp;
    b.prefix = prefix;
    b.gpu = gpu;
    b.all = tbb::info::default_concurrency();
#if CASCADEKIT_HAVE_CUDA
    if (gpu) b.bandwidth = cuda_copy_bandwidth();
#endif
    return b;
}

// Our CPU backend at the thread counts of --cpu-threads: one frame, one level at a time, many frames.
void time_cpu_scaling(const Bench& b, Row& r, CpuDetector& cpu, const ImageView& view, const DetectParams& p) {
    const BenchDetectOptions& o = b.o;
    const CascadeModel& model = b.model;
    // One frame by `d` on that many threads, ms.
    auto one_frame = [&](CpuDetector& d) {
        return [&d, &view](int threads) {
            tbb::global_control limit(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(threads));
            return median_ms(1, [&] { d.detect(view); }, false);
        };
    };
    interleaved_scaling(o.cpu_threads, o.cpu_repeats, one_frame(cpu), r.cpu_at, r.cpu_up);
    // The levels one at a time, each parallel inside (the CPU backend before
    // levels in flight), for comparison in the same run.
    CpuDetector one_level(model, p, CpuOptions{.levels_in_flight = 1});
    interleaved_scaling(o.cpu_threads, o.cpu_repeats, one_frame(one_level), r.level1_at, r.level1_up);
    // Many frames: each worker thread detects whole frames (BulkDetector with no
    // frame too large to share the threads), the throughput a folder or a video
    // gets when memory allows a detector a thread.
    BulkOptions bo;
    bo.backend = Backend::Cpu;
    bo.alone_megapixels = 1e9;
    BulkDetector bulk(model, p, bo);
    auto frames_ms = [&](int threads) {
        tbb::global_control limit(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(threads));
        const std::size_t n = 2 * static_cast<std::size_t>(threads);
        return median_ms(1, [&] {
            bulk.run(n, [&](std::size_t) { return BulkImage{view, nullptr}; },
                     [](std::size_t, DetectResult&&, const BulkImage&, double) {});
        }, false) / static_cast<double>(n);
    };
    frames_ms(*std::max_element(o.cpu_threads.begin(), o.cpu_threads.end()));  // warm-up: every thread's detector
    interleaved_scaling(o.cpu_threads, o.cpu_repeats, frames_ms, r.bulk_at, r.bulk_up);
}

// Our CPU backend on one thread and on all, then the variants the model allows (the same detections).
void time_cpu(const Bench& b, Row& r, CpuDetector& cpu, const CpuOptions& cpu_options, const DetectResult& ref,
              const ImageView& view, const DetectParams& p) {
    const BenchDetectOptions& o = b.o;
    const CascadeModel& model = b.model;
    const bool prefix = b.prefix;
    {
        tbb::global_control one(tbb::global_control::max_allowed_parallelism, 1);
        r.cpu1 = median_ms(o.cpu_repeats, [&] { cpu.detect(view); });
    }
    r.cpun = median_ms(o.cpu_repeats, [&] { cpu.detect(view); });
    if (!o.cpu_threads.empty()) time_cpu_scaling(b, r, cpu, view, p);
    // Scaled windows snap their blocks to the grid, approximated histograms are
    // interpolated between its points: without it, other features.
    if (r.grid > 1 && !o.scan.scale_windows && !o.scan.approximate_hog) {
        CpuOptions full_options = cpu_options;
        full_options.grid_histograms = false;
        CpuDetector full(model, p, full_options);
        const DetectResult f = full.detect(view);
        if (f.detections != ref.detections || f.stats != ref.stats)
            throw std::runtime_error("grid and full integral histograms give different detections on " + r.size);
        tbb::global_control one(tbb::global_control::max_allowed_parallelism, 1);
        r.cpu1_full_histograms = median_ms(o.cpu_repeats, [&] { full.detect(view); });
    }
    if (prefix) {
        CpuDetector every(model, p, CpuOptions{PrefixPlanes::EveryLevel});
        CpuDetector where(model, p, CpuOptions{PrefixPlanes::WhereSurvivors});
        CpuDetector blocks(model, p, CpuOptions{PrefixPlanes::SurvivorBlocks});
        tbb::global_control one(tbb::global_control::max_allowed_parallelism, 1);
        r.cpu1_every_level = median_ms(o.cpu_repeats, [&] { every.detect(view); });
        r.cpu1_where_survivors = median_ms(o.cpu_repeats, [&] { where.detect(view); });
        r.cpu1_blocks = median_ms(o.cpu_repeats, [&] { blocks.detect(view); });
    }
}

#if CASCADEKIT_HAVE_CUDA
// `d` on --batch frames a call, --slots in flight: ms a frame.
double batched_ms(const Bench& b, Detector& d, const ImageView& view) {
    const std::vector<ImageView> many(static_cast<std::size_t>(b.o.batch), view);
    const int batch_repeats = std::max(3, b.o.repeats / 4);
    return median_ms(batch_repeats, [&] { d.detect_batch(many, b.o.slots); }) / b.o.batch;
}

double batched_with(const Bench& b, const DetectParams& p, const ImageView& view, const CudaOptions& opt) {
    CudaDetector d(b.model, p, opt);
    return batched_ms(b, d, view);
}

// Latency and batched time of one design.
std::pair<double, double> both_with(const Bench& b, const DetectParams& p, const ImageView& view, const CudaOptions& opt) {
    CudaDetector d(b.model, p, opt);
    const double latency = median_ms(b.o.repeats, [&] { d.detect(view); });
    return std::make_pair(latency, batched_ms(b, d, view));
}

// The WaldBoost launch designs the bench compares.
void time_lbp_designs(const Bench& b, Row& r, const ImageView& view, const DetectParams& p) {
    r.gpu_batched_thread_only = batched_with(b, p, view, CudaOptions{.lbp_warp_from = 1 << 30});
    for (const auto& cuts : kBoundarySets) r.lbp_boundaries.push_back(both_with(b, p, view, CudaOptions{.lbp_boundaries = cuts}));
    for (const TileDesign& d : kTileDesigns)
        r.lbp_tiles.push_back(both_with(b, p, view, CudaOptions{.lbp_boundaries = d.boundaries, .lbp_tiled = d.tiled,
                                                    .lbp_tiled_from_stride = 1, .lbp_tile_cuts = d.cuts,
                                                    .lbp_part_cuts = d.part_cuts}));
    for (const LateDesign& d : kLateDesigns)
        r.lbp_lates.push_back(both_with(b, p, view, CudaOptions{.lbp_boundaries = d.boundaries, .lbp_warp_from = d.warp_from,
                                                    .lbp_block_from = d.block_from, .lbp_part_cuts = d.part_cuts}));
    for (Compaction c : kImplementations)
        for (int threads : kBlockSizes)
            r.lbp_designs.push_back(batched_with(b, p, view, CudaOptions{.compaction = c, .lbp_block_threads = threads}));
    for (int round : kWarpRounds) r.lbp_warp_rounds.push_back(both_with(b, p, view, CudaOptions{.lbp_warp_round = round}));
    for (int first_rows : kFirstRows) r.lbp_first_rows.push_back(both_with(b, p, view, CudaOptions{.lbp_first_rows = first_rows}));
    for (const auto& cuts : kPartCuts) r.lbp_part_cuts.push_back(both_with(b, p, view, CudaOptions{.lbp_part_cuts = cuts}));
    for (int from : kBlockFroms) r.lbp_block_froms.push_back(both_with(b, p, view, CudaOptions{.lbp_block_from = from}));
    for (bool host : {true, false}) r.gray_staging.push_back(both_with(b, p, view, CudaOptions{.host_gray = host}));
    for (bool narrow : {true, false}) r.gray_points.push_back(both_with(b, p, view, CudaOptions{.gray_integral_16 = narrow}));
}

// The frame's CUDA steps, medians over profiled frames.
void profile_steps(Bench& b, Row& r, CudaDetector& cuda, const ImageView& view) {
    const BenchDetectOptions& o = b.o;
    std::vector<CudaStepTimes> prof;
    for (int k = 0; k < std::max(3, o.repeats / 2); ++k) prof.push_back(cuda.profile(view));
    // Median per step, over the profiled frames.
    auto med = [&](double CudaStepTimes::*m) {
        std::vector<double> v;
        for (const auto& t : prof) v.push_back(t.*m);
        return median(std::move(v));
    };
    r.steps = prof[0];
    for (auto m : {&CudaStepTimes::upload, &CudaStepTimes::gray, &CudaStepTimes::rows, &CudaStepTimes::columns,
                   &CudaStepTimes::gray_integral, &CudaStepTimes::early_stages, &CudaStepTimes::late_stages,
                   &CudaStepTimes::download, &CudaStepTimes::total})
        r.steps.*m = med(m);
    for (std::size_t k = 0; k < r.steps.launches.size(); ++k) {
        std::vector<double> v;
        for (const auto& t : prof) v.push_back(t.launches[k].ms);
        r.steps.launches[k].ms = median(std::move(v));
    }
    b.device = cuda.device_name();
}

// The CUDA rows, checked against the CPU's detections first.
void time_gpu(Bench& b, Row& r, const DetectResult& ref, const ImageView& view, const DetectParams& p, const std::string& size) {
    const BenchDetectOptions& o = b.o;
    const CascadeModel& model = b.model;
    const bool prefix = b.prefix;
    const bool lbp = b.lbp;
    CudaDetector cuda(model, p);
    const DetectResult g = cuda.detect(view);
    if (g.detections != ref.detections || g.stats != ref.stats)
        throw std::runtime_error("CUDA and CPU detections differ on " + size + " (run the gpu tests)");
    r.gpu_latency = median_ms(o.repeats, [&] { cuda.detect(view); });
    r.gpu_batched = batched_ms(b, cuda, view);
    {
        CudaDetector plain(model, p, CudaOptions{.use_graph = false});
        r.gpu_latency_no_graph = median_ms(o.repeats, [&] { plain.detect(view); });
    }
    r.gpu_batched_cub = batched_with(b, p, view, CudaOptions{.compaction = Compaction::CubSelect});
    r.gpu_batched_warp = batched_with(b, p, view, CudaOptions{.compaction = Compaction::WarpAtomics});
    if (r.grid % 2 == 0) {
        CudaOptions full;
        full.grid_histograms = false;
        r.gpu_batched_full_histograms = batched_with(b, p, view, full);
    }
    if (prefix) {
        r.gpu_batched_every_level = batched_with(b, p, view, CudaOptions{.prefix_planes = PrefixPlanes::EveryLevel});
        r.gpu_batched_survivor_blocks = batched_with(b, p, view, CudaOptions{.prefix_planes = PrefixPlanes::SurvivorBlocks});
        r.gpu_prefix_default = cuda.prefix_planes() == PrefixPlanes::EveryLevel ? "every level" : "survivor blocks";
        for (int from : kTailFroms)
            r.hog_tails.push_back(batched_with(b, p, view, CudaOptions{.prefix_planes = PrefixPlanes::SurvivorBlocks, .hog_tail_from = from}));
    }
    if (lbp) time_lbp_designs(b, r, view, p);
    profile_steps(b, r, cuda, view);
}

#endif

// OpenCV doing the same job, on one thread, on all, and at --cpu-threads.
void time_peer(const Bench& b, Row& r, const std::filesystem::path& frame_file, double step, int stride) {
    const BenchDetectOptions& o = b.o;
    const int all = b.all;
    if (!o.peer.empty()) {
        r.peer1 = peer_ms(o.peer, o.peer_args, frame_file, step, stride, 1, o.cpu_repeats);
        r.peern = peer_ms(o.peer, o.peer_args, frame_file, step, stride, all, o.cpu_repeats);
        if (!o.cpu_threads.empty())
            interleaved_scaling(o.cpu_threads, o.cpu_repeats, [&](int threads) {
                return peer_ms(o.peer, o.peer_args, frame_file, step, stride, threads, 1);
            }, r.peer_at, r.peer_up);
    }
}

// One configuration of the run: its reference detections, then every timing asked for.
Row measure(Bench& b, const ImageView& view, const std::filesystem::path& frame_file, const std::string& size, double step,
            int stride) {
    const BenchDetectOptions& o = b.o;
    const CascadeModel& model = b.model;
    Row r;
    r.size = size;
    r.step = step;
    r.stride = stride;
    DetectParams p = o.scan;
    p.stride = stride;
    p.scale_step = step;
    p.min_scale = o.min_scale;
    p.max_scale = o.max_scale;
    validate(p);
    CpuOptions cpu_options;
    if (o.cpu_levels > 0) cpu_options.levels_in_flight = o.cpu_levels;
    if (o.cpu_level_mib >= 0) cpu_options.level_memory_in_flight = static_cast<std::size_t>(o.cpu_level_mib * (1 << 20));
    CpuDetector cpu(model, p, cpu_options);
    const DetectResult ref = cpu.detect(view);
    r.windows = ref.stats.windows_scanned;
    std::uint64_t reach = r.windows, stage_sum = 0;
    for (auto rej : ref.stats.rejected_per_stage) {
        stage_sum += reach;
        reach -= rej;
    }
    r.stages_per_window = static_cast<double>(stage_sum) / static_cast<double>(r.windows);
    r.learners_per_window = static_cast<double>(ref.stats.weak_evaluated) / static_cast<double>(r.windows);
    r.grid = hog_scan_grid(model, stride);
    if (!o.no_cpu) time_cpu(b, r, cpu, cpu_options, ref, view, p);
#if CASCADEKIT_HAVE_CUDA
    if (b.gpu) time_gpu(b, r, ref, view, p, size);
#endif
    time_peer(b, r, frame_file, step, stride);
    spdlog::info("{} x{} stride {}: {} windows; CPU {} / {} ms; CUDA {} ms latency, {} ms batched; OpenCV {} / {} ms",
                 size, step, stride, r.windows, fmt(r.cpu1), fmt(r.cpun), fmt(r.gpu_latency, "%.3f"),
                 fmt(r.gpu_batched, "%.3f"), fmt(r.peer1), fmt(r.peern));
    return r;
}

void report_header(std::ostringstream& md, const Bench& b) {
    const std::string& device = b.device;
    const BenchDetectOptions& o = b.o;
    const CascadeModel& model = b.model;
    const int all = b.all;
    const double bandwidth = b.bandwidth;
    char date[32];
    const std::time_t now = std::time(nullptr);
    std::strftime(date, sizeof date, "%Y-%m-%d", std::gmtime(&now));
    const std::string& peer_name = o.peer_name;
    md << "# Detection speed: CUDA backend, CPU backend, " << peer_name << "\n\n"
       << "- command: `" << o.command_line << "`\n"
       << "- model: " << o.model << " (" << model.stages.size() << " stages)\n"
       << "- scan: scale from " << o.min_scale << (o.max_scale > 0 ? " to " + fmt(o.max_scale, "%g") : std::string(" up"))
       << (o.lbp_weak > 0 ? "; WaldBoost sequence padded to " + std::to_string(o.lbp_weak) +
                                " weak classifiers (its own tables repeated, no rejection after its own end)"
                          : std::string())
       << (o.scan.scale_windows ? "; scaled windows: only octaves resampled, the levels between them scanned with the model scaled "
                             "(--scale-windows; CPU only)"
                           : "")
       << (o.scan.approximate_hog ? "; HoG histograms computed at the octaves only (smoothed), the levels between them interpolated "
                               "(--approximate-hog; CPU only)"
                             : "")
       << (o.scan.approximate_lbp ? "; LBP stages of every level scanned on its octave's gray integral image, "
                               "cells scaled (--approximate-lbp; CPU only)"
                             : "")
       << "\n"
       << "- frame: " << (o.frame.empty() ? "synthetic (bench_image)" : o.frame) << ", resized to each size, 3-channel BGR\n"
       << "- CPU: " << cpu_name() << ", " << all << " hardware threads; GPU: " << device << "\n"
       << "- device-to-device copy bandwidth (read + write): " << fmt(bandwidth / 1e3, "%.2f") << " TB/s\n"
       << "- date: " << date << "; medians of " << o.repeats << " GPU frames, " << o.cpu_repeats
       << " CPU / OpenCV frames, each after a warm-up\n"
       << "- CUDA latency: `detect()` of one frame, upload and download included; batched: `detect_batch()` of "
       << o.batch << " frames on " << o.slots << " streams, per frame\n"
       << (o.peer.empty() ? std::string("- no OpenCV peer\n\n")
                          : "- " + peer_name + ": `" + std::filesystem::path(o.peer).filename().string() + " time " + o.peer_args +
                                "` (" + (o.peer_args.empty() ? "`HOGDescriptor` default people detector, `detectMultiScale` "
                                                               "(hit threshold 0, same stride and scale step, grouping on)"
                                                             : "same scale step") +
                                "), `cv::setNumThreads`\n\n");
}

// Table 7-1 layout for 1280x960 stride 8.
void report_table_7_1(std::ostringstream& md, const Bench& b, const std::vector<Row>& rows) {
    const int all = b.all;
    const std::string& peer_name = b.o.peer_name;
    std::map<double, const Row*> t71;
    for (const Row& r : rows)
        if (r.size == "1280x960" && r.stride == 8) t71[r.step] = &r;
    if (!t71.empty()) {
        md << "## 1280×960, stride 8: milliseconds per frame (layout of Bilgiç's Table 7-1)\n\n| detector |";
        for (auto& [s, r] : t71) md << " ×" << s << " |";
        md << "\n|---|";
        for (std::size_t i = 0; i < t71.size(); ++i) md << "---|";
        md << "\n";
        auto published = [&](const char* name, std::map<double, double> v) {
            md << "| " << name << " |";
            for (auto& [s, r] : t71) md << " " << (v.count(s) ? fmt(v[s], "%.0f") : "–") << " |";
            md << "\n";
        };
        published("Bilgiç CPU, 2.5 GHz (published) [B T7-1]", {{1.05, 5470}, {1.1, 2963}, {1.2, 1710}});
        published("Bilgiç GPU, GTX 295 (published) [B T7-1]", {{1.05, 422}, {1.1, 228}, {1.2, 131}});
        published("Wojek et al. GPU HOG (published) [B T7-1]", {{1.05, 385}, {1.1, 216}, {1.2, 133}});
        auto ours = [&](const std::string& name, double Row::*m, const char* f) {
            md << "| " << name << " |";
            for (auto& [s, r] : t71) md << " " << fmt(r->*m, f) << " |";
            md << "\n";
        };
        ours(peer_name + ", 1 thread", &Row::peer1, "%.1f");
        ours(peer_name + ", " + std::to_string(all) + " threads", &Row::peern, "%.1f");
        ours("cascadekit CPU, 1 thread", &Row::cpu1, "%.1f");
        ours("cascadekit CPU, " + std::to_string(all) + " threads", &Row::cpun, "%.1f");
        ours("cascadekit CUDA, latency with transfers", &Row::gpu_latency, "%.3f");
        ours("cascadekit CUDA, batched", &Row::gpu_batched, "%.3f");
        md << "\n";
    }
}

#if CASCADEKIT_HAVE_CUDA
void report_prefix_designs(std::ostringstream& md, const std::vector<Row>& rows);
void report_lbp_designs(std::ostringstream& md, const std::vector<Row>& rows);
void report_lbp_parts(std::ostringstream& md, const std::vector<Row>& rows);
void report_lbp_tiles(std::ostringstream& md, const std::vector<Row>& rows);
void report_lbp_launches(std::ostringstream& md, const std::vector<Row>& rows);

void report_cuda_steps(std::ostringstream& md, const Bench& b, const std::vector<Row>& rows) {
    const bool lbp = b.lbp;
    const double bandwidth = b.bandwidth;
    md << "## CUDA time per step (layout of Bilgiç's Table 7-2), ms\n\n"
       << "Integral-histogram bytes: the row pass writes 36 bytes per point, the column pass reads and writes "
          "them again; roofline = those bytes / (rows + columns time) against the copy bandwidth above. Gray "
          "integral: both passes of the LBP stages' integral images.\n\n"
       << "| size | step | stride | upload | gray | gradients + row scans | column scans | gray integral | early stages | late stages | "
          "download | total | integral-histogram MB | GB/s | roofline |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
    for (const Row& r : rows) {
        if (r.stride != 8 && !lbp) continue;
        const CudaStepTimes& t = r.steps;
        const double gbs = static_cast<double>(t.integral_histogram_bytes) / ((t.rows + t.columns) * 1e-3) / 1e9;
        md << "| " << r.size << " | ×" << r.step << " | " << r.stride << " | " << fmt(t.upload, "%.3f") << " | "
           << fmt(t.gray, "%.3f") << " | " << fmt(t.rows, "%.3f") << " | " << fmt(t.columns, "%.3f") << " | "
           << fmt(t.gray_integral, "%.3f") << " | " << fmt(t.early_stages, "%.3f") << " | "
           << fmt(t.late_stages, "%.3f") << " | " << fmt(t.download, "%.3f") << " | " << fmt(t.total, "%.3f") << " | "
           << fmt(static_cast<double>(t.integral_histogram_bytes) / 1e6, "%.0f") << " | " << fmt(gbs, "%.0f") << " | "
           << fmt(100.0 * gbs / bandwidth, "%.0f") << " % |\n";
    }
    md << "\n";
}

void report_cuda_designs(std::ostringstream& md, const Bench& b, const std::vector<Row>& rows) {
    const bool prefix = b.prefix;
    const bool lbp = b.lbp;
    md << "## CUDA design choices, ms per frame\n\n"
       << "Survivor compaction by shared-memory atomics per block (default), warp-aggregated atomics, or "
          "`cub::DeviceSelect::Flagged` (batched frames); the frame's launches replayed as one CUDA graph (default) or "
          "launched one by one (latency).\n\n"
       << "| size | step | stride | batched, block atomics | batched, warp atomics | batched, CUB select | latency, graph | latency, no graph |\n"
       << "|---|---|---|---|---|---|---|---|\n";
    for (const Row& r : rows)
        if (r.stride == 8 || lbp)
            md << "| " << r.size << " | ×" << r.step << " | " << r.stride << " | " << fmt(r.gpu_batched, "%.3f") << " | "
               << fmt(r.gpu_batched_warp, "%.3f") << " | " << fmt(r.gpu_batched_cub, "%.3f") << " | "
               << fmt(r.gpu_latency, "%.3f") << " | " << fmt(r.gpu_latency_no_graph, "%.3f") << " |\n";
    md << "\n";
    if (prefix) report_prefix_designs(md, rows);
    if (lbp) report_lbp_designs(md, rows);
}

std::string both(const std::pair<double, double>& v) { return fmt(v.first, "%.3f") + " / " + fmt(v.second, "%.3f"); }

// A table of latency / batched ms, a column per setting (– where a row has none).
void both_table(std::ostringstream& md, const std::vector<Row>& rows, const std::string& head, const std::vector<std::string>& columns,
                std::vector<std::pair<double, double>> Row::*values) {
    md << head << "\n\n| size | step | stride |";
    for (const std::string& c : columns) md << " " << c << " |";
    md << "\n|---|---|---|";
    for (std::size_t i = 0; i < columns.size(); ++i) md << "---|";
    md << "\n";
    for (const Row& r : rows) {
        md << "| " << r.size << " | ×" << r.step << " | " << r.stride << " |";
        for (std::size_t i = 0; i < columns.size(); ++i)
            md << " " << (i < (r.*values).size() ? both((r.*values)[i]) : "–") << " |";
        md << "\n";
    }
    md << "\n";
}

template <class Values>
std::vector<std::string> names(const Values& values) {
    std::vector<std::string> v;
    for (int x : values) v.push_back(std::to_string(x));
    return v;
}

void report_prefix_designs(std::ostringstream& md, const std::vector<Row>& rows) {
    md << "### The HoG stages after the LBP prefix: batched ms per frame\n\n"
       << "Every level: integral histograms of every level (rows + columns; on the blocks' grid where it allows). "
          "Survivor blocks: a gradient plane per level, each survivor's blocks summed from it by a block of threads. "
          "The default takes every level where the histograms can be kept on a grid of 2 or 4 pixels, else survivor "
          "blocks (CudaOptions::prefix_planes).\n\n"
       << "| size | step | stride | every level | survivor blocks | survivor blocks / every level | default |\n"
       << "|---|---|---|---|---|---|---|\n";
    for (const Row& r : rows)
        md << "| " << r.size << " | ×" << r.step << " | " << r.stride << " | " << fmt(r.gpu_batched_every_level, "%.3f")
           << " | " << fmt(r.gpu_batched_survivor_blocks, "%.3f") << " | "
           << fmt(r.gpu_batched_survivor_blocks / r.gpu_batched_every_level, "%.2f×") << " | " << r.gpu_prefix_default << " |\n";
    md << "\n### The last HoG stages as one launch (survivor blocks): batched ms per frame\n\n"
       << "From stage N (0-based; the LBP prefix is stage 0) to the end, one launch takes each window through stage "
          "after stage (CudaOptions::hog_tail_from; default first); never: a launch per stage.\n\n"
       << "| size | step | stride |";
    for (int from : kTailFroms) md << " " << (from < 0 ? std::string("never") : "from " + std::to_string(from)) << " |";
    md << "\n|---|---|---|";
    for (std::size_t i = 0; i < std::size(kTailFroms); ++i) md << "---|";
    md << "\n";
    for (const Row& r : rows) {
        md << "| " << r.size << " | ×" << r.step << " | " << r.stride << " |";
        for (std::size_t i = 0; i < std::size(kTailFroms); ++i)
            md << " " << (i < r.hog_tails.size() ? fmt(r.hog_tails[i], "%.3f") : "–") << " |";
        md << "\n";
    }
    md << "\n";
}

void report_lbp_designs(std::ostringstream& md, const std::vector<Row>& rows) {
    md << "### WaldBoost compaction boundaries and late parts: latency / batched ms per frame\n\n"
       << "Boundaries: the weak-classifier counts after which survivors are compacted (default first). Thread only: "
          "one thread per window in every part (default: a warp per window from weak classifier 64 on).\n\n"
       << "| size | step | stride |";
    for (const auto& cuts : kBoundarySets) md << " " << list(cuts) << " |";
    md << " default, thread only (batched) |\n|---|---|---|";
    for (std::size_t i = 0; i <= kBoundarySets.size(); ++i) md << "---|";
    md << "\n";
    for (const Row& r : rows) {
        md << "| " << r.size << " | ×" << r.step << " | " << r.stride << " |";
        for (std::size_t i = 0; i < kBoundarySets.size(); ++i)
            md << " " << (i < r.lbp_boundaries.size() ? both(r.lbp_boundaries[i]) : "–") << " |";
        md << " " << fmt(r.gpu_batched_thread_only, "%.3f") << " |\n";
    }
    md << "\n";
    report_lbp_parts(md, rows);
    report_lbp_launches(md, rows);
}

void report_lbp_parts(std::ostringstream& md, const std::vector<Row>& rows) {
    both_table(md, rows, "### WaldBoost warp parts: look-ups a lane per round, latency / batched ms per frame\n\n"
               "The parts from weak classifier 64 on run a warp per window in rounds of 32, 64, … weak classifiers, up "
               "to 32 × the look-ups a lane (CudaOptions::lbp_warp_round).",
               names(kWarpRounds), &Row::lbp_warp_rounds);
    both_table(md, rows, "### WaldBoost untiled first launch: windows a thread, latency / batched ms per frame\n\n"
               "Where the frame's first launch is not tiled (stride 1 by default), each thread takes this many windows "
               "of a column, one above another (CudaOptions::lbp_first_rows; the default first); 0: a thread per "
               "window, each finding its level and place.",
               names(kFirstRows), &Row::lbp_first_rows);
    std::vector<std::string> cut_names;
    for (const auto& cuts : kPartCuts) cut_names.push_back(cuts.empty() ? std::string("none") : list(cuts));
    both_table(md, rows, "### WaldBoost in-block cuts in the thread-per-window parts: latency / batched ms per frame\n\n"
               "The untiled parts before the warp parts compact their survivors inside each block after these weak "
               "classifiers (CudaOptions::lbp_part_cuts; the default first).",
               cut_names, &Row::lbp_part_cuts);
    std::vector<std::string> block_names;
    for (int from : kBlockFroms) block_names.push_back(from == 1 << 30 ? std::string("never") : std::to_string(from));
    both_table(md, rows, "### WaldBoost block parts: latency / batched ms per frame\n\n"
               "Parts that start at weak classifier N or later run a block of 256 threads per window, rounds of up to "
               "256 look-ups at once (CudaOptions::lbp_block_from; the default first).",
               block_names, &Row::lbp_block_froms);
    both_table(md, rows, "### The frame in gray: staged on the host, or converted on the device: latency / batched ms per frame\n\n"
               "Host (default, CudaOptions::host_gray): the frame is converted to gray while it is copied to the pinned "
               "staging buffer, and only the gray bytes are uploaded. Device: the RGB bytes are staged and uploaded, and a "
               "kernel converts them. Models that read colour always take the second way.",
               {"host", "device"}, &Row::gray_staging);
    both_table(md, rows, "### Gray integral images: 16-bit or 32-bit points, latency / batched ms per frame\n\n"
               "16-bit (default, CudaOptions::gray_integral_16): the images modulo 2^16, for models whose LBP cells all "
               "have at most 128 pixels (the same codes, scores and decisions); other models take 32-bit points either way.",
               {"16-bit", "32-bit"}, &Row::gray_points);
    report_lbp_tiles(md, rows);
}

void report_lbp_tiles(std::ostringstream& md, const std::vector<Row>& rows) {
    std::vector<std::string> tile_names;
    for (const TileDesign& d : kTileDesigns) {
        std::vector<int> b = d.boundaries;  // untiled, the tile cuts are boundaries too
        if (!d.tiled) b.insert(b.end(), d.cuts.begin(), d.cuts.end());
        std::sort(b.begin(), b.end());
        std::string name = d.tiled ? "tiled, cuts " + (d.cuts.empty() ? std::string("none") : list(d.cuts)) + "; " : std::string("untiled; ");
        name += "boundaries " + list(b);
        if (d.part_cuts != CudaOptions{}.lbp_part_cuts)
            name += "; in-block cuts " + (d.part_cuts.empty() ? std::string("none") : list(d.part_cuts));
        tile_names.push_back(name);
    }
    both_table(md, rows, "### WaldBoost first launch, tiled or not: latency / batched ms per frame\n\n"
               "Tiled: a block per 32×8 windows with their integral-image patch in shared memory; cuts: in-block "
               "compaction of survivors in that launch (CudaOptions::lbp_tile_cuts; untiled, they are boundaries); "
               "boundaries: global compaction, as above; in-block cuts: those of the later thread-per-window parts "
               "(CudaOptions::lbp_part_cuts, default 24, 32, 48). Every design at every stride here "
               "(CudaOptions::lbp_tiled_from_stride 1); the default is the first (CudaOptions::lbp_tiled false).",
               tile_names, &Row::lbp_tiles);
    std::vector<std::string> late_names;
    for (const LateDesign& d : kLateDesigns) {
        std::vector<int> b = d.boundaries;  // untiled, the default tile cuts are boundaries too
        for (int cut : CudaOptions{}.lbp_tile_cuts) b.push_back(cut);
        std::sort(b.begin(), b.end());
        b.erase(std::unique(b.begin(), b.end()), b.end());
        late_names.push_back("warps from " + std::to_string(d.warp_from) + (d.block_from == 1 << 30 ? std::string{} : ", blocks from " + std::to_string(d.block_from)) +
                             "; boundaries " + list(b) + "; in-block cuts " + list(d.part_cuts));
    }
    both_table(md, rows, "### WaldBoost late parts: a thread or a warp per window, latency / batched ms per frame\n\n"
               "Parts before `warps from` run a thread per window (CudaOptions::lbp_warp_from), compacted inside "
               "blocks at the in-block cuts (lbp_part_cuts) and between launches at the boundaries; from there a warp "
               "per window, and a block per window from `blocks from` (lbp_block_from). The default first.",
               late_names, &Row::lbp_lates);
}

void report_lbp_launches(std::ostringstream& md, const std::vector<Row>& rows) {
    // Macenauer's layout: implementation × block size × frame size, per scan setting.
    std::map<std::pair<double, int>, std::vector<const Row*>> by_scan;
    for (const Row& r : rows) by_scan[{r.step, r.stride}].push_back(&r);
    for (const auto& [scan, rs] : by_scan) {
        md << "### WaldBoost launches: compaction × threads per block × frame size, ×" << scan.first << ", stride "
           << scan.second << ", batched ms per frame\n\n| compaction | threads per block |";
        for (const Row* r : rs) md << " " << r->size << " |";
        md << "\n|---|---|";
        for (std::size_t i = 0; i < rs.size(); ++i) md << "---|";
        md << "\n";
        std::size_t k = 0;
        for (Compaction c : kImplementations)
            for (int threads : kBlockSizes) {
                md << "| " << kCompactionNames.name(c) << " | " << threads << " |";
                for (const Row* r : rs) md << " " << (k < r->lbp_designs.size() ? fmt(r->lbp_designs[k], "%.3f") : "–") << " |";
                md << "\n";
                ++k;
            }
        md << "\n";
    }
    md << "### Survivors after each launch (compaction boundary), one frame\n\n"
       << "| size | step | stride | windows | stage | weak classifiers done | survivors | share of windows | ms |\n"
       << "|---|---|---|---|---|---|---|---|---|\n";
    for (const Row& r : rows)
        for (const CudaStepTimes::Launch& l : r.steps.launches)
            md << "| " << r.size << " | ×" << r.step << " | " << r.stride << " | " << r.windows << " | " << l.stage + 1
               << " | " << l.weak_after << " | " << l.survivors << " | "
               << fmt(100.0 * static_cast<double>(l.survivors) / static_cast<double>(r.windows), "%.4f") << " % | "
               << fmt(l.ms, "%.3f") << " |\n";
    md << "\n";
}

#endif

void report_grids_and_prefix(std::ostringstream& md, const Bench& b, const std::vector<Row>& rows) {
    const BenchDetectOptions& o = b.o;
    const bool prefix = b.prefix;
    if (std::any_of(rows.begin(), rows.end(), [](const Row& r) { return !std::isnan(r.gpu_batched_full_histograms); })) {
        md << "## CUDA: integral histograms on the blocks' grid, batched ms per frame\n\n"
           << "The model's block corners and the window positions lie on a grid of 4 pixels (or 2, or a multiple): the "
              "row pass sums each 4×4 (2×2) cell and scans the cells, and the column pass runs over 1/16 (1/4) of the "
              "points (default), or both passes run at every pixel (CudaOptions::grid_histograms false).\n\n"
           << "| size | step | stride | every point | grid points (default) | speed-up |\n|---|---|---|---|---|---|\n";
        for (const Row& r : rows)
            if (!std::isnan(r.gpu_batched_full_histograms))
                md << "| " << r.size << " | ×" << r.step << " | " << r.stride << " | " << fmt(r.gpu_batched_full_histograms, "%.3f")
                   << " | " << fmt(r.gpu_batched, "%.3f") << " | " << fmt(r.gpu_batched_full_histograms / r.gpu_batched, "%.2f×") << " |\n";
        md << "\n";
    }
    if (!o.no_cpu && std::any_of(rows.begin(), rows.end(), [](const Row& r) { return r.grid > 1; })) {
        md << "## CPU, 1 thread: integral histograms on the blocks' grid, ms per frame\n\n"
           << "The model's block corners all lie on a grid of G pixels (hog_block_grid; zhu-gridG pools), and so do the "
              "window positions at this stride: the integral histograms are kept only at the grid's points (default), "
              "or at every pixel's (CpuOptions::grid_histograms false). The same detections either way (checked).\n\n"
           << "| size | step | stride | grid | every point | grid points (default) | speed-up |\n|---|---|---|---|---|---|---|\n";
        for (const Row& r : rows)
            if (r.grid > 1)
                md << "| " << r.size << " | ×" << r.step << " | " << r.stride << " | " << r.grid << " | " << fmt(r.cpu1_full_histograms, "%.1f")
                   << " | " << fmt(r.cpu1, "%.1f") << " | " << fmt(r.cpu1_full_histograms / r.cpu1, "%.2f×") << " |\n";
        md << "\n";
    }
    if (prefix && !o.no_cpu) {
        md << "## CPU, 1 thread, after the LBP prefix: how the HoG stages get their blocks, ms per frame\n\n"
           << "Every level: integral histograms of every level first (as without a prefix). Where survivors: a level's "
              "integral histogram only when a window survived the prefix. Survivor blocks: a per-pixel gradient "
              "plane, each survivor's blocks summed from it. Per level (default): survivor blocks where a level's "
              "survivors are few, its integral histogram where they are many (CpuOptions::integral_from_survivors). "
              "The same detections every way.\n\n"
           << "| size | step | stride | every level | where survivors | survivor blocks | per level | survivor blocks / per level |\n"
           << "|---|---|---|---|---|---|---|---|\n";
        for (const Row& r : rows)
            md << "| " << r.size << " | ×" << r.step << " | " << r.stride << " | " << fmt(r.cpu1_every_level, "%.1f") << " | "
               << fmt(r.cpu1_where_survivors, "%.1f") << " | " << fmt(r.cpu1_blocks, "%.1f") << " | " << fmt(r.cpu1, "%.1f") << " | "
               << fmt(r.cpu1_blocks / r.cpu1, "%.2f×") << " |\n";
        md << "\n";
    }
}

void report_cpu_scaling(std::ostringstream& md, const Bench& b, const std::vector<Row>& rows) {
    const BenchDetectOptions& o = b.o;
    if (!o.cpu_threads.empty() && !o.no_cpu) {
        md << "## CPU scaling: ms per frame by thread count (TBB `max_allowed_parallelism`"
           << (o.peer.empty() ? "" : "; the peer: `cv::setNumThreads`") << ")\n\n"
           << "Interleaved: " << o.cpu_repeats << (o.cpu_repeats == 1 ? " round" : " rounds") << ", each timing one frame at every count in turn"
           << (o.peer.empty() ? "" : " (the peer: one run of one frame a count, after its warm-up)")
           << "; ms: the median per count. Speed-up: the median over the rounds of the time at the first count given over "
              "the time at this one; efficiency: speed-up per thread relative to that first count. The host: "
           << cpu_cores() << ".\n\n"
           << "Ours: one frame, up to " << (o.cpu_levels > 0 ? o.cpu_levels : CpuOptions{}.levels_in_flight)
           << " pyramid levels in flight taking up to "
           << (o.cpu_level_mib >= 0 ? o.cpu_level_mib : static_cast<double>(CpuOptions{}.level_memory_in_flight >> 20))
           << " MiB of storage (CpuOptions::levels_in_flight, level_memory_in_flight); one level at a time: the same detector with "
              "levels in flight 1, each level parallel inside. Many frames: `BulkDetector` on the CPU with one whole frame a "
              "worker thread, 2 × threads copies of the frame a run; ms per frame (the run's time over its frames) and its "
              "speed-up and efficiency likewise.\n\n"
           << "| size | step | stride | threads | ours ms | speed-up | efficiency | one level at a time, ms | speed-up |"
              " many frames, ms a frame | speed-up | efficiency |"
           << (o.peer.empty() ? "" : " peer ms | peer speed-up |")
           << "\n|---|---|---|---|---|---|---|---|---|---|---|---|" << (o.peer.empty() ? "" : "---|---|") << "\n";
        for (const Row& r : rows)
            for (std::size_t k = 0; k < o.cpu_threads.size() && k < r.cpu_at.size(); ++k) {
                const double base = static_cast<double>(o.cpu_threads[0]);
                const double up = r.cpu_up[k];
                md << "| " << r.size << " | ×" << r.step << " | " << r.stride << " | " << o.cpu_threads[k] << " | "
                   << fmt(r.cpu_at[k], "%.1f") << " | " << fmt(up, "%.2f×") << " | "
                   << fmt(100.0 * up * base / o.cpu_threads[k], "%.0f") << " % |";
                if (k < r.level1_at.size()) md << " " << fmt(r.level1_at[k], "%.1f") << " | " << fmt(r.level1_up[k], "%.2f×") << " |";
                if (k < r.bulk_at.size())
                    md << " " << fmt(r.bulk_at[k], "%.1f") << " | " << fmt(r.bulk_up[k], "%.2f×") << " | "
                       << fmt(100.0 * r.bulk_up[k] * base / o.cpu_threads[k], "%.0f") << " % |";
                if (!o.peer.empty() && k < r.peer_at.size())
                    md << " " << fmt(r.peer_at[k], "%.1f") << " | " << fmt(r.peer_up[k], "%.2f×") << " |";
                md << "\n";
            }
        md << "\n";
    }
}

void report_every(std::ostringstream& md, const Bench& b, const std::vector<Row>& rows) {
    const int all = b.all;
    md << "## Every configuration\n\n"
       << "| size | step | stride | windows | stages/window | learners/window | CPU 1 thr ms | CPU " << all
       << " thr ms | CUDA latency ms | CUDA batched ms | CPU " << all << " thr Mwindows/s | CUDA Mwindows/s | OpenCV 1 thr ms | OpenCV " << all
       << " thr ms | CUDA vs CPU 1 thr | CUDA vs OpenCV 1 thr | CUDA vs OpenCV " << all << " thr | CPU vs OpenCV, 1 thr | CPU vs OpenCV, "
       << all << " thr |\n"
       << "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
    for (const Row& r : rows) {
        const double best = std::isnan(r.gpu_batched) ? NAN : r.gpu_batched;
        md << "| " << r.size << " | ×" << r.step << " | " << r.stride << " | " << r.windows << " | "
           << fmt(r.stages_per_window) << " | " << fmt(r.learners_per_window) << " | " << fmt(r.cpu1, "%.1f") << " | "
           << fmt(r.cpun, "%.1f") << " | " << fmt(r.gpu_latency, "%.3f") << " | " << fmt(best, "%.3f") << " | "
           << fmt(static_cast<double>(r.windows) / (r.cpun * 1e-3) / 1e6, "%.1f") << " | "
           << fmt(static_cast<double>(r.windows) / (best * 1e-3) / 1e6, "%.0f") << " | " << fmt(r.peer1, "%.1f") << " | "
           << fmt(r.peern, "%.1f") << " | " << fmt(r.cpu1 / best, "%.0f×") << " | " << fmt(r.peer1 / best, "%.0f×") << " | "
           << fmt(r.peern / best, "%.0f×") << " | " << fmt(r.peer1 / r.cpu1, "%.2f×") << " | " << fmt(r.peern / r.cpun, "%.2f×")
           << " |\n";
    }
    md << "\nCUDA ratios use the batched CUDA time per frame; CPU vs OpenCV is OpenCV's time over ours. Mining throughput is the stride-4, ×1.1 rows "
          "(the trainer's default mining scan): windows per second = windows / time.\n";
}
}  // namespace

int run_bench_detect(const BenchDetectOptions& o) {
    try {
        Bench b = set_up(o);
        cv::Mat source;
        if (!o.frame.empty()) source = read_bgr(o.frame);
        const auto tmp = std::filesystem::temp_directory_path() / ("cascade-bench-" + std::to_string(::getpid()));
        std::filesystem::create_directories(tmp);
        struct Cleanup {
            std::filesystem::path p;
            ~Cleanup() {
                std::error_code ec;
                std::filesystem::remove_all(p, ec);
            }
        } cleanup{tmp};

        std::vector<Row> rows;
        for (const std::string& size : o.sizes) {
            int w = 0, h = 0;
            if (!parse_size(size, w, h)) throw std::runtime_error("bad size '" + size + "' (expected WxH)");
            cv::Mat frame;
            if (source.empty()) {
                const GrayImage g = bench_image(w, h);
                cv::cvtColor(cv::Mat(h, w, CV_8UC1, const_cast<std::uint8_t*>(g.pixels.data())), frame, cv::COLOR_GRAY2BGR);
            } else {
                cv::resize(source, frame, cv::Size(w, h), 0, 0, cv::INTER_AREA);
            }
            const ImageView view{frame.data, w, h, static_cast<std::ptrdiff_t>(frame.step[0]), 3, ChannelOrder::BGR};
            const auto frame_file = tmp / (size + ".ppm");
            write_pnm(frame_file, view);
            for (double step : o.scale_steps)
                for (int stride : o.strides) rows.push_back(measure(b, view, frame_file, size, step, stride));
        }
        std::ostringstream md;
        report_header(md, b);
        report_table_7_1(md, b, rows);
#if CASCADEKIT_HAVE_CUDA
        if (b.gpu) {
            report_cuda_steps(md, b, rows);
            report_cuda_designs(md, b, rows);
        }
#endif
        report_grids_and_prefix(md, b, rows);
        report_cpu_scaling(md, b, rows);
        report_every(md, b, rows);
        std::fputs(md.str().c_str(), stdout);
        if (!o.out.empty()) write_text_atomically(o.out, md.str());
        return kExitOk;
    } catch (const std::exception& e) {
        spdlog::error("{}", e.what());
        return kExitFatal;
    }
}

}  // namespace cascadekit::tools
