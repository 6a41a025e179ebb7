/* sb_point: one point of a sweep. What the store keys it by (its shape or
 * series key, its config), the worker's argv (alone, or under mpirun with a
 * hostfile or Slurm), and its run: its command stored and its status
 * running, the worker launched with its output kept to a bounded size
 * (sb_worker_log), its result read with a limit, its pct_peak taken against
 * the path it ran, and the result, or why there is none, stored with the
 * tails of its output. The paired runner (sb_pair_point) runs each of its
 * two binaries with the same pieces. */
#ifndef SB_POINT_H
#define SB_POINT_H
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>
#include "sb_err.h"
#include "sb_db.h"
#include "sb_kernel.h"
#include "sb_launch.h"
#include "sb_plan.h"
#include "sb_query.h"

/* The worker's result document: far larger than any real one, small enough
 * to parse. */
#define SB_POINT_RESULT_MAX (64 * SB_MIB)

/* What every point of a running sweep shares. */
typedef struct sb_point_ctx {
    sb_db *db;
    int64_t machine;
    const sb_plan *plan;
    const char *tmpdir;                /* the sweep's own temporary directory */
    double timeout;                    /* a point's, all its runs together */
    const volatile sig_atomic_t *stop; /* set by SIGINT, SIGTERM, SIGHUP */
} sb_point_ctx;

/* A plan's point as the store keys it: shape, the GEMM shape
 * ("MxNxK:TT[+prepack]") or the series key of the other workloads ("model=..
 * batch=8 seq=.."); config, what sets it apart beyond that ("{}" but for an
 * int8 inference point's quantisation). */
void sb_point_keys(const sb_plan *p, const sb_plan_point *pt, char *shape, size_t scap,
                   char *config, size_t ccap);
/* The point's value on its workload's list axis, as its worker is given it:
 * the shape as the sweep stores it (sb_point_keys), or the batch. */
void sb_point_axis(const sb_plan *p, const sb_plan_point *pt, char *buf, size_t cap);
/* A stored point as the plan's point (kernel, threads, ppn, nodes, its
 * axis pointing at `axis`) and its axis value as its worker is given it: a
 * GEMM row's shape column as it is stored, else the value of the row's
 * axis in its series key (the batch); "" where there is none. */
void sb_point_of_row(const sb_todo_point *row, sb_plan_point *pt, char *axis, size_t cap);

/* The full argv of a point (malloc'd, sb_argv_free): the worker `bin` of
 * the plan's workload with its kernel, axis (as sb_point_axis writes it),
 * options and threads, writing `result`, alone or under mpirun (its
 * hostfile hosts.SEQ in tmpdir). peak > 0: the per-core peak the worker
 * takes pct_peak against. */
int sb_point_argv(const sb_plan *p, const sb_plan_point *pt, const char *axis, const char *bin,
                  const char *result, double peak, const char *tmpdir, int seq, char ***out,
                  sb_err *e);

/* The per-core peak a GEMM kernel's pct_peak is taken against: its own
 * instruction path's; for scalar code the machine's widest f32 FMA path
 * (AVX-512, else AVX2). 0: none stored. */
double sb_point_kernel_peak(sb_db *db, int64_t machine, const sb_kernel *k);

/* The point is about to run argv: its command stored, its status running,
 * and its workers' OpenMP team sized to the point's threads. */
int sb_point_mark_running(sb_db *db, const sb_todo_point *row, char *const *argv, sb_err *e);

/* argv under sb_launch_run, its stdout and stderr kept to a bounded size
 * (sb_worker_log) in outlog and errlog. out_bytes, err_bytes: what it wrote
 * in all (left at -1 where no FIFO could be made and the files hold it
 * all); nospace: keeping a log met a full disk. */
int sb_point_launch(char *const *argv, double timeout, const char *outlog, const char *errlog,
                    sb_run_result *r, sb_err *pe, long long *out_bytes, long long *err_bytes,
                    int *nospace);

/* The worker's own complaint from its stderr: the last "sprbench ..." line
 * (mpirun wraps it in banners), else the last line with any letter in it. */
void sb_point_worker_error(const char *path, char *buf, size_t cap);

/* The tails of a worker's stdout and stderr stored with its point. out_all,
 * err_all: what the worker wrote in all where its log was kept to a bounded
 * size (sb_worker_log; -1: the file holds it all). */
int sb_point_keep_output(sb_db *db, int64_t point_id, const char *outlog, const char *errlog,
                         long long out_all, long long err_all, sb_err *e);

/* A GEMM result's pct_peak against the path the kernel really ran (a vendor
 * kernel names the ISA it dispatched: AMX where it ran AMX, not the dtype's
 * AVX-512 path), with that path in its unit ("% of amx_bf16 peak"); none
 * where no peak of that path is stored. */
void sb_point_repeak(sb_db *db, int64_t machine, const sb_todo_point *row, json_t *doc);

/* Runs one point with the worker `self` to its end and stores what
 * happened; *status ("ok", "skipped", "failed", "timeout", "interrupted")
 * and a line for the progress output in summary. Returns SB_EFAIL only
 * when the store failed; the point's own failure is data. */
int sb_point_run(const sb_point_ctx *c, const sb_todo_point *row, const char *self, double peak,
                 char *summary, size_t sumcap, const char **status, sb_err *e);

#endif
