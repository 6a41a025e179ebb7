/* sb_allreduce_row: the MPI all-reduce's row of the workload table
 * (bench/sb_workloads.def). No headline: its metrics are per message size
 * (busbw_gbs_<bytes>). */
#include <stdlib.h>
#include "sb_allreduce.h"
#include "sb_parse.h"
#include "sb_workload.h"

/* sizes as the worker parses them (sb_workload.h) */
int sb_wl_check_sizes(const char *value, sb_err *e)
{
    size_t *sizes = NULL;
    int n = 0;
    /* the worker merges overlapping ranges itself; a size written twice is a typo */
    int rc = sb_check_list(value, "sizes", e);
    if (!rc) rc = sb_allreduce_parse_sizes(value, &sizes, &n, e);
    free(sizes);
    return rc;
}

static const char *const g_allreduce_opts[] = {"sizes", "iters", "warmup", NULL};
static const char *const g_allreduce_series[] = {"sizes", NULL};

const sb_workload sb_wl_allreduce = {
    .name = "allreduce",
    .title = "MPI_Allreduce",
    .flags = SB_WL_PLAN,
    .opts = g_allreduce_opts,
    .series = g_allreduce_series,
    .timeout_s = 1800.0,
};
