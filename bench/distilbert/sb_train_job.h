/* sb_train_job: `sprbench train` and `predict` as work: the options of a
 * run, its data (the user's SQuAD files or squad-synth), the model (random,
 * or a Hugging Face checkpoint's), the ranks, the training, evaluation and
 * save, the metrics, and the result document (sb_train_result_json). The
 * command parses and prints; this module returns errors and never prints
 * to stdout (notes go through opts.note, progress to stderr as sb_progress). */
#ifndef SB_TRAIN_JOB_H
#define SB_TRAIN_JOB_H
#include <jansson.h>
#include "sb_err.h"
#include "sb_features.h"
#include "sb_hf.h"
#include "sb_kernel.h"
#include "sb_model.h"
#include "sb_squad.h"
#include "sb_tokenizer.h"
#include "sb_train.h"
#include "sb_train_ranks.h"
#include "sb_tune_file.h"

/* What `--model tiny` takes unless told otherwise: the settings with which a
 * tiny model learns the synthetic set (EM >= 90 on its held-apart dev). */
#define SB_TINY_SEQ 32
#define SB_TINY_STRIDE 8
#define SB_TINY_BATCH 32
#define SB_TINY_LR 1e-3
#define SB_TINY_WARMUP_PCT 10 /* % of the run's steps; 11 of 12 seeds reach EM >= 99 */
#define SB_TINY_EPOCHS 3
#define SB_TINY_SYNTH_TRAIN 40000
#define SB_SYNTH_DEV 300
#define SB_SYNTH_TRAIN 2000

typedef struct sb_train_opts {
    const char *vocab, *train, *dev, *init, *model, *kernel, *save, *result_file, *data, *out;
    int threads, batch, seq, stride, epochs, eval, profile, synth_train, synth_dev;
    long max_steps, warmup;
    int set_warmup;
    double time_budget, dropout, lr;
    long seed;
    int set_batch, set_seq, set_stride, set_epochs, set_lr, set_dropout;
    int comm_threads, set_comm, no_overlap; /* data parallel (under mpirun) */
    int dense_allreduce;
    int full_attention;
    double bucket_mb;
    const char *bind;
    int no_tune;                  /* --no-tune: the built-in blocking */
    const char *tune_file;        /* --tune-file */
    const char *tuning;           /* set by the command: recorded in the config */
    const sb_tune_table *tune;    /* the tuned entries in force (NULL: none) */
    /* one line for the user (stderr), without the command's name; NULL: none */
    void (*note)(const char *line);
} sb_train_opts;

/* The defaults of what was not given (--model tiny's own, see above). */
void sb_train_opts_defaults(sb_train_opts *o);
/* Checks that need no files: SB_EUSAGE naming the option. */
int sb_train_opts_check(const sb_train_opts *o, sb_err *e);

/* name (NULL: the default) as a training kernel: SB_EUSAGE for an unknown
 * or int8 one, SB_ESKIP with the reason when this machine cannot run it. */
int sb_train_pick_kernel(const char *name, const sb_kernel **out, sb_err *e);

/* A vocabulary, SQuAD sets and their features, as far as loaded. */
typedef struct sb_train_data {
    sb_vocab vocab;
    int have_vocab;
    sb_squad_set train, dev;
    int have_train, have_dev;
    sb_features ftrain, fdev;
    int have_ftrain, have_fdev;
} sb_train_data;
void sb_train_data_free(sb_train_data *d);

/* One run of `sprbench train`, and what it measured. */
typedef struct sb_train_job {
    const sb_kernel *k;
    sb_train_data d;
    sb_hf_model hf;
    int have_hf, have_model;
    sb_model m;
    sb_model_config mc;
    sb_train_result res;
    sb_train_ranks ranks;
    sb_train_ranks_opts ro;
    int rank, world, nodes, ppn;
    json_t *config;   /* the result's config, once known */
    json_t *per_rank; /* each rank's timings and binding (rank 0), or NULL */
    sb_train_ranks_summary dps;
    /* after the run */
    double em, f1, eval_s;
    double med, tps, gflops, epoch_s;
    int projected;
    /* 1 when an error is the run's failure (a "failed" result file), 0 when
     * it is bad input or a machine that cannot run the kernel */
    int failed;
} sb_train_job;

/* Runs the job o describes (its defaults applied): data, model, ranks,
 * training, evaluation and save on rank 0, the metrics and the per-rank
 * summary (collectives: every rank calls this). */
int sb_train_job_run(sb_train_job *j, const sb_train_opts *o, sb_err *e);
void sb_train_job_free(sb_train_job *j);

/* The result document of a finished job (sb_result_worker's head, then
 * per_rank, binding, samples, metrics, units, projected); NULL when out of
 * memory. */
json_t *sb_train_result_json(sb_train_job *j, const sb_train_opts *o, int argc, char **argv,
                             const char *fingerprint);
/* A skipped or failed train run's document to o->result_file (none without
 * one), its reason from why, its config the job's (taken) or {"model"}. */
int sb_train_result_status(sb_train_job *j, const sb_train_opts *o, const char *status,
                           const sb_err *why, int argc, char **argv, const char *fingerprint,
                           sb_err *e);

/* `sprbench predict`: the model in init's directory answers every question
 * of data (run_qa.py's post-processing); k runs it on threads threads. */
typedef struct sb_predict_opts {
    const char *init, *vocab, *data, *out, *kernel; /* out, kernel: the command's */
    int batch, seq, stride, threads;
    const sb_kernel *k;
} sb_predict_opts;
/* n_features: the features answered. SB_EUSAGE for input that does not
 * fit (not a QA model, --seq too long, a vocab of another size). */
int sb_predict_run(const sb_predict_opts *o, sb_squad_predictions *preds, int *n_features,
                   sb_err *e);

#endif
