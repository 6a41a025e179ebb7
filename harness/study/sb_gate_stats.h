/* sb_gate_stats: the statistics the gate and the report's headline judge
 * samples with. Pure arithmetic on arrays of doubles (no points, no rows):
 * the one-sided Mann-Whitney U test, the bootstrap interval of a median
 * ratio and the two-regime check. */
#ifndef SB_GATE_STATS_H
#define SB_GATE_STATS_H
#include <stdint.h>

/* One-sided p value of H1 "x tends to be larger than y". Exact (no ties,
 * nx, ny <= 30) or normal with tie and continuity correction. */
double sb_mwu_p_greater(const double *x, int nx, const double *y, int ny);
/* Percentile bootstrap of median(x)/median(y): [lo, hi] holds the central
 * `conf` share of `iters` resamples (deterministic for a seed). Each side is
 * sorted once; a resample's median is then drawn in O(1) from the
 * distribution of the median of n draws (sb_bootstrap_median). */
void sb_bootstrap_ratio(const double *x, int nx, const double *y, int ny, double conf, int iters,
                        uint64_t seed, double *lo, double *hi);
/* The median of one bootstrap resample (n draws with replacement) of
 * sorted[0..n), drawn from its exact distribution without drawing the n
 * values; *state is the generator's (xorshift64, never 0). */
double sb_bootstrap_median(const double *sorted, int n, uint64_t *state);
/* 1 when x[0..n) (n >= 6) falls into two groups, each of at least a fifth of
 * the samples, split by a gap wider than 10 % of the median and wider than
 * either group's own range: two regimes, not one noisy figure. *low and
 * *high (may be NULL) get each group's middle value. */
int sb_samples_bimodal(const double *x, int n, double *low, double *high);

#endif
