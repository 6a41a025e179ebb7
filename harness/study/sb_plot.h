/* sb_plot: the sweep's plots, from the database only, each drawn from a
 * template of plots/ (sb_gnuplot: templates are the styling, values go in
 * through the script writer). Per GEMM shape (or per training
 * configuration): throughput against threads per kernel with the spread of
 * the samples and the measured peak of each instruction path, and speedup
 * and parallel efficiency with their spread and the ideal line; scaling over
 * nodes and ranks; for inference, sequences/s per batch, latency per
 * question at batch 1 (p50, p90, p99) and accuracy per kernel grouped by
 * precision (EM, F1, answers identical to f32); a point key's history over
 * sweeps. Each figure is
 * NAME.png, NAME.svg, NAME.gp (the whole script, data inline) and NAME.dat
 * (its data as a table). */
#ifndef SB_PLOT_H
#define SB_PLOT_H
#include <stddef.h>
#include <stdint.h>
#include "sb_err.h"
#include "sb_gnuplot.h"

typedef enum { SB_PLOT_Y_AUTO, SB_PLOT_Y_LINEAR, SB_PLOT_Y_LOG } sb_plot_yscale;

typedef struct sb_plot_opts {
    const char *db_path;
    int64_t sweep_id;      /* 0: the newest sweep */
    const char *out_dir;   /* created if missing */
    const char *reference; /* published points to overlay (default: the
                               source tree's results/reference/study.csv) */
    const char *templates; /* --templates DIR; NULL: sb_gp_templates_dir's order */
    sb_plot_yscale yscale; /* throughput axis; auto: log past a 30x range */
    /* sb_plot_history: the point key (workload and metric default to the
     * sweep's: gemm/gflops, train/tokens_per_s, infer/sequences_per_s), on
     * the sweep's machine */
    const char *workload, *kernel, *shape, *metric;
    int threads, ppn, nodes; /* ppn, nodes: 0 means 1 */
} sb_plot_opts;

/* Draws every plot of the sweep; *files receives the written paths (caller
 * frees each and the array). SB_EUSAGE for a missing sweep, no data,
 * a missing gnuplot or template, or an unwritable directory. */
int sb_plot_sweep(const sb_plot_opts *o, char ***files, int *nfiles, sb_err *e);

/* Draws history-<key>: the key's metric over every sweep of the machine
 * that ran o->sweep_id (the newest when 0), oldest first. SB_EUSAGE when the
 * key has no value in any sweep. note (notecap bytes) receives "" or one
 * line for the user, whatever the return: which configuration was drawn
 * when sweeps with another one were left out. */
int sb_plot_history(const sb_plot_opts *o, char ***files, int *nfiles, char *note, size_t notecap,
                    sb_err *e);

/* ---- the report's charts (templates report-bars.gp, report-dots.gp,
 * report-scaling.gp) ---- */

/* Clustered bars, baseline and candidate per label, the p10-p90 spread as
 * error bars where lo/hi are given (NULL: none; a value <= 0 draws no bar).
 * NULL with e set when the template cannot be read or filled. */
sb_gp *sb_plot_report_bars(const char *templates, const char *title, const char *ylabel,
                           char *const *labels, int n, const char *bname, const double *bv,
                           const double *blo, const double *bhi, const char *cname,
                           const double *cv, const double *clo, const double *chi, sb_err *e);
/* A dot plot for many labels (report-dots.gp): one row per label, top to
 * bottom, the two sides' medians as dots with their p10-p90 spread on a log
 * x axis (xlabel names the one unit); a value <= 0 draws no dot. */
sb_gp *sb_plot_report_dots(const char *templates, const char *title, const char *xlabel,
                           char *const *labels, int n, const char *bname, const double *bv,
                           const double *blo, const double *bhi, const char *cname,
                           const double *cv, const double *clo, const double *chi, sb_err *e);
/* Baseline and candidate against ranks (x: xs; NaN or <= 0: no point), with
 * each side's ideal line dashed where ib / ic are given (NULL: none). */
sb_gp *sb_plot_report_scaling(const char *templates, const char *title, const char *ylabel,
                              const double *xs, int n, const char *bname, const double *yb,
                              const double *ib, const char *cname, const double *yc,
                              const double *ic, sb_err *e);

/* Writes dir/base.png (and .svg when svg), base.gp and base.dat; the paths
 * are appended to *files when files is not NULL. */
int sb_plot_write_figure(const sb_gp *g, int w, int h, const char *dir, const char *base, int svg,
                         char ***files, int *nfiles, sb_err *e);

#endif
