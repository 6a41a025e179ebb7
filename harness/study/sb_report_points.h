/* sb_report_points: what the report asks of a point, in one place. Which
 * section a point belongs to (the predicates of the sections table:
 * single-process GEMM, training, inference, peaks, multi-rank points, other
 * workloads by their headline, points with projected figures), whether it
 * ran ok, its rate metric, and the metric's value at the p10 and p90
 * samples. Shared by the report's files (study/sb_report*). */
#ifndef SB_REPORT_POINTS_H
#define SB_REPORT_POINTS_H
#include "sb_ptset.h"

/* Which points a section takes (each a g_sections predicate but the first
 * two): a scaling model's point (it ran nothing), a point that ran ok,
 * single-process GEMM, training and inference points, peaks, multi-rank
 * points (peaks aside), a single-process point of a workload with a
 * headline metric and no section of its own, a point with a projected
 * figure, any point. */
int sb_rp_is_model_point(const sb_pt *p);
/* a point of GEMM, training, inference or peak, whatever its ranks: the
 * report's only comparisons of a workload's name (kernel_point and
 * profile_table take one as an argument) */
int sb_rp_is_gemm(const sb_pt *p);
int sb_rp_is_train(const sb_pt *p);
int sb_rp_is_infer(const sb_pt *p);
/* a point that ran ok (NULL, or no status: not) */
int sb_rp_ok(const sb_pt *p);
int sb_rp_is_gemm1(const sb_pt *p);
int sb_rp_is_train1(const sb_pt *p);
int sb_rp_is_infer1(const sb_pt *p);
int sb_rp_is_peak(const sb_pt *p);
int sb_rp_is_scaling(const sb_pt *p);
int sb_rp_has_projected(const sb_pt *p);
int sb_rp_any_point(const sb_pt *p);


/* The rate a table and a chart show of a point: GFLOP/s, GOP/s, tokens/s,
 * bus bandwidth, samples/s, else its workload's headline metric; NULL: none. */
const sb_metric_val *sb_rp_rate_metric(const sb_pt *p);
/* The metric at the p10 and p90 samples: 1 when the point has the samples
 * for it, else lo = hi = value (the direction: sb_metric_lower_is_better). */
int sb_rp_spread_of(const sb_pt *p, const sb_metric_val *m, double *lo, double *hi);

/* The headline's: an ok single-process GEMM point with a rate
 * (sb_rp_gemm_rate) and a dtype. */
int sb_rp_gemm_ok(const sb_pt *p);
/* GFLOP/s, else GOP/s: the GEMM rate of the headline's tables. */
const sb_metric_val *sb_rp_gemm_rate(const sb_pt *p);
/* "batch=4" out of "model=distilbert-base batch=4 seq=384"; -1 when absent */
int sb_rp_shape_int(const char *shape, const char *key);

#endif
