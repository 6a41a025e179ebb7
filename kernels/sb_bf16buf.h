/* sb_bf16buf: f32 matrices rounded to bf16 (nearest even) into per-thread
 * buffers, keeping their layout: what the vendor kernels' f32 entries
 * (onednn-bf16, mkl-bf16) do before calling a bf16 GEMM, the same work our
 * bf16 kernels do while packing. */
#ifndef SB_BF16BUF_H
#define SB_BF16BUF_H
#include <stdint.h>

enum { SB_BF16BUF_A = 0, SB_BF16BUF_B = 1 };
/* X: rows x cols with row stride ld. Returns the calling thread's buffer
 * `which` (valid until its next call with the same `which`), or NULL when out
 * of memory. nt threads round large matrices. */
uint16_t *sb_bf16buf_round(const float *X, int rows, int cols, int ld, int which, int nt);

#endif
