#include "sb_db.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct sb_db {
    sqlite3 *h;
    char path[4096];
};

/* Migration N brings the schema from version N-1 to N. Never edit a shipped
 * migration: add the next one, so every older database still opens. */
static const char *const g_migrations[] = {
    /* 1: the five tables of the design */
    "CREATE TABLE machine ("
    " id INTEGER PRIMARY KEY, fingerprint TEXT NOT NULL UNIQUE, hostname TEXT,"
    " cpu_model TEXT, vendor TEXT, family INTEGER, model INTEGER, stepping INTEGER,"
    " microarch TEXT, packages INTEGER, numa_nodes INTEGER, cores INTEGER, pus INTEGER,"
    " l1d_bytes INTEGER, l2_bytes INTEGER, l3_bytes INTEGER, isa TEXT,"
    " amx_os_permitted INTEGER, amx_reason TEXT, kernel TEXT, mem_bytes INTEGER,"
    " info_json TEXT, first_seen TEXT);"
    "CREATE TABLE sweep ("
    " id INTEGER PRIMARY KEY, uuid TEXT NOT NULL UNIQUE, label TEXT, workload TEXT,"
    " plan TEXT, machine_id INTEGER REFERENCES machine(id), started TEXT, finished TEXT,"
    " tool_version TEXT, status TEXT);"
    "CREATE TABLE point ("
    " id INTEGER PRIMARY KEY, uuid TEXT NOT NULL UNIQUE,"
    " sweep_id INTEGER REFERENCES sweep(id), seq INTEGER, workload TEXT, kernel TEXT,"
    " dtype TEXT, shape TEXT, config TEXT, threads INTEGER, ppn INTEGER, nodes INTEGER,"
    " status TEXT NOT NULL, reason TEXT, started TEXT, finished TEXT,"
    " machine_id INTEGER REFERENCES machine(id), result_json TEXT);"
    "CREATE TABLE sample ("
    " point_id INTEGER NOT NULL REFERENCES point(id) ON DELETE CASCADE,"
    " rep INTEGER NOT NULL, seconds REAL NOT NULL, PRIMARY KEY (point_id, rep));"
    "CREATE TABLE metric ("
    " point_id INTEGER NOT NULL REFERENCES point(id) ON DELETE CASCADE,"
    " name TEXT NOT NULL, value REAL NOT NULL, unit TEXT, projected INTEGER NOT NULL DEFAULT 0,"
    " source TEXT, PRIMARY KEY (point_id, name));",
    /* 2: the exact command and the binding of every point (distributed runs),
     * and the lookups plots, reports and resumes make */
    "ALTER TABLE point ADD COLUMN command TEXT;"
    "ALTER TABLE point ADD COLUMN binding TEXT;"
    "CREATE INDEX point_sweep ON point(sweep_id, seq);"
    "CREATE INDEX point_lookup ON point(machine_id, workload, kernel, shape, threads);",
};
#define NMIGRATIONS ((int)(sizeof g_migrations / sizeof g_migrations[0]))

sqlite3 *sb_db_handle(sb_db *db) { return db->h; }

static int db_fail(sb_db *db, sb_err *e, const char *what)
{
    return sb_errf(e, SB_EFAIL, "%s: %s: %s", db->path, what, sqlite3_errmsg(db->h));
}

int sb_db_schema_version(sb_db *db)
{
    sqlite3_stmt *st;
    int v = -1;
    if (sqlite3_prepare_v2(db->h, "PRAGMA user_version", -1, &st, NULL) == SQLITE_OK) {
        if (sqlite3_step(st) == SQLITE_ROW) v = sqlite3_column_int(st, 0);
        sqlite3_finalize(st);
    }
    return v;
}

int sb_db_begin(sb_db *db, sb_err *e)
{
    /* busy_timeout covers most waits; a deadlock-avoidance SQLITE_BUSY from
     * BEGIN IMMEDIATE is retried here. */
    for (int attempt = 0; attempt < 200; attempt++) {
        int rc = sqlite3_exec(db->h, "BEGIN IMMEDIATE", NULL, NULL, NULL);
        if (rc == SQLITE_OK) return SB_OK;
        if (rc != SQLITE_BUSY && rc != SQLITE_LOCKED) return db_fail(db, e, "begin");
        usleep(50000);
    }
    return sb_errf(e, SB_EFAIL, "%s: database stayed locked by another writer", db->path);
}

int sb_db_commit(sb_db *db, sb_err *e)
{
    for (int attempt = 0; attempt < 200; attempt++) {
        int rc = sqlite3_exec(db->h, "COMMIT", NULL, NULL, NULL);
        if (rc == SQLITE_OK) return SB_OK;
        if (rc != SQLITE_BUSY) break;
        usleep(50000);
    }
    int rc = db_fail(db, e, "commit");
    sb_db_rollback(db);
    return rc;
}

void sb_db_rollback(sb_db *db) { sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL); }

static int migrate(sb_db *db, int target, sb_err *e)
{
    int v = sb_db_schema_version(db);
    if (v < 0) return sb_errf(e, SB_EUSAGE, "%s: is not a SQLite database", db->path);
    if (v > NMIGRATIONS)
        return sb_errf(e, SB_EUSAGE, "%s: schema version %d is newer than this sprbench (%d)",
                       db->path, v, NMIGRATIONS);
    while (v < target) {
        int rc = sb_db_begin(db, e);
        if (rc) return rc;
        v = sb_db_schema_version(db);   /* another process may have migrated meanwhile */
        if (v >= target) { sb_db_rollback(db); break; }
        char *msg = NULL;
        if (sqlite3_exec(db->h, g_migrations[v], NULL, NULL, &msg) != SQLITE_OK) {
            sb_errf(e, SB_EFAIL, "%s: migration %d failed: %s", db->path, v + 1, msg ? msg : "?");
            sqlite3_free(msg);
            sb_db_rollback(db);
            return SB_EFAIL;
        }
        char pragma[64];
        snprintf(pragma, sizeof pragma, "PRAGMA user_version = %d", v + 1);
        if (sqlite3_exec(db->h, pragma, NULL, NULL, NULL) != SQLITE_OK) {
            sb_db_rollback(db);
            return db_fail(db, e, "migration");
        }
        if ((rc = sb_db_commit(db, e))) return rc;
        v++;
    }
    return SB_OK;
}

int sb_db_open_at_version(const char *path, int target, sb_db **out, sb_err *e)
{
    *out = NULL;
    if (!path || !*path) return sb_errf(e, SB_EUSAGE, "database path is empty");
    /* A non-empty file that lacks SQLite's magic is refused before SQLite
     * touches it, so a wrong --db never gets overwritten. */
    int fd = open(path, O_RDONLY);
    if (fd >= 0) {
        char magic[16] = {0};
        ssize_t n = read(fd, magic, sizeof magic);
        close(fd);
        if (n > 0 && (n < 16 || memcmp(magic, "SQLite format 3", 16) != 0))
            return sb_errf(e, SB_EUSAGE, "%s: is not a SQLite database", path);
    }
    sb_db *db = calloc(1, sizeof *db);
    if (!db) return sb_errf(e, SB_EFAIL, "out of memory");
    snprintf(db->path, sizeof db->path, "%s", path);
    if (sqlite3_open_v2(path, &db->h, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) !=
        SQLITE_OK) {
        sb_errf(e, SB_EUSAGE, "%s: cannot open database: %s", path,
                db->h ? sqlite3_errmsg(db->h) : "out of memory");
        sb_db_close(db);
        return SB_EUSAGE;
    }
    sqlite3_busy_timeout(db->h, 10000);
    sqlite3_extended_result_codes(db->h, 0);
    char *msg = NULL;
    int rc = sqlite3_exec(db->h, "PRAGMA trusted_schema=OFF; PRAGMA journal_mode=WAL; PRAGMA foreign_keys=ON;"
                                 "PRAGMA synchronous=NORMAL;", NULL, NULL, &msg);
    if (rc != SQLITE_OK) {
        sb_errf(e, rc == SQLITE_NOTADB ? SB_EUSAGE : SB_EUSAGE, "%s: %s", path,
                rc == SQLITE_NOTADB ? "is not a SQLite database"
                                    : (msg ? msg : "cannot use database"));
        sqlite3_free(msg);
        sb_db_close(db);
        return SB_EUSAGE;
    }
    if ((rc = migrate(db, target, e))) {
        sb_db_close(db);
        return rc;
    }
    *out = db;
    return SB_OK;
}

int sb_db_open(const char *path, sb_db **db, sb_err *e)
{
    return sb_db_open_at_version(path, NMIGRATIONS, db, e);
}

void sb_db_close(sb_db *db)
{
    if (!db) return;
    sqlite3_close_v2(db->h);
    free(db);
}

void sb_db_uuid(char out[33])
{
    unsigned char b[16];
    int fd = open("/dev/urandom", O_RDONLY);
    ssize_t n = fd >= 0 ? read(fd, b, sizeof b) : -1;
    if (fd >= 0) close(fd);
    if (n != (ssize_t)sizeof b) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        unsigned long long x = (unsigned long long)ts.tv_nsec ^ ((unsigned long long)getpid() << 32);
        for (int i = 0; i < 16; i++) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            b[i] = (unsigned char)(x >> 56);
        }
    }
    for (int i = 0; i < 16; i++) snprintf(out + 2 * i, 3, "%02x", b[i]);
}

void sb_db_now_iso(char out[32])
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* Binds helpers: a NULL string binds NULL. */
static void bind_text(sqlite3_stmt *st, int i, const char *s)
{
    if (s) sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
    else sqlite3_bind_null(st, i);
}

static const char *jstr(json_t *o, const char *path1, const char *path2)
{
    json_t *v = json_object_get(o, path1);
    if (path2) v = json_object_get(v, path2);
    return json_is_string(v) ? json_string_value(v) : NULL;
}

static json_int_t jint(json_t *o, const char *path1, const char *path2)
{
    json_t *v = json_object_get(o, path1);
    if (path2) v = json_object_get(v, path2);
    return json_is_integer(v) ? json_integer_value(v) : (json_is_true(v) ? 1 : 0);
}

int sb_db_machine_by_fingerprint(sb_db *db, const char *fingerprint, int64_t *id, sb_err *e)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db->h, "SELECT id FROM machine WHERE fingerprint = ?", -1, &st,
                           NULL) != SQLITE_OK)
        return db_fail(db, e, "machine lookup");
    bind_text(st, 1, fingerprint);
    int rc = sqlite3_step(st);
    *id = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    sqlite3_finalize(st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? SB_OK : db_fail(db, e, "machine lookup");
}

int sb_db_machine_upsert(sb_db *db, json_t *info, int64_t *id, sb_err *e)
{
    const char *fp = jstr(info, "fingerprint", NULL);
    if (!fp) return sb_errf(e, SB_EUSAGE, "machine description has no fingerprint");
    int rc = sb_db_machine_by_fingerprint(db, fp, id, e);
    if (rc || *id) return rc;
    static const char *sql =
        "INSERT INTO machine (fingerprint, hostname, cpu_model, vendor, family, model, stepping,"
        " microarch, packages, numa_nodes, cores, pus, l1d_bytes, l2_bytes, l3_bytes, isa,"
        " amx_os_permitted, amx_reason, kernel, mem_bytes, info_json, first_seen)"
        " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
        " ON CONFLICT(fingerprint) DO NOTHING";
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL) != SQLITE_OK)
        return db_fail(db, e, "machine insert");
    char *isa = json_dumps(json_object_get(info, "isa"), JSON_COMPACT | JSON_PRESERVE_ORDER);
    char *all = json_dumps(info, JSON_COMPACT | JSON_PRESERVE_ORDER);
    char now[32];
    sb_db_now_iso(now);
    bind_text(st, 1, fp);
    bind_text(st, 2, jstr(info, "hostname", NULL));
    bind_text(st, 3, jstr(info, "cpu", "model"));
    bind_text(st, 4, jstr(info, "cpu", "vendor"));
    sqlite3_bind_int64(st, 5, jint(info, "cpu", "family"));
    sqlite3_bind_int64(st, 6, jint(info, "cpu", "model_number"));
    sqlite3_bind_int64(st, 7, jint(info, "cpu", "stepping"));
    bind_text(st, 8, jstr(info, "cpu", "microarch"));
    sqlite3_bind_int64(st, 9, jint(info, "topology", "packages"));
    sqlite3_bind_int64(st, 10, jint(info, "topology", "numa_nodes"));
    sqlite3_bind_int64(st, 11, jint(info, "topology", "cores"));
    sqlite3_bind_int64(st, 12, jint(info, "topology", "pus"));
    sqlite3_bind_int64(st, 13, jint(info, "topology", "l1d_bytes"));
    sqlite3_bind_int64(st, 14, jint(info, "topology", "l2_bytes"));
    sqlite3_bind_int64(st, 15, jint(info, "topology", "l3_bytes"));
    bind_text(st, 16, isa);
    sqlite3_bind_int64(st, 17, jint(info, "isa", "amx_os_permitted"));
    bind_text(st, 18, jstr(info, "isa", "amx_reason"));
    bind_text(st, 19, jstr(info, "kernel", NULL));
    sqlite3_bind_int64(st, 20, jint(info, "memory", "total_bytes"));
    bind_text(st, 21, all);
    bind_text(st, 22, now);
    int step = sqlite3_step(st);
    sqlite3_finalize(st);
    free(isa);
    free(all);
    if (step != SQLITE_DONE) return db_fail(db, e, "machine insert");
    return sb_db_machine_by_fingerprint(db, fp, id, e);
}

int sb_db_sweep_create(sb_db *db, const char *label, const char *workload, const char *plan,
                       int64_t machine_id, int64_t *id, sb_err *e)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db->h,
                           "INSERT INTO sweep (uuid, label, workload, plan, machine_id, started,"
                           " tool_version, status) VALUES (?,?,?,?,?,?,?, 'running')",
                           -1, &st, NULL) != SQLITE_OK)
        return db_fail(db, e, "sweep insert");
    char uuid[33], now[32];
    sb_db_uuid(uuid);
    sb_db_now_iso(now);
#ifdef SB_VERSION
    const char *version = SB_VERSION;
#else
    const char *version = "unknown";
#endif
    bind_text(st, 1, uuid);
    bind_text(st, 2, label);
    bind_text(st, 3, workload);
    bind_text(st, 4, plan);
    if (machine_id) sqlite3_bind_int64(st, 5, machine_id);
    else sqlite3_bind_null(st, 5);
    bind_text(st, 6, now);
    bind_text(st, 7, version);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) return db_fail(db, e, "sweep insert");
    *id = sqlite3_last_insert_rowid(db->h);
    return SB_OK;
}

int sb_db_sweep_finish(sb_db *db, int64_t id, const char *status, sb_err *e)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db->h, "UPDATE sweep SET finished = ?, status = ? WHERE id = ?", -1,
                           &st, NULL) != SQLITE_OK)
        return db_fail(db, e, "sweep update");
    char now[32];
    sb_db_now_iso(now);
    bind_text(st, 1, now);
    bind_text(st, 2, status);
    sqlite3_bind_int64(st, 3, id);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? SB_OK : db_fail(db, e, "sweep update");
}

int sb_db_point_add(sb_db *db, int64_t sweep_id, const sb_point_desc *p, int64_t machine_id,
                    int64_t *id, sb_err *e)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db->h,
                           "INSERT INTO point (uuid, sweep_id, seq, workload, kernel, dtype, shape,"
                           " config, threads, ppn, nodes, status, command, machine_id)"
                           " VALUES (?,?,?,?,?,?,?,?,?,?,?, 'pending', ?, ?)",
                           -1, &st, NULL) != SQLITE_OK)
        return db_fail(db, e, "point insert");
    char uuid[33];
    sb_db_uuid(uuid);
    bind_text(st, 1, uuid);
    sqlite3_bind_int64(st, 2, sweep_id);
    sqlite3_bind_int(st, 3, p->seq);
    bind_text(st, 4, p->workload);
    bind_text(st, 5, p->kernel);
    bind_text(st, 6, p->dtype);
    bind_text(st, 7, p->shape);
    bind_text(st, 8, p->config);
    sqlite3_bind_int(st, 9, p->threads);
    sqlite3_bind_int(st, 10, p->ppn);
    sqlite3_bind_int(st, 11, p->nodes);
    bind_text(st, 12, p->command);
    if (machine_id) sqlite3_bind_int64(st, 13, machine_id);
    else sqlite3_bind_null(st, 13);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) return db_fail(db, e, "point insert");
    *id = sqlite3_last_insert_rowid(db->h);
    return SB_OK;
}

int sb_db_point_set_status(sb_db *db, int64_t id, const char *status, const char *reason,
                           sb_err *e)
{
    int running = !strcmp(status, "running");
    sqlite3_stmt *st;
    const char *sql = running
        ? "UPDATE point SET status = ?, reason = ?, started = ?, finished = NULL WHERE id = ?"
        : "UPDATE point SET status = ?, reason = ?, finished = ? WHERE id = ?";
    if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL) != SQLITE_OK)
        return db_fail(db, e, "point update");
    char now[32];
    sb_db_now_iso(now);
    bind_text(st, 1, status);
    bind_text(st, 2, reason ? reason : "");
    bind_text(st, 3, now);
    sqlite3_bind_int64(st, 4, id);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? SB_OK : db_fail(db, e, "point update");
}

static int exec_bound(sb_db *db, sqlite3_stmt *st, sb_err *e, const char *what)
{
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    return rc == SQLITE_DONE ? SB_OK : db_fail(db, e, what);
}

int sb_db_point_ingest(sb_db *db, int64_t point_id, json_t *result, sb_err *e)
{
    const char *status = jstr(result, "status", NULL);
    if (!status || (strcmp(status, "ok") && strcmp(status, "skipped") && strcmp(status, "failed")))
        return sb_errf(e, SB_EUSAGE, "result has no valid status (ok, skipped or failed)");
    json_t *samples = json_object_get(result, "samples");
    json_t *metrics = json_object_get(result, "metrics");
    json_t *units = json_object_get(result, "units");
    json_t *projected = json_object_get(result, "projected");
    int rc = sb_db_begin(db, e);
    if (rc) return rc;
    sqlite3_stmt *del_s = NULL, *del_m = NULL, *ins_s = NULL, *ins_m = NULL, *upd = NULL;
    /* Re-ingesting a point replaces what it had, so a resumed point never
     * holds samples from two runs. */
    if (sqlite3_prepare_v2(db->h, "DELETE FROM sample WHERE point_id = ?", -1, &del_s, NULL) ||
        sqlite3_prepare_v2(db->h, "DELETE FROM metric WHERE point_id = ?", -1, &del_m, NULL) ||
        sqlite3_prepare_v2(db->h, "INSERT INTO sample (point_id, rep, seconds) VALUES (?,?,?)",
                           -1, &ins_s, NULL) ||
        sqlite3_prepare_v2(db->h,
                           "INSERT INTO metric (point_id, name, value, unit, projected, source)"
                           " VALUES (?,?,?,?,?,?)", -1, &ins_m, NULL) ||
        sqlite3_prepare_v2(db->h,
                           "UPDATE point SET status = ?, reason = ?, finished = ?, binding = ?,"
                           " result_json = ?, dtype = COALESCE(NULLIF(?, ''), dtype)"
                           " WHERE id = ?", -1, &upd, NULL)) {
        rc = db_fail(db, e, "prepare ingest");
        goto out;
    }
    sqlite3_bind_int64(del_s, 1, point_id);
    sqlite3_bind_int64(del_m, 1, point_id);
    if ((rc = exec_bound(db, del_s, e, "ingest")) || (rc = exec_bound(db, del_m, e, "ingest")))
        goto out;
    size_t i;
    json_t *v;
    json_array_foreach(samples, i, v) {
        if (!json_is_number(v)) {
            rc = sb_errf(e, SB_EUSAGE, "result samples[%zu] is not a number", i);
            goto out;
        }
        sqlite3_bind_int64(ins_s, 1, point_id);
        sqlite3_bind_int(ins_s, 2, (int)i);
        sqlite3_bind_double(ins_s, 3, json_number_value(v));
        if ((rc = exec_bound(db, ins_s, e, "sample insert"))) goto out;
    }
    const char *name;
    json_object_foreach(metrics, name, v) {
        if (!json_is_number(v)) continue;   /* strings and tables stay in result_json */
        json_t *src = json_object_get(projected, name);
        int is_projected = src != NULL && !json_is_false(src);
        sqlite3_bind_int64(ins_m, 1, point_id);
        bind_text(ins_m, 2, name);
        sqlite3_bind_double(ins_m, 3, json_number_value(v));
        bind_text(ins_m, 4, jstr(units, name, NULL));
        sqlite3_bind_int(ins_m, 5, is_projected);
        bind_text(ins_m, 6, json_is_string(src) ? json_string_value(src) : NULL);
        if ((rc = exec_bound(db, ins_m, e, "metric insert"))) goto out;
    }
    char now[32];
    sb_db_now_iso(now);
    json_t *binding = json_object_get(result, "binding");
    char *binding_s = binding ? json_dumps(binding, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
    char *doc = json_dumps(result, JSON_COMPACT | JSON_PRESERVE_ORDER);
    bind_text(upd, 1, status);
    bind_text(upd, 2, jstr(result, "reason", NULL) ? jstr(result, "reason", NULL) : "");
    bind_text(upd, 3, now);
    bind_text(upd, 4, binding_s);
    bind_text(upd, 5, doc);
    bind_text(upd, 6, jstr(result, "dtype", NULL));
    sqlite3_bind_int64(upd, 7, point_id);
    rc = exec_bound(db, upd, e, "point update");
    free(binding_s);
    free(doc);
    if (!rc && sqlite3_changes(db->h) != 1)
        rc = sb_errf(e, SB_EFAIL, "point %lld does not exist", (long long)point_id);
out:
    sqlite3_finalize(del_s);
    sqlite3_finalize(del_m);
    sqlite3_finalize(ins_s);
    sqlite3_finalize(ins_m);
    sqlite3_finalize(upd);
    if (rc) {
        sb_db_rollback(db);
        return rc;
    }
    return sb_db_commit(db, e);
}

double sb_db_peak_per_core(sb_db *db, int64_t machine_id, const char *path)
{
    /* Peaks come from `sprbench peak` points: <path>_gflops_1t / <path>_gops_1t. */
    static const char *sql =
        "SELECT m.value FROM metric m JOIN point p ON p.id = m.point_id"
        " WHERE p.workload = 'peak' AND p.status = 'ok' AND p.machine_id = ?"
        " AND m.name IN (? || '_gflops_1t', ? || '_gops_1t') ORDER BY p.id DESC LIMIT 1";
    sqlite3_stmt *st;
    double v = 0;
    if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL) != SQLITE_OK) return 0;
    sqlite3_bind_int64(st, 1, machine_id);
    bind_text(st, 2, path);
    bind_text(st, 3, path);
    if (sqlite3_step(st) == SQLITE_ROW) v = sqlite3_column_double(st, 0);
    sqlite3_finalize(st);
    return v;
}

int64_t sb_db_latest_sweep(sb_db *db)
{
    sqlite3_stmt *st;
    int64_t id = 0;
    if (sqlite3_prepare_v2(db->h, "SELECT MAX(id) FROM sweep", -1, &st, NULL) != SQLITE_OK)
        return 0;
    if (sqlite3_step(st) == SQLITE_ROW) id = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return id;
}

/* ---- projections ---- */

static double json_num_or0(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    return json_is_number(v) ? json_number_value(v) : 0;
}

int sb_db_train_points(sb_db *db, int64_t sweep_id, sb_train_obs **v, int *n, sb_err *e)
{
    *v = NULL;
    *n = 0;
    static const char *sql =
        "SELECT p.id, COALESCE(p.kernel, ''), COALESCE(p.dtype, ''), COALESCE(p.shape, ''),"
        " COALESCE(p.threads, 0), COALESCE(p.ppn, 1), COALESCE(p.nodes, 1), ms.value,"
        " (SELECT value FROM metric WHERE point_id = p.id AND name = 'epoch_seconds'),"
        " (SELECT value FROM metric WHERE point_id = p.id AND name = 'steps_per_epoch'),"
        " p.result_json"
        " FROM point p JOIN metric ms ON ms.point_id = p.id AND ms.name = 'step_seconds'"
        " WHERE p.sweep_id = ? AND p.workload = 'train' AND p.status = 'ok'"
        " ORDER BY p.kernel, p.shape, p.ppn, p.threads, p.nodes, p.id";
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL) != SQLITE_OK)
        return db_fail(db, e, "training points");
    sqlite3_bind_int64(st, 1, sweep_id);
    int cap = 0, rc = SB_OK, step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        if (*n == cap) {
            cap = cap ? 2 * cap : 16;
            sb_train_obs *g = realloc(*v, sizeof *g * (size_t)cap);
            if (!g) {
                rc = sb_errf(e, SB_EFAIL, "out of memory");
                break;
            }
            *v = g;
        }
        sb_train_obs *o = &(*v)[(*n)++];
        memset(o, 0, sizeof *o);
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
    }
    if (!rc && step != SQLITE_DONE) rc = db_fail(db, e, "training points");
    sqlite3_finalize(st);
    if (rc) {
        free(*v);
        *v = NULL;
        *n = 0;
    }
    return rc;
}

int sb_db_add_projection(sb_db *db, const sb_projection *pr, int64_t *sweep_out, sb_err *e)
{
    if (pr->n < 1) return sb_errf(e, SB_EUSAGE, "a projection needs at least one node count");
    if (!pr->sweep_id && !pr->new_sweep_label)
        return sb_errf(e, SB_EUSAGE, "a projection needs a sweep");
    int rc = sb_db_begin(db, e);
    if (rc) return rc;
    int64_t sweep = pr->sweep_id;
    sqlite3_stmt *chk = NULL, *del = NULL, *seq_st = NULL, *ins_p = NULL, *ins_m = NULL;
    if (!sweep) {
        if ((rc = sb_db_sweep_create(db, pr->new_sweep_label, "train", NULL, pr->machine_id,
                                     &sweep, e)) ||
            (rc = sb_db_sweep_finish(db, sweep, "done", e)))
            goto out;
    }
    if (sqlite3_prepare_v2(db->h, "SELECT 1 FROM sweep WHERE id = ?", -1, &chk, NULL) ||
        sqlite3_prepare_v2(db->h,
                           "DELETE FROM point WHERE sweep_id = ? AND status = 'projected'"
                           " AND COALESCE(kernel, '') = ? AND COALESCE(dtype, '') = ?"
                           " AND COALESCE(shape, '') = ? AND threads = ? AND ppn = ?",
                           -1, &del, NULL) ||
        sqlite3_prepare_v2(db->h, "SELECT COALESCE(MAX(seq), -1) + 1 FROM point WHERE sweep_id = ?",
                           -1, &seq_st, NULL) ||
        sqlite3_prepare_v2(db->h,
                           "INSERT INTO point (uuid, sweep_id, seq, workload, kernel, dtype, shape,"
                           " config, threads, ppn, nodes, status, reason, started, finished,"
                           " machine_id, command)"
                           " VALUES (?,?,?, 'train', ?,?,?,?,?,?,?, 'projected', ?,?,?,?, NULL)",
                           -1, &ins_p, NULL) ||
        sqlite3_prepare_v2(db->h,
                           "INSERT INTO metric (point_id, name, value, unit, projected, source)"
                           " VALUES (?,?,?,?, 1, ?)", -1, &ins_m, NULL)) {
        rc = db_fail(db, e, "prepare projection");
        goto out;
    }
    sqlite3_bind_int64(chk, 1, sweep);
    if (sqlite3_step(chk) != SQLITE_ROW) {
        rc = sb_errf(e, SB_EUSAGE, "%s: no sweep %lld", db->path, (long long)sweep);
        goto out;
    }
    /* Points cascade their metrics (foreign keys are on). */
    sqlite3_bind_int64(del, 1, sweep);
    bind_text(del, 2, pr->kernel ? pr->kernel : "");
    bind_text(del, 3, pr->dtype ? pr->dtype : "");
    bind_text(del, 4, pr->shape ? pr->shape : "");
    sqlite3_bind_int(del, 5, pr->threads);
    sqlite3_bind_int(del, 6, pr->ppn);
    if ((rc = exec_bound(db, del, e, "projection replace"))) goto out;
    sqlite3_bind_int64(seq_st, 1, sweep);
    int seq = sqlite3_step(seq_st) == SQLITE_ROW ? sqlite3_column_int(seq_st, 0) : 0;
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
        bind_text(ins_p, 1, uuid);
        sqlite3_bind_int64(ins_p, 2, sweep);
        sqlite3_bind_int(ins_p, 3, seq + i);
        bind_text(ins_p, 4, pr->kernel);
        bind_text(ins_p, 5, pr->dtype);
        bind_text(ins_p, 6, pr->shape);
        bind_text(ins_p, 7, pr->config ? pr->config : "{}");
        sqlite3_bind_int(ins_p, 8, pr->threads);
        sqlite3_bind_int(ins_p, 9, pr->ppn);
        sqlite3_bind_int(ins_p, 10, q->nodes);
        bind_text(ins_p, 11, pr->reason ? pr->reason : "projected by the scaling model");
        bind_text(ins_p, 12, now);
        bind_text(ins_p, 13, now);
        if (pr->machine_id) sqlite3_bind_int64(ins_p, 14, pr->machine_id);
        else sqlite3_bind_null(ins_p, 14);
        if ((rc = exec_bound(db, ins_p, e, "projected point insert"))) goto out;
        int64_t pid = sqlite3_last_insert_rowid(db->h);
        struct { const char *name, *unit; double v; } m[] = {
            {"epoch_seconds", "s", q->epoch_s},
            {"epoch_seconds_no_overlap", "s", q->epoch_no_overlap_s},
            {"speedup", "x", q->speedup},
            {"efficiency", "fraction", q->efficiency},
            {"comm_seconds_per_step", "s", q->comm_s},
            {"exposed_seconds_per_step", "s", q->exposed_s},
        };
        for (size_t k = 0; k < sizeof m / sizeof m[0]; k++) {
            sqlite3_bind_int64(ins_m, 1, pid);
            bind_text(ins_m, 2, m[k].name);
            sqlite3_bind_double(ins_m, 3, m[k].v);
            bind_text(ins_m, 4, m[k].unit);
            bind_text(ins_m, 5, pr->source);
            if ((rc = exec_bound(db, ins_m, e, "projected metric insert"))) goto out;
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
