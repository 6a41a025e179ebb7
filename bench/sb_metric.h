/* sb_metric: what each metric a worker writes is, as data (sb_metric.def):
 * its unit, its direction (higher or lower is better) and its role. The
 * result document's "better" (sb_result), the listing's main metric
 * (store/sb_listing) and the gate's, plot's and report's directions read it
 * here instead of guessing from a name.
 *
 *   const sb_metric_info *m = sb_metric_info("busbw_gbs_1048576");
 *   // m->name "busbw_gbs_*", m->unit "GB/s", m->lower 0, m->role SB_MROLE_RATE
 *   sb_metric_lower("median_s", NULL);      // 1: the table
 *   sb_metric_lower("my_new_metric", "ms"); // 1: not in the table, a time unit
 */
#ifndef SB_METRIC_H
#define SB_METRIC_H

#include "sb_metric_row.h"

/* The row of a metric name (an exact row first, then the families), NULL
 * when the table does not know it. */
const sb_metric_info *sb_metric_info_of(const char *name);

/* Whether lower is better: the table's answer; for a metric the table does
 * not know, the stored unit's (s, ms, us, ns: lower; anything else, or no
 * unit: higher). Never guessed from the name. */
int sb_metric_lower(const char *name, const char *unit);

/* Whether a metric is a figure of the point's timed samples (its role is
 * headline, rate, time or latency; a metric the table does not know is
 * taken to be one), so that each sample gives a value of it: the gate's
 * test, a band's p10-p90. An accuracy, an error, a memory figure, a count
 * or a projection is one value per point, never spread by timing noise. */
int sb_metric_per_sample(const char *name);
/* "higher" or "lower", as the result document's "better" says it. */
const char *sb_metric_better(const char *name, const char *unit);

/* The unit the table gives a metric (int8: an int8 kernel ran), NULL when it
 * gives none (unknown, or a pure number). */
const char *sb_metric_unit(const char *name, int int8);

/* Whether a unit is a time (s, ms, us, ns). */
int sb_metric_unit_is_time(const char *unit);

/* The rows: the table's, in its order (headlines first, as a listing
 * prefers them), then the metrics workload rows declare as their own
 * (sb_workload.metrics), row by row. */
int sb_metric_count(void);
const sb_metric_info *sb_metric_at(int i);

/* The role's name ("headline", "latency", ...). */
const char *sb_metric_role_name(sb_metric_role r);

/* ---- a metric's arithmetic, in its direction (one home for plot, report,
 * gate and the sweep's summary) ---- */

/* How many times better value is than base: base / value where lower is
 * better, value / base otherwise (2: twice as good, either way). */
double sb_metric_speedup(double value, double base, int lower);

/* Whether a is strictly better than b: a < b where lower is better, a > b
 * otherwise (a tie is not better: the first of equals stays). */
int sb_metric_better_of(double a, double b, int lower);

/* The band of a value computed from the median of its samples xs[0..ns)
 * (seconds): the value at the p10 and p90 samples. lower: the value scales
 * with the samples (a time), else inversely (a rate: the same work over
 * the p90 and p10 times), so that *lo <= *hi. Without a sample or a
 * positive median, *lo = *hi = value and 0; else 1 when the p10 sample is
 * positive too (both ends finite), 2 when it is not (a rate's *hi is then
 * infinite, a time's *lo 0). */
int sb_metric_band(double value, const double *xs, int ns, int lower, double *lo, double *hi);

#endif
