/* sb_pair_point: the paired runner. One GEMM point of a paired A/B sweep
 * (sb_pair_run.h's sb_pair_opts) measured as pairs of runs of its two
 * binaries, in quads (abba, random or duet), until the pairs decide
 * (bench/sb_paired) or the pairs allowed are spent; each run launched as
 * an unpaired point's is (sb_point), its result checked against the plan
 * row (sb_pair_check_result), and the point stored with every sample's
 * side and pair and the candidate's last run's metrics. */
#ifndef SB_PAIR_POINT_H
#define SB_PAIR_POINT_H
#include <stddef.h>
#include "sb_err.h"
#include "sb_point.h"
#include "sb_query.h"
#include "sb_pair_run.h" /* sb_pair_opts */

/* Runs one GEMM point as pairs of the two binaries and stores it; *status
 * and a line for the progress output in summary, as sb_point_run. A
 * broken run of either binary fails the point, naming it (a skip of the
 * baseline before anything ran is the machine's skip); ctx->timeout bounds
 * all the point's runs together, and ctx->stop ends it between runs.
 * Returns SB_EFAIL only when the store failed. */
int sb_pair_point_run(const sb_point_ctx *ctx, const sb_todo_point *row, const sb_pair_opts *po,
                      double peak, char *summary, size_t sumcap, const char **status, sb_err *e);

#endif
