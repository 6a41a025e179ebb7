/* sb_launch: hostfile parsing (good and malformed, with file:line), writing
 * the first n hosts, the mpirun argv, rendering and splitting, and the point
 * runner: exit codes, signals, timeouts that leave no process behind. */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "sb_io.h"
#include "sb_launch.h"

#include "testutil.h"

static void test_hostfile(const char *dir)
{
    sb_err e = {0};
    sb_hostfile hf;
    const char *good = "# cluster\n\nnode1 slots=2 max_slots=4\n  node2   slots = 3 # trailing\n"
                       "node3\nnode1 slots=1\n10.0.0.7 max-slots=8\n";
    CHECKF(!sb_hostfile_parse_text(good, "good", &hf, &e), "good hostfile: %s", e.msg);
    CHECKF(hf.n == 4, "%d hosts, want 4", hf.n);
    if (hf.n == 4) {
        CHECKF(!strcmp(hf.hosts[0].name, "node1") && hf.hosts[0].slots == 3 &&
                   hf.hosts[0].max_slots == 4,
               "node1 merged: slots %d", hf.hosts[0].slots);
        CHECKF(!strcmp(hf.hosts[1].name, "node2") && hf.hosts[1].slots == 3, "node2");
        CHECKF(hf.hosts[2].slots == 0 && hf.hosts[2].line == 5, "node3 slots %d line %d",
               hf.hosts[2].slots, hf.hosts[2].line);
        CHECKF(!strcmp(hf.hosts[3].name, "10.0.0.7") && hf.hosts[3].max_slots == 8, "ip host");
        CHECKF(sb_hostfile_min_slots(&hf, 2) == 3, "min slots of 2: %d",
               sb_hostfile_min_slots(&hf, 2));
        CHECKF(sb_hostfile_min_slots(&hf, 3) == 0, "unspecified slots should give 0");
    }
    char path[512], back[512];
    snprintf(path, sizeof path, "%s/first2", dir);
    CHECKF(!sb_hostfile_write_first(&hf, 2, path, &e), "write_first: %s", e.msg);
    sb_hostfile hb;
    CHECKF(!sb_hostfile_parse(path, &hb, &e), "reparse: %s", e.msg);
    CHECKF(hb.n == 2 && !strcmp(hb.hosts[1].name, "node2") && hb.hosts[1].slots == 3, "first 2");
    sb_hostfile_free(&hb);
    CHECKF(sb_hostfile_write_first(&hf, 5, path, &e) == SB_EUSAGE && strstr(e.msg, "5"),
           "5 of 4 hosts: %s", e.msg);
    sb_hostfile_free(&hf);

    struct {
        const char *text, *want;
    } bad[] = {
        {"node1 slots=abc\n", "bad:1"},
        {"node1\nnode2 slots=0\n", "bad:2"},
        {"\n\nnode1 cores=2\n", "bad:3"},
        {"slots=2\n", "bad:1: line starts with"},
        {"node1 extra\n", "bad:1"},
        {"node$1 slots=1\n", "bad:1"},
        {"node1 slots=4 max_slots=2\n", "bad:1"},
        {"# nothing\n\n", "no hosts"},
        {"", "no hosts"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sb_err be = {0};
        int rc = sb_hostfile_parse_text(bad[i].text, "bad", &hf, &be);
        CHECKF(rc == SB_EUSAGE && strstr(be.msg, bad[i].want), "malformed #%zu: rc %d msg '%s'", i,
               rc, be.msg);
        CHECKF(hf.n == 0 && !hf.hosts, "malformed #%zu left hosts", i);
    }
    snprintf(back, sizeof back, "%s/missing", dir);
    CHECKF(sb_hostfile_parse(back, &hf, &e) == SB_EUSAGE && strstr(e.msg, "missing"),
           "missing file: %s", e.msg);
}

static int has_seq(char **argv, const char *a, const char *b)
{
    for (int i = 0; argv[i]; i++)
        if (!strcmp(argv[i], a) && (!b || (argv[i + 1] && !strcmp(argv[i + 1], b)))) return 1;
    return 0;
}

static void test_argv(void)
{
    sb_err e = {0};
    const char *worker[] = {"/opt/sprbench", "train", "--steps", "2", NULL};
    const char *extra[] = {"--mca", "btl", "tcp,self", NULL};
    const char *env[] = {"SB_X=1", NULL};
    sb_launch_spec s = SB_LAUNCH_SPEC_INIT;
    s.hostfile = "/tmp/h";
    s.nodes = 4;
    s.ppn = 2;
    s.threads = 24;
    s.as_root = 1;
    s.slots_per_node = 2;
    s.cores_per_node = 56;
    s.rsh_agent = "ssh -F /tmp/c cfg";
    s.worker = worker;
    s.extra = extra;
    s.env = env;
    char **argv = NULL;
    CHECKF(!sb_launch_mpirun_argv(&s, &argv, &e), "argv: %s", e.msg);
    char *line = sb_argv_render(argv);
    printf("%s\n", line);
    const char *want =
        "mpirun --allow-run-as-root --hostfile /tmp/h -np 8 --map-by ppr:2:node:PE=24 "
        "--bind-to core -x OMP_NUM_THREADS=24 -x OMPI_ALLOW_RUN_AS_ROOT=1 "
        "-x OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 -x SB_X=1 --mca plm_rsh_agent 'ssh -F /tmp/c cfg' "
        "--mca btl tcp,self /opt/sprbench train --steps 2";
    CHECKF(!strcmp(line, want), "argv rendered as\n  %s\nwant\n  %s", line, want);
    /* The rendered line splits back into the same argv. */
    char **back = NULL;
    int nb = 0;
    CHECKF(!sb_launch_split_args(line, &back, &nb, &e), "split: %s", e.msg);
    int n = 0;
    while (argv[n]) n++;
    CHECKF(nb == n, "split gives %d tokens, argv has %d", nb, n);
    for (int i = 0; i < n && i < nb; i++)
        CHECKF(!strcmp(argv[i], back[i]), "token %d: %s vs %s", i, argv[i], back[i]);
    sb_argv_free(back);
    free(line);
    sb_argv_free(argv);

    /* ppn above the hostfile's slots -> --oversubscribe; too few cores -> no PE. */
    s.ppn = 3;
    s.cores_per_node = 2;
    s.threads = 1;
    CHECKF(!sb_launch_mpirun_argv(&s, &argv, &e), "argv: %s", e.msg);
    CHECKF(has_seq(argv, "--oversubscribe", NULL), "no --oversubscribe with ppn 3 > slots 2");
    CHECKF(has_seq(argv, "--map-by", "ppr:3:node") && has_seq(argv, "--bind-to", "none"),
           "oversubscribed cores should map ppr:3:node, bind none");
    CHECKF(has_seq(argv, "-np", "12"), "np 12");
    sb_argv_free(argv);
    s.ppn = 1;
    s.bind = "socket";
    s.cores_per_node = 0;
    s.as_root = 0;
    s.rsh_agent = NULL;
    s.extra = NULL;
    CHECKF(!sb_launch_mpirun_argv(&s, &argv, &e), "argv: %s", e.msg);
    CHECKF(has_seq(argv, "--bind-to", "socket") && !has_seq(argv, "--oversubscribe", NULL) &&
               !has_seq(argv, "--allow-run-as-root", NULL) && !has_seq(argv, "--mca", NULL),
           "socket spec");
    sb_argv_free(argv);
    s.bind = "cores";
    CHECKF(sb_launch_mpirun_argv(&s, &argv, &e) == SB_EUSAGE, "bad bind accepted");
    s.bind = "core";
    s.hostfile = NULL;
    CHECKF(sb_launch_mpirun_argv(&s, &argv, &e) == SB_EUSAGE, "4 nodes without hostfile accepted");
    s.nodes = 1;
    s.worker = NULL;
    CHECKF(sb_launch_mpirun_argv(&s, &argv, &e) == SB_EUSAGE, "no worker accepted");

    char *q = sb_argv_render((char *[]){"a b", "it's", "", "$HOME", "plain-1.0", NULL});
    CHECKF(!strcmp(q, "'a b' 'it'\\''s' '' '$HOME' plain-1.0"), "quoting: %s", q);
    free(q);
    CHECKF(
        !sb_launch_split_args("  --mca plm_rsh_agent \"ssh -F x\" a\\ b 'c d'  ", &back, &nb, &e) &&
            nb == 5 && !strcmp(back[2], "ssh -F x") && !strcmp(back[3], "a b") &&
            !strcmp(back[4], "c d"),
        "split with quotes");
    sb_argv_free(back);
    CHECKF(!sb_launch_split_args("", &back, &nb, &e) && nb == 0 && back && !back[0], "empty split");
    sb_argv_free(back);
    CHECKF(sb_launch_split_args("a 'b", &back, &nb, &e) == SB_EUSAGE, "unbalanced accepted");
}

/* Processes whose command line contains marker (another process's argv). */
static int count_procs(const char *marker)
{
    DIR *d = opendir("/proc");
    struct dirent *de;
    int n = 0;
    while (d && (de = readdir(d))) {
        if (!atoi(de->d_name) || atoi(de->d_name) == getpid()) continue;
        char p[300], buf[4096];
        snprintf(p, sizeof p, "/proc/%s/cmdline", de->d_name);
        FILE *f = fopen(p, "r");
        if (!f) continue;
        size_t len = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        for (size_t i = 0; i < len; i++)
            if (!buf[i]) buf[i] = ' ';
        buf[len] = 0;
        /* Zombies have an empty cmdline and hold nothing. */
        if (strstr(buf, marker)) n++;
    }
    if (d) closedir(d);
    return n;
}

static int group_gone(int pgid) { return !sb_launch_group_alive(pgid); }

static void test_runner(const char *dir)
{
    sb_err e = {0};
    sb_run_result r;
    char out[512], err[512], msg[128];
    snprintf(out, sizeof out, "%s/out", dir);
    snprintf(err, sizeof err, "%s/err", dir);
    CHECKF(!sb_launch_run((char *[]){"sh", "-c", "echo hello; echo oops >&2", NULL}, NULL, 10, out,
                          err, &r, &e) &&
               sb_run_ok(&r),
           "echo");
    char *text = NULL;
    size_t len = 0;
    CHECKF(!sb_read_file(out, &text, &len, &e) && !strcmp(text, "hello\n"), "stdout captured");
    free(text);
    CHECKF(!sb_read_file(err, &text, &len, &e) && !strcmp(text, "oops\n"), "stderr captured");
    free(text);
    sb_launch_run((char *[]){"sh", "-c", "exit 3", NULL}, NULL, 10, NULL, NULL, &r, &e);
    sb_run_describe(&r, 10, msg, sizeof msg);
    CHECKF(r.exited && r.exit_code == 3 && !sb_run_ok(&r) && !strcmp(msg, "exit 3"), "exit 3: %s",
           msg);
    sb_launch_run((char *[]){"sh", "-c", "kill -9 $$", NULL}, NULL, 10, NULL, NULL, &r, &e);
    sb_run_describe(&r, 10, msg, sizeof msg);
    CHECKF(r.signaled && r.signo == 9 && strstr(msg, "signal 9"), "killed: %s", msg);
    CHECKF(sb_launch_run((char *[]){"/nonexistent/prog", NULL}, NULL, 10, NULL, NULL, &r, &e) ||
               (r.exited && r.exit_code == 127),
           "missing program");

    /* A hung point with children: all of its group is gone after the timeout. */
    const char *m1 = "sleep 31.25";
    CHECKF(!sb_launch_run((char *[]){"sh", "-c", "sleep 31.25 & sleep 31.25 & wait", NULL}, NULL,
                          0.5, NULL, NULL, &r, &e),
           "run hung");
    sb_run_describe(&r, 0.5, msg, sizeof msg);
    CHECKF(r.timed_out && strstr(msg, "timeout"), "not timed out: %s", msg);
    CHECKF(group_gone(r.pgid), "process group %d still alive", r.pgid);
    CHECKF(count_procs(m1) == 0, "'%s' left behind", m1);
    /* One that ignores SIGTERM gets SIGKILL. */
    CHECKF(
        !sb_launch_run((char *[]){"sh", "-c", "trap '' TERM; sleep 31.5 & sleep 31.5; wait", NULL},
                       NULL, 0.3, NULL, NULL, &r, &e),
        "run stubborn");
    CHECKF(r.timed_out && group_gone(r.pgid) && count_procs("sleep 31.5") == 0,
           "TERM-ignoring point left behind");
    /* A leader that exits leaving a background child: the child is reaped too. */
    CHECKF(!sb_launch_run((char *[]){"sh", "-c", "sleep 31.75 & exit 0", NULL}, NULL, 10, NULL,
                          NULL, &r, &e),
           "run leaver");
    CHECKF(sb_run_ok(&r) && r.leftovers && group_gone(r.pgid) && count_procs("sleep 31.75") == 0,
           "leftover child survived (ok %d leftovers %d)", sb_run_ok(&r), r.leftovers);
    /* What left the group ends too: a detached child (setsid) and an orphan
     * (a double fork), after a clean end... */
    CHECKF(!sb_launch_run((char *[]){"sh", "-c",
                                     "setsid sleep 31.625 </dev/null & (sleep 31.625 &); exit 0",
                                     NULL},
                          NULL, 10, NULL, NULL, &r, &e),
           "run detacher");
    CHECKF(sb_run_ok(&r) && r.leftovers && count_procs("sleep 31.625") == 0,
           "detached child survived (ok %d leftovers %d, %d left)", sb_run_ok(&r), r.leftovers,
           count_procs("sleep 31.625"));
    /* ... and after a timeout, SIGTERM ignored */
    CHECKF(!sb_launch_run((char *[]){"sh", "-c",
                                     "trap '' TERM; setsid sleep 31.375 </dev/null &"
                                     " (sleep 31.375 &); sleep 31.375",
                                     NULL},
                          NULL, 0.3, NULL, NULL, &r, &e),
           "run stubborn detacher");
    CHECKF(r.timed_out && group_gone(r.pgid) && count_procs("sleep 31.375") == 0,
           "detached TERM-ignoring children survived the timeout (%d left)",
           count_procs("sleep 31.375"));

    /* A hung MPI job: mpirun and every rank are gone after the timeout. */
    if (access("/usr/bin/mpirun", X_OK) == 0) {
        const char *worker[] = {"sleep", "32.5", NULL};
        sb_launch_spec s = SB_LAUNCH_SPEC_INIT;
        s.ppn = 2;
        s.oversubscribe = 1;
        s.bind = "none";
        s.worker = worker;
        char **argv;
        CHECKF(!sb_launch_mpirun_argv(&s, &argv, &e), "mpirun argv");
        CHECKF(!sb_launch_run(argv, NULL, 3, NULL, err, &r, &e), "mpirun run: %s", e.msg);
        int left = count_procs("sleep 32.5");
        CHECKF(r.timed_out && group_gone(r.pgid) && left == 0,
               "hung mpirun: timed_out %d, %d rank(s) left", r.timed_out, left);
        sb_argv_free(argv);
    }
}

static void test_probe(void)
{
    sb_err e = {0};
    CHECKF(!sb_launch_probe_host("/bin/echo", "node1", 5, &e), "echo agent: %s", e.msg);
    CHECKF(sb_launch_probe_host("sh -c 'echo no route to $0 >&2; exit 255'", "node9", 5, &e) ==
                   SB_EUSAGE &&
               strstr(e.msg, "node9 is unreachable") && strstr(e.msg, "exit 255") &&
               strstr(e.msg, "no route to node9"),
           "failing agent: %s", e.msg);
    CHECKF(sb_launch_probe_host("sh -c 'sleep 5'", "slow", 0.3, &e) == SB_EUSAGE &&
               strstr(e.msg, "timeout"),
           "hanging agent: %s", e.msg);
    CHECKF(sb_launch_probe_host("'unbalanced", "h", 1, &e) == SB_EUSAGE, "bad agent accepted");
}

int main(void)
{
    char dir[] = "/tmp/sb_launch_test.XXXXXX";
    if (!mkdtemp(dir)) return 1;
    setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
    setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
    test_hostfile(dir);
    test_argv();
    test_runner(dir);
    test_probe();
    char cmd[600];
    snprintf(cmd, sizeof cmd, "%s/first2", dir);
    unlink(cmd);
    snprintf(cmd, sizeof cmd, "%s/out", dir);
    unlink(cmd);
    snprintf(cmd, sizeof cmd, "%s/err", dir);
    unlink(cmd);
    rmdir(dir);
    printf("%s: %d failure(s)\n", g_test_failures ? "FAIL" : "ok", g_test_failures);
    return g_test_failures ? 1 : 0;
}
