#include "sb_guard.h"
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "sb_proc.h"

/* What a guard tells the sweep: once that its worker started (a: its pid,
 * or -errno when it could not), once how it ended. */
enum { MSG_STARTED = 1, MSG_ENDED = 2 };
typedef struct guard_msg {
    int kind, a, b, c;
} guard_msg;

static void send_msg(int fd, int kind, int a, int b, int c)
{
    guard_msg m = {kind, a, b, c};
    while (write(fd, &m, sizeof m) < 0 && errno == EINTR) {}
}

/* 1 when a whole message was read (the pipe is non-blocking on our side). */
static int take_msg(int fd, guard_msg *m)
{
    ssize_t n;
    while ((n = read(fd, m, sizeof *m)) < 0 && errno == EINTR) {}
    return n == (ssize_t)sizeof *m;
}

static double mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void set_action(int sig, void (*handler)(int))
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = handler;
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, NULL);
}

/* ---- the run group ---- */

static pid_t g_holder; /* the process that holds the run group */

int sb_guard_group(void) { return (int)g_holder; }

int sb_guard_group_open(void)
{
    if (g_holder) return (int)g_holder;
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) return 0;
    if (pid == 0) {
        /* nothing but SIGKILL ends it: the sweep's at its end, the
         * kernel's when the sweep dies */
        prctl(PR_SET_NAME, SB_PROC_GUARD_COMM "-group");
        setpgid(0, 0);
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent) _exit(0);
        sigset_t all;
        sigfillset(&all);
        sigprocmask(SIG_SETMASK, &all, NULL);
        for (;;) pause();
    }
    /* set here too, so the group exists before the first guard joins it */
    if (setpgid(pid, pid) != 0 && errno != EACCES) {
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        return 0;
    }
    g_holder = pid;
    return (int)pid;
}

void sb_guard_group_close(void)
{
    if (!g_holder) return;
    kill(g_holder, SIGKILL);
    while (waitpid(g_holder, NULL, 0) < 0 && errno == EINTR) {}
    g_holder = 0;
}

/* ---- the guard (a fork of the sweep: async-signal-safe calls only) ---- */

typedef struct guard_args {
    char *const *argv;
    char *const *envp;
    const char *out, *err;
    pid_t sweep, group;
    int report; /* write end of the pipe to the sweep */
} guard_args;

/* The worker, in the guard's child: a process group of its own (what a
 * timeout or a cancel signals first), SIGTERM should the guard die, the
 * signals the guard ignores or blocks back to their defaults, its logs. */
static void worker_exec(const guard_args *a, pid_t guard, int errfd)
{
    int err = 0;
    setpgid(0, 0);
    if (prctl(PR_SET_PDEATHSIG, SIGTERM) != 0 || getppid() != guard) _exit(127);
    static const int dflt[] = {SIGTERM, SIGINT, SIGHUP, SIGPIPE, SIGQUIT, SIGCHLD};
    for (size_t i = 0; i < sizeof dflt / sizeof dflt[0]; i++) set_action(dflt[i], SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    const char *paths[2] = {a->out, a->err};
    for (int fd = 1; fd <= 2 && !err; fd++) {
        if (!paths[fd - 1]) continue;
        int o = open(paths[fd - 1], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (o < 0 || dup2(o, fd) < 0) err = errno;
        if (o >= 0) close(o);
    }
    if (!err) {
        execvpe(a->argv[0], a->argv, a->envp);
        err = errno;
    }
    while (write(errfd, &err, sizeof err) < 0 && errno == EINTR) {}
    _exit(127);
}

typedef struct signal_ctx {
    pid_t self;
    int sig;
} signal_ctx;

static int signal_child(const sb_proc_info *p, void *ctx)
{
    const signal_ctx *c = ctx;
    if (p->ppid == c->self && p->state != 'Z' && p->state != 'X') kill(p->pid, c->sig);
    return 0;
}

/* Everything of the run the guard can name: the worker's group while the
 * worker's pid holds its id (once reaped, the id may name a stranger's
 * group), and each of its own children, the worker and whatever its
 * descendants orphaned (the guard is their subreaper); what a child still
 * holds becomes a child in turn once that child is gone. */
static void signal_run(pid_t worker, int reaped, int sig)
{
    if (!reaped) kill(-worker, sig);
    signal_ctx c = {getpid(), sig};
    sb_proc_scan(signal_child, &c);
}

/* Starts the worker: its pid, or -errno. */
static int start_worker(const guard_args *a)
{
    int fds[2];
    if (pipe2(fds, O_CLOEXEC)) return -errno;
    pid_t guard = getpid(), w = fork();
    if (w < 0) {
        int err = errno;
        close(fds[0]);
        close(fds[1]);
        return -err;
    }
    if (w == 0) {
        close(fds[0]);
        worker_exec(a, guard, fds[1]);
    }
    close(fds[1]);
    int err = 0;
    ssize_t n;
    while ((n = read(fds[0], &err, sizeof err)) < 0 && errno == EINTR) {}
    close(fds[0]);
    if (n == (ssize_t)sizeof err && err) {
        while (waitpid(w, NULL, 0) < 0 && errno == EINTR) {}
        return -err;
    }
    /* set here too: a signal sent before the worker ran is still a group's */
    setpgid(w, w);
    return (int)w;
}

/* Runs the worker to its end, then ends what is left of the run; the end
 * (the worker's status, and whether anything was left) goes to the sweep. */
static void guard_run(const guard_args *a, pid_t w, const sigset_t *waitset)
{
    int status = 0, reaped = 0, leftovers = 0, stopping = 0;
    double t_stop = 0, t_kill = 0;
    for (;;) {
        pid_t p;
        int st;
        while ((p = waitpid(-1, &st, WNOHANG)) > 0)
            if (p == w) status = st, reaped = 1;
        if (p < 0 && errno == ECHILD) break; /* nothing of the run is left */
        double now = mono();
        if (reaped && !stopping) {
            /* the worker ended and something it started did not */
            leftovers = 1;
            stopping = 1;
            t_stop = now;
            signal_run(w, reaped, SIGTERM);
        }
        if (stopping == 1 && now - t_stop >= SB_GUARD_GRACE_S) stopping = 2, t_kill = now;
        if (stopping == 2) {
            if (now - t_kill > SB_GUARD_GIVE_UP_S) {
                leftovers = 1;
                break;
            }
            signal_run(w, reaped, SIGKILL);
        }
        double nap = stopping == 2 ? 0.01 : stopping == 1 ? SB_GUARD_GRACE_S - (now - t_stop) : 1.0;
        if (nap > 1.0) nap = 1.0;
        if (nap < 0.001) nap = 0.001;
        struct timespec ts = {(time_t)nap, (long)((nap - (double)(time_t)nap) * 1e9)};
        /* SIGCHLD wakes it for a child's end, SIGTERM for a stop: the
         * sweep's (sb_guard_stop) or the kernel's as the sweep died */
        if (sigtimedwait(waitset, NULL, &ts) == SIGTERM && !stopping) {
            stopping = 1;
            t_stop = mono();
            signal_run(w, reaped, SIGTERM);
        }
    }
    send_msg(a->report, MSG_ENDED, reaped, status, leftovers);
}

static void guard_main(const guard_args *a)
{
    /* SIGTERM and SIGCHLD are taken in turn (sigtimedwait); SIGINT, SIGHUP
     * and SIGQUIT are the sweep's to decide on */
    sigset_t waitset;
    sigemptyset(&waitset);
    sigaddset(&waitset, SIGTERM);
    sigaddset(&waitset, SIGCHLD);
    sigprocmask(SIG_SETMASK, &waitset, NULL);
    set_action(SIGTERM, SIG_DFL);
    set_action(SIGCHLD, SIG_DFL);
    set_action(SIGINT, SIG_IGN);
    set_action(SIGHUP, SIG_IGN);
    set_action(SIGQUIT, SIG_IGN);
    set_action(SIGPIPE, SIG_IGN);
    /* named before it joins: the store knows a guard by its name */
    prctl(PR_SET_NAME, SB_PROC_GUARD_COMM);
    if (a->group > 0) setpgid(0, a->group);
    /* without it (a kernel before 3.4) orphans go to init, as before */
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    if (prctl(PR_SET_PDEATHSIG, SIGTERM) != 0 || getppid() != a->sweep) _exit(0);
    int w = start_worker(a);
    send_msg(a->report, MSG_STARTED, w, 0, 0);
    if (w > 0) guard_run(a, (pid_t)w, &waitset);
    _exit(0);
}

/* ---- the sweep's side ---- */

int sb_guard_start(char *const argv[], char *const envp[], const char *stdout_path,
                   const char *stderr_path, sb_guard *g)
{
    *g = (sb_guard){0, -1, 0};
    int fds[2];
    if (pipe2(fds, O_CLOEXEC)) return errno;
    guard_args a = {argv, envp, stdout_path, stderr_path, getpid(), g_holder, fds[1]};
    pid_t pid = fork();
    if (pid < 0) {
        int err = errno;
        close(fds[0]);
        close(fds[1]);
        return err;
    }
    if (pid == 0) {
        close(fds[0]);
        guard_main(&a);
    }
    close(fds[1]);
    fcntl(fds[0], F_SETFL, O_NONBLOCK);
    /* Its first word: the worker runs, or why not. Other guards started at
     * the same time (a duet's) may hold this pipe too, so its end is no
     * sign: the guard's own end is. */
    guard_msg m;
    int got = 0, gone = 0;
    while (!(got = take_msg(fds[0], &m)) && !gone) {
        struct pollfd pf = {fds[0], POLLIN, 0};
        poll(&pf, 1, 50);
        if (waitpid(pid, NULL, WNOHANG) == pid) gone = 1;
    }
    if (!got && gone) got = take_msg(fds[0], &m);
    if (!got || m.kind != MSG_STARTED || m.a <= 0) {
        /* no worker: the guard ends by itself (or has ended) */
        if (!gone)
            while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {}
        close(fds[0]);
        return got && m.kind == MSG_STARTED && m.a < 0 ? -m.a : ECHILD;
    }
    *g = (sb_guard){(int)pid, fds[0], m.a};
    return 0;
}

void sb_guard_stop(const sb_guard *g)
{
    if (g->pid > 0) kill((pid_t)g->pid, SIGTERM);
}

int sb_guard_wait(sb_guard *g, int block, sb_guard_end *end)
{
    *end = (sb_guard_end){0};
    if (g->pid <= 0) return 1;
    pid_t r;
    while ((r = waitpid((pid_t)g->pid, NULL, block ? 0 : WNOHANG)) < 0 && errno == EINTR) {}
    if (r == 0) return 0;
    guard_msg m;
    if (take_msg(g->fd, &m) && m.kind == MSG_ENDED) {
        end->reaped = m.a;
        end->status = m.b;
        end->leftovers = m.c;
    }
    close(g->fd);
    g->fd = -1;
    g->pid = 0;
    return 1;
}
