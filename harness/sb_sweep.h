/* sb_sweep: runs a plan. Each point is its own worker process (`sprbench
 * gemm|train|allreduce --result-file F`, under mpirun when it spans more than
 * one rank), launched with argv, timed out and cleaned up by sb_launch, and
 * ingested into the database in its own transaction as soon as it ends, so an
 * interrupted or killed sweep keeps every finished point and --resume reruns
 * only the rest. */
#ifndef SB_SWEEP_H
#define SB_SWEEP_H
#include <stdint.h>
#include <stdio.h>
#include "sb_err.h"
#include "sb_plan.h"

typedef struct sb_sweep_opts {
    const char *db_path;
    sb_plan *plan;          /* finished plan (ignored with resume_id) */
    int64_t resume_id;      /* > 0: rerun the unfinished points of this sweep */
    int dry_run;            /* print points and commands, touch nothing */
    int no_peak;            /* do not measure the machine's peak first */
    const char *self_exe;   /* the sprbench binary workers run */
    FILE *out;              /* progress lines and the summary */
} sb_sweep_opts;

typedef struct sb_sweep_outcome {
    int64_t sweep_id;
    int points, ok, skipped, failed, timeout, interrupted;
} sb_sweep_outcome;

/* SB_OK when the sweep ran to its end (points may have failed: see outcome),
 * SB_EUSAGE for bad input, SB_EFAIL when interrupted or the store failed. */
int sb_sweep_run(const sb_sweep_opts *o, sb_sweep_outcome *out, sb_err *e);

/* Prints the summary table of a sweep (GFLOP/s or tokens/s, speedup and
 * parallel efficiency against the 1-thread point of the same series). */
int sb_sweep_summary(const char *db_path, int64_t sweep_id, FILE *f, sb_err *e);

#endif
