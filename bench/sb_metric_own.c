#include "sb_metric_own.h"
#include <stddef.h>

/* the lists of the OWN_METRICS rows, in the rows' order */
#define SB_METRIC_OWN_NO_METRICS(id)
#define SB_METRIC_OWN_OWN_METRICS(id) sb_metric_own_##id,
#define SB_WORKLOAD(id, metrics) SB_METRIC_OWN_##metrics(id)
const sb_metric_info *const sb_metric_own_lists[] = {
#include "sb_workloads.def"
    NULL};
#undef SB_WORKLOAD
