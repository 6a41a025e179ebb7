/* Finite-difference gradient checks for every layer of sb_layers: each layer's
 * backward must agree with central differences of a random projection of its
 * forward output (objective = sum r .* y, so dy = r). They run at every
 * element-wise level the machine has (AVX-512, AVX2, scalar), each vector
 * level is compared with the scalar one, and the automatic choice must be
 * the one the CPU and the SB_FORCE_NO_* variables call for. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "train_testutil.h"
#include "sb_cpu.h"
#include "sb_attention.h"
#include "sb_layers.h"

static int g_fail;
static sb_lctx g_lc;

static void fill(float *x, size_t n, uint64_t key, float scale)
{
    for (size_t i = 0; i < n; i++) x[i] = scale * sb_rng_normal(key, i);
}

typedef double (*objective_fn)(void *st);

/* Checks analytic grad[n] of x[n] against central differences of f. */
static void check(const char *what, objective_fn f, void *st, float *x, const float *grad, size_t n,
                  float h)
{
    double worst = 0;
    size_t worst_i = 0;
    size_t stride = n > 60 ? n / 60 : 1; /* a spread of elements keeps it fast */
    for (size_t i = 0; i < n; i += stride) {
        float keep = x[i];
        x[i] = keep + h;
        double fp = f(st);
        x[i] = keep - h;
        double fm = f(st);
        x[i] = keep;
        double num = (fp - fm) / (2.0 * h), ana = grad[i];
        double err = fabs(num - ana) / fmax(fabs(num) + fabs(ana), 1e-2);
        if (err > worst) {
            worst = err;
            worst_i = i;
        }
    }
    int ok = worst < 1e-2;
    printf("%-28s n=%-6zu worst rel err %.2e at %zu %s\n", what, n, worst, worst_i,
           ok ? "ok" : "FAIL");
    if (!ok) g_fail = 1;
}

static double dot(const float *a, const float *b, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++) s += (double)a[i] * b[i];
    return s;
}

/* ---- embedding */
typedef struct {
    int B, S, D, V, P;
    int32_t *ids;
    float *wte, *wpe, *y, *r;
} emb_st;
static double emb_f(void *v)
{
    emb_st *s = v;
    sb_embedding_forward(s->y, s->ids, s->wte, s->wpe, s->B, s->S, s->D, 0);
    return dot(s->y, s->r, (size_t)s->B * s->S * s->D);
}
static void test_embedding(void)
{
    emb_st s = {.B = 2, .S = 5, .D = 6, .V = 7, .P = 8};
    int N = s.B * s.S;
    int32_t ids[10] = {1, 3, 3, 0, 6, 2, 0, 0, 5, 3};
    s.ids = ids;
    s.wte = malloc(sizeof(float) * s.V * s.D);
    s.wpe = malloc(sizeof(float) * s.P * s.D);
    s.y = malloc(sizeof(float) * N * s.D);
    s.r = malloc(sizeof(float) * N * s.D);
    float *dwte = calloc(s.V * s.D, sizeof(float)), *dwpe = calloc(s.P * s.D, sizeof(float));
    fill(s.wte, s.V * s.D, 1, 1);
    fill(s.wpe, s.P * s.D, 2, 1);
    fill(s.r, N * s.D, 3, 1);
    sb_embedding_backward(dwte, dwpe, s.r, ids, s.B, s.S, s.D, -1, 0);
    check("embedding dwte", emb_f, &s, s.wte, dwte, s.V * s.D, 1e-2f);
    check("embedding dwpe", emb_f, &s, s.wpe, dwpe, s.P * s.D, 1e-2f);
    /* padding_idx: the pad row gets no gradient at all */
    memset(dwte, 0, sizeof(float) * s.V * s.D);
    sb_embedding_backward(dwte, dwpe, s.r, ids, s.B, s.S, s.D, 0, 0);
    for (int j = 0; j < s.D; j++)
        if (dwte[j] != 0) {
            printf("pad row got a gradient FAIL\n");
            g_fail = 1;
            break;
        }
    free(s.wte);
    free(s.wpe);
    free(s.y);
    free(s.r);
    free(dwte);
    free(dwpe);
}

/* ---- layernorm */
typedef struct {
    int N, D;
    float *x, *g, *b, *y, *mean, *rstd, *r;
} ln_st;
static double ln_f(void *v)
{
    ln_st *s = v;
    sb_layernorm_forward(s->y, s->mean, s->rstd, s->x, s->g, s->b, s->N, s->D, 1e-12f, 0);
    return dot(s->y, s->r, (size_t)s->N * s->D);
}
static void test_layernorm(void)
{
    ln_st s = {.N = 6, .D = 16};
    size_t nd = (size_t)s.N * s.D;
    s.x = malloc(nd * 4);
    s.y = malloc(nd * 4);
    s.r = malloc(nd * 4);
    s.g = malloc(s.D * 4);
    s.b = malloc(s.D * 4);
    s.mean = malloc(s.N * 4);
    s.rstd = malloc(s.N * 4);
    float *dx = malloc(nd * 4), *dg = malloc(s.D * 4), *db = malloc(s.D * 4);
    fill(s.x, nd, 4, 2);
    fill(s.r, nd, 5, 1);
    fill(s.g, s.D, 6, 1);
    fill(s.b, s.D, 7, 1);
    ln_f(&s);
    sb_layernorm_backward(dx, dg, db, s.r, s.x, s.mean, s.rstd, s.g, s.N, s.D, 0);
    check("layernorm dx", ln_f, &s, s.x, dx, nd, 1e-2f);
    check("layernorm dgamma", ln_f, &s, s.g, dg, s.D, 1e-2f);
    check("layernorm dbeta", ln_f, &s, s.b, db, s.D, 1e-2f);
    /* in place (dx aliasing dy) gives the same numbers */
    float *dy2 = malloc(nd * 4);
    memcpy(dy2, s.r, nd * 4);
    sb_layernorm_backward(dy2, dg, db, dy2, s.x, s.mean, s.rstd, s.g, s.N, s.D, 0);
    if (memcmp(dy2, dx, nd * 4)) {
        printf("layernorm in place differs FAIL\n");
        g_fail = 1;
    }
    free(dy2);
    free(s.x);
    free(s.y);
    free(s.r);
    free(s.g);
    free(s.b);
    free(s.mean);
    free(s.rstd);
    free(dx);
    free(dg);
    free(db);
}

/* ---- linear */
typedef struct {
    int N, in, out;
    float *x, *W, *b, *y, *r;
} lin_st;
static double lin_f(void *v)
{
    lin_st *s = v;
    sb_err e;
    if (sb_linear_forward(&g_lc, s->y, s->x, s->W, s->b, s->N, s->in, s->out, &e)) abort();
    return dot(s->y, s->r, (size_t)s->N * s->out);
}
static void test_linear(void)
{
    lin_st s = {.N = 7, .in = 9, .out = 5};
    s.x = malloc(4 * s.N * s.in);
    s.W = malloc(4 * s.out * s.in);
    s.b = malloc(4 * s.out);
    s.y = malloc(4 * s.N * s.out);
    s.r = malloc(4 * s.N * s.out);
    float *dx = malloc(4 * s.N * s.in), *dW = malloc(4 * s.out * s.in), *db = malloc(4 * s.out);
    fill(s.x, s.N * s.in, 8, 1);
    fill(s.W, s.out * s.in, 9, 1);
    fill(s.b, s.out, 10, 1);
    fill(s.r, s.N * s.out, 11, 1);
    sb_err e;
    if (sb_linear_backward(&g_lc, dx, 0.0f, dW, db, s.r, s.x, s.W, s.N, s.in, s.out, &e)) abort();
    check("linear dx", lin_f, &s, s.x, dx, s.N * s.in, 1e-2f);
    check("linear dW", lin_f, &s, s.W, dW, s.out * s.in, 1e-2f);
    check("linear db", lin_f, &s, s.b, db, s.out, 1e-2f);
    /* dx_beta = 1 adds onto what is there (the residual connections) */
    float *acc = malloc(4 * s.N * s.in);
    for (int i = 0; i < s.N * s.in; i++) acc[i] = 1.0f;
    sb_linear_backward(&g_lc, acc, 1.0f, dW, db, s.r, s.x, s.W, s.N, s.in, s.out, &e);
    for (int i = 0; i < s.N * s.in; i++)
        if (fabsf(acc[i] - 1.0f - dx[i]) > 1e-5f) {
            printf("linear dx beta=1 FAIL\n");
            g_fail = 1;
            break;
        }
    free(acc);
    free(s.x);
    free(s.W);
    free(s.b);
    free(s.y);
    free(s.r);
    free(dx);
    free(dW);
    free(db);
}

/* ---- gelu */
typedef struct {
    size_t n;
    float *x, *y, *r;
} gelu_st;
static double gelu_f(void *v)
{
    gelu_st *s = v;
    sb_gelu_forward(s->y, s->x, s->n, 0);
    return dot(s->y, s->r, s->n);
}
static void test_gelu(void)
{
    gelu_st s = {.n = 200};
    s.x = malloc(4 * s.n);
    s.y = malloc(4 * s.n);
    s.r = malloc(4 * s.n);
    float *dx = malloc(4 * s.n);
    fill(s.x, s.n, 12, 2.5f);
    fill(s.r, s.n, 13, 1);
    sb_gelu_backward(dx, s.r, s.x, s.n, 0);
    check("gelu dx", gelu_f, &s, s.x, dx, s.n, 1e-2f);
    /* the erf form, not the tanh approximation: gelu(1) = 0.841344746 */
    float one = 1.0f, y;
    sb_gelu_forward(&y, &one, 1, 1);
    if (fabsf(y - 0.841344746f) > 1e-6f) {
        printf("gelu(1) = %.9f FAIL\n", y);
        g_fail = 1;
    }
    free(s.x);
    free(s.y);
    free(s.r);
    free(dx);
}

/* ---- dropout */
typedef struct {
    size_t n;
    float *x, *y, *r;
} drop_st;
static double drop_f(void *v)
{
    drop_st *s = v;
    sb_dropout_forward(s->y, s->x, s->n, 0.3f, 77, 5, 0);
    return dot(s->y, s->r, s->n);
}
static void test_dropout(void)
{
    drop_st s = {.n = 10000};
    s.x = malloc(4 * s.n);
    s.y = malloc(4 * s.n);
    s.r = malloc(4 * s.n);
    float *dx = malloc(4 * s.n);
    fill(s.x, s.n, 14, 1);
    fill(s.r, s.n, 15, 1);
    sb_dropout_backward(dx, s.r, s.n, 0.3f, 77, 5, 0);
    check("dropout dx", drop_f, &s, s.x, dx, s.n, 1e-2f);
    drop_f(&s);
    size_t zeros = 0;
    for (size_t i = 0; i < s.n; i++) zeros += s.y[i] == 0;
    double frac = (double)zeros / s.n;
    printf("dropout p=0.3 dropped %.3f\n", frac);
    if (fabs(frac - 0.3) > 0.03) {
        printf("dropout rate FAIL\n");
        g_fail = 1;
    }
    /* same key and offset, same mask, whatever the thread count */
    float *y1 = malloc(4 * s.n);
    sb_dropout_forward(y1, s.x, s.n, 0.3f, 77, 5, 1);
    if (memcmp(y1, s.y, 4 * s.n)) {
        printf("dropout not repeatable FAIL\n");
        g_fail = 1;
    }
    free(y1);
    free(s.x);
    free(s.y);
    free(s.r);
    free(dx);
}

/* ---- attention */
typedef struct {
    int B, S, D, H;
    float p;
    float *qkv, *probs, *ctx, *r, *scratch;
    uint8_t *mask;
    uint32_t *bits;
} att_st;
static double att_f(void *v)
{
    att_st *s = v;
    sb_err e;
    if (sb_attention_forward(&g_lc, s->ctx, s->probs, s->bits, s->qkv, s->mask, s->B, s->S, s->D,
                             s->H, s->p, 99, s->scratch, &e))
        abort();
    return dot(s->ctx, s->r, (size_t)s->B * s->S * s->D);
}
static void test_attention(float p)
{
    att_st s = {.B = 2, .S = 6, .D = 8, .H = 2, .p = p};
    int N = s.B * s.S;
    uint8_t mask[12] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0};
    s.mask = mask;
    s.qkv = malloc(4 * N * 3 * s.D);
    s.probs = malloc(4 * s.B * s.H * s.S * s.S);
    s.ctx = malloc(4 * N * s.D);
    s.r = malloc(4 * N * s.D);
    s.scratch = malloc(4 * 64 * 2 * s.S * s.S);
    s.bits = malloc(4 * sb_attention_bits_words(s.B, s.H, s.S));
    float *dqkv = malloc(4 * N * 3 * s.D);
    fill(s.qkv, N * 3 * s.D, 16, 1);
    fill(s.r, N * s.D, 17, 1);
    att_f(&s);
    /* padded keys get exactly zero weight: their values change nothing */
    float *ctx0 = malloc(4 * N * s.D);
    memcpy(ctx0, s.ctx, 4 * N * s.D);
    for (int j = 4; j < 6; j++)
        for (int col = 0; col < s.D; col++) s.qkv[(size_t)(s.S + j) * 3 * s.D + 2 * s.D + col] += 7;
    att_f(&s);
    if (memcmp(ctx0, s.ctx, 4 * N * s.D)) {
        printf("padded key has weight FAIL\n");
        g_fail = 1;
    }
    for (int j = 4; j < 6; j++)
        for (int col = 0; col < s.D; col++) s.qkv[(size_t)(s.S + j) * 3 * s.D + 2 * s.D + col] -= 7;
    if (p == 0) {
        /* against plain softmax(q k^T / sqrt(dh)) v over all S keys, masked ones -inf */
        int dh = s.D / s.H;
        double worst = 0;
        for (int b = 0; b < s.B; b++)
            for (int h = 0; h < s.H; h++)
                for (int i = 0; i < s.S; i++) {
                    double sc[16], mx = -INFINITY, sum = 0;
                    const float *q = s.qkv + (size_t)(b * s.S + i) * 3 * s.D + h * dh;
                    for (int j = 0; j < s.S; j++) {
                        const float *k = s.qkv + (size_t)(b * s.S + j) * 3 * s.D + s.D + h * dh;
                        double d = 0;
                        for (int t = 0; t < dh; t++) d += (double)q[t] * k[t];
                        sc[j] = mask[b * s.S + j] ? d / sqrt(dh) : -INFINITY;
                        if (sc[j] > mx) mx = sc[j];
                    }
                    for (int j = 0; j < s.S; j++) sum += sc[j] = exp(sc[j] - mx);
                    for (int t = 0; t < dh; t++) {
                        double ref = 0;
                        for (int j = 0; j < s.S; j++)
                            ref += sc[j] / sum *
                                s.qkv[(size_t)(b * s.S + j) * 3 * s.D + 2 * s.D + h * dh + t];
                        double got = s.ctx[(size_t)(b * s.S + i) * s.D + h * dh + t];
                        double err = fabs(got - ref) / (1 + fabs(ref));
                        if (err > worst) worst = err;
                    }
                }
        printf("attention ctx vs plain softmax: worst rel err %.2e\n", worst);
        if (worst > 1e-5) {
            printf("attention ctx FAIL\n");
            g_fail = 1;
        }
    }
    sb_err e;
    att_f(&s);
    if (sb_attention_backward(&g_lc, dqkv, s.r, s.qkv, s.probs, s.bits, s.mask, s.B, s.S, s.D, s.H,
                              s.p, s.scratch, &e))
        abort();
    check(p > 0 ? "attention dqkv (dropout)" : "attention dqkv", att_f, &s, s.qkv, dqkv,
          N * 3 * s.D, 1e-2f);
    if (p > 0) {
        /* the stored keep bits are the dropout mask over (b, h, i, j) in order
         * (up to the last real key: batch 1's keys 4 and 5 are skipped) */
        size_t np = (size_t)s.B * s.H * s.S * s.S, W = ((size_t)s.S + 31) / 32, bad = 0;
        float *ones = malloc(4 * np), *kept = malloc(4 * np);
        for (size_t i = 0; i < np; i++) ones[i] = 1;
        sb_dropout_forward(kept, ones, np, p, 99, 0, 1);
        for (size_t i = 0; i < np; i++) {
            size_t row = i / s.S, j = i % s.S;
            if (row / ((size_t)s.H * s.S) == 1 && j >= 4) continue;
            int bit = (s.bits[row * W + j / 32] >> (j % 32)) & 1;
            bad += bit != (kept[i] != 0);
        }
        printf("attention keep bits vs dropout mask: %zu of %zu differ\n", bad, np);
        if (bad) {
            printf("attention keep bits FAIL\n");
            g_fail = 1;
        }
        free(ones);
        free(kept);
    }
    free(s.qkv);
    free(s.probs);
    free(s.ctx);
    free(s.r);
    free(s.scratch);
    free(s.bits);
    free(dqkv);
    free(ctx0);
}

/* ---- QA loss */
typedef struct {
    int B, S;
    float *logits;
    int32_t *start, *end;
} qa_st;
static double qa_f(void *v)
{
    qa_st *s = v;
    return sb_qa_loss(NULL, s->logits, s->start, s->end, s->B, s->S);
}
static void test_qa_loss(void)
{
    qa_st s = {.B = 3, .S = 5};
    int32_t start[3] = {1, 4, 9}, end[3] = {-2, 4, 2}; /* 9: ignored; -2: clamped to 0 */
    s.start = start;
    s.end = end;
    s.logits = malloc(4 * s.B * s.S * 2);
    float *dl = malloc(4 * s.B * s.S * 2);
    fill(s.logits, s.B * s.S * 2, 18, 2);
    double loss = sb_qa_loss(dl, s.logits, start, end, s.B, s.S);
    check("qa loss dlogits", qa_f, &s, s.logits, dl, s.B * s.S * 2, 1e-2f);
    /* uniform logits: each cross entropy is log S */
    float flat[2 * 3 * 5] = {0};
    double l2 = sb_qa_loss(NULL, flat, start, end, s.B, s.S);
    printf("qa loss %.6f, flat %.6f (log 5 = %.6f)\n", loss, l2, log(5.0));
    if (fabs(l2 - log(5.0)) > 1e-6) {
        printf("qa loss flat FAIL\n");
        g_fail = 1;
    }
    free(s.logits);
    free(dl);
}

/* ---- the element-wise levels (AVX-512, AVX2 + FMA, scalar) */

/* GELU at the level in use against libm's erff */
static void test_gelu_accuracy(void)
{
    size_t n = 5003;
    float *x = malloc(4 * n), *y = malloc(4 * n), worst = 0;
    fill(x, n, 21, 3);
    sb_gelu_forward(y, x, n, 2);
    for (size_t i = 0; i < n; i++)
        worst = fmaxf(worst, fabsf(y[i] - 0.5f * x[i] * (1.0f + erff(x[i] * 0.70710678f))));
    int ok = worst <= 1e-6f;
    printf("gelu vs libm erff: worst abs err %.2e %s\n", worst, ok ? "ok" : "FAIL");
    if (!ok) g_fail = 1;
    free(x);
    free(y);
}

/* max |a - b| / max |b|, the norm-wise relative difference */
static double normwise(const float *a, const float *b, size_t n)
{
    double num = 0, den = 1e-30;
    for (size_t i = 0; i < n; i++) {
        num = fmax(num, fabs((double)a[i] - b[i]));
        den = fmax(den, fabs((double)b[i]));
    }
    return num / den;
}

static void agree(const char *lvl, const char *what, double err, double tol)
{
    int ok = err <= tol; /* NaN fails */
    printf("  %-7s %-34s vs scalar %.2e (tol %.0e) %s\n", lvl, what, err, tol, ok ? "ok" : "FAIL");
    if (!ok) g_fail = 1;
}

static void test_dispatch(void)
{
    int want = expected_level(), got = sb_layers_level();
    const char *f512 = getenv("SB_FORCE_NO_AVX512"), *f2 = getenv("SB_FORCE_NO_AVX2");
    printf("element-wise level %s, expected %s (SB_FORCE_NO_AVX512=%s SB_FORCE_NO_AVX2=%s)\n",
           sb_layers_isa(), sb_layers_level_name(want), f512 ? f512 : "", f2 ? f2 : "");
    if (got != want || sb_layers_best_level() != want ||
        strcmp(sb_layers_isa(), sb_layers_level_name(want))) {
        printf("dispatch chose %s, not %s FAIL\n", sb_layers_isa(), sb_layers_level_name(want));
        g_fail = 1;
    }
    /* asking for more than the CPU has gives the best it has; less is honoured */
    if (sb_layers_set_level(SB_LAYERS_AVX512) != want ||
        sb_layers_set_level(SB_LAYERS_SCALAR) != SB_LAYERS_SCALAR ||
        strcmp(sb_layers_isa(), "scalar") || sb_layers_set_level(SB_LAYERS_AUTO) != want) {
        printf("sb_layers_set_level does not clamp FAIL\n");
        g_fail = 1;
    }
    /* the kernel both jobs take when none is named: an f32 one this machine
     * runs, never one a forced-off ISA needs */
    const sb_kernel *dk = sb_layers_default_kernel();
    char why[256];
    printf("default kernel %s\n", dk ? dk->name : "(none)");
    if (!dk || dk->dtype != SB_DT_F32 || !dk->probe(why, sizeof why) ||
        (sb_cpu_forced_off("AVX512") && !strcmp(dk->name, "avx512-f32")) ||
        (sb_cpu_forced_off("AVX2") && !strncmp(dk->name, "avx2", 4))) {
        printf("sb_layers_default_kernel chose a kernel that cannot run here FAIL\n");
        g_fail = 1;
    }
}

/* Every path of level lvl against the scalar one on the same inputs: dropout
 * masks bit for bit (a run's masks must not depend on the CPU), the
 * floating-point results to rounding. Sizes are off multiples of 8 and 16 so
 * the vector tails run. */
static void test_level_vs_scalar(int lvl)
{
    const char *name = sb_layers_level_name(lvl);
    size_t n = 13 * 773; /* the LayerNorm rows below use all of x and dy */
    float *x = malloc(4 * n), *dy = malloc(4 * n), *a = malloc(4 * n), *b = malloc(4 * n);
    fill(x, n, 21, 3);
    fill(dy, n, 22, 1);

    /* dropout: unaligned offsets, short runs, one threaded run, extreme p */
    static const size_t lens[] = {1, 3, 31, 33, 100, 4099, 10007};
    static const uint64_t offs[] = {0, 1, 2, 3, 5, 4099};
    static const float ps[] = {0.1f, 0.5f, 0.999f, 1e-6f};
    int diff = 0, cases = 0;
    for (int pi = 0; pi < 4; pi++)
        for (int li = 0; li < 7; li++)
            for (int oi = 0; oi < 6; oi++) {
                size_t len = lens[li];
                sb_layers_set_level(lvl);
                sb_dropout_forward(a, x, len, ps[pi], 5, offs[oi], 2);
                sb_layers_set_level(SB_LAYERS_SCALAR);
                sb_dropout_forward(b, x, len, ps[pi], 5, offs[oi], 2);
                diff += memcmp(a, b, 4 * len) != 0;
                cases++;
            }
    printf("  %-7s dropout masks: %d of %d cases differ from scalar %s\n", name, diff, cases,
           diff ? "FAIL" : "ok");
    if (diff) g_fail = 1;

    /* GELU */
    sb_layers_set_level(lvl);
    sb_gelu_forward(a, x, n, 2);
    sb_layers_set_level(SB_LAYERS_SCALAR);
    sb_gelu_forward(b, x, n, 2);
    agree(name, "gelu forward", normwise(a, b, n), 1e-6);
    sb_layers_set_level(lvl);
    sb_gelu_backward(a, dy, x, n, 2);
    sb_layers_set_level(SB_LAYERS_SCALAR);
    sb_gelu_backward(b, dy, x, n, 2);
    agree(name, "gelu backward", normwise(a, b, n), 1e-6);

    /* LayerNorm over rows of 773 (DistilBERT's 768 plus a tail) */
    int N = 13, D = 773;
    size_t nd = (size_t)N * D; /* = n */
    float *g = malloc(4 * D), *bb = malloc(4 * D), *xs = malloc(4 * nd), *st[2][6];
    fill(g, D, 23, 1);
    fill(bb, D, 24, 1);
    for (size_t i = 0; i < nd; i++) xs[i] = x[i] + 0.5f; /* a mean away from 0 */
    for (int k = 0; k < 2; k++) {
        float *y = st[k][0] = malloc(4 * nd), *mean = st[k][1] = malloc(4 * N);
        float *rstd = st[k][2] = malloc(4 * N), *dx = st[k][3] = malloc(4 * nd);
        float *dg = st[k][4] = malloc(4 * D), *db = st[k][5] = malloc(4 * D);
        sb_layers_set_level(k ? SB_LAYERS_SCALAR : lvl);
        sb_layernorm_forward(y, mean, rstd, xs, g, bb, N, D, 1e-12f, 2);
        sb_layernorm_backward(dx, dg, db, dy, xs, mean, rstd, g, N, D, 2);
    }
    agree(name, "layernorm y", normwise(st[0][0], st[1][0], nd), 1e-5);
    agree(name, "layernorm mean", normwise(st[0][1], st[1][1], N), 1e-5);
    agree(name, "layernorm rstd", normwise(st[0][2], st[1][2], N), 1e-5);
    agree(name, "layernorm dx", normwise(st[0][3], st[1][3], nd), 1e-5);
    agree(name, "layernorm dgamma", normwise(st[0][4], st[1][4], D), 1e-5);
    agree(name, "layernorm dbeta", normwise(st[0][5], st[1][5], D), 1e-5);
    for (int k = 0; k < 2; k++)
        for (int j = 0; j < 6; j++) free(st[k][j]);
    free(g);
    free(bb);
    free(xs);

    /* the bias gradient's column sums (linear backward's db) */
    {
        int rows = 37, in = 5, out = 77;
        float *xx = malloc(4 * rows * in), *W = malloc(4 * out * in), *dW = malloc(4 * out * in);
        float *db2[2] = {malloc(4 * out), malloc(4 * out)};
        fill(xx, (size_t)rows * in, 25, 1);
        fill(W, (size_t)out * in, 26, 1);
        sb_err e;
        for (int k = 0; k < 2; k++) {
            sb_layers_set_level(k ? SB_LAYERS_SCALAR : lvl);
            if (sb_linear_backward(&g_lc, NULL, 0.0f, dW, db2[k], dy, xx, W, rows, in, out, &e))
                abort();
        }
        agree(name, "linear dbias", normwise(db2[0], db2[1], out), 1e-5);
        free(xx);
        free(W);
        free(dW);
        free(db2[0]);
        free(db2[1]);
    }

    /* attention: softmax forward/backward, keep bits, with and without
     * dropout, S = 37 (two bit words per row, tails of 5), padding in batch 1 */
    for (int withdrop = 0; withdrop < 2; withdrop++) {
        int B = 2, S = 37, Dm = 16, H = 2, Nt = B * S;
        float p = withdrop ? 0.25f : 0.0f;
        uint8_t *mask = malloc((size_t)Nt);
        for (int i = 0; i < Nt; i++) mask[i] = !(i >= S + 30 || i == S + 3);
        size_t np = (size_t)B * H * S * S, nb = sb_attention_bits_words(B, H, S);
        float *qkv = malloc(4 * (size_t)Nt * 3 * Dm), *scratch = malloc(4 * 64 * 2 * (size_t)S * S);
        float *r = malloc(4 * (size_t)Nt * Dm), *probs[2], *ctx[2], *dqkv[2];
        uint32_t *bits[2];
        fill(qkv, (size_t)Nt * 3 * Dm, 27, 1.5f);
        fill(r, (size_t)Nt * Dm, 28, 1);
        sb_err e;
        for (int k = 0; k < 2; k++) {
            probs[k] = calloc(np, 4);
            ctx[k] = malloc(4 * (size_t)Nt * Dm);
            dqkv[k] = malloc(4 * (size_t)Nt * 3 * Dm);
            bits[k] = calloc(nb, 4);
            sb_layers_set_level(k ? SB_LAYERS_SCALAR : lvl);
            if (sb_attention_forward(&g_lc, ctx[k], probs[k], bits[k], qkv, mask, B, S, Dm, H, p,
                                     99, scratch, &e) ||
                sb_attention_backward(&g_lc, dqkv[k], r, qkv, probs[k], bits[k], mask, B, S, Dm, H,
                                      p, scratch, &e))
                abort();
        }
        agree(name, withdrop ? "attention probs (dropout)" : "attention probs",
              normwise(probs[0], probs[1], np), 1e-5);
        agree(name, withdrop ? "attention ctx (dropout)" : "attention ctx",
              normwise(ctx[0], ctx[1], (size_t)Nt * Dm), 1e-5);
        agree(name, withdrop ? "attention dqkv (dropout)" : "attention dqkv",
              normwise(dqkv[0], dqkv[1], (size_t)Nt * 3 * Dm), 1e-5);
        if (!withdrop) {
            /* forward only (inference): no P written, rows normalised after v */
            float *c2 = malloc(4 * (size_t)Nt * Dm);
            sb_layers_set_level(lvl);
            if (sb_attention_forward(&g_lc, c2, NULL, NULL, qkv, mask, B, S, Dm, H, 0, 99, scratch,
                                     &e))
                abort();
            agree(name, "attention ctx without probs", normwise(c2, ctx[0], (size_t)Nt * Dm), 1e-6);
            free(c2);
        }
        if (withdrop && memcmp(bits[0], bits[1], 4 * nb)) {
            printf("  %-7s attention keep bits differ from scalar FAIL\n", name);
            g_fail = 1;
        }
        for (int k = 0; k < 2; k++) {
            free(probs[k]);
            free(ctx[k]);
            free(dqkv[k]);
            free(bits[k]);
        }
        free(mask);
        free(qkv);
        free(scratch);
        free(r);
    }
    sb_layers_set_level(SB_LAYERS_AUTO);
    free(x);
    free(dy);
    free(a);
    free(b);
}

int main(void)
{
    g_lc.kernel = pick_f32_kernel();
    g_lc.threads = 2;
    if (!g_lc.kernel) {
        printf("no runnable f32 kernel FAIL\n");
        return 1;
    }
    printf("kernel %s\n", g_lc.kernel->name);
    test_dispatch();
    int best = sb_layers_best_level();
    for (int lvl = best; lvl > SB_LAYERS_SCALAR; lvl--) test_level_vs_scalar(lvl);
    /* the gradient checks at every level this machine runs */
    for (int lvl = best; lvl >= SB_LAYERS_SCALAR; lvl--) {
        sb_layers_set_level(lvl);
        printf("-- gradient checks, element-wise level %s\n", sb_layers_isa());
        test_layernorm();
        test_linear();
        test_gelu();
        test_gelu_accuracy();
        test_dropout();
        test_attention(0.0f);
        test_attention(0.25f);
    }
    sb_layers_set_level(SB_LAYERS_AUTO);
    test_embedding();
    test_qa_loss();
    printf(g_fail ? "FAILED\n" : "all layer gradient checks passed\n");
    return g_fail;
}
