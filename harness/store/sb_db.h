/* sb_db: the results store. One SQLite file holds machines, sweeps, points,
 * raw samples and metrics (schema in docs/ARCHITECTURE.md). Owns the schema
 * and its numbered migrations (an older database opens and is upgraded),
 * WAL mode and the busy timeout, the one-transaction-per-point ingest of a
 * worker's result document, the rules for what the store accepts (text
 * limits in characters, statuses, workloads, the shape grammar), each
 * point's worker output, and who is running a sweep. Bound parameters only.
 *
 * Two ways in: sb_db_open (for commands that write: creates the file when
 * absent, migrates, switches to WAL) and sb_db_open_readonly (for commands
 * that only read: never creates, migrates or switches anything, and never
 * lets SQLite touch a file that is not a sprbench database).
 *
 * The store is sealed: the SQLite connection stays inside harness/store/
 * (sb_db_internal.h), and code above it reads and writes through named
 * operations: this header (opening, schema, transactions, machines, what
 * the store accepts), sb_db_sweep.h (sweeps, their holder, their points),
 * sb_db_ingest.h (results, worker output, peaks), sb_db_project.h
 * (projections), sb_query.h (the reads commands, sweeps, plots and reports make),
 * sb_ptset.h (selections and point sets), sb_export.h and sb_import.h
 * (moving results) and
 * sb_listing.h (the listings `db` shows). */
#ifndef SB_DB_H
#define SB_DB_H
#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include "sb_err.h"

#define SB_DB_SCHEMA_VERSION 6
/* The database commands use when --db is not given. */
#define SB_DEFAULT_DB "results/sprbench.db"

/* Text limits in characters (sb_text), the same on insert and on import:
 * what the tool itself writes always fits, so an export imports again. */
#define SB_DB_MAX_WORD 32                /* workload, dtype, status */
#define SB_DB_MAX_NAME 256               /* label, kernel, host name, CPU model, OS kernel */
#define SB_DB_MAX_SHAPE 1024             /* "MxNxK:TT" or "model=... batch=..." */
#define SB_DB_MAX_REASON 4096            /* a reason as stored by a sweep, a metric's source */
#define SB_DB_MAX_TEXT 65536             /* config, command, binding, ISA; imported reasons */
#define SB_DB_MAX_DOC ((size_t)64 << 20) /* plan, result document, machine info */
/* The tail of a worker's stdout and of its stderr kept with its point. */
#define SB_DB_LOG_BYTES ((size_t)64 << 10)

/* An open database; what is inside is the store's own. */
typedef struct sb_db sb_db;

/* Opens (creating when absent) and migrates. A file that is not SQLite, a
 * SQLite file of another program (tables but no sprbench schema), an
 * unwritable path or a database from a newer sprbench is SB_EUSAGE, and the
 * file is left as it was. */
int sb_db_open(const char *path, sb_db **db, sb_err *e);
/* Opens an existing sprbench database for reading only. A missing path, an
 * empty file, a file that is not SQLite, another program's SQLite file and a
 * database from a newer sprbench are SB_EUSAGE, judged before SQLite opens
 * the file for use, so such a file stays byte-identical and nothing is
 * created beside it. Works in a read-only directory (the file is then read
 * as immutable when it has no write-ahead log to replay). An older schema is
 * read as if migrated (temporary views; the file is not upgraded). */
int sb_db_open_readonly(const char *path, sb_db **db, sb_err *e);
void sb_db_close(sb_db *db);
int sb_db_readonly(sb_db *db);
/* PRAGMA user_version of the file (an older file opened read-only keeps its own). */
int sb_db_schema_version(sb_db *db);
/* Applies migrations up to `target` only (tests build older schemas with it). */
int sb_db_open_at_version(const char *path, int target, sb_db **db, sb_err *e);

/* BEGIN IMMEDIATE with retries while another writer holds the lock. */
int sb_db_begin(sb_db *db, sb_err *e);
int sb_db_commit(sb_db *db, sb_err *e);
void sb_db_rollback(sb_db *db);

/* Machine row from an info document (sb_sysinfo_json); matched by fingerprint.
 * A known machine's row stays as first seen, but for the name its user sets
 * or takes back (SB_CPU_UARCH: cpu.microarch_source "override"). */
int sb_db_machine_upsert(sb_db *db, json_t *info, int64_t *id, sb_err *e);
int sb_db_machine_by_fingerprint(sb_db *db, const char *fingerprint, int64_t *id, sb_err *e);

/* ---- what the store accepts ---- */

/* Point statuses: pending, running, ok, skipped, failed, timeout,
 * interrupted, projected. Sweep statuses: running, done, interrupted. */
int sb_db_point_status_known(const char *s);
int sb_db_sweep_status_known(const char *s);
/* Workloads: gemm, train, infer, peak, allreduce. */
int sb_db_workload_known(const char *s);
/* "gemm, train, ...": every workload the store knows, for messages. */
void sb_db_workload_names(char *buf, size_t cap);
/* The most ranks (ppn x nodes) a point may have: each reader multiplies the
 * two in an int. */
#define SB_DB_MAX_RANKS (1 << 20)
/* The highest pair number of a paired point's samples (and it is below
 * the point's number of paired samples): checked at ingest, import and on
 * read, since a pair number from a file is never a size. */
#define SB_DB_MAX_PAIR 1000000
/* The shapes sprbench writes: "" (peak), a GEMM "MxNxK" with an optional
 * ":NN|:NT|:TN|:TT" and "+prepack", or a training/allreduce series key of
 * "key=value" pairs separated by single spaces (key [a-z][a-z0-9_-]*, value
 * of [A-Za-z0-9_.,:+/@-], a blank only after a comma). */
int sb_db_shape_valid(const char *s);
/* The value of `key` in a series key ("batch" in "model=tiny batch=8 seq=32"
 * is "8"), copied into buf (cut to cap); 0 when the shape has no such key
 * (a GEMM shape, "", or a series key without it). */
int sb_db_shape_value(const char *shape, const char *key, char *buf, size_t cap);
/* A sweep's label and plan as the store takes them (SB_EUSAGE naming the
 * field otherwise): callers check before they create anything. */
int sb_db_check_sweep_text(const char *label, const char *plan, sb_err *e);

/* A fresh random identifier (32 hex digits) for sweeps and points, so that
 * results moved between databases keep their identity. */
void sb_db_uuid(char out[33]);
/* UTC time as ISO 8601 ("2026-11-29T17:00:00Z"). */
void sb_db_now_iso(char out[32]);

#endif
