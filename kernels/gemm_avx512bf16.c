/* avx512-bf16 micro-kernels: AVX512_BF16 vdpbf16ps, bf16 pairs in, f32
 * accumulate; 12x32 register block, k packed in pairs (A and B rounded to
 * bf16, nearest even, while packing; a second set of packers serves callers
 * that already hold bf16). Two A layouts and three row counts as avx512-f32.
 * Reached only after the probe said yes. */
#include "sb_ukr.h"
#include <stdint.h>
#include <string.h>

#define UKR_MR 12
#define UKR_KG 2
#define UKR_ACC __m512
#define UKR_ZERO() _mm512_setzero_ps()
#define UKR_LOADB(p) _mm512_castsi512_ps(_mm512_load_si512((const void *)(p)))
#define UKR_BCAST(p) _mm512_castsi512_ps(sb_ukr_bcast32(p))
#define UKR_STEP(c, a, b) _mm512_dpbf16_ps(c, (__m512bh)(a), (__m512bh)(b))
#define UKR_INT 0
#define UKR_ACHUNK 1
#define UKR_FN ukr_bf16_rc12
#define UKR_MRV 12
#include "sb_ukr_avx512.inc"
#undef UKR_ACHUNK
#undef UKR_FN
#undef UKR_MRV
#define UKR_ACHUNK 1
#define UKR_FN ukr_bf16_rc8
#define UKR_MRV 8
#include "sb_ukr_avx512.inc"
#undef UKR_ACHUNK
#undef UKR_FN
#undef UKR_MRV
#define UKR_ACHUNK 1
#define UKR_FN ukr_bf16_rc4
#define UKR_MRV 4
#include "sb_ukr_avx512.inc"
#undef UKR_ACHUNK
#undef UKR_FN
#undef UKR_MRV

/* Bottom-edge panels run a narrower variant instead of multiplying zero rows. */
static void ukr_bf16_rc(int kcp, const void *a, const void *b, void *c, int ldc, int mre, int nre,
                        float alpha, float beta)
{
    if (mre > 8)
        ukr_bf16_rc12(kcp, a, b, c, ldc, mre, nre, alpha, beta);
    else if (mre > 4)
        ukr_bf16_rc8(kcp, a, b, c, ldc, mre, nre, alpha, beta);
    else
        ukr_bf16_rc4(kcp, a, b, c, ldc, mre, nre, alpha, beta);
}

#define UKR_ACHUNK 0
#define UKR_FN ukr_bf16_sm12
#define UKR_MRV 12
#include "sb_ukr_avx512.inc"
#undef UKR_ACHUNK
#undef UKR_FN
#undef UKR_MRV
#define UKR_ACHUNK 0
#define UKR_FN ukr_bf16_sm8
#define UKR_MRV 8
#include "sb_ukr_avx512.inc"
#undef UKR_ACHUNK
#undef UKR_FN
#undef UKR_MRV
#define UKR_ACHUNK 0
#define UKR_FN ukr_bf16_sm4
#define UKR_MRV 4
#include "sb_ukr_avx512.inc"
#undef UKR_ACHUNK
#undef UKR_FN
#undef UKR_MRV

/* Bottom-edge panels run a narrower variant instead of multiplying zero rows. */
static void ukr_bf16_sm(int kcp, const void *a, const void *b, void *c, int ldc, int mre, int nre,
                        float alpha, float beta)
{
    if (mre > 8)
        ukr_bf16_sm12(kcp, a, b, c, ldc, mre, nre, alpha, beta);
    else if (mre > 4)
        ukr_bf16_sm8(kcp, a, b, c, ldc, mre, nre, alpha, beta);
    else
        ukr_bf16_sm4(kcp, a, b, c, ldc, mre, nre, alpha, beta);
}

/* f32 -> bf16 packers on vcvtne2ps2bf16 (one instruction per 32 values,
 * round to nearest even; like all AVX512_BF16 conversions it treats f32
 * denormal inputs as zero, where the generic packers round them). bf16
 * compute is twice f32's rate, so its packing must be cheaper per element. */
static inline __mmask16 first_n(int n)
{
    return n >= 16 ? 0xffff : n <= 0 ? 0 : (__mmask16)((1u << n) - 1);
}

/* 32 f32 at x (n valid, rest read as 0) -> 32 bf16 */
static inline __m512i cvt32(const float *x, int n)
{
    __m512 lo = _mm512_maskz_loadu_ps(first_n(n), x);
    __m512 hi = _mm512_maskz_loadu_ps(first_n(n - 16), x + 16);
    return (__m512i)_mm512_cvtne2ps_pbh(hi, lo);
}

/* op(A) = A: row chunks of 16 slots (32 k values) = one cvt32 each. */
static void pack_a_rc(const sb_gemm_desc *d, const void *A, int i0, int mc, int p0, int kc, int kcp,
                      void *dst)
{
    for (int q = 0; q * UKR_MR < mc; q++) {
        char *pan = (char *)dst + (size_t)q * UKR_MR * kcp * 2;
        int rows = mc - q * UKR_MR < UKR_MR ? mc - q * UKR_MR : UKR_MR;
        if (rows < UKR_MR) memset(pan, 0, (size_t)UKR_MR * kcp * 2);
        for (int i = 0; i < rows; i++) {
            const float *row = (const float *)A + (size_t)(i0 + q * UKR_MR + i) * d->lda + p0;
            for (int c = 0, p = 0; p < kcp; c++, p += 32) {
                _mm_prefetch((const char *)(row + p + 128), _MM_HINT_T0);
                _mm512_storeu_si512(pan + ((size_t)c * UKR_MR + i) * 64, cvt32(row + p, kc - p));
            }
        }
    }
}

/* op(A) = A^T: rows p, p+1 of the stored A^T give one slot row of a panel:
 * 12 columns each, converted together and interleaved in pairs. */
static void pack_a_sm(const sb_gemm_desc *d, const void *A, int i0, int mc, int p0, int kc, int kcp,
                      void *dst)
{
    /* v = [x0 bf16 0..15 | x1 bf16 0..15] -> x0[0] x1[0] x0[1] x1[1] ... */
    static const short ix[32] = {0, 16, 1, 17, 2,  18, 3,  19, 4,  20, 5,  21, 6,  22, 7,  23,
                                 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31};
    const __m512i idx = _mm512_loadu_si512(ix);
    for (int q = 0; q * UKR_MR < mc; q++) {
        char *pan = (char *)dst + (size_t)q * UKR_MR * kcp * 2;
        int cols = mc - q * UKR_MR < UKR_MR ? mc - q * UKR_MR : UKR_MR;
        __mmask16 lm = first_n(cols);
        const float *base = (const float *)A + (size_t)p0 * d->lda + i0 + q * UKR_MR;
        for (int p = 0; p < kcp; p += 2) {
            __m512 x0 = p < kc ? _mm512_maskz_loadu_ps(lm, base + (size_t)p * d->lda)
                               : _mm512_setzero_ps();
            __m512 x1 = p + 1 < kc ? _mm512_maskz_loadu_ps(lm, base + (size_t)(p + 1) * d->lda)
                                   : _mm512_setzero_ps();
            __m512i v = _mm512_permutexvar_epi16(idx, (__m512i)_mm512_cvtne2ps_pbh(x1, x0));
            _mm512_mask_storeu_epi16(pan + (size_t)(p / 2) * UKR_MR * 4, 0xffffff, v);
        }
    }
}

/* op(B) = B: rows p, p+1, 32 columns -> one 128-byte slot row of a panel. */
static void pack_b_n(const sb_gemm_desc *d, const void *B, int p0, int kc, int kcp, int j0, int nc,
                     void *dst)
{
    static const short lo_ix[32] = {0, 32, 1, 33, 2,  34, 3,  35, 4,  36, 5,  37, 6,  38, 7,  39,
                                    8, 40, 9, 41, 10, 42, 11, 43, 12, 44, 13, 45, 14, 46, 15, 47};
    static const short hi_ix[32] = {16, 48, 17, 49, 18, 50, 19, 51, 20, 52, 21, 53, 22, 54, 23, 55,
                                    24, 56, 25, 57, 26, 58, 27, 59, 28, 60, 29, 61, 30, 62, 31, 63};
    const __m512i il = _mm512_loadu_si512(lo_ix), ih = _mm512_loadu_si512(hi_ix);
    const __m512i zero = _mm512_setzero_si512();
    for (int q = 0; q * 32 < nc; q++) {
        char *pan = (char *)dst + (size_t)q * 32 * kcp * 2;
        int cols = nc - q * 32 < 32 ? nc - q * 32 : 32;
        const float *base = (const float *)B + (size_t)p0 * d->ldb + j0 + q * 32;
        for (int p = 0; p < kcp; p += 2) {
            __m512i a = p < kc ? cvt32(base + (size_t)p * d->ldb, cols) : zero;
            __m512i b = p + 1 < kc ? cvt32(base + (size_t)(p + 1) * d->ldb, cols) : zero;
            char *o = pan + (size_t)(p / 2) * 128;
            _mm512_storeu_si512(o, _mm512_permutex2var_epi16(a, il, b));
            _mm512_storeu_si512(o + 64, _mm512_permutex2var_epi16(a, ih, b));
        }
    }
}

static void pack_b(const sb_gemm_desc *d, const void *B, int p0, int kc, int kcp, int j0, int nc,
                   void *dst)
{
    if (d->transb == 'N')
        pack_b_n(d, B, p0, kc, kcp, j0, nc, dst);
    else
        sb_pack_b_vnni(d, B, SB_SRC_F32, 1, 32, 2, p0, kc, kcp, j0, nc, dst);
}

/* [0]: op(A) = A (row chunks), [1]: op(A) = A^T (slot-major) */
const sb_ukr sb_ukr_avx512_bf16[2] = SB_UKR_PAIR("avx512-bf16", UKR_MR, 32, 2, 2, 0, pack_a_rc,
                                                 pack_a_sm, pack_b, ukr_bf16_rc, ukr_bf16_sm);
static void pack_a_rc_in(const sb_gemm_desc *d, const void *A, int i0, int mc, int p0, int kc,
                         int kcp, void *dst)
{
    sb_pack_a_chunked(d, A, SB_SRC_BF16, 1, UKR_MR, 2, i0, mc, p0, kc, kcp, dst);
}
static void pack_a_sm_in(const sb_gemm_desc *d, const void *A, int i0, int mc, int p0, int kc,
                         int kcp, void *dst)
{
    sb_pack_a_vnni(d, A, SB_SRC_BF16, 1, UKR_MR, 2, i0, mc, p0, kc, kcp, dst);
}
static void pack_b_in(const sb_gemm_desc *d, const void *B, int p0, int kc, int kcp, int j0, int nc,
                      void *dst)
{
    sb_pack_b_vnni(d, B, SB_SRC_BF16, 1, 32, 2, p0, kc, kcp, j0, nc, dst);
}

/* [0]: op(A) = A (row chunks), [1]: op(A) = A^T (slot-major) */
const sb_ukr sb_ukr_avx512_bf16_in[2] = SB_UKR_PAIR("avx512-bf16", UKR_MR, 32, 2, 2, 0,
                                                    pack_a_rc_in, pack_a_sm_in, pack_b_in,
                                                    ukr_bf16_rc, ukr_bf16_sm);
