#include "cascadekit/runtime/bulk_detector.hpp"

#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <variant>

#include "cascadekit/features/threads.hpp"
#include "cascadekit/runtime/cpu_detector.hpp"

namespace cascadekit {

struct BulkDetector::Impl {
    CascadeModel model;
    DetectParams params;
    BulkOptions options;
    std::unique_ptr<Detector> first;  // the CUDA detector, or the CPU one of the constructing thread
    bool batched = false;             // CUDA: one detector, detect_batch
    // A whole image a thread: one level at a time each (its storage for one level, not for
    // CpuOptions::levels_in_flight), as the images in flight already keep the threads busy.
    tbb::enumerable_thread_specific<std::unique_ptr<Detector>> per_thread{
        [this] { return std::make_unique<CpuDetector>(model, params, CpuOptions{.levels_in_flight = 1}); }};
};

BulkDetector::BulkDetector(const CascadeModel& model, const DetectParams& params, BulkOptions options)
    : impl_(std::make_unique<Impl>()) {
    impl_->model = model;
    impl_->params = params;
    impl_->options = options;
    impl_->first = Detector::create(model, params, options.backend, options.device);
    impl_->batched = impl_->first->backend_name() != "cpu";
}

BulkDetector::~BulkDetector() = default;

DetectResult BulkDetector::detect(const ImageView& image) { return impl_->first->detect(image); }

std::string BulkDetector::backend_name() const { return impl_->first->backend_name(); }
const CascadeModel& BulkDetector::model() const { return impl_->first->model(); }
const DetectParams& BulkDetector::params() const { return impl_->first->params(); }

namespace {
using Outcome = std::variant<std::monostate, DetectResult, std::string>;  // not run, served, failed

void add(DetectStats& total, const DetectStats& s) {
    total.windows_scanned += s.windows_scanned;
    total.weak_evaluated += s.weak_evaluated;
    total.levels += s.levels;
    if (total.rejected_per_stage.size() < s.rejected_per_stage.size()) total.rejected_per_stage.resize(s.rejected_per_stage.size(), 0);
    for (std::size_t k = 0; k < s.rejected_per_stage.size(); ++k) total.rejected_per_stage[k] += s.rejected_per_stage[k];
}
}  // namespace

namespace {
using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }
double seconds(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }
}  // namespace

// One run(): the images of a chunk loaded, detected (large ones alone, the others together) and
// handed over in order, chunk after chunk.
struct BulkDetector::Run {
    Impl& im;
    std::size_t count;
    const Loader& load;
    const Consumer& consume;
    const Failure& failed;
    const Prepare& prepare;
    const KeepRanks& keep;
    std::size_t most = 0;     // images a chunk
    double budget = 0;        // pixels loaded at once
    double alone = 0;         // pixels from which an image is detected alone
    BulkTotals totals{};
    std::vector<BulkImage> images{};
    std::vector<Outcome> outcomes{};
    std::vector<double> ms{};
    std::size_t begin = 0;  // the chunk's first image
    double largest = 0;     // pixels of the largest image loaded so far: sizes the next chunk

    void set_up() {
        // The threads that will run a chunk (cascade --threads limits them by a global_control).
        const std::size_t workers = worker_threads();
        most = im.options.chunk > 0 ? im.options.chunk : 8 * workers;
        budget = std::max(im.options.max_chunk_megapixels, 0.0) * 1e6;
        const double cpu_alone = std::max(1.0, im.options.max_chunk_megapixels / static_cast<double>(workers));
        alone = (im.options.alone_megapixels > 0 ? im.options.alone_megapixels : im.batched ? 16.0 : cpu_alone) * 1e6;
        totals.stats.rejected_per_stage.assign(im.model.stages.size(), 0);
    }

    // Image k's result with only the detections `keep` names (all without one).
    DetectResult kept(DetectResult r, std::size_t k) const {
        if (keep) keep_ranks(r, keep(begin + k, r.detections.size()));
        return r;
    }

    // One image on the first detector, alone (it parallelises inside).
    void detect_alone(std::size_t k) {
        try {
            const auto t0 = Clock::now();
            outcomes[k] = kept(im.first->detect(images[k].view), k);
            ms[k] = ms_since(t0);
        } catch (const DeviceError&) {
            throw;
        } catch (const DetectError& e) {
            outcomes[k] = std::string(e.what());
        } catch (const std::invalid_argument& e) {  // an invalid image view
            outcomes[k] = std::string(e.what());
        }
    }

    std::size_t chunk_size(double pixels) const {
        return std::min(static_cast<std::size_t>(std::clamp(budget / pixels, 1.0, static_cast<double>(most))), count - begin);
    }

    void load_one(std::size_t k) {
        try {
            images[k] = load(begin + k);
        } catch (const DeviceError&) {
            throw;
        } catch (const std::exception& e) {
            outcomes[k] = std::string(e.what());
        }
    }

    // Loads the next chunk; returns its size. Loaded images of a chunk stay within
    // max_chunk_megapixels (by the largest seen). The run's first image is loaded alone, to see
    // one, and then the rest of a chunk of its size: a first chunk of that one image alone cost
    // every bootstrapping pass on the GPU a frame's round trip of its own.
    std::size_t load_chunk() {
        std::size_t n = largest > 0 ? chunk_size(largest) : 1;
        images.assign(n, {});
        outcomes.assign(n, {});
        ms.assign(n, 0.0);
        std::size_t loaded = 0;
        if (largest == 0) {
            load_one(0);
            loaded = 1;
            const double pixels = static_cast<double>(images[0].view.width) * std::max(images[0].view.height, 0);
            if (std::holds_alternative<std::monostate>(outcomes[0]) && pixels > 0) {
                n = chunk_size(pixels);
                images.resize(n);
                outcomes.resize(n);
                ms.resize(n, 0.0);
            }
        }
        // Load (in parallel: decoding is most of the work for small models).
        tbb::parallel_for(loaded, n, [this](std::size_t k) { load_one(k); });
        return n;
    }

    // Large images run alone, one after another; the others together.
    void detect_chunk(std::size_t n) {
        std::vector<std::size_t> together, apart;
        for (std::size_t k = 0; k < n; ++k) {
            if (!std::holds_alternative<std::monostate>(outcomes[k])) continue;
            const double pixels = static_cast<double>(images[k].view.width) * std::max(images[k].view.height, 0);
            largest = std::max(largest, pixels);
            (pixels >= alone ? apart : together).push_back(k);
        }
        // One image to detect together is one thread's detector taking one level at a time
        // (parallel inside): alone it gets the levels in flight too.
        if (!im.batched && together.size() == 1) apart.push_back(together[0]), together.clear();
        for (std::size_t k : apart) detect_alone(k);
        if (im.batched) detect_batched(together);
        else detect_per_thread(together);
    }

    // The GPU: the chunk's images in one detect_batch.
    void detect_batched(const std::vector<std::size_t>& together) {
        std::vector<ImageView> views;
        std::vector<std::size_t> slot;
        for (std::size_t k : together) {
            try {
                validate(images[k].view);
            } catch (const std::exception& e) {
                outcomes[k] = std::string(e.what());
                continue;
            }
            views.push_back(images[k].view);
            slot.push_back(k);
        }
        try {
            const auto t0 = Clock::now();
            auto results = keep ? im.first->detect_batch(views, im.options.in_flight,
                                                         [&](std::size_t j, std::uint64_t found) { return keep(begin + slot[j], found); })
                                : im.first->detect_batch(views, im.options.in_flight);
            const double each = views.empty() ? 0.0 : ms_since(t0) / static_cast<double>(views.size());
            for (std::size_t j = 0; j < slot.size(); ++j) {
                outcomes[slot[j]] = std::move(results[j]);
                ms[slot[j]] = each;
            }
        } catch (const DeviceError&) {
            throw;
        } catch (const DetectError&) {
            for (std::size_t k : slot) detect_alone(k);  // one frame cannot be served: find which
        }
    }

    // The CPU: a whole image a worker thread, each on its thread's detector.
    void detect_per_thread(const std::vector<std::size_t>& together) {
        tbb::parallel_for(std::size_t{0}, together.size(), [&](std::size_t j) {
            const std::size_t k = together[j];
            Detector& det = *im.per_thread.local();
            try {
                const auto t0 = Clock::now();
                outcomes[k] = kept(tbb::this_task_arena::isolate([&] { return det.detect(images[k].view); }), k);
                ms[k] = ms_since(t0);
            } catch (const DetectError& e) {
                outcomes[k] = std::string(e.what());
            } catch (const std::invalid_argument& e) {  // an invalid image view
                outcomes[k] = std::string(e.what());
            }
        });
    }

    // The chunk's results to the consumer (or the failures to `failed`), in input order.
    void hand_over(std::size_t n) {
        for (std::size_t k = 0; k < n; ++k) {
            ++totals.images;
            if (auto* r = std::get_if<DetectResult>(&outcomes[k])) {
                add(totals.stats, r->stats);
                consume(begin + k, std::move(*r), images[k], ms[k]);
            } else {
                ++totals.failed;
                const std::string& message = std::get<std::string>(outcomes[k]);
                if (!failed) throw DetectError(message);
                failed(begin + k, message);
            }
            images[k] = {};  // its pixels are no longer needed
        }
    }

    void chunk(std::size_t n, Clock::time_point loading) {
        const auto detecting = Clock::now();
        totals.load_seconds += seconds(loading, detecting);
        detect_chunk(n);
        if (prepare)
            tbb::parallel_for(std::size_t{0}, n, [&](std::size_t k) {
                if (auto* r = std::get_if<DetectResult>(&outcomes[k])) prepare(begin + k, *r, images[k]);
            });
        const auto consuming = Clock::now();
        totals.detect_seconds += seconds(detecting, consuming);
        hand_over(n);
        totals.consume_seconds += seconds(consuming, Clock::now());
    }
};

BulkTotals BulkDetector::run(std::size_t count, const Loader& load, const Consumer& consume, const Failure& failed,
                             const Stop& stop, const Prepare& prepare, const KeepRanks& keep) {
    Run r{*impl_, count, load, consume, failed, prepare, keep};
    r.set_up();
    while (r.begin < count) {
        const auto loading = Clock::now();
        const std::size_t n = r.load_chunk();
        r.chunk(n, loading);
        r.begin += n;
        if (stop && stop()) break;
    }
    return r.totals;
}

}  // namespace cascadekit
