#include "sb_report_other.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sb_report_points.h"
#include "sb_report_words.h"
#include "sb_workload.h"

/* One row per point pair: the workload's headline metric, both sides. */
void sb_rp_render_other(sb_rp_ctx *ctx, const sb_rp_pair *pv, int n)
{
    sb_rp_out *o = ctx->o;
    sb_rp_para(o,
               "Median of each workload's headline metric with the p10-p90 range of the"
               " repetitions in brackets.");
    const char *hdr[] = {"workload", "kernel",   "configuration", "threads",
                         "unit",     "baseline", "candidate",     "candidate vs baseline"};
    sb_rp_table t;
    sb_rp_t_init(&t, 8, hdr);
    for (int i = 0; i < n; i++) {
        const sb_pt *b = pv[i].b, *c = pv[i].c, *any = b ? b : c;
        const sb_metric_val *mb, *mc;
        char vb[700], vc[700], r[96], thr[16];
        sb_rp_rate_cells(o, b, c, &mb, &mc, vb, vc, r);
        const sb_metric_val *um = mb ? mb : mc;
        snprintf(thr, sizeof thr, "%d", any->threads);
        const sb_workload *w = any->wl;
        const char *cells[] = {w ? w->title : any->workload,       any->kernel, any->shape, thr,
                               um && um->unit[0] ? um->unit : "-", vb,          vc,         r};
        sb_rp_t_row(&t, cells);
    }
    sb_rp_t_emit(o, &t);
}
