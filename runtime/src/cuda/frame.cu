#include "frame.cuh"

#include <algorithm>
#include <bit>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>
#include <utility>
#include <cub/device/device_select.cuh>
#include <string>
#include <thrust/iterator/counting_iterator.h>

#include "gray_kernels.cuh"
#include "host_copy.hpp"
#include "id_order.hpp"
#include "integral_histogram_kernels.cuh"
#include "integral_image_kernels.cuh"

namespace cascadekit::cuda {

namespace {
// Entry u of a resampling axis in 4 bytes (device_types.cuh).
AxisEntry pack_axis(const ResampleAxis& t, int u) {
    const auto i = static_cast<std::size_t>(u);
    if (t.i0[i] < 0 || t.i0[i] >= (1 << kAxisIndexBits) || t.wt[i] < 0 || t.wt[i] >= (1 << kResampleBits) ||
        (t.wt[i] != 0 && t.i1[i] != t.i0[i] + 1))
        throw DetectError("internal: a resampling table entry does not fit the CUDA backend's packed form");
    return {static_cast<std::uint32_t>(t.i0[i]) | static_cast<std::uint32_t>(t.wt[i]) << kAxisIndexBits};
}
}  // namespace

// A frame size's pyramid under one scan, as prepare() lays it out: the levels, octaves and
// resampling tables, and their totals. Immutable; shared by every slot prepared for such frames.
struct FramePlan : FrameLayout {
    std::vector<AxisEntry> xt, yt;  // the resampling tables of every level, uploaded per slot
};

namespace {

std::shared_ptr<const FramePlan> make_frame_plan(int width, int height, int ww, int wh, const DetectParams& params, int g) {
    auto fp = std::make_shared<FramePlan>();
    fp->plan = plan_pyramid(width, height, ww, wh, params.scale_step, params.min_scale, params.max_scale, params.level_pad);
    if (fp->plan.empty()) throw DetectError(window_fit_problem(width, height, ww, wh, params));
    // Octaves 0 .. the deepest a level reads, one after another in d_gray.
    fp->octaves.assign(1, {0, width, height});
    for (int k = 1; k <= fp->plan.back().octave; ++k) {
        const Slot::Octave& o = fp->octaves.back();
        fp->octaves.push_back({o.at + static_cast<long long>(o.width) * o.height, o.width / 2, o.height / 2});
    }
    std::vector<AxisEntry>& xt = fp->xt;
    std::vector<AxisEntry>& yt = fp->yt;
    long long points = 0, hog_points = 0, windows = 0, pixels = 0;
    int rows = 0, cols = 0, hog_cols = 0, strips = 0, max_w = 0;
    long long tiles = 0;
    for (const PyramidLevel& pl : fp->plan) {
        DevLevel L{};
        L.width = pl.width;
        L.height = pl.height;
        L.pitch = pl.width + 1;
        L.cols = (pl.width - ww) / params.stride + 1;
        L.rows = (pl.height - wh) / params.stride + 1;
        L.xtab = static_cast<int>(xt.size());
        L.ytab = static_cast<int>(yt.size());
        L.row0 = rows;  // first row block
        L.col0 = cols;
        L.strip0 = strips;
        strips += (pl.width + 31) / 32;
        L.ih = points;
        L.hog_ih = hog_points;
        L.hog_pitch = pl.width / g + 1;
        L.hog_rows = pl.height / g;
        L.hog_col0 = hog_cols;
        hog_cols += pl.width / g;
        hog_points += static_cast<long long>(L.hog_pitch) * (L.hog_rows + 1);
        L.px = pixels;
        pixels += static_cast<long long>(pl.width) * pl.height;
        L.win0 = windows;
        L.tile0 = static_cast<int>(tiles);
        tiles += static_cast<long long>((L.cols + kTileW - 1) / kTileW) * ((L.rows + kTileH - 1) / kTileH);
        const Slot::Octave& o = fp->octaves[static_cast<std::size_t>(pl.octave)];
        L.src = o.at;
        L.src_w = o.width;
        const ResampleAxis ax = resample_axis(pl.width, o.width, octave_scale(pl), pl.pad);
        const ResampleAxis ay = resample_axis(pl.height, o.height, octave_scale(pl), pl.pad);
        for (int u = 0; u < pl.width; ++u) xt.push_back(pack_axis(ax, u));
        for (int v = 0; v < pl.height; ++v) yt.push_back(pack_axis(ay, v));
        rows += (pl.height + kRowsPerBlock - 1) / kRowsPerBlock;
        cols += pl.width;
        max_w = std::max(max_w, pl.width);
        points += static_cast<long long>(L.pitch) * (pl.height + 1);
        windows += static_cast<long long>(L.cols) * L.rows;
        fp->levels.push_back(L);
    }
    if (windows > 0x7fffffffLL) throw DetectError("too many windows in one frame for the CUDA backend");
    fp->total_rows = rows;
    fp->total_cols = cols;
    fp->total_strips = strips;
    fp->total_tiles = static_cast<int>(tiles);  // at most n_windows, checked just above
    fp->max_width = max_w;
    fp->n_windows = static_cast<std::uint32_t>(windows);
    fp->n_points = static_cast<std::size_t>(points);
    fp->n_hog_points = static_cast<std::size_t>(hog_points);
    fp->total_hog_cols = hog_cols;
    fp->n_level_pixels = static_cast<std::size_t>(pixels);
    return fp;
}

// The plan of a frame size under a scan, made once a process: planning a 640×480 frame's
// pyramid and tables took 0.15 ms of host time, the better part of preparing a slot, and a
// bootstrapping pass prepares slots for the two sizes of its negatives again and again
// (gpu-waldboost.md). Up to 64 plans are kept (then the cache starts over).
std::shared_ptr<const FramePlan> frame_plan(int width, int height, int ww, int wh, const DetectParams& params, int g) {
    using Key = std::tuple<int, int, int, int, int, int, double, double, double, int>;
    static std::mutex mutex;
    static std::map<Key, std::shared_ptr<const FramePlan>> plans;
    const Key key{width, height, ww, wh, params.stride, params.level_pad, params.scale_step, params.min_scale, params.max_scale, g};
    {
        std::lock_guard lock(mutex);
        if (auto it = plans.find(key); it != plans.end()) return it->second;
    }
    std::shared_ptr<const FramePlan> fp = make_frame_plan(width, height, ww, wh, params, g);
    std::lock_guard lock(mutex);
    if (plans.size() >= 64) plans.clear();
    plans.emplace(key, fp);
    return fp;
}
}  // namespace

// Sizes the slot's buffers and tables for a frame; allocates only when the size grows.
bool prepare(Slot& s, const ImageView& image, const CascadeModel& model, const DetectParams& params, const Engine& engine) {
    const std::size_t n_launches = engine.launches.size();
    const CudaOptions& options = engine.options;
    if (prepared_for(s, image, engine)) return false;
    if (image.width >= (1 << kAxisIndexBits) || image.height >= (1 << kAxisIndexBits))
        throw DetectError("image " + std::to_string(image.width) + "x" + std::to_string(image.height) +
                          " has a side over the CUDA backend's " + std::to_string((1 << kAxisIndexBits) - 1) + " pixels");
    // Before touching the slot, which keeps serving its current size where this throws.
    std::shared_ptr<const FramePlan> fp =
        frame_plan(image.width, image.height, model.window_width, model.window_height, params, engine.hog_grid);
    s.graph_engine = 0;  // the graph stays, for launch() to update with the new frame's capture
    s.width = -1;  // invalid until every buffer below is sized (an allocation may throw)
    static_cast<FrameLayout&>(s) = *fp;
    s.frame_plan = fp;  // its tables' host memory, uploaded asynchronously below
    const std::vector<AxisEntry>&xt = fp->xt, &yt = fp->yt;
    const int max_w = fp->max_width;
    const std::size_t n_in = static_cast<std::size_t>(image.width) * image.height;
    s.h_in.reserve(engine.host_gray ? n_in : n_in * image.channels);
    if (!engine.host_gray) s.d_in.reserve(n_in * image.channels);
    const long long octave_bytes = s.octaves.back().at + static_cast<long long>(s.octaves.back().width) * s.octaves.back().height;
    s.d_gray.reserve(static_cast<std::size_t>(octave_bytes));
    if (engine.colour) s.d_rgba.reserve(static_cast<std::size_t>(octave_bytes));
    s.d_levels.reserve(s.levels.size());
    // Everything below goes on the slot's (non-blocking) stream, so the frame's kernels see it:
    // plain cudaMemset/cudaMemcpy run on the legacy stream, which that stream does not wait for.
    cudaStream_t st = s.stream;
    CK(cudaMemcpyAsync(s.d_levels.p, fp->levels.data(), fp->levels.size() * sizeof(DevLevel), cudaMemcpyHostToDevice, st));
    s.d_xtab.reserve(xt.size());
    s.d_ytab.reserve(yt.size());
    CK(cudaMemcpyAsync(s.d_xtab.p, xt.data(), xt.size() * sizeof(AxisEntry), cudaMemcpyHostToDevice, st));
    CK(cudaMemcpyAsync(s.d_ytab.p, yt.data(), yt.size() * sizeof(AxisEntry), cudaMemcpyHostToDevice, st));
    if (engine.needs.hog && engine.hog_from_gradients) {
        s.d_G.reserve(s.n_level_pixels);
        if (options.poison) CK(cudaMemsetAsync(s.d_G.p, 0xFF, s.n_level_pixels * sizeof(std::uint32_t), st));
    } else if (engine.needs.hog) {
    s.d_A.reserve(s.n_hog_points);
    s.d_B.reserve(s.n_hog_points);
    s.d_C.reserve(s.n_hog_points);
    if (options.poison) {
        CK(cudaMemsetAsync(s.d_A.p, 0xFF, s.n_hog_points * sizeof(uint4), st));
        CK(cudaMemsetAsync(s.d_B.p, 0xFF, s.n_hog_points * sizeof(uint4), st));
        CK(cudaMemsetAsync(s.d_C.p, 0xFF, s.n_hog_points * sizeof(std::uint32_t), st));
    }
    // Row 0 of every level stays zero: the row pass writes every other point, every frame.
    for (const DevLevel& L : s.levels) {
        CK(cudaMemsetAsync(s.d_A.p + L.hog_ih, 0, static_cast<std::size_t>(L.hog_pitch) * sizeof(uint4), st));
        CK(cudaMemsetAsync(s.d_B.p + L.hog_ih, 0, static_cast<std::size_t>(L.hog_pitch) * sizeof(uint4), st));
        CK(cudaMemsetAsync(s.d_C.p + L.hog_ih, 0, static_cast<std::size_t>(L.hog_pitch) * sizeof(std::uint32_t), st));
    }
    }
    if (engine.needs.gray_integral) {
        // uint32 points, or uint16 (Engine::gray16): the same element offsets, half the bytes.
        const std::size_t point_bytes = engine.gray16 ? sizeof(std::uint16_t) : sizeof(std::uint32_t);
        std::uint8_t* I = nullptr;
        if (engine.gray16) {
            s.d_I16.reserve(s.n_points);
            I = reinterpret_cast<std::uint8_t*>(s.d_I16.p);
        } else {
            s.d_I.reserve(s.n_points);
            I = reinterpret_cast<std::uint8_t*>(s.d_I.p);
        }
        s.d_stage_sum.reserve(s.n_windows);
        if (options.poison) {
            CK(cudaMemsetAsync(I, 0xFF, s.n_points * point_bytes, st));
            CK(cudaMemsetAsync(s.d_stage_sum.p, 0xFF, s.n_windows * sizeof(float), st));
        }
        // Row 0 of every level stays zero; the row pass writes every other point, every frame.
        for (const DevLevel& L : s.levels)
            CK(cudaMemsetAsync(I + static_cast<std::size_t>(L.ih) * point_bytes, 0, static_cast<std::size_t>(L.pitch) * point_bytes, st));
    }
    for (auto& b : s.d_ids) b.reserve(s.n_windows);
    s.d_win_score.reserve(s.n_windows);
    s.d_win_stage.reserve(s.n_windows);
    // Room for kMinLaunches at least: a bootstrapping run's sequence grows past compaction
    // boundaries between passes, and growing these (cudaFree and cudaFreeHost wait for the whole
    // device) stalled every slot's frames in those passes.
    const std::size_t room = std::max(n_launches, kMinLaunches);
    s.out_at = (sizeof(unsigned long long) + room * sizeof(std::uint32_t) + 15) / 16 * 16;
    const std::size_t back_bytes = s.out_at + static_cast<std::size_t>(s.n_windows) * sizeof(OutEntry);
    s.d_back.reserve(back_bytes);
    s.h_back.reserve(back_bytes);
    s.d_weak = reinterpret_cast<unsigned long long*>(s.d_back.p);
    s.h_weak = reinterpret_cast<unsigned long long*>(s.h_back.p);
    s.d_counts = reinterpret_cast<std::uint32_t*>(s.d_back.p + sizeof(unsigned long long));
    s.h_counts = reinterpret_cast<std::uint32_t*>(s.h_back.p + sizeof(unsigned long long));
    s.d_out = reinterpret_cast<OutEntry*>(s.d_back.p + s.out_at);
    s.h_out = reinterpret_cast<OutEntry*>(s.h_back.p + s.out_at);
    if (params.keep_rejected) {
        s.h_win_score.reserve(s.n_windows);
        s.h_win_stage.reserve(s.n_windows);
    }
    if (options.poison) {
        CK(cudaMemsetAsync(s.d_gray.p, 0xFF, s.d_gray.n, st));
        for (auto& b : s.d_ids) CK(cudaMemsetAsync(b.p, 0xFF, b.n * sizeof(std::uint32_t), st));
        CK(cudaMemsetAsync(s.d_win_score.p, 0xFF, s.d_win_score.n * sizeof(float), st));
        CK(cudaMemsetAsync(s.d_win_stage.p, 0xFF, s.d_win_stage.n * sizeof(std::int16_t), st));
        CK(cudaMemsetAsync(s.d_out, 0xFF, static_cast<std::size_t>(s.n_windows) * sizeof(OutEntry), st));
    }
    if (options.compaction == Compaction::CubSelect) {
        s.d_flags.reserve(s.n_windows);
        if (options.poison) CK(cudaMemsetAsync(s.d_flags.p, 0xFF, s.d_flags.n, st));
        std::size_t a = 0, b = 0;
        CK(cub::DeviceSelect::Flagged(nullptr, a, thrust::counting_iterator<std::uint32_t>(0), s.d_flags.p, s.d_ids[0].p,
                                      s.d_counts, static_cast<int>(s.n_windows)));
        CK(cub::DeviceSelect::Flagged(nullptr, b, s.d_ids[0].p, s.d_flags.p, s.d_ids[1].p, s.d_counts,
                                      static_cast<int>(s.n_windows)));
        s.cub_bytes = std::max(a, b);
        s.d_cub.reserve(s.cub_bytes);
    }
    // No wait for the stream: the tables' host copies (Slot::frame_plan) stay until the slot's
    // next prepare(), which comes after a read-back has waited for the stream, and the frame's
    // work follows these copies on the same stream.
    s.width = image.width;
    s.height = image.height;
    s.channels = image.channels;
    s.order = image.order;
    s.key = engine.key;
    if (engine.needs.hog) prepare_row_pass(max_w);  // and the gradient-plane pass
    return true;
}

namespace {
// Events between steps when profiling (nullptr: no recording).
int record_event(StepEvents* ev, cudaStream_t stream) {
    if (!ev) return -1;
    CK(cudaEventRecord(ev->e[ev->n], stream));
    return ev->n++;
}

// How the HoG gradients are made: from the gray octaves, or the colour ones (Engine::colour).
GradientSetting gradient_setting(const Slot& s, const Engine& engine) {
    return {engine.gamma.p, engine.split_votes, engine.colour ? s.d_rgba.p : nullptr};
}

void build_hog(Slot& s, const Engine& engine, cudaStream_t st, StepEvents* ev) {
    const int n_levels = static_cast<int>(s.levels.size());
    if (ev) ev->rows_begin = record_event(ev, st);
    launch_row_pass(s.d_gray.p, s.d_levels.p, n_levels, s.d_xtab.p, s.d_ytab.p, s.total_rows, s.max_width,
                    gradient_setting(s, engine), engine.hog_grid, s.d_A.p, s.d_B.p, s.d_C.p, st);
    if (ev) ev->rows_end = record_event(ev, st);
    launch_column_pass(s.d_levels.p, n_levels, s.total_hog_cols, s.d_A.p, s.d_B.p, s.d_C.p, st);
    if (ev) ev->columns_end = record_event(ev, st);
}
}  // namespace

void enqueue(Slot& s, const Engine& engine, const DetectParams& params, StepEvents* ev) {
    cudaStream_t st = s.stream;
    const std::size_t n_launches = engine.launches.size();
    const std::size_t n_pixels = static_cast<std::size_t>(s.width) * s.height;
    const int n_levels = static_cast<int>(s.levels.size());
    record_event(ev, st);
    // Staged in gray (Engine::host_gray): straight into octave 0; else the raw bytes, then a kernel.
    CK(cudaMemcpyAsync(engine.host_gray ? s.d_gray.p : s.d_in.p, s.h_in.p, n_pixels * (engine.host_gray ? 1 : s.channels),
                       cudaMemcpyHostToDevice, st));
    if (ev) ev->upload_end = record_event(ev, st);
    if (!engine.host_gray) launch_gray(s.d_in.p, s.d_gray.p, static_cast<int>(n_pixels), s.channels, s.order == ChannelOrder::BGR, st);
    // The octaves, and the weak count and launch counts (the read-back block's start) set to zero.
    launch_octaves(s.d_gray.p, s.octaves.data(), static_cast<int>(s.octaves.size()), reinterpret_cast<std::uint32_t*>(s.d_back.p),
                   static_cast<int>((sizeof(unsigned long long) + n_launches * sizeof(std::uint32_t)) / sizeof(std::uint32_t)), st);
    if (engine.colour) {
        launch_rgba(s.d_in.p, s.d_rgba.p, static_cast<int>(n_pixels), s.channels, s.order == ChannelOrder::BGR, st);
        for (std::size_t k = 1; k < s.octaves.size(); ++k) {
            const Slot::Octave &from = s.octaves[k - 1], &to = s.octaves[k];
            launch_halve_rgba(s.d_rgba.p + from.at, from.width, s.d_rgba.p + to.at, to.width, to.height, st);
        }
    }
    if (ev) ev->gray_end = record_event(ev, st);
    FrameFeatures features;
    const std::uint32_t* final_ids = nullptr;  // the last launch's survivors
    for (std::size_t k = 0; k < n_launches; ++k) {
        const Engine::Launch& l = engine.launches[k];
        const std::size_t stage = static_cast<std::size_t>(l.stage);
        // Features are built just before the first launch that reads them.
        if (engine.stage_needs[stage].hog && !features.hog.A && !features.gradients) {
            if (engine.hog_from_gradients) {
                if (ev) ev->rows_begin = record_event(ev, st);
                launch_gradient_plane(s.d_gray.p, s.d_levels.p, n_levels, s.d_xtab.p, s.d_ytab.p, s.total_rows,
                                      s.max_width, gradient_setting(s, engine), s.d_G.p, st);
                if (ev) ev->rows_end = ev->columns_end = record_event(ev, st);
                features.gradients = s.d_G.p;
            } else {
                build_hog(s, engine, st, ev);
                features.hog = {s.d_A.p, s.d_B.p, s.d_C.p, std::countr_zero(static_cast<unsigned>(engine.hog_grid))};
            }
        }
        if (engine.stage_needs[stage].gray_integral && !features.gray && !features.gray16) {
            if (ev) ev->gray_integral_begin = record_event(ev, st);
            if (engine.gray16) {
                launch_gray_row_pass(s.d_gray.p, s.d_levels.p, n_levels, s.d_xtab.p, s.d_ytab.p, s.total_rows, s.d_I16.p, st);
                launch_gray_column_pass(s.d_levels.p, n_levels, s.total_strips, s.d_I16.p, st);
                features.gray16 = s.d_I16.p;
            } else {
                launch_gray_row_pass(s.d_gray.p, s.d_levels.p, n_levels, s.d_xtab.p, s.d_ytab.p, s.total_rows, s.d_I.p, st);
                launch_gray_column_pass(s.d_levels.p, n_levels, s.total_strips, s.d_I.p, st);
                features.gray = s.d_I.p;
            }
            if (ev) ev->gray_integral_end = record_event(ev, st);
        }
        if (ev) ev->launch_begin.push_back(ev->n - 1);  // the event before the launch
        SurvivorArgs a{};
        a.levels = s.d_levels.p;
        a.n_levels = n_levels;
        a.stage_index = l.stage;
        a.n_stages = static_cast<int>(engine.stages.size());
        a.stride = params.stride;
        a.n_windows = s.n_windows;
        a.n_tiles = s.total_tiles;
        a.in_ids = k == 0 ? nullptr : s.d_ids[(k - 1) % 2].p;
        a.in_count = k == 0 ? nullptr : s.d_counts + (k - 1);
        a.out_ids = s.d_ids[k % 2].p;
        a.out_count = s.d_counts + k;
        a.flags = engine.options.compaction == Compaction::CubSelect ? s.d_flags.p : nullptr;
        a.block_append = engine.options.compaction == Compaction::BlockAtomics;
        a.win_score = s.d_win_score.p;
        a.win_stage = s.d_win_stage.p;
        a.keep_rejected = params.keep_rejected;
        a.stage_sum = s.d_stage_sum.p;
        a.weak_count = s.d_weak;
        final_ids = a.out_ids;
        if (engine.tail && k == engine.tail_launch) {  // the remaining launches as one
            engine.tail->launch(a, features, engine.sms * 8, st);
            if (ev) {  // the tail's time is its first launch's; the others take none
                const int end = record_event(ev, st);
                for (std::size_t j = k; j < n_launches; ++j) {
                    if (j > k) ev->launch_begin.push_back(end);
                    ev->launch_end.push_back(end);
                }
            }
            break;
        }
        engine.stages[stage]->launch(a, features, l.part, k == 0 ? 0 : engine.sms * 8, st);
        if (a.flags) {
            std::size_t bytes = s.cub_bytes;
            if (k == 0)
                CK(cub::DeviceSelect::Flagged(s.d_cub.p, bytes, thrust::counting_iterator<std::uint32_t>(0), s.d_flags.p,
                                              a.out_ids, a.out_count, static_cast<int>(s.n_windows), st));
            else
                CK(cub::DeviceSelect::Flagged(s.d_cub.p, bytes, a.in_ids, s.d_flags.p, a.out_ids, a.out_count,
                                              static_cast<int>(s.n_windows), st));
        }
        if (ev) ev->launch_end.push_back(record_event(ev, st));
    }
    launch_gather(final_ids, s.d_counts + (n_launches - 1), s.d_win_score.p, s.d_out,
                  std::min(blocks_for(kOutInGraph), engine.sms * 4), st);
    // The counters and the first accepted windows in one copy.
    CK(cudaMemcpyAsync(s.h_back.p, s.d_back.p, s.out_at + std::min<std::size_t>(kOutInGraph, s.n_windows) * sizeof(OutEntry),
                       cudaMemcpyDeviceToHost, st));
    if (params.keep_rejected) {
        CK(cudaMemcpyAsync(s.h_win_score.p, s.d_win_score.p, s.n_windows * sizeof(float), cudaMemcpyDeviceToHost, st));
        CK(cudaMemcpyAsync(s.h_win_stage.p, s.d_win_stage.p, s.n_windows * sizeof(std::int16_t), cudaMemcpyDeviceToHost, st));
    }
    record_event(ev, st);
}

void stage_input(Slot& s, const Engine& engine, const ImageView& image) {
    if (engine.host_gray) {
        stage_gray(s.h_in.p, image);
        return;
    }
    copy_rows(s.h_in.p, image.data, image.height, static_cast<std::size_t>(image.width) * image.channels,
              image.stride);
}

GraphShape graph_shape(const Slot& s, const Engine& engine, const DetectParams& params) {
    return {engine.launches.size(), s.octaves.size(), engine.tail ? engine.tail_launch : engine.launches.size(), engine.host_gray,
            engine.colour, engine.needs.hog, engine.hog_from_gradients, engine.needs.gray_integral, params.keep_rejected,
            engine.options.compaction};
}

GraphWork launch(Slot& s, const Engine& engine, const DetectParams& params) {
    if (!engine.options.use_graph) {
        enqueue(s, engine, params, nullptr);
        return GraphWork::None;
    }
    GraphWork work = GraphWork::Replayed;
    if (!s.graph || s.graph_engine != engine.id) {
        cudaGraph_t g = nullptr;
        CK(cudaStreamBeginCapture(s.stream, cudaStreamCaptureModeThreadLocal));
        try {
            enqueue(s, engine, params, nullptr);
        } catch (...) {
            cudaStreamEndCapture(s.stream, &g);
            if (g) cudaGraphDestroy(g);
            throw;
        }
        CK(cudaStreamEndCapture(s.stream, &g));
        // A slot kept from an earlier detector of the same scan, or prepared anew for another
        // frame size or scan: its graph has the same nodes when the engines have the same
        // launches and the frames as many pyramid levels and octaves, and only their arguments
        // (the model's tables, its kernels, the levels' sizes) change, which an update sets
        // without instantiating anew. The graph an update refuses is retired, not destroyed here.
        cudaError_t e = cudaErrorGraphExecUpdateFailure;
        const GraphShape shape = graph_shape(s, engine, params);
        if (s.graph && !(s.graph_shape == shape)) {  // other nodes: an update would be refused
            s.retired.push_back(s.graph);
            s.graph = nullptr;
        }
        s.graph_shape = shape;
        if (s.graph) {
            cudaGraphExecUpdateResultInfo info{};
            e = cudaGraphExecUpdate(s.graph, g, &info);
            if (e != cudaSuccess) {
                cudaGetLastError();  // a refused update is not an error: instantiate instead
                s.retired.push_back(s.graph);
                s.graph = nullptr;
            }
        }
        work = e == cudaSuccess ? GraphWork::Updated : GraphWork::Instantiated;
        if (!s.graph) e = cudaGraphInstantiate(&s.graph, g, 0);
        cudaGraphDestroy(g);
        CK(e);
        s.graph_engine = engine.id;
    }
    CK(cudaGraphLaunch(s.graph, s.stream));
    return work;
}

void release_retired(Slot& s) {
    for (; !s.retired.empty(); s.retired.pop_back()) CK(cudaGraphExecDestroy(s.retired.back()));
}

namespace {
// A window as a detection: its level, place and size in the frame.
Detection window_detection(const Readback::Level& L, int level, std::uint32_t id, float score, int passed, const CascadeModel& model,
                           const DetectParams& params) {
    const int local = static_cast<int>(id - L.win0);
    const int x = (local % L.cols) * params.stride, y = (local / L.cols) * params.stride;
    return Detection{(x - L.pad) * L.scale, (y - L.pad) * L.scale, model.window_width * L.scale, model.window_height * L.scale, score,
                     level, L.scale, passed};
}
}  // namespace

Readback read_back(Slot& s, const Engine& engine, const CascadeModel& model, const DetectParams& params) {
    CK(cudaStreamSynchronize(s.stream));
    const std::size_t n_stages = engine.stages.size(), n_launches = engine.launches.size();
    Readback rb;
    DetectResult& r = rb.result;
    r.stats.windows_scanned = s.n_windows;
    r.stats.levels = static_cast<int>(s.levels.size());
    r.stats.rejected_per_stage.assign(n_stages, 0);
    r.stats.weak_evaluated = s.h_weak[0];  // kinds that count on the device
    std::uint64_t in = s.n_windows;
    for (std::size_t k = 0; k < n_launches; ++k) {
        const std::size_t stage = static_cast<std::size_t>(engine.launches[k].stage);
        if (engine.launches[k].part == 0) {
            r.stats.weak_evaluated += in * static_cast<std::uint64_t>(engine.stages[stage]->weak_per_window());
            r.stats.rejected_per_stage[stage] = in;
        }
        in = s.h_counts[k];
        if (engine.launches[k].part + 1 == engine.stages[stage]->parts()) r.stats.rejected_per_stage[stage] -= in;
    }
    rb.stages = static_cast<int>(n_stages);
    rb.levels.reserve(s.levels.size());
    for (std::size_t li = 0; li < s.levels.size(); ++li)
        rb.levels.push_back({s.levels[li].win0, s.levels[li].cols, s.plan[li].scale, s.plan[li].pad});
    if (params.keep_rejected) {
        r.detections.reserve(s.n_windows);
        std::size_t li = 0;  // ids in increasing order: the level only moves forward
        for (std::uint32_t id = 0; id < s.n_windows; ++id) {
            while (li + 1 < rb.levels.size() && static_cast<std::uint64_t>(rb.levels[li + 1].win0) <= id) ++li;
            r.detections.push_back(window_detection(rb.levels[li], static_cast<int>(li), id, s.h_win_score.p[id], s.h_win_stage.p[id],
                                                    model, params));
        }
        return rb;
    }
    const std::uint32_t accepted = s.h_counts[n_launches - 1];
    rb.accepted.reserve(accepted);
    rb.accepted.assign(s.h_out, s.h_out + std::min(accepted, kOutInGraph));
    // The rest into the slot's pinned buffer on its own stream: a pageable copy on the legacy
    // stream ran at a fraction of the speed and one host thread at a time (the trainer's first
    // bootstrapping pass reads back millions of windows).
    if (accepted > kOutInGraph) {
        CK(cudaMemcpyAsync(s.h_out + kOutInGraph, s.d_out + kOutInGraph, (accepted - kOutInGraph) * sizeof(OutEntry),
                           cudaMemcpyDeviceToHost, s.stream));
        CK(cudaStreamSynchronize(s.stream));
        rb.accepted.insert(rb.accepted.end(), s.h_out + kOutInGraph, s.h_out + accepted);
    }
    return rb;
}

DetectResult finish(Readback&& rb, const CascadeModel& model, const DetectParams& params, const FrameKeep& keep) {
    DetectResult r = std::move(rb.result);
    if (params.keep_rejected) {
        if (keep) keep_ranks(r, keep(r.detections.size()));
        return r;
    }
    std::vector<OutEntry>& out = rb.accepted;  // in survivor order; sorted by id, it is the CPU's order
    if (keep) {
        // Detections of the kept ranks only: the first bootstrapping passes accept tens of
        // thousands of windows a frame and keep a few dozen, and making every detection (page
        // faults on fresh memory, on every core at once) took half of such a pass on the GPU;
        // sorting them all took most of the rest (at_id_ranks).
        const std::vector<std::uint32_t> ranks = keep(out.size());
        std::vector<bool> taken(out.size(), false);
        for (std::uint32_t k : ranks) take_rank(k, out.size(), taken);
        r.detections.reserve(ranks.size());
        for (const OutEntry& e : at_id_ranks(std::move(out), ranks, r.stats.windows_scanned)) {
            // The level: the last whose first window id is at most e.id.
            const auto at = std::upper_bound(rb.levels.begin(), rb.levels.end(), e.id,
                                             [](std::uint32_t id, const Readback::Level& L) { return static_cast<long long>(id) < L.win0; });
            const std::size_t li = static_cast<std::size_t>(at - rb.levels.begin()) - 1;
            r.detections.push_back(window_detection(rb.levels[li], static_cast<int>(li), e.id, e.score, rb.stages, model, params));
        }
        return r;
    }
    sort_by_id(out);
    r.detections.reserve(out.size());
    std::size_t li = 0;  // ids in increasing order: the level only moves forward
    for (const OutEntry& e : out) {
        while (li + 1 < rb.levels.size() && static_cast<std::uint64_t>(rb.levels[li + 1].win0) <= e.id) ++li;
        r.detections.push_back(window_detection(rb.levels[li], static_cast<int>(li), e.id, e.score, rb.stages, model, params));
    }
    return r;
}

}  // namespace cascadekit::cuda
