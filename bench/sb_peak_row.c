/* sb_peak_row: the peak probe's row of the workload table
 * (bench/sb_workloads.def), beside its measuring (sb_peak_run): the
 * machine's peak FLOP/s, a probe the sweep puts ahead of GEMM points, never
 * a plan's workload of its own. */
#include <stdio.h>
#include "sb_workload.h"

/* The peak probe names the f32 path it measured: AVX-512's, else AVX2's. */
static void describe_peak(const json_t *doc, char *buf, size_t cap)
{
    int avx512 = sb_wl_doc_has(doc, "f32_gflops");
    if (!avx512 && !sb_wl_doc_has(doc, "avx2_f32_gflops")) {
        buf[0] = '\0';
        return;
    }
    snprintf(buf, cap, "%s peak %.1f GFLOP/s%s", avx512 ? "f32" : "avx2_f32",
             sb_wl_doc_num(doc, avx512 ? "f32_gflops" : "avx2_f32_gflops"),
             json_array_size(json_object_get(doc, "warnings"))
                 ? "; warning: all cores below one core, the machine was busy"
                 : "");
}

static const char *const g_peak_opts[] = {"no-tune", NULL};

const sb_workload sb_wl_peak = {
    .name = "peak",
    .title = "Peak FLOP/s",
    .flags = SB_WL_PROBE,
    .opts = g_peak_opts,
    .series = g_peak_opts,
    .timeout_s = 1800.0,
    .describe = describe_peak,
};
