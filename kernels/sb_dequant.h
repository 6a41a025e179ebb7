/* sb_dequant: the int8 GEMM's dequantisation epilogue (sb_dequant in
 * sb_kernel.h) on one s32 tile of C, turned into f32 in place, per
 * instruction set; the driver picks the best this CPU runs (sb_cpu_get, so
 * the SB_FORCE_NO_* variables reach it). Rounding may differ by an ulp
 * between the sets (AVX2/AVX-512 fuse the bias add). */
#ifndef SB_DEQUANT_H
#define SB_DEQUANT_H
#include "sb_kernel.h"

typedef void (*sb_dequant_tile_fn)(const sb_dequant *q, void *C, int ldc, int i0, int j0, int mre,
                                   int nre);
void sb_dequant_tile_avx512(const sb_dequant *q, void *C, int ldc, int i0, int j0, int mre,
                            int nre);
void sb_dequant_tile_avx2(const sb_dequant *q, void *C, int ldc, int i0, int j0, int mre, int nre);

#endif
