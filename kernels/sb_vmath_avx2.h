/* sb_vmath.h's exp and erf 8 at a time, op for op (AVX2 + FMA); only for
 * files compiled with the AVX2 flags (or functions targeting them). */
#ifndef SB_VMATH_AVX2_H
#define SB_VMATH_AVX2_H
#include <immintrin.h>
#include "sb_vmath.h"

#define SB_VM256 __attribute__((target("avx2,fma")))

SB_VM256 static inline __m256 sb_vexp8(__m256 x)
{
    x = _mm256_min_ps(_mm256_max_ps(x, _mm256_set1_ps(SB_EXP_LO)), _mm256_set1_ps(SB_EXP_HI));
    __m256 fn = _mm256_floor_ps(_mm256_fmadd_ps(x, _mm256_set1_ps(SB_LOG2E), _mm256_set1_ps(0.5f)));
    __m256 r = _mm256_fnmadd_ps(fn, _mm256_set1_ps(SB_LN2_HI), x);
    r = _mm256_fnmadd_ps(fn, _mm256_set1_ps(SB_LN2_LO), r);
    __m256 z = _mm256_mul_ps(r, r);
    __m256 y = _mm256_set1_ps(SB_EXP_P0);
    y = _mm256_fmadd_ps(y, r, _mm256_set1_ps(SB_EXP_P1));
    y = _mm256_fmadd_ps(y, r, _mm256_set1_ps(SB_EXP_P2));
    y = _mm256_fmadd_ps(y, r, _mm256_set1_ps(SB_EXP_P3));
    y = _mm256_fmadd_ps(y, r, _mm256_set1_ps(SB_EXP_P4));
    y = _mm256_fmadd_ps(y, r, _mm256_set1_ps(SB_EXP_P5));
    y = _mm256_add_ps(_mm256_fmadd_ps(y, z, r), _mm256_set1_ps(1.0f));
    __m256i e = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(fn), _mm256_set1_epi32(127)),
                                  23);
    return _mm256_mul_ps(y, _mm256_castsi256_ps(e));
}

SB_VM256 static inline __m256 sb_verf8(__m256 x)
{
    const __m256 sign = _mm256_set1_ps(-0.0f);
    __m256 ax = _mm256_andnot_ps(sign, x);
    __m256 t = _mm256_div_ps(_mm256_set1_ps(1.0f),
                             _mm256_fmadd_ps(ax, _mm256_set1_ps(SB_ERF_P), _mm256_set1_ps(1.0f)));
    __m256 p = _mm256_set1_ps(SB_ERF_A5);
    p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(SB_ERF_A4));
    p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(SB_ERF_A3));
    p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(SB_ERF_A2));
    p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(SB_ERF_A1));
    p = _mm256_mul_ps(p, t);
    __m256 r = _mm256_fnmadd_ps(p,
                                sb_vexp8(_mm256_mul_ps(_mm256_sub_ps(_mm256_setzero_ps(), ax), ax)),
                                _mm256_set1_ps(1.0f));
    return _mm256_or_ps(r, _mm256_and_ps(x, sign));
}

#endif
