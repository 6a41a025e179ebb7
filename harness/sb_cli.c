#include "sb_cli.h"
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifndef SB_VERSION
#define SB_VERSION "unknown"
#endif

const char *sb_version(void) { return SB_VERSION; }

/* Messages quote paths, plan values, gnuplot's words and database text, which
 * may hold any byte: a newline, CR or escape sequence would forge or hide
 * lines on the user's terminal or in a CI log. C0 controls and DEL become
 * '?' (a tab a space), and so do C1 controls (U+0080..U+009F, C2 80..C2 9F
 * in UTF-8), which some terminals take for CSI. */
void sb_cli_one_line(char *msg)
{
    unsigned char *r = (unsigned char *)msg, *w = r;
    while (*r) {
        if (*r == '\t') {
            *w++ = ' ';
            r++;
        } else if (*r < 0x20 || *r == 0x7f) {
            *w++ = '?';
            r++;
        } else if (r[0] == 0xc2 && r[1] >= 0x80 && r[1] <= 0x9f) {
            *w++ = '?';
            r += 2;
        } else {
            *w++ = *r++;
        }
    }
    *w = '\0';
}

int sb_cli_report(const char *cmd, const sb_err *e)
{
    int code = e->code ? e->code : SB_EFAIL;
    char line[sizeof e->msg];
    snprintf(line, sizeof line, "%s", e->msg[0] ? e->msg : "failed");
    sb_cli_one_line(line);
    fprintf(stderr, "sprbench %s: %s\n", cmd, line);
    return code;
}

int sb_cli_usage_error(const char *cmd, const char *fmt, ...)
{
    char line[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    sb_cli_one_line(line);
    fprintf(stderr, "sprbench %s: %s\n", cmd, line);
    return SB_EUSAGE;
}

int sb_parse_long(const char *s, long min, long max, const char *what, long *out, sb_err *e)
{
    if (!s || !*s) return sb_errf(e, SB_EUSAGE, "%s: missing value", what);
    errno = 0;
    char *end;
    long v = strtol(s, &end, 10);
    if (errno || *end || end == s)
        return sb_errf(e, SB_EUSAGE, "%s: '%s' is not a whole number", what, s);
    if (v < min || v > max)
        return sb_errf(e, SB_EUSAGE, "%s: %ld is out of range [%ld, %ld]", what, v, min, max);
    *out = v;
    return SB_OK;
}

int sb_parse_double(const char *s, double min, double max, const char *what, double *out,
                    sb_err *e)
{
    if (!s || !*s) return sb_errf(e, SB_EUSAGE, "%s: missing value", what);
    errno = 0;
    char *end;
    double v = strtod(s, &end);
    if (errno || *end || end == s || !isfinite(v))
        return sb_errf(e, SB_EUSAGE, "%s: '%s' is not a number", what, s);
    if (v < min || v > max)
        return sb_errf(e, SB_EUSAGE, "%s: %g is out of range [%g, %g]", what, v, min, max);
    *out = v;
    return SB_OK;
}

/* The items of a comma-separated list, each trimmed of blanks; an empty
 * item (",," or a comma at either end) is an error, never skipped: the user
 * meant something there. *items is one malloc'd block (free it alone). */
static int split_list(const char *s, const char *what, char ***items, int *count, sb_err *e)
{
    *items = NULL;
    *count = 0;
    if (!s) s = "";
    size_t len = strlen(s);
    int n = 1;
    for (const char *c = s; *c; c++) n += *c == ',';
    char **v = malloc(sizeof *v * (size_t)n + len + 1);
    if (!v) return sb_errf(e, SB_EFAIL, "out of memory");
    char *copy = (char *)(v + n);
    memcpy(copy, s, len + 1);
    char *item = copy;
    for (int i = 0; i < n; i++) {
        char *comma = strchr(item, ',');
        if (comma) *comma = '\0';
        while (isspace((unsigned char)*item)) item++;
        size_t l = strlen(item);
        while (l && isspace((unsigned char)item[l - 1])) item[--l] = '\0';
        if (!*item) {
            free(v);
            if (n == 1) return sb_errf(e, SB_EUSAGE, "%s: empty list", what);
            return sb_errf(e, SB_EUSAGE, "%s: empty item %d of %d in '%.200s'", what, i + 1, n, s);
        }
        v[i] = item;
        item = comma ? comma + 1 : item + l;
    }
    *items = v;
    *count = n;
    return SB_OK;
}

int sb_check_list(const char *s, const char *what, sb_err *e)
{
    char **v;
    int n;
    int rc = split_list(s, what, &v, &n, e);
    if (rc) return rc;
    /* the same item twice runs the same point twice: a typo, not a wish */
    for (int i = 0; i < n && !rc; i++)
        for (int j = 0; j < i && !rc; j++)
            if (!strcmp(v[i], v[j]))
                rc = sb_errf(e, SB_EUSAGE, "%s: '%.100s' is listed twice", what, v[i]);
    free(v);
    return rc;
}

int sb_parse_int_list(const char *s, long min, long max, const char *what, int *out, int cap,
                      int *count, sb_err *e)
{
    *count = 0;
    char **v;
    int n;
    int rc = split_list(s, what, &v, &n, e);
    if (rc) return rc;
    if (n > cap) rc = sb_errf(e, SB_EUSAGE, "%s: more than %d values", what, cap);
    for (int i = 0; i < n && !rc; i++) {
        long x = 0;
        if ((rc = sb_parse_long(v[i], min, max, what, &x, e))) break;
        /* compared as numbers: "2" and "02" are one point too */
        for (int j = 0; j < i && !rc; j++)
            if (out[j] == (int)x) rc = sb_errf(e, SB_EUSAGE, "%s: %ld is listed twice", what, x);
        out[i] = (int)x;
    }
    free(v);
    if (!rc) *count = n;
    return rc;
}

int sb_parse_shape(const char *s, long max, int *m, int *n, int *k, sb_err *e)
{
    char buf[128];
    if (!s || strlen(s) >= sizeof buf)
        return sb_errf(e, SB_EUSAGE, "shape: '%s' is not MxNxK", s ? s : "");
    strcpy(buf, s);
    char *parts[3], *save = NULL;
    int np = 0;
    for (char *t = strtok_r(buf, "xX", &save); t; t = strtok_r(NULL, "xX", &save)) {
        if (np == 3) { np = 4; break; }
        parts[np++] = t;
    }
    if (np != 3) return sb_errf(e, SB_EUSAGE, "shape: '%s' is not MxNxK", s);
    long v[3] = {0, 0, 0};
    for (int i = 0; i < 3; i++) {
        int rc = sb_parse_long(parts[i], 1, max, "shape dimension", &v[i], e);
        if (rc) return rc;
    }
    *m = (int)v[0]; *n = (int)v[1]; *k = (int)v[2];
    return SB_OK;
}

double sb_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

void sb_progress_start(sb_progress *p, const char *label, long total)
{
    memset(p, 0, sizeof *p);
    p->enabled = isatty(STDERR_FILENO);
    p->total = total;
    p->t0 = sb_now();
    snprintf(p->label, sizeof p->label, "%s", label);
}

void sb_progress_update(sb_progress *p, long done, const char *extra)
{
    if (!p->enabled) return;
    double frac = p->total > 0 ? (double)done / p->total : 0;
    if (frac > 1) frac = 1;
    int width = 30, fill = (int)(frac * width);
    double el = sb_now() - p->t0;
    double eta = done > 0 ? el * (p->total - done) / done : 0;
    char bar[64];
    for (int i = 0; i < width; i++) bar[i] = i < fill ? '#' : '.';
    bar[width] = '\0';
    fprintf(stderr, "\r\033[K%s [%s] %ld/%ld %3.0f%% ETA %02d:%02d %s", p->label, bar, done,
            p->total, frac * 100, (int)(eta / 60), (int)eta % 60, extra ? extra : "");
    fflush(stderr);
}

void sb_progress_end(sb_progress *p)
{
    if (p->enabled) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
    }
}

/* ---- paths checked before the work ---- */

int sb_cli_check_path(const char *opt, const char *path, sb_err *e)
{
    /* "" would become "/config.json" or "./x" further down: never meant */
    if (!path || !*path) return sb_errf(e, SB_EUSAGE, "%s: empty path", opt);
    return SB_OK;
}

/* The directory part of path ("." when it has none). */
static void dir_of(const char *path, char *dir, size_t cap)
{
    const char *slash = strrchr(path, '/');
    if (!slash) snprintf(dir, cap, ".");
    else if (slash == path) snprintf(dir, cap, "/");
    else snprintf(dir, cap, "%.*s", (int)(slash - path), path);
}

/* Messages put the path first, as every other message about a file does
 * ("PATH: cannot write: ..."), and name the option after what failed. */

/* dir exists, is a directory, and files can be created in it. `doing` is
 * what cannot be done otherwise ("cannot write", "cannot create directory"). */
static int writable_dir(const char *opt, const char *path, const char *doing, const char *dir,
                        const char *role, sb_err *e)
{
    struct stat st;
    if (stat(dir, &st) != 0) {
        if (errno == ENOENT)
            return sb_errf(e, SB_EUSAGE, "%s: %s (%s): %s %s does not exist", path, doing, opt,
                           role, dir);
        return sb_errf(e, SB_EUSAGE, "%s: %s (%s): %s %s: %s", path, doing, opt, role, dir,
                       strerror(errno));
    }
    if (!S_ISDIR(st.st_mode))
        return sb_errf(e, SB_EUSAGE, "%s: %s (%s): %s is not a directory", path, doing, opt, dir);
    if (access(dir, W_OK | X_OK) != 0)
        return sb_errf(e, SB_EUSAGE, "%s: %s (%s): no files can be created in %s: %s", path,
                       doing, opt, dir, strerror(errno));
    return SB_OK;
}

int sb_cli_check_out_file(const char *opt, const char *path, sb_err *e)
{
    int rc = sb_cli_check_path(opt, path, e);
    if (rc) return rc;
    static const char doing[] = "cannot write";
    /* Follow symlinks as the writer (sb_out) does: a link's target is what
     * gets written, and beside its target that the temp file goes. */
    char target[4096];
    if (snprintf(target, sizeof target, "%s", path) >= (int)sizeof target)
        return sb_errf(e, SB_EUSAGE, "%s: path too long", opt);
    struct stat st;
    for (int hops = 0;; hops++) {
        if (lstat(target, &st) != 0) {
            if (errno != ENOENT)
                return sb_errf(e, SB_EUSAGE, "%s: %s (%s): %s", path, doing, opt, strerror(errno));
            char dir[4096];
            dir_of(target, dir, sizeof dir);
            return writable_dir(opt, path, doing, dir, "directory", e);
        }
        if (!S_ISLNK(st.st_mode)) break;
        if (hops == 40)
            return sb_errf(e, SB_EUSAGE, "%s: %s (%s): %s", path, doing, opt, strerror(ELOOP));
        char link[4096], next[4096];
        ssize_t n = readlink(target, link, sizeof link - 1);
        if (n < 0) return sb_errf(e, SB_EUSAGE, "%s: %s (%s): %s", path, doing, opt, strerror(errno));
        link[n] = '\0';
        const char *slash = strrchr(target, '/');
        int w = link[0] == '/' || !slash
                    ? snprintf(next, sizeof next, "%s", link)
                    : snprintf(next, sizeof next, "%.*s/%s", (int)(slash - target), target, link);
        if (w >= (int)sizeof next) return sb_errf(e, SB_EUSAGE, "%s: path too long", opt);
        memcpy(target, next, (size_t)w + 1);
    }
    if (S_ISDIR(st.st_mode))
        return sb_errf(e, SB_EUSAGE, "%s: %s (%s): is a directory", path, doing, opt);
    if (!S_ISREG(st.st_mode)) {
        /* a device or FIFO is written in place: it must take writes */
        if (access(target, W_OK) != 0)
            return sb_errf(e, SB_EUSAGE, "%s: %s (%s): %s", path, doing, opt, strerror(errno));
        return SB_OK;
    }
    char dir[4096];
    dir_of(target, dir, sizeof dir);
    return writable_dir(opt, path, doing, dir, "directory", e);
}

int sb_cli_check_out_dir(const char *opt, const char *dir, int may_create, sb_err *e)
{
    int rc = sb_cli_check_path(opt, dir, e);
    if (rc) return rc;
    struct stat st;
    if (stat(dir, &st) == 0) {
        if (!S_ISDIR(st.st_mode))
            return sb_errf(e, SB_EUSAGE, "%s: cannot write into it (%s): not a directory", dir, opt);
        if (access(dir, W_OK | X_OK) != 0)
            return sb_errf(e, SB_EUSAGE, "%s: cannot write into it (%s): %s", dir, opt,
                           strerror(errno));
        return SB_OK;
    }
    if (errno != ENOENT)
        return sb_errf(e, SB_EUSAGE, "%s: cannot write into it (%s): %s", dir, opt, strerror(errno));
    if (!may_create) return sb_errf(e, SB_EUSAGE, "%s: no such directory (%s)", dir, opt);
    /* Only the last component is created: missing parents mean a typo in
     * the path more often than a wish for a new tree. */
    char trimmed[4096], parent[4096];
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/') n--;   /* "out/" names "out" */
    if (n >= sizeof trimmed) return sb_errf(e, SB_EUSAGE, "%s: path too long", opt);
    memcpy(trimmed, dir, n);
    trimmed[n] = '\0';
    dir_of(trimmed, parent, sizeof parent);
    return writable_dir(opt, dir, "cannot create directory", parent, "parent directory", e);
}
