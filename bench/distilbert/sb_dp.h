/* sb_dp: the data-parallel engine of the trainer. It owns MPI for a training
 * run (initialising it when nobody has, so `sprbench train` works as a single
 * rank without mpirun), the broadcast of the initial weights, the bucketed
 * gradient all-reduce over the flat gradient buffer with communication threads
 * (the counterpart of CCL_WORKER_COUNT), per-rank timing gathers, and the
 * DistributedSampler shard of the features for each rank.
 *
 * One training step:
 *   sb_dp_step_begin(dp);                       // before forward
 *   ... backward, in reverse layer order; whenever a range of the gradient
 *       buffer is final:  sb_dp_grad_ready(dp, offset, count);
 *   sb_dp_wait_all(dp, &timing);                // gradients now averaged
 *   ... clip + optimizer, identical on every rank
 *
 * Overlap: a bucket whose every element has been reported ready is handed to
 * communication thread (bucket index % comm_threads), which runs MPI_Allreduce
 * on its own duplicate of the world communicator while backward continues.
 * Buckets are fixed per run and each thread sees its buckets in completion
 * order, which is the same on every rank, so the collectives match. Without
 * overlap (or when MPI gives less than MPI_THREAD_SERIALIZED) the same buckets
 * are all-reduced in the same order inside sb_dp_wait_all, so both modes give
 * bitwise-identical results. Averaging divides by the world size.
 */
#ifndef SB_DP_H
#define SB_DP_H
#include <stddef.h>
#include <stdint.h>
#include "sb_err.h"

typedef struct sb_dp sb_dp;

typedef struct sb_dp_config {
    int comm_threads;        /* >= 1 threads progressing all-reduces; 0 = no threads */
    int overlap;             /* 1: start buckets during backward; 0: all after backward */
    size_t bucket_bytes;     /* default bucket size for sb_dp_set_grad (0: 25 MB) */
    const char *comm_cpuset; /* hwloc list the comm threads bind to (sb_bind's
                                report.comm_cpuset); NULL/"" = inherit */
} sb_dp_config;

#define SB_DP_CONFIG_INIT                                  \
    {                                                      \
        .comm_threads = 1, .overlap = 1, .bucket_bytes = 0 \
    }

/* Per-step timing (seconds) returned by sb_dp_wait_all. */
typedef struct sb_dp_timing {
    double compute_s; /* step_begin -> wait_all entry (forward + backward) */
    double wait_s;    /* blocked in wait_all: communication not hidden */
    double comm_s;    /* sum of all-reduce durations (busy time of the comm threads) */
    double step_s;    /* step_begin -> wait_all return */
    int buckets;
    int late_buckets;   /* buckets never reported ready, reduced in wait_all */
    double bytes;       /* all-reduced this step (sparse bucket: packed rows + bitmap) */
    double sparse_rows; /* rows of the sparse bucket all-reduced this step */
} sb_dp_timing;

/* Initialises MPI if needed (MPI_THREAD_MULTIPLE requested) and the engine.
 * Communication threads start with the first sb_dp_set_buckets/set_grad, so
 * the order in a trainer is:
 *   sb_dp_init -> sb_bind_apply(mode, sb_dp_local_rank, sb_dp_local_size, ...)
 *   -> sb_dp_set_comm_cpuset(dp, report.comm_cpuset) -> sb_dp_set_grad ... */
int sb_dp_init(sb_dp **dp, const sb_dp_config *cfg, sb_err *e);
/* Cores (hwloc list) the comm threads bind to; before the buckets only. */
int sb_dp_set_comm_cpuset(sb_dp *dp, const char *cpuset, sb_err *e);
/* Joins threads, frees communicators, finalises MPI if sb_dp_init started it. */
void sb_dp_free(sb_dp *dp);

int sb_dp_rank(const sb_dp *dp);
int sb_dp_world(const sb_dp *dp);
int sb_dp_local_rank(const sb_dp *dp); /* rank among the ranks on this node */
int sb_dp_local_size(const sb_dp *dp);
int sb_dp_nodes(const sb_dp *dp); /* distinct nodes in the job */
const char *sb_dp_hostname(const sb_dp *dp);
/* "multiple", "serialized", "funneled", "single" and whether threads are in use. */
const char *sb_dp_thread_level(const sb_dp *dp);
int sb_dp_overlap_active(const sb_dp *dp);

/* Rank 0's buffer to all ranks (chunked, so any count works). */
int sb_dp_bcast_floats(sb_dp *dp, float *buf, size_t count, sb_err *e);

/* Declares the gradient buffer and its buckets. Buckets are the contiguous
 * ranges [bounds[i], bounds[i+1]) for i < nbuckets (bounds has nbuckets+1
 * entries, bounds[0] = 0, bounds[nbuckets] = count, increasing). */
int sb_dp_set_buckets(sb_dp *dp, float *grad, size_t count, const size_t *bounds, int nbuckets,
                      sb_err *e);
/* Same with equal buckets of about cfg.bucket_bytes, cut at tensor boundaries
 * when `tensor_ends` (ascending end offsets, ntensors of them) is given. */
int sb_dp_set_grad(sb_dp *dp, float *grad, size_t count, const size_t *tensor_ends, int ntensors,
                   sb_err *e);
int sb_dp_nbuckets(const sb_dp *dp);

/* Makes grad[offset, offset + count) a bucket of its own (after the buckets
 * are declared): e.g. what becomes final last, kept apart from what could
 * travel earlier. */
int sb_dp_isolate(sb_dp *dp, size_t offset, size_t count, sb_err *e);
/* Declares grad[offset, offset + rows x row_len) row-sparse (the word
 * embeddings: only the rows of the tokens in a batch get a gradient). After
 * the buckets; the range becomes a bucket of its own. Each step, before its
 * backward, sb_dp_sparse_rows names the rows this rank's batch touches; the
 * bucket then all-reduces the OR of the ranks' row bitmaps and only the rows
 * in that union, packed. Every other row must be zero on every rank; the
 * result equals the dense all-reduce. */
int sb_dp_set_sparse_rows(sb_dp *dp, size_t offset, size_t rows, size_t row_len, sb_err *e);
int sb_dp_sparse_rows(sb_dp *dp, const int32_t *rows, size_t n, sb_err *e);

void sb_dp_step_begin(sb_dp *dp);
/* Marks grad[offset, offset+count) final for this step. Call from one thread
 * (outside OpenMP parallel regions); ranges may span buckets. A bucket is
 * started when the elements reported in it add up to its size, so each
 * element must be reported once per step; reporting more than a bucket holds
 * is caught (SB_EUSAGE). */
int sb_dp_grad_ready(sb_dp *dp, size_t offset, size_t count, sb_err *e);
/* Finishes every bucket, divides by the world size, fills t (may be NULL). */
int sb_dp_wait_all(sb_dp *dp, sb_dp_timing *t, sb_err *e);

/* Small collectives for the trainer's bookkeeping. */
/* Rank 0 receives world*n values (rank-major) into all; others may pass NULL. */
int sb_dp_gather_doubles(sb_dp *dp, const double *mine, int n, double *all, sb_err *e);
/* Rank 0 receives every rank's string (e.g. its binding, its host name) as a
 * NULL-terminated array of world malloc'd strings in *all; other ranks get
 * NULL. Free with sb_dp_strings_free. */
int sb_dp_gather_string(sb_dp *dp, const char *mine, char ***all, sb_err *e);
void sb_dp_strings_free(char **v);
/* *identical = 1 when buf is bitwise identical on every rank. */
int sb_dp_check_identical(sb_dp *dp, const float *buf, size_t count, int *identical, sb_err *e);

/* DistributedSampler (drop_last=False): indices 0..n-1 shuffled by `seed`
 * (when shuffle; the trainer passes seed + epoch), padded by repeating from
 * the start up to a multiple of world, and rank r takes positions r, r+world,
 * ... . Fills *idx (malloc'd) with *count = ceil(n / world) entries. */
int sb_dp_shard_indices(uint64_t seed, int shuffle, long n, int rank, int world, long **idx,
                        long *count, sb_err *e);

#endif
