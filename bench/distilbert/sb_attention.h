/* sb_attention: DistilBERT's multi-head self-attention, forward and
 * backward (training) and the inference path, every product through the
 * context's kernel (sb_layers' sb_lctx and sb_matmul), softmax and dropout
 * masks on the element-wise level of sb_layers. */
#ifndef SB_ATTENTION_H
#define SB_ATTENTION_H
#include <stddef.h>
#include <stdint.h>
#include "sb_err.h"
#include "sb_layers.h"

/* attention: qkv[B*S,3D] (q | k | v, head h in columns h*D/H..), mask[B*S] (1 = token)
 *   -> probs[B,H,S,S] (softmax of q k^T / sqrt(D/H) before dropout; masked keys 0),
 *      bits[sb_attention_bits_words(B,H,S)] (the dropout's keep bits, row by row;
 *      untouched when p_drop is 0), ctx[B*S,D] = dropout(probs) v.
 *   Keys after a sequence's last real token weigh exactly 0 and are skipped
 *   (unless c->all_keys): their columns of probs and bits are not written (and
 *   not read back); the result is the same bit for bit.
 *   probs NULL (forward only, p_drop 0): P is not written anywhere and each
 *   output row is scaled by 1 / (its softmax sum) after the product with v
 *   (the same ctx up to rounding, one pass over the scores fewer).
 *   scratch: threads * (S*S + 3*S) floats. */
size_t sb_attention_bits_words(int B, int H, int S);
/* Keys a sequence's attention multiplies (mask[S]): 1 + its last real token,
 * or S with c->all_keys. */
int sb_attention_keys(const sb_lctx *c, const uint8_t *mask, int S);
/* Query rows a block of the inference attention (f32 and sb_qattn): its
 * scores (rows x n f32) take at most half of L2, so the softmax and the
 * product with v read them from there instead of from L3 (a 384 x 384 score
 * matrix, 576 KiB, is over a Zen 3 core's 512 KiB); a multiple of 48 rows
 * (whole register blocks of 6, 8 and 16 rows), at least 48, at most S.
 * SB_ATTN_ROWS overrides it (experiments). */
int sb_attention_block_rows(int S, int n);
/* Tests: blocks of `rows` from now on (as SB_ATTN_ROWS); 0: the automatic
 * choice. Not thread-safe: call it between layers. */
void sb_attention_set_block_rows(int rows);
/* Inference softmax of one row of scores s[n] (in place): the exponentials
 * exp(s - max) times keep[j] (0 for a padded key; bias[j] is 0 or -inf),
 * left unnormalised, each in [0, 1] with 1 at the maximum; returns 1 / their
 * sum (0 for an all-zero row). The f32 attention's own numbers. */
float sb_softmax_row_infer(float *s, const float *keep, const float *bias, int n);
int sb_attention_forward(const sb_lctx *c, float *ctx, float *probs, uint32_t *bits,
                         const float *qkv, const uint8_t *mask, int B, int S, int D, int H,
                         float p_drop, uint64_t key, float *scratch, sb_err *e);
/* dqkv[B*S,3D] written from dctx[B*S,D], with forward's probs, bits and mask;
 * scratch: threads * 2*S*S floats */
int sb_attention_backward(const sb_lctx *c, float *dqkv, const float *dctx, const float *qkv,
                          const float *probs, const uint32_t *bits, const uint8_t *mask, int B,
                          int S, int D, int H, float p_drop, float *scratch, sb_err *e);

#endif
