#include "sb_report_best.h"
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sb_query.h"
#include "sb_report_points.h"
#include "sb_report_words.h"
#include "sb_report_trun.h"
#include "sb_metric.h"
#include "sb_stats.h"
#include "sb_vendor.h"
#include "sb_vendor_cmp.h"

/* ---- best kernel per precision (GEMM) ---- */

/* the fastest ok GEMM point of a precision, shape and thread count */
static const sb_pt *fastest(const sb_ptset *s, const char *dtype, const char *shape, int threads)
{
    const sb_pt *best = NULL;
    for (int i = 0; i < s->n; i++) {
        const sb_pt *p = &s->p[i];
        if (!sb_rp_gemm_ok(p) || strcmp(p->dtype, dtype) || strcmp(p->shape, shape) ||
            p->threads != threads)
            continue;
        if (!best || sb_rp_gemm_rate(p)->value > sb_rp_gemm_rate(best)->value) best = p;
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
    snprintf(buf, cap, ", %.0f %% of %.*s%s", pp->value, SB_RP_CUT(u, 60),
             over ? " (above its peak: see note)" : "");
}

/* "NAME 917 [905, 930] GFLOP/s, 88 % of ...": NAME the kernel, or its
 * vendor and kernel ("MKL (mkl-bf16)") where the vendor is the point */
static void rate_cell_named(const sb_rp_model *mo, const sb_pt *p, const char *name, char *buf,
                            size_t cap, int *above)
{
    /* a vendor's point names the implementation it dispatched */
    char named[200], impl[64] = "";
    if (sb_vendor_of_kernel(p->kernel)) {
        json_t *doc = NULL;
        sb_err e = {0};
        if (!sb_rp_result(mo, p->id, &doc, &e) && doc) {
            const char *v = json_string_value(json_object_get(doc, "impl"));
            if (v) snprintf(impl, sizeof impl, "%.60s", v);
        }
        json_decref(doc);
    }
    if (impl[0]) {
        snprintf(named, sizeof named, "%.120s [%s]", name, impl);
        name = named;
    }
    char share[128];
    peak_share(p, share, sizeof share, above);
    const sb_metric_val *m = sb_rp_gemm_rate(p);
    if (p->nsamples >= 2) { /* a rate: its band, the same work over the p90 and p10 times */
        double lo, hi;
        sb_metric_band(m->value, p->samples, p->nsamples, 0, &lo, &hi);
        snprintf(buf, cap, "%s %.4g [%.4g, %.4g] %s%s", name, m->value, lo, hi,
                 m->unit ? m->unit : "", share);
    } else {
        snprintf(buf, cap, "%s %.4g %s%s", name, m->value, m->unit ? m->unit : "", share);
    }
}

static void rate_cell(const sb_rp_model *mo, const sb_pt *p, char *buf, size_t cap, int *above)
{
    rate_cell_named(mo, p, p->kernel, buf, cap, above);
}

/* "(significant, p = 0.001)": the gate's test of c's speed against b's
 * (one-sided Mann-Whitney U on the seconds per repetition, the same work on
 * both sides), or why there is none */
static void speed_test(const sb_headline_in *in, const sb_pt *b, const sb_pt *c, double speed,
                       char *buf, size_t cap)
{
    int min = in->go ? in->go->min_samples : 6;
    double alpha = in->go ? in->go->alpha : 0.01, tol = in->go ? in->go->tolerance : 0.05;
    if (b->nsamples < min || c->nsamples < min) {
        snprintf(buf, cap, "(not tested: %d/%d samples)", b->nsamples, c->nsamples);
        return;
    }
    double pf = sb_mwu_p_greater(b->samples, b->nsamples, c->samples, c->nsamples),
           ps = sb_mwu_p_greater(c->samples, c->nsamples, b->samples, b->nsamples);
    int sig = (speed > 1 + tol && pf < alpha) || (speed < 1 / (1 + tol) && ps < alpha);
    int noisy = sb_samples_bimodal(b->samples, b->nsamples, NULL, NULL) ||
        sb_samples_bimodal(c->samples, c->nsamples, NULL, NULL);
    /* a p below alpha with a ratio within the tolerance is a difference too
     * small to count, not an insignificant one: said so, with the tolerance */
    double p = speed >= 1 ? pf : ps;
    char word[64];
    if (sig)
        snprintf(word, sizeof word, "significant");
    else if (p < alpha)
        snprintf(word, sizeof word, "within the %.0f %% tolerance", tol * 100);
    else
        snprintf(word, sizeof word, "not significant");
    snprintf(buf, cap, "(%s, p = %.2g%s)", word, p, noisy ? "; noisy: samples in two groups" : "");
}

/* the candidate's speed against the baseline's, with the gate's test on the
 * seconds per repetition (the same shape on both sides: the same work) */
static void speed_cell(const sb_headline_in *in, const sb_pt *b, const sb_pt *c, char *buf,
                       size_t cap, double *speed)
{
    *speed = sb_rp_gemm_rate(c)->value / sb_rp_gemm_rate(b)->value;
    char w[64], t[160];
    sb_rp_speed_words_hl(*speed, w, sizeof w);
    speed_test(in, b, c, *speed, t, sizeof t);
    snprintf(buf, cap, "%s %s", w, t);
}

/* the footnote of the figures marked "above its peak" */
static void above_note(const sb_rsink *s, int above)
{
    if (above)
        sb_rp_sink_para(
            s,
            "Note: %d figure(s) above 100 %% of the peak of the path their kernel ran"
            " (pct_peak is recomputed on import against the stored peak of that path). A"
            " kernel cannot beat its own path's peak: that peak was measured at a busy"
            " moment, and is too low. Measure it again on a quiet machine (`sprbench"
            " peak`) before reading these shares.",
            above);
}

void sb_report_best_kernels(const sb_headline_in *in, const sb_rsink *s, sb_headline_out *out)
{
    s->heading(s->ctx, 2, "Best kernel per precision (GEMM)");
    sb_rp_sink_para(
        s,
        "For each precision, shape and thread count, each machine's fastest kernel, its"
        " own or a vendor's (oneDNN or MKL), named: the comparison the study makes between Ice"
        " Lake's AVX-512 and Sapphire Rapids' AMX. The same-name table further down is"
        " the second view. Rates are medians [p10, p90]; the ratio carries the gate's test"
        " (one-sided Mann-Whitney U on the seconds per repetition).");
    static const char *const hdr[] = {"precision",
                                      "shape",
                                      "threads",
                                      "baseline: fastest kernel",
                                      "candidate: fastest kernel",
                                      "candidate vs baseline"};
    int cap = 16, rows = 0;
    char(*buf)[400] = malloc(sizeof *buf * 6 * (size_t)cap);
    if (!buf) return;
    double logsum = 0;
    int nlog = 0, above = 0;
    for (int k = 0; k < SB_RP_NPREC; k++) {
        /* every shape and thread count of this precision that both sides ran */
        for (int i = 0; i < in->bs->n; i++) {
            const sb_pt *p = &in->bs->p[i];
            if (!sb_rp_gemm_ok(p) || strcmp(p->dtype, sb_rp_prec[k])) continue;
            if (fastest(in->bs, sb_rp_prec[k], p->shape, p->threads) != p) continue;
            const sb_pt *q = fastest(in->cs, sb_rp_prec[k], p->shape, p->threads);
            if (!q) continue;
            if (rows + 2 > cap) {
                cap *= 2;
                char(*nb)[400] = realloc(buf, sizeof *buf * 6 * (size_t)cap);
                if (!nb) break;
                buf = nb;
            }
            rows++;
            char(*r)[400] = &buf[rows * 6];
            snprintf(r[0], 400, "%s", sb_rp_prec[k]);
            snprintf(r[1], 400, "%s", p->shape);
            snprintf(r[2], 400, "%d", p->threads);
            rate_cell(in->m, p, r[3], 400, &above);
            rate_cell(in->m, q, r[4], 400, &above);
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
        sb_rp_sink_para(s,
                        "No precision, shape and thread count has an ok GEMM point on both sides.");
        free(buf);
        return;
    }
    const char **cells = calloc((size_t)6 * (rows + 1), sizeof *cells);
    for (int j = 0; cells && j < 6; j++) cells[j] = hdr[j];
    for (int i = 6; cells && i < 6 * (rows + 1); i++) cells[i] = buf[i];
    char w[64];
    sb_rp_speed_words_hl(out->best_gmean, w, sizeof w);
    sb_rp_sink_para(s,
                    "Over these %d row(s), the candidate's best kernel is %s than the baseline's"
                    " (geometric mean of the speed ratios).",
                    rows, w);
    if (cells) s->table(s->ctx, 6, rows, cells);
    above_note(s, above);
    free(cells);
    free(buf);
}

/* ---- own against the faster vendor (GEMM) ---- */

/* A side's single-process GEMM points with a precision as the comparison's
 * entries (their rate where they ran ok, else 0), with the points and their
 * statuses beside them (each array holds set->n). */
static void vendor_entries(const sb_ptset *set, sb_vcmp_entry *e, const sb_pt **pt,
                           const char **status, int *n)
{
    *n = 0;
    for (int i = 0; i < set->n; i++) {
        const sb_pt *p = &set->p[i];
        if (!sb_rp_is_gemm1(p) || !p->dtype || !p->dtype[0]) continue;
        const sb_metric_val *m = sb_rp_gemm_ok(p) ? sb_rp_gemm_rate(p) : NULL;
        e[*n] = (sb_vcmp_entry){p->kernel, p->dtype, p->shape, p->threads, p->ppn, p->nodes,
                                m ? m->value : 0};
        pt[*n] = p;
        status[(*n)++] = p->status;
    }
}

/* one row's cells: own, vendor, own vs vendor, other vendor (the first
 * three cells, precision, shape and threads, are the caller's) */
static void vendor_cells(const sb_headline_in *in, const sb_vcmp_entry *e, const sb_pt **pt,
                         const char **status, int n, const sb_vcmp_row *r, char (*c)[400],
                         int *above)
{
    char nm[200], gone[300], t[160];
    sb_vcmp_not_run(e, status, n, r, gone, sizeof gone);
    if (r->own >= 0)
        rate_cell(in->m, pt[r->own], c[3], 400, above);
    else
        snprintf(c[3], 400, "none of ours ran");
    if (r->vendor >= 0)
        rate_cell_named(in->m, pt[r->vendor], sb_vcmp_name(e[r->vendor].kernel, nm, sizeof nm),
                        c[4], 400, above);
    else
        snprintf(c[4], 400, "no vendor ran (%s)", gone);
    if (r->own >= 0 && r->vendor >= 0) {
        double ratio = e[r->own].value / e[r->vendor].value;
        /* the test of own's speed against the vendor's: own is the candidate */
        speed_test(in, pt[r->vendor], pt[r->own], ratio, t, sizeof t);
        snprintf(c[5], 400, "%.2fx: %s %s", ratio,
                 ratio >= 1.005 ? "ahead" : ratio > 0.995 ? "level" : "behind", t);
    } else
        snprintf(c[5], 400, "-");
    if (r->other >= 0)
        rate_cell_named(in->m, pt[r->other], sb_vcmp_name(e[r->other].kernel, nm, sizeof nm), c[6],
                        400, above);
    else
        snprintf(c[6], 400, "%s", r->vendor >= 0 && gone[0] ? gone : "-");
}

/* "0.85x the faster vendor (geometric mean over 4 points: behind at 3,
 * level or ahead at 1); the faster vendor was MKL at 2 point(s), oneDNN at
 * 2 point(s)" */
static void vendor_words(const sb_vcmp_entry *e, const sb_vcmp_row *rows, int nr, char *buf,
                         size_t cap)
{
    double logsum = 0;
    int both = 0, behind = 0, nv = 0, count[4] = {0};
    const char *vendor[4]; /* the vendors that were the faster, first seen first */
    for (int i = 0; i < nr; i++) {
        const sb_vcmp_row *r = &rows[i];
        if (r->vendor < 0) continue;
        const char *v = sb_vendor_of_kernel(e[r->vendor].kernel);
        int k = 0;
        while (k < nv && strcmp(vendor[k], v)) k++;
        if (k == nv && nv < 4) vendor[nv++] = v;
        if (k < 4) count[k]++;
        if (r->own < 0) continue;
        double ratio = e[r->own].value / e[r->vendor].value;
        logsum += log(ratio);
        behind += ratio < 0.995;
        both++;
    }
    if (!both) {
        snprintf(buf, cap, "no point where both one of our kernels and a vendor's ran");
        return;
    }
    char who[200] = "";
    size_t len = 0;
    for (int k = 0; k < nv && len < sizeof who; k++) {
        int w = snprintf(who + len, sizeof who - len, "%s%s at %d point(s)", k ? ", " : "",
                         vendor[k], count[k]);
        len += w > 0 ? (size_t)w : 0;
    }
    snprintf(buf, cap,
             "%.2fx the faster vendor (geometric mean of own/vendor over %d point(s): behind at"
             " %d, level or ahead at %d); the faster vendor was %s",
             exp(logsum / both), both, behind, both - behind, who);
}

static void vendor_side(const sb_headline_in *in, const sb_rsink *s, const sb_ptset *set,
                        const char *name)
{
    sb_vcmp_entry *e = calloc((size_t)set->n + 1, sizeof *e);
    const sb_pt **pt = calloc((size_t)set->n + 1, sizeof *pt);
    const char **status = calloc((size_t)set->n + 1, sizeof *status);
    sb_vcmp_row *rows = NULL;
    int n = 0, nr = 0, above = 0;
    if (!e || !pt || !status) goto out;
    vendor_entries(set, e, pt, status, &n);
    if (sb_vcmp_rows(e, n, &rows, &nr) || !nr) goto out;
    char title[200], words[400];
    snprintf(title, sizeof title, "Own kernels against the faster vendor on %s", name);
    s->heading(s->ctx, 3, title);
    vendor_words(e, rows, nr, words, sizeof words);
    sb_rp_sink_para(s, "On %s, our fastest kernel is %s.", name, words);
    static const char *const hdr[] = {"precision",          "shape",
                                      "threads",            "own: fastest kernel",
                                      "vendor: the faster", "own vs vendor",
                                      "other vendor"};
    char(*buf)[400] = calloc((size_t)7 * (size_t)(nr + 1), sizeof *buf);
    const char **cells = calloc((size_t)7 * (size_t)(nr + 1), sizeof *cells);
    for (int i = 0; buf && cells && i < nr; i++) {
        char(*c)[400] = &buf[(i + 1) * 7];
        const sb_vcmp_entry *a = &e[rows[i].first];
        snprintf(c[0], 400, "%s", a->dtype);
        snprintf(c[1], 400, "%s", a->shape);
        snprintf(c[2], 400, "%d", a->threads);
        vendor_cells(in, e, pt, status, n, &rows[i], c, &above);
    }
    for (int j = 0; buf && cells && j < 7 * (nr + 1); j++) cells[j] = j < 7 ? hdr[j] : buf[j];
    if (buf && cells) s->table(s->ctx, 7, nr, cells);
    above_note(s, above);
    free(cells);
    free(buf);
out:
    free(rows);
    free(status);
    free(pt);
    free(e);
}

/* a vendor kernel was tried at a GEMM point with a precision */
static int tried_vendor(const sb_ptset *set)
{
    for (int i = 0; i < set->n; i++)
        if (sb_rp_is_gemm1(&set->p[i]) && set->p[i].dtype && set->p[i].dtype[0] &&
            sb_vendor_of_kernel(set->p[i].kernel))
            return 1;
    return 0;
}

void sb_report_vendors(const sb_headline_in *in, const sb_rsink *s)
{
    s->heading(s->ctx, 2, "Own kernels against the faster vendor (GEMM)");
    sb_rp_sink_para(
        s,
        "At each precision, shape and thread count where a vendor kernel was tried (oneDNN's"
        " onednn-*, MKL's mkl-*), each machine's fastest own kernel against the faster of the"
        " vendors that ran there, by median, named, with the other vendor beside it. \"own vs"
        " vendor\" is own/vendor: below 1, ours is behind. Rates are medians [p10, p90]; the"
        " ratio carries the gate's test (one-sided Mann-Whitney U on the seconds per"
        " repetition).");
    /* a side without a vendor kernel is said in one line, not a table */
    int nb = tried_vendor(in->bs), nc = tried_vendor(in->cs);
    int64_t bm = in->bs->n ? in->bs->p[0].machine_id : 0,
            cm = in->cs->n ? in->cs->p[0].machine_id : 0;
    int same = in->cs == in->bs || (bm && bm == cm);
    if (!nb && (!nc || same)) {
        sb_rp_sink_para(s, "No vendor GEMM kernel (onednn-*, mkl-*) ran on either side: nothing to"
                           " compare ours with.");
        return;
    }
    if (nb) vendor_side(in, s, in->bs, in->bname);
    else
        sb_rp_sink_para(s, "%s ran no vendor GEMM kernel (onednn-*, mkl-*).", in->bname);
    if (same) return; /* one machine on both sides: said once */
    if (nc) vendor_side(in, s, in->cs, in->cname);
    else
        sb_rp_sink_para(s, "%s ran no vendor GEMM kernel (onednn-*, mkl-*).", in->cname);
}
