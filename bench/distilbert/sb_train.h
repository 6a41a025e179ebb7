/* sb_train: the fine-tuning loop of Hugging Face's Trainer for SQuAD on the
 * model of sb_model: shuffled batches by seed (a rank takes its shard of the
 * shuffled features), dropout keyed by (seed, rank, step), forward, backward,
 * gradient-norm clipping, AdamW with linear decay, per-step timing, a stop
 * after --max-steps or --time-budget, a NaN/Inf loss stopping the run; and
 * evaluation / prediction (forward over eval features, run_qa.py's
 * post-processing, official EM/F1). Data parallelism plugs in through
 * sb_train_dp (sb_dp's engine); without it the run is one process. */
#ifndef SB_TRAIN_H
#define SB_TRAIN_H
#include <stddef.h>
#include <stdint.h>
#include "sb_err.h"
#include "sb_features.h"
#include "sb_model.h"
#include "sb_squad.h"
#include "sb_squad_eval.h"

/* Hooks of a data-parallel engine; any may be NULL. grad_ready is installed
 * as the model's on_grad_ready (blocks final in backward order). */
typedef struct sb_train_dp {
    int rank, world;
    void *user;
    /* before forward; the batch's token ids (B x S) */
    void (*step_begin)(void *user, const int32_t *ids, size_t n);
    void (*grad_ready)(void *user, size_t offset, size_t count);
    int (*wait_all)(void *user, sb_err *e); /* gradients averaged on return */
} sb_train_dp;

typedef struct sb_train_config {
    int batch; /* per rank */
    int epochs;
    long max_steps;       /* > 0: stop after that many steps (and decay over them) */
    double time_budget;   /* > 0: stop after that many seconds of training */
    float lr;             /* peak learning rate, decays linearly to 0 */
    long warmup_steps;    /* linear warm-up first (Trainer's default 0) */
    double max_grad_norm; /* 1.0 */
    uint64_t seed;
    int threads;
    const sb_train_dp *dp; /* NULL: one process */
    long poison_step;      /* tests: > 0 makes that step's loss NaN */
    /* Called after every step (rank 0 decides whether to draw). */
    void (*progress)(void *user, long step, long total, double loss, double step_seconds);
    void *progress_user;
} sb_train_config;

typedef struct sb_train_result {
    long steps;           /* steps taken */
    long steps_per_epoch; /* for this rank's shard */
    long total_steps;     /* the schedule's length */
    double *step_seconds; /* [steps], malloc'd */
    double *step_loss;    /* [steps], malloc'd */
    double loss_first, loss_final;
    double train_seconds; /* wall time of the loop */
    int finished_epochs;  /* every planned epoch ran to its end */
    long failed_step;     /* 1-based step with a non-finite loss, else 0 */
} sb_train_result;

void sb_train_config_default(sb_train_config *c);
/* m must have activations for cfg->batch x f->max_seq. SB_EFAIL with the step
 * number when the loss goes NaN/Inf (res->failed_step set). */
int sb_train_run(sb_model *m, const sb_features *f, const sb_train_config *cfg,
                 sb_train_result *res, sb_err *e);
void sb_train_result_free(sb_train_result *r);

/* Median, over the steady-state steps (the first excluded when there are more). */
double sb_train_median_step(const sb_train_result *r);

/* Forward over eval features in batches (no dropout): start/end logits
 * [f->n][f->max_seq] each (malloc'd). */
int sb_train_logits(sb_model *m, const sb_features *f, int batch, float **start, float **end,
                    sb_err *e);
/* Logits, post-processing (n-best 20, max answer 30) and, when em/f1 are
 * non-NULL, the official scores. preds may be NULL. */
int sb_train_predict(sb_model *m, const sb_squad_set *set, const sb_features *f, int batch,
                     sb_squad_predictions *preds, double *em, double *f1, sb_err *e);

#endif
