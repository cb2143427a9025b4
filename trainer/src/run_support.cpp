#include "run_support.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <tuple>
#include <ctime>

#include "cascadekit/runtime/bulk_detector.hpp"

namespace cascadekit::detail {

std::string utc_now() {
    std::time_t t = std::time(nullptr);
    // Reproducible builds' convention: a fixed creation time makes equal runs give equal files.
    if (const char* e = std::getenv("SOURCE_DATE_EPOCH"); e && *e) t = static_cast<std::time_t>(std::strtoll(e, nullptr, 10));
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
    return buf;
}

CascadeModel model_of(const TrainConfig& cfg, std::vector<Stage> stages, const std::string& description,
                      const std::string& created) {
    CascadeModel m;
    m.window_width = cfg.window.width;
    m.window_height = cfg.window.height;
    m.hog = cfg.hog;
    m.stages = std::move(stages);
    m.metadata = {cfg.text, description, created, CASCADEKIT_VERSION};
    m.object_box = cfg.object_box;
    m.operating = cfg.detect.point;
    return m;
}

namespace {
// The bulk detector bootstrapping scans with: the configuration's stride, scale step and backend.
BulkDetector mining_detector(const CascadeModel& model, const TrainConfig& cfg) {
    DetectParams params;
    params.stride = cfg.mining.stride;
    params.scale_step = cfg.mining.scale_step;
    params.min_scale = cfg.mining.min_scale;
    BulkOptions options;
    options.backend = cfg.mining.backend;
    options.in_flight = cfg.mining.in_flight;
    return BulkDetector(model, params, options);
}

// Images large enough to hold a window (the others hold none: counted as done, not scanned).
std::vector<std::uint32_t> usable_images(const CascadeModel& model, const std::vector<Image>& images) {
    std::vector<std::uint32_t> usable;
    for (std::size_t i = 0; i < images.size(); ++i)
        if (images[i].width >= model.window_width && images[i].height >= model.window_height)
            usable.push_back(static_cast<std::uint32_t>(i));
    return usable;
}
}  // namespace

namespace {
// An image's accepted windows as scan_images hands them on: every one in scan order, or, when it
// draws (Draw), the first `per_image` of a Fisher-Yates shuffle of them (subsample's swaps, so the
// first t of them are subsample's draw of t for any t up to per_image), each with its index in
// scan order, and how many there were.
struct ImageWindows {
    std::vector<WindowRef> windows;
    std::vector<std::uint32_t> index;  // when drawn: windows[i]'s index among the accepted ones
    std::size_t accepted = 0;
};
struct Draw {
    std::size_t per_image = 0;  // 0: hand every window on
    std::uint64_t seed = 0;     // image i's draw: RandomStream(seed, {i})
};

// Scans images[order[0]], images[order[1]], … with `model` through the bulk runner, handing each
// image's accepted windows to on_image, in order, until stop() says enough. Reports progress for
// `stage` (images_before counted as done already).
using OnImage = std::function<void(ImageWindows&& accepted)>;
MiningTotals scan_images(const CascadeModel& model, const TrainConfig& cfg, const std::vector<Image>& images,
                         const std::vector<std::uint32_t>& order, std::size_t images_before, int stage,
                         TrainObserver& observer, std::mutex& observer_mutex, const OnImage& on_image,
                         const std::function<bool()>& stop, const WindowFilter& allowed, Draw draw = {}) {
    BulkDetector bulk = mining_detector(model, cfg);
    MiningProgress p;
    p.stage = stage;
    p.images = images_before + order.size();
    p.images_done = images_before;
    const auto start = Clock::now();
    auto last = start;
    auto report = [&](bool finished) {
        p.seconds = seconds_since(start);
        p.eta_seconds = p.images_done ? p.seconds * double(p.images - p.images_done) / double(p.images_done) : -1;
        p.finished = finished;
        std::lock_guard lock(observer_mutex);
        observer.on_mining(p);
    };
    // Each image's windows, made on the bulk runner's worker threads (the first passes of a
    // WaldBoost run accept millions of windows; drawing there keeps only a few thousand of them
    // as records), handed on in order.
    std::vector<ImageWindows> accepted(order.size());
    const BulkTotals bulk_totals = bulk.run(
        order.size(), [&](std::size_t k) { return BulkImage{images[order[k]].view(), nullptr}; },
        [&](std::size_t k, DetectResult&& r, const BulkImage&, double) {
            p.windows_scanned += r.stats.windows_scanned;
            p.false_positives += accepted[k].accepted;
            ++p.images_done;
            on_image(std::move(accepted[k]));
            accepted[k] = {};
            if (Clock::now() - last > std::chrono::seconds(2)) {
                last = Clock::now();
                report(false);
            }
        },
        {}, stop,
        [&](std::size_t k, DetectResult& r, const BulkImage&) {
            ImageWindows& mine = accepted[k];
            const auto ref = [&](const Detection& d) {
                return WindowRef{order[k], 0, d.scale, static_cast<std::int32_t>(std::lround(d.x / d.scale)),
                                 static_cast<std::int32_t>(std::lround(d.y / d.scale))};
            };
            if (draw.per_image == 0) {
                mine.windows.reserve(r.detections.size());
                for (const Detection& d : r.detections)
                    if (const WindowRef w = ref(d); !allowed || allowed(w)) mine.windows.push_back(w);
                mine.accepted = mine.windows.size();
            } else if (!allowed) {  // the detections kept: those `keep` drew, in its order
                for (const Detection& d : r.detections) mine.windows.push_back(ref(d));
            } else {
                std::vector<std::uint32_t> in;  // the detections the filter keeps
                for (std::size_t i = 0; i < r.detections.size(); ++i)
                    if (allowed(ref(r.detections[i]))) in.push_back(static_cast<std::uint32_t>(i));
                mine.index = first_of_shuffle(in.size(), std::min(draw.per_image, in.size()), RandomStream(draw.seed, {order[k]}));
                for (std::uint32_t i : mine.index) mine.windows.push_back(ref(r.detections[in[i]]));
                mine.accepted = in.size();
            }
            r.detections = {};  // not needed again
        },
        // Without a filter the draw needs only each image's count: the backend then makes only the
        // drawn detections (most of the GPU's first passes went into making every one).
        draw.per_image > 0 && !allowed ? KeepRanks([&](std::size_t k, std::uint64_t n) {
            ImageWindows& mine = accepted[k];
            mine.accepted = n;
            mine.index = first_of_shuffle(n, std::min<std::size_t>(draw.per_image, n), RandomStream(draw.seed, {order[k]}));
            return mine.index;
        })
                                       : KeepRanks{});
    p.detect_seconds = bulk_totals.load_seconds + bulk_totals.detect_seconds;
    p.collect_seconds = bulk_totals.consume_seconds;
    report(true);
    return {p.windows_scanned, p.false_positives};
}
}  // namespace

std::vector<WindowRef> mine(const CascadeModel& model, const TrainConfig& cfg, const std::vector<Image>& images,
                            int stage, TrainObserver& observer, std::mutex& observer_mutex, MiningTotals* totals,
                            const WindowFilter& allowed) {
    const std::vector<std::uint32_t> usable = usable_images(model, images);
    std::vector<WindowRef> found;
    const MiningTotals t = scan_images(model, cfg, images, usable, images.size() - usable.size(), stage, observer, observer_mutex,
                                       [&](ImageWindows&& w) { found.insert(found.end(), w.windows.begin(), w.windows.end()); }, {},
                                       allowed);
    if (totals) *totals = t;
    return found;
}

std::vector<WindowRef> mine_pool(const CascadeModel& model, const TrainConfig& cfg, const std::vector<Image>& images,
                                 std::size_t want, std::size_t per_image, RandomStream rng, int stage,
                                 TrainObserver& observer, std::mutex& observer_mutex, MiningTotals* totals,
                                 const WindowFilter& allowed, bool all_when_short) {
    std::vector<std::uint32_t> order = usable_images(model, images);
    for (std::size_t i = 0; i + 1 < order.size(); ++i) std::swap(order[i], order[i + rng.below(order.size() - i)]);
    const std::uint64_t seed = rng.next();  // per-image draws: RandomStream(seed, {image})
    std::vector<WindowRef> pool, left_out;  // left_out: beyond the per-image limit (all_when_short)
    // Without all_when_short the workers draw each image's windows (the first per_image of
    // subsample's shuffle) and the consumer keeps the first of them it has room for, which is
    // subsample's draw of that many; with it, the windows left out are kept too, so every one
    // comes to the consumer.
    const Draw draw{all_when_short ? 0 : per_image, seed};
    const MiningTotals t = scan_images(
        model, cfg, images, order, 0, stage, observer, observer_mutex,
        [&](ImageWindows&& w) {
            if (pool.size() >= want || w.accepted == 0) return;  // full: what comes after does not count
            const std::size_t target = std::min(per_image, want - pool.size());
            if (draw.per_image > 0) {
                std::vector<std::pair<std::uint32_t, WindowRef>> kept;
                for (std::size_t i = 0; i < std::min(target, w.windows.size()); ++i) kept.emplace_back(w.index[i], w.windows[i]);
                std::sort(kept.begin(), kept.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
                for (const auto& [i, ref] : kept) pool.push_back(ref);
                return;
            }
            const std::uint32_t image = w.windows.front().image;
            std::vector<WindowRef> rest;
            const bool keep_rest = left_out.size() < want;
            w.windows = subsample(w.windows, target, RandomStream(seed, {image}), keep_rest ? &rest : nullptr);
            pool.insert(pool.end(), w.windows.begin(), w.windows.end());
            left_out.insert(left_out.end(), rest.begin(), rest.begin() + static_cast<std::ptrdiff_t>(std::min(rest.size(), want - left_out.size())));
        },
        [&] { return pool.size() >= want; }, allowed, draw);
    if (pool.size() < want)
        pool.insert(pool.end(), left_out.begin(), left_out.begin() + static_cast<std::ptrdiff_t>(std::min(left_out.size(), want - pool.size())));
    if (totals) *totals = t;
    return pool;
}

std::future<void> warm_mining(CascadeModel model, const TrainConfig& cfg, const std::vector<Image>& images) {
    if (cfg.mining.backend == Backend::Cpu) return {};
    // The two largest sizes of each channel count (the slots' buffers only grow, so the largest
    // frames size them; two, for images turned a quarter), an image of each.
    std::map<std::tuple<long long, int, int, int>, std::uint32_t, std::greater<>> by_size;  // pixels, channels, w, h
    for (std::uint32_t i : usable_images(model, images)) {
        const Image& im = images[i];
        by_size.emplace(std::tuple{static_cast<long long>(im.width) * im.height, im.channels, im.width, im.height}, i);
    }
    std::vector<std::uint32_t> samples;
    std::map<int, int> taken;  // per channel count
    for (const auto& [size, i] : by_size)
        if (taken[std::get<1>(size)]++ < 2) samples.push_back(i);
    return std::async(std::launch::async, [model = std::move(model), &cfg, &images, samples = std::move(samples)] {
        try {
            BulkDetector bulk = mining_detector(model, cfg);
            if (bulk.backend_name() == "cpu" || samples.empty()) return;
            const auto each = static_cast<std::size_t>(std::max(cfg.mining.in_flight, 1));
            bulk.run(
                samples.size() * each, [&](std::size_t k) { return BulkImage{images[samples[k / each]].view(), nullptr}; },
                [](std::size_t, DetectResult&&, const BulkImage&, double) {}, [](std::size_t, const std::string&) {});
        } catch (...) {
            // The pass itself meets whatever went wrong here, and reports it.
        }
    });
}

}  // namespace cascadekit::detail
