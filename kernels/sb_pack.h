/* sb_pack: the generic packers of the GEMM driver (sb_gemm): op(A) and
 * op(B) blocks into the packed panels the micro-kernels read, converting on
 * the way (f32 -> f32, f32 -> bf16 rounded to nearest even, bf16 -> bf16,
 * u8 -> u8, s8 -> s8). Every packed layout is made of 32-bit slots (1 f32,
 * 2 bf16 or 4 int8 k values). Baseline x86-64 code (SSE2): safe to run
 * before any probe. The layouts are described in sb_gemm.h. */
#ifndef SB_PACK_H
#define SB_PACK_H
#include <stddef.h>
#include "sb_kernel.h"

/* What the packers read: the caller's element type. */
typedef enum { SB_SRC_F32, SB_SRC_BF16, SB_SRC_U8, SB_SRC_S8 } sb_src_type;

/* f32 -> bf16 bits, round to nearest even; NaN stays NaN (quiet). */
static inline unsigned short sb_f32_to_bf16(float f)
{
    union {
        float f;
        unsigned u;
    } v = {f};
    if ((v.u & 0x7f800000u) == 0x7f800000u && (v.u & 0x007fffffu))
        return (unsigned short)((v.u >> 16) | 0x40);
    v.u += 0x7fffu + ((v.u >> 16) & 1u);
    return (unsigned short)(v.u >> 16);
}
static inline float sb_bf16_to_f32(unsigned short h)
{
    union {
        unsigned u;
        float f;
    } v = {(unsigned)h << 16};
    return v.f;
}

/* Generic packers, parameterised by the source type and the destination
 * element: f32 -> f32, f32 -> bf16 (round to nearest even), bf16 -> bf16,
 * u8 -> u8, s8 -> s8. a_vnni: panel element (i, p) at ((p/kg)*mr + i)*kg + p%kg.
 */
void sb_pack_a_vnni(const sb_gemm_desc *d, const void *A, sb_src_type src, int dst_bf16, int mr,
                    int kg, int i0, int mc, int p0, int kc, int kcp, void *dst);
/* a_chunked (op(A) = A only): panel element (i, p) in 16-slot row chunks,
 * slot s of row i at ((s/16)*mr + i)*64 + (s%16)*4 bytes (kcp a multiple of 16*kg). */
void sb_pack_a_chunked(const sb_gemm_desc *d, const void *A, sb_src_type src, int dst_bf16, int mr,
                       int kg, int i0, int mc, int p0, int kc, int kcp, void *dst);
/* a_tiles (AMX): the a_chunked layout from op(A) = A or A^T. With mr = 32, a
 * panel's k step (64 bytes of k) is two tiles of 16 rows x 64 bytes, one
 * after the other: 2 KB read in order. */
void sb_pack_a_tiles(const sb_gemm_desc *d, const void *A, sb_src_type src, int dst_bf16, int mr,
                     int kg, int i0, int mc, int p0, int kc, int kcp, void *dst);
void sb_pack_b_vnni(const sb_gemm_desc *d, const void *B, sb_src_type src, int dst_bf16, int nr,
                    int kg, int p0, int kc, int kcp, int j0, int nc, void *dst);

#endif
