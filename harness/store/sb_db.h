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
 * operations: this header (schema, writes, what the store accepts),
 * sb_query.h (the reads commands, sweeps, plots and reports make),
 * sb_ptset.h (selections and point sets), sb_export.h (moving results) and
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

/* Creates a sweep (status running). Label and plan are refused, not cut,
 * when they break the text rules (SB_EUSAGE). */
int sb_db_sweep_create(sb_db *db, const char *label, const char *workload, const char *plan,
                       int64_t machine_id, int64_t *id, sb_err *e);
int sb_db_sweep_finish(sb_db *db, int64_t id, const char *status, sb_err *e);
/* Marks a sweep that is resumed as running again (no finish time), in the
 * caller's transaction or one of its own. No such sweep: SB_EUSAGE. */
int sb_db_sweep_reopen(sb_db *db, int64_t id, sb_err *e);

/* ---- who is running a sweep ---- */

/* Who holds a sweep, as the caller describes itself (harness/run/sb_holder
 * describes this process): the store keeps pid, host and token, knows a
 * claim as the caller's own by all three, and asks alive and runs_alive
 * about a stored holder of the caller's host; it never reads the token. */
typedef struct sb_db_holder {
    long pid;
    char host[256];
    char token[128];
    /* whether the holder stored as (pid, token) on this host still runs */
    int (*alive)(long pid, const char *token);
    /* whether processes of that holder's run group (the stored value) live */
    int (*runs_alive)(long group, const char *token);
} sb_db_holder;

/* Claims the sweep for me (pid, host name and token, since when), in a
 * transaction of its own or in the caller's. A claim by a live process is
 * SB_EUSAGE naming the holder; a claim by a process of this host that is
 * gone (not alive: a dead pid, a pid reused by another process, an earlier
 * boot) is taken over; a claim from another host is SB_EUSAGE too (it
 * cannot be checked from here: `sprbench db unlock` clears it), and so is
 * a claim whose holder is gone while processes of its runs still live
 * (sb_db_sweep_set_group) after a wait of up to 5 s for them (a guard's
 * grace is 3 s). No such sweep: SB_EUSAGE. */
int sb_db_sweep_claim(sb_db *db, int64_t sweep_id, const sb_db_holder *me, sb_err *e);
/* Drops me's claim (another's is left alone). */
int sb_db_sweep_release(sb_db *db, int64_t sweep_id, const sb_db_holder *me, sb_err *e);
/* Records with me's claim the process group its runs' guards join
 * (harness/run/sb_guard; 0: none). While a member of it can run, a claim
 * or an unlock of the sweep is refused (SB_EUSAGE) even when the holder is
 * gone: something of its runs is still being stopped. */
int sb_db_sweep_set_group(sb_db *db, int64_t sweep_id, const sb_db_holder *me, int group,
                          sb_err *e);
/* Drops any claim but that of a live process of me's host or of one whose
 * runs still have processes here after the claim's wait (SB_EUSAGE naming
 * it: that sweep still runs, or is still being stopped); *was (cap bytes,
 * may be NULL) describes the holder it dropped ("" when there was none). */
int sb_db_sweep_unlock(sb_db *db, int64_t sweep_id, const sb_db_holder *me, char *was, size_t cap,
                       sb_err *e);

typedef struct sb_point_desc {
    int seq;                            /* order within the sweep */
    const char *workload;               /* "gemm", "train", "infer", "peak", "allreduce" */
    const char *kernel, *dtype, *shape; /* shape: "MxNxK[:TRANS]" or a model config key */
    const char *config;                 /* JSON text of the workload-specific options */
    int threads, ppn, nodes;
    const char *command; /* exact command line that runs the point */
} sb_point_desc;

/* Adds a pending point. */
int sb_db_point_add(sb_db *db, int64_t sweep_id, const sb_point_desc *p, int64_t machine_id,
                    int64_t *id, sb_err *e);
/* Records the exact command of a point (machine text: repaired and cut). */
int sb_db_point_set_command(sb_db *db, int64_t id, const char *command, sb_err *e);
/* Sets a point's status (one of the known ones, else SB_EUSAGE) and reason
 * (machine text: repaired and cut to SB_DB_MAX_REASON characters). */
int sb_db_point_set_status(sb_db *db, int64_t id, const char *status, const char *reason,
                           sb_err *e);
/* Stores a result document for the point in one transaction: status, reason,
 * every sample, every metric (with unit and projected flag), the binding and
 * the raw document. The point must exist. SB_EUSAGE, nothing stored, for a
 * status other than ok/skipped/failed, an ok result of a measured workload
 * (not peak) without samples, a sample or metric that is not a finite
 * number, a metric name outside [A-Za-z0-9_.:-]{1,128}, or a document over
 * SB_DB_MAX_DOC; the reason, units and sources are repaired and cut.
 * A paired point's document has "pairing" {mode (abba, random or duet),
 * baseline, candidate (the two binaries), samples, side (0 baseline, 1
 * candidate) and pair (arrays of one length)}: its samples are stored from
 * there, each with its side and pair, and "samples" (the candidate's) is
 * not stored again. */
int sb_db_point_ingest(sb_db *db, int64_t point_id, json_t *result, sb_err *e);
/* The rules a "pairing" object follows (NULL: none, fine); SB_EUSAGE naming
 * `where` and the element otherwise. */
int sb_db_check_pairing(json_t *pairing, const char *where, sb_err *e);

/* ---- each point's worker output ---- */

typedef struct sb_point_log {
    char *out, *err;                /* the kept tails, valid UTF-8 */
    long long out_bytes, err_bytes; /* how much the worker wrote in all */
} sb_point_log;
/* Stores (replaces) the tails of a point's stdout and stderr: each is
 * repaired, and cut to its last SB_DB_LOG_BYTES bytes at a character
 * boundary; *_total is how many bytes the stream had in all. */
int sb_db_point_log_set(sb_db *db, int64_t point_id, const char *out, size_t out_len,
                        long long out_total, const char *err, size_t err_len, long long err_total,
                        sb_err *e);
/* *found = 0 when the point has no stored output. */
int sb_db_point_log_get(sb_db *db, int64_t point_id, sb_point_log *log, int *found, sb_err *e);
void sb_point_log_free(sb_point_log *log);

/* A fresh random identifier (32 hex digits) for sweeps and points, so that
 * results moved between databases keep their identity. */
void sb_db_uuid(char out[33]);
/* UTC time as ISO 8601 ("2026-11-29T17:00:00Z"). */
void sb_db_now_iso(char out[32]);

/* Latest per-core peak (GFLOP/s or GOP/s) measured on this machine (of the
 * sweep started last) for an
 * instruction path ("f32", "bf16", "int8", "amx_bf16", "amx_int8"); 0 when none. */
double sb_db_peak_per_core(sb_db *db, int64_t machine_id, const char *path);
/* The same, the peak of sweep_id first when it measured one (an imported
 * point is measured against its own sweep's peak, whatever else the
 * database holds), else the newest by sweep start time (SB_DB_SWEEP_TIME). */
double sb_db_peak_per_core_in(sb_db *db, int64_t machine_id, const char *path, int64_t sweep_id);

/* The id of the newest sweep, or 0 when there is none. */
int64_t sb_db_latest_sweep(sb_db *db);

/* ---- projections (the scaling model's figures, stored beside measured ones) ---- */

/* A measured training point of a sweep (status ok, with a step_seconds
 * metric), with what its result document says about the work. */
typedef struct sb_train_obs {
    int64_t point_id;
    char kernel[64], dtype[16], shape[128];
    int threads, ppn, nodes;
    double step_s;               /* metric step_seconds (median) */
    double epoch_s;              /* metric epoch_seconds (0 when absent) */
    long steps_per_epoch;        /* metric steps_per_epoch (0 when absent) */
    long features;               /* config.features (0 when absent) */
    int batch, seq;              /* config.batch, config.seq (0 when absent) */
    int layers, dim, ffn, vocab; /* config: the model's shape (0 when absent) */
} sb_train_obs;

/* Every ok `train` point of the sweep that has a step_seconds metric, ordered
 * by kernel, shape, ppn, threads, nodes. *v malloc'd (NULL when none). */
int sb_db_train_points(sb_db *db, int64_t sweep_id, sb_train_obs **v, int *n, sb_err *e);

typedef struct sb_projection_point {
    int nodes;
    double epoch_s; /* with overlap: the series' headline */
    double epoch_no_overlap_s;
    double speedup;           /* against the projection's own 1-node point */
    double efficiency;        /* speedup / nodes */
    double comm_s, exposed_s; /* all-reduce per step, and the part not hidden */
} sb_projection_point;

typedef struct sb_projection {
    int64_t sweep_id; /* where the points go; 0: a new sweep (new_sweep_label) */
    const char *new_sweep_label;
    int64_t machine_id; /* 0: none */
    const char *kernel, *dtype, *shape;
    int threads, ppn;
    const char *reason; /* short: what the points were computed from */
    const char *config; /* JSON text of the model's inputs */
    const char *source; /* metric.source: the model's inputs in words */
    const sb_projection_point *pts;
    int n;
} sb_projection;

/* Stores a projection in one transaction: one point per node count, workload
 * `train`, status 'projected' (nothing was run), its metrics epoch_seconds,
 * epoch_seconds_no_overlap, speedup, efficiency, comm_seconds_per_step and
 * exposed_seconds_per_step all with projected = 1 and `source`. Projected
 * points of the same series (kernel, dtype, shape, threads, ppn) already in
 * the sweep are replaced, so deriving a projection again never duplicates it.
 * With sweep_id 0 a sweep (workload train, status done) is created in the
 * same transaction; *sweep_out receives the sweep's id (may be NULL). */
int sb_db_add_projection(sb_db *db, const sb_projection *pr, int64_t *sweep_out, sb_err *e);

#endif
