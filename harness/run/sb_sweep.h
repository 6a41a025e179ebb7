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
#include "sb_plan.h"

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

/* What `sprbench sweep` shows when a sweep has run. doc NULL: the summary
 * table, the counts line and the projected series on f. Else *doc = the
 * summary document with the database, the counts, the projected series and
 * an empty "plots" array (NULL when the summary could not be read; say why
 * on e). A summary that cannot be read is not the sweep's failure: SB_OK
 * either way, e says why. */
void sb_sweep_show(const char *db_path, const sb_sweep_outcome *out, FILE *f, json_t **doc,
                   sb_err *e);

#endif
