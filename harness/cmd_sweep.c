/* sprbench sweep: expand a plan into points, run each as a worker process,
 * store every sample, print a summary (and optionally draw the plots). */
#include <ctype.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "sb_cli.h"
#include "sb_opts.h"
#include "sb_cmds.h"
#include "sb_cpu.h"
#include "sb_pair_run.h"
#include "sb_plan.h"
#include "sb_plot.h"
#include "sb_slurm.h"
#include "sb_sweep.h"
#include "sb_sysinfo.h"
#include "sb_text.h"
#include "sb_tune_file.h"
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

/* --sbatch FILE: the batch script of this sweep (sizes from the finished
 * plan), written, and with --submit submitted. */
static int write_batch(const sb_plan *p, const char *path, int submit, const char *exe, int argc,
                       char **argv, const char *skip, int add_launcher, sb_err *e)
{
    char **av = calloc((size_t)argc + 4, sizeof *av);
    if (!av) return sb_errf(e, SB_EFAIL, "out of memory");
    int n = 0;
    av[n++] = (char *)exe;
    av[n++] = "sweep";
    for (int i = 1; i < argc; i++)
        if (!skip[i]) av[n++] = argv[i];
    if (add_launcher) {
        av[n++] = "--launcher";
        av[n++] = "slurm";
    }
    sb_slurm_batch b;
    int rc = sb_slurm_plan_batch(p, path, av, &b, e);
    free(av);
    if (rc) return rc;
    char limit[64];
    sb_slurm_time_format(b.time_limit_s, limit, sizeof limit);
    printf("batch script %s: %d node(s), %d task(s) per node, %d CPU(s) per task, time limit %s,"
           " exclusive\n",
           path, b.nodes, b.ppn, b.cpus_per_task, limit);
    if (!submit) {
        printf("submit it with: sbatch %s\n", path);
        return SB_OK;
    }
    char job[64];
    if ((rc = sb_slurm_submit(path, job, sizeof job, e))) return rc;
    printf("submitted batch job %s\n", job);
    return SB_OK;
}

/* A sweep without --label is named after the machine it runs on, which a
 * cloud guest's host name ("vm") does not tell: "zen4-default-gemm" for the
 * default plan, "emerald-rapids-train" for another. */
static void default_label(sb_plan *plan, int default_plan)
{
    const sb_cpu *c = sb_cpu_hw();
    const char *ua = c && c->microarch[0] ? c->microarch : "unknown";
    char u[64];
    size_t w = 0;
    for (const char *s = ua; *s && w + 1 < sizeof u; s++) {
        if (isalnum((unsigned char)*s))
            u[w++] = (char)tolower((unsigned char)*s);
        else if (w && u[w - 1] != '-')
            u[w++] = '-';
    }
    while (w && u[w - 1] == '-') w--;
    u[w] = '\0';
    /* "zen-4" reads as people write it: "zen4" */
    if (!strncmp(u, "zen-", 4)) memmove(u + 3, u + 4, strlen(u + 4) + 1);
    snprintf(plan->label, sizeof plan->label, "%s-%s%s", w ? u : "unknown",
             default_plan ? "default-" : "",
             (plan->wl ? plan->wl : sb_workload_default())->name);
}

enum {
    OPT_PLAN = 1000,
    OPT_DB,
    OPT_DRY,
    OPT_RESUME,
    OPT_PLOTS,
    OPT_NOPEAK,
    OPT_SBATCH,
    OPT_SUBMIT,
    OPT_JSON,
    OPT_PAIR_BASE,
    OPT_PAIR_CAND,
    OPT_PAIR_MODE,
    OPT_PAIRS,
    OPT_PAIR_REPS,
    OPT_PAIR_TOL,
    OPT_PAIR_SEED,
    OPT_KEY
};

/* What the command line asked for: the plan's keys (as flags) apart. */
typedef struct sweep_args {
    const char *plan_file, *db_path, *plots, *sbatch;
    int dry, no_peak, submit, as_json;
    /* argv words that are --sbatch/--submit: the batch script's sweep leaves them out */
    char batch_skip[512];
    long resume;
    sb_pair_opts pair;
    int pair_opts;          /* a --pair-* option besides the two binaries */
    char pair_bin[2][4096]; /* the two binaries, resolved once (sb_pair_resolve) */
    const char *keys[128], *values[128];
    int nkv;
} sweep_args;

/* The getopt table: every plan key sprbench sweep takes as --key (the
 * first nvalue with a value), then the sweep's own options. */
static int sweep_options(struct option *opts, const char **all_keys, int *nvalue)
{
    int nall = sb_plan_cli_keys(all_keys, nvalue), no = 0;
    for (int i = 0; i < nall; i++)
        opts[no++] = (struct option){all_keys[i], i < *nvalue ? required_argument : no_argument, 0,
                                     OPT_KEY + i};
    static const struct option own[] = {
        {"plan", required_argument, 0, OPT_PLAN},
        {"db", required_argument, 0, OPT_DB},
        {"dry-run", no_argument, 0, OPT_DRY},
        {"resume", required_argument, 0, OPT_RESUME},
        {"plots", required_argument, 0, OPT_PLOTS},
        {"no-peak", no_argument, 0, OPT_NOPEAK},
        {"sbatch", required_argument, 0, OPT_SBATCH},
        {"submit", no_argument, 0, OPT_SUBMIT},
        {"json", no_argument, 0, OPT_JSON},
        {"pair-baseline", required_argument, 0, OPT_PAIR_BASE},
        {"pair-candidate", required_argument, 0, OPT_PAIR_CAND},
        {"pair-mode", required_argument, 0, OPT_PAIR_MODE},
        {"pairs", required_argument, 0, OPT_PAIRS},
        {"pair-reps", required_argument, 0, OPT_PAIR_REPS},
        {"pair-tolerance", required_argument, 0, OPT_PAIR_TOL},
        {"pair-seed", required_argument, 0, OPT_PAIR_SEED},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    for (size_t i = 0; i < sizeof own / sizeof own[0]; i++) opts[no++] = own[i];
    return nall;
}

/* The command line into a. -1: go on; else the command's exit code
 * (--help 0, a usage error reported). */
static int sweep_parse(int argc, char **argv, sweep_args *a)
{
    const char *all_keys[SB_PLAN_CLI_KEYS];
    struct option opts[SB_PLAN_CLI_KEYS + 24];
    int nvalue = 0, c;
    sweep_options(opts, all_keys, &nvalue);
    memset(a, 0, sizeof *a);
    a->db_path = sb_default_db();
    a->pair = (sb_pair_opts)SB_PAIR_OPTS_INIT;
    if (argc >= (int)sizeof a->batch_skip)
        return sb_cli_usage_error("sweep", "too many arguments");
    sb_err e = {0};
    sb_opt_seen seen = {0};
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        const char *key = c >= OPT_KEY ? all_keys[c - OPT_KEY] : NULL;
        if (key) {
            /* the same flag twice: the last would silently win */
            for (int i = 0; i < a->nkv; i++)
                if (!strcmp(a->keys[i], key))
                    return sb_cli_usage_error("sweep", "--%s given twice", key);
            if (a->nkv == 128) return sb_cli_usage_error("sweep", "too many options");
            a->keys[a->nkv] = key;
            a->values[a->nkv++] = c - OPT_KEY < nvalue ? optarg : "1";
            continue;
        }
        if (sb_opt_once(&seen, opts, c, NULL, &e)) return sb_cli_report("sweep", &e);
        switch (c) {
        case OPT_PLAN: a->plan_file = optarg; break;
        case OPT_DB: a->db_path = optarg; break;
        case OPT_DRY: a->dry = 1; break;
        case OPT_PLOTS: a->plots = optarg; break;
        case OPT_NOPEAK: a->no_peak = 1; break;
        case OPT_JSON: a->as_json = 1; break;
        case OPT_SBATCH:
            a->sbatch = optarg;
            a->batch_skip[optind - 1] = 1;
            if (optarg == argv[optind - 1] && optind >= 2) a->batch_skip[optind - 2] = 1;
            break;
        case OPT_SUBMIT:
            a->submit = 1;
            a->batch_skip[optind - 1] = 1;
            break;
        case OPT_RESUME:
            if (sb_parse_long(optarg, 1, 1L << 40, "--resume", &a->resume, &e))
                return sb_cli_report("sweep", &e);
            break;
        case OPT_PAIR_BASE: a->pair.baseline = optarg; break;
        case OPT_PAIR_CAND: a->pair.candidate = optarg; break;
        case OPT_PAIR_MODE:
        case OPT_PAIRS:
        case OPT_PAIR_REPS:
        case OPT_PAIR_TOL:
        case OPT_PAIR_SEED: {
            const char *pkey = c == OPT_PAIR_MODE ? "pair-mode"
                : c == OPT_PAIRS                 ? "pairs"
                : c == OPT_PAIR_REPS             ? "pair-reps"
                : c == OPT_PAIR_TOL              ? "pair-tolerance"
                                                 : "pair-seed";
            char where[32];
            snprintf(where, sizeof where, "--%s", pkey);
            a->pair_opts = 1;
            if (sb_pair_set(&a->pair, pkey, optarg, where, &e)) return sb_cli_report("sweep", &e);
            break;
        }
        case 'h': sweep_help(); return 0;
        default:
            return sb_cli_usage_error("sweep", "unknown or incomplete option '%s' (see --help)",
                                      argv[optind - 1]);
        }
    }
    if (optind < argc) return sb_cli_usage_error("sweep", "unexpected argument '%s'", argv[optind]);
    return -1;
}

/* The options that go together or exclude each other, and every path a
 * typo could break, checked before the first point runs: a sweep may take
 * hours, and its plots or database are its last step. */
static int sweep_check(sweep_args *a, sb_err *e)
{
    sb_pair_opts *pair = &a->pair;
    if (a->resume && (a->plan_file || a->nkv))
        return sb_errf(e, SB_EUSAGE, "--resume takes the stored plan; give no plan options");
    if (a->submit && !a->sbatch) return sb_errf(e, SB_EUSAGE, "--submit needs --sbatch FILE");
    if (!pair->baseline != !pair->candidate)
        return sb_errf(e, SB_EUSAGE, "--pair-baseline and --pair-candidate go together");
    if (a->pair_opts && !pair->baseline)
        return sb_errf(e, SB_EUSAGE, "--pair-* options need --pair-baseline and --pair-candidate");
    if (pair->baseline && a->resume)
        return sb_errf(e, SB_EUSAGE,
                       "--resume takes the stored plan, its pairing too: give no --pair-* options");
    if (pair->baseline && a->sbatch)
        return sb_errf(e, SB_EUSAGE, "a paired sweep runs here and now: not with --sbatch");
    for (int s = 0; pair->baseline && s < 2; s++) {
        /* found once (a bare name on PATH, as exec finds it), and that file runs */
        const char *bin = s ? pair->candidate : pair->baseline;
        int rc = sb_pair_resolve(s ? "--pair-candidate" : "--pair-baseline", bin, a->pair_bin[s],
                                 sizeof a->pair_bin[s], e);
        if (rc) return rc;
    }
    if (pair->baseline) {
        pair->baseline = a->pair_bin[0];
        pair->candidate = a->pair_bin[1];
    }
    if (a->as_json && (a->dry || a->sbatch))
        return sb_errf(e, SB_EUSAGE, "--json is the summary of a sweep that runs: not with %s",
                       a->dry ? "--dry-run" : "--sbatch");
    if (a->sbatch && (a->resume || a->dry))
        return sb_errf(e, SB_EUSAGE, "--sbatch writes a new sweep's batch script: give no %s",
                       a->resume ? "--resume (resume inside an allocation instead)"
                                 : "--dry-run");
    if (a->sbatch && sb_cli_check_out_file("--sbatch", a->sbatch, e)) return e->code;
    const char *db = a->db_path, *plots = a->plots;
    if ((a->plan_file && sb_cli_check_path("--plan", a->plan_file, e)) ||
        sb_cli_check_path("--db", db, e) || (plots && sb_cli_check_path("--plots", plots, e)) ||
        (!a->dry && plots && sb_cli_check_out_dir("--plots", plots, 1, e)) ||
        (!a->dry && db != sb_default_db() && sb_cli_check_out_file("--db", db, e)))
        return e->code ? e->code : SB_EUSAGE;
    return SB_OK;
}

/* The plan: the file's, the flags over it, the launcher, the defaults of
 * this machine and the label; its inputs checked where it will run here.
 * *user_launcher: the plan named its launcher. */
static int sweep_plan(const sweep_args *a, sb_plan *plan, int *user_launcher, sb_err *e)
{
    int rc;
    if (a->plan_file && (rc = sb_plan_read_file(plan, a->plan_file, e))) return rc;
    for (int i = 0; i < a->nkv; i++) {
        char where[80];
        snprintf(where, sizeof where, "--%s", a->keys[i]);
        if ((rc = sb_plan_set(plan, a->keys[i], a->values[i], where, e))) return rc;
    }
    *user_launcher = plan->launcher != NULL;
    if (!a->resume && (rc = sb_slurm_plan_launcher(plan, a->sbatch != NULL, e))) return rc;
    const sb_sysinfo *si = sb_sysinfo_cached();
    if (!a->resume && (rc = sb_plan_finish(plan, si ? si->cores : 1, e))) return rc;
    if (!a->resume && !a->dry && (rc = sb_plan_check_inputs(plan, e))) return rc;
    /* the paired runs' worker is the row's with a shape axis (GEMM's) */
    if (a->pair.baseline && !sb_wl_is(plan->wl, SB_WL_PAIRED))
        return sb_errf(e, SB_EUSAGE, "--pair-baseline: paired runs are for GEMM sweeps, not %s",
                       plan->wl ? plan->wl->name : "");
    if (!a->resume && !plan->label[0]) default_label(plan, !a->plan_file && a->nkv == 0);
    return SB_OK;
}

/* After a sweep ran: its plots (with --plots), named in the summary
 * document (--json) or a line each; the document written last, whole. */
static int sweep_plots(const sweep_args *a, int64_t sweep_id, json_t *doc, sb_err *e)
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
        if (sb_text_json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER) == 0) putchar('\n');
    }
    return SB_OK;
}

/* The points' workers use the tuned blocking beside this database (sb_tune_use). */
static void sweep_tune_file(const char *db_path)
{
    const char *tf = getenv("SPRBENCH_TUNE_FILE");
    const sb_sysinfo *tsi = sb_sysinfo_cached();
    char tpath[1024];
    sb_err te = {0};
    if ((!tf || !*tf) && tsi && !sb_tune_path(db_path, tsi->fingerprint, tpath, sizeof tpath, &te))
        setenv("SPRBENCH_TUNE_FILE", tpath, 1);
}

int sb_cmd_sweep(int argc, char **argv)
{
    sweep_args a;
    int rc = sweep_parse(argc, argv, &a);
    if (rc >= 0) return rc;
    sb_err e = {0};
    if (sweep_check(&a, &e)) return sb_cli_report("sweep", &e);

    sb_plan plan;
    sb_plan_init(&plan);
    int user_launcher = 0;
    if ((rc = sweep_plan(&a, &plan, &user_launcher, &e))) goto fail;
    char exe[4096];
    if (sb_cli_self_exe(exe, sizeof exe)) {
        rc = sb_errf(&e, SB_EFAIL, "cannot find the sprbench binary (/proc/self/exe)");
        goto fail;
    }
    if (a.sbatch) {
        rc = write_batch(&plan, a.sbatch, a.submit, exe, argc, argv, a.batch_skip, !user_launcher,
                         &e);
        sb_plan_free(&plan);
        return rc ? sb_cli_report("sweep", &e) : 0;
    }
    /* a resume creates nothing: its database must exist already */
    if (!a.dry && !a.resume && a.db_path == sb_default_db() &&
        sb_cli_make_parent_dir(a.db_path)) {
        rc = sb_errf(&e, SB_EUSAGE, "%s: cannot create its directory", a.db_path);
        goto fail;
    }
    sweep_tune_file(a.db_path);
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
    json_t *doc = NULL;
    if (out.sweep_id > 0) {
        sb_err se = {0};
        sb_sweep_show(a.db_path, &out, stdout, a.as_json ? &doc : NULL, &se);
        if (se.code) sb_cli_report("sweep", &se);
    }
    if (!rc) rc = sweep_plots(&a, out.sweep_id, doc, &e);
    json_decref(doc);
    if (rc) goto fail;
    sb_plan_free(&plan);
    return out.failed || out.timeout || out.interrupted ? 1 : 0;
fail:
    sb_plan_free(&plan);
    return sb_cli_report("sweep", &e);
}
