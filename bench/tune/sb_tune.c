#include "sb_tune.h"
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "sb_progress.h"
#include "sb_stats.h"

#define CHECK_ROWS 16
#define MAX_CANDS 24
#define MAX_ROUNDS 60

static uint32_t lcg(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}

/* The inputs, the reference rows and the call every candidate makes. */
typedef struct {
    const sb_kernel *k;
    sb_gemm_desc d;
    void *A, *B, *C;
    int rows[CHECK_ROWS], nrows;
    float *ref;    /* [nrows][n] (f32 and bf16 kernels) */
    int32_t *refi; /* [nrows][n] (int8) */
    int int8;
    double flops;
} tbench;

typedef struct {
    sb_blocking b;   /* as given to the call */
    sb_blocking run; /* as the driver resolves it */
    double t[MAX_ROUNDS];
    int nt, ok;
    double med;
} cand;

static int call(tbench *x, const sb_blocking *b, sb_err *e)
{
    sb_gemm_desc d = x->d;
    d.blocking = b;
    if (x->int8) return x->k->gemm_u8s8(&d, x->A, x->B, x->C, e);
    return x->k->gemm_f32(&d, x->A, x->B, x->C, e);
}

/* The checked rows of C against the reference: exact for these inputs. */
static int check(const tbench *x)
{
    int n = x->d.n;
    for (int r = 0; r < x->nrows; r++)
        for (int j = 0; j < n; j++) {
            size_t at = (size_t)x->rows[r] * x->d.ldc + j;
            if (x->int8 ? ((const int32_t *)x->C)[at] != x->refi[(size_t)r * n + j]
                        : ((const float *)x->C)[at] != x->ref[(size_t)r * n + j])
                return -1;
        }
    return 0;
}

static void bench_free(tbench *x)
{
    free(x->A);
    free(x->B);
    free(x->C);
    free(x->ref);
    free(x->refi);
}

static int bench_init(tbench *x, const sb_kernel *k, const sb_tune_config *c, sb_err *e)
{
    memset(x, 0, sizeof *x);
    x->k = k;
    x->int8 = k->dtype == SB_DT_INT8;
    int lda = c->transa == 'N' ? c->k : c->m, ldb = c->transb == 'N' ? c->n : c->k;
    size_t na = (size_t)c->m * c->k, nb = (size_t)c->k * c->n, nc = (size_t)c->m * c->n;
    sb_gemm_desc d = {.transa = c->transa,
                      .transb = c->transb,
                      .m = c->m,
                      .n = c->n,
                      .k = c->k,
                      .lda = lda,
                      .ldb = ldb,
                      .ldc = c->n,
                      .alpha = 1.0f,
                      .beta = 0.0f,
                      .threads = c->threads};
    x->d = d;
    int rc = sb_gemm_desc_check(&x->d, e);
    if (rc) return rc;
    if (4.0 * (na + nb + nc) > 8e9)
        return sb_errf(e, SB_EUSAGE, "shape %dx%dx%d is too large to tune (over 8 GB)", c->m, c->n,
                       c->k);
    size_t esz = x->int8 ? 1 : 4;
    x->A = aligned_alloc(64, (na * esz + 63) / 64 * 64);
    x->B = aligned_alloc(64, (nb * esz + 63) / 64 * 64);
    x->C = aligned_alloc(64, (nc * 4 + 63) / 64 * 64);
    x->nrows = c->m < CHECK_ROWS ? c->m : CHECK_ROWS;
    if (x->int8)
        x->refi = malloc(sizeof(int32_t) * (size_t)x->nrows * c->n);
    else
        x->ref = malloc(sizeof(float) * (size_t)x->nrows * c->n);
    if (!x->A || !x->B || !x->C || (!x->ref && !x->refi)) {
        bench_free(x);
        return sb_errf(e, SB_EFAIL, "out of memory for %dx%dx%d", c->m, c->n, c->k);
    }
    uint32_t seed = 12345;
    if (x->int8) {
        for (size_t i = 0; i < na; i++) ((uint8_t *)x->A)[i] = (uint8_t)(lcg(&seed) % 5);
        for (size_t i = 0; i < nb; i++) ((int8_t *)x->B)[i] = (int8_t)((int)(lcg(&seed) % 9) - 4);
    } else {
        for (size_t i = 0; i < na; i++) ((float *)x->A)[i] = (float)((int)(lcg(&seed) % 7) - 3);
        for (size_t i = 0; i < nb; i++) ((float *)x->B)[i] = (float)((int)(lcg(&seed) % 7) - 3);
    }
    memset(x->C, 0, nc * 4);
    /* a spread of rows with the first and the last (edge tiles) */
    for (int r = 0; r < x->nrows; r++)
        x->rows[r] = x->nrows == 1 ? 0 : (int)((long)r * (c->m - 1) / (x->nrows - 1));
    for (int r = 0; r < x->nrows; r++) {
        sb_gemm_desc row = x->d;
        row.m = 1;
        row.threads = 1;
        size_t aoff = c->transa == 'N' ? (size_t)x->rows[r] * lda : (size_t)x->rows[r];
        if (x->int8)
            sb_gemm_ref_u8s8(&row, (const uint8_t *)x->A + aoff, x->B, x->refi + (size_t)r * c->n);
        else
            sb_gemm_ref_f32(&row, (const float *)x->A + aoff, x->B, x->ref + (size_t)r * c->n);
    }
    x->flops = 2.0 * c->m * c->n * c->k;
    return SB_OK;
}

static int same_run(const sb_blocking *a, const sb_blocking *b)
{
    return a->kc == b->kc && a->mc == b->mc && a->nc == b->nc && a->order == b->order &&
        a->pf == b->pf && a->split == b->split;
}

/* Adds b unless the driver would run it as one already there. */
static void add(tbench *x, cand *cs, int *n, sb_blocking b)
{
    if (*n >= MAX_CANDS) return;
    if (b.kc < 0 || b.mc < 0 || b.nc < 0) return;
    sb_gemm_desc d = x->d;
    d.blocking = &b;
    sb_blocking run;
    sb_kernel_blocking(x->k, &d, &run);
    /* a split the call cannot use (one thread) is the same run */
    if (x->d.threads <= 1) run.split = 0;
    for (int i = 0; i < *n; i++)
        if (same_run(&cs[i].run, &run)) return;
    memset(&cs[*n], 0, sizeof cs[*n]);
    cs[*n].b = b;
    cs[*n].run = run;
    (*n)++;
}

typedef struct {
    const sb_tune_config *c;
    sb_tune_result *r;
    tbench *x;
} tctx;

static void note(const tctx *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(const tctx *t, const char *fmt, ...)
{
    if (!t->c->note) return;
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    t->c->note(t->c->note_ctx, line);
}

/* Checks the new candidates, then times all in interleaved rounds for about
 * budget seconds (at least two rounds); returns the fastest's index (-1:
 * none passed) or -2 on a kernel error (in e). */
static int measure(tctx *t, cand *cs, int n, double budget, sb_err *e)
{
    for (int i = 0; i < n; i++) {
        if (cs[i].ok || cs[i].nt) continue;
        memset(t->x->C, 0xff, (size_t)t->x->d.m * t->x->d.n * 4);
        if (call(t->x, &cs[i].b, e)) return -2;
        t->r->candidates++;
        if (check(t->x)) {
            t->r->rejected++;
            cs[i].nt = -1; /* dropped */
            char b[160];
            sb_blocking_format(&cs[i].run, b, sizeof b);
            note(t, "  dropped (wrong result): %s", b);
            continue;
        }
        cs[i].ok = 1;
    }
    for (int i = 0; i < n; i++)
        if (cs[i].ok) cs[i].nt = 0; /* each stage ranks on its own rounds */
    double t0 = sb_now();
    for (int round = 0; round < MAX_ROUNDS; round++) {
        if (round >= 2 && sb_now() - t0 >= budget) break;
        for (int j = 0; j < n; j++) {
            cand *cd = &cs[(j + round) % n];
            if (!cd->ok) continue;
            double s = sb_now();
            if (call(t->x, &cd->b, e)) return -2;
            cd->t[cd->nt++] = sb_now() - s;
        }
    }
    int best = -1;
    for (int i = 0; i < n; i++) {
        if (!cs[i].ok) continue;
        cs[i].med = sb_median(cs[i].t, cs[i].nt);
        if (best < 0 || cs[i].med < cs[best].med) best = i;
    }
    return best;
}

static void stage_note(tctx *t, const char *stage, cand *cs, int n, int best)
{
    char b[160];
    sb_blocking_format(&cs[best].run, b, sizeof b);
    note(t, "  %s: %d candidate(s), best %s at %.1f GFLOP/s (default %.1f)", stage, n, b,
         t->x->flops / cs[best].med / 1e9, t->x->flops / cs[0].med / 1e9);
}

/* One stage: its candidates measured within budget, its line noted, and
 * its winner's blocking the next stage's start (*cur). The winner's index,
 * or -1 (e set). */
static int run_stage(tctx *t, cand *cs, int n, double budget, const char *stage, sb_blocking *cur,
                     sb_err *e)
{
    int best = measure(t, cs, n, budget, e);
    if (best < 0) return -1;
    stage_note(t, stage, cs, n, best);
    *cur = cs[best].b;
    return best;
}

int sb_tune_run(const sb_tune_config *c, sb_tune_result *r, sb_err *e)
{
    memset(r, 0, sizeof *r);
    r->status = "failed";
    const sb_kernel *k = sb_kernel_find(c->kernel);
    if (!k)
        return sb_errf(e, SB_EUSAGE, "unknown kernel '%s' (known: %s)", c->kernel,
                       sb_kernel_names());
    sb_gemm_desc probe_d = {.transa = 'N', .transb = 'N', .m = 1, .n = 1, .k = 1};
    sb_blocking tmp;
    if (!sb_kernel_blocking(k, &probe_d, &tmp))
        return sb_errf(e, SB_EUSAGE,
                       "%s does not run through the project's GEMM driver: nothing to tune",
                       c->kernel);
    char why[256] = "";
    if (!k->probe(why, sizeof why)) {
        r->status = "skipped";
        snprintf(r->reason, sizeof r->reason, "%s", why);
        return SB_OK;
    }
    tbench x;
    int rc = bench_init(&x, k, c, e);
    if (rc) return rc;
    tctx t = {c, r, &x};
    double budget = c->seconds > 0 ? c->seconds : 10;
    double min_gain = c->min_gain > 0 ? c->min_gain : 0.02;
    cand cs[MAX_CANDS];
    int n = 0, best;
    sb_blocking zero = {0};
    sb_err ke = {0};

    /* 1: k and m blocks on a coarse grid around the built-in ones */
    add(&x, cs, &n, zero);
    sb_blocking def = cs[0].run;
    r->default_run = def;
    /* kc0 * a / b: the built-in k block is large (an eighth of L2 per B
     * micro-panel), so the grid looks below it, down to an L1-sized panel */
    const int kcf[3][2] = {{1, 1}, {1, 2}, {1, 4}};
    const int mcf[4][2] = {{0, 1}, {1, 4}, {1, 2}, {2, 1}};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 4; j++) {
            sb_blocking b = zero;
            b.kc = def.kc * kcf[i][0] / kcf[i][1];
            b.mc = def.mc * mcf[j][0] / mcf[j][1];
            add(&x, cs, &n, b);
        }
    sb_blocking cur;
    if ((best = run_stage(&t, cs, n, budget * 0.35, "k x m blocks", &cur, &ke)) < 0) goto fail;

    /* 2: loop order and the A prefetch */
    n = 0;
    add(&x, cs, &n, zero);
    add(&x, cs, &n, cur);
    for (int o = 0; o < 2; o++)
        for (int p = 0; p < 3; p++) {
            sb_blocking b = cur;
            b.order = o;
            b.pf = (int[]){0, 8, 32}[p];
            add(&x, cs, &n, b);
        }
    if ((best = run_stage(&t, cs, n, budget * 0.2, "order x prefetch", &cur, &ke)) < 0) goto fail;

    /* 3: the n block and how the threads split the work */
    n = 0;
    add(&x, cs, &n, zero);
    add(&x, cs, &n, cur);
    for (int f = 1; f <= 4; f *= 2)
        for (int s = 0; s < (c->threads > 1 ? 3 : 1); s++) {
            sb_blocking b = cur;
            b.nc = f == 1 ? cur.nc : def.nc / f;
            b.split = s;
            add(&x, cs, &n, b);
        }
    if ((best = run_stage(&t, cs, n, budget * 0.15, "n block x split", &cur, &ke)) < 0) goto fail;

    /* 4: k and m a quarter either side of the best */
    n = 0;
    add(&x, cs, &n, zero);
    add(&x, cs, &n, cur);
    sb_blocking run = cs[best].run;
    for (int i = 0; i < 4; i++) {
        sb_blocking b = cur;
        if (i < 2)
            b.kc = run.kc * (i ? 5 : 3) / 4;
        else
            b.mc = run.mc * (i == 3 ? 5 : 3) / 4;
        if (i < 2 && !cur.mc) b.mc = 0;
        add(&x, cs, &n, b);
    }
    if ((best = run_stage(&t, cs, n, budget * 0.1, "refine k, m", &cur, &ke)) < 0) goto fail;
    cand win = cs[best];
    r->best_run = win.run;

    /* final: the winner against the default in interleaved pairs */
    double td[MAX_ROUNDS * 2], tw[MAX_ROUNDS * 2];
    int wins = 0, rounds = 0;
    double t0 = sb_now();
    for (; rounds < MAX_ROUNDS * 2; rounds++) {
        if (rounds >= 5 && sb_now() - t0 >= budget * 0.2) break;
        for (int h = 0; h < 2; h++) {
            int is_win = (rounds + h) % 2;
            double s = sb_now();
            if (call(&x, is_win ? &win.b : &zero, &ke)) goto fail;
            (is_win ? tw : td)[rounds] = sb_now() - s;
        }
        wins += tw[rounds] < td[rounds];
    }
    r->rounds = rounds;
    double md = sb_median(td, rounds), mw = sb_median(tw, rounds);
    r->default_gflops = x.flops / md / 1e9;
    r->winner_gflops = x.flops / mw / 1e9;
    int clearly = !same_run(&win.run, &def) && mw < md * (1.0 - min_gain) && 3 * wins >= 2 * rounds;
    r->kept_default = !clearly;
    if (clearly) {
        r->best = win.run;
        r->tuned_gflops = r->winner_gflops;
    } else {
        r->best = zero;
        r->tuned_gflops = r->default_gflops;
    }
    char b[160];
    sb_blocking_format(&win.run, b, sizeof b);
    note(&t, "  final: %s %.1f vs default %.1f GFLOP/s, faster in %d of %d rounds: %s", b,
         r->winner_gflops, r->default_gflops, wins, rounds,
         clearly ? "tuned kept" : "default kept");
    r->status = "ok";
    bench_free(&x);
    return SB_OK;
fail:
    bench_free(&x);
    if (ke.code) {
        snprintf(r->reason, sizeof r->reason, "kernel error: %.230s", ke.msg);
    } else {
        snprintf(r->reason, sizeof r->reason, "every candidate gave a wrong result");
    }
    r->status = "failed";
    return SB_OK;
}
