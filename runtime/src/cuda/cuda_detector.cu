// The CUDA backend's host class: owns the device copy of the model, the frame slots (buffers,
// streams, graphs) and the public API; every call runs on the device chosen at construction.
// Layers below (CUB's layout): frame.cuh (a frame's plan and dispatch per stage kind),
// stage_kinds.cuh (the kinds' kernels: hog_svm_kernels.cu, …), gray_kernels.cuh and
// integral_histogram_kernels.cuh (features), survivors.cuh (compaction and read-back),
// device_types.cuh and cuda_support.cuh (shared types, errors, buffers). Compiled with
// --fmad=false so that block_math's arithmetic rounds exactly as on the CPU.
#include "cascadekit/runtime/cuda_detector.hpp"

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "cascadekit/runtime/stages/hog_svm.hpp"
#include "frame.cuh"
#include "host_copy.hpp"
#include "integral_histogram_kernels.cuh"

namespace cascadekit {

using cuda::DeviceGuard;

namespace {
// The slots of detectors gone, by device, for the next detectors there: their streams and buffers
// serve again without cudaMallocHost or cudaMalloc, which took up to 40 % of a bootstrapping
// pass's time on the GPU when every pass built its detector's slots anew. Never destroyed: CUDA's own teardown at exit may come first.
// Up to 64 a device, mining.in_flight's most (once 16: a run with 32
// in flight allocated 16 slots anew every pass).
class SlotPool {
public:
    static constexpr std::size_t kMostPerDevice = 64;
    static SlotPool& instance() {
        static SlotPool* pool = new SlotPool;
        return *pool;
    }
    // A pooled slot of `device` (unprepared), or a new one.
    std::unique_ptr<cuda::Slot> take(int device) {
        {
            std::lock_guard lock(mutex_);
            auto& free = free_[device];
            if (!free.empty()) {
                std::unique_ptr<cuda::Slot> s = std::move(free.back());
                free.pop_back();
                return s;
            }
        }
        return std::make_unique<cuda::Slot>();
    }
    // Back from a detector, on its device (current): once its stream is idle, still prepared for
    // its last frame size and scan (Engine::PrepKey), so that the next detector of the same scan
    // (the trainer's next bootstrapping pass, its sequence longer) neither plans its pyramid nor
    // uploads its tables again, and with its graph, which that detector updates with its own
    // kernels' arguments (cuda::launch). A slot whose stream reports an error is dropped, as are
    // slots beyond kMostPerDevice.
    void give(int device, std::unique_ptr<cuda::Slot> s) {
        if (cudaStreamSynchronize(s->stream) != cudaSuccess) return;
        std::lock_guard lock(mutex_);
        auto& free = free_[device];
        if (free.size() < kMostPerDevice) free.push_back(std::move(s));
    }

private:
    std::mutex mutex_;
    std::map<int, std::vector<std::unique_ptr<cuda::Slot>>> free_;
};
}  // namespace

struct CudaDetector::Impl {
    cuda::Engine engine;
    std::vector<std::unique_ptr<cuda::Slot>> slots;
    int last_slot = 0;
    std::vector<std::uint64_t> slot_turn;  // when each slot last took a frame of detect_batch
    std::uint64_t turns = 0;
    std::string device_name;
    PrefixPlanes prefix_planes = PrefixPlanes::SurvivorBlocks;  // CudaOptions::prefix_planes, resolved
    std::atomic<std::uint64_t> prepared{0}, updated{0}, instantiated{0};  // CudaDetector::slot_work

    // Prepares slot s for the frame and puts the frame on it, counting the work.
    void start(cuda::Slot& s, const ImageView& image, const CascadeModel& model, const DetectParams& params) {
        if (cuda::prepare(s, image, model, params, engine)) ++prepared;
        cuda::stage_input(s, engine, image);
        switch (cuda::launch(s, engine, params)) {
            case cuda::GraphWork::Updated: ++updated; break;
            case cuda::GraphWork::Instantiated: ++instantiated; break;
            default: break;
        }
    }

    cuda::Slot& slot(std::size_t i) {
        while (slots.size() <= i) slots.push_back(SlotPool::instance().take(engine.options.device));
        return *slots[i];
    }
    // On the detector's device (CudaDetector's destructor makes it current).
    ~Impl() {
        for (auto& s : slots) try {
                SlotPool::instance().give(engine.options.device, std::move(s));
            } catch (...) {  // no memory for the pool's list: the slot is released instead
            }
    }

    // The slot of a detect_batch host thread's next frame, images[i], among its slots first ..
    // first + n − 1, whose frames are images[i], images[i + step], ...: the one idle longest (by
    // slot_turn, sized already, and the thread's `clock`) of those prepared for frames like this
    // one or not prepared for this detector's scan (each must be prepared before its first frame
    // here in any case); the slot used last is passed over (its frame has only just started).
    // Where none is, a slot is prepared again for this frame's size: the one whose preparation the
    // thread's next frames need last (Belady's choice, looking 64 frames ahead), the longest idle
    // of equals. Frames of one size go round every slot; frames of mixed sizes (the trainer's
    // negatives, turned a quarter or not, and a few of other sizes) keep to slots of their size.
    // When the longest idle slot was prepared again instead, a frame of a rare size took a slot of a common one,
    // whose next frame took another, and a host thread prepared 5–9 slots in a bootstrapping pass
    // where 4 were needed.
    std::size_t next_slot(std::size_t first, std::size_t n, const std::vector<ImageView>& images, std::size_t i, std::size_t step,
                          std::uint64_t& clock) {
        const ImageView& image = images[i];
        std::vector<std::size_t> order(n);
        for (std::size_t k = 0; k < n; ++k) order[k] = first + k;
        std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return slot_turn[a] < slot_turn[b]; });
        const std::size_t candidates = std::max<std::size_t>(1, n - 1);
        constexpr std::size_t kNone = ~std::size_t{0};
        std::size_t pick = kNone;
        for (std::size_t j = 0; j < candidates && pick == kNone; ++j)
            if (const cuda::Slot& s = slot(order[j]); cuda::prepared_for(s, image, engine) || s.width < 0 || s.key != engine.key)
                pick = order[j];
        if (pick == kNone) {
            constexpr std::size_t kLookAhead = 64;
            std::size_t latest = 0;
            for (std::size_t j = 0; j < candidates; ++j) {
                const cuda::Slot& s = slot(order[j]);
                std::size_t next = 1;  // in the thread's frames from the next one; kLookAhead + 1: not needed
                for (std::size_t f = i + step; next <= kLookAhead && f < images.size() && !cuda::prepared_for(s, images[f], engine);
                     f += step)
                    ++next;
                if (i + next * step >= images.size()) next = kLookAhead + 1;
                if (pick == kNone || next > latest) {
                    pick = order[j];
                    latest = next;
                }
            }
        }
        slot_turn[pick] = ++clock;
        return pick;
    }
};

bool cuda_available(std::string* why) {
    int n = 0;
    const cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess || n == 0) {
        if (why) *why = e != cudaSuccess ? std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e) : "no CUDA device";
        cudaGetLastError();  // clear the sticky-free error state of the query
        return false;
    }
    return true;
}

void cuda_warm_up(int device) noexcept {
    if (cudaSetDevice(device) == cudaSuccess) cudaFree(nullptr);  // the runtime's way to create the context
    cudaGetLastError();
}

bool CudaDetector::supports(const CascadeModel& model, std::string* why) {
    for (std::size_t s = 0; s < model.stages.size(); ++s)
        if (cuda::find_cuda_stage_kind(model.stages[s].kind()) == nullptr) {
            if (why)
                *why = "stage " + std::to_string(s + 1) + " is " + std::string(model.stages[s].kind()) +
                       ": the CUDA backend has no kernels for that kind (use --backend cpu)";
            return false;
        }
    return true;
}

CudaDetector::CudaDetector(CascadeModel model, DetectParams params, CudaOptions options)
    : model_(std::move(model)), params_(params), impl_(std::make_unique<Impl>()) {
    validate_model(model_);
    validate(params_);
    std::string why;
    if (!supports(model_, &why)) throw DetectError(why);
    if (params_.scale_windows)
        throw DetectError("DetectParams::scale_windows (--scale-windows): the CUDA backend scans resampled levels only; use --backend cpu");
    if (params_.approximate_hog)
        throw DetectError("DetectParams::approximate_hog (--approximate-hog): the CUDA backend computes every level's histograms; use --backend cpu");
    if (params_.approximate_lbp)
        throw DetectError("DetectParams::approximate_lbp (--approximate-lbp): the CUDA backend reads every level's own gray integral; use --backend cpu");
    if (!cuda_available(&why)) throw DetectError("the CUDA backend cannot run here: " + why);
    int devices = 0;
    CK(cudaGetDeviceCount(&devices));
    if (options.device < 0 || options.device >= devices)
        throw DetectError("CUDA device " + std::to_string(options.device) + " does not exist (this machine has " +
                          std::to_string(devices) + ")");
    if (options.lbp_block_threads != 64 && options.lbp_block_threads != 128 && options.lbp_block_threads != 256 &&
        options.lbp_block_threads != 512)
        throw DetectError("CudaOptions::lbp_block_threads must be 64, 128, 256 or 512, not " +
                          std::to_string(options.lbp_block_threads));
    if (options.lbp_first_rows != 0 && options.lbp_first_rows != 1 && options.lbp_first_rows != 2 && options.lbp_first_rows != 4 &&
        options.lbp_first_rows != 8)
        throw DetectError("CudaOptions::lbp_first_rows must be 0, 1, 2, 4 or 8, not " + std::to_string(options.lbp_first_rows));
    if (options.lbp_warp_round != 1 && options.lbp_warp_round != 2 && options.lbp_warp_round != 4 && options.lbp_warp_round != 8)
        throw DetectError("CudaOptions::lbp_warp_round must be 1, 2, 4 or 8, not " + std::to_string(options.lbp_warp_round));
    if (options.prefix_planes == PrefixPlanes::WhereSurvivors || options.prefix_planes == PrefixPlanes::PerLevel)
        throw DetectError(std::string("PrefixPlanes::") + (options.prefix_planes == PrefixPlanes::PerLevel ? "PerLevel" : "WhereSurvivors") +
                          " is CPU-only: the CUDA backend takes EveryLevel or SurvivorBlocks");
    // Integral histograms on a grid of kRowsPerBlock (the row pass's block height) or 2 pixels
    // where the blocks and windows allow; after an LBP prefix, by default, every level's such
    // histograms rather than survivor blocks (CudaOptions::prefix_planes).
    const int scan_grid = options.grid_histograms ? hog_scan_grid(model_, params_.stride) : 1;
    const int hog_grid = scan_grid % cuda::kRowsPerBlock == 0 ? cuda::kRowsPerBlock : scan_grid % 2 == 0 ? 2 : 1;
    impl_->prefix_planes = options.prefix_planes.value_or(hog_grid > 1 ? PrefixPlanes::EveryLevel : PrefixPlanes::SurvivorBlocks);
    cuda::Engine& engine = impl_->engine;
    engine.options = options;
    DeviceGuard device(options.device);
    cudaDeviceProp prop{};
    CK(cudaGetDeviceProperties(&prop, options.device));
    impl_->device_name = prop.name;
    engine.sms = prop.multiProcessorCount;
    if (model_.hog.gamma != GrayGamma::None) {
        engine.gamma.reserve(256);
        CK(cudaMemcpy(engine.gamma.p, gamma_table(model_.hog.gamma), 256, cudaMemcpyHostToDevice));
    }
    engine.split_votes = model_.hog.votes == OrientationVotes::Split;
    // Gray integral images modulo 2^16 where every stage that reads them stays exact with them.
    engine.gray16 = options.gray_integral_16;
    bool reads_gray = false;
    for (const Stage& stage : model_.stages) {
        const cuda::CudaStageKind* kind = cuda::find_cuda_stage_kind(stage.kind());
        if (!kind->needs.gray_integral) continue;
        reads_gray = true;
        engine.gray16 = engine.gray16 && kind->exact_from_gray16 && kind->exact_from_gray16(stage);
    }
    engine.gray16 = engine.gray16 && reads_gray;
    for (const Stage& stage : model_.stages) {
        const cuda::CudaStageKind* kind = cuda::find_cuda_stage_kind(stage.kind());
        const cuda::StageSetting setting{static_cast<int>(engine.stages.size()), params_.stride, engine.gray16};
        engine.stages.push_back(kind->make(stage, model_, options, setting));
        engine.stage_needs.push_back(kind->needs);
        engine.needs |= kind->needs;
        for (int part = 0; part < engine.stages.back()->parts(); ++part)
            engine.launches.push_back({static_cast<int>(engine.stages.size()) - 1, part});
    }
    engine.colour = engine.needs.hog && model_.hog.colour();
    engine.host_gray = options.host_gray && !engine.colour;
    // An LBP prefix in front of HoG stages: only the survivors' blocks are summed, from gradient planes.
    engine.hog_from_gradients = impl_->prefix_planes == PrefixPlanes::SurvivorBlocks && engine.needs.hog &&
                                !engine.stage_needs.front().hog;
    if (engine.needs.hog && !engine.hog_from_gradients) engine.hog_grid = hog_grid;
    // Its last HoG stages as one launch (the first launch of the frame never: it has no input list).
    const std::size_t tail_from = static_cast<std::size_t>(options.hog_tail_from);
    if (engine.hog_from_gradients && options.hog_tail_from > 0 && options.compaction != Compaction::CubSelect &&
        tail_from < engine.stages.size()) {
        engine.tail = cuda::make_hog_tail(engine.stages, tail_from);
        if (engine.tail)
            while (engine.launches[engine.tail_launch].stage != options.hog_tail_from) ++engine.tail_launch;
    }
    static std::atomic<std::uint64_t> engines{0};
    engine.id = ++engines;
    engine.key = {.window_width = model_.window_width,
                  .window_height = model_.window_height,
                  .stride = params_.stride,
                  .level_pad = params_.level_pad,
                  .scale_step = params_.scale_step,
                  .min_scale = params_.min_scale,
                  .max_scale = params_.max_scale,
                  .keep_rejected = params_.keep_rejected,
                  .launches = engine.launches.size(),
                  .host_gray = engine.host_gray,
                  .colour = engine.colour,
                  .hog = engine.needs.hog,
                  .hog_from_gradients = engine.hog_from_gradients,
                  .gray_integral = engine.needs.gray_integral,
                  .gray16 = engine.gray16,
                  .hog_grid = engine.hog_grid,
                  .compaction = options.compaction,
                  .poisoned_for = options.poison ? engine.id : 0};
    // Those copies ran on the legacy stream, which the slots' non-blocking streams do not wait for.
    CK(cudaStreamSynchronize(cudaStreamLegacy));
}

CudaDetector::~CudaDetector() {
    if (!impl_) return;
    try {
        DeviceGuard device(impl_->engine.options.device);
        impl_.reset();  // the slots go to the pool, the model's buffers are released, on their device
    } catch (...) {
        // A lost device: nothing left to release properly.
    }
}

std::string CudaDetector::device_name() const { return impl_->device_name; }
int CudaDetector::device() const { return impl_->engine.options.device; }
PrefixPlanes CudaDetector::prefix_planes() const { return impl_->prefix_planes; }

DetectResult CudaDetector::detect(const ImageView& image) {
    validate(image);
    DeviceGuard device(impl_->engine.options.device);
    cuda::Slot& s = impl_->slot(0);
    impl_->start(s, image, model_, params_);
    impl_->last_slot = 0;
    DetectResult r = cuda::collect(s, impl_->engine, model_, params_);
    cuda::release_retired(s);
    return r;
}

std::vector<DetectResult> CudaDetector::detect_batch(const std::vector<ImageView>& images, int slots) {
    return detect_batch(images, slots, KeepRanks{});
}

std::vector<DetectResult> CudaDetector::detect_batch(const std::vector<ImageView>& images, int slots, const KeepRanks& keep) {
    for (const ImageView& im : images) validate(im);
    DeviceGuard device(impl_->engine.options.device);
    const std::size_t n_slots = static_cast<std::size_t>(std::max(1, slots));
    std::vector<cuda::Readback> back(images.size());
    // Host threads, each with its own slots (four each, so that frames of two sizes still find
    // an idle slot of their size) and every host-th frame: staging a frame (a copy into pinned
    // memory) and launching its graph take one thread longer than the GPU takes to run a small
    // frame.
    const std::size_t hosts = std::clamp<std::size_t>(std::min(n_slots / 4, images.size() / 4), 1, 8);
    impl_->slot(n_slots - 1);  // every slot exists and has its turn before the threads share them
    impl_->slot_turn.resize(std::max(impl_->slot_turn.size(), n_slots), 0);
    std::vector<std::exception_ptr> failed(hosts);
    std::size_t last = 0;  // the last frame's slot (level_integral_histogram reads it)
    const int device_index = impl_->engine.options.device;
    // Each frame read back is put in the CPU's order by TBB's idle workers while the host threads
    // go on: finishing a batch after its last frame took 0.3-1.3 ms of a bootstrapping pass of
    // 5-10 ms (8 % of the GPU's mining). With many accepted windows a frame (the
    // trainer's first passes) their ordering is most of the host's time.
    std::vector<DetectResult> results(images.size());
    cuda::TaskGroup finishing;
    auto read = [&](cuda::Slot& s, std::size_t i) {
        back[i] = cuda::read_back(s, impl_->engine, model_, params_);
        finishing.run([&, i] {
            results[i] = keep ? cuda::finish(std::move(back[i]), model_, params_, [&](std::uint64_t n) { return keep(i, n); })
                              : cuda::finish(std::move(back[i]), model_, params_);
        });
    };
    auto host = [&](std::size_t h) {
        try {
            DeviceGuard on(device_index);  // the device is a thread's setting
            const std::size_t first = h * n_slots / hosts, n = (h + 1) * n_slots / hosts - first;
            std::vector<long long> in_flight(n, -1);
            std::uint64_t clock = impl_->turns;
            for (std::size_t i = h; i < images.size(); i += hosts) {
                const std::size_t k = impl_->next_slot(first, n, images, i, hosts, clock);
                cuda::Slot& s = impl_->slot(k);
                long long& mine = in_flight[k - first];
                if (mine >= 0) read(s, static_cast<std::size_t>(mine));
                impl_->start(s, images[i], model_, params_);
                mine = static_cast<long long>(i);
                if (i + 1 == images.size()) last = k;
            }
            for (std::size_t k = 0; k < n; ++k)
                if (in_flight[k] >= 0) read(impl_->slot(first + k), static_cast<std::size_t>(in_flight[k]));
        } catch (...) {
            failed[h] = std::current_exception();
        }
    };
    if (hosts == 1) host(0);
    else cuda::parallel_for_each(hosts, host);
    std::exception_ptr finish_failed;
    try {
        finishing.wait();
    } catch (...) {
        finish_failed = std::current_exception();
    }
    for (const std::exception_ptr& e : failed)
        if (e) std::rethrow_exception(e);
    if (finish_failed) std::rethrow_exception(finish_failed);
    impl_->turns += images.size();
    impl_->last_slot = static_cast<int>(last);
    for (std::size_t k = 0; k < n_slots; ++k) cuda::release_retired(impl_->slot(k));  // every frame is read back
    return results;
}

CudaStepTimes CudaDetector::profile(const ImageView& image) {
    validate(image);
    DeviceGuard device(impl_->engine.options.device);
    const cuda::Engine& engine = impl_->engine;
    cuda::Slot& s = impl_->slot(0);
    if (cuda::prepare(s, image, model_, params_, engine)) ++impl_->prepared;
    cuda::stage_input(s, impl_->engine, image);
    cuda::StepEvents ev;
    // Events: start, after upload, gray, rows, columns, gray integral (begin and end), each launch, download.
    if (engine.launches.size() + 8 > cuda::StepEvents::kMax)
        throw DetectError("profile times at most " + std::to_string(cuda::StepEvents::kMax - 8) + " launches");
    for (auto& e : ev.e) CK(cudaEventCreate(&e));
    struct Destroy {
        cuda::StepEvents& ev;
        ~Destroy() {
            for (auto& e : ev.e) cudaEventDestroy(e);
        }
    } destroy{ev};
    cuda::enqueue(s, engine, params_, &ev);
    cuda::collect(s, engine, model_, params_);
    auto ms = [&](int a, int b) {
        if (a < 0 || b < 0) return 0.0;
        float t = 0;
        CK(cudaEventElapsedTime(&t, ev.e[a], ev.e[b]));
        return static_cast<double>(t);
    };
    CudaStepTimes t;
    t.upload = ms(0, ev.upload_end);
    t.gray = ms(ev.upload_end, ev.gray_end);
    t.rows = ms(ev.rows_begin, ev.rows_end);
    t.columns = ms(ev.rows_end, ev.columns_end);
    t.gray_integral = ms(ev.gray_integral_begin, ev.gray_integral_end);
    for (std::size_t k = 0; k < engine.launches.size(); ++k) {
        const cuda::Engine::Launch& l = engine.launches[k];
        const cuda::CudaStage& stage = *engine.stages[static_cast<std::size_t>(l.stage)];
        const double m = ms(ev.launch_begin[k], ev.launch_end[k]);
        (stage.heavy() ? t.late_stages : t.early_stages) += m;
        t.launches.push_back({l.stage, stage.weak_after(l.part), s.h_counts[k], m});
    }
    t.download = ms(ev.launch_end.back(), ev.n - 1);
    t.total = ms(0, ev.n - 1);
    // Rows: writes every point but row 0 (36 bytes); columns: reads and writes rows 2..h of
    // columns 1..w (of the grid's points with Engine::hog_grid). Gray image reads are small and
    // cached, and not counted.
    std::uint64_t bytes = 0;
    if (engine.hog_from_gradients)
        for (const cuda::DevLevel& L : s.levels) bytes += static_cast<std::uint64_t>(L.width) * L.height * 4;
    else if (engine.needs.hog)
        for (const cuda::DevLevel& L : s.levels) {
            bytes += static_cast<std::uint64_t>(L.hog_pitch) * L.hog_rows * 36;
            bytes += static_cast<std::uint64_t>(L.hog_pitch - 1) * std::max(L.hog_rows - 1, 0) * 72;
        }
    t.integral_histogram_bytes = bytes;
    impl_->last_slot = 0;
    return t;
}

std::vector<std::uint32_t> CudaDetector::level_integral_histogram(int level, int& width, int& height) const {
    cuda::DeviceGuard device(impl_->engine.options.device);
    const cuda::Slot& s = *impl_->slots.at(static_cast<std::size_t>(impl_->last_slot));
    if (level < 0 || level >= static_cast<int>(s.levels.size())) throw std::out_of_range("no such pyramid level");
    const cuda::DevLevel& L = s.levels[static_cast<std::size_t>(level)];
    width = L.width;
    height = L.height;
    const std::size_t n = static_cast<std::size_t>(L.hog_pitch) * (L.hog_rows + 1);
    std::vector<uint4> a(n), b(n);
    std::vector<std::uint32_t> c(n);
    CK(cudaMemcpy(a.data(), s.d_A.p + L.hog_ih, n * sizeof(uint4), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(b.data(), s.d_B.p + L.hog_ih, n * sizeof(uint4), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(c.data(), s.d_C.p + L.hog_ih, n * sizeof(std::uint32_t), cudaMemcpyDeviceToHost));
    std::vector<std::uint32_t> out(n * kOrientationBins);
    for (std::size_t i = 0; i < n; ++i) {
        std::uint32_t* p = out.data() + i * kOrientationBins;
        p[0] = a[i].x; p[1] = a[i].y; p[2] = a[i].z; p[3] = a[i].w;
        p[4] = b[i].x; p[5] = b[i].y; p[6] = b[i].z; p[7] = b[i].w;
        p[8] = c[i];
    }
    return out;
}

bool CudaDetector::gray_integral_16() const { return impl_->engine.gray16; }

CudaSlotWork CudaDetector::slot_work() const {
    return {impl_->prepared.load(), impl_->updated.load(), impl_->instantiated.load()};
}

std::vector<std::uint32_t> CudaDetector::level_integral_image(int level, int& width, int& height) const {
    cuda::DeviceGuard device(impl_->engine.options.device);
    const cuda::Slot& s = *impl_->slots.at(static_cast<std::size_t>(impl_->last_slot));
    if (!impl_->engine.needs.gray_integral) throw std::logic_error("the model has no stage that reads gray integral images");
    if (level < 0 || level >= static_cast<int>(s.levels.size())) throw std::out_of_range("no such pyramid level");
    const cuda::DevLevel& L = s.levels[static_cast<std::size_t>(level)];
    width = L.width;
    height = L.height;
    std::vector<std::uint32_t> out(static_cast<std::size_t>(L.pitch) * (L.height + 1));
    if (impl_->engine.gray16) {
        std::vector<std::uint16_t> narrow(out.size());
        CK(cudaMemcpy(narrow.data(), s.d_I16.p + L.ih, narrow.size() * sizeof(std::uint16_t), cudaMemcpyDeviceToHost));
        std::copy(narrow.begin(), narrow.end(), out.begin());
    } else {
        CK(cudaMemcpy(out.data(), s.d_I.p + L.ih, out.size() * sizeof(std::uint32_t), cudaMemcpyDeviceToHost));
    }
    return out;
}

std::vector<std::uint8_t> CudaDetector::last_gray() const {
    cuda::DeviceGuard device(impl_->engine.options.device);
    const cuda::Slot& s = *impl_->slots.at(static_cast<std::size_t>(impl_->last_slot));
    std::vector<std::uint8_t> out(static_cast<std::size_t>(s.width) * s.height);
    CK(cudaMemcpy(out.data(), s.d_gray.p, out.size(), cudaMemcpyDeviceToHost));
    return out;
}

double cuda_copy_bandwidth(std::size_t bytes, int repeats) {
    using cuda::DeviceBuffer;
    std::string why;
    if (!cuda_available(&why)) throw DetectError("no CUDA device: " + why);
    DeviceBuffer<std::uint8_t> a, b;
    a.reserve(bytes);
    b.reserve(bytes);
    CK(cudaMemset(a.p, 1, bytes));
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    std::vector<double> gbs;
    for (int i = 0; i < repeats + 1; ++i) {
        CK(cudaEventRecord(e0));
        CK(cudaMemcpy(b.p, a.p, bytes, cudaMemcpyDeviceToDevice));
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        if (i > 0) gbs.push_back(2.0 * static_cast<double>(bytes) / (ms * 1e-3) / 1e9);  // first is warm-up
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    std::sort(gbs.begin(), gbs.end());
    return gbs[gbs.size() / 2];
}

}  // namespace cascadekit
