/* sb_report_peaks: "Peaks per instruction set": each side's newest `sprbench peak` point,
 * whatever its thread count; every metric either side measured or skipped
 * (with the reason it gave); a warning when all cores measured below one
 * core. */
#ifndef SB_REPORT_PEAKS_H
#define SB_REPORT_PEAKS_H
#include "sb_report_model.h"

void sb_rp_render_peaks(sb_rp_ctx *ctx, const sb_rp_pair *pv, int np);

#endif
