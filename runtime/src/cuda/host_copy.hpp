#pragma once
// Internal (CUDA backend, host side): copying a frame into the slot's pinned staging buffer.
#include <cstddef>
#include <cstdint>

namespace cascadekit::cuda {

// Copies `rows` rows of `row_bytes` bytes, `src_stride` bytes apart in src (negative: bottom-up), to dst back to back.
// Frames of 1 MiB and more are copied by bands of rows in parallel (TBB, the caller's arena): one
// core's memcpy into pinned memory took about as long as the whole GPU pipeline of a 1920×1080
// face frame at stride 2, and it lies on the path of every frame, latency and batched
// (experiments/results/gpu-waldboost.md).
void copy_rows(std::uint8_t* dst, const std::uint8_t* src, int rows, std::size_t row_bytes, std::ptrdiff_t src_stride);

}  // namespace cascadekit::cuda
