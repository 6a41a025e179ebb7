/* GELU 16 at a time (sb_gelu.h); reached only after the CPU was found to run
 * AVX-512 F/BW/VL/DQ. Tails go through masked loads and stores. */
#include "sb_gelu.h"
#include "sb_vmath_avx512.h"

static inline __mmask16 tailmask(size_t left)
{
    return left >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << left) - 1);
}

static inline __m512 cdf16(__m512 v)
{
    return _mm512_fmadd_ps(sb_verf16(_mm512_mul_ps(v, _mm512_set1_ps(SB_SQRT1_2F))),
                           _mm512_set1_ps(0.5f), _mm512_set1_ps(0.5f));
}

void sb_gelu_fwd_avx512(float *y, const float *x, size_t n)
{
    for (size_t i = 0; i < n; i += 16) {
        __mmask16 k = tailmask(n - i);
        __m512 v = _mm512_maskz_loadu_ps(k, x + i);
        _mm512_mask_storeu_ps(y + i, k, _mm512_mul_ps(v, cdf16(v)));
    }
}

void sb_gelu_bwd_avx512(float *dx, const float *dy, const float *x, size_t n)
{
    for (size_t i = 0; i < n; i += 16) {
        __mmask16 k = tailmask(n - i);
        __m512 v = _mm512_maskz_loadu_ps(k, x + i);
        __m512 pdf = _mm512_mul_ps(
            _mm512_set1_ps(SB_INV_SQRT_2PIF),
            sb_vexp16(_mm512_mul_ps(_mm512_mul_ps(v, v), _mm512_set1_ps(-0.5f))));
        __m512 d = _mm512_fmadd_ps(v, pdf, cdf16(v));
        _mm512_mask_storeu_ps(dx + i, k, _mm512_mul_ps(_mm512_maskz_loadu_ps(k, dy + i), d));
    }
}

void sb_gelu_fwd_grad_avx512(float *y, float *g, const float *x, size_t n)
{
    for (size_t i = 0; i < n; i += 16) {
        __mmask16 k = tailmask(n - i);
        __m512 v = _mm512_maskz_loadu_ps(k, x + i), cdf = cdf16(v);
        __m512 pdf = _mm512_mul_ps(
            _mm512_set1_ps(SB_INV_SQRT_2PIF),
            sb_vexp16(_mm512_mul_ps(_mm512_mul_ps(v, v), _mm512_set1_ps(-0.5f))));
        _mm512_mask_storeu_ps(y + i, k, _mm512_mul_ps(v, cdf));
        _mm512_mask_storeu_ps(g + i, k, _mm512_fmadd_ps(v, pdf, cdf));
    }
}
