/* sb_report_infer: "Inference": sequences/s per kernel, configuration and threads, and
 * latency per question at batch 1 (p50, p99) with the gate's test run on
 * the questions' latencies; charts of both; then "Inference accuracy": EM
 * and F1 per kernel and configuration, and the share of answers identical
 * to the f32 path's. */
#ifndef SB_REPORT_INFER_H
#define SB_REPORT_INFER_H
#include "sb_report_model.h"

void sb_rp_render_infer(sb_rp_ctx *ctx, const sb_rp_pair *pv, int n);

#endif
