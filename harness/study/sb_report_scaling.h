/* sb_report_scaling: "Scaling": per family of configurations, each side's rate per rank
 * count with its speedup and efficiency against the fewest ranks it ran,
 * a chart with each side's ideal; and "Projected figures": every computed
 * (not measured) figure of either side, with the provenance notes (P1,
 * P2, ...) the tables above numbered. */
#ifndef SB_REPORT_SCALING_H
#define SB_REPORT_SCALING_H
#include "sb_report_model.h"

void sb_rp_render_scaling(sb_rp_ctx *ctx, const sb_rp_pair *pv, int n);
void sb_rp_render_projected(sb_rp_ctx *ctx, const sb_rp_pair *pv, int np);

#endif
