/* sprbench sweep: expand a plan into points, run each as a worker process,
 * store every sample, print a summary (and optionally draw the plots).
 * Options, checks, plan, run, report; what the options make of a sweep
 * (their checks, the plan, the batch script) is run/sb_sweep_cli's. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "sb_cli.h"
#include "sb_cmds.h"
#include "sb_pair_run.h"
#include "sb_plan.h"
#include "sb_plot.h"
#include "sb_sweep.h"
#include "sb_sweep_cli.h"
#include "sb_text.h"
#include "sb_tune_use.h"
#include "sb_workload.h"

static void sweep_help(void)
{
    char names[200];
    sb_workload_plan_names(names, sizeof names);
    printf("usage: sprbench sweep [options]\n\n"
           "Runs every point of a plan (kernel x shape or batch x threads x ppn x nodes) as\n"
           "its own worker process, stores every sample in SQLite as each point ends, and\n"
           "prints a summary table. With no options: the default plan on this machine (every\n"
           "kernel, threads 1..physical cores, shapes 1024^3 and the DistilBERT training\n"
           "GEMMs).\n\n"
           "  --workload W        %s (default: gemm)\n"
           "  --plan FILE         plan file (key = value lines; see README); flags override it\n"
           "  --kernels a,b       kernels (default: all registered)\n"
           "  --threads 1,2       OpenMP threads per rank (default: 1..physical cores)\n"
           "  --shapes MxNxK,...  GEMM shapes, each optionally :NN/:NT/:TN/:TT\n"
           "  --trans XY          transpose for shapes without their own\n"
           "  --reps R            repetitions per point (default: >= 1 s and >= 8)\n"
           "  --min-seconds S     time per GEMM point when --reps is not given\n"
           "  --prepack 1         GEMM: pack B once and time only its reuse (weights)\n"
           "  --ppn 1,2           MPI ranks per node;  --nodes 1,2,4  node counts\n"
           "  --hostfile FILE     Open MPI hostfile (the first n hosts form an n-node point)\n"
           "  --bind core|socket|none, --mpirun-args 'ARGS'  passed to mpirun\n"
           "  --launcher L        mpirun (default) or slurm (the default inside a Slurm\n"
           "                      allocation, when SLURM_JOB_ID is set and no --hostfile):\n"
           "                      every point runs as mpirun inside the allocation on its\n"
           "                      first n nodes, launched through Slurm as a job step; the\n"
           "                      job, step and nodes are stored with each point\n"
           "  --sbatch FILE       write a Slurm batch script that allocates what the plan needs\n"
           "                      (the largest node count and ppn, threads as CPUs per task,\n"
           "                      whole nodes, a time limit of points x --point-timeout) and\n"
           "                      runs this same sweep inside it; nothing runs here\n"
           "  --submit            with --sbatch: also submit it (sbatch) and print the job id;\n"
           "                      results land in --db (on a file system the nodes share)\n"
           "  --point-timeout S   a point running longer is killed and recorded as timeout\n"
           "  --batch 1,8,32      train and infer: each batch its own point, named in the\n"
           "                      point's series key (model=... batch=8 ...); infer: 32\n"
           "  --compare-f32       infer: also the share of answers identical to f32's\n"
           "  --quant row|tensor  infer: int8 activations per row (default) or per tensor;\n"
           "                      recorded in each int8 point's config\n"
           "  --attention int8    infer: the int8 points' attention products in int8 too\n"
           "                      (f32 points run theirs in f32); in their config\n"
           "  --project-nodes L   train: node counts the scaling model projects when the sweep\n"
           "                      ends, for each series measured at 1 node and at >= 1 larger\n"
           "                      node count (default 1,2,4,... up to 4x the largest measured;\n"
           "                      0 or none: no projection). Stored as status 'projected' points,\n"
           "                      never as measurements\n"
           "  --db PATH           database (default %s; $SPRBENCH_DB sets another)\n"
           "  --label TEXT        a name for the sweep (default: the microarchitecture and\n"
           "                      workload, e.g. zen4-default-gemm for the default plan,\n"
           "                      emerald-rapids-train for another)\n"
           "  --plots DIR         draw the sweep's plots into DIR when it ends\n"
           "  --json              the summary as one JSON document on stdout (progress goes\n"
           "                      to stderr): counts, every row of the table, the plots\n"
           "  --resume ID         rerun only the unfinished points of sweep ID (a paired\n"
           "                      sweep's in pairs, with the two binaries its plan keeps)\n"
           "  --no-peak           do not measure the peak first (a GEMM sweep of a machine\n"
           "                      without a stored peak measures it on the sweep's largest\n"
           "                      --threads; pct_peak then needs one stored)\n"
           "  --dry-run           print the points and their exact commands, run nothing\n"
           "\nPaired A/B (a CI gate on a shared machine, docs/gating.md; GEMM sweeps):\n"
           "  --pair-baseline B   with --pair-candidate C: every point runs the worker of\n"
           "                      binary B and of binary C alternately (any executable that\n"
           "                      takes sprbench gemm's options, a wrapper script included;\n"
           "                      a bare name is found on PATH), each resolved once to its\n"
           "                      absolute path, which runs and is stored; nothing it\n"
           "                      starts, detached or not, outlives its run; every sample is\n"
           "                      stored with its binary and its pair, and `sprbench gate\n"
           "                      --paired` judges the pairs. --point-timeout bounds a\n"
           "                      point's runs together; a run's result must be the point's\n"
           "                      (kernel, dtype, shape, threads) and its values measurements\n"
           "                      in range\n"
           "  --pair-mode M       abba (default): quads A B B A, the first A with the first\n"
           "                      B and the second B with the second A as pairs; random: A A\n"
           "                      B B shuffled per quad; duet: both at once, each bound to\n"
           "                      its own `threads` CPUs, swapped between the two pairs of a\n"
           "                      quad (points with 2 x threads above the cores run abba)\n"
           "  --pairs MIN[:MAX]   pairs per point (default 8:24): after MIN, stop as soon as\n"
           "                      the pairs decide (PASS or FAIL at --pair-tolerance), else\n"
           "                      at MAX\n"
           "  --pair-reps R       repetitions per run of one binary (default 3)\n"
           "  --pair-tolerance T  the minimum effect the stopping rule uses (default 5%%)\n"
           "  --pair-seed N       the random order's seed (default 1)\n\n"
           "gemm, train and infer points use this machine's tuned blocking beside --db\n"
           "(sprbench tune; $SPRBENCH_TUNE_FILE names another), --no-tune the built-in one.\n\n"
           "Worker options, per workload: passed to `sprbench WORKLOAD` (in a plan file a\n"
           "flag without a value is `key = 1`):\n",
           names, sb_default_db());
    sb_plan_workload_help(stdout);
    printf("\nExit status: 0 all points ran (some may be skipped), 1 a point failed or the\n"
           "sweep was interrupted, 2 bad input.\n");
}

/* ---- options ---- */

/* --resume ID: the one number the sweep reads itself (a plan's are the
 * plan's to check) */
static int sweep_long(const char *key, const char *value, const char *what, long *out, sb_err *e)
{
    (void)key;
    return sb_parse_long(value, 1, 1L << 40, what, out, e);
}

/* A plan key (its value, NULL for a flag), --sbatch and --submit (their
 * words left out of the batch script's sweep), a --pair-* option. */
static int sweep_custom(const char *key, const char *value, void *o, sb_err *e)
{
    sb_sweep_args *a = o;
    if (!strcmp(key, "sbatch") || !strcmp(key, "submit")) {
        /* optind, as sb_opts_parse's parser left it: the word after the option (and value) */
        a->batch_skip[optind - 1] = 1;
        if (value && value == a->argv[optind - 1] && optind >= 2) a->batch_skip[optind - 2] = 1;
        if (value) a->sbatch = value;
        a->submit |= !value;
        return SB_OK;
    }
    if (strncmp(key, "pair-", 5) && strcmp(key, "pairs"))
        return sb_sweep_args_key(a, key, value, e);
    char where[32];
    snprintf(where, sizeof where, "--%s", key);
    a->pair_opts = 1;
    return sb_pair_set(&a->pair, key, value, where, e);
}

#define O(f) offsetof(sb_sweep_args, f)
static const sb_opt g_sweep_own[] = {
    {"plan", SB_OPT_STR, O(plan_file), SB_OPT_NOSET, NULL},
    {"db", SB_OPT_STR, O(db_path), SB_OPT_NOSET, NULL},
    {"dry-run", SB_OPT_FLAG, O(dry), SB_OPT_NOSET, NULL},
    {"resume", SB_OPT_LONG, O(resume), SB_OPT_NOSET, "resume"},
    {"plots", SB_OPT_STR, O(plots), SB_OPT_NOSET, NULL},
    {"no-peak", SB_OPT_FLAG, O(no_peak), SB_OPT_NOSET, NULL},
    {"sbatch", SB_OPT_CUSTOM, 0, SB_OPT_NOSET, "sbatch"},
    {"submit", SB_OPT_CUSTOM_FLAG, 0, SB_OPT_NOSET, "submit"},
    {"json", SB_OPT_FLAG, O(as_json), SB_OPT_NOSET, NULL},
    {"pair-baseline", SB_OPT_STR, O(pair.baseline), SB_OPT_NOSET, NULL},
    {"pair-candidate", SB_OPT_STR, O(pair.candidate), SB_OPT_NOSET, NULL},
    {"pair-mode", SB_OPT_CUSTOM, 0, SB_OPT_NOSET, "pair-mode"},
    {"pairs", SB_OPT_CUSTOM, 0, SB_OPT_NOSET, "pairs"},
    {"pair-reps", SB_OPT_CUSTOM, 0, SB_OPT_NOSET, "pair-reps"},
    {"pair-tolerance", SB_OPT_CUSTOM, 0, SB_OPT_NOSET, "pair-tolerance"},
    {"pair-seed", SB_OPT_CUSTOM, 0, SB_OPT_NOSET, "pair-seed"},
    {NULL}};
#define SWEEP_OWN (sizeof g_sweep_own / sizeof g_sweep_own[0])
_Static_assert(SB_PLAN_CLI_KEYS + SWEEP_OWN <= SB_OPTS_MAX + 1, "sweep's options: SB_OPTS_MAX");

/* The command line into a: every plan key as --key (the first nvalue with a
 * value), then the sweep's own options. -1: go on; else the command's exit
 * code (--help 0, a usage error reported). */
static int sweep_parse(int argc, char **argv, sb_sweep_args *a)
{
    const char *keys[SB_PLAN_CLI_KEYS];
    sb_opt rows[SB_PLAN_CLI_KEYS + SWEEP_OWN];
    int nvalue = 0, nkeys = sb_plan_cli_keys(keys, &nvalue);
    for (int i = 0; i < nkeys; i++)
        rows[i] = (sb_opt){keys[i], i < nvalue ? SB_OPT_CUSTOM : SB_OPT_CUSTOM_FLAG, 0,
                           SB_OPT_NOSET, keys[i]};
    memcpy(rows + nkeys, g_sweep_own, sizeof g_sweep_own);
    sb_sweep_args_init(a, argc, argv, sb_default_db());
    if (argc >= SB_SWEEP_ARGV_MAX) return sb_cli_usage_error("sweep", "too many arguments");
    static const sb_opt_ranges ranges = {.to_long = sweep_long, .to_custom = sweep_custom};
    return sb_cli_opts("sweep", argc, argv, rows, a, &ranges, sweep_help);
}

/* ---- checks ---- */

/* The options that go together or exclude each other, and every path a
 * typo could break, checked before the first point runs: a sweep may take
 * hours, and its plots or database are its last step. */
static int sweep_check(sb_sweep_args *a, sb_err *e)
{
    int rc = sb_sweep_args_check(a, e);
    if (rc) return rc;
    if (a->sbatch && sb_cli_check_out_file("--sbatch", a->sbatch, e)) return e->code;
    const char *db = a->db_path, *plots = a->plots;
    if ((a->plan_file && sb_cli_check_path("--plan", a->plan_file, e)) ||
        sb_cli_check_path("--db", db, e) || (plots && sb_cli_check_path("--plots", plots, e)) ||
        (!a->dry && plots && sb_cli_check_out_dir("--plots", plots, 1, e)) ||
        (!a->dry && db != sb_default_db() && sb_cli_check_out_file("--db", db, e)))
        return e->code ? e->code : SB_EUSAGE;
    return SB_OK;
}

/* ---- report ---- */

/* After a sweep ran: its plots (with --plots), named in the summary
 * document (--json) or a line each; the document written last, whole. */
static int sweep_plots(const sb_sweep_args *a, int64_t sweep_id, json_t *doc, sb_err *e)
{
    if (a->plots) {
        sb_plot_opts po = {.db_path = a->db_path, .sweep_id = sweep_id, .out_dir = a->plots};
        char **files = NULL;
        int nfiles = 0;
        int rc = sb_plot_sweep(&po, &files, &nfiles, e);
        if (rc) return rc;
        for (int i = 0; i < nfiles; i++) {
            if (doc)
                json_array_append_new(json_object_get(doc, "plots"), sb_text_json(files[i]));
            else
                printf("plot: %s\n", files[i]);
            free(files[i]);
        }
        free(files);
    }
    if (doc) {
        /* one document, written only once everything in it is known */
        if (sb_text_json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER) == 0)
            putchar('\n');
    }
    return SB_OK;
}

/* The summary of a sweep that ran (a table, or with --json the document),
 * then its plots. */
static int sweep_report(const sb_sweep_args *a, const sb_sweep_outcome *out, int rc, sb_err *e)
{
    json_t *doc = NULL;
    if (out->sweep_id > 0) {
        sb_err se = {0};
        sb_sweep_show(a->db_path, out, stdout, a->as_json ? &doc : NULL, &se);
        if (se.code) sb_cli_report("sweep", &se);
    }
    if (!rc) rc = sweep_plots(a, out->sweep_id, doc, e);
    json_decref(doc);
    return rc;
}

int sb_cmd_sweep(int argc, char **argv)
{
    sb_sweep_args a;
    int rc = sweep_parse(argc, argv, &a);
    if (rc >= 0) return rc;
    sb_err e = {0};
    if (sweep_check(&a, &e)) return sb_cli_report("sweep", &e);

    sb_plan plan;
    sb_plan_init(&plan);
    int user_launcher = 0;
    if ((rc = sb_sweep_args_plan(&a, &plan, &user_launcher, &e))) goto fail;
    char exe[4096];
    if (sb_cli_self_exe(exe, sizeof exe)) {
        rc = sb_errf(&e, SB_EFAIL, "cannot find the sprbench binary (/proc/self/exe)");
        goto fail;
    }
    if (a.sbatch) {
        rc = sb_sweep_args_batch(&a, &plan, exe, user_launcher, stdout, &e);
        sb_plan_free(&plan);
        return rc ? sb_cli_report("sweep", &e) : 0;
    }
    /* a resume creates nothing: its database must exist already */
    if (!a.dry && !a.resume && a.db_path == sb_default_db() && sb_cli_make_parent_dir(a.db_path)) {
        rc = sb_errf(&e, SB_EUSAGE, "%s: cannot create its directory", a.db_path);
        goto fail;
    }
    sb_tune_use_beside(a.db_path); /* the workers' tuned blocking: beside this database */
    sb_sweep_opts o = {.db_path = a.db_path,
                       .plan = &plan,
                       .resume_id = a.resume,
                       .dry_run = a.dry,
                       .no_peak = a.no_peak,
                       .self_exe = exe,
                       .out = a.as_json ? stderr : stdout,
                       .pair = a.pair};
    sb_sweep_outcome out;
    rc = sb_sweep_run(&o, &out, &e);
    if (a.dry) {
        sb_plan_free(&plan);
        return rc ? sb_cli_report("sweep", &e) : 0;
    }
    if ((rc = sweep_report(&a, &out, rc, &e))) goto fail;
    sb_plan_free(&plan);
    return out.failed || out.timeout || out.interrupted ? 1 : 0;
fail:
    sb_plan_free(&plan);
    return sb_cli_report("sweep", &e);
}
