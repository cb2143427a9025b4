#include "bands.hpp"

#include <algorithm>
#include <cassert>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "cascadekit/features/threads.hpp"

namespace cascadekit::detail {

std::pair<int, int> Bands::rows(int b, int height) const { return {b * size, std::min(height, (b + 1) * size)}; }

Bands plan_bands(int height) {
    constexpr int kMinBand = 8;
    const std::size_t threads = worker_threads();
    const int bands = static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>((height + kMinBand - 1) / kMinBand), 4 * threads));
    Bands out;
    if (bands <= 1 || threads <= 1) {
        out.size = height;
        return out;
    }
    out.size = (height + bands - 1) / bands;
    out.n = (height + out.size - 1) / out.size;
    return out;
}

void sums_above_bands(std::uint32_t* sums, int n_bands, std::size_t stride, std::size_t used) {
    // Column chunks of at most kChunk (the partitioner may hand a task a longer range: it is
    // walked a chunk at a time).
    constexpr std::size_t kChunk = 512;
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, used, kChunk), [&](const tbb::blocked_range<std::size_t>& r) {
        for (std::size_t j0 = r.begin(); j0 < r.end(); j0 += kChunk) {
            std::uint32_t run[kChunk] = {};
            const std::size_t n = std::min(kChunk, r.end() - j0);
            for (int b = 0; b < n_bands; ++b) {
                std::uint32_t* c = sums + static_cast<std::size_t>(b) * stride + j0;
                for (std::size_t i = 0; i < n; ++i) {
                    const std::uint32_t t = c[i];
                    c[i] = run[i];
                    run[i] += t;
                }
            }
        }
    });
}

void carry_row(std::uint32_t* c, int w, int k) {
    // From the end, so that point x + 1 is written after column x is read: the total first, then
    // each point is the total so far less the columns after it.
    constexpr int kMaxComponents = 16;
    assert(k >= 1 && k <= kMaxComponents);
    std::uint32_t s[kMaxComponents] = {};
    const std::size_t kk = static_cast<std::size_t>(k);
    for (std::size_t x = 0; x < static_cast<std::size_t>(w); ++x)
        for (std::size_t j = 0; j < kk; ++j) s[j] += c[x * kk + j];
    for (std::size_t x = static_cast<std::size_t>(w); x > 0; --x)
        for (std::size_t j = 0; j < kk; ++j) {
            const std::uint32_t column = c[(x - 1) * kk + j];
            c[x * kk + j] = s[j];
            s[j] -= column;
        }
    std::fill_n(c, kk, 0u);
}

}  // namespace cascadekit::detail
