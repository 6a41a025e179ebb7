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
#include "sb_cmds.h"
#include "sb_cpu.h"
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
           "  --resume ID         rerun only the unfinished points of sweep ID\n"
           "  --no-peak           do not measure the peak first (pct_peak then needs one stored)\n"
           "  --dry-run           print the points and their exact commands, run nothing\n"
           "\nPaired A/B (a CI gate on a shared machine, docs/gating.md; GEMM sweeps):\n"
           "  --pair-baseline B   with --pair-candidate C: every point runs the worker of\n"
           "                      binary B and of binary C alternately (any executable that\n"
           "                      takes sprbench gemm's options, a wrapper script included);\n"
           "                      every sample is stored with its binary and its pair, and\n"
           "                      `sprbench gate --paired` judges the pairs\n"
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
    const char *ua = c && c->microarch ? c->microarch : "unknown";
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

int sb_cmd_sweep(int argc, char **argv)
{
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
    const char *all_keys[SB_PLAN_CLI_KEYS];
    int nvalue = 0, nall = sb_plan_cli_keys(all_keys, &nvalue);
    struct option opts[SB_PLAN_CLI_KEYS + 24];
    int no = 0;
    for (int i = 0; i < nall; i++)
        opts[no++] = (struct option){all_keys[i], i < nvalue ? required_argument : no_argument, 0,
                                     OPT_KEY + i};
    opts[no++] = (struct option){"plan", required_argument, 0, OPT_PLAN};
    opts[no++] = (struct option){"db", required_argument, 0, OPT_DB};
    opts[no++] = (struct option){"dry-run", no_argument, 0, OPT_DRY};
    opts[no++] = (struct option){"resume", required_argument, 0, OPT_RESUME};
    opts[no++] = (struct option){"plots", required_argument, 0, OPT_PLOTS};
    opts[no++] = (struct option){"no-peak", no_argument, 0, OPT_NOPEAK};
    opts[no++] = (struct option){"sbatch", required_argument, 0, OPT_SBATCH};
    opts[no++] = (struct option){"submit", no_argument, 0, OPT_SUBMIT};
    opts[no++] = (struct option){"json", no_argument, 0, OPT_JSON};
    opts[no++] = (struct option){"pair-baseline", required_argument, 0, OPT_PAIR_BASE};
    opts[no++] = (struct option){"pair-candidate", required_argument, 0, OPT_PAIR_CAND};
    opts[no++] = (struct option){"pair-mode", required_argument, 0, OPT_PAIR_MODE};
    opts[no++] = (struct option){"pairs", required_argument, 0, OPT_PAIRS};
    opts[no++] = (struct option){"pair-reps", required_argument, 0, OPT_PAIR_REPS};
    opts[no++] = (struct option){"pair-tolerance", required_argument, 0, OPT_PAIR_TOL};
    opts[no++] = (struct option){"pair-seed", required_argument, 0, OPT_PAIR_SEED};
    opts[no++] = (struct option){"help", no_argument, 0, 'h'};
    opts[no++] = (struct option){0, 0, 0, 0};

    const char *plan_file = NULL, *db_path = sb_default_db(), *plots = NULL, *sbatch = NULL;
    int dry = 0, no_peak = 0, submit = 0, as_json = 0, c;
    /* argv words that are --sbatch/--submit: the batch script's sweep leaves them out */
    char batch_skip[512] = {0};
    if (argc >= (int)sizeof batch_skip) return sb_cli_usage_error("sweep", "too many arguments");
    long resume = 0;
    sb_pair_opts pair = SB_PAIR_OPTS_INIT;
    int pair_opts = 0;
    const char *keys[128], *values[128];
    int nkv = 0;
    sb_err e = {0};
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        const char *key = c >= OPT_KEY ? all_keys[c - OPT_KEY] : NULL;
        if (key) {
            /* the same flag twice: the last would silently win */
            for (int i = 0; i < nkv; i++)
                if (!strcmp(keys[i], key))
                    return sb_cli_usage_error("sweep", "--%s given twice", key);
            if (nkv == 128) return sb_cli_usage_error("sweep", "too many options");
            keys[nkv] = key;
            values[nkv++] = c - OPT_KEY < nvalue ? optarg : "1";
            continue;
        }
        switch (c) {
        case OPT_PLAN: plan_file = optarg; break;
        case OPT_DB: db_path = optarg; break;
        case OPT_DRY: dry = 1; break;
        case OPT_PLOTS: plots = optarg; break;
        case OPT_NOPEAK: no_peak = 1; break;
        case OPT_JSON: as_json = 1; break;
        case OPT_SBATCH:
            sbatch = optarg;
            batch_skip[optind - 1] = 1;
            if (optarg == argv[optind - 1] && optind >= 2) batch_skip[optind - 2] = 1;
            break;
        case OPT_SUBMIT:
            submit = 1;
            batch_skip[optind - 1] = 1;
            break;
        case OPT_RESUME:
            if (sb_parse_long(optarg, 1, 1L << 40, "--resume", &resume, &e))
                return sb_cli_report("sweep", &e);
            break;
        case OPT_PAIR_BASE: pair.baseline = optarg; break;
        case OPT_PAIR_CAND: pair.candidate = optarg; break;
        case OPT_PAIR_MODE:
            pair_opts = 1;
            if (!strcmp(optarg, "abba"))
                pair.mode = SB_PAIR_ABBA;
            else if (!strcmp(optarg, "random"))
                pair.mode = SB_PAIR_RANDOM;
            else if (!strcmp(optarg, "duet"))
                pair.mode = SB_PAIR_DUET;
            else
                return sb_cli_usage_error("sweep", "--pair-mode: '%s' is not abba, random or duet",
                                          optarg);
            break;
        case OPT_PAIRS: {
            pair_opts = 1;
            char lo[32];
            const char *colon = strchr(optarg, ':');
            snprintf(lo, sizeof lo, "%.*s", colon ? (int)(colon - optarg) : 31, optarg);
            long a, b;
            if (sb_parse_long(lo, 2, 10000, "--pairs", &a, &e) ||
                sb_parse_long(colon ? colon + 1 : lo, 2, 10000, "--pairs", &b, &e))
                return sb_cli_report("sweep", &e);
            if (b < a)
                return sb_cli_usage_error("sweep", "--pairs: MAX %ld is below MIN %ld", b, a);
            pair.min_pairs = (int)a;
            pair.max_pairs = (int)b;
            break;
        }
        case OPT_PAIR_REPS: {
            pair_opts = 1;
            long v;
            if (sb_parse_long(optarg, 1, 1000, "--pair-reps", &v, &e))
                return sb_cli_report("sweep", &e);
            pair.reps = (int)v;
            break;
        }
        case OPT_PAIR_TOL: {
            pair_opts = 1;
            char buf[64];
            size_t n = strlen(optarg);
            int pct = n > 0 && n < sizeof buf && optarg[n - 1] == '%';
            snprintf(buf, sizeof buf, "%.*s", pct ? (int)n - 1 : (int)n, optarg);
            double v;
            if (sb_parse_double(buf, 0, pct ? 1000 : 10, "--pair-tolerance", &v, &e))
                return sb_cli_report("sweep", &e);
            pair.tolerance = pct ? v / 100 : v;
            break;
        }
        case OPT_PAIR_SEED: {
            pair_opts = 1;
            long v;
            if (sb_parse_long(optarg, 0, 0x7fffffff, "--pair-seed", &v, &e))
                return sb_cli_report("sweep", &e);
            pair.seed = (unsigned)v;
            break;
        }
        case 'h': sweep_help(); return 0;
        default:
            return sb_cli_usage_error("sweep", "unknown or incomplete option '%s' (see --help)",
                                      argv[optind - 1]);
        }
    }
    if (optind < argc) return sb_cli_usage_error("sweep", "unexpected argument '%s'", argv[optind]);
    if (resume && (plan_file || nkv))
        return sb_cli_usage_error("sweep", "--resume takes the stored plan; give no plan options");
    if (submit && !sbatch) return sb_cli_usage_error("sweep", "--submit needs --sbatch FILE");
    if (!pair.baseline != !pair.candidate)
        return sb_cli_usage_error("sweep", "--pair-baseline and --pair-candidate go together");
    if (pair_opts && !pair.baseline)
        return sb_cli_usage_error("sweep",
                                  "--pair-* options need --pair-baseline and --pair-candidate");
    if (pair.baseline && (resume || sbatch))
        return sb_cli_usage_error("sweep", "a paired sweep runs here and now: not with %s",
                                  resume ? "--resume" : "--sbatch");
    for (int s = 0; pair.baseline && s < 2; s++) {
        const char *bin = s ? pair.candidate : pair.baseline;
        /* a bare name is found on PATH when it runs; a path must be there now */
        if (strchr(bin, '/') && access(bin, X_OK))
            return sb_cli_usage_error("sweep", "--pair-%s: '%s' is not an executable file",
                                      s ? "candidate" : "baseline", bin);
    }
    if (as_json && (dry || sbatch))
        return sb_cli_usage_error("sweep",
                                  "--json is the summary of a sweep that runs: not with %s",
                                  dry ? "--dry-run" : "--sbatch");
    if (sbatch && (resume || dry))
        return sb_cli_usage_error("sweep", "--sbatch writes a new sweep's batch script: give no %s",
                                  resume ? "--resume (resume inside an allocation instead)"
                                         : "--dry-run");
    if (sbatch && sb_cli_check_out_file("--sbatch", sbatch, &e)) return sb_cli_report("sweep", &e);
    /* Everything a typo could break is checked before the first point runs:
     * a sweep may take hours, and its plots or database are its last step. */
    if ((plan_file && sb_cli_check_path("--plan", plan_file, &e)) ||
        sb_cli_check_path("--db", db_path, &e) ||
        (plots && sb_cli_check_path("--plots", plots, &e)) ||
        (!dry && plots && sb_cli_check_out_dir("--plots", plots, 1, &e)) ||
        (!dry && db_path != sb_default_db() && sb_cli_check_out_file("--db", db_path, &e)))
        return sb_cli_report("sweep", &e);

    sb_plan plan;
    sb_plan_init(&plan);
    int rc = SB_OK;
    if (plan_file && (rc = sb_plan_read_file(&plan, plan_file, &e))) goto fail;
    for (int i = 0; i < nkv; i++) {
        char where[80];
        snprintf(where, sizeof where, "--%s", keys[i]);
        if ((rc = sb_plan_set(&plan, keys[i], values[i], where, &e))) goto fail;
    }
    int user_launcher = plan.launcher != NULL;
    if (!resume && (rc = sb_slurm_plan_launcher(&plan, sbatch != NULL, &e))) goto fail;
    const sb_sysinfo *si = sb_sysinfo_cached();
    if (!resume && (rc = sb_plan_finish(&plan, si ? si->cores : 1, &e))) goto fail;
    if (!resume && !dry && (rc = sb_plan_check_inputs(&plan, &e))) goto fail;
    if (pair.baseline && !sb_wl_is(plan.wl, SB_WL_SHAPES)) {
        rc = sb_errf(&e, SB_EUSAGE, "--pair-baseline: paired runs are for GEMM sweeps, not %s",
                     plan.wl ? plan.wl->name : "");
        goto fail;
    }
    if (!resume && !plan.label[0]) default_label(&plan, !plan_file && nkv == 0);

    char exe[4096];
    if (sb_cli_self_exe(exe, sizeof exe)) {
        rc = sb_errf(&e, SB_EFAIL, "cannot find the sprbench binary (/proc/self/exe)");
        goto fail;
    }
    if (sbatch) {
        rc = write_batch(&plan, sbatch, submit, exe, argc, argv, batch_skip, !user_launcher, &e);
        sb_plan_free(&plan);
        return rc ? sb_cli_report("sweep", &e) : 0;
    }
    /* a resume creates nothing: its database must exist already */
    if (!dry && !resume && db_path == sb_default_db() && sb_cli_make_parent_dir(db_path)) {
        rc = sb_errf(&e, SB_EUSAGE, "%s: cannot create its directory", db_path);
        goto fail;
    }
    /* the points' workers use the tuned blocking beside this database (sb_tuning) */
    const char *tf = getenv("SPRBENCH_TUNE_FILE");
    const sb_sysinfo *tsi = sb_sysinfo_cached();
    char tpath[1024];
    sb_err te = {0};
    if ((!tf || !*tf) && tsi && !sb_tune_path(db_path, tsi->fingerprint, tpath, sizeof tpath, &te))
        setenv("SPRBENCH_TUNE_FILE", tpath, 1);
    sb_sweep_opts o = {.db_path = db_path,
                       .plan = &plan,
                       .resume_id = resume,
                       .dry_run = dry,
                       .no_peak = no_peak,
                       .self_exe = exe,
                       .out = as_json ? stderr : stdout,
                       .pair = pair};
    sb_sweep_outcome out;
    rc = sb_sweep_run(&o, &out, &e);
    if (dry) {
        sb_plan_free(&plan);
        return rc ? sb_cli_report("sweep", &e) : 0;
    }
    json_t *doc = NULL;
    if (out.sweep_id > 0) {
        sb_err se = {0};
        sb_sweep_show(db_path, &out, stdout, as_json ? &doc : NULL, &se);
        if (se.code) sb_cli_report("sweep", &se);
    }
    if (rc) {
        json_decref(doc);
        goto fail;
    }
    if (plots) {
        sb_plot_opts po = {.db_path = db_path, .sweep_id = out.sweep_id, .out_dir = plots};
        char **files = NULL;
        int nfiles = 0;
        if ((rc = sb_plot_sweep(&po, &files, &nfiles, &e))) {
            json_decref(doc);
            goto fail;
        }
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
        json_decref(doc);
    }
    sb_plan_free(&plan);
    return out.failed || out.timeout || out.interrupted ? 1 : 0;
fail:
    sb_plan_free(&plan);
    return sb_cli_report("sweep", &e);
}
