/* sb_tune_file: the tuned blocking of one machine, as `sprbench tune` finds
 * it and the workers (gemm, train, infer) use it. One JSON file per machine
 * fingerprint beside the results database: <dir of the db>/tune-<fp>.json.
 * A file rather than a store table: the workers read it and bench/ has no
 * SQLite (a worker never opens the database, the sweep ingests what it
 * writes); a file per fingerprint also keeps machines apart when a results
 * directory is shared or copied, and reads without a migration.
 *
 *   {"sprbench_tune": 1, "fingerprint": "16 hex", "cpu": "...",
 *    "entries": [{"kernel": "avx512-f32", "class": "NN-mmm",
 *                 "blocking": "kc=..,mc=..,...", "shape": "NN 1024x1024x1024",
 *                 "threads": 2, "default_gflops": .., "tuned_gflops": ..,
 *                 "kept_default": false, "tuned_at": "2026-12-03T06:00:00Z"}]}
 *
 * One entry per kernel and shape class (sb_shape_class); "blocking" is the
 * sb_blocking_format text (all zero: "the built-in rule was best"). */
#ifndef SB_TUNE_FILE_H
#define SB_TUNE_FILE_H
#include <jansson.h>
#include <stddef.h>
#include "sb_err.h"
#include "sb_kernel.h"

typedef struct sb_tune_entry {
    char kernel[32];
    int cls; /* sb_shape_class */
    sb_blocking b;
    char transa, transb;
    int m, n, k; /* the shape it was tuned on */
    int threads;
    double default_gflops, tuned_gflops; /* medians of the final interleaved rounds */
    int kept_default;                    /* no candidate clearly beat the built-in rule */
    char when[32];                       /* UTC, ISO 8601 */
} sb_tune_entry;

typedef struct sb_tune_table {
    char fingerprint[17];
    char cpu[128];
    int n, cap;
    sb_tune_entry *e;
} sb_tune_table;

/* The file for this fingerprint beside db_path ("results/sprbench.db" ->
 * "results/tune-<fp>.json"). SB_EUSAGE when it does not fit. */
int sb_tune_path(const char *db_path, const char *fingerprint, char *out, size_t len, sb_err *e);

/* Reads path into *t (zeroed first). A missing file: SB_OK with *exists 0
 * and an empty table. Not JSON, not this schema, a bad entry or another
 * machine's fingerprint (expect_fp, when not NULL): SB_EUSAGE naming the
 * file and what is wrong. */
int sb_tune_load(const char *path, const char *expect_fp, sb_tune_table *t, int *exists, sb_err *e);
/* Writes t whole or not at all (sb_io). */
int sb_tune_save(const char *path, const sb_tune_table *t, sb_err *e);
/* Adds x, replacing the entry of the same kernel and class. */
int sb_tune_put(sb_tune_table *t, const sb_tune_entry *x, sb_err *e);
/* The entry for kernel and class, or NULL. */
const sb_tune_entry *sb_tune_find(const sb_tune_table *t, const char *kernel, int cls);
/* Puts every entry of kernel (NULL: of every kernel) in the driver's table
 * (sb_blocking_set). */
int sb_tune_apply(const sb_tune_table *t, const char *kernel, sb_err *e);
/* "CLASS:BLOCKING;CLASS:BLOCKING" for the entries of kernel (classes in
 * code order), "" when there are none: what a result's config records. */
void sb_tune_describe(const sb_tune_table *t, const char *kernel, char *buf, size_t len);
/* How many entries kernel has. */
int sb_tune_count(const sb_tune_table *t, const char *kernel);
void sb_tune_free(sb_tune_table *t);
/* Records in a result's config "tuning" (when not NULL) and, for a kernel
 * that runs through the driver, "blocking": t's entries for it
 * (sb_tune_describe) or "default". */
void sb_tune_config_json(json_t *config, const char *tuning, const sb_tune_table *t,
                         const sb_kernel *k);

#endif
