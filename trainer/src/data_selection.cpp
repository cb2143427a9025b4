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
        case DataLayout::Annotated: {
            const DataConfig& d = cfg.data;
            const fs::path file = under(d.annotations);
            const std::vector<AnnotatedFile> files = configured_annotations(cfg, data_root);
            PositiveRules rules;
            rules.window = cfg.window;
            rules.object = cfg.object_box;
            rules.min_height = d.min_object_height;
            rules.max_aspect = d.max_object_aspect;
            rules.margin = d.positive_margin >= 0 ? d.positive_margin : std::min(cfg.window.width, cfg.window.height) / 4;
            std::vector<fs::path> more;
            for (const std::string& dir : d.negatives_dirs) more.push_back(under(dir));
            all = load_annotated(files, rules, file.filename().string(), more);
            break;
        }
    }
    if (cfg.data.flip_positives) add_flipped_positives(all);
    return all;
}

std::vector<AnnotatedFile> configured_annotations(const TrainConfig& cfg, const fs::path& data_root) {
    auto under = [&](const std::string& p) { return fs::path(p).is_absolute() ? fs::path(p) : data_root / p; };
    const DataConfig& d = cfg.data;
    const fs::path file = under(d.annotations);
    AnnotationOptions ao;
    ao.label = d.annotation_class;
    if (!d.annotation_images.empty()) ao.images = under(d.annotation_images);
    try {
        return read_annotations(file, annotation_format(d.annotation_format, file), ao);
    } catch (const AnnotationError& e) {
        throw DatasetError(e.what());
    }
}

std::vector<AnnotatedFile> held_out_annotations(const TrainConfig& cfg, const fs::path& data_root) {
    if (cfg.data.layout != DataLayout::Annotated || cfg.data.holdout_every == 0) return {};
    const Dataset all = configured_dataset(cfg, data_root);
    const HeldOutSplit split = held_out_split(cfg, all);
    std::vector<AnnotatedFile> out;
    for (AnnotatedFile& f : configured_annotations(cfg, data_root))
        if (split.holds(f.image)) out.push_back(std::move(f));
    return out;
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
