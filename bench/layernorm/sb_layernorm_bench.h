/* sb_layernorm_bench: the trainer's own LayerNorm (bench/distilbert's
 * sb_layernorm_forward, at the AVX-512, AVX2 or scalar level it runs at)
 * over batch x seq rows of dim floats, as DistilBERT normalises each
 * token's hidden vector; each repetition timed alone after one warm-up.
 *
 * It is the worked example of a workload with a list axis (batch) and
 * metrics of its own (docs/ARCHITECTURE.md, "Adding a workload"): its
 * headline is nanoseconds a row, where lower is better, declared with its
 * other metrics beside its row (bench/layernorm/sb_layernorm_row.c). */
#ifndef SB_LAYERNORM_BENCH_H
#define SB_LAYERNORM_BENCH_H
#include <jansson.h>
#include "sb_err.h"

/* At most 2^24 rows and 2^28 floats an array (1 GiB; x and y are two). */
#define SB_LAYERNORM_MAX_ROWS (1L << 24)
#define SB_LAYERNORM_MAX_FLOATS (1L << 28)
/* The worker's defaults (what a sweep's point leaves unsaid). */
#define SB_LAYERNORM_DEFAULT_BATCH 8
#define SB_LAYERNORM_DEFAULT_SEQ 384
#define SB_LAYERNORM_DEFAULT_DIM 768

/* batch x seq rows of dim floats within the limits above: SB_EUSAGE saying
 * which is over, the options named with `dash` before them ("--" for the
 * command's flags, "" for a plan's keys). */
int sb_layernorm_check_size(long batch, long seq, long dim, const char *dash, sb_err *e);
/* A sweep plan's options (sb_workload.check: keys[i] = values[i], batch the
 * largest), the worker's defaults for those not given: its size limits,
 * before any point runs. */
int sb_layernorm_plan_check(const char *const *keys, const char *const *values, int n, sb_err *e);

typedef struct sb_layernorm_config {
    int batch, seq, dim; /* batch x seq rows of dim floats */
    int iters;           /* timed repetitions, after one warm-up */
    int threads;
} sb_layernorm_config;

typedef struct sb_layernorm_result {
    const char *status; /* "ok", "failed" */
    char reason[256];
    double *samples; /* seconds a repetition, iters of them */
    int nsamples;
    double ns_per_row, gbps; /* at the median repetition */
    double max_abs_error;    /* against the same rows in double precision */
} sb_layernorm_result;

/* SB_OK with a result (status failed when the output is wrong); SB_EUSAGE
 * past the limits above; SB_EFAIL when the buffers cannot be allocated. */
int sb_layernorm_bench_run(const sb_layernorm_config *c, sb_layernorm_result *r, sb_err *e);
void sb_layernorm_result_free(sb_layernorm_result *r);
/* The result document (config, samples, metrics) for the caller to seal. */
json_t *sb_layernorm_result_json(const sb_layernorm_config *c, const sb_layernorm_result *r);

#endif
