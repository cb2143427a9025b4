#pragma once
// CASCADEKIT_SIMD_CLONES: a hot loop compiled twice, for AVX2 and for the baseline, the one to run
// chosen when the program loads (GCC's function multi-versioning); other compilers get the
// baseline. The clones compute the same integers and floats in the same order, so results do not
// depend on which one runs.
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define CASCADEKIT_SIMD_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define CASCADEKIT_SIMD_CLONES
#endif
