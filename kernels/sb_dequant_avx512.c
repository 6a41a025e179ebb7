/* The dequantisation epilogue on AVX-512 (sb_dequant.h); reached only after
 * the CPU was found to run AVX-512 F/BW/VL/DQ. */
#include <immintrin.h>
#include <stdint.h>
#include "sb_dequant.h"

void sb_dequant_tile_avx512(const sb_dequant *q, void *C, int ldc, int i0, int j0, int mre, int nre)
{
    const float *bs = q->b_scale + j0, *bias = q->bias ? q->bias + j0 : NULL;
    const int32_t *cs = q->b_colsum + j0;
    for (int i = 0; i < mre; i++) {
        int32_t *ci = (int32_t *)C + (size_t)i * ldc;
        float *cf = (float *)C + (size_t)i * ldc;
        __m512 as = _mm512_set1_ps(q->a_scale[i0 + i]);
        __m512i zp = _mm512_set1_epi32(q->a_zp[i0 + i]);
        for (int j = 0; j < nre; j += 16) {
            __mmask16 m = nre - j >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << (nre - j)) - 1);
            __m512i acc = _mm512_maskz_loadu_epi32(m, ci + j);
            __m512i t = _mm512_sub_epi32(
                acc, _mm512_mullo_epi32(zp, _mm512_maskz_loadu_epi32(m, cs + j)));
            __m512 s = _mm512_mul_ps(as, _mm512_maskz_loadu_ps(m, bs + j));
            __m512 v = bias
                ? _mm512_fmadd_ps(s, _mm512_cvtepi32_ps(t), _mm512_maskz_loadu_ps(m, bias + j))
                : _mm512_mul_ps(s, _mm512_cvtepi32_ps(t));
            _mm512_mask_storeu_ps(cf + j, m, v);
        }
    }
}
