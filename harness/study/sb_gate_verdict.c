#include "sb_gate_verdict.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "sb_gate_stats.h"
#include "sb_metric.h"
#include "sb_stats.h"

/* Values of a metric per repetition, as "cost" (larger = worse): seconds as
 * they are; another metric scaled by each sample's share of the median
 * (the metric was computed from the median), a rate inverted. Appends. */
#define MAX_ROUNDS 64

static int point_costs(const sb_pt *p, const char *metric, double **v, int *n, int *cap)
{
    int seconds = !strcmp(metric, "seconds");
    const sb_metric_val *m = seconds ? NULL : sb_pt_metric(p, metric);
    if (!seconds && !m) return 0;
    if (seconds && p->nsamples == 0) return 0; /* e.g. peak points: rates, no repetitions */
    /* the metric table's direction (a metric it does not know: its unit's) */
    int lower = seconds || sb_metric_lower(metric, m->unit);
    /* a figure of the samples gives one value a sample; any other (an
     * accuracy, an error) is the point's one value */
    int nsamples = seconds || sb_metric_per_sample(metric) ? p->nsamples : 0;
    double med = nsamples ? sb_median(p->samples, nsamples) : 0;
    int count = nsamples > 0 && (seconds || med > 0) ? nsamples : (m ? 1 : 0);
    if (*n + count > *cap) {
        *cap = (*n + count) * 2;
        double *nv = realloc(*v, sizeof *nv * (size_t)*cap);
        if (!nv) return -1;
        *v = nv;
    }
    for (int i = 0; i < count; i++) {
        double val;
        if (seconds)
            val = p->samples[i];
        else if (nsamples > 0 && med > 0)
            val = lower ? m->value * p->samples[i] / med
                        : (p->samples[i] > 0 ? m->value * med / p->samples[i] : 0);
        else
            val = m->value;
        (*v)[*n + i] = lower ? val : (val > 0 ? 1.0 / val : INFINITY);
    }
    *n += count;
    return 1;
}

/* candidate / baseline cost: their quotient, or where it leaves the
 * normal numbers exp of the logs' difference; NAN when a cost is not a
 * positive finite number or no double holds their ratio (a rate of 0, a
 * metric value of 1e300): no ratio, rather than 0 ("100 % faster"), inf
 * or nan. Seconds (sb_sample_seconds_ok) always have one. */
static double cost_ratio(double cand, double base)
{
    if (!(cand > 0 && base > 0 && isfinite(cand) && isfinite(base))) return NAN;
    double q = cand / base;
    if (isnormal(q)) return q;
    q = exp(log(cand) - log(base));
    return isnormal(q) ? q : NAN;
}

/* The row about the status when a side did not run ok (bok, cok: whether
 * each side's point did). */
static void status_row(sb_gate_result *r, const sb_pt *bp, const sb_pt *cp, int bok, int cok)
{
    sb_gate_row *row = sb_gate_add_row(r, SB_PASS, cp, "status");
    if (!row) return;
    row->base_id = bp->id;
    row->cand_id = cp->id;
    const char *why = cp->reason[0] ? cp->reason : "no reason given";
    if (!strcmp(cp->status, "skipped")) {
        /* nothing ran here: a machine without the ISA, on either side */
        sb_gate_set_verdict(r, row, SB_SKIP);
        sb_gate_notef(row, "skipped: %.400s", why);
    } else if (!cok && strcmp(cp->status, "pending") && strcmp(cp->status, "running")) {
        /* failed, crashed or timed out: a regression whatever the
         * baseline did (a crash that was there before is still a crash) */
        sb_gate_set_verdict(r, row, SB_FAIL);
        sb_gate_notef(row, "candidate %s: %.400s%s", cp->status, why,
                      bok ? "" : " (the baseline did not run ok either)");
    } else if (!cok) {
        sb_gate_set_verdict(r, row, SB_WARN);
        sb_gate_notef(row, "candidate %s: its sweep did not finish this point", cp->status);
    } else {
        sb_gate_set_verdict(r, row, SB_WARN);
        sb_gate_notef(row, "baseline %s (%.300s): nothing to compare with", bp->status, bp->reason);
    }
}

void sb_gate_compare_one(const sb_ptset *bs, const sb_gate_group *bg, int b0, int b1,
                         const sb_ptset *cs, const sb_gate_group *cg, int c0, int c1,
                         const char *metric, int first_metric, const sb_gate_opts *o,
                         sb_gate_result *r)
{
    const sb_pt *bp = sb_gate_group_pick(bs, bg, b0, b1), *cp = sb_gate_group_pick(cs, cg, c0, c1);
    int bok = !strcmp(bp->status, "ok"), cok = !strcmp(cp->status, "ok");
    if (!bok || !cok) {
        /* one row about the status, whatever metrics were asked for */
        if (first_metric) status_row(r, bp, cp, bok, cok);
        return;
    }
    double *bv = NULL, *cv = NULL;
    int nb = 0, nc = 0, bcap = 0, ccap = 0, have_b = 0, have_c = 0;
    /* pooled: every ok point of the configuration; otherwise the chosen one */
    /* each ok point pooled is a round: its median is kept, so that the
     * baseline's round-to-round spread can stand for the machine's noise */
    double rb[MAX_ROUNDS], rc[MAX_ROUNDS];
    int nrb = 0, nrc = 0;
    for (int i = o->pool ? b0 : 0; i < (o->pool ? b1 : 1); i++) {
        const sb_pt *p = o->pool ? &bs->p[bg[i].idx] : bp;
        if (strcmp(p->status, "ok")) continue;
        int from = nb;
        if (point_costs(p, metric, &bv, &nb, &bcap) > 0) have_b = 1;
        if (nb > from && nrb < MAX_ROUNDS) rb[nrb++] = sb_median(bv + from, nb - from);
    }
    for (int i = o->pool ? c0 : 0; i < (o->pool ? c1 : 1); i++) {
        const sb_pt *p = o->pool ? &cs->p[cg[i].idx] : cp;
        if (strcmp(p->status, "ok")) continue;
        int from = nc;
        if (point_costs(p, metric, &cv, &nc, &ccap) > 0) have_c = 1;
        if (nc > from && nrc < MAX_ROUNDS) rc[nrc++] = sb_median(cv + from, nc - from);
    }
    if (!have_b && !have_c) { /* this metric does not exist for this workload */
        free(bv);
        free(cv);
        return;
    }
    sb_gate_row *row = sb_gate_add_row(r, SB_PASS, cp, metric);
    if (!row) goto out;
    row->base_id = bp->id;
    row->cand_id = cp->id;
    const sb_metric_val *m = strcmp(metric, "seconds") ? sb_pt_metric(cp, metric) : NULL;
    snprintf(row->unit, sizeof row->unit, "%s", m ? m->unit : "s");
    row->nb = nb;
    row->nc = nc;
    if (!have_b || !have_c) {
        sb_gate_set_verdict(r, row, SB_WARN);
        sb_gate_notef(row, "metric %s only in the %s", metric, have_b ? "baseline" : "candidate");
        goto out;
    }
    /* the columns and the ratio from the same medians, those of the samples
     * pooled (a rate shown as the rate of the median cost): the ratio is
     * the candidate's column over the baseline's (a rate's the other way) */
    double mb = sb_median(bv, nb), mc = sb_median(cv, nc);
    int lower = !m || sb_metric_lower(metric, m->unit);
    row->base = lower ? mb : (mb > 0 ? 1 / mb : 0);
    row->cand = lower ? mc : (mc > 0 ? 1 / mc : 0);
    row->ratio = cost_ratio(mc, mb);
    if (isnan(row->ratio)) {
        int bad_b = !(mb > 0 && isfinite(mb)), bad_c = !(mc > 0 && isfinite(mc));
        row->ratio = 0;
        if (!isfinite(row->base)) row->base = 0;
        if (!isfinite(row->cand)) row->cand = 0;
        sb_gate_set_verdict(r, row, SB_WARN);
        sb_gate_notef(row, "no ratio: %s %s %s 0, negative or past a double's range as a cost",
                      bad_b && bad_c ? "both sides'"
                          : bad_b    ? "the baseline's"
                                     : "the candidate's",
                      metric, bad_b && bad_c ? "are" : "is");
        goto out;
    }
    /* one round a side of sub-millisecond repetitions: they share one
     * moment of the machine, and a test on them takes its drift for an
     * effect (sb_gate_judged counts them, the output names the fix) */
    row->short_round = (nrb <= 1 || nrc <= 1) && bp->nsamples && cp->nsamples &&
        sb_median(cp->samples, cp->nsamples) < 1e-3;
    sb_bootstrap_ratio(cv, nc, bv, nb, 1 - 2 * o->alpha, 2000,
                       0x5eed + (uint64_t)nb * 131 + (uint64_t)nc, &row->lo, &row->hi);
    double limit = 1 + o->tolerance;
    if (nb < o->min_samples || nc < o->min_samples) {
        sb_gate_set_verdict(r, row, SB_WARN);
        sb_gate_notef(row, "too few samples (%d vs %d; need %d per side)", nb, nc, o->min_samples);
        goto out;
    }
    /* two regimes in one side's samples (a neighbour came and went, the
     * clock changed): its median is one of them by chance, so the point is
     * flagged, not judged */
    double lo_m, hi_m;
    /* (pooled rounds are several regimes by design: their spread is judged
     * round by round below) */
    int bb = !o->pool && sb_samples_bimodal(bv, nb, &lo_m, &hi_m);
    if (bb || (!o->pool && sb_samples_bimodal(cv, nc, &lo_m, &hi_m))) {
        row->p = sb_mwu_p_greater(cv, nc, bv, nb);
        sb_gate_set_verdict(r, row, SB_WARN);
        sb_gate_notef(row,
                      "noisy: the %s's samples form two groups (around %.4g and %.4g), not judged",
                      bb ? "baseline" : "candidate", lo_m, hi_m);
        goto out;
    }
    /* Two conditions: the median is beyond the tolerance, and the candidate
     * is significantly slower at all (one-sided U test); the bootstrap
     * method asks instead that the whole interval lie beyond the tolerance. */
    row->p = sb_mwu_p_greater(cv, nc, bv, nb);
    int significant = o->method == SB_GATE_BOOTSTRAP ? row->lo > limit : row->p < o->alpha;
    double pct = (row->ratio - 1) * 100;
    /* Rounds (--pool, interleaved runs): samples of one round share its
     * moment of the machine, so the unit of evidence is the round. The
     * candidate must be slower in every round than the baseline was in any:
     * the baseline's own spread over its rounds is the noise to beat. */
    double bmax = 0, cmin = 0;
    int rounds = o->pool && nrb >= 3 && nrc >= 3;
    for (int i = 0; rounds && i < nrb; i++) bmax = i ? fmax(bmax, rb[i]) : rb[i];
    for (int i = 0; rounds && i < nrc; i++) cmin = i ? fmin(cmin, rc[i]) : rc[i];
    if (row->ratio > limit && significant && rounds && cmin <= bmax) {
        sb_gate_set_verdict(r, row, SB_WARN);
        sb_gate_notef(row,
                      "%.1f%% slower (tolerance %.1f%%), but its rounds overlap the baseline's"
                      " (%d vs %d rounds): within this machine's run-to-run noise",
                      pct, o->tolerance * 100, nrc, nrb);
    } else if (row->ratio > limit && significant) {
        sb_gate_set_verdict(r, row, SB_FAIL);
        sb_gate_notef(row, "%.1f%% slower (tolerance %.1f%%), significant%s", pct,
                      o->tolerance * 100,
                      rounds                 ? ", in every round"
                          : row->short_round ? ", but on one round of sub-millisecond samples:"
                                               " confirm with --paired or rounds"
                                             : "");
    } else if (row->ratio > limit) {
        sb_gate_set_verdict(r, row, SB_WARN);
        sb_gate_notef(row, "%.1f%% slower (tolerance %.1f%%) but not significant", pct,
                      o->tolerance * 100);
    } else if (row->ratio < 1 - o->tolerance) {
        sb_gate_notef(row, "%.1f%% faster", -pct);
    } else {
        sb_gate_notef(row, "within tolerance (%+.1f%%)", pct);
    }
out:
    free(bv);
    free(cv);
}
