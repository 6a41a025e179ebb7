/* sb_plot_report: the report's charts (templates report-bars.gp,
 * report-dots.gp, report-scaling.gp), returned as scripts for the report to
 * write beside its text (sb_plot_write_figure). */
#include <math.h>
#include <stddef.h>
#include "sb_gnuplot.h"
#include "sb_plot.h"
#include "sb_plot_int.h"

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
              sb_plot_colour(0), bname, sb_plot_colour(4), cname);
    const sb_gp_var v[] = {{"title", SB_GPV_TEXT, title, 0, NULL},
                           {"ylabel", SB_GPV_TEXT, ylabel, 0, NULL},
                           {"xaxis", SB_GPV_CLAUSE, NULL, 0, xa},
                           {"series", SB_GPV_CLAUSE, NULL, 0, ser}};
    int rc = sb_plot_fill(g, tdir, "report-bars.gp", v, 4, e);
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
              sb_plot_colour(0), bname, sb_plot_colour(4), cname);
    const sb_gp_var v[] = {{"title", SB_GPV_TEXT, title, 0, NULL},
                           {"xlabel", SB_GPV_TEXT, xlabel, 0, NULL},
                           {"yaxis", SB_GPV_CLAUSE, NULL, 0, ya},
                           {"series", SB_GPV_CLAUSE, NULL, 0, ser}};
    int rc = sb_plot_fill(g, tdir, "report-dots.gp", v, 4, e);
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
              sb_plot_colour(0), bname, sb_plot_colour(4), cname);
    /* each side's ideal: its first point times the growth in ranks */
    if (ib)
        sb_gp_add(ser, ", $d using 1:4 with lines dt 2 lc rgb %T title 'ideal (baseline)'",
                  sb_plot_colour(0));
    if (ic)
        sb_gp_add(ser, ", $d using 1:5 with lines dt 2 lc rgb %T title 'ideal (candidate)'",
                  sb_plot_colour(4));
    const sb_gp_var v[] = {{"title", SB_GPV_TEXT, title, 0, NULL},
                           {"ylabel", SB_GPV_TEXT, ylabel, 0, NULL},
                           {"series", SB_GPV_CLAUSE, NULL, 0, ser}};
    int rc = sb_plot_fill(g, tdir, "report-scaling.gp", v, 3, e);
    sb_gp_free(ser);
    if (rc) {
        sb_gp_free(g);
        return NULL;
    }
    return g;
}
