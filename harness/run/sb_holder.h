/* sb_holder: this process as the holder of a sweep (sb_db_holder), and the
 * liveness the store asks about a stored holder of this host: a pid named
 * by /proc's boot id and start time, and a run group that still has one of
 * the sweep's guards (bench/sb_proc). The store keeps the token it is given
 * and compares it; only this module reads it.
 *
 *   sb_db_holder me;
 *   sb_holder_self(&me);
 *   sb_db_sweep_claim(db, sweep, &me, &e);
 */
#ifndef SB_HOLDER_H
#define SB_HOLDER_H
#include "sb_db_sweep.h"

/* Fills h for the calling process: its pid, this host's name (repaired,
 * 200 characters at most) and its token, "BOOT_ID:START_TICKS" ("" when
 * /proc does not say), with this module's liveness checks. Call it again
 * after a fork. */
void sb_holder_self(sb_db_holder *h);

#endif
