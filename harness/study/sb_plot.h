/* sb_plot: the sweep's plots, from the database only. Per GEMM shape (or per
 * training configuration): throughput against threads per kernel, with the
 * spread of the samples, and speedup against threads with the y = x ideal
 * and a parallel-efficiency panel. PNG (pngcairo) and SVG of each. */
#ifndef SB_PLOT_H
#define SB_PLOT_H
#include <stdint.h>
#include "sb_err.h"

typedef struct sb_plot_opts {
    const char *db_path;
    int64_t sweep_id;       /* 0: the newest sweep */
    const char *out_dir;    /* created if missing */
    const char *reference;  /* published points to overlay (default: the
                               source tree's results/reference/study.csv) */
} sb_plot_opts;

/* Draws every plot of the sweep; *files receives the written paths (caller
 * frees each and the array). SB_EUSAGE for a missing sweep, no data,
 * a missing gnuplot or an unwritable directory. */
int sb_plot_sweep(const sb_plot_opts *o, char ***files, int *nfiles, sb_err *e);

#endif
