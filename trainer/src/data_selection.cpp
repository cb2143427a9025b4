#include "cascadekit/trainer/data_selection.hpp"

namespace cascadekit {

namespace fs = std::filesystem;

Dataset configured_dataset(const TrainConfig& cfg, const fs::path& data_root) {
    auto under = [&](const std::string& p) { return fs::path(p).is_absolute() ? fs::path(p) : data_root / p; };
    Dataset all;
    switch (cfg.data.layout) {
        case DataLayout::Inria: all = load_inria(under(cfg.data.inria_root)); break;
        case DataLayout::Lists: all = load_lists(cfg.data.positives_list, cfg.data.negatives_list); break;
        case DataLayout::Folders: {
            std::vector<fs::path> negatives;
            for (const std::string& d : cfg.data.negatives_dirs) negatives.push_back(under(d));
            all = load_folders(under(cfg.data.positives_dir), negatives);
            break;
        }
    }
    if (cfg.data.flip_positives) add_flipped_positives(all);
    return all;
}

HeldOutSplit held_out_split(const TrainConfig& cfg, const Dataset& all, const DataNote& note) {
    const std::string& file = cfg.data.split_file;
    if (!file.empty() && fs::exists(file)) {
        if (note) note("held-out split from " + file);
        return read_split(file);
    }
    HeldOutSplit split = make_every_kth_split(all, cfg.data.holdout_every);
    if (!file.empty()) {
        if (auto parent = fs::path(file).parent_path(); !parent.empty()) fs::create_directories(parent);
        write_split(split, file);
        if (note) note("wrote held-out split to " + file);
    }
    return split;
}

Dataset training_dataset(const TrainConfig& cfg, const fs::path& data_root, const DataNote& note) {
    const Dataset all = configured_dataset(cfg, data_root);
    Dataset train = cfg.data.holdout_every > 0 ? without(all, held_out_split(cfg, all, note)) : all;
    if (cfg.data.max_positives > 0 && train.positives.size() > static_cast<std::size_t>(cfg.data.max_positives))
        train.positives.resize(static_cast<std::size_t>(cfg.data.max_positives));
    if (cfg.data.max_negative_images > 0 && train.negatives.size() > static_cast<std::size_t>(cfg.data.max_negative_images))
        train.negatives.resize(static_cast<std::size_t>(cfg.data.max_negative_images));
    return train;
}

Dataset held_out_dataset(const TrainConfig& cfg, const fs::path& data_root, const DataNote& note) {
    if (cfg.data.holdout_every == 0) throw ConfigError("the configuration holds nothing out (data.holdout_every: 0)");
    if (cfg.data.split_file.empty() || !fs::exists(cfg.data.split_file))
        throw ConfigError("held-out split " + cfg.data.split_file + " not found: train with this configuration first");
    const Dataset all = configured_dataset(cfg, data_root);
    return only(all, held_out_split(cfg, all, note));
}

}  // namespace cascadekit
