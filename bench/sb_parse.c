#include "sb_parse.h"
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

int sb_parse_double(const char *s, double min, double max, const char *what, double *out, sb_err *e)
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
        if (np == 3) {
            np = 4;
            break;
        }
        parts[np++] = t;
    }
    if (np != 3) return sb_errf(e, SB_EUSAGE, "shape: '%s' is not MxNxK", s);
    long v[3] = {0, 0, 0};
    for (int i = 0; i < 3; i++) {
        int rc = sb_parse_long(parts[i], 1, max, "shape dimension", &v[i], e);
        if (rc) return rc;
    }
    *m = (int)v[0];
    *n = (int)v[1];
    *k = (int)v[2];
    return SB_OK;
}
