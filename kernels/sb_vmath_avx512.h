/* sb_vmath.h's exp and erf 16 at a time, op for op; only for files compiled
 * with the AVX-512 flags (or functions targeting them). */
#ifndef SB_VMATH_AVX512_H
#define SB_VMATH_AVX512_H
#include <immintrin.h>
#include "sb_vmath.h"

#define SB_VM512 __attribute__((target("avx512f,avx512dq,avx512bw,avx512vl,fma")))

SB_VM512 static inline __m512 sb_vexp16(__m512 x)
{
    x = _mm512_min_ps(_mm512_max_ps(x, _mm512_set1_ps(SB_EXP_LO)), _mm512_set1_ps(SB_EXP_HI));
    __m512 fn = _mm512_roundscale_ps(
        _mm512_fmadd_ps(x, _mm512_set1_ps(SB_LOG2E), _mm512_set1_ps(0.5f)),
        _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
    __m512 r = _mm512_fnmadd_ps(fn, _mm512_set1_ps(SB_LN2_HI), x);
    r = _mm512_fnmadd_ps(fn, _mm512_set1_ps(SB_LN2_LO), r);
    __m512 z = _mm512_mul_ps(r, r);
    __m512 y = _mm512_set1_ps(SB_EXP_P0);
    y = _mm512_fmadd_ps(y, r, _mm512_set1_ps(SB_EXP_P1));
    y = _mm512_fmadd_ps(y, r, _mm512_set1_ps(SB_EXP_P2));
    y = _mm512_fmadd_ps(y, r, _mm512_set1_ps(SB_EXP_P3));
    y = _mm512_fmadd_ps(y, r, _mm512_set1_ps(SB_EXP_P4));
    y = _mm512_fmadd_ps(y, r, _mm512_set1_ps(SB_EXP_P5));
    y = _mm512_add_ps(_mm512_fmadd_ps(y, z, r), _mm512_set1_ps(1.0f));
    __m512i e = _mm512_slli_epi32(_mm512_add_epi32(_mm512_cvtps_epi32(fn), _mm512_set1_epi32(127)),
                                  23);
    return _mm512_mul_ps(y, _mm512_castsi512_ps(e));
}

SB_VM512 static inline __m512 sb_verf16(__m512 x)
{
    __m512 ax = _mm512_abs_ps(x);
    __m512 t = _mm512_div_ps(_mm512_set1_ps(1.0f),
                             _mm512_fmadd_ps(ax, _mm512_set1_ps(SB_ERF_P), _mm512_set1_ps(1.0f)));
    __m512 p = _mm512_set1_ps(SB_ERF_A5);
    p = _mm512_fmadd_ps(p, t, _mm512_set1_ps(SB_ERF_A4));
    p = _mm512_fmadd_ps(p, t, _mm512_set1_ps(SB_ERF_A3));
    p = _mm512_fmadd_ps(p, t, _mm512_set1_ps(SB_ERF_A2));
    p = _mm512_fmadd_ps(p, t, _mm512_set1_ps(SB_ERF_A1));
    p = _mm512_mul_ps(p, t);
    __m512 r = _mm512_fnmadd_ps(
        p, sb_vexp16(_mm512_mul_ps(_mm512_sub_ps(_mm512_setzero_ps(), ax), ax)),
        _mm512_set1_ps(1.0f));
    /* copy the sign of x */
    __m512i sign = _mm512_and_si512(_mm512_castps_si512(x), _mm512_set1_epi32((int)0x80000000u));
    return _mm512_castsi512_ps(_mm512_or_si512(_mm512_castps_si512(r), sign));
}

#endif
