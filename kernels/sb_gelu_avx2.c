/* GELU 8 at a time with AVX2 + FMA (sb_gelu.h); a tail of fewer than 8 goes
 * through vmaskmov (masked-off lanes load 0 and never fault). */
#include <stdint.h>
#include "sb_gelu.h"
#include "sb_vmath_avx2.h"

static const int32_t k_tail8[16] = {-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0};
static inline __m256i tail8(size_t left)
{
    return _mm256_loadu_si256((const __m256i *)(k_tail8 + 8 - (left < 8 ? left : 8)));
}

static inline __m256 cdf8(__m256 v)
{
    return _mm256_fmadd_ps(sb_verf8(_mm256_mul_ps(v, _mm256_set1_ps(SB_SQRT1_2F))),
                           _mm256_set1_ps(0.5f), _mm256_set1_ps(0.5f));
}

static inline __m256 grad8(__m256 v)
{
    __m256 pdf = _mm256_mul_ps(_mm256_set1_ps(SB_INV_SQRT_2PIF),
                               sb_vexp8(_mm256_mul_ps(_mm256_mul_ps(v, v), _mm256_set1_ps(-0.5f))));
    return _mm256_fmadd_ps(v, pdf, cdf8(v));
}

void sb_gelu_fwd_avx2(float *y, const float *x, size_t n)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 v = _mm256_loadu_ps(x + i);
        _mm256_storeu_ps(y + i, _mm256_mul_ps(v, cdf8(v)));
    }
    if (i < n) {
        __m256i k = tail8(n - i);
        __m256 v = _mm256_maskload_ps(x + i, k);
        _mm256_maskstore_ps(y + i, k, _mm256_mul_ps(v, cdf8(v)));
    }
}

void sb_gelu_bwd_avx2(float *dx, const float *dy, const float *x, size_t n)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps(dx + i,
                         _mm256_mul_ps(_mm256_loadu_ps(dy + i), grad8(_mm256_loadu_ps(x + i))));
    if (i < n) {
        __m256i k = tail8(n - i);
        __m256 d = grad8(_mm256_maskload_ps(x + i, k));
        _mm256_maskstore_ps(dx + i, k, _mm256_mul_ps(_mm256_maskload_ps(dy + i, k), d));
    }
}

void sb_gelu_fwd_grad_avx2(float *y, float *g, const float *x, size_t n)
{
    for (size_t i = 0; i < n; i += 8) {
        __m256i k = tail8(n - i);
        int full = n - i >= 8;
        __m256 v = full ? _mm256_loadu_ps(x + i) : _mm256_maskload_ps(x + i, k), cdf = cdf8(v);
        __m256 pdf = _mm256_mul_ps(
            _mm256_set1_ps(SB_INV_SQRT_2PIF),
            sb_vexp8(_mm256_mul_ps(_mm256_mul_ps(v, v), _mm256_set1_ps(-0.5f))));
        __m256 yv = _mm256_mul_ps(v, cdf), gv = _mm256_fmadd_ps(v, pdf, cdf);
        if (full) {
            _mm256_storeu_ps(y + i, yv);
            _mm256_storeu_ps(g + i, gv);
        } else {
            _mm256_maskstore_ps(y + i, k, yv);
            _mm256_maskstore_ps(g + i, k, gv);
        }
    }
}
