/* sb_stream_row: STREAM's row of the workload table
 * (bench/sb_workloads.def): memory bandwidth, the roofline's other axis,
 * measured by one process. */
#include "sb_workload.h"

static const char *const g_stream_opts[] = {"mib", "ntimes", NULL};
static const char *const g_stream_series[] = {"mib", NULL};

const sb_workload sb_wl_stream = {
    .name = "stream",
    .title = "STREAM memory bandwidth",
    .flags = SB_WL_PLAN | SB_WL_THREADS | SB_WL_ONE_RANK,
    .opts = g_stream_opts,
    .series = g_stream_series,
    .timeout_s = 1800.0,
    .metric = "triad_gbps",
    .unit = "GB/s",
};
