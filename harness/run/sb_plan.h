/* sb_plan: what a sweep runs. Parses the plan file format and the sweep's
 * flags into one plan, validates every value (kernels must be registered,
 * sizes in range, options known: a plan is hostile input), and expands it
 * into points (kernel x shape or batch x threads x ppn x nodes).
 *
 * Plan file: one `key = value` per line, `#` starts a comment, lists are
 * comma-separated. Keys: workload, label, kernels, threads, shapes, trans,
 * reps, min-seconds, prepack, ppn, nodes, hostfile, bind, mpirun-args, point-timeout,
 * launcher (mpirun or slurm),
 * project-nodes (train: node counts the scaling model projects at the sweep's
 * end; 0 or none: no projection), and for workload train the options passed to `sprbench train`: model,
 * batch, seq, stride, max-steps, time-budget, epochs, vocab, train, dev, lr,
 * seed, dropout, eval, init, comm-threads, synth-train, synth-dev, warmup-steps,
 * no-overlap; for infer: model, batch, seq, stride, requests, vocab, data, init,
 * seed, synth-dev, warmup, quant (row or tensor), full-attention, no-latency,
 * compare-f32; for allreduce: sizes, iters, warmup.
 *
 * A plan's points run along its row's list axis (the row's `axis`):
 * GEMM's `shapes`, or `batch` (train, infer, layernorm), a point per value.
 * The plan holds the values as data, each as the text the store keeps and
 * the worker takes ("8x9x10:NT", "8"), so that the sweep, a point's argv and
 * a resume read them alike. A batch is named in the point's series key
 * ("model=tiny batch=8"), so that plots, reports, gate and resume tell the
 * batches apart; an infer plan without one runs batch 32 (the worker's
 * default, stated). */
#ifndef SB_PLAN_H
#define SB_PLAN_H
#include <stdio.h>
#include "sb_err.h"
#include "sb_workload.h"

#define SB_PLAN_MAX 64

/* One axis value's text: "65536x65536x65536:NT" and a NUL fit. */
#define SB_PLAN_AXIS_CAP 24

typedef struct sb_plan {
    /* its row (bench/sb_workload), resolved once from `workload = NAME`;
     * NULL until set (sb_plan_finish: the default, GEMM) */
    const sb_workload *wl;
    char label[4 * 256 + 1]; /* SB_DB_MAX_NAME characters of up to 4 bytes */
    char *kernels[SB_PLAN_MAX];
    int nkernels;
    int threads[SB_PLAN_MAX], nthreads;
    /* the row's list axis, a point per value, as the store keeps each
     * ("8x9x10:NT", "8"); axis_key the plan key that names it ("shapes",
     * "batch"; NULL: no axis). Filled by sb_plan_finish from the key the
     * row takes (shapes given their transposes, or the row's default). */
    char axis[SB_PLAN_MAX][SB_PLAN_AXIS_CAP];
    int naxis;
    const char *axis_key;
    char *given_shapes, *given_batch; /* `shapes`, `batch` as set (checked) */
    int ppn[SB_PLAN_MAX], nppn;
    int nodes[SB_PLAN_MAX], nnodes;
    char trans[3];        /* for shapes without their own; "" = NN */
    int prepack;          /* GEMM: B packed once and reused (weights) */
    int reps;             /* 0: the worker's default */
    double min_seconds;   /* 0: the worker's default */
    double point_timeout; /* seconds; 0: default per workload */
    char *hostfile, *bind, *mpirun_args;
    char *launcher; /* NULL or "mpirun": mpirun (--hostfile); "slurm":
                                       mpirun inside the Slurm allocation (sb_slurm) */
    /* train: node counts to project at the end (none given: 1,2,4,... up to
     * 4x the largest measured); project_off: `project-nodes = none` */
    int project_nodes[SB_PLAN_MAX], nproject_nodes, project_off;
    /* workload options passed through as --key value (train, infer, allreduce) */
    char *opt_keys[SB_PLAN_MAX], *opt_values[SB_PLAN_MAX];
    int nopts;
} sb_plan;

/* Every value is checked when it is set: lists refuse empty items and items
 * listed twice, numbers their range, workload options what the worker would
 * refuse (sb_worker_opt_*), and no value may be empty. In a plan file a key
 * may appear once (flags given beside the file override it). */
void sb_plan_init(sb_plan *p);
void sb_plan_free(sb_plan *p);
/* Sets one key; `where` names the place for messages ("plan.txt:3", "--kernels"). */
int sb_plan_set(sb_plan *p, const char *key, const char *value, const char *where, sb_err *e);
/* Parses plan text (a file's contents); `name` is used in messages. */
int sb_plan_parse(sb_plan *p, const char *text, const char *name, sb_err *e);
/* A plan is a few hundred bytes of text; 1 MiB leaves room for any written or
 * generated plan (lists hold at most SB_PLAN_MAX values) while a wrong path
 * such as /dev/zero costs 1 MiB, not all memory. */
#define SB_PLAN_FILE_MAX ((size_t)1 << 20)
/* Reads and parses a plan file: more than SB_PLAN_FILE_MAX bytes, or a NUL
 * byte (which would silently end the plan there), is SB_EUSAGE naming the
 * file (and the byte's offset). */
int sb_plan_read_file(sb_plan *p, const char *path, sb_err *e);
/* Fills what the user left out with the default plan for this machine
 * (every kernel, threads 1..cores, the default shapes) and checks the whole. */
int sb_plan_finish(sb_plan *p, int cores, sb_err *e);
/* Before a sweep runs: the files its workload options name (vocab, train,
 * dev: readable files; init: a directory) exist on this machine, so a typo
 * fails once, not at every point. */
int sb_plan_check_inputs(const sb_plan *p, sb_err *e);
/* The plan as plan-file text (stored with the sweep; --resume reads it back). */
char *sb_plan_render(const sb_plan *p);
/* Number of points the plan expands to. */
int sb_plan_npoints(const sb_plan *p);
/* The largest node count, processes per node and threads the plan asks for
 * (1 where a list is empty): what an allocation or a batch script must hold. */
void sb_plan_max_dims(const sb_plan *p, int *nodes, int *ppn, int *threads);

/* Every key `sprbench sweep` takes as a long option (--key): the plan's own,
 * then each workload's options once (bench/sb_workload); the first *nvalue
 * take a value, the rest are flags (a plan's `key = 1`). Returns the count
 * (at most SB_PLAN_CLI_KEYS). */
#define SB_PLAN_CLI_KEYS 96
int sb_plan_cli_keys(const char **keys, int *nvalue);
/* Each plan workload's options, a line (wrapped at 80 columns) per workload:
 * "  train     --model, --batch, ..." */
void sb_plan_workload_help(FILE *f);

/* The worker options' ranges (sb_worker_opt_long/_double) are the
 * workloads' (bench/sb_workload.h). */

typedef struct sb_plan_point {
    const char *kernel;
    /* its value on the row's list axis, as the plan's axis holds it
     * ("8x9x10:NT", "8"; a stored point's as the store keeps it); NULL:
     * the plan has none */
    const char *axis;
    int threads, ppn, nodes;
} sb_plan_point;
/* The i-th point, in kernel-major order (kernel, axis value, nodes, ppn,
 * threads). */
void sb_plan_point_at(const sb_plan *p, int i, sb_plan_point *pt);

#endif
