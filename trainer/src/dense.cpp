#include "dense.hpp"

#include <numeric>

#include "cascadekit/features/block_pool.hpp"
#include "cascadekit/io/model_file.hpp"
#include "cascadekit/model/hog_svm_stage.hpp"
#include "cascadekit/trainer/linear_svm.hpp"
#include "run_support.hpp"
#include "streams.hpp"

namespace cascadekit::detail {

HogSvmStage dense_stage(const LinearSvm& svm, const std::vector<Rect>& blocks) {
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
    return st;
}

TrainSummary train_dense(const TrainConfig& cfg, const Dataset& data, const ImageLoader& loader, const TrainOptions& opt,
                         TrainObserver& obs) {
    const auto t0 = Clock::now();
    const int ww = cfg.window.width, wh = cfg.window.height;
    const auto blocks = make_block_pool("dalal-triggs", ww, wh);
    const int dims = static_cast<int>(blocks.size()) * kBlockDims;
    FeatureNeeds needs;
    needs.hog = true;
    std::vector<float> feats;
    auto sink = [&](std::size_t i, const LevelFeatures& f, int x, int y) {
        BlockDescriptor v;
        for (std::size_t b = 0; b < blocks.size(); ++b) {
            block_descriptor(f.hog, x, y, blocks[b], cfg.hog, v);
            std::copy(v.begin(), v.end(), feats.begin() + static_cast<std::ptrdiff_t>(i * dims + b * kBlockDims));
        }
    };
    obs.on_note("dense: loading " + std::to_string(data.positives.size()) + " positives and " +
                std::to_string(data.negatives.size()) + " negative images");
    const std::size_t P = data.positives.size();
    const bool colour = cfg.hog.colour();
    const auto images = load_images(data.negatives, loader, cfg.data.negative_transforms, colour);
    const WindowFilter allowed = keep_clear_filter(data, images, cfg.data.negative_transforms, cfg);
    const auto random_negs = random_windows(images, images.size() * static_cast<std::size_t>(cfg.dense.random_negatives_per_image),
                                            ww, wh, cfg.mining.scale_step, streams::initial_negatives(cfg.seed), allowed);
    feats.resize((P + random_negs.size()) * static_cast<std::size_t>(dims));
    visit_positives(load_crops(data.positives, loader, ww, wh, cfg.data, cfg.seed, colour), needs, cfg.hog.gradient(), ww, wh, sink);
    visit_windows(random_negs, images, P, needs, cfg.hog.gradient(), sink);
    std::vector<int> labels(P + random_negs.size(), -1);
    std::fill(labels.begin(), labels.begin() + static_cast<std::ptrdiff_t>(P), 1);

    const std::string created = opt.created_utc.empty() ? utc_now() : opt.created_utc;
    auto to_model = [&](const LinearSvm& svm) { return model_of(cfg, {dense_stage(svm, blocks)}, data.description, created); };
    auto train_all = [&] {
        std::vector<int> rows(labels.size());
        std::iota(rows.begin(), rows.end(), 0);
        return train_linear_svm(feats, dims, labels, rows, cfg.svm.C);
    };
    obs.on_note("dense: training on " + std::to_string(P) + " positives and " + std::to_string(random_negs.size()) +
                " random negatives (" + std::to_string(dims) + "-D)");
    CascadeModel model = to_model(train_all());
    save_model(model, opt.model_out);
    std::mutex m;
    const auto t_mine = Clock::now();
    auto hard = mine(model, cfg, images, 2, obs, m, nullptr, allowed);
    const double mining_seconds = seconds_since(t_mine);
    hard = subsample(hard, static_cast<std::size_t>(cfg.dense.max_hard_negatives), streams::mined_subsample(cfg.seed, 2));
    obs.on_note("dense: retraining with " + std::to_string(hard.size()) + " hard negatives");
    const std::size_t before = labels.size();
    feats.resize((before + hard.size()) * static_cast<std::size_t>(dims));
    labels.resize(before + hard.size(), -1);
    visit_windows(hard, images, before, needs, cfg.hog.gradient(), sink);
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
    sum.model = std::move(model);
    return sum;
}

}  // namespace cascadekit::detail
