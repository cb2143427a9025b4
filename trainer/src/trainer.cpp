#include "cascadekit/trainer/trainer.hpp"

#include <sys/resource.h>
#include <tbb/blocked_range.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/task_arena.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <ctime>
#include <mutex>
#include <numeric>

#include "cascadekit/features/block_pool.hpp"
#include "cascadekit/io/model_file.hpp"
#include "cascadekit/runtime/detector.hpp"
#include "cascadekit/runtime/window_evaluator.hpp"
#include "cascadekit/trainer/linear_svm.hpp"
#include "checkpoint.hpp"
#include "window_set.hpp"

namespace cascadekit {

double peak_memory_mb() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return static_cast<double>(u.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

namespace {
using Clock = std::chrono::steady_clock;
using detail::Checkpoint;
using detail::WindowRef;
using detail::WindowSet;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

std::string utc_now() {
    std::time_t t = std::time(nullptr);
    // Reproducible builds' convention: a fixed creation time makes equal runs give equal files.
    if (const char* e = std::getenv("SOURCE_DATE_EPOCH"); e && *e) t = static_cast<std::time_t>(std::strtoll(e, nullptr, 10));
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
    return buf;
}

CascadeModel model_of(const TrainConfig& cfg, const std::vector<HogSvmStage>& stages, const std::string& description,
                      const std::string& created) {
    CascadeModel m;
    m.window_width = cfg.window_width;
    m.window_height = cfg.window_height;
    m.hog = cfg.hog;
    for (const auto& s : stages) m.stages.emplace_back(s);
    m.metadata = {cfg.text, description, created, CASCADEKIT_VERSION};
    return m;
}

// Scans every negative image with the cascade so far (the runtime's detector, all scales) and
// returns every window it accepts: the false positives, in image order.
std::vector<WindowRef> mine(const CascadeModel& model, const TrainConfig& cfg, const std::vector<GrayImage>& images,
                            int stage, TrainObserver& observer, std::mutex& observer_mutex) {
    DetectParams params;
    params.stride = cfg.mining_stride;
    params.scale_step = cfg.mining_scale_step;
    Backend backend = Backend::Auto;
    parse_backend(cfg.mining_backend, backend);
    tbb::enumerable_thread_specific<std::unique_ptr<Detector>> detectors(
        [&] { return Detector::create(model, params, backend); });
    std::vector<std::vector<WindowRef>> found(images.size());
    std::atomic<std::uint64_t> windows{0}, fps{0};
    std::atomic<std::size_t> done{0};
    const auto start = Clock::now();
    auto last = start;
    auto report = [&](bool finished) {
        MiningProgress p;
        p.stage = stage;
        p.images_done = done.load();
        p.images = images.size();
        p.windows_scanned = windows.load();
        p.false_positives = fps.load();
        p.seconds = seconds_since(start);
        p.eta_seconds = p.images_done ? p.seconds * double(p.images - p.images_done) / double(p.images_done) : -1;
        p.finished = finished;
        observer.on_mining(p);
    };
    // Chunks of images per task: the CUDA backend keeps a chunk's frames in flight on its streams
    // (detect_batch); the CPU backend runs them in turn, each with its own parallel loop.
    constexpr std::size_t kChunk = 8;
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, images.size(), kChunk), [&](const tbb::blocked_range<std::size_t>& range) {
        std::vector<std::size_t> index;
        std::vector<ImageView> views;
        for (std::size_t i = range.begin(); i < range.end(); ++i) {
            if (images[i].width < model.window_width || images[i].height < model.window_height) {
                ++done;
                continue;
            }
            index.push_back(i);
            views.push_back(images[i].view());
        }
        // Isolated: while this thread waits in the detector's own parallel loop it must not take
        // another chunk's task, which would reuse this thread's (busy) detector.
        const std::vector<DetectResult> results =
            tbb::this_task_arena::isolate([&] { return detectors.local()->detect_batch(views); });
        for (std::size_t k = 0; k < index.size(); ++k) {
            const std::size_t i = index[k];
            const DetectResult& r = results[k];
            for (const Detection& d : r.detections)
                found[i].push_back({static_cast<std::uint32_t>(i), d.scale, static_cast<std::int32_t>(std::lround(d.x / d.scale)),
                                    static_cast<std::int32_t>(std::lround(d.y / d.scale))});
            windows += r.stats.windows_scanned;
            fps += r.detections.size();
            ++done;
        }
        std::unique_lock lock(observer_mutex, std::try_to_lock);
        if (lock.owns_lock() && Clock::now() - last > std::chrono::seconds(2)) {
            last = Clock::now();
            report(false);
        }
    });
    {
        std::lock_guard lock(observer_mutex);
        report(true);
    }
    std::vector<WindowRef> all;
    for (auto& f : found) all.insert(all.end(), f.begin(), f.end());
    return all;
}

// ------------------------------------------------------------------------------------------
// Boosted cascade
// ------------------------------------------------------------------------------------------
class CascadeTraining {
public:
    CascadeTraining(const TrainConfig& cfg, const Dataset& data, const ImageLoader& loader, const TrainOptions& opt,
                    TrainObserver& obs)
        : cfg_(cfg), data_(data), loader_(loader), opt_(opt), obs_(obs), samples_(cfg.window_width, cfg.window_height),
          pool_(make_block_pool(cfg.pool, cfg.window_width, cfg.window_height)) {}

    TrainSummary run() {
        const auto t0 = Clock::now();
        if (opt_.resume) {
            ck_ = detail::read_checkpoint(state_file());
            if (ck_.fingerprint != config_fingerprint(cfg_))
                throw TrainError(state_file().string() + ": the configuration changed since this run started; "
                                 "resume with the same configuration file or start afresh without --resume");
            obs_.on_note("resuming: " + std::to_string(ck_.stages.size()) + " stage(s) done, stage " +
                         std::to_string(ck_.stages.size() + 1) + " has " + std::to_string(ck_.current.learners.size()) +
                         " learner(s)");
        } else {
            ck_.fingerprint = config_fingerprint(cfg_);
            ck_.created_utc = opt_.created_utc.empty() ? utc_now() : opt_.created_utc;
        }
        const double seconds_before = ck_.seconds;
        auto elapsed = [&] { return seconds_before + seconds_since(t0); };
        if (ck_.finished) return summary(elapsed());

        obs_.on_note("loading " + std::to_string(data_.positives.size()) + " positive crops and " +
                     std::to_string(data_.negatives.size()) + " negative images");
        positives_ = data_.positives.size();
        samples_.resize(positives_);
        detail::visit_positives(data_.positives, loader_, cfg_.window_width, cfg_.window_height,
                                [&](std::size_t i, const IntegralHistogram& ih, int x, int y) { samples_.store(i, ih, x, y); });
        images_ = detail::load_images(data_.negatives, loader_);
        if (opt_.resume)
            detail::validate_checkpoint(ck_, state_file(), cfg_.window_width, cfg_.window_height, positives_, images_);
        target_negatives_ = cfg_.negatives_per_stage > 0 ? static_cast<std::size_t>(cfg_.negatives_per_stage) : positives_;

        if (!opt_.resume) {
            ck_.negatives = detail::random_windows(images_, target_negatives_, cfg_.window_width, cfg_.window_height,
                                                   cfg_.mining_scale_step, RandomStream(cfg_.seed, {0, 0, 7}));
            obs_.on_note("stage 1 negatives: " + std::to_string(ck_.negatives.size()) + " random windows");
        }
        load_negatives();
        if (ck_.weights.empty()) reset_weights();
        recompute_sums();

        int rounds_here = 0;
        while (!ck_.finished) {
            round();
            ++ck_.rounds;
            ++rounds_here;
            if (stage_complete()) finish_stage();
            ck_.seconds = elapsed();
            save();
            if (opt_.stop_after_rounds > 0 && rounds_here >= opt_.stop_after_rounds && !ck_.finished) {
                obs_.on_note("stopping after " + std::to_string(rounds_here) + " round(s) as asked; continue with --resume");
                break;
            }
        }
        return summary(elapsed());
    }

private:
    std::filesystem::path state_file() const {
        if (!opt_.state_file.empty()) return opt_.state_file;
        auto p = opt_.model_out;
        p += ".state";
        return p;
    }
    int stage_number() const { return static_cast<int>(ck_.stages.size()) + 1; }
    std::size_t count() const { return positives_ + ck_.negatives.size(); }
    int label(std::size_t i) const { return i < positives_ ? 1 : -1; }

    void load_negatives() {
        samples_.resize(count());
        detail::visit_windows(ck_.negatives, images_, positives_,
                              [&](std::size_t i, const IntegralHistogram& ih, int x, int y) { samples_.store(i, ih, x, y); });
    }

    // Uniform weights within each class, the classes weighing half each (Viola & Jones).
    void reset_weights() {
        ck_.weights.assign(count(), 0.0);
        const double n = static_cast<double>(ck_.negatives.size());
        for (std::size_t i = 0; i < count(); ++i)
            ck_.weights[i] = i < positives_ ? 0.5 / static_cast<double>(positives_) : 0.5 / n;
    }

    // Stage sums exactly as the detector forms them: float, learner order.
    void recompute_sums() {
        sums_.assign(count(), 0.0f);
        BlockDescriptor v;
        for (const HogLearner& l : ck_.current.learners)
            for (std::size_t i = 0; i < count(); ++i) {
                samples_.descriptor(i, l.block, cfg_.hog, v);
                if (learner_margin(l, v) >= 0.0f) sums_[i] += l.alpha;
            }
        update_threshold();
    }

    void update_threshold() {
        std::vector<float> pos(sums_.begin(), sums_.begin() + static_cast<std::ptrdiff_t>(positives_));
        std::sort(pos.begin(), pos.end());
        const auto k = static_cast<std::size_t>(std::floor((1.0 - cfg_.d_min) * static_cast<double>(positives_) + 1e-9));
        ck_.current.threshold = pos[std::min(k, pos.size() - 1)];
        std::size_t dp = 0, fp = 0;
        for (std::size_t i = 0; i < count(); ++i)
            if (sums_[i] >= ck_.current.threshold) ++(i < positives_ ? dp : fp);
        d_ = static_cast<double>(dp) / static_cast<double>(positives_);
        f_ = static_cast<double>(fp) / static_cast<double>(ck_.negatives.size());
    }

    struct Candidate {
        HogLearner learner;
        double error = 1.0;
        std::vector<std::uint8_t> decisions;
    };

    void round() {
        const int stage = stage_number();
        const auto round_index = static_cast<std::uint64_t>(ck_.current.learners.size());
        // Candidate blocks: distinct, drawn from the pool by this round's own random stream.
        RandomStream pick(cfg_.seed, {1, static_cast<std::uint64_t>(stage), round_index});
        std::vector<std::size_t> order(pool_.size());
        std::iota(order.begin(), order.end(), 0);
        const std::size_t nc = std::min<std::size_t>(static_cast<std::size_t>(cfg_.candidates_per_round), pool_.size());
        for (std::size_t i = 0; i < nc; ++i) std::swap(order[i], order[i + pick.below(order.size() - i)]);
        // The rows each SVM trains on.
        std::vector<int> rows(count());
        if (cfg_.svm_weighting == SvmWeighting::Resample) {
            std::vector<double> cum(count());
            std::partial_sum(ck_.weights.begin(), ck_.weights.end(), cum.begin());
            RandomStream draw(cfg_.seed, {2, static_cast<std::uint64_t>(stage), round_index});
            for (auto& r : rows) {
                const double u = draw.unit() * cum.back();
                r = static_cast<int>(std::min<std::size_t>(
                    static_cast<std::size_t>(std::upper_bound(cum.begin(), cum.end(), u) - cum.begin()), count() - 1));
            }
        } else {
            std::iota(rows.begin(), rows.end(), 0);
        }
        std::vector<int> labels(count());
        for (std::size_t i = 0; i < count(); ++i) labels[i] = label(i);

        std::vector<Candidate> cands(nc);
        tbb::parallel_for(std::size_t{0}, nc, [&](std::size_t c) {
            const Rect block = pool_[order[c]];
            std::vector<float> feats(count() * kBlockDims);
            BlockDescriptor v;
            for (std::size_t i = 0; i < count(); ++i) {
                samples_.descriptor(i, block, cfg_.hog, v);
                std::copy(v.begin(), v.end(), feats.begin() + static_cast<std::ptrdiff_t>(i * kBlockDims));
            }
            const LinearSvm svm = train_linear_svm(feats, kBlockDims, labels, rows, cfg_.svm_c);
            Candidate& out = cands[c];
            out.learner.block = block;
            std::copy(svm.weights.begin(), svm.weights.end(), out.learner.weights.begin());
            out.learner.bias = svm.bias;
            out.decisions.resize(count());
            double err = 0;
            for (std::size_t i = 0; i < count(); ++i) {
                std::copy_n(feats.begin() + static_cast<std::ptrdiff_t>(i * kBlockDims), kBlockDims, v.begin());
                out.decisions[i] = learner_margin(out.learner, v) >= 0.0f;
                if ((out.decisions[i] != 0) != (labels[i] > 0)) err += ck_.weights[i];
            }
            out.error = err;
        });
        std::size_t best = 0;
        for (std::size_t c = 1; c < nc; ++c)
            if (cands[c].error < cands[best].error) best = c;
        Candidate& win = cands[best];
        const double e = std::clamp(win.error, 1e-10, 1.0 - 1e-10);
        if (e >= 0.5) {
            stalled_ = true;
            obs_.on_note("stage " + std::to_string(stage) + ": no candidate beats chance (weighted error " +
                         std::to_string(e) + "); closing the stage");
            return;
        }
        const double alpha = 0.5 * std::log((1.0 - e) / e);
        win.learner.alpha = static_cast<float>(alpha);
        ck_.current.vote = VoteMode::Binary;
        ck_.current.learners.push_back(win.learner);
        double total = 0;
        for (std::size_t i = 0; i < count(); ++i) {
            const int h = win.decisions[i] ? 1 : -1;
            ck_.weights[i] *= std::exp(-alpha * label(i) * h);
            total += ck_.weights[i];
            if (win.decisions[i]) sums_[i] += win.learner.alpha;
        }
        for (double& w : ck_.weights) w /= total;
        update_threshold();

        RoundReport r;
        r.stage = stage;
        r.round = static_cast<int>(ck_.current.learners.size());
        r.detection_rate = d_;
        r.fp_rate = f_;
        r.weighted_error = win.error;
        r.seconds = ck_.seconds;
        const double F_now = ck_.cascade_fp_rate * std::max(f_, 1e-12);
        const double progress = std::log(F_now) / std::log(cfg_.F_target);
        r.eta_seconds = progress > 0.02 ? r.seconds * (1.0 - progress) / progress : -1.0;
        obs_.on_round(r);
    }

    bool stage_complete() const {
        return stalled_ || f_ <= cfg_.f_max ||
               static_cast<int>(ck_.current.learners.size()) >= cfg_.max_learners_per_stage;
    }

    void finish_stage() {
        stalled_ = false;
        const int stage = stage_number();
        if (ck_.current.learners.empty()) {
            ck_.finished = true;
            ck_.stop_reason = "stage " + std::to_string(stage) + " could not be trained";
            return;
        }
        if (f_ > cfg_.f_max)
            obs_.on_note("stage " + std::to_string(stage) + " stopped at " + std::to_string(ck_.current.learners.size()) +
                         " learners with FP rate " + std::to_string(f_) + " > f_max");
        ck_.stages.push_back(ck_.current);
        // A stage that rejects every training negative says little about the rate on new data:
        // count it as below one in (negatives + 1), and let bootstrapping find out what is left.
        ck_.cascade_fp_rate *= std::max(f_, 1.0 / static_cast<double>(ck_.negatives.size() + 1));
        StageReport s;
        s.stage = stage;
        s.learners = static_cast<int>(ck_.current.learners.size());
        s.threshold = ck_.current.threshold;
        s.detection_rate = d_;
        s.fp_rate = f_;
        s.cascade_fp_rate = ck_.cascade_fp_rate;
        s.mining_seconds = ck_.mining_seconds;
        s.negatives = ck_.negatives.size();
        s.peak_memory_mb = peak_memory_mb();
        obs_.on_stage(s);
        ck_.current = {};
        if (ck_.cascade_fp_rate <= cfg_.F_target) {
            ck_.finished = true;
            ck_.stop_reason = "reached F_target";
            return;
        }
        if (static_cast<int>(ck_.stages.size()) >= cfg_.max_stages) {
            ck_.finished = true;
            ck_.stop_reason = "reached max_stages";
            return;
        }
        // Bootstrapping: the next stage trains on the cascade's false positives.
        const auto t = Clock::now();
        const CascadeModel so_far = model_of(cfg_, ck_.stages, data_.description, ck_.created_utc);
        const auto found = mine(so_far, cfg_, images_, stage + 1, obs_, observer_mutex_);
        ck_.mining_seconds = seconds_since(t);
        if (found.empty()) {
            ck_.finished = true;
            ck_.exhausted = true;
            ck_.stop_reason = "negative data exhausted: the cascade accepts no window of the negative images";
            obs_.on_note(ck_.stop_reason);
            return;
        }
        if (found.size() < target_negatives_)
            obs_.on_note("only " + std::to_string(found.size()) + " false positives left (wanted " +
                         std::to_string(target_negatives_) + "); stage " + std::to_string(stage + 1) + " trains on those");
        ck_.negatives = detail::subsample(found, target_negatives_, RandomStream(cfg_.seed, {3, static_cast<std::uint64_t>(stage + 1)}));
        load_negatives();
        reset_weights();
        recompute_sums();
    }

    void save() {
        if (!ck_.stages.empty())
            save_model(model_of(cfg_, ck_.stages, data_.description, ck_.created_utc), opt_.model_out);
        detail::write_checkpoint(ck_, state_file());
    }

    TrainSummary summary(double seconds) const {
        TrainSummary s;
        s.stages = static_cast<int>(ck_.stages.size());
        for (const auto& st : ck_.stages) s.learners += static_cast<int>(st.learners.size());
        s.cascade_fp_rate = ck_.cascade_fp_rate;
        s.seconds = seconds;
        s.peak_memory_mb = peak_memory_mb();
        s.finished = ck_.finished;
        s.negatives_exhausted = ck_.exhausted;
        s.stop_reason = ck_.stop_reason;
        return s;
    }

    const TrainConfig& cfg_;
    const Dataset& data_;
    const ImageLoader& loader_;
    const TrainOptions& opt_;
    TrainObserver& obs_;
    std::mutex observer_mutex_;
    WindowSet samples_;
    std::vector<Rect> pool_;
    std::vector<GrayImage> images_;
    std::size_t positives_ = 0, target_negatives_ = 0;
    Checkpoint ck_;
    std::vector<float> sums_;
    double d_ = 0, f_ = 1;
    bool stalled_ = false;
};

// ------------------------------------------------------------------------------------------
// Dense Dalal-Triggs baseline: one SVM on the 105 blocks' 3780-D concatenation, one round of
// bootstrapping, stored as one `margin` stage so that the same detector and evaluation run it.
// ------------------------------------------------------------------------------------------
TrainSummary train_dense(const TrainConfig& cfg, const Dataset& data, const ImageLoader& loader, const TrainOptions& opt,
                         TrainObserver& obs) {
    const auto t0 = Clock::now();
    const auto blocks = make_block_pool("dalal-triggs", cfg.window_width, cfg.window_height);
    const int dims = static_cast<int>(blocks.size()) * kBlockDims;
    std::vector<float> feats;
    auto sink = [&](std::size_t i, const IntegralHistogram& ih, int x, int y) {
        BlockDescriptor v;
        for (std::size_t b = 0; b < blocks.size(); ++b) {
            block_descriptor(ih, x, y, blocks[b], cfg.hog, v);
            std::copy(v.begin(), v.end(), feats.begin() + static_cast<std::ptrdiff_t>(i * dims + b * kBlockDims));
        }
    };
    obs.on_note("dense: loading " + std::to_string(data.positives.size()) + " positives and " +
                std::to_string(data.negatives.size()) + " negative images");
    const std::size_t P = data.positives.size();
    const auto images = detail::load_images(data.negatives, loader);
    const auto random_negs = detail::random_windows(images, images.size() * static_cast<std::size_t>(cfg.dense_random_negatives_per_image),
                                                    cfg.window_width, cfg.window_height, cfg.mining_scale_step,
                                                    RandomStream(cfg.seed, {0, 0, 7}));
    feats.resize((P + random_negs.size()) * static_cast<std::size_t>(dims));
    detail::visit_positives(data.positives, loader, cfg.window_width, cfg.window_height, sink);
    detail::visit_windows(random_negs, images, P, sink);
    std::vector<int> labels(P + random_negs.size(), -1);
    std::fill(labels.begin(), labels.begin() + static_cast<std::ptrdiff_t>(P), 1);

    const std::string created = opt.created_utc.empty() ? utc_now() : opt.created_utc;
    auto to_model = [&](const LinearSvm& svm) {
        HogSvmStage st;
        st.vote = VoteMode::Margin;
        st.threshold = 0.0f;
        for (std::size_t b = 0; b < blocks.size(); ++b) {
            HogLearner l;
            l.block = blocks[b];
            std::copy_n(svm.weights.begin() + static_cast<std::ptrdiff_t>(b * kBlockDims), kBlockDims, l.weights.begin());
            l.bias = b == 0 ? svm.bias : 0.0f;  // the SVM's bias, carried by the first block
            l.alpha = 1.0f;
            st.learners.push_back(l);
        }
        return model_of(cfg, {st}, data.description, created);
    };
    auto train_all = [&] {
        std::vector<int> rows(labels.size());
        std::iota(rows.begin(), rows.end(), 0);
        return train_linear_svm(feats, dims, labels, rows, cfg.svm_c);
    };
    obs.on_note("dense: training on " + std::to_string(P) + " positives and " + std::to_string(random_negs.size()) +
                " random negatives (" + std::to_string(dims) + "-D)");
    CascadeModel model = to_model(train_all());
    save_model(model, opt.model_out);
    std::mutex m;
    const auto t_mine = Clock::now();
    auto hard = mine(model, cfg, images, 2, obs, m);
    const double mining_seconds = seconds_since(t_mine);
    hard = detail::subsample(hard, static_cast<std::size_t>(cfg.dense_max_hard_negatives), RandomStream(cfg.seed, {3, 2}));
    obs.on_note("dense: retraining with " + std::to_string(hard.size()) + " hard negatives");
    const std::size_t before = labels.size();
    feats.resize((before + hard.size()) * static_cast<std::size_t>(dims));
    labels.resize(before + hard.size(), -1);
    detail::visit_windows(hard, images, before, sink);
    model = to_model(train_all());
    save_model(model, opt.model_out);

    StageReport s;
    s.stage = 1;
    s.learners = static_cast<int>(blocks.size());
    s.mining_seconds = mining_seconds;
    s.negatives = labels.size() - P;
    s.peak_memory_mb = peak_memory_mb();
    obs.on_stage(s);
    TrainSummary sum;
    sum.stages = 1;
    sum.learners = static_cast<int>(blocks.size());
    sum.seconds = seconds_since(t0);
    sum.peak_memory_mb = peak_memory_mb();
    sum.finished = true;
    sum.stop_reason = "dense SVM trained with one round of bootstrapping";
    return sum;
}
}  // namespace

TrainSummary train(const TrainConfig& config, const Dataset& data, const ImageLoader& loader, const TrainOptions& options,
                   TrainObserver& observer) {
    if (data.positives.empty()) throw TrainError("no positive training crops");
    if (data.negatives.empty()) throw TrainError("no negative training images");
    if (config.kind == "dense") {
        if (options.resume) observer.on_note("dense training has no checkpoints: training from the start");
        return train_dense(config, data, loader, options, observer);
    }
    return CascadeTraining(config, data, loader, options, observer).run();
}

}  // namespace cascadekit
