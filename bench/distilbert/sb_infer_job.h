/* sb_infer_job: `sprbench infer` as work: the model (random or a
 * checkpoint's), the questions (a SQuAD file or squad-synth), latency at
 * batch 1, throughput at the batch asked for, the answers and their score,
 * the optional comparison with f32, and the result document
 * (sb_infer_result_json). The command parses and prints; this module
 * returns errors and never prints to stdout (notes go through opts.note). */
#ifndef SB_INFER_JOB_H
#define SB_INFER_JOB_H
#include <jansson.h>
#include "sb_err.h"
#include "sb_features.h"
#include "sb_hf.h"
#include "sb_infer.h"
#include "sb_kernel.h"
#include "sb_model.h"
#include "sb_squad.h"
#include "sb_squad_eval.h"
#include "sb_tokenizer.h"
#include "sb_tune_file.h"

#define SB_INFER_SYNTH_DEV 300

typedef struct sb_infer_opts {
    const char *init, *vocab, *data, *model, *kernel, *out, *result_file, *quant,
        *attention; /* "f32" (NULL) or "int8" */
    long threads, batch, seq, stride, requests, warmup, synth_dev, seed;
    int set_seq, set_stride, compare_f32, full_attention, no_latency, profile;
    int no_tune;               /* --no-tune: the built-in blocking */
    const char *tune_file;     /* --tune-file */
    const char *tuning;        /* set by the command: recorded in the config */
    const sb_tune_table *tune; /* the tuned entries in force (NULL: none) */
    void (*note)(const char *line); /* one line for the user (stderr); NULL: none */
} sb_infer_opts;

/* One run and what it measured. */
typedef struct sb_infer_job {
    const sb_kernel *k, *k32, *attn;
    sb_quant_mode qmode;
    int attn8; /* the attention's products ran in int8 (--attention int8) */
    sb_hf_model hf;
    int have_hf, have_model, have_vocab, have_set, have_feat;
    sb_vocab vocab;
    sb_squad_set set;
    int32_t n_all;
    sb_features f;
    sb_model m;
    sb_infer *inf;
    sb_squad_predictions preds, preds32;
    double *lat, *batch_s;
    int kernel_skipped; /* SB_ESKIP came from the kernel's probe (a "skipped" result) */
    int batch, nq, nbatches, answers;
    double thr_s, fwd_s, em, f1, em32, f132, agree, p50, p90, p99, sps, tps;
} sb_infer_job;

/* Runs the job o describes (threads, seq and stride already settled):
 * SB_EUSAGE for input that does not fit, SB_ESKIP when this machine cannot
 * run the kernel (j->k then names it, when known), else the failure. */
int sb_infer_job_run(sb_infer_job *j, const sb_infer_opts *o, sb_err *e);
void sb_infer_job_free(sb_infer_job *j);

/* The result document of a finished job; NULL when out of memory. */
json_t *sb_infer_result_json(const sb_infer_job *j, const sb_infer_opts *o, int argc, char **argv,
                             const char *fingerprint);

#endif
