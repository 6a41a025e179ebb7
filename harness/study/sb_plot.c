#include "sb_plot.h"
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "sb_db.h"
#include "sb_gnuplot.h"
#include "sb_io.h"
#include "sb_kernel.h"
#include "sb_ptset.h"
#include "sb_query.h"
#include "sb_scaling.h"
#include "sb_stats.h"
#include "sb_workload.h"

#ifndef SB_SOURCE_DIR
#define SB_SOURCE_DIR "."
#endif

typedef struct {
    char kernel[160]; /* an imported kernel name is up to 128 bytes */
    char dtype[16];
    char peak_path[24]; /* the path it ran, where the kernel says ("" = its own) */
    int threads;
    double median, lo, hi; /* throughput: median and the p10-p90 spread */
} series_pt;

/* ---- the palette: one colour and one point type per kernel ----
 *
 * Sixteen colours and fifteen point types, each kernel keeping its own pair
 * in every figure (its place in the kernel registry), so amx-bf16 is the same
 * colour on the throughput, speedup and report charts. Colours repeat only
 * past sixteen kernels, and then with another point type. */
static const char *const g_colour[] = {
    "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2",
    "#7f7f7f", "#bcbd22", "#000000", "#0b3d91", "#a6761d", "#66a61e", "#e7298a", "#1b9e77"};
static const int g_ptype[] = {7, 5, 9, 11, 13, 15, 6, 4, 8, 10, 12, 14, 1, 2, 3};
#define NCOLOUR ((int)(sizeof g_colour / sizeof *g_colour))
#define NPTYPE ((int)(sizeof g_ptype / sizeof *g_ptype))

/* A kernel's place: its registry index, or past the registry in the order
 * unknown names (an imported database) first appear in this figure. */
static int kernel_slot(const char *kernel, char unknown[][160], int *nunknown)
{
    for (int i = 0; i < sb_kernel_count(); i++)
        if (!strcmp(sb_kernel_at(i)->name, kernel)) return i;
    for (int i = 0; i < *nunknown; i++)
        if (!strcmp(unknown[i], kernel)) return sb_kernel_count() + i;
    if (*nunknown < 64) snprintf(unknown[(*nunknown)++], 160, "%s", kernel);
    return sb_kernel_count() + *nunknown - 1;
}

static void style_clause(sb_gp *c, int slot)
{
    sb_gp_add(c, " lc rgb %T pt %d", g_colour[slot % NCOLOUR], g_ptype[slot % NPTYPE]);
}

/* ---- files ---- */

static int add_file(char ***files, int *n, const char *path)
{
    if (!files) return 0;
    char **nf = realloc(*files, sizeof **files * (size_t)(*n + 1));
    if (!nf) return -1;
    *files = nf;
    if (!(nf[*n] = strdup(path))) return -1;
    (*n)++;
    return 0;
}

static void slug(const char *in, char *out, size_t cap)
{
    size_t o = 0;
    for (; *in && o + 1 < cap; in++)
        out[o++] = ((*in >= 'a' && *in <= 'z') || (*in >= 'A' && *in <= 'Z') ||
                    (*in >= '0' && *in <= '9') || *in == '-')
            ? *in
            : '_';
    out[o] = '\0';
    if (!o) snprintf(out, cap, "all");
}

int sb_plot_write_figure(const sb_gp *g, int w, int h, const char *dir, const char *base, int svg,
                         char ***files, int *nfiles, sb_err *e)
{
    static const char *const exts[] = {"png", "svg"};
    char path[4096];
    for (int i = 0; i < 1 + !!svg; i++) {
        snprintf(path, sizeof path, "%s/%s.%s", dir, base, exts[i]);
        int rc = sb_gnuplot_render(g, exts[i], w, h, path, e);
        if (rc) return rc;
        if (add_file(files, nfiles, path)) return sb_errf(e, SB_EFAIL, "out of memory");
    }
    /* the script and its data beside the image: the figure can be drawn
     * again and edited without sprbench */
    snprintf(path, sizeof path, "%s/%s.gp", dir, base);
    int rc = sb_gp_write_script(g, w, h, path, e);
    if (rc) return rc;
    if (add_file(files, nfiles, path)) return sb_errf(e, SB_EFAIL, "out of memory");
    char *dat = sb_gp_data_text(g);
    if (!dat) return sb_errf(e, SB_EFAIL, "out of memory");
    snprintf(path, sizeof path, "%s/%s.dat", dir, base);
    rc = sb_write_file_atomic(path, dat, strlen(dat), e);
    free(dat);
    if (rc) return rc;
    return add_file(files, nfiles, path) ? sb_errf(e, SB_EFAIL, "out of memory") : SB_OK;
}

/* Fills a template into g (which holds the figure's data blocks). */
static int fill(sb_gp *g, const char *tdir, const char *name, const sb_gp_var *vars, int nvars,
                sb_err *e)
{
    char *text;
    int rc = sb_gp_template_load(tdir, name, &text, e);
    if (rc) return rc;
    rc = sb_gp_template_fill(g, text, name, vars, nvars, e);
    free(text);
    return rc;
}

/* ---- axes that hold at any count ---- */

/* Threads (or ranks) on x: up to 8, every integer; past that a log2 axis
 * with tics at the powers of two and at the largest count, so 56 threads
 * read 1 2 4 8 16 32 56, never 56 labels on top of each other. */
static void x_axis(sb_gp *c, int minx, int maxx)
{
    if (maxx <= 8) {
        sb_gp_add(c, "set xrange [%g:%g]\nset xtics 1\n", minx - 0.5, maxx + 0.5);
        return;
    }
    sb_gp_add(c, "set logscale x 2\nset xrange [%g:%g]\nset xtics (", minx / 1.25, maxx * 1.25);
    int first = 1, p = 1;
    for (; p <= maxx; p *= 2) {
        if (p < minx) continue;
        /* the largest count replaces a power of two too close to it to read */
        if (p != maxx && p * 1.3 > maxx && p * 2 > maxx) {
            if (p < maxx && maxx - p < p / 4) continue;
        }
        sb_gp_add(c, first ? "%d" : ", %d", p);
        first = 0;
    }
    if (p / 2 != maxx) sb_gp_add(c, first ? "%d" : ", %d", maxx);
    sb_gp_add(c, ")\n");
}

/* ---- throughput and speedup ---- */

/* Throughput of one sample: GEMM flops / seconds, or tokens (inference:
 * sequences) / seconds from the point's own median (the rate * the median
 * step or batch seconds). */
static int load_series(sb_db *db, int64_t sweep, const char *workload, const char *shape,
                       series_pt **pts, int *n, char *unit, size_t unitcap, sb_err *e)
{
    /* the workload's headline metric (none: nothing to draw per shape) */
    const sb_workload *w = sb_workload_find(workload);
    *pts = NULL;
    *n = 0;
    if (!w || !w->metric) return SB_OK;
    const char *metric = w->metric;
    snprintf(unit, unitcap, "%s", w->unit);
    sb_series_point *v;
    int nv;
    int rc = sb_db_metric_series(db, sweep, workload, shape, metric, &v, &nv, e);
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
        if (!strcmp(v[i].dtype, "int8") && w->int8_unit)
            snprintf(unit, unitcap, "%s", w->int8_unit);
        /* Spread: the same work over the p90 and p10 sample times. */
        const double *xs = v[i].samples;
        int ns = v[i].nsamples;
        if (ns > 0) {
            double med = sb_median(xs, ns);
            if (med > 0) {
                double work = p->median * med;
                p->lo = work / sb_quantile(xs, ns, 0.9);
                p->hi = work / sb_quantile(xs, ns, 0.1);
            }
        }
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
                double sp[3] = {pts[q].median / base, pts[q].lo / base, pts[q].hi / base};
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
        style_clause(c, kernel_slot(pts[i].kernel, unknown, nunknown));
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

/* Peak lines: one per instruction path the plotted kernels ran (oneDNN's is
 * the ISA it dispatched, as its points' pct_peak says; AMX kernels' the tile
 * engine's), peak per core x min(threads, cores) (SMT siblings share the FMA
 * units), in the colour of the first kernel on that path, dotted. Returns
 * how many. */
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
        snprintf(label, sizeof label, "peak %s, measured: %.4g %s/core", path, peak,
                 strstr(path, "int8") ? "GOP/s" : "GFLOP/s");
        sb_gp_add(clause, ", $pk%d using 1:2 with lines dt 3 lw 2 lc rgb %T title %T", nseen - 1,
                  g_colour[kernel_slot(pts[i].kernel, unknown, nunknown) % NCOLOUR], label);
    }
    return nseen;
}

typedef struct {
    char tdir[4096];
    sb_db *db;
    int64_t sweep, machine;
    int cores;
    char machine_text[512], workload[32];
    sb_plot_yscale yscale;
    const char *out_dir;
    sb_summary_row *sum; /* every point of the sweep, for what a figure leaves out */
    int nsum;
} ctx;

/* What a figure of this shape does not draw, one line each: points that
 * failed, crashed or timed out with their reason, and the kernels skipped
 * (an ISA the machine lacks) on one line. "" when everything ran. */
static void footnote(const ctx *c, const char *shape_s, const series_pt *pts, int n, char *buf,
                     size_t cap)
{
    size_t at = 0;
    buf[0] = '\0';
    /* a spread this wide is two regimes (a busy neighbour, a clock change),
     * not one figure: said, so that a reader does not take it for one */
    for (int i = 0; i < n; i++) {
        if (!(pts[i].lo > 0) || pts[i].hi / pts[i].lo < 1.5) continue;
        int w = snprintf(buf + at, cap - at, "noisy: %s t%d (p10-p90 %.3g-%.3g, %.1fx apart)\n",
                         pts[i].kernel, pts[i].threads, pts[i].lo, pts[i].hi,
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

static int plot_shape(ctx *c, const char *shape_s, const series_pt *pts, int n, const char *unit,
                      char ***files, int *nfiles, sb_err *e)
{
    char name[96], base[160], what[1200], line1[1300], ylabel[128];
    char unknown[64][160];
    int nunknown = 0;
    slug(shape_s, name, sizeof name);
    const sb_workload *w = sb_workload_find(c->workload);
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
    x_axis(xa, mint, maxt);
    if (logy)
        sb_gp_add(ya, "set logscale y 10\nset yrange [*:*]\n");
    else
        sb_gp_add(ya, "set yrange [0:*]\n");
    series_clause(ser, c->workload, pts, n, "using 1:2:3:4 with yerrorlines lw 2", unknown, &nunknown);
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
    int rc = fill(s, c->tdir, "throughput.gp", tv, 7, e);
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
        if (pts[i].hi / b > top) top = pts[i].hi / b;
        if (pts[i].lo / b < bottom) bottom = pts[i].lo / b;
    }
    if (maxt > 8)
        sb_gp_add(ya, "set logscale y 2\nset yrange [%g:%g]\n", bottom * 0.8, top * 1.3);
    else
        sb_gp_add(ya, "set yrange [0:%g]\n", top * 1.1 + 0.2);
    series_clause(sp, c->workload, pts, n, "using 1:2:3:4 with yerrorlines lw 2", unknown, &nunknown);
    sb_gp_add(sp, ", $ideal using 1:2 with lines dt 2 lw 1 lc rgb 'black' title 'ideal (linear)'");
    series_clause(ef, c->workload, pts, n, "using 1:5:6:7 with yerrorlines lw 2", unknown, &nunknown);
    sb_gp_add(ef, ", 100 with lines dt 2 lw 1 lc rgb 'black' title 'ideal'");
    snprintf(line1, sizeof line1, "Speedup and parallel efficiency: %s", what);
    const sb_gp_var sv[] = {{"title", SB_GPV_TEXT, line1, 0, NULL},
                            {"machine", SB_GPV_TEXT, c->machine_text, 0, NULL},
                            {"xaxis", SB_GPV_CLAUSE, NULL, 0, xa},
                            {"yaxis", SB_GPV_CLAUSE, NULL, 0, ya},
                            {"speedup", SB_GPV_CLAUSE, NULL, 0, sp},
                            {"efficiency", SB_GPV_CLAUSE, NULL, 0, ef},
                            {"xlabel", SB_GPV_LINES, xlabel, 0, NULL}};
    rc = fill(t, c->tdir, "speedup.gp", sv, 7, e);
    snprintf(base, sizeof base, "speedup-%s", name);
    if (!rc) rc = sb_plot_write_figure(t, 1000, 860, c->out_dir, base, 1, files, nfiles, e);
    sb_gp_free(t);
    sb_gp_free(sp);
    sb_gp_free(ef);
    sb_gp_free(xa);
    sb_gp_free(ya);
    return rc;
}

typedef struct {
    char kernel[160];
    int ppn, nodes;
    double epoch_s;
    int extrapolated; /* a measured point whose epoch time came from some steps */
    int model;        /* status 'projected': the scaling model's point, nothing ran */
} scale_pt;

/* The published study trained DistilBERT-base at sequence length 384: its
 * points mean something beside a scaling series only when every point drawn
 * is that workload (a `tiny` model on two cores is not). A configuration
 * without seq ran the trainer's default, 384. */
static int study_matches(const char *shape)
{
    const char *m = strstr(shape, "model=");
    const char *sq = strstr(shape, "seq=");
    return m && !strncmp(m + 6, "distilbert-base", 15) &&
        (m[21] == '\0' || m[21] == ' ' || !strncmp(m + 21, "-uncased", 8)) &&
        (!sq || (!strncmp(sq + 4, "384", 3) && (sq[7] == '\0' || sq[7] == ' ')));
}

/* Epoch time and speedup against nodes (log2 axes, ideal lines), a parallel-
 * efficiency panel, and the original study's published points where the
 * workload matches. Series are (kernel, ppn, measured or projected); the
 * scaling model's projections are dashed and labelled projected, and each
 * series' speedup is against its own 1-node point. Drawn only when measured
 * or projected points cover >= 2 rank counts. */
static int plot_scaling(ctx *c, const char *reference, char ***files, int *nfiles, sb_err *e)
{
    sb_epoch_point *v;
    int nv;
    int rc = sb_db_epoch_series(c->db, c->sweep, &v, &nv, e);
    if (rc) return rc;
    scale_pt pts[512];
    int n = 0, maxn = 1, nmodel = 0, nranks = 0, match = nv > 0;
    int ranks_seen[512];
    for (int k = 0; k < nv; k++) match &= study_matches(v[k].shape);
    for (int k = 0; k < nv && n < 512; k++) {
        scale_pt *p = &pts[n];
        snprintf(p->kernel, sizeof p->kernel, "%s", v[k].kernel);
        p->ppn = v[k].ppn;
        p->nodes = v[k].nodes;
        p->epoch_s = v[k].epoch_s;
        p->extrapolated = v[k].extrapolated;
        p->model = v[k].model;
        if (!(p->epoch_s > 0)) continue;
        /* several thread counts at one (kernel, ppn, kind, nodes): keep the most threads */
        if (n && !strcmp(pts[n - 1].kernel, p->kernel) && pts[n - 1].ppn == p->ppn &&
            pts[n - 1].model == p->model && pts[n - 1].nodes == p->nodes)
            continue;
        int r = p->ppn * p->nodes, seen = 0;
        for (int i = 0; i < nranks && !seen; i++) seen = ranks_seen[i] == r;
        if (!seen) ranks_seen[nranks++] = r;
        if (p->nodes > maxn) maxn = p->nodes;
        nmodel += p->model;
        n++;
    }
    sb_epoch_series_free(v, nv);
    if (n < 2 || nranks < 2) return SB_OK;

    sb_study_point *study = NULL;
    int nstudy = 0;
    sb_err se = {0};
    if (!match || !reference || sb_study_load(reference, &study, &nstudy, &se)) nstudy = 0;

    char unknown[64][160];
    int nunknown = 0;
    sb_gp *s = sb_gp_new(), *ep = sb_gp_new(), *spc = sb_gp_new(), *efc = sb_gp_new();
    /* the ranks figure: the same series, against total ranks */
    sb_gp *r = sb_gp_new(), *rc_ = sb_gp_new();
    int blocks = 0;
    for (int i = 0; i < n && blocks < 64;) {
        int j = i;
        while (j < n && !strcmp(pts[j].kernel, pts[i].kernel) && pts[j].ppn == pts[i].ppn &&
               pts[j].model == pts[i].model)
            j++;
        /* the series' own 1-node point is its baseline */
        double base = 0;
        int extrapolated = 0;
        for (int q = i; q < j; q++) {
            if (pts[q].nodes == 1) base = pts[q].epoch_s;
            extrapolated |= pts[q].extrapolated && !pts[q].model;
        }
        char name[16];
        snprintf(name, sizeof name, "s%d", blocks);
        for (int f = 0; f < 2; f++) {
            sb_gp *fig = f ? r : s;
            sb_gp_block_begin(fig, name);
            for (int q = i; q < j; q++) {
                double sp = base > 0 ? base / pts[q].epoch_s : NAN;
                double row[5] = {pts[q].nodes, pts[q].epoch_s, sp,
                                 pts[q].nodes > 0 ? 100.0 * sp / pts[q].nodes : NAN,
                                 (double)pts[q].ppn * pts[q].nodes};
                sb_gp_block_row(fig, row, 5);
            }
            sb_gp_block_end(fig);
        }
        char label[260];
        if (pts[i].model)
            snprintf(label, sizeof label, "%s, %d rank(s)/node, projected (model, not measured)",
                     pts[i].kernel, pts[i].ppn);
        else
            snprintf(label, sizeof label, "%s, %d rank(s)/node%s", pts[i].kernel, pts[i].ppn,
                     extrapolated ? " (epoch projected from steps)" : "");
        /* measured: solid, filled points; projected: dashed, open points */
        int slot = kernel_slot(pts[i].kernel, unknown, &nunknown) + pts[i].ppn - 1;
        sb_gp *cl[4] = {ep, spc, efc, rc_};
        for (int k = 0; k < 4; k++) {
            sb_gp_add(cl[k],
                      blocks ? ", $s%d using %d:%d with linespoints lw 2"
                             : "$s%d using %d:%d with linespoints lw 2",
                      blocks, k == 3 ? 5 : 1, k == 3 ? 2 : k + 2);
            sb_gp_add(cl[k], pts[i].model ? " dt 2 pt 6 lc rgb %T" : " pt 7 lc rgb %T",
                      g_colour[slot % NCOLOUR]);
            sb_gp_add(cl[k], " title %T", label);
        }
        blocks++;
        i = j;
    }
    /* the study: measured points and its own speedup (1 node -> 4 nodes) */
    double study1 = 0;
    for (int i = 0; i < nstudy; i++)
        if (study[i].nodes == 1 && !strcmp(study[i].kind, "measured") &&
            strstr(study[i].machine, "Sapphire"))
            study1 = study[i].epoch_s;
    if (study1 > 0) {
        sb_gp_block_begin(s, "study");
        for (int i = 0; i < nstudy; i++)
            if (!strcmp(study[i].kind, "measured") && strstr(study[i].machine, "Sapphire")) {
                double row[4] = {study[i].nodes, study[i].epoch_s, study1 / study[i].epoch_s,
                                 100.0 * study1 / study[i].epoch_s / study[i].nodes};
                sb_gp_block_row(s, row, 4);
            }
        sb_gp_block_end(s);
        for (int i = 0; i < nstudy; i++)
            if (study[i].nodes > maxn) maxn = study[i].nodes;
        sb_gp_add(
            ep,
            ", $study using 1:2 with points pt 5 ps 1.5 lc rgb 'black' title "
            "'published study (SPR bf16, HF blog 2023; published figures, not measured here)'");
        sb_gp_add(spc, ", $study using 1:3 with points pt 5 ps 1.5 lc rgb 'black' notitle");
        sb_gp_add(
            efc,
            ", $study using 1:4 with points pt 5 ps 1.5 lc rgb 'black' title "
            "'published study (SPR bf16, HF blog 2023; published figures, not measured here)'");
    }
    int xmax = 1;
    while (xmax < maxn) xmax *= 2;
    sb_gp_block_begin(s, "ideal");
    for (int q = 1; q <= xmax; q *= 2) {
        double row[2] = {q, q};
        sb_gp_block_row(s, row, 2);
    }
    sb_gp_block_end(s);
    sb_gp_add(spc, ", $ideal using 1:2 with lines dt 2 lc rgb 'black' notitle");
    sb_gp_add(efc, ", 100 with lines dt 2 lc rgb 'black' title 'ideal (y = x)'");
    char title[700];
    snprintf(title, sizeof title, "Scaling over nodes: %s", c->machine_text);
    const sb_gp_var nv_[] = {{"title", SB_GPV_TEXT, title, 0, NULL},
                             {"xmax", SB_GPV_NUM, NULL, xmax * 1.25, NULL},
                             {"ymax", SB_GPV_NUM, NULL, xmax * 1.25, NULL},
                             {"epoch", SB_GPV_CLAUSE, NULL, 0, ep},
                             {"speedup", SB_GPV_CLAUSE, NULL, 0, spc},
                             {"efficiency", SB_GPV_CLAUSE, NULL, 0, efc}};
    rc = fill(s, c->tdir, "scaling-nodes.gp", nv_, 6, e);
    /* taller with more series: the legend under the last panel grows */
    if (!rc)
        rc = sb_plot_write_figure(s, 1000, 1000 + 18 * blocks, c->out_dir, "scaling-nodes", 1,
                                  files, nfiles, e);
    sb_gp_free(s);
    sb_gp_free(ep);
    sb_gp_free(spc);
    sb_gp_free(efc);
    free(study);
    if (rc) {
        sb_gp_free(r);
        sb_gp_free(rc_);
        return rc;
    }

    /* against total ranks: the ideal from the measured point at the fewest
     * ranks (the fastest there), epoch time falling as 1/ranks */
    int r0 = 0, rmin = 0, rmax = 0;
    double t0 = 0;
    for (int i = 0; i < n; i++) {
        int ranks = pts[i].ppn * pts[i].nodes;
        if (ranks > rmax) rmax = ranks;
        if (!rmin || ranks < rmin) rmin = ranks;
        if (pts[i].model) continue;
        if (!r0 || ranks < r0 || (ranks == r0 && pts[i].epoch_s < t0)) {
            r0 = ranks;
            t0 = pts[i].epoch_s;
        }
    }
    if (r0 > 0 && t0 > 0) {
        sb_gp_block_begin(r, "ideal");
        for (int q = r0; q <= rmax; q++) {
            double row[2] = {q, t0 * r0 / q};
            sb_gp_block_row(r, row, 2);
        }
        sb_gp_block_end(r);
        sb_gp_add(rc_,
                  ", $ideal using 1:2 with lines dt 2 lc rgb 'black' "
                  "title 'ideal (1/ranks from the fewest-ranks measured point)'");
    }
    snprintf(title, sizeof title, "Epoch time against total ranks: %s", c->machine_text);
    const sb_gp_var rv[] = {{"title", SB_GPV_TEXT, title, 0, NULL},
                            {"xmin", SB_GPV_NUM, NULL, rmin / 1.25, NULL},
                            {"xmax", SB_GPV_NUM, NULL, rmax * 1.25, NULL},
                            {"series", SB_GPV_CLAUSE, NULL, 0, rc_}};
    rc = fill(r, c->tdir, "scaling-ranks.gp", rv, 4, e);
    if (!rc)
        rc = sb_plot_write_figure(r, 1000, 640 + 18 * blocks, c->out_dir, "scaling-ranks", 1, files,
                                  nfiles, e);
    sb_gp_free(r);
    sb_gp_free(rc_);
    return rc;
}

/* ---- inference: latency and accuracy ---- */

/* An inference point's batch, from its series key (INT_MAX: none named). */
static int infer_batch(const sb_pt *p)
{
    char v[16];
    return sb_db_shape_value(p->shape, "batch", v, sizeof v) ? atoi(v) : INT_MAX;
}

static double metric_or_nan(const sb_pt *p, const char *name)
{
    const sb_metric_val *m = sb_pt_metric(p, name);
    return m ? m->value : NAN;
}

static int dtype_rank(const char *d)
{
    return !strcmp(d, "f32") ? 0 : !strcmp(d, "bf16") ? 1 : !strcmp(d, "int8") ? 2 : 3;
}

static int registry_index(const char *kernel)
{
    for (int i = 0; i < sb_kernel_count(); i++)
        if (!strcmp(sb_kernel_at(i)->name, kernel)) return i;
    return sb_kernel_count();
}

/* Precision (f32, bf16, int8), then the kernel's place in the registry,
 * then threads, then the smallest batch first. */
static int cmp_infer(const void *a, const void *b)
{
    const sb_pt *x = *(const sb_pt *const *)a, *y = *(const sb_pt *const *)b;
    int c = dtype_rank(x->dtype) - dtype_rank(y->dtype);
    if (!c) c = strcmp(x->dtype, y->dtype); /* dtypes of an imported database */
    if (!c) c = registry_index(x->kernel) - registry_index(y->kernel);
    if (!c) c = strcmp(x->kernel, y->kernel);
    if (!c) c = (x->threads > y->threads) - (x->threads < y->threads);
    if (!c) {
        int bx = infer_batch(x), by = infer_batch(y);
        c = (bx > by) - (bx < by);
    }
    if (!c) c = (x->id > y->id) - (x->id < y->id);
    return c;
}

/* Latency per question at batch 1 (every inference point measures it so,
 * whatever its --batch): for each kernel and thread count the point at the
 * smallest batch, p50 joined, an error bar up to the p99, a cross at the p90. */
static int plot_latency(ctx *c, const sb_pt *const *v, int n, char ***files, int *nfiles, sb_err *e)
{
    char unknown[64][160];
    int nunknown = 0, block = 0, mint = 1 << 30, maxt = 1;
    double ymin = INFINITY, ymax = 0;
    sb_gp *g = sb_gp_new(), *xa = sb_gp_new(), *ya = sb_gp_new(), *ser = sb_gp_new();
    for (int i = 0; i < n;) {
        int j = i;
        while (j < n && !strcmp(v[j]->kernel, v[i]->kernel)) j++;
        char name[16];
        snprintf(name, sizeof name, "l%d", block);
        sb_gp_block_begin(g, name);
        for (int q = i; q < j; q++) {
            if (q > i && v[q]->threads == v[q - 1]->threads) continue; /* a larger batch */
            double row[5] = {v[q]->threads, metric_or_nan(v[q], "latency_p50_ms"),
                             metric_or_nan(v[q], "latency_p90_ms"),
                             metric_or_nan(v[q], "latency_p99_ms"), infer_batch(v[q])};
            if (row[4] == INT_MAX) row[4] = NAN;
            sb_gp_block_row(g, row, 5);
            if (v[q]->threads < mint) mint = v[q]->threads;
            if (v[q]->threads > maxt) maxt = v[q]->threads;
            if (row[1] > 0 && row[1] < ymin) ymin = row[1];
            if (row[3] > ymax) ymax = row[3];
        }
        sb_gp_block_end(g);
        int slot = kernel_slot(v[i]->kernel, unknown, &nunknown);
        sb_gp_add(ser,
                  block ? ", $l%d using 1:2:2:4 with yerrorlines lw 2"
                        : "$l%d using 1:2:2:4 with yerrorlines lw 2",
                  block);
        style_clause(ser, slot);
        sb_gp_add(ser, " title %T", v[i]->kernel);
        sb_gp_add(ser, ", $l%d using 1:3 with points pt 2 ps 1.8 lc rgb %T notitle", block,
                  g_colour[slot % NCOLOUR]);
        block++;
        i = j;
    }
    x_axis(xa, mint, maxt);
    int logy = c->yscale == SB_PLOT_Y_LOG ||
        (c->yscale == SB_PLOT_Y_AUTO && ymin > 0 && ymax / ymin > 30);
    sb_gp_add(ya, logy ? "set logscale y 10\nset yrange [*:*]\n" : "set yrange [0:*]\n");
    char model[128] = "", title[400], ylabel[200];
    if (n && sb_db_shape_value(v[0]->shape, "model", model, sizeof model))
        snprintf(title, sizeof title, "SQuAD inference latency per question at batch 1: model=%s",
                 model);
    else
        snprintf(title, sizeof title, "SQuAD inference latency per question at batch 1");
    snprintf(ylabel, sizeof ylabel, "ms per question: p50 (line), bar up to p99, x at p90%s",
             logy ? ", log scale" : "");
    const sb_gp_var tv[] = {{"title", SB_GPV_TEXT, title, 0, NULL},
                            {"machine", SB_GPV_TEXT, c->machine_text, 0, NULL},
                            {"ylabel", SB_GPV_TEXT, ylabel, 0, NULL},
                            {"xaxis", SB_GPV_CLAUSE, NULL, 0, xa},
                            {"yaxis", SB_GPV_CLAUSE, NULL, 0, ya},
                            {"series", SB_GPV_CLAUSE, NULL, 0, ser}};
    int rc = fill(g, c->tdir, "latency.gp", tv, 6, e);
    if (!rc) rc = sb_plot_write_figure(g, 1000, 720, c->out_dir, "latency", 1, files, nfiles, e);
    sb_gp_free(g);
    sb_gp_free(xa);
    sb_gp_free(ya);
    sb_gp_free(ser);
    return rc;
}

/* Accuracy per kernel, grouped by precision: EM, F1 and the share of
 * answers identical to the f32 path's (--compare-f32), from each kernel's
 * first point in cmp_infer's order (fewest threads, smallest batch). Only
 * the measures some point has are drawn. */
static int plot_accuracy(ctx *c, const sb_pt *const *v, int n, char ***files, int *nfiles,
                         sb_err *e)
{
    static const struct {
        const char *metric, *title, *using;
        int colour;
    } bars[] = {{"em", "exact match", "using 1:2", 0},
                {"f1", "F1", "using 3:4", 2},
                {"f32_agreement_pct", "same answer as f32", "using 5:6", 4}};
    /* x places: one per kernel, a gap between precisions; each precision
     * named over its middle on the top axis */
    const sb_pt **kp = calloc((size_t)n + 1, sizeof *kp);
    double *xs = calloc((size_t)n + 1, sizeof *xs), *gmid = calloc((size_t)n + 1, sizeof *gmid);
    const char **gname = calloc((size_t)n + 1, sizeof *gname);
    if (!kp || !xs || !gmid || !gname) {
        free(kp);
        free(xs);
        free(gmid);
        free(gname);
        return sb_errf(e, SB_EFAIL, "out of memory");
    }
    double x = 0, first_x = 0;
    int groups = 0, nk = 0, batch = -1, threads = -1, have[3] = {0, 0, 0};
    for (int i = 0; i < n; i++) {
        if (i && !strcmp(v[i]->kernel, v[i - 1]->kernel)) continue;
        if (!nk || strcmp(v[i]->dtype, kp[nk - 1]->dtype)) {
            if (nk) {
                gmid[groups - 1] = (first_x + x - 1) / 2;
                x += 0.6;
            }
            gname[groups++] = v[i]->dtype;
            first_x = x;
        }
        kp[nk] = v[i];
        xs[nk++] = x;
        x += 1;
        batch = batch == -1 || batch == infer_batch(v[i]) ? infer_batch(v[i]) : -2;
        threads = threads == -1 || threads == v[i]->threads ? v[i]->threads : -2;
    }
    if (groups) gmid[groups - 1] = (first_x + x - 1) / 2;
    sb_gp *g = sb_gp_new(), *xa = sb_gp_new(), *ser = sb_gp_new();
    sb_gp_block_begin(g, "acc");
    for (int i = 0; i < nk; i++) {
        /* each bar's own x beside its value: the data stay plain columns */
        double row[8] = {xs[i] - 0.28,
                         metric_or_nan(kp[i], "em"),
                         xs[i],
                         metric_or_nan(kp[i], "f1"),
                         xs[i] + 0.28,
                         metric_or_nan(kp[i], "f32_agreement_pct"),
                         infer_batch(kp[i]),
                         kp[i]->threads};
        if (row[6] == INT_MAX) row[6] = NAN;
        for (int k = 0; k < 3; k++) have[k] |= row[1 + 2 * k] == row[1 + 2 * k];
        sb_gp_block_row(g, row, 8);
    }
    sb_gp_block_end(g);
    sb_gp_add(xa, "set xrange [%g:%g]\nset x2range [%g:%g]\nset xtics (", -0.7, x - 0.3, -0.7,
              x - 0.3);
    for (int i = 0; i < nk; i++) sb_gp_add(xa, i ? ", %F %g" : "%F %g", kp[i]->kernel, xs[i]);
    sb_gp_add(xa, ")\nset x2tics (");
    for (int i = 0; i < groups; i++) sb_gp_add(xa, i ? ", %F %g" : "%F %g", gname[i], gmid[i]);
    sb_gp_add(xa, ")\n");
    free(kp);
    free(xs);
    free(gmid);
    free(gname);
    int nser = 0;
    for (int k = 0; k < 3; k++) {
        if (!have[k]) continue;
        sb_gp_add(ser, nser++ ? ", $acc " : "$acc ");
        sb_gp_add(ser, bars[k].using);
        sb_gp_add(ser, " with boxes lc rgb %T title %T", g_colour[bars[k].colour], bars[k].title);
    }
    char title[400], at[120] = "";
    if (batch > 0 && batch != INT_MAX)
        snprintf(at, sizeof at, " (batch %d%s)", batch, threads > 0 ? "" : ", fewest threads");
    snprintf(title, sizeof title, "SQuAD inference accuracy per kernel, by precision%s", at);
    const sb_gp_var tv[] = {{"title", SB_GPV_TEXT, title, 0, NULL},
                            {"machine", SB_GPV_TEXT, c->machine_text, 0, NULL},
                            {"xaxis", SB_GPV_CLAUSE, NULL, 0, xa},
                            {"series", SB_GPV_CLAUSE, NULL, 0, ser}};
    int rc = fill(g, c->tdir, "accuracy.gp", tv, 4, e);
    if (!rc) rc = sb_plot_write_figure(g, 1000, 640, c->out_dir, "accuracy", 1, files, nfiles, e);
    sb_gp_free(g);
    sb_gp_free(xa);
    sb_gp_free(ser);
    return rc;
}

/* The inference figures of a sweep beyond throughput: latency when its
 * points measured it, accuracy when they scored or compared answers.
 * *drawn counts the figures. */
static int plot_infer(ctx *c, char ***files, int *nfiles, int *drawn, sb_err *e)
{
    sb_ptset set = {0};
    int rc = sb_ptset_load(c->db, 0, c->sweep, &set, e);
    if (rc) return rc;
    const sb_pt **lat = calloc((size_t)set.n + 1, sizeof *lat),
                **acc = calloc((size_t)set.n + 1, sizeof *acc);
    int nl = 0, na = 0;
    for (int i = 0; lat && acc && i < set.n; i++) {
        const sb_pt *p = &set.p[i];
        if (strcmp(p->workload, c->workload) || strcmp(p->status, "ok") || p->ppn * p->nodes != 1)
            continue;
        if (sb_pt_metric(p, "latency_p50_ms")) lat[nl++] = p;
        if (sb_pt_metric(p, "em") || sb_pt_metric(p, "f1") || sb_pt_metric(p, "f32_agreement_pct"))
            acc[na++] = p;
    }
    if (!lat || !acc) rc = sb_errf(e, SB_EFAIL, "out of memory");
    if (!rc && nl) {
        qsort(lat, (size_t)nl, sizeof *lat, cmp_infer);
        if (!(rc = plot_latency(c, lat, nl, files, nfiles, e))) (*drawn)++;
    }
    if (!rc && na) {
        qsort(acc, (size_t)na, sizeof *acc, cmp_infer);
        if (!(rc = plot_accuracy(c, acc, na, files, nfiles, e))) (*drawn)++;
    }
    free(lat);
    free(acc);
    sb_ptset_free(&set);
    return rc;
}

static int open_sweep(const sb_plot_opts *o, ctx *c, sb_err *e)
{
    memset(c, 0, sizeof *c);
    c->out_dir = o->out_dir;
    c->yscale = o->yscale;
    snprintf(c->machine_text, sizeof c->machine_text, "unknown machine");
    if (!sb_gnuplot_available())
        return sb_errf(e, SB_EUSAGE, "gnuplot not found on PATH (install gnuplot-nox)");
    int rc = sb_gp_templates_dir(o->templates, c->tdir, sizeof c->tdir, e);
    if (rc) return rc;
    struct stat st0;
    if (stat(o->db_path, &st0) != 0)
        return sb_errf(e, SB_EUSAGE, "%s: no such database", o->db_path);
    if ((rc = sb_db_open_readonly(o->db_path, &c->db, e))) return rc;
    c->sweep = o->sweep_id > 0 ? o->sweep_id : sb_db_latest_sweep(c->db);
    sb_sweep_header hd;
    int found;
    if ((rc = sb_db_sweep_header(c->db, c->sweep, &hd, &found, e))) {
        sb_db_close(c->db);
        return rc;
    }
    if (found) {
        snprintf(c->workload, sizeof c->workload, "%s", hd.workload ? hd.workload : "gemm");
        c->machine = hd.machine_id;
        c->cores = hd.cores;
        if (!hd.has_machine) /* e.g. `sprbench model --db`: computed, no machine */
            snprintf(c->machine_text, sizeof c->machine_text, "%s (no machine)",
                     hd.label ? hd.label : "sweep");
        else
            snprintf(c->machine_text, sizeof c->machine_text, "%s: %s (%s, %d cores)",
                     hd.hostname ? hd.hostname : "?", hd.cpu_model ? hd.cpu_model : "?",
                     hd.microarch ? hd.microarch : "?", hd.cores);
    }
    sb_sweep_header_free(&hd);
    if (!found) {
        sb_db_close(c->db);
        return sb_errf(e, SB_EUSAGE, "%s: no sweep %lld", o->db_path, (long long)c->sweep);
    }
    if (mkdir(o->out_dir, 0755) != 0 && errno != EEXIST) {
        sb_db_close(c->db);
        return sb_errf(e, SB_EUSAGE, "%s: cannot create directory: %s", o->out_dir,
                       strerror(errno));
    }
    return SB_OK;
}

/* The figures a workload draws beyond its headline metric per shape and
 * the scaling figures, by its row's name (bench/sb_workload). */
static const struct {
    const char *workload;
    int (*draw)(ctx *c, char ***files, int *nfiles, int *drawn, sb_err *e);
} g_figures[] = {{"infer", plot_infer}};

int sb_plot_sweep(const sb_plot_opts *o, char ***files, int *nfiles, sb_err *e)
{
    *files = NULL;
    *nfiles = 0;
    ctx c;
    int rc = open_sweep(o, &c, e);
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
    for (int si = 0; !rc && si < nshape_list; si++) {
        series_pt *pts = NULL;
        int n = 0;
        char unit[64];
        if ((rc = load_series(c.db, c.sweep, c.workload, shape_list[si], &pts, &n, unit,
                              sizeof unit, e)) ||
            n == 0) {
            free(pts);
            continue;
        }
        shapes++;
        rc = plot_shape(&c, shape_list[si], pts, n, unit, files, nfiles, e);
        free(pts);
    }
    sb_db_strings_free(shape_list, nshape_list);
    sb_summary_rows_free(c.sum, c.nsum);
    c.sum = NULL;
    c.nsum = 0;
    for (size_t i = 0; !rc && i < sizeof g_figures / sizeof g_figures[0]; i++)
        if (!strcmp(g_figures[i].workload, c.workload))
            rc = g_figures[i].draw(&c, files, nfiles, &shapes, e);
    if (!rc) {
        const char *ref = o->reference ? o->reference
                                       : SB_SOURCE_DIR "/results/reference/study.csv";
        int before = *nfiles;
        rc = plot_scaling(&c, ref, files, nfiles, e);
        if (*nfiles > before) shapes++;
    }
    sb_db_close(c.db);
    if (!rc && shapes == 0)
        rc = sb_errf(e, SB_EUSAGE, "sweep %lld has no finished points to plot", (long long)c.sweep);
    return rc;
}

/* ---- history ---- */

/* Rates (higher is better) spread as the same work over the p90 and p10
 * sample times; anything else (seconds) scales with the samples. */
static void spread(const char *metric, double value, const double *xs, int ns, double *lo,
                   double *hi)
{
    *lo = *hi = value;
    if (ns < 2) return;
    double med = sb_median(xs, ns);
    if (!(med > 0)) return;
    int rate = !strcmp(metric, "gflops") || !strcmp(metric, "gops") ||
        strstr(metric, "per_s") != NULL;
    if (rate) {
        *lo = value * med / sb_quantile(xs, ns, 0.9);
        *hi = value * med / sb_quantile(xs, ns, 0.1);
    } else {
        *lo = value * sb_quantile(xs, ns, 0.1) / med;
        *hi = value * sb_quantile(xs, ns, 0.9) / med;
    }
}

static int has_key(const char *const *keys, const char *key, size_t n)
{
    for (; *keys; keys++)
        if (strlen(*keys) == n && !strncmp(*keys, key, n)) return 1;
    return 0;
}

/* The workload a point key's shape belongs to: a configuration ("model=tiny
 * batch=8", "mib=64") is the sweep's workload when its first key is one of
 * that workload's series keys, else the first workload's that has it; a GEMM
 * shape ("1024x1024x1024") is the shaped workload's; anything else the
 * sweep's. */
static const char *shape_workload(const char *shape, const char *sweep_workload)
{
    if (!shape) return sweep_workload;
    size_t n = strcspn(shape, "= ");
    const sb_workload *own = sb_workload_find(sweep_workload);
    if (shape[n] == '=') {
        if (own && has_key(own->series, shape, n)) return sweep_workload;
        for (int i = 0; i < sb_workload_count(); i++)
            if (has_key(sb_workload_at(i)->series, shape, n)) return sb_workload_at(i)->name;
    } else if (strchr(shape, 'x')) {
        for (int i = 0; i < sb_workload_count(); i++)
            if (sb_workload_at(i)->flags & SB_WL_SHAPES) return sb_workload_at(i)->name;
    }
    return sweep_workload;
}

int sb_plot_history(const sb_plot_opts *o, char ***files, int *nfiles, sb_err *e)
{
    *files = NULL;
    *nfiles = 0;
    if (!o->kernel || !o->threads)
        return sb_errf(e, SB_EUSAGE, "--history needs --kernel and --threads (and --shape)");
    ctx c;
    int rc = open_sweep(o, &c, e);
    if (rc) return rc;
    if (!c.machine) {
        sb_db_close(c.db);
        return sb_errf(e, SB_EUSAGE, "sweep %lld ran on no machine: no history to draw",
                       (long long)c.sweep);
    }
    /* the key's workload: given, or what its shape says, or the sweep's */
    const char *workload = o->workload ? o->workload : shape_workload(o->shape, c.workload);
    const sb_workload *w = sb_workload_find(workload);
    const char *metric = o->metric ? o->metric : w && w->metric ? w->metric : "tokens_per_s";
    /* a GEMM shape without its transposes is the plain product, as sweep
     * --shapes reads it: 1024x1024x1024 is 1024x1024x1024:NN */
    char shape_nn[256];
    const char *shape = o->shape ? o->shape : "";
    if (w && w->flags & SB_WL_SHAPES && shape[0] && !strchr(shape, ':') &&
        snprintf(shape_nn, sizeof shape_nn, "%s:NN", shape) < (int)sizeof shape_nn)
        shape = shape_nn;
    int ppn = o->ppn > 0 ? o->ppn : 1, nodes = o->nodes > 0 ? o->nodes : 1;
    sb_history_point *h;
    int n;
    if ((rc = sb_db_metric_history(c.db, c.machine, workload, o->kernel, shape, NULL, o->threads,
                                   ppn, nodes, metric, &h, &n, e))) {
        sb_db_close(c.db);
        return rc;
    }
    sb_db_close(c.db);
    /* one configuration per history (an int8 point's quantisation is part of
     * its identity): the newest point's; the others are named, not drawn */
    int kept = 0, left = 0;
    const char *want = n ? h[n - 1].config : ""; /* its text stays put as entries move */
    for (int i = 0; i < n; i++) {
        if (strcmp(h[i].config, want)) {
            left++;
            continue;
        }
        sb_history_point t = h[kept];
        h[kept++] = h[i];
        h[i] = t;
    }
    if (left)
        fprintf(stderr,
                "sprbench plot: history of the newest point's configuration %.200s; %d sweep(s) "
                "with another left out\n",
                want, left);
    int all = n;
    n = kept;
    char key[1400];
    snprintf(key, sizeof key, "%s %s %s, %d thread(s)%s", workload, o->kernel, shape, o->threads,
             ppn * nodes > 1 ? "," : "");
    if (ppn * nodes > 1)
        snprintf(key + strlen(key), sizeof key - strlen(key), " %d node(s) x %d rank(s)", nodes,
                 ppn);
    if (n == 0) {
        sb_history_free(h, all);
        return sb_errf(e, SB_EUSAGE, "no sweep on this machine has %s for %s", metric, key);
    }
    sb_gp *g = sb_gp_new(), *xa = sb_gp_new(), *ser = sb_gp_new();
    sb_gp_block_begin(g, "h");
    for (int i = 0; i < n; i++) {
        double lo, hi;
        spread(metric, h[i].value, h[i].samples, h[i].nsamples, &lo, &hi);
        double row[5] = {i, h[i].value, lo, hi, (double)h[i].sweep_id};
        sb_gp_block_row(g, row, 5);
    }
    sb_gp_block_end(g);
    /* each sweep at its place, labelled by version and day: text from the
     * database, so tic labels (a format to gnuplot: %F) */
    sb_gp_add(xa, "set xrange [-0.5:%g]\nset xtics rotate by -30 left (", n - 0.5);
    for (int i = 0; i < n; i++) {
        char lab[200];
        snprintf(lab, sizeof lab, "%.80s %.10s", h[i].tool_version[0] ? h[i].tool_version : "?",
                 h[i].started);
        sb_gp_add(xa, i ? ", %F %d" : "%F %d", lab, i);
    }
    sb_gp_add(xa, ")\n");
    sb_gp_add(ser, "$h using 1:2:3:4 with yerrorlines lw 2 pt 7 lc rgb %T title %T", g_colour[0],
              "median, p10-p90 of the samples");
    char title[1500], ylabel[160];
    snprintf(title, sizeof title, "History of %s: %s", metric, key);
    /* the unit the newest point stored with the metric (GB/s for STREAM's
     * triad); a point stored without one: the headline metrics' own */
    const char *unit = h[n - 1].unit && h[n - 1].unit[0] ? h[n - 1].unit
        : !strcmp(metric, "gflops") ? (strstr(o->kernel, "int8") ? "GOP/s" : "GFLOP/s")
        : !strcmp(metric, "tokens_per_s")    ? "tokens/s"
        : !strcmp(metric, "sequences_per_s") ? "sequences/s"
        : strstr(metric, "seconds")          ? "s"
                                             : NULL;
    snprintf(ylabel, sizeof ylabel, "%s%s%s (median, p10-p90)", metric, unit ? ", " : "",
             unit ? unit : "");
    const sb_gp_var hv[] = {{"title", SB_GPV_TEXT, title, 0, NULL},
                            {"machine", SB_GPV_TEXT, c.machine_text, 0, NULL},
                            {"ylabel", SB_GPV_TEXT, ylabel, 0, NULL},
                            {"xaxis", SB_GPV_CLAUSE, NULL, 0, xa},
                            {"series", SB_GPV_CLAUSE, NULL, 0, ser}};
    rc = fill(g, c.tdir, "history.gp", hv, 5, e);
    char name[600], base[700];
    snprintf(name, sizeof name, "%s-%s-%s-%dt-%dx%d", workload, o->kernel, shape[0] ? shape : "",
             o->threads, nodes, ppn);
    slug(name, base + 8, sizeof base - 8);
    memcpy(base, "history-", 8);
    if (!rc) rc = sb_plot_write_figure(g, 1000, 600, o->out_dir, base, 1, files, nfiles, e);
    sb_history_free(h, all);
    sb_gp_free(g);
    sb_gp_free(xa);
    sb_gp_free(ser);
    return rc;
}

/* ---- the report's charts ---- */

sb_gp *sb_plot_report_bars(const char *templates, const char *title, const char *ylabel,
                           char *const *labels, int n, const char *bname, const double *bv,
                           const double *blo, const double *bhi, const char *cname,
                           const double *cv, const double *clo, const double *chi, sb_err *e)
{
    char tdir[4096];
    if (sb_gp_templates_dir(templates, tdir, sizeof tdir, e)) return NULL;
    sb_gp *g = sb_gp_new(), *xa = sb_gp_new(), *ser = sb_gp_new();
    sb_gp_block_begin(g, "d");
    for (int i = 0; i < n; i++) {
        double b = bv[i] > 0 ? bv[i] : 0, cc = cv[i] > 0 ? cv[i] : 0;
        /* no spread given: the bar's own value, an error bar of no height */
        double row[6] = {b,  blo && blo[i] > 0 ? blo[i] : b,  bhi && bhi[i] > 0 ? bhi[i] : b,
                         cc, clo && clo[i] > 0 ? clo[i] : cc, chi && chi[i] > 0 ? chi[i] : cc};
        sb_gp_block_row(g, row, 6);
    }
    sb_gp_block_end(g);
    /* cluster i stands at x = i; the labels are tic labels (a format to
     * gnuplot: %F), so the data stay numbers only */
    sb_gp_add(xa, "set xtics (");
    for (int i = 0; i < n; i++) sb_gp_add(xa, i ? ", %F %d" : "%F %d", labels[i], i);
    sb_gp_add(xa, ")\n");
    sb_gp_add(ser, "$d using 1:2:3 lc rgb %T title %T, $d using 4:5:6 lc rgb %T title %T",
              g_colour[0], bname, g_colour[4], cname);
    const sb_gp_var v[] = {{"title", SB_GPV_TEXT, title, 0, NULL},
                           {"ylabel", SB_GPV_TEXT, ylabel, 0, NULL},
                           {"xaxis", SB_GPV_CLAUSE, NULL, 0, xa},
                           {"series", SB_GPV_CLAUSE, NULL, 0, ser}};
    int rc = fill(g, tdir, "report-bars.gp", v, 4, e);
    sb_gp_free(xa);
    sb_gp_free(ser);
    if (rc) {
        sb_gp_free(g);
        return NULL;
    }
    return g;
}

sb_gp *sb_plot_report_dots(const char *templates, const char *title, const char *xlabel,
                           char *const *labels, int n, const char *bname, const double *bv,
                           const double *blo, const double *bhi, const char *cname,
                           const double *cv, const double *clo, const double *chi, sb_err *e)
{
    char tdir[4096];
    if (sb_gp_templates_dir(templates, tdir, sizeof tdir, e)) return NULL;
    sb_gp *g = sb_gp_new(), *ya = sb_gp_new(), *ser = sb_gp_new();
    /* row i at y = i, the baseline's dot a little above, the candidate's a
     * little below; a side that did not run is NaN (no dot) */
    sb_gp_block_begin(g, "d");
    for (int i = 0; i < n; i++) {
        double b = bv[i] > 0 ? bv[i] : NAN, cc = cv[i] > 0 ? cv[i] : NAN;
        double row[8] = {
            i - 0.15, b,  blo && blo[i] > 0 ? blo[i] : b,  bhi && bhi[i] > 0 ? bhi[i] : b,
            i + 0.15, cc, clo && clo[i] > 0 ? clo[i] : cc, chi && chi[i] > 0 ? chi[i] : cc};
        sb_gp_block_row(g, row, 8);
    }
    sb_gp_block_end(g);
    /* first row on top: the axis runs from the last row down to the first */
    sb_gp_add(ya, "set yrange [%g:%g]\nset ytics (", n - 0.5, -0.5);
    for (int i = 0; i < n; i++) sb_gp_add(ya, i ? ", %F %d" : "%F %d", labels[i], i);
    sb_gp_add(ya, ")\n");
    sb_gp_add(ser,
              "$d using 2:1:3:4 with xerrorbars pt 7 ps 1 lc rgb %T title %T, "
              "$d using 6:5:7:8 with xerrorbars pt 5 ps 1 lc rgb %T title %T",
              g_colour[0], bname, g_colour[4], cname);
    const sb_gp_var v[] = {{"title", SB_GPV_TEXT, title, 0, NULL},
                           {"xlabel", SB_GPV_TEXT, xlabel, 0, NULL},
                           {"yaxis", SB_GPV_CLAUSE, NULL, 0, ya},
                           {"series", SB_GPV_CLAUSE, NULL, 0, ser}};
    int rc = fill(g, tdir, "report-dots.gp", v, 4, e);
    sb_gp_free(ya);
    sb_gp_free(ser);
    if (rc) {
        sb_gp_free(g);
        return NULL;
    }
    return g;
}

sb_gp *sb_plot_report_scaling(const char *templates, const char *title, const char *ylabel,
                              const double *xs, int n, const char *bname, const double *yb,
                              const double *ib, const char *cname, const double *yc,
                              const double *ic, sb_err *e)
{
    char tdir[4096];
    if (sb_gp_templates_dir(templates, tdir, sizeof tdir, e)) return NULL;
    sb_gp *g = sb_gp_new(), *ser = sb_gp_new();
    sb_gp_block_begin(g, "d");
    for (int i = 0; i < n; i++) {
        double row[5] = {xs[i], yb[i] > 0 ? yb[i] : NAN, yc[i] > 0 ? yc[i] : NAN,
                         ib && ib[i] > 0 ? ib[i] : NAN, ic && ic[i] > 0 ? ic[i] : NAN};
        sb_gp_block_row(g, row, 5);
    }
    sb_gp_block_end(g);
    sb_gp_add(ser,
              "$d using 1:2 with linespoints lw 2 pt 7 lc rgb %T title %T, "
              "$d using 1:3 with linespoints lw 2 pt 5 lc rgb %T title %T",
              g_colour[0], bname, g_colour[4], cname);
    /* each side's ideal: its first point times the growth in ranks */
    if (ib)
        sb_gp_add(ser, ", $d using 1:4 with lines dt 2 lc rgb %T title 'ideal (baseline)'",
                  g_colour[0]);
    if (ic)
        sb_gp_add(ser, ", $d using 1:5 with lines dt 2 lc rgb %T title 'ideal (candidate)'",
                  g_colour[4]);
    const sb_gp_var v[] = {{"title", SB_GPV_TEXT, title, 0, NULL},
                           {"ylabel", SB_GPV_TEXT, ylabel, 0, NULL},
                           {"series", SB_GPV_CLAUSE, NULL, 0, ser}};
    int rc = fill(g, tdir, "report-scaling.gp", v, 3, e);
    sb_gp_free(ser);
    if (rc) {
        sb_gp_free(g);
        return NULL;
    }
    return g;
}
