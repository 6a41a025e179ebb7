/* sb_workload: what sets one workload apart, as one row (benchdnn's driver
 * table). The plan reads its keys and ranges here, the sweep its axes,
 * timeout and the worker's flags, the store which names exist, plot and
 * report its headline metric and title; none of them compares workload names.
 *
 * Adding a workload: a folder in bench/ (its measurement) with its row
 * beside it (bench/<workload>/sb_<workload>_row.c: const sb_workload
 * sb_wl_<id>, with its describe, options, series keys, checks and, where it
 * has any, its own metrics), the row's line in bench/sb_workloads.def, a
 * command file in harness/ and its line in harness/sb_cmds.def
 * (docs/ARCHITECTURE.md walks through STREAM as the example). A capability
 * (SB_WL_*) or a field says what the row is to the sweep, the plot and the
 * report; they never ask for its name.
 *
 * The worker options' ranges live here too: a sweep plan checks `batch = -1`
 * with the very range the worker parses --batch with, so they cannot drift. */
#ifndef SB_WORKLOAD_H
#define SB_WORKLOAD_H
#include <jansson.h>
#include <stddef.h>
#include "sb_err.h"
#include "sb_metric_row.h"

enum {
    SB_WL_PLAN = 1 << 0,    /* a sweep plan may name it (the peak probe: the sweep adds it) */
    SB_WL_KERNEL = 1 << 1,  /* a point per kernel; the worker takes --kernel */
    SB_WL_INT8 = 1 << 2,    /* the default kernel list holds the int8 kernels too */
    SB_WL_SHAPES = 1 << 3,  /* GEMM shapes are an axis (shapes, trans, reps, prepack) */
    SB_WL_BATCH = 1 << 4,   /* batch is a list: a point per batch */
    SB_WL_THREADS = 1 << 5, /* the worker takes --threads */
    SB_WL_PEAK = 1 << 6,    /* %peak: the sweep probes the machine's peak first */
    SB_WL_PROJECT = 1 << 7, /* the scaling model projects node counts at the sweep's end */
    SB_WL_LATENCY = 1 << 8, /* latency at batch 1, once per kernel x threads (smallest batch) */
    SB_WL_ONE_RANK = 1 << 9, /* one process measures it: ppn and nodes stay 1 */
    SB_WL_PROBE = 1 << 10,   /* probes the machine (peak): a point the sweep adds, no plan
                              * of its own, rates without samples, never paired */
    SB_WL_PAIRED = 1 << 11,  /* a sweep may measure it in pairs of two binaries
                              * (--pair-baseline/--pair-candidate): only such a
                              * point stores, imports or merges a pairing */
};

/* Appends one word to a worker's argv (the sweep's, run/sb_sweep). */
typedef void (*sb_wl_push)(void *ctx, const char *arg);

typedef struct sb_workload {
    const char *name;          /* the plan's and the store's name: "gemm" */
    const char *title;         /* for people: "SQuAD inference" */
    unsigned flags;            /* SB_WL_* */
    const char *const *opts;   /* plan keys passed to the worker as --key [value] */
    const char *const *series; /* of those, the ones that name a point's series (model, seq) */
    int default_batch;         /* batched and none given: the worker's default (0: none) */
    double timeout_s;          /* a point's default timeout */
    const char *metric;        /* headline metric: "gflops" (its direction: sb_metric) */
    const char *unit;          /* its unit: "GFLOP/s" */
    const char *int8_unit;     /* the unit where an int8 kernel ran (NULL: unit) */
    const char *int8_opt;      /* an int8 point's config key and its default ("quant", "row") */
    const char *int8_default;
    /* One line on a finished result document, for the sweep's progress
     * ("412.3 GFLOP/s"); NULL: the headline metric and its unit. */
    void (*describe)(const json_t *doc, char *buf, size_t cap);
    /* An option only int8 points take ("attention"): a plan's value goes to
     * their workers alone, and into their config unless it is the worker's
     * default (int8_extra_default: "f32", the same run as leaving it out);
     * NULL: none. */
    const char *int8_extra;
    const char *int8_extra_default;
    /* The list axis a point is one value of, by its key: "shape" (GEMM:
     * the point's shape as stored, MxNxK:TT[+prepack]) or "batch" (train,
     * infer: a value of the point's series key); NULL: none. axis_argv
     * turns one value into the worker's flags ("8" -> --batch 8,
     * "8x9x10:NT" -> --shape 8x9x10:NT), so the sweep writes every worker's
     * argv from the row alone. */
    const char *axis;
    void (*axis_argv)(const char *value, sb_wl_push push, void *ctx);
    /* The workload's own checks of a plan's options taken together (what
     * its worker would refuse: max-steps with time-budget, a stride not
     * below half the seq, LayerNorm's batch x seq x dim over its limit),
     * made before any point runs; keys[i] = values[i], n of them, with
     * "batch" (a list axis) as the largest of the plan's batches, or the
     * row's default_batch when it gives none. SB_EUSAGE saying why; NULL:
     * none. */
    int (*check)(const char *const *keys, const char *const *values, int n, sb_err *e);
    /* Metrics of this workload's own that bench/sb_metric.def does not
     * hold (unit, direction, role), ended by a row with a NULL name:
     * sb_metric_own_<id>, defined beside the row (OWN_METRICS in
     * sb_workloads.def), where the table's readers find them through
     * bench/sb_metric_own as its own rows. NULL: none. */
    const sb_metric_info *metrics;
    /* A worker that takes --profile: the metric its profiled time is per
     * ("step_seconds"), the report's fastest profiled point is the lowest
     * of, and the word for that unit of work ("step"); NULL: none. */
    const char *profile_metric;
    const char *profile_per;
    /* The SB_ variables its worker reads besides those every workload reads
     * (study/sb_envdiff's table), space-separated ("SB_ATTN_ROWS"); NULL:
     * none. */
    const char *env;
} sb_workload;

/* The rows, sb_wl_<id>, each defined in its workload's folder. */
#define SB_WORKLOAD(id, metrics) extern const sb_workload sb_wl_##id;
#include "sb_workloads.def"
#undef SB_WORKLOAD

int sb_workload_count(void);
const sb_workload *sb_workload_at(int i);
/* NULL when no workload has that name. */
const sb_workload *sb_workload_find(const char *name);
/* 1 when the named workload (any, unknown: 0) has every flag in `flags`. */
int sb_workload_has(const char *name, unsigned flags);
/* 1 when w (NULL: 0) has every flag in `flags`. */
int sb_wl_is(const sb_workload *w, unsigned flags);
/* The workload of a plan that names none (GEMM). */
const sb_workload *sb_workload_default(void);
/* The first row with every flag in `flags`: SB_WL_PROBE, the probe the
 * sweep puts ahead of SB_WL_PEAK points; SB_WL_PROJECT, the workload the
 * scaling model projects. NULL: none. */
const sb_workload *sb_workload_flagged(unsigned flags);
/* "gemm, train, infer, allreduce, stream": the names a plan may give. */
void sb_workload_plan_names(char *buf, size_t cap);
/* 1 when w's axis is one of its series keys (a batch: a point's value is
 * named inside its series key, "model=tiny batch=8"); 0 when a value is the
 * point's key itself (GEMM's shape), or w (or its axis) is NULL. */
int sb_wl_axis_in_series(const sb_workload *w);
/* The result's one-line description (the row's describe, or its headline). */
void sb_workload_describe(const sb_workload *w, const json_t *doc, char *buf, size_t cap);

/* What the rows' describe and axis_argv share: a result document's metric
 * (0 when absent) and whether it has it; a batch value as the worker's
 * flags ("8" -> --batch 8). */
double sb_wl_doc_num(const json_t *doc, const char *metric);
int sb_wl_doc_has(const json_t *doc, const char *metric);
void sb_wl_batch_argv(const char *value, sb_wl_push push, void *ctx);

/* A worker option a plan may carry, and how its value is checked. */
typedef enum {
    SB_WOPT_LONG,
    SB_WOPT_DOUBLE,
    SB_WOPT_BOOL, /* a flag without a value in the worker's CLI */
    SB_WOPT_PATH,
    SB_WOPT_MODEL,
    SB_WOPT_SIZES,
    SB_WOPT_QUANT,
    SB_WOPT_ATTENTION /* infer's --attention: f32 or int8 */
} sb_wopt_kind;
typedef struct sb_wopt {
    const char *key;
    sb_wopt_kind kind;
    double min, max;
    /* the value's own check, the worker's parser (MODEL, SIZES, QUANT,
     * ATTENTION: bench/<workload>'s); SB_EUSAGE saying why, its message
     * starting with the key where the parser's does */
    int (*check)(const char *value, sb_err *e);
} sb_wopt;
/* The values only a workload's own parser knows, the checks of the
 * options' table (sb_wopt.check): defined beside the rows that take them,
 * in their folders (bench/distilbert: model, quant, attention;
 * bench/allreduce: sizes). */
int sb_wl_check_model(const char *value, sb_err *e);
int sb_wl_check_quant(const char *value, sb_err *e);
int sb_wl_check_attention(const char *value, sb_err *e);
int sb_wl_check_sizes(const char *value, sb_err *e);
/* NULL when no worker takes that key. */
const sb_wopt *sb_wopt_find(const char *key);
/* 1 when the key is one of any workload's options. */
int sb_wopt_known(const char *key);

/* A worker option's own range ("batch", "seq", "iters", ...; the plan key
 * without dashes), shared by the plan checks and the workers' flag parsing.
 * `what` names the value in messages ("--batch" or "batch"). SB_EUSAGE out
 * of range; SB_EFAIL for a key with no such range (a programming error). */
int sb_worker_opt_long(const char *key, const char *value, const char *what, long *out, sb_err *e);
int sb_worker_opt_double(const char *key, const char *value, const char *what, double *out,
                         sb_err *e);

#endif
