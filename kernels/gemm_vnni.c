/* vnni-int8 micro-kernels: AVX512_VNNI vpdpbusd, u8 (A) x s8 (B) -> s32;
 * 12x32 register block, k packed in quads. Two A layouts and three row
 * counts as avx512-f32. Reached only after the probe said yes. */
#include "sb_ukr.h"
#include <stdint.h>

#define UKR_MR 12
#define UKR_KG 4
#define UKR_ACC __m512i
#define UKR_ZERO() _mm512_setzero_si512()
#define UKR_LOADB(p) _mm512_load_si512((const void *)(p))
#define UKR_BCAST(p) sb_ukr_bcast32(p)
#define UKR_STEP(c, a, b) _mm512_dpbusd_epi32(c, a, b)
#define UKR_INT 1
#define UKR_ACHUNK 1
#define UKR_FN ukr_s8_rc12
#define UKR_MRV 12
#include "sb_ukr_avx512.inc"
#undef UKR_ACHUNK
#undef UKR_FN
#undef UKR_MRV
#define UKR_ACHUNK 1
#define UKR_FN ukr_s8_rc8
#define UKR_MRV 8
#include "sb_ukr_avx512.inc"
#undef UKR_ACHUNK
#undef UKR_FN
#undef UKR_MRV
#define UKR_ACHUNK 1
#define UKR_FN ukr_s8_rc4
#define UKR_MRV 4
#include "sb_ukr_avx512.inc"
#undef UKR_ACHUNK
#undef UKR_FN
#undef UKR_MRV

/* Bottom-edge panels run a narrower variant instead of multiplying zero rows. */
static void ukr_s8_rc(int kcp, const void *a, const void *b, void *c, int ldc, int mre, int nre,
                      float alpha, float beta)
{
    if (mre > 8)
        ukr_s8_rc12(kcp, a, b, c, ldc, mre, nre, alpha, beta);
    else if (mre > 4)
        ukr_s8_rc8(kcp, a, b, c, ldc, mre, nre, alpha, beta);
    else
        ukr_s8_rc4(kcp, a, b, c, ldc, mre, nre, alpha, beta);
}

#define UKR_ACHUNK 0
#define UKR_FN ukr_s8_sm12
#define UKR_MRV 12
#include "sb_ukr_avx512.inc"
#undef UKR_ACHUNK
#undef UKR_FN
#undef UKR_MRV
#define UKR_ACHUNK 0
#define UKR_FN ukr_s8_sm8
#define UKR_MRV 8
#include "sb_ukr_avx512.inc"
#undef UKR_ACHUNK
#undef UKR_FN
#undef UKR_MRV
#define UKR_ACHUNK 0
#define UKR_FN ukr_s8_sm4
#define UKR_MRV 4
#include "sb_ukr_avx512.inc"
#undef UKR_ACHUNK
#undef UKR_FN
#undef UKR_MRV

/* Bottom-edge panels run a narrower variant instead of multiplying zero rows. */
static void ukr_s8_sm(int kcp, const void *a, const void *b, void *c, int ldc, int mre, int nre,
                      float alpha, float beta)
{
    if (mre > 8)
        ukr_s8_sm12(kcp, a, b, c, ldc, mre, nre, alpha, beta);
    else if (mre > 4)
        ukr_s8_sm8(kcp, a, b, c, ldc, mre, nre, alpha, beta);
    else
        ukr_s8_sm4(kcp, a, b, c, ldc, mre, nre, alpha, beta);
}

static void pack_a_rc(const sb_gemm_desc *d, const void *A, int i0, int mc, int p0, int kc, int kcp,
                      void *dst)
{
    sb_pack_a_chunked(d, A, SB_SRC_U8, 0, UKR_MR, 4, i0, mc, p0, kc, kcp, dst);
}
/* op(A) = A^T: four stored rows (k = p..p+3) x 12 columns -> one 48-byte
 * slot row of a panel, straight into place (int8 runs four times f32's rate,
 * so the generic two-pass packer would cost a tenth of the time here). */
static void pack_a_sm(const sb_gemm_desc *d, const void *A, int i0, int mc, int p0, int kc, int kcp,
                      void *dst)
{
    for (int q = 0; q * UKR_MR < mc; q++) {
        char *pan = (char *)dst + (size_t)q * UKR_MR * kcp;
        int cols = mc - q * UKR_MR < UKR_MR ? mc - q * UKR_MR : UKR_MR;
        __mmask16 lm = (__mmask16)((1u << cols) - 1);
        const uint8_t *base = (const uint8_t *)A + (size_t)p0 * d->lda + i0 + q * UKR_MR;
        for (int p = 0; p < kcp; p += 4) {
            __m128i r[4];
            for (int j = 0; j < 4; j++)
                r[j] = p + j < kc ? _mm_maskz_loadu_epi8(lm, base + (size_t)(p + j) * d->lda)
                                  : _mm_setzero_si128();
            __m128i ab = _mm_unpacklo_epi8(r[0], r[1]), cd = _mm_unpacklo_epi8(r[2], r[3]);
            __m128i ab1 = _mm_unpackhi_epi8(r[0], r[1]), cd1 = _mm_unpackhi_epi8(r[2], r[3]);
            char *o = pan + (size_t)(p / 4) * UKR_MR * 4;
            _mm_storeu_si128((__m128i *)o, _mm_unpacklo_epi16(ab, cd));
            _mm_storeu_si128((__m128i *)(o + 16), _mm_unpackhi_epi16(ab, cd));
            _mm_storeu_si128((__m128i *)(o + 32), _mm_unpacklo_epi16(ab1, cd1));
        }
    }
}
/* op(B) = B: four rows x 32 columns -> one 128-byte slot row of a panel. */
static void pack_b(const sb_gemm_desc *d, const void *B, int p0, int kc, int kcp, int j0, int nc,
                   void *dst)
{
    if (d->transb != 'N') {
        sb_pack_b_vnni(d, B, SB_SRC_S8, 0, 32, 4, p0, kc, kcp, j0, nc, dst);
        return;
    }
    for (int q = 0; q * 32 < nc; q++) {
        char *pan = (char *)dst + (size_t)q * 32 * kcp;
        int cols = nc - q * 32 < 32 ? nc - q * 32 : 32;
        __mmask32 lm = cols >= 32 ? 0xffffffffu : (__mmask32)((1u << cols) - 1);
        const int8_t *base = (const int8_t *)B + (size_t)p0 * d->ldb + j0 + q * 32;
        for (int p = 0; p < kcp; p += 4) {
            __m256i r[4];
            for (int j = 0; j < 4; j++)
                r[j] = p + j < kc ? _mm256_maskz_loadu_epi8(lm, base + (size_t)(p + j) * d->ldb)
                                  : _mm256_setzero_si256();
            /* in-lane unpacks give columns 0-3|16-19, 4-7|20-23, ...; the
             * 128-bit permutes put the lanes back in column order */
            __m256i ab0 = _mm256_unpacklo_epi8(r[0], r[1]), ab1 = _mm256_unpackhi_epi8(r[0], r[1]);
            __m256i cd0 = _mm256_unpacklo_epi8(r[2], r[3]), cd1 = _mm256_unpackhi_epi8(r[2], r[3]);
            __m256i s0 = _mm256_unpacklo_epi16(ab0, cd0), s1 = _mm256_unpackhi_epi16(ab0, cd0);
            __m256i s2 = _mm256_unpacklo_epi16(ab1, cd1), s3 = _mm256_unpackhi_epi16(ab1, cd1);
            char *o = pan + (size_t)(p / 4) * 128;
            _mm256_storeu_si256((__m256i *)o, _mm256_permute2x128_si256(s0, s1, 0x20));
            _mm256_storeu_si256((__m256i *)(o + 32), _mm256_permute2x128_si256(s2, s3, 0x20));
            _mm256_storeu_si256((__m256i *)(o + 64), _mm256_permute2x128_si256(s0, s1, 0x31));
            _mm256_storeu_si256((__m256i *)(o + 96), _mm256_permute2x128_si256(s2, s3, 0x31));
        }
    }
}

/* [0]: op(A) = A (row chunks), [1]: op(A) = A^T (slot-major) */
const sb_ukr sb_ukr_vnni_int8[2] = SB_UKR_PAIR("vnni-int8", UKR_MR, 32, 4, 1, 0, pack_a_rc,
                                               pack_a_sm, pack_b, ukr_s8_rc, ukr_s8_sm);
