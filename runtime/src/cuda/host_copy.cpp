#include "host_copy.hpp"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_group.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace cascadekit::cuda {

namespace {
void plain_copy(std::uint8_t* dst, const std::uint8_t* src, std::size_t n) { std::memcpy(dst, src, n); }
}  // namespace

void stream_copy(std::uint8_t* dst, const std::uint8_t* src, std::size_t n) {
#if defined(__SSE2__)
    // Up to the first 16-byte boundary of dst, then 64 bytes at a time with streaming stores, then
    // the rest; the fence orders the streaming stores before whatever the caller does next.
    const std::size_t head = std::min(n, (16 - reinterpret_cast<std::uintptr_t>(dst) % 16) % 16);
    std::memcpy(dst, src, head);
    std::size_t i = head;
    for (; i + 64 <= n; i += 64) {
        const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i));
        const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i + 16));
        const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i + 32));
        const __m128i d = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i + 48));
        _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i), a);
        _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i + 16), b);
        _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i + 32), c);
        _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i + 48), d);
    }
    std::memcpy(dst + i, src + i, n - i);
    _mm_sfence();
#else
    std::memcpy(dst, src, n);
#endif
}

namespace {
// Runs band(y0, y1, streaming) over rows [0, rows): frames of 1 MiB (rows × row_bytes of input)
// and more in parallel bands of at least 256 KiB (fewer and the copy is one core's; more and
// scheduling costs show); smaller frames in one call. Frames of 64 KiB and more are written with
// streaming stores (streaming = true): the staging buffer's lines, last read by the upload's DMA,
// are then not read in for ownership first (a 640×480 gray frame, as the trainer's negatives, took
// 40 µs of a host thread to stage, about as long as its graph's launch: gpu-waldboost.md).
template <class Band>
void in_bands(int rows, std::size_t row_bytes, Band&& band) {
    constexpr std::size_t kParallelBytes = std::size_t{1} << 20, kStreamingBytes = std::size_t{64} << 10;
    const std::size_t bytes = static_cast<std::size_t>(rows) * row_bytes;
    if (bytes < kParallelBytes || rows < 2) {
        band(0, rows, bytes >= kStreamingBytes);
        return;
    }
    const int grain = static_cast<int>(std::max<std::size_t>(1, (std::size_t{256} << 10) / row_bytes));
    tbb::parallel_for(tbb::blocked_range<int>(0, rows, grain), [&](const tbb::blocked_range<int>& r) { band(r.begin(), r.end(), true); });
}
}  // namespace

void copy_rows(std::uint8_t* dst, const std::uint8_t* src, int rows, std::size_t row_bytes, std::ptrdiff_t src_stride) {
    in_bands(rows, row_bytes, [&](int y0, int y1, bool streaming) {
        void (*const put)(std::uint8_t*, const std::uint8_t*, std::size_t) = streaming ? &stream_copy : &plain_copy;
        if (src_stride == static_cast<std::ptrdiff_t>(row_bytes)) {
            put(dst + static_cast<std::size_t>(y0) * row_bytes, src + y0 * src_stride, static_cast<std::size_t>(y1 - y0) * row_bytes);
            return;
        }
        for (int y = y0; y < y1; ++y) put(dst + static_cast<std::size_t>(y) * row_bytes, src + y * src_stride, row_bytes);
    });
}

void stage_gray(std::uint8_t* dst, const ImageView& image) {
    if (image.channels == 1) {  // its bytes: one copy where the rows lie back to back
        copy_rows(dst, image.data, image.height, static_cast<std::size_t>(image.width), image.stride);
        return;
    }
    const std::size_t in_row = static_cast<std::size_t>(image.width) * image.channels;
    in_bands(image.height, in_row, [&](int y0, int y1, bool streaming) {
        gray_rows(image, y0, y1, dst + static_cast<std::size_t>(y0) * image.width, image.width, streaming);
    });
}

void parallel_for_each(std::size_t n, const std::function<void(std::size_t)>& f) {
    tbb::parallel_for(std::size_t{0}, n, [&](std::size_t i) { f(i); });
}

struct TaskGroup::Impl {
    tbb::task_group group;
};
TaskGroup::TaskGroup() : impl_(std::make_unique<Impl>()) {}
TaskGroup::~TaskGroup() {
    try {
        impl_->group.wait();
    } catch (...) {  // the caller is unwinding already, or has had wait()'s exception
    }
}
void TaskGroup::run(std::function<void()> task) { impl_->group.run(std::move(task)); }
void TaskGroup::wait() { impl_->group.wait(); }

}  // namespace cascadekit::cuda
