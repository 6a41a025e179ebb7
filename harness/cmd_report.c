/* sprbench report: Markdown + self-contained HTML comparison of two
 * machines or sweeps. */
#include <errno.h>
#include <stddef.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "sb_cli.h"
#include "sb_opts.h"
#include "sb_gnuplot.h"
#include "sb_cmds.h"
#include "sb_text.h"
#include "sb_export.h"
#include "sb_import.h"
#include "sb_ptset.h"
#include "sb_report.h"

#define MAX_DBS 16

/* The merged database's directory and what SQLite left in it: paths made
 * before the directory is, so that a signal handler can remove them with
 * unlink and rmdir alone (async-signal-safe). */
static const char *const g_tmp_names[] = {"merged.db", "merged.db-wal", "merged.db-shm",
                                          "merged.db-journal"};
#define NTMP (sizeof g_tmp_names / sizeof g_tmp_names[0])
static char g_tmp_paths[NTMP][4200], g_tmp_dir[4096];
static volatile sig_atomic_t g_tmp_armed;

static void remove_tmp(void)
{
    for (size_t i = 0; i < NTMP; i++) unlink(g_tmp_paths[i]);
    rmdir(g_tmp_dir);
}

/* SIGTERM, SIGINT or SIGHUP while the merged copy exists: removed, then the
 * signal's own end (a report killed half way writes nothing else). */
static void on_fatal_signal(int sig)
{
    if (g_tmp_armed) remove_tmp();
    signal(sig, SIG_DFL);
    raise(sig);
}

static void arm_tmp(const char *dir)
{
    for (size_t i = 0; i < NTMP; i++)
        snprintf(g_tmp_paths[i], sizeof g_tmp_paths[i], "%s/%s", dir, g_tmp_names[i]);
    snprintf(g_tmp_dir, sizeof g_tmp_dir, "%s", dir);
    struct sigaction sa = {0};
    sa.sa_handler = on_fatal_signal;
    sigemptyset(&sa.sa_mask);
    g_tmp_armed = 1;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
}

static void disarm_tmp(void)
{
    signal(SIGTERM, SIG_DFL);
    signal(SIGINT, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
    if (g_tmp_armed) remove_tmp();
    g_tmp_armed = 0;
}

static void report_help(void)
{
    printf(
        "usage: sprbench report --baseline MACHINE|SWEEP --candidate MACHINE|SWEEP\n"
        "                       [--db FILE] --out DIR [--title TEXT] [--no-plots]\n"
        "                       [--templates DIR] [--gate] [--only-changed]\n"
        "                       [--baseline-sweeps S,..] [--candidate-sweeps S,..]\n\n"
        "Writes DIR/report.md and DIR/report.html (self-contained: plots embedded) comparing\n"
        "two machines or two sweeps. It opens with the sweeps each side used and the headline:\n"
        "each machine's DistilBERT epoch at its best kernel per precision (f32, bf16, int8),\n"
        "projected onto SQuAD v1.1's train split as run_qa.py makes it (88,524 features at\n"
        "seq 384 / stride 128) from the measured step times, the ratio with its interval or\n"
        "\"too few samples\", every difference between the runs named (batch, seq, threads,\n"
        "ranks, data set, precision, tool version, a noisy host), and the study's published\n"
        "figures beside it; then each machine's fastest GEMM kernel per precision, shape and\n"
        "threads (its own or a vendor's, named), each machine's fastest own kernel against\n"
        "the faster vendor there (oneDNN or MKL, by median, named; own/vendor, below 1 is\n"
        "behind), and on a machine with AMX its instruction generations against each other\n"
        "(\"What AMX gives\"). Then the machines side by side (CPU, microarchitecture,\n"
        "cores, ISA incl. AMX and whether the OS granted it, memory, kernel), the training\n"
        "epoch-time headline, tokens/s and epoch time per kernel, inference per kernel,\n"
        "batch and threads (sequences/s, latency p50/p99 at batch 1, EM/F1 and answers\n"
        "identical to f32; int8 points with their quantisation), peaks per ISA, GEMM\n"
        "throughput per kernel and shape, and scaling tables and plots (speedup against\n"
        "the fewest ranks each side ran, whatever the ppn; ideal lines dashed).\n"
        "It opens with a summary: which side is faster, by how much (geometric mean of\n"
        "the per-point speed ratios) and over which points, how many points the gate's\n"
        "test (one-sided Mann-Whitney U, alpha 0.01, 5%% tolerance, run both ways)\n"
        "finds significantly faster or slower and how many not (and, with --gate only, the\n"
        "verdict `sprbench gate --cross-machine` gives: two machines differ, a comparison\n"
        "is not a regression gate); points the gate tags noisy say so; it warns when both sides are the same\n"
        "sweep or machine. Every ratio reads \"1.40x faster\" or \"1.40x slower\" (the\n"
        "candidate against the baseline) with the test's word on it. Figures are\n"
        "medians with the p10-p90 range of their samples (error bars in the charts);\n"
        "every table names its units; projected figures say so and point to a note\n"
        "that gives their provenance once; what a machine could not run shows as\n"
        "\"not available (reason)\". The PNG plots are also written to DIR for the Markdown.\n\n"
        "  MACHINE     a fingerprint (or a unique prefix of >= 4 digits), a hostname, a\n"
        "              microarchitecture (zen4, emerald-rapids, sapphire-rapids,\n"
        "              icelake-server), with its AMX state (emerald-rapids-amx,\n"
        "              emerald-rapids-no-amx), a substring of the CPU model (\"EPYC\"), or a\n"
        "              record file (a `db export` JSON) whose machine was imported: that\n"
        "              machine, the record's sweeps only; a name that matches several\n"
        "              machines lists them, each with the word that names it alone\n"
        "  SWEEP       a sweep id, (a prefix of) its uuid, or its label (the one started\n"
        "              last of that label; a machine's host name wins over a label)\n"
        "  --db FILE   default %s ($SPRBENCH_DB sets another); give it\n"
        "              once per database to compare machines kept in separate\n"
        "              databases (they are read together)\n"
        "  --no-plots  tables only (also when gnuplot is not installed)\n"
        "  --gate      also state the gate's PASS/WARN/FAIL verdict in the summary\n"
        "  --baseline-sweeps S,..  --candidate-sweeps S,..\n"
        "              read only these sweeps of the side (ids, uuid prefixes or labels;\n"
        "              a label is looked up on the side's machine first; GEMM, training\n"
        "              or any): a sweep that does not exist or is not on the side is an\n"
        "              error. Without them a side takes every sweep of its machine, and\n"
        "              where several sweeps ran one configuration, the one started last\n"
        "              (by the sweep's start time, ties by uuid; never the order of\n"
        "              import); the report says beside a figure which sweep it used\n"
        "  --only-changed  the per-point tables (training, inference, GEMM, other\n"
        "              workloads) keep only the rows whose difference is significant by\n"
        "              the gate's test or beyond its tolerance (5 %%), said at the top\n"
        "  --templates DIR  gnuplot templates of the bar charts (report-bars.gp;\n"
        "              default: $SPRBENCH_PLOTS, the source tree's plots/, the installed ones)\n\n"
        "DIR is created when missing, but not its parents. The report also says in which\n"
        "recorded environment variables (OMP_*, ONEDNN_*, LD_PRELOAD, ...) the two sides'\n"
        "runs differed, and sets their recorded software stacks (compiler, oneDNN, MKL,\n"
        "MPI, hypervisor, SMT, huge pages, governor, turbo) side by side.\n\n"
        "The last line printed is the headline (SQuAD epoch at each side's best kernel,\n"
        "ratio, the software differences that could explain it, mismatches), when a side\n"
        "trained.\n"
        "Exit status: 0 written, 1 failure, 2 bad usage or input.\n",
        sb_default_db());
}

/* The two sides, each pinned to its sweeps when --baseline-sweeps or
 * --candidate-sweeps names them (sweeps[0], sweeps[1]). */
static int resolve_sides(sb_db *db, const char *baseline, const char *candidate,
                         const char *const sweeps[2], sb_selection *b, sb_selection *cd, sb_err *e)
{
    int rc = sb_select_resolve(db, baseline, b, e);
    if (!rc) rc = sb_select_resolve(db, candidate, cd, e);
    if (!rc && sweeps[0]) rc = sb_select_pin_sweeps(db, b, sweeps[0], "--baseline-sweeps", e);
    if (!rc && sweeps[1]) rc = sb_select_pin_sweeps(db, cd, sweeps[1], "--candidate-sweeps", e);
    return rc;
}

/* What the command line asks for. */
typedef struct report_args {
    const char *baseline, *candidate, *dbs[MAX_DBS], *sweeps[2];
    int ndbs, no_plots;
    sb_report_opts ro;
} report_args;

/* --db, repeatable (its --help says so): each one kept */
static int to_custom(const char *key, const char *v, void *opts, sb_err *e)
{
    (void)key; /* --db, the one list */
    report_args *a = opts;
    if (a->ndbs == MAX_DBS) return sb_errf(e, SB_EUSAGE, "--db: at most %d", MAX_DBS);
    a->dbs[a->ndbs++] = v;
    return SB_OK;
}
static const sb_opt_ranges g_ranges = {NULL, NULL, NULL, to_custom};

#define O(f) offsetof(report_args, f)
static const sb_opt g_report_opts[] = {
    {"baseline", SB_OPT_STR, O(baseline), SB_OPT_NOSET, NULL},
    {"candidate", SB_OPT_STR, O(candidate), SB_OPT_NOSET, NULL},
    {"db", SB_OPT_EACH, O(dbs), SB_OPT_NOSET, "db"},
    {"out", SB_OPT_STR, O(ro.out_dir), SB_OPT_NOSET, NULL},
    {"title", SB_OPT_STR, O(ro.title), SB_OPT_NOSET, NULL},
    {"no-plots", SB_OPT_FLAG, O(no_plots), SB_OPT_NOSET, NULL},
    {"templates", SB_OPT_STR, O(ro.templates), SB_OPT_NOSET, NULL},
    {"gate", SB_OPT_FLAG, O(ro.gate), SB_OPT_NOSET, NULL},
    {"baseline-sweeps", SB_OPT_STR, O(sweeps[0]), SB_OPT_NOSET, NULL},
    {"candidate-sweeps", SB_OPT_STR, O(sweeps[1]), SB_OPT_NOSET, NULL},
    {"only-changed", SB_OPT_FLAG, O(ro.only_changed), SB_OPT_NOSET, NULL},
    {NULL}};
#undef O

int sb_cmd_report(int argc, char **argv)
{
    report_args a = {.ro = {.tool_version = sb_version()}};
    int rc = sb_cli_opts("report", argc, argv, g_report_opts, &a, &g_ranges, report_help);
    if (rc >= 0) return rc;
    const char *baseline = a.baseline, *candidate = a.candidate, **dbs = a.dbs;
    const char *const *sweeps = a.sweeps;
    int ndbs = a.ndbs;
    sb_report_opts ro = a.ro;
    ro.plots = !a.no_plots;
    if (!baseline || !candidate)
        return sb_cli_usage_error("report", "--baseline and --candidate are required (see --help)");
    if (!ro.out_dir) return sb_cli_usage_error("report", "--out DIR is required");
    sb_err e = {0};
    /* the title goes into both files as is: it must be text (it is cut
     * between characters to 700 bytes there) */
    if (ro.title && sb_text_check(ro.title, 100000, "--title", &e))
        return sb_cli_report("report", &e);
    /* before any database is opened or merged: --out may be created, but
     * only its last component */
    if (sb_cli_check_path("--baseline", baseline, &e) ||
        sb_cli_check_path("--candidate", candidate, &e) ||
        sb_cli_check_out_dir("--out", ro.out_dir, 1, &e))
        return sb_cli_report("report", &e);
    char tdir[4096];
    if (ro.plots && ro.templates && sb_gp_templates_dir(ro.templates, tdir, sizeof tdir, &e))
        return sb_cli_report("report", &e);
    if (ndbs == 0) dbs[ndbs++] = sb_default_db();
    for (int i = 0; i < ndbs; i++) {
        if (sb_cli_check_path("--db", dbs[i], &e)) return sb_cli_report("report", &e);
        if (access(dbs[i], F_OK) != 0)
            return sb_cli_usage_error("report", "%s: no such database", dbs[i]);
    }
    sb_db *db = NULL;
    /* Several databases are merged into a temporary one, in a directory of
     * its own (mkdtemp: created exclusively, mode 0700) under $TMPDIR: SQLite
     * puts its -wal and -shm files beside the database, and no one else can
     * plant a name or a link there. */
    char tmpdir[4096] = "", tmp[4200] = "";
    char joined[4096] = "";
    if (ndbs == 1) {
        ro.db_path = dbs[0];
        if (sb_db_open_readonly(dbs[0], &db, &e)) return sb_cli_report("report", &e);
    } else {
        const char *base = getenv("TMPDIR");
        if (!base || !*base) base = "/tmp";
        /* the handler is armed before the directory exists: no instant
         * in which a SIGTERM leaves it behind */
        if (snprintf(tmpdir, sizeof tmpdir, "%s/sprbench-report-XXXXXX", base) >=
            (int)sizeof tmpdir)
            return sb_cli_usage_error("report", "%s: too long a temporary directory", base);
        sigset_t block, old;
        sigemptyset(&block);
        sigaddset(&block, SIGTERM);
        sigaddset(&block, SIGINT);
        sigaddset(&block, SIGHUP);
        sigprocmask(SIG_BLOCK, &block, &old);
        if (!mkdtemp(tmpdir)) {
            sigprocmask(SIG_SETMASK, &old, NULL);
            return sb_cli_usage_error("report", "cannot create a temporary directory in %s: %s",
                                      base, strerror(errno));
        }
        arm_tmp(tmpdir);
        sigprocmask(SIG_SETMASK, &old, NULL);
        snprintf(tmp, sizeof tmp, "%s/merged.db", tmpdir);
        rc = sb_db_open(tmp, &db, &e);
        for (int i = 0; !rc && i < ndbs; i++) {
            sb_import_stats st;
            rc = sb_merge_db(db, dbs[i], &st, &e);
            size_t l = strlen(joined);
            snprintf(joined + l, sizeof joined - l, "%s%s", i ? " + " : "", dbs[i]);
        }
        ro.db_path = joined;
        if (rc) {
            if (db) sb_db_close(db);
            disarm_tmp();
            return sb_cli_report("report", &e);
        }
    }
    sb_selection b, cd;
    rc = resolve_sides(db, baseline, candidate, sweeps, &b, &cd, &e);
    sb_report_summary s;
    if (!rc) rc = sb_report_write(db, &b, &cd, &ro, &s, &e);
    sb_db_close(db);
    if (ndbs > 1) disarm_tmp();
    if (rc) return sb_cli_report("report", &e);
    printf("wrote %s and %s (%d table rows, %d plots)\n", s.md_path, s.html_path, s.rows,
           s.plots_drawn);
    /* what the reader came for, mismatches and all */
    if (s.headline[0]) {
        /* machine names are stored text: one inert line on the terminal */
        char line[sizeof s.headline * 3];
        printf("%s\n", sb_text_cell(line, sizeof line, s.headline, (int)sizeof s.headline, 0));
    }
    return 0;
}
