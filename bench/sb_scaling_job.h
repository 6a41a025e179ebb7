/* sb_scaling_job: `sprbench model`'s work over the scaling model (sb_scaling):
 * where the step time and the network come from (given, a measured
 * all-reduce curve, the study's 1-node point), the projection per node
 * count, the check against the study's published points, and the result
 * document, every figure in it labelled projected. A sweep's measured point
 * is the caller's to find (harness/run); it hands the step and a calibrated
 * bandwidth in through the job's fields. */
#ifndef SB_SCALING_JOB_H
#define SB_SCALING_JOB_H
#include <jansson.h>
#include "sb_err.h"
#include "sb_opts.h"
#include "sb_scaling.h"

/* One published point held against the projection. */
typedef struct sb_scaling_check {
    const sb_study_point *s;
    /* compared; skipped: another ppn or batch, another machine; or not
     * projected at all (not shown) */
    enum { SB_CHECK_COMPARED, SB_CHECK_OTHER_RUN, SB_CHECK_OTHER_MACHINE, SB_CHECK_NONE } status;
    double projected_s, no_overlap_s, gap_pct;
    double implied_busbw_gbs; /* 0: none (not a measured multi-node point) */
} sb_scaling_check;

typedef struct sb_scaling_job {
    /* what the caller gives (sb_scaling_job_init sets the defaults) */
    sb_scaling_input in;
    double step;                /* per step and rank; 0: from the study */
    const char *curve;          /* an allreduce result file, or NULL */
    double busbw_gbs, alpha_us; /* a network given as numbers (busbw 0: none) */
    double calib_busbw_gbs;     /* a bandwidth calibrated on a sweep (0: none) */
    int share_given;            /* --overlap-share was given */
    const char *study;          /* the published points, or NULL */
    sb_opt_ints nodes;          /* node counts to project */
    char step_src[256], net_src[512];
    /* what the job works out */
    double busbw_eff;   /* the network's bus bandwidth, GB/s */
    sb_study_point *sp; /* the study's points (nsp) */
    int nsp;
    sb_scaling_point *pts;    /* one per node count */
    sb_scaling_check *checks; /* one per study point (nsp) */
} sb_scaling_job;

/* DistilBERT on SQuAD v1.1 (88524 features @384/128), per-rank batch 32, 2
 * ranks per node, its f32 gradient with the embeddings as the last bucket,
 * overlap share 0.67, nodes 1,2,4,8,16,64, alpha 5 us. */
void sb_scaling_job_init(sb_scaling_job *j);
/* The study (when named), the step (from its first measured 1-node point
 * when j->step is 0: SB_EUSAGE when there is none) and the network. */
int sb_scaling_job_inputs(sb_scaling_job *j, sb_err *e);
/* The projection for every node count and the study check. */
int sb_scaling_job_project(sb_scaling_job *j, sb_err *e);
void sb_scaling_job_free(sb_scaling_job *j);

/* The result document (workload train, kernel scaling-model): config,
 * per-node metrics, each labelled projected with its source, the table and
 * the study check. NULL when out of memory. */
json_t *sb_scaling_result_json(const sb_scaling_job *j, int argc, char *const argv[]);

#endif
