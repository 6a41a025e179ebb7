#include "sb_report_out.h"
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "sb_io.h"
#include "sb_plot.h"
#include "sb_report_points.h"
#include "sb_text.h"

#define MAX_PLOT_BARS 48
#define MAX_PLOT_DOTS 240
/* A 1000x520 PNG of bars is tens of KiB; 32 MiB bounds what embedding one
 * in the HTML can cost whatever stands at its path. */
#define PLOT_IMAGE_MAX (32 * SB_MIB)

char *sb_base64(const unsigned char *d, size_t n)
{
    static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char *out = malloc(4 * ((n + 2) / 3) + 1), *w = out;
    if (!out) return NULL;
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned)d[i] << 16 | (i + 1 < n ? (unsigned)d[i + 1] << 8 : 0) |
            (i + 2 < n ? d[i + 2] : 0);
        *w++ = tab[v >> 18 & 63];
        *w++ = tab[v >> 12 & 63];
        *w++ = i + 1 < n ? tab[v >> 6 & 63] : '=';
        *w++ = i + 2 < n ? tab[v & 63] : '=';
    }
    *w = '\0';
    return out;
}

/* Keeps the first store failure of a section (see out.rc). */
void sb_rp_read_failed(sb_rp_out *o, int rc, const sb_err *e)
{
    if (!o->rc) {
        o->rc = rc;
        o->err = *e;
    }
}

static void md_esc(FILE *f, const char *s) { sb_text_md(f, s, 0); }

void sb_rp_heading(sb_rp_out *o, int level, const char *text)
{
    fprintf(o->md, "\n%.*s ", level, "######");
    md_esc(o->md, text);
    fputs("\n\n", o->md);
    fprintf(o->html, "<h%d>", level);
    sb_text_html(o->html, text);
    fprintf(o->html, "</h%d>\n", level);
}

void sb_rp_para(sb_rp_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_rp_para(sb_rp_out *o, const char *fmt, ...)
{
    char *buf = NULL; /* any length: a paragraph may name every point left out */
    va_list ap;
    va_start(ap, fmt);
    int n = vasprintf(&buf, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    md_esc(o->md, buf);
    fputs("\n\n", o->md);
    fputs("<p>", o->html);
    sb_text_html(o->html, buf);
    fputs("</p>\n", o->html);
    free(buf);
}

void sb_rp_t_init(sb_rp_table *t, int ncols, const char *const *header)
{
    memset(t, 0, sizeof *t);
    t->ncols = ncols;
    t->cap = 16;
    t->cells = calloc((size_t)t->cap * (size_t)ncols, sizeof *t->cells);
    for (int c = 0; t->cells && c < ncols; c++) t->cells[c] = strdup(header[c]);
}

void sb_rp_t_row(sb_rp_table *t, const char *const *cells)
{
    if (!t->cells) return;
    if (t->nrows + 2 > t->cap) {
        int cap = t->cap * 2;
        char **nc = realloc(t->cells, sizeof *nc * (size_t)cap * (size_t)t->ncols);
        if (!nc) return;
        t->cells = nc;
        t->cap = cap;
    }
    t->nrows++;
    for (int c = 0; c < t->ncols; c++)
        t->cells[t->nrows * t->ncols + c] = strdup(cells[c] ? cells[c] : "");
}

void sb_rp_t_emit(sb_rp_out *o, sb_rp_table *t)
{
    if (!t->cells) return;
    for (int r = 0; r <= t->nrows; r++) {
        fputc('|', o->md);
        for (int c = 0; c < t->ncols; c++) {
            fputc(' ', o->md);
            md_esc(o->md, t->cells[r * t->ncols + c] ? t->cells[r * t->ncols + c] : "");
            fputs(" |", o->md);
        }
        fputc('\n', o->md);
        if (r == 0) {
            fputc('|', o->md);
            for (int c = 0; c < t->ncols; c++) fputs(c ? "---:|" : "---|", o->md);
            fputc('\n', o->md);
        }
    }
    fputc('\n', o->md);
    fputs("<table>\n", o->html);
    for (int r = 0; r <= t->nrows; r++) {
        /* a row the reader must see: a crash or failure (a gate FAIL), a
         * significant slowdown, a significant speed-up */
        const char *rowclass = "";
        for (int c = 0; r && c < t->ncols; c++) {
            const char *cell = t->cells[r * t->ncols + c] ? t->cells[r * t->ncols + c] : "";
            if (strstr(cell, "(failed") || strstr(cell, "(timeout") || !strncmp(cell, "FAIL", 4))
                rowclass = " class=\"fail\"";
            else if (!rowclass[0] && strstr(cell, "slower (significant"))
                rowclass = " class=\"slower\"";
            else if (!rowclass[0] && strstr(cell, "faster (significant"))
                rowclass = " class=\"faster\"";
        }
        fprintf(o->html, "<tr%s>", rowclass);
        for (int c = 0; c < t->ncols; c++) {
            const char *cell = t->cells[r * t->ncols + c] ? t->cells[r * t->ncols + c] : "";
            /* not run here (skipped, absent) is grey; a failure is the row's red */
            int na = strstr(cell, "not available") != NULL,
                proj = strstr(cell, "projected") != NULL;
            fprintf(o->html, "<%s%s>", r ? "td" : "th",
                    na         ? " class=\"na\""
                        : proj ? " class=\"proj\""
                               : "");
            sb_text_html(o->html, cell);
            fprintf(o->html, "</%s>", r ? "td" : "th");
        }
        fputs("</tr>\n", o->html);
    }
    fputs("</table>\n", o->html);
    o->rows += t->nrows;
    for (int i = 0; i < (t->nrows + 1) * t->ncols; i++) free(t->cells[i]);
    free(t->cells);
    t->cells = NULL;
}

static void sink_heading(void *ctx, int level, const char *text)
{
    sb_rp_heading(((sb_rp_sinkctx *)ctx)->o, level, text);
}
static void sink_para(void *ctx, const char *text)
{
    sb_rp_para(((sb_rp_sinkctx *)ctx)->o, "%s", text);
}
static void sink_table(void *ctx, int ncols, int nrows, const char *const *cells)
{
    sb_rp_table t;
    sb_rp_t_init(&t, ncols, cells);
    for (int r = 1; r <= nrows; r++) sb_rp_t_row(&t, cells + (size_t)r * (size_t)ncols);
    sb_rp_t_emit(((sb_rp_sinkctx *)ctx)->o, &t);
}

static void sink_bars(void *ctx, const char *name, const char *title, const char *axis,
                      char **labels, const double *const v[6], int n)
{
    sb_rp_sinkctx *c = ctx;
    sb_rp_plot_pairs(c->o, c->pl, 0, name, axis, title, labels, v, n, c->bname, c->cname);
}

/* Draws name.png from a script, links it from the Markdown and embeds it in
 * the HTML. */
void sb_rp_plot_emit(sb_rp_out *o, sb_rp_plots *pl, const char *name, const sb_gp *script, int w,
                     int h, const char *caption)
{
    if (!pl->enabled) return;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.png", pl->dir, name);
    sb_err e = {0};
    if (sb_gnuplot_render(script, "png", w, h, path, &e)) {
        snprintf(pl->skipped_why, sizeof pl->skipped_why, "%.200s", e.msg);
        return;
    }
    char *data;
    size_t len;
    if (sb_read_file_max(path, PLOT_IMAGE_MAX, "plot image", &data, &len, &e)) return;
    char *b64 = sb_base64((unsigned char *)data, len);
    free(data);
    if (!b64) return;
    /* the caption holds database text: escaped, and ] cannot end the alt text */
    fputs("![", o->md);
    sb_text_md(o->md, caption, 1); /* every [ and ]: the alt text ends at ours */
    fprintf(o->md, "](%s.png)\n\n", name);
    fputs("<figure><img alt=\"", o->html);
    sb_text_html(o->html, caption);
    fprintf(o->html, "\" src=\"data:image/png;base64,%s\"><figcaption>", b64);
    sb_text_html(o->html, caption);
    fputs("</figcaption></figure>\n", o->html);
    free(b64);
    pl->drawn++;
}

/* Baseline and candidate per label, each with an error bar from its p10 to
 * its p90 (lo = hi = value where a point has too few samples for a spread):
 * clustered bars (plots/report-bars.gp, restyled with --templates), or with
 * dots set a dot plot of many rows (report-dots.gp: GEMM's every kernel,
 * shape and thread count, one unit per chart), its height growing with the
 * rows. axis names the unit. */
void sb_rp_plot_pairs(sb_rp_out *o, sb_rp_plots *pl, int dots, const char *name, const char *axis,
                      const char *title, char **labels, const double *const v[6], int n,
                      const char *bname, const char *cname)
{
    if (!pl->enabled || n == 0) return;
    if (n > (dots ? MAX_PLOT_DOTS : MAX_PLOT_BARS)) n = dots ? MAX_PLOT_DOTS : MAX_PLOT_BARS;
    sb_err e = {0};
    sb_gp *(*make)(const char *, const char *, const char *, char *const *, int, const char *,
                   const double *, const double *, const double *, const char *, const double *,
                   const double *, const double *, sb_err *) = dots ? sb_plot_report_dots
                                                                    : sb_plot_report_bars;
    sb_gp *g = make(pl->templates, title, axis, labels, n, bname, v[0], v[1], v[2], cname, v[3],
                    v[4], v[5], &e);
    if (!g) {
        snprintf(pl->skipped_why, sizeof pl->skipped_why, "%.200s", e.msg);
        return;
    }
    sb_rp_plot_emit(o, pl, name, g, 1000, dots ? 140 + 17 * n : 520, title);
    sb_gp_free(g);
}

void sb_rp_bars_init(sb_rp_bars *br, int cap)
{
    memset(br, 0, sizeof *br);
    br->cap = cap > 0 ? cap : 1;
    br->labels = calloc((size_t)br->cap, sizeof *br->labels);
    for (int k = 0; k < 6; k++) br->v[k] = calloc((size_t)br->cap, sizeof *br->v[k]);
}

void sb_rp_bars_add(sb_rp_bars *br, const char *label, const sb_pt *b, const sb_metric_val *mb,
                    const sb_pt *c, const sb_metric_val *mc)
{
    if (br->n == br->cap || !br->labels) return;
    for (int k = 0; k < 6; k++)
        if (!br->v[k]) return;
    int i = br->n++;
    br->labels[i] = strdup(label);
    const sb_pt *ps[2] = {b, c};
    const sb_metric_val *ms[2] = {mb, mc};
    for (int s = 0; s < 2; s++) {
        if (ms[s]) {
            br->v[3 * s][i] = ms[s]->value;
            sb_rp_spread_of(ps[s], ms[s], &br->v[3 * s + 1][i], &br->v[3 * s + 2][i]);
        }
    }
}

void sb_rp_bars_free(sb_rp_bars *br)
{
    for (int i = 0; br->labels && i < br->n; i++) free(br->labels[i]);
    free(br->labels);
    for (int k = 0; k < 6; k++) free(br->v[k]);
}

/* One bar of a chart with its values given (not a spread of the samples). */
void sb_rp_bars_set(sb_rp_bars *br, const char *label, const double v[6])
{
    if (br->n == br->cap || !br->labels) return;
    for (int k = 0; k < 6; k++)
        if (!br->v[k]) return;
    br->labels[br->n] = strdup(label);
    for (int k = 0; k < 6; k++) br->v[k][br->n] = v[k] > 0 ? v[k] : 0;
    br->n++;
}

sb_rsink sb_rp_sink(sb_rp_sinkctx *c)
{
    sb_rsink s = {c, sink_heading, sink_para, sink_table, sink_bars};
    return s;
}

void sb_rp_sink_para(const sb_rsink *s, const char *fmt, ...)
{
    char *buf = NULL;
    va_list ap;
    va_start(ap, fmt);
    int n = vasprintf(&buf, fmt, ap);
    va_end(ap);
    if (n >= 0) s->para(s->ctx, buf);
    free(buf);
}

/* ---- the HTML's table of contents ---- */

/* an anchor from a heading's (escaped) text: lower-case letters and digits,
 * runs of anything else as one '-' */
static void slug(const char *t, size_t n, char *buf, size_t cap)
{
    size_t l = 0;
    int dash = 0;
    for (size_t i = 0; i < n && l + 2 < cap; i++) {
        unsigned char c = (unsigned char)t[i];
        if (c == '&') { /* an entity (&amp;) is one character */
            while (i < n && t[i] != ';') i++;
            dash = 1;
            continue;
        }
        if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z')) {
            if (dash && l) buf[l++] = '-';
            buf[l++] = (char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
            dash = 0;
        } else {
            dash = 1;
        }
    }
    buf[l] = '\0';
    if (!l) snprintf(buf, cap, "section");
}

void sb_rp_html_toc(FILE *out, const char *html, size_t len)
{
    /* the headings below the title: "<h2>" and "<h3>" as sb_rp_heading
     * writes them (text is escaped: no '<' inside) */
    enum { MAXH = 256 };
    const char *at[MAXH], *txt[MAXH];
    size_t tl[MAXH];
    int lv[MAXH], nh = 0;
    char ids[MAXH][96], base[MAXH][84];
    for (const char *p = html; nh < MAXH && (p = strstr(p, "<h")) && p < html + len; p++) {
        if ((p[2] != '2' && p[2] != '3') || p[3] != '>') continue;
        const char *t = p + 4, *e = strstr(t, "</h");
        if (!e) break;
        at[nh] = p;
        txt[nh] = t;
        tl[nh] = (size_t)(e - t);
        lv[nh] = p[2] - '0';
        slug(t, tl[nh], base[nh], sizeof base[nh]);
        int same = 0; /* a repeated heading gets -2, -3, ... */
        for (int j = 0; j < nh; j++) same += !strcmp(base[j], base[nh]);
        if (same)
            snprintf(ids[nh], sizeof ids[nh], "%.80s-%d", base[nh], same + 1);
        else
            snprintf(ids[nh], sizeof ids[nh], "%s", base[nh]);
        nh++;
    }
    const char *h1 = strstr(html, "</h1>\n");
    const char *cut = h1 ? h1 + 6 : html;
    size_t pos = 0, ncut = (size_t)(cut - html);
    fwrite(html, 1, ncut, out);
    pos = ncut;
    if (nh) { /* a list of the h2s, each with its h3s in a list of its own */
        fputs("<nav id=\"contents\"><p><b>Contents</b></p>\n<ul>\n", out);
        for (int i = 0; i < nh; i++) {
            int sub = lv[i] == 3 && i > 0, next_sub = i + 1 < nh && lv[i + 1] == 3;
            fprintf(out, "<li><a href=\"#%s\">", ids[i]);
            fwrite(txt[i], 1, tl[i], out);
            fputs("</a>", out);
            if (!sub && next_sub)
                fputs("\n<ul>\n", out); /* its h3s, inside its item */
            else if (sub && !next_sub)
                fputs("</li>\n</ul></li>\n", out);
            else
                fputs("</li>\n", out);
        }
        fputs("</ul></nav>\n", out);
    }
    for (int i = 0; i < nh; i++) {
        if (at[i] < html + pos) continue;
        fwrite(html + pos, 1, (size_t)(at[i] - (html + pos)), out);
        fprintf(out, "<h%d id=\"%s\">", lv[i], ids[i]);
        pos = (size_t)(txt[i] - html);
    }
    fwrite(html + pos, 1, len - pos, out);
}
