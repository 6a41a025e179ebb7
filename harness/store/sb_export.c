#include "sb_export.h"
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

/* Plain columns travel verbatim. Each has a type and, for integers, a range,
 * for text a limit in characters (the store's, sb_db.h): anything outside is
 * refused at import rather than stored. */
typedef struct column {
    const char *name;
    char type; /* 'T' text, 'I' integer, 'J' a JSON document stored as text:
                           exported as the object itself (version 3), imported
                           from an object or, as versions 1 and 2 wrote it, a string */
    long long min, max;
    size_t max_chars; /* text only */
} column;

#define INT_ANY (1LL << 53)
/* An export keeps every raw sample, ~26 bytes each as written: a 1000-point
 * sweep at 1000 samples is ~26 MB. 512 MiB holds twenty such sweeps (merged
 * labs, many machines) while the parsed document still fits in a few GiB. */
#define IMPORT_MAX (512 * SB_MIB)

static const column g_machine_cols[] = {
    {"fingerprint", 'T', 0, 0, 64},
    {"hostname", 'T', 0, 0, SB_DB_MAX_NAME},
    {"cpu_model", 'T', 0, 0, SB_DB_MAX_NAME},
    {"vendor", 'T', 0, 0, 64},
    {"family", 'I', 0, 1 << 20, 0},
    {"model", 'I', 0, 1 << 20, 0},
    {"stepping", 'I', 0, 1 << 20, 0},
    {"microarch", 'T', 0, 0, 128},
    {"packages", 'I', 0, 1 << 20, 0},
    {"numa_nodes", 'I', 0, 1 << 20, 0},
    {"cores", 'I', 0, 1 << 24, 0},
    {"pus", 'I', 0, 1 << 24, 0},
    {"l1d_bytes", 'I', 0, INT_ANY, 0},
    {"l2_bytes", 'I', 0, INT_ANY, 0},
    {"l3_bytes", 'I', 0, INT_ANY, 0},
    {"isa", 'J', 0, 0, SB_DB_MAX_TEXT},
    {"amx_os_permitted", 'I', 0, 1, 0},
    {"amx_reason", 'T', 0, 0, SB_DB_MAX_REASON},
    {"kernel", 'T', 0, 0, SB_DB_MAX_NAME},
    {"mem_bytes", 'I', 0, INT_ANY, 0},
    {"info_json", 'J', 0, 0, SB_DB_MAX_DOC},
    {"first_seen", 'T', 0, 0, 64},
};
static const column g_sweep_cols[] = {
    {"uuid", 'T', 0, 0, 32},
    {"label", 'T', 0, 0, SB_DB_MAX_NAME},
    {"workload", 'T', 0, 0, SB_DB_MAX_WORD},
    {"plan", 'T', 0, 0, SB_DB_MAX_DOC},
    {"started", 'T', 0, 0, 64},
    {"finished", 'T', 0, 0, 64},
    {"tool_version", 'T', 0, 0, SB_DB_MAX_NAME},
    {"status", 'T', 0, 0, SB_DB_MAX_WORD},
};
static const column g_point_cols[] = {
    {"uuid", 'T', 0, 0, 32},
    {"seq", 'I', 0, 1LL << 31, 0},
    {"workload", 'T', 0, 0, SB_DB_MAX_WORD},
    {"kernel", 'T', 0, 0, SB_DB_MAX_NAME},
    {"dtype", 'T', 0, 0, SB_DB_MAX_WORD},
    {"shape", 'T', 0, 0, SB_DB_MAX_SHAPE},
    {"config", 'J', 0, 0, SB_DB_MAX_TEXT},
    {"threads", 'I', 0, 1 << 20, 0},
    {"ppn", 'I', 0, 1 << 20, 0},
    {"nodes", 'I', 0, 1 << 20, 0},
    {"status", 'T', 0, 0, SB_DB_MAX_WORD},
    {"reason", 'T', 0, 0, SB_DB_MAX_TEXT},
    {"started", 'T', 0, 0, 64},
    {"finished", 'T', 0, 0, 64},
    {"result_json", 'J', 0, 0, SB_DB_MAX_DOC},
    {"command", 'T', 0, 0, SB_DB_MAX_TEXT},
    {"binding", 'J', 0, 0, SB_DB_MAX_DOC},
};
#define NCOLS(a) ((int)(sizeof a / sizeof a[0]))

#define MAX_METRIC_ABS 1e300

/* ---- export ---- */

/* A text column as a JSON string. Text written by an older sprbench or
 * another tool may not be valid UTF-8, which JSON cannot hold: each invalid
 * byte (and a NUL) goes out as U+FFFD, counted in *repaired, instead of the
 * field silently going missing. */
static json_t *text_json(sqlite3_stmt *st, int i, long *repaired)
{
    const char *s = (const char *)sqlite3_column_text(st, i);
    int n = sqlite3_column_bytes(st, i);
    if (!s) return json_null();
    int changed = 0;
    json_t *v = sb_text_jsonn(s, (size_t)n, &changed);
    if (v && changed && repaired) (*repaired)++;
    return v;
}

static json_t *column_json(sqlite3_stmt *st, int i, char type, long *repaired)
{
    int t = sqlite3_column_type(st, i);
    if (t == SQLITE_NULL) return json_null();
    if (type == 'I') {
        if (t == SQLITE_INTEGER) return json_integer(sqlite3_column_int64(st, i));
        /* not an integer after all (a hand-edited file): the value goes out
         * as it is, for the import to judge, rather than as a made-up 0 */
        if (t == SQLITE_FLOAT) {
            double d = sqlite3_column_double(st, i);
            if (d == floor(d) && fabs(d) < 9e15) return json_integer((json_int_t)d);
            return json_real(d);
        }
    }
    if (type == 'J' && t == SQLITE_TEXT) {
        /* the document itself, so that a reader of the export needs no
         * second parse; text that is not a JSON object or array (an older
         * or hand-edited database) goes out as the string it is */
        const char *s = (const char *)sqlite3_column_text(st, i);
        json_t *doc = s ? json_loads(s, JSON_REJECT_DUPLICATES, NULL) : NULL;
        if (json_is_object(doc) || json_is_array(doc)) return doc;
        json_decref(doc);
    }
    return text_json(st, i, repaired);
}

/* Sets key to v; a value that could not be made (out of memory) fails the
 * export rather than leaving the field out. */
static int put(json_t *o, const char *key, json_t *v, sb_err *e)
{
    if (!v || json_object_set_new(o, key, v))
        return sb_errf(e, SB_EFAIL,
                       "export: cannot encode field %s (out of memory, or not a"
                       " finite number)",
                       key);
    return SB_OK;
}

static void append_cols(char *sql, size_t cap, const char *prefix, const column *cols, int n)
{
    for (int i = 0; i < n; i++) {
        size_t len = strlen(sql);
        snprintf(sql + len, cap - len, "%s%s%s", i ? ", " : "", prefix, cols[i].name);
    }
}

/* One row of st as an object of cols (column i of st is cols[i]), appended
 * to arr (and in *row when row is not NULL). */
static int row_object(sqlite3_stmt *st, const column *cols, int n, json_t *arr, json_t **row,
                      long *fixed, sb_err *e)
{
    json_t *o = json_object();
    json_array_append_new(arr, o);
    if (row) *row = o;
    int rc = SB_OK;
    for (int i = 0; i < n && !rc; i++)
        rc = put(o, cols[i].name, column_json(st, i, cols[i].type, fixed), e);
    return rc;
}

/* machines: those the selected sweeps or points refer to (all when whole) */
static int export_machines(sb_db *db, int64_t sweep_id, json_t *machines, long *fixed, sb_err *e)
{
    char sql[2048];
    sqlite3_stmt *st = NULL;
    int rc, step;
    strcpy(sql, "SELECT ");
    append_cols(sql, sizeof sql, "", g_machine_cols, NCOLS(g_machine_cols));
    strcat(sql,
           " FROM machine WHERE ?1 = 0 OR id IN (SELECT machine_id FROM sweep WHERE id = ?1"
           " UNION SELECT machine_id FROM point WHERE sweep_id = ?1) ORDER BY id");
    if ((rc = sb_db_prepare(db, "prepare", sql, &st, e))) return rc;
    sqlite3_bind_int64(st, 1, sweep_id);
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        if ((rc = row_object(st, g_machine_cols, NCOLS(g_machine_cols), machines, NULL, fixed, e)))
            goto out;
    }
    if (step != SQLITE_DONE) rc = sb_db_fail(e, db, "reading machines");
out:
    sqlite3_finalize(st);
    return rc;
}

static int export_sweeps(sb_db *db, int64_t sweep_id, json_t *sweeps, long *fixed, sb_err *e)
{
    char sql[2048];
    sqlite3_stmt *st = NULL;
    int rc, step;
    strcpy(sql, "SELECT ");
    append_cols(sql, sizeof sql, "s.", g_sweep_cols, NCOLS(g_sweep_cols));
    strcat(sql,
           ", m.fingerprint FROM sweep s LEFT JOIN machine m ON m.id = s.machine_id"
           " WHERE ?1 = 0 OR s.id = ?1 ORDER BY s.id");
    if ((rc = sb_db_prepare(db, "prepare", sql, &st, e))) return rc;
    sqlite3_bind_int64(st, 1, sweep_id);
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        json_t *s;
        if ((rc = row_object(st, g_sweep_cols, NCOLS(g_sweep_cols), sweeps, &s, fixed, e)) ||
            (rc = put(s, "machine", column_json(st, NCOLS(g_sweep_cols), 'T', fixed), e)))
            goto out;
    }
    if (step != SQLITE_DONE) rc = sb_db_fail(e, db, "reading sweeps");
out:
    sqlite3_finalize(st);
    return rc;
}

/* What a point carries besides its columns, each read by point id. */
typedef struct point_reads {
    sqlite3_stmt *samples, *pairing, *paired, *metrics, *log;
} point_reads;

static int point_reads_prepare(sb_db *db, point_reads *r, sb_err *e)
{
    int rc;
    if ((rc = sb_db_prepare(db, "prepare",
                            "SELECT seconds FROM sample WHERE point_id = ?"
                            " AND (side IS NULL OR side = 1) ORDER BY rep",
                            &r->samples, e)) ||
        (rc = sb_db_prepare(db, "prepare",
                            "SELECT mode, baseline, candidate FROM point_pairing"
                            " WHERE point_id = ?",
                            &r->pairing, e)) ||
        (rc = sb_db_prepare(db, "prepare",
                            "SELECT seconds, side, pair FROM sample WHERE point_id = ?"
                            " AND side IS NOT NULL ORDER BY rep",
                            &r->paired, e)) ||
        (rc = sb_db_prepare(db, "prepare",
                            "SELECT name, value, unit, projected, source FROM metric m"
                            " WHERE point_id = ? AND NOT " SB_DB_IMPOSSIBLE_CLOCK("m")
                            " ORDER BY name",
                            &r->metrics, e)) ||
        (rc = sb_db_prepare(db, "prepare",
                            "SELECT stdout, stdout_bytes, stderr, stderr_bytes FROM point_log"
                            " WHERE point_id = ?",
                            &r->log, e)))
        return rc;
    return SB_OK;
}

static void point_reads_finalize(point_reads *r)
{
    sqlite3_finalize(r->samples);
    sqlite3_finalize(r->metrics);
    sqlite3_finalize(r->log);
    sqlite3_finalize(r->pairing);
    sqlite3_finalize(r->paired);
}

/* The point's samples (the plain ones, or a paired point's candidate side). */
static int export_samples(sb_db *db, sqlite3_stmt *ss, int64_t pid, json_t *samples, sb_err *e)
{
    int rc = SB_OK, step;
    sqlite3_bind_int64(ss, 1, pid);
    while ((step = sqlite3_step(ss)) == SQLITE_ROW) {
        double v = sqlite3_column_double(ss, 0);
        json_t *x = isfinite(v) ? json_real(v) : NULL;
        if (!x || json_array_append_new(samples, x)) {
            /* a database another program wrote: bad input, as an import of
             * it would be */
            rc = isfinite(v) ? sb_errf(e, SB_EFAIL, "out of memory")
                             : sb_errf(e, SB_EUSAGE,
                                       "point %lld: a sample of %g s is not a finite number of"
                                       " seconds: it cannot be exported",
                                       (long long)pid, v);
            break;
        }
    }
    if (!rc && step != SQLITE_DONE) rc = sb_db_fail(e, db, "reading samples");
    sqlite3_reset(ss);
    return rc;
}

static int export_metrics(sb_db *db, sqlite3_stmt *sm, int64_t pid, json_t *metrics, long *fixed,
                          sb_err *e)
{
    int rc = SB_OK, step = SQLITE_DONE;
    sqlite3_bind_int64(sm, 1, pid);
    while (!rc && (step = sqlite3_step(sm)) == SQLITE_ROW) {
        json_t *m = json_object();
        json_array_append_new(metrics, m);
        if (!(rc = put(m, "name", column_json(sm, 0, 'T', fixed), e)) &&
            !(rc = put(m, "value", json_real(sqlite3_column_double(sm, 1)), e)) &&
            !(rc = put(m, "unit", column_json(sm, 2, 'T', fixed), e)) &&
            !(rc = put(m, "projected", json_integer(sqlite3_column_int(sm, 3)), e)))
            rc = put(m, "source", column_json(sm, 4, 'T', fixed), e);
    }
    if (!rc && step != SQLITE_DONE) rc = sb_db_fail(e, db, "reading metrics");
    sqlite3_reset(sm);
    return rc;
}

/* The worker's output, when one is stored. */
static int export_log(sb_db *db, sqlite3_stmt *sl, int64_t pid, json_t *p, long *fixed, sb_err *e)
{
    int rc = SB_OK, step;
    sqlite3_bind_int64(sl, 1, pid);
    if ((step = sqlite3_step(sl)) == SQLITE_ROW) {
        json_t *lg = json_object();
        json_object_set_new(p, "log", lg);
        if ((rc = put(lg, "stdout", column_json(sl, 0, 'T', fixed), e)) ||
            (rc = put(lg, "stdout_bytes", json_integer(sqlite3_column_int64(sl, 1)), e)) ||
            (rc = put(lg, "stderr", column_json(sl, 2, 'T', fixed), e)) ||
            (rc = put(lg, "stderr_bytes", json_integer(sqlite3_column_int64(sl, 3)), e)))
            return rc;
    } else if (step != SQLITE_DONE) {
        return sb_db_fail(e, db, "reading worker output");
    }
    sqlite3_reset(sl);
    return SB_OK;
}

/* A paired point: its two binaries and every sample of both, tagged. */
static int export_pairing(sb_db *db, const point_reads *r, int64_t pid, json_t *p, long *fixed,
                          sb_err *e)
{
    sqlite3_stmt *sp = r->pairing, *spp = r->paired;
    int rc = SB_OK, step;
    sqlite3_bind_int64(sp, 1, pid);
    if ((step = sqlite3_step(sp)) == SQLITE_ROW) {
        json_t *pr = json_object(), *all = json_array(), *side = json_array(), *pair = json_array();
        json_object_set_new(p, "pairing", pr);
        if ((rc = put(pr, "mode", column_json(sp, 0, 'T', fixed), e)) ||
            (rc = put(pr, "baseline", column_json(sp, 1, 'T', fixed), e)) ||
            (rc = put(pr, "candidate", column_json(sp, 2, 'T', fixed), e)) ||
            (rc = put(pr, "samples", all, e)) || (rc = put(pr, "side", side, e)) ||
            (rc = put(pr, "pair", pair, e)))
            return rc;
        sqlite3_bind_int64(spp, 1, pid);
        while ((step = sqlite3_step(spp)) == SQLITE_ROW) {
            double v = sqlite3_column_double(spp, 0);
            json_t *x = isfinite(v) ? json_real(v) : NULL;
            /* side and pair as stored, all 64 bits: an import checks them */
            if (!x || json_array_append_new(all, x) ||
                json_array_append_new(side, json_integer(sqlite3_column_int64(spp, 1))) ||
                json_array_append_new(pair, json_integer(sqlite3_column_int64(spp, 2)))) {
                rc = isfinite(v) ? sb_errf(e, SB_EFAIL, "out of memory")
                                 : sb_errf(e, SB_EUSAGE,
                                           "point %lld: a paired sample of %g s is not a finite"
                                           " number of seconds: it cannot be exported",
                                           (long long)pid, v);
                break;
            }
        }
        if (!rc && step != SQLITE_DONE) rc = sb_db_fail(e, db, "reading paired samples");
        sqlite3_reset(spp);
    } else if (step != SQLITE_DONE) {
        rc = sb_db_fail(e, db, "reading pairing");
    }
    sqlite3_reset(sp);
    return rc;
}

/* One point row of st (id, sweep uuid, machine fingerprint, then
 * g_point_cols), with its samples, metrics, log and pairing. */
static int export_point(sb_db *db, sqlite3_stmt *st, const point_reads *r, json_t *points,
                        long *fixed, sb_err *e)
{
    int64_t pid = sqlite3_column_int64(st, 0);
    int rc;
    if (sqlite3_column_type(st, 1) == SQLITE_NULL)
        return sb_errf(e, SB_EFAIL,
                       "point %lld belongs to no sweep in the database: it cannot"
                       " be exported",
                       (long long)pid);
    json_t *p = json_object();
    json_array_append_new(points, p);
    if ((rc = put(p, "uuid", column_json(st, 3, 'T', fixed), e)) ||
        (rc = put(p, "sweep", column_json(st, 1, 'T', fixed), e)) ||
        (rc = put(p, "machine", column_json(st, 2, 'T', fixed), e)))
        return rc;
    for (int i = 1; i < NCOLS(g_point_cols) && !rc; i++)
        rc = put(p, g_point_cols[i].name, column_json(st, 3 + i, g_point_cols[i].type, fixed), e);
    if (rc) return rc;
    json_t *samples = json_array(), *metrics = json_array();
    json_object_set_new(p, "samples", samples);
    json_object_set_new(p, "metrics", metrics);
    if ((rc = export_samples(db, r->samples, pid, samples, e)) ||
        (rc = export_metrics(db, r->metrics, pid, metrics, fixed, e)) ||
        (rc = export_log(db, r->log, pid, p, fixed, e)) ||
        (rc = export_pairing(db, r, pid, p, fixed, e)))
        return rc;
    return SB_OK;
}

static int export_points(sb_db *db, int64_t sweep_id, json_t *points, long *fixed, sb_err *e)
{
    char sql[2048];
    sqlite3_stmt *st = NULL;
    point_reads r = {0};
    int rc, step;
    /* LEFT JOIN: a point whose sweep is gone is named in an error, never
     * left out of the export without a word */
    strcpy(sql, "SELECT p.id, s.uuid, m.fingerprint, ");
    append_cols(sql, sizeof sql, "p.", g_point_cols, NCOLS(g_point_cols));
    strcat(sql,
           " FROM point p LEFT JOIN sweep s ON s.id = p.sweep_id"
           " LEFT JOIN machine m ON m.id = p.machine_id"
           " WHERE ?1 = 0 OR p.sweep_id = ?1 ORDER BY p.id");
    if ((rc = sb_db_prepare(db, "prepare", sql, &st, e)) || (rc = point_reads_prepare(db, &r, e)))
        goto out;
    sqlite3_bind_int64(st, 1, sweep_id);
    while ((step = sqlite3_step(st)) == SQLITE_ROW)
        if ((rc = export_point(db, st, &r, points, fixed, e))) goto out;
    if (step != SQLITE_DONE) rc = sb_db_fail(e, db, "reading points");
out:
    sqlite3_finalize(st);
    point_reads_finalize(&r);
    return rc;
}

int sb_export_doc(sb_db *db, int64_t sweep_id, json_t **out, long *repaired, sb_err *e)
{
    *out = NULL;
    long fixed = 0;
    json_t *doc = json_object(), *machines = json_array(), *sweeps = json_array(),
           *points = json_array();
    char now[32];
    sb_db_now_iso(now);
    json_object_set_new(doc, "format", json_string(SB_EXPORT_FORMAT));
    json_object_set_new(doc, "version", json_integer(SB_EXPORT_VERSION));
    json_object_set_new(doc, "exported", json_string(now));
    json_object_set_new(doc, "tool", json_string("sprbench"));
    json_object_set_new(doc, "machines", machines);
    json_object_set_new(doc, "sweeps", sweeps);
    json_object_set_new(doc, "points", points);
    int rc;
    if ((rc = export_machines(db, sweep_id, machines, &fixed, e)) ||
        (rc = export_sweeps(db, sweep_id, sweeps, &fixed, e)) ||
        (rc = export_points(db, sweep_id, points, &fixed, e))) {
        json_decref(doc);
        return rc;
    }
    if (repaired) *repaired = fixed;
    *out = doc;
    return SB_OK;
}

int sb_export_write(sb_db *db, int64_t sweep_id, const char *path, long *repaired, sb_err *e)
{
    json_t *doc;
    int rc = sb_export_doc(db, sweep_id, &doc, repaired, e);
    if (rc) return rc;
    /* 17 significant digits: every double survives the round trip exactly. */
    char *s = json_dumps(doc, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
    json_decref(doc);
    if (!s) return sb_errf(e, SB_EFAIL, "%s: cannot encode JSON", path);
    size_t n = strlen(s);
    char *buf = realloc(s, n + 2);
    if (!buf) {
        free(s);
        return sb_errf(e, SB_EFAIL, "out of memory");
    }
    buf[n] = '\n';
    rc = sb_write_file_atomic(path, buf, n + 1, e);
    free(buf);
    return rc;
}

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

static const char *str_or_null(json_t *o, const char *k)
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
        const char *v = str_or_null(o, k);
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
    const char *fmt = str_or_null(doc, "format");
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
        if ((rc = check_known_keys(o, g_machine_cols, NCOLS(g_machine_cols), NULL, name, where,
                                   e)) ||
            (rc = check_cols(o, g_machine_cols, NCOLS(g_machine_cols), name, where, e)))
            return rc;
        const char *fp = str_or_null(o, "fingerprint");
        if (!fp || !is_token(fp, 64))
            return sb_errf(e, SB_EUSAGE, "%s: %s.fingerprint: missing or not [A-Za-z0-9_.:-]{1,64}",
                           name, where);
        for (j = 0; j < i; j++)
            if (!strcmp(fp, str_or_null(json_array_get(machines, j), "fingerprint")))
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
        if ((rc = check_known_keys(o, g_sweep_cols, NCOLS(g_sweep_cols), sweep_extra, name, where,
                                   e)) ||
            (rc = check_cols(o, g_sweep_cols, NCOLS(g_sweep_cols), name, where, e)))
            return rc;
        const char *uuid = str_or_null(o, "uuid");
        if (!uuid || !is_uuid(uuid))
            return sb_errf(e, SB_EUSAGE, "%s: %s.uuid: missing or not 32 lowercase hex digits",
                           name, where);
        for (j = 0; j < i; j++)
            if (!strcmp(uuid, str_or_null(json_array_get(sweeps, j), "uuid")))
                return sb_errf(e, SB_EUSAGE, "%s: %s: uuid %s listed twice", name, where, uuid);
        if ((rc = check_machine_ref(o, machines, name, where, e))) return rc;
        const char *wl = str_or_null(o, "workload"), *ss = str_or_null(o, "status");
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
    const char *status = str_or_null(o, "status");
    char q[256];
    if (!status || !sb_db_point_status_known(status))
        return sb_errf(e, SB_EUSAGE,
                       "%s: %s.status: %s%s%s is not one of pending, running, ok,"
                       " skipped, failed, timeout, interrupted, projected",
                       name, where, status ? "'" : "", status ? QUOTE(q, status) : "missing",
                       status ? "'" : "");
    const char *wl = str_or_null(o, "workload");
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
    const char *dt = str_or_null(o, "dtype"), *shape = str_or_null(o, "shape");
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
    if (!strcmp(str_or_null(o, "status"), "ok") &&
        !sb_wl_is(sb_workload_find(str_or_null(o, "workload")), SB_WL_PROBE) &&
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
    const char *mn = str_or_null(v, "name");
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
        if (!strcmp(mn, str_or_null(json_array_get(metrics, k), "name")))
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
    if ((rc = check_known_keys(o, g_point_cols, NCOLS(g_point_cols), point_extra, name, where,
                               e)) ||
        (rc = check_cols(o, g_point_cols, NCOLS(g_point_cols), name, where, e)))
        return rc;
    const char *uuid = str_or_null(o, "uuid");
    if (!uuid || !is_uuid(uuid))
        return sb_errf(e, SB_EUSAGE, "%s: %s.uuid: missing or not 32 lowercase hex digits", name,
                       where);
    if ((rc = check_point_words(o, name, where, e))) return rc;
    const char *sw = str_or_null(o, "sweep");
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
    const char *wl = str_or_null(o, "workload");
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
        uuids[i] = str_or_null(o, "uuid");
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

static int validate(json_t *doc, const char *name, sb_err *e)
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

/* ---- import: writing ---- */

static void bind_json(sqlite3_stmt *st, int i, json_t *v)
{
    if (json_is_object(v) || json_is_array(v)) {
        /* a nested document (export version 3) is stored as the text it was */
        char *s = json_dumps(v, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
        if (s)
            sqlite3_bind_text(st, i, s, -1, free);
        else
            sqlite3_bind_null(st, i);
        return;
    }
    if (json_is_string(v))
        sqlite3_bind_text(st, i, json_string_value(v), -1, SQLITE_TRANSIENT);
    else if (json_is_integer(v))
        sqlite3_bind_int64(st, i, json_integer_value(v));
    else
        sqlite3_bind_null(st, i);
}

/* "INSERT INTO t (a, b, ..., extra) VALUES (?, ?, ..., ?)" */
static void insert_sql(char *sql, size_t cap, const char *table, const column *cols, int n,
                       const char *extra, int nextra)
{
    snprintf(sql, cap, "INSERT INTO %s (", table);
    append_cols(sql, cap, "", cols, n);
    size_t len = strlen(sql);
    snprintf(sql + len, cap - len, "%s) VALUES (", extra);
    for (int i = 0; i < n + nextra; i++) {
        len = strlen(sql);
        snprintf(sql + len, cap - len, "%s?", i ? ", " : "");
    }
    strncat(sql, ")", cap - strlen(sql) - 1);
}

static int step_done(sb_db *db, sqlite3_stmt *st, sb_err *e, const char *what)
{
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    return rc == SQLITE_DONE ? SB_OK : sb_db_fail(e, db, what);
}

/* id of the row whose text column `col` equals s (0 when none) */
static int lookup_id(sb_db *db, sqlite3_stmt *st, const char *s, int64_t *id, sb_err *e)
{
    sqlite3_bind_text(st, 1, s, -1, SQLITE_TRANSIENT);
    int rc = sqlite3_step(st);
    *id = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    sqlite3_reset(st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? SB_OK : sb_db_fail(e, db, "lookup");
}

typedef struct fp_map {
    const char *fp;
    int64_t id;
} fp_map;

static int64_t map_find(const fp_map *m, size_t n, const char *key)
{
    for (size_t i = 0; key && i < n; i++)
        if (!strcmp(m[i].fp, key)) return m[i].id;
    return 0;
}

/* A point a sweep has yet to finish (or rerun): its data may still change. */
static int unfinished(const char *status)
{
    return !status || !strcmp(status, "pending") || !strcmp(status, "running") ||
        !strcmp(status, "interrupted");
}

/* An import's statements and what it has mapped so far: fingerprint and
 * sweep uuid to the row here. */
typedef struct writer {
    sb_db *db;
    sb_import_stats *st;
    fp_map *mmap, *smap;
    size_t nm, ns;
    sqlite3_stmt *find_m, *find_s, *find_p, *ins_m, *upd_m, *ins_s, *ins_p, *ins_sample,
        *ins_pairing, *ins_metric, *status_p, *del_p, *ins_log;
} writer;

/* "UPDATE machine SET hostname = ?2, ... WHERE fingerprint = ?1 AND the
 * record's machine was seen first": a machine in several records is
 * described as it was first seen (first_seen, ties by its description),
 * whatever order they are imported in. 0, or -1 when sql is too small. */
static int update_machine_sql(char *sql, size_t cap)
{
    int n = NCOLS(g_machine_cols), at = -1, info = -1;
    size_t len = (size_t)snprintf(sql, cap, "UPDATE machine SET ");
    for (int i = 1; i < n && len < cap; i++) {
        len += (size_t)snprintf(sql + len, cap - len, "%s%s = ?%d", i > 1 ? ", " : "",
                                g_machine_cols[i].name, i + 1);
        if (!strcmp(g_machine_cols[i].name, "first_seen")) at = i + 1;
        if (!strcmp(g_machine_cols[i].name, "info_json")) info = i + 1;
    }
    if (len < cap)
        len += (size_t)snprintf(sql + len, cap - len,
                                " WHERE fingerprint = ?1 AND (COALESCE(julianday(first_seen), 1e9),"
                                " COALESCE(first_seen, ''), COALESCE(info_json, ''))"
                                " > (COALESCE(julianday(?%d), 1e9), COALESCE(?%d, ''),"
                                " COALESCE(?%d, ''))",
                                at, at, info);
    return len < cap && at > 0 && info > 0 ? 0 : -1;
}

static int writer_prepare(writer *w, sb_err *e)
{
    sb_db *db = w->db;
    char sql[2048];
    int rc;
    if ((rc = sb_db_prepare(db, "prepare", "SELECT id FROM machine WHERE fingerprint = ?",
                            &w->find_m, e)) ||
        (rc = sb_db_prepare(db, "prepare", "SELECT id FROM sweep WHERE uuid = ?", &w->find_s, e)) ||
        (rc = sb_db_prepare(db, "prepare", "SELECT id FROM point WHERE uuid = ?", &w->find_p, e)) ||
        (rc = sb_db_prepare(db, "prepare", "SELECT status FROM point WHERE id = ?", &w->status_p,
                            e)) ||
        (rc = sb_db_prepare(db, "prepare", "DELETE FROM point WHERE id = ?", &w->del_p, e)))
        return rc;
    insert_sql(sql, sizeof sql, "machine", g_machine_cols, NCOLS(g_machine_cols), "", 0);
    if ((rc = sb_db_prepare(db, "prepare", sql, &w->ins_m, e))) return rc;
    if ((rc = update_machine_sql(sql, sizeof sql)) ||
        (rc = sb_db_prepare(db, "prepare", sql, &w->upd_m, e)))
        return rc ? rc : sb_errf(e, SB_EFAIL, "machine update: statement too long");
    insert_sql(sql, sizeof sql, "sweep", g_sweep_cols, NCOLS(g_sweep_cols), ", machine_id", 1);
    if ((rc = sb_db_prepare(db, "prepare", sql, &w->ins_s, e))) return rc;
    insert_sql(sql, sizeof sql, "point", g_point_cols, NCOLS(g_point_cols),
               ", sweep_id, machine_id", 2);
    if ((rc = sb_db_prepare(db, "prepare", sql, &w->ins_p, e))) return rc;
    if ((rc = sb_db_prepare(db, "prepare",
                            "INSERT INTO sample (point_id, rep, seconds, side, pair)"
                            " VALUES (?,?,?,?,?)",
                            &w->ins_sample, e)) ||
        (rc = sb_db_prepare(db, "prepare",
                            "INSERT INTO point_pairing (point_id, mode, baseline, candidate)"
                            " VALUES (?,?,?,?)",
                            &w->ins_pairing, e)) ||
        (rc = sb_db_prepare(db, "prepare",
                            "INSERT INTO metric (point_id, name, value, unit, projected, source)"
                            " VALUES (?,?,?,?,?,?)",
                            &w->ins_metric, e)) ||
        (rc = sb_db_prepare(db, "prepare",
                            "INSERT OR REPLACE INTO point_log (point_id, stdout, stdout_bytes,"
                            " stderr, stderr_bytes) VALUES (?,?,?,?,?)",
                            &w->ins_log, e)))
        return rc;
    return SB_OK;
}

static void writer_finalize(writer *w)
{
    sqlite3_finalize(w->find_m);
    sqlite3_finalize(w->find_s);
    sqlite3_finalize(w->find_p);
    sqlite3_finalize(w->ins_m);
    sqlite3_finalize(w->upd_m);
    sqlite3_finalize(w->ins_s);
    sqlite3_finalize(w->ins_p);
    sqlite3_finalize(w->ins_sample);
    sqlite3_finalize(w->ins_pairing);
    sqlite3_finalize(w->ins_metric);
    sqlite3_finalize(w->status_p);
    sqlite3_finalize(w->del_p);
    sqlite3_finalize(w->ins_log);
    free(w->mmap);
    free(w->smap);
}

/* Each machine: the row of that fingerprint here, else a new one. */
static int write_machines(writer *w, json_t *machines, sb_err *e)
{
    size_t i;
    json_t *o;
    int rc;
    json_array_foreach(machines, i, o)
    {
        const char *fp = str_or_null(o, "fingerprint");
        if ((rc = lookup_id(w->db, w->find_m, fp, &w->mmap[i].id, e))) return rc;
        w->mmap[i].fp = fp;
        if (w->mmap[i].id) { /* known: described as first seen */
            for (int c = 0; c < NCOLS(g_machine_cols); c++)
                bind_json(w->upd_m, c + 1, json_object_get(o, g_machine_cols[c].name));
            if ((rc = step_done(w->db, w->upd_m, e, "machine update"))) return rc;
            continue;
        }
        for (int c = 0; c < NCOLS(g_machine_cols); c++)
            bind_json(w->ins_m, c + 1, json_object_get(o, g_machine_cols[c].name));
        if ((rc = step_done(w->db, w->ins_m, e, "machine insert"))) return rc;
        w->mmap[i].id = sqlite3_last_insert_rowid(sb_db_handle(w->db));
        w->st->machines_added++;
    }
    return SB_OK;
}

/* Each sweep: the row of that uuid here, else a new one on its machine. */
static int write_sweeps(writer *w, json_t *sweeps, sb_err *e)
{
    size_t i;
    json_t *o;
    int rc;
    json_array_foreach(sweeps, i, o)
    {
        const char *uuid = str_or_null(o, "uuid");
        if ((rc = lookup_id(w->db, w->find_s, uuid, &w->smap[i].id, e))) return rc;
        w->smap[i].fp = uuid;
        if (w->smap[i].id) continue;
        for (int c = 0; c < NCOLS(g_sweep_cols); c++)
            bind_json(w->ins_s, c + 1, json_object_get(o, g_sweep_cols[c].name));
        int64_t mid = map_find(w->mmap, w->nm, str_or_null(o, "machine"));
        if (mid) sqlite3_bind_int64(w->ins_s, NCOLS(g_sweep_cols) + 1, mid);
        if ((rc = step_done(w->db, w->ins_s, e, "sweep insert"))) return rc;
        w->smap[i].id = sqlite3_last_insert_rowid(sb_db_handle(w->db));
        w->st->sweeps_added++;
    }
    return SB_OK;
}

/* Whether point o is to be written: a new uuid is (*skip 0); one present
 * here is kept (*skip 1) unless the copy here is unfinished and o is not,
 * and then the one here is deleted for o to replace it. */
static int point_take(writer *w, json_t *o, int *skip, sb_err *e)
{
    int64_t pid;
    int rc;
    *skip = 0;
    if ((rc = lookup_id(w->db, w->find_p, str_or_null(o, "uuid"), &pid, e))) return rc;
    if (!pid) {
        w->st->points_added++;
        return SB_OK;
    }
    /* The same point finished since the copy here was made (a resumed
     * sweep exported again): the finished one replaces the unfinished. */
    int here_open = 0;
    sqlite3_bind_int64(w->status_p, 1, pid);
    int step = sqlite3_step(w->status_p);
    if (step == SQLITE_ROW)
        here_open = unfinished((const char *)sqlite3_column_text(w->status_p, 0));
    sqlite3_reset(w->status_p);
    if (step != SQLITE_ROW && step != SQLITE_DONE) return sb_db_fail(e, w->db, "point lookup");
    if (!here_open || unfinished(str_or_null(o, "status"))) {
        w->st->points_present++;
        *skip = 1;
        return SB_OK;
    }
    sqlite3_bind_int64(w->del_p, 1, pid);
    if ((rc = step_done(w->db, w->del_p, e, "point replace"))) return rc;
    w->st->points_updated++;
    return SB_OK;
}

/* Point o's metrics and worker output, under row pid. */
static int write_point_metrics_log(writer *w, json_t *o, int64_t pid, sb_err *e)
{
    size_t j;
    json_t *v;
    int rc;
    json_array_foreach(json_object_get(o, "metrics"), j, v)
    {
        json_t *proj = json_object_get(v, "projected");
        /* a clock an older sprbench derived from a wrong name (7.5 GHz): no clock */
        if (sb_peak_clock_impossible(json_string_value(json_object_get(v, "name")),
                                     json_number_value(json_object_get(v, "value"))))
            continue;
        sqlite3_bind_int64(w->ins_metric, 1, pid);
        bind_json(w->ins_metric, 2, json_object_get(v, "name"));
        sqlite3_bind_double(w->ins_metric, 3, json_number_value(json_object_get(v, "value")));
        bind_json(w->ins_metric, 4, json_object_get(v, "unit"));
        sqlite3_bind_int(w->ins_metric, 5,
                         json_is_true(proj) || (json_is_integer(proj) && json_integer_value(proj)));
        bind_json(w->ins_metric, 6, json_object_get(v, "source"));
        if ((rc = step_done(w->db, w->ins_metric, e, "metric insert"))) return rc;
        w->st->metrics_added++;
    }
    json_t *lg = json_object_get(o, "log");
    if (json_is_object(lg)) {
        sqlite3_bind_int64(w->ins_log, 1, pid);
        bind_json(w->ins_log, 2, json_object_get(lg, "stdout"));
        bind_json(w->ins_log, 3, json_object_get(lg, "stdout_bytes"));
        bind_json(w->ins_log, 4, json_object_get(lg, "stderr"));
        bind_json(w->ins_log, 5, json_object_get(lg, "stderr_bytes"));
        if ((rc = step_done(w->db, w->ins_log, e, "point log insert"))) return rc;
    }
    return SB_OK;
}

/* Point o (unless present here already): its row on its sweep and machine,
 * samples, pairing, metrics and worker output. */
static int write_point(writer *w, json_t *o, sb_err *e)
{
    int skip, rc;
    if ((rc = point_take(w, o, &skip, e)) || skip) return rc;
    for (int c = 0; c < NCOLS(g_point_cols); c++)
        bind_json(w->ins_p, c + 1, json_object_get(o, g_point_cols[c].name));
    sqlite3_bind_int64(w->ins_p, NCOLS(g_point_cols) + 1,
                       map_find(w->smap, w->ns, str_or_null(o, "sweep")));
    int64_t mid = map_find(w->mmap, w->nm, str_or_null(o, "machine"));
    if (mid) sqlite3_bind_int64(w->ins_p, NCOLS(g_point_cols) + 2, mid);
    if ((rc = step_done(w->db, w->ins_p, e, "point insert"))) return rc;
    int64_t pid = sqlite3_last_insert_rowid(sb_db_handle(w->db));
    json_t *pairing = json_object_get(o, "pairing");
    if ((rc = sb_db_insert_samples(w->db, w->ins_sample, pid, json_object_get(o, "samples"),
                                   pairing, e)))
        return rc;
    w->st->samples_added += (long)json_array_size(pairing ? json_object_get(pairing, "samples")
                                                          : json_object_get(o, "samples"));
    if (pairing) {
        sqlite3_bind_int64(w->ins_pairing, 1, pid);
        bind_json(w->ins_pairing, 2, json_object_get(pairing, "mode"));
        bind_json(w->ins_pairing, 3, json_object_get(pairing, "baseline"));
        bind_json(w->ins_pairing, 4, json_object_get(pairing, "candidate"));
        if ((rc = step_done(w->db, w->ins_pairing, e, "pairing insert"))) return rc;
    }
    return write_point_metrics_log(w, o, pid, e);
}

static int write_doc(sb_db *db, json_t *doc, sb_import_stats *st, sb_err *e)
{
    json_t *machines = json_object_get(doc, "machines"), *sweeps = json_object_get(doc, "sweeps"),
           *points = json_object_get(doc, "points");
    writer w = {.db = db, .st = st};
    w.nm = json_array_size(machines);
    w.ns = json_array_size(sweeps);
    w.mmap = calloc(w.nm + 1, sizeof *w.mmap);
    w.smap = calloc(w.ns + 1, sizeof *w.smap);
    int rc = SB_OK;
    if (!w.mmap || !w.smap) {
        rc = sb_errf(e, SB_EFAIL, "out of memory");
        goto out;
    }
    if ((rc = writer_prepare(&w, e)) || (rc = write_machines(&w, machines, e)) ||
        (rc = write_sweeps(&w, sweeps, e)))
        goto out;
    size_t i;
    json_t *o;
    json_array_foreach(points, i, o)
    {
        if ((rc = write_point(&w, o, e))) goto out;
    }
out:
    writer_finalize(&w);
    return rc;
}

/* The instruction path a GEMM point's kernel ran, as `sprbench gemm` names it
 * now: what the point recorded (peak_path), else what the vendor library said
 * it dispatched (impl: "brg:avx512_core_amx_bf16" ran AMX, not the dtype's
 * AVX-512 path), else the kernel's own; the scalar reference is measured
 * against the plain f32 peak where one is stored. */
static const char *ran_path(sb_db *db, int64_t machine, const char *kernel, json_t *res)
{
    const char *pp = json_string_value(json_object_get(res, "peak_path"));
    if (pp && *pp) return pp;
    const sb_kernel *k = sb_kernel_find(kernel);
    if (!k) return NULL;
    /* only a vendor's impl names an ISA ("avxvnni:vpdpbusd" of our own
     * kernel names its instructions) */
    const char *impl = !sb_vendor_of_kernel(kernel)
        ? NULL
        : json_string_value(json_object_get(res, "impl"));
    const char *path = sb_peak_path_ran(k, impl && *impl ? impl : NULL);
    if (!strcmp(path, "scalar"))
        return sb_db_peak_per_core(db, machine, "f32") > 0 ? "f32" : "avx2_f32";
    return path;
}

/* pct_peak of the GEMM points an import added, recomputed against the peak
 * stored for the path each kernel ran (an older sprbench measured against
 * another path): a figure above 100 % of its own path's peak is then a
 * finding about that peak, not an artefact. Without a stored peak of that
 * path the record's figure stays as recorded; one that agrees already is not
 * touched (an export imported again is the same, bit for bit). */
static int repeak_imported(sb_db *db, int64_t after_id, sb_err *e)
{
    sqlite3_stmt *sel = NULL, *del = NULL, *ins = NULL;
    int rc;
    if ((rc = sb_db_prepare(db, "pct_peak",
                            "SELECT p.id, p.machine_id, p.kernel, p.threads, p.result_json, g.value,"
                            " c.value, COALESCE(c.unit, ''), COALESCE(p.sweep_id, 0)"
                            " FROM point p JOIN metric g ON g.point_id = p.id"
                            " AND g.name IN ('gflops', 'gops')"
                            " LEFT JOIN metric c ON c.point_id = p.id AND c.name = 'pct_peak'"
                            " WHERE p.id > ? AND p.workload = 'gemm' AND p.status = 'ok'"
                            " AND p.machine_id IS NOT NULL",
                            &sel, e)) ||
        (rc = sb_db_prepare(db, "pct_peak",
                            "DELETE FROM metric WHERE point_id = ? AND name = 'pct_peak'", &del,
                            e)) ||
        (rc = sb_db_prepare(db, "pct_peak",
                            "INSERT INTO metric (point_id, name, value, unit, projected, source)"
                            " VALUES (?, 'pct_peak', ?, ?, 0, ?)",
                            &ins, e)))
        goto out;
    sqlite3_bind_int64(sel, 1, after_id);
    int step;
    while ((step = sqlite3_step(sel)) == SQLITE_ROW) {
        int64_t pid = sqlite3_column_int64(sel, 0), mid = sqlite3_column_int64(sel, 1);
        const char *kernel = (const char *)sqlite3_column_text(sel, 2);
        int threads = sqlite3_column_int(sel, 3);
        const char *rj = (const char *)sqlite3_column_text(sel, 4);
        double gf = sqlite3_column_double(sel, 5);
        json_t *res = rj ? json_loads(rj, 0, NULL) : NULL;
        const char *path = kernel ? ran_path(db, mid, kernel, res) : NULL;
        double peak =
            path ? sb_db_peak_per_core_in(db, mid, path, sqlite3_column_int64(sel, 8)) : 0;
        char unit[96], src[160];
        snprintf(unit, sizeof unit, "%% of %.60s peak", path ? path : "?");
        snprintf(src, sizeof src, "recomputed on import against the stored %.60s peak x %d threads",
                 path ? path : "?", threads > 0 ? threads : 1);
        json_decref(res);
        if (!(peak > 0) || !(gf > 0)) continue;
        double pct = 100.0 * gf / (peak * (threads > 0 ? threads : 1));
        int had = sqlite3_column_type(sel, 6) != SQLITE_NULL;
        double old = sqlite3_column_double(sel, 6);
        /* a point the record gave no share keeps none: recomputed, not invented */
        if (!had || (fabs(old - pct) <= 1e-9 * fabs(pct) &&
                     !strcmp((const char *)sqlite3_column_text(sel, 7), unit)))
            continue;
        sqlite3_bind_int64(del, 1, pid);
        if ((rc = step_done(db, del, e, "pct_peak"))) goto out;
        sqlite3_bind_int64(ins, 1, pid);
        sqlite3_bind_double(ins, 2, pct);
        sqlite3_bind_text(ins, 3, unit, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(ins, 4, src, -1, SQLITE_TRANSIENT);
        if ((rc = step_done(db, ins, e, "pct_peak"))) goto out;
    }
    if (step != SQLITE_DONE) rc = sb_db_fail(e, db, "pct_peak");
out:
    sqlite3_finalize(sel);
    sqlite3_finalize(del);
    sqlite3_finalize(ins);
    return rc;
}

static int64_t max_point_id(sb_db *db)
{
    sqlite3_stmt *st;
    int64_t id = 0;
    if (sqlite3_prepare_v2(sb_db_handle(db), "SELECT COALESCE(MAX(id), 0) FROM point", -1, &st,
                           NULL) != SQLITE_OK)
        return 0;
    if (sqlite3_step(st) == SQLITE_ROW) id = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return id;
}

int sb_import_doc(sb_db *db, json_t *doc, const char *name, sb_import_stats *st, sb_err *e)
{
    sb_import_stats local = {0};
    int rc = validate(doc, name, e);
    if (rc) return rc;
    if ((rc = sb_db_begin(db, e))) return rc;
    int64_t before = max_point_id(db);
    if ((rc = write_doc(db, doc, &local, e)) || (rc = repeak_imported(db, before, e))) {
        sb_db_rollback(db);
        return rc;
    }
    if ((rc = sb_db_commit(db, e))) return rc;
    if (st) *st = local;
    return SB_OK;
}

int sb_import_text(sb_db *db, const char *text, size_t len, const char *name, sb_import_stats *st,
                   sb_err *e)
{
    json_error_t je;
    /* Duplicate keys are refused: which of two values "counts" would be a guess. */
    json_t *doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    if (!doc)
        return sb_errf(e, SB_EUSAGE, "%s:%d:%d: invalid JSON: %s", name, je.line, je.column,
                       je.text);
    int rc = sb_import_doc(db, doc, name, st, e);
    json_decref(doc);
    return rc;
}

int sb_import_check_file(const char *path, sb_err *e)
{
    char *text;
    size_t len;
    int rc = sb_read_file_max(path, IMPORT_MAX, "results export", &text, &len, e);
    if (rc) return rc;
    json_error_t je;
    json_t *doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    free(text);
    if (!doc)
        return sb_errf(e, SB_EUSAGE, "%s:%d:%d: invalid JSON: %s", path, je.line, je.column,
                       je.text);
    rc = validate(doc, path, e);
    json_decref(doc);
    return rc;
}

int sb_import_file(sb_db *db, const char *path, sb_import_stats *st, sb_err *e)
{
    char *text;
    size_t len;
    int rc = sb_read_file_max(path, IMPORT_MAX, "results export", &text, &len, e);
    if (rc) return rc;
    rc = sb_import_text(db, text, len, path, st, e);
    free(text);
    return rc;
}

int sb_merge_db(sb_db *db, const char *src_path, sb_import_stats *st, sb_err *e)
{
    /* the source is only read: opened read-only, it is never migrated,
     * switched to WAL or otherwise touched */
    sb_db *src;
    int rc = sb_db_open_readonly(src_path, &src, e);
    if (rc) return rc;
    json_t *doc;
    rc = sb_export_doc(src, 0, &doc, NULL, e);
    sb_db_close(src);
    if (rc == SB_EUSAGE && e) { /* what the source holds: named by its file */
        char msg[sizeof e->msg];
        snprintf(msg, sizeof msg, "%s", e->msg);
        sb_errf(e, SB_EUSAGE, "%s: %s", src_path, msg);
    }
    if (rc) return rc;
    rc = sb_import_doc(db, doc, src_path, st, e);
    json_decref(doc);
    return rc;
}

/* ---- CSV ---- */

static void csv_text_raw(FILE *f, const char *s)
{
    /* A cell a spreadsheet would run as a formula gets a leading quote. */
    int formula = strchr("=+-@\t\r", s[0]) != NULL && s[0];
    int quote = formula || strpbrk(s, ",\"\n\r") != NULL || (s[0] == ' ');
    if (!quote) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    if (formula) fputc('\'', f);
    for (; *s; s++) {
        if (*s == '"') fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

/* A CSV often goes to stdout, where a CI runner reads it: stored text keeps
 * its line breaks and tabs (quoted, as CSV allows) but no other control
 * character (an ESC would drive the reader's terminal), and its workflow
 * commands are defused (sb_text_defuse), as every other output shows them. */
static void csv_text(FILE *f, const char *s)
{
    if (!s) s = "";
    char *c = strdup(s);
    if (!c) {
        csv_text_raw(f, "?");
        return;
    }
    for (unsigned char *p = (unsigned char *)c; *p; p++)
        if ((*p < 0x20 && *p != '\n' && *p != '\t') || *p == 0x7f) *p = '?';
    sb_text_defuse(c);
    csv_text_raw(f, c);
    free(c);
}

/* A point's stack cells: "" for a field its stack lacks (not readable
 * there), "not recorded" in every one when its result has none. */
static int csv_stack(sb_db *db, int64_t point_id, FILE *f, sb_err *e)
{
    json_t *doc = NULL;
    int rc = sb_db_point_result(db, point_id, &doc, e);
    json_t *st = json_object_get(doc, "stack");
    for (int k = 0; !rc && k < sb_stack_nfields(); k++) {
        fputc(',', f);
        const char *v = json_string_value(json_object_get(st, sb_stack_field_at(k)->key));
        csv_text(f, json_is_object(st) ? (v ? v : "") : "not recorded");
    }
    json_decref(doc);
    return rc;
}

static int cmp_cstr(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int sb_export_csv(sb_db *db, int64_t sweep_id, FILE *f, sb_err *e)
{
    sb_ptset set;
    int rc = sb_ptset_load(db, 0, sweep_id, &set, e);
    if (rc) return rc;
    /* the union of metric names, sorted, one column each */
    char **names = NULL;
    int nn = 0, cap = 0;
    for (int i = 0; i < set.n; i++)
        for (int j = 0; j < set.p[i].nmetrics; j++) {
            const char *m = set.p[i].metrics[j].name;
            int seen = 0;
            for (int k = 0; k < nn && !seen; k++) seen = !strcmp(names[k], m);
            if (seen) continue;
            if (nn == cap) {
                cap = cap ? 2 * cap : 16;
                char **nw = realloc(names, sizeof *nw * (size_t)cap);
                if (!nw) {
                    free(names);
                    sb_ptset_free(&set);
                    return sb_errf(e, SB_EFAIL, "out of memory");
                }
                names = nw;
            }
            names[nn++] = set.p[i].metrics[j].name;
        }
    if (nn) qsort(names, (size_t)nn, sizeof *names, cmp_cstr);
    sqlite3_stmt *st = NULL;
    rc = sb_db_prepare(db, "CSV export",
                       "SELECT s.uuid, COALESCE(s.label, ''), COALESCE(m.hostname, ''),"
                       " COALESCE(m.cpu_model, '') FROM point p JOIN sweep s ON s.id = p.sweep_id"
                       " LEFT JOIN machine m ON m.id = COALESCE(p.machine_id, s.machine_id)"
                       " WHERE p.id = ?",
                       &st, e);
    if (!rc) {
        fputs("point_uuid,sweep_uuid,sweep_label,machine_fingerprint,hostname,cpu_model,workload,"
              "kernel,dtype,shape,threads,ppn,nodes,ranks,status,reason,n_samples,samples_min_s,"
              "samples_p10_s,samples_median_s,samples_p90_s,projected_metrics",
              f);
        /* the software each point ran on (bench/sb_stack), before the metrics */
        for (int k = 0; k < sb_stack_nfields(); k++)
            fprintf(f, ",stack_%s", sb_stack_field_at(k)->key);
        for (int k = 0; k < nn; k++) {
            fputc(',', f);
            csv_text(f, names[k]);
        }
        fputc('\n', f);
        for (int i = 0; i < set.n; i++) {
            const sb_pt *p = &set.p[i];
            sqlite3_bind_int64(st, 1, p->id);
            int step = sqlite3_step(st), have = step == SQLITE_ROW;
            if (!have && step != SQLITE_DONE) {
                rc = sb_db_fail(e, db, "CSV export");
                break;
            }
            csv_text(f, p->uuid);
            for (int c = 0; c < 4; c++) {
                fputc(',', f);
                if (c == 2) csv_text(f, p->fingerprint), fputc(',', f);
                char *cell = have ? sb_db_column_repaired(st, c) : NULL;
                csv_text(f, cell ? cell : "");
                free(cell);
            }
            sqlite3_reset(st);
            const char *txt[] = {p->workload, p->kernel, p->dtype, p->shape};
            for (int c = 0; c < 4; c++) {
                fputc(',', f);
                csv_text(f, txt[c]);
            }
            fprintf(f, ",%d,%d,%d,%d,", p->threads, p->ppn, p->nodes, p->ppn * p->nodes);
            csv_text(f, p->status);
            fputc(',', f);
            csv_text(f, p->reason);
            fprintf(f, ",%d", p->nsamples);
            if (p->nsamples)
                fprintf(f, ",%.9g,%.9g,%.9g,%.9g", sb_quantile(p->samples, p->nsamples, 0),
                        sb_quantile(p->samples, p->nsamples, 0.1),
                        sb_median(p->samples, p->nsamples),
                        sb_quantile(p->samples, p->nsamples, 0.9));
            else
                fputs(",,,,", f);
            fputc(',', f);
            char proj[1024] = "";
            for (int j = 0; j < p->nmetrics; j++)
                if (p->metrics[j].projected &&
                    strlen(proj) + strlen(p->metrics[j].name) + 2 < sizeof proj)
                    strcat(strcat(proj, proj[0] ? ";" : ""), p->metrics[j].name);
            csv_text(f, proj);
            rc = csv_stack(db, p->id, f, e);
            if (rc) break;
            for (int k = 0; k < nn; k++) {
                const sb_metric_val *m = sb_pt_metric(p, names[k]);
                if (m)
                    fprintf(f, ",%.9g", m->value);
                else
                    fputc(',', f);
            }
            fputc('\n', f);
        }
    }
    sqlite3_finalize(st);
    free(names);
    sb_ptset_free(&set);
    if (!rc && ferror(f)) rc = sb_errf(e, SB_EFAIL, "CSV: write error");
    return rc;
}

int sb_export_csv_file(sb_db *db, int64_t sweep_id, const char *path, sb_err *e)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return sb_errf(e, SB_EFAIL, "out of memory");
    int rc = sb_export_csv(db, sweep_id, f, e);
    fclose(f);
    if (!rc) rc = sb_write_file_atomic(path, buf, len, e);
    free(buf);
    return rc;
}
