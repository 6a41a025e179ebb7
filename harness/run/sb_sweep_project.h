/* sb_sweep_project: the scaling model's projection of measured training
 * series, and its storage: a sweep ends by extending every series it
 * measured on 1 and on more nodes (sb_sweep_project), and `sprbench model`
 * finds what to start from in a stored sweep (sb_sweep_model_source) and
 * stores its own projection (sb_sweep_store_projection). The arithmetic is
 * bench/sb_scaling's; what is stored goes through the store
 * (sb_db_add_projection) as status 'projected' points, never as
 * measurements. */
#ifndef SB_SWEEP_PROJECT_H
#define SB_SWEEP_PROJECT_H
#include <stdint.h>
#include <stdio.h>
#include "sb_err.h"
#include "sb_db.h"
#include "sb_db_project.h"
#include "sb_scaling_job.h"

/* The scaling model's inputs from a measured 1-node training point: its
 * step_seconds as the compute per step, features and batch from its config,
 * ppn, the gradient and last-bucket sizes from its model shape (DistilBERT-
 * base when the shape is not recorded), overlap share 0.67; the network is
 * left for the caller. SB_EUSAGE when features or batch are missing. */
int sb_sweep_model_input(const sb_train_obs *one, sb_scaling_input *in, sb_err *e);

/* The scaling model calibrated on a measured series: the bus bandwidth
 * implied by its point at the largest node count against its 1-node point
 * (sb_scaling_implied_busbw; a lower bound, the calibration ignores
 * overlap). *busbw_gbs is 0 when the measurements leave no room (the larger
 * run was no slower per sample than ideal); *calib is that measured point. */
void sb_sweep_calibrate(const sb_train_obs *one, const sb_train_obs *calib,
                        const sb_scaling_input *in, double *busbw_gbs);

/* What the scaling model starts from in a stored sweep: its first measured
 * 1-node training point (at that ppn when ppn > 0) with the model's inputs
 * from it (sb_sweep_model_input), and the point of the same series at the
 * largest node count (calib.nodes 0 when there is none). SB_EUSAGE naming
 * what is missing: the sweep, or a measured 1-node point. */
typedef struct sb_sweep_model_src {
    sb_train_obs one, calib;
    sb_scaling_input in;
} sb_sweep_model_src;
int sb_sweep_model_source(sb_db *db, int64_t sweep_id, int ppn, sb_sweep_model_src *src, sb_err *e);

/* `sprbench model`'s projection as status 'projected' points (nothing was
 * run) in one transaction: beside the measured series of sweep from_sweep
 * (its 1-node point one: kernel, dtype, shape, threads), replacing an earlier
 * projection of that series, or, with from_sweep 0, in a new sweep labelled
 * "scaling model" (one unused). Every point carries its source: the step,
 * the network and the inputs. *sweep_out: the sweep's id. */
int sb_sweep_store_projection(sb_db *db, const sb_scaling_job *j, int64_t from_sweep,
                              const sb_train_obs *one, int64_t *sweep_out, sb_err *e);

/* Extends every measured training series (kernel, shape, ppn, threads) of the
 * sweep that has an ok point at 1 node and at least one larger node count
 * with the scaling model's projection (status 'projected', replacing an
 * earlier projection of the series): at `nodes` (n > 0) or at 1, 2, 4, ...
 * up to 4x its largest measured node count (n = 0). One line per series on
 * `out` (NULL: silent); *series = how many were stored. */
int sb_sweep_project(sb_db *db, int64_t sweep_id, const int *nodes, int n, FILE *out, int *series,
                     sb_err *e);

#endif
