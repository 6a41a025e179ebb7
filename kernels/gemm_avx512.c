/* avx512-f32 micro-kernels: AVX-512F FMA, f32 in, f32 accumulate; 12x32
 * register block (24 accumulators, A broadcast from memory), in two A
 * layouts (row chunks when op(A) = A, slot-major when op(A) = A^T) and three
 * row counts (12, 8, 4 for bottom edges). Only data and code the driver
 * reaches after the probe (gemm_own.c) said yes. */
#include "sb_ukr.h"
#include <stdint.h>

#define UKR_MR 12
#define UKR_KG 1
#define UKR_ACC __m512
#define UKR_ZERO() _mm512_setzero_ps()
#define UKR_LOADB(p) _mm512_load_ps((const float *)(p))
#define UKR_BCAST(p) _mm512_set1_ps(*(const float *)(p))
#define UKR_STEP(c, a, b) _mm512_fmadd_ps(a, b, c)
#define UKR_INT 0
#define UKR_ACHUNK 1
#define UKR_FN ukr_f32_rc12
#define UKR_MRV 12
#include "sb_ukr_avx512.inc"
#undef UKR_ACHUNK
#undef UKR_FN
#undef UKR_MRV
#define UKR_ACHUNK 1
#define UKR_FN ukr_f32_rc8
#define UKR_MRV 8
#include "sb_ukr_avx512.inc"
#undef UKR_ACHUNK
#undef UKR_FN
#undef UKR_MRV
#define UKR_ACHUNK 1
#define UKR_FN ukr_f32_rc4
#define UKR_MRV 4
#include "sb_ukr_avx512.inc"
#undef UKR_ACHUNK
#undef UKR_FN
#undef UKR_MRV

/* Bottom-edge panels run a narrower variant instead of multiplying zero rows. */
static void ukr_f32_rc(int kcp, const void *a, const void *b, void *c, int ldc, int mre, int nre,
                       float alpha, float beta)
{
    if (mre > 8)
        ukr_f32_rc12(kcp, a, b, c, ldc, mre, nre, alpha, beta);
    else if (mre > 4)
        ukr_f32_rc8(kcp, a, b, c, ldc, mre, nre, alpha, beta);
    else
        ukr_f32_rc4(kcp, a, b, c, ldc, mre, nre, alpha, beta);
}

#define UKR_ACHUNK 0
#define UKR_FN ukr_f32_sm12
#define UKR_MRV 12
#include "sb_ukr_avx512.inc"
#undef UKR_ACHUNK
#undef UKR_FN
#undef UKR_MRV
#define UKR_ACHUNK 0
#define UKR_FN ukr_f32_sm8
#define UKR_MRV 8
#include "sb_ukr_avx512.inc"
#undef UKR_ACHUNK
#undef UKR_FN
#undef UKR_MRV
#define UKR_ACHUNK 0
#define UKR_FN ukr_f32_sm4
#define UKR_MRV 4
#include "sb_ukr_avx512.inc"
#undef UKR_ACHUNK
#undef UKR_FN
#undef UKR_MRV

/* Bottom-edge panels run a narrower variant instead of multiplying zero rows. */
static void ukr_f32_sm(int kcp, const void *a, const void *b, void *c, int ldc, int mre, int nre,
                       float alpha, float beta)
{
    if (mre > 8)
        ukr_f32_sm12(kcp, a, b, c, ldc, mre, nre, alpha, beta);
    else if (mre > 4)
        ukr_f32_sm8(kcp, a, b, c, ldc, mre, nre, alpha, beta);
    else
        ukr_f32_sm4(kcp, a, b, c, ldc, mre, nre, alpha, beta);
}

static void pack_a_rc(const sb_gemm_desc *d, const void *A, int i0, int mc, int p0, int kc, int kcp,
                      void *dst)
{
    sb_pack_a_chunked(d, A, SB_SRC_F32, 0, UKR_MR, 1, i0, mc, p0, kc, kcp, dst);
}
static void pack_a_sm(const sb_gemm_desc *d, const void *A, int i0, int mc, int p0, int kc, int kcp,
                      void *dst)
{
    sb_pack_a_vnni(d, A, SB_SRC_F32, 0, UKR_MR, 1, i0, mc, p0, kc, kcp, dst);
}
static void pack_b(const sb_gemm_desc *d, const void *B, int p0, int kc, int kcp, int j0, int nc,
                   void *dst)
{
    sb_pack_b_vnni(d, B, SB_SRC_F32, 0, 32, 1, p0, kc, kcp, j0, nc, dst);
}

/* [0]: op(A) = A (row chunks), [1]: op(A) = A^T (slot-major) */
const sb_ukr sb_ukr_avx512_f32[2] = SB_UKR_PAIR("avx512-f32", UKR_MR, 32, 1, 4, 0, pack_a_rc,
                                                pack_a_sm, pack_b, ukr_f32_rc, ukr_f32_sm);
