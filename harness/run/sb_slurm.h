/* sb_slurm: what a sweep needs from Slurm. The allocation it runs in (job
 * id, node names expanded from SLURM_JOB_NODELIST, tasks and CPUs per node),
 * whether a plan fits in it, the hostfile an n-node point gets from it (its
 * first n nodes; mpirun inside the allocation then launches through Slurm,
 * each multi-node point one job step), Slurm's own words when it kills a
 * step, and the batch script of `sweep --sbatch`.
 *
 * Typical use by the sweep (error handling elided):
 *
 *   sb_slurm_alloc a;  sb_slurm_alloc_from_env(&a, &e);      // exit 2 outside one
 *   sb_slurm_check_fit(&a, maxnodes, maxppn, maxthreads, &e); // exit 2 if too big
 *   sb_hostfile hf;    sb_slurm_alloc_hostfile(&a, &hf);     // then as for --hostfile
 *   ...
 *   char why[300]; if (sb_slurm_kill_reason(stderr_text, why, sizeof why)) ...
 *   sb_slurm_alloc_free(&a);
 */
#ifndef SB_SLURM_H
#define SB_SLURM_H
#include <jansson.h>
#include <stddef.h>
#include "sb_err.h"
#include "sb_launch.h"

/* More names than any cluster has: a list expanding past it is refused, so
 * that "n[0-999999999]" cannot take all memory. */
#define SB_SLURM_MAX_NODES 65536

/* Expands a Slurm host list ("sbnode[1-3,5],login01,rack[1-2]n[01-02]") into
 * names, in order, as `scontrol show hostnames` does: ranges keep the zero
 * padding of their first number, several bracket groups multiply out.
 * Malformed lists -> SB_EUSAGE naming `what` (e.g. "SLURM_JOB_NODELIST").
 * *names is NULL-terminated; free with sb_argv_free. */
int sb_slurm_hostlist_expand(const char *list, const char *what, char ***names, int *n, sb_err *e);

/* Expands a per-node count list ("2(x3),1", as in SLURM_TASKS_PER_NODE and
 * SLURM_JOB_CPUS_PER_NODE) into exactly `n` values; another total is
 * SB_EUSAGE. */
int sb_slurm_counts_expand(const char *spec, const char *what, int n, int *out, sb_err *e);

typedef struct sb_slurm_alloc {
    char job_id[64];
    char **nodes; /* NULL-terminated */
    int nnodes;
    int *tasks; /* per node: SLURM_TASKS_PER_NODE (1 each when not given) */
    int *cpus;  /* per node: SLURM_JOB_CPUS_PER_NODE (0 = unknown) */
} sb_slurm_alloc;

/* From the given values (NULL = not set): job id and node list are required
 * (SB_EUSAGE "not inside a Slurm allocation" without a job id). */
int sb_slurm_alloc_parse(const char *job_id, const char *nodelist, const char *tasks,
                         const char *cpus, sb_slurm_alloc *a, sb_err *e);
/* The same from SLURM_JOB_ID, SLURM_JOB_NODELIST (or SLURM_NODELIST),
 * SLURM_TASKS_PER_NODE and SLURM_JOB_CPUS_PER_NODE. */
int sb_slurm_alloc_from_env(sb_slurm_alloc *a, sb_err *e);
void sb_slurm_alloc_free(sb_slurm_alloc *a);

/* Whether points of up to `nodes` nodes, `ppn` ranks per node and `threads`
 * threads per rank fit: nodes <= the allocation's, ppn <= its tasks on each
 * of the first `nodes` nodes, ppn * threads <= their CPUs (when known).
 * SB_EUSAGE naming what is short, so a sweep stops before any point runs. */
int sb_slurm_check_fit(const sb_slurm_alloc *a, int nodes, int ppn, int threads, sb_err *e);

/* The allocation as an Open MPI hostfile (slots = tasks on the node), for
 * sb_hostfile_write_first. Free with sb_hostfile_free. */
void sb_slurm_alloc_hostfile(const sb_slurm_alloc *a, sb_hostfile *hf);

/* The names of the first n nodes, comma-separated ("sbnode1,sbnode2"), into buf. */
void sb_slurm_nodes_joined(const sb_slurm_alloc *a, int n, char *buf, size_t cap);

/* SB_OK when `program` (srun, sbatch) is found in PATH; otherwise SB_EUSAGE
 * saying which package installs it. */
int sb_slurm_require(const char *program, sb_err *e);

/* Slurm's explanation of a step it ended, from a launcher's stderr: the
 * slurmstepd line "*** STEP 12.3 ON node1 CANCELLED AT ... DUE TO TIME LIMIT
 * ***" (or JOB ...), else an srun line about a node failure or a cancelled
 * step. Copies it (trimmed, the "slurmstepd: error: " prefix dropped) into
 * buf and returns 1; 0 when there is none. */
int sb_slurm_kill_reason(const char *text, char *buf, size_t cap);

/* ---- a sweep's points (sb_sweep) ---- */
struct sb_plan;
/* Inside an allocation ($SLURM_JOB_ID) or for a batch script (batch), a
 * plan without a hostfile or launcher runs on Slurm's nodes: launcher slurm.
 * A batch script with a hostfile or another launcher is SB_EUSAGE. */
int sb_slurm_plan_launcher(struct sb_plan *p, int batch, sb_err *e);
/* Whether the plan launches through Slurm (launcher = slurm). */
int sb_slurm_plan_uses(const struct sb_plan *p);
/* Before anything is written: srun is installed, this process is inside an
 * allocation, and the plan's largest node count, ppn and threads fit in it.
 * SB_EUSAGE with one line naming the cause otherwise. */
int sb_slurm_plan_preflight(const struct sb_plan *p, sb_err *e);
/* For an n-node point: writes the hostfile of the allocation's first n nodes
 * to path (mpirun inside the allocation maps onto exactly those) and gives
 * the slots each has. */
int sb_slurm_point_hosts(int nodes, const char *path, int *slots, sb_err *e);
/* What the sweep records with a point that ran through Slurm, under "slurm"
 * in its result: {"job_id", "step_id" (the step rank 0 ran in, from the
 * worker's "slurm_step"; null when it ran in the batch step), "nodes": [...]}. */
void sb_slurm_point_annotate(json_t *doc, int nodes);
/* A failed point's reason with Slurm's own words first (from the launcher's
 * stderr in errlog, when it ended the step) and the job and nodes after, in
 * place. */
void sb_slurm_point_reason(const char *errlog, int nodes, char *reason, size_t cap);

/* ---- batch submission (sweep --sbatch FILE) ---- */
typedef struct sb_slurm_batch {
    int nodes, ppn, cpus_per_task;
    double time_limit_s;  /* > 0 */
    const char *job_name; /* default "sprbench-sweep" */
    const char *workdir;  /* absolute; the script changes into it */
    char *const *argv;    /* the sweep to run inside, NULL-terminated */
} sb_slurm_batch;

/* Slurm's time format for a limit, whole minutes rounded up:
 * "D-HH:MM:00" (or "HH:MM:00"). */
void sb_slurm_time_format(double seconds, char *buf, size_t cap);
/* The batch script text (#SBATCH --nodes, --ntasks-per-node,
 * --cpus-per-task, --time, --exclusive, --job-name; then the argv as one
 * quoted line). Caller frees; NULL when out of memory. */
char *sb_slurm_batch_script(const sb_slurm_batch *b);
struct sb_plan;
/* A finished plan's batch script written to path: the largest node count and
 * ppn, its threads as CPUs per task, and a time limit for every point taking
 * its whole timeout (the workload's default when the plan gives none; a
 * peak-probing sweep one point more) plus five minutes to start and store.
 * argv: the sweep to run inside. *b says what was asked for (its workdir
 * is NULL on return). */
int sb_slurm_plan_batch(const struct sb_plan *p, const char *path, char *const *argv,
                        sb_slurm_batch *b, sb_err *e);
/* Runs `sbatch --parsable SCRIPT` (argv, no shell) and returns the job id
 * it printed. SB_EFAIL with sbatch's own words when it refuses. */
int sb_slurm_submit(const char *script_path, char *job_id, size_t cap, sb_err *e);

#endif
