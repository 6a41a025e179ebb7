#include "sb_report_train.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sb_metric.h"
#include "sb_report_points.h"
#include "sb_report_words.h"

/* Leaves the headline epoch-time ratio in the summary: 0 when a side has no
 * epoch time (and, not rendered at all, when neither side trained). */
void sb_rp_render_train(sb_rp_ctx *ctx, const sb_rp_pair *pv, int n)
{
    sb_rp_out *o = ctx->o;
    sb_rp_plots *pl = ctx->pl;
    const char *bname = ctx->bname, *cname = ctx->cname;
    /* the headline: each machine's best epoch time, whatever kernel gave it */
    const sb_pt *best[2] = {NULL, NULL};
    for (int i = 0; i < n; i++) {
        const sb_pt *sides[2] = {pv[i].b, pv[i].c};
        for (int s = 0; s < 2; s++) {
            const sb_metric_val *m = sb_rp_ok(sides[s]) ? sb_pt_metric(sides[s], "epoch_seconds")
                                                        : NULL;
            if (m && m->value > 0 &&
                (!best[s] ||
                 sb_metric_better_of(m->value, sb_pt_metric(best[s], "epoch_seconds")->value, 1)))
                best[s] = sides[s];
        }
    }
    double headline = 0;
    if (best[0] && best[1]) {
        const sb_metric_val *mb = sb_pt_metric(best[0], "epoch_seconds"),
                            *mc = sb_pt_metric(best[1], "epoch_seconds");
        headline = mb->value / mc->value;
        char words[64], x[32], y[32];
        sb_rp_speed_words(headline, words, sizeof words);
        sb_rp_para(o,
                   "Same-name view, each run's own data set (not SQuAD: the headline above projects"
                   " that): best epoch time %s s on the baseline (%s) against %s s on the candidate"
                   " (%s): the candidate trains an epoch %s%s.",
                   sb_rp_num(mb->value, x, sizeof x), best[0]->kernel,
                   sb_rp_num(mc->value, y, sizeof y), best[1]->kernel, words,
                   mb->projected || mc->projected
                       ? " (projected epoch times: see Projected figures)"
                       : "");
    } else {
        sb_rp_para(o,
                   "Epoch-time ratio of the runs' own data sets: not available (an epoch time is"
                   " missing on %s).",
                   best[0]       ? "the candidate"
                       : best[1] ? "the baseline"
                                 : "both sides");
    }
    const char *hdr[] = {"kernel",
                         "dtype",
                         "config",
                         "threads",
                         "baseline (tokens/s)",
                         "candidate (tokens/s)",
                         "tokens/s: candidate vs baseline",
                         "baseline epoch (s)",
                         "candidate epoch (s)",
                         "epoch time: candidate vs baseline"};
    sb_rp_table t;
    sb_rp_t_init(&t, 10, hdr);
    sb_rp_bars br;
    sb_rp_bars_init(&br, n);
    for (int i = 0; i < n; i++) {
        const sb_pt *b = pv[i].b, *c = pv[i].c, *any = b ? b : c;
        const sb_metric_val *tb = sb_rp_ok(b) ? sb_pt_metric(b, "tokens_per_s") : NULL;
        const sb_metric_val *tc = sb_rp_ok(c) ? sb_pt_metric(c, "tokens_per_s") : NULL;
        const sb_metric_val *eb = sb_rp_ok(b) ? sb_pt_metric(b, "epoch_seconds") : NULL;
        const sb_metric_val *ec = sb_rp_ok(c) ? sb_pt_metric(c, "epoch_seconds") : NULL;
        char v[4][700], r1[96], r2[32], thr[16];
        const sb_metric_val *ms[4] = {tb, tc, eb, ec};
        const sb_pt *ps[4] = {b, c, b, c};
        for (int k = 0; k < 4; k++) {
            if (ms[k])
                sb_rp_with_spread(o, ps[k], ms[k], v[k], sizeof v[k]);
            else
                sb_rp_not_available(ps[k], v[k], sizeof v[k]);
        }
        sb_rp_ratio_sig(o, b, c, tc ? tc->value : 0, tb ? tb->value : 0, r1, sizeof r1);
        sb_rp_ratio_str(eb ? eb->value : 0, ec ? ec->value : 0, r2, sizeof r2);
        snprintf(thr, sizeof thr, "%d", any->threads);
        const char *cfg = any->shape[0] ? any->shape : any->config;
        const char *cells[] = {any->kernel, any->dtype, cfg, thr, v[0], v[1], r1, v[2], v[3], r2};
        sb_rp_t_row(&t, cells);
        if (tb || tc) {
            /* two runs of one kernel and threads that differ only in batch
             * (or seq) must be told apart: the chart names what varies */
            char l[320], batch[16] = "", seq[16] = "";
            sb_rp_shape_value(any->shape, "batch", batch, sizeof batch);
            sb_rp_shape_value(any->shape, "seq", seq, sizeof seq);
            snprintf(l, sizeof l, "%.120s%s%.15s%s%.15s t%d", any->kernel, batch[0] ? " b" : "",
                     batch, seq[0] ? " s" : "", seq, any->threads);
            sb_rp_bars_add(&br, l, b, tb, c, tc);
        }
    }
    sb_rp_t_emit(o, &t);
    /* the figure is named after the row of the section's capability */
    sb_rp_plot_pairs(o, pl, 0, sb_workload_flagged(SB_WL_PROJECT)->name, "median tokens/s",
                     "Training throughput per kernel", br.labels, (const double *const *)br.v, br.n,
                     bname, cname);
    sb_rp_bars_free(&br);
    (void)headline;
}
