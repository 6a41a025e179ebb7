#include "sb_query.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sb_db_internal.h"
#include "sb_metric.h"
#include "sb_text.h"
#include "sb_workload.h"

/* ---- helpers ---- */

#define text_dup sb_db_text_dup
#define text_dup_or_null sb_db_text_dup_or_null

/* A list being read (sb_db_rows' context): its elements so far, and what
 * a row needs besides. */
typedef struct list {
    void *v;
    int n, cap;
    const void *with;
    sqlite3_stmt *samples; /* a series': its points' samples */
    sb_db *db;
} list;

/* A row that is found once (*found), or not. */
typedef struct found_row {
    void *out;
    int found;
} found_row;

/* A query that answers with one integer: *out (0 when it answers no row). */
static int one_int64(sb_db *db, const char *what, const char *sql, int64_t id, int64_t *out,
                     sb_err *e)
{
    *out = 0;
    sb_db_arg a[] = {SB_DB_INT(id)};
    return sb_db_rows(db, what, sql, a, id ? 1 : 0, sb_db_int64_row, out, e);
}

static int oom_or_ok(int oom, sb_err *e)
{
    return oom ? sb_errf(e, SB_EFAIL, "out of memory") : SB_OK;
}

/* ---- the database as a whole ---- */

int sb_db_count_rows(sb_db *db, sb_db_counts *c, sb_err *e)
{
    memset(c, 0, sizeof *c);
    /* fixed statements, one per table: table names cannot be bound */
    static const char *const sql[] = {"SELECT COUNT(*) FROM machine", "SELECT COUNT(*) FROM sweep",
                                      "SELECT COUNT(*) FROM point", "SELECT COUNT(*) FROM sample",
                                      "SELECT COUNT(*) FROM metric"};
    long *out[] = {&c->machines, &c->sweeps, &c->points, &c->samples, &c->metrics};
    for (int i = 0; i < 5; i++) {
        int64_t v;
        int rc = one_int64(db, "counting rows", sql[i], 0, &v, e);
        if (rc) return rc;
        *out[i] = (long)v;
    }
    return SB_OK;
}

void sb_machine_rows_free(sb_machine_row *v, int n)
{
    for (int i = 0; v && i < n; i++) {
        free(v[i].fingerprint);
        free(v[i].hostname);
        free(v[i].cpu_model);
        free(v[i].microarch);
    }
    free(v);
}

static int machine_row(sqlite3_stmt *st, void *ctx, sb_err *e)
{
    list *l = ctx;
    sb_machine_row *m = sb_db_push(&l->v, &l->n, &l->cap, sizeof *m, e);
    if (!m) return SB_EFAIL;
    int oom = 0;
    m->fingerprint = text_dup(st, 0, &oom);
    m->hostname = text_dup(st, 1, &oom);
    m->cpu_model = text_dup(st, 2, &oom);
    m->microarch = text_dup(st, 3, &oom);
    m->cores = sqlite3_column_int(st, 4);
    m->points = (long)sqlite3_column_int64(st, 5);
    return oom_or_ok(oom, e);
}

int sb_db_machines(sb_db *db, sb_machine_row **v, int *n, sb_err *e)
{
    list l = {0};
    int rc = sb_db_rows(
        db, "reading machines",
        "SELECT m.fingerprint, COALESCE(m.hostname, ''), COALESCE(m.cpu_model, ''),"
        " " SB_DB_MACHINE_NAME("m") ", COALESCE(m.cores, 0),"
                                    " (SELECT COUNT(*) FROM point p WHERE p.machine_id = m.id)"
                                    " FROM machine m ORDER BY m.id",
        NULL, 0, machine_row, &l, e);
    if (rc) sb_machine_rows_free(l.v, l.n);
    *v = rc ? NULL : l.v;
    *n = rc ? 0 : l.n;
    return rc;
}

static const char *const machine_names[] = {
    "fingerprint", "hostname",  "cpu_model",    "vendor",           "family",     "model",
    "stepping",    "microarch", "packages",     "numa_nodes",       "cores",      "pus",
    "l2_bytes",    "l3_bytes",  "isa",          "amx_os_permitted", "amx_reason", "kernel",
    "mem_bytes",   "info_json", "microarch_how"};

static int machine_info_row(sqlite3_stmt *st, void *ctx, sb_err *e)
{
    json_t *o = json_object();
    for (int i = 0; o && i < (int)(sizeof machine_names / sizeof machine_names[0]); i++) {
        int t = sqlite3_column_type(st, i);
        /* text that is not UTF-8 (an older file, a host name) is shown
         * repaired (U+FFFD), as the gate and the listings show it */
        if (t == SQLITE_INTEGER)
            json_object_set_new(o, machine_names[i], json_integer(sqlite3_column_int64(st, i)));
        else if (t != SQLITE_NULL)
            json_object_set_new(o, machine_names[i],
                                sb_text_jsonn((const char *)sqlite3_column_text(st, i),
                                              (size_t)sqlite3_column_bytes(st, i), NULL));
    }
    *(json_t **)ctx = o;
    return o ? SB_OK : sb_errf(e, SB_EFAIL, "out of memory");
}

int sb_db_machine_info(sb_db *db, int64_t machine_id, json_t **info, sb_err *e)
{
    *info = NULL;
    sb_db_arg a[] = {SB_DB_INT(machine_id)};
    return sb_db_rows(db, "reading a machine",
                      "SELECT fingerprint, hostname, cpu_model, vendor, family, model, stepping,"
                      " " SB_DB_MACHINE_NAME(
                          "machine") ", packages, numa_nodes, cores, pus,"
                                     " l2_bytes, l3_bytes, isa,"
                                     " amx_os_permitted, amx_reason, kernel, mem_bytes, info_json,"
                                     " " SB_DB_UARCH_HOW("machine") " FROM machine WHERE id = ?",
                      a, SB_DB_NARGS(a), machine_info_row, info, e);
}

/* ---- sweeps ---- */

void sb_sweep_rows_free(sb_sweep_row *v, int n)
{
    for (int i = 0; v && i < n; i++) {
        free(v[i].uuid);
        free(v[i].label);
        free(v[i].workload);
        free(v[i].hostname);
        free(v[i].status);
        free(v[i].started);
        free(v[i].holder_host);
        free(v[i].microarch);
        free(v[i].cpu_model);
        free(v[i].tool_version);
    }
    free(v);
}

static int sweep_row(sqlite3_stmt *st, void *ctx, sb_err *e)
{
    list *l = ctx;
    sb_sweep_row *s = sb_db_push(&l->v, &l->n, &l->cap, sizeof *s, e);
    if (!s) return SB_EFAIL;
    int oom = 0;
    s->id = sqlite3_column_int64(st, 0);
    s->uuid = text_dup(st, 1, &oom);
    s->label = text_dup(st, 2, &oom);
    s->workload = text_dup(st, 3, &oom);
    s->hostname = text_dup(st, 4, &oom);
    s->status = text_dup(st, 5, &oom);
    s->started = text_dup(st, 6, &oom);
    s->points = sqlite3_column_int(st, 7);
    s->ok = sqlite3_column_int(st, 8);
    s->skipped = sqlite3_column_int(st, 9);
    s->held = sqlite3_column_type(st, 10) != SQLITE_NULL;
    s->holder_pid = s->held ? (long long)sqlite3_column_int64(st, 10) : 0;
    s->holder_host = text_dup(st, 11, &oom);
    s->microarch = text_dup(st, 12, &oom);
    s->cpu_model = text_dup(st, 13, &oom);
    s->tool_version = text_dup(st, 14, &oom);
    return oom_or_ok(oom, e);
}

int sb_db_sweeps(sb_db *db, sb_sweep_row **v, int *n, sb_err *e)
{
    list l = {0};
    int rc = sb_db_rows(
        db, "reading sweeps",
        "SELECT s.id, s.uuid, COALESCE(s.label, ''), COALESCE(s.workload, ''),"
        " COALESCE(m.hostname, ''), COALESCE(s.status, ''),"
        " COALESCE(s.started, ''),"
        " (SELECT COUNT(*) FROM point p WHERE p.sweep_id = s.id),"
        " (SELECT COUNT(*) FROM point p WHERE p.sweep_id = s.id AND p.status = 'ok'),"
        " (SELECT COUNT(*) FROM point p WHERE p.sweep_id = s.id AND p.status = 'skipped'),"
        " s.holder_pid, COALESCE(s.holder_host, ''),"
        " CASE WHEN m.id IS NULL THEN '' ELSE " SB_DB_MACHINE_NAME(
            "m") " END,"
                 " COALESCE(m.cpu_model, ''), COALESCE(s.tool_version, '')"
                 " FROM sweep s LEFT JOIN machine m ON m.id = s.machine_id ORDER BY s.id",
        NULL, 0, sweep_row, &l, e);
    if (rc) sb_sweep_rows_free(l.v, l.n);
    *v = rc ? NULL : l.v;
    *n = rc ? 0 : l.n;
    return rc;
}

int sb_db_sweep_exists(sb_db *db, int64_t sweep_id, int *exists, sb_err *e)
{
    int64_t one;
    int rc = one_int64(db, "reading a sweep", "SELECT 1 FROM sweep WHERE id = ?", sweep_id, &one,
                       e);
    *exists = !rc && one == 1;
    return rc;
}

void sb_sweep_header_free(sb_sweep_header *h)
{
    free(h->workload);
    free(h->label);
    free(h->hostname);
    free(h->cpu_model);
    free(h->microarch);
    free(h->tool_version);
    free(h->started);
    memset(h, 0, sizeof *h);
}

static int header_row(sqlite3_stmt *st, void *ctx, sb_err *e)
{
    found_row *o = ctx;
    sb_sweep_header *h = o->out;
    int oom = 0;
    h->workload = text_dup_or_null(st, 0, &oom);
    h->label = text_dup_or_null(st, 1, &oom);
    h->has_machine = sqlite3_column_int(st, 2);
    h->hostname = text_dup_or_null(st, 3, &oom);
    h->cpu_model = text_dup_or_null(st, 4, &oom);
    h->microarch = text_dup_or_null(st, 5, &oom);
    h->cores = sqlite3_column_int(st, 6);
    h->machine_id = sqlite3_column_int64(st, 7);
    h->tool_version = text_dup_or_null(st, 8, &oom);
    h->started = text_dup_or_null(st, 9, &oom);
    if (oom) {
        sb_sweep_header_free(h);
        return sb_errf(e, SB_EFAIL, "out of memory");
    }
    o->found = 1;
    return SB_OK;
}

int sb_db_sweep_header(sb_db *db, int64_t sweep_id, sb_sweep_header *h, int *found, sb_err *e)
{
    memset(h, 0, sizeof *h);
    found_row o = {h, 0};
    sb_db_arg a[] = {SB_DB_INT(sweep_id)};
    int rc = sb_db_rows(
        db, "reading a sweep",
        "SELECT s.workload, s.label, m.id IS NOT NULL, m.hostname, m.cpu_model,"
        " CASE WHEN m.id IS NULL THEN NULL ELSE " SB_DB_MACHINE_NAME(
            "m") " END,"
                 " COALESCE(m.cores, 0), COALESCE(m.id, 0), s.tool_version, s.started FROM sweep s"
                 " LEFT JOIN machine m ON m.id = s.machine_id WHERE s.id = ?",
        a, SB_DB_NARGS(a), header_row, &o, e);
    *found = o.found;
    return rc;
}

static int plan_row(sqlite3_stmt *st, void *ctx, sb_err *e)
{
    found_row *o = ctx;
    int oom = 0;
    o->found = 1;
    *(char **)o->out = text_dup_or_null(st, 0, &oom);
    return oom_or_ok(oom, e);
}

int sb_db_sweep_plan(sb_db *db, int64_t sweep_id, char **plan, int *found, sb_err *e)
{
    *plan = NULL;
    found_row o = {plan, 0};
    sb_db_arg a[] = {SB_DB_INT(sweep_id)};
    int rc = sb_db_rows(db, "reading a sweep's plan", "SELECT plan FROM sweep WHERE id = ?", a,
                        SB_DB_NARGS(a), plan_row, &o, e);
    *found = o.found;
    return rc;
}

int sb_db_sweep_point_count(sb_db *db, int64_t sweep_id, int *n, sb_err *e)
{
    int64_t v;
    int rc = one_int64(db, "counting a sweep's points",
                       "SELECT COUNT(*) FROM point WHERE sweep_id = ?", sweep_id, &v, e);
    *n = rc ? 0 : (int)v;
    return rc;
}

int sb_db_sweep_paired_count(sb_db *db, int64_t sweep_id, int *n, sb_err *e)
{
    int64_t v;
    int rc = one_int64(db, "counting a sweep's paired points",
                       "SELECT COUNT(*) FROM point_pairing pp JOIN point p ON p.id = pp.point_id"
                       " WHERE p.sweep_id = ?",
                       sweep_id, &v, e);
    *n = rc ? 0 : (int)v;
    return rc;
}

static int todo_row(sqlite3_stmt *st, void *ctx, sb_err *e)
{
    list *l = ctx;
    sb_todo_point *r = sb_db_push(&l->v, &l->n, &l->cap, sizeof *r, e);
    if (!r) return SB_EFAIL;
    const char *kernel = (const char *)sqlite3_column_text(st, 2);
    const char *shape = (const char *)sqlite3_column_text(st, 3);
    const char *workload = (const char *)sqlite3_column_text(st, 7);
    r->id = sqlite3_column_int64(st, 0);
    r->seq = sqlite3_column_int(st, 1);
    snprintf(r->kernel, sizeof r->kernel, "%s", kernel ? kernel : "");
    snprintf(r->shape, sizeof r->shape, "%s", shape ? shape : "");
    r->threads = sqlite3_column_int(st, 4);
    r->ppn = sqlite3_column_int(st, 5);
    r->nodes = sqlite3_column_int(st, 6);
    snprintf(r->workload, sizeof r->workload, "%s", workload ? workload : "");
    r->wl = sb_workload_find(r->workload);
    return SB_OK;
}

int sb_db_sweep_unfinished(sb_db *db, int64_t sweep_id, sb_todo_point **v, int *n, sb_err *e)
{
    list l = {0};
    sb_db_arg a[] = {SB_DB_INT(sweep_id)};
    int rc = sb_db_rows(db, "reading a sweep's points",
                        "SELECT id, seq, kernel, shape, threads, ppn, nodes, workload FROM point"
                        " WHERE sweep_id = ? AND status IN ('pending','running','interrupted')"
                        " ORDER BY seq",
                        a, SB_DB_NARGS(a), todo_row, &l, e);
    if (rc) free(l.v);
    *v = rc ? NULL : l.v;
    *n = rc ? 0 : l.n;
    return rc;
}

void sb_summary_rows_free(sb_summary_row *v, int n)
{
    for (int i = 0; v && i < n; i++) {
        free(v[i].kernel);
        free(v[i].shape);
        free(v[i].status);
        free(v[i].reason);
        free(v[i].unit);
        free(v[i].dtype);
    }
    free(v);
}

static int summary_row(sqlite3_stmt *st, void *ctx, sb_err *e)
{
    list *l = ctx;
    const sb_workload *w = l->with;
    sb_summary_row *r = sb_db_push(&l->v, &l->n, &l->cap, sizeof *r, e);
    if (!r) return SB_EFAIL;
    int oom = 0;
    r->kernel = text_dup(st, 0, &oom);
    r->shape = text_dup(st, 1, &oom);
    r->threads = sqlite3_column_int(st, 2);
    r->ppn = sqlite3_column_int(st, 3);
    r->nodes = sqlite3_column_int(st, 4);
    r->status = text_dup(st, 5, &oom);
    r->reason = text_dup(st, 6, &oom);
    r->has_value = sqlite3_column_type(st, 7) != SQLITE_NULL;
    r->value = sqlite3_column_double(st, 7);
    r->unit = text_dup(st, 8, &oom);
    r->has_pct = sqlite3_column_type(st, 9) != SQLITE_NULL;
    r->pct_peak = sqlite3_column_double(st, 9);
    r->has_base = sqlite3_column_type(st, 10) != SQLITE_NULL;
    r->base_value = sqlite3_column_double(st, 10);
    r->base_threads = sqlite3_column_int(st, 11);
    r->dtype = text_dup(st, 12, &oom);
    r->lower = w && w->metric && sb_metric_lower(w->metric, w->unit);
    return oom_or_ok(oom, e);
}

int sb_db_sweep_summary(sb_db *db, int64_t sweep_id, sb_summary_row **v, int *n, sb_err *e)
{
    *v = NULL;
    *n = 0;
    /* The base of a row's speedup: the ok point with the fewest threads of
     * the same series (kernel, shape, ppn, nodes) in this sweep. */
    static const char *sql =
        "WITH v AS ("
        "  SELECT p.id, p.workload, p.kernel, p.dtype, p.shape, p.threads, p.ppn, p.nodes, p.status,"
        "         p.reason, COALESCE(mg.value, ms.value, mt.value, mh.value) AS value,"
        "         CASE WHEN mg.value IS NOT NULL THEN (CASE WHEN p.dtype = 'int8' THEN 'GOP/s' "
        "ELSE 'GFLOP/s' END)"
        "              WHEN ms.value IS NOT NULL THEN 'seq/s'"
        "              WHEN mt.value IS NOT NULL THEN 'tokens/s'"
        "              WHEN mh.value IS NOT NULL THEN ?3 END AS unit, mp.value AS pct"
        "  FROM point p"
        "  LEFT JOIN metric mg ON mg.point_id = p.id AND mg.name = 'gflops'"
        /* inference counts answered sequences; training, tokens */
        "  LEFT JOIN metric ms ON ms.point_id = p.id AND mg.value IS NULL"
        "   AND p.workload = 'infer' AND ms.name = 'sequences_per_s'"
        "  LEFT JOIN metric mt ON mt.point_id = p.id AND mt.name = 'tokens_per_s'"
        "  LEFT JOIN metric mp ON mp.point_id = p.id AND mp.name = 'pct_peak'"
        /* any other workload: its row's headline metric (bench/sb_workload) */
        "  LEFT JOIN metric mh ON mh.point_id = p.id AND mh.name = ?2"
        "  WHERE p.sweep_id = ?1 AND p.workload != 'peak')"
        " SELECT v.kernel, v.shape, v.threads, v.ppn, v.nodes, v.status, v.reason, v.value, v.unit,"
        "        v.pct, (SELECT b.value FROM v b WHERE b.kernel = v.kernel AND b.shape = v.shape"
        "          AND b.ppn = v.ppn AND b.nodes = v.nodes AND b.status = 'ok'"
        "          ORDER BY b.threads LIMIT 1),"
        "        (SELECT b.threads FROM v b WHERE b.kernel = v.kernel AND b.shape = v.shape"
        "          AND b.ppn = v.ppn AND b.nodes = v.nodes AND b.status = 'ok'"
        "          ORDER BY b.threads LIMIT 1), v.dtype"
        " FROM v ORDER BY v.kernel, v.shape, v.nodes, v.ppn, v.threads";
    sb_sweep_header hd;
    int found;
    int rc = sb_db_sweep_header(db, sweep_id, &hd, &found, e);
    if (rc) return rc;
    const sb_workload *w = found ? sb_workload_find(hd.workload) : NULL;
    sb_sweep_header_free(&hd);
    list l = {.with = w};
    sb_db_arg a[] = {SB_DB_INT(sweep_id), SB_DB_TEXT(w && w->metric ? w->metric : NULL),
                     SB_DB_TEXT(w && w->metric ? w->unit : NULL)};
    rc = sb_db_rows(db, "sweep summary", sql, a, SB_DB_NARGS(a), summary_row, &l, e);
    if (rc) sb_summary_rows_free(l.v, l.n);
    *v = rc ? NULL : l.v;
    *n = rc ? 0 : l.n;
    return rc;
}

void sb_db_strings_free(char **v, int n)
{
    for (int i = 0; v && i < n; i++) free(v[i]);
    free(v);
}

static int string_row(sqlite3_stmt *st, void *ctx, sb_err *e)
{
    list *l = ctx;
    char **s = sb_db_push(&l->v, &l->n, &l->cap, sizeof *s, e);
    if (!s) return SB_EFAIL;
    int oom = 0;
    *s = text_dup(st, 0, &oom);
    return oom_or_ok(oom, e);
}

int sb_db_sweep_shapes(sb_db *db, int64_t sweep_id, const char *workload, char ***shapes, int *n,
                       sb_err *e)
{
    list l = {0};
    sb_db_arg a[] = {SB_DB_INT(sweep_id), SB_DB_TEXT(workload)};
    int rc = sb_db_rows(db, "reading a sweep's shapes",
                        "SELECT DISTINCT COALESCE(p.shape, '') FROM point p WHERE p.sweep_id = ?"
                        " AND p.workload = ? AND p.status = 'ok' ORDER BY 1",
                        a, SB_DB_NARGS(a), string_row, &l, e);
    if (rc) sb_db_strings_free(l.v, l.n);
    *shapes = rc ? NULL : l.v;
    *n = rc ? 0 : l.n;
    return rc;
}

/* ---- series ---- */

void sb_series_free(sb_series_point *v, int n)
{
    for (int i = 0; v && i < n; i++) {
        free(v[i].kernel);
        free(v[i].dtype);
        free(v[i].samples);
    }
    free(v);
}

/* The raw samples of a point, in repetition order. */
static int sample_row(sqlite3_stmt *st, void *ctx, sb_err *e)
{
    list *l = ctx;
    double *d = sb_db_push(&l->v, &l->n, &l->cap, sizeof *d, e);
    if (!d) return SB_EFAIL;
    *d = sqlite3_column_double(st, 0);
    return SB_OK;
}

static int point_samples(sb_db *db, sb_series_point *p, sb_err *e)
{
    list l = {0};
    sb_db_arg a[] = {SB_DB_INT(p->point_id)};
    int rc = sb_db_rows(db, "reading samples",
                        "SELECT seconds FROM sample WHERE point_id = ?"
                        " AND (side IS NULL OR side = 1) ORDER BY rep",
                        a, SB_DB_NARGS(a), sample_row, &l, e);
    p->samples = l.v; /* the caller's to free, also on an error */
    p->nsamples = l.n;
    return rc;
}

static int series_row(sqlite3_stmt *st, void *ctx, sb_err *e)
{
    list *l = ctx;
    sb_series_point *p = sb_db_push(&l->v, &l->n, &l->cap, sizeof *p, e);
    if (!p) return SB_EFAIL;
    int oom = 0;
    p->point_id = sqlite3_column_int64(st, 0);
    p->kernel = text_dup(st, 1, &oom);
    p->threads = sqlite3_column_int(st, 2);
    p->value = sqlite3_column_double(st, 3);
    p->dtype = text_dup(st, 4, &oom);
    /* the path %peak was taken against: "% of PATH peak" (older
     * results: "%" or none, the kernel's own path) */
    const char *pu = (const char *)sqlite3_column_text(st, 5);
    if (pu && !strncmp(pu, "% of ", 5)) {
        size_t len = strcspn(pu + 5, " ");
        snprintf(p->peak_path, sizeof p->peak_path, "%.*s", (int)len, pu + 5);
    }
    int rc = oom_or_ok(oom, e);
    return rc ? rc : point_samples(l->db, p, e);
}

int sb_db_metric_series(sb_db *db, int64_t sweep_id, const char *workload, const char *shape,
                        const char *metric, sb_series_point **v, int *n, sb_err *e)
{
    list l = {.db = db};
    sb_db_arg a[] = {SB_DB_TEXT(metric), SB_DB_INT(sweep_id), SB_DB_TEXT(workload),
                     SB_DB_TEXT(shape)};
    int rc = sb_db_rows(
        db, "reading a series",
        "SELECT p.id, p.kernel, p.threads, m.value, p.dtype,"
        " COALESCE(mp.unit, '') FROM point p"
        " JOIN metric m ON m.point_id = p.id AND m.name = ?"
        " AND NOT " SB_DB_IMPOSSIBLE_CLOCK(
            "m") " LEFT JOIN metric mp ON mp.point_id = p.id AND mp.name = 'pct_peak'"
                 " WHERE p.sweep_id = ? AND p.workload = ? AND p.status = 'ok'"
                 " AND COALESCE(p.shape, '') = ? AND p.ppn = 1 AND p.nodes = 1"
                 " ORDER BY p.kernel, p.threads",
        a, SB_DB_NARGS(a), series_row, &l, e);
    if (rc) sb_series_free(l.v, l.n);
    *v = rc ? NULL : l.v;
    *n = rc ? 0 : l.n;
    return rc;
}

void sb_history_free(sb_history_point *v, int n)
{
    for (int i = 0; v && i < n; i++) {
        free(v[i].tool_version);
        free(v[i].started);
        free(v[i].label);
        free(v[i].config);
        free(v[i].unit);
        free(v[i].samples);
    }
    free(v);
}

static int history_row(sqlite3_stmt *st, void *ctx, sb_err *e)
{
    list *l = ctx;
    sb_history_point *h = sb_db_push(&l->v, &l->n, &l->cap, sizeof *h, e);
    if (!h) return SB_EFAIL;
    int oom = 0;
    h->sweep_id = sqlite3_column_int64(st, 0);
    h->point_id = sqlite3_column_int64(st, 1);
    h->tool_version = text_dup(st, 2, &oom);
    h->started = text_dup(st, 3, &oom);
    h->label = text_dup(st, 4, &oom);
    h->value = sqlite3_column_double(st, 5);
    h->config = text_dup(st, 6, &oom);
    h->unit = text_dup(st, 7, &oom);
    int rc = oom_or_ok(oom, e);
    if (rc) return rc;
    sb_series_point sp = {.point_id = h->point_id};
    rc = point_samples(l->db, &sp, e);
    h->samples = sp.samples; /* freed with the rest, also on an error */
    h->nsamples = sp.nsamples;
    return rc;
}

int sb_db_metric_history(sb_db *db, int64_t machine_id, const char *workload, const char *kernel,
                         const char *shape, const char *config, int threads, int ppn, int nodes,
                         const char *metric, sb_history_point **v, int *n, sb_err *e)
{
    list l = {.db = db};
    sb_db_arg a[] = {SB_DB_TEXT(metric), SB_DB_INT(machine_id), SB_DB_TEXT(workload),
                     SB_DB_TEXT(kernel), SB_DB_TEXT(shape),     SB_DB_INT(threads),
                     SB_DB_INT(ppn),     SB_DB_INT(nodes),      SB_DB_TEXT(config)};
    /* one point per sweep: a sweep that ran the key twice counts by its last */
    int rc = sb_db_rows(
        db, "reading a history",
        "SELECT s.id, p.id, COALESCE(s.tool_version, ''), COALESCE(s.started, ''),"
        " COALESCE(s.label, ''), m.value, COALESCE(p.config, ''), COALESCE(m.unit, '')"
        " FROM point p"
        " JOIN sweep s ON s.id = p.sweep_id"
        " LEFT JOIN metric m ON m.point_id = p.id AND m.name = ?1"
        " AND NOT " SB_DB_IMPOSSIBLE_CLOCK(
            "m") " WHERE p.machine_id = ?2 AND p.workload = ?3 AND p.kernel = ?4"
                 " AND COALESCE(p.shape, '') = ?5 AND p.threads = ?6 AND p.ppn = ?7"
                 " AND p.nodes = ?8 AND p.status = 'ok'"
                 " AND (?9 IS NULL OR COALESCE(p.config, '') = ?9)"
                 " AND (?1 IS NULL OR m.name IS NOT NULL)"
                 " AND p.id = (SELECT MAX(q.id) FROM point q"
                 "   WHERE q.sweep_id = p.sweep_id AND q.machine_id = p.machine_id"
                 "   AND q.workload = p.workload AND q.kernel = p.kernel"
                 "   AND COALESCE(q.shape, '') = COALESCE(p.shape, '')"
                 "   AND q.threads = p.threads AND q.ppn = p.ppn AND q.nodes = p.nodes"
                 "   AND COALESCE(q.config, '') = COALESCE(p.config, '')"
                 "   AND q.status = 'ok')"
                 " ORDER BY " SB_DB_SWEEP_TIME("s"),
        a, SB_DB_NARGS(a), history_row, &l, e);
    if (rc) sb_history_free(l.v, l.n);
    *v = rc ? NULL : l.v;
    *n = rc ? 0 : l.n;
    return rc;
}

void sb_epoch_series_free(sb_epoch_point *v, int n)
{
    for (int i = 0; v && i < n; i++) {
        free(v[i].kernel);
        free(v[i].shape);
    }
    free(v);
}

static int epoch_row(sqlite3_stmt *st, void *ctx, sb_err *e)
{
    list *l = ctx;
    sb_epoch_point *p = sb_db_push(&l->v, &l->n, &l->cap, sizeof *p, e);
    if (!p) return SB_EFAIL;
    int oom = 0;
    p->kernel = text_dup(st, 0, &oom);
    p->ppn = sqlite3_column_int(st, 1);
    p->nodes = sqlite3_column_int(st, 2);
    p->threads = sqlite3_column_int(st, 3);
    p->epoch_s = sqlite3_column_double(st, 4);
    p->extrapolated = sqlite3_column_int(st, 5);
    p->model = sqlite3_column_int(st, 6);
    p->shape = text_dup(st, 7, &oom);
    return oom_or_ok(oom, e);
}

int sb_db_epoch_series(sb_db *db, int64_t sweep_id, sb_epoch_point **v, int *n, sb_err *e)
{
    list l = {0};
    sb_db_arg a[] = {SB_DB_INT(sweep_id)};
    int rc = sb_db_rows(
        db, "reading a scaling series",
        "SELECT p.kernel, p.ppn, p.nodes, p.threads, m.value, m.projected,"
        " p.status = 'projected', COALESCE(p.shape, '')"
        " FROM point p JOIN metric m ON m.point_id = p.id AND m.name = 'epoch_seconds'"
        " WHERE p.sweep_id = ? AND p.status IN ('ok', 'projected')"
        " ORDER BY p.kernel, p.ppn, p.status = 'projected', p.nodes, p.threads DESC",
        a, SB_DB_NARGS(a), epoch_row, &l, e);
    if (rc) sb_epoch_series_free(l.v, l.n);
    *v = rc ? NULL : l.v;
    *n = rc ? 0 : l.n;
    return rc;
}

/* ---- one point ---- */

void sb_point_brief_free(sb_point_brief *b)
{
    free(b->workload);
    free(b->kernel);
    free(b->shape);
    free(b->status);
    memset(b, 0, sizeof *b);
}

static int brief_row(sqlite3_stmt *st, void *ctx, sb_err *e)
{
    found_row *o = ctx;
    sb_point_brief *b = o->out;
    int oom = 0;
    b->workload = text_dup(st, 0, &oom);
    b->kernel = text_dup(st, 1, &oom);
    b->shape = text_dup(st, 2, &oom);
    b->threads = sqlite3_column_int(st, 3);
    b->status = text_dup(st, 4, &oom);
    b->sweep_id = sqlite3_column_int64(st, 5);
    if (oom) {
        sb_point_brief_free(b);
        return sb_errf(e, SB_EFAIL, "out of memory");
    }
    o->found = 1;
    return SB_OK;
}

int sb_db_point_brief(sb_db *db, int64_t point_id, sb_point_brief *b, int *found, sb_err *e)
{
    memset(b, 0, sizeof *b);
    found_row o = {b, 0};
    sb_db_arg a[] = {SB_DB_INT(point_id)};
    int rc = sb_db_rows(db, "reading a point",
                        "SELECT COALESCE(workload, ''), COALESCE(kernel, ''), COALESCE(shape, ''),"
                        " COALESCE(threads, 0), status, COALESCE(sweep_id, 0) FROM point"
                        " WHERE id = ?",
                        a, SB_DB_NARGS(a), brief_row, &o, e);
    *found = o.found;
    return rc;
}

static int result_row(sqlite3_stmt *st, void *ctx, sb_err *e)
{
    (void)e;
    const char *text = (const char *)sqlite3_column_text(st, 0);
    if (text) *(json_t **)ctx = json_loadb(text, (size_t)sqlite3_column_bytes(st, 0), 0, NULL);
    return SB_OK;
}

int sb_db_point_result(sb_db *db, int64_t point_id, json_t **doc, sb_err *e)
{
    *doc = NULL;
    sb_db_arg a[] = {SB_DB_INT(point_id)};
    return sb_db_rows(db, "reading a result", "SELECT result_json FROM point WHERE id = ?", a,
                      SB_DB_NARGS(a), result_row, doc, e);
}
