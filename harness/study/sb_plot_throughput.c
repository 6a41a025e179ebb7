/* sb_plot_throughput: a shape's (or a configuration's) figures: throughput
 * against threads per kernel, with the spread of the samples and the
 * measured peak of each instruction path, then speedup and parallel
 * efficiency with their spread and the ideal line. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sb_db.h"
#include "sb_db_ingest.h"
#include "sb_gnuplot.h"
#include "sb_kernel.h"
#include "sb_metric.h"
#include "sb_peak.h"
#include "sb_plot_int.h"
#include "sb_query.h"
#include "sb_stats.h"
#include "sb_workload.h"

typedef struct {
    char kernel[160]; /* an imported kernel name is up to 128 bytes */
    char dtype[16];
    char peak_path[24]; /* the path it ran, where the kernel says ("" = its own) */
    int threads;
    double median, lo, hi; /* the headline: median and the p10-p90 spread */
    int lower;             /* lower is better (a time per unit of work) */
} series_pt;

/* A point's speedup over base (its kernel's fewest-threads median), and
 * the p10-p90 ends of it: value / base for a rate, base / value for a
 * headline where lower is better (ns a row), so a faster run is always
 * above 1. */
static void speedups(const series_pt *p, double base, double sp[3])
{
    if (p->lower) { /* a time of 0 has no speed: no point drawn */
        sp[0] = p->median > 0 ? sb_metric_speedup(p->median, base, 1) : NAN;
        sp[1] = p->hi > 0 ? sb_metric_speedup(p->hi, base, 1) : NAN;
        sp[2] = p->lo > 0 ? sb_metric_speedup(p->lo, base, 1) : NAN;
    } else {
        sp[0] = sb_metric_speedup(p->median, base, 0);
        sp[1] = sb_metric_speedup(p->lo, base, 0);
        sp[2] = sb_metric_speedup(p->hi, base, 0);
    }
}

/* Throughput of one sample: GEMM flops / seconds, or tokens (inference:
 * sequences) / seconds from the point's own median (the rate * the median
 * step or batch seconds). */
static int load_series(sb_db *db, int64_t sweep, const sb_workload *w, const char *shape,
                       series_pt **pts, int *n, char *unit, size_t unitcap, sb_err *e)
{
    /* the workload's headline metric (none: nothing to draw per shape) */
    *pts = NULL;
    *n = 0;
    if (!w || !w->metric) return SB_OK;
    const char *metric = w->metric;
    int lower = sb_metric_lower(metric, w->unit);
    snprintf(unit, unitcap, "%s", w->unit);
    sb_series_point *v;
    int nv;
    int rc = sb_db_metric_series(db, sweep, w->name, shape, metric, &v, &nv, e);
    if (rc || nv == 0) return rc;
    *pts = malloc(sizeof **pts * (size_t)nv);
    if (!*pts) {
        sb_series_free(v, nv);
        return sb_errf(e, SB_EFAIL, "out of memory");
    }
    for (int i = 0; i < nv; i++) {
        series_pt *p = &(*pts)[(*n)++];
        snprintf(p->kernel, sizeof p->kernel, "%s", v[i].kernel);
        snprintf(p->dtype, sizeof p->dtype, "%s", v[i].dtype);
        snprintf(p->peak_path, sizeof p->peak_path, "%s", v[i].peak_path);
        p->threads = v[i].threads;
        p->median = p->lo = p->hi = v[i].value;
        p->lower = lower;
        if (!strcmp(v[i].dtype, "int8") && w->int8_unit)
            snprintf(unit, unitcap, "%s", w->int8_unit);
        /* Spread: the same work over the p90 and p10 sample times (a
         * rate), or the time per unit of work scaled as they are. */
        sb_metric_band(p->median, v[i].samples, v[i].nsamples, lower, &p->lo, &p->hi);
    }
    sb_series_free(v, nv);
    return SB_OK;
}

/* The median of a kernel's fewest-threads point: what its speedup is over. */
static double series_base(const series_pt *pts, int n, const char *kernel)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(pts[i].kernel, kernel)) return pts[i].median;
    return 0;
}

/* One data block per kernel: threads, median, p10, p90 (throughput), or
 * threads, speedup, its p10, p90, efficiency %, its p10, p90; the speedup
 * is over the kernel's own fewest-threads median. */
static int datablocks(sb_gp *g, const series_pt *pts, int n, int speedup)
{
    int block = 0;
    for (int i = 0; i < n;) {
        int j = i;
        while (j < n && !strcmp(pts[j].kernel, pts[i].kernel)) j++;
        char name[16];
        snprintf(name, sizeof name, "d%d", block++);
        sb_gp_block_begin(g, name);
        double base = pts[i].median, base_t = pts[i].threads;
        for (int q = i; q < j; q++) {
            if (speedup) {
                double ideal = pts[q].threads / base_t;
                double sp[3];
                speedups(&pts[q], base, sp);
                double row[7] = {pts[q].threads,
                                 sp[0],
                                 sp[1],
                                 sp[2],
                                 100.0 * sp[0] / ideal,
                                 100.0 * sp[1] / ideal,
                                 100.0 * sp[2] / ideal};
                if (!(base > 0))
                    for (int k = 1; k < 7; k++) row[k] = NAN;
                sb_gp_block_row(g, row, 7);
            } else {
                double row[4] = {pts[q].threads, pts[q].median, pts[q].lo, pts[q].hi};
                sb_gp_block_row(g, row, 4);
            }
        }
        sb_gp_block_end(g);
        i = j;
    }
    return block;
}

/* `using` is one of this file's literals, with no directives. */
/* A series per kernel, titled by it; a workload without kernels (STREAM)
 * has one series, titled by the workload. */
static void series_clause(sb_gp *c, const char *workload, const series_pt *pts, int n,
                          const char *using, char unknown[][160], int *nunknown)
{
    int block = 0;
    for (int i = 0; i < n;) {
        int j = i;
        while (j < n && !strcmp(pts[j].kernel, pts[i].kernel)) j++;
        sb_gp_add(c, block ? ", $d%d " : "$d%d ", block);
        sb_gp_add(c, using);
        sb_plot_style_clause(c, sb_plot_kernel_slot(pts[i].kernel, unknown, nunknown));
        sb_gp_add(c, " title %T", strcmp(pts[i].kernel, "none") ? pts[i].kernel : workload);
        block++;
        i = j;
    }
}

/* The peak an instruction path is measured against, per core: the peak
 * probe's latest on this machine (the scalar kernel's is the f32 FMA's, as
 * the sweep's pct_peak takes it). */
static double path_peak(sb_db *db, int64_t machine, const char *isa)
{
    if (strcmp(isa, "scalar") != 0) return sb_db_peak_per_core(db, machine, isa);
    return 0; /* a scalar loop has no peak of its own: the f32 line stands */
}

/* Peak lines: one per instruction path the plotted kernels ran (a vendor
 * kernel's, oneDNN's or MKL's, is the ISA it dispatched, as its points'
 * pct_peak says; AMX kernels' the tile engine's), peak per core x
 * min(threads, cores) (SMT siblings share the FMA units), in the colour of
 * the first kernel on that path, dotted. Returns how many. */
static int peak_blocks(sb_gp *g, sb_gp *clause, sb_db *db, int64_t machine, int cores,
                       const series_pt *pts, int n, int maxt, char unknown[][160], int *nunknown)
{
    if (!machine) return 0;
    char seen[16][24];
    int nseen = 0;
    for (int i = 0; i < n && nseen < 16; i++) {
        if (i && !strcmp(pts[i].kernel, pts[i - 1].kernel)) continue;
        const sb_kernel *k = sb_kernel_find(pts[i].kernel);
        const char *path = pts[i].peak_path[0] ? pts[i].peak_path : k ? k->isa : NULL;
        if (!path) continue;
        int dup = 0;
        for (int s = 0; s < nseen && !dup; s++) dup = !strcmp(seen[s], path);
        if (dup) continue;
        double peak = path_peak(db, machine, path);
        if (!(peak > 0)) continue;
        snprintf(seen[nseen], sizeof seen[nseen], "%s", path);
        char name[16];
        snprintf(name, sizeof name, "pk%d", nseen++);
        sb_gp_block_begin(g, name);
        /* every thread count: on a log x axis straight segments between
         * powers of two would bend the line */
        int lim = cores > 0 ? cores : maxt;
        for (int t = 1; t <= maxt; t++) {
            double row[2] = {t, peak * (t < lim ? t : lim)};
            sb_gp_block_row(g, row, 2);
        }
        sb_gp_block_end(g);
        char label[200];
        int pi = sb_peak_path_index(path);
        const char *pu = pi >= 0 ? sb_metric_unit(sb_peak_metrics[pi], 0) : NULL;
        snprintf(label, sizeof label, "peak %s, measured: %.4g %s/core", path, peak,
                 pu ? pu : "GFLOP/s");
        sb_gp_add(clause, ", $pk%d using 1:2 with lines dt 3 lw 2 lc rgb %T title %T", nseen - 1,
                  sb_plot_colour(sb_plot_kernel_slot(pts[i].kernel, unknown, nunknown)), label);
    }
    return nseen;
}

/* What a figure of this shape does not draw, one line each: points that
 * failed, crashed or timed out with their reason, and the kernels skipped
 * (an ISA the machine lacks) on one line. "" when everything ran. */
static void footnote(const sb_plot_ctx *c, const char *shape_s, const series_pt *pts, int n,
                     char *buf, size_t cap)
{
    size_t at = 0;
    buf[0] = '\0';
    /* a spread this wide is two regimes (a busy neighbour, a clock change),
     * not one figure: said, so that a reader does not take it for one */
    for (int i = 0; i < n; i++) {
        if (!(pts[i].lo > 0) || pts[i].hi / pts[i].lo < 1.5) continue;
        int w = snprintf(buf + at, cap - at, "noisy: %s t%d (p10-p90 %.3g-%.3g, %.1fx apart)\n",
                         strcmp(pts[i].kernel, "none") ? pts[i].kernel : c->workload,
                         pts[i].threads, pts[i].lo, pts[i].hi,
                         pts[i].hi / pts[i].lo);
        if (w < 0 || at + (size_t)w >= cap) break;
        at += (size_t)w;
    }
    char skipped[600] = "";
    int nskipped = 0;
    for (int i = 0; i < c->nsum; i++) {
        const sb_summary_row *r = &c->sum[i];
        if (strcmp(r->shape ? r->shape : "", shape_s) || !strcmp(r->status, "ok") ||
            !strcmp(r->status, "projected"))
            continue;
        if (!strcmp(r->status, "skipped")) {
            /* once per kernel */
            int seen = i > 0 && !strcmp(c->sum[i - 1].kernel, r->kernel) &&
                !strcmp(c->sum[i - 1].shape ? c->sum[i - 1].shape : "", shape_s) &&
                !strcmp(c->sum[i - 1].status, "skipped");
            size_t l = strlen(skipped);
            if (!seen && l + strlen(r->kernel) + 4 < sizeof skipped)
                snprintf(skipped + l, sizeof skipped - l, "%s%s", nskipped++ ? ", " : "",
                         r->kernel);
            continue;
        }
        char line[300];
        int w = snprintf(line, sizeof line, "not drawn: %s t%d %s: %.200s\n", r->kernel, r->threads,
                         r->status, r->reason && r->reason[0] ? r->reason : "no reason given");
        if (w > 0 && at + (size_t)w < cap) {
            memcpy(buf + at, line, (size_t)w + 1);
            at += (size_t)w;
        }
    }
    if (nskipped && at + strlen(skipped) + 60 < cap)
        at += (size_t)snprintf(buf + at, cap - at, "skipped (not on this machine): %s\n", skipped);
    if (at && buf[at - 1] == '\n') buf[at - 1] = '\0';
}

static int plot_shape(sb_plot_ctx *c, const char *shape_s, const series_pt *pts, int n,
                      const char *unit, char ***files, int *nfiles, sb_err *e)
{
    char name[96], base[160], what[1200], line1[1300], ylabel[128];
    char unknown[64][160];
    int nunknown = 0;
    sb_plot_slug(shape_s, name, sizeof name);
    const sb_workload *w = c->wl;
    snprintf(what, sizeof what, "%s %s", w && w->flags & SB_WL_PLAN ? w->title : c->workload,
             shape_s[0] ? shape_s : "");
    int maxt = 1, mint = 1 << 30;
    double ymin = INFINITY, ymax = 0;
    for (int i = 0; i < n; i++) {
        if (pts[i].threads > maxt) maxt = pts[i].threads;
        if (pts[i].threads < mint) mint = pts[i].threads;
        if (pts[i].lo > 0 && pts[i].lo < ymin) ymin = pts[i].lo;
        if (pts[i].hi > ymax) ymax = pts[i].hi;
    }
    /* log y where the curves span more than 30x: f32 next to AMX would
     * otherwise lie on the floor of a linear axis */
    int logy = c->yscale == SB_PLOT_Y_LOG ||
        (c->yscale == SB_PLOT_Y_AUTO && ymin > 0 && ymax / ymin > 30);

    snprintf(ylabel, sizeof ylabel, "%s (median, p10-p90)%s", unit, logy ? ", log scale" : "");
    sb_gp *s = sb_gp_new(), *xa = sb_gp_new(), *ya = sb_gp_new(), *ser = sb_gp_new();
    datablocks(s, pts, n, 0);
    sb_plot_x_axis(xa, mint, maxt);
    if (logy)
        sb_gp_add(ya, "set logscale y 10\nset yrange [*:*]\n");
    else
        sb_gp_add(ya, "set yrange [0:*]\n");
    series_clause(ser, c->workload, pts, n, "using 1:2:3:4 with yerrorlines lw 2", unknown,
                  &nunknown);
    if (w && w->flags & SB_WL_PEAK)
        peak_blocks(s, ser, c->db, c->machine, c->cores, pts, n, maxt, unknown, &nunknown);
    char foot[2048], xlabel[2100];
    footnote(c, shape_s, pts, n, foot, sizeof foot);
    snprintf(xlabel, sizeof xlabel, "threads%s%s", foot[0] ? "\n\n" : "", foot);
    const sb_gp_var tv[] = {{"title", SB_GPV_TEXT, what, 0, NULL},
                            {"machine", SB_GPV_TEXT, c->machine_text, 0, NULL},
                            {"ylabel", SB_GPV_TEXT, ylabel, 0, NULL},
                            {"xaxis", SB_GPV_CLAUSE, NULL, 0, xa},
                            {"yaxis", SB_GPV_CLAUSE, NULL, 0, ya},
                            {"series", SB_GPV_CLAUSE, NULL, 0, ser},
                            {"xlabel", SB_GPV_LINES, xlabel, 0, NULL}};
    int rc = sb_plot_fill(s, c->tdir, "throughput.gp", tv, 7, e);
    snprintf(base, sizeof base, "throughput-%s", name);
    if (!rc) rc = sb_plot_write_figure(s, 1000, 720, c->out_dir, base, 1, files, nfiles, e);
    sb_gp_free(s);
    sb_gp_free(ya);
    sb_gp_free(ser);
    if (rc) {
        sb_gp_free(xa);
        return rc;
    }

    /* speedup and efficiency, with the ideal line: the thread ratio over the
     * fewest threads any kernel ran; none for one thread count (every point
     * would be 1.0) */
    if (maxt == mint) {
        sb_gp_free(xa);
        return SB_OK;
    }
    sb_gp *t = sb_gp_new(), *sp = sb_gp_new(), *ef = sb_gp_new();
    ya = sb_gp_new();
    datablocks(t, pts, n, 1);
    sb_gp_block_begin(t, "ideal");
    for (int q = mint; q <= maxt; q++) {
        double row[2] = {q, (double)q / mint};
        sb_gp_block_row(t, row, 2);
    }
    sb_gp_block_end(t);
    /* the axis holds the ideal and every point's p90 (a superlinear or
     * bimodal point is shown, never clipped) */
    double top = (double)maxt / mint, bottom = 1;
    for (int i = 0; i < n; i++) {
        double b = series_base(pts, n, pts[i].kernel);
        if (!(b > 0)) continue;
        double r[3];
        speedups(&pts[i], b, r);
        if (r[2] > top) top = r[2];
        if (r[1] < bottom) bottom = r[1];
    }
    if (maxt > 8)
        sb_gp_add(ya, "set logscale y 2\nset yrange [%g:%g]\n", bottom * 0.8, top * 1.3);
    else
        sb_gp_add(ya, "set yrange [0:%g]\n", top * 1.1 + 0.2);
    series_clause(sp, c->workload, pts, n, "using 1:2:3:4 with yerrorlines lw 2", unknown,
                  &nunknown);
    sb_gp_add(sp, ", $ideal using 1:2 with lines dt 2 lw 1 lc rgb 'black' title 'ideal (linear)'");
    series_clause(ef, c->workload, pts, n, "using 1:5:6:7 with yerrorlines lw 2", unknown,
                  &nunknown);
    sb_gp_add(ef, ", 100 with lines dt 2 lw 1 lc rgb 'black' title 'ideal'");
    snprintf(line1, sizeof line1, "Speedup and parallel efficiency: %s", what);
    const sb_gp_var sv[] = {{"title", SB_GPV_TEXT, line1, 0, NULL},
                            {"machine", SB_GPV_TEXT, c->machine_text, 0, NULL},
                            {"xaxis", SB_GPV_CLAUSE, NULL, 0, xa},
                            {"yaxis", SB_GPV_CLAUSE, NULL, 0, ya},
                            {"speedup", SB_GPV_CLAUSE, NULL, 0, sp},
                            {"efficiency", SB_GPV_CLAUSE, NULL, 0, ef},
                            {"xlabel", SB_GPV_LINES, xlabel, 0, NULL}};
    rc = sb_plot_fill(t, c->tdir, "speedup.gp", sv, 7, e);
    snprintf(base, sizeof base, "speedup-%s", name);
    if (!rc) rc = sb_plot_write_figure(t, 1000, 860, c->out_dir, base, 1, files, nfiles, e);
    sb_gp_free(t);
    sb_gp_free(sp);
    sb_gp_free(ef);
    sb_gp_free(xa);
    sb_gp_free(ya);
    return rc;
}

int sb_plot_shape(sb_plot_ctx *c, const char *shape, char ***files, int *nfiles, int *drawn,
                  sb_err *e)
{
    series_pt *pts = NULL;
    int n = 0;
    char unit[64];
    int rc = load_series(c->db, c->sweep, c->wl, shape, &pts, &n, unit, sizeof unit, e);
    if (rc || n == 0) {
        free(pts);
        return rc;
    }
    (*drawn)++;
    rc = plot_shape(c, shape, pts, n, unit, files, nfiles, e);
    free(pts);
    return rc;
}
