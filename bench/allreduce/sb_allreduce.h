/* sb_allreduce: the OSU-style MPI_Allreduce benchmark (float, MPI_SUM) behind
 * `sprbench allreduce`: message-size lists, the timed loop (barrier, warm-up
 * skipped, MPI_Wtime per call, min/avg/max of the per-rank averages) and the
 * bus bandwidth 2(n-1)/n * bytes / time ("grad" names the size of
 * DistilBERT's gradient, sb_scaling's sb_distilbert_grad_bytes). MPI must be
 * initialised by the caller. */
#ifndef SB_ALLREDUCE_H
#define SB_ALLREDUCE_H
#include <stddef.h>
#include "sb_err.h"

/* Parses "4..512M" (powers of two from 4 B to 512 MiB), "1K,64K,265457672",
 * "grad" (the gradient size) or a mix separated by commas. K/M/G are binary.
 * Each size is rounded up to a whole number of floats; the list is sorted and
 * deduplicated. *sizes is malloc'd. */
int sb_allreduce_parse_sizes(const char *spec, size_t **sizes, int *n, sb_err *e);

typedef struct sb_allreduce_row {
    size_t bytes;
    int iters;                                 /* timed iterations */
    double lat_min_us, lat_avg_us, lat_max_us; /* of the per-rank average latency */
    double algbw_gbs;                          /* bytes / avg latency, GB/s (1e9) */
    double busbw_gbs;                          /* algbw x 2(n-1)/n */
} sb_allreduce_row;

typedef struct sb_allreduce_config {
    const size_t *sizes;
    int nsizes;
    int iters;  /* timed iterations for messages up to 1 MiB */
    int warmup; /* skipped iterations (same scaling) */
    /* Larger messages run max(2, iters * 1 MiB / bytes) timed and
     * max(1, warmup * 1 MiB / bytes) warm-up iterations, as OSU does with its
     * large-message counts, so 512 MiB does not take minutes. */
    size_t grad_bytes; /* rank 0 keeps per-iteration samples for this size */
} sb_allreduce_config;

/* Runs every size on MPI_COMM_WORLD; rows[nsizes] filled on every rank.
 * *samples (rank 0, malloc'd, may be NULL) receives the per-iteration seconds
 * of the size equal to grad_bytes (or of the largest size). */
int sb_allreduce_run(const sb_allreduce_config *cfg, sb_allreduce_row *rows, double **samples,
                     int *nsamples, sb_err *e);

#endif
