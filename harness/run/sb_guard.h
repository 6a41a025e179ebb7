/* sb_guard: the process between a sweep and each run of a point, so that
 * nothing a run starts outlives it: not a wrapper script that ignores
 * SIGTERM, not the child it leaves behind, not a process it detaches
 * (setsid, nohup ... &, a double fork), whether the run ends by itself, by
 * its timeout, by a cancel, or because the sweep died (SIGKILL included).
 *
 * The guard is a fork of the sweep (no exec: it uses system calls only,
 * sb_proc's /proc reader among them). It is its descendants' subreaper
 * (PR_SET_CHILD_SUBREAPER: whatever they orphan comes back to it, however
 * it detached), it hears the sweep's death (PR_SET_PDEATHSIG), and it runs
 * the worker in a process group of its own. When the worker ends with
 * anything of it left, when the sweep asks (sb_guard_stop) or when the
 * sweep dies, it sends SIGTERM to the worker's group and to each of its
 * own children, SIGKILL to all of them again and again after a grace of
 * SB_GUARD_GRACE_S, and ends only when it has no child left (or after
 * SB_GUARD_GIVE_UP_S of SIGKILLs: a process stuck in the kernel).
 *
 * Every guard of a sweep joins one process group, the sweep's run group
 * (sb_guard_group_open): a process that only holds it and dies with the
 * sweep. The store records that group with the sweep's claim, so that
 * `--resume` and `db unlock` refuse while a guard (and so anything of its
 * run) still lives, also after the sweep itself was killed.
 *
 *   sb_guard g;
 *   int err = sb_guard_start(argv, envp, "out.log", "err.log", &g);  // errno or 0
 *   ... sb_guard_wait(&g, 0, &end) until 1; sb_guard_stop(&g) on a timeout
 *   if (end.reaped && WIFEXITED(end.status)) ...
 */
#ifndef SB_GUARD_H
#define SB_GUARD_H

#define SB_GUARD_GRACE_S 3.0    /* between SIGTERM and SIGKILL */
#define SB_GUARD_GIVE_UP_S 30.0 /* of SIGKILLs before a guard leaves what it cannot kill */

/* Makes this process's run group (once; later calls return it): its id,
 * or 0 when none could be made (guards then stay in this process's group).
 * Call from the thread that lives as long as the runs do (the group's
 * holder dies with that thread). */
int sb_guard_group_open(void);
/* The run group's id, 0 when none is open. */
int sb_guard_group(void);
/* Ends the holder of the run group (after the runs ended). */
void sb_guard_group_close(void);

typedef struct sb_guard {
    int pid;    /* the guard, 0 once it was waited for */
    int fd;     /* what it reports */
    int worker; /* the worker, the leader of the run's process group */
} sb_guard;

typedef struct sb_guard_end {
    int reaped; /* the worker ended and status says how (waitpid status) */
    int status;
    int leftovers; /* it left processes behind, which the guard ended */
} sb_guard_end;

/* Starts a guard that runs argv[0] (PATH searched) with envp, its stdout
 * and stderr to the given files (NULL: inherited; files truncated). 0 once
 * the worker runs, else the errno why it could not start (no guard is left
 * then). Call from the thread that waits for it. */
int sb_guard_start(char *const argv[], char *const envp[], const char *stdout_path,
                   const char *stderr_path, sb_guard *g);
/* Asks the guard to end its run (SIGTERM, SIGKILL after the grace). */
void sb_guard_stop(const sb_guard *g);
/* 1 once the guard has ended (block: waits for it), and *end says how the
 * worker ended; 0 while it runs. */
int sb_guard_wait(sb_guard *g, int block, sb_guard_end *end);

#endif
