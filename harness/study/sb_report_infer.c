#include "sb_report_infer.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "sb_report_points.h"
#include "sb_report_words.h"
#include "sb_gate.h"
#include "sb_query.h"

/* An inference point's configuration as a table shows it: its series key
 * (model, batch, seq) and, for int8, its activation quantisation (and its
 * attention's, when the sweep set it). */
static void infer_config(const sb_pt *p, char *buf, size_t cap)
{
    json_t *cfg = json_loads(p->config, 0, NULL);
    const char *q = json_string_value(json_object_get(cfg, "quant"));
    const char *a = json_string_value(json_object_get(cfg, "attention"));
    snprintf(buf, cap, "%.300s%s%.20s%s%.20s", p->shape[0] ? p->shape : "-", q ? " quant=" : "",
             q ? q : "", a ? " attention=" : "", a ? a : "");
    json_decref(cfg);
}

/* A point's per-question latencies at batch 1 (its result's
 * latency_samples, seconds); NULL when it has none. */
static double *latency_samples(sb_rp_out *o, const sb_rp_model *m, const sb_pt *p, int *n)
{
    *n = 0;
    json_t *doc = NULL;
    sb_err e = {0};
    int rc = sb_rp_result(m, p->id, &doc, &e);
    if (rc) sb_rp_read_failed(o, rc, &e);
    json_t *ls = json_object_get(doc, "latency_samples");
    size_t len = json_is_array(ls) ? json_array_size(ls) : 0;
    double *v = len ? malloc(sizeof *v * len) : NULL;
    for (size_t i = 0; v && i < len; i++) {
        json_t *x = json_array_get(ls, i);
        if (!json_is_number(x)) continue;
        v[(*n)++] = json_number_value(x);
    }
    json_decref(doc);
    return v;
}

/* The latency ratio of a pair in the report's words, with the gate's own
 * test (sb_gate_compare both ways, the report's options) run on the two
 * points' per-question latencies instead of their timed batches. */
static void latency_sig(sb_rp_out *o, const sb_rp_model *m, const sb_pt *b, const sb_pt *c,
                        const sb_metric_val *mb, const sb_metric_val *mc, char *buf, size_t cap)
{
    char r[32];
    /* lower is better: the candidate's speed is the baseline's time over its own */
    sb_rp_ratio_str(mb ? mb->value : 0, mc ? mc->value : 0, r, sizeof r);
    int s = SB_RP_SIG_UNTESTED;
    double p = -1;
    if (mb && mc && o->go) {
        sb_pt bl = *b, cl = *c;
        bl.samples = latency_samples(o, m, b, &bl.nsamples);
        cl.samples = latency_samples(o, m, c, &cl.nsamples);
        sb_ptset bset = {&bl, 1}, cset = {&cl, 1};
        sb_gate_result fwd = {0}, rev = {0};
        sb_err e = {0};
        if (bl.samples && cl.samples && !sb_gate_compare(&bset, &cset, o->go, &fwd, &e) &&
            !sb_gate_compare(&cset, &bset, o->go, &rev, &e))
            s = sb_rp_sig_in(&fwd, &rev, b, c, &p);
        sb_gate_result_free(&fwd);
        sb_gate_result_free(&rev);
        free(bl.samples);
        free(cl.samples);
    }
    sb_rp_sig_words(r, s, p, buf, cap);
}

static void latency_cell(const sb_pt *p, const sb_metric_val *m, char *buf, size_t cap)
{
    if (!m) {
        sb_rp_not_available(p, buf, cap);
        return;
    }
    const sb_metric_val *p99 = sb_pt_metric(p, "latency_p99_ms");
    char x[32], y[32];
    snprintf(buf, cap, "%s (p99 %s)", sb_rp_num(m->value, x, sizeof x),
             p99 ? sb_rp_num(p99->value, y, sizeof y) : "-");
}

static void accuracy_cell(const sb_pt *p, char *buf, size_t cap)
{
    const sb_metric_val *em = sb_rp_ok(p) ? sb_pt_metric(p, "em") : NULL,
                        *f1 = sb_rp_ok(p) ? sb_pt_metric(p, "f1") : NULL;
    if (!em && !f1) {
        if (sb_rp_ok(p))
            snprintf(buf, cap, "not available (no answers in the data)");
        else
            sb_rp_not_available(p, buf, cap);
        return;
    }
    snprintf(buf, cap, "%.2f / %.2f", em ? em->value : NAN, f1 ? f1->value : NAN);
}

static void agreement_cell(const sb_pt *p, char *buf, size_t cap)
{
    const sb_metric_val *a = sb_rp_ok(p) ? sb_pt_metric(p, "f32_agreement_pct") : NULL;
    if (a)
        snprintf(buf, cap, "%.2f %%", a->value);
    else if (sb_rp_ok(p))
        snprintf(buf, cap, "not available (run without --compare-f32)");
    else
        sb_rp_not_available(p, buf, cap);
}

/* "Inference accuracy": one row per kernel and configuration (threads
 * change no answer), from its point at the fewest threads. */
static void infer_accuracy(sb_rp_out *o, const sb_rp_pair *pv, int n)
{
    sb_rp_heading(o, 3, "Inference accuracy");
    sb_rp_para(o,
               "Exact match and F1 (%%) of each kernel's answers, and the share of its answers"
               " identical to the f32 path's on the same checkpoint (--compare-f32), from its point"
               " at the fewest threads; \"EM: candidate - baseline\" is in points.");
    const char *ahdr[] = {"kernel",
                          "dtype",
                          "config",
                          "baseline EM / F1",
                          "candidate EM / F1",
                          "EM: candidate - baseline",
                          "baseline identical to f32",
                          "candidate identical to f32"};
    sb_rp_table t;
    sb_rp_t_init(&t, 8, ahdr);
    for (int i = 0; i < n; i++) {
        const sb_pt *any = pv[i].b ? pv[i].b : pv[i].c;
        int first = 1;
        for (int j = 0; j < n && first; j++) {
            const sb_pt *q = pv[j].b ? pv[j].b : pv[j].c;
            if (j != i && !strcmp(q->kernel, any->kernel) && !strcmp(q->shape, any->shape) &&
                !strcmp(q->config, any->config) &&
                (q->threads < any->threads || (q->threads == any->threads && j < i)))
                first = 0;
        }
        if (!first) continue;
        char a[4][600], d[64] = "-", cfg[400];
        accuracy_cell(pv[i].b, a[0], sizeof a[0]);
        accuracy_cell(pv[i].c, a[1], sizeof a[1]);
        agreement_cell(pv[i].b, a[2], sizeof a[2]);
        agreement_cell(pv[i].c, a[3], sizeof a[3]);
        const sb_metric_val *eb = sb_rp_ok(pv[i].b) ? sb_pt_metric(pv[i].b, "em") : NULL,
                            *ec = sb_rp_ok(pv[i].c) ? sb_pt_metric(pv[i].c, "em") : NULL;
        if (eb && ec) snprintf(d, sizeof d, "%+.2f points", ec->value - eb->value);
        infer_config(any, cfg, sizeof cfg);
        const char *cells[] = {any->kernel, any->dtype, cfg, a[0], a[1], d, a[2], a[3]};
        sb_rp_t_row(&t, cells);
    }
    sb_rp_t_emit(o, &t);
}

void sb_rp_render_infer(sb_rp_ctx *ctx, const sb_rp_pair *pv, int n)
{
    sb_rp_out *o = ctx->o;
    sb_rp_plots *pl = ctx->pl;
    const sb_rp_model *m = ctx->m;
    const char *bname = ctx->bname, *cname = ctx->cname;
    sb_rp_para(
        o,
        "Per kernel, configuration (model, batch, seq; int8: how activations are quantised)"
        " and threads: sequences/s at the point's batch, the median with the p10-p90 range of"
        " its timed batches in brackets, and latency per question at batch 1 (measured on the"
        " smallest batch's point of a sweep), p50 with the p99. \"candidate vs baseline\" says "
        "how much"
        " faster or slower the candidate is and what the gate's test says of it: on the timed"
        " batches for throughput, on the questions' latencies for latency.");
    const char *hdr[] = {"kernel",
                         "dtype",
                         "config",
                         "threads",
                         "baseline (sequences/s)",
                         "candidate (sequences/s)",
                         "sequences/s: candidate vs baseline",
                         "baseline latency p50 ms (p99)",
                         "candidate latency p50 ms (p99)",
                         "p50 latency: candidate vs baseline"};
    sb_rp_table t;
    sb_rp_t_init(&t, 10, hdr);
    sb_rp_bars thr, lat;
    sb_rp_bars_init(&thr, n);
    sb_rp_bars_init(&lat, n);
    for (int i = 0; i < n; i++) {
        const sb_pt *b = pv[i].b, *c = pv[i].c, *any = b ? b : c;
        const sb_metric_val *sb = sb_rp_ok(b) ? sb_pt_metric(b, "sequences_per_s") : NULL,
                            *sc = sb_rp_ok(c) ? sb_pt_metric(c, "sequences_per_s") : NULL,
                            *lb = sb_rp_ok(b) ? sb_pt_metric(b, "latency_p50_ms") : NULL,
                            *lc = sb_rp_ok(c) ? sb_pt_metric(c, "latency_p50_ms") : NULL;
        char v[4][700], r1[96], r2[96], thr_s[16], cfg[400];
        if (sb)
            sb_rp_with_spread(o, b, sb, v[0], sizeof v[0]);
        else
            sb_rp_not_available(b, v[0], sizeof v[0]);
        if (sc)
            sb_rp_with_spread(o, c, sc, v[1], sizeof v[1]);
        else
            sb_rp_not_available(c, v[1], sizeof v[1]);
        latency_cell(b, lb, v[2], sizeof v[2]);
        latency_cell(c, lc, v[3], sizeof v[3]);
        sb_rp_ratio_sig(o, b, c, sc ? sc->value : 0, sb ? sb->value : 0, r1, sizeof r1);
        latency_sig(o, m, b, c, lb, lc, r2, sizeof r2);
        snprintf(thr_s, sizeof thr_s, "%d", any->threads);
        infer_config(any, cfg, sizeof cfg);
        const char *cells[] = {any->kernel, any->dtype, cfg, thr_s, v[0], v[1], r1, v[2], v[3], r2};
        sb_rp_t_row(&t, cells);
        /* the charts: each kernel and configuration at its most threads
         * (throughput), each kernel at its most threads and smallest
         * batch, the first such row (latency, the same at any batch) */
        int top = 1, first_lat = 1;
        for (int j = 0; j < n && top; j++) {
            const sb_pt *q = pv[j].b ? pv[j].b : pv[j].c;
            if (!strcmp(q->kernel, any->kernel) && !strcmp(q->shape, any->shape) &&
                !strcmp(q->config, any->config) && q->threads > any->threads)
                top = 0;
        }
        for (int j = 0; j < n && first_lat; j++) {
            const sb_pt *q = pv[j].b ? pv[j].b : pv[j].c;
            if (j != i && !strcmp(q->kernel, any->kernel) && !strcmp(q->config, any->config) &&
                (q->threads > any->threads || (q->threads == any->threads && j < i)))
                first_lat = 0;
        }
        char l[400];
        if (top && (sb || sc)) {
            /* short: the model and seq are the table's; a chart names what varies */
            char batch[16] = "", quant[16] = "";
            sb_rp_shape_value(any->shape, "batch", batch, sizeof batch);
            const char *qs = strstr(cfg, " quant=tensor");
            if (qs) snprintf(quant, sizeof quant, " tensor");
            snprintf(l, sizeof l, "%.120s%s%.15s%s t%d", any->kernel, batch[0] ? " b" : "", batch,
                     quant, any->threads);
            sb_rp_bars_add(&thr, l, b, sb, c, sc);
        }
        if (first_lat && (lb || lc)) {
            const sb_metric_val *pb = sb_rp_ok(b) ? sb_pt_metric(b, "latency_p99_ms") : NULL,
                                *pc = sb_rp_ok(c) ? sb_pt_metric(c, "latency_p99_ms") : NULL;
            double vals[6] = {lb ? lb->value : 0, lb ? lb->value : 0, pb ? pb->value : 0,
                              lc ? lc->value : 0, lc ? lc->value : 0, pc ? pc->value : 0};
            snprintf(l, sizeof l, "%s t%d", any->kernel, any->threads);
            sb_rp_bars_set(&lat, l, vals);
        }
    }
    sb_rp_t_emit(o, &t);
    /* the figures are named after the row of the section's capability */
    char fig[2][48];
    const char *wl = sb_workload_flagged(SB_WL_LATENCY)->name;
    snprintf(fig[0], sizeof fig[0], "%.32s", wl);
    snprintf(fig[1], sizeof fig[1], "%.32s-latency", wl);
    sb_rp_plot_pairs(o, pl, 0, fig[0], "median sequences/s",
                     "Inference throughput per kernel and configuration", thr.labels,
                     (const double *const *)thr.v, thr.n, bname, cname);
    sb_rp_plot_pairs(o, pl, 0, fig[1], "ms per question at batch 1: p50, bar up to p99",
                     "Inference latency per kernel", lat.labels, (const double *const *)lat.v,
                     lat.n, bname, cname);
    sb_rp_bars_free(&thr);
    sb_rp_bars_free(&lat);

    infer_accuracy(o, pv, n);
}
