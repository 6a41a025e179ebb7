#include "sb_cli.h"
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifndef SB_VERSION
#define SB_VERSION "unknown"
#endif

const char *sb_version(void) { return SB_VERSION; }

int sb_cli_report(const char *cmd, const sb_err *e)
{
    int code = e->code ? e->code : SB_EFAIL;
    fprintf(stderr, "sprbench %s: %s\n", cmd, e->msg[0] ? e->msg : "failed");
    return code;
}

int sb_cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "sprbench %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
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

int sb_parse_int_list(const char *s, long min, long max, const char *what, int *out, int cap,
                      int *count, sb_err *e)
{
    if (!s || !*s) return sb_errf(e, SB_EUSAGE, "%s: empty list", what);
    char *copy = strdup(s), *save = NULL;
    int n = 0, rc = SB_OK;
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        long v = 0;
        if ((rc = sb_parse_long(tok, min, max, what, &v, e))) break;
        if (n == cap) {
            rc = sb_errf(e, SB_EUSAGE, "%s: more than %d values", what, cap);
            break;
        }
        out[n++] = (int)v;
    }
    free(copy);
    if (!rc && n == 0) rc = sb_errf(e, SB_EUSAGE, "%s: empty list", what);
    *count = n;
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
