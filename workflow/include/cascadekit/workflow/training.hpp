#pragma once
// A training run as `cascade train` and Python's cascadekit.train make it: the trainer, then, for
// a finished run on annotated images, the operating point's threshold chosen on the held-out
// images (eval's calibrate) in memory, and the model saved once more with it.
#include <filesystem>
#include <optional>
#include <string>

#include "cascadekit/eval/calibration.hpp"
#include "cascadekit/io/dataset.hpp"
#include "cascadekit/trainer/config.hpp"
#include "cascadekit/trainer/trainer.hpp"

namespace cascadekit {

struct TrainingRun {
    TrainSummary summary;                     // summary.model: the model as options.model_out holds it
    std::optional<CalibrationReport> threshold;  // chosen on the held-out images and stored in the model
    // Why no threshold was chosen for a finished run on annotated data (too few held-out images,
    // or none keeps the false positives at the target): the model then keeps threshold 0.
    std::string no_threshold;
};

// Trains `config` on `data` (already without its held-out part) into options.model_out, as
// train() does: the model and its checkpoint are written after every round. Then, when the run
// finished on annotated data (data.layout: annotated), chooses the threshold for
// config.detect.fppi false positives per image on the held-out annotated images under
// `data_root`, mining's backend scanning them, and saves the model with it. Requires what
// train() requires. Throws what train() throws; a threshold that cannot be chosen is not an
// error (no_threshold says why). Notes (the calibration's start) go to observer.on_note.
TrainingRun train_model(const TrainConfig& config, const Dataset& data, const std::filesystem::path& data_root,
                        const ImageLoader& loader, const TrainOptions& options, TrainObserver& observer);

}  // namespace cascadekit
