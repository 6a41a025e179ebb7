/* sb_report_best: the comparisons the study makes, GEMM first: each side's
 * fastest kernel per precision, shape and thread count (its own or a
 * vendor's, named) against the other's with the gate's test, and "What
 * AMX gives" on one machine (its instruction generations side by side, in
 * GEMM, training and inference). Written through a sink. */
#ifndef SB_REPORT_BEST_H
#define SB_REPORT_BEST_H
#include "sb_report_headline.h"

/* The "Best kernel per precision" GEMM section (fills best_* of out). */
void sb_report_best_kernels(const sb_headline_in *in, const sb_rsink *s, sb_headline_out *out);
/* "What AMX gives": for each side with more than one instruction generation
 * of a precision, its fastest kernel of each set against the others. */
void sb_report_generations(const sb_headline_in *in, const sb_rsink *s);

#endif
