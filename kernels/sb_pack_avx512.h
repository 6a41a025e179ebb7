/* sb_pack_avx512: the AMX kernels' A packer in AVX-512 (F/BW) code, bit
 * for bit what sb_pack_a_tiles (sb_pack.c, the scalar/SSE2 reference)
 * writes: the a_tiles layout (sb_gemm.h) from op(A) = A or A^T, f32 ->
 * bf16 rounded to nearest even (NaN stays a quiet NaN; denormals kept, not
 * flushed as vcvtneps2bf16 would), bf16 -> bf16, u8/s8 -> u8/s8. Runs only
 * where AVX-512 does (after the AMX probe, or the tile model's).
 *   op(A) = A:   a row's 64-byte k chunk is one (masked at the k tail) load,
 *                converted, and one store;
 *   op(A) = A^T: k runs down the stored rows: for 16 rows i and the 16 slots
 *                of a chunk, kg stored rows make one slot vector (lane i),
 *                and a 16x16 dword transpose turns the 16 slot vectors into
 *                the 16 rows' 64-byte chunk rows. */
#ifndef SB_PACK_AVX512_H
#define SB_PACK_AVX512_H
#include "sb_pack.h"

/* The contract of sb_pack_a_tiles, for mr a multiple of 16 (AMX: 32) and
 * kcp a multiple of 16 * kg. */
void sb_pack_a_tiles_avx512(const sb_gemm_desc *d, const void *A, sb_src_type src, int dst_bf16,
                            int mr, int kg, int i0, int mc, int p0, int kc, int kcp, void *dst);

/* The contract of sb_pack_b_vnni, for nr a multiple of 16 (AMX: 32) and
 * kcp a multiple of 16 * kg: op(B) = B row by row (kg rows or-ed into
 * slots, 16 columns a store), op(B) = B^T through the same transpose. */
void sb_pack_b_vnni_avx512(const sb_gemm_desc *d, const void *B, sb_src_type src, int dst_bf16,
                           int nr, int kg, int p0, int kc, int kcp, int j0, int nc, void *dst);

/* rows x cols of X (row stride ld) rounded as sb_f32_to_bf16 does, into o
 * with the same stride: sb_bf16buf's AVX-512 path. */
void sb_round_bf16_rows_avx512(const float *X, int rows, int cols, int ld, uint16_t *o);

#endif
