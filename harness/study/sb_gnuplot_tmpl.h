/* sb_gnuplot_tmpl: the template language of plots/NAME.gp, inside study/'s
 * gnuplot writer only: a template line cut into tokens by gnuplot's own
 * rules and read against the allow-list (sb_gnuplot_tmpl.c), for
 * sb_gp_template_load (which refuses a template) and sb_gp_template_fill
 * (sb_gnuplot.c: which fills each placeholder with the kind of value its
 * place takes). */
#ifndef SB_GNUPLOT_TMPL_H
#define SB_GNUPLOT_TMPL_H
#include <stddef.h>
#include "sb_err.h"

typedef enum {
    SB_GP_TK_WORD,
    SB_GP_TK_NUM,
    SB_GP_TK_STR,
    SB_GP_TK_HOLE,
    SB_GP_TK_PUNCT
} sb_gp_tk_kind;
typedef struct {
    sb_gp_tk_kind kind;
    size_t at, len; /* in the line; a hole: the whole {{name}} */
    int spaced;     /* whitespace (or the line's start) before it */
} sb_gp_tok;

typedef enum { SB_GP_ROLE_VALUE, SB_GP_ROLE_NUM, SB_GP_ROLE_CLAUSE } sb_gp_role;
typedef struct {
    size_t at, len; /* the whole {{name}} */
    sb_gp_role role;
} sb_gp_hole;

#define SB_GP_LINE_TOKENS 256
#define SB_GP_LINE_HOLES 32

typedef struct {
    sb_gp_tok t[SB_GP_LINE_TOKENS];
    int n;
    sb_gp_hole h[SB_GP_LINE_HOLES];
    int nh;
    char why[320];
} sb_gp_line;

/* NULL when l[0..n) is a line of the template language; its tokens are
 * in L->t and its placeholders, with the kind of value each may take, in
 * L->h. Otherwise why it is refused (L->why). */
const char *sb_gp_check_line(sb_gp_line *L, const char *l, size_t n);

/* The directory templates are read from, in this order: `dir_opt` (a
 * --templates option), $SPRBENCH_PLOTS, the source tree's plots/, the
 * install prefix's share/sprbench/plots; the first that holds
 * throughput.gp. SB_EUSAGE naming every place tried when none does. */
int sb_gp_templates_dir(const char *dir_opt, char *out, size_t cap, sb_err *e);

/* Reads dir/name (at most 64 KiB) and checks it as above. Caller frees.
 * SB_EUSAGE with the file and line for a missing or refused template. */
int sb_gp_template_load(const char *dir, const char *name, char **text, sb_err *e);

#endif
