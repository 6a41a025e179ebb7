/* libFuzzer: the gnuplot script writer (sb_gnuplot) on arbitrary titles,
 * tic labels, data-block names, numbers, terminals and sizes. Crashing is
 * not the only failure: every script the writer accepts goes through an
 * independent checker (written here, sharing no code with the writer) that
 * knows what gnuplot 5.4 executes:
 *  - strings are read as gnuplot 5.4's scanner reads them (found by
 *    experiment, plots/README.md): in '...', '' is a quote only right after
 *    another character of the string, so '''x' is the string '' then 'x';
 *    in "...", a backslash takes the next character along and a backquote
 *    runs a command. A string must close on its line, hold no control
 *    character and no backquote, and never stand right beside another
 *    string: two literals side by side are one text split in two, the
 *    sign that the writer's quoting and gnuplot's disagree;
 *  - outside literals, only the characters and words of the plots' own
 *    vocabulary: no backquote, @, !, ;, |, =, backslash, and no word like
 *    system, load, call, eval, print, output, shell (the vocabulary is a
 *    list of what is allowed, so anything new is refused until named);
 *  - each line starts with set, unset or plot, or opens a data block;
 *    data-block lines are numbers only until the EOD line, and every block
 *    is closed;
 *  - the first line is the terminal, noenhanced, and no output is named.
 * Then two properties that tie the script to its inputs: the same calls with
 * every text replaced by "x" give the same script once literal contents are
 * blanked (text never changes the commands), and each literal reads back as
 * its text (exactly, for printable text; as valid UTF-8 without controls,
 * otherwise; with % doubled where gnuplot reads a format).
 * tests/test_results_gnuplot.c includes this file: it runs the entry point
 * on pseudo-random inputs in ctest, tests the checker on scripts it must
 * refuse, and checks the scripts `sprbench plot` and `report` really send. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sb_gnuplot.h"

/* ---- the checker ---- */

static int gpc_alpha(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static int gpc_digit(int c) { return c >= '0' && c <= '9'; }

/* the plots' vocabulary outside literals */
static const char *const gpc_words[] = {
    "set", "unset", "plot", "terminal", "svg", "pngcairo", "size", "dynamic", "noenhanced", "font",
    "background", "title", "xlabel", "ylabel", "key", "outside", "right", "top", "center",
    "horizontal", "grid", "xrange", "yrange", "xtics", "ytics", "style", "data", "yerrorlines",
    "using", "with", "lw", "pt", "ps", "linespoints", "points", "dt", "lc", "rgb", "lmargin",
    "rmargin", "multiplot", "layout", "logscale", "x", "y", "histogram", "clustered", "gap", "fill",
    "solid", "border", "boxwidth", "rotate", "by", "left", "NaN",
    /* plots/ templates: legends under the data, peak and ideal lines, error bars */
    "below", "maxcols", "lines", "notitle", "errorbars",
    /* inference: accuracy bars per kernel, precisions named on the top axis */
    "boxes", "x2range", "x2tics", "nomirror",
    /* the report's dot plot: rows of dots with horizontal spreads, on a log x */
    "xerrorbars", "mxtics", "bottom", "xlabel", NULL};

static int gpc_known_word(const char *w, size_t n)
{
    for (int i = 0; gpc_words[i]; i++)
        if (strlen(gpc_words[i]) == n && !memcmp(gpc_words[i], w, n)) return 1;
    return 0;
}

/* A number as the writer prints one: digits with an optional fraction and
 * exponent, or NaN (checked as a word). Returns its length, 0 if none. */
static size_t gpc_number(const char *s)
{
    size_t i = 0;
    if (s[i] == '-') i++;
    size_t d0 = i;
    while (gpc_digit(s[i])) i++;
    if (s[i] == '.') {
        i++;
        while (gpc_digit(s[i])) i++;
    }
    if (i == d0 || (i == d0 + 1 && s[d0] == '.')) return 0;
    if (s[i] == 'e' || s[i] == 'E') {
        size_t j = i + 1;
        if (s[j] == '+' || s[j] == '-') j++;
        if (!gpc_digit(s[j])) return 0;
        while (gpc_digit(s[j])) j++;
        i = j;
    }
    return i;
}

static int gpc_data_line(const char *l, size_t n)
{
    size_t i = 0;
    if (n == 0) return 0;
    while (i < n) {
        size_t k = !strncmp(l + i, "NaN", 3) ? 3 : gpc_number(l + i);
        if (k == 0 || i + k > n) return 0;
        i += k;
        if (i < n) {
            if (l[i] != ' ') return 0;
            i++;
            if (i == n) return 0;
        }
    }
    return 1;
}

static int gpc_block_start(const char *l, size_t n)
{
    if (n < 9 || l[0] != '$' || !gpc_alpha(l[1])) return 0;
    size_t i = 2;
    while (i < n && (gpc_alpha(l[i]) || gpc_digit(l[i]) || l[i] == '_')) i++;
    return n - i == 7 && !memcmp(l + i, " << EOD", 7);
}

/* The end of the string token that opens at s[i] (a quote), read the way
 * gnuplot 5.4's scanner reads it (scanner.c): the index just past its
 * closing quote, or 0 when it is not closed within s[0..n). *bq is set when
 * a "..." string holds a backquote (a command gnuplot runs). */
static size_t gpc_string_end(const char *s, size_t n, size_t i, int *bq)
{
    char q = s[i];
    size_t j = i;
    *bq = 0;
    for (;;) {
        j++;
        if (j >= n) return 0;
        if (s[j] == q) return j + 1;
        if (q == '\'' && j + 2 < n && s[j + 1] == '\'' && s[j + 2] == '\'')
            j += 2; /* a character, then '' : an escaped quote */
        else if (q == '"' && s[j] == '\\' && j + 1 < n)
            j++;
        else if (q == '"' && s[j] == '`')
            *bq = 1;
    }
}

/* What gnuplot makes of the string token s[0..n) (quotes included): '' in
 * '...' is ', and in "..." its escapes (util.c parse_esc): \\ \" \n \t \r,
 * octal (four digits at most after a 0, else three), any other character
 * after a backslash stands for itself. Caller frees. */
static char *gpc_string_value(const char *s, size_t n)
{
    char *o = malloc(n + 1), *w = o;
    if (!o) abort();
    if (s[0] == '\'') {
        for (size_t i = 1; i + 1 < n; i++) {
            *w++ = s[i];
            if (s[i] == '\'' && s[i + 1] == '\'') i++;
        }
    } else {
        for (size_t i = 1; i + 1 < n; i++) {
            if (s[i] != '\\') {
                *w++ = s[i];
                continue;
            }
            char c = s[++i];
            if (c == 'n')
                *w++ = '\n';
            else if (c == 't')
                *w++ = '\t';
            else if (c == 'r')
                *w++ = '\r';
            else if (c >= '0' && c <= '7') {
                int max = c == '0' ? 4 : 3, v = 0, k = 0;
                while (k < max && i + 1 < n && s[i] >= '0' && s[i] <= '7') {
                    v = v * 8 + (s[i] - '0');
                    i++;
                    k++;
                }
                i--;
                *w++ = (char)v;
            } else
                *w++ = c;
        }
    }
    *w = '\0';
    return o;
}

/* NULL when the script is inert, else what is wrong (static text plus the
 * line number in *line). */
static const char *sb_gpcheck_script(const char *script, int *line)
{
    int in_block = 0, lineno = 0;
    const char *p = script;
    *line = 0;
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        *line = ++lineno;
        if (!nl) return "the last line has no newline";
        if (in_block) {
            if (n == 3 && !memcmp(p, "EOD", 3))
                in_block = 0;
            else if (!gpc_data_line(p, n))
                return "a data-block line that is not numbers";
            p = nl + 1;
            continue;
        }
        if (gpc_block_start(p, n)) {
            if (lineno == 1) return "the first line is not the terminal";
            in_block = 1;
            p = nl + 1;
            continue;
        }
        /* a command: walk it, literals apart */
        int words = 0, first_ok = 0;
        for (size_t i = 0; i < n;) {
            unsigned char c = (unsigned char)p[i];
            if (c == '\'' || c == '"') {
                int bq;
                size_t end = gpc_string_end(p, n, i, &bq);
                if (!end) return "a string not closed on its line";
                if (bq) return "a backquote (a command) in a double-quoted string";
                for (size_t j = i + 1; j + 1 < end; j++)
                    if ((unsigned char)p[j] < 0x20 || p[j] == 0x7f)
                        return "a control character in a string";
                size_t k = end;
                while (k < n && p[k] == ' ') k++;
                if (k < n && (p[k] == '\'' || p[k] == '"'))
                    return "two strings side by side (a literal split in two)";
                i = end;
                continue;
            }
            if (gpc_alpha(c) || c == '_') {
                size_t j = i;
                while (j < n && (gpc_alpha(p[j]) || gpc_digit(p[j]) || p[j] == '_')) j++;
                if (!gpc_known_word(p + i, j - i)) return "a word outside the plots' vocabulary";
                if (words++ == 0)
                    first_ok = (j - i == 3 && (!memcmp(p + i, "set", 3))) ||
                        (j - i == 5 && !memcmp(p + i, "unset", 5)) ||
                        (j - i == 4 && !memcmp(p + i, "plot", 4));
                if (words == 1 && !first_ok) return "a command that is not set, unset or plot";
                i = j;
                continue;
            }
            if (words == 0 && c != ' ') return "a command that does not start with a word";
            if (gpc_digit(c) || c == '.') {
                size_t k = gpc_number(p + i);
                if (k == 0) {
                    if (c != '.') return "a malformed number";
                    i++; /* string concatenation */
                    continue;
                }
                /* a number glued to a word would be a different token */
                if (i + k < n && (gpc_alpha(p[i + k]) || p[i + k] == '_'))
                    return "a number glued to a word";
                i += k;
                continue;
            }
            if (c == '$') {
                size_t j = i + 1;
                if (!gpc_alpha(p[j])) return "a $ that names no data block";
                while (j < n && (gpc_alpha(p[j]) || gpc_digit(p[j]) || p[j] == '_')) j++;
                i = j;
                continue;
            }
            if (!strchr(" ,:[]()*-", c))
                return "a character outside literals that gnuplot may act on";
            i++;
        }
        if (lineno == 1) {
            if (strncmp(p, "set terminal ", 13) || !memmem(p, n, " noenhanced ", 12))
                return "the first line is not a noenhanced terminal";
        } else if (n >= 12 && !strncmp(p, "set terminal", 12)) {
            return "a second terminal";
        }
        p = nl + 1;
    }
    if (lineno == 0) return "an empty script";
    if (in_block) return "a data block left open";
    return NULL;
}

/* The script with every single-quoted literal's content removed: what
 * gnuplot executes, independent of the text shown. Caller frees. */
static char *sb_gpcheck_blank(const char *s)
{
    char *o = malloc(strlen(s) + 1), *w = o;
    if (!o) abort();
    int in_block = 0;
    const char *line = s;
    for (const char *p = s; *p;) {
        if (p == line) {
            const char *nl = strchr(p, '\n');
            size_t n = nl ? (size_t)(nl - p) : strlen(p);
            if (gpc_block_start(p, n) || in_block) {
                in_block = !(in_block && n == 3 && !memcmp(p, "EOD", 3));
                memcpy(w, p, n + (nl != NULL));
                w += n + (nl != NULL);
                p += n + (nl != NULL);
                line = p;
                continue;
            }
        }
        if (*p == '\'' || *p == '"') {
            const char *eol = strchr(p, '\n');
            size_t n = eol ? (size_t)(eol - p) : strlen(p);
            int bq;
            size_t end = gpc_string_end(p, n, 0, &bq);
            if (!end) end = n; /* not closed: the rest of the line */
            *w++ = *p;
            *w++ = *p;
            p += end;
            continue;
        }
        if (*p == '\n') line = p + 1;
        *w++ = *p++;
    }
    *w = '\0';
    return o;
}

/* The contents of the literals after the first line, in order, as gnuplot
 * reads them (gpc_string_value). Returns how many; each out[i] is malloc'd. */
static int sb_gpcheck_literals(const char *s, char **out, int max)
{
    int k = 0, in_block = 0;
    const char *p = strchr(s, '\n');
    if (!p) return 0;
    p++;
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        if (in_block || gpc_block_start(p, n)) {
            in_block = !(in_block && n == 3 && !memcmp(p, "EOD", 3));
        } else {
            for (size_t i = 0; i < n; i++) {
                if (p[i] != '\'' && p[i] != '"') continue;
                int bq;
                size_t end = gpc_string_end(p, n, i, &bq);
                if (!end) end = n;
                /* "\n" is the writer's own line break between literals */
                if (!(end - i == 4 && !memcmp(p + i, "\"\\n\"", 4))) {
                    char *lit = gpc_string_value(p + i, end - i);
                    if (k < max)
                        out[k++] = lit;
                    else
                        free(lit);
                }
                i = end - 1;
            }
        }
        if (!nl) break;
        p = nl + 1;
    }
    return k;
}

/* 1 when s is UTF-8 as the standard defines it (written apart from the
 * writer's decoder on purpose: a table of lead-byte ranges). */
static int gpc_utf8(const unsigned char *s)
{
    while (*s) {
        unsigned c = *s;
        int n;
        unsigned lo = 0x80, hi = 0xbf;
        if (c <= 0x7f) {
            s++;
            continue;
        } else if (c >= 0xc2 && c <= 0xdf)
            n = 1;
        else if (c == 0xe0) {
            n = 2;
            lo = 0xa0;
        } else if (c == 0xed) {
            n = 2;
            hi = 0x9f;
        } else if (c >= 0xe1 && c <= 0xef)
            n = 2;
        else if (c == 0xf0) {
            n = 3;
            lo = 0x90;
        } else if (c == 0xf4) {
            n = 3;
            hi = 0x8f;
        } else if (c >= 0xf1 && c <= 0xf3)
            n = 3;
        else
            return 0;
        if (s[1] < lo || s[1] > hi) return 0;
        for (int i = 2; i <= n; i++)
            if (s[i] < 0x80 || s[i] > 0xbf) return 0;
        s += n + 1;
    }
    return 1;
}

/* What a literal must read back as, given the text and whether gnuplot
 * reads it as a format. NULL when nothing exact is required. */
static int gpc_printable(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f) return 0;
    return 1;
}

/* 0 when the literal is a faithful, inert rendering of text. */
static const char *sb_gpcheck_literal(const char *lit, const char *text, int as_format)
{
    if (!gpc_utf8((const unsigned char *)lit)) return "a literal that is not UTF-8";
    for (const unsigned char *q = (const unsigned char *)lit; *q; q++) {
        if (*q < 0x20 || *q == 0x7f) return "a control character in a literal";
        if (*q == 0xc2 && q[1] >= 0x80 && q[1] < 0xa0) return "a C1 control in a literal";
        /* U+202A-202E, U+2066-2069, U+200E/F, U+061C: text shown reordered */
        if ((*q == 0xe2 && q[1] == 0x80 && ((q[2] >= 0xaa && q[2] <= 0xae) || q[2] == 0x8e ||
                                            q[2] == 0x8f)) ||
            (*q == 0xe2 && q[1] == 0x81 && q[2] >= 0xa6 && q[2] <= 0xa9) ||
            (*q == 0xd8 && q[1] == 0x9c))
            return "a bidi control in a literal";
    }
    if (as_format) {
        for (const char *q = lit; *q; q++) {
            if (*q != '%') continue;
            if (q[1] != '%') return "a lone % in a format literal";
            q++;
        }
    }
    if (gpc_printable(text)) {
        char *want = malloc(2 * strlen(text) + 1), *w = want;
        if (!want) abort();
        for (const char *q = text; *q; q++) {
            *w++ = *q;
            if (as_format && *q == '%') *w++ = '%';
        }
        *w = '\0';
        int same = !strcmp(want, lit);
        free(want);
        if (!same) return "printable text changed on its way into the literal";
    }
    return NULL;
}

static void gpc_fail(const char *what, const char *detail, const char *script)
{
    fprintf(stderr, "fuzz_gnuplot: %s%s%s\n--- script ---\n%s\n---\n", what, detail ? ": " : "",
            detail ? detail : "", script ? script : "(none)");
    abort();
}

#define MAX_TEXTS 64

/* libFuzzer's entry point (it declares none). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 4) return 0;
    /* terminal and size first; then records: op, length, bytes */
    const char *terms[] = {"svg", "png", "pdf", ""};
    const char *term = terms[data[0] & 3];
    int width = 16 + (data[1] << 4), height = 16 + (data[2] << 3);
    if (data[3] == 0) width = 5; /* out of range: must be refused */
    sb_gp *a = sb_gp_new(), *b = sb_gp_new();
    if (!a || !b) abort();
    char *texts[MAX_TEXTS];
    int formats[MAX_TEXTS], ntexts = 0, expect_refusal = 0, blocks = 0;
    char *prev = strdup("");
    size_t i = 4;
    while (i + 2 <= size && ntexts + 2 < MAX_TEXTS) {
        int op = data[i] % 9;
        size_t len = data[i + 1];
        i += 2;
        if (len > size - i) len = size - i;
        char *t = malloc(len + 1);
        if (!t) abort();
        memcpy(t, data + i, len);
        t[len] = '\0'; /* an embedded NUL just ends the text early, as it would in C */
        i += len;
        double v[8];
        int nv = len / 8 > 8 ? 8 : (int)(len / 8);
        memcpy(v, t, (size_t)nv * 8);
        switch (op) {
        case 0:
            sb_gp_add(a, "set title %T\n", t);
            sb_gp_add(b, "set title %T\n", "x");
            texts[ntexts] = strdup(t);
            formats[ntexts++] = 0;
            break;
        case 1:
            sb_gp_add(a, "set xtics (%F %d, %F %d)\n", t, 0, prev, 1);
            sb_gp_add(b, "set xtics (%F %d, %F %d)\n", "x", 0, "x", 1);
            texts[ntexts] = strdup(t);
            formats[ntexts++] = 1;
            texts[ntexts] = strdup(prev);
            formats[ntexts++] = 1;
            break;
        case 2:
            sb_gp_add(a, "set multiplot layout 2,1 title %T.\"\\n\".%T\n", prev, t);
            sb_gp_add(b, "set multiplot layout 2,1 title %T.\"\\n\".%T\n", "x", "x");
            texts[ntexts] = strdup(prev);
            formats[ntexts++] = 0;
            texts[ntexts] = strdup(t);
            formats[ntexts++] = 0;
            break;
        case 3: {
            char name[16];
            snprintf(name, sizeof name, "d%d", blocks++);
            for (sb_gp *g = a; g; g = g == a ? b : NULL) {
                sb_gp_block_begin(g, name);
                sb_gp_block_row(g, v, nv);
                sb_gp_block_end(g);
            }
            if (!nv) expect_refusal = 1; /* a row of nothing is misuse */
            break;
        }
        case 4:
            sb_gp_add(a, "plot $d%d using 1:2 with linespoints lw 2 pt 7 title %T, x title %T\n",
                      blocks, t, prev);
            sb_gp_add(b, "plot $d%d using 1:2 with linespoints lw 2 pt 7 title %T, x title %T\n",
                      blocks, "x", "x");
            texts[ntexts] = strdup(t);
            formats[ntexts++] = 0;
            texts[ntexts] = strdup(prev);
            formats[ntexts++] = 0;
            break;
        case 5: {                  /* the caller's block name, arbitrary: a bad one is refused */
            size_t tl = strlen(t); /* the name ends at an embedded NUL */
            int good = tl > 0 && tl <= 32 && gpc_alpha((unsigned char)t[0]);
            for (size_t k = 1; good && k < tl; k++)
                good = gpc_alpha((unsigned char)t[k]) || gpc_digit((unsigned char)t[k]) ||
                    t[k] == '_';
            double one = 1;
            for (sb_gp *g = a; g; g = g == a ? b : NULL) {
                sb_gp_block_begin(g, t);
                sb_gp_block_row(g, &one, 1);
                sb_gp_block_end(g);
            }
            if (!good) expect_refusal = 1;
            break;
        }
        case 6: {
            double x = nv ? v[0] : 0;
            sb_gp_add(a, "set xrange [0.5:%g]\nset yrange [%g:*]\n", x, -x);
            sb_gp_add(b, "set xrange [0.5:%g]\nset yrange [%g:*]\n", x, -x);
            break;
        }
        case 7: /* %s does not exist: a caller cannot splice raw text */
            sb_gp_add(a, "set ylabel %s\n", t);
            sb_gp_add(b, "set ylabel %s\n", "x");
            expect_refusal = 1;
            break;
        default:
            sb_gp_add(a, "set ylabel %T\nset key outside right\nset grid\n", t);
            sb_gp_add(b, "set ylabel %T\nset key outside right\nset grid\n", "x");
            texts[ntexts] = strdup(t);
            formats[ntexts++] = 0;
            break;
        }
        free(prev);
        prev = t;
    }
    free(prev);
    int bad_term = strcmp(term, "svg") && strcmp(term, "png");
    int bad_size = width > 20000 || height > 20000 || width < 16;
    sb_err ea = {0}, eb = {0};
    char *sa = sb_gp_script(a, term, width, height, &ea);
    char *sb = sb_gp_script(b, term, width, height, &eb);
    if (!sa != !sb)
        gpc_fail("the text decided whether the script was refused", ea.msg, sa ? sa : sb);
    if (expect_refusal || bad_term || bad_size) {
        if (sa) gpc_fail("a misused writer produced a script", NULL, sa);
    } else if (!sa) {
        gpc_fail("a well-used writer refused its script", ea.msg, NULL);
    }
    if (sa) {
        int line;
        const char *why = sb_gpcheck_script(sa, &line);
        if (why) {
            char d[64];
            snprintf(d, sizeof d, "line %d", line);
            gpc_fail(why, d, sa);
        }
        char *ba = sb_gpcheck_blank(sa), *bb = sb_gpcheck_blank(sb);
        if (strcmp(ba, bb)) gpc_fail("the text changed the commands", bb, ba);
        free(ba);
        free(bb);
        char *lits[2 * MAX_TEXTS];
        int nl = sb_gpcheck_literals(sa, lits, 2 * MAX_TEXTS);
        if (nl != ntexts) gpc_fail("literals and texts differ in number", NULL, sa);
        for (int k = 0; k < nl; k++) {
            const char *lwhy = sb_gpcheck_literal(lits[k], texts[k], formats[k]);
            if (lwhy) gpc_fail(lwhy, texts[k], sa);
            free(lits[k]);
        }
    }
    for (int k = 0; k < ntexts; k++) free(texts[k]);
    free(sa);
    free(sb);
    sb_gp_free(a);
    sb_gp_free(b);
    return 0;
}
