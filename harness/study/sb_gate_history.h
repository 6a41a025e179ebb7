/* sb_gate_history: where a FAIL started (`gate --history`). Owns walking
 * the candidate point's history back to the last sweep whose point passes
 * against the same baseline point. */
#ifndef SB_GATE_HISTORY_H
#define SB_GATE_HISTORY_H
#include <stdint.h>
#include "sb_db.h"
#include "sb_err.h"
#include "sb_gate_result.h"
#include "sb_ptset.h"

/* The newest sweep before the candidate's, on the candidate point's
 * machine, whose point of the same key passes (every metric PASS) against
 * the same baseline point under the same options. *found = 0 when none
 * did; else its sweep id, tool version and start, and (next_*) the sweep
 * after it, the first that did not pass. */
typedef struct sb_gate_last_pass {
    int found;
    int64_t sweep_id, next_sweep_id;
    char version[128], started[32], next_version[128], next_started[32];
    int checked; /* earlier sweeps looked at */
} sb_gate_last_pass;
int sb_gate_find_last_pass(sb_db *db, const sb_ptset *base, const sb_ptset *cand,
                           const sb_gate_row *row, const sb_gate_opts *o, sb_gate_last_pass *lp,
                           sb_err *e);

#endif
