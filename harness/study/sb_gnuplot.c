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

/* A single-quoted literal: inside '...' gnuplot 5.4 expands no `command`,
 * no @macro and no escape sequence, and '' stands for '. A line break
 * would end the command mid-literal, so whitespace controls become spaces;
 * other controls could reach the image or the terminal, so they go; bytes
 * that are not UTF-8 would make the SVG unreadable XML. as_format: gnuplot
 * will run the text through its own printf (explicit tic labels), where
 * only %% is a plain '%'. */
static void put_text(sb_gp *g, const char *s, int as_format)
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    put(g, "'", 1);
    while (*p) {
        unsigned cp;
        int n = (int)sb_text_decode((const char *)p, SIZE_MAX, &cp);
        if (n == 0) {
            put(g, "?", 1);
            p++;
            continue;
        }
        if (cp == '\n' || cp == '\r' || cp == '\t')
            put(g, " ", 1);
        else if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0)) { /* dropped */
        } else if (cp == '\'')
            put(g, "''", 2);
        else if (cp == '%' && as_format)
            put(g, "%%", 2);
        else
            put(g, p, (size_t)n);
        p += n;
    }
    put(g, "'", 1);
}

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

static int is_word_char(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* What a template may not hold outside literals: the characters and words
 * with which gnuplot runs a command, reads another file or writes one. */
static const char *template_refusal(const char *l, size_t n)
{
    static const char *const words[] = {
        "system", "output", "print",   "load",     "call",    "eval",   "shell", "terminal",
        "term",   "table",  "save",    "cd",       "exit",    "quit",   "pause", "fit",
        "reread", "import", "history", "evaluate", "refresh", "replot", NULL};
    size_t i = 0;
    while (i < n && (l[i] == ' ' || l[i] == '\t')) i++;
    if (i == n || l[i] == '#') return NULL;
    if (!strncmp(l + i, "{{", 2)) { /* a placeholder line, checked when filled */
    } else {
        size_t w = i;
        while (w < n && is_word_char((unsigned char)l[w])) w++;
        size_t wl = w - i;
        if (!((wl == 3 && !strncmp(l + i, "set", 3)) || (wl == 5 && !strncmp(l + i, "unset", 5)) ||
              (wl == 4 && !strncmp(l + i, "plot", 4))))
            return "a line that does not start with set, unset or plot";
    }
    for (; i < n; i++) {
        char c = l[i];
        if (c == '\'') { /* a single-quoted literal: '' is its only escape */
            /* a file name of '<cmd' or '|cmd' would run cmd when plotted */
            size_t k = i + 1;
            while (k < n && l[k] == ' ') k++;
            if (k < n && (l[k] == '<' || l[k] == '|'))
                return "a literal starting with < or | (a command)";
            for (i++; i < n; i++)
                if (l[i] == '\'') {
                    if (i + 1 < n && l[i + 1] == '\'')
                        i++;
                    else
                        break;
                }
            if (i >= n) return "a literal left open";
            continue;
        }
        if (c == '"') {
            if (i + 4 <= n && !strncmp(l + i, "\"\\n\"", 4)) { /* "\n", a line break in a title */
                i += 3;
                continue;
            }
            return "a double-quoted string other than \"\\n\" (use single quotes)";
        }
        if (c == '#') return NULL; /* the rest is a comment */
        if (strchr("`@!;|\\$", c))
            return "a character that runs or reads something (` @ ! ; | \\ $)";
        if (is_word_char((unsigned char)c) && (i == 0 || !is_word_char((unsigned char)l[i - 1]))) {
            size_t w = i;
            while (w < n && is_word_char((unsigned char)l[w])) w++;
            for (int k = 0; words[k]; k++)
                if (strlen(words[k]) == w - i && !strncmp(l + i, words[k], w - i))
                    return "a word that runs, reads or writes something";
            i = w - 1;
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
    int lineno = 0;
    for (const char *p = *text; *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        lineno++;
        const char *why = template_refusal(p, n);
        if (!why)
            for (size_t i = 0; i < n && !why; i++)
                if ((unsigned char)p[i] < 0x20 && p[i] != '\t' && p[i] != '\r')
                    why = "a control character";
        if (why) {
            free(*text);
            *text = NULL;
            return sb_errf(e, SB_EUSAGE, "plot template %s:%d refused: %s", path, lineno, why);
        }
        p += n + (nl ? 1 : 0);
    }
    return SB_OK;
}

int sb_gp_template_fill(sb_gp *g, const char *tmpl, const char *tmpl_name, const sb_gp_var *vars,
                        int nvars, sb_err *e)
{
    if (!g || g->misuse[0]) return sb_errf(e, SB_EFAIL, "gnuplot script refused");
    if (g->in_block) {
        misuse(g, "a template inside a data block");
        return sb_errf(e, SB_EFAIL, "gnuplot script refused: a template inside a data block");
    }
    for (const char *p = tmpl; *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        size_t lead = strspn(p, " \t");
        int skip = lead >= n || p[lead] == '#' || p[lead] == '\r';
        for (size_t i = 0; !skip && i < n;) {
            const char *open = NULL;
            for (size_t k = i; k + 1 < n; k++)
                if (p[k] == '{' && p[k + 1] == '{') {
                    open = p + k;
                    break;
                }
            if (!open) {
                size_t m = n - i;
                while (m && p[i + m - 1] == '\r') m--;
                put(g, p + i, m);
                break;
            }
            put(g, p + i, (size_t)(open - (p + i)));
            const char *close = strstr(open + 2, "}}");
            size_t nm = close && close < p + n ? (size_t)(close - open - 2) : 0;
            const sb_gp_var *v = NULL;
            for (int k = 0; nm && k < nvars && !v; k++)
                if (strlen(vars[k].name) == nm && !strncmp(vars[k].name, open + 2, nm))
                    v = &vars[k];
            if (!v) {
                misuse(g, "a template placeholder with no value");
                return sb_errf(e, SB_EUSAGE, "plot template %s: unknown placeholder %.*s",
                               tmpl_name, (int)(close && close < p + n ? close + 2 - open : 2),
                               open);
            }
            switch (v->kind) {
            case SB_GPV_TEXT: put_text(g, v->text, 0); break;
            case SB_GPV_FORMAT: put_text(g, v->text, 1); break;
            case SB_GPV_NUM: put_num(g, v->num, "%g"); break;
            case SB_GPV_CLAUSE:
                if (!v->clause || v->clause->oom || v->clause->misuse[0] || v->clause->in_block ||
                    v->clause->dlen) {
                    misuse(g, "a template clause that is not a plain fragment");
                    return sb_errf(e, SB_EFAIL, "plot template %s: bad clause for %s", tmpl_name,
                                   v->name);
                }
                if (v->clause->len) put(g, v->clause->buf, v->clause->len);
                break;
            }
            i = (size_t)(close + 2 - p);
        }
        if (!skip) put(g, "\n", 1);
        p += n + (nl ? 1 : 0);
    }
    return g->oom ? sb_errf(e, SB_EFAIL, "gnuplot script: out of memory") : SB_OK;
}
