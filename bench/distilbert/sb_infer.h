/* sb_infer: forward-only DistilBERT question answering on any kernel, the one
 * path `sprbench predict` and `sprbench infer` share. Attached to a model
 * (sb_model's forward stays the forward), it hands every linear layer a
 * weight prepared once for the kernel:
 *   f32 / bf16 kernels: the weight packed by the kernel (pack_b);
 *   int8 kernels: the weight quantised per output channel to s8 and packed,
 *     the activations quantised to u8 at run time (sb_quant), the product's
 *     dequantisation, zero-point correction and bias fused where the kernel
 *     writes C.
 * The attention products and softmax run on an f32 kernel for an int8 kernel
 * (sb_infer_attn_kernel), on the kernel itself otherwise (bf16 on bf16). */
#ifndef SB_INFER_H
#define SB_INFER_H
#include "sb_err.h"
#include "sb_features.h"
#include "sb_kernel.h"
#include "sb_model.h"
#include "sb_quant.h"
#include "sb_squad_eval.h"

typedef struct sb_infer sb_infer;

/* The kernel the attention products run on for k: k itself for f32/bf16; for
 * int8 the f32 kernel of the same instruction set (avx2-int8 -> avx2-f32,
 * vnni-int8 / amx-int8 -> avx512-f32, a vendor's int8 -> its f32: onednn-int8 ->
 * onednn-f32, mkl-int8 -> mkl-f32), or failing
 * that the best f32 kernel this machine runs. NULL when none runs. */
const sb_kernel *sb_infer_attn_kernel(const sb_kernel *k);

/* Prepares every linear layer of m for kernel k (quant: int8 only) and
 * installs the path in m->lc (kernel, threads kept). SB_EUSAGE for a layer the
 * kernel cannot take (e.g. a weight holding NaN or Inf, named); SB_ESKIP when
 * no f32 kernel runs the attention of an int8 kernel. */
int sb_infer_attach(sb_model *m, const sb_kernel *k, sb_quant_mode quant, sb_infer **out,
                    sb_err *e);
/* Int8 kernels: the attention products in int8 too (sb_qattn), with the
 * activations' bit width (7 bits under SB_QUANT_7BIT), after the attach and
 * the activations' allocation. SB_EUSAGE for a kernel that is not int8. */
int sb_infer_int8_attention(sb_model *m, sb_infer *in, sb_err *e);
/* Restores m->lc as before the attach and frees the prepared weights. */
void sb_infer_detach(sb_model *m, sb_infer *in);
/* The kernel running the attention products under this path. */
const sb_kernel *sb_infer_attn(const sb_infer *in);

/* Latency at batch 1: lat[q] = seconds of the forward passes over the
 * features of question q (its windows, one at a time), for q0 <= q < q1
 * (features in example order, as sb_features_build makes them). */
int sb_infer_latency(sb_model *m, const sb_features *f, int q0, int q1, double *lat, sb_err *e);

/* Share (0..1) of questions whose predicted texts are identical in a and b
 * (matched by id). */
double sb_infer_agreement(const sb_squad_predictions *a, const sb_squad_predictions *b);

#endif
