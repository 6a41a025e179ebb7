/* sb_stats: order statistics over raw samples (every report and gate shows
 * medians with their spread, never a lone number). */
#ifndef SB_STATS_H
#define SB_STATS_H

/* Quantile q in [0,1] by linear interpolation between order statistics
 * (numpy's default); x is not modified. n must be > 0. */
double sb_quantile(const double *x, int n, double q);
double sb_median(const double *x, int n);

#endif
