/* sb_scaling: the scaling model. From a measured per-step compute time and a
 * measured MPI_Allreduce curve it projects the epoch time of data-parallel
 * training on N nodes, with and without overlapping the gradient all-reduce
 * with backward, and compares projections with published points.
 *
 * Model (every output is *projected*):
 *   ranks R = ppn x N; steps = ceil(ceil(features / R) / batch)   (DistributedSampler)
 *   ring all-reduce of m bytes over R ranks: t(m, R) = 2(R-1) alpha + 2(R-1)/R m beta
 *     (alpha, beta fitted to the measured curve: t = a + b m at R0 ranks gives
 *      alpha = a / (2(R0-1)), beta = b R0 / (2(R0-1)); or given as a bus bandwidth)
 *   no overlap: step = compute + t(grad, R)
 *   overlap:    step = compute + max(t(grad, R) - f x compute, t(last bucket, R))
 *     f = the share of the step during which buckets can be in flight
 *     (backward, about 2/3 of forward + backward); the last bucket (the
 *     embeddings, final only at the very end of backward) is never hidden.
 *   epoch = steps x step; ideal(N) = epoch(1) / N; speedup = epoch(1) / epoch(N).
 * On one node the all-reduce runs through shared memory and is counted as
 * part of the measured step (comm = 0); across nodes the ring over all R
 * ranks runs at the speed of one network, the one the curve was measured on. */
#ifndef SB_SCALING_H
#define SB_SCALING_H
#include <stddef.h>
#include "sb_err.h"

/* The message the trainer all-reduces every step, the model's gradient.
 * Parameters of distilbert-base-uncased with the SQuAD span head:
 * embeddings (vocab + positions) x dim + LayerNorm, layers x (4 attention
 * projections + LayerNorm + FFN dim->ffn->dim + LayerNorm), qa_outputs dim->2.
 * (30522, 768, 6, 3072, 512) -> 66,364,418. */
size_t sb_distilbert_param_count(long vocab, long dim, long layers, long ffn, long max_pos);
/* 66,364,418 x 4 bytes = 265,457,672 (the default configuration, whose
 * sizes live in bench/distilbert/sb_shapes). */
size_t sb_distilbert_grad_bytes(void);
/* Its last bucket, the embeddings' gradient ((vocab + positions) x dim +
 * LayerNorm, f32): 95,342,592 bytes. */
double sb_distilbert_last_bucket_bytes(void);

typedef struct sb_ab_fit {
    double alpha_s;         /* per-hop latency, seconds */
    double beta_s_per_byte; /* per-byte cost of the bus, seconds (1 / bus bandwidth) */
    int ranks;              /* ranks of the measured curve (0 when given directly) */
    int points;             /* sizes used in the fit */
} sb_ab_fit;

/* Least-squares t = a + b m over the sizes >= min_bytes (all sizes when fewer
 * than two qualify) of a curve measured on `ranks` >= 2 ranks. */
int sb_scaling_fit(const size_t *bytes, const double *lat_s, int n, int ranks, size_t min_bytes,
                   sb_ab_fit *fit, sb_err *e);
/* A network given as bus bandwidth (GB/s, 1e9) and per-hop latency (us). */
void sb_scaling_fit_from_busbw(double busbw_gbs, double alpha_us, sb_ab_fit *fit);
double sb_scaling_ring_seconds(const sb_ab_fit *fit, double bytes, int ranks);

typedef struct sb_scaling_input {
    double step_compute_s;    /* forward + backward + optimizer per step, one rank */
    long features;            /* training features per epoch (88524 for SQuAD v1.1 @384) */
    int batch;                /* per-rank batch */
    int ppn;                  /* ranks per node */
    double grad_bytes;        /* all-reduced per step */
    double last_bucket_bytes; /* not hideable (0: nothing) */
    double overlap_share;     /* f above, 0..1 */
    sb_ab_fit net;
} sb_scaling_input;

typedef struct sb_scaling_point {
    int nodes, ranks;
    long steps;
    double comm_s;    /* all-reduce per step */
    double exposed_s; /* of which not hidden, with overlap */
    double epoch_no_overlap_s, epoch_overlap_s;
    double ideal_s; /* epoch_overlap(1 node) / nodes */
    double speedup_overlap, speedup_no_overlap;
    double efficiency_overlap; /* speedup / nodes */
} sb_scaling_point;

/* in's grad_bytes and last_bucket_bytes for a DistilBERT of these sizes
 * (the base model's where any is below 1; positions always the base's). */
void sb_scaling_model_bytes(long vocab, long dim, long layers, long ffn, sb_scaling_input *in);

long sb_scaling_steps(long features, int batch, int ranks);
/* One point per entry of nodes[n]. */
int sb_scaling_project(const sb_scaling_input *in, const int *nodes, int n, sb_scaling_point *out,
                       sb_err *e);
/* The bus bandwidth (GB/s) that explains an observed epoch time at `nodes` > 1
 * given the 1-node epoch time, with no overlap and no latency term: the extra
 * per-step time is all inter-node all-reduce. 0 when the observation leaves no
 * room. */
double sb_scaling_implied_busbw(const sb_scaling_input *in, double epoch1_s, int nodes,
                                double epochN_s);

/* The original study's published points (results/reference/study.csv). */
typedef struct sb_study_point {
    char label[64], machine[96], kind[16]; /* kind: measured | ideal */
    int nodes, ppn, threads, batch;
    char dtype[16];
    double epoch_s;
} sb_study_point;
/* CSV with a header line naming at least label,machine,nodes,ppn,threads,
 * batch,dtype,epoch_seconds,kind (any order, '#' comments); SB_EUSAGE with
 * file:line for malformed rows. *pts malloc'd. */
int sb_study_load(const char *path, sb_study_point **pts, int *n, sb_err *e);

#endif
