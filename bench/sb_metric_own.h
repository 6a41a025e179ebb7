/* sb_metric_own: the metrics a workload brings of its own, beside the
 * table (sb_metric.def): one list per workload that has any, as data. The
 * workload's row points at its list (sb_workload.metrics) and the table's
 * lookups read them here (sb_metric), so the table never reads the
 * workload rows, which reach every workload, whose results read the table:
 * no include loop. A workload with metrics of its own adds its list here
 * and to sb_metric_own_lists, in the rows' order. */
#ifndef SB_METRIC_OWN_H
#define SB_METRIC_OWN_H
#include "sb_metric_row.h"

/* LayerNorm's (bench/layernorm), ended by a row whose name is NULL. */
extern const sb_metric_info sb_metric_own_layernorm[];

/* Every workload's list, in the rows' order, ended by NULL. */
extern const sb_metric_info *const sb_metric_own_lists[];

#endif
