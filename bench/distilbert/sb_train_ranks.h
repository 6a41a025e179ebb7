/* sb_train_ranks: how one training process runs among its ranks. Under
 * mpirun (more than one rank) it starts sb_dp's engine, binds each rank to
 * its own cores before any communication thread starts, cuts the gradient
 * into buckets at tensor boundaries, broadcasts rank 0's weights and puts
 * the engine behind sb_train's hooks (sb_train_dp). Alone, it only binds
 * (when asked, or when mpirun started the one process). Afterwards it
 * gathers every rank's timings and binding for rank 0's result document.
 * Prints nothing: warnings are returned for the command to show. */
#ifndef SB_TRAIN_RANKS_H
#define SB_TRAIN_RANKS_H
#include <jansson.h>
#include "sb_bind.h"
#include "sb_dp.h"
#include "sb_err.h"
#include "sb_model.h"
#include "sb_train.h"

typedef struct sb_train_ranks_opts {
    int threads;      /* compute threads per rank */
    const char *bind; /* "core", "socket", "none"; NULL: the default */
    int comm_threads; /* < 0: sb_dp's default */
    int overlap;      /* all-reduce while backward runs */
    double bucket_mb; /* <= 0: sb_dp's default (25 MB) */
    int sparse;       /* row-sparse all-reduce of the word embeddings */
} sb_train_ranks_opts;

typedef struct sb_train_ranks {
    int rank, world, nodes, ppn;
    sb_dp *dp;           /* NULL: one process */
    sb_train_dp hooks;   /* for sb_train_config.dp when dp is set */
    sb_bind_report bind; /* the binding in force (warning: "" or one line) */
    int have_bind;
    int sparse;
    /* this rank's per-step timings, summed over the run */
    double compute_s, wait_s, comm_s, bytes, sparse_rows;
    long steps;
    sb_err err; /* the first hook failure, returned by wait_all */
    int failed;
} sb_train_ranks;

/* What the ranks did per step, averaged over the run and the ranks. */
typedef struct sb_train_ranks_summary {
    double compute_s, wait_s, comm_s;  /* forward + backward; all-reduce not hidden; in all */
    double imbalance;                  /* (max - min) / mean compute over ranks */
    double mb_per_step, rows_per_step; /* gradient MB all-reduced; embedding rows sent */
} sb_train_ranks_summary;

/* Whether mpirun started more than one rank (before MPI starts). */
int sb_train_ranks_launched(void);
/* Before MPI starts: whether this process will be rank 0 (or runs alone). */
int sb_train_ranks_first(void);

/* Starts the ranks for model m (parameters and gradients allocated). */
int sb_train_ranks_start(sb_train_ranks *r, sb_model *m, const sb_train_ranks_opts *o, sb_err *e);
/* A collective when there are ranks: every rank calls it. On rank 0,
 * *per_rank gets one entry per rank (timings and binding) and *sum the
 * averages; elsewhere *per_rank is NULL. Alone: the binding of the one
 * process, sum zero. */
int sb_train_ranks_gather(sb_train_ranks *r, json_t **per_rank, sb_train_ranks_summary *sum,
                          sb_err *e);
/* The "binding" object of the result document. */
json_t *sb_train_ranks_binding_json(const sb_train_ranks *r, const sb_train_ranks_opts *o);
void sb_train_ranks_end(sb_train_ranks *r);

#endif
