#include "sb_adamw.h"
#include <math.h>
#include <omp.h>
#include <stdlib.h>

#define NT(t) ((t) > 0 ? (t) : omp_get_max_threads())

int sb_adamw_init(sb_adamw *o, size_t n, sb_err *e)
{
    *o = (sb_adamw){.beta1 = 0.9f, .beta2 = 0.999f, .eps = 1e-8f, .weight_decay = 0.0f, .n = n};
    o->m = calloc(n, sizeof(float));
    o->v = calloc(n, sizeof(float));
    if (!o->m || !o->v) {
        sb_adamw_free(o);
        return sb_errf(e, SB_EFAIL, "AdamW: out of memory for %zu parameters", n);
    }
    return SB_OK;
}

void sb_adamw_free(sb_adamw *o)
{
    free(o->m);
    free(o->v);
    o->m = o->v = NULL;
}

void sb_adamw_step(sb_adamw *o, float *p, const float *g, float lr, int threads)
{
    sb_adamw_step_scaled(o, p, g, 1.0f, lr, threads);
}

void sb_adamw_step_scaled(sb_adamw *o, float *p, const float *g, float gscale, float lr,
                          int threads)
{
    o->t++;
    /* Same operation order as torch's single-tensor AdamW, so ten steps agree
     * with it to rounding; g x gscale is the product clipping would have
     * stored in the gradient, so fusing it changes no bit. */
    float b1 = o->beta1, b2 = o->beta2, eps = o->eps;
    float bc1 = 1.0f - powf(b1, (float)o->t);
    float bc2_sqrt = sqrtf(1.0f - powf(b2, (float)o->t));
    float step = lr / bc1, decay = 1.0f - lr * o->weight_decay;
    float *m = o->m, *v = o->v;
    #pragma omp parallel for simd schedule(static) num_threads(NT(threads))
    for (size_t i = 0; i < o->n; i++) {
        float gi = g[i] * gscale;
        p[i] *= decay;
        m[i] = m[i] * b1 + (1.0f - b1) * gi;
        v[i] = v[i] * b2 + (1.0f - b2) * gi * gi;
        float denom = sqrtf(v[i]) / bc2_sqrt + eps;
        p[i] -= step * (m[i] / denom);
    }
}

float sb_clip_coef(const float *g, size_t n, double max_norm, int threads, double *norm_out)
{
    double ss = 0;
    #pragma omp parallel for simd reduction(+ : ss) schedule(static) num_threads(NT(threads))
    for (size_t i = 0; i < n; i++) ss += (double)g[i] * g[i];
    double norm = sqrt(ss);
    if (norm_out) *norm_out = norm;
    double coef = max_norm / (norm + 1e-6);
    return coef < 1.0 ? (float)coef : 1.0f;
}

double sb_clip_grad_norm(float *g, size_t n, double max_norm, int threads)
{
    double norm;
    float cf = sb_clip_coef(g, n, max_norm, threads, &norm);
    if (cf < 1.0f) {
        #pragma omp parallel for simd schedule(static) num_threads(NT(threads))
        for (size_t i = 0; i < n; i++) g[i] *= cf;
    }
    return norm;
}

float sb_lr_linear(float lr0, long step, long total)
{
    if (total <= 0) return lr0;
    double f = (double)(total - step) / (double)total;
    return (float)(lr0 * (f > 0 ? f : 0));
}

float sb_lr_warmup_linear(float lr0, long step, long total, long warmup)
{
    if (warmup <= 0) return sb_lr_linear(lr0, step, total);
    if (step < warmup) return (float)(lr0 * (double)step / (double)warmup);
    double rest = (double)(total - warmup);
    double f = rest > 0 ? (double)(total - step) / rest : 0;
    return (float)(lr0 * (f > 0 ? f : 0));
}
