/* sb_layers' private header: what its files (sb_layers.c, sb_attention.c)
 * share and nothing else includes: the instruction-set attributes, the
 * vector tails and reductions, the matrix-product profile hooks and the
 * dropout's bit masks (attention keeps its masks as bits). */
#ifndef SB_LAYERS_INT_H
#define SB_LAYERS_INT_H
#include <immintrin.h>
#include <omp.h>
#include <stddef.h>
#include <stdint.h>
#include "sb_layers.h"

#define NT(t) ((t) > 0 ? (t) : omp_get_max_threads())
#define SB_AVX512 __attribute__((target("avx512f,avx512dq,avx512bw,avx512vl,fma")))
#define SB_AVX2 __attribute__((target("avx2,fma")))

static inline __mmask16 tailmask(size_t left)
{
    return left >= 16 ? 0xffff : (__mmask16)((1u << left) - 1);
}

/* AVX2 has no mask registers: a tail of left < 8 elements goes through
 * vmaskmov with this lane mask (masked-off lanes load 0, never fault). */
SB_AVX2 static inline __m256i tail8(size_t left)
{
    static const int32_t k_tail8[16] = {-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0};
    return _mm256_loadu_si256((const __m256i *)(k_tail8 + 8 - (left < 8 ? left : 8)));
}

/* All ones in lane j where bit j of b is set (the low 8 bits of b). */
SB_AVX2 static inline __m256 bits8(uint32_t b)
{
    const __m256i sel = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
    __m256i v = _mm256_and_si256(_mm256_set1_epi32((int)b), sel);
    return _mm256_castsi256_ps(_mm256_cmpeq_epi32(v, sel));
}

SB_AVX2 static inline float hmax8(__m256 v)
{
    __m128 m = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    m = _mm_max_ps(m, _mm_movehl_ps(m, m));
    return _mm_cvtss_f32(_mm_max_ss(m, _mm_shuffle_ps(m, m, 1)));
}

SB_AVX2 static inline float hsum8(__m256 v)
{
    __m128 m = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    m = _mm_add_ps(m, _mm_movehl_ps(m, m));
    return _mm_cvtss_f32(_mm_add_ss(m, _mm_shuffle_ps(m, m, 1)));
}

/* The start of a timed product (0 when the context profiles none). */
double sb_layers_mm_t0(const sb_lctx *c);
/* One product's call ended: its seconds times the threads it ran on into
 * the profile's slot (thread-safe). */
void sb_layers_mm_note(const sb_lctx *c, int slot, int m, int n, int k, int threads, double t0);
/* Dropout's keep bits w[n/32] for elements first.. under key at threshold
 * thr (of 65536), at element-wise level lvl; and y = x * bit * scale. */
void sb_layers_keep_bits(int lvl, uint32_t *w, size_t n, uint32_t thr, uint64_t key,
                         uint64_t first);
void sb_layers_apply_bits(int lvl, float *y, const float *x, const uint32_t *w, size_t n,
                          float scale);
/* The keep threshold of a drop probability p (of 65536). */
uint32_t sb_layers_drop_threshold(float p);

#endif
