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
    char uuid[33], now[32];
    sb_db_uuid(uuid);
    sb_db_now_iso(now);
#ifdef SB_VERSION
    const char *version = SB_VERSION;
#else
    const char *version = "unknown";
#endif
    sb_db_arg a[] = {SB_DB_TEXT(uuid),  SB_DB_TEXT(label),         SB_DB_TEXT(workload),
                     SB_DB_TEXT(plan),  SB_DB_ID(machine_id),      SB_DB_TEXT(now),
                     SB_DB_REPAIRED(version, SB_DB_MAX_NAME)};
    return sb_db_insert(db, "sweep insert",
                        "INSERT INTO sweep (uuid, label, workload, plan, machine_id, started,"
                        " tool_version, status) VALUES (?,?,?,?,?,?,?, 'running')",
                        a, SB_DB_NARGS(a), id, e);
}

int sb_db_sweep_finish(sb_db *db, int64_t id, const char *status, sb_err *e)
{
    char q[160];
    if (!sb_db_sweep_status_known(status))
        return sb_errf(e, SB_EUSAGE, "sweep status '%s' is not running, done or interrupted",
                       sb_text_cell(q, sizeof q, status ? status : "", 32, 0));
    char now[32];
    sb_db_now_iso(now);
    sb_db_arg a[] = {SB_DB_TEXT(now), SB_DB_TEXT(status), SB_DB_INT(id)};
    return sb_db_exec(db, "sweep update", "UPDATE sweep SET finished = ?, status = ? WHERE id = ?",
                      a, SB_DB_NARGS(a), e);
}

int sb_db_sweep_reopen(sb_db *db, int64_t id, sb_err *e)
{
    sb_db_arg a[] = {SB_DB_INT(id)};
    int rc = sb_db_exec(db, "sweep reopen",
                        "UPDATE sweep SET status = 'running', finished = NULL WHERE id = ?", a, 1,
                        e);
    if (!rc && sqlite3_changes(sb_db_handle(db)) == 0)
        rc = sb_errf(e, SB_EUSAGE, "%s: no sweep %lld", sb_db_path(db), (long long)id);
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

/* A sweep's holder of this host, as wait_for_runs reads it. */
typedef struct holder_here {
    const sb_db_holder *me;
    char token[128];
    long pid, group;
} holder_here;

static int holder_here_row(sqlite3_stmt *st, void *ctx, sb_err *e)
{
    (void)e;
    holder_here *h = ctx;
    if (strcmp((const char *)sqlite3_column_text(st, 1), h->me->host)) return SB_OK;
    h->pid = (long)sqlite3_column_int64(st, 0);
    snprintf(h->token, sizeof h->token, "%s", (const char *)sqlite3_column_text(st, 2));
    h->group = (long)sqlite3_column_int64(st, 3);
    return SB_OK;
}

/* A guard stops what its run left within its grace (3 s) of the sweep's
 * death, and then ends: a claim or an unlock right after a kill -9 waits
 * for that (up to RUNS_WAIT_S), outside any transaction, before it judges. */
#define RUNS_WAIT_S 5.0
static void wait_for_runs(sb_db *db, int64_t sweep_id, const sb_db_holder *me)
{
    holder_here h = {.me = me};
    sb_err ignored = {0};
    int found;
    sb_db_arg a[] = {SB_DB_INT(sweep_id)};
    sb_db_row(db, "sweep holder",
              "SELECT holder_pid, COALESCE(holder_host, ''),"
              " COALESCE(holder_start, ''), holder_group FROM sweep"
              " WHERE id = ? AND holder_pid IS NOT NULL AND holder_group IS NOT NULL",
              a, 1, holder_here_row, &h, &found, &ignored);
    if (!h.group || h.pid == me->pid || me->alive(h.pid, h.token)) return;
    for (int i = 0; i < (int)(RUNS_WAIT_S / 0.05) && me->runs_alive(h.group, h.token); i++) {
        struct timespec ts = {0, 50 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
}

/* What a claim or an unlock judges a sweep's holder by. */
typedef struct holder_judge {
    const sb_db_holder *me;
    int64_t sweep_id;
    char *was; /* unlock: who held it, for the caller */
    size_t cap;
} holder_judge;

/* The holder of j's sweep (holder_pid, host, start, since, group) judged
 * by row; SB_EUSAGE "no sweep" when there is no such sweep. */
static int judge_holder(sb_db *db, const char *what, holder_judge *j, sb_db_row_fn row,
                        sb_err *e)
{
    int found;
    sb_db_arg a[] = {SB_DB_INT(j->sweep_id)};
    int rc = sb_db_row(db, what,
                       "SELECT holder_pid, COALESCE(holder_host, ''),"
                       " COALESCE(holder_start, ''), COALESCE(holder_since, ''),"
                       " holder_group FROM sweep WHERE id = ?",
                       a, 1, row, j, &found, e);
    if (!rc && !found)
        rc = sb_errf(e, SB_EUSAGE, "%s: no sweep %lld", sb_db_path(db), (long long)j->sweep_id);
    return rc;
}

/* A claim of a sweep's holder row (judge_holder's columns): refused
 * while another holder, or its runs, may still be running it. */
static int claim_row(sqlite3_stmt *st, void *ctx, sb_err *e)
{
    const holder_judge *j = ctx;
    const sb_db_holder *me = j->me;
    long long sweep_id = (long long)j->sweep_id;
    if (sqlite3_column_type(st, 0) == SQLITE_NULL) return SB_OK;
    long pid = (long)sqlite3_column_int64(st, 0);
    const char *h = (const char *)sqlite3_column_text(st, 1);
    const char *tok = (const char *)sqlite3_column_text(st, 2);
    const char *when = (const char *)sqlite3_column_text(st, 3);
    int mine = pid == me->pid && !strcmp(h, me->host) && !strcmp(tok, me->token);
    char qh[512], qw[160];
    sb_text_cell(qh, sizeof qh, h, 100, 0);
    sb_text_cell(qw, sizeof qw, when, 32, 0);
    if (!mine && strcmp(h, me->host))
        return sb_errf(e, SB_EUSAGE,
                       "sweep %lld is being run by process %ld on host %s"
                       " since %s; if that run is gone, `sprbench db unlock --sweep %lld`"
                       " releases it",
                       sweep_id, pid, qh, qw, sweep_id);
    if (!mine && me->alive(pid, tok))
        return sb_errf(e, SB_EUSAGE,
                       "sweep %lld is already being run by process %ld on this"
                       " host (%s) since %s",
                       sweep_id, pid, qh, qw);
    long group;
    if (!mine && runs_alive(me, st, 4, tok, &group))
        return sb_errf(e, SB_EUSAGE,
                       "sweep %lld was run by process %ld, which is gone, but processes of"
                       " its runs still live on this host (process group %ld, being stopped):"
                       " resume once they have ended",
                       sweep_id, pid, group);
    /* otherwise: gone (or ours already); taken over by the claim */
    return SB_OK;
}

int sb_db_sweep_claim(sb_db *db, int64_t sweep_id, const sb_db_holder *me, sb_err *e)
{
    int own_tx = sqlite3_get_autocommit(sb_db_handle(db)), rc;
    if (own_tx) wait_for_runs(db, sweep_id, me);
    if (own_tx && (rc = sb_db_begin(db, e))) return rc;
    char since[32];
    sb_db_now_iso(since);
    holder_judge j = {me, sweep_id, NULL, 0};
    rc = judge_holder(db, "sweep claim", &j, claim_row, e);
    sb_db_arg u[] = {SB_DB_INT(me->pid), SB_DB_TEXT(me->host), SB_DB_TEXT(me->token),
                     SB_DB_TEXT(since), SB_DB_INT(sweep_id)};
    if (!rc)
        rc = sb_db_exec(db, "sweep claim",
                        "UPDATE sweep SET holder_pid = ?, holder_host = ?,"
                        " holder_start = ?, holder_since = ?, holder_group = NULL"
                        " WHERE id = ?",
                        u, SB_DB_NARGS(u), e);
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
    sb_db_arg a[] = {SB_DB_INT(sweep_id), SB_DB_INT(me->pid), SB_DB_TEXT(me->host)};
    return sb_db_exec(db, "sweep release",
                      "UPDATE sweep SET holder_pid = NULL, holder_host = NULL,"
                      " holder_start = NULL, holder_since = NULL, holder_group = NULL"
                      " WHERE id = ? AND holder_pid = ? AND holder_host = ?",
                      a, SB_DB_NARGS(a), e);
}

int sb_db_sweep_set_group(sb_db *db, int64_t sweep_id, const sb_db_holder *me, int group, sb_err *e)
{
    sb_db_arg a[] = {group > 0 ? SB_DB_INT(group) : SB_DB_NULL, SB_DB_INT(sweep_id),
                     SB_DB_INT(me->pid), SB_DB_TEXT(me->host)};
    return sb_db_exec(db, "sweep run group",
                      "UPDATE sweep SET holder_group = ?"
                      " WHERE id = ? AND holder_pid = ? AND holder_host = ?",
                      a, SB_DB_NARGS(a), e);
}

/* An unlock of a sweep's holder row (judge_holder's columns):
 * refused while a holder of this host, or its runs, is alive. */
static int unlock_row(sqlite3_stmt *st, void *ctx, sb_err *e)
{
    const holder_judge *j = ctx;
    const sb_db_holder *me = j->me;
    char qh[512], qw[160];
    sb_text_cell(qh, sizeof qh, (const char *)sqlite3_column_text(st, 1), 100, 0);
    sb_text_cell(qw, sizeof qw, (const char *)sqlite3_column_text(st, 3), 32, 0);
    long pid = (long)sqlite3_column_int64(st, 0);
    /* a live holder of this host is a sweep that still runs (and runs its
     * worker): unlocking would let a resume measure beside it */
    int here = sqlite3_column_type(st, 0) != SQLITE_NULL &&
        !strcmp((const char *)sqlite3_column_text(st, 1), me->host);
    const char *tok = (const char *)sqlite3_column_text(st, 2);
    if (here && me->alive(pid, tok))
        return sb_errf(e, SB_EUSAGE,
                       "sweep %lld is being run by process %ld on this host (%s) since %s, which"
                       " is alive: stop it (kill -TERM %ld) rather than unlock it",
                       (long long)j->sweep_id, pid, qh, qw, pid);
    /* and its runs, which end after it when it was killed */
    long group;
    if (here && runs_alive(me, st, 4, tok, &group))
        return sb_errf(e, SB_EUSAGE,
                       "sweep %lld was run by process %ld, which is gone, but processes of its"
                       " runs still live on this host (process group %ld, being stopped):"
                       " unlock once they have ended",
                       (long long)j->sweep_id, pid, group);
    if (j->was && j->cap && sqlite3_column_type(st, 0) != SQLITE_NULL)
        snprintf(j->was, j->cap, "process %ld on host %s since %s", pid, qh, qw);
    return SB_OK;
}

int sb_db_sweep_unlock(sb_db *db, int64_t sweep_id, const sb_db_holder *me, char *was, size_t cap,
                       sb_err *e)
{
    if (was && cap) was[0] = '\0';
    wait_for_runs(db, sweep_id, me);
    int rc = sb_db_begin(db, e);
    if (rc) return rc;
    holder_judge j = {me, sweep_id, was, cap};
    sb_db_arg a[] = {SB_DB_INT(sweep_id)};
    rc = judge_holder(db, "sweep unlock", &j, unlock_row, e);
    if (!rc)
        rc = sb_db_exec(db, "sweep unlock",
                        "UPDATE sweep SET holder_pid = NULL, holder_host = NULL,"
                        " holder_start = NULL, holder_since = NULL, holder_group = NULL"
                        " WHERE id = ?",
                        a, 1, e);
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
    char uuid[33];
    sb_db_uuid(uuid);
    sb_db_arg a[] = {SB_DB_TEXT(uuid),      SB_DB_INT(sweep_id),   SB_DB_INT(p->seq),
                     SB_DB_TEXT(p->workload), SB_DB_TEXT(p->kernel), SB_DB_TEXT(p->dtype),
                     SB_DB_TEXT(p->shape),  SB_DB_TEXT(p->config), SB_DB_INT(p->threads),
                     SB_DB_INT(p->ppn),     SB_DB_INT(p->nodes),
                     SB_DB_REPAIRED(p->command, SB_DB_MAX_TEXT), SB_DB_ID(machine_id)};
    return sb_db_insert(db, "point insert",
                        "INSERT INTO point (uuid, sweep_id, seq, workload, kernel, dtype, shape,"
                        " config, threads, ppn, nodes, status, command, machine_id)"
                        " VALUES (?,?,?,?,?,?,?,?,?,?,?, 'pending', ?, ?)",
                        a, SB_DB_NARGS(a), id, e);
}

int sb_db_point_set_command(sb_db *db, int64_t id, const char *command, sb_err *e)
{
    sb_db_arg a[] = {SB_DB_REPAIRED(command, SB_DB_MAX_TEXT), SB_DB_INT(id)};
    return sb_db_exec(db, "point update", "UPDATE point SET command = ? WHERE id = ?", a,
                      SB_DB_NARGS(a), e);
}

int sb_db_point_set_status(sb_db *db, int64_t id, const char *status, const char *reason, sb_err *e)
{
    char q[160];
    if (!sb_db_point_status_known(status))
        return sb_errf(e, SB_EUSAGE, "point status '%s' is not one the store knows",
                       sb_text_cell(q, sizeof q, status ? status : "", 32, 0));
    int running = !strcmp(status, "running");
    const char *sql = running
        ? "UPDATE point SET status = ?, reason = ?, started = ?, finished = NULL WHERE id = ?"
        : "UPDATE point SET status = ?, reason = ?, finished = ? WHERE id = ?";
    char now[32];
    sb_db_now_iso(now);
    sb_db_arg a[] = {SB_DB_TEXT(status), SB_DB_REPAIRED(reason ? reason : "", SB_DB_MAX_REASON),
                     SB_DB_TEXT(now), SB_DB_INT(id)};
    return sb_db_exec(db, "point update", sql, a, SB_DB_NARGS(a), e);
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
