#pragma once
// The data a training configuration names, and its held-out split: shared by training (what it
// trains on) and evaluation (what it is scored on), so both always agree.
#include <filesystem>
#include <functional>
#include <string>

#include "cascadekit/io/dataset.hpp"
#include "cascadekit/trainer/config.hpp"

namespace cascadekit {

// Receives notes worth a log line ("held-out split from FILE").
using DataNote = std::function<void(const std::string&)>;

// All of it (mirrored positives added when asked); relative INRIA roots are taken from data_root.
Dataset configured_dataset(const TrainConfig& cfg, const std::filesystem::path& data_root);
// Read from cfg.data.split_file when it exists, else made by the every-k-th rule and written there.
HeldOutSplit held_out_split(const TrainConfig& cfg, const Dataset& all, const DataNote& note = {});
// Everything but the held-out split, cut to max_positives / max_negative_images.
Dataset training_dataset(const TrainConfig& cfg, const std::filesystem::path& data_root, const DataNote& note = {});
// Only the held-out split. Throws ConfigError when the configuration holds nothing out or its
// split file does not exist yet (train with the configuration first).
Dataset held_out_dataset(const TrainConfig& cfg, const std::filesystem::path& data_root, const DataNote& note = {});
// Layout annotated: the configuration's annotated images (its class and image folder applied).
std::vector<AnnotatedFile> configured_annotations(const TrainConfig& cfg, const std::filesystem::path& data_root);
// Layout annotated: the held-out annotated images (whole images), in the file's order: where
// `cascade train` chooses the model's threshold. Empty when nothing is held out.
std::vector<AnnotatedFile> held_out_annotations(const TrainConfig& cfg, const std::filesystem::path& data_root);

}  // namespace cascadekit
