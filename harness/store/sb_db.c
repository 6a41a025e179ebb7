#include "sb_db_internal.h"
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "sb_peak.h"
#include "sb_stats.h"
#include "sb_text.h"
#include "sb_workload.h"

struct sb_db {
    sqlite3 *h;
    int readonly;
    int tidy; /* read-only, and no -wal or -shm was there before it */
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
    /* 3: each point's worker output, its last 64 KiB of stdout and of stderr
     * (a crash's explanation is usually there), with the streams' full sizes */
    "CREATE TABLE point_log ("
    " point_id INTEGER PRIMARY KEY REFERENCES point(id) ON DELETE CASCADE,"
    " stdout TEXT NOT NULL, stdout_bytes INTEGER NOT NULL,"
    " stderr TEXT NOT NULL, stderr_bytes INTEGER NOT NULL);",
    /* 4: who runs a sweep, so that two resumes never run the same points:
     * pid and host, the boot id and start time of that process (a reused pid
     * is not the holder), and since when */
    "ALTER TABLE sweep ADD COLUMN holder_pid INTEGER;"
    "ALTER TABLE sweep ADD COLUMN holder_host TEXT;"
    "ALTER TABLE sweep ADD COLUMN holder_start TEXT;"
    "ALTER TABLE sweep ADD COLUMN holder_since TEXT;",
    /* 5: paired A/B points (`sweep --pair-baseline B --pair-candidate C`):
     * which binary each sample came from (side 0 the baseline, 1 the
     * candidate; NULL: an ordinary point) and its pair (two per ABBA quad),
     * and per point the two binaries and how they were paired */
    "ALTER TABLE sample ADD COLUMN side INTEGER;"
    "ALTER TABLE sample ADD COLUMN pair INTEGER;"
    "CREATE TABLE point_pairing ("
    " point_id INTEGER PRIMARY KEY REFERENCES point(id) ON DELETE CASCADE,"
    " mode TEXT NOT NULL, baseline TEXT NOT NULL, candidate TEXT NOT NULL);",
    /* 6: the process group of the holder's runs (harness/run/sb_guard: every
     * run's guard joins it and lives until nothing of its run does), so
     * that a resume or an unlock waits for them even when the holder itself
     * was killed */
    "ALTER TABLE sweep ADD COLUMN holder_group INTEGER;",
};
#define NMIGRATIONS ((int)(sizeof g_migrations / sizeof g_migrations[0]))
_Static_assert(NMIGRATIONS == SB_DB_SCHEMA_VERSION, "SB_DB_SCHEMA_VERSION is the last migration");

/* A read-only connection cannot migrate an older file, so it is shown the
 * current schema through temporary objects, which shadow the file's own
 * (SQLite looks names up in temp first): entry N-2 stands in for migration
 * N. Reads then need no version checks; the file is never written. */
static const char *const g_readonly_compat[] = {
    /* 2 */ "CREATE TEMP VIEW point AS SELECT *, NULL AS command, NULL AS binding FROM main.point;",
    /* 3 */
    "CREATE TEMP TABLE point_log (point_id INTEGER PRIMARY KEY, stdout TEXT NOT NULL,"
    " stdout_bytes INTEGER NOT NULL, stderr TEXT NOT NULL, stderr_bytes INTEGER NOT NULL);",
    /* 4 */
    "CREATE TEMP VIEW sweep AS SELECT *, NULL AS holder_pid, NULL AS holder_host,"
    " NULL AS holder_start, NULL AS holder_since FROM main.sweep;",
    /* 5 */
    "CREATE TEMP VIEW sample AS SELECT *, NULL AS side, NULL AS pair FROM main.sample;"
    "CREATE TEMP TABLE point_pairing (point_id INTEGER PRIMARY KEY, mode TEXT NOT NULL,"
    " baseline TEXT NOT NULL, candidate TEXT NOT NULL);",
    /* 6: nothing; only a command that writes (a claim, an unlock) reads
     * holder_group */
    "",
};
_Static_assert(sizeof g_readonly_compat / sizeof g_readonly_compat[0] == NMIGRATIONS - 1,
               "every migration after the first has its read-only stand-in");

sqlite3 *sb_db_handle(sb_db *db) { return db->h; }
int sb_db_readonly(sb_db *db) { return db->readonly; }

int sb_db_fail(sb_err *e, sb_db *db, const char *what)
{
    return sb_errf(e, SB_EFAIL, "%s: %s: %s", db->path, what, sqlite3_errmsg(db->h));
}

int sb_db_prepare(sb_db *db, const char *what, const char *sql, sqlite3_stmt **st, sb_err *e)
{
    if (sqlite3_prepare_v2(db->h, sql, -1, st, NULL) != SQLITE_OK) {
        sqlite3_finalize(*st);
        *st = NULL;
        return sb_db_fail(e, db, what);
    }
    return SB_OK;
}

int sb_db_rows(sb_db *db, const char *what, const char *sql, const sb_db_arg *args, int nargs,
               sb_db_row_fn row, void *ctx, sb_err *e)
{
    sqlite3_stmt *st;
    int rc = sb_db_prepare(db, what, sql, &st, e);
    if (rc) return rc;
    for (int i = 0; i < nargs; i++) {
        if (!args[i].is_text)
            sqlite3_bind_int64(st, i + 1, args[i].i);
        else if (args[i].s)
            sqlite3_bind_text(st, i + 1, args[i].s, -1, SQLITE_TRANSIENT);
        else
            sqlite3_bind_null(st, i + 1);
    }
    int step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW)
        if ((rc = row(st, ctx, e))) break;
    if (!rc && step != SQLITE_DONE) rc = sb_db_fail(e, db, what);
    sqlite3_finalize(st);
    return rc;
}

void *sb_db_push(void **v, int *n, int *cap, size_t size, sb_err *e)
{
    if (*n == *cap) {
        int ncap = *cap ? 2 * *cap : 16;
        void *nv = realloc(*v, size * (size_t)ncap);
        if (!nv) {
            sb_errf(e, SB_EFAIL, "out of memory");
            return NULL;
        }
        *v = nv;
        *cap = ncap;
    }
    char *el = (char *)*v + size * (size_t)(*n)++;
    memset(el, 0, size);
    return el;
}

char *sb_db_text_dup(sqlite3_stmt *st, int i, int *oom)
{
    const char *s = (const char *)sqlite3_column_text(st, i);
    char *r = strdup(s ? s : "");
    if (!r) *oom = 1;
    return r;
}

char *sb_db_text_dup_or_null(sqlite3_stmt *st, int i, int *oom)
{
    if (sqlite3_column_type(st, i) == SQLITE_NULL) return NULL;
    return sb_db_text_dup(st, i, oom);
}

char *sb_db_column_repaired(sqlite3_stmt *st, int i)
{
    const char *s = (const char *)sqlite3_column_text(st, i);
    return s ? sb_text_repair(s, (size_t)sqlite3_column_bytes(st, i), 0, NULL) : strdup("");
}

static int user_version(sqlite3 *h)
{
    sqlite3_stmt *st;
    int v = -1;
    if (sqlite3_prepare_v2(h, "PRAGMA main.user_version", -1, &st, NULL) == SQLITE_OK) {
        if (sqlite3_step(st) == SQLITE_ROW) v = sqlite3_column_int(st, 0);
        sqlite3_finalize(st);
    }
    return v;
}

int sb_db_schema_version(sb_db *db) { return user_version(db->h); }

int sb_db_begin(sb_db *db, sb_err *e)
{
    if (db->readonly) return sb_errf(e, SB_EFAIL, "%s: opened read-only", db->path);
    /* busy_timeout covers most waits; a deadlock-avoidance SQLITE_BUSY from
     * BEGIN IMMEDIATE is retried here. */
    for (int attempt = 0; attempt < 200; attempt++) {
        int rc = sqlite3_exec(db->h, "BEGIN IMMEDIATE", NULL, NULL, NULL);
        if (rc == SQLITE_OK) return SB_OK;
        if (rc != SQLITE_BUSY && rc != SQLITE_LOCKED) return sb_db_fail(e, db, "begin");
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
    int rc = sb_db_fail(e, db, "commit");
    sb_db_rollback(db);
    return rc;
}

void sb_db_rollback(sb_db *db) { sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL); }

/* What a failed open means for the exit code: a full disk, an I/O error,
 * memory or a lock is the machine failing (SB_EFAIL, exit 1); anything else
 * (not a database, no permission, no such directory) is bad input. */
static int open_failure(int sqlite_rc)
{
    switch (sqlite_rc & 0xff) {
    case SQLITE_FULL:
    case SQLITE_IOERR:
    case SQLITE_NOMEM:
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
    case SQLITE_PROTOCOL: return SB_EFAIL;
    default: return SB_EUSAGE;
    }
}

static int migrate(sb_db *db, int target, sb_err *e)
{
    int v = sb_db_schema_version(db);
    if (v < 0) {
        int code = sqlite3_errcode(db->h);
        if (open_failure(code) != SB_EFAIL)
            return sb_errf(e, SB_EUSAGE, "%s: is not a SQLite database", db->path);
        return sb_db_fail(e, db, "cannot open database");
    }
    if (v > NMIGRATIONS)
        return sb_errf(e, SB_EUSAGE, "%s: schema version %d is newer than this sprbench (%d)",
                       db->path, v, NMIGRATIONS);
    while (v < target) {
        int rc = sb_db_begin(db, e);
        if (rc) return rc;
        v = sb_db_schema_version(db); /* another process may have migrated meanwhile */
        if (v >= target) {
            sb_db_rollback(db);
            break;
        }
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
            return sb_db_fail(e, db, "migration");
        }
        if ((rc = sb_db_commit(db, e))) return rc;
        v++;
    }
    return SB_OK;
}

/* ---- recognising a file before using it ---- */

/* "file:" URI of a path (percent-encoded), with the query given. An absolute
 * path gets an empty authority ("file:///..."), so "//x" stays a path. */
static char *file_uri(const char *path, const char *query)
{
    size_t n = strlen(path);
    char *u = malloc(3 * n + strlen(query) + 16);
    if (!u) return NULL;
    size_t w = (size_t)sprintf(u, "%s", path[0] == '/' ? "file://" : "file:");
    for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
        if (isalnum(*p) || strchr("/._~-", *p))
            u[w++] = (char)*p;
        else
            w += (size_t)sprintf(u + w, "%%%02X", *p);
    }
    sprintf(u + w, "?%s", query);
    return u;
}

static int open_uri(const char *path, const char *query, sqlite3 **h)
{
    char *uri = file_uri(path, query);
    if (!uri) return SQLITE_NOMEM;
    int rc = sqlite3_open_v2(uri, h, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL);
    free(uri);
    if (rc == SQLITE_OK) sqlite3_busy_timeout(*h, 10000);
    return rc;
}

/* Whether a write-ahead log with content lies beside the database: then the
 * file alone is not the whole database and cannot be read as immutable. */
static int has_wal(const char *path)
{
    char wal[4200];
    snprintf(wal, sizeof wal, "%s-wal", path);
    struct stat st;
    return stat(wal, &st) == 0 && st.st_size > 0;
}

/* Whether a -wal or -shm file (any size) lies beside the database. */
static int has_sidecar(const char *path)
{
    char side[4200];
    struct stat st;
    snprintf(side, sizeof side, "%s-wal", path);
    if (stat(side, &st) == 0) return 1;
    snprintf(side, sizeof side, "%s-shm", path);
    return stat(side, &st) == 0;
}

enum { FILE_ABSENT, FILE_EMPTY, FILE_SPRBENCH };

/* What the file at path is, judged without writing to it or beside it: from
 * its header, then (when it may be a sprbench database) through an
 * immutable read-only connection, which creates no -wal or -shm, or, when a
 * write-ahead log is there, a plain read-only one. FILE_EMPTY: no file
 * content, or a SQLite database without any table; FILE_SPRBENCH with its
 * schema version in *version. Another program's file, a file that is not
 * SQLite and a newer sprbench's database are SB_EUSAGE. */
static int recognise(const char *path, int *kind, int *version, sb_err *e)
{
    *kind = FILE_ABSENT;
    *version = 0;
    struct stat st;
    if (stat(path, &st) != 0) {
        if (errno == ENOENT) return SB_OK;
        return sb_errf(e, SB_EUSAGE, "%s: cannot use database: %s", path, strerror(errno));
    }
    if (!S_ISREG(st.st_mode))
        return sb_errf(e, SB_EUSAGE, "%s: is not a database file (%s)", path,
                       S_ISDIR(st.st_mode) ? "a directory" : "not a regular file");
    if (st.st_size == 0) {
        *kind = FILE_EMPTY;
        return SB_OK;
    }
    int fd = open(path, O_RDONLY | O_NOCTTY | O_NONBLOCK);
    if (fd < 0) return sb_errf(e, SB_EUSAGE, "%s: cannot read: %s", path, strerror(errno));
    unsigned char hdr[100];
    ssize_t n = read(fd, hdr, sizeof hdr);
    close(fd);
    if (n < (ssize_t)sizeof hdr || memcmp(hdr, "SQLite format 3", 16) != 0)
        return sb_errf(e, SB_EUSAGE, "%s: is not a SQLite database", path);
    int wal = has_wal(path);
    if (!wal) {
        /* the header is the whole truth: decide before SQLite opens it */
        long uv = (long)hdr[60] << 24 | (long)hdr[61] << 16 | (long)hdr[62] << 8 | hdr[63];
        if (uv > NMIGRATIONS)
            return sb_errf(e, SB_EUSAGE, "%s: schema version %ld is newer than this sprbench (%d)",
                           path, uv, NMIGRATIONS);
    }
    sqlite3 *h = NULL;
    int rc = open_uri(path, wal ? "mode=ro" : "mode=ro&immutable=1", &h);
    sqlite3_stmt *q = NULL;
    int objects = -1, tables = -1, uv = -1;
    if (rc == SQLITE_OK) {
        uv = user_version(h);
        if (sqlite3_prepare_v2(h,
                               "SELECT COUNT(*), COALESCE(SUM(type = 'table' AND name IN"
                               " ('machine', 'sweep', 'point', 'sample', 'metric')), 0)"
                               " FROM main.sqlite_schema",
                               -1, &q, NULL) == SQLITE_OK &&
            sqlite3_step(q) == SQLITE_ROW) {
            objects = sqlite3_column_int(q, 0);
            tables = sqlite3_column_int(q, 1);
        }
    }
    const char *why = h ? sqlite3_errmsg(h) : "out of memory";
    char msg[512];
    snprintf(msg, sizeof msg, "%s", why);
    sqlite3_finalize(q);
    sqlite3_close_v2(h);
    if (uv < 0 || objects < 0) {
        if (wal)
            return sb_errf(e, SB_EUSAGE,
                           "%s: cannot be read (%s); its write-ahead log %s-wal needs"
                           " a shared-memory file beside it: copy the database with its -wal file"
                           " to a writable directory",
                           path, msg, path);
        return sb_errf(e, SB_EUSAGE, "%s: is not a readable SQLite database (%s)", path, msg);
    }
    if (uv > NMIGRATIONS)
        return sb_errf(e, SB_EUSAGE, "%s: schema version %d is newer than this sprbench (%d)", path,
                       uv, NMIGRATIONS);
    if (uv == 0 && objects == 0) {
        *kind = FILE_EMPTY;
        return SB_OK;
    }
    if (uv == 0 || tables != 5)
        return sb_errf(e, SB_EUSAGE,
                       "%s: is not a sprbench database (another program's SQLite"
                       " file: %s); it was left as it is",
                       path,
                       uv == 0 ? "no sprbench schema version" : "the sprbench tables are missing");
    *kind = FILE_SPRBENCH;
    *version = uv;
    return SB_OK;
}

int sb_db_open_at_version(const char *path, int target, sb_db **out, sb_err *e)
{
    *out = NULL;
    if (!path || !*path) return sb_errf(e, SB_EUSAGE, "database path is empty");
    /* Another program's file, or anything that is not SQLite, is refused
     * before SQLite opens it for writing, so a wrong --db never gets
     * sprbench's tables, a schema version or a journal mode change. */
    int kind = 0, version, rc;
    if (strcmp(path, ":memory:") && (rc = recognise(path, &kind, &version, e))) return rc;
    sb_db *db = calloc(1, sizeof *db);
    if (!db) return sb_errf(e, SB_EFAIL, "out of memory");
    snprintf(db->path, sizeof db->path, "%s", path);
    /* a database this call creates is removed again if it cannot be made
     * whole (a full disk): no half-made file is left to be mistaken for one */
    int created = strcmp(path, ":memory:") && kind == FILE_ABSENT;
    int orc = sqlite3_open_v2(path, &db->h, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
    if (orc != SQLITE_OK) {
        rc = sb_errf(e, open_failure(orc), "%s: cannot open database: %s", path,
                     db->h ? sqlite3_errmsg(db->h) : "out of memory");
        goto fail;
    }
    sqlite3_busy_timeout(db->h, 10000);
    sqlite3_extended_result_codes(db->h, 0);
    if ((orc = sb_db_add_functions(db->h)) != SQLITE_OK) {
        rc = sb_errf(e, SB_EFAIL, "%s: cannot add SQL functions: %s", path, sqlite3_errstr(orc));
        goto fail;
    }
    char *msg = NULL;
    orc = sqlite3_exec(db->h,
                       "PRAGMA trusted_schema=OFF; PRAGMA journal_mode=WAL; PRAGMA foreign_keys=ON;"
                       "PRAGMA synchronous=NORMAL;",
                       NULL, NULL, &msg);
    if (orc != SQLITE_OK) {
        rc = sb_errf(e, orc == SQLITE_NOTADB ? SB_EUSAGE : open_failure(orc), "%s: %s", path,
                     orc == SQLITE_NOTADB ? "is not a SQLite database"
                                          : (msg ? msg : "cannot use database"));
        sqlite3_free(msg);
        goto fail;
    }
    if ((rc = migrate(db, target, e))) goto fail;
    *out = db;
    return SB_OK;
fail:
    sb_db_close(db);
    if (created) {
        char side[4200];
        static const char *const ext[] = {"-wal", "-shm", "-journal"};
        for (size_t i = 0; i < sizeof ext / sizeof ext[0]; i++) {
            snprintf(side, sizeof side, "%s%s", path, ext[i]);
            unlink(side);
        }
        unlink(path);
    }
    return rc;
}

int sb_db_open(const char *path, sb_db **db, sb_err *e)
{
    return sb_db_open_at_version(path, NMIGRATIONS, db, e);
}

/* The probe a read-only connection must pass: it reads the schema, which is
 * where an unreadable -shm or a locked file shows. */
static int readable(sqlite3 *h)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(h, "SELECT COUNT(*) FROM main.sqlite_schema", -1, &st, NULL) !=
        SQLITE_OK)
        return 0;
    int ok = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    return ok;
}

int sb_db_open_readonly(const char *path, sb_db **out, sb_err *e)
{
    *out = NULL;
    if (!path || !*path) return sb_errf(e, SB_EUSAGE, "database path is empty");
    int kind, version, rc;
    if ((rc = recognise(path, &kind, &version, e))) return rc;
    if (kind == FILE_ABSENT) return sb_errf(e, SB_EUSAGE, "%s: no such database", path);
    if (kind == FILE_EMPTY)
        return sb_errf(e, SB_EUSAGE, "%s: is empty, not a sprbench database", path);
    sb_db *db = calloc(1, sizeof *db);
    if (!db) return sb_errf(e, SB_EFAIL, "out of memory");
    snprintf(db->path, sizeof db->path, "%s", path);
    db->readonly = 1;
    /* Plain read-only first: it takes SQLite's locks, so a sweep writing at
     * the same time is read consistently. In a read-only directory that
     * fails for want of a -shm file; with no write-ahead log to replay the
     * file alone is the database, and is read as immutable. */
    int wal = has_wal(path);
    db->tidy = !has_sidecar(path);
    rc = open_uri(path, "mode=ro", &db->h);
    if (rc != SQLITE_OK || !readable(db->h)) {
        db->tidy = 0;
        char why[512];
        snprintf(why, sizeof why, "%s", db->h ? sqlite3_errmsg(db->h) : "out of memory");
        sqlite3_close_v2(db->h);
        db->h = NULL;
        if (wal || open_uri(path, "mode=ro&immutable=1", &db->h) != SQLITE_OK || !readable(db->h)) {
            sb_errf(e, SB_EUSAGE, "%s: cannot be read: %s%s", path, why,
                    wal ? " (its write-ahead log needs a shared-memory file beside it: copy the"
                          " database with its -wal file to a writable directory)"
                        : "");
            sb_db_close(db);
            return SB_EUSAGE;
        }
    }
    sqlite3_extended_result_codes(db->h, 0);
    if (sb_db_add_functions(db->h) != SQLITE_OK ||
        sqlite3_exec(db->h, "PRAGMA trusted_schema=OFF", NULL, NULL, NULL) != SQLITE_OK) {
        rc = sb_db_fail(e, db, "read-only settings");
        sb_db_close(db);
        return rc;
    }
    /* the file may have changed since it was recognised: judge it again */
    int uv = sb_db_schema_version(db);
    if (uv < 1 || uv > NMIGRATIONS) {
        sb_errf(e, SB_EUSAGE, "%s: schema version %d is not one this sprbench reads (1 to %d)",
                path, uv, NMIGRATIONS);
        sb_db_close(db);
        return SB_EUSAGE;
    }
    for (int m = uv + 1; m <= NMIGRATIONS; m++) {
        char *msg = NULL;
        if (sqlite3_exec(db->h, g_readonly_compat[m - 2], NULL, NULL, &msg) != SQLITE_OK) {
            sb_errf(e, SB_EFAIL, "%s: cannot read schema version %d: %s", path, uv,
                    msg ? msg : "?");
            sqlite3_free(msg);
            sb_db_close(db);
            return SB_EFAIL;
        }
    }
    /* the stand-ins above live in temp; from here on nothing at all is written */
    if (sqlite3_exec(db->h, "PRAGMA query_only=ON", NULL, NULL, NULL) != SQLITE_OK) {
        rc = sb_db_fail(e, db, "read-only settings");
        sb_db_close(db);
        return rc;
    }
    *out = db;
    return SB_OK;
}

void sb_db_close(sb_db *db)
{
    if (!db) return;
    sqlite3_close_v2(db->h);
    /* A read-only connection to a WAL database creates an empty -wal and a
     * -shm beside it and, read-only, cannot remove them when it closes. When
     * it made them, a connection that may write, opened for nothing but a
     * read of the schema, is the last one and removes them on close (the
     * empty log leaves the database file byte-identical); were another
     * process using the database, the files would stay, as they must. */
    if (db->tidy && has_sidecar(db->path)) {
        sqlite3 *h = NULL;
        if (sqlite3_open_v2(db->path, &h, SQLITE_OPEN_READWRITE, NULL) == SQLITE_OK) {
            sqlite3_busy_timeout(h, 1000);
            readable(h);
        }
        sqlite3_close_v2(h);
    }
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
        unsigned long long x = (unsigned long long)ts.tv_nsec ^
            ((unsigned long long)getpid() << 32);
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
    if (s)
        sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(st, i);
}

/* Text from the machine or a worker: bound repaired and cut (sb_text). */
static int bind_repaired(sqlite3_stmt *st, int i, const char *s, size_t max_chars)
{
    if (!s) return sqlite3_bind_null(st, i), SB_OK;
    char *r = sb_text_repair(s, strlen(s), max_chars, NULL);
    if (!r) return SB_EFAIL;
    sqlite3_bind_text(st, i, r, -1, free);
    return SB_OK;
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

/* ---- what the store accepts ---- */

static int in_list(const char *s, const char *const *list)
{
    for (int i = 0; s && list[i]; i++)
        if (!strcmp(s, list[i])) return 1;
    return 0;
}

int sb_db_point_status_known(const char *s)
{
    static const char *const known[] = {"pending", "running",     "ok",        "skipped", "failed",
                                        "timeout", "interrupted", "projected", NULL};
    return in_list(s, known);
}

int sb_db_sweep_status_known(const char *s)
{
    static const char *const known[] = {"running", "done", "interrupted", NULL};
    return in_list(s, known);
}

int sb_db_workload_known(const char *s) { return sb_workload_find(s) != NULL; }

void sb_db_workload_names(char *buf, size_t cap)
{
    size_t off = 0;
    if (cap) buf[0] = '\0';
    for (int i = 0; i < sb_workload_count() && off < cap; i++)
        off += (size_t)snprintf(buf + off, cap - off, "%s%s", i ? ", " : "",
                                sb_workload_at(i)->name);
}

static int token(const char *s, size_t max)
{
    size_t n = strlen(s);
    if (n == 0 || n > max) return 0;
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)s[i]) && !strchr("_.:-", s[i])) return 0;
    return 1;
}

/* 1 to 10 digits, no leading zero: a GEMM dimension. */
static const char *dimension(const char *s)
{
    if (*s < '1' || *s > '9') return NULL;
    int n = 0;
    while (isdigit((unsigned char)*s) && n <= 10) s++, n++;
    return n <= 10 ? s : NULL;
}

int sb_db_shape_valid(const char *s)
{
    if (!s) return 0;
    if (!*s) return 1;
    if (strlen(s) > SB_DB_MAX_SHAPE) return 0;
    if (isdigit((unsigned char)*s)) {
        const char *p = dimension(s);
        if (!p || *p++ != 'x' || !(p = dimension(p)) || *p++ != 'x' || !(p = dimension(p)))
            return 0;
        if (*p == ':') {
            if ((p[1] != 'N' && p[1] != 'T') || (p[2] != 'N' && p[2] != 'T')) return 0;
            p += 3;
        }
        if (!strcmp(p, "+prepack")) p += 8;
        return *p == '\0';
    }
    /* key=value pairs: the options that name a training or allreduce series */
    const char *p = s;
    for (;;) {
        if (*p < 'a' || *p > 'z') return 0;
        while ((*p >= 'a' && *p <= 'z') || isdigit((unsigned char)*p) || *p == '_' || *p == '-')
            p++;
        if (*p++ != '=') return 0;
        const char *v = p;
        while (*p &&
               (isalnum((unsigned char)*p) || strchr("_.,:+/@-", *p) ||
                (*p == ' ' && p > v && p[-1] == ',')))
            p++;
        if (p == v) return 0;
        if (!*p) return 1;
        if (*p != ' ') return 0;
        p++;
    }
}

int sb_db_shape_value(const char *shape, const char *key, char *buf, size_t cap)
{
    if (cap) buf[0] = '\0';
    if (!shape || !*shape || isdigit((unsigned char)*shape)) return 0;
    size_t k = strlen(key);
    for (const char *p = shape; *p;) {
        /* a pair starts the key or follows a blank that is not inside a
         * value (a blank in a value only follows its comma) */
        if (!strncmp(p, key, k) && p[k] == '=') {
            const char *v = p + k + 1, *end = v;
            while (*end && !(*end == ' ' && end > v && end[-1] != ',')) end++;
            if (cap) snprintf(buf, cap, "%.*s", (int)(end - v), v);
            return 1;
        }
        const char *sp = strchr(p, '=');
        if (!sp) return 0;
        p = sp + 1;
        while (*p && !(*p == ' ' && p[-1] != ',')) p++;
        if (*p) p++;
    }
    return 0;
}

int sb_db_check_sweep_text(const char *label, const char *plan, sb_err *e)
{
    int rc;
    if (label && (rc = sb_text_check(label, SB_DB_MAX_NAME, "label", e))) return rc;
    if (plan && (rc = sb_text_check(plan, SB_DB_MAX_DOC, "plan", e))) return rc;
    return SB_OK;
}

/* ---- machines, sweeps, points ---- */

int sb_db_machine_by_fingerprint(sb_db *db, const char *fingerprint, int64_t *id, sb_err *e)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db->h, "SELECT id FROM machine WHERE fingerprint = ?", -1, &st, NULL) !=
        SQLITE_OK)
        return sb_db_fail(e, db, "machine lookup");
    bind_text(st, 1, fingerprint);
    int rc = sqlite3_step(st);
    *id = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    sqlite3_finalize(st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? SB_OK : sb_db_fail(e, db, "machine lookup");
}

/* A known machine keeps its row as first seen, but for its name where the
 * user sets one (SB_CPU_UARCH) or takes it back: the latest run's word, so
 * that a name set after the first sweep is recorded, as an override. */
static int machine_rename(sb_db *db, int64_t id, json_t *info, sb_err *e)
{
    const char *src = jstr(info, "cpu", "microarch_source"), *ua = jstr(info, "cpu", "microarch");
    const char *how = jstr(info, "cpu", "microarch_how");
    if (!src || !ua) return SB_OK; /* an older sprbench's description: nothing new */
    static const char *sql =
        "UPDATE machine SET microarch = ?2, info_json = json_set(info_json, '$.cpu.microarch',"
        " ?2, '$.cpu.microarch_source', ?3, '$.cpu.microarch_how', ?4)"
        " WHERE id = ?1 AND json_valid(info_json) AND ('override' IN (?3,"
        " COALESCE(json_extract(info_json, '$.cpu.microarch_source'), '')))"
        " AND (COALESCE(microarch, '') <> ?2"
        " OR COALESCE(json_extract(info_json, '$.cpu.microarch_source'), '') <> ?3)";
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL) != SQLITE_OK)
        return sb_db_fail(e, db, "machine rename");
    sqlite3_bind_int64(st, 1, id);
    int mem = bind_repaired(st, 2, ua, 128) | bind_repaired(st, 3, src, 32) |
        bind_repaired(st, 4, how ? how : "", SB_DB_MAX_REASON);
    int step = mem ? SQLITE_NOMEM : sqlite3_step(st);
    sqlite3_finalize(st);
    if (mem) return sb_errf(e, SB_EFAIL, "out of memory");
    return step == SQLITE_DONE ? SB_OK : sb_db_fail(e, db, "machine rename");
}

int sb_db_machine_upsert(sb_db *db, json_t *info, int64_t *id, sb_err *e)
{
    const char *fp = jstr(info, "fingerprint", NULL);
    if (!fp) return sb_errf(e, SB_EUSAGE, "machine description has no fingerprint");
    if (!token(fp, 64))
        return sb_errf(e, SB_EUSAGE, "machine fingerprint is not [A-Za-z0-9_.:-]{1,64}");
    int rc = sb_db_machine_by_fingerprint(db, fp, id, e);
    if (rc) return rc;
    if (*id) return machine_rename(db, *id, info, e);
    static const char *sql =
        "INSERT INTO machine (fingerprint, hostname, cpu_model, vendor, family, model, stepping,"
        " microarch, packages, numa_nodes, cores, pus, l1d_bytes, l2_bytes, l3_bytes, isa,"
        " amx_os_permitted, amx_reason, kernel, mem_bytes, info_json, first_seen)"
        " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
        " ON CONFLICT(fingerprint) DO NOTHING";
    char *isa = json_dumps(json_object_get(info, "isa"), JSON_COMPACT | JSON_PRESERVE_ORDER);
    char *all = json_dumps(info, JSON_COMPACT | JSON_PRESERVE_ORDER);
    /* JSON text is valid UTF-8 already; only its size can break a limit, and
     * JSON cut short would be no JSON at all */
    if ((isa && strlen(isa) > SB_DB_MAX_TEXT) || (all && strlen(all) > SB_DB_MAX_DOC)) {
        free(isa);
        free(all);
        return sb_errf(e, SB_EUSAGE, "machine description is larger than the store takes");
    }
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL) != SQLITE_OK) {
        free(isa);
        free(all);
        return sb_db_fail(e, db, "machine insert");
    }
    char now[32];
    sb_db_now_iso(now);
    /* what the machine says about itself is repaired, never refused: a
     * host name with odd bytes must not stop a sweep */
    bind_text(st, 1, fp);
    int mem = bind_repaired(st, 2, jstr(info, "hostname", NULL), SB_DB_MAX_NAME) |
        bind_repaired(st, 3, jstr(info, "cpu", "model"), SB_DB_MAX_NAME) |
        bind_repaired(st, 4, jstr(info, "cpu", "vendor"), 64) |
        bind_repaired(st, 8, jstr(info, "cpu", "microarch"), 128) |
        bind_repaired(st, 18, jstr(info, "isa", "amx_reason"), SB_DB_MAX_REASON) |
        bind_repaired(st, 19, jstr(info, "kernel", NULL), SB_DB_MAX_NAME);
    sqlite3_bind_int64(st, 5, jint(info, "cpu", "family"));
    sqlite3_bind_int64(st, 6, jint(info, "cpu", "model_number"));
    sqlite3_bind_int64(st, 7, jint(info, "cpu", "stepping"));
    sqlite3_bind_int64(st, 9, jint(info, "topology", "packages"));
    sqlite3_bind_int64(st, 10, jint(info, "topology", "numa_nodes"));
    sqlite3_bind_int64(st, 11, jint(info, "topology", "cores"));
    sqlite3_bind_int64(st, 12, jint(info, "topology", "pus"));
    sqlite3_bind_int64(st, 13, jint(info, "topology", "l1d_bytes"));
    sqlite3_bind_int64(st, 14, jint(info, "topology", "l2_bytes"));
    sqlite3_bind_int64(st, 15, jint(info, "topology", "l3_bytes"));
    bind_text(st, 16, isa);
    sqlite3_bind_int64(st, 17, jint(info, "isa", "amx_os_permitted"));
    sqlite3_bind_int64(st, 20, jint(info, "memory", "total_bytes"));
    bind_text(st, 21, all);
    bind_text(st, 22, now);
    int step = mem ? SQLITE_NOMEM : sqlite3_step(st);
    sqlite3_finalize(st);
    free(isa);
    free(all);
    if (mem) return sb_errf(e, SB_EFAIL, "out of memory");
    if (step != SQLITE_DONE) return sb_db_fail(e, db, "machine insert");
    return sb_db_machine_by_fingerprint(db, fp, id, e);
}

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
    if (sqlite3_prepare_v2(db->h,
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
    bind_text(st, 1, uuid);
    bind_text(st, 2, label);
    bind_text(st, 3, workload);
    bind_text(st, 4, plan);
    if (machine_id)
        sqlite3_bind_int64(st, 5, machine_id);
    else
        sqlite3_bind_null(st, 5);
    bind_text(st, 6, now);
    if (bind_repaired(st, 7, version, SB_DB_MAX_NAME)) {
        sqlite3_finalize(st);
        return sb_errf(e, SB_EFAIL, "out of memory");
    }
    rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) return sb_db_fail(e, db, "sweep insert");
    *id = sqlite3_last_insert_rowid(db->h);
    return SB_OK;
}

int sb_db_sweep_finish(sb_db *db, int64_t id, const char *status, sb_err *e)
{
    char q[160];
    if (!sb_db_sweep_status_known(status))
        return sb_errf(e, SB_EUSAGE, "sweep status '%s' is not running, done or interrupted",
                       sb_text_cell(q, sizeof q, status ? status : "", 32, 0));
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db->h, "UPDATE sweep SET finished = ?, status = ? WHERE id = ?", -1, &st,
                           NULL) != SQLITE_OK)
        return sb_db_fail(e, db, "sweep update");
    char now[32];
    sb_db_now_iso(now);
    bind_text(st, 1, now);
    bind_text(st, 2, status);
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
    else if (sqlite3_changes(db->h) == 0)
        rc = sb_errf(e, SB_EUSAGE, "%s: no sweep %lld", db->path, (long long)id);
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
    if (sqlite3_prepare_v2(db->h,
                           "SELECT holder_pid, COALESCE(holder_host, ''),"
                           " COALESCE(holder_start, ''), holder_group FROM sweep"
                           " WHERE id = ? AND holder_pid IS NOT NULL AND holder_group IS NOT NULL",
                           -1, &st, NULL) != SQLITE_OK)
        return;
    sqlite3_bind_int64(st, 1, sweep_id);
    char token[128] = "";
    long pid = 0, group = 0;
    if (sqlite3_step(st) == SQLITE_ROW && !strcmp((const char *)sqlite3_column_text(st, 1), me->host)) {
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
    int own_tx = sqlite3_get_autocommit(db->h), rc;
    if (own_tx) wait_for_runs(db, sweep_id, me);
    if (own_tx && (rc = sb_db_begin(db, e))) return rc;
    sqlite3_stmt *st = NULL;
    const char *host = me->host, *token = me->token;
    char since[32];
    sb_db_now_iso(since);
    if (sqlite3_prepare_v2(db->h,
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
            ? sb_errf(e, SB_EUSAGE, "%s: no sweep %lld", db->path, (long long)sweep_id)
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
    if (sqlite3_prepare_v2(db->h,
                           "UPDATE sweep SET holder_pid = ?, holder_host = ?,"
                           " holder_start = ?, holder_since = ?, holder_group = NULL"
                           " WHERE id = ?",
                           -1, &st, NULL) != SQLITE_OK) {
        rc = sb_db_fail(e, db, "sweep claim");
        goto out;
    }
    sqlite3_bind_int64(st, 1, (sqlite3_int64)me->pid);
    bind_text(st, 2, host);
    bind_text(st, 3, token);
    bind_text(st, 4, since);
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
    if (sqlite3_prepare_v2(db->h,
                           "UPDATE sweep SET holder_pid = NULL, holder_host = NULL,"
                           " holder_start = NULL, holder_since = NULL, holder_group = NULL"
                           " WHERE id = ? AND holder_pid = ? AND holder_host = ?",
                           -1, &st, NULL) != SQLITE_OK)
        return sb_db_fail(e, db, "sweep release");
    sqlite3_bind_int64(st, 1, sweep_id);
    sqlite3_bind_int64(st, 2, (sqlite3_int64)me->pid);
    bind_text(st, 3, me->host);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? SB_OK : sb_db_fail(e, db, "sweep release");
}

int sb_db_sweep_set_group(sb_db *db, int64_t sweep_id, const sb_db_holder *me, int group,
                          sb_err *e)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db->h,
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
    bind_text(st, 4, me->host);
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
    if (sqlite3_prepare_v2(db->h,
                           "SELECT holder_pid, COALESCE(holder_host, ''),"
                           " COALESCE(holder_since, ''), COALESCE(holder_start, ''),"
                           " holder_group FROM sweep WHERE id = ?",
                           -1, &st, NULL) != SQLITE_OK) {
        rc = sb_db_fail(e, db, "sweep unlock");
        goto out;
    }
    sqlite3_bind_int64(st, 1, sweep_id);
    if (sqlite3_step(st) != SQLITE_ROW) {
        rc = sb_errf(e, SB_EUSAGE, "%s: no sweep %lld", db->path, (long long)sweep_id);
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
    if (sqlite3_prepare_v2(db->h,
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
    if (p->dtype && p->dtype[0] && !token(p->dtype, SB_DB_MAX_WORD))
        return sb_errf(e, SB_EUSAGE, "dtype: '%s' is not a dtype word",
                       sb_text_cell(q, sizeof q, p->dtype, 32, 0));
    if (p->shape && !sb_db_shape_valid(p->shape))
        return sb_errf(e, SB_EUSAGE,
                       "shape: '%s' is neither MxNxK[:TT][+prepack] nor"
                       " key=value pairs",
                       sb_text_cell(q, sizeof q, p->shape, 60, 0));
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db->h,
                           "INSERT INTO point (uuid, sweep_id, seq, workload, kernel, dtype, shape,"
                           " config, threads, ppn, nodes, status, command, machine_id)"
                           " VALUES (?,?,?,?,?,?,?,?,?,?,?, 'pending', ?, ?)",
                           -1, &st, NULL) != SQLITE_OK)
        return sb_db_fail(e, db, "point insert");
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
    if (machine_id)
        sqlite3_bind_int64(st, 13, machine_id);
    else
        sqlite3_bind_null(st, 13);
    if (bind_repaired(st, 12, p->command, SB_DB_MAX_TEXT)) {
        sqlite3_finalize(st);
        return sb_errf(e, SB_EFAIL, "out of memory");
    }
    rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) return sb_db_fail(e, db, "point insert");
    *id = sqlite3_last_insert_rowid(db->h);
    return SB_OK;
}

int sb_db_point_set_command(sb_db *db, int64_t id, const char *command, sb_err *e)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db->h, "UPDATE point SET command = ? WHERE id = ?", -1, &st, NULL) !=
        SQLITE_OK)
        return sb_db_fail(e, db, "point update");
    int mem = bind_repaired(st, 1, command, SB_DB_MAX_TEXT);
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
    if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL) != SQLITE_OK)
        return sb_db_fail(e, db, "point update");
    char now[32];
    sb_db_now_iso(now);
    bind_text(st, 1, status);
    int mem = bind_repaired(st, 2, reason ? reason : "", SB_DB_MAX_REASON);
    bind_text(st, 3, now);
    sqlite3_bind_int64(st, 4, id);
    int rc = mem ? SQLITE_NOMEM : sqlite3_step(st);
    sqlite3_finalize(st);
    if (mem) return sb_errf(e, SB_EFAIL, "out of memory");
    return rc == SQLITE_DONE ? SB_OK : sb_db_fail(e, db, "point update");
}

static int exec_bound(sb_db *db, sqlite3_stmt *st, sb_err *e, const char *what)
{
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    return rc == SQLITE_DONE ? SB_OK : sb_db_fail(e, db, what);
}

#define MAX_METRIC_ABS 1e300

/* What a worker's result must hold before anything of it is stored (the
 * same rules an import applies, so that what a sweep stores exports and
 * imports again). */
static int check_result(json_t *result, const char *workload, sb_err *e)
{
    const char *status = jstr(result, "status", NULL);
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
        if (!token(name, 128))
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
    const char *dtype = jstr(result, "dtype", NULL);
    char q[160];
    if (dtype && dtype[0] && !token(dtype, SB_DB_MAX_WORD))
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
        int rc = exec_bound(db, ins, e, "sample insert");
        if (rc) return rc;
    }
    return SB_OK;
}

int sb_db_check_pairing(json_t *pairing, const char *where, sb_err *e)
{
    if (!pairing) return SB_OK;
    if (!json_is_object(pairing)) return sb_errf(e, SB_EUSAGE, "%s: not an object", where);
    const char *mode = jstr(pairing, "mode", NULL), *base = jstr(pairing, "baseline", NULL),
               *cand = jstr(pairing, "candidate", NULL);
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
    if (sqlite3_prepare_v2(db->h, "SELECT COALESCE(workload, '') FROM point WHERE id = ?", -1, &get,
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
    if ((rc = check_result(result, workload[0] ? workload : jstr(result, "workload", NULL), e)))
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
    if (sqlite3_prepare_v2(db->h, "DELETE FROM sample WHERE point_id = ?", -1, &del_s, NULL) ||
        sqlite3_prepare_v2(db->h, "DELETE FROM metric WHERE point_id = ?", -1, &del_m, NULL) ||
        sqlite3_prepare_v2(db->h,
                           "INSERT INTO sample (point_id, rep, seconds, side, pair)"
                           " VALUES (?,?,?,?,?)",
                           -1, &ins_s, NULL) ||
        sqlite3_prepare_v2(db->h, "DELETE FROM point_pairing WHERE point_id = ?", -1, &del_pr,
                           NULL) ||
        sqlite3_prepare_v2(db->h,
                           "INSERT INTO point_pairing (point_id, mode, baseline, candidate)"
                           " VALUES (?,?,?,?)",
                           -1, &ins_pr, NULL) ||
        sqlite3_prepare_v2(db->h,
                           "INSERT INTO metric (point_id, name, value, unit, projected, source)"
                           " VALUES (?,?,?,?,?,?)",
                           -1, &ins_m, NULL) ||
        sqlite3_prepare_v2(db->h,
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
    if ((rc = exec_bound(db, del_s, e, "ingest")) || (rc = exec_bound(db, del_m, e, "ingest")) ||
        (rc = exec_bound(db, del_pr, e, "ingest")))
        goto out;
    if ((rc = sb_db_insert_samples(db, ins_s, point_id, samples, pairing, e))) goto out;
    if (pairing) {
        sqlite3_bind_int64(ins_pr, 1, point_id);
        bind_text(ins_pr, 2, jstr(pairing, "mode", NULL));
        bind_text(ins_pr, 3, jstr(pairing, "baseline", NULL));
        bind_text(ins_pr, 4, jstr(pairing, "candidate", NULL));
        if ((rc = exec_bound(db, ins_pr, e, "pairing insert"))) goto out;
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
        bind_text(ins_m, 2, name);
        sqlite3_bind_double(ins_m, 3, json_number_value(v));
        sqlite3_bind_int(ins_m, 5, is_projected);
        if (bind_repaired(ins_m, 4, jstr(units, name, NULL), 64) ||
            bind_repaired(ins_m, 6, json_is_string(src) ? json_string_value(src) : NULL,
                          SB_DB_MAX_REASON)) {
            rc = sb_errf(e, SB_EFAIL, "out of memory");
            goto out;
        }
        if ((rc = exec_bound(db, ins_m, e, "metric insert"))) goto out;
    }
    char now[32];
    sb_db_now_iso(now);
    const char *reason = jstr(result, "reason", NULL);
    bind_text(upd, 1, jstr(result, "status", NULL));
    bind_text(upd, 3, now);
    bind_text(upd, 4, binding_s);
    bind_text(upd, 5, doc);
    bind_text(upd, 6, jstr(result, "dtype", NULL));
    sqlite3_bind_int64(upd, 7, point_id);
    if (bind_repaired(upd, 2, reason ? reason : "", SB_DB_MAX_REASON)) {
        rc = sb_errf(e, SB_EFAIL, "out of memory");
        goto out;
    }
    rc = exec_bound(db, upd, e, "point update");
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
    } else if (sqlite3_prepare_v2(db->h,
                                  "INSERT OR REPLACE INTO point_log (point_id, stdout,"
                                  " stdout_bytes, stderr, stderr_bytes) VALUES (?,?,?,?,?)",
                                  -1, &st, NULL) != SQLITE_OK) {
        rc = sb_db_fail(e, db, "point log");
    } else {
        sqlite3_bind_int64(st, 1, point_id);
        bind_text(st, 2, o);
        sqlite3_bind_int64(st, 3, out_total);
        bind_text(st, 4, r);
        sqlite3_bind_int64(st, 5, err_total);
        rc = sqlite3_step(st) == SQLITE_DONE ? SB_OK : sb_db_fail(e, db, "point log");
    }
    sqlite3_finalize(st);
    free(o);
    free(r);
    return rc;
}

int sb_db_point_log_get(sb_db *db, int64_t point_id, sb_point_log *log, int *found, sb_err *e)
{
    memset(log, 0, sizeof *log);
    *found = 0;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db->h,
                           "SELECT stdout, stdout_bytes, stderr, stderr_bytes FROM point_log"
                           " WHERE point_id = ?",
                           -1, &st, NULL) != SQLITE_OK)
        return sb_db_fail(e, db, "point log");
    sqlite3_bind_int64(st, 1, point_id);
    int step = sqlite3_step(st), rc = SB_OK;
    if (step == SQLITE_ROW) {
        const char *o = (const char *)sqlite3_column_text(st, 0);
        const char *r = (const char *)sqlite3_column_text(st, 2);
        log->out = strdup(o ? o : "");
        log->err = strdup(r ? r : "");
        log->out_bytes = sqlite3_column_int64(st, 1);
        log->err_bytes = sqlite3_column_int64(st, 3);
        if (!log->out || !log->err) {
            sb_point_log_free(log);
            rc = sb_errf(e, SB_EFAIL, "out of memory");
        } else {
            *found = 1;
        }
    } else if (step != SQLITE_DONE) {
        rc = sb_db_fail(e, db, "point log");
    }
    sqlite3_finalize(st);
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
    static const char *sql =
        "SELECT m.value FROM metric m JOIN point p ON p.id = m.point_id"
        " LEFT JOIN sweep s ON s.id = p.sweep_id"
        " WHERE p.workload = 'peak' AND p.status = 'ok' AND p.machine_id = ?"
        " AND m.name IN (? || '_gflops_1t', ? || '_gops_1t')"
        " ORDER BY p.sweep_id IS ? DESC, " SB_DB_SWEEP_TIME_DESC("s")
        ", p.seq DESC, p.id DESC LIMIT 1";
    sqlite3_stmt *st;
    double v = 0;
    if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL) != SQLITE_OK) return 0;
    sqlite3_bind_int64(st, 1, machine_id);
    bind_text(st, 2, path);
    bind_text(st, 3, path);
    sqlite3_bind_int64(st, 4, sweep_id);
    if (sqlite3_step(st) == SQLITE_ROW) v = sqlite3_column_double(st, 0);
    sqlite3_finalize(st);
    return v;
}

int64_t sb_db_latest_sweep(sb_db *db)
{
    sqlite3_stmt *st;
    int64_t id = 0;
    /* the newest started, not the last stored: an import adds old sweeps */
    if (sqlite3_prepare_v2(db->h,
                           "SELECT id FROM sweep ORDER BY " SB_DB_SWEEP_TIME_DESC("sweep")
                           " LIMIT 1",
                           -1, &st, NULL) != SQLITE_OK)
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
        " WHERE p.sweep_id = ? AND p.workload = ? AND p.status = 'ok'"
        " ORDER BY p.kernel, p.shape, p.ppn, p.threads, p.nodes, p.id";
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL) != SQLITE_OK)
        return sb_db_fail(e, db, "training points");
    sqlite3_bind_int64(st, 1, sweep_id);
    /* the workload the scaling model projects (its row's flag, as the
     * projections it stores) */
    const sb_workload *pw = sb_workload_flagged(SB_WL_PROJECT);
    sqlite3_bind_text(st, 2, pw ? pw->name : "", -1, SQLITE_STATIC);
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
    if (!rc && step != SQLITE_DONE) rc = sb_db_fail(e, db, "training points");
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
    int trc;
    char quoted[256];
    if (pr->shape && !sb_db_shape_valid(pr->shape))
        return sb_errf(e, SB_EUSAGE,
                       "shape: '%s' is neither MxNxK[:TT][+prepack] nor"
                       " key=value pairs",
                       sb_text_cell(quoted, sizeof quoted, pr->shape, 60, 0));
    if (pr->kernel && (trc = sb_text_check(pr->kernel, SB_DB_MAX_NAME, "kernel", e))) return trc;
    if (pr->dtype && pr->dtype[0] && !token(pr->dtype, SB_DB_MAX_WORD))
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
                           " VALUES (?1,?2,?3,?15,?4,?5,?6,?7,?8,?9,?10, 'projected', ?11,?12,?13,?14,"
                           " NULL)",
                           -1, &ins_p, NULL) ||
        sqlite3_prepare_v2(db->h,
                           "INSERT INTO metric (point_id, name, value, unit, projected, source)"
                           " VALUES (?,?,?,?, 1, ?)",
                           -1, &ins_m, NULL)) {
        rc = sb_db_fail(e, db, "prepare projection");
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
    if (sqlite3_step(seq_st) != SQLITE_ROW) {
        rc = sb_db_fail(e, db, "projected point insert");
        goto out;
    }
    int seq = sqlite3_column_int(seq_st, 0);
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
        if (bind_repaired(ins_p, 11, pr->reason ? pr->reason : "projected by the scaling model",
                          SB_DB_MAX_REASON)) {
            rc = sb_errf(e, SB_EFAIL, "out of memory");
            goto out;
        }
        bind_text(ins_p, 12, now);
        bind_text(ins_p, 13, now);
        bind_text(ins_p, 15, pwname);
        if (pr->machine_id)
            sqlite3_bind_int64(ins_p, 14, pr->machine_id);
        else
            sqlite3_bind_null(ins_p, 14);
        if ((rc = exec_bound(db, ins_p, e, "projected point insert"))) goto out;
        int64_t pid = sqlite3_last_insert_rowid(db->h);
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
            sqlite3_bind_int64(ins_m, 1, pid);
            bind_text(ins_m, 2, m[k].name);
            sqlite3_bind_double(ins_m, 3, m[k].v);
            bind_text(ins_m, 4, m[k].unit);
            if (bind_repaired(ins_m, 5, pr->source, SB_DB_MAX_REASON)) {
                rc = sb_errf(e, SB_EFAIL, "out of memory");
                goto out;
            }
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
