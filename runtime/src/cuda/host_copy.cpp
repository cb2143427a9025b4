#include "host_copy.hpp"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cstring>

namespace cascadekit::cuda {

void copy_rows(std::uint8_t* dst, const std::uint8_t* src, int rows, std::size_t row_bytes, std::ptrdiff_t src_stride) {
    auto copy = [&](int y0, int y1) {
        if (src_stride == static_cast<std::ptrdiff_t>(row_bytes)) {
            std::memcpy(dst + static_cast<std::size_t>(y0) * row_bytes, src + y0 * src_stride, static_cast<std::size_t>(y1 - y0) * row_bytes);
            return;
        }
        for (int y = y0; y < y1; ++y) std::memcpy(dst + static_cast<std::size_t>(y) * row_bytes, src + y * src_stride, row_bytes);
    };
    constexpr std::size_t kParallelBytes = std::size_t{1} << 20;
    if (static_cast<std::size_t>(rows) * row_bytes < kParallelBytes || rows < 2) {
        copy(0, rows);
        return;
    }
    // Bands of at least 256 KiB: fewer and the copy is one core's; more and scheduling costs show.
    const int grain = static_cast<int>(std::max<std::size_t>(1, (std::size_t{256} << 10) / row_bytes));
    tbb::parallel_for(tbb::blocked_range<int>(0, rows, grain), [&](const tbb::blocked_range<int>& r) { copy(r.begin(), r.end()); });
}

}  // namespace cascadekit::cuda
