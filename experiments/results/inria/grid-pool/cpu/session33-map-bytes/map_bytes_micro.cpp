#include <immintrin.h>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>
static void scalar(const uint8_t* in, uint8_t* out, size_t n, const uint8_t* t) { for (size_t i = 0; i < n; ++i) out[i] = t[in[i]]; }
__attribute__((target("avx2"))) static void avx2(const uint8_t* in, uint8_t* out, size_t n, const uint8_t* t) {
    __m256i tab[16];
    for (int k = 0; k < 16; ++k) tab[k] = _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(t + 16 * k)));
    const __m256i lowmask = _mm256_set1_epi8(0x0F);
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i));
        const __m256i lo = _mm256_and_si256(x, lowmask);
        const __m256i hi = _mm256_and_si256(_mm256_srli_epi16(x, 4), lowmask);
        __m256i r = _mm256_setzero_si256();
        for (int k = 0; k < 16; ++k) {
            const __m256i m = _mm256_cmpeq_epi8(hi, _mm256_set1_epi8(static_cast<char>(k)));
            r = _mm256_or_si256(r, _mm256_and_si256(m, _mm256_shuffle_epi8(tab[k], lo)));
        }
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), r);
    }
    for (; i < n; ++i) out[i] = t[in[i]];
}
int main() {
    uint8_t t[256];
    for (int v = 0; v < 256; ++v) t[v] = static_cast<uint8_t>(std::lround(std::sqrt(v / 255.0) * 255.0));
    const size_t n = 1280 * 960 * 3;
    std::vector<uint8_t> in(n), a(n), b(n);
    std::mt19937 rng(1);
    for (auto& x : in) x = static_cast<uint8_t>(rng());
    for (int rep = 0; rep < 3; ++rep) {
        auto t0 = std::chrono::steady_clock::now();
        for (int k = 0; k < 20; ++k) scalar(in.data(), a.data(), n, t);
        auto t1 = std::chrono::steady_clock::now();
        for (int k = 0; k < 20; ++k) avx2(in.data(), b.data(), n, t);
        auto t2 = std::chrono::steady_clock::now();
        std::printf("scalar %.3f ms  avx2 %.3f ms  equal %d\n", std::chrono::duration<double, std::milli>(t1 - t0).count() / 20,
                    std::chrono::duration<double, std::milli>(t2 - t1).count() / 20, a == b);
    }
}
