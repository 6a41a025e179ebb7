/* sb_report_gemm: "GEMM throughput per kernel and shape": each side's median rate with
 * its spread and the gate's word on the ratio, one row per kernel, dtype,
 * shape and thread count; a dot chart per unit (GFLOP/s, GOP/s). */
#ifndef SB_REPORT_GEMM_H
#define SB_REPORT_GEMM_H
#include "sb_report_model.h"

void sb_rp_render_gemm(sb_rp_ctx *ctx, const sb_rp_pair *pv, int n);

#endif
