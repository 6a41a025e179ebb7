/* sb_metric_own: the metrics a workload brings of its own, beside the
 * table (sb_metric.def): one list per workload that has any, each defined
 * beside its row in the workload's folder (sb_metric_own_layernorm in
 * bench/layernorm/sb_layernorm_row.c) and named by OWN_METRICS in
 * sb_workloads.def. The table's lookups read them here (sb_metric), so the
 * table never reads the workload rows, which reach every workload, whose
 * results read the table: no include loop. */
#ifndef SB_METRIC_OWN_H
#define SB_METRIC_OWN_H
#include "sb_metric_row.h"

/* Each OWN_METRICS row's list, ended by a row whose name is NULL. */
#define SB_METRIC_OWN_NO_METRICS(id)
#define SB_METRIC_OWN_OWN_METRICS(id) extern const sb_metric_info sb_metric_own_##id[];
#define SB_WORKLOAD(id, metrics) SB_METRIC_OWN_##metrics(id)
#include "sb_workloads.def"
#undef SB_WORKLOAD
#undef SB_METRIC_OWN_OWN_METRICS
#undef SB_METRIC_OWN_NO_METRICS

/* Every workload's list, in the rows' order, ended by NULL. */
extern const sb_metric_info *const sb_metric_own_lists[];

#endif
