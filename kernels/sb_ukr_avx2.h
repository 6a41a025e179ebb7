/* sb_ukr_avx2: the AVX2 micro-kernels (gemm_avx2.c, gemm_avxvnni.c) as the
 * driver sees them, for gemm_own.c to register, and the packers that the
 * AVX-VNNI int8 kernel shares with its model build (so a machine without
 * AVX-VNNI still tests every step of that kernel but the instruction).
 * Everything here runs only after probe_avx2 (gemm_own.c) said yes; the
 * AVX-VNNI descriptor only where the CPU also has AVX-VNNI. */
#ifndef SB_UKR_AVX2_H
#define SB_UKR_AVX2_H
#include "sb_gemm.h"

/* Register blocks: 6 rows x 16 columns = 12 ymm accumulators. */
#define SB_AVX2_MR 6
#define SB_AVX2_NR 16

/* [0]: op(A) = A (row chunks), [1]: op(A) = A^T (slot-major), as avx512-f32. */
extern const sb_ukr sb_ukr_avx2_f32[2];
/* u8 x s8 -> s32 exactly: both widened to s16 while packing, vpmaddwd + vpaddd. */
extern const sb_ukr sb_ukr_avx2_int8[2];
/* u8 x s8 quads, VEX vpdpbusd (AVX-VNNI; gemm_avxvnni.c). */
extern const sb_ukr sb_ukr_avxvnni_int8[2];
/* The AVX-VNNI kernel's packing, layout and loop with vpdpbusd computed from
 * AVX2 instructions (exactly): for tests on machines without AVX-VNNI. */
extern const sb_ukr sb_ukr_avxvnni_model[2];
/* The same layout on AVX2 for A below 128 only (7-bit activations):
 * vpmaddubsw + vpmaddwd by ones, exact there, faster than the s16 path. */
extern const sb_ukr sb_ukr_avx2_u7[2];

/* The AVX-VNNI layout (k in quads, 4 x u8 / 4 x s8 per 32-bit slot),
 * shared by the real kernel and its model. */
void sb_avxvnni_pack_a_rc(const sb_gemm_desc *d, const void *A, int i0, int mc, int p0, int kc,
                          int kcp, void *dst);
void sb_avxvnni_pack_a_sm(const sb_gemm_desc *d, const void *A, int i0, int mc, int p0, int kc,
                          int kcp, void *dst);
void sb_avxvnni_pack_b(const sb_gemm_desc *d, const void *B, int p0, int kc, int kcp, int j0,
                       int nc, void *dst);
#define SB_AVXVNNI_UKR(kern_rc, kern_sm)                                            \
    SB_UKR_PAIR("avx2-int8", SB_AVX2_MR, SB_AVX2_NR, 4, 1, 0, sb_avxvnni_pack_a_rc, \
                sb_avxvnni_pack_a_sm, sb_avxvnni_pack_b, kern_rc, kern_sm)

#endif
