/* sb_tune: searches one project kernel's blocking (sb_blocking) for one
 * shape on this machine. Bounded: a coarse grid over the k and m blocks,
 * then the loop order with the A prefetch, then the n block with the
 * threads' split, then a local refinement of k and m around the best, each
 * stage within its share of the time budget. Every candidate is first run
 * once and checked against the scalar reference on a spread of rows, with
 * small-integer inputs as `sprbench gemm` checks (exact in f32, bf16 and
 * int8); a wrong one is dropped. Within a stage the candidates run in
 * interleaved rounds (each once per round, the order rotating) and are
 * ranked by their median. The built-in blocking is in every stage. At the
 * end the winner and the default run again in interleaved pairs: the winner
 * is kept only when its median is at least min_gain faster and it wins at
 * least two rounds in three, else the default is (kept_default). */
#ifndef SB_TUNE_H
#define SB_TUNE_H
#include "sb_err.h"
#include "sb_kernel.h"

typedef struct sb_tune_config {
    const char *kernel;
    char transa, transb;
    int m, n, k;
    int threads;     /* OpenMP threads of every call (>= 1) */
    double seconds;  /* the time budget of this kernel and shape */
    double min_gain; /* relative gain the winner must show (0: 0.02) */
    /* called with one line per stage (may be NULL) */
    void (*note)(void *ctx, const char *line);
    void *note_ctx;
} sb_tune_config;

typedef struct sb_tune_result {
    const char *status; /* "ok", "skipped" (kernel cannot run here), "failed" */
    char reason[256];
    sb_blocking best;        /* what to store: resolved sizes, or all zero (kept default) */
    sb_blocking best_run;    /* the winner as the driver ran it (resolved) */
    sb_blocking default_run; /* the built-in blocking as the driver ran it */
    double default_gflops;   /* medians of the final interleaved rounds */
    double tuned_gflops;     /* the kept one's (the default's when kept_default) */
    double winner_gflops;    /* the search's winner's, kept or not */
    int kept_default;
    int candidates, rejected; /* measured; dropped as wrong */
    int rounds;               /* final interleaved rounds */
} sb_tune_result;

/* SB_OK with a result (status says how it went); SB_EUSAGE for an unknown
 * kernel, one that does not run through the driver (scalar-f32, oneDNN) or
 * bad sizes. */
int sb_tune_run(const sb_tune_config *c, sb_tune_result *r, sb_err *e);

#endif
