#include "cascadekit/workflow/training.hpp"

#include <sstream>

#include "cascadekit/eval/annotated_images.hpp"
#include "cascadekit/io/model_file.hpp"
#include "cascadekit/trainer/data_selection.hpp"

namespace cascadekit {

namespace {
// Chooses the threshold of run.summary.model on the held-out annotated images and saves it.
void calibrate_on_held_out(TrainingRun& run, const TrainConfig& cfg, const std::filesystem::path& data_root,
                           const ImageLoader& loader, const TrainOptions& options, TrainObserver& observer) {
    std::vector<AnnotatedFile> held = held_out_annotations(cfg, data_root);
    if (held.size() < 2) {
        run.no_threshold = std::to_string(held.size()) +
                           " held-out annotated images (set data.holdout_every, or run cascade calibrate)";
        return;
    }
    std::ostringstream note;  // default formatting: 0.1, not 0.100000
    note << "choosing the threshold for " << cfg.detect.fppi << " false positives per image on the " << held.size()
         << " held-out images";
    observer.on_note(note.str());
    CalibrationOptions co;
    co.fppi = cfg.detect.fppi;
    co.bulk.backend = cfg.mining.backend;
    const std::string name = "held-out " + std::filesystem::path(cfg.data.annotations).filename().string();
    CascadeModel model = run.summary.model;
    try {
        run.threshold = calibrate(model, *annotated_list(name, std::move(held)), name, loader, co);
    } catch (const std::exception& e) {  // the trained model stands; only its threshold is missing
        run.no_threshold = std::string(e.what()) + " (run cascade calibrate on other images, or with a larger --fppi)";
        return;
    }
    save_model(model, options.model_out);
    run.summary.model = std::move(model);
}
}  // namespace

TrainingRun train_model(const TrainConfig& config, const Dataset& data, const std::filesystem::path& data_root,
                        const ImageLoader& loader, const TrainOptions& options, TrainObserver& observer) {
    TrainingRun run;
    run.summary = train(config, data, loader, options, observer);
    if (run.summary.finished && config.data.layout == DataLayout::Annotated)
        calibrate_on_held_out(run, config, data_root, loader, options, observer);
    return run;
}

}  // namespace cascadekit
