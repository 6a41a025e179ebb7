#include "sb_db_sweep.h"
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

int sb_db_sweep_create(sb_db *db, const char *label, const char *workload, const char *plan,
                       int64_t machine_id, int64_t *id, sb_err *e)
{
    char q[160];
    int rc = sb_db_check_sweep_text(label, plan, e);
    if (rc) return rc;
    if (workload && !sb_db_workload_known(workload)) {
        char known[256];
        sb_db_workload_names(known, sizeof known);
        return sb_errf(e, SB_EUSAGE, "workload: '%s' is not one of %s",
                       sb_text_cell(q, sizeof q, workload, 32, 0), known);
    }
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(sb_db_handle(db),
                           "INSERT INTO sweep (uuid, label, workload, plan, machine_id, started,"
                           " tool_version, status) VALUES (?,?,?,?,?,?,?, 'running')",
                           -1, &st, NULL) != SQLITE_OK)
        return sb_db_fail(e, db, "sweep insert");
    char uuid[33], now[32];
    sb_db_uuid(uuid);
    sb_db_now_iso(now);
#ifdef SB_VERSION
    const char *version = SB_VERSION;
#else
    const char *version = "unknown";
#endif
    sb_db_bind_text(st, 1, uuid);
    sb_db_bind_text(st, 2, label);
    sb_db_bind_text(st, 3, workload);
    sb_db_bind_text(st, 4, plan);
    if (machine_id)
        sqlite3_bind_int64(st, 5, machine_id);
    else
        sqlite3_bind_null(st, 5);
    sb_db_bind_text(st, 6, now);
    if (sb_db_bind_repaired(st, 7, version, SB_DB_MAX_NAME)) {
        sqlite3_finalize(st);
        return sb_errf(e, SB_EFAIL, "out of memory");
    }
    rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) return sb_db_fail(e, db, "sweep insert");
    *id = sqlite3_last_insert_rowid(sb_db_handle(db));
    return SB_OK;
}

int sb_db_sweep_finish(sb_db *db, int64_t id, const char *status, sb_err *e)
{
    char q[160];
    if (!sb_db_sweep_status_known(status))
        return sb_errf(e, SB_EUSAGE, "sweep status '%s' is not running, done or interrupted",
                       sb_text_cell(q, sizeof q, status ? status : "", 32, 0));
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(sb_db_handle(db),
                           "UPDATE sweep SET finished = ?, status = ? WHERE id = ?", -1, &st,
                           NULL) != SQLITE_OK)
        return sb_db_fail(e, db, "sweep update");
    char now[32];
    sb_db_now_iso(now);
    sb_db_bind_text(st, 1, now);
    sb_db_bind_text(st, 2, status);
    sqlite3_bind_int64(st, 3, id);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? SB_OK : sb_db_fail(e, db, "sweep update");
}

int sb_db_sweep_reopen(sb_db *db, int64_t id, sb_err *e)
{
    sqlite3_stmt *st;
    int rc = sb_db_prepare(db, "sweep reopen",
                           "UPDATE sweep SET status = 'running', finished = NULL WHERE id = ?", &st,
                           e);
    if (rc) return rc;
    sqlite3_bind_int64(st, 1, id);
    if (sqlite3_step(st) != SQLITE_DONE)
        rc = sb_db_fail(e, db, "sweep reopen");
    else if (sqlite3_changes(sb_db_handle(db)) == 0)
        rc = sb_errf(e, SB_EUSAGE, "%s: no sweep %lld", sb_db_path(db), (long long)id);
    sqlite3_finalize(st);
    return rc;
}

/* ---- who is running a sweep ---- */

/* The same for the group in column col of a row of sweep (NULL: none). */
static int runs_alive(const sb_db_holder *me, sqlite3_stmt *st, int col, const char *token,
                      long *group)
{
    *group = 0;
    if (sqlite3_column_type(st, col) == SQLITE_NULL) return 0;
    *group = (long)sqlite3_column_int64(st, col);
    return me->runs_alive(*group, token);
}

/* A guard stops what its run left within its grace (3 s) of the sweep's
 * death, and then ends: a claim or an unlock right after a kill -9 waits
 * for that (up to RUNS_WAIT_S), outside any transaction, before it judges. */
#define RUNS_WAIT_S 5.0
static void wait_for_runs(sb_db *db, int64_t sweep_id, const sb_db_holder *me)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(sb_db_handle(db),
                           "SELECT holder_pid, COALESCE(holder_host, ''),"
                           " COALESCE(holder_start, ''), holder_group FROM sweep"
                           " WHERE id = ? AND holder_pid IS NOT NULL AND holder_group IS NOT NULL",
                           -1, &st, NULL) != SQLITE_OK)
        return;
    sqlite3_bind_int64(st, 1, sweep_id);
    char token[128] = "";
    long pid = 0, group = 0;
    if (sqlite3_step(st) == SQLITE_ROW &&
        !strcmp((const char *)sqlite3_column_text(st, 1), me->host)) {
        pid = (long)sqlite3_column_int64(st, 0);
        snprintf(token, sizeof token, "%s", (const char *)sqlite3_column_text(st, 2));
        group = (long)sqlite3_column_int64(st, 3);
    }
    sqlite3_finalize(st);
    if (!group || pid == me->pid || me->alive(pid, token)) return;
    for (int i = 0; i < (int)(RUNS_WAIT_S / 0.05) && me->runs_alive(group, token); i++) {
        struct timespec ts = {0, 50 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
}

int sb_db_sweep_claim(sb_db *db, int64_t sweep_id, const sb_db_holder *me, sb_err *e)
{
    int own_tx = sqlite3_get_autocommit(sb_db_handle(db)), rc;
    if (own_tx) wait_for_runs(db, sweep_id, me);
    if (own_tx && (rc = sb_db_begin(db, e))) return rc;
    sqlite3_stmt *st = NULL;
    const char *host = me->host, *token = me->token;
    char since[32];
    sb_db_now_iso(since);
    if (sqlite3_prepare_v2(sb_db_handle(db),
                           "SELECT holder_pid, COALESCE(holder_host, ''),"
                           " COALESCE(holder_start, ''), COALESCE(holder_since, ''),"
                           " holder_group FROM sweep WHERE id = ?",
                           -1, &st, NULL) != SQLITE_OK) {
        rc = sb_db_fail(e, db, "sweep claim");
        goto out;
    }
    sqlite3_bind_int64(st, 1, sweep_id);
    int step = sqlite3_step(st);
    if (step != SQLITE_ROW) {
        rc = step == SQLITE_DONE
            ? sb_errf(e, SB_EUSAGE, "%s: no sweep %lld", sb_db_path(db), (long long)sweep_id)
            : sb_db_fail(e, db, "sweep claim");
        goto out;
    }
    if (sqlite3_column_type(st, 0) != SQLITE_NULL) {
        long pid = (long)sqlite3_column_int64(st, 0);
        const char *h = (const char *)sqlite3_column_text(st, 1);
        const char *tok = (const char *)sqlite3_column_text(st, 2);
        const char *when = (const char *)sqlite3_column_text(st, 3);
        int mine = pid == me->pid && !strcmp(h, host) && !strcmp(tok, token);
        char qh[512], qw[160];
        sb_text_cell(qh, sizeof qh, h, 100, 0);
        sb_text_cell(qw, sizeof qw, when, 32, 0);
        if (!mine && strcmp(h, host)) {
            rc = sb_errf(e, SB_EUSAGE,
                         "sweep %lld is being run by process %ld on host %s"
                         " since %s; if that run is gone, `sprbench db unlock --sweep %lld`"
                         " releases it",
                         (long long)sweep_id, pid, qh, qw, (long long)sweep_id);
            goto out;
        }
        if (!mine && me->alive(pid, tok)) {
            rc = sb_errf(e, SB_EUSAGE,
                         "sweep %lld is already being run by process %ld on this"
                         " host (%s) since %s",
                         (long long)sweep_id, pid, qh, qw);
            goto out;
        }
        long group;
        if (!mine && runs_alive(me, st, 4, tok, &group)) {
            rc = sb_errf(e, SB_EUSAGE,
                         "sweep %lld was run by process %ld, which is gone, but processes of"
                         " its runs still live on this host (process group %ld, being stopped):"
                         " resume once they have ended",
                         (long long)sweep_id, pid, group);
            goto out;
        }
        /* otherwise: gone (or ours already); taken over below */
    }
    sqlite3_finalize(st);
    st = NULL;
    if (sqlite3_prepare_v2(sb_db_handle(db),
                           "UPDATE sweep SET holder_pid = ?, holder_host = ?,"
                           " holder_start = ?, holder_since = ?, holder_group = NULL"
                           " WHERE id = ?",
                           -1, &st, NULL) != SQLITE_OK) {
        rc = sb_db_fail(e, db, "sweep claim");
        goto out;
    }
    sqlite3_bind_int64(st, 1, (sqlite3_int64)me->pid);
    sb_db_bind_text(st, 2, host);
    sb_db_bind_text(st, 3, token);
    sb_db_bind_text(st, 4, since);
    sqlite3_bind_int64(st, 5, sweep_id);
    rc = sqlite3_step(st) == SQLITE_DONE ? SB_OK : sb_db_fail(e, db, "sweep claim");
out:
    sqlite3_finalize(st);
    if (own_tx) {
        if (rc)
            sb_db_rollback(db);
        else
            rc = sb_db_commit(db, e);
    }
    return rc;
}

int sb_db_sweep_release(sb_db *db, int64_t sweep_id, const sb_db_holder *me, sb_err *e)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(sb_db_handle(db),
                           "UPDATE sweep SET holder_pid = NULL, holder_host = NULL,"
                           " holder_start = NULL, holder_since = NULL, holder_group = NULL"
                           " WHERE id = ? AND holder_pid = ? AND holder_host = ?",
                           -1, &st, NULL) != SQLITE_OK)
        return sb_db_fail(e, db, "sweep release");
    sqlite3_bind_int64(st, 1, sweep_id);
    sqlite3_bind_int64(st, 2, (sqlite3_int64)me->pid);
    sb_db_bind_text(st, 3, me->host);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? SB_OK : sb_db_fail(e, db, "sweep release");
}

int sb_db_sweep_set_group(sb_db *db, int64_t sweep_id, const sb_db_holder *me, int group, sb_err *e)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(sb_db_handle(db),
                           "UPDATE sweep SET holder_group = ?"
                           " WHERE id = ? AND holder_pid = ? AND holder_host = ?",
                           -1, &st, NULL) != SQLITE_OK)
        return sb_db_fail(e, db, "sweep run group");
    if (group > 0)
        sqlite3_bind_int64(st, 1, group);
    else
        sqlite3_bind_null(st, 1);
    sqlite3_bind_int64(st, 2, sweep_id);
    sqlite3_bind_int64(st, 3, (sqlite3_int64)me->pid);
    sb_db_bind_text(st, 4, me->host);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? SB_OK : sb_db_fail(e, db, "sweep run group");
}

int sb_db_sweep_unlock(sb_db *db, int64_t sweep_id, const sb_db_holder *me, char *was, size_t cap,
                       sb_err *e)
{
    if (was && cap) was[0] = '\0';
    wait_for_runs(db, sweep_id, me);
    int rc = sb_db_begin(db, e);
    if (rc) return rc;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(sb_db_handle(db),
                           "SELECT holder_pid, COALESCE(holder_host, ''),"
                           " COALESCE(holder_since, ''), COALESCE(holder_start, ''),"
                           " holder_group FROM sweep WHERE id = ?",
                           -1, &st, NULL) != SQLITE_OK) {
        rc = sb_db_fail(e, db, "sweep unlock");
        goto out;
    }
    sqlite3_bind_int64(st, 1, sweep_id);
    if (sqlite3_step(st) != SQLITE_ROW) {
        rc = sb_errf(e, SB_EUSAGE, "%s: no sweep %lld", sb_db_path(db), (long long)sweep_id);
        goto out;
    }
    char qh[512], qw[160];
    sb_text_cell(qh, sizeof qh, (const char *)sqlite3_column_text(st, 1), 100, 0);
    sb_text_cell(qw, sizeof qw, (const char *)sqlite3_column_text(st, 2), 32, 0);
    long pid = (long)sqlite3_column_int64(st, 0);
    /* a live holder of this host is a sweep that still runs (and runs its
     * worker): unlocking would let a resume measure beside it */
    int here = sqlite3_column_type(st, 0) != SQLITE_NULL &&
        !strcmp((const char *)sqlite3_column_text(st, 1), me->host);
    const char *tok = (const char *)sqlite3_column_text(st, 3);
    if (here && me->alive(pid, tok)) {
        rc = sb_errf(e, SB_EUSAGE,
                     "sweep %lld is being run by process %ld on this host (%s) since %s, which"
                     " is alive: stop it (kill -TERM %ld) rather than unlock it",
                     (long long)sweep_id, pid, qh, qw, pid);
        goto out;
    }
    /* and its runs, which end after it when it was killed */
    long group;
    if (here && runs_alive(me, st, 4, tok, &group)) {
        rc = sb_errf(e, SB_EUSAGE,
                     "sweep %lld was run by process %ld, which is gone, but processes of its"
                     " runs still live on this host (process group %ld, being stopped):"
                     " unlock once they have ended",
                     (long long)sweep_id, pid, group);
        goto out;
    }
    if (was && cap && sqlite3_column_type(st, 0) != SQLITE_NULL)
        snprintf(was, cap, "process %ld on host %s since %s", pid, qh, qw);
    sqlite3_finalize(st);
    st = NULL;
    if (sqlite3_prepare_v2(sb_db_handle(db),
                           "UPDATE sweep SET holder_pid = NULL, holder_host = NULL,"
                           " holder_start = NULL, holder_since = NULL, holder_group = NULL"
                           " WHERE id = ?",
                           -1, &st, NULL) != SQLITE_OK) {
        rc = sb_db_fail(e, db, "sweep unlock");
        goto out;
    }
    sqlite3_bind_int64(st, 1, sweep_id);
    rc = sqlite3_step(st) == SQLITE_DONE ? SB_OK : sb_db_fail(e, db, "sweep unlock");
out:
    sqlite3_finalize(st);
    if (rc) {
        sb_db_rollback(db);
        return rc;
    }
    return sb_db_commit(db, e);
}

int sb_db_point_add(sb_db *db, int64_t sweep_id, const sb_point_desc *p, int64_t machine_id,
                    int64_t *id, sb_err *e)
{
    int rc;
    char q[256];
    if (!sb_db_workload_known(p->workload)) {
        char known[256];
        sb_db_workload_names(known, sizeof known);
        return sb_errf(e, SB_EUSAGE, "workload: '%s' is not one of %s",
                       sb_text_cell(q, sizeof q, p->workload ? p->workload : "", 32, 0), known);
    }
    if ((p->kernel && (rc = sb_text_check(p->kernel, SB_DB_MAX_NAME, "kernel", e))) ||
        (p->config && (rc = sb_text_check(p->config, SB_DB_MAX_TEXT, "config", e))))
        return rc;
    if (p->dtype && p->dtype[0] && !sb_db_token(p->dtype, SB_DB_MAX_WORD))
        return sb_errf(e, SB_EUSAGE, "dtype: '%s' is not a dtype word",
                       sb_text_cell(q, sizeof q, p->dtype, 32, 0));
    if (p->shape && !sb_db_shape_valid(p->shape))
        return sb_errf(e, SB_EUSAGE,
                       "shape: '%s' is neither MxNxK[:TT][+prepack] nor"
                       " key=value pairs",
                       sb_text_cell(q, sizeof q, p->shape, 60, 0));
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(sb_db_handle(db),
                           "INSERT INTO point (uuid, sweep_id, seq, workload, kernel, dtype, shape,"
                           " config, threads, ppn, nodes, status, command, machine_id)"
                           " VALUES (?,?,?,?,?,?,?,?,?,?,?, 'pending', ?, ?)",
                           -1, &st, NULL) != SQLITE_OK)
        return sb_db_fail(e, db, "point insert");
    char uuid[33];
    sb_db_uuid(uuid);
    sb_db_bind_text(st, 1, uuid);
    sqlite3_bind_int64(st, 2, sweep_id);
    sqlite3_bind_int(st, 3, p->seq);
    sb_db_bind_text(st, 4, p->workload);
    sb_db_bind_text(st, 5, p->kernel);
    sb_db_bind_text(st, 6, p->dtype);
    sb_db_bind_text(st, 7, p->shape);
    sb_db_bind_text(st, 8, p->config);
    sqlite3_bind_int(st, 9, p->threads);
    sqlite3_bind_int(st, 10, p->ppn);
    sqlite3_bind_int(st, 11, p->nodes);
    if (machine_id)
        sqlite3_bind_int64(st, 13, machine_id);
    else
        sqlite3_bind_null(st, 13);
    if (sb_db_bind_repaired(st, 12, p->command, SB_DB_MAX_TEXT)) {
        sqlite3_finalize(st);
        return sb_errf(e, SB_EFAIL, "out of memory");
    }
    rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) return sb_db_fail(e, db, "point insert");
    *id = sqlite3_last_insert_rowid(sb_db_handle(db));
    return SB_OK;
}

int sb_db_point_set_command(sb_db *db, int64_t id, const char *command, sb_err *e)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(sb_db_handle(db), "UPDATE point SET command = ? WHERE id = ?", -1, &st,
                           NULL) != SQLITE_OK)
        return sb_db_fail(e, db, "point update");
    int mem = sb_db_bind_repaired(st, 1, command, SB_DB_MAX_TEXT);
    sqlite3_bind_int64(st, 2, id);
    int rc = mem ? SQLITE_NOMEM : sqlite3_step(st);
    sqlite3_finalize(st);
    if (mem) return sb_errf(e, SB_EFAIL, "out of memory");
    return rc == SQLITE_DONE ? SB_OK : sb_db_fail(e, db, "point update");
}

int sb_db_point_set_status(sb_db *db, int64_t id, const char *status, const char *reason, sb_err *e)
{
    char q[160];
    if (!sb_db_point_status_known(status))
        return sb_errf(e, SB_EUSAGE, "point status '%s' is not one the store knows",
                       sb_text_cell(q, sizeof q, status ? status : "", 32, 0));
    int running = !strcmp(status, "running");
    sqlite3_stmt *st;
    const char *sql = running
        ? "UPDATE point SET status = ?, reason = ?, started = ?, finished = NULL WHERE id = ?"
        : "UPDATE point SET status = ?, reason = ?, finished = ? WHERE id = ?";
    if (sqlite3_prepare_v2(sb_db_handle(db), sql, -1, &st, NULL) != SQLITE_OK)
        return sb_db_fail(e, db, "point update");
    char now[32];
    sb_db_now_iso(now);
    sb_db_bind_text(st, 1, status);
    int mem = sb_db_bind_repaired(st, 2, reason ? reason : "", SB_DB_MAX_REASON);
    sb_db_bind_text(st, 3, now);
    sqlite3_bind_int64(st, 4, id);
    int rc = mem ? SQLITE_NOMEM : sqlite3_step(st);
    sqlite3_finalize(st);
    if (mem) return sb_errf(e, SB_EFAIL, "out of memory");
    return rc == SQLITE_DONE ? SB_OK : sb_db_fail(e, db, "point update");
}

int64_t sb_db_latest_sweep(sb_db *db)
{
    int64_t id = 0;
    sb_err ignored = {0};
    /* the newest started, not the last stored: an import adds old sweeps */
    sb_db_rows(db, "latest sweep",
               "SELECT id FROM sweep ORDER BY " SB_DB_SWEEP_TIME_DESC("sweep") " LIMIT 1", NULL, 0,
               sb_db_int64_row, &id, &ignored);
    return id;
}
