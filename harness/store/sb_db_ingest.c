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
    json_t *side = pairing ? json_object_get(pairing, "side") : NULL,
           *pair = pairing ? json_object_get(pairing, "pair") : NULL;
    json_array_foreach(from, i, v)
    {
        sb_db_arg a[] = {SB_DB_INT(point_id), SB_DB_INT(i), SB_DB_REAL(json_number_value(v)),
                         pairing ? SB_DB_INT(json_integer_value(json_array_get(side, i)))
                                 : SB_DB_NULL,
                         pairing ? SB_DB_INT(json_integer_value(json_array_get(pair, i)))
                                 : SB_DB_NULL};
        int rc = sb_db_stmt(db, ins, "sample insert", a, SB_DB_NARGS(a), NULL, NULL, e);
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

/* A point's workload, as an ingest reads it: into w, cut to cap. */
typedef struct workload_read {
    char *w;
    size_t cap;
    int found;
} workload_read;

static int workload_row(sqlite3_stmt *st, void *ctx, sb_err *e)
{
    (void)e;
    workload_read *r = ctx;
    snprintf(r->w, r->cap, "%s", sqlite3_column_text(st, 0));
    r->found = 1;
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
    if ((rc = sb_db_prepare(db, "prepare ingest",
                            "SELECT COALESCE(workload, '') FROM point WHERE id = ?", &get, e)))
        goto out;
    sb_db_arg id[] = {SB_DB_INT(point_id)};
    workload_read w = {workload, sizeof workload, 0};
    if (sb_db_stmt(db, get, "prepare ingest", id, 1, workload_row, &w, e) || !w.found) {
        rc = sb_errf(e, SB_EFAIL, "point %lld does not exist", (long long)point_id);
        goto out;
    }
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
    if ((rc = sb_db_prepare(db, "prepare ingest", "DELETE FROM sample WHERE point_id = ?", &del_s,
                            e)) ||
        (rc = sb_db_prepare(db, "prepare ingest", "DELETE FROM metric WHERE point_id = ?", &del_m,
                            e)) ||
        (rc = sb_db_prepare(db, "prepare ingest",
                            "INSERT INTO sample (point_id, rep, seconds, side, pair)"
                            " VALUES (?,?,?,?,?)",
                            &ins_s, e)) ||
        (rc = sb_db_prepare(db, "prepare ingest", "DELETE FROM point_pairing WHERE point_id = ?",
                            &del_pr, e)) ||
        (rc = sb_db_prepare(db, "prepare ingest",
                            "INSERT INTO point_pairing (point_id, mode, baseline, candidate)"
                            " VALUES (?,?,?,?)",
                            &ins_pr, e)) ||
        (rc = sb_db_prepare(db, "prepare ingest",
                            "INSERT INTO metric (point_id, name, value, unit, projected, source)"
                            " VALUES (?,?,?,?,?,?)",
                            &ins_m, e)) ||
        (rc = sb_db_prepare(db, "prepare ingest",
                            "UPDATE point SET status = ?, reason = ?, finished = ?, binding = ?,"
                            " result_json = ?, dtype = COALESCE(NULLIF(?, ''), dtype)"
                            " WHERE id = ?",
                            &upd, e)))
        goto out;
    if ((rc = sb_db_stmt(db, del_s, "ingest", id, 1, NULL, NULL, e)) ||
        (rc = sb_db_stmt(db, del_m, "ingest", id, 1, NULL, NULL, e)) ||
        (rc = sb_db_stmt(db, del_pr, "ingest", id, 1, NULL, NULL, e)))
        goto out;
    if ((rc = sb_db_insert_samples(db, ins_s, point_id, samples, pairing, e))) goto out;
    if (pairing) {
        sb_db_arg a[] = {SB_DB_INT(point_id), SB_DB_TEXT(sb_db_jstr(pairing, "mode", NULL)),
                         SB_DB_TEXT(sb_db_jstr(pairing, "baseline", NULL)),
                         SB_DB_TEXT(sb_db_jstr(pairing, "candidate", NULL))};
        if ((rc = sb_db_stmt(db, ins_pr, "pairing insert", a, SB_DB_NARGS(a), NULL, NULL, e)))
            goto out;
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
        sb_db_arg a[] = {
            SB_DB_INT(point_id),
            SB_DB_TEXT(name),
            SB_DB_REAL(json_number_value(v)),
            SB_DB_REPAIRED(sb_db_jstr(units, name, NULL), 64),
            SB_DB_INT(is_projected),
            SB_DB_REPAIRED(json_is_string(src) ? json_string_value(src) : NULL, SB_DB_MAX_REASON)};
        if ((rc = sb_db_stmt(db, ins_m, "metric insert", a, SB_DB_NARGS(a), NULL, NULL, e)))
            goto out;
    }
    char now[32];
    sb_db_now_iso(now);
    const char *reason = sb_db_jstr(result, "reason", NULL);
    sb_db_arg u[] = {SB_DB_TEXT(sb_db_jstr(result, "status", NULL)),
                     SB_DB_REPAIRED(reason ? reason : "", SB_DB_MAX_REASON),
                     SB_DB_TEXT(now),
                     SB_DB_TEXT(binding_s),
                     SB_DB_TEXT(doc),
                     SB_DB_TEXT(sb_db_jstr(result, "dtype", NULL)),
                     SB_DB_INT(point_id)};
    rc = sb_db_stmt(db, upd, "point update", u, SB_DB_NARGS(u), NULL, NULL, e);
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
    int rc;
    if (!o || !r) {
        rc = sb_errf(e, SB_EFAIL, "out of memory");
    } else {
        sb_db_arg a[] = {SB_DB_INT(point_id), SB_DB_TEXT(o), SB_DB_INT(out_total), SB_DB_TEXT(r),
                         SB_DB_INT(err_total)};
        rc = sb_db_exec(db, "point log",
                        "INSERT OR REPLACE INTO point_log (point_id, stdout,"
                        " stdout_bytes, stderr, stderr_bytes) VALUES (?,?,?,?,?)",
                        a, SB_DB_NARGS(a), e);
    }
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
