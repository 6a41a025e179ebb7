#include "sb_import_check.h"
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "sb_db_internal.h"
#include "sb_peak.h"
#include "sb_peak_path.h"
#include "sb_kernel.h"
#include "sb_io.h"
#include "sb_ptset.h"
#include "sb_query.h"
#include "sb_stack.h"
#include "sb_stats.h"
#include "sb_text.h"
#include "sb_workload.h"
#include "sb_vendor.h"
#include "sb_db_ingest.h"
#include "sb_export.h"
#include "sb_export_internal.h"

/* ---- import: validation ---- */

static int is_uuid(const char *s)
{
    if (strlen(s) != 32) return 0;
    for (int i = 0; i < 32; i++)
        if (!isdigit((unsigned char)s[i]) && !(s[i] >= 'a' && s[i] <= 'f')) return 0;
    return 1;
}

static int is_token(const char *s, size_t max)
{
    size_t n = strlen(s);
    if (n == 0 || n > max) return 0;
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)s[i]) && !strchr("_.:-", s[i])) return 0;
    return 1;
}

/* Checks one object's plain columns. `where` names it ("points[3]"). */
static int check_cols(json_t *o, const column *cols, int n, const char *name, const char *where,
                      sb_err *e)
{
    for (int i = 0; i < n; i++) {
        json_t *v = json_object_get(o, cols[i].name);
        if (!v || json_is_null(v)) continue;
        char *doc = NULL;
        if (cols[i].type == 'J' && (json_is_object(v) || json_is_array(v))) {
            /* held to the limits of the text it is stored as */
            doc = json_dumps(v, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
            if (!doc) return sb_errf(e, SB_EFAIL, "out of memory");
            char field[1024];
            snprintf(field, sizeof field, "%s: %s.%s", name, where, cols[i].name);
            int rc = sb_text_checkn(doc, strlen(doc), cols[i].max_chars, field, e);
            free(doc);
            if (rc) return rc;
        } else if (cols[i].type == 'T' || cols[i].type == 'J') {
            if (!json_is_string(v))
                return sb_errf(e, SB_EUSAGE, "%s: %s.%s: must be a %s", name, where, cols[i].name,
                               cols[i].type == 'J' ? "JSON object, array or string" : "string");
            char field[1024];
            snprintf(field, sizeof field, "%s: %s.%s", name, where, cols[i].name);
            int rc = sb_text_checkn(json_string_value(v), json_string_length(v), cols[i].max_chars,
                                    field, e);
            if (rc) return rc;
        } else {
            if (!json_is_integer(v))
                return sb_errf(e, SB_EUSAGE, "%s: %s.%s: must be an integer", name, where,
                               cols[i].name);
            json_int_t x = json_integer_value(v);
            if (x < cols[i].min || x > cols[i].max)
                return sb_errf(e, SB_EUSAGE,
                               "%s: %s.%s: %" JSON_INTEGER_FORMAT " is out of range [%lld, %lld]",
                               name, where, cols[i].name, x, cols[i].min, cols[i].max);
        }
    }
    return SB_OK;
}

static int check_known_keys(json_t *o, const column *cols, int n, const char *const *extra,
                            const char *name, const char *where, sb_err *e)
{
    const char *key;
    json_t *v;
    json_object_foreach(o, key, v)
    {
        int known = 0;
        for (int i = 0; i < n && !known; i++) known = !strcmp(key, cols[i].name);
        for (int i = 0; extra && extra[i] && !known; i++) known = !strcmp(key, extra[i]);
        if (!known) return sb_errf(e, SB_EUSAGE, "%s: %s: unknown field '%.64s'", name, where, key);
    }
    return SB_OK;
}

const char *sb_import_str_or_null(json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);
    return json_is_string(v) ? json_string_value(v) : NULL;
}

static int array_field(json_t *doc, const char *k, const char *name, json_t **arr, sb_err *e)
{
    *arr = json_object_get(doc, k);
    if (!json_is_array(*arr)) return sb_errf(e, SB_EUSAGE, "%s: '%s' must be an array", name, k);
    return SB_OK;
}

/* Whether `s` is the value of key `k` in one of the array's objects. */
static int listed(json_t *arr, const char *k, const char *s)
{
    size_t i;
    json_t *o;
    json_array_foreach(arr, i, o)
    {
        const char *v = sb_import_str_or_null(o, k);
        if (v && !strcmp(v, s)) return 1;
    }
    return 0;
}

static int cmp_str_ptr(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* A value quoted in a message: one line, cut to fit (sb_text_cell). */
#define QUOTE(buf, s) sb_text_cell((buf), sizeof(buf), (s), 60, 0)

/* A point's worker output: {"stdout": text, "stdout_bytes": n, "stderr":
 * text, "stderr_bytes": n}, each text at most SB_DB_LOG_BYTES bytes. */
static int check_log(json_t *lg, const char *name, const char *where, sb_err *e)
{
    if (!lg || json_is_null(lg)) return SB_OK;
    if (!json_is_object(lg) || json_object_size(lg) != 4)
        return sb_errf(e, SB_EUSAGE,
                       "%s: %s.log: not an object of stdout, stdout_bytes, stderr,"
                       " stderr_bytes",
                       name, where);
    static const char *const streams[] = {"stdout", "stderr"};
    for (int k = 0; k < 2; k++) {
        char key[32], field[1024];
        json_t *t = json_object_get(lg, streams[k]);
        snprintf(key, sizeof key, "%s_bytes", streams[k]);
        json_t *n = json_object_get(lg, key);
        snprintf(field, sizeof field, "%s: %s.log.%s", name, where, streams[k]);
        if (!json_is_string(t) || json_string_length(t) > SB_DB_LOG_BYTES)
            return sb_errf(e, SB_EUSAGE, "%s: not a string of at most %zu bytes", field,
                           SB_DB_LOG_BYTES);
        int rc = sb_text_checkn(json_string_value(t), json_string_length(t), SB_DB_LOG_BYTES, field,
                                e);
        if (rc) return rc;
        if (!json_is_integer(n) || json_integer_value(n) < 0 || json_integer_value(n) > INT_ANY)
            return sb_errf(e, SB_EUSAGE, "%s_bytes: not a byte count", field);
    }
    return SB_OK;
}

/* The head of an export: its format, a version this sprbench reads, and the
 * three arrays. */
static int validate_head(json_t *doc, const char *name, json_t **machines, json_t **sweeps,
                         json_t **points, sb_err *e)
{
    if (!json_is_object(doc)) return sb_errf(e, SB_EUSAGE, "%s: not a JSON object", name);
    const char *fmt = sb_import_str_or_null(doc, "format");
    if (!fmt || strcmp(fmt, SB_EXPORT_FORMAT))
        return sb_errf(e, SB_EUSAGE, "%s: not a sprbench export (\"format\" is not \"%s\")", name,
                       SB_EXPORT_FORMAT);
    json_t *ver = json_object_get(doc, "version");
    if (!json_is_integer(ver) || json_integer_value(ver) < 1 ||
        json_integer_value(ver) > SB_EXPORT_VERSION)
        return sb_errf(e, SB_EUSAGE, "%s: unsupported export version (this sprbench reads 1 to %d)",
                       name, SB_EXPORT_VERSION);
    int rc;
    if ((rc = array_field(doc, "machines", name, machines, e)) ||
        (rc = array_field(doc, "sweeps", name, sweeps, e)) ||
        (rc = array_field(doc, "points", name, points, e)))
        return rc;
    return SB_OK;
}

static int validate_machines(json_t *machines, const char *name, sb_err *e)
{
    char where[64];
    size_t i, j;
    json_t *o;
    int rc;
    json_array_foreach(machines, i, o)
    {
        snprintf(where, sizeof where, "machines[%zu]", i);
        if (!json_is_object(o)) return sb_errf(e, SB_EUSAGE, "%s: %s: not an object", name, where);
        if ((rc = check_known_keys(o, sb_export_machine_cols, sb_export_machine_ncols, NULL, name,
                                   where, e)) ||
            (rc = check_cols(o, sb_export_machine_cols, sb_export_machine_ncols, name, where, e)))
            return rc;
        const char *fp = sb_import_str_or_null(o, "fingerprint");
        if (!fp || !is_token(fp, 64))
            return sb_errf(e, SB_EUSAGE, "%s: %s.fingerprint: missing or not [A-Za-z0-9_.:-]{1,64}",
                           name, where);
        for (j = 0; j < i; j++)
            if (!strcmp(fp, sb_import_str_or_null(json_array_get(machines, j), "fingerprint")))
                return sb_errf(e, SB_EUSAGE, "%s: %s: fingerprint %s listed twice", name, where,
                               fp);
    }
    return SB_OK;
}

/* A sweep's or a point's "machine": absent, null or a listed fingerprint. */
static int check_machine_ref(json_t *o, json_t *machines, const char *name, const char *where,
                             sb_err *e)
{
    json_t *m = json_object_get(o, "machine");
    if (m && !json_is_null(m) &&
        (!json_is_string(m) || !listed(machines, "fingerprint", json_string_value(m))))
        return sb_errf(e, SB_EUSAGE, "%s: %s.machine: not a fingerprint listed in machines", name,
                       where);
    return SB_OK;
}

static int validate_sweeps(json_t *sweeps, json_t *machines, const char *name, sb_err *e)
{
    static const char *const sweep_extra[] = {"machine", NULL};
    char where[64];
    size_t i, j;
    json_t *o;
    int rc;
    json_array_foreach(sweeps, i, o)
    {
        snprintf(where, sizeof where, "sweeps[%zu]", i);
        if (!json_is_object(o)) return sb_errf(e, SB_EUSAGE, "%s: %s: not an object", name, where);
        if ((rc = check_known_keys(o, sb_export_sweep_cols, sb_export_sweep_ncols, sweep_extra,
                                   name, where, e)) ||
            (rc = check_cols(o, sb_export_sweep_cols, sb_export_sweep_ncols, name, where, e)))
            return rc;
        const char *uuid = sb_import_str_or_null(o, "uuid");
        if (!uuid || !is_uuid(uuid))
            return sb_errf(e, SB_EUSAGE, "%s: %s.uuid: missing or not 32 lowercase hex digits",
                           name, where);
        for (j = 0; j < i; j++)
            if (!strcmp(uuid, sb_import_str_or_null(json_array_get(sweeps, j), "uuid")))
                return sb_errf(e, SB_EUSAGE, "%s: %s: uuid %s listed twice", name, where, uuid);
        if ((rc = check_machine_ref(o, machines, name, where, e))) return rc;
        const char *wl = sb_import_str_or_null(o, "workload"),
                   *ss = sb_import_str_or_null(o, "status");
        char q[256], known[256];
        if (wl && !sb_db_workload_known(wl)) {
            sb_db_workload_names(known, sizeof known);
            return sb_errf(e, SB_EUSAGE, "%s: %s.workload: '%s' is not one of %s", name, where,
                           QUOTE(q, wl), known);
        }
        if (ss && !sb_db_sweep_status_known(ss))
            return sb_errf(e, SB_EUSAGE, "%s: %s.status: '%s' is not running, done or interrupted",
                           name, where, QUOTE(q, ss));
    }
    return SB_OK;
}

/* A point's words: status, workload, ranks, dtype, shape. */
static int check_point_words(json_t *o, const char *name, const char *where, sb_err *e)
{
    const char *status = sb_import_str_or_null(o, "status");
    char q[256];
    if (!status || !sb_db_point_status_known(status))
        return sb_errf(e, SB_EUSAGE,
                       "%s: %s.status: %s%s%s is not one of pending, running, ok,"
                       " skipped, failed, timeout, interrupted, projected",
                       name, where, status ? "'" : "", status ? QUOTE(q, status) : "missing",
                       status ? "'" : "");
    const char *wl = sb_import_str_or_null(o, "workload");
    if (!wl || !sb_db_workload_known(wl)) {
        char known[256]; /* the workload table's names, never a list kept by hand */
        sb_db_workload_names(known, sizeof known);
        return sb_errf(e, SB_EUSAGE, "%s: %s.workload: %s%s%s is not one of %s", name, where,
                       wl ? "'" : "", wl ? QUOTE(q, wl) : "missing", wl ? "'" : "", known);
    }
    /* each of ppn and nodes has its range; their product is the ranks,
     * which every reader multiplies in an int */
    json_t *jp = json_object_get(o, "ppn"), *jn = json_object_get(o, "nodes");
    long long ranks = (json_is_integer(jp) ? json_integer_value(jp) : 1) *
        (json_is_integer(jn) ? json_integer_value(jn) : 1);
    if (ranks > SB_DB_MAX_RANKS)
        return sb_errf(e, SB_EUSAGE, "%s: %s: ppn x nodes is %lld ranks, more than %d", name, where,
                       ranks, SB_DB_MAX_RANKS);
    const char *dt = sb_import_str_or_null(o, "dtype"), *shape = sb_import_str_or_null(o, "shape");
    if (dt && dt[0] && !is_token(dt, SB_DB_MAX_WORD))
        return sb_errf(e, SB_EUSAGE, "%s: %s.dtype: '%s' is not a dtype word", name, where,
                       QUOTE(q, dt));
    if (shape && !sb_db_shape_valid(shape))
        return sb_errf(e, SB_EUSAGE,
                       "%s: %s.shape: '%s' is neither MxNxK[:NN|NT|TN|TT]"
                       "[+prepack] nor key=value pairs",
                       name, where, QUOTE(q, shape));
    return SB_OK;
}

/* A point's raw samples: seconds in range (sb_sample_seconds_ok: 0, a
 * negative, a denormal or an infinite sample would make every ratio of it
 * 0 or inf); a measured point has some. who names the point and its sweep
 * by uuid, as a merge's reader knows them (points[i] of a database is no
 * place they can look). */
static int check_point_samples(json_t *o, const char *name, const char *where, const char *who,
                               sb_err *e)
{
    size_t j;
    json_t *v;
    json_t *samples = json_object_get(o, "samples");
    if (samples && !json_is_array(samples))
        return sb_errf(e, SB_EUSAGE, "%s: %s.samples: must be an array", name, where);
    json_array_foreach(samples, j, v)
    {
        if (!json_is_number(v) || !sb_sample_seconds_ok(json_number_value(v)))
            return sb_errf(e, SB_EUSAGE,
                           "%s: %s.samples[%zu]: not a number of seconds in [%g, %g]%s", name,
                           where, j, SB_SAMPLE_MIN_S, SB_SAMPLE_MAX_S, who);
    }
    /* a measured point is its raw samples (the peak probe reports rates
     * only; projected points were never run) */
    if (!strcmp(sb_import_str_or_null(o, "status"), "ok") &&
        !sb_wl_is(sb_workload_find(sb_import_str_or_null(o, "workload")), SB_WL_PROBE) &&
        json_array_size(samples) == 0)
        return sb_errf(e, SB_EUSAGE, "%s: %s: status ok without samples", name, where);
    return SB_OK;
}

/* One metric of a point's list (j its index): name, value, unit, source,
 * projected, and a name not listed before it. */
static int check_metric(json_t *metrics, size_t j, const char *name, const char *where, sb_err *e)
{
    json_t *v = json_array_get(metrics, j);
    json_t *val = json_object_get(v, "value"), *proj = json_object_get(v, "projected");
    const char *mn = sb_import_str_or_null(v, "name");
    json_t *unit = json_object_get(v, "unit"), *src = json_object_get(v, "source");
    if (!json_is_object(v) || !mn || !is_token(mn, 128))
        return sb_errf(e, SB_EUSAGE,
                       "%s: %s.metrics[%zu].name: missing or not [A-Za-z0-9_.:-]{1,128}", name,
                       where, j);
    if (!json_is_number(val) || !isfinite(json_number_value(val)) ||
        fabs(json_number_value(val)) > MAX_METRIC_ABS)
        return sb_errf(e, SB_EUSAGE, "%s: %s.metrics[%zu].value: not a finite number", name, where,
                       j);
    if ((proj && !json_is_null(proj) && !json_is_boolean(proj) &&
         !(json_is_integer(proj) &&
           (json_integer_value(proj) == 0 || json_integer_value(proj) == 1))) ||
        (unit && !json_is_null(unit) &&
         (!json_is_string(unit) ||
          sb_text_checkn(json_string_value(unit), json_string_length(unit), 64, "", NULL))) ||
        (src && !json_is_null(src) &&
         (!json_is_string(src) ||
          sb_text_checkn(json_string_value(src), json_string_length(src), SB_DB_MAX_REASON, "",
                         NULL))))
        return sb_errf(e, SB_EUSAGE,
                       "%s: %s.metrics[%zu]: unit/source must be short strings"
                       " and projected 0, 1 or a boolean",
                       name, where, j);
    for (size_t k = 0; k < j; k++)
        if (!strcmp(mn, sb_import_str_or_null(json_array_get(metrics, k), "name")))
            return sb_errf(e, SB_EUSAGE, "%s: %s.metrics[%zu]: metric '%s' listed twice", name,
                           where, j, mn);
    return SB_OK;
}

/* points[i]: its columns and words, the sweep and machine it names, its
 * samples, log, pairing and metrics. */
static int validate_point(json_t *o, const char *where, json_t *sweeps, json_t *machines,
                          const char *name, sb_err *e)
{
    static const char *const point_extra[] = {"sweep", "machine", "samples", "metrics",
                                              "log",   "pairing", NULL};
    int rc;
    if (!json_is_object(o)) return sb_errf(e, SB_EUSAGE, "%s: %s: not an object", name, where);
    if ((rc = check_known_keys(o, sb_export_point_cols, sb_export_point_ncols, point_extra, name,
                               where, e)) ||
        (rc = check_cols(o, sb_export_point_cols, sb_export_point_ncols, name, where, e)))
        return rc;
    const char *uuid = sb_import_str_or_null(o, "uuid");
    if (!uuid || !is_uuid(uuid))
        return sb_errf(e, SB_EUSAGE, "%s: %s.uuid: missing or not 32 lowercase hex digits", name,
                       where);
    if ((rc = check_point_words(o, name, where, e))) return rc;
    const char *sw = sb_import_str_or_null(o, "sweep");
    if (!sw || !listed(sweeps, "uuid", sw))
        return sb_errf(e, SB_EUSAGE, "%s: %s.sweep: not a sweep uuid listed in sweeps", name,
                       where);
    char who[80];
    snprintf(who, sizeof who, " (point %.8s of sweep %.8s)", uuid, sw);
    if ((rc = check_machine_ref(o, machines, name, where, e)) ||
        (rc = check_point_samples(o, name, where, who, e)) ||
        (rc = check_log(json_object_get(o, "log"), name, where, e)))
        return rc;
    json_t *pairing = json_object_get(o, "pairing");
    const char *wl = sb_import_str_or_null(o, "workload");
    if (pairing && !sb_wl_is(sb_workload_find(wl), SB_WL_PAIRED))
        return sb_errf(e, SB_EUSAGE,
                       "%s: %s.pairing: %s points are never measured in pairs (a sweep pairs"
                       " GEMM points only)%s",
                       name, where, wl, who);
    char pwhere[300];
    snprintf(pwhere, sizeof pwhere, "%s: %s.pairing", name, where);
    if ((rc = sb_db_check_pairing(pairing, pwhere, e))) {
        size_t len = e ? strlen(e->msg) : 0;
        if (e) snprintf(e->msg + len, sizeof e->msg - len, "%s", who);
        return rc;
    }
    json_t *metrics = json_object_get(o, "metrics");
    if (metrics && !json_is_array(metrics))
        return sb_errf(e, SB_EUSAGE, "%s: %s.metrics: must be an array", name, where);
    for (size_t j = 0; j < json_array_size(metrics); j++)
        if ((rc = check_metric(metrics, j, name, where, e))) return rc;
    return SB_OK;
}

static int validate_points(json_t *points, json_t *sweeps, json_t *machines, const char *name,
                           sb_err *e)
{
    /* uuids are checked for duplicates through a sorted copy: documents can hold
     * many points and a quadratic scan would let an import stall. */
    const char **uuids = calloc(json_array_size(points) + 1, sizeof *uuids);
    if (!uuids) return sb_errf(e, SB_EFAIL, "out of memory");
    int rc = SB_OK;
    char where[64];
    size_t i;
    json_t *o;
    json_array_foreach(points, i, o)
    {
        snprintf(where, sizeof where, "points[%zu]", i);
        if ((rc = validate_point(o, where, sweeps, machines, name, e))) break;
        uuids[i] = sb_import_str_or_null(o, "uuid");
    }
    if (!rc) {
        size_t n = json_array_size(points);
        qsort(uuids, n, sizeof *uuids, cmp_str_ptr);
        for (i = 1; i < n; i++)
            if (!strcmp(uuids[i - 1], uuids[i])) {
                rc = sb_errf(e, SB_EUSAGE, "%s: point uuid %s listed twice", name, uuids[i]);
                break;
            }
    }
    free(uuids);
    return rc;
}

int sb_import_validate(json_t *doc, const char *name, sb_err *e)
{
    json_t *machines = NULL, *sweeps = NULL, *points = NULL;
    int rc;
    if ((rc = validate_head(doc, name, &machines, &sweeps, &points, e)) ||
        (rc = validate_machines(machines, name, e)) ||
        (rc = validate_sweeps(sweeps, machines, name, e)) ||
        (rc = validate_points(points, sweeps, machines, name, e)))
        return rc;
    return SB_OK;
}
