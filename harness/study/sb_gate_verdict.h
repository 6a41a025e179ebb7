/* sb_gate_verdict: the verdict of one configuration and one metric against
 * a baseline (sb_gate_compare's rows). Turns a point's metric into costs
 * per repetition (the direction from the metric table, bench/sb_metric) (larger = worse), and the
 * arithmetic of the verdict: status rows, too few samples, bimodal sides,
 * the median cost ratio against the tolerance, significance (U test or
 * bootstrap interval) and, with --pool, the rounds. */
#ifndef SB_GATE_VERDICT_H
#define SB_GATE_VERDICT_H
#include "sb_gate_match.h"
#include "sb_gate_result.h"
#include "sb_ptset.h"

/* Judges the baseline run bg[b0, b1) of bs against the candidate run
 * cg[c0, c1) of cs on metric, adding at most one row to r (none when
 * neither side has the metric; for a side that did not run ok, one status
 * row and only for the first metric). */
void sb_gate_compare_one(const sb_ptset *bs, const sb_gate_group *bg, int b0, int b1,
                         const sb_ptset *cs, const sb_gate_group *cg, int c0, int c1,
                         const char *metric, int first_metric, const sb_gate_opts *o,
                         sb_gate_result *r);

#endif
