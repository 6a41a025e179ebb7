/* sb_db_project: the scaling model's figures in the store (sb_db): the
 * measured training points it reads, and the projected points it stores
 * beside them. */
#ifndef SB_SB_DB_PROJECT_H
#define SB_SB_DB_PROJECT_H
#include <stddef.h>
#include <stdint.h>
#include "sb_db.h"
#include "sb_err.h"

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
