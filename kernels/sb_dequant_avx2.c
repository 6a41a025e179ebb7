/* The dequantisation epilogue on AVX2 + FMA (sb_dequant.h); reached only
 * after the CPU was found to run them. */
#include <immintrin.h>
#include <stdint.h>
#include "sb_dequant.h"

void sb_dequant_tile_avx2(const sb_dequant *q, void *C, int ldc, int i0, int j0, int mre, int nre)
{
    const float *bs = q->b_scale + j0, *bias = q->bias ? q->bias + j0 : NULL;
    const int32_t *cs = q->b_colsum + j0;
    for (int i = 0; i < mre; i++) {
        int32_t *ci = (int32_t *)C + (size_t)i * ldc;
        float *cf = (float *)C + (size_t)i * ldc;
        float as1 = q->a_scale[i0 + i];
        int32_t zp1 = q->a_zp[i0 + i];
        __m256 as = _mm256_set1_ps(as1);
        __m256i zp = _mm256_set1_epi32(zp1);
        int j = 0;
        for (; j + 8 <= nre; j += 8) {
            __m256i acc = _mm256_loadu_si256((const __m256i *)(ci + j));
            __m256i t = _mm256_sub_epi32(
                acc, _mm256_mullo_epi32(zp, _mm256_loadu_si256((const __m256i *)(cs + j))));
            __m256 s = _mm256_mul_ps(as, _mm256_loadu_ps(bs + j));
            __m256 v = bias ? _mm256_fmadd_ps(s, _mm256_cvtepi32_ps(t), _mm256_loadu_ps(bias + j))
                            : _mm256_mul_ps(s, _mm256_cvtepi32_ps(t));
            _mm256_storeu_ps(cf + j, v);
        }
        for (; j < nre; j++) {
            float v = as1 * bs[j] * (float)(ci[j] - zp1 * cs[j]);
            cf[j] = bias ? v + bias[j] : v;
        }
    }
}
