/* sb_launch: everything between a sweep point and the processes that run it:
 * the Open MPI hostfile (parse, write the first n hosts), the mpirun argv for
 * a (nodes, ppn, threads, bind) point, rendering an argv as one copy-pasteable
 * shell line (for the database and --dry-run), splitting --mpirun-args, and a
 * point runner that spawns an argv in its own process group under a guard
 * (sb_guard), waits with a timeout and leaves no process behind.
 *
 * Typical use by the sweep (error handling elided):
 *
 *   sb_hostfile hf;  sb_hostfile_parse("hosts", &hf, &e);       // exit 2 on error
 *   sb_hostfile_write_first(&hf, nodes, "/tmp/pt.hosts", &e);   // n-node point
 *   sb_launch_spec s = SB_LAUNCH_SPEC_INIT;
 *   s.hostfile = "/tmp/pt.hosts"; s.nodes = nodes; s.ppn = ppn; s.threads = t;
 *   s.slots_per_node = sb_hostfile_min_slots(&hf, nodes);
 *   s.worker = (const char *const[]){"/path/sprbench", "train", ..., NULL};
 *   char **argv; sb_launch_mpirun_argv(&s, &argv, &e);
 *   char *cmd = sb_argv_render(argv);                           // store / print
 *   sb_run_result r; sb_launch_run(argv, NULL, 600, "out.log", "err.log", &r, &e);
 *   if (r.timed_out) ... "timeout"; else if (!sb_run_ok(&r)) ... "failed";
 *   free(cmd); sb_argv_free(argv); sb_hostfile_free(&hf);
 */
#ifndef SB_LAUNCH_H
#define SB_LAUNCH_H
#include "sb_err.h"
#include "sb_text.h" /* sb_argv_render */

/* ---- hostfile (Open MPI syntax) ----
 *   # comment
 *   node1 slots=2 max_slots=4      (also "slots = 2", count=, max-slots=)
 *   node2                          (slots unspecified: 0 here; mpirun uses cores)
 * A host listed twice is merged (slots added), as Open MPI does. */
typedef struct sb_host {
    char *name;
    int slots;     /* 0 = not given */
    int max_slots; /* 0 = not given */
    int line;      /* first line it appeared on */
} sb_host;

typedef struct sb_hostfile {
    sb_host *hosts;
    int n;
} sb_hostfile;

/* Malformed input -> SB_EUSAGE with "FILE:LINE: what is wrong"; an empty host
 * list is malformed too. */
int sb_hostfile_parse(const char *path, sb_hostfile *hf, sb_err *e);
/* Same on text already in memory; `name` is used in messages. */
int sb_hostfile_parse_text(const char *text, const char *name, sb_hostfile *hf, sb_err *e);
void sb_hostfile_free(sb_hostfile *hf);
/* Writes the first n hosts (slots/max_slots kept) atomically; SB_EUSAGE when
 * the file has fewer than n hosts. */
int sb_hostfile_write_first(const sb_hostfile *hf, int n, const char *path, sb_err *e);
/* Smallest declared slot count among the first n hosts; 0 if any is unspecified. */
int sb_hostfile_min_slots(const sb_hostfile *hf, int n);

/* ---- mpirun argv (Open MPI 4.1) ---- */
typedef struct sb_launch_spec {
    const char *mpirun;        /* program, default "mpirun" */
    const char *hostfile;      /* NULL: run on this machine only */
    int nodes;                 /* >= 1 */
    int ppn;                   /* ranks per node, >= 1 */
    int threads;               /* OpenMP threads per rank, >= 1 */
    const char *bind;          /* "core" (default), "socket", "none" */
    int slots_per_node;        /* 0 unknown; ppn > slots adds --oversubscribe */
    int cores_per_node;        /* 0 unknown; ppn*threads > cores: no PE=, bind none,
                                    --oversubscribe (sb_bind then warns in the worker) */
    int oversubscribe;         /* force --oversubscribe */
    int as_root;               /* -1 detect (geteuid), 0 no, 1 yes: --allow-run-as-root
                                    and -x OMPI_ALLOW_RUN_AS_ROOT*=1 */
    const char *rsh_agent;     /* e.g. "ssh -F /tmp/sprbench-cluster/ssh_config" */
    const char *const *env;    /* NULL-terminated: "NAME=value" or "NAME", each -x */
    int forward_env;           /* also -x NAME for each variable of this environment
                                    that results record (sb_env_recorded: OMP_*,
                                    ONEDNN_*, LD_PRELOAD, ...): every rank, local or
                                    remote, runs with the launcher's values */
    const char *const *extra;  /* NULL-terminated extra mpirun tokens (--mpirun-args) */
    const char *const *worker; /* NULL-terminated worker argv (required) */
} sb_launch_spec;

#define SB_LAUNCH_SPEC_INIT                                                                   \
    {                                                                                         \
        .mpirun = "mpirun", .nodes = 1, .ppn = 1, .threads = 1, .bind = "core", .as_root = -1 \
    }

/* Builds the NULL-terminated argv:
 *   mpirun [--allow-run-as-root] [--hostfile H] -np ppn*nodes
 *     --map-by ppr:P:node:PE=T --bind-to core      (bind core)
 *     --map-by ppr:P:node --bind-to socket|none    (bind socket|none, or oversubscribed)
 *     [--oversubscribe] -x OMP_NUM_THREADS=T [-x OMPI_ALLOW_RUN_AS_ROOT=1 ...]
 *     [-x ENV...] [-x NAME... (forward_env)] [--mca plm_rsh_agent AGENT] [extra...] worker...
 * SB_EUSAGE for a bad spec. Free with sb_argv_free. */
int sb_launch_mpirun_argv(const sb_launch_spec *s, char ***argv, sb_err *e);
void sb_argv_free(char **argv);
/* A growing NULL-terminated argv of malloc'd strings: push what is built,
 * then take v (freed with sb_argv_free). oom: a push ran out of memory (and
 * later pushes do nothing); check it before using v. */
typedef struct sb_argv_builder {
    char **v;
    int n, cap, oom;
} sb_argv_builder;
void sb_argv_push(sb_argv_builder *b, const char *s);
void sb_argv_pushf(sb_argv_builder *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Splits a --mpirun-args string into tokens, honouring '...' and "..." and
 * backslash escapes (no expansion of any kind); unbalanced quotes -> SB_EUSAGE.
 * *tokens is NULL-terminated; free with sb_argv_free. */
int sb_launch_split_args(const char *s, char ***tokens, int *count, sb_err *e);

/* Checks that `host` answers through the launcher agent (rsh_agent split
 * like --mpirun-args; NULL = "ssh") by running `AGENT [opts] host true` with a
 * timeout; for ssh, BatchMode and ConnectTimeout are added so it never waits
 * for a password. SB_EUSAGE "host H is unreachable via AGENT: why" otherwise,
 * for the sweep's one clear line before it starts. */
int sb_launch_probe_host(const char *rsh_agent, const char *host, double timeout_s, sb_err *e);

/* ---- point runner ---- */
typedef struct sb_run_result {
    int exited; /* exited normally: exit_code valid */
    int exit_code;
    int signaled; /* killed by a signal: signo valid */
    int signo;
    int timed_out; /* we killed it after the timeout */
    int leftovers; /* processes it started still alive after it ended (killed) */
    int cancelled; /* *sb_launch_cancel became non-zero: the group was killed */
    double seconds;
    int pgid; /* the group it ran in (its pid) */
} sb_run_result;

/* Spawns argv[0] (PATH searched) in a new process group with envp (NULL: this
 * environment), stdout/stderr to the given files (NULL: inherited; files are
 * truncated), waits up to timeout_s (<= 0: no limit). It runs under a guard
 * (sb_guard), the subreaper of all it starts: on timeout or cancel the group
 * and whatever left it get SIGTERM, then SIGKILL after a grace of 3 s; after
 * the leader ends, any process left is ended so too; and so when this
 * process dies, even by SIGKILL. Nothing outlives the point. Returns SB_OK
 * when the process ran (whatever its status; see sb_run_ok), SB_EFAIL if it
 * could not be spawned. */
int sb_launch_run(char *const argv[], char *const envp[], double timeout_s, const char *stdout_path,
                  const char *stderr_path, sb_run_result *r, sb_err *e);
/* When set and non-zero (e.g. by a SIGINT handler), a running sb_launch_run
 * kills its process group (as on timeout) and returns with r->cancelled. */
#include <signal.h>
extern volatile sig_atomic_t *sb_launch_cancel;
int sb_run_ok(const sb_run_result *r);
/* Whether any process of group pgid can still run (zombies do not count). */
int sb_launch_group_alive(int pgid); /* exited with 0, no timeout */
/* "exit 3", "signal 9 (Killed)", "timeout after 10 s" into buf. */
void sb_run_describe(const sb_run_result *r, double timeout_s, char *buf, int cap);

#endif
