// map_bytes (features/image.hpp) against the plain loop on a 1280×960×3 buffer, the square-root
// table, one thread. From the repository root, after .ci/build:
//   g++ -O3 -std=c++20 -Ifeatures/include experiments/results/inria/grid-pool/cpu/session33-map-bytes/map_bytes_micro.cpp \
//       build/features/libcascadekit_features.a -ltbb -o /tmp/map_bytes_micro && /tmp/map_bytes_micro
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#include "cascadekit/features/gradient.hpp"
#include "cascadekit/features/image.hpp"

int main() {
    const std::uint8_t* t = cascadekit::gamma_table(cascadekit::GrayGamma::Sqrt);
    const std::size_t n = 1280 * 960 * 3;
    std::vector<std::uint8_t> in(n), a(n), b(n);
    std::mt19937 rng(1);
    for (auto& x : in) x = static_cast<std::uint8_t>(rng());
    for (int rep = 0; rep < 3; ++rep) {
        const auto t0 = std::chrono::steady_clock::now();
        for (int k = 0; k < 20; ++k)
            for (std::size_t i = 0; i < n; ++i) a[i] = t[in[i]];
        const auto t1 = std::chrono::steady_clock::now();
        for (int k = 0; k < 20; ++k) cascadekit::map_bytes(in.data(), b.data(), n, t);
        const auto t2 = std::chrono::steady_clock::now();
        std::printf("plain loop %.3f ms  map_bytes %.3f ms  equal %d\n", std::chrono::duration<double, std::milli>(t1 - t0).count() / 20,
                    std::chrono::duration<double, std::milli>(t2 - t1).count() / 20, a == b);
    }
}
