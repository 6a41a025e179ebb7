/* sb_sweep: runs a plan. Each point is its own worker process (`sprbench
 * gemm|train|allreduce --result-file F`, under mpirun when it spans more than
 * one rank), launched with argv, timed out and cleaned up by sb_launch, and
 * ingested into the database in its own transaction as soon as it ends, so an
 * interrupted or killed sweep keeps every finished point and --resume reruns
 * only the rest. */
#ifndef SB_SWEEP_H
#define SB_SWEEP_H
#include <stdint.h>
#include <jansson.h>
#include <stdio.h>
#include "sb_err.h"
#include "sb_db.h"
#include "sb_db_project.h"
#include "sb_plan.h"
#include "sb_scaling_job.h"

/* A paired A/B sweep (`sweep --pair-baseline B --pair-candidate C`): every
 * GEMM point runs the worker of binary B (the baseline) and of binary C (the
 * candidate) alternately, `reps` repetitions a run, in quads of two pairs:
 *   abba    A B B A: the first A with the first B is a pair, the second B
 *           with the second A the next (a linear drift cancels);
 *   random  A A B B in a random order per quad (seeded), paired the same;
 *   duet    both at once, each bound to its own `threads` CPUs, the CPUs
 *           swapped between the two pairs of a quad (Bulej et al.); a point
 *           whose 2 x threads exceeds this machine's cores runs abba.
 * After min_pairs pairs the point stops once the pairs decide (sb_paired:
 * PASS or FAIL at tolerance and alpha), else at max_pairs. Every sample is
 * stored with its side and pair, the point with its two binaries; the
 * point's metrics are the candidate's last run's. A failed or timed-out run
 * of either binary fails the point, naming the binary (a full TMPDIR is
 * named as such instead); the point's timeout bounds all its runs together;
 * a run's result must be the plan row's point (sb_pair_check_result). The
 * binaries are absolute paths (sb_pair_resolve), and the stored plan keeps
 * the pairing (sb_pair_render), so that a resume runs in pairs too. */
typedef enum { SB_PAIR_ABBA = 0, SB_PAIR_RANDOM = 1, SB_PAIR_DUET = 2 } sb_pair_mode;
typedef struct sb_pair_opts {
    const char *baseline, *candidate; /* NULL: an ordinary sweep */
    sb_pair_mode mode;
    int min_pairs, max_pairs;
    int reps;
    double tolerance, alpha;
    unsigned seed;
} sb_pair_opts;
#define SB_PAIR_OPTS_INIT                                                                       \
    {                                                                                           \
        .min_pairs = 8, .max_pairs = 24, .reps = 3, .tolerance = 0.05, .alpha = 0.01, .seed = 1 \
    }
const char *sb_pair_mode_name(sb_pair_mode m);

typedef struct sb_sweep_opts {
    const char *db_path;
    sb_plan *plan;        /* finished plan (ignored with resume_id) */
    int64_t resume_id;    /* > 0: rerun the unfinished points of this sweep */
    int dry_run;          /* print points and commands, touch nothing */
    int no_peak;          /* do not measure the machine's peak first */
    const char *self_exe; /* the sprbench binary workers run */
    FILE *out;            /* progress lines and the summary */
    sb_pair_opts pair;    /* paired A/B runs (pair.baseline NULL: none) */
} sb_sweep_opts;

typedef struct sb_sweep_outcome {
    int64_t sweep_id;
    int points, ok, skipped, failed, timeout, interrupted;
    int projected_series; /* series the scaling model extended (status 'projected') */
} sb_sweep_outcome;

/* SB_OK when the sweep ran to its end (points may have failed: see outcome),
 * SB_EUSAGE for bad input, SB_EFAIL when interrupted or the store failed.
 * The run holds the sweep's claim (sb_db_sweep_claim) from the moment it is
 * created or resumed until it ends: a resume of a sweep another live process
 * runs is SB_EUSAGE naming it, before anything runs. A resume needs an
 * existing database (none is created) and derives the points of a sweep
 * that has none stored again from its plan. Each point's worker output
 * (the tails of its stdout and stderr) is kept with it (sb_db_point_log_set);
 * its result file is read with a 64 MiB limit. */
int sb_sweep_run(const sb_sweep_opts *o, sb_sweep_outcome *out, sb_err *e);

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

/* Prints the summary table of a sweep (GFLOP/s or tokens/s, speedup and
 * parallel efficiency against the 1-thread point of the same series), and
 * when the sweep tried a vendor kernel (onednn-*, mkl-*) its closing table:
 * at each point of such a precision our fastest kernel against the faster
 * vendor there (sb_vendor_cmp), named, own/vendor, the other vendor beside
 * it, or which vendor kernels did not run. */
int sb_sweep_summary(const char *db_path, int64_t sweep_id, FILE *f, sb_err *e);
/* The same tables as JSON: {"sweep_id", "rows": [{kernel, shape, threads,
 * ppn, nodes, status, reason, median, unit, speedup, speedup_base_threads,
 * efficiency, pct_peak}], "vs_vendor": [{precision, shape, threads, ppn,
 * nodes, unit, own, vendor, other_vendor: {kernel, vendor, median} or null,
 * own_vs_vendor, not_run: "mkl-int8 skipped" or ""}]} with null where the
 * tables show "-". */
int sb_sweep_summary_json(const char *db_path, int64_t sweep_id, json_t **out, sb_err *e);
/* What `sprbench sweep` shows when a sweep has run. doc NULL: the summary
 * table, the counts line and the projected series on f. Else *doc = the
 * summary document with the database, the counts, the projected series and
 * an empty "plots" array (NULL when the summary could not be read; say why
 * on e). A summary that cannot be read is not the sweep's failure: SB_OK
 * either way, e says why. */
void sb_sweep_show(const char *db_path, const sb_sweep_outcome *out, FILE *f, json_t **doc,
                   sb_err *e);

#endif
