/* sb_shapes: DistilBERT's shapes for everything outside the model, in one
 * place: the base configuration's dimensions (sb_model_config_base, read
 * here by the scaling model's gradient sizes) and the GEMMs of one training
 * step at batch x seq tokens, which the tuner's 'distilbert' set and the
 * sweep's default shapes (bench/sb_model_dims, for the harness) name. */
#ifndef SB_SHAPES_H
#define SB_SHAPES_H
#include "sb_model.h"
#include "sb_shape.h"

/* A transformer block's linear layers (weights out x in): the attention
 * output (D x D), the fused QKV (3D x D), the FFN up (F x D) and down
 * (D x F). */
typedef enum sb_linear { SB_LIN_ATTN_OUT, SB_LIN_QKV, SB_LIN_FFN_UP, SB_LIN_FFN_DOWN } sb_linear;
/* A linear layer's three products in a training step: forward (NT, tokens
 * x out x in), its input gradient (NN, tokens x in x out), its weight
 * gradient (TN, out x in x tokens). */
typedef enum sb_pass { SB_PASS_FORWARD, SB_PASS_DGRAD, SB_PASS_WGRAD } sb_pass;

/* Layer l's GEMM in pass p over `tokens` rows of model c. */
sb_shape sb_distilbert_linear_gemm(const sb_model_config *c, sb_linear l, sb_pass p, int tokens);

#define SB_STEP_GEMMS 12
/* One training step's GEMMs of c at batch x seq tokens, one of each shape
 * class (kernels/sb_shape_class) at the base model's sizes, in this order:
 * forward the attention output, QKV and FFN down; input gradients the
 * attention output, FFN up and FFN down; weight gradients the attention
 * output, QKV and FFN down (the other three share a class with one of
 * these); then one head's attention products, q k^T (NT seq x seq x head),
 * p v (NN seq x head x seq) and its gradient (TN seq x head x seq), which run
 * on one thread each (threads 1; the rest 0). Returns SB_STEP_GEMMS. */
int sb_distilbert_step_gemms(const sb_model_config *c, int batch, int seq,
                             sb_shape out[SB_STEP_GEMMS]);

#endif
