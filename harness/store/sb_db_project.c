#include "sb_db_project.h"
#include <ctype.h>
#include <math.h>
#include <stdint.h>
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

/* ---- projections ---- */

static double json_num_or0(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    return json_is_number(v) ? json_number_value(v) : 0;
}

static int train_row(sqlite3_stmt *st, void *ctx, sb_err *e)
{
    sb_db_list *l = ctx;
    sb_train_obs *o = sb_db_push(&l->v, &l->n, &l->cap, sizeof *o, e);
    if (!o) return SB_EFAIL;
    o->point_id = sqlite3_column_int64(st, 0);
    snprintf(o->kernel, sizeof o->kernel, "%s", (const char *)sqlite3_column_text(st, 1));
    snprintf(o->dtype, sizeof o->dtype, "%s", (const char *)sqlite3_column_text(st, 2));
    snprintf(o->shape, sizeof o->shape, "%s", (const char *)sqlite3_column_text(st, 3));
    o->threads = sqlite3_column_int(st, 4);
    o->ppn = sqlite3_column_int(st, 5) > 0 ? sqlite3_column_int(st, 5) : 1;
    o->nodes = sqlite3_column_int(st, 6) > 0 ? sqlite3_column_int(st, 6) : 1;
    o->step_s = sqlite3_column_double(st, 7);
    o->epoch_s = sqlite3_column_double(st, 8);
    o->steps_per_epoch = (long)sqlite3_column_double(st, 9);
    const char *doc = (const char *)sqlite3_column_text(st, 10);
    json_t *d = doc ? json_loads(doc, 0, NULL) : NULL;
    json_t *cfg = json_object_get(d, "config");
    o->features = (long)json_num_or0(cfg, "features");
    o->batch = (int)json_num_or0(cfg, "batch");
    o->seq = (int)json_num_or0(cfg, "seq");
    o->layers = (int)json_num_or0(cfg, "layers");
    o->dim = (int)json_num_or0(cfg, "dim");
    o->ffn = (int)json_num_or0(cfg, "ffn");
    o->vocab = (int)json_num_or0(cfg, "vocab");
    json_decref(d);
    return SB_OK;
}

int sb_db_train_points(sb_db *db, int64_t sweep_id, sb_train_obs **v, int *n, sb_err *e)
{
    static const char *sql =
        "SELECT p.id, COALESCE(p.kernel, ''), COALESCE(p.dtype, ''), COALESCE(p.shape, ''),"
        " COALESCE(p.threads, 0), COALESCE(p.ppn, 1), COALESCE(p.nodes, 1), ms.value,"
        " (SELECT value FROM metric WHERE point_id = p.id AND name = 'epoch_seconds'),"
        " (SELECT value FROM metric WHERE point_id = p.id AND name = 'steps_per_epoch'),"
        " p.result_json"
        " FROM point p JOIN metric ms ON ms.point_id = p.id AND ms.name = 'step_seconds'"
        " WHERE p.sweep_id = ? AND p.workload = ? AND p.status = 'ok'"
        " ORDER BY p.kernel, p.shape, p.ppn, p.threads, p.nodes, p.id";
    /* the workload the scaling model projects (its row's flag, as the
     * projections it stores) */
    const sb_workload *pw = sb_workload_flagged(SB_WL_PROJECT);
    sb_db_list l = {0};
    sb_db_arg a[] = {SB_DB_INT(sweep_id), SB_DB_TEXT(pw ? pw->name : "")};
    int rc = sb_db_rows(db, "training points", sql, a, 2, train_row, &l, e);
    return sb_db_list_give(&l, rc, v, n);
}

int sb_db_add_projection(sb_db *db, const sb_projection *pr, int64_t *sweep_out, sb_err *e)
{
    if (pr->n < 1) return sb_errf(e, SB_EUSAGE, "a projection needs at least one node count");
    if (!pr->sweep_id && !pr->new_sweep_label)
        return sb_errf(e, SB_EUSAGE, "a projection needs a sweep");
    int trc;
    char quoted[256];
    if (pr->shape && !sb_db_shape_valid(pr->shape))
        return sb_errf(e, SB_EUSAGE,
                       "shape: '%s' is neither MxNxK[:TT][+prepack] nor"
                       " key=value pairs",
                       sb_text_cell(quoted, sizeof quoted, pr->shape, 60, 0));
    if (pr->kernel && (trc = sb_text_check(pr->kernel, SB_DB_MAX_NAME, "kernel", e))) return trc;
    if (pr->dtype && pr->dtype[0] && !sb_db_token(pr->dtype, SB_DB_MAX_WORD))
        return sb_errf(e, SB_EUSAGE, "dtype: '%s' is not a dtype word",
                       sb_text_cell(quoted, sizeof quoted, pr->dtype, 32, 0));
    int rc = sb_db_begin(db, e);
    if (rc) return rc;
    int64_t sweep = pr->sweep_id;
    sqlite3_stmt *chk = NULL, *del = NULL, *seq_st = NULL, *ins_p = NULL, *ins_m = NULL;
    /* the scaling model projects the workload whose row says so (training) */
    const sb_workload *pw = sb_workload_flagged(SB_WL_PROJECT);
    const char *pwname = pw ? pw->name : "";
    if (!sweep) {
        if ((rc = sb_db_sweep_create(db, pr->new_sweep_label, pwname, NULL, pr->machine_id, &sweep,
                                     e)) ||
            (rc = sb_db_sweep_finish(db, sweep, "done", e)))
            goto out;
    }
    if ((rc = sb_db_prepare(db, "prepare projection", "SELECT 1 FROM sweep WHERE id = ?", &chk,
                            e)) ||
        (rc = sb_db_prepare(db, "prepare projection",
                            "DELETE FROM point WHERE sweep_id = ? AND status = 'projected'"
                            " AND COALESCE(kernel, '') = ? AND COALESCE(dtype, '') = ?"
                            " AND COALESCE(shape, '') = ? AND threads = ? AND ppn = ?",
                            &del, e)) ||
        (rc = sb_db_prepare(db, "prepare projection",
                            "SELECT COALESCE(MAX(seq), -1) + 1 FROM point WHERE sweep_id = ?",
                            &seq_st, e)) ||
        (rc = sb_db_prepare(db, "prepare projection",
                            "INSERT INTO point (uuid, sweep_id, seq, workload, kernel, dtype,"
                            " shape, config, threads, ppn, nodes, status, reason, started,"
                            " finished, machine_id, command)"
                            " VALUES (?1,?2,?3,?15,?4,?5,?6,?7,?8,?9,?10, 'projected', ?11,?12,"
                            "?13,?14, NULL)",
                            &ins_p, e)) ||
        (rc = sb_db_prepare(db, "prepare projection",
                            "INSERT INTO metric (point_id, name, value, unit, projected, source)"
                            " VALUES (?,?,?,?, 1, ?)",
                            &ins_m, e)))
        goto out;
    sb_db_arg id[] = {SB_DB_INT(sweep)};
    int64_t one = 0;
    if (sb_db_stmt(db, chk, "prepare projection", id, 1, sb_db_int64_row, &one, e) || !one) {
        rc = sb_errf(e, SB_EUSAGE, "%s: no sweep %lld", sb_db_path(db), (long long)sweep);
        goto out;
    }
    /* Points cascade their metrics (foreign keys are on). */
    sb_db_arg d[] = {SB_DB_INT(sweep),
                     SB_DB_TEXT(pr->kernel ? pr->kernel : ""),
                     SB_DB_TEXT(pr->dtype ? pr->dtype : ""),
                     SB_DB_TEXT(pr->shape ? pr->shape : ""),
                     SB_DB_INT(pr->threads),
                     SB_DB_INT(pr->ppn)};
    if ((rc = sb_db_stmt(db, del, "projection replace", d, SB_DB_NARGS(d), NULL, NULL, e)))
        goto out;
    int64_t next = INT64_MIN;
    if ((rc = sb_db_stmt(db, seq_st, "projected point insert", id, 1, sb_db_int64_row, &next, e)))
        goto out;
    if (next == INT64_MIN) {
        rc = sb_db_fail(e, db, "projected point insert");
        goto out;
    }
    int seq = (int)next;
    char now[32];
    sb_db_now_iso(now);
    for (int i = 0; i < pr->n; i++) {
        const sb_projection_point *q = &pr->pts[i];
        if (q->nodes < 1 || !(q->epoch_s > 0)) {
            rc = sb_errf(e, SB_EUSAGE, "projected point %d: nodes %d, epoch %g s", i, q->nodes,
                         q->epoch_s);
            goto out;
        }
        char uuid[33];
        sb_db_uuid(uuid);
        sb_db_arg a[] = {
            SB_DB_TEXT(uuid),
            SB_DB_INT(sweep),
            SB_DB_INT(seq + i),
            SB_DB_TEXT(pr->kernel),
            SB_DB_TEXT(pr->dtype),
            SB_DB_TEXT(pr->shape),
            SB_DB_TEXT(pr->config ? pr->config : "{}"),
            SB_DB_INT(pr->threads),
            SB_DB_INT(pr->ppn),
            SB_DB_INT(q->nodes),
            SB_DB_REPAIRED(pr->reason ? pr->reason : "projected by the scaling model",
                           SB_DB_MAX_REASON),
            SB_DB_TEXT(now),
            SB_DB_TEXT(now),
            SB_DB_ID(pr->machine_id),
            SB_DB_TEXT(pwname),
        };
        if ((rc = sb_db_stmt(db, ins_p, "projected point insert", a, SB_DB_NARGS(a), NULL, NULL,
                             e)))
            goto out;
        int64_t pid = sqlite3_last_insert_rowid(sb_db_handle(db));
        struct {
            const char *name, *unit;
            double v;
        } m[] = {
            {"epoch_seconds", "s", q->epoch_s},
            {"epoch_seconds_no_overlap", "s", q->epoch_no_overlap_s},
            {"speedup", "x", q->speedup},
            {"efficiency", "fraction", q->efficiency},
            {"comm_seconds_per_step", "s", q->comm_s},
            {"exposed_seconds_per_step", "s", q->exposed_s},
        };
        for (size_t k = 0; k < sizeof m / sizeof m[0]; k++) {
            sb_db_arg b[] = {SB_DB_INT(pid), SB_DB_TEXT(m[k].name), SB_DB_REAL(m[k].v),
                             SB_DB_TEXT(m[k].unit), SB_DB_REPAIRED(pr->source, SB_DB_MAX_REASON)};
            if ((rc = sb_db_stmt(db, ins_m, "projected metric insert", b, SB_DB_NARGS(b), NULL,
                                 NULL, e)))
                goto out;
        }
    }
out:
    sqlite3_finalize(chk);
    sqlite3_finalize(del);
    sqlite3_finalize(seq_st);
    sqlite3_finalize(ins_p);
    sqlite3_finalize(ins_m);
    if (rc) {
        sb_db_rollback(db);
        return rc;
    }
    if ((rc = sb_db_commit(db, e))) return rc;
    if (sweep_out) *sweep_out = sweep;
    return SB_OK;
}
