/* sb_gate: deciding whether a candidate run is slower than a baseline. The
 * driver: checks the metrics asked for and compares every configuration of
 * two point sets (same machine, workload, kernel, dtype, shape, config,
 * threads, ranks), row by row. This header is the gate's whole interface;
 * each concern has its own file:
 *   sb_gate_result   verdicts, options, rows and the result
 *   sb_gate_stats    Mann-Whitney U (exact small-sample p values, tie-
 *                    corrected normal approximation), bootstrap interval of
 *                    a median ratio, two-regime check
 *   sb_gate_match    groups of points per configuration, the measured view
 *   sb_gate_verdict  one configuration and metric: costs and the verdict
 *   sb_gate_paired   `--paired`: the candidate's own pairs
 *   sb_gate_refs     `--references`: the ReFrame-style references file
 *   sb_gate_history  `--history`: the last sweep that passed
 *   sb_gate_render   the table, JSON, JUnit XML, GitHub annotations
 * and, for the command only, sb_gate_side (the sides it reads) and
 * sb_gate_out (what it writes around the table).
 *
 * Verdicts, per matched point (samples are seconds per repetition: lower is
 * better; a rate metric such as gflops is turned into its cost 1/value):
 *   FAIL  median cost ratio > 1 + tolerance AND significant (one-sided U test
 *         of candidate > baseline at p < alpha, or with the bootstrap method
 *         the interval's lower end above 1 + tolerance), or the point failed,
 *         crashed or timed out in the candidate whatever the baseline did
 *         (the baseline not having the point at all included), or
 *         the candidate's machine has no baseline while another machine has
 *         (machine mismatch);
 *   SKIP  the candidate point was skipped (an ISA the machine lacks);
 *   WARN  beyond tolerance but not significant, too few samples, a side
 *         whose samples are bimodal (noisy: flagged, not judged), a point
 *         present on one side only (baseline points of machines the
 *         candidate never ran on are counted as ignored);
 *   PASS  otherwise. */
#ifndef SB_GATE_H
#define SB_GATE_H
#include <stdint.h>
#include <stdio.h>
#include <jansson.h>
#include "sb_db.h"
#include "sb_err.h"
#include "sb_gate_paired.h"
#include "sb_gate_refs.h"
#include "sb_gate_render.h"
#include "sb_gate_result.h"
#include "sb_gate_stats.h"
#include "sb_gate_verdict.h"
#include "sb_ptset.h"

/* Every metric asked for must be one the points hold ("seconds", the raw
 * samples, always is): a typo such as "gflop" would compare nothing and
 * pass. SB_EUSAGE "unknown metric 'X' (known: ...)" otherwise. base may be
 * NULL (references mode). */
int sb_gate_check_metrics(const char *const *metrics, const sb_ptset *base, const sb_ptset *cand,
                          sb_err *e);

/* Compares every configuration of base with the candidate's. */
int sb_gate_compare(const sb_ptset *base, const sb_ptset *cand, const sb_gate_opts *o,
                    sb_gate_result *r, sb_err *e);

#endif
