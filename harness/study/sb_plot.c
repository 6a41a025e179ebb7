#include "sb_plot.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "sb_db.h"
#include "sb_gnuplot.h"
#include "sb_query.h"
#include "sb_scaling.h"
#include "sb_stats.h"

typedef struct {
    char kernel[160];   /* an imported kernel name is up to 128 bytes */
    int threads;
    double median, lo, hi;  /* throughput: median and the p10-p90 spread */
} series_pt;

/* Throughput of one sample: GEMM flops / seconds, or tokens / seconds from
 * the point's own median (tokens_per_s * median step seconds). */
static int load_series(sb_db *db, int64_t sweep, const char *workload, const char *shape,
                       series_pt **pts, int *n, char *unit, size_t unitcap, sb_err *e)
{
    const char *metric = !strcmp(workload, "gemm") ? "gflops" : "tokens_per_s";
    *pts = NULL;
    *n = 0;
    snprintf(unit, unitcap, "%s", !strcmp(workload, "gemm") ? "GFLOP/s" : "tokens/s");
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
        p->threads = v[i].threads;
        p->median = p->lo = p->hi = v[i].value;
        if (!strcmp(v[i].dtype, "int8") && !strcmp(workload, "gemm"))
            snprintf(unit, unitcap, "GFLOP/s (GOP/s for int8)");
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

static void datablocks(sb_gp *g, const series_pt *pts, int n, int speedup)
{
    int block = 0;
    for (int i = 0; i < n;) {
        int j = i;
        while (j < n && !strcmp(pts[j].kernel, pts[i].kernel)) j++;
        char name[16];
        snprintf(name, sizeof name, "d%d", block++);
        sb_gp_block_begin(g, name);
        double base = pts[i].median * 1.0, base_t = pts[i].threads;
        for (int q = i; q < j; q++) {
            if (speedup) {
                double sp = base > 0 ? pts[q].median / base : 0;
                double ideal = pts[q].threads / base_t;
                double row[3] = {pts[q].threads, sp, ideal > 0 ? 100.0 * sp / ideal : 0};
                sb_gp_block_row(g, row, 3);
            } else {
                double row[4] = {pts[q].threads, pts[q].median, pts[q].lo, pts[q].hi};
                sb_gp_block_row(g, row, 4);
            }
        }
        sb_gp_block_end(g);
        i = j;
    }
}

/* One colour per series, twelve apart: gnuplot's default cycle has eight, so
 * with the AVX2 kernels two of nine kernels shared a colour. */
static const char *const g_series_colour[] = {
    " lc rgb '#9400d3'", " lc rgb '#009e73'", " lc rgb '#56b4e9'", " lc rgb '#e69f00'",
    " lc rgb '#c8b400'", " lc rgb '#0072b2'", " lc rgb '#e51e10'", " lc rgb '#000000'",
    " lc rgb '#d55e00'", " lc rgb '#cc79a7'", " lc rgb '#8c564b'", " lc rgb '#7f7f7f'"};

/* `using` is one of this file's literals, with no directives. */
static void plot_cmd(sb_gp *g, const series_pt *pts, int n, const char *using)
{
    int block = 0;
    sb_gp_add(g, "plot ");
    for (int i = 0; i < n;) {
        int j = i;
        while (j < n && !strcmp(pts[j].kernel, pts[i].kernel)) j++;
        sb_gp_add(g, block ? ", $d%d " : "$d%d ", block);
        sb_gp_add(g, using);
        sb_gp_add(g, g_series_colour[block % (int)(sizeof g_series_colour / sizeof *g_series_colour)]);
        sb_gp_add(g, " title %T", pts[i].kernel);
        block++;
        i = j;
    }
}

static int add_file(char ***files, int *n, const char *path)
{
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
                    (*in >= '0' && *in <= '9') || *in == '-') ? *in : '_';
    out[o] = '\0';
    if (!o) snprintf(out, cap, "all");
}

static int render_both(const sb_gp *script, int w, int h, const char *dir, const char *base,
                       char ***files, int *nfiles, sb_err *e)
{
    static const char *const exts[] = {"png", "svg"};
    for (int i = 0; i < 2; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s.%s", dir, base, exts[i]);
        int rc = sb_gnuplot_render(script, exts[i], w, h, path, e);
        if (rc) return rc;
        if (add_file(files, nfiles, path)) return sb_errf(e, SB_EFAIL, "out of memory");
    }
    return SB_OK;
}

#ifndef SB_SOURCE_DIR
#define SB_SOURCE_DIR "."
#endif

typedef struct {
    char kernel[160];
    int ppn, nodes;
    double epoch_s;
    int extrapolated;   /* a measured point whose epoch time came from some steps */
    int model;          /* status 'projected': the scaling model's point, nothing ran */
} scale_pt;

/* Epoch time and speedup against nodes (log2 axes, y = x ideal), a parallel-
 * efficiency panel, and the original study's published points as an overlay.
 * Series are (kernel, ppn, measured or projected); the scaling model's
 * projections are dashed, and each series' speedup is against its own 1-node
 * point. Drawn only when measured or projected points cover >= 2 rank counts. */
static int plot_scaling(sb_db *db, int64_t sweep, const char *title_machine, const char *dir,
                        const char *reference, char ***files, int *nfiles, sb_err *e)
{
    sb_epoch_point *v;
    int nv;
    int rc = sb_db_epoch_series(db, sweep, &v, &nv, e);
    if (rc) return rc;
    scale_pt pts[512];
    int n = 0, maxn = 1, nmodel = 0, nranks = 0;
    int ranks_seen[512];
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
    if (reference && sb_study_load(reference, &study, &nstudy, &se)) nstudy = 0;

    sb_gp *s = sb_gp_new();
    int blocks = 0;
    char labels[64][200];
    int dashed[64];
    for (int i = 0; i < n;) {
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
        sb_gp_block_begin(s, name);
        for (int q = i; q < j; q++) {
            double sp = base > 0 ? base / pts[q].epoch_s : 0;
            double row[5] = {pts[q].nodes, pts[q].epoch_s, sp,
                             pts[q].nodes > 0 ? 100.0 * sp / pts[q].nodes : 0,
                             (double)pts[q].ppn * pts[q].nodes};
            sb_gp_block_row(s, row, 5);
        }
        sb_gp_block_end(s);
        if (pts[i].model)
            snprintf(labels[blocks], sizeof labels[blocks], "%s, %d rank(s)/node, projected (model)",
                     pts[i].kernel, pts[i].ppn);
        else
            snprintf(labels[blocks], sizeof labels[blocks], "%s, %d rank(s)/node%s", pts[i].kernel,
                     pts[i].ppn, extrapolated ? " (epoch projected from steps)" : "");
        dashed[blocks] = pts[i].model;
        if (++blocks == 64) break;
        i = j;
    }
    /* the study: measured points and its own speedup (1 node -> 4 nodes) */
    double study1 = 0;
    for (int i = 0; i < nstudy; i++)
        if (study[i].nodes == 1 && !strcmp(study[i].kind, "measured") && strstr(study[i].machine, "Sapphire"))
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
        for (int i = 0; i < nstudy; i++) if (study[i].nodes > maxn) maxn = study[i].nodes;
    }
    int xmax = 1;
    while (xmax < maxn) xmax *= 2;
    /* measured: solid lines with filled circles; projected: dashed, open circles */
    const char *style[2] = {" using 1:%d with linespoints lw 2 pt 7 title %T",
                            " using 1:%d with linespoints lw 2 dt 2 pt 6 title %T"};
    char title[700];
    snprintf(title, sizeof title, "Scaling over nodes: %s", title_machine);
    sb_gp_add(s, "set multiplot layout 3,1 title %T\n"
                 "set logscale x 2\nset xrange [0.8:%g]\nset grid\nset key outside right\n"
                 "set lmargin 12\nset rmargin 52\n"
                 "set ylabel 'epoch time, s'\nset logscale y 10\n",
              title, xmax * 1.25);
    sb_gp_add(s, "plot ");
    for (int b = 0; b < blocks; b++) {
        sb_gp_add(s, b ? ", $s%d" : "$s%d", b);
        sb_gp_add(s, style[dashed[b]], 2, labels[b]);
    }
    if (study1 > 0)
        sb_gp_add(s, ", $study using 1:2 with points pt 5 ps 1.5 lc rgb 'black' title "
                     "'published study (SPR bf16, HF blog 2023)'");
    sb_gp_add(s, "\nunset logscale y\nset logscale y 2\nset ylabel 'speedup vs 1 node'\n"
                 "set yrange [0.8:%g]\nplot ", xmax * 1.25);
    for (int b = 0; b < blocks; b++) {
        sb_gp_add(s, "$s%d", b);
        sb_gp_add(s, style[dashed[b]], 3, labels[b]);
        sb_gp_add(s, ", ");
    }
    if (study1 > 0)
        sb_gp_add(s, "$study using 1:3 with points pt 5 ps 1.5 lc rgb 'black' title 'published study', ");
    sb_gp_add(s, "x title 'ideal (y = x)' dt 2 lc rgb 'black'\n"
                 "unset logscale y\nset yrange [0:120]\nset ylabel 'parallel efficiency %%'\n"
                 "set xlabel 'nodes'\nplot ");
    for (int b = 0; b < blocks; b++) {
        sb_gp_add(s, "$s%d", b);
        sb_gp_add(s, style[dashed[b]], 4, labels[b]);
        sb_gp_add(s, ", ");
    }
    if (study1 > 0)
        sb_gp_add(s, "$study using 1:4 with points pt 5 ps 1.5 lc rgb 'black' title 'published study', ");
    sb_gp_add(s, "100 title 'ideal' dt 2 lc rgb 'black'\nunset multiplot\n");
    rc = render_both(s, 900, 1100, dir, "scaling-nodes", files, nfiles, e);
    sb_gp_free(s);
    free(study);
    if (rc) return rc;

    /* against total ranks, every (kernel, ppn) series on one axis; the
     * model's points as a series of their own */
    sb_gp *r = sb_gp_new();
    int nmeasured = n - nmodel;
    for (int kind = 0; kind < 2; kind++) {
        if (!(kind ? nmodel : nmeasured)) continue;
        sb_gp_block_begin(r, kind ? "r1" : "r0");
        for (int i = 0; i < n; i++)
            if (pts[i].model == kind) {
                double row[2] = {(double)pts[i].ppn * pts[i].nodes, pts[i].epoch_s};
                sb_gp_block_row(r, row, 2);
            }
        sb_gp_block_end(r);
    }
    snprintf(title, sizeof title, "Epoch time against total ranks: %s", title_machine);
    sb_gp_add(r, "set title %T\nset logscale x 2\n"
                 "set logscale y 10\nset grid\nset xlabel 'total MPI ranks'\n"
                 "set ylabel 'epoch time, s'\nplot ", title);
    if (nmeasured)
        sb_gp_add(r, nmodel ? "$r0 using 1:2 with points pt 7 ps 1.3 title 'measured points', "
                            : "$r0 using 1:2 with points pt 7 ps 1.3 title 'measured points'");
    if (nmodel)
        sb_gp_add(r, "$r1 using 1:2 with points pt 6 ps 1.3 title 'projected (model, not measured)'");
    sb_gp_add(r, "\n");
    rc = render_both(r, 900, 560, dir, "scaling-ranks", files, nfiles, e);
    sb_gp_free(r);
    return rc;
}

int sb_plot_sweep(const sb_plot_opts *o, char ***files, int *nfiles, sb_err *e)
{
    *files = NULL;
    *nfiles = 0;
    if (!sb_gnuplot_available())
        return sb_errf(e, SB_EUSAGE, "gnuplot not found on PATH (install gnuplot-nox)");
    struct stat st0;
    if (stat(o->db_path, &st0) != 0)
        return sb_errf(e, SB_EUSAGE, "%s: no such database", o->db_path);
    sb_db *db;
    int rc = sb_db_open_readonly(o->db_path, &db, e);
    if (rc) return rc;
    int64_t sweep = o->sweep_id > 0 ? o->sweep_id : sb_db_latest_sweep(db);
    char machine[512] = "unknown machine", workload[32] = "";
    sb_sweep_header hd;
    int found;
    if ((rc = sb_db_sweep_header(db, sweep, &hd, &found, e))) {
        sb_db_close(db);
        return rc;
    }
    if (found) {
        snprintf(workload, sizeof workload, "%s", hd.workload ? hd.workload : "gemm");
        if (!hd.has_machine)   /* e.g. `sprbench model --db`: computed, no machine */
            snprintf(machine, sizeof machine, "%s (no machine)", hd.label ? hd.label : "sweep");
        else
            snprintf(machine, sizeof machine, "%s: %s (%s, %d cores)",
                     hd.hostname ? hd.hostname : "?", hd.cpu_model ? hd.cpu_model : "?",
                     hd.microarch ? hd.microarch : "?", hd.cores);
    }
    sb_sweep_header_free(&hd);
    if (!found) {
        sb_db_close(db);
        return sb_errf(e, SB_EUSAGE, "%s: no sweep %lld", o->db_path, (long long)sweep);
    }
    if (mkdir(o->out_dir, 0755) != 0 && errno != EEXIST) {
        sb_db_close(db);
        return sb_errf(e, SB_EUSAGE, "%s: cannot create directory: %s", o->out_dir, strerror(errno));
    }
    /* One figure set per shape (GEMM) or per configuration (train). */
    char **shape_list = NULL;
    int nshape_list = 0;
    if ((rc = sb_db_sweep_shapes(db, sweep, workload, &shape_list, &nshape_list, e))) {
        sb_db_close(db);
        return rc;
    }
    int shapes = 0;
    for (int si = 0; !rc && si < nshape_list; si++) {
        /* whole: the points are looked up by it */
        const char *shape_s = shape_list[si];
        series_pt *pts = NULL;
        int n = 0;
        char unit[64];
        if ((rc = load_series(db, sweep, workload, shape_s, &pts, &n, unit, sizeof unit, e)) ||
            n == 0) {
            free(pts);
            continue;
        }
        shapes++;
        char name[96], base[160], what[1200], line1[1300], ylabel[128];
        slug(shape_s, name, sizeof name);
        snprintf(what, sizeof what, "%s %s", !strcmp(workload, "gemm") ? "GEMM" : workload,
                 shape_s[0] ? shape_s : "");
        int maxt = 1;
        for (int i = 0; i < n; i++) if (pts[i].threads > maxt) maxt = pts[i].threads;

        snprintf(ylabel, sizeof ylabel, "%s (median, p10-p90)", unit);
        /* titles: two lines, what was measured and on which machine */
        sb_gp *s = sb_gp_new();
        datablocks(s, pts, n, 0);
        sb_gp_add(s, "set title %T.\"\\n\".%T\nset xlabel 'threads'\nset ylabel %T\n"
                     "set key outside right\nset grid\nset xrange [0.5:%g]\nset yrange [0:*]\n"
                     "set xtics 1\nset style data yerrorlines\n", what, machine, ylabel, maxt + 0.5);
        plot_cmd(s, pts, n, "using 1:2:3:4 with yerrorlines lw 2 pt 7");
        sb_gp_add(s, "\n");
        snprintf(base, sizeof base, "throughput-%s", name);
        rc = render_both(s, 900, 560, o->out_dir, base, files, nfiles, e);
        sb_gp_free(s);

        if (!rc) {
            sb_gp *t = sb_gp_new();
            datablocks(t, pts, n, 1);
            snprintf(line1, sizeof line1, "Speedup and parallel efficiency: %s", what);
            sb_gp_add(t, "set multiplot layout 2,1 title %T.\"\\n\".%T\n"
                         "set key outside right\nset grid\nset xrange [0.5:%g]\nset xtics 1\n"
                         "set lmargin 12\nset rmargin 24\nset ylabel 'speedup vs fewest threads'\nset yrange [0:%g]\n",
                      line1, machine, maxt + 0.5, maxt + 0.5);
            plot_cmd(t, pts, n, "using 1:2 with linespoints lw 2 pt 7");
            sb_gp_add(t, ", x title 'ideal (y = x)' dt 2 lc rgb 'black'\n");
            sb_gp_add(t, "set title ''\nset ylabel 'parallel efficiency %%'\nset xlabel 'threads'\n"
                         "set yrange [0:120]\n");
            plot_cmd(t, pts, n, "using 1:3 with linespoints lw 2 pt 7");
            sb_gp_add(t, ", 100 title 'ideal' dt 2 lc rgb 'black'\nunset multiplot\n");
            snprintf(base, sizeof base, "speedup-%s", name);
            rc = render_both(t, 900, 800, o->out_dir, base, files, nfiles, e);
            sb_gp_free(t);
        }
        free(pts);
    }
    sb_db_strings_free(shape_list, nshape_list);
    if (!rc) {
        const char *ref = o->reference ? o->reference : SB_SOURCE_DIR "/results/reference/study.csv";
        int before = *nfiles;
        rc = plot_scaling(db, sweep, machine, o->out_dir, ref, files, nfiles, e);
        if (*nfiles > before) shapes++;
    }
    sb_db_close(db);
    if (!rc && shapes == 0)
        rc = sb_errf(e, SB_EUSAGE, "sweep %lld has no finished points to plot", (long long)sweep);
    return rc;
}
