/* sb_gnuplot_tmpl: the template language's scanner and checker, where the
 * template directory is found, and template loading (sb_gnuplot.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "sb_gnuplot_tmpl.h"
#include "sb_io.h"
#include "sb_text.h"

/* ---- templates ---- */

#ifndef SB_SOURCE_DIR
#define SB_SOURCE_DIR "."
#endif
#ifndef SB_INSTALL_PLOTS_DIR
#define SB_INSTALL_PLOTS_DIR "/usr/local/share/sprbench/plots"
#endif

#define TEMPLATE_MAX (64 * 1024)

static int has_template(const char *dir)
{
    char p[4096];
    if (snprintf(p, sizeof p, "%s/throughput.gp", dir) >= (int)sizeof p) return 0;
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

int sb_gp_templates_dir(const char *dir_opt, char *out, size_t cap, sb_err *e)
{
    /* an explicit choice that does not hold templates is an error, not a
     * reason to fall back silently to other styling */
    if (dir_opt && *dir_opt) {
        if (!has_template(dir_opt))
            return sb_errf(e, SB_EUSAGE, "--templates %s: no throughput.gp there", dir_opt);
        snprintf(out, cap, "%s", dir_opt);
        return SB_OK;
    }
    const char *env = getenv("SPRBENCH_PLOTS");
    if (env && *env) {
        if (!has_template(env))
            return sb_errf(e, SB_EUSAGE, "SPRBENCH_PLOTS=%s: no throughput.gp there", env);
        snprintf(out, cap, "%s", env);
        return SB_OK;
    }
    const char *const dirs[] = {SB_SOURCE_DIR "/plots", SB_INSTALL_PLOTS_DIR};
    for (int i = 0; i < 2; i++)
        if (has_template(dirs[i])) {
            snprintf(out, cap, "%s", dirs[i]);
            return SB_OK;
        }
    return sb_errf(e, SB_EUSAGE,
                   "no plot templates: none in %s or %s (give --templates DIR or SPRBENCH_PLOTS)",
                   dirs[0], dirs[1]);
}

/* ---- the template language ----
 *
 * A template line is cut into tokens by gnuplot's own rules (what its
 * scanner takes for a name, a number, a string, a comment), then read
 * against a grammar that names everything allowed: set and unset of the
 * options below, each keyword spelled out (gnuplot takes `set o` for
 * `set output`: an abbreviation is not in the list, so it is refused), and
 * plot of sprbench's own clauses. No construct that computes a string is in
 * it (no function call, no `[a:b]` substring, no variable, no ternary), so a
 * literal of a template is exactly what it reads as, and no file name or
 * command can be built from one. */

static int is_alpha(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static int is_digit(int c) { return c >= '0' && c <= '9'; }
static int is_word_char(int c) { return is_alpha(c) || is_digit(c) || c == '_'; }

/* the options a template may set or unset, spelled out */
static const char *const g_options[] = {
    "title",     "xlabel",    "ylabel",    "x2label",  "y2label",   "key",     "grid",
    "xtics",     "ytics",     "x2tics",    "y2tics",   "mxtics",    "mytics",  "tics",
    "logscale",  "xrange",    "yrange",    "x2range",  "y2range",   "lmargin", "rmargin",
    "tmargin",   "bmargin",   "multiplot", "style",    "boxwidth",  "border",  "bars",
    "pointsize", "xzeroaxis", "yzeroaxis", "zeroaxis", "autoscale", "offsets", "label",
    "linetype",  "size",      NULL};
static const char *const g_range_options[] = {"xrange", "yrange", "x2range", "y2range", NULL};

/* the keywords an option may take: none opens, runs or reads anything */
static const char *const g_words[] = {
    "x",           "y",          "x2",          "y2",          "xy",         "below",
    "above",       "over",       "under",       "left",        "right",      "center",
    "top",         "bottom",     "inside",      "outside",     "horizontal", "vertical",
    "maxcols",     "maxrows",    "box",         "nobox",       "opaque",     "noopaque",
    "reverse",     "noreverse",  "invert",      "noinvert",    "samplen",    "spacing",
    "width",       "height",     "Left",        "Right",       "autotitle",  "noautotitle",
    "font",        "title",      "offset",      "textcolor",   "tc",         "rgb",
    "lt",          "lc",         "lw",          "linewidth",   "linecolor",  "linetype",
    "dt",          "dashtype",   "pt",          "pointtype",   "ps",         "pointsize",
    "ls",          "linestyle",  "line",        "rotate",      "by",         "norotate",
    "parallel",    "mirror",     "nomirror",    "in",          "out",        "scale",
    "border",      "noborder",   "front",       "back",        "axis",       "autojustify",
    "solid",       "fill",       "transparent", "pattern",     "empty",      "data",
    "histogram",   "lines",      "points",      "linespoints", "boxes",      "errorbars",
    "yerrorlines", "yerrorbars", "xerrorbars",  "impulses",    "steps",      "fsteps",
    "histeps",     "dots",       "clustered",   "gap",         "rowstacked", "columnstacked",
    "absolute",    "relative",   "ratio",       "square",      "nosquare",   "noratio",
    "small",       "large",      "fullwidth",   "layout",      "rowsfirst",  "columnsfirst",
    "downwards",   "upwards",    "margins",     "screen",      "graph",      "first",
    "second",      "character",  "at",          "xtics",       "ytics",      "x2tics",
    "y2tics",      "mxtics",     "mytics",      "default",     "fix",        "fixmin",
    "fixmax",      "noextend",   NULL};

static int in_list(const char *const *list, const char *w, size_t n)
{
    for (int i = 0; list[i]; i++)
        if (strlen(list[i]) == n && !strncmp(list[i], w, n)) return 1;
    return 0;
}

static const char *refuse(sb_gp_line *L, const char *why, const char *l, size_t at, size_t len)
{
    if (len > 24) len = 24;
    int printable = 1;
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)l[at + i] < 0x20 || (unsigned char)l[at + i] >= 0x7f) printable = 0;
    /* a long reason is cut, not an error: the line number says where */
    int w = len && printable
        ? snprintf(L->why, sizeof L->why, "%s (at '%.*s')", why, (int)len, l + at)
        : snprintf(L->why, sizeof L->why, "%s", why);
    if (w < 0) L->why[0] = '\0';
    return L->why;
}

/* A string token of the template at l[i] (a quote). Returns its length, 0
 * with L->why set when it is refused. */
static size_t scan_string(sb_gp_line *L, const char *l, size_t n, size_t i)
{
    char q = l[i];
    size_t j = i + 1;
    for (;; j++) {
        if (j >= n) return refuse(L, "a string left open", l, i, 1), 0;
        unsigned char c = (unsigned char)l[j];
        if (c < 0x20 || c == 0x7f) return refuse(L, "a control character in a string", l, i, 0), 0;
        if (c == '{' && j + 1 < n && l[j + 1] == '{')
            return refuse(L,
                          "a placeholder inside a quoted string (its value would be read as "
                          "gnuplot code; write {{name}} outside the quotes)",
                          l, j, 2),
                   0;
        if (c == (unsigned char)q) break;
        if (q == '"') {
            /* backquotes run commands inside "...", and escapes change what
             * the string holds: only \n and \t are taken */
            if (c == '`' || c == '@' || c == '$')
                return refuse(L, "` @ or $ in a double-quoted string", l, j, 1), 0;
            if (c == '\\') {
                if (j + 1 < n && (l[j + 1] == 'n' || l[j + 1] == 't')) {
                    j++;
                    continue;
                }
                return refuse(L, "a backslash in a double-quoted string other than \\n or \\t", l,
                              j, 2),
                       0;
            }
        }
    }
    if (q == '\'' && j + 1 < n && l[j + 1] == '\'')
        return refuse(L,
                      "a quote inside a '...' string (gnuplot 5.4 reads '' differently by "
                      "position; use \"...\" for text with a quote)",
                      l, i, j + 2 - i),
               0;
    size_t bad;
    if (sb_text_chars(l + i, j + 1 - i, &bad) < 0)
        return refuse(L, "a string that is not UTF-8", l, i, 0), 0;
    size_t k = i + 1;
    while (k < j && l[k] == ' ') k++;
    if (k < j && (l[k] == '<' || l[k] == '|'))
        return refuse(L, "a string starting with < or | (a command)", l, i, j + 1 - i), 0;
    return j + 1 - i;
}

/* Cuts l[0..n) into tokens as gnuplot's scanner would. NULL when every
 * byte is one of the template language's. */
static const char *tokenize(sb_gp_line *L, const char *l, size_t n)
{
    L->n = 0;
    L->nh = 0;
    L->why[0] = '\0';
    int spaced = 1;
    for (size_t i = 0; i < n;) {
        unsigned char c = (unsigned char)l[i];
        if (c == ' ' || c == '\t' || (c == '\r' && i + 1 == n)) {
            spaced = 1;
            i++;
            continue;
        }
        if (c == '#') break; /* gnuplot's comment, outside strings */
        if (L->n == SB_GP_LINE_TOKENS) return refuse(L, "a line too long", l, 0, 0);
        sb_gp_tok *t = &L->t[L->n];
        t->at = i;
        t->spaced = spaced;
        spaced = 0;
        if (c == '{' && i + 1 < n && l[i + 1] == '{') {
            size_t j = i + 2;
            while (j < n && (is_word_char((unsigned char)l[j]))) j++;
            if (j == i + 2 || j + 1 >= n || l[j] != '}' || l[j + 1] != '}')
                return refuse(L, "a {{ that is not a {{name}} placeholder", l, i, j + 2 - i);
            t->kind = SB_GP_TK_HOLE;
            t->len = j + 2 - i;
        } else if (is_alpha(c) || c == '_') {
            size_t j = i;
            while (j < n && is_word_char((unsigned char)l[j])) j++;
            if (j < n && (unsigned char)l[j] >= 0x80) /* gnuplot names take such bytes */
                return refuse(L, "a name with a byte outside ASCII", l, i, j - i);
            t->kind = SB_GP_TK_WORD;
            t->len = j - i;
        } else if (is_digit(c) || (c == '.' && i + 1 < n && is_digit((unsigned char)l[i + 1]))) {
            size_t j = i;
            while (j < n && is_digit((unsigned char)l[j])) j++;
            if (j < n && l[j] == '.') {
                j++;
                while (j < n && is_digit((unsigned char)l[j])) j++;
            }
            if (j < n && (l[j] == 'e' || l[j] == 'E')) {
                size_t k = j + 1;
                if (k < n && (l[k] == '+' || l[k] == '-')) k++;
                if (k >= n || !is_digit((unsigned char)l[k]))
                    return refuse(L, "a malformed number", l, i, k - i);
                while (k < n && is_digit((unsigned char)l[k])) k++;
                j = k;
            }
            if (j < n && (is_word_char((unsigned char)l[j]) || l[j] == '.'))
                return refuse(L, "a number glued to a name or a dot", l, i, j + 1 - i);
            t->kind = SB_GP_TK_NUM;
            t->len = j - i;
        } else if (c == '\'' || c == '"') {
            size_t len = scan_string(L, l, n, i);
            if (!len) return L->why;
            t->kind = SB_GP_TK_STR;
            t->len = len;
        } else if (strchr(",:[].-+*", c) && c) {
            t->kind = SB_GP_TK_PUNCT;
            t->len = 1;
        } else {
            return refuse(L,
                          c >= 0x80 ? "a byte outside ASCII outside a string"
                                    : "a character outside the template language (only "
                                      ", : [ ] . - + * between names, numbers and strings)",
                          l, i, 1);
        }
        /* two values side by side with nothing between are one token to
         * gnuplot, or two to this reader: a placeholder's value must stay
         * one whole literal or number */
        if (L->n && !t->spaced && t->kind != SB_GP_TK_PUNCT &&
            L->t[L->n - 1].kind != SB_GP_TK_PUNCT)
            return refuse(L, "two names, numbers, strings or placeholders glued together", l,
                          L->t[L->n - 1].at, i + t->len - L->t[L->n - 1].at);
        i += t->len;
        L->n++;
    }
    return NULL;
}

static int tok_is(const char *l, const sb_gp_tok *t, sb_gp_tk_kind k, const char *s)
{
    return t->kind == k && (!s || (strlen(s) == t->len && !strncmp(l + t->at, s, t->len)));
}

static const char *add_hole(sb_gp_line *L, const char *l, const sb_gp_tok *t, sb_gp_role role)
{
    if (L->nh == SB_GP_LINE_HOLES) return refuse(L, "too many placeholders on a line", l, 0, 0);
    L->h[L->nh].at = t->at;
    L->h[L->nh].len = t->len;
    L->h[L->nh].role = role;
    L->nh++;
    return NULL;
}

/* One bound of a range, [bound:bound]: * (automatic), a number with its
 * sign, a numeric placeholder, or nothing. Returns the next token. */
static int range_bound(sb_gp_line *L, const char *l, int i, const char **why)
{
    const sb_gp_tok *t = L->t;
    if (i < L->n && tok_is(l, &t[i], SB_GP_TK_PUNCT, "*")) return i + 1;
    if (i < L->n &&
        (tok_is(l, &t[i], SB_GP_TK_PUNCT, "-") || tok_is(l, &t[i], SB_GP_TK_PUNCT, "+"))) {
        if (i + 1 >= L->n || t[i + 1].kind != SB_GP_TK_NUM) {
            *why = refuse(L, "a sign not before a number", l, t[i].at, 1);
            return i;
        }
        return i + 2;
    }
    if (i < L->n && t[i].kind == SB_GP_TK_NUM) return i + 1;
    if (i < L->n && t[i].kind == SB_GP_TK_HOLE) {
        *why = add_hole(L, l, &t[i], SB_GP_ROLE_NUM);
        return i + 1;
    }
    return i;
}

/* NULL when l[0..n) is a line of the template language; its placeholders
 * and the kind of value each may take are in L->h. */
const char *sb_gp_check_line(sb_gp_line *L, const char *l, size_t n)
{
    const char *why = tokenize(L, l, n);
    if (why) return why;
    const sb_gp_tok *t = L->t;
    if (L->n == 0) return NULL;
    if (L->n == 1 && t[0].kind == SB_GP_TK_HOLE) return add_hole(L, l, &t[0], SB_GP_ROLE_CLAUSE);
    if (tok_is(l, &t[0], SB_GP_TK_WORD, "plot")) {
        /* what is drawn, and from where, is sprbench's: plot {{a}}, {{b}} */
        for (int i = 1; i < L->n; i += 2) {
            if (t[i].kind != SB_GP_TK_HOLE ||
                (i + 1 < L->n && !tok_is(l, &t[i + 1], SB_GP_TK_PUNCT, ",")))
                return refuse(L,
                              "a plot line other than plot {{clause}} (what is drawn, and from "
                              "where, is sprbench's)",
                              l, t[i].at, t[i].len);
            if ((why = add_hole(L, l, &t[i], SB_GP_ROLE_CLAUSE))) return why;
        }
        if (L->n < 2 || t[L->n - 1].kind != SB_GP_TK_HOLE)
            return refuse(L, "a plot line other than plot {{clause}}", l, 0, n);
        return NULL;
    }
    if (!tok_is(l, &t[0], SB_GP_TK_WORD, "set") && !tok_is(l, &t[0], SB_GP_TK_WORD, "unset"))
        return refuse(L, "a line that does not start with set, unset or plot", l, t[0].at,
                      t[0].len);
    if (L->n < 2 || t[1].kind != SB_GP_TK_WORD || !in_list(g_options, l + t[1].at, t[1].len))
        return refuse(L,
                      "an option templates may not set (options are spelled out, from the "
                      "list in plots/README.md)",
                      l, L->n < 2 ? t[0].at : t[1].at, L->n < 2 ? t[0].len : t[1].len);
    int i = 2;
    if (in_list(g_range_options, l + t[1].at, t[1].len) && i < L->n &&
        tok_is(l, &t[i], SB_GP_TK_PUNCT, "[")) {
        why = NULL;
        i = range_bound(L, l, i + 1, &why);
        if (why) return why;
        if (i >= L->n || !tok_is(l, &t[i], SB_GP_TK_PUNCT, ":"))
            return refuse(L, "a range other than [low:high]", l, t[2].at, n - t[2].at);
        i = range_bound(L, l, i + 1, &why);
        if (why) return why;
        if (i >= L->n || !tok_is(l, &t[i], SB_GP_TK_PUNCT, "]"))
            return refuse(L, "a range other than [low:high]", l, t[2].at, n - t[2].at);
        i++;
    }
    for (; i < L->n; i++) {
        const sb_gp_tok *k = &t[i];
        switch (k->kind) {
        case SB_GP_TK_WORD:
            if (!in_list(g_words, l + k->at, k->len))
                return refuse(L,
                              "a name templates do not know (keywords are spelled out; no "
                              "variables or functions)",
                              l, k->at, k->len);
            break;
        case SB_GP_TK_NUM:
        case SB_GP_TK_STR: break;
        case SB_GP_TK_HOLE:
            if ((why = add_hole(L, l, k, SB_GP_ROLE_VALUE))) return why;
            break;
        case SB_GP_TK_PUNCT: {
            char c = l[k->at];
            int prev_val = i > 0 &&
                (t[i - 1].kind == SB_GP_TK_STR || t[i - 1].kind == SB_GP_TK_HOLE);
            int next_val = i + 1 < L->n &&
                (t[i + 1].kind == SB_GP_TK_STR || t[i + 1].kind == SB_GP_TK_HOLE);
            if (c == ',' && i > 2 && !tok_is(l, &t[i - 1], SB_GP_TK_PUNCT, ",")) break;
            if ((c == '-' || c == '+') && i + 1 < L->n && t[i + 1].kind == SB_GP_TK_NUM) break;
            if (c == '.' && prev_val && next_val) break; /* string concatenation */
            return refuse(L,
                          c == '[' || c == ']' || c == ':' || c == '*'
                              ? "[ ] : or * outside an axis range (no substrings)"
                              : c == '.' ? "a . that does not join two strings"
                                         : "a sign not before a number, or a stray comma",
                          l, k->at, 1);
        }
        }
    }
    return NULL;
}

int sb_gp_template_load(const char *dir, const char *name, char **text, sb_err *e)
{
    *text = NULL;
    char path[4096];
    if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path)
        return sb_errf(e, SB_EUSAGE, "%s: path too long", dir);
    size_t len;
    int rc = sb_read_text_max(path, TEMPLATE_MAX, "plot template", text, &len, e);
    if (rc) return rc; /* the message names the file */
    sb_gp_line *L = malloc(sizeof *L);
    if (!L) {
        free(*text);
        *text = NULL;
        return sb_errf(e, SB_EFAIL, "out of memory");
    }
    int lineno = 0;
    for (const char *p = *text; *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        lineno++;
        const char *why = sb_gp_check_line(L, p, n);
        if (why) {
            rc = sb_errf(e, SB_EUSAGE, "plot template %s:%d refused: %s", path, lineno, why);
            free(*text);
            *text = NULL;
            break;
        }
        p += n + (nl ? 1 : 0);
    }
    free(L);
    return rc;
}
