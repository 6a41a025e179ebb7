/* sb_stats: order statistics over raw samples (every report and gate shows
 * medians with their spread, never a lone number). */
#ifndef SB_STATS_H
#define SB_STATS_H

/* Quantile q in [0,1] by linear interpolation between order statistics
 * (numpy's default); x is not modified. n must be > 0. */
double sb_quantile(const double *x, int n, double q);
double sb_median(const double *x, int n);
/* 1 when x[0..n) (n >= 6) falls into two groups, each of at least a fifth of
 * the values, split by a gap wider than 10 % of the median and wider than
 * either group's own range: two regimes, not one noisy figure. *low and
 * *high (may be NULL) get each group's middle value. */
int sb_bimodal(const double *x, int n, double *low, double *high);

/* What a sample can be: seconds of a repetition, finite, from a nanosecond
 * (below it no clock measured anything: 0, a denormal, a negative number)
 * to about 30 years. The store refuses any other at ingest, import and
 * merge, and the gate on read, so that no ratio of two samples is 0, nan
 * or inf (two samples' ratio stays within 1e18). */
#define SB_SAMPLE_MIN_S 1e-9
#define SB_SAMPLE_MAX_S 1e9
int sb_sample_seconds_ok(double x);

#endif
