/* sb_adamw: the optimizer Hugging Face's Trainer uses by default (torch
 * AdamW: lr 5e-5, betas 0.9/0.999, eps 1e-8, weight decay 0), its linear decay
 * to zero, and gradient-norm clipping at 1.0, all over the flat buffers. */
#ifndef SB_ADAMW_H
#define SB_ADAMW_H
#include <stddef.h>
#include "sb_err.h"

typedef struct sb_adamw {
    float beta1, beta2, eps, weight_decay;
    float *m, *v; /* f32 state, as many as parameters */
    size_t n;
    long t; /* steps taken */
} sb_adamw;

int sb_adamw_init(sb_adamw *o, size_t n, sb_err *e);
void sb_adamw_free(sb_adamw *o);
/* One torch.optim.AdamW step at learning rate lr. Runs at the element-wise
 * level of sb_layers_level() (AVX-512, AVX2 or scalar): every level gives
 * the same bits. */
void sb_adamw_step(sb_adamw *o, float *params, const float *grads, float lr, int threads);
/* Global L2 norm of g; scales g by max_norm / (norm + 1e-6) when that is
 * below 1 (torch.nn.utils.clip_grad_norm_). Returns the norm before clipping. */
double sb_clip_grad_norm(float *g, size_t n, double max_norm, int threads);
/* The same clipping without touching g: the factor (<= 1) to scale it by,
 * for sb_adamw_step_scaled, which applies it on the fly (one pass over the
 * gradient less; bitwise the same update). */
float sb_clip_coef(const float *g, size_t n, double max_norm, int threads, double *norm);
void sb_adamw_step_scaled(sb_adamw *o, float *params, const float *grads, float gscale, float lr,
                          int threads);
/* LambdaLR of get_linear_schedule_with_warmup (no warmup): the rate used by
 * the step with 0-based index step of total. */
float sb_lr_linear(float lr0, long step, long total);
/* With `warmup` steps of linear warm-up first (step/warmup), then the decay
 * over the remaining total - warmup steps (HF's lr_lambda). */
float sb_lr_warmup_linear(float lr0, long step, long total, long warmup);

#endif
