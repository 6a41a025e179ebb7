/* sb_pair_run: what a paired A/B sweep (sb_pair_opts, below) needs
 * around its runner: its options as text (the command line's and the
 * stored plan's), its two binaries resolved once to the files that run,
 * the pairing kept with the stored plan so that a resume runs in pairs, a
 * run's result checked against the point the plan says it is, and whether
 * a full TMPDIR, not a binary, failed a run (the workers' output is kept
 * to a bounded size by sb_worker_log). */
#ifndef SB_PAIR_RUN_H
#define SB_PAIR_RUN_H
#include <jansson.h>
#include <stddef.h>
#include "sb_err.h"
#include "sb_query.h"

/* A paired A/B sweep (`sweep --pair-baseline B --pair-candidate C`): every
 * GEMM point runs the worker of binary B (the baseline) and of binary C (the
 * candidate) alternately, `reps` repetitions a run, in quads of two pairs:
 *   abba    A B B A: the first A with the first B is a pair, the second B
 *           with the second A the next (a linear drift cancels);
 *   random  A A B B in a random order per quad (seeded), paired the same;
 *   duet    both at once, each bound to its own `threads` CPUs, the CPUs
 *           swapped between the two pairs of a quad (Bulej et al.); a point
 *           whose 2 x threads exceeds this machine's cores runs abba.
 * After min_pairs pairs the point stops once the pairs decide (sb_paired:
 * PASS or FAIL at tolerance and alpha), else at max_pairs. Every sample is
 * stored with its side and pair, the point with its two binaries; the
 * point's metrics are the candidate's last run's. A failed or timed-out run
 * of either binary fails the point, naming the binary (a full TMPDIR is
 * named as such instead); the point's timeout bounds all its runs together;
 * a run's result must be the plan row's point (sb_pair_check_result). The
 * binaries are absolute paths (sb_pair_resolve), and the stored plan keeps
 * the pairing (sb_pair_render), so that a resume runs in pairs too. */
typedef enum { SB_PAIR_ABBA = 0, SB_PAIR_RANDOM = 1, SB_PAIR_DUET = 2 } sb_pair_mode;
typedef struct sb_pair_opts {
    const char *baseline, *candidate; /* NULL: an ordinary sweep */
    sb_pair_mode mode;
    int min_pairs, max_pairs;
    int reps;
    double tolerance, alpha;
    unsigned seed;
} sb_pair_opts;
#define SB_PAIR_OPTS_INIT                                                                       \
    {                                                                                           \
        .min_pairs = 8, .max_pairs = 24, .reps = 3, .tolerance = 0.05, .alpha = 0.01, .seed = 1 \
    }
const char *sb_pair_mode_name(sb_pair_mode m);

/* One pairing option by its name without "--" (pair-mode, pairs,
 * pair-reps, pair-tolerance, pair-seed); `where` names it in messages
 * ("--pairs", "stored plan"). SB_EUSAGE when the value is wrong. */
int sb_pair_set(sb_pair_opts *po, const char *key, const char *value, const char *where, sb_err *e);

/* The file a --pair-baseline / --pair-candidate names, once: a name with a
 * '/' as it is, a bare name searched on PATH as exec would; the absolute
 * path of that regular executable file (symbolic links resolved) into out.
 * SB_EUSAGE naming `which` when there is none. */
int sb_pair_resolve(const char *which, const char *bin, char *out, size_t cap, sb_err *e);

/* The pairing's lines for the stored plan ("pair-baseline = /abs/path" ...,
 * each binary's content digest beside it), malloc'd; appended to the plan's
 * own text when a paired sweep is stored. */
char *sb_pair_render(const sb_pair_opts *po);
/* A file's content digest (FNV-1a, 64 bits) as 16 hex digits; -1 when it
 * cannot be read. A wrapper script's digest is its own text's. */
int sb_pair_digest(const char *path, char out[17]);

/* A stored plan's pairing: its options, its binaries (po.baseline and
 * po.candidate point at base and cand) and their digests ("" where the plan
 * keeps none). */
typedef struct sb_pair_stored {
    sb_pair_opts po;
    char base[4096], cand[4096];
    char digest[2][17];
} sb_pair_stored;
/* The pairing's lines taken out of text (what remains is the plan
 * sb_plan_parse reads) into ps (ps->po holding the defaults beforehand);
 * *found 0 when the plan holds none. SB_EUSAGE for a pairing that does not
 * parse or lacks a binary. */
int sb_pair_take(char *text, sb_pair_stored *ps, int *found, sb_err *e);
/* Whether a stored binary (side 0 baseline, 1 candidate) is still the file
 * the sweep ran: an executable file, its content the digest stored. 0 when
 * it is, else -1 and why ("is no longer an executable file", "changed
 * since the sweep began ..."). */
int sb_pair_still(const sb_pair_stored *ps, int side, char *why, size_t cap);

/* A run's result document (status ok) against its point: the identity it
 * states (workload, kernel, dtype, threads, m, n, k, trans; not ppn and nodes,
 * which a GEMM worker writes as 1 under any launch) must be the plan row's,
 * and is then set from the row; every sample a number
 * of seconds in [1e-9, 1e9]; every numeric metric finite, a rate (gflops)
 * in (0, 1e7] and a time (median_s, min_s, p90_s) in [1e-9, 1e9]. 0 when
 * it holds, else -1 and why (one line). */
int sb_pair_check_result(json_t *doc, const sb_todo_point *row, char *why, size_t cap);

/* Whether dir's file system is (about) full: under 1 MiB or no inode left
 * for an unprivileged writer. */
int sb_pair_dir_full(const char *dir);

#endif
