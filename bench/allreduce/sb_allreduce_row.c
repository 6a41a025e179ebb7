/* sb_allreduce_row: the MPI all-reduce's row of the workload table
 * (bench/sb_workloads.def). No headline: its metrics are per message size
 * (busbw_gbs_<bytes>). */
#include "sb_workload.h"

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
