#pragma once
// CASCADEKIT_HD marks the small functions that the CPU and the CUDA backend share (block_math.hpp,
// lbp.hpp): one definition, compiled for both, so both round and index the same way.
#if defined(__CUDACC__)
#define CASCADEKIT_HD __host__ __device__ __forceinline__
#else
#define CASCADEKIT_HD inline
#endif
