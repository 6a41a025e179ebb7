#include "sb_gnuplot.h"
#include "sb_text.h"
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "sb_gnuplot_tmpl.h"
#include "sb_io.h"

extern char **environ;

struct sb_gp {
    char *buf;
    size_t len, cap;
    char *dat; /* the data blocks again, as a table (sb_gp_data_text) */
    size_t dlen, dcap;
    int in_block;
    int oom;
    char misuse[160]; /* non-empty: the script must not run */
};

static const char *gnuplot_path(void)
{
    const char *p = getenv("SB_GNUPLOT");
    return p && *p ? p : "gnuplot";
}

int sb_gnuplot_available(void)
{
    const char *g = gnuplot_path();
    if (strchr(g, '/')) return access(g, X_OK) == 0;
    const char *path = getenv("PATH");
    if (!path) return 0;
    char *copy = strdup(path), *save = NULL;
    if (!copy) return 0;
    int found = 0;
    for (char *d = strtok_r(copy, ":", &save); d && !found; d = strtok_r(NULL, ":", &save)) {
        char full[4096];
        if (snprintf(full, sizeof full, "%s/%s", d, g) < (int)sizeof full)
            found = access(full, X_OK) == 0;
    }
    free(copy);
    return found;
}

/* ---- the writer ---- */

sb_gp *sb_gp_new(void) { return calloc(1, sizeof(sb_gp)); }

void sb_gp_free(sb_gp *g)
{
    if (!g) return;
    free(g->buf);
    free(g->dat);
    free(g);
}

static void grow_put(sb_gp *g, char **b, size_t *len, size_t *cap, const void *p, size_t n)
{
    if (g->oom) return;
    if (*len + n + 1 > *cap) {
        size_t c = (*cap ? *cap : 1024);
        while (c < *len + n + 1) c *= 2;
        char *nb = realloc(*b, c);
        if (!nb) {
            g->oom = 1;
            return;
        }
        *b = nb;
        *cap = c;
    }
    memcpy(*b + *len, p, n);
    *len += n;
    (*b)[*len] = '\0';
}

static void put(sb_gp *g, const void *p, size_t n) { grow_put(g, &g->buf, &g->len, &g->cap, p, n); }
static void put_dat(sb_gp *g, const char *s)
{
    grow_put(g, &g->dat, &g->dlen, &g->dcap, s, strlen(s));
}

static void put_str(sb_gp *g, const char *s) { put(g, s, strlen(s)); }

static void misuse(sb_gp *g, const char *why)
{
    if (!g->misuse[0]) snprintf(g->misuse, sizeof g->misuse, "%s", why);
}

/* Numbers as gnuplot reads them back: never "inf" or "nan", which gnuplot
 * would take for variable names in a command. */
static void put_num(sb_gp *g, double v, const char *fmt)
{
    char b[40];
    if (!isfinite(v))
        snprintf(b, sizeof b, "NaN");
    else
        snprintf(b, sizeof b, fmt, v);
    put_str(g, b);
}

/* Bidirectional controls reorder what a reader sees around them (a label
 * could show one kernel's name over another's numbers): they are dropped
 * from plots, as reports drop them. */
static int is_bidi_control(uint32_t cp)
{
    return (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069) || cp == 0x200e ||
        cp == 0x200f || cp == 0x061c;
}

/* A double-quoted literal: the one quoting gnuplot 5.4 reads the same way
 * everywhere (found by experiment, written down in plots/README.md). The
 * single-quoted form is not: there '' is an escaped quote only after
 * another character, so text that starts with a quote, or holds two
 * escaped quotes in a row, splits into several literals. Inside "...",
 * gnuplot runs `command` substitution and reads backslash escapes; so no
 * backquote, @, $, " or backslash is ever written as itself: " and \ as
 * \" and \\, the others as octal escapes (\140, \100, \0044: an escape
 * starting with 0 takes four digits, any other three, so each is written
 * whole and no digit after it can join it). A line break would end the
 * command mid-literal, so whitespace controls become spaces; other
 * controls and bidi controls could reach the image or the terminal, so
 * they go; bytes that are not UTF-8 become '?' (the SVG must stay XML).
 * as_format: gnuplot will run the text through its own printf (explicit
 * tic labels), where only %% is a plain '%'. lines: a line break is kept,
 * as the escape \n (a label of several lines). */
static void put_text_as(sb_gp *g, const char *s, int as_format, int lines)
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    put(g, "\"", 1);
    while (*p) {
        uint32_t cp;
        int n = (int)sb_text_decode((const char *)p, SIZE_MAX, &cp);
        if (n == 0) {
            put(g, "?", 1);
            p++;
            continue;
        }
        if (cp == '\n' && lines)
            put(g, "\\n", 2);
        else if (cp == '\n' || cp == '\r' || cp == '\t')
            put(g, " ", 1);
        else if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0) || is_bidi_control(cp)) { /* dropped */
        } else if (cp == '"')
            put(g, "\\\"", 2);
        else if (cp == '\\')
            put(g, "\\\\", 2);
        else if (cp == '`')
            put(g, "\\140", 4);
        else if (cp == '@')
            put(g, "\\100", 4);
        else if (cp == '$')
            put(g, "\\0044", 5);
        else if (cp == '%' && as_format)
            put(g, "%%", 2);
        else
            put(g, p, (size_t)n);
        p += n;
    }
    put(g, "\"", 1);
}

static void put_text(sb_gp *g, const char *s, int as_format) { put_text_as(g, s, as_format, 0); }

void sb_gp_add(sb_gp *g, const char *fmt, ...)
{
    if (!g || g->misuse[0]) return;
    if (g->in_block) {
        misuse(g, "a command inside a data block");
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    const char *run = fmt;
    for (const char *f = fmt; *f; f++) {
        if (*f != '%') continue;
        put(g, run, (size_t)(f - run));
        switch (f[1]) {
        case 'd': {
            char b[16];
            snprintf(b, sizeof b, "%d", va_arg(ap, int));
            put_str(g, b);
            break;
        }
        case 'g': put_num(g, va_arg(ap, double), "%g"); break;
        case 'T': put_text(g, va_arg(ap, const char *), 0); break;
        case 'F': put_text(g, va_arg(ap, const char *), 1); break;
        case '%': put(g, "%", 1); break;
        default:
            /* the argument's type is unknown: nothing after it can be read */
            misuse(g, "unknown directive in a script format");
            va_end(ap);
            return;
        }
        f++;
        run = f + 1;
    }
    put_str(g, run);
    va_end(ap);
}

void sb_gp_block_begin(sb_gp *g, const char *name)
{
    if (!g || g->misuse[0]) return;
    size_t n = name ? strlen(name) : 0;
    int ok = n > 0 && n <= 32 &&
        ((name[0] >= 'a' && name[0] <= 'z') || (name[0] >= 'A' && name[0] <= 'Z'));
    for (size_t i = 1; ok && i < n; i++)
        ok = (name[i] >= 'a' && name[i] <= 'z') || (name[i] >= 'A' && name[i] <= 'Z') ||
            (name[i] >= '0' && name[i] <= '9') || name[i] == '_';
    if (!ok || g->in_block) {
        misuse(g, ok ? "a data block inside a data block" : "a bad data block name");
        return;
    }
    put(g, "$", 1);
    put_str(g, name);
    put_str(g, " << EOD\n");
    if (g->dlen) put_dat(g, "\n\n"); /* gnuplot's index: two blank lines */
    put_dat(g, "# $");
    put_dat(g, name);
    put_dat(g, "\n");
    g->in_block = 1;
}

void sb_gp_block_row(sb_gp *g, const double *v, int n)
{
    if (!g || g->misuse[0]) return;
    if (!g->in_block || n < 1) {
        misuse(g, "a data row outside a data block");
        return;
    }
    size_t from = g->len;
    for (int i = 0; i < n; i++) {
        if (i) put(g, " ", 1);
        put_num(g, v[i], "%.10g");
    }
    put(g, "\n", 1);
    if (!g->oom) put_dat(g, g->buf + from);
}

void sb_gp_block_end(sb_gp *g)
{
    if (!g || g->misuse[0]) return;
    if (!g->in_block) {
        misuse(g, "a data block ended twice");
        return;
    }
    put_str(g, "EOD\n");
    g->in_block = 0;
}

char *sb_gp_script(const sb_gp *g, const char *term, int width, int height, sb_err *e)
{
    if (!g || g->oom) {
        sb_errf(e, SB_EFAIL, "gnuplot script: out of memory");
        return NULL;
    }
    if (g->misuse[0] || g->in_block) {
        sb_errf(e, SB_EFAIL, "gnuplot script refused: %s",
                g->misuse[0] ? g->misuse : "a data block left open");
        return NULL;
    }
    if (width < 16 || width > 20000 || height < 16 || height > 20000) {
        sb_errf(e, SB_EUSAGE, "gnuplot: image size %dx%d out of range", width, height);
        return NULL;
    }
    /* noenhanced: text from the database is shown, never read as markup */
    const char *head;
    if (term && !strcmp(term, "svg"))
        head =
            "set terminal svg size %d,%d dynamic noenhanced font 'Sans,11' background '#ffffff'\n";
    else if (term && !strcmp(term, "png"))
        head = "set terminal pngcairo size %d,%d noenhanced font 'Sans,10'\n";
    else {
        sb_errf(e, SB_EUSAGE, "gnuplot: unknown terminal (png or svg)");
        return NULL;
    }
    int n = snprintf(NULL, 0, head, width, height);
    char *s = malloc((size_t)n + g->len + 1);
    if (!s) {
        sb_errf(e, SB_EFAIL, "gnuplot script: out of memory");
        return NULL;
    }
    snprintf(s, (size_t)n + 1, head, width, height);
    if (g->len) memcpy(s + n, g->buf, g->len);
    s[(size_t)n + g->len] = '\0';
    return s;
}

/* ---- the launcher ---- */

/* gnuplot's last error line from its captured stderr, one line of text:
 * it may echo script text, so control characters go. */
static void last_error_line(FILE *err, char *buf, size_t cap)
{
    char text[8192];
    buf[0] = '\0';
    if (!err || fseek(err, 0, SEEK_SET)) return;
    size_t n = fread(text, 1, sizeof text - 1, err);
    text[n] = '\0';
    char *best = NULL;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        while (*line == ' ' || *line == '\t') line++;
        if (line[strspn(line, " ^\t\r")]) best = line; /* not a caret line */
    }
    if (!best) return;
    size_t o = 0;
    for (const unsigned char *p = (const unsigned char *)best; *p && o + 1 < cap; p++)
        if (*p >= 0x20 && *p != 0x7f) buf[o++] = (char)*p;
    buf[o] = '\0';
}

static int write_all(int fd, const char *s, size_t n)
{
    while (n) {
        ssize_t w = write(fd, s, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        s += w;
        n -= (size_t)w;
    }
    return 0;
}

int sb_gnuplot_render(const sb_gp *g, const char *term, int width, int height, const char *out_path,
                      sb_err *e)
{
    if (!sb_gnuplot_available())
        return sb_errf(e, SB_EUSAGE, "gnuplot not found on PATH (install gnuplot-nox)");
    char *script = sb_gp_script(g, term, width, height, e);
    if (!script) return e ? e->code : SB_EFAIL;
    /* The output is opened the way every output of the tool is (sb_out): a
     * symlink writes its target, a device is written in place, a regular
     * file is replaced whole or not at all; a bad path fails before gnuplot
     * runs. */
    sb_out out;
    int rc = sb_out_open(&out, out_path, e);
    if (rc) {
        free(script);
        return rc;
    }
    /* gnuplot draws to its standard output, an anonymous temp file: the path
     * never reaches gnuplot, and a failed drawing never reaches out_path */
    FILE *img = tmpfile(), *errf = tmpfile();
    int in[2] = {-1, -1};
    if (!img || pipe2(in, O_CLOEXEC)) {
        int err = errno;
        if (img) fclose(img);
        if (errf) fclose(errf);
        sb_out_abort(&out);
        free(script);
        return sb_errf(e, SB_EFAIL, "cannot prepare gnuplot's output: %s", strerror(err));
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, in[0], 0);
    posix_spawn_file_actions_adddup2(&fa, fileno(img), 1);
    if (errf)
        posix_spawn_file_actions_adddup2(&fa, fileno(errf), 2);
    else
        posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    /* --default-settings: no gnuplotrc or ~/.gnuplot, the same image everywhere */
    char *argv[] = {(char *)gnuplot_path(), (char *)"--default-settings", NULL};
    pid_t pid;
    int src = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(in[0]);
    if (src) {
        close(in[1]);
        fclose(img);
        if (errf) fclose(errf);
        sb_out_abort(&out);
        free(script);
        return sb_errf(e, SB_EUSAGE, "cannot run gnuplot: %s", strerror(src));
    }
    /* gnuplot stops reading at its first error: a closed pipe is its
     * exit status's business, not a signal for this process */
    void (*old)(int) = signal(SIGPIPE, SIG_IGN);
    write_all(in[1], script, strlen(script));
    close(in[1]);
    signal(SIGPIPE, old);
    free(script);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    struct stat st;
    int ifd = fileno(img);
    int ok = WIFEXITED(status) && WEXITSTATUS(status) == 0 && fstat(ifd, &st) == 0 &&
        st.st_size > 100;
    if (!ok) {
        char why[240];
        last_error_line(errf, why, sizeof why);
        if (errf) fclose(errf);
        fclose(img);
        sb_out_abort(&out);
        return sb_errf(e, SB_EFAIL, "gnuplot failed to draw %s%s%s", out_path, why[0] ? ": " : "",
                       why);
    }
    if (errf) fclose(errf);
    /* copy the image into the output in chunks: no size is held in memory */
    char buf[65536];
    rc = lseek(ifd, 0, SEEK_SET) == 0
        ? SB_OK
        : sb_errf(e, SB_EFAIL, "gnuplot's image: %s", strerror(errno));
    while (!rc) {
        ssize_t n = read(ifd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) rc = sb_errf(e, SB_EFAIL, "gnuplot's image: %s", strerror(errno));
        if (n <= 0) break;
        rc = sb_out_write(&out, buf, (size_t)n, e);
    }
    fclose(img);
    if (rc) {
        sb_out_abort(&out);
        return rc;
    }
    return sb_out_commit(&out, e);
}

/* ---- the figure's files beside its image ---- */

char *sb_gp_data_text(const sb_gp *g)
{
    if (!g || g->oom || g->misuse[0] || g->in_block) return NULL;
    return strdup(g->dat ? g->dat : "");
}

int sb_gp_write_script(const sb_gp *g, int width, int height, const char *path, sb_err *e)
{
    char *script = sb_gp_script(g, "png", width, height, e);
    if (!script) return e ? e->code : SB_EFAIL;
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t bl = strlen(base);
    if (bl > 3 && !strcmp(base + bl - 3, ".gp")) bl -= 3;
    /* the comment shows the file's own name: the callers' names are slugs,
     * but a line break must not end the comment all the same */
    char head[600];
    int hn = snprintf(head, sizeof head,
                      "# Drawn by sprbench; edit and draw again without it:\n"
                      "#   gnuplot %.*s.gp > %.*s.png\n"
                      "# (the terminal line below picks PNG; `set terminal svg` for SVG)\n",
                      (int)(bl > 200 ? 200 : bl), base, (int)(bl > 200 ? 200 : bl), base);
    for (int i = 0; i < hn; i++)
        if ((unsigned char)head[i] < 0x20 && head[i] != '\n') head[i] = '_';
    size_t sl = strlen(script);
    char *all = malloc((size_t)hn + sl + 1);
    if (!all) {
        free(script);
        return sb_errf(e, SB_EFAIL, "out of memory");
    }
    memcpy(all, head, (size_t)hn);
    memcpy(all + hn, script, sl + 1);
    free(script);
    int rc = sb_write_file_atomic(path, all, (size_t)hn + sl, e);
    free(all);
    return rc;
}

/* ---- filling a template ---- */

static const char *kind_name(sb_gpv_kind k)
{
    return k == SB_GPV_CLAUSE ? "a plot clause" : k == SB_GPV_NUM ? "a number" : "text";
}

int sb_gp_template_fill(sb_gp *g, const char *tmpl, const char *tmpl_name, const sb_gp_var *vars,
                        int nvars, sb_err *e)
{
    if (!g || g->misuse[0]) return sb_errf(e, SB_EFAIL, "gnuplot script refused");
    if (g->in_block) {
        misuse(g, "a template inside a data block");
        return sb_errf(e, SB_EFAIL, "gnuplot script refused: a template inside a data block");
    }
    sb_gp_line *L = malloc(sizeof *L);
    if (!L) {
        misuse(g, "out of memory");
        return sb_errf(e, SB_EFAIL, "out of memory");
    }
    int lineno = 0, rc = SB_OK;
    for (const char *p = tmpl; *p && !rc;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        lineno++;
        /* the template is read again here: a text that did not come through
         * sb_gp_template_load is checked all the same, and each placeholder
         * gets the kind of value its place takes */
        const char *why = sb_gp_check_line(L, p, n);
        if (why) {
            misuse(g, "a template line refused");
            rc = sb_errf(e, SB_EUSAGE, "plot template %s:%d refused: %s", tmpl_name, lineno, why);
            break;
        }
        if (L->n == 0) { /* blank or a comment: left out */
            p += n + (nl ? 1 : 0);
            continue;
        }
        /* a trailing comment is left out too: the line ends at its last token */
        size_t end = L->t[L->n - 1].at + L->t[L->n - 1].len;
        size_t from = 0;
        for (int k = 0; k < L->nh && !rc; k++) {
            const sb_gp_hole *h = &L->h[k];
            put(g, p + from, h->at - from);
            const char *nm = p + h->at + 2;
            size_t nml = h->len - 4;
            const sb_gp_var *v = NULL;
            for (int j = 0; j < nvars && !v; j++)
                if (strlen(vars[j].name) == nml && !strncmp(vars[j].name, nm, nml)) v = &vars[j];
            if (!v) {
                misuse(g, "a template placeholder with no value");
                rc = sb_errf(e, SB_EUSAGE, "plot template %s:%d: unknown placeholder %.*s",
                             tmpl_name, lineno, (int)h->len, p + h->at);
                break;
            }
            int fits = h->role == SB_GP_ROLE_CLAUSE ? v->kind == SB_GPV_CLAUSE
                : h->role == SB_GP_ROLE_NUM         ? v->kind == SB_GPV_NUM
                                                    : v->kind != SB_GPV_CLAUSE;
            if (!fits) {
                misuse(g, "a template placeholder in a place for another kind of value");
                rc = sb_errf(e, SB_EUSAGE, "plot template %s:%d: %.*s is %s, which cannot go there",
                             tmpl_name, lineno, (int)h->len, p + h->at, kind_name(v->kind));
                break;
            }
            switch (v->kind) {
            case SB_GPV_TEXT: put_text(g, v->text, 0); break;
            case SB_GPV_LINES: put_text_as(g, v->text, 0, 1); break;
            case SB_GPV_FORMAT: put_text(g, v->text, 1); break;
            case SB_GPV_NUM: put_num(g, v->num, "%g"); break;
            case SB_GPV_CLAUSE:
                if (!v->clause || v->clause->oom || v->clause->misuse[0] || v->clause->in_block ||
                    v->clause->dlen) {
                    misuse(g, "a template clause that is not a plain fragment");
                    rc = sb_errf(e, SB_EFAIL, "plot template %s: bad clause for %s", tmpl_name,
                                 v->name);
                    break;
                }
                if (v->clause->len) put(g, v->clause->buf, v->clause->len);
                break;
            }
            from = h->at + h->len;
        }
        if (rc) break;
        put(g, p + from, end - from);
        put(g, "\n", 1);
        p += n + (nl ? 1 : 0);
    }
    free(L);
    if (rc) return rc;
    return g->oom ? sb_errf(e, SB_EFAIL, "gnuplot script: out of memory") : SB_OK;
}
