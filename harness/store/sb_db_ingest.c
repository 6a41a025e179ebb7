#include "sb_db_ingest.h"
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "sb_db_internal.h"
#include "sb_stats.h"
#include "sb_text.h"
#include "sb_workload.h"
#include "sb_db_sweep.h"
#include "sb_peak.h"

#define MAX_METRIC_ABS 1e300

/* What a worker's result must hold before anything of it is stored (the
 * same rules an import applies, so that what a sweep stores exports and
 * imports again). */
static int check_result(json_t *result, const char *workload, sb_err *e)
{
    const char *status = sb_db_jstr(result, "status", NULL);
    if (!status || (strcmp(status, "ok") && strcmp(status, "skipped") && strcmp(status, "failed")))
        return sb_errf(e, SB_EUSAGE, "result has no valid status (ok, skipped or failed)");
    json_t *samples = json_object_get(result, "samples"),
           *metrics = json_object_get(result, "metrics");
    if (samples && !json_is_array(samples))
        return sb_errf(e, SB_EUSAGE, "result samples is not an array");
    if (metrics && !json_is_object(metrics))
        return sb_errf(e, SB_EUSAGE, "result metrics is not an object");
    size_t i;
    json_t *v;
    json_array_foreach(samples, i, v)
    {
        if (!json_is_number(v) || !sb_sample_seconds_ok(json_number_value(v)))
            return sb_errf(e, SB_EUSAGE,
                           "result samples[%zu] is not a number of seconds in [%g, %g]", i,
                           SB_SAMPLE_MIN_S, SB_SAMPLE_MAX_S);
    }
    /* a measured point is its raw samples: "ok" without them would be a
     * figure nothing backs (a probe, the peak, reports rates only) */
    if (!strcmp(status, "ok") && !sb_wl_is(sb_workload_find(workload), SB_WL_PROBE) &&
        json_array_size(samples) == 0)
        return sb_errf(e, SB_EUSAGE, "result has status ok but no samples");
    const char *name;
    json_object_foreach(metrics, name, v)
    {
        char q[256];
        if (!sb_db_token(name, 128))
            return sb_errf(e, SB_EUSAGE, "result metric name '%s' is not [A-Za-z0-9_.:-]{1,128}",
                           sb_text_cell(q, sizeof q, name, 64, 0));
        if (json_is_number(v) &&
            (!isfinite(json_number_value(v)) || fabs(json_number_value(v)) > MAX_METRIC_ABS))
            return sb_errf(e, SB_EUSAGE, "result metric %s is not a finite number", name);
    }
    json_t *pairing = json_object_get(result, "pairing");
    if (pairing && !sb_wl_is(sb_workload_find(workload), SB_WL_PAIRED))
        return sb_errf(e, SB_EUSAGE, "result pairing: %s points are never measured in pairs",
                       workload ? workload : "these");
    int rc = sb_db_check_pairing(pairing, "result pairing", e);
    if (rc) return rc;
    const char *dtype = sb_db_jstr(result, "dtype", NULL);
    char q[160];
    if (dtype && dtype[0] && !sb_db_token(dtype, SB_DB_MAX_WORD))
        return sb_errf(e, SB_EUSAGE, "result dtype '%s' is not a dtype word",
                       sb_text_cell(q, sizeof q, dtype, 32, 0));
    return SB_OK;
}

int sb_db_insert_samples(sb_db *db, sqlite3_stmt *ins, int64_t point_id, json_t *samples,
                         json_t *pairing, sb_err *e)
{
    /* a paired point keeps both sides, tagged: the pairing's samples, not
     * the candidate's alone that "samples" holds */
    json_t *from = pairing ? json_object_get(pairing, "samples") : samples;
    size_t i;
    json_t *v;
    json_array_foreach(from, i, v)
    {
        sqlite3_bind_int64(ins, 1, point_id);
        sqlite3_bind_int(ins, 2, (int)i);
        sqlite3_bind_double(ins, 3, json_number_value(v));
        if (pairing) {
            json_t *side = json_object_get(pairing, "side"),
                   *pair = json_object_get(pairing, "pair");
            sqlite3_bind_int64(ins, 4, json_integer_value(json_array_get(side, i)));
            sqlite3_bind_int64(ins, 5, json_integer_value(json_array_get(pair, i)));
        }
        int rc = sb_db_exec_bound(db, ins, e, "sample insert");
        if (rc) return rc;
    }
    return SB_OK;
}

int sb_db_check_pairing(json_t *pairing, const char *where, sb_err *e)
{
    if (!pairing) return SB_OK;
    if (!json_is_object(pairing)) return sb_errf(e, SB_EUSAGE, "%s: not an object", where);
    const char *mode = sb_db_jstr(pairing, "mode", NULL),
               *base = sb_db_jstr(pairing, "baseline", NULL),
               *cand = sb_db_jstr(pairing, "candidate", NULL);
    if (!mode || (strcmp(mode, "abba") && strcmp(mode, "random") && strcmp(mode, "duet")))
        return sb_errf(e, SB_EUSAGE, "%s.mode: abba, random or duet", where);
    if (!base || !cand)
        return sb_errf(e, SB_EUSAGE, "%s: baseline and candidate must be text", where);
    int rc;
    if ((rc = sb_text_check(base, SB_DB_MAX_TEXT, "pairing baseline", e)) ||
        (rc = sb_text_check(cand, SB_DB_MAX_TEXT, "pairing candidate", e)))
        return rc;
    json_t *sec = json_object_get(pairing, "samples"), *side = json_object_get(pairing, "side"),
           *pair = json_object_get(pairing, "pair");
    if (!json_is_array(sec) || !json_is_array(side) || !json_is_array(pair) ||
        json_array_size(side) != json_array_size(sec) ||
        json_array_size(pair) != json_array_size(sec))
        return sb_errf(e, SB_EUSAGE, "%s: samples, side and pair must be arrays of one length",
                       where);
    size_t i;
    json_t *v;
    /* a pair holds a sample of each side: its number is below the number
     * of samples as well as SB_DB_MAX_PAIR, so that no reader sizes
     * anything by a number the file chose */
    long long max_pair = (long long)json_array_size(sec) - 1;
    if (max_pair > SB_DB_MAX_PAIR) max_pair = SB_DB_MAX_PAIR;
    json_array_foreach(sec, i, v)
    {
        json_t *sd = json_array_get(side, i), *pr = json_array_get(pair, i);
        if (!json_is_number(v) || !sb_sample_seconds_ok(json_number_value(v)))
            return sb_errf(e, SB_EUSAGE, "%s.samples[%zu]: not a number of seconds in [%g, %g]",
                           where, i, SB_SAMPLE_MIN_S, SB_SAMPLE_MAX_S);
        if (!json_is_integer(sd) || (json_integer_value(sd) != 0 && json_integer_value(sd) != 1))
            return sb_errf(e, SB_EUSAGE, "%s.side[%zu]: 0 (baseline) or 1 (candidate)", where, i);
        if (!json_is_integer(pr) || json_integer_value(pr) < 0 || json_integer_value(pr) > max_pair)
            return sb_errf(e, SB_EUSAGE,
                           "%s.pair[%zu]: an integer in [0, %lld], below the number of samples",
                           where, i, max_pair);
    }
    return SB_OK;
}

int sb_db_point_ingest(sb_db *db, int64_t point_id, json_t *result, sb_err *e)
{
    json_t *samples = json_object_get(result, "samples");
    json_t *metrics = json_object_get(result, "metrics");
    json_t *units = json_object_get(result, "units");
    json_t *projected = json_object_get(result, "projected");
    char *binding_s = NULL, *doc = NULL, workload[64] = "";
    int rc = sb_db_begin(db, e);
    if (rc) return rc;
    sqlite3_stmt *get = NULL, *del_s = NULL, *del_m = NULL, *ins_s = NULL, *ins_m = NULL,
                 *upd = NULL, *del_pr = NULL, *ins_pr = NULL;
    json_t *pairing = json_object_get(result, "pairing");
    if (sqlite3_prepare_v2(sb_db_handle(db),
                           "SELECT COALESCE(workload, '') FROM point WHERE id = ?", -1, &get,
                           NULL)) {
        rc = sb_db_fail(e, db, "prepare ingest");
        goto out;
    }
    sqlite3_bind_int64(get, 1, point_id);
    if (sqlite3_step(get) != SQLITE_ROW) {
        rc = sb_errf(e, SB_EFAIL, "point %lld does not exist", (long long)point_id);
        goto out;
    }
    snprintf(workload, sizeof workload, "%s", sqlite3_column_text(get, 0));
    if ((rc = check_result(result, workload[0] ? workload : sb_db_jstr(result, "workload", NULL),
                           e)))
        goto out;
    json_t *binding = json_object_get(result, "binding");
    binding_s = binding ? json_dumps(binding, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
    doc = json_dumps(result, JSON_COMPACT | JSON_PRESERVE_ORDER);
    if (!doc || (binding && !binding_s)) {
        rc = sb_errf(e, SB_EFAIL, "out of memory");
        goto out;
    }
    if (strlen(doc) > SB_DB_MAX_DOC || (binding_s && strlen(binding_s) > SB_DB_MAX_DOC)) {
        rc = sb_errf(e, SB_EUSAGE, "result document is larger than %zu MiB", SB_DB_MAX_DOC >> 20);
        goto out;
    }
    /* Re-ingesting a point replaces what it had, so a resumed point never
     * holds samples from two runs. */
    if (sqlite3_prepare_v2(sb_db_handle(db), "DELETE FROM sample WHERE point_id = ?", -1, &del_s,
                           NULL) ||
        sqlite3_prepare_v2(sb_db_handle(db), "DELETE FROM metric WHERE point_id = ?", -1, &del_m,
                           NULL) ||
        sqlite3_prepare_v2(sb_db_handle(db),
                           "INSERT INTO sample (point_id, rep, seconds, side, pair)"
                           " VALUES (?,?,?,?,?)",
                           -1, &ins_s, NULL) ||
        sqlite3_prepare_v2(sb_db_handle(db), "DELETE FROM point_pairing WHERE point_id = ?", -1,
                           &del_pr, NULL) ||
        sqlite3_prepare_v2(sb_db_handle(db),
                           "INSERT INTO point_pairing (point_id, mode, baseline, candidate)"
                           " VALUES (?,?,?,?)",
                           -1, &ins_pr, NULL) ||
        sqlite3_prepare_v2(sb_db_handle(db),
                           "INSERT INTO metric (point_id, name, value, unit, projected, source)"
                           " VALUES (?,?,?,?,?,?)",
                           -1, &ins_m, NULL) ||
        sqlite3_prepare_v2(sb_db_handle(db),
                           "UPDATE point SET status = ?, reason = ?, finished = ?, binding = ?,"
                           " result_json = ?, dtype = COALESCE(NULLIF(?, ''), dtype)"
                           " WHERE id = ?",
                           -1, &upd, NULL)) {
        rc = sb_db_fail(e, db, "prepare ingest");
        goto out;
    }
    sqlite3_bind_int64(del_s, 1, point_id);
    sqlite3_bind_int64(del_m, 1, point_id);
    sqlite3_bind_int64(del_pr, 1, point_id);
    if ((rc = sb_db_exec_bound(db, del_s, e, "ingest")) ||
        (rc = sb_db_exec_bound(db, del_m, e, "ingest")) ||
        (rc = sb_db_exec_bound(db, del_pr, e, "ingest")))
        goto out;
    if ((rc = sb_db_insert_samples(db, ins_s, point_id, samples, pairing, e))) goto out;
    if (pairing) {
        sqlite3_bind_int64(ins_pr, 1, point_id);
        sb_db_bind_text(ins_pr, 2, sb_db_jstr(pairing, "mode", NULL));
        sb_db_bind_text(ins_pr, 3, sb_db_jstr(pairing, "baseline", NULL));
        sb_db_bind_text(ins_pr, 4, sb_db_jstr(pairing, "candidate", NULL));
        if ((rc = sb_db_exec_bound(db, ins_pr, e, "pairing insert"))) goto out;
    }
    const char *name;
    json_t *v;
    json_object_foreach(metrics, name, v)
    {
        if (!json_is_number(v)) continue; /* strings and tables stay in result_json */
        /* a clock above any CPU's is a wrong per-cycle figure, not a clock */
        if (sb_peak_clock_impossible(name, json_number_value(v))) continue;
        json_t *src = json_object_get(projected, name);
        int is_projected = src != NULL && !json_is_false(src);
        sqlite3_bind_int64(ins_m, 1, point_id);
        sb_db_bind_text(ins_m, 2, name);
        sqlite3_bind_double(ins_m, 3, json_number_value(v));
        sqlite3_bind_int(ins_m, 5, is_projected);
        if (sb_db_bind_repaired(ins_m, 4, sb_db_jstr(units, name, NULL), 64) ||
            sb_db_bind_repaired(ins_m, 6, json_is_string(src) ? json_string_value(src) : NULL,
                                SB_DB_MAX_REASON)) {
            rc = sb_errf(e, SB_EFAIL, "out of memory");
            goto out;
        }
        if ((rc = sb_db_exec_bound(db, ins_m, e, "metric insert"))) goto out;
    }
    char now[32];
    sb_db_now_iso(now);
    const char *reason = sb_db_jstr(result, "reason", NULL);
    sb_db_bind_text(upd, 1, sb_db_jstr(result, "status", NULL));
    sb_db_bind_text(upd, 3, now);
    sb_db_bind_text(upd, 4, binding_s);
    sb_db_bind_text(upd, 5, doc);
    sb_db_bind_text(upd, 6, sb_db_jstr(result, "dtype", NULL));
    sqlite3_bind_int64(upd, 7, point_id);
    if (sb_db_bind_repaired(upd, 2, reason ? reason : "", SB_DB_MAX_REASON)) {
        rc = sb_errf(e, SB_EFAIL, "out of memory");
        goto out;
    }
    rc = sb_db_exec_bound(db, upd, e, "point update");
out:
    free(binding_s);
    free(doc);
    sqlite3_finalize(get);
    sqlite3_finalize(del_s);
    sqlite3_finalize(del_m);
    sqlite3_finalize(ins_s);
    sqlite3_finalize(ins_m);
    sqlite3_finalize(upd);
    sqlite3_finalize(del_pr);
    sqlite3_finalize(ins_pr);
    if (rc) {
        sb_db_rollback(db);
        return rc;
    }
    return sb_db_commit(db, e);
}

/* ---- each point's worker output ---- */

/* The stored form of a stream's tail: its last SB_DB_LOG_BYTES bytes from
 * a character boundary, repaired (a replacement can grow a byte to three:
 * the result is cut to the limit again). */
static char *log_text(const char *s, size_t len)
{
    size_t from = sb_text_tail_start(s ? s : "", s ? len : 0, SB_DB_LOG_BYTES);
    char *r = sb_text_repair(s ? s + from : "", s ? len - from : 0, 0, NULL);
    if (!r) return NULL;
    size_t rlen = strlen(r), cut = sb_text_tail_start(r, rlen, SB_DB_LOG_BYTES);
    if (cut) memmove(r, r + cut, rlen - cut + 1);
    return r;
}

int sb_db_point_log_set(sb_db *db, int64_t point_id, const char *out, size_t out_len,
                        long long out_total, const char *err, size_t err_len, long long err_total,
                        sb_err *e)
{
    char *o = log_text(out, out_len), *r = log_text(err, err_len);
    sqlite3_stmt *st = NULL;
    int rc;
    if (!o || !r) {
        rc = sb_errf(e, SB_EFAIL, "out of memory");
    } else if (sqlite3_prepare_v2(sb_db_handle(db),
                                  "INSERT OR REPLACE INTO point_log (point_id, stdout,"
                                  " stdout_bytes, stderr, stderr_bytes) VALUES (?,?,?,?,?)",
                                  -1, &st, NULL) != SQLITE_OK) {
        rc = sb_db_fail(e, db, "point log");
    } else {
        sqlite3_bind_int64(st, 1, point_id);
        sb_db_bind_text(st, 2, o);
        sqlite3_bind_int64(st, 3, out_total);
        sb_db_bind_text(st, 4, r);
        sqlite3_bind_int64(st, 5, err_total);
        rc = sqlite3_step(st) == SQLITE_DONE ? SB_OK : sb_db_fail(e, db, "point log");
    }
    sqlite3_finalize(st);
    free(o);
    free(r);
    return rc;
}

static int log_row(sqlite3_stmt *st, void *ctx, sb_err *e)
{
    sb_point_log *log = ctx;
    const char *o = (const char *)sqlite3_column_text(st, 0);
    const char *r = (const char *)sqlite3_column_text(st, 2);
    log->out = strdup(o ? o : "");
    log->err = strdup(r ? r : "");
    log->out_bytes = sqlite3_column_int64(st, 1);
    log->err_bytes = sqlite3_column_int64(st, 3);
    if (!log->out || !log->err) {
        sb_point_log_free(log);
        return sb_errf(e, SB_EFAIL, "out of memory");
    }
    return SB_OK;
}

int sb_db_point_log_get(sb_db *db, int64_t point_id, sb_point_log *log, int *found, sb_err *e)
{
    memset(log, 0, sizeof *log);
    sb_db_arg a[] = {SB_DB_INT(point_id)};
    int rc = sb_db_rows(db, "point log",
                        "SELECT stdout, stdout_bytes, stderr, stderr_bytes FROM point_log"
                        " WHERE point_id = ?",
                        a, 1, log_row, log, e);
    *found = !rc && log->out != NULL;
    return rc;
}

void sb_point_log_free(sb_point_log *log)
{
    free(log->out);
    free(log->err);
    log->out = log->err = NULL;
}

double sb_db_peak_per_core(sb_db *db, int64_t machine_id, const char *path)
{
    return sb_db_peak_per_core_in(db, machine_id, path, 0);
}

double sb_db_peak_per_core_in(sb_db *db, int64_t machine_id, const char *path, int64_t sweep_id)
{
    /* Peaks come from `sprbench peak` points: <path>_gflops_1t / <path>_gops_1t. */
    static const char *sql = "SELECT m.value FROM metric m JOIN point p ON p.id = m.point_id"
                             " LEFT JOIN sweep s ON s.id = p.sweep_id"
                             " WHERE p.workload = 'peak' AND p.status = 'ok' AND p.machine_id = ?"
                             " AND m.name IN (? || '_gflops_1t', ? || '_gops_1t')"
                             " ORDER BY p.sweep_id IS ? DESC, " SB_DB_SWEEP_TIME_DESC(
                                 "s") ", p.seq DESC, p.id DESC LIMIT 1";
    double v = 0;
    sb_err ignored = {0};
    sb_db_arg a[] = {SB_DB_INT(machine_id), SB_DB_TEXT(path), SB_DB_TEXT(path),
                     SB_DB_INT(sweep_id)};
    sb_db_rows(db, "peak", sql, a, 4, sb_db_double_row, &v, &ignored);
    return v;
}
