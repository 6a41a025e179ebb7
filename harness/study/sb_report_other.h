/* sb_report_other: "Other workloads, by their headline metric": a workload with no
 * section of its own, one row per point pair. */
#ifndef SB_REPORT_OTHER_H
#define SB_REPORT_OTHER_H
#include "sb_report_model.h"

void sb_rp_render_other(sb_rp_ctx *ctx, const sb_rp_pair *pv, int n);

#endif
