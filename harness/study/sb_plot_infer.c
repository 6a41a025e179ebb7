/* sb_plot_infer: an inference sweep's figures beyond sequences/s per batch
 * (which sb_plot_throughput draws): latency per question at batch 1 per
 * kernel (p50, p90, p99) and accuracy per kernel grouped by precision (EM,
 * F1, answers identical to f32). */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sb_db.h"
#include "sb_gnuplot.h"
#include "sb_kernel.h"
#include "sb_plot_int.h"
#include "sb_ptset.h"

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
static int plot_latency(sb_plot_ctx *c, const sb_pt *const *v, int n, char ***files, int *nfiles,
                        sb_err *e)
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
        int slot = sb_plot_kernel_slot(v[i]->kernel, unknown, &nunknown);
        sb_gp_add(ser,
                  block ? ", $l%d using 1:2:2:4 with yerrorlines lw 2"
                        : "$l%d using 1:2:2:4 with yerrorlines lw 2",
                  block);
        sb_plot_style_clause(ser, slot);
        sb_gp_add(ser, " title %T", v[i]->kernel);
        sb_gp_add(ser, ", $l%d using 1:3 with points pt 2 ps 1.8 lc rgb %T notitle", block,
                  sb_plot_colour(slot));
        block++;
        i = j;
    }
    sb_plot_x_axis(xa, mint, maxt);
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
    int rc = sb_plot_fill(g, c->tdir, "latency.gp", tv, 6, e);
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
static int plot_accuracy(sb_plot_ctx *c, const sb_pt *const *v, int n, char ***files, int *nfiles,
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
        sb_gp_add(ser, " with boxes lc rgb %T title %T", sb_plot_colour(bars[k].colour),
                  bars[k].title);
    }
    char title[400], at[120] = "";
    if (batch > 0 && batch != INT_MAX)
        snprintf(at, sizeof at, " (batch %d%s)", batch, threads > 0 ? "" : ", fewest threads");
    snprintf(title, sizeof title, "SQuAD inference accuracy per kernel, by precision%s", at);
    const sb_gp_var tv[] = {{"title", SB_GPV_TEXT, title, 0, NULL},
                            {"machine", SB_GPV_TEXT, c->machine_text, 0, NULL},
                            {"xaxis", SB_GPV_CLAUSE, NULL, 0, xa},
                            {"series", SB_GPV_CLAUSE, NULL, 0, ser}};
    int rc = sb_plot_fill(g, c->tdir, "accuracy.gp", tv, 4, e);
    if (!rc) rc = sb_plot_write_figure(g, 1000, 640, c->out_dir, "accuracy", 1, files, nfiles, e);
    sb_gp_free(g);
    sb_gp_free(xa);
    sb_gp_free(ser);
    return rc;
}

/* The inference figures of a sweep beyond throughput: latency when its
 * points measured it, accuracy when they scored or compared answers.
 * *drawn counts the figures. */
int sb_plot_infer(sb_plot_ctx *c, char ***files, int *nfiles, int *drawn, sb_err *e)
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
