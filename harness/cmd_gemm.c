/* sprbench gemm: check one kernel on one shape against the reference, then time it. */
#include <ctype.h>
#include <getopt.h>
#include <signal.h>
#include <unistd.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sb_result.h"
#include "sb_cli.h"
#include "sb_opts.h"
#include "sb_cmds.h"
#include "sb_gemm_bench.h"
#include "sb_amx_knobs.h"
#include "sb_onednn.h"
#include "sb_shape.h"
#include "sb_sysinfo.h"
#include "sb_text.h"
#include "sb_tuning.h"

#define SB_MAX_DIM SB_SHAPE_MAX_DIM

static void gemm_help(void)
{
    printf("usage: sprbench gemm --kernel K --m M --n N --k K [options]\n"
           "       sprbench gemm --kernel K --shape MxNxK[:TT][+prepack] [options]\n\n"
           "Checks C = op(A)*op(B) from kernel K against scalar-f32 on small-integer inputs\n"
           "(exact in f32, bf16 and int8), then warms up and times R repetitions.\n\n"
           "  --kernel K          one of: %s\n"
           "  --m/--n/--k N       sizes, 1..%d\n"
           "  --trans XY          NN (default), NT (A*B^T), TN (A^T*B) or TT\n"
           "  --shape S           the sizes and transpose as one word, as a sweep names its\n"
           "                      points: MxNxK, MxNxK:TT, either with +prepack (--prepack);\n"
           "                      not with --m/--n/--k/--trans\n"
           "  --threads T         OpenMP threads (default: physical cores)\n"
           "  --reps R            timed repetitions (default: enough for --min-seconds, >= 8)\n"
           "  --min-seconds S     default 1\n"
           "  --peak-gflops P     per-core peak of the kernel's path, for pct_peak\n"
           "  --onednn-isa ISA    cap oneDNN's ISA (ONEDNN_MAX_CPU_ISA names)\n"
           "  --prepack           pack B (the weights) once, time only the calls that reuse it\n"
           "  --blocking B        own kernels: run this blocking (as a result's config records\n"
           "                      it: kc=..,mc=..,nc=..,order=jr-ir|ir-jr,pf=..,split=auto|rows|\n"
           "                      cols; 0 = built-in) instead of the tuned one\n"
           "  --no-tune           the built-in blocking, not this machine's tuned one\n"
           "  --tune-file F       the tuned blocking (default: tune-<fingerprint>.json beside\n"
           "                      the database, see sprbench tune; $SPRBENCH_TUNE_FILE;\n"
           "                      a file named here must exist and be usable)\n"
           "  --result-file F     write the result as one JSON object\n"
           "  --json              print the result JSON instead of the human line\n\n"
           "amx-bf16 / amx-int8 read their loop nest from the environment (recorded in the\n"
           "result's config): SB_AMX_RESIDENT=a|b, the operand whose panel stays in L1\n"
           "(default b), and SB_AMX_PREFETCH=0..16, how many k steps ahead the other is\n"
           "prefetched (default 2); a value outside those is a usage error.\n\n"
           "The result's config records the blocking the driver ran (\"blocking\") and where\n"
           "it came from (\"tuning\"); SB_GEMM_KC/MC/NC override every blocking.\n"
           "A kernel this machine cannot run: one line with the reason on stderr, the result\n"
           "file (if asked for) written with status 'skipped', exit 3.\n"
           "Exit status: 0 ok, 1 wrong result or kernel failure, 2 bad input, 3 skipped.\n",
           sb_kernel_names(), SB_MAX_DIM);
}

/* Test hook for the sweep's robustness tests: SPRBENCH_TEST_FAULT=crash:M,
 * hang:M or slow:M makes the point with --m M die by SIGSEGV, never end, or
 * take two seconds longer. Unset, it costs one getenv. */
static void test_fault(int m)
{
    const char *f = getenv("SPRBENCH_TEST_FAULT");
    char kind[16];
    int fm;
    if (!f || sscanf(f, "%15[a-z]:%d", kind, &fm) != 2 || fm != m) return;
    if (!strcmp(kind, "crash")) raise(SIGSEGV);
    if (!strcmp(kind, "hang"))
        for (;;) pause();
    if (!strcmp(kind, "slow")) sleep(2);
}

/* What the command line asked for. */
typedef struct gemm_args {
    sb_gemm_config cfg;
    const char *result_file, *tune_file;
    int json, no_tune, have_blk;
    int dims, shape; /* --m/--n/--k/--trans given; --shape given */
    sb_blocking blk;
} gemm_args;

static int parse_dim(const char *what, int *out, sb_err *e)
{
    long v;
    int rc = sb_parse_long(optarg, 1, SB_MAX_DIM, what, &v, e);
    if (!rc) *out = (int)v;
    return rc;
}

/* One option into g; SB_OK, or the exit code's error on e (a usage error
 * says so on e's message: SB_EUSAGE). */
static int gemm_opt(int c, gemm_args *g, sb_err *e)
{
    sb_gemm_config *cfg = &g->cfg;
    long v;
    double dv;
    int rc = SB_OK;
    switch (c) {
    case 'K': cfg->kernel = optarg; break;
    case 'm': g->dims = 1, rc = parse_dim("--m", &cfg->m, e); break;
    case 'n': g->dims = 1, rc = parse_dim("--n", &cfg->n, e); break;
    case 'k': g->dims = 1, rc = parse_dim("--k", &cfg->k, e); break;
    case 'S': g->shape = 1, rc = sb_gemm_shape_parse(optarg, cfg, e); break;
    case 't':
        if (!(rc = sb_parse_long(optarg, 1, 4096, "--threads", &v, e))) cfg->threads = (int)v;
        break;
    case 'r':
        if (!(rc = sb_parse_long(optarg, 1, 100000, "--reps", &v, e))) cfg->reps = (int)v;
        break;
    case 's':
        if (!(rc = sb_parse_double(optarg, 0.001, 3600, "--min-seconds", &dv, e)))
            cfg->min_seconds = dv;
        break;
    case 'p':
        if (!(rc = sb_parse_double(optarg, 0, 1e7, "--peak-gflops", &dv, e))) cfg->peak_gflops = dv;
        break;
    case 'I': cfg->onednn_isa = optarg; break;
    case 'P': cfg->prepack = 1; break;
    case 'T':
        g->dims = 1;
        if (strlen(optarg) != 2 || !strchr("NT", optarg[0]) || !strchr("NT", optarg[1]))
            return sb_errf(e, SB_EUSAGE, "--trans: '%s' is not NN, NT, TN or TT", optarg);
        cfg->transa = optarg[0];
        cfg->transb = optarg[1];
        break;
    case 'o': g->result_file = optarg; break;
    case 'j': g->json = 1; break;
    case 'B':
        if (!(rc = sb_blocking_parse(optarg, &g->blk, e))) g->have_blk = 1;
        break;
    case 'N': g->no_tune = 1; break;
    case 'F':
        if (!(rc = sb_cli_check_path("--tune-file", optarg, e))) g->tune_file = optarg;
        break;
    default: return sb_errf(e, SB_EUSAGE, "unknown option (see --help)"); /* getopt's table */
    }
    return rc;
}

/* Parses the command line into g. -1: go on; else the command's exit code
 * (--help: 0; a usage error reported). */
static int gemm_parse(int argc, char **argv, gemm_args *g)
{
    static const struct option opts[] = {{"kernel", required_argument, 0, 'K'},
                                         {"m", required_argument, 0, 'm'},
                                         {"n", required_argument, 0, 'n'},
                                         {"k", required_argument, 0, 'k'},
                                         {"trans", required_argument, 0, 'T'},
                                         {"shape", required_argument, 0, 'S'},
                                         {"threads", required_argument, 0, 't'},
                                         {"reps", required_argument, 0, 'r'},
                                         {"min-seconds", required_argument, 0, 's'},
                                         {"peak-gflops", required_argument, 0, 'p'},
                                         {"onednn-isa", required_argument, 0, 'I'},
                                         {"prepack", no_argument, 0, 'P'},
                                         {"result-file", required_argument, 0, 'o'},
                                         {"json", no_argument, 0, 'j'},
                                         {"blocking", required_argument, 0, 'B'},
                                         {"no-tune", no_argument, 0, 'N'},
                                         {"tune-file", required_argument, 0, 'F'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    memset(g, 0, sizeof *g);
    g->cfg = (sb_gemm_config){.transa = 'N', .transb = 'N', .min_seconds = 1.0};
    sb_err e = {0};
    int c;
    optind = 1;
    opterr = 0;
    sb_opt_seen seen = {0};
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        if (sb_opt_once(&seen, opts, c, NULL, &e)) return sb_cli_report("gemm", &e);
        if (c == 'h') {
            gemm_help();
            return 0;
        }
        if (c == '?' || c == ':')
            return sb_cli_usage_error("gemm", "unknown or incomplete option '%s' (see --help)",
                                      argv[optind - 1]);
        if (gemm_opt(c, g, &e)) return sb_cli_report("gemm", &e);
    }
    sb_gemm_config *cfg = &g->cfg;
    if (optind < argc) return sb_cli_usage_error("gemm", "unexpected argument '%s'", argv[optind]);
    if (!cfg->kernel)
        return sb_cli_usage_error("gemm", "--kernel is required (one of: %s)", sb_kernel_names());
    if (g->shape && g->dims)
        return sb_cli_usage_error("gemm", "--shape names m, n, k and trans: not with --m, --n,"
                                          " --k or --trans");
    if (!cfg->m || !cfg->n || !cfg->k)
        return sb_cli_usage_error("gemm", "--m, --n and --k are required");
    if (!sb_kernel_find(cfg->kernel))
        return sb_cli_usage_error("gemm", "unknown kernel '%s' (known: %s)", cfg->kernel,
                                  sb_kernel_names());
    if (!strncmp(cfg->kernel, "amx-", 4) && sb_amx_knobs_env_check(&e))
        return sb_cli_report("gemm", &e);
    /* before the work: a result that cannot be written makes the run pointless */
    if (g->result_file && sb_cli_check_out_file("--result-file", g->result_file, &e))
        return sb_cli_report("gemm", &e);
    if (cfg->onednn_isa && sb_onednn_set_max_isa(cfg->onednn_isa, &e))
        return sb_cli_report("gemm", &e);
    return -1;
}

/* The blocking the run uses: --blocking's, else this machine's tuned one
 * for the kernel and the shape's class (or the built-in one, saying why). */
static int gemm_tuning(gemm_args *g, sb_tuning *tun, sb_err *e)
{
    sb_gemm_config *cfg = &g->cfg;
    if (g->have_blk) {
        memset(tun, 0, sizeof *tun);
        snprintf(tun->tuning, sizeof tun->tuning, "explicit (--blocking)");
        cfg->blocking = &g->blk;
    } else {
        if (sb_tuning_load("gemm", g->tune_file, g->no_tune, tun, e)) return SB_EUSAGE;
        int cls = sb_shape_class(cfg->transa, cfg->transb, cfg->m, cfg->n, cfg->k);
        if (tun->tuned && !sb_tune_find(&tun->table, cfg->kernel, cls)) {
            char cn[16];
            sb_shape_class_name(cls, cn, sizeof cn);
            snprintf(tun->tuning, sizeof tun->tuning, "default (%s not tuned for %s)", cfg->kernel,
                     cn);
        }
    }
    cfg->tuning = tun->tuning;
    return SB_OK;
}

/* The result document, sealed with the command that repeats the run
 * exactly (the blocking as it ran) and what this run set itself. */
static json_t *gemm_document(const sb_gemm_config *cfg, sb_gemm_result *res, const sb_sysinfo *si)
{
    char reps[16], m[16], n[16], k[16], t[16], trans[3] = {cfg->transa, cfg->transb, 0};
    snprintf(reps, sizeof reps, "%d",
             res->nsamples > 0 ? res->nsamples : (cfg->reps > 0 ? cfg->reps : 5));
    snprintf(m, sizeof m, "%d", cfg->m);
    snprintf(n, sizeof n, "%d", cfg->n);
    snprintf(k, sizeof k, "%d", cfg->k);
    snprintf(t, sizeof t, "%d", cfg->threads);
    char *rv[24] = {"gemm",    "--kernel", (char *)cfg->kernel, "--m", m,        "--n", n, "--k", k,
                    "--trans", trans,      "--threads",         t,     "--reps", reps};
    int rn = 15;
    if (cfg->onednn_isa) {
        rv[rn++] = "--onednn-isa";
        rv[rn++] = (char *)cfg->onednn_isa;
    }
    if (cfg->prepack) rv[rn++] = "--prepack";
    /* the blocking as it ran: the sealed command repeats it exactly */
    if (res->blocking[0]) {
        rv[rn++] = "--blocking";
        rv[rn++] = res->blocking;
    }
    rv[rn] = NULL;
    json_t *doc = sb_gemm_result_json(cfg, res);
    /* what this run put in force itself: the thread count it set, and the
     * oneDNN cap --onednn-isa applied (over the variable's own value) */
    char omp[32], isa[96];
    snprintf(omp, sizeof omp, "OMP_NUM_THREADS=%d", cfg->threads);
    const char *set[3] = {omp, NULL, NULL};
    if (cfg->onednn_isa) {
        int w = snprintf(isa, sizeof isa, "ONEDNN_MAX_CPU_ISA=");
        for (const char *ch = cfg->onednn_isa; *ch && w < (int)sizeof isa - 1; ch++)
            isa[w++] = (char)toupper((unsigned char)*ch);
        isa[w] = '\0';
        set[1] = isa;
    }
    sb_result_seal(doc, rn, rv, set, si ? si->fingerprint : NULL);
    return doc;
}

/* The human line (or the document with --json). */
static void gemm_print(const gemm_args *g, const sb_gemm_result *res, json_t *doc)
{
    const sb_gemm_config *cfg = &g->cfg;
    char trans[3] = {cfg->transa, cfg->transb, 0};
    if (g->json) {
        sb_text_json_dumpf(doc, stdout, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
        putchar('\n');
    } else if (!strcmp(res->status, "ok")) {
        printf("%s %s %dx%dx%d %s%s threads=%d: %.1f %s median %.3f ms (min %.3f, p90 %.3f, %d "
               "reps)",
               cfg->kernel, res->dtype, cfg->m, cfg->n, cfg->k, trans,
               cfg->prepack ? " prepacked" : "", cfg->threads, res->gflops,
               strcmp(res->dtype, "int8") ? "GFLOP/s" : "GOP/s", res->median_s * 1e3,
               res->min_s * 1e3, res->p90_s * 1e3, res->nsamples);
        if (res->pct_peak > 0) printf(", %.1f%% of peak", res->pct_peak);
        printf("; max rel error %.2g (bound %.2g)\n", res->max_rel_error, res->error_bound);
    } else {
        printf("%s %dx%dx%d %s threads=%d: %s: %s\n", cfg->kernel, cfg->m, cfg->n, cfg->k, trans,
               cfg->threads, res->status, res->reason);
    }
}

int sb_cmd_gemm(int argc, char **argv)
{
    gemm_args g;
    int rc = gemm_parse(argc, argv, &g);
    if (rc >= 0) return rc;
    sb_gemm_config *cfg = &g.cfg;
    sb_err e = {0};
    test_fault(cfg->m);
    sb_tuning tun;
    if (gemm_tuning(&g, &tun, &e)) return sb_cli_report("gemm", &e);
    const sb_sysinfo *si = sb_sysinfo_cached();
    if (cfg->threads <= 0) cfg->threads = si && si->cores > 0 ? si->cores : 1;
    omp_set_num_threads(cfg->threads);

    sb_gemm_result res;
    if (sb_gemm_bench_run(cfg, &res, &e)) {
        sb_tuning_free(&tun);
        return sb_cli_report("gemm", &e);
    }
    json_t *doc = gemm_document(cfg, &res, si);
    rc = 0;
    if (g.result_file && sb_result_write(g.result_file, doc, &e)) rc = sb_cli_report("gemm", &e);
    if (!rc && !strcmp(res.status, "skipped")) {
        fprintf(stderr, "sprbench gemm: kernel %s cannot run %s: %s\n", cfg->kernel,
                strstr(res.reason, "pre-packed") ? "as asked" : "on this machine", res.reason);
        rc = SB_ESKIP;
    } else if (!rc) {
        gemm_print(&g, &res, doc);
        if (!strcmp(res.status, "failed")) rc = 1;
    }
    json_decref(doc);
    sb_gemm_result_free(&res);
    sb_tuning_free(&tun);
    return rc;
}
