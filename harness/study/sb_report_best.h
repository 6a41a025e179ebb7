/* sb_report_best: the comparisons the study makes, GEMM first: each side's
 * fastest kernel per precision, shape and thread count (its own or a
 * vendor's, named) against the other's with the gate's test, each side's
 * own kernels against the faster vendor (sb_vendor_cmp); "What AMX
 * gives" is sb_report_amx's. Written through a sink. */
#ifndef SB_REPORT_BEST_H
#define SB_REPORT_BEST_H
#include "sb_report_headline.h"

/* The "Best kernel per precision" GEMM section (fills best_* of out). */
void sb_report_best_kernels(const sb_headline_in *in, const sb_rsink *s, sb_headline_out *out);
/* "Own kernels against the faster vendor": for each side (once when both
 * are one machine), at each GEMM precision, shape and thread count where a
 * vendor kernel was tried, its fastest own kernel against the faster vendor
 * there (sb_vendor_cmp: oneDNN or MKL, by median), named, own/vendor with
 * the gate's test, the other vendor beside it, or which did not run. */
void sb_report_vendors(const sb_headline_in *in, const sb_rsink *s);

#endif
