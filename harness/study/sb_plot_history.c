/* sb_plot_history: one point key's metric over every sweep of the
 * machine, oldest first, with the spread of its samples. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sb_db.h"
#include "sb_gnuplot.h"
#include "sb_metric.h"
#include "sb_plot.h"
#include "sb_plot_int.h"
#include "sb_query.h"
#include "sb_stats.h"
#include "sb_workload.h"

/* ---- a metric's band and unit: the metric table's (bench/sb_metric) ---- */

/* Rates (higher is better: the metric table, or for a metric it does not
 * know its unit) spread as the same work over the p90 and p10 sample times;
 * a lower-is-better metric (seconds) scales with the samples. */
void sb_plot_band(const char *metric, const char *unit, double value, const double *xs, int ns,
                  double *lo, double *hi)
{
    *lo = *hi = value;
    if (ns < 2 || !sb_metric_per_sample(metric)) return; /* one value: no band */
    sb_metric_band(value, xs, ns, sb_metric_lower(metric, unit), lo, hi);
}

/* The unit the newest point stored with the metric (GB/s for STREAM's
 * triad); a point stored without one: the metric table's (an int8 kernel's
 * GOP/s; NULL: none known). */
static const char *history_unit(const char *metric, const char *kernel, const char *stored)
{
    return stored && stored[0] ? stored : sb_metric_unit(metric, strstr(kernel, "int8") != NULL);
}

/* ---- the history ---- */

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

int sb_plot_history(const sb_plot_opts *o, char ***files, int *nfiles, char *note, size_t notecap,
                    sb_err *e)
{
    *files = NULL;
    *nfiles = 0;
    if (notecap) note[0] = '\0';
    if (!o->kernel || !o->threads)
        return sb_errf(e, SB_EUSAGE, "--history needs --kernel and --threads (and --shape)");
    sb_plot_ctx c;
    int rc = sb_plot_open_sweep(o, &c, e);
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
        snprintf(note, notecap,
                 "history of the newest point's configuration %.200s; %d sweep(s) with another "
                 "left out",
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
        sb_plot_band(metric, h[i].unit, h[i].value, h[i].samples, h[i].nsamples, &lo, &hi);
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
    sb_gp_add(ser, "$h using 1:2:3:4 with yerrorlines lw 2 pt 7 lc rgb %T title %T",
              sb_plot_colour(0), "median, p10-p90 of the samples");
    char title[1500], ylabel[160];
    snprintf(title, sizeof title, "History of %s: %s", metric, key);
    const char *unit = history_unit(metric, o->kernel, h[n - 1].unit);
    snprintf(ylabel, sizeof ylabel, "%s%s%s (median, p10-p90)", metric, unit ? ", " : "",
             unit ? unit : "");
    const sb_gp_var hv[] = {{"title", SB_GPV_TEXT, title, 0, NULL},
                            {"machine", SB_GPV_TEXT, c.machine_text, 0, NULL},
                            {"ylabel", SB_GPV_TEXT, ylabel, 0, NULL},
                            {"xaxis", SB_GPV_CLAUSE, NULL, 0, xa},
                            {"series", SB_GPV_CLAUSE, NULL, 0, ser}};
    rc = sb_plot_fill(g, c.tdir, "history.gp", hv, 5, e);
    char name[600], base[700];
    snprintf(name, sizeof name, "%s-%s-%s-%dt-%dx%d", workload, o->kernel, shape[0] ? shape : "",
             o->threads, nodes, ppn);
    sb_plot_slug(name, base + 8, sizeof base - 8);
    memcpy(base, "history-", 8);
    if (!rc) rc = sb_plot_write_figure(g, 1000, 600, o->out_dir, base, 1, files, nfiles, e);
    sb_history_free(h, all);
    sb_gp_free(g);
    sb_gp_free(xa);
    sb_gp_free(ser);
    return rc;
}
