#pragma once
// Internal: what the cascade loop and the dense baseline share: the model of a run, its creation
// time, timing, and bootstrapping through the runtime's bulk detector.
#include <chrono>
#include <future>
#include <mutex>
#include <string>
#include <vector>

#include "cascadekit/trainer/trainer.hpp"
#include "training_data.hpp"

namespace cascadekit::detail {

using Clock = std::chrono::steady_clock;
inline double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// Now, or $SOURCE_DATE_EPOCH when set (reproducible files), as ISO 8601 UTC.
std::string utc_now();

// A model of the configuration's window and HoG parameters holding `stages`, with the run's
// metadata (configuration text, data description, creation time, toolkit version).
CascadeModel model_of(const TrainConfig& cfg, std::vector<Stage> stages, const std::string& description,
                      const std::string& created);

// Scans every negative image with `model` (the cascade so far: all scales, the configuration's
// stride and scale step, its mining backend) and returns every window it accepts, the false
// positives, in image order. Reports progress for `stage` to the observer (under `mutex`).
struct MiningTotals {
    std::uint64_t windows = 0;   // windows scanned
    std::uint64_t accepted = 0;  // of those, accepted by the model
};
// Windows `allowed` refuses (annotated images: too close to an object) are not returned.
std::vector<WindowRef> mine(const CascadeModel& model, const TrainConfig& cfg, const std::vector<Image>& images,
                            int stage, TrainObserver& observer, std::mutex& observer_mutex, MiningTotals* totals = nullptr,
                            const WindowFilter& allowed = {});

// A negative pool of `want` windows that `model` accepts, for refills inside a stage: the images
// in the order `rng` shuffles them, from each at most `per_image` of its accepted windows (drawn
// by a stream of the run's seed and the image), until the pool is full. Scans only as many images
// as it needs. Fewer than `want` when the images hold fewer. all_when_short: when every image was
// scanned and the pool is still short, the windows the per-image limit left out are added (in
// scan order, up to `want`), so a short pool holds every window the model accepts.
std::vector<WindowRef> mine_pool(const CascadeModel& model, const TrainConfig& cfg, const std::vector<Image>& images,
                                 std::size_t want, std::size_t per_image, RandomStream rng, int stage,
                                 TrainObserver& observer, std::mutex& observer_mutex, MiningTotals* totals = nullptr,
                                 const WindowFilter& allowed = {}, bool all_when_short = false);

// The first bootstrapping pass's set-up, done ahead while the stage trains on the CPU: on a GPU
// mining backend, `model` (any model of the run: its kinds of stage) runs mining.in_flight frames
// of each of the two largest sizes among the negative images, so that the pass finds its frame
// slots' buffers allocated and its kernels loaded, which took over half of that pass's time on an
// H100. Nothing for the CPU backend (an invalid future). The results are discarded and failures
// ignored: no negative changes. `cfg` and `images` must outlive the future (which waits when
// destroyed).
std::future<void> warm_mining(CascadeModel model, const TrainConfig& cfg, const std::vector<Image>& images);

}  // namespace cascadekit::detail
