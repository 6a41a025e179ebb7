/* sb_plot_int: what the plot's files share, inside study/ only. sb_plot.c
 * drives (the sweep, its figure per series, g_figures, the history's and
 * the report's entry points in sb_plot.h); a file per figure family draws:
 *   sb_plot_throughput.c  throughput, speedup and efficiency per shape
 *   sb_plot_scaling.c     scaling over nodes and over ranks
 *   sb_plot_infer.c       inference latency and accuracy
 *   sb_plot_history.c     one point key over the machine's sweeps
 *   sb_plot_report.c      the report's charts (bars, dots, scaling) */
#ifndef SB_PLOT_INT_H
#define SB_PLOT_INT_H
#include <stddef.h>
#include <stdint.h>
#include "sb_db.h"
#include "sb_err.h"
#include "sb_gnuplot.h"
#include "sb_plot.h"
#include "sb_query.h"
#include "sb_workload.h"

/* The sweep being drawn (sb_plot_open_sweep). */
typedef struct sb_plot_ctx {
    char tdir[4096];
    sb_db *db;
    int64_t sweep, machine;
    int cores;
    char machine_text[512], workload[32];
    const sb_workload *wl; /* the workload's row, resolved once (NULL: unknown) */
    sb_plot_yscale yscale;
    const char *out_dir;
    sb_summary_row *sum; /* every point of the sweep, for what a figure leaves out */
    int nsum;
} sb_plot_ctx;

/* A point's p10-p90 band of a metric in --history: a rate (higher is
 * better) spreads as the same work over the p90 and p10 sample times, a
 * lower-is-better metric scales with the samples; the direction is the
 * metric table's (sb_metric_lower). Fewer than 2 samples: lo = hi = value. */
void sb_plot_band(const char *metric, const char *unit, double value, const double *xs, int ns,
                  double *lo, double *hi);

/* Opens o's sweep read-only (the newest when o->sweep_id is 0), finds the
 * templates and creates o->out_dir. SB_EUSAGE as sb_plot_sweep says. */
int sb_plot_open_sweep(const sb_plot_opts *o, sb_plot_ctx *c, sb_err *e);

/* ---- the palette: one colour and one point type per kernel ---- */

/* A kernel's place: its registry index, or past the registry in the order
 * unknown names (an imported database) first appear in this figure
 * (unknown holds up to 64 of them). */
int sb_plot_kernel_slot(const char *kernel, char unknown[][160], int *nunknown);
/* The colour of a slot (they repeat past sixteen). */
const char *sb_plot_colour(int slot);
/* Appends " lc rgb COLOUR pt TYPE" for a slot. */
void sb_plot_style_clause(sb_gp *c, int slot);

/* ---- helpers ---- */

/* A file-name part: letters, digits and '-' kept, anything else '_'
 * ("all" when empty). */
void sb_plot_slug(const char *in, char *out, size_t cap);
/* Fills template tdir/name into g (which holds the figure's data blocks). */
int sb_plot_fill(sb_gp *g, const char *tdir, const char *name, const sb_gp_var *vars, int nvars,
                 sb_err *e);
/* Threads (or ranks) on x: every integer up to 8, past that log2 tics. */
void sb_plot_x_axis(sb_gp *c, int minx, int maxx);

/* ---- the figure families ---- */

/* Throughput against threads per kernel, then speedup and efficiency, for
 * one shape (or configuration) of the sweep's workload; *drawn counts the
 * shape when it had points. */
int sb_plot_shape(sb_plot_ctx *c, const char *shape, char ***files, int *nfiles, int *drawn,
                  sb_err *e);
/* Scaling over nodes and over ranks, with the published study overlaid
 * from `reference` where the workload matches; nothing for < 2 rank counts. */
int sb_plot_scaling(sb_plot_ctx *c, const char *reference, char ***files, int *nfiles, sb_err *e);
/* Inference latency and accuracy; *drawn counts the figures. */
int sb_plot_infer(sb_plot_ctx *c, char ***files, int *nfiles, int *drawn, sb_err *e);

#endif
