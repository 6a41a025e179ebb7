/* sb_report_train: "Training": each side's best epoch time on its own data set, then
 * tokens/s and epoch time per kernel, configuration and threads, the
 * tokens/s ratio with the gate's word; a throughput chart. */
#ifndef SB_REPORT_TRAIN_H
#define SB_REPORT_TRAIN_H
#include "sb_report_model.h"

void sb_rp_render_train(sb_rp_ctx *ctx, const sb_rp_pair *pv, int n);

#endif
