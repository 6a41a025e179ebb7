/* sb_report_out: the report's writer. Every block (heading, paragraph,
 * table) goes to the Markdown and the HTML stream at once; a table's HTML
 * marks the rows a reader must see (a failure, a significant slowdown or
 * speed-up) and its cells not available or projected; plots are drawn with
 * gnuplot, linked from the Markdown and embedded in the HTML as data: URIs;
 * the headline's blocks (sb_rsink) come through the same calls. Shared by
 * the report's files (study/sb_report*), not by other modules. */
#ifndef SB_REPORT_OUT_H
#define SB_REPORT_OUT_H
#include <stdio.h>
#include "sb_err.h"
#include "sb_gate.h"
#include "sb_gnuplot.h"
#include "sb_ptset.h"

typedef struct sb_rp_out {
    FILE *md, *html;
    int rows;
    /* the first read of the store that failed: the sections go on (each
     * says "not available" where its data is missing), and the report
     * then fails with it rather than pass for a complete one */
    int rc;
    sb_err err;
    /* the gate's test, run both ways: fwd says where the candidate is
     * significantly slower, rev (sides swapped) where it is faster */
    const sb_gate_result *fwd, *rev;
    const sb_gate_opts *go; /* its options, for tests the report runs on other samples */
    /* each distinct provenance of a projected figure, said once (P1, P2, ...) */
    char **srcs;
    int nsrc;
} sb_rp_out;

/* A table being filled: sb_rp_t_init, sb_rp_t_row per row, sb_rp_t_emit. */
typedef struct sb_rp_table {
    int ncols, nrows, cap;
    char **cells; /* (nrows + 1) * ncols, row 0 = header */
} sb_rp_table;

/* The plots of a report: drawn into dir when enabled, counted; the last
 * reason one was not. */
typedef struct sb_rp_plots sb_rp_plots;
struct sb_rp_plots {
    int enabled, drawn;
    const char *dir;
    const char *templates; /* NULL: the default search (sb_gp_templates_dir) */
    char skipped_why[256];
};

/* What the headline's sink (sb_rsink, below) writes through. */
typedef struct sb_rp_sinkctx {
    sb_rp_out *o;
    sb_rp_plots *pl;
    const char *bname, *cname;
} sb_rp_sinkctx;

/* What a bar chart draws: a label and, per side, value, p10 and p90. */
typedef struct sb_rp_bars {
    char **labels;
    double *v[6];
    int n, cap;
} sb_rp_bars;

/* Where the blocks go: a heading, a paragraph, a table (cells row-major,
 * row 0 the header). */
typedef struct sb_rsink {
    void *ctx;
    void (*heading)(void *ctx, int level, const char *text);
    void (*para)(void *ctx, const char *text);
    void (*table)(void *ctx, int ncols, int nrows, const char *const *cells);
    /* clustered bars, baseline and candidate per label: v[0..2] the
     * baseline's value, p10, p90, v[3..5] the candidate's (NULL: no plots) */
    void (*bars)(void *ctx, const char *name, const char *title, const char *axis, char **labels,
                 const double *const v[6], int n);
} sb_rsink;

/* Keeps the first failed read of the store (see sb_rp_out.rc). */
void sb_rp_read_failed(sb_rp_out *o, int rc, const sb_err *e);
/* A heading, a paragraph (printf-style, any length) and a table, to both
 * streams; sb_rp_t_emit writes the table, counts its rows and frees it. */
void sb_rp_heading(sb_rp_out *o, int level, const char *text);
void sb_rp_para(sb_rp_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_rp_t_init(sb_rp_table *t, int ncols, const char *const *header);
void sb_rp_t_row(sb_rp_table *t, const char *const *cells);
void sb_rp_t_emit(sb_rp_out *o, sb_rp_table *t);
/* Draws name.png from a script, links it from the Markdown and embeds it
 * in the HTML. */
void sb_rp_plot_emit(sb_rp_out *o, sb_rp_plots *pl, const char *name, const sb_gp *script, int w,
                     int h, const char *caption);
/* Baseline and candidate per label with p10-p90 error bars: clustered bars
 * or, with dots, a dot plot of many rows (v as in sb_rsink.bars). */
void sb_rp_plot_pairs(sb_rp_out *o, sb_rp_plots *pl, int dots, const char *name, const char *axis,
                      const char *title, char **labels, const double *const v[6], int n,
                      const char *bname, const char *cname);
/* A chart's bars: room for cap, one per label with each side's metric and
 * its spread (add) or with the values given (set). */
void sb_rp_bars_init(sb_rp_bars *br, int cap);
void sb_rp_bars_add(sb_rp_bars *br, const char *label, const sb_pt *b, const sb_metric_val *mb,
                    const sb_pt *c, const sb_metric_val *mc);
void sb_rp_bars_free(sb_rp_bars *br);
void sb_rp_bars_set(sb_rp_bars *br, const char *label, const double v[6]);
/* A sink that writes into c->o (plots into c->pl, legends c->bname, c->cname). */
sb_rsink sb_rp_sink(sb_rp_sinkctx *c);

/* The report's HTML as written (len bytes) to out, with an id on every
 * <h2> and <h3> (from its text: "what-amx-gives-on-emerald-rapids-amx",
 * "~2" on a repeat) and a table of contents linking them after the <h1>. */
void sb_rp_html_toc(FILE *out, const char *html, size_t len);

/* A paragraph through a sink, printf-style. */
void sb_rp_sink_para(const sb_rsink *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* RFC 4648 base64 of n bytes; caller frees. */
char *sb_base64(const unsigned char *data, size_t n);

#endif
