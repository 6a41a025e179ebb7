/* sb_sweep: runs a plan. Each point is its own worker process (`sprbench
 * gemm|train|allreduce --result-file F`, under mpirun when it spans more than
 * one rank), launched with argv, timed out and cleaned up by sb_launch, and
 * ingested into the database in its own transaction as soon as it ends, so an
 * interrupted or killed sweep keeps every finished point and --resume reruns
 * only the rest.
 * This module is the sweep's lifecycle: a new sweep created with all its
 * points and its claim, or a stored one resumed from its plan; its
 * unfinished points run in order, then a training sweep projected and the
 * sweep finished and released (--dry-run prints the commands instead). One
 * point's argv and run are sb_point's, a paired point's sb_pair_point's, the
 * projection sb_sweep_project's, the closing tables sb_sweep_summary's. */
#ifndef SB_SWEEP_H
#define SB_SWEEP_H
#include <stdint.h>
#include <jansson.h>
#include <stdio.h>
#include "sb_err.h"
#include "sb_db.h"
#include "sb_pair_run.h" /* sb_pair_opts */
#include "sb_db_project.h"
#include "sb_plan.h"


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

/* What `sprbench sweep` shows when a sweep has run. doc NULL: the summary
 * table, the counts line and the projected series on f. Else *doc = the
 * summary document with the database, the counts, the projected series and
 * an empty "plots" array (NULL when the summary could not be read; say why
 * on e). A summary that cannot be read is not the sweep's failure: SB_OK
 * either way, e says why. */
void sb_sweep_show(const char *db_path, const sb_sweep_outcome *out, FILE *f, json_t **doc,
                   sb_err *e);

#endif
