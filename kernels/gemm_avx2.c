/* avx2-f32 and avx2-int8 micro-kernels: AVX2 + FMA, 6x16 register block
 * (12 ymm accumulators), two A layouts (row chunks when op(A) = A,
 * slot-major when op(A) = A^T) and one variant per row count for bottom
 * edges; and the AVX-VNNI int8 kernel's model (its layout and loop on an
 * exact AVX2 stand-in for vpdpbusd), for tests. Only data and code the
 * driver reaches after probe_avx2 (gemm_own.c) said yes. */
#include "sb_ukr_avx2.h"
#include <immintrin.h>
#include <stdint.h>
#include <string.h>

/* The packed A block (MC x KC) as a share of L2, in percent (see
 * sb_gemm_blocking): in L2 rather than streamed from L3 measured 1-5 %
 * better for avx2-f32 (25-55 % alike; 150 %, the AVX-512 kernels' choice,
 * worst, most on A^T shapes), the same for avx2-int8. */
#ifndef SB_AVX2_A_L2_PCT
#define SB_AVX2_A_L2_PCT 40
#endif

/* ---- avx2-f32 ---------------------------------------------------------- */

#define UKR_MR SB_AVX2_MR
#define UKR_ACC_MEM 0
#define UKR_KG 1
#define UKR_INT 0
#define UKR_ASM_LOADB "vmovaps"
#define UKR_ASM_BCAST "vbroadcastss"
#define UKR_ASM_OPS(r0, r1)                          \
    "vfmadd231ps %%ymm12, %%ymm14, %%ymm" #r0 "\n\t" \
    "vfmadd231ps %%ymm13, %%ymm14, %%ymm" #r1 "\n\t"
#define UKR_ACHUNK 1
#define UKR_NAME ukr_f32_rc
#include "sb_ukr_avx2_rows.inc"
#undef UKR_ACHUNK
#undef UKR_NAME
#define UKR_ACHUNK 0
#define UKR_NAME ukr_f32_sm
#include "sb_ukr_avx2_rows.inc"
#undef UKR_ACHUNK
#undef UKR_NAME
#undef UKR_KG
#undef UKR_INT
#undef UKR_ASM_LOADB
#undef UKR_ASM_BCAST
#undef UKR_ASM_OPS

static void f32_pack_a_rc(const sb_gemm_desc *d, const void *A, int i0, int mc, int p0, int kc,
                          int kcp, void *dst)
{
    sb_pack_a_chunked(d, A, SB_SRC_F32, 0, SB_AVX2_MR, 1, i0, mc, p0, kc, kcp, dst);
}
static void f32_pack_a_sm(const sb_gemm_desc *d, const void *A, int i0, int mc, int p0, int kc,
                          int kcp, void *dst)
{
    sb_pack_a_vnni(d, A, SB_SRC_F32, 0, SB_AVX2_MR, 1, i0, mc, p0, kc, kcp, dst);
}
static void f32_pack_b(const sb_gemm_desc *d, const void *B, int p0, int kc, int kcp, int j0,
                       int nc, void *dst)
{
    sb_pack_b_vnni(d, B, SB_SRC_F32, 0, SB_AVX2_NR, 1, p0, kc, kcp, j0, nc, dst);
}

const sb_ukr sb_ukr_avx2_f32[2] = SB_UKR_PAIR("avx2-f32", SB_AVX2_MR, SB_AVX2_NR, 1, 4,
                                              SB_AVX2_A_L2_PCT, f32_pack_a_rc, f32_pack_a_sm,
                                              f32_pack_b, ukr_f32_rc, ukr_f32_sm);

/* ---- avx2-int8 without AVX-VNNI: s16 pairs, vpmaddwd ------------------- */

/* vpmaddubsw would take u8 x s8 directly but saturates its pair sums to s16
 * (255 * 127 * 2 > 32767). Widened to s16 while packing, vpmaddwd sums two
 * products of at most 255 * 128 each into s32: exact for every input, at
 * the same two multiplies per cycle, for twice the packed bytes. A 32-bit
 * slot holds the k pair (2s, 2s + 1) of one row or column. */
#define UKR_KG 2
#define UKR_INT 1
#define UKR_ASM_LOADB "vmovdqa"
#define UKR_ASM_BCAST "vpbroadcastd"
#define UKR_ASM_OPS(r0, r1)                          \
    "vpmaddwd %%ymm12, %%ymm14, %%ymm15\n\t"         \
    "vpaddd %%ymm15, %%ymm" #r0 ", %%ymm" #r0 "\n\t" \
    "vpmaddwd %%ymm13, %%ymm14, %%ymm15\n\t"         \
    "vpaddd %%ymm15, %%ymm" #r1 ", %%ymm" #r1 "\n\t"
#define UKR_ACHUNK 1
#define UKR_NAME ukr_s16_rc
#include "sb_ukr_avx2_rows.inc"
#undef UKR_ACHUNK
#undef UKR_NAME
#define UKR_ACHUNK 0
#define UKR_NAME ukr_s16_sm
#include "sb_ukr_avx2_rows.inc"
#undef UKR_ACHUNK
#undef UKR_NAME
#undef UKR_ASM_OPS

/* op(A) = A: row i of chunk q holds k = 32q .. 32q+31 as u16 (64 bytes). */
static void s16_pack_a_rc(const sb_gemm_desc *d, const void *A, int i0, int mc, int p0, int kc,
                          int kcp, void *dst)
{
    const int MR = SB_AVX2_MR;
    for (int q = 0; q * MR < mc; q++) {
        char *pan = (char *)dst + (size_t)q * MR * kcp * 2;
        int rows = mc - q * MR < MR ? mc - q * MR : MR;
        if (rows < MR || kc < kcp) memset(pan, 0, (size_t)MR * kcp * 2);
        for (int i = 0; i < rows; i++) {
            const uint8_t *src = (const uint8_t *)A + (size_t)(i0 + q * MR + i) * d->lda + p0;
            int p = 0, c = 0;
            for (; p + 32 <= kc; p += 32, c++) {
                __m256i x = _mm256_loadu_si256((const __m256i *)(src + p));
                char *o = pan + ((size_t)c * MR + i) * 64;
                _mm256_storeu_si256((__m256i *)o, _mm256_cvtepu8_epi16(_mm256_castsi256_si128(x)));
                _mm256_storeu_si256((__m256i *)(o + 32),
                                    _mm256_cvtepu8_epi16(_mm256_extracti128_si256(x, 1)));
            }
            for (; p < kc; p++)
                ((uint16_t *)(pan + ((size_t)(p / 32) * MR + i) * 64))[p % 32] = src[p];
        }
    }
}

/* op(A) = A^T: slot (s, i) of a panel at (s * MR + i) * 4 bytes holds
 * A^T's column i at k = 2s, 2s + 1, i.e. two stored rows. 48 columns (three
 * vectors, eight whole panels) of two rows are interleaved and widened at
 * once, then each panel takes its 24-byte slot row in one piece (blocking
 * several row pairs per panel measured slower). */
static void s16_pack_a_sm(const sb_gemm_desc *d, const void *A, int i0, int mc, int p0, int kc,
                          int kcp, void *dst)
{
    enum { MR = SB_AVX2_MR, W = 48 };
    _Static_assert(W % MR == 0 && W % 16 == 0, "whole panels and whole vectors");
    const size_t pan_bytes = (size_t)MR * kcp * 2;
    int npan = (mc + MR - 1) / MR;
    if (mc % MR || kc < kcp)
        for (int q = 0; q < npan; q++)
            if ((q + 1) * MR > mc || kc < kcp) memset((char *)dst + q * pan_bytes, 0, pan_bytes);
    const uint8_t *base = (const uint8_t *)A + (size_t)p0 * d->lda + i0;
    for (int p = 0; p < kc; p += 2) {
        const uint8_t *r0 = base + (size_t)p * d->lda;
        const uint8_t *r1 = p + 1 < kc ? r0 + d->lda : NULL;
        char *slot_row = (char *)dst + (size_t)(p / 2) * MR * 4; /* in panel 0 */
        int c = 0;
        if (r1) {
            for (; c + W <= mc; c += W) {
                _Alignas(32) uint32_t s[W];
                for (int v = 0; v < W; v += 16) {
                    __m128i x0 = _mm_loadu_si128((const __m128i *)(r0 + c + v));
                    __m128i x1 = _mm_loadu_si128((const __m128i *)(r1 + c + v));
                    _mm256_store_si256((__m256i *)(s + v),
                                       _mm256_cvtepu8_epi16(_mm_unpacklo_epi8(x0, x1)));
                    _mm256_store_si256((__m256i *)(s + v + 8),
                                       _mm256_cvtepu8_epi16(_mm_unpackhi_epi8(x0, x1)));
                }
                char *o = slot_row + (size_t)(c / MR) * pan_bytes;
                for (int q = 0; q < W / MR; q++, o += pan_bytes) memcpy(o, s + q * MR, MR * 4);
            }
        }
        for (; c < mc; c++) {
            uint16_t v[2] = {r0[c], r1 ? r1[c] : 0};
            memcpy(slot_row + (c / MR) * pan_bytes + (size_t)(c % MR) * 4, v, 4);
        }
    }
}

/* 8 x 8 transpose of 32-bit elements: r[t] lane s -> r[s] lane t. */
static inline void transpose8x8_32(__m256i r[8])
{
    __m256i t[8], u[8];
    for (int i = 0; i < 4; i++) {
        t[2 * i] = _mm256_unpacklo_epi32(r[2 * i], r[2 * i + 1]);
        t[2 * i + 1] = _mm256_unpackhi_epi32(r[2 * i], r[2 * i + 1]);
    }
    for (int h = 0; h < 2; h++) { /* rows 0-3 and 4-7 */
        __m256i *tt = t + 4 * h, *uu = u + 4 * h;
        uu[0] = _mm256_unpacklo_epi64(tt[0], tt[2]);
        uu[1] = _mm256_unpackhi_epi64(tt[0], tt[2]);
        uu[2] = _mm256_unpacklo_epi64(tt[1], tt[3]);
        uu[3] = _mm256_unpackhi_epi64(tt[1], tt[3]);
    }
    for (int s = 0; s < 4; s++) {
        r[s] = _mm256_permute2x128_si256(u[s], u[4 + s], 0x20);
        r[4 + s] = _mm256_permute2x128_si256(u[s], u[4 + s], 0x31);
    }
}

/* B panels: slot (s, j) at (s * 16 + j) * 4 bytes holds op(B)[2s][j] and
 * op(B)[2s + 1][j] as s16. */
static void s16_pack_b(const sb_gemm_desc *d, const void *B, int p0, int kc, int kcp, int j0,
                       int nc, void *dst)
{
    const int NR = SB_AVX2_NR;
    const size_t pan_bytes = (size_t)NR * kcp * 2;
    int npan = (nc + NR - 1) / NR;
    if (nc % NR || kc < kcp)
        for (int q = 0; q < npan; q++)
            if ((q + 1) * NR > nc || kc < kcp) memset((char *)dst + q * pan_bytes, 0, pan_bytes);
    const int8_t *Bs = B;
    if (d->transb == 'N') {
        /* two k rows x 16 columns: interleave the bytes, sign-extend */
        for (int p = 0; p < kc; p += 2) {
            const int8_t *r0 = Bs + (size_t)(p0 + p) * d->ldb + j0;
            const int8_t *r1 = p + 1 < kc ? r0 + d->ldb : NULL;
            for (int q = 0; q < npan; q++) {
                char *o = (char *)dst + q * pan_bytes + (size_t)(p / 2) * NR * 4;
                int cols = nc - q * NR < NR ? nc - q * NR : NR;
                if (cols == NR && r1) {
                    __m128i x0 = _mm_loadu_si128((const __m128i *)(r0 + q * NR));
                    __m128i x1 = _mm_loadu_si128((const __m128i *)(r1 + q * NR));
                    _mm256_storeu_si256((__m256i *)o,
                                        _mm256_cvtepi8_epi16(_mm_unpacklo_epi8(x0, x1)));
                    _mm256_storeu_si256((__m256i *)(o + 32),
                                        _mm256_cvtepi8_epi16(_mm_unpackhi_epi8(x0, x1)));
                } else {
                    for (int j = 0; j < cols; j++) {
                        int16_t v[2] = {r0[q * NR + j], r1 ? r1[q * NR + j] : 0};
                        memcpy(o + (size_t)j * 4, v, 4);
                    }
                }
            }
        }
        return;
    }
    /* op(B) = B^T: column j's k values run along stored row j. 16 k values
     * of 8 columns widen to 8 slots each, then an 8 x 8 transpose makes
     * them 8 slot rows. */
    for (int q = 0; q < npan; q++) {
        char *pan = (char *)dst + q * pan_bytes;
        int cols = nc - q * NR < NR ? nc - q * NR : NR;
        const int8_t *col0 = Bs + (size_t)(j0 + q * NR) * d->ldb + p0;
        int p = 0;
        if (cols == NR) {
            for (; p + 16 <= kc; p += 16)
                for (int h = 0; h < NR; h += 8) {
                    __m256i r[8];
                    for (int t = 0; t < 8; t++)
                        r[t] = _mm256_cvtepi8_epi16(_mm_loadu_si128(
                            (const __m128i *)(col0 + (size_t)(h + t) * d->ldb + p)));
                    transpose8x8_32(r);
                    for (int s = 0; s < 8; s++)
                        _mm256_storeu_si256((__m256i *)(pan + ((size_t)(p / 2 + s) * NR + h) * 4),
                                            r[s]);
                }
        }
        for (int j = 0; j < cols; j++) {
            const int8_t *col = col0 + (size_t)j * d->ldb;
            for (int pp = p; pp < kc; pp++)
                ((int16_t *)pan)[((size_t)(pp / 2) * NR + j) * 2 + pp % 2] = col[pp];
        }
    }
}

const sb_ukr sb_ukr_avx2_int8[2] = SB_UKR_PAIR("avx2-int8", SB_AVX2_MR, SB_AVX2_NR, 2, 2,
                                               SB_AVX2_A_L2_PCT, s16_pack_a_rc, s16_pack_a_sm,
                                               s16_pack_b, ukr_s16_rc, ukr_s16_sm);

/* ---- the AVX-VNNI kernel's layout and packers, and its model ----------- */

void sb_avxvnni_pack_a_rc(const sb_gemm_desc *d, const void *A, int i0, int mc, int p0, int kc,
                          int kcp, void *dst)
{
    sb_pack_a_chunked(d, A, SB_SRC_U8, 0, SB_AVX2_MR, 4, i0, mc, p0, kc, kcp, dst);
}
void sb_avxvnni_pack_a_sm(const sb_gemm_desc *d, const void *A, int i0, int mc, int p0, int kc,
                          int kcp, void *dst)
{
    sb_pack_a_vnni(d, A, SB_SRC_U8, 0, SB_AVX2_MR, 4, i0, mc, p0, kc, kcp, dst);
}
void sb_avxvnni_pack_b(const sb_gemm_desc *d, const void *B, int p0, int kc, int kcp, int j0,
                       int nc, void *dst)
{
    sb_pack_b_vnni(d, B, SB_SRC_S8, 0, SB_AVX2_NR, 4, p0, kc, kcp, j0, nc, dst);
}

/* vpdpbusd exactly, on accumulators in memory (ymm0-11 are then free):
 * per 32-bit lane, the sum of four u8 x s8 products. The even and odd
 * bytes, widened to 16 bits (A zero-, B sign-extended), make two vpmaddwd
 * pairs whose products (at most 255 * 128) cannot overflow. */
#define UKR_VNM_HALF(breg, r)                        \
    "vpsllw $8, %%ymm" #breg ", %%ymm2\n\t"          \
    "vpsraw $8, %%ymm2, %%ymm2\n\t"                  \
    "vpsraw $8, %%ymm" #breg ", %%ymm3\n\t"          \
    "vpmaddwd %%ymm2, %%ymm0, %%ymm2\n\t"            \
    "vpmaddwd %%ymm3, %%ymm1, %%ymm3\n\t"            \
    "vpaddd %%ymm3, %%ymm2, %%ymm2\n\t"              \
    "vpaddd (32*" #r ")(%[acc]), %%ymm2, %%ymm2\n\t" \
    "vmovdqa %%ymm2, (32*" #r ")(%[acc])\n\t"
#undef UKR_KG
#undef UKR_ACC_MEM
#define UKR_KG 4
#define UKR_ACC_MEM 1
#define UKR_ASM_OPS(r0, r1)               \
    "vpcmpeqw %%ymm4, %%ymm4, %%ymm4\n\t" \
    "vpsrlw $8, %%ymm4, %%ymm4\n\t"       \
    "vpand %%ymm4, %%ymm14, %%ymm0\n\t"   \
    "vpsrlw $8, %%ymm14, %%ymm1\n\t" UKR_VNM_HALF(12, r0) UKR_VNM_HALF(13, r1)
#define UKR_ACHUNK 1
#define UKR_NAME ukr_vnm_rc
#include "sb_ukr_avx2_rows.inc"
#undef UKR_ACHUNK
#undef UKR_NAME
#define UKR_ACHUNK 0
#define UKR_NAME ukr_vnm_sm
#include "sb_ukr_avx2_rows.inc"
#undef UKR_ACHUNK
#undef UKR_NAME

const sb_ukr sb_ukr_avxvnni_model[2] = SB_AVXVNNI_UKR(ukr_vnm_rc, ukr_vnm_sm);

/* ---- avx2-int8 on 7-bit activations: vpmaddubsw ----------------------- */

/* vpmaddubsw multiplies u8 by s8 and adds adjacent pairs into s16 with
 * saturation; with A below 128 a pair is at most 2 * 127 * 128 = 32512, so
 * nothing saturates and the quads' sums (vpmaddwd by ones) are exact. Half
 * the multiply instructions of the s16 path per product on CPUs without
 * AVX-VNNI; used by inference's 7-bit activations (--quant row7, as
 * PyTorch's reduce_range), on the AVX-VNNI layout and packers. */
__attribute__((aligned(32), used))
const int16_t sb_avx2_u7_ones[16] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
#undef UKR_KG
#undef UKR_ACC_MEM
#undef UKR_ASM_OPS
#define UKR_KG 4
#define UKR_ACC_MEM 0
#define UKR_ASM_OPS(r0, r1)                                 \
    "vpmaddubsw %%ymm12, %%ymm14, %%ymm15\n\t"              \
    "vpmaddwd sb_avx2_u7_ones(%%rip), %%ymm15, %%ymm15\n\t" \
    "vpaddd %%ymm15, %%ymm" #r0 ", %%ymm" #r0 "\n\t"        \
    "vpmaddubsw %%ymm13, %%ymm14, %%ymm15\n\t"              \
    "vpmaddwd sb_avx2_u7_ones(%%rip), %%ymm15, %%ymm15\n\t" \
    "vpaddd %%ymm15, %%ymm" #r1 ", %%ymm" #r1 "\n\t"
#define UKR_ACHUNK 1
#define UKR_NAME ukr_u7_rc
#include "sb_ukr_avx2_rows.inc"
#undef UKR_ACHUNK
#undef UKR_NAME
#define UKR_ACHUNK 0
#define UKR_NAME ukr_u7_sm
#include "sb_ukr_avx2_rows.inc"
#undef UKR_ACHUNK
#undef UKR_NAME

const sb_ukr sb_ukr_avx2_u7[2] = SB_AVXVNNI_UKR(ukr_u7_rc, ukr_u7_sm);
