/* sb_db_sweep: a sweep's rows in the store (sb_db): the sweep itself, who
 * is running it (the caller's holder: the store keeps its token and asks
 * its callbacks whether a stored holder lives), and its points as they are
 * added and their status set. */
#ifndef SB_SB_DB_SWEEP_H
#define SB_SB_DB_SWEEP_H
#include <stddef.h>
#include <stdint.h>
#include "sb_db.h"
#include "sb_err.h"

/* Creates a sweep (status running). Label and plan are refused, not cut,
 * when they break the text rules (SB_EUSAGE). */
int sb_db_sweep_create(sb_db *db, const char *label, const char *workload, const char *plan,
                       int64_t machine_id, int64_t *id, sb_err *e);
int sb_db_sweep_finish(sb_db *db, int64_t id, const char *status, sb_err *e);
/* Marks a sweep that is resumed as running again (no finish time), in the
 * caller's transaction or one of its own. No such sweep: SB_EUSAGE. */
int sb_db_sweep_reopen(sb_db *db, int64_t id, sb_err *e);

/* ---- who is running a sweep ---- */

/* Who holds a sweep, as the caller describes itself (harness/run/sb_holder
 * describes this process): the store keeps pid, host and token, knows a
 * claim as the caller's own by all three, and asks alive and runs_alive
 * about a stored holder of the caller's host; it never reads the token. */
typedef struct sb_db_holder {
    long pid;
    char host[256];
    char token[128];
    /* whether the holder stored as (pid, token) on this host still runs */
    int (*alive)(long pid, const char *token);
    /* whether processes of that holder's run group (the stored value) live */
    int (*runs_alive)(long group, const char *token);
} sb_db_holder;

/* Claims the sweep for me (pid, host name and token, since when), in a
 * transaction of its own or in the caller's. A claim by a live process is
 * SB_EUSAGE naming the holder; a claim by a process of this host that is
 * gone (not alive: a dead pid, a pid reused by another process, an earlier
 * boot) is taken over; a claim from another host is SB_EUSAGE too (it
 * cannot be checked from here: `sprbench db unlock` clears it), and so is
 * a claim whose holder is gone while processes of its runs still live
 * (sb_db_sweep_set_group) after a wait of up to 5 s for them (a guard's
 * grace is 3 s). No such sweep: SB_EUSAGE. */
int sb_db_sweep_claim(sb_db *db, int64_t sweep_id, const sb_db_holder *me, sb_err *e);
/* Drops me's claim (another's is left alone). */
int sb_db_sweep_release(sb_db *db, int64_t sweep_id, const sb_db_holder *me, sb_err *e);
/* Records with me's claim the process group its runs' guards join
 * (harness/run/sb_guard; 0: none). While a member of it can run, a claim
 * or an unlock of the sweep is refused (SB_EUSAGE) even when the holder is
 * gone: something of its runs is still being stopped. */
int sb_db_sweep_set_group(sb_db *db, int64_t sweep_id, const sb_db_holder *me, int group,
                          sb_err *e);
/* Drops any claim but that of a live process of me's host or of one whose
 * runs still have processes here after the claim's wait (SB_EUSAGE naming
 * it: that sweep still runs, or is still being stopped); *was (cap bytes,
 * may be NULL) describes the holder it dropped ("" when there was none). */
int sb_db_sweep_unlock(sb_db *db, int64_t sweep_id, const sb_db_holder *me, char *was, size_t cap,
                       sb_err *e);

typedef struct sb_point_desc {
    int seq;                            /* order within the sweep */
    const char *workload;               /* "gemm", "train", "infer", "peak", "allreduce" */
    const char *kernel, *dtype, *shape; /* shape: "MxNxK[:TRANS]" or a model config key */
    const char *config;                 /* JSON text of the workload-specific options */
    int threads, ppn, nodes;
    const char *command; /* exact command line that runs the point */
} sb_point_desc;

/* Adds a pending point. */
int sb_db_point_add(sb_db *db, int64_t sweep_id, const sb_point_desc *p, int64_t machine_id,
                    int64_t *id, sb_err *e);
/* Records the exact command of a point (machine text: repaired and cut). */
int sb_db_point_set_command(sb_db *db, int64_t id, const char *command, sb_err *e);
/* Sets a point's status (one of the known ones, else SB_EUSAGE) and reason
 * (machine text: repaired and cut to SB_DB_MAX_REASON characters). */
int sb_db_point_set_status(sb_db *db, int64_t id, const char *status, const char *reason,
                           sb_err *e);
/* The id of the newest sweep, or 0 when there is none. */
int64_t sb_db_latest_sweep(sb_db *db);

#endif
