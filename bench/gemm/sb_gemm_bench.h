/* sb_gemm_bench: the micro-GEMM workload. Fills inputs with small integers
 * (so bf16 and int8 products sum exactly), checks the kernel against the
 * scalar-f32 reference, then warms up and times repetitions. Returns a
 * result; sb_gemm_result_json turns it into the worker's result document. */
#ifndef SB_GEMM_BENCH_H
#define SB_GEMM_BENCH_H
/* The fewest repetitions a point gets by default: enough for the gate's
 * test (6 a side) with two to spare for a repetition lost to noise. */
#define SB_GEMM_MIN_REPS 8
#include <jansson.h>
#include "sb_err.h"
#include "sb_kernel.h"

typedef struct sb_gemm_config {
    const char *kernel;
    int m, n, k;
    char transa, transb;
    int threads;
    int reps;               /* 0: enough for min_seconds, at least SB_GEMM_MIN_REPS */
    double min_seconds;     /* default 1.0 */
    double peak_gflops;     /* per-core peak of this kernel's path; 0 = unknown */
    const char *onednn_isa; /* cap for onednn-* kernels, NULL = none */
    int prepack;            /* pack B once (weights), time only the packed calls */
    const sb_blocking *blocking; /* own kernels: this blocking; NULL: the table
                                    (sb_blocking_set) or the built-in rule */
    const char *tuning;          /* recorded in the config as "tuning" (where the
                                    blocking came from: "tuned", "default", ...); NULL: not */
} sb_gemm_config;

typedef struct sb_gemm_result {
    const char *status; /* "ok", "skipped", "failed" */
    char reason[512];
    const char *dtype;
    double *samples; /* seconds, one per repetition */
    int nsamples;
    double max_rel_error, error_bound;
    int checked_rows;
    double gflops, median_s, min_s, p90_s, pct_peak;
    char impl[128];     /* implementation reported by the kernel, if any */
    char peak_path[24]; /* the instruction path it ran: the peak its pct_peak is of */
    char pct_unit[80];  /* pct_peak's unit, that path named (sb_pct_peak) */
    double pack_s;      /* with prepack: the one packing of B */
    char blocking[160]; /* own kernels: the blocking the driver ran (sb_blocking_format) */
} sb_gemm_result;

/* A point's shape as one word, "MxNxK", "MxNxK:TT" or either with
 * "+prepack" (the sweep's shape strings): sets m, n, k, transa/transb (NN
 * when not given) and prepack (when given) of cfg. SB_EUSAGE saying why. */
int sb_gemm_shape_parse(const char *s, sb_gemm_config *cfg, sb_err *e);

/* Runs the point. Returns SB_OK when a result was produced (whatever its
 * status); SB_EUSAGE for a bad configuration (unknown kernel, bad sizes). */
int sb_gemm_bench_run(const sb_gemm_config *cfg, sb_gemm_result *res, sb_err *e);
void sb_gemm_result_free(sb_gemm_result *res);
/* The result document (sb_result: head, config with m/n/k and trans,
 * samples, metrics, units), for the caller to seal. */
json_t *sb_gemm_result_json(const sb_gemm_config *cfg, const sb_gemm_result *res);

#endif
