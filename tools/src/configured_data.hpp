#pragma once
// The data a training configuration names, and its held-out split (shared by train and eval).
#include "cascadekit/io/dataset.hpp"
#include "cascadekit/trainer/config.hpp"

namespace cascadekit::tools {

// All of it (mirrored positives added when asked); INRIA paths relative to $CASCADEKIT_DATA.
Dataset configured_dataset(const TrainConfig& cfg);
// Read from cfg.split_file when it exists, else made by the every-k-th rule and written there.
HeldOutSplit held_out_split(const TrainConfig& cfg, const Dataset& all);
// Everything but the held-out split, cut to max_positives / max_negative_images.
Dataset training_dataset(const TrainConfig& cfg);

}  // namespace cascadekit::tools
