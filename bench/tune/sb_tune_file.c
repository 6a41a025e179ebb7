#include "sb_tune_file.h"
#include <errno.h>
#include <jansson.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sb_io.h"
#include "sb_shape.h"

#define TUNE_FILE_MAX (4 * SB_MIB)
#define TUNE_SCHEMA 1

int sb_tune_path(const char *db_path, const char *fingerprint, char *out, size_t len, sb_err *e)
{
    const char *slash = strrchr(db_path, '/');
    int w = slash
        ? snprintf(out, len, "%.*s/tune-%s.json", (int)(slash - db_path), db_path, fingerprint)
        : snprintf(out, len, "tune-%s.json", fingerprint);
    if (w < 0 || (size_t)w >= len)
        return sb_errf(e, SB_EUSAGE, "%.200s: path too long for the tune file beside it", db_path);
    return SB_OK;
}

void sb_tune_free(sb_tune_table *t)
{
    free(t->e);
    memset(t, 0, sizeof *t);
}

int sb_tune_put(sb_tune_table *t, const sb_tune_entry *x, sb_err *e)
{
    for (int i = 0; i < t->n; i++)
        if (t->e[i].cls == x->cls && !strcmp(t->e[i].kernel, x->kernel)) {
            t->e[i] = *x;
            return SB_OK;
        }
    if (t->n == t->cap) {
        int cap = t->cap ? 2 * t->cap : 16;
        sb_tune_entry *ne = realloc(t->e, sizeof *ne * (size_t)cap);
        if (!ne) return sb_errf(e, SB_EFAIL, "out of memory");
        t->e = ne;
        t->cap = cap;
    }
    t->e[t->n++] = *x;
    return SB_OK;
}

const sb_tune_entry *sb_tune_find(const sb_tune_table *t, const char *kernel, int cls)
{
    for (int i = 0; i < t->n; i++)
        if (t->e[i].cls == cls && !strcmp(t->e[i].kernel, kernel)) return &t->e[i];
    return NULL;
}

int sb_tune_count(const sb_tune_table *t, const char *kernel)
{
    int c = 0;
    for (int i = 0; i < t->n; i++) c += !kernel || !strcmp(t->e[i].kernel, kernel);
    return c;
}

int sb_tune_apply(const sb_tune_table *t, const char *kernel, sb_err *e)
{
    for (int i = 0; i < t->n; i++) {
        if (kernel && strcmp(t->e[i].kernel, kernel)) continue;
        int rc = sb_blocking_set(t->e[i].kernel, t->e[i].cls, &t->e[i].b, e);
        if (rc) return rc;
    }
    return SB_OK;
}

void sb_tune_describe(const sb_tune_table *t, const char *kernel, char *buf, size_t len)
{
    size_t w = 0;
    if (len) buf[0] = '\0';
    for (int cls = 0; cls < SB_SHAPE_CLASSES; cls++) {
        const sb_tune_entry *x = sb_tune_find(t, kernel, cls);
        if (!x) continue;
        char name[16], b[160];
        sb_shape_class_name(cls, name, sizeof name);
        sb_blocking_format(&x->b, b, sizeof b);
        int n = snprintf(buf + w, len - w, "%s%s:%s", w ? ";" : "", name, b);
        if (n < 0 || (size_t)n >= len - w) {
            buf[w] = '\0'; /* whole entries only */
            return;
        }
        w += (size_t)n;
    }
}

static int bad(sb_err *e, const char *path, int i, const char *what)
{
    if (i < 0) return sb_errf(e, SB_EUSAGE, "%.300s: %s (not a sprbench tune file?)", path, what);
    return sb_errf(e, SB_EUSAGE, "%.300s: entry %d: %s", path, i, what);
}

static int get_str(json_t *o, const char *key, char *out, size_t len)
{
    const char *s = json_string_value(json_object_get(o, key));
    if (!s || strlen(s) >= len) return -1;
    strcpy(out, s);
    return 0;
}

static int get_int(json_t *o, const char *key, int lo, int hi, int *out)
{
    json_t *v = json_object_get(o, key);
    if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi) return -1;
    *out = (int)json_integer_value(v);
    return 0;
}

static int load_entry(json_t *o, const char *path, int i, sb_tune_entry *x, sb_err *e)
{
    memset(x, 0, sizeof *x);
    char cls[16], blk[256], shape[80];
    if (!json_is_object(o)) return bad(e, path, i, "not an object");
    if (get_str(o, "kernel", x->kernel, sizeof x->kernel) || !sb_kernel_find(x->kernel))
        return bad(e, path, i, "no known \"kernel\"");
    if (get_str(o, "class", cls, sizeof cls) || (x->cls = sb_shape_class_parse(cls)) < 0)
        return bad(e, path, i, "no valid \"class\" (e.g. NN-mmm)");
    if (get_str(o, "blocking", blk, sizeof blk)) return bad(e, path, i, "no \"blocking\"");
    sb_err be = {0};
    if (sb_blocking_parse(blk, &x->b, &be)) return bad(e, path, i, be.msg);
    sb_shape y;
    sb_err se = {0};
    if (!get_str(o, "shape", shape, sizeof shape)) {
        if (sb_shape_parse(shape, SB_SHAPE_FILE, &y, &se) || !y.transa)
            return bad(e, path, i, "\"shape\" is not 'XY MxNxK'");
        x->transa = y.transa;
        x->transb = y.transb;
        x->m = y.m;
        x->n = y.n;
        x->k = y.k;
    }
    get_int(o, "threads", 0, 1 << 20, &x->threads);
    x->default_gflops = json_number_value(json_object_get(o, "default_gflops"));
    x->tuned_gflops = json_number_value(json_object_get(o, "tuned_gflops"));
    x->kept_default = json_is_true(json_object_get(o, "kept_default"));
    get_str(o, "tuned_at", x->when, sizeof x->when);
    return SB_OK;
}

int sb_tune_load(const char *path, const char *expect_fp, sb_tune_table *t, int *exists, sb_err *e)
{
    memset(t, 0, sizeof *t);
    *exists = 0;
    struct stat st;
    if (stat(path, &st) != 0 && errno == ENOENT) return SB_OK; /* not tuned */
    *exists = 1;
    char *data = NULL;
    int rc = sb_read_text_max(path, TUNE_FILE_MAX, "tune file", &data, NULL, e);
    if (rc) return rc;
    json_error_t je;
    json_t *doc = json_loads(data, 0, &je);
    free(data);
    if (!doc)
        return sb_errf(e, SB_EUSAGE, "%.300s: not valid JSON (line %d: %.100s)", path, je.line,
                       je.text);
    int schema = 0;
    json_t *entries = json_object_get(doc, "entries");
    if (!json_is_object(doc) || get_int(doc, "sprbench_tune", 1, 1000, &schema)) {
        rc = bad(e, path, -1, "no \"sprbench_tune\" schema number");
    } else if (schema != TUNE_SCHEMA) {
        rc = sb_errf(e, SB_EUSAGE, "%.300s: schema %d, this sprbench reads %d", path, schema,
                     TUNE_SCHEMA);
    } else if (get_str(doc, "fingerprint", t->fingerprint, sizeof t->fingerprint)) {
        rc = bad(e, path, -1, "no \"fingerprint\"");
    } else if (expect_fp && strcmp(expect_fp, t->fingerprint)) {
        rc = sb_errf(e, SB_EUSAGE, "%.300s: tuned on machine %s, this one is %s", path,
                     t->fingerprint, expect_fp);
    } else if (!json_is_array(entries)) {
        rc = bad(e, path, -1, "no \"entries\" array");
    } else {
        get_str(doc, "cpu", t->cpu, sizeof t->cpu);
        for (size_t i = 0; i < json_array_size(entries) && !rc; i++) {
            sb_tune_entry x;
            rc = load_entry(json_array_get(entries, i), path, (int)i, &x, e);
            if (!rc && sb_tune_find(t, x.kernel, x.cls))
                rc = bad(e, path, (int)i, "a second entry for the same kernel and class");
            if (!rc) rc = sb_tune_put(t, &x, e);
        }
    }
    json_decref(doc);
    if (rc) sb_tune_free(t);
    return rc;
}

int sb_tune_save(const char *path, const sb_tune_table *t, sb_err *e)
{
    json_t *doc = json_object(), *arr = json_array();
    json_object_set_new(doc, "sprbench_tune", json_integer(TUNE_SCHEMA));
    json_object_set_new(doc, "fingerprint", json_string(t->fingerprint));
    json_object_set_new(doc, "cpu", json_string(t->cpu));
    for (int i = 0; i < t->n; i++) {
        const sb_tune_entry *x = &t->e[i];
        char cls[16], blk[160], shape[80];
        sb_shape_class_name(x->cls, cls, sizeof cls);
        sb_blocking_format(&x->b, blk, sizeof blk);
        json_t *o = json_object();
        json_object_set_new(o, "kernel", json_string(x->kernel));
        json_object_set_new(o, "class", json_string(cls));
        json_object_set_new(o, "blocking", json_string(blk));
        if (x->m > 0) {
            snprintf(shape, sizeof shape, "%c%c %dx%dx%d", x->transa, x->transb, x->m, x->n, x->k);
            json_object_set_new(o, "shape", json_string(shape));
        }
        json_object_set_new(o, "threads", json_integer(x->threads));
        json_object_set_new(o, "default_gflops", json_real(x->default_gflops));
        json_object_set_new(o, "tuned_gflops", json_real(x->tuned_gflops));
        json_object_set_new(o, "kept_default", json_boolean(x->kept_default));
        json_object_set_new(o, "tuned_at", json_string(x->when));
        json_array_append_new(arr, o);
    }
    json_object_set_new(doc, "entries", arr);
    int rc = sb_json_write_atomic(path, doc, e);
    json_decref(doc);
    return rc;
}

void sb_tune_config_json(json_t *config, const char *tuning, const sb_tune_table *t,
                         const sb_kernel *k)
{
    if (!config || !tuning) return;
    json_object_set_new(config, "tuning", json_string(tuning));
    sb_gemm_desc d1 = {.transa = 'N', .transb = 'N', .m = 1, .n = 1, .k = 1};
    sb_blocking b;
    if (!k || !sb_kernel_blocking(k, &d1, &b)) return;
    char buf[4096] = "";
    if (t) sb_tune_describe(t, k->name, buf, sizeof buf);
    json_object_set_new(config, "blocking", json_string(buf[0] ? buf : "default"));
}
