// libFuzzer: the training-configuration parser (YAML through yaml-cpp, then every check).
// A configuration it accepts must hold only values the trainer can use.
#include <cmath>
#include <cstdint>
#include <string>

#include "cascadekit/trainer/config.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    try {
        const cascadekit::TrainConfig c =
            cascadekit::parse_train_config(std::string(reinterpret_cast<const char*>(data), size), "fuzz.yaml");
        if (!std::isfinite(c.hog.epsilon) || !(c.hog.epsilon > 0) || !std::isfinite(c.mining_scale_step) ||
            c.max_positives < 0 || c.window_width < 8 || c.window_height < 8 ||
            std::int64_t{c.window_width} * c.window_height > 46522)
            __builtin_trap();
    } catch (const cascadekit::ConfigError&) {
    }
    return 0;
}
