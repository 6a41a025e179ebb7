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
#include "sb_export_internal.h"

const column sb_export_machine_cols[] = {
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
const column sb_export_sweep_cols[] = {
    {"uuid", 'T', 0, 0, 32},
    {"label", 'T', 0, 0, SB_DB_MAX_NAME},
    {"workload", 'T', 0, 0, SB_DB_MAX_WORD},
    {"plan", 'T', 0, 0, SB_DB_MAX_DOC},
    {"started", 'T', 0, 0, 64},
    {"finished", 'T', 0, 0, 64},
    {"tool_version", 'T', 0, 0, SB_DB_MAX_NAME},
    {"status", 'T', 0, 0, SB_DB_MAX_WORD},
};
const column sb_export_point_cols[] = {
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
const int sb_export_machine_ncols = (int)(sizeof sb_export_machine_cols /
                                          sizeof sb_export_machine_cols[0]);
const int sb_export_sweep_ncols = (int)(sizeof sb_export_sweep_cols /
                                        sizeof sb_export_sweep_cols[0]);
const int sb_export_point_ncols = (int)(sizeof sb_export_point_cols /
                                        sizeof sb_export_point_cols[0]);

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

void sb_export_append_cols(char *sql, size_t cap, const char *prefix, const column *cols, int n)
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

/* What an export's row functions add to: the array of the rows so far, the
 * count of repaired texts, and for points the statements that read what a
 * point carries besides its columns. */
typedef struct point_reads point_reads;
typedef struct export_to {
    sb_db *db;
    const point_reads *r;
    json_t *arr;
    long *fixed;
    int64_t pid; /* a point's reads: the point */
    json_t *p;   /* and its object */
} export_to;

/* The rows of "HEAD cols TAIL" (each column named with prefix) for
 * sweep_id (parameter 1; 0: all), each handed to row: a failed prepare is
 * named "prepare", a failed read `what`. */
static int export_rows(sb_db *db, const char *head, const char *prefix, const column *cols,
                       int ncols, const char *tail, const char *what, int64_t sweep_id,
                       sb_db_row_fn row, export_to *to, sb_err *e)
{
    char sql[2048];
    snprintf(sql, sizeof sql, "%s", head);
    sb_export_append_cols(sql, sizeof sql, prefix, cols, ncols);
    size_t len = strlen(sql);
    snprintf(sql + len, sizeof sql - len, "%s", tail);
    sqlite3_stmt *st;
    int rc = sb_db_prepare(db, "prepare", sql, &st, e);
    if (rc) return rc;
    sb_db_arg a[] = {SB_DB_INT(sweep_id)};
    rc = sb_db_stmt(db, st, what, a, 1, row, to, e);
    sqlite3_finalize(st);
    return rc;
}

static int machine_row(sqlite3_stmt *st, void *ctx, sb_err *e)
{
    export_to *to = ctx;
    return row_object(st, sb_export_machine_cols, sb_export_machine_ncols, to->arr, NULL,
                      to->fixed, e);
}

/* machines: those the selected sweeps or points refer to (all when whole) */
static int export_machines(sb_db *db, int64_t sweep_id, json_t *machines, long *fixed, sb_err *e)
{
    export_to to = {.arr = machines, .fixed = fixed};
    return export_rows(db, "SELECT ", "", sb_export_machine_cols, sb_export_machine_ncols,
                       " FROM machine WHERE ?1 = 0 OR id IN (SELECT machine_id FROM sweep"
                       " WHERE id = ?1 UNION SELECT machine_id FROM point WHERE sweep_id = ?1)"
                       " ORDER BY id",
                       "reading machines", sweep_id, machine_row, &to, e);
}

static int sweep_row(sqlite3_stmt *st, void *ctx, sb_err *e)
{
    export_to *to = ctx;
    json_t *s;
    int rc;
    if ((rc = row_object(st, sb_export_sweep_cols, sb_export_sweep_ncols, to->arr, &s, to->fixed,
                         e)))
        return rc;
    return put(s, "machine", column_json(st, sb_export_sweep_ncols, 'T', to->fixed), e);
}

static int export_sweeps(sb_db *db, int64_t sweep_id, json_t *sweeps, long *fixed, sb_err *e)
{
    export_to to = {.arr = sweeps, .fixed = fixed};
    return export_rows(db, "SELECT ", "s.", sb_export_sweep_cols, sb_export_sweep_ncols,
                       ", m.fingerprint FROM sweep s LEFT JOIN machine m ON m.id = s.machine_id"
                       " WHERE ?1 = 0 OR s.id = ?1 ORDER BY s.id",
                       "reading sweeps", sweep_id, sweep_row, &to, e);
}

/* What a point carries besides its columns, each read by point id. */
struct point_reads {
    sqlite3_stmt *samples, *pairing, *paired, *metrics, *log;
};

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

/* Why a sample (a "paired " one) of point pid could not be exported: out
 * of memory, or not a finite number, which a database another program
 * wrote may hold: bad input, as an import of it would be. */
static int sample_failed(double v, int64_t pid, const char *kind, sb_err *e)
{
    if (isfinite(v)) return sb_errf(e, SB_EFAIL, "out of memory");
    return sb_errf(e, SB_EUSAGE,
                   "point %lld: a %ssample of %g s is not a finite number of seconds: it cannot"
                   " be exported",
                   (long long)pid, kind, v);
}

static int sample_row(sqlite3_stmt *ss, void *ctx, sb_err *e)
{
    export_to *to = ctx;
    double v = sqlite3_column_double(ss, 0);
    json_t *x = isfinite(v) ? json_real(v) : NULL;
    if (x && !json_array_append_new(to->arr, x)) return SB_OK;
    return sample_failed(v, to->pid, "", e);
}

static int metric_row(sqlite3_stmt *sm, void *ctx, sb_err *e)
{
    export_to *to = ctx;
    json_t *m = json_object();
    json_array_append_new(to->arr, m);
    int rc;
    if (!(rc = put(m, "name", column_json(sm, 0, 'T', to->fixed), e)) &&
        !(rc = put(m, "value", json_real(sqlite3_column_double(sm, 1)), e)) &&
        !(rc = put(m, "unit", column_json(sm, 2, 'T', to->fixed), e)) &&
        !(rc = put(m, "projected", json_integer(sqlite3_column_int(sm, 3)), e)))
        rc = put(m, "source", column_json(sm, 4, 'T', to->fixed), e);
    return rc;
}

/* The worker's output, when one is stored. */
static int log_row(sqlite3_stmt *sl, void *ctx, sb_err *e)
{
    export_to *to = ctx;
    json_t *lg = json_object();
    json_object_set_new(to->p, "log", lg);
    int rc;
    if ((rc = put(lg, "stdout", column_json(sl, 0, 'T', to->fixed), e)) ||
        (rc = put(lg, "stdout_bytes", json_integer(sqlite3_column_int64(sl, 1)), e)) ||
        (rc = put(lg, "stderr", column_json(sl, 2, 'T', to->fixed), e)) ||
        (rc = put(lg, "stderr_bytes", json_integer(sqlite3_column_int64(sl, 3)), e)))
        return rc;
    return SB_DB_STOP;
}

/* A paired sample, with its side and pair as stored, all 64 bits (an
 * import checks them): arr is the pairing object. */
static int paired_row(sqlite3_stmt *spp, void *ctx, sb_err *e)
{
    export_to *to = ctx;
    double v = sqlite3_column_double(spp, 0);
    json_t *x = isfinite(v) ? json_real(v) : NULL;
    if (x && !json_array_append_new(json_object_get(to->arr, "samples"), x) &&
        !json_array_append_new(json_object_get(to->arr, "side"),
                               json_integer(sqlite3_column_int64(spp, 1))) &&
        !json_array_append_new(json_object_get(to->arr, "pair"),
                               json_integer(sqlite3_column_int64(spp, 2))))
        return SB_OK;
    return sample_failed(v, to->pid, "paired ", e);
}

/* A paired point: its two binaries and every sample of both, tagged. */
static int pairing_row(sqlite3_stmt *sp, void *ctx, sb_err *e)
{
    export_to *to = ctx;
    json_t *pr = json_object(), *all = json_array(), *side = json_array(), *pair = json_array();
    json_object_set_new(to->p, "pairing", pr);
    int rc;
    if ((rc = put(pr, "mode", column_json(sp, 0, 'T', to->fixed), e)) ||
        (rc = put(pr, "baseline", column_json(sp, 1, 'T', to->fixed), e)) ||
        (rc = put(pr, "candidate", column_json(sp, 2, 'T', to->fixed), e)) ||
        (rc = put(pr, "samples", all, e)) || (rc = put(pr, "side", side, e)) ||
        (rc = put(pr, "pair", pair, e)))
        return rc;
    export_to in = *to;
    in.arr = pr;
    sb_db_arg id[] = {SB_DB_INT(to->pid)};
    rc = sb_db_stmt(to->db, to->r->paired, "reading paired samples", id, 1, paired_row, &in, e);
    return rc ? rc : SB_DB_STOP;
}

/* One point row of st (id, sweep uuid, machine fingerprint, then
 * sb_export_point_cols), with its samples, metrics, log and pairing. */
static int point_row(sqlite3_stmt *st, void *ctx, sb_err *e)
{
    const export_to *to = ctx;
    long *fixed = to->fixed;
    int64_t pid = sqlite3_column_int64(st, 0);
    int rc;
    if (sqlite3_column_type(st, 1) == SQLITE_NULL)
        return sb_errf(e, SB_EFAIL,
                       "point %lld belongs to no sweep in the database: it cannot"
                       " be exported",
                       (long long)pid);
    json_t *p = json_object();
    json_array_append_new(to->arr, p);
    if ((rc = put(p, "uuid", column_json(st, 3, 'T', fixed), e)) ||
        (rc = put(p, "sweep", column_json(st, 1, 'T', fixed), e)) ||
        (rc = put(p, "machine", column_json(st, 2, 'T', fixed), e)))
        return rc;
    for (int i = 1; i < sb_export_point_ncols && !rc; i++)
        rc = put(p, sb_export_point_cols[i].name,
                 column_json(st, 3 + i, sb_export_point_cols[i].type, fixed), e);
    if (rc) return rc;
    json_t *samples = json_array(), *metrics = json_array();
    json_object_set_new(p, "samples", samples);
    json_object_set_new(p, "metrics", metrics);
    export_to s = {to->db, to->r, samples, fixed, pid, p}, m = s;
    m.arr = metrics;
    sb_db_arg id[] = {SB_DB_INT(pid)};
    sb_db *db = to->db;
    const point_reads *r = to->r;
    if ((rc = sb_db_stmt(db, r->samples, "reading samples", id, 1, sample_row, &s, e)) ||
        (rc = sb_db_stmt(db, r->metrics, "reading metrics", id, 1, metric_row, &m, e)) ||
        (rc = sb_db_stmt(db, r->log, "reading worker output", id, 1, log_row, &s, e)) ||
        (rc = sb_db_stmt(db, r->pairing, "reading pairing", id, 1, pairing_row, &s, e)))
        return rc;
    return SB_OK;
}

static int export_points(sb_db *db, int64_t sweep_id, json_t *points, long *fixed, sb_err *e)
{
    point_reads r = {0};
    export_to to = {db, &r, points, fixed, 0, NULL};
    int rc = point_reads_prepare(db, &r, e);
    /* LEFT JOIN: a point whose sweep is gone is named in an error, never
     * left out of the export without a word */
    if (!rc)
        rc = export_rows(db, "SELECT p.id, s.uuid, m.fingerprint, ", "p.", sb_export_point_cols,
                         sb_export_point_ncols,
                         " FROM point p LEFT JOIN sweep s ON s.id = p.sweep_id"
                         " LEFT JOIN machine m ON m.id = p.machine_id"
                         " WHERE ?1 = 0 OR p.sweep_id = ?1 ORDER BY p.id",
                         "reading points", sweep_id, point_row, &to, e);
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

/* A point's sweep and machine as the CSV shows them: its row's four
 * columns, repaired (NULL where out of memory, shown empty). */
static int csv_cells_row(sqlite3_stmt *st, void *ctx, sb_err *e)
{
    (void)e;
    char **cells = ctx;
    for (int c = 0; c < 4; c++) cells[c] = sb_db_column_repaired(st, c);
    return SB_DB_STOP;
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
            char *cells[4] = {NULL, NULL, NULL, NULL};
            sb_db_arg a[] = {SB_DB_INT(p->id)};
            if ((rc = sb_db_stmt(db, st, "CSV export", a, 1, csv_cells_row, cells, e))) break;
            csv_text(f, p->uuid);
            for (int c = 0; c < 4; c++) {
                fputc(',', f);
                if (c == 2) csv_text(f, p->fingerprint), fputc(',', f);
                csv_text(f, cells[c] ? cells[c] : "");
                free(cells[c]);
            }
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
