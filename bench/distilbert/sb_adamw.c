#include "sb_adamw.h"
#include <immintrin.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include "sb_layers.h"
#include "sb_mem.h"

#define NT(t) ((t) > 0 ? (t) : omp_get_max_threads())

int sb_adamw_init(sb_adamw *o, size_t n, sb_err *e)
{
    *o = (sb_adamw){.beta1 = 0.9f, .beta2 = 0.999f, .eps = 1e-8f, .weight_decay = 0.0f, .n = n};
    o->m = sb_alloc_big(n * sizeof(float));
    o->v = sb_alloc_big(n * sizeof(float));
    if (!o->m || !o->v) {
        sb_adamw_free(o);
        return sb_errf(e, SB_EFAIL, "AdamW: out of memory for %zu parameters", n);
    }
/* Zeroed here, by the threads that will update them: the pages are then
     * in place (and on their threads' NUMA nodes) before the first step. */
#pragma omp parallel for simd schedule(static)
    for (size_t i = 0; i < n; i++) o->m[i] = o->v[i] = 0.0f;
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

typedef struct {
    float gscale, b1, b2, c1, c2, eps, step, decay, bc2_sqrt;
} adamw_k;

/* One element, in torch's single-tensor AdamW order. */
static inline void adamw_one(const adamw_k *k, float *p, const float *g, float *m, float *v)
{
    float gi = *g * k->gscale;
    *p *= k->decay;
    *m = *m * k->b1 + k->c1 * gi;
    *v = *v * k->b2 + k->c2 * gi * gi;
    float denom = sqrtf(*v) / k->bc2_sqrt + k->eps;
    *p -= k->step * (*m / denom);
}

/* The same operations 16 at a time, each rounded on its own (no FMA), so
 * both paths give the same bits. */
#define SB_AVX512 __attribute__((target("avx512f")))
SB_AVX512 static void adamw_avx512(const adamw_k *k, float *p, const float *g, float *m, float *v,
                                   size_t n)
{
    const __m512 gs = _mm512_set1_ps(k->gscale), b1 = _mm512_set1_ps(k->b1),
                 b2 = _mm512_set1_ps(k->b2), c1 = _mm512_set1_ps(k->c1), c2 = _mm512_set1_ps(k->c2),
                 eps = _mm512_set1_ps(k->eps), st = _mm512_set1_ps(k->step),
                 dc = _mm512_set1_ps(k->decay), bc = _mm512_set1_ps(k->bc2_sqrt);
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m512 gi = _mm512_mul_ps(_mm512_loadu_ps(g + i), gs);
        __m512 pi = _mm512_mul_ps(_mm512_loadu_ps(p + i), dc);
        __m512 mi = _mm512_add_ps(_mm512_mul_ps(_mm512_loadu_ps(m + i), b1), _mm512_mul_ps(c1, gi));
        __m512 vi = _mm512_add_ps(_mm512_mul_ps(_mm512_loadu_ps(v + i), b2),
                                  _mm512_mul_ps(_mm512_mul_ps(c2, gi), gi));
        __m512 den = _mm512_add_ps(_mm512_div_ps(_mm512_sqrt_ps(vi), bc), eps);
        pi = _mm512_sub_ps(pi, _mm512_mul_ps(st, _mm512_div_ps(mi, den)));
        _mm512_storeu_ps(m + i, mi);
        _mm512_storeu_ps(v + i, vi);
        _mm512_storeu_ps(p + i, pi);
    }
    for (; i < n; i++) adamw_one(k, p + i, g + i, m + i, v + i);
}

/* And 8 at a time for AVX2 CPUs (the file is built with -ffp-contract=off,
 * so neither path fuses a multiply into an add). */
#define SB_AVX2 __attribute__((target("avx2")))
SB_AVX2 static void adamw_avx2(const adamw_k *k, float *p, const float *g, float *m, float *v,
                               size_t n)
{
    const __m256 gs = _mm256_set1_ps(k->gscale), b1 = _mm256_set1_ps(k->b1),
                 b2 = _mm256_set1_ps(k->b2), c1 = _mm256_set1_ps(k->c1), c2 = _mm256_set1_ps(k->c2),
                 eps = _mm256_set1_ps(k->eps), st = _mm256_set1_ps(k->step),
                 dc = _mm256_set1_ps(k->decay), bc = _mm256_set1_ps(k->bc2_sqrt);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 gi = _mm256_mul_ps(_mm256_loadu_ps(g + i), gs);
        __m256 pi = _mm256_mul_ps(_mm256_loadu_ps(p + i), dc);
        __m256 mi = _mm256_add_ps(_mm256_mul_ps(_mm256_loadu_ps(m + i), b1), _mm256_mul_ps(c1, gi));
        __m256 vi = _mm256_add_ps(_mm256_mul_ps(_mm256_loadu_ps(v + i), b2),
                                  _mm256_mul_ps(_mm256_mul_ps(c2, gi), gi));
        __m256 den = _mm256_add_ps(_mm256_div_ps(_mm256_sqrt_ps(vi), bc), eps);
        pi = _mm256_sub_ps(pi, _mm256_mul_ps(st, _mm256_div_ps(mi, den)));
        _mm256_storeu_ps(m + i, mi);
        _mm256_storeu_ps(v + i, vi);
        _mm256_storeu_ps(p + i, pi);
    }
    for (; i < n; i++) adamw_one(k, p + i, g + i, m + i, v + i);
}

void sb_adamw_step_scaled(sb_adamw *o, float *p, const float *g, float gscale, float lr,
                          int threads)
{
    o->t++;
    /* Same operation order as torch's single-tensor AdamW, so ten steps agree
     * with it to rounding; g x gscale is the product clipping would have
     * stored in the gradient, so fusing it changes no bit. */
    adamw_k k = {.gscale = gscale,
                 .b1 = o->beta1,
                 .b2 = o->beta2,
                 .c1 = 1.0f - o->beta1,
                 .c2 = 1.0f - o->beta2,
                 .eps = o->eps,
                 .step = lr / (1.0f - powf(o->beta1, (float)o->t)),
                 .decay = 1.0f - lr * o->weight_decay,
                 .bc2_sqrt = sqrtf(1.0f - powf(o->beta2, (float)o->t))};
    float *m = o->m, *v = o->v;
    const size_t n = o->n;
    /* the element-wise code's level: AVX-512, AVX2 or scalar, all bitwise alike */
    const int lvl = sb_layers_level();
#pragma omp parallel num_threads(NT(threads))
    {
        /* contiguous per-thread ranges, cut at multiples of 16 */
        size_t nt = (size_t)omp_get_num_threads(), me = (size_t)omp_get_thread_num();
        size_t per = (n / nt + 15) & ~(size_t)15;
        size_t lo = me * per < n ? me * per : n, hi = lo + per < n ? lo + per : n;
        if (lvl == SB_LAYERS_AVX512) {
            adamw_avx512(&k, p + lo, g + lo, m + lo, v + lo, hi - lo);
        } else if (lvl == SB_LAYERS_AVX2) {
            adamw_avx2(&k, p + lo, g + lo, m + lo, v + lo, hi - lo);
        } else {
            for (size_t i = lo; i < hi; i++) adamw_one(&k, p + i, g + i, m + i, v + i);
        }
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
