#include "sb_import.h"
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
#include "sb_import_check.h"

/* ---- import: writing ---- */

/* "INSERT INTO t (a, b, ..., extra) VALUES (?, ?, ..., ?)" */
static void insert_sql(char *sql, size_t cap, const char *table, const column *cols, int n,
                       const char *extra, int nextra)
{
    snprintf(sql, cap, "INSERT INTO %s (", table);
    sb_export_append_cols(sql, cap, "", cols, n);
    size_t len = strlen(sql);
    snprintf(sql + len, cap - len, "%s) VALUES (", extra);
    for (int i = 0; i < n + nextra; i++) {
        len = strlen(sql);
        snprintf(sql + len, cap - len, "%s?", i ? ", " : "");
    }
    strncat(sql, ")", cap - strlen(sql) - 1);
}

/* id of the row whose text column `col` equals s (0 when none) */
static int lookup_id(sb_db *db, sqlite3_stmt *st, const char *s, int64_t *id, sb_err *e)
{
    sb_db_arg a[] = {SB_DB_TEXT(s)};
    *id = 0;
    return sb_db_stmt(db, st, "lookup", a, 1, sb_db_int64_row, id, e);
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
    int n = sb_export_machine_ncols, at = -1, info = -1;
    size_t len = (size_t)snprintf(sql, cap, "UPDATE machine SET ");
    for (int i = 1; i < n && len < cap; i++) {
        len += (size_t)snprintf(sql + len, cap - len, "%s%s = ?%d", i > 1 ? ", " : "",
                                sb_export_machine_cols[i].name, i + 1);
        if (!strcmp(sb_export_machine_cols[i].name, "first_seen")) at = i + 1;
        if (!strcmp(sb_export_machine_cols[i].name, "info_json")) info = i + 1;
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
    insert_sql(sql, sizeof sql, "machine", sb_export_machine_cols, sb_export_machine_ncols, "", 0);
    if ((rc = sb_db_prepare(db, "prepare", sql, &w->ins_m, e))) return rc;
    if ((rc = update_machine_sql(sql, sizeof sql)) ||
        (rc = sb_db_prepare(db, "prepare", sql, &w->upd_m, e)))
        return rc ? rc : sb_errf(e, SB_EFAIL, "machine update: statement too long");
    insert_sql(sql, sizeof sql, "sweep", sb_export_sweep_cols, sb_export_sweep_ncols,
               ", machine_id", 1);
    if ((rc = sb_db_prepare(db, "prepare", sql, &w->ins_s, e))) return rc;
    insert_sql(sql, sizeof sql, "point", sb_export_point_cols, sb_export_point_ncols,
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

/* The most parameters a row of the import binds: a table's columns and
 * the ids it refers to. */
#define MAX_ARGS 48

/* Record o as a row of cols (parameters 1..n of st, by name), then the
 * parameters in extra: "what" names the statement if it fails. */
static int write_row(writer *w, sqlite3_stmt *st, const char *what, json_t *o, const column *cols,
                     int n, const sb_db_arg *extra, int nextra, sb_err *e)
{
    sb_db_arg a[MAX_ARGS];
    if (n + nextra > MAX_ARGS) return sb_errf(e, SB_EFAIL, "%s: too many columns", what);
    for (int c = 0; c < n; c++) a[c] = SB_DB_JSON(json_object_get(o, cols[c].name));
    for (int k = 0; k < nextra; k++) a[n + k] = extra[k];
    return sb_db_stmt(w->db, st, what, a, n + nextra, NULL, NULL, e);
}

/* Each machine: the row of that fingerprint here, else a new one. */
static int write_machines(writer *w, json_t *machines, sb_err *e)
{
    size_t i;
    json_t *o;
    int rc;
    json_array_foreach(machines, i, o)
    {
        const char *fp = sb_import_str_or_null(o, "fingerprint");
        if ((rc = lookup_id(w->db, w->find_m, fp, &w->mmap[i].id, e))) return rc;
        w->mmap[i].fp = fp;
        int known = w->mmap[i].id != 0; /* known: described as first seen */
        if ((rc = write_row(w, known ? w->upd_m : w->ins_m,
                            known ? "machine update" : "machine insert", o, sb_export_machine_cols,
                            sb_export_machine_ncols, NULL, 0, e)))
            return rc;
        if (known) continue;
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
        const char *uuid = sb_import_str_or_null(o, "uuid");
        if ((rc = lookup_id(w->db, w->find_s, uuid, &w->smap[i].id, e))) return rc;
        w->smap[i].fp = uuid;
        if (w->smap[i].id) continue;
        int64_t mid = map_find(w->mmap, w->nm, sb_import_str_or_null(o, "machine"));
        sb_db_arg m[] = {SB_DB_ID(mid)};
        if ((rc = write_row(w, w->ins_s, "sweep insert", o, sb_export_sweep_cols,
                            sb_export_sweep_ncols, m, 1, e)))
            return rc;
        w->smap[i].id = sqlite3_last_insert_rowid(sb_db_handle(w->db));
        w->st->sweeps_added++;
    }
    return SB_OK;
}

/* Whether a point's status (column 0) is one a sweep has yet to finish. */
static int open_row(sqlite3_stmt *st, void *ctx, sb_err *e)
{
    (void)e;
    *(int *)ctx = unfinished((const char *)sqlite3_column_text(st, 0));
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
    if ((rc = lookup_id(w->db, w->find_p, sb_import_str_or_null(o, "uuid"), &pid, e))) return rc;
    if (!pid) {
        w->st->points_added++;
        return SB_OK;
    }
    /* The same point finished since the copy here was made (a resumed
     * sweep exported again): the finished one replaces the unfinished. */
    int here_open = 0;
    sb_db_arg id[] = {SB_DB_INT(pid)};
    if ((rc = sb_db_stmt(w->db, w->status_p, "point lookup", id, 1, open_row, &here_open, e)))
        return rc;
    if (!here_open || unfinished(sb_import_str_or_null(o, "status"))) {
        w->st->points_present++;
        *skip = 1;
        return SB_OK;
    }
    if ((rc = sb_db_stmt(w->db, w->del_p, "point replace", id, 1, NULL, NULL, e))) return rc;
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
        sb_db_arg a[] = {SB_DB_INT(pid),
                         SB_DB_JSON(json_object_get(v, "name")),
                         SB_DB_REAL(json_number_value(json_object_get(v, "value"))),
                         SB_DB_JSON(json_object_get(v, "unit")),
                         SB_DB_INT(json_is_true(proj) ||
                                   (json_is_integer(proj) && json_integer_value(proj))),
                         SB_DB_JSON(json_object_get(v, "source"))};
        if ((rc = sb_db_stmt(w->db, w->ins_metric, "metric insert", a, SB_DB_NARGS(a), NULL, NULL,
                             e)))
            return rc;
        w->st->metrics_added++;
    }
    json_t *lg = json_object_get(o, "log");
    if (json_is_object(lg)) {
        sb_db_arg a[] = {SB_DB_INT(pid), SB_DB_JSON(json_object_get(lg, "stdout")),
                         SB_DB_JSON(json_object_get(lg, "stdout_bytes")),
                         SB_DB_JSON(json_object_get(lg, "stderr")),
                         SB_DB_JSON(json_object_get(lg, "stderr_bytes"))};
        if ((rc = sb_db_stmt(w->db, w->ins_log, "point log insert", a, SB_DB_NARGS(a), NULL, NULL,
                             e)))
            return rc;
    }
    return SB_OK;
}

/* Point o (unless present here already): its row on its sweep and machine,
 * samples, pairing, metrics and worker output. */
static int write_point(writer *w, json_t *o, sb_err *e)
{
    int skip, rc;
    if ((rc = point_take(w, o, &skip, e)) || skip) return rc;
    int64_t mid = map_find(w->mmap, w->nm, sb_import_str_or_null(o, "machine"));
    sb_db_arg ids[] = {SB_DB_INT(map_find(w->smap, w->ns, sb_import_str_or_null(o, "sweep"))),
                       SB_DB_ID(mid)};
    if ((rc = write_row(w, w->ins_p, "point insert", o, sb_export_point_cols,
                        sb_export_point_ncols, ids, 2, e)))
        return rc;
    int64_t pid = sqlite3_last_insert_rowid(sb_db_handle(w->db));
    json_t *pairing = json_object_get(o, "pairing");
    if ((rc = sb_db_insert_samples(w->db, w->ins_sample, pid, json_object_get(o, "samples"),
                                   pairing, e)))
        return rc;
    w->st->samples_added += (long)json_array_size(pairing ? json_object_get(pairing, "samples")
                                                          : json_object_get(o, "samples"));
    if (pairing) {
        sb_db_arg a[] = {SB_DB_INT(pid), SB_DB_JSON(json_object_get(pairing, "mode")),
                         SB_DB_JSON(json_object_get(pairing, "baseline")),
                         SB_DB_JSON(json_object_get(pairing, "candidate"))};
        if ((rc = sb_db_stmt(w->db, w->ins_pairing, "pairing insert", a, SB_DB_NARGS(a), NULL,
                             NULL, e)))
            return rc;
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

/* The statements that replace a point's pct_peak (repeak_imported). */
typedef struct repeak {
    sb_db *db;
    sqlite3_stmt *del, *ins;
} repeak;

/* A GEMM point an import added (id, machine, kernel, threads, result,
 * gflops or gops, its recorded pct_peak and unit, sweep): its pct_peak
 * against its own path's stored peak. */
static int repeak_row(sqlite3_stmt *sel, void *ctx, sb_err *e)
{
    repeak *r = ctx;
    sb_db *db = r->db;
    int64_t pid = sqlite3_column_int64(sel, 0), mid = sqlite3_column_int64(sel, 1);
    const char *kernel = (const char *)sqlite3_column_text(sel, 2);
    int threads = sqlite3_column_int(sel, 3);
    const char *rj = (const char *)sqlite3_column_text(sel, 4);
    double gf = sqlite3_column_double(sel, 5);
    json_t *res = rj ? json_loads(rj, 0, NULL) : NULL;
    const char *path = kernel ? ran_path(db, mid, kernel, res) : NULL;
    double peak = path ? sb_db_peak_per_core_in(db, mid, path, sqlite3_column_int64(sel, 8)) : 0;
    char unit[96], src[160];
    double pct = sb_pct_peak(gf, peak, threads, path, unit, sizeof unit);
    snprintf(src, sizeof src, "recomputed on import against the stored %.60s peak x %d threads",
             path ? path : "?", threads > 0 ? threads : 1);
    json_decref(res);
    if (!(peak > 0) || !(gf > 0)) return SB_OK;
    int had = sqlite3_column_type(sel, 6) != SQLITE_NULL;
    double old = sqlite3_column_double(sel, 6);
    /* a point the record gave no share keeps none: recomputed, not invented */
    if (!had || (fabs(old - pct) <= 1e-9 * fabs(pct) &&
                 !strcmp((const char *)sqlite3_column_text(sel, 7), unit)))
        return SB_OK;
    sb_db_arg id[] = {SB_DB_INT(pid)};
    sb_db_arg a[] = {SB_DB_INT(pid), SB_DB_REAL(pct), SB_DB_TEXT(unit), SB_DB_TEXT(src)};
    int rc;
    if ((rc = sb_db_stmt(db, r->del, "pct_peak", id, 1, NULL, NULL, e)) ||
        (rc = sb_db_stmt(db, r->ins, "pct_peak", a, SB_DB_NARGS(a), NULL, NULL, e)))
        return rc;
    return SB_OK;
}

/* pct_peak of the GEMM points an import added, recomputed against the peak
 * stored for the path each kernel ran (an older sprbench measured against
 * another path): a figure above 100 % of its own path's peak is then a
 * finding about that peak, not an artefact. Without a stored peak of that
 * path the record's figure stays as recorded; one that agrees already is not
 * touched (an export imported again is the same, bit for bit). */
static int repeak_imported(sb_db *db, int64_t after_id, sb_err *e)
{
    repeak r = {db, NULL, NULL};
    int rc;
    if (!(rc = sb_db_prepare(db, "pct_peak",
                             "DELETE FROM metric WHERE point_id = ? AND name = 'pct_peak'", &r.del,
                             e)) &&
        !(rc = sb_db_prepare(db, "pct_peak",
                             "INSERT INTO metric (point_id, name, value, unit, projected, source)"
                             " VALUES (?, 'pct_peak', ?, ?, 0, ?)",
                             &r.ins, e))) {
        sb_db_arg a[] = {SB_DB_INT(after_id)};
        rc = sb_db_rows(db, "pct_peak",
                        "SELECT p.id, p.machine_id, p.kernel, p.threads, p.result_json, g.value,"
                        " c.value, COALESCE(c.unit, ''), COALESCE(p.sweep_id, 0)"
                        " FROM point p JOIN metric g ON g.point_id = p.id"
                        " AND g.name IN ('gflops', 'gops')"
                        " LEFT JOIN metric c ON c.point_id = p.id AND c.name = 'pct_peak'"
                        " WHERE p.id > ? AND p.workload = 'gemm' AND p.status = 'ok'"
                        " AND p.machine_id IS NOT NULL",
                        a, 1, repeak_row, &r, e);
    }
    sqlite3_finalize(r.del);
    sqlite3_finalize(r.ins);
    return rc;
}

static int64_t max_point_id(sb_db *db)
{
    int64_t id = 0;
    sb_db_rows(db, "point ids", "SELECT COALESCE(MAX(id), 0) FROM point", NULL, 0,
               sb_db_int64_row, &id, NULL);
    return id;
}

int sb_import_doc(sb_db *db, json_t *doc, const char *name, sb_import_stats *st, sb_err *e)
{
    sb_import_stats local = {0};
    int rc = sb_import_validate(doc, name, e);
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
    rc = sb_import_validate(doc, path, e);
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
