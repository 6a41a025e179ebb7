/* sb_gemm_row: GEMM's row of the workload table (bench/sb_workloads.def):
 * a point per kernel and shape, its %peak against the machine's probed
 * peak, and the one workload a sweep may measure in pairs of binaries. */
#include <stdio.h>
#include "sb_workload.h"

static void describe_gemm(const json_t *doc, char *buf, size_t cap)
{
    if (sb_wl_doc_has(doc, "gflops"))
        snprintf(buf, cap, "%.1f GFLOP/s", sb_wl_doc_num(doc, "gflops"));
    else
        buf[0] = '\0';
}

/* A point's shape as the sweep stores it ("MxNxK:TT", "+prepack" after it
 * with --prepack) -> --shape, the text as it is: `sprbench gemm` parses the
 * grammar the store keeps (sb_gemm_shape_parse), so nothing is parsed and
 * written again on the way, and a shape it refuses fails its point */
static void shape_argv(const char *value, sb_wl_push push, void *ctx)
{
    push(ctx, "--shape");
    push(ctx, value);
}

static const char *const g_gemm_opts[] = {"no-tune", NULL};

const sb_workload sb_wl_gemm = {
    .name = "gemm",
    .title = "GEMM",
    .flags = SB_WL_PLAN | SB_WL_KERNEL | SB_WL_INT8 | SB_WL_SHAPES | SB_WL_THREADS | SB_WL_PEAK |
        SB_WL_PAIRED,
    .opts = g_gemm_opts,
    .series = g_gemm_opts,
    .timeout_s = 1800.0,
    .metric = "gflops",
    .unit = "GFLOP/s",
    .int8_unit = "GFLOP/s (GOP/s for int8)",
    .describe = describe_gemm,
    .axis = "shape",
    .axis_argv = shape_argv,
};
