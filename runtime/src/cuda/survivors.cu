#include "survivors.cuh"

namespace cascadekit::cuda {

namespace {
__global__ void gather_kernel(const std::uint32_t* __restrict__ ids, const std::uint32_t* __restrict__ count,
                              const float* __restrict__ win_score, OutEntry* out) {
    const std::uint32_t n = *count;
    for (std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        out[i] = {ids[i], win_score[ids[i]]};
}
}  // namespace

void launch_gather(const std::uint32_t* ids, const std::uint32_t* count, const float* win_score, OutEntry* out, int blocks,
                   cudaStream_t stream) {
    gather_kernel<<<blocks, kThreads, 0, stream>>>(ids, count, win_score, out);
    CK_LAUNCH();
}

}  // namespace cascadekit::cuda
