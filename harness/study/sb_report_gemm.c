#include "sb_report_gemm.h"
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sb_query.h"
#include "sb_report_points.h"
#include "sb_report_words.h"
#include "sb_vendor.h"

/* what a vendor's point stored as the implementation it dispatched
 * ("brg:avx512_core_amx_bf16"), "" for our own kernels or none stored */
static void vendor_impl(const sb_rp_model *m, const sb_pt *p, char *buf, size_t cap)
{
    buf[0] = '\0';
    if (!p || !sb_vendor_of_kernel(p->kernel)) return;
    json_t *doc = NULL;
    sb_err e = {0};
    if (!sb_rp_result(m, p->id, &doc, &e) && doc) {
        const char *v = json_string_value(json_object_get(doc, "impl"));
        if (v) snprintf(buf, cap, "%.60s", v);
    }
    json_decref(doc);
}

/* the kernel cell: a vendor's kernel with the implementation each side ran,
 * "onednn-bf16 (baseline brg:avx512_core_bf16, candidate
 * brg:avx512_core_amx_bf16)", or once when both ran the same */
static void kernel_cell(const sb_rp_model *m, const sb_pt *b, const sb_pt *c, char *buf, size_t cap)
{
    const sb_pt *any = b ? b : c;
    char ib[64], ic[64];
    vendor_impl(m, b, ib, sizeof ib);
    vendor_impl(m, c, ic, sizeof ic);
    if (!ib[0] && !ic[0])
        snprintf(buf, cap, "%s", any->kernel);
    else if (!strcmp(ib, ic) || !b || !c)
        snprintf(buf, cap, "%s (%s)", any->kernel, ib[0] ? ib : ic);
    else
        snprintf(buf, cap, "%s (baseline %s, candidate %s)", any->kernel,
                 ib[0] ? ib : "not stored", ic[0] ? ic : "not stored");
}

void sb_rp_render_gemm(sb_rp_ctx *ctx, const sb_rp_pair *pv, int n)
{
    sb_rp_out *o = ctx->o;
    sb_rp_plots *pl = ctx->pl;
    const char *bname = ctx->bname, *cname = ctx->cname;
    sb_rp_para(o,
               "Median throughput with the p10-p90 range of the repetitions in brackets;"
               " \"candidate vs baseline\" says how much faster or slower the candidate is, and"
               " whether the gate's test finds the difference significant. A vendor's kernel"
               " (onednn-*, mkl-*) names the implementation it dispatched on each side. The"
               " charts show every"
               " row, one chart per unit (GFLOP/s; GOP/s for int8), on a log axis with p10-p90"
               " error bars.");
    const char *hdr[] = {"kernel", "dtype",    "shape",     "threads",
                         "unit",   "baseline", "candidate", "candidate vs baseline"};
    sb_rp_table t;
    sb_rp_t_init(&t, 8, hdr);
    /* the charts: every row, one chart per unit (GFLOP/s, GOP/s) */
    sb_rp_bars br[2];
    sb_rp_bars_init(&br[0], n);
    sb_rp_bars_init(&br[1], n);
    for (int i = 0; i < n; i++) {
        const sb_pt *b = pv[i].b, *c = pv[i].c, *any = b ? b : c;
        const sb_metric_val *mb, *mc;
        char vb[700], vc[700], r[96], thr[16];
        sb_rp_rate_cells(o, b, c, &mb, &mc, vb, vc, r);
        const sb_metric_val *um = mb ? mb : mc;
        const char *u = um && um->unit[0] ? um->unit : "-";
        snprintf(thr, sizeof thr, "%d", any->threads);
        char kc[200];
        kernel_cell(ctx->m, b, c, kc, sizeof kc);
        const char *cells[] = {kc, any->dtype, any->shape, thr, u, vb, vc, r};
        sb_rp_t_row(&t, cells);
        if (mb || mc) {
            char l[320];
            snprintf(l, sizeof l, "%s %s t%d", any->kernel, any->shape, any->threads);
            sb_rp_bars_add(&br[!strcmp(u, "GOP/s")], l, b, mb, c, mc);
        }
    }
    sb_rp_t_emit(o, &t);
    /* the figures are named after the row of the section's capability */
    char fig[2][48];
    const char *wl = sb_workload_flagged(SB_WL_SHAPES)->name;
    snprintf(fig[0], sizeof fig[0], "%.32s", wl);
    snprintf(fig[1], sizeof fig[1], "%.32s-int8", wl);
    sb_rp_plot_pairs(o, pl, 1, fig[0], "median GFLOP/s (log scale; p10-p90 bars)",
                     "GEMM throughput, f32 and bf16 kernels", br[0].labels,
                     (const double *const *)br[0].v, br[0].n, bname, cname);
    sb_rp_plot_pairs(o, pl, 1, fig[1], "median GOP/s (log scale; p10-p90 bars)",
                     "GEMM throughput, int8 kernels", br[1].labels, (const double *const *)br[1].v,
                     br[1].n, bname, cname);
    sb_rp_bars_free(&br[0]);
    sb_rp_bars_free(&br[1]);
}
