/* sb_report_headline: what a reader of a two-machine report came for: each
 * side's DistilBERT fine-tuning epoch at its best kernel per precision
 * (and overall), projected onto SQuAD v1.1's train split as run_qa.py
 * makes it (88,524 features at seq 384 / stride 128) from the measured
 * step times, with the projection's inputs, the ratio with its interval or
 * "too few samples", and every difference between the two runs named
 * (batch, seq, stride, threads, ranks, data set, precision, tool version,
 * a noisy host); inference at each side's fastest kernel per precision;
 * beside the study's published figures (other hardware, labelled so).
 * The comparisons the study makes next are sb_report_best's (best kernel
 * per precision, what AMX gives) and sb_report_profile's (where the time
 * goes); the training runs all of them read, sb_report_trun's. They read
 * point sets and the report's model (sb_report_model: what was loaded of
 * the store before drawing), and write through a sink (sb_rsink,
 * sb_report_out): the report owns the page's layout. */
#ifndef SB_REPORT_HEADLINE_H
#define SB_REPORT_HEADLINE_H
#include <stddef.h>
#include "sb_gate.h"
#include "sb_ptset.h"
#include "sb_report_model.h"
#include "sb_report_out.h"

typedef struct sb_headline_out {
    char line[2048];   /* the CLI's closing line; "" when no side trained */
    double ratio;      /* baseline/candidate SQuAD epoch at each side's best kernel; 0 none */
    int best_rows;     /* rows of the best-kernel-per-precision GEMM table */
    double best_gmean; /* geometric mean of their speed ratios (candidate vs baseline); 0 none */
    int best_n;
} sb_headline_out;

/* The "Headline" section. */
void sb_report_headline(const sb_headline_in *in, const sb_rsink *s, sb_headline_out *out);

#endif
