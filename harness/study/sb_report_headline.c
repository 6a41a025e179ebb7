#include "sb_report_headline.h"
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sb_query.h"
#include "sb_scaling.h"
#include "sb_stats.h"
#include "sb_text.h"

#ifndef SB_SOURCE_DIR
#define SB_SOURCE_DIR "."
#endif

static const char *const g_prec[] = {"f32", "bf16", "int8"};
/* a stored text cut to n bytes between characters, for "%.*s" */
#define CUT(s, n) sb_text_prefix((s), (n)), (s)
#define NPREC 3

/* ---- small text helpers ---- */

static void sink_para(const sb_rsink *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sink_para(const sb_rsink *s, const char *fmt, ...)
{
    char *buf = NULL;
    va_list ap;
    va_start(ap, fmt);
    int n = vasprintf(&buf, fmt, ap);
    va_end(ap);
    if (n >= 0) s->para(s->ctx, buf);
    free(buf);
}

/* appends to a "; "-separated list */
static void addf(char *buf, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void addf(char *buf, size_t cap, const char *fmt, ...)
{
    size_t l = strlen(buf);
    if (l + 3 >= cap) return;
    if (l) {
        memcpy(buf + l, "; ", 3);
        l += 2;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + l, cap - l, fmt, ap);
    va_end(ap);
}

/* "26 min", "3 h 30 min", "7 min 30 s", "41 s" */
static const char *dur(double s, char *buf, size_t cap)
{
    if (!(s > 0)) {
        snprintf(buf, cap, "-");
        return buf;
    }
    long t = lround(s);
    if (t >= 3600) {
        long m = lround(s / 60); /* to the minute */
        snprintf(buf, cap, m % 60 ? "%ld h %ld min" : "%ld h", m / 60, m % 60);
    } else if (t >= 60)
        snprintf(buf, cap, t % 60 ? "%ld min %ld s" : "%ld min", t / 60, t % 60);
    else
        snprintf(buf, cap, "%.3g s", s);
    return buf;
}

static void speed_words(double speed, char *buf, size_t cap)
{
    if (!(speed > 0))
        snprintf(buf, cap, "-");
    else if (speed >= 1)
        snprintf(buf, cap, "%.2fx faster", speed);
    else
        snprintf(buf, cap, "%.2fx slower", 1 / speed);
}

/* "batch=4" out of "model=distilbert-base batch=4 seq=384"; -1 when absent */
static int shape_int(const char *shape, const char *key)
{
    size_t kl = strlen(key);
    for (const char *p = shape; p && *p;) {
        if (!strncmp(p, key, kl) && p[kl] == '=') return atoi(p + kl + 1);
        p = strchr(p, ' ');
        if (p) p++;
    }
    return -1;
}

static int is_ok(const sb_pt *p) { return p->status && !strcmp(p->status, "ok"); }

/* ---- a training point as the headline reads it ---- */

typedef struct trun {
    const sb_pt *p;
    int batch, seq, stride, ranks, threads, nsteady;
    long features;   /* of the run's own data set; 0 unknown */
    char data[64];   /* the run's data set ("squad-synth", "squad") */
    char model[64];  /* "distilbert-base", "tiny" */
    char version[64];
    double step, step_lo, step_hi; /* median steady step and p10/p90 (s) */
    double *steady;
    long squad_steps; /* steps of a SQuAD v1.1 epoch at this batch and rank count; 0: none */
    double epoch;     /* SQuAD epoch (projected) or, without one, the run's own */
    int projected_squad;
    double own_epoch; /* the run's epoch_seconds metric */
} trun;

static void trun_load(const sb_headline_in *in, const sb_pt *p, trun *t)
{
    memset(t, 0, sizeof *t);
    t->p = p;
    t->batch = shape_int(p->shape, "batch");
    t->seq = shape_int(p->shape, "seq");
    t->stride = -1;
    t->ranks = (p->ppn > 0 ? p->ppn : 1) * (p->nodes > 0 ? p->nodes : 1);
    t->threads = p->threads;
    json_t *doc = NULL;
    sb_err e = {0};
    if (!sb_db_point_result(in->db, p->id, &doc, &e) && doc) {
        json_t *c = json_object_get(doc, "config");
        const char *d = json_string_value(json_object_get(c, "data"));
        snprintf(t->data, sizeof t->data, "%s", d ? d : "");
        const char *mo = json_string_value(json_object_get(c, "model"));
        snprintf(t->model, sizeof t->model, "%s", mo ? mo : "");
        if (json_is_integer(json_object_get(c, "stride")))
            t->stride = (int)json_integer_value(json_object_get(c, "stride"));
        if (json_is_integer(json_object_get(c, "features")))
            t->features = (long)json_integer_value(json_object_get(c, "features"));
        if (t->batch < 0 && json_is_integer(json_object_get(c, "batch")))
            t->batch = (int)json_integer_value(json_object_get(c, "batch"));
        if (t->seq < 0 && json_is_integer(json_object_get(c, "seq")))
            t->seq = (int)json_integer_value(json_object_get(c, "seq"));
    }
    json_decref(doc);
    sb_sweep_header h;
    int found = 0;
    if (p->sweep_id && !sb_db_sweep_header(in->db, p->sweep_id, &h, &found, &e) && found) {
        snprintf(t->version, sizeof t->version, "%s", h.tool_version ? h.tool_version : "");
        sb_sweep_header_free(&h);
    }
    /* the first step pays for warming up: the trainer's own epoch figure
     * leaves it out, and so does this */
    int skip = p->nsamples >= 3 ? 1 : 0;
    t->nsteady = p->nsamples - skip;
    t->steady = t->nsteady > 0 ? malloc(sizeof *t->steady * (size_t)t->nsteady) : NULL;
    if (t->steady) memcpy(t->steady, p->samples + skip, sizeof *t->steady * (size_t)t->nsteady);
    else t->nsteady = 0;
    const sb_metric_val *ms = sb_pt_metric(p, "step_seconds");
    if (t->nsteady) {
        t->step = sb_median(t->steady, t->nsteady);
        t->step_lo = sb_quantile(t->steady, t->nsteady, 0.1);
        t->step_hi = sb_quantile(t->steady, t->nsteady, 0.9);
    } else if (ms) {
        t->step = t->step_lo = t->step_hi = ms->value;
    }
    const sb_metric_val *me = sb_pt_metric(p, "epoch_seconds");
    t->own_epoch = me ? me->value : 0;
    if (!t->model[0]) {
        const char *mo = strstr(p->shape, "model=");
        if (mo) snprintf(t->model, sizeof t->model, "%.*s", (int)strcspn(mo + 6, " "), mo + 6);
    }
    /* run_qa.py's feature count is known at 384/128, and the study's model
     * is DistilBERT-base: elsewhere the run's own epoch stands, said so */
    if (!strcmp(t->model, "distilbert-base") && t->seq == 384 && t->stride == 128 &&
        t->batch > 0 && t->step > 0) {
        t->squad_steps = sb_scaling_steps(SB_SQUAD_V11_TRAIN_FEATURES, t->batch, t->ranks);
        t->epoch = (double)t->squad_steps * t->step;
        t->projected_squad = 1;
    } else {
        t->epoch = t->own_epoch;
    }
}

typedef struct tside {
    trun *r;
    int n;
    int best[NPREC + 1]; /* index into r per precision, [NPREC] any; -1 none */
    int noisy, tested;   /* points whose samples form two groups, of those with enough */
} tside;

static void tside_load(const sb_headline_in *in, const sb_ptset *set, tside *s)
{
    memset(s, 0, sizeof *s);
    for (int k = 0; k <= NPREC; k++) s->best[k] = -1;
    s->r = calloc((size_t)set->n + 1, sizeof *s->r);
    for (int i = 0; s->r && i < set->n; i++) {
        const sb_pt *p = &set->p[i];
        if (p->nsamples >= 6) {
            s->tested++;
            s->noisy += sb_samples_bimodal(p->samples, p->nsamples, NULL, NULL);
        }
        if (strcmp(p->workload, "train") || !is_ok(p)) continue;
        trun *t = &s->r[s->n];
        trun_load(in, p, t);
        if (!(t->epoch > 0)) {
            free(t->steady);
            continue;
        }
        s->n++;
    }
    /* a run projected onto SQuAD outranks one that is not (its own data set
     * is another epoch); among like ones the shortest epoch */
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < s->n; i++) {
            const trun *t = &s->r[i];
            if (!pass && !t->projected_squad) continue;
            for (int k = 0; k <= NPREC; k++) {
                if (k < NPREC && strcmp(t->p->dtype ? t->p->dtype : "", g_prec[k])) continue;
                if (pass && s->best[k] >= 0 && s->r[s->best[k]].projected_squad) continue;
                if (s->best[k] < 0 || t->epoch < s->r[s->best[k]].epoch) s->best[k] = i;
            }
        }
}

static void tside_free(tside *s)
{
    for (int i = 0; s->r && i < s->n; i++) free(s->r[i].steady);
    free(s->r);
}

/* Every way the two runs differ that bears on the ratio, "; "-separated. */
static void mismatches(const trun *b, const trun *c, const tside *bs, const tside *cs, char *buf,
                       size_t cap)
{
    buf[0] = '\0';
    if (strcmp(b->p->dtype, c->p->dtype))
        addf(buf, cap, "precision %s vs %s", c->p->dtype, b->p->dtype);
    if (strcmp(b->model, c->model))
        addf(buf, cap, "model %s vs %s", c->model[0] ? c->model : "?",
             b->model[0] ? b->model : "?");
    if (b->batch != c->batch) addf(buf, cap, "batch %d vs %d", c->batch, b->batch);
    if (b->seq != c->seq) addf(buf, cap, "seq %d vs %d", c->seq, b->seq);
    if (b->stride != c->stride) addf(buf, cap, "stride %d vs %d", c->stride, b->stride);
    if (b->threads != c->threads) addf(buf, cap, "threads %d vs %d", c->threads, b->threads);
    if (b->ranks != c->ranks) addf(buf, cap, "ranks %d vs %d", c->ranks, b->ranks);
    if (strcmp(b->data, c->data) || b->features != c->features)
        addf(buf, cap, "data set %s (%ld features) vs %s (%ld)", c->data[0] ? c->data : "?",
             c->features, b->data[0] ? b->data : "?", b->features);
    if (strcmp(b->version, c->version))
        addf(buf, cap, "tool version %s vs %s", c->version[0] ? c->version : "?",
             b->version[0] ? b->version : "?");
    if (b->projected_squad != c->projected_squad)
        addf(buf, cap, "only the %s is projected onto SQuAD", b->projected_squad ? "baseline"
                                                                                : "candidate");
    /* a host that was busy: samples in two groups (the gate's "noisy"), or
     * training steps far apart */
    const tside *sides[2] = {cs, bs};
    const trun *runs[2] = {c, b};
    for (int k = 0; k < 2; k++) {
        const char *who = k ? "baseline" : "candidate";
        if (sides[k]->noisy)
            addf(buf, cap, "noisy host: the %s's samples form two groups on %d of %d points",
                 who, sides[k]->noisy, sides[k]->tested);
        if (runs[k]->step_lo > 0 && runs[k]->step_hi / runs[k]->step_lo > 1.15)
            addf(buf, cap, "noisy host: the %s's steps range %.2f-%.2f s", who, runs[k]->step_lo,
                 runs[k]->step_hi);
    }
}

/* "2.46x faster (95% interval 2.1-2.8x)" or "... (too few samples: ...)". */
static void ratio_text(const sb_headline_in *in, const trun *b, const trun *c, char *buf,
                       size_t cap, double *ratio)
{
    *ratio = b->epoch > 0 && c->epoch > 0 ? b->epoch / c->epoch : 0;
    char w[64];
    speed_words(*ratio, w, sizeof w);
    /* the epochs are step times x steps: the ratio's uncertainty is the
     * step times' */
    double scale = c->step > 0 && b->step > 0 ? (*ratio) * c->step / b->step : 0;
    int min = in->go ? in->go->min_samples : 6;
    if (b->nsteady >= min && c->nsteady >= min && scale > 0) {
        double lo, hi;
        double conf = 1 - 2 * (in->go ? in->go->alpha : 0.01);
        sb_bootstrap_ratio(b->steady, b->nsteady, c->steady, c->nsteady, conf, 2000, 42, &lo, &hi);
        double pf = sb_mwu_p_greater(b->steady, b->nsteady, c->steady, c->nsteady),
               ps = sb_mwu_p_greater(c->steady, c->nsteady, b->steady, b->nsteady);
        double alpha = in->go ? in->go->alpha : 0.01;
        snprintf(buf, cap, "%s (%.0f%% interval %.2f-%.2fx; %s)", w, conf * 100, lo * scale,
                 hi * scale,
                 pf < alpha || ps < alpha ? "significant by the gate's test"
                                          : "not significant by the gate's test");
    } else if (scale > 0 && b->step_lo > 0 && c->step_hi > 0) {
        snprintf(buf, cap,
                 "%s (too few samples for a test or an interval: %d and %d steady steps, %d a"
                 " side needed; the steps' p10-p90 ranges give %.2f-%.2fx)",
                 w, c->nsteady, b->nsteady, min, b->step_lo / c->step_hi * scale,
                 b->step_hi / c->step_lo * scale);
    } else {
        snprintf(buf, cap, "%s (too few samples)", w);
    }
}

static void run_cell(const trun *t, char *buf, size_t cap)
{
    char d[64];
    snprintf(buf, cap, "%s (%s, %s%s)", dur(t->epoch, d, sizeof d), t->p->kernel, t->p->dtype,
             t->projected_squad ? ", projected" : ", the run's own epoch, projected");
}

/* ---- inference: each side's fastest kernel per precision ---- */

typedef struct irun {
    const sb_pt *p;
    int batch, seq, questions;
    double sps;
    char quant[32], attention[16], data[64], version[64];
} irun;

static void irun_load(const sb_headline_in *in, const sb_pt *p, irun *r)
{
    memset(r, 0, sizeof *r);
    r->p = p;
    r->batch = shape_int(p->shape, "batch");
    r->seq = shape_int(p->shape, "seq");
    r->sps = sb_pt_metric(p, "sequences_per_s")->value;
    json_t *doc = NULL;
    sb_err e = {0};
    if (!sb_db_point_result(in->db, p->id, &doc, &e) && doc) {
        json_t *c = json_object_get(doc, "config");
        const char *q = json_string_value(json_object_get(c, "quant")),
                   *a = json_string_value(json_object_get(c, "attention")),
                   *d = json_string_value(json_object_get(c, "data"));
        snprintf(r->quant, sizeof r->quant, "%s", q ? q : "");
        snprintf(r->attention, sizeof r->attention, "%s", a ? a : "");
        snprintf(r->data, sizeof r->data, "%s", d ? d : "");
        if (r->batch < 0) r->batch = (int)json_integer_value(json_object_get(c, "batch"));
        if (r->seq < 0) r->seq = (int)json_integer_value(json_object_get(c, "seq"));
    }
    json_decref(doc);
    sb_sweep_header h;
    int found = 0;
    if (p->sweep_id && !sb_db_sweep_header(in->db, p->sweep_id, &h, &found, &e) && found) {
        snprintf(r->version, sizeof r->version, "%s", h.tool_version ? h.tool_version : "");
        sb_sweep_header_free(&h);
    }
}

/* the fastest ok inference point of a precision (sequences/s) */
static const sb_pt *fastest_infer(const sb_ptset *s, const char *dtype)
{
    const sb_pt *best = NULL;
    for (int i = 0; i < s->n; i++) {
        const sb_pt *p = &s->p[i];
        const sb_metric_val *m = sb_pt_metric(p, "sequences_per_s");
        if (strcmp(p->workload, "infer") || !is_ok(p) || !m || !p->dtype || strcmp(p->dtype, dtype))
            continue;
        if (!best || m->value > sb_pt_metric(best, "sequences_per_s")->value) best = p;
    }
    return best;
}

static void infer_headline(const sb_headline_in *in, const sb_rsink *s)
{
    static const char *const hdr[] = {"precision", "baseline: best kernel",
                                      "candidate: best kernel", "candidate vs baseline",
                                      "not like for like"};
    const char *cells[5 * (NPREC + 1)];
    char buf[5 * (NPREC + 1)][600];
    int rows = 0;
    for (int j = 0; j < 5; j++) cells[j] = hdr[j];
    for (int k = 0; k < NPREC; k++) {
        const sb_pt *pb = fastest_infer(in->bs, g_prec[k]), *pc = fastest_infer(in->cs, g_prec[k]);
        if (!pb && !pc) continue;
        irun b, c;
        if (pb) irun_load(in, pb, &b);
        if (pc) irun_load(in, pc, &c);
        rows++;
        char(*r)[600] = &buf[rows * 5];
        snprintf(r[0], 600, "%s", g_prec[k]);
        const irun *sd[2] = {pb ? &b : NULL, pc ? &c : NULL};
        for (int q = 0; q < 2; q++) {
            const irun *x = sd[q];
            if (!x)
                snprintf(r[1 + q], 600, "not available (no inference point)");
            else
                snprintf(r[1 + q], 600, "%s %.*f sequences/s (batch %d, %d threads%s%s%s%s)",
                         x->p->kernel, x->sps >= 100 ? 0 : 2, x->sps, x->batch, x->p->threads,
                         x->quant[0] && strcmp(x->quant, "none") ? ", quant " : "",
                         x->quant[0] && strcmp(x->quant, "none") ? x->quant : "",
                         x->attention[0] ? ", attention " : "", x->attention);
        }
        r[4][0] = '\0';
        if (pb && pc) {
            char w[64];
            speed_words(c.sps / b.sps, w, sizeof w);
            int min = in->go ? in->go->min_samples : 6;
            double alpha = in->go ? in->go->alpha : 0.01;
            if (b.batch == c.batch && pb->nsamples >= min && pc->nsamples >= min) {
                double pf = sb_mwu_p_greater(pb->samples, pb->nsamples, pc->samples, pc->nsamples),
                       ps = sb_mwu_p_greater(pc->samples, pc->nsamples, pb->samples, pb->nsamples);
                snprintf(r[3], 600, "%s (%s)", w,
                         pf < alpha || ps < alpha ? "significant" : "not significant");
            } else {
                snprintf(r[3], 600, "%s (not tested: %s)", w,
                         b.batch != c.batch ? "batches differ" : "too few samples");
            }
            if (b.batch != c.batch) addf(r[4], 600, "batch %d vs %d", c.batch, b.batch);
            if (b.seq != c.seq) addf(r[4], 600, "seq %d vs %d", c.seq, b.seq);
            if (pb->threads != pc->threads)
                addf(r[4], 600, "threads %d vs %d", pc->threads, pb->threads);
            if (strcmp(b.quant, c.quant)) addf(r[4], 600, "quant %s vs %s", c.quant, b.quant);
            if (strcmp(b.attention, c.attention))
                addf(r[4], 600, "attention %s vs %s", c.attention[0] ? c.attention : "f32",
                     b.attention[0] ? b.attention : "f32");
            if (strcmp(b.data, c.data)) addf(r[4], 600, "data set %s vs %s", c.data, b.data);
            if (strcmp(b.version, c.version))
                addf(r[4], 600, "tool version %s vs %s", c.version, b.version);
        } else {
            snprintf(r[3], 600, "-");
        }
        if (!r[4][0]) snprintf(r[4], 600, pb && pc ? "none" : "-");
        for (int j = 0; j < 5; j++) cells[rows * 5 + j] = r[j];
    }
    if (!rows) return;
    sink_para(s, "Inference (SQuAD question answering, forward only) at each machine's fastest"
                 " kernel per precision, int8 included: sequences/s of the throughput pass.");
    s->table(s->ctx, 5, rows, cells);
}

/* The published study, from results/reference/study.csv. */
static void published(const sb_headline_in *in, const sb_rsink *s)
{
    const char *path = in->study_csv ? in->study_csv : SB_SOURCE_DIR "/results/reference/study.csv";
    sb_study_point *v = NULL;
    int n = 0;
    sb_err e = {0};
    if (sb_study_load(path, &v, &n, &e)) {
        sink_para(s, "The study's published figures could not be read: %s.", e.msg);
        return;
    }
    double spr1 = 0, spr4 = 0, ideal4 = 0, icx = 0;
    for (int i = 0; i < n; i++) {
        int spr = strstr(v[i].machine, "Sapphire") != NULL, ice = strstr(v[i].machine, "Ice") != NULL;
        int meas = !strcmp(v[i].kind, "measured");
        if (spr && meas && v[i].nodes == 1) spr1 = v[i].epoch_s;
        if (spr && meas && v[i].nodes == 4) spr4 = v[i].epoch_s;
        if (spr && !meas && v[i].nodes == 4) ideal4 = v[i].epoch_s;
        if (ice && meas && v[i].nodes == 1) icx = v[i].epoch_s;
    }
    free(v);
    char a[32], b[32], c[32], d[32];
    if (spr1 > 0 && icx > 0)
        sink_para(s,
                  "Published by the study, on other hardware (not measured here; Hugging Face"
                  " blog, 2023, results/reference/study.csv): one epoch of the same job at"
                  " per-rank batch 32, bf16, 2 ranks x 24 threads per node: Sapphire Rapids"
                  " (AMX) %s, Ice Lake %s (%.0fx); 4 Sapphire Rapids nodes x 2 ranks %s"
                  " against an ideal of %s.",
                  dur(spr1, a, sizeof a), dur(icx, b, sizeof b), icx / spr1,
                  dur(spr4, c, sizeof c), dur(ideal4, d, sizeof d));
}

void sb_report_headline(const sb_headline_in *in, const sb_rsink *s, sb_headline_out *out)
{
    tside b, c;
    tside_load(in, in->bs, &b);
    tside_load(in, in->cs, &c);
    s->heading(s->ctx, 2, "Headline: an epoch of SQuAD v1.1 fine-tuning");
    if (!b.n && !c.n) {
        sink_para(s, "Neither side ran a DistilBERT training point: no epoch to compare (run"
                     " `scripts/run-sweep` or `sprbench sweep --workload train` on each machine).");
        infer_headline(in, s);
        published(in, s);
        tside_free(&b);
        tside_free(&c);
        return;
    }
    char d1[32], d2[32], why[1200], rt[400], bc[160], cc[160];
    const trun *bb = b.best[NPREC] >= 0 ? &b.r[b.best[NPREC]] : NULL,
               *cb = c.best[NPREC] >= 0 ? &c.r[c.best[NPREC]] : NULL;
    if (bb && cb) {
        double ratio;
        ratio_text(in, bb, cb, rt, sizeof rt, &ratio);
        mismatches(bb, cb, &b, &c, why, sizeof why);
        out->ratio = ratio;
        if (!bb->projected_squad || !cb->projected_squad) {
            sink_para(s,
                      "Training epoch at each machine's best kernel, on each run's own data set"
                      " (not projected onto SQuAD v1.1: that needs distilbert-base at seq 384 /"
                      " stride 128 on both sides): %s (candidate) %s with %s (%s), %s"
                      " (baseline) %s with %s (%s): the candidate is %s. %s%s.",
                      in->cname, dur(cb->epoch, d1, sizeof d1), cb->p->kernel, cb->p->dtype,
                      in->bname, dur(bb->epoch, d2, sizeof d2), bb->p->kernel, bb->p->dtype, rt,
                      why[0] ? "Not like for like: " : "Like for like", why);
            char w[64];
            speed_words(ratio, w, sizeof w);
            snprintf(out->line, sizeof out->line,
                     "Epoch (each run's own data set, not SQuAD) at each side's best kernel:"
                     " %.*s %s (%.*s) vs %.*s %s (%.*s): the candidate is %s%s%s%.*s",
                     CUT(in->cname, 60), d1, CUT(cb->p->kernel, 60), CUT(in->bname, 60), d2,
                     CUT(bb->p->kernel, 60), w,
                     strstr(rt, "too few") ? ", too few samples for a test" : "",
                     why[0] ? "; not like for like: " : "", CUT(why, 1200));
        } else {
        sink_para(s,
                  "DistilBERT-base fine-tuning, one epoch of SQuAD v1.1's train split (%ld,%03ld"
                  " features at seq 384 / stride 128, as run_qa.py makes them from %ld,%03ld"
                  " questions), projected from the measured step times, at each machine's best"
                  " kernel: %s (candidate) %s with %s (%s), %s (baseline) %s with %s (%s): the"
                  " candidate is %s. %s%s.",
                  SB_SQUAD_V11_TRAIN_FEATURES / 1000, SB_SQUAD_V11_TRAIN_FEATURES % 1000,
                  SB_SQUAD_V11_TRAIN_QUESTIONS / 1000, SB_SQUAD_V11_TRAIN_QUESTIONS % 1000, in->cname,
                  dur(cb->epoch, d1, sizeof d1), cb->p->kernel, cb->p->dtype, in->bname,
                  dur(bb->epoch, d2, sizeof d2), bb->p->kernel, bb->p->dtype, rt,
                  why[0] ? "Not like for like: " : "Like for like: same batch, seq, stride,"
                                                   " threads, ranks, data set and tool version",
                  why);
        char w[64];
        speed_words(ratio, w, sizeof w);
        snprintf(out->line, sizeof out->line,
                 "SQuAD v1.1 epoch (projected) at each side's best kernel: %.*s %s (%.*s) vs %.*s %s"
                 " (%.*s): the candidate is %s%s%s%.*s",
                 CUT(in->cname, 60), d1, CUT(cb->p->kernel, 60), CUT(in->bname, 60), d2,
                 CUT(bb->p->kernel, 60), w,
                 strstr(rt, "too few") ? ", too few samples for a test" : "",
                 why[0] ? "; not like for like: " : "", CUT(why, 1200));
        }
    } else {
        const trun *one = bb ? bb : cb;
        sink_para(s,
                  "Only the %s trained: %s %s with %s (%s) for one epoch of SQuAD v1.1%s. The"
                  " %s has no training point: no ratio (run a training sweep on it at the same"
                  " batch, e.g. `scripts/run-sweep`).",
                  bb ? "baseline" : "candidate", bb ? in->bname : in->cname,
                  dur(one->epoch, d1, sizeof d1), one->p->kernel, one->p->dtype,
                  one->projected_squad ? " (projected from its step times)" : " (its own data set)",
                  bb ? "candidate" : "baseline");
        snprintf(out->line, sizeof out->line,
                 "SQuAD v1.1 epoch (projected): %s %s (%s); the %s did not train, no ratio",
                 bb ? in->bname : in->cname, d1, one->p->kernel, bb ? "candidate" : "baseline");
    }
    /* per precision: each side's best kernel of it */
    static const char *const hdr[] = {"precision", "baseline: best kernel, SQuAD epoch",
                                      "candidate: best kernel, SQuAD epoch",
                                      "candidate vs baseline", "not like for like"};
    const char **cells = calloc(5 * (NPREC + 2), sizeof *cells);
    char (*buf)[1200] = calloc(5 * (NPREC + 2), sizeof *buf);
    int rows = 0;
    /* the same rows as a chart: each side's epoch per precision, the steps'
     * p10-p90 as error bars */
    char *blabels[NPREC + 1];
    double bv[6][NPREC + 1];
    memset(bv, 0, sizeof bv);
    double maxep = 0;
    for (int c5 = 0; cells && buf && c5 < 5; c5++) cells[c5] = hdr[c5];
    for (int pass = 0; cells && buf && pass <= NPREC; pass++) {
        int k = pass == 0 ? NPREC : pass - 1;
        const trun *x = b.best[k] >= 0 ? &b.r[b.best[k]] : NULL,
                   *y = c.best[k] >= 0 ? &c.r[c.best[k]] : NULL;
        if (!x && !y) continue;
        rows++;
        char(*r)[1200] = &buf[rows * 5];
        snprintf(r[0], sizeof r[0], "%s", k == NPREC ? "best of any" : g_prec[k]);
        if (x) run_cell(x, bc, sizeof bc);
        if (y) run_cell(y, cc, sizeof cc);
        snprintf(r[1], sizeof r[1], "%s", x ? bc : "not available (no training point)");
        snprintf(r[2], sizeof r[2], "%s", y ? cc : "not available (no training point)");
        double ratio = 0;
        if (x && y) {
            ratio_text(in, x, y, r[3], sizeof r[3], &ratio);
            mismatches(x, y, &b, &c, r[4], sizeof r[4]);
        } else {
            snprintf(r[3], sizeof r[3], "-");
            snprintf(r[4], sizeof r[4], "-");
        }
        for (int j = 0; j < 5; j++) cells[rows * 5 + j] = r[j];
        const trun *sd[2] = {x, y};
        for (int q = 0; q < 2; q++)
            if (sd[q] && sd[q]->step > 0) {
                bv[3 * q][rows - 1] = sd[q]->epoch;
                bv[3 * q + 1][rows - 1] = sd[q]->epoch * sd[q]->step_lo / sd[q]->step;
                bv[3 * q + 2][rows - 1] = sd[q]->epoch * sd[q]->step_hi / sd[q]->step;
                if (bv[3 * q + 2][rows - 1] > maxep) maxep = bv[3 * q + 2][rows - 1];
            }
        blabels[rows - 1] = NULL;
        if (asprintf(&blabels[rows - 1], "%s: %s / %s", k == NPREC ? "best" : g_prec[k],
                     x ? x->p->kernel : "-", y ? y->p->kernel : "-") < 0)
            blabels[rows - 1] = NULL;
    }
    if (rows) s->table(s->ctx, 5, rows, cells);
    int labels_ok = 1;
    for (int i = 0; i < rows; i++) labels_ok &= blabels[i] != NULL;
    if (rows && s->bars && labels_ok) {
        /* hours past two, else minutes */
        double unit = maxep >= 7200 ? 3600 : 60;
        for (int q = 0; q < 6; q++)
            for (int i = 0; i < rows; i++) bv[q][i] /= unit;
        const double *const v6[6] = {bv[0], bv[1], bv[2], bv[3], bv[4], bv[5]};
        int squad = bb && cb ? bb->projected_squad && cb->projected_squad
                             : (bb ? bb : cb)->projected_squad;
        char axis[96];
        snprintf(axis, sizeof axis, "%s (%s, projected)", squad ? "SQuAD v1.1 epoch" : "epoch",
                 unit > 60 ? "hours" : "minutes");
        s->bars(s->ctx, "headline",
                squad ? "One epoch of SQuAD v1.1 at each machine's best kernel (baseline / candidate"
                        " kernel; lower is better)"
                      : "One epoch at each machine's best kernel (each run's own data set; lower is"
                        " better)",
                axis, blabels, v6, rows);
    }
    for (int i = 0; i < rows; i++) free(blabels[i]);
    free(cells);
    free(buf);
    /* the projection's inputs, for every run the table drew on */
    static const char *const ih[] = {"side", "kernel", "precision", "batch x ranks",
                                     "seq / stride", "threads", "steady steps",
                                     "median step (s) [p10, p90]", "SQuAD epoch: steps",
                                     "SQuAD epoch (projected)", "run's own data set, epoch",
                                     "tool version"};
    int ni = b.n + c.n;
    const char **ic = calloc((size_t)12 * (ni + 1), sizeof *ic);
    char (*ib)[200] = calloc((size_t)12 * (ni + 1), sizeof *ib);
    int irow = 0;
    for (int j = 0; ic && ib && j < 12; j++) ic[j] = ih[j];
    for (int side = 0; ic && ib && side < 2; side++) {
        const tside *ts = side ? &c : &b;
        for (int i = 0; i < ts->n; i++) {
            const trun *t = &ts->r[i];
            char(*r)[200] = &ib[(++irow) * 12];
            snprintf(r[0], 200, "%s", side ? in->cname : in->bname);
            snprintf(r[1], 200, "%s", t->p->kernel);
            snprintf(r[2], 200, "%s", t->p->dtype);
            snprintf(r[3], 200, "%d x %d", t->batch, t->ranks);
            snprintf(r[4], 200, "%d / %d", t->seq, t->stride);
            snprintf(r[5], 200, "%d", t->threads);
            snprintf(r[6], 200, "%d (of %d)", t->nsteady, t->p->nsamples);
            snprintf(r[7], 200, "%.3g [%.3g, %.3g]", t->step, t->step_lo, t->step_hi);
            if (t->projected_squad)
                snprintf(r[8], 200, "%ld = ceil(%ld / (%d x %d))", t->squad_steps,
                         SB_SQUAD_V11_TRAIN_FEATURES, t->batch, t->ranks);
            else
                snprintf(r[8], 200, "not projected (%s: known for distilbert-base at seq 384 /"
                         " stride 128 only)", t->model[0] ? t->model : "?");
            snprintf(r[9], 200, "%s", t->projected_squad ? dur(t->epoch, d1, sizeof d1) : "-");
            snprintf(r[10], 200, "%s (%ld features): %s", t->data[0] ? t->data : "?", t->features,
                     dur(t->own_epoch, d2, sizeof d2));
            snprintf(r[11], 200, "%s", t->version[0] ? t->version : "?");
            for (int j = 0; j < 12; j++) ic[irow * 12 + j] = r[j];
        }
    }
    sink_para(s,
              "How the SQuAD epoch is projected: steps of a SQuAD v1.1 epoch at the run's batch"
              " and rank count (ceil(88,524 / ranks) / batch, rounded up) x the median of the"
              " run's steady step times (its first step, the warm-up, left out). The runs' own"
              " data sets (a synthetic SQuAD-format set when the real files are absent) are"
              " what was measured; a step costs the same whatever the answers, so the step time"
              " carries over.");
    if (irow) s->table(s->ctx, 12, irow, ic);
    free(ic);
    free(ib);
    infer_headline(in, s);
    published(in, s);
    tside_free(&b);
    tside_free(&c);
}

/* ---- best kernel per precision (GEMM) ---- */

static const sb_metric_val *rate_of(const sb_pt *p)
{
    const sb_metric_val *m = sb_pt_metric(p, "gflops");
    return m ? m : sb_pt_metric(p, "gops");
}

static int gemm_ok(const sb_pt *p)
{
    return !strcmp(p->workload, "gemm") && is_ok(p) && rate_of(p) && p->dtype &&
           p->ppn * p->nodes <= 1;
}

/* the fastest ok GEMM point of a precision, shape and thread count */
static const sb_pt *fastest(const sb_ptset *s, const char *dtype, const char *shape, int threads)
{
    const sb_pt *best = NULL;
    for (int i = 0; i < s->n; i++) {
        const sb_pt *p = &s->p[i];
        if (!gemm_ok(p) || strcmp(p->dtype, dtype) || strcmp(p->shape, shape) ||
            p->threads != threads)
            continue;
        if (!best || rate_of(p)->value > rate_of(best)->value) best = p;
    }
    return best;
}

/* ", 93 % of its avx512 peak" (with a mark when above 100 %: footnoted) */
static void peak_share(const sb_pt *p, char *buf, size_t cap, int *above)
{
    const sb_metric_val *pp = sb_pt_metric(p, "pct_peak");
    buf[0] = '\0';
    if (!pp || !(pp->value > 0)) return;
    const char *u = pp->unit && !strncmp(pp->unit, "% of ", 5) ? pp->unit + 5 : "its peak";
    int over = pp->value > 100;
    *above += over;
    snprintf(buf, cap, ", %.0f %% of %.*s%s", pp->value, CUT(u, 60),
             over ? " (above its peak: see note)" : "");
}

static void rate_cell(const sb_pt *p, char *buf, size_t cap, int *above)
{
    char share[128];
    peak_share(p, share, sizeof share, above);
    const sb_metric_val *m = rate_of(p);
    if (p->nsamples >= 2) {
        double med = sb_median(p->samples, p->nsamples),
               lo = sb_quantile(p->samples, p->nsamples, 0.9),
               hi = sb_quantile(p->samples, p->nsamples, 0.1);
        snprintf(buf, cap, "%s %.4g [%.4g, %.4g] %s%s", p->kernel, m->value,
                 lo > 0 ? m->value * med / lo : 0, hi > 0 ? m->value * med / hi : 0,
                 m->unit ? m->unit : "", share);
    } else {
        snprintf(buf, cap, "%s %.4g %s%s", p->kernel, m->value, m->unit ? m->unit : "", share);
    }
}

/* the candidate's speed against the baseline's, with the gate's test on the
 * seconds per repetition (the same shape on both sides: the same work) */
static void speed_cell(const sb_headline_in *in, const sb_pt *b, const sb_pt *c, char *buf,
                       size_t cap, double *speed)
{
    *speed = rate_of(c)->value / rate_of(b)->value;
    char w[64];
    speed_words(*speed, w, sizeof w);
    int min = in->go ? in->go->min_samples : 6;
    double alpha = in->go ? in->go->alpha : 0.01, tol = in->go ? in->go->tolerance : 0.05;
    if (b->nsamples < min || c->nsamples < min) {
        snprintf(buf, cap, "%s (not tested: %d/%d samples)", w, b->nsamples, c->nsamples);
        return;
    }
    double pf = sb_mwu_p_greater(b->samples, b->nsamples, c->samples, c->nsamples),
           ps = sb_mwu_p_greater(c->samples, c->nsamples, b->samples, b->nsamples);
    int sig = (*speed > 1 + tol && pf < alpha) || (*speed < 1 / (1 + tol) && ps < alpha);
    int noisy = sb_samples_bimodal(b->samples, b->nsamples, NULL, NULL) ||
                sb_samples_bimodal(c->samples, c->nsamples, NULL, NULL);
    snprintf(buf, cap, "%s (%s, p = %.2g%s)", w, sig ? "significant" : "not significant",
             *speed >= 1 ? pf : ps, noisy ? "; noisy: samples in two groups" : "");
}

void sb_report_best_kernels(const sb_headline_in *in, const sb_rsink *s, sb_headline_out *out)
{
    s->heading(s->ctx, 2, "Best kernel per precision (GEMM)");
    sink_para(s,
              "For each precision, shape and thread count, each machine's fastest kernel, its"
              " own or a vendor's (oneDNN), named: the comparison the study makes between Ice"
              " Lake's AVX-512 and Sapphire Rapids' AMX. The same-name table further down is"
              " the second view. Rates are medians [p10, p90]; the ratio carries the gate's test"
              " (one-sided Mann-Whitney U on the seconds per repetition).");
    static const char *const hdr[] = {"precision", "shape", "threads", "baseline: fastest kernel",
                                      "candidate: fastest kernel", "candidate vs baseline"};
    int cap = 16, rows = 0;
    char(*buf)[400] = malloc(sizeof *buf * 6 * (size_t)cap);
    if (!buf) return;
    double logsum = 0;
    int nlog = 0, above = 0;
    for (int k = 0; k < NPREC; k++) {
        /* every shape and thread count of this precision that both sides ran */
        for (int i = 0; i < in->bs->n; i++) {
            const sb_pt *p = &in->bs->p[i];
            if (!gemm_ok(p) || strcmp(p->dtype, g_prec[k])) continue;
            if (fastest(in->bs, g_prec[k], p->shape, p->threads) != p) continue;
            const sb_pt *q = fastest(in->cs, g_prec[k], p->shape, p->threads);
            if (!q) continue;
            if (rows + 2 > cap) {
                cap *= 2;
                char(*nb)[400] = realloc(buf, sizeof *buf * 6 * (size_t)cap);
                if (!nb) break;
                buf = nb;
            }
            rows++;
            char(*r)[400] = &buf[rows * 6];
            snprintf(r[0], 400, "%s", g_prec[k]);
            snprintf(r[1], 400, "%s", p->shape);
            snprintf(r[2], 400, "%d", p->threads);
            rate_cell(p, r[3], 400, &above);
            rate_cell(q, r[4], 400, &above);
            double sp;
            speed_cell(in, p, q, r[5], 400, &sp);
            if (sp > 0) {
                logsum += log(sp);
                nlog++;
            }
        }
    }
    out->best_rows = rows;
    out->best_n = nlog;
    out->best_gmean = nlog ? exp(logsum / nlog) : 0;
    if (!rows) {
        sink_para(s, "No precision, shape and thread count has an ok GEMM point on both sides.");
        free(buf);
        return;
    }
    const char **cells = calloc((size_t)6 * (rows + 1), sizeof *cells);
    for (int j = 0; cells && j < 6; j++) cells[j] = hdr[j];
    for (int i = 6; cells && i < 6 * (rows + 1); i++) cells[i] = buf[i];
    char w[64];
    speed_words(out->best_gmean, w, sizeof w);
    sink_para(s, "Over these %d row(s), the candidate's best kernel is %s than the baseline's"
                 " (geometric mean of the speed ratios).",
              rows, w);
    if (cells) s->table(s->ctx, 6, rows, cells);
    if (above)
        sink_para(s,
                  "Note: %d figure(s) above 100 %% of the peak of the path their kernel ran"
                  " (pct_peak is recomputed on import against the stored peak of that path). A"
                  " kernel cannot beat its own path's peak: that peak was measured at a busy"
                  " moment, and is too low. Measure it again on a quiet machine (`sprbench"
                  " peak`) before reading these shares.",
                  above);
    free(cells);
    free(buf);
}

/* ---- what AMX gives on one machine ---- */

/* the instruction generations the study's 8x decomposes into */
static const struct {
    const char *kernel, *what;
} g_gens[] = {
    {"avx512-f32", "AVX-512 f32"},   {"avx512-bf16", "AVX512-BF16"}, {"amx-bf16", "AMX bf16"},
    {"vnni-int8", "AVX-512 VNNI int8"}, {"amx-int8", "AMX int8"},
};
#define NGEN (sizeof g_gens / sizeof g_gens[0])

static const sb_pt *kernel_point(const sb_ptset *s, const char *workload, const char *kernel,
                                 const char *shape, int threads)
{
    for (int i = 0; i < s->n; i++) {
        const sb_pt *p = &s->p[i];
        if (!strcmp(p->workload, workload) && is_ok(p) && !strcmp(p->kernel, kernel) &&
            (!shape || !strcmp(p->shape, shape)) && (threads < 0 || p->threads == threads))
            return p;
    }
    return NULL;
}

static void generations_side(const sb_headline_in *in, const sb_rsink *s, const sb_ptset *set,
                             const char *name)
{
    /* only a machine that ran AMX and an AVX-512 path */
    if (!kernel_point(set, "gemm", "amx-bf16", NULL, -1) &&
        !kernel_point(set, "gemm", "amx-int8", NULL, -1) &&
        !kernel_point(set, "train", "amx-bf16", NULL, -1) &&
        !kernel_point(set, "infer", "amx-bf16", NULL, -1) &&
        !kernel_point(set, "infer", "amx-int8", NULL, -1))
        return;
    char title[200];
    snprintf(title, sizeof title, "What AMX gives on %s", name);
    s->heading(s->ctx, 3, title);
    sink_para(s,
              "One machine's instruction generations against each other, on the same shapes and"
              " threads: AVX-512 f32, AVX512-BF16 and AMX bf16 (AMX bf16 against AVX-512 f32"
              " in the last column but one), AVX-512 VNNI and AMX int8 (the last column). Rates"
              " are medians (GFLOP/s, GOP/s for int8); this is the study's 8x taken apart.");
    const char *hdr[NGEN + 5] = {"workload", "shape", "threads"};
    for (size_t g = 0; g < NGEN; g++) hdr[3 + g] = g_gens[g].what;
    hdr[3 + NGEN] = "AMX bf16 vs AVX-512 f32";
    hdr[4 + NGEN] = "AMX int8 vs VNNI int8";
    int ncols = (int)NGEN + 5, rows = 0, cap = 16;
    char(*buf)[160] = calloc((size_t)ncols * (size_t)cap, sizeof *buf);
    for (int i = 0; buf && i < set->n; i++) {
        const sb_pt *p = &set->p[i];
        if (strcmp(p->workload, "gemm") || !is_ok(p) || strcmp(p->kernel, "amx-bf16")) continue;
        if (rows + 2 > cap) {
            cap *= 2;
            char(*nb)[160] = realloc(buf, sizeof *buf * (size_t)ncols * (size_t)cap);
            if (!nb) break;
            buf = nb;
        }
        rows++;
        char(*r)[160] = &buf[rows * ncols];
        snprintf(r[0], 160, "gemm");
        snprintf(r[1], 160, "%s", p->shape);
        snprintf(r[2], 160, "%d", p->threads);
        double v[NGEN] = {0};
        for (size_t g = 0; g < NGEN; g++) {
            const sb_pt *q = kernel_point(set, "gemm", g_gens[g].kernel, p->shape, p->threads);
            v[g] = q && rate_of(q) ? rate_of(q)->value : 0;
            if (v[g] > 0)
                snprintf(r[3 + g], 160, "%.4g", v[g]);
            else
                snprintf(r[3 + g], 160, "not available");
        }
        if (v[0] > 0 && v[2] > 0)
            snprintf(r[3 + NGEN], 160, "%.2fx", v[2] / v[0]);
        else
            snprintf(r[3 + NGEN], 160, "-");
        if (v[3] > 0 && v[4] > 0)
            snprintf(r[4 + NGEN], 160, "%.2fx", v[4] / v[3]);
        else
            snprintf(r[4 + NGEN], 160, "-");
    }
    if (rows) {
        const char **cells = calloc((size_t)ncols * (rows + 1), sizeof *cells);
        for (int j = 0; cells && j < ncols; j++) cells[j] = hdr[j];
        for (int i = ncols; cells && i < ncols * (rows + 1); i++) cells[i] = buf[i];
        if (cells) s->table(s->ctx, ncols, rows, cells);
        free(cells);
    }
    free(buf);
    /* training: each kernel's SQuAD epoch against the machine's best f32 */
    tside t;
    tside_load(in, set, &t);
    if (t.n) {
        const trun *f = t.best[0] >= 0 ? &t.r[t.best[0]] : NULL;
        char line[1500] = "", d[32];
        for (int i = 0; i < t.n; i++) {
            char rel[64] = "";
            if (f) snprintf(rel, sizeof rel, ", %.2fx the best f32", f->epoch / t.r[i].epoch);
            addf(line, sizeof line, "%s (%s, batch %d, %d threads) %s%s", t.r[i].p->kernel,
                 t.r[i].p->dtype, t.r[i].batch, t.r[i].threads, dur(t.r[i].epoch, d, sizeof d),
                 rel);
        }
        sink_para(s, "Training on %s, SQuAD v1.1 epoch (projected) per kernel: %s.", name, line);
    }
    tside_free(&t);
    /* inference: each generation's fastest point, against AVX-512 f32's */
    char inf[1500] = "";
    const sb_pt *f32 = NULL;
    for (int i = 0; i < set->n; i++) {
        const sb_pt *p = &set->p[i];
        const sb_metric_val *m = sb_pt_metric(p, "sequences_per_s");
        if (!strcmp(p->workload, "infer") && is_ok(p) && m && !strcmp(p->kernel, "avx512-f32") &&
            (!f32 || m->value > sb_pt_metric(f32, "sequences_per_s")->value))
            f32 = p;
    }
    for (size_t g = 0; g < NGEN; g++) {
        const sb_pt *best = NULL;
        for (int i = 0; i < set->n; i++) {
            const sb_pt *p = &set->p[i];
            const sb_metric_val *m = sb_pt_metric(p, "sequences_per_s");
            if (!strcmp(p->workload, "infer") && is_ok(p) && m &&
                !strcmp(p->kernel, g_gens[g].kernel) &&
                (!best || m->value > sb_pt_metric(best, "sequences_per_s")->value))
                best = p;
        }
        if (!best) continue;
        double v = sb_pt_metric(best, "sequences_per_s")->value;
        char rel[64] = "";
        if (f32) snprintf(rel, sizeof rel, ", %.2fx AVX-512 f32",
                          v / sb_pt_metric(f32, "sequences_per_s")->value);
        addf(inf, sizeof inf, "%s %.*f sequences/s (%s, t%d)%s", g_gens[g].what, v >= 100 ? 0 : 2,
             v, best->shape, best->threads, rel);
    }
    if (inf[0]) sink_para(s, "Inference on %s, fastest point per generation: %s.", name, inf);
}

void sb_report_generations(const sb_headline_in *in, const sb_rsink *s)
{
    generations_side(in, s, in->bs, in->bname);
    /* one machine on both sides: said once */
    int64_t bm = in->bs->n ? in->bs->p[0].machine_id : 0, cm = in->cs->n ? in->cs->p[0].machine_id : 0;
    if (in->cs != in->bs && !(bm && bm == cm)) generations_side(in, s, in->cs, in->cname);
}

/* ---- where the time goes: two machines' profiles side by side ---- */

static int has_profile(const sb_pt *p)
{
    for (int i = 0; i < p->nmetrics; i++)
        if (!strncmp(p->metrics[i].name, "prof_", 5)) return 1;
    return 0;
}

/* the profiled point of a workload a side ran fastest (the lowest step or
 * batch time) */
static const sb_pt *profiled(const sb_ptset *s, const char *workload, const char *timer)
{
    const sb_pt *best = NULL;
    for (int i = 0; i < s->n; i++) {
        const sb_pt *p = &s->p[i];
        if (strcmp(p->workload, workload) || !is_ok(p) || !has_profile(p)) continue;
        const sb_metric_val *t = sb_pt_metric(p, timer), *bt = best ? sb_pt_metric(best, timer) : NULL;
        if (!best || (t && bt && t->value < bt->value)) best = p;
    }
    return best;
}

static double prof_sum(const sb_pt *p)
{
    double s = 0;
    for (int i = 0; i < p->nmetrics; i++)
        if (!strncmp(p->metrics[i].name, "prof_", 5)) s += p->metrics[i].value;
    return s;
}

static void profile_table(const sb_headline_in *in, const sb_rsink *s, const char *workload,
                          const char *timer, const char *per)
{
    const sb_pt *b = profiled(in->bs, workload, timer), *c = profiled(in->cs, workload, timer);
    if (!b && !c) return;
    char title[160];
    snprintf(title, sizeof title, "Where the time goes (%s --profile)", workload);
    s->heading(s->ctx, 3, title);
    char bh[200], ch[200];
    snprintf(bh, sizeof bh, "%s: %s %s t%d (s per %s, share)", in->bname, b ? b->kernel : "-",
             b ? b->shape : "", b ? b->threads : 0, per);
    snprintf(ch, sizeof ch, "%s: %s %s t%d (s per %s, share)", in->cname, c ? c->kernel : "-",
             c ? c->shape : "", c ? c->threads : 0, per);
    const char *hdr[4] = {"layer kind", bh, ch, "candidate vs baseline"};
    /* the kinds in the order either side stored them */
    const sb_pt *sides[2] = {b, c};
    char names[64][64];
    int nn = 0;
    for (int k = 0; k < 2; k++)
        for (int i = 0; sides[k] && i < sides[k]->nmetrics && nn < 64; i++) {
            const char *n = sides[k]->metrics[i].name;
            if (strncmp(n, "prof_", 5)) continue;
            int seen = 0;
            for (int j = 0; j < nn; j++) seen |= !strcmp(names[j], n);
            if (!seen) snprintf(names[nn++], sizeof names[0], "%s", n);
        }
    const char **cells = calloc((size_t)4 * (nn + 2), sizeof *cells);
    char(*buf)[160] = calloc((size_t)4 * (nn + 2), sizeof *buf);
    if (!cells || !buf) {
        free(cells);
        free(buf);
        return;
    }
    for (int j = 0; j < 4; j++) cells[j] = hdr[j];
    double bs = b ? prof_sum(b) : 0, cs = c ? prof_sum(c) : 0;
    for (int r = 0; r <= nn; r++) {
        char(*row)[160] = &buf[(r + 1) * 4];
        double vb = 0, vc = 0;
        if (r < nn) {
            const sb_metric_val *mb = b ? sb_pt_metric(b, names[r]) : NULL,
                                *mc = c ? sb_pt_metric(c, names[r]) : NULL;
            vb = mb ? mb->value : -1;
            vc = mc ? mc->value : -1;
            /* "prof_qkv_linear_s" -> "qkv linear" */
            size_t l = strlen(names[r]);
            snprintf(row[0], 160, "%.*s", (int)(l > 7 ? l - 7 : 0), names[r] + 5);
            for (char *q = row[0]; *q; q++)
                if (*q == '_') *q = ' ';
        } else {
            vb = b ? bs : -1;
            vc = c ? cs : -1;
            snprintf(row[0], 160, "total");
        }
        double tot[2] = {bs, cs}, v[2] = {vb, vc};
        for (int k = 0; k < 2; k++) {
            if (v[k] < 0)
                snprintf(row[1 + k], 160, "not available");
            else
                snprintf(row[1 + k], 160, "%.4g (%.1f %%)", v[k],
                         tot[k] > 0 ? 100 * v[k] / tot[k] : 0);
        }
        if (vb > 0 && vc > 0)
            speed_words(vb / vc, row[3], 160);
        else
            snprintf(row[3], 160, "-");
        for (int j = 0; j < 4; j++) cells[(r + 1) * 4 + j] = row[j];
    }
    sink_para(s,
              "Each side's fastest profiled %s point (`%s --profile`, stored with the point):"
              " seconds per %s in each layer kind, its share of the total, and the"
              " candidate's speed against the baseline's per kind.",
              workload, workload, per);
    s->table(s->ctx, 4, nn + 1, cells);
    free(cells);
    free(buf);
}

void sb_report_profiles(const sb_headline_in *in, const sb_rsink *s)
{
    profile_table(in, s, "train", "step_seconds", "step");
    profile_table(in, s, "infer", "batch_seconds", "batch");
}
