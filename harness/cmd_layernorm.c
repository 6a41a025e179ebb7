/* sprbench layernorm: the trainer's LayerNorm per token
 * (bench/layernorm). This parses, calls and prints. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "sb_cli.h"
#include "sb_cmds.h"
#include "sb_layernorm_bench.h"
#include "sb_opts.h"
#include "sb_result.h"
#include "sb_sysinfo.h"
#include "sb_text.h"
#include "sb_workload.h"

static void layernorm_help(void)
{
    printf("usage: sprbench layernorm [--batch B] [--seq S] [--dim D] [--iters N]\n"
           "                          [--threads T] [--result-file F] [--json]\n\n"
           "Times the trainer's own LayerNorm (the AVX-512, AVX2 or scalar rows it\n"
           "runs here) over B x S rows of D floats, as DistilBERT normalises each\n"
           "token's hidden vector: N repetitions, each timed alone after a warm-up,\n"
           "the output checked against the same rows in double precision. Prints the\n"
           "median nanoseconds a row (lower is better) and GB/s.\n\n"
           "  --batch B         sequences (default 8)\n"
           "  --seq S           tokens a sequence (default 384)\n"
           "  --dim D           hidden size, 8..65536 (default 768)\n"
           "  --iters N         timed repetitions (default 50)\n"
           "  --threads T       OpenMP threads (default: physical cores)\n"
           "  --result-file F   write the result as one JSON object (metrics\n"
           "                    ns_per_row, layernorm_gbps, max_abs_error)\n"
           "  --json            print the result JSON instead of the line\n\n"
           "Exit status: 0 ok, 1 wrong output or no memory, 2 bad input.\n");
}

typedef struct ln_opts {
    long batch, seq, dim, iters, threads;
    int json;
    const char *result_file;
} ln_opts;
static const sb_opt_ranges g_ranges = {sb_worker_opt_long, NULL, NULL, NULL};
#define O(f) offsetof(ln_opts, f)
static const sb_opt g_ln_opts[] = {
    {"batch", SB_OPT_LONG, O(batch), SB_OPT_NOSET, "batch"},
    {"seq", SB_OPT_LONG, O(seq), SB_OPT_NOSET, "seq"},
    {"dim", SB_OPT_LONG, O(dim), SB_OPT_NOSET, "dim"},
    {"iters", SB_OPT_LONG, O(iters), SB_OPT_NOSET, "iters"},
    {"threads", SB_OPT_LONG, O(threads), SB_OPT_NOSET, "threads"},
    {"result-file", SB_OPT_STR, O(result_file), SB_OPT_NOSET, NULL},
    {"json", SB_OPT_FLAG, O(json), SB_OPT_NOSET, NULL},
    {NULL, 0, 0, 0, NULL}};
#undef O

int sb_cmd_layernorm(int argc, char **argv)
{
    ln_opts o = {.batch = SB_LAYERNORM_DEFAULT_BATCH,
                 .seq = SB_LAYERNORM_DEFAULT_SEQ,
                 .dim = SB_LAYERNORM_DEFAULT_DIM,
                 .iters = 50};
    sb_err e = {0};
    int help = 0;
    if (sb_opts_parse(argc, argv, g_ln_opts, &o, &g_ranges, &help, &e))
        return sb_cli_report("layernorm", &e);
    if (help) {
        layernorm_help();
        return 0;
    }
    if (o.result_file && sb_cli_check_out_file("--result-file", o.result_file, &e))
        return sb_cli_report("layernorm", &e);
    if (sb_layernorm_check_size(o.batch, o.seq, o.dim, "--", &e))
        return sb_cli_report("layernorm", &e);
    const sb_sysinfo *si = sb_sysinfo_cached();
    sb_layernorm_config c = {(int)o.batch, (int)o.seq, (int)o.dim, (int)o.iters, (int)o.threads};
    if (c.threads <= 0) c.threads = si && si->cores > 0 ? si->cores : 1;

    sb_layernorm_result r;
    if (sb_layernorm_bench_run(&c, &r, &e)) return sb_cli_report("layernorm", &e);
    json_t *doc = sb_layernorm_result_json(&c, &r);
    char v[5][24], omp[32];
    snprintf(v[0], sizeof v[0], "%d", c.batch);
    snprintf(v[1], sizeof v[1], "%d", c.seq);
    snprintf(v[2], sizeof v[2], "%d", c.dim);
    snprintf(v[3], sizeof v[3], "%d", c.iters);
    snprintf(v[4], sizeof v[4], "%d", c.threads);
    snprintf(omp, sizeof omp, "OMP_NUM_THREADS=%d", c.threads);
    char *rv[] = {"layernorm", "--batch", v[0], "--seq", v[1], "--dim",     v[2],
                  "--iters",   v[3],      "--threads", v[4], NULL};
    const char *set[] = {omp, NULL};
    sb_result_seal(doc, 11, rv, set, si ? si->fingerprint : NULL);
    int rc = 0;
    if (o.result_file && sb_result_write(o.result_file, doc, &e)) rc = sb_cli_report("layernorm", &e);
    if (!rc && o.json) {
        sb_text_json_dumpf(doc, stdout, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
        putchar('\n');
    } else if (!rc && !strcmp(r.status, "ok")) {
        printf("layernorm %d x %d rows of %d, %d thread%s: %.1f ns/row (median of %d), %.2f GB/s\n",
               c.batch, c.seq, c.dim, c.threads, c.threads == 1 ? "" : "s", r.ns_per_row,
               r.nsamples, r.gbps);
    }
    if (!rc && strcmp(r.status, "ok")) {
        fprintf(stderr, "sprbench layernorm: %s\n", r.reason);
        rc = 1;
    }
    json_decref(doc);
    sb_layernorm_result_free(&r);
    return rc;
}
