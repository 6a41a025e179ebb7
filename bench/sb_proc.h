/* sb_proc: the processes of this machine as /proc shows them, read with
 * system calls alone (no allocation, no stdio), so that a process forked
 * from a threaded one may use it before it execs (the sweep's run guard,
 * harness/run/sb_guard): every process's state, parent and group, and
 * whether a process group still has a member that can run (the check,
 * harness/run/sb_holder, that nothing of a sweep's runs lives before
 * another run of it).
 *
 *   if (sb_proc_group_alive(pgid, NULL)) ... "still running";
 *   sb_proc_scan(each_child, &ctx);      // fn(info, ctx) per process
 */
#ifndef SB_PROC_H
#define SB_PROC_H

typedef struct sb_proc_info {
    int pid;
    char state; /* R, S, D, Z (zombie), X (dead), T, t, ... */
    int ppid;
    int pgrp;
    char comm[16]; /* its command name (prctl PR_SET_NAME, 15 bytes at most) */
} sb_proc_info;

/* The command name of the sweep's run guards and of the process that holds
 * their group (harness/run/sb_guard: "sb-guard", "sb-guard-group"):
 * harness/run/sb_holder knows them by it, so that a group id reused by someone else after
 * the last of them ended is not taken for them. */
#define SB_PROC_GUARD_COMM "sb-guard"

/* Calls fn for every process that /proc lists and whose stat reads, until
 * fn returns non-zero (that value is returned); 0 after the last, -1 when
 * /proc cannot be read. Processes come and go meanwhile: a scan is a
 * snapshot only of those it saw. Async-signal-safe. */
int sb_proc_scan(int (*fn)(const sb_proc_info *p, void *ctx), void *ctx);

/* Whether any process of group pgid can still run: zombies, which hold
 * nothing, do not count; with comm, only a process whose command name
 * starts with it. A /proc that cannot be read counts as alive (the careful
 * answer). Async-signal-safe. */
int sb_proc_group_alive(int pgid, const char *comm);

#endif
