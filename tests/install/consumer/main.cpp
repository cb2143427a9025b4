// Loads the installed people model, runs the CPU detector on a synthetic frame, and parses a
// training configuration: the runtime, io and trainer libraries link from the installed tree.
#include <cstdio>
#include <vector>

#include "cascadekit/io/model_file.hpp"
#include "cascadekit/runtime/detector.hpp"
#include "cascadekit/trainer/config.hpp"

int main() {
    const cascadekit::CascadeModel model = cascadekit::load_model(MODELS_DIR "/inria-hog-cascade.h5");
    std::vector<std::uint8_t> pixels(320 * 240);
    for (std::size_t i = 0; i < pixels.size(); ++i) pixels[i] = static_cast<std::uint8_t>((i * 7 + i / 320 * 13) % 256);
    cascadekit::ImageView view{pixels.data(), 320, 240, 320, 1};
    auto detector = cascadekit::Detector::create(model, {}, cascadekit::Backend::Cpu);
    const cascadekit::DetectResult r = detector->detect(view);
    const cascadekit::TrainConfig cfg = cascadekit::parse_train_config("seed: 3\n", "inline");
    std::printf("stages %zu windows %llu detections %zu seed %llu\n", model.stages.size(),
                static_cast<unsigned long long>(r.stats.windows_scanned), r.detections.size(),
                static_cast<unsigned long long>(cfg.seed));
    return model.stages.empty() || r.stats.windows_scanned == 0 || cfg.seed != 3;
}
