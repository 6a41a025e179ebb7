/* sb_db: the results store. One SQLite file holds machines, sweeps, points,
 * raw samples and metrics (schema in docs/ARCHITECTURE.md). Owns the schema
 * and its numbered migrations (an older database opens and is upgraded),
 * WAL mode and the busy timeout, and the one-transaction-per-point ingest of
 * a worker's result document. Bound parameters only. */
#ifndef SB_DB_H
#define SB_DB_H
#include <jansson.h>
#include <sqlite3.h>
#include <stdint.h>
#include "sb_err.h"

#define SB_DB_SCHEMA_VERSION 2

typedef struct sb_db sb_db;

/* Opens (creating when absent) and migrates. A file that is not SQLite, an
 * unwritable path or a database from a newer sprbench is SB_EUSAGE. */
int sb_db_open(const char *path, sb_db **db, sb_err *e);
void sb_db_close(sb_db *db);
sqlite3 *sb_db_handle(sb_db *db);
int sb_db_schema_version(sb_db *db);
/* Applies migrations up to `target` only (tests build older schemas with it). */
int sb_db_open_at_version(const char *path, int target, sb_db **db, sb_err *e);

/* BEGIN IMMEDIATE with retries while another writer holds the lock. */
int sb_db_begin(sb_db *db, sb_err *e);
int sb_db_commit(sb_db *db, sb_err *e);
void sb_db_rollback(sb_db *db);

/* Machine row from an info document (sb_sysinfo_json); matched by fingerprint. */
int sb_db_machine_upsert(sb_db *db, json_t *info, int64_t *id, sb_err *e);
int sb_db_machine_by_fingerprint(sb_db *db, const char *fingerprint, int64_t *id, sb_err *e);

int sb_db_sweep_create(sb_db *db, const char *label, const char *workload, const char *plan,
                       int64_t machine_id, int64_t *id, sb_err *e);
int sb_db_sweep_finish(sb_db *db, int64_t id, const char *status, sb_err *e);

typedef struct sb_point_desc {
    int seq;                /* order within the sweep */
    const char *workload;   /* "gemm", "train", "peak", "allreduce" */
    const char *kernel, *dtype, *shape;   /* shape: "MxNxK[:TRANS]" or a model config key */
    const char *config;     /* JSON text of the workload-specific options */
    int threads, ppn, nodes;
    const char *command;    /* exact command line that runs the point */
} sb_point_desc;

/* Adds a pending point. */
int sb_db_point_add(sb_db *db, int64_t sweep_id, const sb_point_desc *p, int64_t machine_id,
                    int64_t *id, sb_err *e);
int sb_db_point_set_status(sb_db *db, int64_t id, const char *status, const char *reason,
                           sb_err *e);
/* Stores a result document for the point in one transaction: status, reason,
 * every sample, every metric (with unit and projected flag), the binding and
 * the raw document. The point must exist. */
int sb_db_point_ingest(sb_db *db, int64_t point_id, json_t *result, sb_err *e);

/* A fresh random identifier (32 hex digits) for sweeps and points, so that
 * results moved between databases keep their identity. */
void sb_db_uuid(char out[33]);
/* UTC time as ISO 8601 ("2026-11-29T17:00:00Z"). */
void sb_db_now_iso(char out[32]);

/* Latest per-core peak (GFLOP/s or GOP/s) measured on this machine for an
 * instruction path ("f32", "bf16", "int8", "amx_bf16", "amx_int8"); 0 when none. */
double sb_db_peak_per_core(sb_db *db, int64_t machine_id, const char *path);

/* The id of the newest sweep, or 0 when there is none. */
int64_t sb_db_latest_sweep(sb_db *db);

/* ---- projections (the scaling model's figures, stored beside measured ones) ---- */

/* A measured training point of a sweep (status ok, with a step_seconds
 * metric), with what its result document says about the work. */
typedef struct sb_train_obs {
    int64_t point_id;
    char kernel[64], dtype[16], shape[128];
    int threads, ppn, nodes;
    double step_s;             /* metric step_seconds (median) */
    double epoch_s;            /* metric epoch_seconds (0 when absent) */
    long steps_per_epoch;      /* metric steps_per_epoch (0 when absent) */
    long features;             /* config.features (0 when absent) */
    int batch, seq;            /* config.batch, config.seq (0 when absent) */
    int layers, dim, ffn, vocab;   /* config: the model's shape (0 when absent) */
} sb_train_obs;

/* Every ok `train` point of the sweep that has a step_seconds metric, ordered
 * by kernel, shape, ppn, threads, nodes. *v malloc'd (NULL when none). */
int sb_db_train_points(sb_db *db, int64_t sweep_id, sb_train_obs **v, int *n, sb_err *e);

typedef struct sb_projection_point {
    int nodes;
    double epoch_s;            /* with overlap: the series' headline */
    double epoch_no_overlap_s;
    double speedup;            /* against the projection's own 1-node point */
    double efficiency;         /* speedup / nodes */
    double comm_s, exposed_s;  /* all-reduce per step, and the part not hidden */
} sb_projection_point;

typedef struct sb_projection {
    int64_t sweep_id;          /* where the points go; 0: a new sweep (new_sweep_label) */
    const char *new_sweep_label;
    int64_t machine_id;        /* 0: none */
    const char *kernel, *dtype, *shape;
    int threads, ppn;
    const char *reason;        /* short: what the points were computed from */
    const char *config;        /* JSON text of the model's inputs */
    const char *source;        /* metric.source: the model's inputs in words */
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
