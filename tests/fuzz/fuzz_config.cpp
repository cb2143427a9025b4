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
        if (!std::isfinite(c.hog.epsilon) || !(c.hog.epsilon > 0) || !std::isfinite(c.mining.scale_step) ||
            c.data.max_positives < 0 || c.window.width < 8 || c.window.height < 8 ||
            std::int64_t{c.window.width} * c.window.height > 46522)
            __builtin_trap();
    } catch (const cascadekit::ConfigError&) {
    }
    return 0;
}
