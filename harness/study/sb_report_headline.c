#include "sb_report_headline.h"
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sb_query.h"
#include "sb_report_points.h"
#include "sb_report_sweeps.h"
#include "sb_report_trun.h"
#include "sb_report_words.h"
#include "sb_squad_v11.h"
#include "sb_scaling.h"
#include "sb_stackdiff.h"
#include "sb_stats.h"

#ifndef SB_SOURCE_DIR
#define SB_SOURCE_DIR "."
#endif

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
    r->batch = sb_rp_shape_int(p->shape, "batch");
    r->seq = sb_rp_shape_int(p->shape, "seq");
    r->sps = sb_pt_metric(p, "sequences_per_s")->value;
    json_t *doc = NULL;
    sb_err e = {0};
    if (!sb_rp_result(in->m, p->id, &doc, &e) && doc) {
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
    sb_rp_sweep_version(in->m, p->sweep_id, r->version, sizeof r->version);
}

/* the fastest ok inference point of a precision (sequences/s) */
static const sb_pt *fastest_infer(const sb_ptset *s, const char *dtype)
{
    const sb_pt *best = NULL;
    for (int i = 0; i < s->n; i++) {
        const sb_pt *p = &s->p[i];
        const sb_metric_val *m = sb_pt_metric(p, "sequences_per_s");
        if (!sb_rp_is_infer(p) || !sb_rp_ok(p) || !m || !p->dtype || strcmp(p->dtype, dtype))
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
    const char *cells[5 * (SB_RP_NPREC + 1)];
    char buf[5 * (SB_RP_NPREC + 1)][600];
    int rows = 0;
    for (int j = 0; j < 5; j++) cells[j] = hdr[j];
    for (int k = 0; k < SB_RP_NPREC; k++) {
        const sb_pt *pb = fastest_infer(in->bs, sb_rp_prec[k]),
                    *pc = fastest_infer(in->cs, sb_rp_prec[k]);
        if (!pb && !pc) continue;
        irun b, c;
        if (pb) irun_load(in, pb, &b);
        if (pc) irun_load(in, pc, &c);
        rows++;
        char(*r)[600] = &buf[rows * 5];
        snprintf(r[0], 600, "%s", sb_rp_prec[k]);
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
            sb_rp_speed_words_hl(c.sps / b.sps, w, sizeof w);
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
            if (b.batch != c.batch) sb_rp_addf(r[4], 600, "batch %d vs %d", c.batch, b.batch);
            if (b.seq != c.seq) sb_rp_addf(r[4], 600, "seq %d vs %d", c.seq, b.seq);
            if (pb->threads != pc->threads)
                sb_rp_addf(r[4], 600, "threads %d vs %d", pc->threads, pb->threads);
            if (strcmp(b.quant, c.quant)) sb_rp_addf(r[4], 600, "quant %s vs %s", c.quant, b.quant);
            if (strcmp(b.attention, c.attention))
                sb_rp_addf(r[4], 600, "attention %s vs %s", c.attention[0] ? c.attention : "f32",
                           b.attention[0] ? b.attention : "f32");
            if (strcmp(b.data, c.data)) sb_rp_addf(r[4], 600, "data set %s vs %s", c.data, b.data);
            if (strcmp(b.version, c.version))
                sb_rp_addf(r[4], 600, "tool version %s vs %s", c.version, b.version);
            char stk[400];
            if (sb_rp_stack_diff(in->m, pb, pc, stk, sizeof stk)) sb_rp_addf(r[4], 600, "%s", stk);
        } else {
            snprintf(r[3], 600, "-");
        }
        if (!r[4][0]) snprintf(r[4], 600, pb && pc ? "none" : "-");
        for (int j = 0; j < 5; j++) cells[rows * 5 + j] = r[j];
    }
    if (!rows) return;
    sb_rp_sink_para(s,
                    "Inference (SQuAD question answering, forward only) at each machine's fastest"
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
        sb_rp_sink_para(s, "The study's published figures could not be read: %s.", e.msg);
        return;
    }
    double spr1 = 0, spr4 = 0, ideal4 = 0, icx = 0;
    for (int i = 0; i < n; i++) {
        int spr = strstr(v[i].machine, "Sapphire") != NULL,
            ice = strstr(v[i].machine, "Ice") != NULL;
        int meas = !strcmp(v[i].kind, "measured");
        if (spr && meas && v[i].nodes == 1) spr1 = v[i].epoch_s;
        if (spr && meas && v[i].nodes == 4) spr4 = v[i].epoch_s;
        if (spr && !meas && v[i].nodes == 4) ideal4 = v[i].epoch_s;
        if (ice && meas && v[i].nodes == 1) icx = v[i].epoch_s;
    }
    free(v);
    char a[32], b[32], c[32], d[32];
    if (spr1 > 0 && icx > 0)
        sb_rp_sink_para(s,
                        "Published by the study, on other hardware (not measured here; Hugging Face"
                        " blog, 2023, results/reference/study.csv): one epoch of the same job at"
                        " per-rank batch 32, bf16, 2 ranks x 24 threads per node: Sapphire Rapids"
                        " (AMX) %s, Ice Lake %s (%.0fx); 4 Sapphire Rapids nodes x 2 ranks %s"
                        " against an ideal of %s.",
                        sb_rp_dur(spr1, a, sizeof a), sb_rp_dur(icx, b, sizeof b), icx / spr1,
                        sb_rp_dur(spr4, c, sizeof c), sb_rp_dur(ideal4, d, sizeof d));
}

/* Both sides trained: the epochs at each side's best kernel, their ratio
 * and every difference between the runs, said in a paragraph and in the
 * CLI's closing line. */
static void headline_both(const sb_headline_in *in, const sb_rsink *s, const sb_rp_tside *b,
                          const sb_rp_tside *c, const sb_rp_trun *bb, const sb_rp_trun *cb,
                          sb_headline_out *out)
{
    char d1[32], d2[32], why[1200], rt[400], pad[400];
    double ratio;
    sb_rp_ratio_text(in, bb, cb, rt, sizeof rt, &ratio);
    sb_rp_padding_text(bb, cb, pad, sizeof pad);
    const char *with = strncmp(pad, "at ", 3) ? "with " : "";
    sb_rp_mismatches(bb, cb, b, c, why, sizeof why);
    out->ratio = ratio;
    /* the software the two runs differ in, where it could explain the gap
     * (a vendor's version for its kernels, the compiler for the project's
     * own, the machine's SMT, huge pages, governor and turbo for any) */
    char sd[600], sdc[640] = "", sw[1800];
    sb_rp_headline_sweeps(in->m, bb->p, cb->p, sw, sizeof sw);
    if (sb_rp_stack_diff(in->m, bb->p, cb->p, sd, sizeof sd))
        snprintf(sdc, sizeof sdc, " (the sides differ in %s)", sd);
    if (!bb->projected_squad || !cb->projected_squad) {
        sb_rp_sink_para(s,
                        "Training epoch at each machine's best kernel, on each run's own data set"
                        " (not projected onto SQuAD v1.1: that needs distilbert-base at seq 384 /"
                        " stride 128 on both sides): %s (candidate) %s with %s (%s), %s"
                        " (baseline) %s with %s (%s): the candidate is %s%s. %s%s. Step times"
                        " measured %s%s.%s",
                        in->cname, sb_rp_dur(cb->epoch, d1, sizeof d1), cb->p->kernel, cb->p->dtype,
                        in->bname, sb_rp_dur(bb->epoch, d2, sizeof d2), bb->p->kernel, bb->p->dtype,
                        rt, sdc, why[0] ? "Not like for like: " : "Like for like", why, with, pad, sw);
        char w[64];
        sb_rp_speed_words_hl(ratio, w, sizeof w);
        snprintf(out->line, sizeof out->line,
                 "Epoch (each run's own data set, not SQuAD) at each side's best kernel:"
                 " %.*s %s (%.*s) vs %.*s %s (%.*s): the candidate is %s%s%s%s%.*s; %s%.*s",
                 SB_RP_CUT(in->cname, 60), d1, SB_RP_CUT(cb->p->kernel, 60),
                 SB_RP_CUT(in->bname, 60), d2, SB_RP_CUT(bb->p->kernel, 60), w, sdc,
                 strstr(rt, "too few") ? ", too few samples for a test" : "",
                 why[0] ? "; not like for like: " : "", SB_RP_CUT(why, 1200), with,
                 SB_RP_CUT(pad, 400));
    } else {
        sb_rp_sink_para(
            s,
            "DistilBERT-base fine-tuning, one epoch of SQuAD v1.1's train split (%ld,%03ld"
            " features at seq 384 / stride 128, as run_qa.py makes them from %ld,%03ld"
            " questions), projected from the measured step times, at each machine's best"
            " kernel: %s (candidate) %s with %s (%s), %s (baseline) %s with %s (%s): the"
            " candidate is %s%s. %s%s. Step times measured %s%s.%s",
            SB_SQUAD_V11_TRAIN_FEATURES / 1000, SB_SQUAD_V11_TRAIN_FEATURES % 1000,
            SB_SQUAD_V11_TRAIN_QUESTIONS / 1000, SB_SQUAD_V11_TRAIN_QUESTIONS % 1000, in->cname,
            sb_rp_dur(cb->epoch, d1, sizeof d1), cb->p->kernel, cb->p->dtype, in->bname,
            sb_rp_dur(bb->epoch, d2, sizeof d2), bb->p->kernel, bb->p->dtype, rt, sdc,
            why[0] ? "Not like for like: "
                   : "Like for like: same batch, seq, stride,"
                     " threads, ranks, data set and tool version",
            why, with, pad, sw);
        char w[64];
        sb_rp_speed_words_hl(ratio, w, sizeof w);
        snprintf(
            out->line, sizeof out->line,
            "SQuAD v1.1 epoch (projected) at each side's best kernel: %.*s %s (%.*s) vs %.*s %s"
            " (%.*s): the candidate is %s%s%s%s%.*s; %s%.*s",
            SB_RP_CUT(in->cname, 60), d1, SB_RP_CUT(cb->p->kernel, 60), SB_RP_CUT(in->bname, 60),
            d2, SB_RP_CUT(bb->p->kernel, 60), w, sdc,
            strstr(rt, "too few") ? ", too few samples for a test" : "",
            why[0] ? "; not like for like: " : "", SB_RP_CUT(why, 1200), with,
            SB_RP_CUT(pad, 400));
    }
}

/* One side trained: its epoch, and no ratio. */
static void headline_one(const sb_headline_in *in, const sb_rsink *s, const sb_rp_trun *bb,
                         const sb_rp_trun *cb, sb_headline_out *out)
{
    char d1[32], pad[400], hint[600];
    const sb_rp_trun *one = bb ? bb : cb;
    sb_rp_padding_text(one, NULL, pad, sizeof pad);
    sb_rp_train_hint(one, hint, sizeof hint);
    const char *with = strncmp(pad, "at ", 3) ? "with " : "";
    sb_rp_sink_para(s,
                    "Only the %s trained: %s %s with %s (%s) for one epoch of SQuAD v1.1%s, its"
                    " step times measured %s%s. The %s has no training point: no ratio (to give it"
                    " one like this, run on it %s).",
                    bb ? "baseline" : "candidate", bb ? in->bname : in->cname,
                    sb_rp_dur(one->epoch, d1, sizeof d1), one->p->kernel, one->p->dtype,
                    one->projected_squad ? " (projected from its step times)"
                                         : " (its own data set)",
                    with, pad, bb ? "candidate" : "baseline", hint);
    snprintf(out->line, sizeof out->line,
             "SQuAD v1.1 epoch (projected): %s %s (%s), %s%.*s; the %s did not train, no ratio",
             bb ? in->bname : in->cname, d1, one->p->kernel, with, SB_RP_CUT(pad, 400),
             bb ? "candidate" : "baseline");
}

/* Per precision (and the best of any), each side's best kernel of it with
 * its epoch, the ratio and the differences; the same rows as a chart. */
static void precision_table(const sb_headline_in *in, const sb_rsink *s, const sb_rp_tside *b,
                            const sb_rp_tside *c, const sb_rp_trun *bb, const sb_rp_trun *cb)
{
    /* per precision: each side's best kernel of it */
    static const char *const hdr[] = {"precision", "baseline: best kernel, SQuAD epoch",
                                      "candidate: best kernel, SQuAD epoch",
                                      "candidate vs baseline", "not like for like"};
    char bc[160], cc[160];
    const char **cells = calloc(5 * (SB_RP_NPREC + 2), sizeof *cells);
    char(*buf)[1200] = calloc(5 * (SB_RP_NPREC + 2), sizeof *buf);
    int rows = 0;
    /* the same rows as a chart: each side's epoch per precision, the steps'
     * p10-p90 as error bars */
    char *blabels[SB_RP_NPREC + 1];
    double bv[6][SB_RP_NPREC + 1];
    memset(bv, 0, sizeof bv);
    double maxep = 0;
    for (int c5 = 0; cells && buf && c5 < 5; c5++) cells[c5] = hdr[c5];
    for (int pass = 0; cells && buf && pass <= SB_RP_NPREC; pass++) {
        int k = pass == 0 ? SB_RP_NPREC : pass - 1;
        const sb_rp_trun *x = b->best[k] >= 0 ? &b->r[b->best[k]] : NULL,
                         *y = c->best[k] >= 0 ? &c->r[c->best[k]] : NULL;
        if (!x && !y) continue;
        rows++;
        char(*r)[1200] = &buf[rows * 5];
        snprintf(r[0], sizeof r[0], "%s", k == SB_RP_NPREC ? "best of any" : sb_rp_prec[k]);
        if (x) sb_rp_run_cell(x, bc, sizeof bc);
        if (y) sb_rp_run_cell(y, cc, sizeof cc);
        snprintf(r[1], sizeof r[1], "%s", x ? bc : "not available (no training point)");
        snprintf(r[2], sizeof r[2], "%s", y ? cc : "not available (no training point)");
        double ratio = 0;
        if (x && y) {
            sb_rp_ratio_text(in, x, y, r[3], sizeof r[3], &ratio);
            sb_rp_mismatches(x, y, b, c, r[4], sizeof r[4]);
        } else {
            snprintf(r[3], sizeof r[3], "-");
            snprintf(r[4], sizeof r[4], "-");
        }
        for (int j = 0; j < 5; j++) cells[rows * 5 + j] = r[j];
        const sb_rp_trun *sd[2] = {x, y};
        for (int q = 0; q < 2; q++)
            if (sd[q] && sd[q]->step > 0) {
                bv[3 * q][rows - 1] = sd[q]->epoch;
                bv[3 * q + 1][rows - 1] = sd[q]->epoch * sd[q]->step_lo / sd[q]->step;
                bv[3 * q + 2][rows - 1] = sd[q]->epoch * sd[q]->step_hi / sd[q]->step;
                if (bv[3 * q + 2][rows - 1] > maxep) maxep = bv[3 * q + 2][rows - 1];
            }
        blabels[rows - 1] = NULL;
        if (asprintf(&blabels[rows - 1], "%s: %s / %s", k == SB_RP_NPREC ? "best" : sb_rp_prec[k],
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
                squad
                    ? "One epoch of SQuAD v1.1 at each machine's best kernel (baseline / candidate"
                      " kernel; lower is better)"
                    : "One epoch at each machine's best kernel (each run's own data set; lower is"
                      " better)",
                axis, blabels, v6, rows);
    }
    for (int i = 0; i < rows; i++) free(blabels[i]);
    free(cells);
    free(buf);
}

/* The projection's inputs, one row per run the tables drew on. */
static void inputs_table(const sb_headline_in *in, const sb_rsink *s, const sb_rp_tside *b,
                         const sb_rp_tside *c)
{
    /* the projection's inputs, for every run the table drew on */
    static const char *const ih[] = {"side",
                                     "kernel",
                                     "precision",
                                     "batch x ranks",
                                     "seq / stride",
                                     "threads",
                                     "steady steps",
                                     "median step (s) [p10, p90]",
                                     "SQuAD epoch: steps",
                                     "SQuAD epoch (projected)",
                                     "run's own data set, epoch",
                                     "tool version"};
    char d1[32], d2[32];
    int ni = b->n + c->n;
    const char **ic = calloc((size_t)12 * (ni + 1), sizeof *ic);
    char(*ib)[200] = calloc((size_t)12 * (ni + 1), sizeof *ib);
    int irow = 0;
    for (int j = 0; ic && ib && j < 12; j++) ic[j] = ih[j];
    for (int side = 0; ic && ib && side < 2; side++) {
        const sb_rp_tside *ts = side ? c : b;
        for (int i = 0; i < ts->n; i++) {
            const sb_rp_trun *t = &ts->r[i];
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
                snprintf(r[8], 200,
                         "not projected (%s: known for distilbert-base at seq 384 /"
                         " stride 128 only)",
                         t->model[0] ? t->model : "?");
            snprintf(r[9], 200, "%s",
                     t->projected_squad ? sb_rp_dur(t->epoch, d1, sizeof d1) : "-");
            snprintf(r[10], 200, "%s (%ld features): %s", t->data[0] ? t->data : "?", t->features,
                     sb_rp_dur(t->own_epoch, d2, sizeof d2));
            snprintf(r[11], 200, "%s", t->version[0] ? t->version : "?");
            for (int j = 0; j < 12; j++) ic[irow * 12 + j] = r[j];
        }
    }
    sb_rp_sink_para(
        s,
        "How the SQuAD epoch is projected: steps of a SQuAD v1.1 epoch at the run's batch"
        " and rank count (ceil(88,524 / ranks) / batch, rounded up) x the median of the"
        " run's steady step times (its first step, the warm-up, left out). The runs' own"
        " data sets (a synthetic SQuAD-format set when the real files are absent) are"
        " what was measured; a step costs the same whatever the answers, so the step time"
        " carries over, but not whatever the padding: attention stops at each sequence's"
        " last real token. The synthetic set follows SQuAD v1.1's paragraph and question"
        " lengths (SQuAD v1.1 dev: %.0f %% padding at seq 384; the set before it, ~93 %%),"
        " and each run records its padding (padding_pct).",
        SB_SQUAD_DEV_PADDING_PCT);
    if (irow) s->table(s->ctx, 12, irow, ic);
    free(ic);
    free(ib);
}

void sb_report_headline(const sb_headline_in *in, const sb_rsink *s, sb_headline_out *out)
{
    sb_rp_tside b, c;
    sb_rp_tside_load(in, in->bs, &b);
    sb_rp_tside_load(in, in->cs, &c);
    s->heading(s->ctx, 2, "Headline: an epoch of SQuAD v1.1 fine-tuning");
    if (!b.n && !c.n) {
        char hint[600];
        sb_rp_train_hint(NULL, hint, sizeof hint);
        sb_rp_sink_para(s,
                        "Neither side ran a DistilBERT training point: no epoch to compare (run"
                        " on each machine %s).",
                        hint);
        infer_headline(in, s);
        published(in, s);
        sb_rp_tside_free(&b);
        sb_rp_tside_free(&c);
        return;
    }
    const sb_rp_trun *bb = b.best[SB_RP_NPREC] >= 0 ? &b.r[b.best[SB_RP_NPREC]] : NULL,
                     *cb = c.best[SB_RP_NPREC] >= 0 ? &c.r[c.best[SB_RP_NPREC]] : NULL;
    if (bb && cb)
        headline_both(in, s, &b, &c, bb, cb, out);
    else
        headline_one(in, s, bb, cb, out);
    precision_table(in, s, &b, &c, bb, cb);
    inputs_table(in, s, &b, &c);
    infer_headline(in, s);
    published(in, s);
    sb_rp_tside_free(&b);
    sb_rp_tside_free(&c);
}
