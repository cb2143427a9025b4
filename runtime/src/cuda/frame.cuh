#pragma once
// Internal (CUDA backend): one frame's plan and dispatch. A Slot holds a frame's buffers, stream
// and graph (reused while frames keep their size); prepare() plans the pyramid and sizes the
// buffers, enqueue() puts the frame's work on the slot's stream: upload, gray and octaves, then
// each stage in order, building a feature plane just before the first stage that reads it (so a
// cascade whose first stages need no integral histograms would run them first), and the
// read-back. collect() turns the read-back into a DetectResult in the CPU's order.
#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "cascadekit/features/pyramid.hpp"
#include "cascadekit/runtime/cuda_detector.hpp"
#include "cuda_support.cuh"
#include "device_types.cuh"
#include "gray_kernels.cuh"
#include "integral_histogram_kernels.cuh"
#include "stage_kinds.cuh"
#include "survivors.cuh"

namespace cascadekit::cuda {

// The model on the device: its stages' kernels and what they read. Immutable after construction.
struct Engine {
    CudaOptions options;
    std::vector<std::unique_ptr<CudaStage>> stages;
    std::vector<FeatureNeeds> stage_needs;
    FeatureNeeds needs;  // of all stages
    bool hog_from_gradients = false;  // PrefixPlanes::SurvivorBlocks and an LBP prefix: gradient planes, no integral histograms
    // The HoG integral histograms' grid (CudaOptions::grid_histograms): kRowsPerBlock (4) or 2,
    // the larger that every block corner of the model and every window position lie on, else 1.
    int hog_grid = 1;
    // The frame's launches in order: each stage's parts (stage_kinds.cuh).
    struct Launch {
        int stage, part;
    };
    std::vector<Launch> launches;
    // HogParams::gamma's table (gamma_table()) on the device; empty (p null) for none.
    DeviceBuffer<std::uint8_t> gamma;
    bool split_votes = false;  // HogParams::votes is OrientationVotes::Split
    bool colour = false;       // HoG gradients from the colour planes (HogParams::channels, and HoG stages)
    bool host_gray = false;    // CudaOptions::host_gray and not colour: frames are staged in gray (stage_input)
    // CudaOptions::gray_integral_16 and every LBP cell of the model small enough: the gray
    // integral images are kept modulo 2^16 (Slot::d_I16, FrameFeatures::gray16).
    bool gray16 = false;
    // CudaOptions::hog_tail_from: launches [tail_launch, end) run as the one launch of `tail`.
    std::unique_ptr<CudaTail> tail;
    std::size_t tail_launch = 0;
    int sms = 0;
    // What prepare() reads apart from the frame's size (PrepKey), and this engine's own number
    // (never reused in a process): a slot's graph holds the kernels and tables of the engine that
    // captured it.
    struct PrepKey {
        int window_width = 0, window_height = 0, stride = 0, level_pad = 0;
        double scale_step = 0, min_scale = 0, max_scale = 0;
        bool keep_rejected = false;
        std::size_t launches = 0;
        bool host_gray = false, colour = false, hog = false, hog_from_gradients = false, gray_integral = false, gray16 = false;
        int hog_grid = 1;
        Compaction compaction = Compaction::BlockAtomics;
        // With CudaOptions::poison the engine's id: its slots' buffers start poisoned, never
        // holding an earlier detector's data.
        std::uint64_t poisoned_for = 0;
        bool operator==(const PrepKey&) const = default;
    } key;
    std::uint64_t id = 0;
};

// Events between the steps of one profiled frame.
struct StepEvents {
    static constexpr int kMax = 256;
    cudaEvent_t e[kMax] = {};
    int n = 0;
    int upload_end = -1, gray_end = -1, rows_begin = -1, rows_end = -1, columns_end = -1, gray_integral_begin = -1,
        gray_integral_end = -1;
    std::vector<int> launch_begin, launch_end;  // per launch: the events just before and after it
};

// What decides the nodes of a slot's graph (enqueue()): graphs of the same shape differ only in
// their nodes' arguments, which cudaGraphExecUpdate sets; of another shape, an update is refused.
struct GraphShape {
    std::size_t launches = 0, octaves = 0, tail_launch = 0;
    bool host_gray = false, colour = false, hog = false, hog_from_gradients = false, gray_integral = false, keep_rejected = false;
    Compaction compaction = Compaction::BlockAtomics;
    bool operator==(const GraphShape&) const = default;
};

struct FramePlan;  // frame.cu

// A frame's pyramid and the totals its buffers are sized by: what make_frame_plan (frame.cu)
// computes for a frame size and scan, and what a Slot prepared for that frame keeps.
struct FrameLayout {
    std::vector<PyramidLevel> plan;
    std::vector<DevLevel> levels;
    std::vector<GrayOctave> octaves;  // in d_gray (octave 0, the gray input, at 0)
    int total_rows = 0, total_cols = 0, total_strips = 0, total_tiles = 0, max_width = 0;
    int total_hog_cols = 0;        // the HoG column pass's columns (total_cols, or on the grid)
    std::uint32_t n_windows = 0;
    std::size_t n_points = 0;      // gray integral images: every level's (width + 1) × (height + 1)
    std::size_t n_hog_points = 0;  // HoG integral histograms: the same, or on Engine::hog_grid's grid
    std::size_t n_level_pixels = 0;
};

// One frame's buffers, stream and graph; reused while frames keep their size, also by the next
// detector of the same Engine::PrepKey (the slots outlive their detector: cuda_detector.cu).
struct Slot : FrameLayout {
    cudaStream_t stream = nullptr;
    cudaGraphExec_t graph = nullptr;
    std::uint64_t graph_engine = 0;  // the Engine::id whose frame the graph replays (0: none, capture anew)
    GraphShape graph_shape;  // the graph's
    // Graphs replaced (launch()), destroyed by release_retired() once the slot's frames are read
    // back: cudaGraphExecDestroy may wait for the device, where other slots' frames run.
    std::vector<cudaGraphExec_t> retired;
    int width = -1, height = -1, channels = -1;
    ChannelOrder order = ChannelOrder::BGR;
    Engine::PrepKey key;  // what the slot was prepared for, with its frame size
    std::shared_ptr<const FramePlan> frame_plan;  // its pyramid and tables (frame.cu), shared by slots of that size and scan
    using Octave = GrayOctave;
    PinnedBuffer<std::uint8_t> h_in;
    DeviceBuffer<std::uint8_t> d_in, d_gray;
    // Engine::colour: the frame's octaves with R, G, B in bytes 0-2 of a word, laid out as d_gray.
    DeviceBuffer<std::uint32_t> d_rgba;
    DeviceBuffer<DevLevel> d_levels;
    DeviceBuffer<AxisEntry> d_xtab, d_ytab;
    DeviceBuffer<uint4> d_A, d_B;
    DeviceBuffer<std::uint32_t> d_C;
    DeviceBuffer<std::uint32_t> d_I;    // gray integral images (LBP)
    DeviceBuffer<std::uint16_t> d_I16;  // ... modulo 2^16, instead (Engine::gray16)
    DeviceBuffer<std::uint32_t> d_G;  // gradient planes (HoG blocks after an LBP prefix)
    DeviceBuffer<float> d_stage_sum;
    DeviceBuffer<std::uint32_t> d_ids[2];
    DeviceBuffer<std::uint8_t> d_flags;
    DeviceBuffer<float> d_win_score;
    DeviceBuffer<std::int16_t> d_win_stage;
    DeviceBuffer<std::uint8_t> d_cub;
    std::size_t cub_bytes = 0;
    // The frame's read-back as one block on the device and one in pinned memory, laid out by
    // prepare(): the weak classifiers evaluated, each launch's survivors (room for
    // max(launches, kMinLaunches)), then the accepted windows. One memset clears the counters and
    // one copy fetches them with the first kOutInGraph accepted windows: each node of a frame's
    // graph costs host time at its launch and a step on its stream (three copies and two
    // memsets cost more).
    DeviceBuffer<std::uint8_t> d_back;
    PinnedBuffer<std::uint8_t> h_back;
    std::size_t out_at = 0;  // the accepted windows' offset in the blocks
    unsigned long long *d_weak = nullptr, *h_weak = nullptr;
    std::uint32_t *d_counts = nullptr, *h_counts = nullptr;
    OutEntry *d_out = nullptr, *h_out = nullptr;
    PinnedBuffer<float> h_win_score;
    PinnedBuffer<std::int16_t> h_win_stage;

    Slot() { CK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking)); }
    Slot(const Slot&) = delete;
    Slot& operator=(const Slot&) = delete;
    ~Slot() {
        if (graph) cudaGraphExecDestroy(graph);
        for (cudaGraphExec_t g : retired) cudaGraphExecDestroy(g);
        if (stream) cudaStreamDestroy(stream);
    }
};

// Accepted windows copied back inside the graph; more are fetched after it (the trainer's first
// bootstrapping passes). A kernel writing them all straight into mapped host memory instead made
// those passes' frames slower (a pass of 3 M windows, 8.7 → 14.8 ms, gpu-waldboost.md).
constexpr std::uint32_t kOutInGraph = 4096;
// Launches a slot's counters have room for before they grow (prepare()).
constexpr std::size_t kMinLaunches = 64;

// Whether the slot's pyramid, tables and buffers are those of frames like `image` (size,
// channels, order) for this engine's scan and features (Engine::PrepKey, which a slot from an
// earlier detector may share): prepare() then does nothing. Re-preparing re-plans the pyramid and
// uploads its tables (on the slot's stream, without waiting for it), and with graphs the next
// launch() captures the frame and updates the slot's graph with it (or instantiates another).
inline bool prepared_for(const Slot& s, const ImageView& image, const Engine& engine) {
    return s.width == image.width && s.height == image.height && s.channels == image.channels && s.order == image.order &&
           s.key == engine.key;
}

// Sizes the slot's buffers and tables for a frame; allocates only when the size grows. Throws
// DetectError (before touching the slot) when no pyramid level fits the window. Returns whether
// it prepared (false: the slot was prepared for such frames already).
bool prepare(Slot& s, const ImageView& image, const CascadeModel& model, const DetectParams& params, const Engine& engine);
// Copies the frame into the slot's pinned input buffer: in gray with Engine::host_gray.
void stage_input(Slot& s, const Engine& engine, const ImageView& image);
// Enqueues the frame's work; with `events`, records them between the steps.
void enqueue(Slot& s, const Engine& engine, const DetectParams& params, StepEvents* events);
// enqueue(), captured into the slot's graph on its first frame and replayed after (options.use_graph).
// A graph of another engine's frame (a slot kept from an earlier detector) is updated in place
// from the new capture when the two have the same nodes (cudaGraphExecUpdate), else replaced.
// A slot prepared anew (another frame size or scan) keeps its graph for such an update too.
enum class GraphWork { Replayed, Updated, Instantiated, None };
GraphWork launch(Slot& s, const Engine& engine, const DetectParams& params);
GraphShape graph_shape(const Slot& s, const Engine& engine, const DetectParams& params);
// Destroys the slot's replaced graphs (Slot::retired); call where the device has no frame of
// the caller's in flight (it waits for the device).
void release_retired(Slot& s);
// A frame's result as read back, before it is put in the CPU's order: all finish() needs, apart
// from the slot, so that the slot can take its next frame meanwhile and a batch's frames can be
// finished in parallel (with many accepted windows, as in the trainer's first bootstrapping
// passes, sorting them is most of a frame's host time).
struct Readback {
    DetectResult result;             // the stats; with keep_rejected also every window, in order
    std::vector<OutEntry> accepted;  // otherwise the accepted windows, in survivor order
    int stages = 0;                  // what an accepted window passed
    struct Level {
        long long win0;  // first window id
        int cols;
        double scale;
        int pad;
    };
    std::vector<Level> levels;
};
// Waits for the frame and reads its result back.
Readback read_back(Slot& s, const Engine& engine, const CascadeModel& model, const DetectParams& params);
// The accepted windows as detections in the CPU's order; with `keep`, only the ranks it names for
// the frame's count (KeepRanks), in its order.
using FrameKeep = std::function<std::vector<std::uint32_t>(std::uint64_t detections)>;
DetectResult finish(Readback&& r, const CascadeModel& model, const DetectParams& params, const FrameKeep& keep = {});
inline DetectResult collect(Slot& s, const Engine& engine, const CascadeModel& model, const DetectParams& params) {
    return finish(read_back(s, engine, model, params), model, params);
}

}  // namespace cascadekit::cuda
