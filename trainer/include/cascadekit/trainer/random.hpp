#pragma once
// A small deterministic random stream (SplitMix64). Why not <random>: std distributions are
// implementation-defined, so the same seed could give other samples on another standard library;
// training must give bit-identical models for a seed everywhere.
#include <cstdint>
#include <initializer_list>

namespace cascadekit {

class RandomStream {
public:
    // A stream identified by the run's seed and a path of integers (stage, round, purpose…), so
    // any step can be replayed without the streams before it (which makes resuming exact).
    RandomStream(std::uint64_t seed, std::initializer_list<std::uint64_t> path) : state_(mix(seed)) {
        for (std::uint64_t p : path) state_ = mix(state_ ^ mix(p + 0x632BE59BD9B4E019ull));
    }
    std::uint64_t next() {
        state_ += 0x9E3779B97F4A7C15ull;
        return mix(state_);
    }
    // Uniform in [0, n), n > 0 (Lemire's multiply-shift; bias below 2^-32 for n < 2^32).
    std::uint64_t below(std::uint64_t n) {
        __extension__ using Wide = unsigned __int128;  // GCC/Clang extension, exact 64×64→128 product
        return static_cast<std::uint64_t>((static_cast<Wide>(next()) * n) >> 64);
    }
    double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }  // [0, 1)

private:
    static std::uint64_t mix(std::uint64_t z) {
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    std::uint64_t state_;
};

}  // namespace cascadekit
