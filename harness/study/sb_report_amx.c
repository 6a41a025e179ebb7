#include "sb_report_amx.h"
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sb_gate_stats.h"
#include "sb_kernel_caps.h"
#include "sb_metric.h"
#include "sb_query.h"
#include "sb_report_points.h"
#include "sb_report_trun.h"
#include "sb_report_words.h"
#include "sb_scaling.h"
#include "sb_stats.h"
#include "sb_vendor.h"

/* A GEMM or inference point as this section reads it. */
typedef struct ax_pt {
    const sb_pt *p;
    int amx;          /* 1 ran AMX, 0 did not, -1 unknown (a vendor's bf16/int8, no impl) */
    char impl[64];    /* a vendor's stored implementation, "" for our own */
    char version[64]; /* the tool version of its sweep */
    double v, lo, hi; /* rate (GFLOP/s, GOP/s, sequences/s), p10 and p90 */
    const char *unit;
} ax_pt;

/* One side: its GEMM and inference points, its training runs and theirs
 * AMX state, and the gains AMX gives on it. */
typedef struct ax_set {
    const sb_ptset *set;
    const char *name;
    ax_pt *a;
    int n;
    sb_rp_tside t;
    int *tamx;   /* per training run: as ax_pt.amx */
    int has_amx; /* a point or run that ran AMX */
    /* the training gain the section leads with: AMX against f32 without
     * AMX, like for like where there is such a pair (-1: none) */
    int lead_amx, lead_ref;
    double train_gain;
    int train_like;            /* the pair is like for like */
    double gemm_gain, i8_gain; /* GEMM: AMX bf16 vs f32, AMX int8 vs int8, geometric means */
    int ngemm, ni8;
    int min_samples;     /* the gate's: fewer steady steps a side, no test */
    double alpha, tol;
    const char *refs[8]; /* the kernels the GEMM rows hold up against AMX */
    int nrefs;
} ax_set;

static void add_ref(ax_set *x, const ax_pt *r)
{
    if (!r || !sb_rp_is_gemm(r->p)) return;
    for (int i = 0; i < x->nrefs; i++)
        if (!strcmp(x->refs[i], r->p->kernel)) return;
    if (x->nrefs < 8) x->refs[x->nrefs++] = r->p->kernel;
}

static int is_ref(const ax_set *x, const char *kernel)
{
    for (int i = 0; i < x->nrefs; i++)
        if (!strcmp(x->refs[i], kernel)) return 1;
    return 0;
}

/* 1 ran AMX, 0 did not, -1 unknown: the registry's answer (a vendor's
 * f32 never runs AMX unasked; its bf16 or int8 may) */
static int amx_class(const sb_pt *p, const char *impl)
{
    return sb_kernel_ran_amx(p->kernel, p->dtype, impl);
}

static void read_impl(const sb_rp_model *m, const sb_pt *p, char *buf, size_t cap)
{
    buf[0] = '\0';
    if (!sb_vendor_of_kernel(p->kernel)) return;
    json_t *doc = NULL;
    sb_err e = {0};
    if (!sb_rp_result(m, p->id, &doc, &e) && doc) {
        const char *s = json_string_value(json_object_get(doc, "impl"));
        if (s) snprintf(buf, cap, "%s", s);
    }
    json_decref(doc);
}

static void ax_load(const sb_headline_in *in, const sb_ptset *set, const char *name, ax_set *x)
{
    memset(x, 0, sizeof *x);
    x->set = set;
    x->name = name;
    x->lead_amx = x->lead_ref = -1;
    x->min_samples = in->go ? in->go->min_samples : 6;
    x->alpha = in->go ? in->go->alpha : 0.01;
    x->tol = in->go ? in->go->tolerance : 0.05;
    x->a = calloc((size_t)set->n + 1, sizeof *x->a);
    for (int i = 0; x->a && i < set->n; i++) {
        const sb_pt *p = &set->p[i];
        int gemm = sb_rp_is_gemm1(p);
        if ((!gemm && !sb_rp_is_infer1(p)) || !sb_rp_ok(p) || !p->dtype || !p->dtype[0])
            continue;
        const sb_metric_val *m = gemm ? sb_rp_gemm_rate(p) : sb_pt_metric(p, p->wl->metric);
        if (!m || !(m->value > 0)) continue;
        ax_pt *a = &x->a[x->n++];
        a->p = p;
        read_impl(in->m, p, a->impl, sizeof a->impl);
        a->amx = amx_class(p, a->impl);
        sb_rp_sweep_version(in->m, p->sweep_id, a->version, sizeof a->version);
        a->v = m->value;
        a->unit = m->unit ? m->unit : "";
        a->lo = a->hi = a->v; /* a rate: the same work over the p90 and p10 times */
        if (p->nsamples >= 2) sb_metric_band(a->v, p->samples, p->nsamples, 0, &a->lo, &a->hi);
        x->has_amx |= a->amx == 1;
    }
    sb_rp_tside_load(in, set, &x->t);
    x->tamx = calloc((size_t)x->t.n + 1, sizeof *x->tamx);
    for (int i = 0; x->tamx && i < x->t.n; i++) {
        char impl[64];
        read_impl(in->m, x->t.r[i].p, impl, sizeof impl);
        x->tamx[i] = amx_class(x->t.r[i].p, impl);
        x->has_amx |= x->tamx[i] == 1;
    }
}

static void ax_free(ax_set *x)
{
    free(x->a);
    free(x->tamx);
    sb_rp_tside_free(&x->t);
}

/* the fastest point of a workload, shape, threads and precision with the
 * AMX state amx; -1 none */
static int ax_fastest(const ax_set *x, const sb_pt *at, const char *dtype, int amx)
{
    int best = -1;
    for (int i = 0; i < x->n; i++) {
        const sb_pt *p = x->a[i].p;
        if (x->a[i].amx != amx || strcmp(p->dtype, dtype) || strcmp(p->workload, at->workload) ||
            strcmp(p->shape, at->shape) || p->threads != at->threads)
            continue;
        if (best < 0 || sb_metric_better_of(x->a[i].v, x->a[best].v, 0)) best = i;
    }
    return best;
}

static int noisy(const sb_pt *p)
{
    return sb_samples_bimodal(p->samples, p->nsamples, NULL, NULL);
}

/* "oneDNN onednn-bf16 (brg:avx512_core_amx_bf16) 1264 [1200, 1300] GFLOP/s" */
static void point_cell(const ax_pt *a, char *buf, size_t cap)
{
    const char *v = sb_vendor_of_kernel(a->p->kernel);
    char name[160];
    if (v)
        snprintf(name, sizeof name, "%s %s (%s)", v, a->p->kernel,
                 a->impl[0] ? a->impl : "implementation not stored");
    else
        snprintf(name, sizeof name, "%s", a->p->kernel);
    char vb[32], lo[32], hi[32];
    snprintf(buf, cap, "%s %s [%s, %s] %s", name, sb_rp_num(a->v, vb, sizeof vb),
             sb_rp_num(a->lo, lo, sizeof lo), sb_rp_num(a->hi, hi, sizeof hi), a->unit);
}

/* "3.55x [3.2, 3.9]", the AMX point's rate over the reference's, with the
 * range the two spreads give, flagged when a side's samples are noisy */
static double ratio_cell(const ax_pt *a, const ax_pt *r, char *buf, size_t cap)
{
    if (!r) {
        snprintf(buf, cap, "-");
        return 0;
    }
    double ratio = a->v / r->v;
    snprintf(buf, cap, "%.2fx [%.2f, %.2f]%s", ratio, r->hi > 0 ? a->lo / r->hi : 0,
             r->lo > 0 ? a->hi / r->lo : 0,
             noisy(a->p) || noisy(r->p) ? " (noisy: samples in two groups, not a finding)" : "");
    return ratio;
}

/* the tool versions of the points of a row, when they differ */
static void version_cell(const ax_pt *a, const ax_pt *f, const ax_pt *r, char *buf, size_t cap)
{
    buf[0] = '\0';
    const ax_pt *o[2] = {f, r};
    for (int k = 0; k < 2; k++)
        if (o[k] && strcmp(o[k]->version, a->version) && (!k || !f || f != r))
            sb_rp_addf(buf, cap, "tool version %s (%s) vs %s (%s)", a->version, a->p->kernel,
                       o[k]->version, o[k]->p->kernel);
    if (!buf[0]) snprintf(buf, cap, "yes");
}

/* The GEMM and inference table of one side: a row per workload, AMX
 * precision, shape and threads; fills the side's GEMM gains. */
static void rates_table(const sb_rsink *s, ax_set *x)
{
    static const char *const hdr[] = {
        "workload, precision", "shape", "threads", "with AMX: fastest, own or vendor",
        "without AMX: fastest f32", "AMX vs f32", "without AMX: fastest of the precision",
        "AMX vs the precision without AMX", "like for like"};
    enum { NC = 9 };
    char(*buf)[300] = calloc((size_t)NC * ((size_t)x->n + 1), sizeof *buf);
    const char **cells = calloc((size_t)NC * ((size_t)x->n + 1), sizeof *cells);
    int rows = 0;
    double lg = 0, li = 0;
    x->ngemm = x->ni8 = x->nrefs = 0;
    static const char *const amxprec[] = {"bf16", "int8"};
    for (int k = 0; buf && cells && k < 2; k++)
        for (int i = 0; i < x->n; i++) {
            const ax_pt *a = &x->a[i];
            if (a->amx != 1 || strcmp(a->p->dtype, amxprec[k]) ||
                ax_fastest(x, a->p, amxprec[k], 1) != i)
                continue;
            int fi = ax_fastest(x, a->p, "f32", 0), ri = ax_fastest(x, a->p, amxprec[k], 0);
            const ax_pt *f = fi >= 0 ? &x->a[fi] : NULL, *r = ri >= 0 ? &x->a[ri] : NULL;
            char(*c)[300] = &buf[(size_t)(++rows) * NC];
            snprintf(c[0], 300, "%s %s", a->p->workload, amxprec[k]);
            snprintf(c[1], 300, "%s", a->p->shape);
            snprintf(c[2], 300, "%d", a->p->threads);
            point_cell(a, c[3], 300);
            if (f) point_cell(f, c[4], 300);
            else snprintf(c[4], 300, "none ran");
            double gf = ratio_cell(a, f, c[5], 300);
            if (r) point_cell(r, c[6], 300);
            else snprintf(c[6], 300, "none ran");
            double gr = ratio_cell(a, r, c[7], 300);
            version_cell(a, f, r, c[8], 300);
            add_ref(x, f);
            add_ref(x, r);
            if (!sb_rp_is_gemm(a->p)) continue;
            if (k == 0 && gf > 0) {
                lg += log(gf);
                x->ngemm++;
            }
            if (k == 1 && gr > 0) {
                li += log(gr);
                x->ni8++;
            }
        }
    x->gemm_gain = x->ngemm ? exp(lg / x->ngemm) : 0;
    x->i8_gain = x->ni8 ? exp(li / x->ni8) : 0;
    if (s && rows) {
        for (int j = 0; j < NC; j++) cells[j] = hdr[j];
        for (int j = NC; j < NC * (rows + 1); j++) cells[j] = buf[j];
        sb_rp_sink_para(s,
                        "GEMM and inference on %s: at each shape and thread count, the fastest"
                        " implementation that ran AMX, ours or a vendor's (a vendor's stored"
                        " implementation names AMX), against the fastest f32 and the fastest of"
                        " the same precision without AMX. Rates are medians [p10, p90] (GFLOP/s,"
                        " GOP/s for int8, sequences/s for inference); ratios carry the range the"
                        " two spreads give.",
                        x->name);
        s->table(s->ctx, NC, rows, cells);
    }
    free(cells);
    free(buf);
}

/* ---- training ---- */

static int same_config(const sb_rp_trun *a, const sb_rp_trun *b)
{
    return a->batch == b->batch && a->seq == b->seq && a->threads == b->threads &&
        a->ranks == b->ranks && !strcmp(a->model, b->model) && !strcmp(a->data, b->data);
}

/* what keeps two runs of one side from being like for like, "" when nothing */
static void run_mismatch(const sb_rp_trun *a, const sb_rp_trun *r, char *buf, size_t cap)
{
    buf[0] = '\0';
    if (a->batch != r->batch) sb_rp_addf(buf, cap, "batch %d vs %d", a->batch, r->batch);
    if (a->seq != r->seq) sb_rp_addf(buf, cap, "seq %d vs %d", a->seq, r->seq);
    if (a->threads != r->threads)
        sb_rp_addf(buf, cap, "threads %d vs %d", a->threads, r->threads);
    if (a->ranks != r->ranks) sb_rp_addf(buf, cap, "ranks %d vs %d", a->ranks, r->ranks);
    if (strcmp(a->model, r->model)) sb_rp_addf(buf, cap, "model %s vs %s", a->model, r->model);
    if (strcmp(a->data, r->data)) sb_rp_addf(buf, cap, "data set %s vs %s", a->data, r->data);
    if (strcmp(a->version, r->version))
        sb_rp_addf(buf, cap, "tool version %s vs %s", a->version, r->version);
}

/* the run of precision dtype and AMX state amx closest to a: like for like
 * first, then the fewest mismatches, then the shortest epoch; -1 none */
static int closest_run(const ax_set *x, const sb_rp_trun *a, const char *dtype, int amx)
{
    int best = -1, bestmis = 0;
    for (int i = 0; i < x->t.n; i++) {
        const sb_rp_trun *r = &x->t.r[i];
        if (x->tamx[i] != amx || strcmp(r->p->dtype, dtype)) continue;
        int mis = (a->batch != r->batch) + (a->seq != r->seq) + (a->threads != r->threads) +
            (a->ranks != r->ranks) + !!strcmp(a->model, r->model) + !!strcmp(a->data, r->data) +
            !!strcmp(a->version, r->version);
        if (best < 0 || mis < bestmis ||
            (mis == bestmis && sb_metric_better_of(r->epoch, x->t.r[best].epoch, 1))) {
            best = i;
            bestmis = mis;
        }
    }
    return best;
}

static int run_noisy(const sb_rp_trun *t)
{
    return (t->step_lo > 0 && t->step_hi / t->step_lo > 1.15) ||
        sb_samples_bimodal(t->steady, t->nsteady, NULL, NULL);
}

/* a run's epoch with the range its steps' p10-p90 give: its epoch lo/hi */
static void epoch_range(const sb_rp_trun *t, double *lo, double *hi)
{
    *lo = t->step > 0 ? t->epoch * t->step_lo / t->step : t->epoch;
    *hi = t->step > 0 ? t->epoch * t->step_hi / t->step : t->epoch;
}

/* how many times faster a is than r, with its range: r's epoch over a's */
static double run_ratio(const sb_rp_trun *a, const sb_rp_trun *r, double *lo, double *hi)
{
    double al, ah, rl, rh;
    epoch_range(a, &al, &ah);
    epoch_range(r, &rl, &rh);
    *lo = ah > 0 ? rl / ah : 0;
    *hi = al > 0 ? rh / al : 0;
    return a->epoch > 0 ? r->epoch / a->epoch : 0;
}

static void run_cell(const sb_rp_trun *t, char *buf, size_t cap)
{
    char d[32], l[32], h[32];
    double lo, hi;
    epoch_range(t, &lo, &hi);
    snprintf(buf, cap, "%s %s [%s, %s]%s", t->p->kernel, sb_rp_dur(t->epoch, d, sizeof d),
             sb_rp_dur(lo, l, sizeof l), sb_rp_dur(hi, h, sizeof h),
             t->projected_squad ? " (SQuAD epoch, projected)" : " (its own epoch, projected)");
}

static void run_ratio_cell(const ax_set *x, const sb_rp_trun *a, const sb_rp_trun *r, char *buf,
                           size_t cap)
{
    double lo, hi, v = run_ratio(a, r, &lo, &hi);
    char test[160];
    if (a->nsteady >= x->min_samples && r->nsteady >= x->min_samples) {
        /* the gate's test on the steady steps, the way the ratio points */
        double p = v >= 1 ? sb_mwu_p_greater(r->steady, r->nsteady, a->steady, a->nsteady)
                          : sb_mwu_p_greater(a->steady, a->nsteady, r->steady, r->nsteady);
        int beyond = v > 1 + x->tol || v < 1 / (1 + x->tol);
        snprintf(test, sizeof test, "%s, p = %.2g; %d and %d steady steps",
                 p >= x->alpha ? "not significant"
                 : beyond      ? "significant"
                               : "within the tolerance",
                 p, a->nsteady, r->nsteady);
    } else {
        snprintf(test, sizeof test, "%d and %d steady steps: too few for a test", a->nsteady,
                 r->nsteady);
    }
    snprintf(buf, cap, "%.2fx [%.2f, %.2f] (%s)%s", v, lo, hi, test,
             run_noisy(a) || run_noisy(r) ? "; noisy: steps far apart, not a finding" : "");
}

/* The training table of one side: a row per AMX run (the fastest of its
 * precision and configuration), against the closest f32 and
 * same-precision runs without AMX; picks the gain the section leads with,
 * at prefer's configuration where one is like for like. */
static void train_table(const sb_rsink *s, ax_set *x, const sb_rp_trun *prefer)
{
    static const char *const hdr[] = {"batch x seq",
                                      "threads",
                                      "with AMX: SQuAD epoch [p10, p90]",
                                      "without AMX: f32",
                                      "AMX vs f32",
                                      "without AMX: the same precision",
                                      "AMX vs the same precision",
                                      "like for like"};
    enum { NC = 8 };
    char(*buf)[400] = calloc((size_t)NC * ((size_t)x->t.n + 1), sizeof *buf);
    const char **cells = calloc((size_t)NC * ((size_t)x->t.n + 1), sizeof *cells);
    int rows = 0, unknown = 0;
    x->lead_amx = x->lead_ref = -1;
    x->train_gain = 0;
    x->train_like = 0;
    for (int i = 0; buf && cells && i < x->t.n; i++) {
        const sb_rp_trun *a = &x->t.r[i];
        unknown += x->tamx[i] < 0;
        if (x->tamx[i] != 1) continue;
        int dup = 0; /* the fastest AMX run of its precision and configuration */
        for (int j = 0; j < x->t.n; j++)
            dup |= j != i && x->tamx[j] == 1 && !strcmp(x->t.r[j].p->dtype, a->p->dtype) &&
                same_config(a, &x->t.r[j]) && !strcmp(a->version, x->t.r[j].version) &&
                x->t.r[j].epoch < a->epoch;
        if (dup) continue;
        int fi = closest_run(x, a, "f32", 0), ri = closest_run(x, a, a->p->dtype, 0);
        char(*c)[400] = &buf[(size_t)(++rows) * NC];
        snprintf(c[0], 400, "%d x %d", a->batch, a->seq);
        snprintf(c[1], 400, "%d", a->threads);
        run_cell(a, c[2], 400);
        char mf[300] = "", mr[300] = "";
        if (fi >= 0) {
            run_cell(&x->t.r[fi], c[3], 400);
            run_ratio_cell(x, a, &x->t.r[fi], c[4], 400);
            run_mismatch(a, &x->t.r[fi], mf, sizeof mf);
        } else {
            snprintf(c[3], 400, "none ran");
            snprintf(c[4], 400, "-");
        }
        if (ri >= 0) {
            run_cell(&x->t.r[ri], c[5], 400);
            run_ratio_cell(x, a, &x->t.r[ri], c[6], 400);
            run_mismatch(a, &x->t.r[ri], mr, sizeof mr);
        } else {
            snprintf(c[5], 400, "none ran");
            snprintf(c[6], 400, "-");
        }
        if (!mf[0] && !mr[0]) snprintf(c[7], 400, "yes");
        else
            snprintf(c[7], 400, "no: %s%.150s%s%s%.150s", mf[0] ? "against f32 " : "", mf,
                     mf[0] && mr[0] ? "; " : "", mr[0] ? "against the same precision " : "", mr);
        /* the lead: like for like against f32, at prefer's configuration
         * first, then the most threads, then the largest batch */
        if (fi < 0) continue;
        const sb_rp_trun *f = &x->t.r[fi];
        int like = !mf[0];
        const sb_rp_trun *cur = x->lead_amx >= 0 ? &x->t.r[x->lead_amx] : NULL;
        int score = like * 8 + (prefer && same_config(a, prefer)) * 4,
            cscore = cur ? x->train_like * 8 + (prefer && same_config(cur, prefer)) * 4 : -1;
        if (!cur || score > cscore ||
            (score == cscore && (a->threads > cur->threads ||
                                 (a->threads == cur->threads && a->batch > cur->batch)))) {
            double lo, hi;
            x->lead_amx = i;
            x->lead_ref = fi;
            x->train_like = like;
            x->train_gain = run_ratio(a, f, &lo, &hi);
        }
    }
    if (s && rows) {
        for (int j = 0; j < NC; j++) cells[j] = hdr[j];
        for (int j = NC; j < NC * (rows + 1); j++) cells[j] = buf[j];
        sb_rp_sink_para(s,
                        "Training on %s: each AMX run against the closest runs without AMX, the"
                        " same batch, seq, threads and tool version where one ran (else the"
                        " difference is named in the last column). Epochs are medians of the"
                        " steady steps [p10, p90]; ratios carry the range the two spreads give.",
                        x->name);
        s->table(s->ctx, NC, rows, cells);
    }
    if (s && unknown)
        sb_rp_sink_para(s,
                        "%d vendor training run(s) of bf16 or int8 stored no implementation: "
                        "whether they ran AMX is not known, so they are in neither column.",
                        unknown);
    free(cells);
    free(buf);
}

/* "2.10x in training (amx-bf16 against avx512-f32, batch 8, seq 384, 2
 * threads, one tool version)" and the GEMM gain, into buf */
static void gains_words(const ax_set *x, char *buf, size_t cap)
{
    buf[0] = '\0';
    if (x->lead_amx >= 0) {
        const sb_rp_trun *a = &x->t.r[x->lead_amx], *f = &x->t.r[x->lead_ref];
        char mis[300];
        run_mismatch(a, f, mis, sizeof mis);
        double lo, hi;
        run_ratio(a, f, &lo, &hi);
        sb_rp_addf(buf, cap,
                   "%.2fx [%.2f, %.2f] in training (%s against %s, batch %d, seq %d, %d threads,"
                   " %s)",
                   x->train_gain, lo, hi, a->p->kernel, f->p->kernel, a->batch, a->seq, a->threads,
                   mis[0] ? mis : "one tool version: like for like");
    }
    if (x->ngemm)
        sb_rp_addf(buf, cap,
                   "%.2fx at GEMM (AMX bf16 against the fastest f32 without AMX, geometric mean"
                   " over %d shape and thread row(s))",
                   x->gemm_gain, x->ngemm);
    if (x->ni8)
        sb_rp_addf(buf, cap, "%.2fx at int8 GEMM (AMX int8 against int8 without AMX, over %d)",
                   x->i8_gain, x->ni8);
}

/* ---- across the sides: what is not AMX ---- */

/* Kernels without AMX that both sides ran, where they differ beyond noise:
 * that part of the two sides' ratio is not AMX. x ran AMX, y did not; xc:
 * x is the candidate. Training runs of one kernel at one configuration,
 * then GEMM points of one kernel, shape and threads (geometric mean, the
 * rows beyond noise by the gate's test and tolerance). */
static void not_amx(const sb_headline_in *in, const sb_rsink *s, const ax_set *x,
                    const ax_set *y, int xc, const sb_headline_out *hl)
{
    const char *side = xc ? "the candidate" : "the baseline";
    /* the gate's tolerance: beyond it, and beyond noise, is a difference */
    const double g_tol = in->go ? in->go->tolerance : 0.05;
    char line[2000] = "";
    int said = 0;
    for (int i = 0; i < x->t.n; i++) {
        const sb_rp_trun *a = &x->t.r[i];
        if (x->tamx[i] != 0) continue;
        for (int j = 0; j < y->t.n; j++) {
            const sb_rp_trun *b = &y->t.r[j];
            if (strcmp(a->p->kernel, b->p->kernel) || !same_config(a, b)) continue;
            double lo, hi, v = run_ratio(a, b, &lo, &hi);
            int beyond = (v > 1 + g_tol && lo > 1) || (v < 1 / (1 + g_tol) && hi < 1);
            char vs[160] = "";
            if (strcmp(a->version, b->version))
                snprintf(vs, sizeof vs, ", tool version %s vs %s", a->version, b->version);
            if (beyond && v > 1)
                sb_rp_addf(line, sizeof line,
                           "%s is already %.2fx [%.2f, %.2f] faster on %s (training, batch %d, seq"
                           " %d, %d threads%s): that much of the gap is not AMX",
                           a->p->kernel, v, lo, hi, side, a->batch, a->seq, a->threads, vs);
            else if (beyond)
                sb_rp_addf(line, sizeof line,
                           "%s is %.2fx [%.2f, %.2f] slower on %s (training, batch %d, seq %d, %d"
                           " threads%s): the gap understates AMX by that much",
                           a->p->kernel, 1 / v, 1 / hi, 1 / lo, side, a->batch, a->seq, a->threads,
                           vs);
            else
                sb_rp_addf(line, sizeof line,
                           "%s trains level within noise on both sides (%.2fx [%.2f, %.2f])",
                           a->p->kernel, v, lo, hi);
            said++;
        }
    }
    /* GEMM: each kernel without AMX that both ran at a shape and threads */
    double alpha = in->go ? in->go->alpha : 0.01;
    for (int i = 0; i < x->n; i++) {
        const ax_pt *a = &x->a[i];
        /* the kernels the rows above hold AMX against */
        if (a->amx != 0 || !sb_rp_is_gemm(a->p) || !is_ref(x, a->p->kernel)) continue;
        int first = 1;
        for (int k = 0; k < i; k++) first &= strcmp(x->a[k].p->kernel, a->p->kernel) != 0;
        if (!first) continue;
        double lg = 0;
        int n = 0, up = 0, down = 0;
        for (int k = i; k < x->n; k++) {
            const ax_pt *p = &x->a[k];
            if (strcmp(p->p->kernel, a->p->kernel) || !sb_rp_is_gemm(p->p)) continue;
            for (int j = 0; j < y->n; j++) {
                const ax_pt *q = &y->a[j];
                if (q->amx != 0 || strcmp(q->p->kernel, p->p->kernel) || !sb_rp_is_gemm(q->p) ||
                    strcmp(q->p->shape, p->p->shape) || q->p->threads != p->p->threads)
                    continue;
                double v = p->v / q->v;
                lg += log(v);
                n++;
                if (p->p->nsamples < 6 || q->p->nsamples < 6 || noisy(p->p) || noisy(q->p))
                    break;
                /* faster: x's seconds below y's */
                if (v > 1 + g_tol && sb_mwu_p_greater(q->p->samples, q->p->nsamples,
                                                      p->p->samples, p->p->nsamples) < alpha)
                    up++;
                if (v < 1 / (1 + g_tol) && sb_mwu_p_greater(p->p->samples, p->p->nsamples,
                                                            q->p->samples, q->p->nsamples) < alpha)
                    down++;
                break;
            }
        }
        if (!n) continue;
        double g = exp(lg / n);
        /* said when most rows differ one way beyond noise */
        if (up * 2 > n && g > 1 + g_tol)
            sb_rp_addf(line, sizeof line,
                       "at GEMM, %s is already %.2fx faster on %s (geometric mean over %d shape and"
                       " thread row(s), %d of them beyond noise): that much of the gap is not AMX",
                       a->p->kernel, g, side, n, up);
        else if (down * 2 > n && g < 1 / (1 + g_tol))
            sb_rp_addf(line, sizeof line,
                       "at GEMM, %s is %.2fx slower on %s (over %d row(s), %d of them beyond"
                       " noise): the gap understates AMX by that much",
                       a->p->kernel, 1 / g, side, n, down);
        else
            continue;
        said++;
    }
    if (said)
        sb_rp_sink_para(s, "Kernels that do not use AMX, on both sides: %s.", line);
    /* the headline's ratio taken apart, where its two runs allow it */
    const sb_rp_trun *yb = y->t.best[SB_RP_NPREC] >= 0 ? &y->t.r[y->t.best[SB_RP_NPREC]] : NULL;
    int xbi = x->t.best[SB_RP_NPREC];
    if (!xc || !hl || !(hl->ratio > 0) || !yb || xbi < 0 || x->tamx[xbi] != 1) return;
    const sb_rp_trun *xb = &x->t.r[xbi];
    for (int i = 0; i < x->t.n; i++) {
        const sb_rp_trun *z = &x->t.r[i];
        /* z must be known not to run AMX (a vendor's bf16 may have) */
        if (x->tamx[i] != 0 || strcmp(z->p->kernel, yb->p->kernel) || !same_config(z, xb) ||
            !same_config(z, yb) || strcmp(z->version, xb->version))
            continue;
        char vs[160] = "";
        if (strcmp(z->version, yb->version))
            snprintf(vs, sizeof vs, "; tool version %s vs %s", z->version, yb->version);
        sb_rp_sink_para(s,
                        "The headline's %.2fx, taken apart (projected: a product of measured"
                        " ratios): %.2fx is %s itself running faster on the candidate (not AMX%s),"
                        " times %.2fx that %s gives over %s on the candidate (AMX and precision),"
                        " at batch %d, seq %d, %d threads.",
                        hl->ratio, yb->epoch / z->epoch, z->p->kernel, vs, z->epoch / xb->epoch,
                        xb->p->kernel, z->p->kernel, xb->batch, xb->seq, xb->threads);
        return;
    }
    int unknown = 0;
    for (int i = 0; i < x->t.n; i++)
        unknown |= x->tamx[i] < 0 && !strcmp(x->t.r[i].p->kernel, yb->p->kernel) &&
            same_config(&x->t.r[i], xb);
    sb_rp_sink_para(s,
                    "The headline's %.2fx sets %s on the candidate against %s on the baseline;"
                    " it cannot be taken apart into AMX and the rest: %s.",
                    hl->ratio, xb->p->kernel, yb->p->kernel,
                    unknown ? "the candidate's run of the baseline's kernel stored no"
                              " implementation, so whether it ran AMX is not known"
                            : "the candidate has no run without AMX of the baseline's kernel"
                              " at the same batch, seq, threads and tool version");
}

/* ---- the study's 8x ---- */

static void study_8x(const sb_headline_in *in, const sb_rsink *s, const ax_set *x)
{
    const char *path = in->study_csv ? in->study_csv : SB_SOURCE_DIR "/results/reference/study.csv";
    sb_study_point *v = NULL;
    int n = 0;
    sb_err e = {0};
    if (sb_study_load(path, &v, &n, &e)) return;
    double spr = 0, icx = 0;
    for (int i = 0; i < n; i++) {
        if (strcmp(v[i].kind, "measured") || v[i].nodes != 1) continue;
        if (strstr(v[i].machine, "Sapphire")) spr = v[i].epoch_s;
        if (strstr(v[i].machine, "Ice")) icx = v[i].epoch_s;
    }
    free(v);
    if (!(spr > 0 && icx > 0) || (!(x->train_gain > 0) && !x->ngemm)) return;
    double study = icx / spr, g = x->train_gain > 0 ? x->train_gain : x->gemm_gain;
    char a[32], b[32], gains[1200];
    gains_words(x, gains, sizeof gains);
    sb_rp_sink_para(
        s,
        "Against the study's %.0fx (results/reference/study.csv: one Ice Lake node %s, one"
        " Sapphire Rapids node %s, per-rank batch 32, 2 ranks x 24 threads): that figure changes"
        " the whole node at once, its cores, clock, memory (DDR4 to DDR5), precision and AMX, and"
        " ran PyTorch with IPEX, not this trainer. What one machine isolates here, on %s, is"
        " precision and AMX together: %s. Were the rest to multiply with it, cores, clock and memory"
        " would have to give %.1fx (projected: %.0f / %.2f) for the study's figure; these records,"
        " 2-core guests, do not vary them and cannot measure that part.",
        study, sb_rp_dur(icx, a, sizeof a), sb_rp_dur(spr, b, sizeof b), x->name, gains,
        study / g, study, g);
}

/* ---- the section ---- */

static int machine_same_model(const sb_rp_model *mo, const sb_ptset *bs, const sb_ptset *cs,
                              char *what, size_t cap)
{
    what[0] = '\0';
    if (!bs->n || !cs->n || bs->p[0].machine_id == cs->p[0].machine_id) return 0;
    json_t *m[2] = {NULL, NULL};
    sb_err e = {0};
    int same = !sb_rp_machine(mo, bs->p[0].machine_id, &m[0], &e) &&
        !sb_rp_machine(mo, cs->p[0].machine_id, &m[1], &e) && m[0] && m[1];
    static const char *const keys[] = {"vendor", "family", "model"};
    for (int k = 0; same && k < 3; k++) {
        json_t *a = json_object_get(m[0], keys[k]), *b = json_object_get(m[1], keys[k]);
        same = a && b && json_equal(a, b);
    }
    if (same)
        snprintf(what, cap, "family %lld model %lld",
                 (long long)json_integer_value(json_object_get(m[0], "family")),
                 (long long)json_integer_value(json_object_get(m[0], "model")));
    json_decref(m[0]);
    json_decref(m[1]);
    return same;
}

/* one side's section; other: the other side when it ran no AMX (NULL
 * otherwise), xc: this side is the candidate */
static void side_section(const sb_headline_in *in, const sb_rsink *s, ax_set *x,
                         const ax_set *other, int xc, const sb_headline_out *hl)
{
    char title[200], gains[1200], model[80];
    snprintf(title, sizeof title, "What AMX gives on %s", x->name);
    s->heading(s->ctx, 3, title);
    const sb_rp_trun *prefer =
        other && other->t.best[SB_RP_NPREC] >= 0 ? &other->t.r[other->t.best[SB_RP_NPREC]] : NULL;
    /* the gains first (the tables compute them), said before the tables */
    rates_table(NULL, x);
    train_table(NULL, x, prefer);
    gains_words(x, gains, sizeof gains);
    if (other) {
        int one = machine_same_model(in->m, xc ? other->set : x->set, xc ? x->set : other->set,
                                     model, sizeof model);
        if (one)
            sb_rp_sink_para(s,
                            "The same CPU model (%s) without AMX (%s) and with it (%s): what AMX"
                            " gives is measured on %s alone, like for like: %s. The ratios"
                            " between the two sides hold more than AMX (below).",
                            model, other->name, x->name, x->name, gains[0] ? gains : "nothing");
        else
            sb_rp_sink_para(s,
                            "%s ran AMX and %s did not: what AMX gives is measured on %s alone,"
                            " like for like: %s. The ratios between the two machines hold more"
                            " than AMX (below).",
                            x->name, other->name, x->name, gains[0] ? gains : "nothing");
        not_amx(in, s, x, other, xc, hl);
    } else if (gains[0]) {
        sb_rp_sink_para(s, "On %s, like for like, AMX gives %s.", x->name, gains);
    }
    rates_table(s, x);
    train_table(s, x, prefer);
    study_8x(in, s, x);
}

void sb_report_generations(const sb_headline_in *in, const sb_rsink *s,
                           const sb_headline_out *hl)
{
    ax_set b, c;
    ax_load(in, in->bs, in->bname, &b);
    int64_t bm = in->bs->n ? in->bs->p[0].machine_id : 0,
            cm = in->cs->n ? in->cs->p[0].machine_id : 0;
    /* one machine on both sides: said once */
    int one = in->cs == in->bs || (bm && bm == cm);
    if (one) {
        if (b.has_amx) side_section(in, s, &b, NULL, 0, hl);
        ax_free(&b);
        return;
    }
    ax_load(in, in->cs, in->cname, &c);
    if (b.has_amx) side_section(in, s, &b, c.has_amx ? NULL : &c, 0, hl);
    if (c.has_amx) side_section(in, s, &c, b.has_amx ? NULL : &b, 1, hl);
    ax_free(&b);
    ax_free(&c);
}

void sb_report_amx_lead(const sb_headline_in *in, const sb_rsink *s)
{
    char model[80], gains[1200];
    if (!machine_same_model(in->m, in->bs, in->cs, model, sizeof model)) return;
    ax_set b, c;
    ax_load(in, in->bs, in->bname, &b);
    ax_load(in, in->cs, in->cname, &c);
    if (b.has_amx != c.has_amx) {
        ax_set *x = c.has_amx ? &c : &b, *y = c.has_amx ? &b : &c;
        const sb_rp_trun *prefer =
            y->t.best[SB_RP_NPREC] >= 0 ? &y->t.r[y->t.best[SB_RP_NPREC]] : NULL;
        rates_table(NULL, x);
        train_table(NULL, x, prefer);
        gains_words(x, gains, sizeof gains);
        if (gains[0])
            sb_rp_sink_para(s,
                            "First, what AMX gives: both sides are one CPU model (%s), with AMX on"
                            " the %s only. On %s alone, like for like, AMX gives %s. Every ratio"
                            " between the two sides below holds more than AMX: see What AMX"
                            " gives.",
                            model, c.has_amx ? "candidate" : "baseline", x->name, gains);
    }
    ax_free(&b);
    ax_free(&c);
}
