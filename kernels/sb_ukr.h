/* sb_ukr: the micro-kernels each ISA file exports, as the driver (sb_gemm)
 * sees them, for gemm_own.c to register (sb_kernels.def). Each is defined
 * in a file compiled with its ISA's -m flags and runs only after its
 * path's probe (sb_isa) said yes; the tile-model builds run anywhere. */
#ifndef SB_UKR_H
#define SB_UKR_H
#include "sb_gemm.h"
#include "sb_ukr_avx2.h" /* the AVX2 and AVX-VNNI ones, with their shared packers */

/* AVX-512, in pairs: [0] for op(A) = A, [1] for op(A) = A^T.
 * gemm_avx512.c, gemm_avx512bf16.c (f32 in, rounded while packing; and
 * _in: bf16 in), gemm_vnni.c. */
extern const sb_ukr sb_ukr_avx512_f32[2], sb_ukr_avx512_bf16[2], sb_ukr_avx512_bf16_in[2],
    sb_ukr_vnni_int8[2];
/* AMX (gemm_amx.c) and the same tiling on the functional tile model
 * (gemm_amx_model.c), one for both op(A): built once from sb_amx_tiles.inc. */
extern const sb_ukr sb_ukr_amx_bf16, sb_ukr_amx_bf16_in, sb_ukr_amx_int8;
extern const sb_ukr sb_ukr_amxm_bf16, sb_ukr_amxm_bf16_in, sb_ukr_amxm_int8;

#endif
