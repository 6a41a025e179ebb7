/* sb_gate_result: what every mode of the gate produces. Owns the verdicts,
 * the options the modes read, a row (one point and metric judged) and the
 * result the rows form, and adding a row to it: its verdict counted, its
 * note written. sb_gate (baseline), sb_gate_paired and sb_gate_refs fill a
 * result; sb_gate_render and sb_gate_out write it. */
#ifndef SB_GATE_RESULT_H
#define SB_GATE_RESULT_H
#include <stdint.h>
#include "sb_ptset.h"

/* SKIP: the candidate was skipped for a reason of the machine (an ISA it
 * lacks), as the baseline may have been: nothing ran, nothing regressed. */
typedef enum { SB_PASS = 0, SB_WARN = 1, SB_FAIL = 2, SB_SKIP = 3 } sb_verdict;
#define SB_NVERDICTS 4
const char *sb_verdict_name(sb_verdict v);

enum { SB_GATE_MWU = 0, SB_GATE_BOOTSTRAP = 1 };

typedef struct sb_gate_opts {
    double tolerance;           /* 0.05 for 5 % */
    double alpha;               /* 0.01 */
    int min_samples;            /* per side, 6 */
    int method;                 /* SB_GATE_MWU or SB_GATE_BOOTSTRAP */
    int pool;                   /* pool the samples of every ok point of a configuration */
    int cross_machine;          /* match points whatever machine they ran on */
    const char *const *metrics; /* NULL-terminated; NULL or empty: "seconds" */
    int paired;                 /* sb_gate_paired: judge the candidate's own pairs */
    int min_pairs;              /* paired: fewer pairs is UNSURE (WARN) */
    int allow_nothing_judged;   /* no PASS and no FAIL is a WARN, not a FAIL */
    const char *what;           /* the candidate as named, for messages; may be NULL */
} sb_gate_opts;
#define SB_GATE_OPTS_INIT                                                  \
    {                                                                      \
        .tolerance = 0.05, .alpha = 0.01, .min_samples = 6, .min_pairs = 6 \
    }

typedef struct sb_gate_row {
    sb_verdict verdict;
    char workload[64], label[320], metric[64], unit[64];
    char machine[80];
    double base, cand; /* medians (or the reference value) */
    double ratio;      /* candidate cost / baseline cost; 0 when none */
    double lo, hi;     /* bootstrap interval of the ratio; 0 when none */
    double p;          /* -1 when no test ran */
    int nb, nc;
    char note[512];
    int64_t base_id, cand_id; /* the points compared (0: none on that side) */
    char env[512];            /* how their recorded environments differ ("": same,
                                or not compared); the caller fills it (sb_envdiff) */
    int pairs;                /* paired: the pairs judged (0: not a paired row) */
    double aa;                /* paired: the A/A spread, median |A2/A1 - 1| */
    char outcome[8];          /* paired: PASS, FAIL, UNSURE or NOISY */
    int one_sided;            /* a point (or reference) with nothing to compare it with */
    int short_round;          /* one round a side of sub-millisecond samples */
} sb_gate_row;

typedef struct sb_gate_result {
    sb_gate_row *rows;
    int n, cap;
    int count[SB_NVERDICTS];     /* per verdict */
    int ignored;                 /* baseline points of machines the candidate never ran on */
    char (*ignored_labels)[400]; /* each of them: "point on MACHINE" */
    double conf;                 /* of the bootstrap intervals: 1 - 2 alpha (one-sided 1 - alpha) */
    /* sb_gate_judged: why nothing was judged ("" when a row PASSed or
     * FAILed), and whether that was accepted (--allow-nothing-judged) */
    char nothing[600];
    int nothing_allowed;
    /* rows judged on one round a side of sub-millisecond samples, and the
     * smallest of their medians (seconds) */
    int short_rounds;
    double short_median;
} sb_gate_result;

void sb_gate_result_free(sb_gate_result *r);
/* The gate's answer: FAIL if any row failed or nothing was judged (see
 * sb_gate_judged; WARN when that was allowed), else WARN if any warned,
 * else PASS. */
sb_verdict sb_gate_overall(const sb_gate_result *r);

/* After every row is in: when no row PASSed or FAILed (all WARN, SKIP, or
 * none at all), says why in r->nothing, with what to do, and marks it
 * allowed when o->allow_nothing_judged; also counts the rows of one round
 * a side on sub-millisecond samples. Returns 1 when nothing was judged. */
int sb_gate_judged(sb_gate_result *r, const sb_gate_opts *o);

/* A new row of verdict v (counted) for metric, labelled after p (may be
 * NULL: the caller labels it), p -1; NULL when memory runs out. */
sb_gate_row *sb_gate_add_row(sb_gate_result *r, sb_verdict v, const sb_pt *p, const char *metric);
/* Changes a row's verdict, and the counts with it. */
void sb_gate_set_verdict(sb_gate_result *r, sb_gate_row *row, sb_verdict v);
/* Writes the row's note (cut to its size). */
void sb_gate_notef(sb_gate_row *row, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
