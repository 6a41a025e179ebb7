/* sb_qattn: inference attention with both products in int8, as IPEX's int8
 * recipe runs BERT's attention (its quantized_sdp), on any int8 kernel.
 * The layer's q, k and v are quantised first, in one pass over the token
 * rows; then per sequence and head, with n keys (sb_attention_keys):
 *   scores[S,n] = Q K^T / sqrt(dh): Q u8 per row (a scale and zero point
 *     each, onto 0..qmax), K s8 symmetric per key; the scaling, zero-point
 *     correction and 1/sqrt(dh) in the kernel's dequantisation epilogue;
 *   softmax as the f32 path computes it (sb_softmax_row_infer), its
 *     unnormalised exponentials in [0, 1] rounded onto 0..qmax (u8, zero
 *     point 0, scale 1/qmax);
 *   ctx[S,dh] = P V: V s8 symmetric per channel (over the sequence's n
 *     keys); each row's
 *     1/qmax and 1/sum and each channel's scale in the epilogue.
 * qmax is 127 with 7-bit activations (avx2-int8 then multiplies with
 * vpmaddubsw), else 255. Forward only: nothing is kept for a backward. */
#ifndef SB_QATTN_H
#define SB_QATTN_H
#include <stdint.h>
#include "sb_err.h"
#include "sb_kernel.h"
#include "sb_layers.h"

typedef struct sb_qattn sb_qattn;

/* For batches of up to max_batch sequences of max_seq positions, model
 * width D in H heads, on int8 kernel k (single-threaded per head, heads
 * spread over `threads`). SB_EUSAGE when k is not int8 or the shape is bad. */
int sb_qattn_create(const sb_kernel *k, int qmax, int max_batch, int max_seq, int D, int H,
                    int threads, sb_qattn **out, sb_err *e);
void sb_qattn_free(sb_qattn *qa);

/* ctx[B*S, D] (heads side by side) from qkv[B*S, 3D] and mask[B*S]: the
 * sb_lctx attention hook (user = the sb_qattn). SB_EUSAGE for a batch, seq,
 * D or H not as created; SB_EFAIL for NaN or Inf in q, k or v (named by
 * sequence and position; v only over the keys used). */
int sb_qattn_forward(void *qa, const sb_lctx *c, float *ctx, const float *qkv, const uint8_t *mask,
                     int B, int S, int D, int H, sb_err *e);

#endif
