/* sb_gnuplot: the one writer of gnuplot scripts and the one launcher of
 * gnuplot. Every plot text that came from a database, a file or the command
 * line (host names, labels, kernels, shapes, titles) reaches gnuplot only
 * through this module, in a form gnuplot cannot execute:
 *
 *  - text is a double-quoted literal in which no backquote, @, $, " or
 *    backslash appears as itself (\", \\ and octal escapes, the escapes
 *    gnuplot 5.4 really reads: plots/README.md). Newlines, tabs and CR
 *    become spaces, other control and bidi characters are dropped and
 *    invalid UTF-8 becomes '?', so a literal always closes on its own line.
 *    (Single quotes cannot carry every text: gnuplot reads '' as a quote
 *    only after another character.) Terminals are noenhanced, so
 *    ^ _ @ { } & ~ \ in text are shown, not read as markup;
 *  - where gnuplot reads text as a printf-like format (explicit tic labels:
 *    `set xtics ('label' pos)`), % is doubled as well;
 *  - data are numbers only, in inline data blocks ($name << EOD): no data
 *    line can be the EOD terminator or anything but numbers;
 *  - the output path never appears in the script: gnuplot draws to its
 *    standard output, which is a file this module opened. No pipe ('|...'),
 *    no `set output`, no `~` expansion can come from a path;
 *  - gnuplot runs from argv (posix_spawnp, no shell) with --default-settings
 *    (no init files) and the script on its standard input.
 *
 * The script's fixed text comes from the caller's format literals, whose
 * only directives are %d, %g, %T (text), %F (text read as a format by
 * gnuplot) and %%: there is no %s, so a caller cannot splice raw text.
 *
 * gnuplot draws into an anonymous temporary file; only when it succeeded
 * and wrote a non-trivial image is that copied to the output, through sb_out
 * (bench/sb_io.h): a symlink writes its target and stays, a device or FIFO
 * is written in place, a regular file is replaced whole (temp + rename):
 * never an empty or partial PNG/SVG. */
#ifndef SB_GNUPLOT_H
#define SB_GNUPLOT_H
#include <stddef.h>
#include "sb_err.h"
#include "sb_gnuplot_tmpl.h" /* sb_gp_templates_dir, sb_gp_template_load */

/* 1 when a gnuplot binary is on PATH (or $SB_GNUPLOT names one). */
int sb_gnuplot_available(void);

typedef struct sb_gp sb_gp; /* a script being written */

/* NULL when out of memory; every function below accepts NULL and then does
 * nothing (sb_gp_script and sb_gnuplot_render fail). */
sb_gp *sb_gp_new(void);
void sb_gp_free(sb_gp *g);

/* Appends command text. `fmt` must be a string literal of the program; its
 * directives: %d (int), %g (double; not finite: NaN), %T (const char *, text
 * shown as is; NULL is ""), %F (text in a place gnuplot reads as a format),
 * %%. Any other directive, or a command while a data block is open, marks
 * the script unusable: sb_gp_script and sb_gnuplot_render then refuse it. */
void sb_gp_add(sb_gp *g, const char *fmt, ...);

/* An inline data block `$name << EOD` ... `EOD`; name: a letter then
 * letters, digits or _. Rows hold numbers only (not finite: NaN). */
void sb_gp_block_begin(sb_gp *g, const char *name);
void sb_gp_block_row(sb_gp *g, const double *v, int n);
void sb_gp_block_end(sb_gp *g);

/* The whole script gnuplot reads for term "png" (pngcairo) or "svg" at
 * width x height: the terminal line, then what was added. Caller frees.
 * NULL with SB_EFAIL for a misused or out-of-memory writer, SB_EUSAGE for
 * an unknown terminal or size. */
char *sb_gp_script(const sb_gp *g, const char *term, int width, int height, sb_err *e);

/* Draws the script into out_path. SB_EUSAGE when gnuplot is missing or
 * out_path cannot be written, SB_EFAIL when gnuplot fails (the message ends
 * with gnuplot's own last error line, control characters removed). */
int sb_gnuplot_render(const sb_gp *g, const char *term, int width, int height, const char *out_path,
                      sb_err *e);

/* ---- the figure's files beside its image ---- */

/* The data blocks alone, as a table gnuplot (or a spreadsheet) reads: each
 * block under a "# $name" line, blocks two blank lines apart (gnuplot's
 * `index`). Caller frees; NULL when out of memory or misused. */
char *sb_gp_data_text(const sb_gp *g);

/* Writes the script for term "png" at width x height to path (replaced
 * whole, through sb_out), under a comment saying how to draw it again:
 * `gnuplot NAME.gp > NAME.png`. The script names no output, as ever. */
int sb_gp_write_script(const sb_gp *g, int width, int height, const char *path, sb_err *e);

/* ---- templates (plots/NAME.gp) ----
 *
 * A template is the user's styling in a small language read with gnuplot's
 * own token rules against an allow-list (plots/README.md): set/unset of
 * named options with keywords spelled out (no abbreviations), strings,
 * numbers, axis ranges, `.` joining strings, plot {{clause}}, {{name}}
 * placeholders outside quotes, # comments. Nothing in it computes a string
 * (no variable, function, substring) or names a file or a command. The
 * values of a figure (titles, labels, numbers, the plot clauses) are never
 * template text: each placeholder is filled through this writer, text as a
 * whole literal, numbers as numbers, clauses as fragments this writer
 * built, and only where the template's grammar puts that kind of value.
 * The scanner and checker of that language are sb_gnuplot_tmpl.c's (with
 * sb_gp_templates_dir and sb_gp_template_load); the filling is the
 * writer's own (sb_gnuplot.c). */

typedef enum { SB_GPV_TEXT, SB_GPV_LINES, SB_GPV_FORMAT, SB_GPV_NUM, SB_GPV_CLAUSE } sb_gpv_kind;
typedef struct sb_gp_var {
    const char *name; /* the placeholder: {{name}} */
    sb_gpv_kind kind;
    const char *text;    /* TEXT (a literal) and FORMAT (a literal read as a format) */
    double num;          /* NUM */
    const sb_gp *clause; /* CLAUSE: a fragment built with sb_gp_add; no data blocks */
} sb_gp_var;

/* Appends the template with every placeholder filled from vars; comments
 * and blank lines are left out. SB_EUSAGE for a placeholder no var names,
 * or a fragment that is misused; the script is then marked unusable. */
int sb_gp_template_fill(sb_gp *g, const char *tmpl, const char *tmpl_name, const sb_gp_var *vars,
                        int nvars, sb_err *e);

#endif
