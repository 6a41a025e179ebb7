#include "sb_report_trun.h"
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sb_metric.h"
#include "sb_query.h"
#include "sb_report_points.h"
#include "sb_report_words.h"
#include "sb_scaling.h"
#include "sb_squad_v11.h"
#include "sb_stats.h"

/* The tool version a sweep ran ("" when unknown): the headline names a
 * difference of versions between the runs it compares. */
void sb_rp_sweep_version(const sb_rp_model *m, int64_t sweep_id, char *buf, size_t cap)
{
    sb_sweep_header h;
    int found = 0;
    sb_err e = {0};
    buf[0] = '\0';
    if (sweep_id && !sb_rp_sweep_header(m, sweep_id, &h, &found, &e) && found) {
        snprintf(buf, cap, "%s", h.tool_version ? h.tool_version : "");
        sb_sweep_header_free(&h);
    }
}

const char *const sb_rp_prec[SB_RP_NPREC] = {"f32", "bf16", "int8"};

void sb_rp_trun_load(const sb_headline_in *in, const sb_pt *p, sb_rp_trun *t)
{
    memset(t, 0, sizeof *t);
    t->p = p;
    t->batch = sb_rp_shape_int(p->shape, "batch");
    t->seq = sb_rp_shape_int(p->shape, "seq");
    t->stride = -1;
    t->ranks = (p->ppn > 0 ? p->ppn : 1) * (p->nodes > 0 ? p->nodes : 1);
    t->threads = p->threads;
    t->padding = -1;
    json_t *doc = NULL;
    sb_err e = {0};
    if (!sb_rp_result(in->m, p->id, &doc, &e) && doc) {
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
        if (json_is_number(json_object_get(c, "padding_share")))
            t->padding = 100 * json_number_value(json_object_get(c, "padding_share"));
    }
    json_decref(doc);
    sb_rp_sweep_version(in->m, p->sweep_id, t->version, sizeof t->version);
    /* the first step pays for warming up: the trainer's own epoch figure
     * leaves it out, and so does this */
    int skip = p->nsamples >= 3 ? 1 : 0;
    t->nsteady = p->nsamples - skip;
    t->steady = t->nsteady > 0 ? malloc(sizeof *t->steady * (size_t)t->nsteady) : NULL;
    if (t->steady)
        memcpy(t->steady, p->samples + skip, sizeof *t->steady * (size_t)t->nsteady);
    else
        t->nsteady = 0;
    const sb_metric_val *ms = sb_pt_metric(p, "step_seconds");
    if (t->nsteady) {
        t->step = sb_median(t->steady, t->nsteady);
        t->step_lo = sb_quantile(t->steady, t->nsteady, 0.1);
        t->step_hi = sb_quantile(t->steady, t->nsteady, 0.9);
    } else if (ms) {
        t->step = t->step_lo = t->step_hi = ms->value;
    }
    const sb_metric_val *mp = sb_pt_metric(p, "padding_pct");
    if (mp) t->padding = mp->value;
    const sb_metric_val *me = sb_pt_metric(p, "epoch_seconds");
    t->own_epoch = me ? me->value : 0;
    if (!t->model[0]) {
        const char *mo = strstr(p->shape, "model=");
        if (mo) snprintf(t->model, sizeof t->model, "%.*s", (int)strcspn(mo + 6, " "), mo + 6);
    }
    /* run_qa.py's feature count is known at 384/128, and the study's model
     * is DistilBERT-base: elsewhere the run's own epoch stands, said so */
    if (!strcmp(t->model, "distilbert-base") && t->seq == 384 && t->stride == 128 && t->batch > 0 &&
        t->step > 0) {
        t->squad_steps = sb_scaling_steps(SB_SQUAD_V11_TRAIN_FEATURES, t->batch, t->ranks);
        t->epoch = (double)t->squad_steps * t->step;
        t->projected_squad = 1;
    } else {
        t->epoch = t->own_epoch;
    }
}

void sb_rp_tside_load(const sb_headline_in *in, const sb_ptset *set, sb_rp_tside *s)
{
    memset(s, 0, sizeof *s);
    for (int k = 0; k <= SB_RP_NPREC; k++) s->best[k] = -1;
    s->r = calloc((size_t)set->n + 1, sizeof *s->r);
    for (int i = 0; s->r && i < set->n; i++) {
        const sb_pt *p = &set->p[i];
        if (p->nsamples >= 6) {
            s->tested++;
            s->noisy += sb_samples_bimodal(p->samples, p->nsamples, NULL, NULL);
        }
        if (!sb_rp_is_train(p) || !sb_rp_ok(p)) continue;
        sb_rp_trun *t = &s->r[s->n];
        sb_rp_trun_load(in, p, t);
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
            const sb_rp_trun *t = &s->r[i];
            if (!pass && !t->projected_squad) continue;
            for (int k = 0; k <= SB_RP_NPREC; k++) {
                if (k < SB_RP_NPREC && strcmp(t->p->dtype ? t->p->dtype : "", sb_rp_prec[k]))
                    continue;
                if (pass && s->best[k] >= 0 && s->r[s->best[k]].projected_squad) continue;
                if (s->best[k] < 0 || sb_metric_better_of(t->epoch, s->r[s->best[k]].epoch, 1))
                    s->best[k] = i;
            }
        }
}

void sb_rp_tside_free(sb_rp_tside *s)
{
    for (int i = 0; s->r && i < s->n; i++) free(s->r[i].steady);
    free(s->r);
}

/* Every way the two runs differ that bears on the ratio, "; "-separated. */
void sb_rp_mismatches(const sb_rp_trun *b, const sb_rp_trun *c, const sb_rp_tside *bs,
                      const sb_rp_tside *cs, char *buf, size_t cap)
{
    buf[0] = '\0';
    if (strcmp(b->p->dtype, c->p->dtype))
        sb_rp_addf(buf, cap, "precision %s vs %s", c->p->dtype, b->p->dtype);
    if (strcmp(b->model, c->model))
        sb_rp_addf(buf, cap, "model %s vs %s", c->model[0] ? c->model : "?",
                   b->model[0] ? b->model : "?");
    if (b->batch != c->batch) sb_rp_addf(buf, cap, "batch %d vs %d", c->batch, b->batch);
    if (b->seq != c->seq) sb_rp_addf(buf, cap, "seq %d vs %d", c->seq, b->seq);
    if (b->stride != c->stride) sb_rp_addf(buf, cap, "stride %d vs %d", c->stride, b->stride);
    if (b->threads != c->threads) sb_rp_addf(buf, cap, "threads %d vs %d", c->threads, b->threads);
    if (b->ranks != c->ranks) sb_rp_addf(buf, cap, "ranks %d vs %d", c->ranks, b->ranks);
    if (strcmp(b->data, c->data) || b->features != c->features)
        sb_rp_addf(buf, cap, "data set %s (%ld features) vs %s (%ld)", c->data[0] ? c->data : "?",
                   c->features, b->data[0] ? b->data : "?", b->features);
    if (strcmp(b->version, c->version))
        sb_rp_addf(buf, cap, "tool version %s vs %s", c->version[0] ? c->version : "?",
                   b->version[0] ? b->version : "?");
    if (b->projected_squad != c->projected_squad)
        sb_rp_addf(buf, cap, "only the %s is projected onto SQuAD",
                   b->projected_squad ? "baseline" : "candidate");
    /* a host that was busy: samples in two groups (the gate's "noisy"), or
     * training steps far apart */
    const sb_rp_tside *sides[2] = {cs, bs};
    const sb_rp_trun *runs[2] = {c, b};
    for (int k = 0; k < 2; k++) {
        const char *who = k ? "baseline" : "candidate";
        if (sides[k]->noisy)
            sb_rp_addf(buf, cap, "noisy host: the %s's samples form two groups on %d of %d points",
                       who, sides[k]->noisy, sides[k]->tested);
        if (runs[k]->step_lo > 0 && runs[k]->step_hi / runs[k]->step_lo > 1.15)
            sb_rp_addf(buf, cap, "noisy host: the %s's steps range %.2f-%.2f s", who,
                       runs[k]->step_lo, runs[k]->step_hi);
    }
}

/* "2.46x faster (95% interval 2.1-2.8x)" or "... (too few samples: ...)". */
void sb_rp_ratio_text(const sb_headline_in *in, const sb_rp_trun *b, const sb_rp_trun *c, char *buf,
                      size_t cap, double *ratio)
{
    *ratio = b->epoch > 0 && c->epoch > 0 ? b->epoch / c->epoch : 0;
    char w[64];
    sb_rp_speed_words_hl(*ratio, w, sizeof w);
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

void sb_rp_padding_text(const sb_rp_trun *b, const sb_rp_trun *c, char *buf, size_t cap)
{
    const double sq = SB_SQUAD_DEV_PADDING_PCT;
    if (b->padding < 0 || (c && c->padding < 0)) {
        snprintf(buf, cap,
                 "padding not recorded (%s used the old synthetic set, ~93 %% padding; SQuAD"
                 " v1.1 at seq 384 has %.0f %%)",
                 c ? "those runs" : "that run", sq);
        return;
    }
    char at[96];
    if (c && fabs(b->padding - c->padding) >= 1)
        snprintf(at, sizeof at, "at %.0f %% (candidate) and %.0f %% (baseline) padding", c->padding,
                 b->padding);
    else
        snprintf(at, sizeof at, "at %.0f %% padding", b->padding);
    double worst = c && fabs(c->padding - sq) > fabs(b->padding - sq) ? c->padding : b->padding;
    if (fabs(worst - sq) <= 5)
        snprintf(buf, cap, "%s, as SQuAD v1.1 at seq 384 (%.0f %%)", at, sq);
    else
        snprintf(buf, cap,
                 "%s, not SQuAD v1.1's %.0f %% at seq 384%s: attention stops at each sequence's"
                 " last real token, so a real epoch's steps cost %s than these",
                 at, sq, worst > 85 ? " (the old synthetic set)" : "",
                 worst > sq ? "more" : "less");
}

void sb_rp_train_hint(const sb_rp_trun *t, char *buf, size_t cap)
{
    int batch = t && t->batch > 0 ? t->batch : SB_RP_SWEEP_TRAIN_BATCH;
    char env[48] = "";
    if (batch != SB_RP_SWEEP_TRAIN_BATCH) snprintf(env, sizeof env, "SB_TRAIN_BATCH=%d ", batch);
    int n = snprintf(buf, cap,
                     "`%sscripts/run-sweep` (GEMM, then DistilBERT-base training at batch %d, seq"
                     " 384, %d steps, at each precision's fastest kernel, on every physical core)",
                     env, batch, SB_RP_SWEEP_TRAIN_STEPS);
    if (!t || n < 0 || (size_t)n >= cap) return;
    snprintf(buf + n, cap - (size_t)n,
             ", or only a training point like it: `sprbench sweep --workload train --model"
             " distilbert-base --kernels %s --threads %d --batch %d --seq 384 --max-steps %d`",
             t->p->kernel, t->threads > 0 ? t->threads : 1, batch, SB_RP_SWEEP_TRAIN_STEPS);
}

void sb_rp_run_cell(const sb_rp_trun *t, char *buf, size_t cap)
{
    char d[64];
    snprintf(buf, cap, "%s (%s, %s%s)", sb_rp_dur(t->epoch, d, sizeof d), t->p->kernel, t->p->dtype,
             t->projected_squad ? ", projected" : ", the run's own epoch, projected");
}
