/* sprbench gemm: check one kernel on one shape against the reference, then time it. */
#include <stddef.h>
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
#include "sb_gemm_doc.h"
#include "sb_amx_knobs.h"
#include "sb_onednn.h"
#include "sb_shape.h"
#include "sb_sysinfo.h"
#include "sb_text.h"
#include "sb_tune_use.h"

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
           "                      cols; 0 = built-in) instead of the tuned one\n",
           sb_kernel_names(), SB_MAX_DIM);
    sb_cli_help_tuning(22);
    printf("  --result-file F     write the result as one JSON object\n"
           "  --json              print the result JSON instead of the human line\n\n"
           "amx-bf16 / amx-int8 read their loop nest from the environment (recorded in the\n"
           "result's config): SB_AMX_RESIDENT=a|b, the operand whose panel stays in L1\n"
           "(default b), and SB_AMX_PREFETCH=0..16, how many k steps ahead the other is\n"
           "prefetched (default 2); a value outside those is a usage error.\n\n"
           "The result's config records the blocking the driver ran (\"blocking\") and where\n"
           "it came from (\"tuning\"); SB_GEMM_KC/MC/NC override every blocking.\n"
           "A kernel this machine cannot run: one line with the reason on stderr, the result\n"
           "file (if asked for) written with status 'skipped', exit 3.\n"
           "Exit status: 0 ok, 1 wrong result or kernel failure, 2 bad input, 3 skipped.\n");
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

/* gemm's own ranges, by the row's key */
static int to_long(const char *key, const char *v, const char *what, long *out, sb_err *e)
{
    long hi = !strcmp(key, "dim") ? SB_MAX_DIM : !strcmp(key, "threads") ? 4096 : 100000;
    return sb_parse_long(v, 1, hi, what, out, e);
}
static int to_double(const char *key, const char *v, const char *what, double *out, sb_err *e)
{
    if (!strcmp(key, "min-seconds")) return sb_parse_double(v, 0.001, 3600, what, out, e);
    return sb_parse_double(v, 0, 1e7, what, out, e); /* --peak-gflops */
}
/* --shape, --trans and --blocking: read as they come */
static int to_custom(const char *key, const char *v, void *opts, sb_err *e)
{
    gemm_args *g = opts;
    if (!strcmp(key, "shape")) return sb_gemm_shape_parse(v, &g->cfg, e);
    if (!strcmp(key, "blocking")) return sb_blocking_parse(v, &g->blk, e);
    if (strlen(v) != 2 || !strchr("NT", v[0]) || !strchr("NT", v[1])) /* --trans */
        return sb_errf(e, SB_EUSAGE, "--trans: '%s' is not NN, NT, TN or TT", v);
    g->cfg.transa = v[0];
    g->cfg.transb = v[1];
    return SB_OK;
}
static const sb_opt_ranges g_ranges = {to_long, to_double, NULL, to_custom};

#define O(f) offsetof(gemm_args, f)
static const sb_opt g_gemm_opts[] = {
    {"kernel", SB_OPT_STR, O(cfg.kernel), SB_OPT_NOSET, NULL},
    {"m", SB_OPT_INT, O(cfg.m), O(dims), "dim"},
    {"n", SB_OPT_INT, O(cfg.n), O(dims), "dim"},
    {"k", SB_OPT_INT, O(cfg.k), O(dims), "dim"},
    {"trans", SB_OPT_CUSTOM, O(cfg.transa), O(dims), "trans"},
    {"shape", SB_OPT_CUSTOM, O(cfg), O(shape), "shape"},
    {"threads", SB_OPT_INT, O(cfg.threads), SB_OPT_NOSET, "threads"},
    {"reps", SB_OPT_INT, O(cfg.reps), SB_OPT_NOSET, "reps"},
    {"min-seconds", SB_OPT_DOUBLE, O(cfg.min_seconds), SB_OPT_NOSET, "min-seconds"},
    {"peak-gflops", SB_OPT_DOUBLE, O(cfg.peak_gflops), SB_OPT_NOSET, "peak-gflops"},
    {"onednn-isa", SB_OPT_STR, O(cfg.onednn_isa), SB_OPT_NOSET, NULL},
    {"prepack", SB_OPT_FLAG, O(cfg.prepack), SB_OPT_NOSET, NULL},
    {"result-file", SB_OPT_STR, O(result_file), SB_OPT_NOSET, NULL},
    {"json", SB_OPT_FLAG, O(json), SB_OPT_NOSET, NULL},
    {"blocking", SB_OPT_CUSTOM, O(blk), O(have_blk), "blocking"},
    SB_CLI_OPTS_TUNING(gemm_args),
    {NULL}};
#undef O

/* Parses the command line into g. -1: go on; else the command's exit code
 * (--help: 0; a usage error reported). */
static int gemm_parse(int argc, char **argv, gemm_args *g)
{
    memset(g, 0, sizeof *g);
    g->cfg = (sb_gemm_config){.transa = 'N', .transb = 'N', .min_seconds = 1.0};
    sb_err e = {0};
    int rc = sb_cli_opts("gemm", argc, argv, g_gemm_opts, g, &g_ranges, gemm_help);
    if (rc >= 0) return rc;
    if (g->tune_file && sb_cli_check_path("--tune-file", g->tune_file, &e))
        return sb_cli_report("gemm", &e);
    sb_gemm_config *cfg = &g->cfg;
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
static int gemm_tuning(gemm_args *g, sb_tune_use *tun, sb_err *e)
{
    sb_gemm_config *cfg = &g->cfg;
    if (g->have_blk) {
        memset(tun, 0, sizeof *tun);
        snprintf(tun->tuning, sizeof tun->tuning, "explicit (--blocking)");
        cfg->blocking = &g->blk;
    } else {
        if (sb_tune_use_load("gemm", g->tune_file, g->no_tune, tun, e)) return SB_EUSAGE;
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
    sb_tune_use tun;
    if (gemm_tuning(&g, &tun, &e)) return sb_cli_report("gemm", &e);
    const sb_sysinfo *si = sb_sysinfo_cached();
    if (cfg->threads <= 0) cfg->threads = si && si->cores > 0 ? si->cores : 1;
    omp_set_num_threads(cfg->threads);

    sb_gemm_result res;
    if (sb_gemm_bench_run(cfg, &res, &e)) {
        sb_tune_use_free(&tun);
        return sb_cli_report("gemm", &e);
    }
    json_t *doc = sb_gemm_doc(cfg, &res, si ? si->fingerprint : NULL);
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
    sb_tune_use_free(&tun);
    return rc;
}
