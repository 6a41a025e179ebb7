/* sb_gate_paired: the paired A/B mode (`gate --paired`). Owns turning each
 * configuration's pairs, judged by sb_paired, into a row and its note. */
#ifndef SB_GATE_PAIRED_H
#define SB_GATE_PAIRED_H
#include "sb_err.h"
#include "sb_gate_result.h"
#include "sb_ptset.h"

/* Each configuration's newest point of cand that was measured in pairs
 * (`sweep --pair-baseline B --pair-candidate C`) is judged on its own pairs
 * (sb_paired): PASS, FAIL, UNSURE (a WARN: neither beyond nor within the
 * tolerance after the pairs the sweep ran; measure more) or NOISY (a WARN:
 * the pair ratios form two groups, flagged, not judged). Every row's note
 * gives the pairs, the mode and the A/A spread (the noise of that run). A
 * point that failed, crashed or timed out is a FAIL naming the binary, a
 * skipped one a SKIP, an ok point without pairs a WARN. */
int sb_gate_paired(const sb_ptset *cand, const sb_gate_opts *o, sb_gate_result *r, sb_err *e);

#endif
