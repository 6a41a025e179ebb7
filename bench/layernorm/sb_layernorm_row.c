/* sb_layernorm_row: LayerNorm's row of the workload table
 * (bench/sb_workloads.def), the worked example of a list axis (batch) and
 * metrics of its own (ns a row, where lower is better): the list
 * sb_metric_own_layernorm, which the metric table reads through
 * bench/sb_metric_own (OWN_METRICS in the .def). */
#include "sb_layernorm_bench.h"
#include "sb_metric_own.h"
#include "sb_workload.h"

const sb_metric_info sb_metric_own_layernorm[] = {
    {"ns_per_row", "ns/row", NULL, 1 /* lower is better */, SB_MROLE_HEADLINE, SB_MSTAR_NONE},
    {"layernorm_gbps", "GB/s", NULL, 0, SB_MROLE_RATE, SB_MSTAR_NONE},
    {"max_abs_error", "", NULL, 1, SB_MROLE_ERROR, SB_MSTAR_NONE},
    {NULL, NULL, NULL, 0, SB_MROLE_INFO, SB_MSTAR_NONE}};

static const char *const g_layernorm_opts[] = {"batch", "seq", "dim", "iters", NULL};
static const char *const g_layernorm_series[] = {"batch", "seq", "dim", NULL};

const sb_workload sb_wl_layernorm = {
    .name = "layernorm",
    .title = "LayerNorm per token",
    .flags = SB_WL_PLAN | SB_WL_BATCH | SB_WL_THREADS | SB_WL_ONE_RANK,
    .opts = g_layernorm_opts,
    .series = g_layernorm_series,
    .default_batch = SB_LAYERNORM_DEFAULT_BATCH,
    .timeout_s = 1800.0,
    .metric = "ns_per_row",
    .unit = "ns/row",
    .axis = "batch",
    .axis_argv = sb_wl_batch_argv,
    .check = sb_layernorm_plan_check,
    .metrics = sb_metric_own_layernorm,
};
