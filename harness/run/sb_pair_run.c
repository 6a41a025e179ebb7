#include "sb_pair_run.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include "sb_kernel.h"
#include "sb_parse.h"
#include "sb_shape.h"
#include "sb_text.h"

const char *sb_pair_mode_name(sb_pair_mode m)
{
    return m == SB_PAIR_DUET ? "duet" : m == SB_PAIR_RANDOM ? "random" : "abba";
}

int sb_pair_set(sb_pair_opts *po, const char *key, const char *value, const char *where, sb_err *e)
{
    long v;
    if (!strcmp(key, "pair-mode")) {
        if (!strcmp(value, "abba"))
            po->mode = SB_PAIR_ABBA;
        else if (!strcmp(value, "random"))
            po->mode = SB_PAIR_RANDOM;
        else if (!strcmp(value, "duet"))
            po->mode = SB_PAIR_DUET;
        else
            return sb_errf(e, SB_EUSAGE, "%s: '%s' is not abba, random or duet", where, value);
        return SB_OK;
    }
    if (!strcmp(key, "pairs")) {
        char lo[32];
        const char *colon = strchr(value, ':');
        snprintf(lo, sizeof lo, "%.*s", colon ? (int)(colon - value) : 31, value);
        long b;
        if (sb_parse_long(lo, 2, 10000, where, &v, e) ||
            sb_parse_long(colon ? colon + 1 : lo, 2, 10000, where, &b, e))
            return SB_EUSAGE;
        if (b < v) return sb_errf(e, SB_EUSAGE, "%s: MAX %ld is below MIN %ld", where, b, v);
        po->min_pairs = (int)v;
        po->max_pairs = (int)b;
        return SB_OK;
    }
    if (!strcmp(key, "pair-reps")) {
        if (sb_parse_long(value, 1, 1000, where, &v, e)) return SB_EUSAGE;
        po->reps = (int)v;
        return SB_OK;
    }
    if (!strcmp(key, "pair-tolerance")) {
        char buf[64];
        size_t n = strlen(value);
        int pct = n > 0 && n < sizeof buf && value[n - 1] == '%';
        snprintf(buf, sizeof buf, "%.*s", pct ? (int)n - 1 : (int)n, value);
        double d;
        if (sb_parse_double(buf, 0, pct ? 1000 : 10, where, &d, e)) return SB_EUSAGE;
        po->tolerance = pct ? d / 100 : d;
        return SB_OK;
    }
    if (!strcmp(key, "pair-seed")) {
        if (sb_parse_long(value, 0, 0x7fffffff, where, &v, e)) return SB_EUSAGE;
        po->seed = (unsigned)v;
        return SB_OK;
    }
    return sb_errf(e, SB_EUSAGE, "%s: unknown pairing key '%.60s'", where, key);
}

/* A regular file this process may execute: what exec would run. */
static int runnable(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

int sb_pair_resolve(const char *which, const char *bin, char *out, size_t cap, sb_err *e)
{
    char found[PATH_MAX + 1] = "";
    for (const char *c = bin; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            return sb_errf(e, SB_EUSAGE, "%s: the path has control characters", which);
    if (strchr(bin, '/')) {
        if (runnable(bin)) snprintf(found, sizeof found, "%s", bin);
    } else if (*bin) {
        /* exec's search: PATH's directories in order, an empty one the current */
        const char *path = getenv("PATH");
        char def[256] = "/bin:/usr/bin";
        if (!path) {
            size_t n = confstr(_CS_PATH, def, sizeof def);
            if (n == 0 || n > sizeof def) snprintf(def, sizeof def, "/bin:/usr/bin");
            path = def;
        }
        for (const char *d = path; !found[0];) {
            const char *colon = strchr(d, ':');
            int len = colon ? (int)(colon - d) : (int)strlen(d);
            char cand[PATH_MAX + 1];
            int n = snprintf(cand, sizeof cand, "%.*s%s%s", len, d, len ? "/" : "", bin);
            if (n > 0 && (size_t)n < sizeof cand && runnable(cand))
                snprintf(found, sizeof found, "%s", cand);
            if (!colon) break;
            d = colon + 1;
        }
    }
    char real[PATH_MAX + 1];
    if (!found[0] || !realpath(found, real) || !runnable(real))
        return sb_errf(e, SB_EUSAGE, "%s: '%s' is not an executable file%s", which, bin,
                       strchr(bin, '/') ? "" : " on PATH");
    if (strlen(real) >= cap)
        return sb_errf(e, SB_EUSAGE, "%s: '%s' is a path longer than %zu bytes", which, real,
                       cap - 1);
    snprintf(out, cap, "%s", real);
    return SB_OK;
}

int sb_pair_digest(const char *path, char out[17])
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    uint64_t h = 14695981039346656037ULL; /* FNV-1a, 64 bits */
    unsigned char buf[65536];
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) != 0) {
        if (n < 0) {
            if (errno == EINTR) continue;
            close(fd);
            return -1;
        }
        for (ssize_t i = 0; i < n; i++) h = (h ^ buf[i]) * 1099511628211ULL;
    }
    close(fd);
    snprintf(out, 17, "%016llx", (unsigned long long)h);
    return 0;
}

char *sb_pair_render(const sb_pair_opts *po)
{
    /* a digest line each where the file can be read (it was just resolved) */
    char dig[2][17], line[2][64] = {"", ""};
    for (int s = 0; s < 2; s++)
        if (!sb_pair_digest(s ? po->candidate : po->baseline, dig[s]))
            snprintf(line[s], sizeof line[s], "pair-%s-digest = %s\n", s ? "candidate" : "baseline",
                     dig[s]);
    const char *fmt = "pair-baseline = %s\npair-candidate = %s\n%s%spair-mode = %s\n"
                      "pairs = %d:%d\npair-reps = %d\npair-tolerance = %.10g\npair-seed = %u\n";
    int n = snprintf(NULL, 0, fmt, po->baseline, po->candidate, line[0], line[1],
                     sb_pair_mode_name(po->mode), po->min_pairs, po->max_pairs, po->reps,
                     po->tolerance, po->seed);
    char *s = n < 0 ? NULL : malloc((size_t)n + 1);
    if (s)
        snprintf(s, (size_t)n + 1, fmt, po->baseline, po->candidate, line[0], line[1],
                 sb_pair_mode_name(po->mode), po->min_pairs, po->max_pairs, po->reps, po->tolerance,
                 po->seed);
    return s;
}

static const char *const g_pair_keys[] = {"pair-baseline",
                                          "pair-candidate",
                                          "pair-baseline-digest",
                                          "pair-candidate-digest",
                                          "pair-mode",
                                          "pairs",
                                          "pair-reps",
                                          "pair-tolerance",
                                          "pair-seed",
                                          NULL};

/* One line of a stored pairing into ps. */
static int take_value(sb_pair_stored *ps, const char *key, const char *value, sb_err *e)
{
    if (!strcmp(key, "pair-baseline") || !strcmp(key, "pair-candidate")) {
        char *dst = key[5] == 'b' ? ps->base : ps->cand;
        if (!value[0] || strlen(value) >= sizeof ps->base)
            return sb_errf(e, SB_EUSAGE, "stored plan: %s '%.200s' is not a path", key, value);
        snprintf(dst, sizeof ps->base, "%s", value);
        return SB_OK;
    }
    if (strstr(key, "-digest")) {
        size_t n = strlen(value);
        if (n != 16 || strspn(value, "0123456789abcdef") != n)
            return sb_errf(e, SB_EUSAGE, "stored plan: %s '%.40s' is not 16 hex digits", key,
                           value);
        snprintf(ps->digest[key[5] == 'c'], sizeof ps->digest[0], "%s", value);
        return SB_OK;
    }
    char where[64];
    snprintf(where, sizeof where, "stored plan: %s", key);
    return sb_pair_set(&ps->po, key, value, where, e);
}

int sb_pair_take(char *text, sb_pair_stored *ps, int *found, sb_err *e)
{
    *found = 0;
    ps->base[0] = ps->cand[0] = ps->digest[0][0] = ps->digest[1][0] = '\0';
    char *w = text;
    int rc = SB_OK;
    for (char *line = text; *line && !rc;) {
        char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) + 1 : strlen(line);
        const char *key = NULL;
        for (int i = 0; g_pair_keys[i] && !key; i++) {
            size_t kl = strlen(g_pair_keys[i]);
            if (!strncmp(line, g_pair_keys[i], kl) && !strncmp(line + kl, " = ", 3))
                key = g_pair_keys[i];
        }
        if (!key) { /* the plan's own line, kept */
            memmove(w, line, len);
            w += len;
            line += len;
            continue;
        }
        char value[8192];
        const char *v = line + strlen(key) + 3;
        size_t vl = (nl ? (size_t)(nl - v) : strlen(v));
        if (vl >= sizeof value) vl = sizeof value - 1;
        memcpy(value, v, vl);
        value[vl] = '\0';
        line += len;
        *found = 1;
        rc = take_value(ps, key, value, e);
    }
    *w = '\0';
    if (!rc && *found && (!ps->base[0] || !ps->cand[0]))
        rc = sb_errf(e, SB_EUSAGE, "stored plan: its pairing names no %s binary",
                     ps->base[0] ? "candidate" : "baseline");
    if (!rc && *found) {
        ps->po.baseline = ps->base;
        ps->po.candidate = ps->cand;
    }
    return rc;
}

int sb_pair_still(const sb_pair_stored *ps, int side, char *why, size_t cap)
{
    const char *bin = side ? ps->cand : ps->base;
    char real[4096], dig[17];
    sb_err ie = {0};
    if (bin[0] != '/' || sb_pair_resolve("", bin, real, sizeof real, &ie)) {
        snprintf(why, cap, "is no longer an executable file");
        return -1;
    }
    if (ps->digest[side][0] && (sb_pair_digest(bin, dig) || strcmp(dig, ps->digest[side]))) {
        snprintf(why, cap,
                 "changed since the sweep began (its content differs: two builds "
                 "would share one sweep)");
        return -1;
    }
    return 0;
}

/* ---- a run's result against its point ---- */

static int refuse(char *why, size_t cap, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
#include <stdarg.h>
static int refuse(char *why, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, cap, fmt, ap);
    va_end(ap);
    return -1;
}

/* A JSON value as the document wrote it, cut short, on one line. */
static const char *shown(json_t *v, char *buf, size_t cap)
{
    if (json_is_real(v)) { /* as a person writes it, not to the last bit */
        snprintf(buf, cap, "%.6g", json_real_value(v));
        return buf;
    }
    char *s = v ? json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
    sb_text_cell(buf, cap, s ? s : "nothing", 40, 0);
    free(s);
    return buf;
}

static int same_text(json_t *doc, const char *key, const char *want, char *why, size_t cap)
{
    json_t *v = json_object_get(doc, key);
    char b[200];
    if (v && (!json_is_string(v) || strcmp(json_string_value(v), want)))
        return refuse(why, cap, "its %s %s is not the point's '%s'", key, shown(v, b, sizeof b),
                      want);
    return 0;
}

static int same_int(json_t *doc, const char *key, long long want, char *why, size_t cap)
{
    json_t *v = json_object_get(doc, key);
    char b[200];
    if (v && (!json_is_integer(v) || json_integer_value(v) != want))
        return refuse(why, cap, "its %s %s is not the point's %lld", key, shown(v, b, sizeof b),
                      want);
    return 0;
}

static int check_identity(json_t *doc, const sb_todo_point *row, const char *dtype, char *why,
                          size_t cap)
{
    if (same_text(doc, "workload", row->workload, why, cap) ||
        same_text(doc, "kernel", row->kernel, why, cap) ||
        (dtype && same_text(doc, "dtype", dtype, why, cap)) ||
        same_int(doc, "threads", row->threads, why, cap))
        return -1;
    /* a GEMM point's stored shape (a series key is none) */
    sb_shape x;
    sb_err pe = {0};
    if (!sb_shape_parse(row->shape, SB_SHAPE_PREPACK, &x, &pe)) {
        char trans[3] = {x.transa ? x.transa : 'N', x.transb ? x.transb : 'N', 0};
        if (same_int(doc, "m", x.m, why, cap) || same_int(doc, "n", x.n, why, cap) ||
            same_int(doc, "k", x.k, why, cap) || same_text(doc, "trans", trans, why, cap))
            return -1;
    }
    return 0;
}

static int check_values(json_t *doc, char *why, size_t cap)
{
    json_t *samples = json_object_get(doc, "samples"), *metrics = json_object_get(doc, "metrics");
    char b[200];
    if (!json_is_array(samples) || json_array_size(samples) == 0)
        return refuse(why, cap, "its samples are %s, not a list of seconds",
                      shown(samples, b, sizeof b));
    size_t i;
    json_t *v;
    json_array_foreach(samples, i, v)
    {
        double x = json_number_value(v);
        if (!json_is_number(v))
            return refuse(why, cap, "its samples[%zu] %s is not a number", i,
                          shown(v, b, sizeof b));
        if (!isfinite(x) || x < 1e-9 || x > 1e9)
            return refuse(why, cap, "its samples[%zu] %s is not a time in [1e-9, 1e9] s", i,
                          shown(v, b, sizeof b));
    }
    if (metrics && !json_is_object(metrics))
        return refuse(why, cap, "its metrics are not an object");
    const char *name;
    json_object_foreach(metrics, name, v)
    {
        if (!json_is_number(v)) continue; /* text and tables: kept as written */
        double x = json_number_value(v);
        char nm[200];
        sb_text_cell(nm, sizeof nm, name, 40, 0);
        if (!isfinite(x)) return refuse(why, cap, "its metric %s is not finite", nm);
        if (!strcmp(name, "gflops") && !(x > 0 && x <= 1e7))
            return refuse(why, cap, "its metric gflops %s is not a rate in (0, 1e7]",
                          shown(v, b, sizeof b));
        if ((!strcmp(name, "median_s") || !strcmp(name, "min_s") || !strcmp(name, "p90_s")) &&
            !(x >= 1e-9 && x <= 1e9))
            return refuse(why, cap, "its metric %s %s is not a time in [1e-9, 1e9] s", nm,
                          shown(v, b, sizeof b));
    }
    return 0;
}

int sb_pair_check_result(json_t *doc, const sb_todo_point *row, char *why, size_t cap)
{
    const sb_kernel *k = sb_kernel_find(row->kernel);
    const char *dtype = k ? sb_dtype_name(k->dtype) : NULL;
    if (check_identity(doc, row, dtype, why, cap) || check_values(doc, why, cap)) return -1;
    /* what the point is, the plan's words */
    json_object_set_new(doc, "workload", json_string(row->workload));
    json_object_set_new(doc, "kernel", json_string(row->kernel));
    if (dtype) json_object_set_new(doc, "dtype", json_string(dtype));
    json_object_set_new(doc, "threads", json_integer(row->threads));
    return 0;
}

int sb_pair_dir_full(const char *dir)
{
    struct statvfs sv;
    if (statvfs(dir, &sv) != 0) return 0;
    double free_bytes = (double)sv.f_bavail * (double)(sv.f_frsize ? sv.f_frsize : sv.f_bsize);
    return free_bytes < 1024.0 * 1024.0 || (sv.f_files > 0 && sv.f_favail == 0);
}
