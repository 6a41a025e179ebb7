/* sb_gate_refs: gating against absolute references (`gate --references`).
 * Owns the ReFrame-style references file (parsing it, refusing a bad or a
 * repeated line) and the rows of a candidate against it. */
#ifndef SB_GATE_REFS_H
#define SB_GATE_REFS_H
#include "sb_err.h"
#include "sb_gate_result.h"
#include "sb_ptset.h"

/* ReFrame-style absolute references, one per line:
 *   MACHINE WORKLOAD KERNEL SHAPE THREADS[:RANKS] METRIC VALUE LOWER UPPER [UNIT]
 * MACHINE is a fingerprint (or a prefix of >= 4 digits) or '*'; SHAPE and
 * THREADS may be '*'; LOWER/UPPER are "-5%", "+10%", fractions ("-0.05") or
 * "null" (unbounded); '#' starts a comment. Bad lines are SB_EUSAGE naming
 * FILE:LINE. */
typedef struct sb_reference {
    char machine[80], workload[64], kernel[128], shape[128], metric[64], unit[64];
    int threads, ranks;         /* -1 = any */
    double value, lower, upper; /* bounds as fractions; NAN = unbounded */
    int line;
} sb_reference;
int sb_gate_parse_references(const char *text, const char *name, sb_reference **refs, int *n,
                             sb_err *e);
int sb_gate_references(const sb_reference *refs, int nrefs, const sb_ptset *cand,
                       const sb_gate_opts *o, sb_gate_result *r, sb_err *e);

#endif
