/* sb_result: the result document, one writer for every worker (gemm, peak,
 * train, predict, allreduce, model). A worker fills the head (what ran, on
 * how many threads and ranks, with which status), adds its own config,
 * samples, metrics and units, then seals the document (the direction of
 * each metric, "better", comes from the metric table, sb_metric): the command that
 * repeats it, the environment that changes results, the machine's
 * fingerprint and the software stack it ran on ("stack", sb_stack). The sweep ingests what this writes (harness/store), so every
 * document has the same keys in the same order.
 *
 *   json_t *doc = sb_result_new(&(sb_result_head){"gemm", "avx2-f32", "f32", 2, 1, 1, 1,
 *                                                 "ok", ""});
 *   json_object_set_new(doc, "config", ...); ... samples, metrics, units ...
 *   sb_result_seal(doc, argc, argv, env_set, fingerprint);
 *   sb_result_write(path, doc, &e);
 */
#ifndef SB_RESULT_H
#define SB_RESULT_H
#include <jansson.h>
#include "sb_err.h"

typedef struct sb_result_head {
    const char *workload; /* "gemm", "peak", "train", "allreduce" */
    const char *kernel;   /* NULL: none (peak) */
    const char *dtype;    /* NULL: none (peak) */
    int threads, ranks, ppn, nodes;
    const char *status; /* "ok", "skipped", "failed" */
    const char *reason; /* NULL: "" */
} sb_result_head;

/* A new document: the head's fields, then an empty config, samples, metrics,
 * units and better for the worker to fill. NULL when out of memory. */
json_t *sb_result_new(const sb_result_head *h);
/* A vendor kernel's library as the result records it ("library": name,
 * loaded, version, origin, runtime, or the reason it is not loaded); NULL
 * for the project's own kernels (and NULL kernel). */
json_t *sb_result_library(const char *kernel);

/* Fills doc's "better" (beside "units"): for each metric in "metrics",
 * "higher" or "lower" (is better), from the metric table (sb_metric) or, for
 * a metric it does not know, from its unit. sb_result_seal and
 * sb_result_write call it, so a worker never states a direction itself. */
void sb_result_better(json_t *doc);

/* Seals a document (its "better" filled, sb_result_better). repro: "sprbench" followed by argv[0..argc) (the
 * worker's command as it ran, or the canonical command a worker builds from
 * its config), shell-quoted by sb_argv_render. env_set: "NAME=value" the run
 * put in force itself (NULL-terminated, or NULL), recorded over the process
 * environment (sb_env_json_effective). fingerprint: the machine's (NULL:
 * none recorded). */
void sb_result_seal(json_t *doc, int argc, char *const argv[], const char *const *env_set,
                    const char *fingerprint);

/* A worker's document (train, infer) sealed in one call: sb_result_new(h),
 * its config (the reference is taken; NULL: {}), then sb_result_seal with
 * argv and OMP_NUM_THREADS=h->threads in force. The worker adds samples,
 * metrics, units and projected after. NULL when out of memory. */
json_t *sb_result_worker(const sb_result_head *h, json_t *config, int argc, char *const argv[],
                         const char *fingerprint);
/* A skipped or failed run as its result file: sb_result_worker's document
 * written to path (nothing when path is NULL; config is taken either way),
 * status and reason from h. */
int sb_result_worker_status(const char *path, const sb_result_head *h, json_t *config, int argc,
                            char *const argv[], const char *fingerprint, sb_err *e);

/* metrics[name] = value and units[name] = unit. */
void sb_result_metric(json_t *metrics, json_t *units, const char *name, double value,
                      const char *unit);

/* This process's peak resident memory so far, MiB (the peak_rss_mb metric). */
double sb_result_peak_rss_mb(void);

/* Writes the document atomically (nothing half-written; see sb_out), its
 * "better" filled first (sb_result_better). */
int sb_result_write(const char *path, json_t *doc, sb_err *e);

/* The environment that changes results, as every result document records
 * it: the variables of sb_env_scope() (OMP_*, KMP_*, GOMP_*, ONEDNN_*,
 * DNNL_*, OPENBLAS_*, MKL_*, SB_*, MALLOC_*, LD_PRELOAD, GLIBC_TUNABLES)
 * present in this process's environment, name -> value (a JSON string),
 * sorted by name. Bounded: at most SB_ENV_VARS_MAX variables, each value
 * cut after SB_ENV_VALUE_MAX bytes with "..." appended; invalid UTF-8 shows
 * as '?'. */
#define SB_ENV_VARS_MAX 256
#define SB_ENV_VALUE_MAX 4096
json_t *sb_env_json(void);
/* The same, with the values a run puts in force itself ("NAME=value",
 * NULL-terminated; NULL for none) in place of the environment's: the thread
 * count it sets (OMP_NUM_THREADS), an ISA cap from a flag
 * (ONEDNN_MAX_CPU_ISA). What is recorded is what the run ran with. */
json_t *sb_env_json_effective(const char *const *set);
/* Whether a variable name is in that scope. */
int sb_env_recorded(const char *name);
/* The scope in words, stored beside the variables as "env_scope": a reader
 * knows a variable absent from "env" was unset (not unrecorded). */
const char *sb_env_scope(void);
/* Sets doc's "env" (env, or sb_env_json() when NULL; the reference is
 * taken) and "env_scope". */
void sb_env_record(json_t *doc, json_t *env);

/* What a worker records about the Slurm step it runs in (sb_env_record adds
 * it as "slurm_step"), from its environment: {"job_id", "step_id",
 * "step_nodelist", "node"} (only those set, and only valid UTF-8); NULL when
 * it runs outside Slurm. */
json_t *sb_result_slurm_step(void);

#endif
