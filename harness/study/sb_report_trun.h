/* sb_report_trun: a training point as the headline reads it (its batch,
 * seq, stride, ranks, data set, tool version, steady steps and their
 * median, the SQuAD v1.1 epoch projected from them), each side's runs with
 * its best per precision, and what the headline says of two runs: every
 * way they differ, the ratio with its interval and the gate's test. Used
 * by sb_report_headline and sb_report_best (what AMX gives). */
#ifndef SB_REPORT_TRUN_H
#define SB_REPORT_TRUN_H
#include <stddef.h>
#include "sb_report_model.h"

/* scripts/run-sweep's training defaults (SB_TRAIN_BATCH, SB_TRAIN_STEPS):
 * the shipped records' batch, and steps enough for an interval (the first
 * step, the warm-up, is left out: 7 steady steps, 6 a side needed) */
#define SB_RP_SWEEP_TRAIN_BATCH 8
#define SB_RP_SWEEP_TRAIN_STEPS 8

/* the precisions the headline compares, in order */
#define SB_RP_NPREC 3
extern const char *const sb_rp_prec[SB_RP_NPREC];

typedef struct sb_rp_trun {
    const sb_pt *p;
    int batch, seq, stride, ranks, threads, nsteady;
    long features;  /* of the run's own data set; 0 unknown */
    char data[64];  /* the run's data set ("squad-synth", "squad") */
    char model[64]; /* "distilbert-base", "tiny" */
    char version[64];
    double step, step_lo, step_hi; /* median steady step and p10/p90 (s) */
    double *steady;
    long squad_steps; /* steps of a SQuAD v1.1 epoch at this batch and rank count; 0: none */
    double epoch;     /* SQuAD epoch (projected) or, without one, the run's own */
    int projected_squad;
    double own_epoch; /* the run's epoch_seconds metric */
    double padding;   /* % of its training features' positions (padding_pct, or an older
                       * run's config padding_share); -1 not recorded */
} sb_rp_trun;

typedef struct sb_rp_tside {
    sb_rp_trun *r;
    int n;
    int best[SB_RP_NPREC + 1]; /* index into r per precision, [NPREC] any; -1 none */
    int noisy, tested;         /* points whose samples form two groups, of those with enough */
} sb_rp_tside;

/* A training point read for the headline; a side's runs with an epoch and
 * its best per precision (tside_free frees them). */
void sb_rp_trun_load(const sb_headline_in *in, const sb_pt *p, sb_rp_trun *t);
void sb_rp_tside_load(const sb_headline_in *in, const sb_ptset *set, sb_rp_tside *s);
void sb_rp_tside_free(sb_rp_tside *s);
/* Every way two runs differ that bears on their ratio, "; "-separated. */
void sb_rp_mismatches(const sb_rp_trun *b, const sb_rp_trun *c, const sb_rp_tside *bs,
                      const sb_rp_tside *cs, char *buf, size_t cap);
/* "2.46x faster (99% interval 2.1-2.8x; significant ...)" or "... (too few
 * samples ...)"; *ratio the baseline's epoch over the candidate's. */
void sb_rp_ratio_text(const sb_headline_in *in, const sb_rp_trun *b, const sb_rp_trun *c, char *buf,
                      size_t cap, double *ratio);
/* The padding the runs trained at beside SQuAD v1.1's at seq 384: "at 53 %
 * padding, as SQuAD v1.1 at seq 384 (53 %)", the two sides' when they
 * differ, what a padding far from SQuAD's does to the projection, or "padding
 * not recorded (...)"; c may be NULL (one side trained). */
void sb_rp_padding_text(const sb_rp_trun *b, const sb_rp_trun *c, char *buf, size_t cap);
/* The exact commands that give a machine training points: "`scripts/run-sweep`
 * (...)" at t's batch (t NULL: run-sweep's defaults) and, with t, ", or only
 * a training point like it: `sprbench sweep --workload train ...`" at its
 * kernel, threads and batch. */
void sb_rp_train_hint(const sb_rp_trun *t, char *buf, size_t cap);
/* "26 min (amx-bf16, bf16, projected)" */
void sb_rp_run_cell(const sb_rp_trun *t, char *buf, size_t cap);

/* The tool version sweep_id ran (git describe), "" when unknown. */
void sb_rp_sweep_version(const sb_rp_model *m, int64_t sweep_id, char *buf, size_t cap);

#endif
