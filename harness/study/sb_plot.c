/* sb_plot: the driver of the sweep's figures (sb_plot.h): one figure set
 * per series (sb_plot_throughput), the workload's own figures (g_figures)
 * and the scaling figures; the figure families live in sb_plot_*.c
 * (sb_plot_int.h lists them), what they share in sb_plot_common.c. */
#include "sb_plot.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sb_db.h"
#include "sb_gnuplot.h"
#include "sb_plot_int.h"
#include "sb_query.h"

#ifndef SB_SOURCE_DIR
#define SB_SOURCE_DIR "."
#endif

/* The figures a workload draws beyond its headline metric per shape and
 * the scaling figures, by a capability its row (bench/sb_workload)
 * declares: latency at batch 1 (SB_WL_LATENCY) draws inference's latency
 * and accuracy figures. */
static const struct {
    unsigned cap;
    int (*draw)(sb_plot_ctx *c, char ***files, int *nfiles, int *drawn, sb_err *e);
} g_figures[] = {{SB_WL_LATENCY, sb_plot_infer}};

int sb_plot_sweep(const sb_plot_opts *o, char ***files, int *nfiles, sb_err *e)
{
    *files = NULL;
    *nfiles = 0;
    sb_plot_ctx c;
    int rc = sb_plot_open_sweep(o, &c, e);
    if (rc) return rc;
    /* One figure set per shape (GEMM) or per configuration (train). */
    char **shape_list = NULL;
    int nshape_list = 0;
    if ((rc = sb_db_sweep_shapes(c.db, c.sweep, c.workload, &shape_list, &nshape_list, e))) {
        sb_db_close(c.db);
        return rc;
    }
    if ((rc = sb_db_sweep_summary(c.db, c.sweep, &c.sum, &c.nsum, e))) {
        sb_db_strings_free(shape_list, nshape_list);
        sb_db_close(c.db);
        return rc;
    }
    int shapes = 0;
    for (int si = 0; !rc && si < nshape_list; si++)
        rc = sb_plot_shape(&c, shape_list[si], files, nfiles, &shapes, e);
    sb_db_strings_free(shape_list, nshape_list);
    sb_summary_rows_free(c.sum, c.nsum);
    c.sum = NULL;
    c.nsum = 0;
    for (size_t i = 0; !rc && i < sizeof g_figures / sizeof g_figures[0]; i++)
        if (sb_wl_is(c.wl, g_figures[i].cap)) rc = g_figures[i].draw(&c, files, nfiles, &shapes, e);
    if (!rc) {
        const char *ref = o->reference ? o->reference
                                       : SB_SOURCE_DIR "/results/reference/study.csv";
        int before = *nfiles;
        rc = sb_plot_scaling(&c, ref, files, nfiles, e);
        if (*nfiles > before) shapes++;
    }
    sb_db_close(c.db);
    if (!rc && shapes == 0)
        rc = sb_errf(e, SB_EUSAGE, "sweep %lld has no finished points to plot", (long long)c.sweep);
    return rc;
}
