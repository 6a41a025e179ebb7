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
#include "sb_shape.h"
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
const char *sb_db_path(sb_db *db) { return db->path; }
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

/* Text from the machine or a worker: bound repaired and cut (sb_text). */
static int bind_repaired(sqlite3_stmt *st, int i, const char *s, size_t max_chars)
{
    if (!s) return sqlite3_bind_null(st, i), SB_OK;
    char *r = sb_text_repair(s, strlen(s), max_chars, NULL);
    if (!r) return SB_EFAIL;
    sqlite3_bind_text(st, i, r, -1, free);
    return SB_OK;
}

/* A value of a record as a parameter (SB_DB_JSON). */
static void bind_json(sqlite3_stmt *st, int i, json_t *v)
{
    if (json_is_object(v) || json_is_array(v)) {
        /* a nested document (export version 3) is stored as the text it was */
        char *s = json_dumps(v, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
        if (s)
            sqlite3_bind_text(st, i, s, -1, free);
        else
            sqlite3_bind_null(st, i);
        return;
    }
    if (json_is_string(v))
        sqlite3_bind_text(st, i, json_string_value(v), -1, SQLITE_TRANSIENT);
    else if (json_is_integer(v))
        sqlite3_bind_int64(st, i, json_integer_value(v));
    else
        sqlite3_bind_null(st, i);
}

/* Binds args[0..nargs) to parameters 1..nargs; SB_EFAIL when a repaired
 * text cannot be made (out of memory). */
static int bind_args(sqlite3_stmt *st, const sb_db_arg *args, int nargs, sb_err *e)
{
    int mem = 0;
    for (int i = 0; i < nargs; i++) {
        const sb_db_arg *a = &args[i];
        switch (a->kind) {
        case SB_DB_ARG_INT: sqlite3_bind_int64(st, i + 1, a->i); break;
        case SB_DB_ARG_REAL: sqlite3_bind_double(st, i + 1, a->d); break;
        case SB_DB_ARG_TEXT:
            if (a->s)
                sqlite3_bind_text(st, i + 1, a->s, -1, SQLITE_TRANSIENT);
            else
                sqlite3_bind_null(st, i + 1);
            break;
        case SB_DB_ARG_REPAIRED: mem |= bind_repaired(st, i + 1, a->s, (size_t)a->i); break;
        case SB_DB_ARG_JSON: bind_json(st, i + 1, a->j); break;
        default: sqlite3_bind_null(st, i + 1); break;
        }
    }
    return mem ? sb_errf(e, SB_EFAIL, "out of memory") : SB_OK;
}

int sb_db_stmt(sb_db *db, sqlite3_stmt *st, const char *what, const sb_db_arg *args, int nargs,
               sb_db_row_fn row, void *ctx, sb_err *e)
{
    int rc = args ? bind_args(st, args, nargs, e) : SB_OK, step = SQLITE_DONE;
    while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW)
        if (row && (rc = row(st, ctx, e))) break;
    if (rc == SB_DB_STOP)
        rc = SB_OK;
    else if (!rc && step != SQLITE_DONE)
        rc = sb_db_fail(e, db, what);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    return rc;
}

int sb_db_rows(sb_db *db, const char *what, const char *sql, const sb_db_arg *args, int nargs,
               sb_db_row_fn row, void *ctx, sb_err *e)
{
    sqlite3_stmt *st;
    int rc = sb_db_prepare(db, what, sql, &st, e);
    if (rc) return rc;
    rc = sb_db_stmt(db, st, what, args, nargs, row, ctx, e);
    sqlite3_finalize(st);
    return rc;
}

int sb_db_exec(sb_db *db, const char *what, const char *sql, const sb_db_arg *args, int nargs,
               sb_err *e)
{
    return sb_db_rows(db, what, sql, args, nargs, NULL, NULL, e);
}

int sb_db_insert(sb_db *db, const char *what, const char *sql, const sb_db_arg *args, int nargs,
                 int64_t *id, sb_err *e)
{
    int rc = sb_db_exec(db, what, sql, args, nargs, e);
    if (!rc) *id = sqlite3_last_insert_rowid(db->h);
    return rc;
}

/* A single-row read's row function and what it stands in for. */
typedef struct first_row {
    sb_db_row_fn row;
    void *ctx;
    int *found;
} first_row;

static int take_first(sqlite3_stmt *st, void *ctx, sb_err *e)
{
    first_row *f = ctx;
    *f->found = 1;
    int rc = f->row ? f->row(st, f->ctx, e) : SB_OK;
    return rc ? rc : SB_DB_STOP;
}

int sb_db_row(sb_db *db, const char *what, const char *sql, const sb_db_arg *args, int nargs,
              sb_db_row_fn row, void *ctx, int *found, sb_err *e)
{
    first_row f = {row, ctx, found};
    *found = 0;
    return sb_db_rows(db, what, sql, args, nargs, take_first, &f, e);
}

int sb_db_int64_row(sqlite3_stmt *st, void *ctx, sb_err *e)
{
    (void)e;
    *(int64_t *)ctx = sqlite3_column_int64(st, 0);
    return SB_OK;
}

int sb_db_double_row(sqlite3_stmt *st, void *ctx, sb_err *e)
{
    (void)e;
    *(double *)ctx = sqlite3_column_double(st, 0);
    return SB_OK;
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

int sb_db_list_give(sb_db_list *l, int rc, void *out, int *n)
{
    if (rc) {
        free(l->v);
        l->v = NULL;
        l->n = 0;
    }
    memcpy(out, &l->v, sizeof l->v);
    *n = l->n;
    return rc;
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

/* A probe of a connection that is no sb_db yet (opening, recognising a
 * file): the first row of sql, its first two columns as integers into *c0
 * and *c1 (where not NULL); 1 when a row was read. SQLite's message after
 * it, when why is not NULL, into why. */
static int probe(sqlite3 *h, const char *sql, int *c0, int *c1, char *why, size_t cap)
{
    sqlite3_stmt *st = NULL;
    int row =
        sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW;
    if (row && c0) *c0 = sqlite3_column_int(st, 0);
    if (row && c1) *c1 = sqlite3_column_int(st, 1);
    if (why) snprintf(why, cap, "%s", sqlite3_errmsg(h));
    sqlite3_finalize(st);
    return row;
}

static int user_version(sqlite3 *h)
{
    int v = -1;
    probe(h, "PRAGMA main.user_version", &v, NULL, NULL, 0);
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
    int objects = -1, tables = -1, uv = -1;
    char msg[512];
    if (rc == SQLITE_OK) {
        uv = user_version(h);
        probe(h,
              "SELECT COUNT(*), COALESCE(SUM(type = 'table' AND name IN"
              " ('machine', 'sweep', 'point', 'sample', 'metric')), 0)"
              " FROM main.sqlite_schema",
              &objects, &tables, msg, sizeof msg);
    } else {
        snprintf(msg, sizeof msg, "%s", h ? sqlite3_errmsg(h) : "out of memory");
    }
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
    return probe(h, "SELECT COUNT(*) FROM main.sqlite_schema", NULL, NULL, NULL, 0);
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

const char *sb_db_jstr(json_t *o, const char *path1, const char *path2)
{
    json_t *v = json_object_get(o, path1);
    if (path2) v = json_object_get(v, path2);
    return json_is_string(v) ? json_string_value(v) : NULL;
}

json_int_t sb_db_jint(json_t *o, const char *path1, const char *path2)
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

int sb_db_token(const char *s, size_t max)
{
    size_t n = strlen(s);
    if (n == 0 || n > max) return 0;
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)s[i]) && !strchr("_.:-", s[i])) return 0;
    return 1;
}

/* A GEMM point's shape as the sweep writes it: bench/sb_shape's stored
 * form (its grammar and its largest dimension), in its one spelling (no
 * leading zero or sign; ":XY" only where the text gave transposes). */
static int gemm_shape_valid(const char *s)
{
    sb_shape sh;
    sb_err e = {0};
    if (sb_shape_parse(s, SB_SHAPE_PREPACK, &sh, &e)) return 0;
    char canon[96];
    if (sh.transa)
        sb_shape_format(&sh, canon, sizeof canon);
    else
        snprintf(canon, sizeof canon, "%dx%dx%d%s", sh.m, sh.n, sh.k, sh.prepack ? "+prepack" : "");
    return strcmp(canon, s) == 0;
}

int sb_db_shape_valid(const char *s)
{
    if (!s) return 0;
    if (!*s) return 1;
    if (strlen(s) > SB_DB_MAX_SHAPE) return 0;
    if (isdigit((unsigned char)*s)) return gemm_shape_valid(s);
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
    sb_db_arg a[] = {SB_DB_TEXT(fingerprint)};
    *id = 0;
    return sb_db_rows(db, "machine lookup", "SELECT id FROM machine WHERE fingerprint = ?", a, 1,
                      sb_db_int64_row, id, e);
}

/* A known machine keeps its row as first seen, but for its name where the
 * user sets one (SB_CPU_UARCH) or takes it back: the latest run's word, so
 * that a name set after the first sweep is recorded, as an override. */
static int machine_rename(sb_db *db, int64_t id, json_t *info, sb_err *e)
{
    const char *src = sb_db_jstr(info, "cpu", "microarch_source"),
               *ua = sb_db_jstr(info, "cpu", "microarch");
    const char *how = sb_db_jstr(info, "cpu", "microarch_how");
    if (!src || !ua) return SB_OK; /* an older sprbench's description: nothing new */
    static const char *sql =
        "UPDATE machine SET microarch = ?2, info_json = json_set(info_json, '$.cpu.microarch',"
        " ?2, '$.cpu.microarch_source', ?3, '$.cpu.microarch_how', ?4)"
        " WHERE id = ?1 AND json_valid(info_json) AND ('override' IN (?3,"
        " COALESCE(json_extract(info_json, '$.cpu.microarch_source'), '')))"
        " AND (COALESCE(microarch, '') <> ?2"
        " OR COALESCE(json_extract(info_json, '$.cpu.microarch_source'), '') <> ?3)";
    sb_db_arg a[] = {SB_DB_INT(id), SB_DB_REPAIRED(ua, 128), SB_DB_REPAIRED(src, 32),
                     SB_DB_REPAIRED(how ? how : "", SB_DB_MAX_REASON)};
    return sb_db_exec(db, "machine rename", sql, a, SB_DB_NARGS(a), e);
}

int sb_db_machine_upsert(sb_db *db, json_t *info, int64_t *id, sb_err *e)
{
    const char *fp = sb_db_jstr(info, "fingerprint", NULL);
    if (!fp) return sb_errf(e, SB_EUSAGE, "machine description has no fingerprint");
    if (!sb_db_token(fp, 64))
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
    char now[32];
    sb_db_now_iso(now);
    /* what the machine says about itself is repaired, never refused: a
     * host name with odd bytes must not stop a sweep */
    sb_db_arg a[] = {
        SB_DB_TEXT(fp),
        SB_DB_REPAIRED(sb_db_jstr(info, "hostname", NULL), SB_DB_MAX_NAME),
        SB_DB_REPAIRED(sb_db_jstr(info, "cpu", "model"), SB_DB_MAX_NAME),
        SB_DB_REPAIRED(sb_db_jstr(info, "cpu", "vendor"), 64),
        SB_DB_INT(sb_db_jint(info, "cpu", "family")),
        SB_DB_INT(sb_db_jint(info, "cpu", "model_number")),
        SB_DB_INT(sb_db_jint(info, "cpu", "stepping")),
        SB_DB_REPAIRED(sb_db_jstr(info, "cpu", "microarch"), 128),
        SB_DB_INT(sb_db_jint(info, "topology", "packages")),
        SB_DB_INT(sb_db_jint(info, "topology", "numa_nodes")),
        SB_DB_INT(sb_db_jint(info, "topology", "cores")),
        SB_DB_INT(sb_db_jint(info, "topology", "pus")),
        SB_DB_INT(sb_db_jint(info, "topology", "l1d_bytes")),
        SB_DB_INT(sb_db_jint(info, "topology", "l2_bytes")),
        SB_DB_INT(sb_db_jint(info, "topology", "l3_bytes")),
        SB_DB_TEXT(isa),
        SB_DB_INT(sb_db_jint(info, "isa", "amx_os_permitted")),
        SB_DB_REPAIRED(sb_db_jstr(info, "isa", "amx_reason"), SB_DB_MAX_REASON),
        SB_DB_REPAIRED(sb_db_jstr(info, "kernel", NULL), SB_DB_MAX_NAME),
        SB_DB_INT(sb_db_jint(info, "memory", "total_bytes")),
        SB_DB_TEXT(all),
        SB_DB_TEXT(now),
    };
    rc = sb_db_exec(db, "machine insert", sql, a, SB_DB_NARGS(a), e);
    free(isa);
    free(all);
    if (rc) return rc;
    return sb_db_machine_by_fingerprint(db, fp, id, e);
}
