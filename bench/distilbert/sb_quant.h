/* sb_quant: dynamic int8 quantisation of linear layers, as PyTorch's
 * quantize_dynamic does it: weights symmetric s8 per output channel,
 * quantised once; activations u8 with a scale and zero point computed at run
 * time from each row's (or the whole tensor's) range. The product runs on an
 * int8 kernel into s32 and is turned back into f32 where the kernel writes C
 * (sb_dequant in sb_kernel.h):
 *   y[i][j] = a_scale[i] w_scale[j] (acc[i][j] - a_zp[i] colsum_w[j]) + b[j]. */
#ifndef SB_QUANT_H
#define SB_QUANT_H
#include <stddef.h>
#include <stdint.h>
#include "sb_err.h"
#include "sb_kernel.h"

/* Activations: a scale and zero point per row or per tensor, onto 0..255, or
 * with SB_QUANT_7BIT onto 0..127 (PyTorch's reduce_range): what avx2-int8's
 * vpmaddubsw path multiplies exactly on CPUs without AVX-VNNI. */
typedef enum {
    SB_QUANT_PER_ROW = 0,
    SB_QUANT_PER_TENSOR = 1,
    SB_QUANT_7BIT = 2, /* a flag, with either of the above */
} sb_quant_mode;
static inline int sb_quant_qmax(sb_quant_mode m) { return m & SB_QUANT_7BIT ? 127 : 255; }
/* "row", "tensor", "row7", "tensor7" -> 0 and *m; -1 for anything else */
int sb_quant_mode_parse(const char *s, sb_quant_mode *m);
const char *sb_quant_mode_name(sb_quant_mode m);

/* A quantised linear layer W[out,in], packed for one int8 kernel. */
typedef struct sb_qlinear {
    int in, out;
    int8_t *wq;          /* [out,in], round(W / w_scale) in [-127, 127] */
    float *w_scale;      /* [out] max |W[j]| / 127 (1 for an all-zero row) */
    int32_t *colsum;     /* [out] sum over in of wq[j] */
    const float *bias;   /* [out] (the model's, not owned) or NULL */
    sb_packed_b *packed; /* wq packed by the kernel (NULL: the kernel packs each call) */
    const sb_kernel *kernel;
} sb_qlinear;

/* Quantises W[out,in] per output channel and packs it for kernel k (an int8
 * kernel). SB_EUSAGE when W holds NaN or Inf (named by `layer`), or when the
 * kernel is not int8. */
int sb_qlinear_init(sb_qlinear *q, const sb_kernel *k, const float *W, const float *bias, int in,
                    int out, int threads, const char *layer, sb_err *e);
void sb_qlinear_free(sb_qlinear *q);

/* x[N,in] -> u8 xq[N,in] with scale[N] and zp[N] (per tensor: every row gets
 * the same pair). The range always includes 0 (zero is exact); an all-zero
 * row gets scale 1, zero point 0. NaN or Inf in x: SB_EUSAGE naming `layer`
 * and the row, nothing clamped. */
int sb_quant_activations(const float *x, int N, int in, sb_quant_mode mode, uint8_t *xq,
                         float *scale, int32_t *zp, int threads, const char *layer, sb_err *e);
/* One row x[in] -> u8 xq[in] onto 0..qmax with its scale and zero point, as
 * the per-row mode does it; 0 (nothing written) when x holds NaN or Inf. */
int sb_quant_row(const float *x, int in, int qmax, uint8_t *xq, float *scale, int32_t *zp);
/* The same (per row; mode's 7-bit flag kept) of gelu(x) (sb_gelu_row's numbers), gelu(x) never written
 * out: each row goes through GELU into a per-thread buffer in cache. */
int sb_quant_activations_gelu(const float *x, int N, int in, sb_quant_mode mode, uint8_t *xq,
                              float *scale, int32_t *zp, int threads, const char *layer, sb_err *e);

/* Scratch for one call of sb_qlinear_forward at N rows: the caller's
 * u8 [N*in] + scale [N] + zp [N]. */
size_t sb_qlinear_scratch_bytes(int N, int in);

/* y[N,out] = dequant(quant(x) . wq^T) + bias, through the kernel (the epilogue
 * fused where it can be). scratch: sb_qlinear_scratch_bytes(N, in) bytes,
 * 64-byte aligned. */
int sb_qlinear_forward(const sb_qlinear *q, float *y, const float *x, int N, sb_quant_mode mode,
                       void *scratch, int threads, const char *layer, sb_err *e);
/* y = dequant(quant(gelu(x)) . wq^T) + bias: per row, GELU fused into the
 * quantisation (one read of x); per tensor, gelu(x) written to tmp[N*in]. */
int sb_qlinear_forward_gelu(const sb_qlinear *q, float *y, const float *x, float *tmp, int N,
                            sb_quant_mode mode, void *scratch, int threads, const char *layer,
                            sb_err *e);

#endif
