/* sprbench allreduce: OSU-style MPI_Allreduce latency and bus bandwidth per
 * message size, including DistilBERT's gradient; runs under mpirun or alone.
 * The run and its result document are bench/allreduce/sb_allreduce_job's;
 * this parses, calls and prints. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sb_allreduce_job.h"
#include "sb_scaling.h"
#include "sb_cli.h"
#include "sb_cmds.h"
#include "sb_opts.h"
#include "sb_workload.h"
#include "sb_result.h"
#include "sb_sysinfo.h"

static void allreduce_help(void)
{
    printf("usage: sprbench allreduce [--sizes LIST] [--iters N] [--warmup W] [--result-file F]\n\n"
           "Times MPI_Allreduce (float, sum) on MPI_COMM_WORLD the way the OSU\n"
           "micro-benchmarks do: a barrier, W warm-up calls not timed, N calls timed\n"
           "one by one with MPI_Wtime, then min/avg/max over ranks of each rank's mean.\n"
           "Bus bandwidth = 2(n-1)/n x bytes / avg latency (0 for a single rank).\n"
           "Run it under mpirun for several ranks, or alone as one rank.\n\n"
           "  --sizes LIST       sizes in bytes: '4..512M' walks powers of two, '64K,1M' lists,\n"
           "                     'grad' is DistilBERT's gradient (%zu bytes, f32);\n"
           "                     default '4..512M,grad'\n"
           "  --iters N          timed calls per size up to 1 MiB (default 50); larger\n"
           "                     sizes run max(2, N x 1MiB/bytes)\n"
           "  --warmup W         warm-up calls, scaled the same way (default 5)\n"
           "  --result-file F    rank 0 writes one JSON object: metrics lat_us_<bytes>\n"
           "                     (avg), lat_min_us_<bytes>, lat_max_us_<bytes>,\n"
           "                     busbw_gbs_<bytes>, algbw_gbs_<bytes>, the same for the\n"
           "                     gradient as *_grad, and a 'table' array of rows\n\n"
           "Exit status: 0 ok, 1 the run failed, 2 bad usage.\n",
           sb_distilbert_grad_bytes());
}

/* Under mpirun every rank parses the same argv; only one should complain. */
static int is_first_rank(void)
{
    const char *r = getenv("OMPI_COMM_WORLD_RANK");
    if (!r) r = getenv("PMI_RANK");
    return !r || !strcmp(r, "0");
}

static int usage_error(const sb_err *e)
{
    if (is_first_rank()) return sb_cli_report("allreduce", e);
    return SB_EUSAGE;
}

typedef struct allreduce_opts {
    const char *sizes, *result_file;
    long iters, warmup;
} allreduce_opts;
static const sb_opt_ranges g_ranges = {sb_worker_opt_long, NULL, NULL, NULL};
#define O(f) offsetof(allreduce_opts, f)
static const sb_opt g_allreduce_opts[] = {
    {"sizes", SB_OPT_STR, O(sizes), SB_OPT_NOSET, NULL},
    {"iters", SB_OPT_LONG, O(iters), SB_OPT_NOSET, "iters"},
    {"warmup", SB_OPT_LONG, O(warmup), SB_OPT_NOSET, "warmup"},
    {"result-file", SB_OPT_STR, O(result_file), SB_OPT_NOSET, NULL},
    {NULL, 0, 0, 0, NULL}};
#undef O

static void print_table(const sb_allreduce_job *j)
{
    printf("# sprbench allreduce: %d rank(s) on %d node(s), %s, float sum, MPI_Wtime\n", j->world,
           j->nodes, j->mpi_library);
    printf("# hosts:");
    for (int i = 0; j->hosts && i < j->world; i++)
        printf(" %s", j->hosts + (size_t)i * MPI_MAX_PROCESSOR_NAME);
    printf("\n");
    printf("# %12s %6s %12s %12s %12s %11s %11s\n", "bytes", "iters", "avg_us", "min_us", "max_us",
           "algbw_GB/s", "busbw_GB/s");
    for (int i = 0; i < j->nsizes; i++) {
        const sb_allreduce_row *r = &j->rows[i];
        printf("  %12zu %6d %12.2f %12.2f %12.2f %11.3f %11.3f%s\n", r->bytes, r->iters,
               r->lat_avg_us, r->lat_min_us, r->lat_max_us, r->algbw_gbs, r->busbw_gbs,
               r->bytes == sb_distilbert_grad_bytes() ? "  <- DistilBERT gradient" : "");
    }
}

int sb_cmd_allreduce(int argc, char **argv)
{
    allreduce_opts o = {.sizes = "4..512M,grad", .iters = 50, .warmup = 5};
    sb_err e = {0};
    int help = 0;
    if (sb_opts_parse(argc, argv, g_allreduce_opts, &o, &g_ranges, &help, &e))
        return usage_error(&e);
    if (help) {
        allreduce_help();
        return 0;
    }
    sb_allreduce_job j = {.iters = o.iters, .warmup = o.warmup};
    /* "64K,,1M" or "1M,1M": a typo the size parser would quietly absorb */
    if (sb_check_list(o.sizes, "--sizes", &e)) return usage_error(&e);
    if (sb_allreduce_parse_sizes(o.sizes, &j.sizes, &j.nsizes, &e)) return usage_error(&e);
    /* rank 0 writes the result: its path is checked before MPI starts */
    if (o.result_file && is_first_rank() &&
        sb_cli_check_out_file("--result-file", o.result_file, &e)) {
        free(j.sizes);
        return usage_error(&e);
    }

    int rc = sb_allreduce_job_run(&j, &e);
    int exit_code = rc ? 1 : 0;
    if (j.rank == 0) {
        if (!rc)
            print_table(&j);
        else
            sb_cli_report("allreduce", &e);
        if (o.result_file) {
            const sb_sysinfo *si = sb_sysinfo_cached();
            json_t *doc = sb_allreduce_result_json(&j, rc ? e.msg : NULL, argc, argv,
                                                   si ? si->fingerprint : NULL);
            sb_err we = {0};
            if (!doc) sb_errf(&we, SB_EFAIL, "out of memory for the result document");
            if (!doc || sb_result_write(o.result_file, doc, &we)) {
                sb_cli_report("allreduce", &we);
                exit_code = 1;
            }
            json_decref(doc);
        }
    }
    /* Every rank leaves with rank 0's verdict (the result file write included). */
    MPI_Bcast(&exit_code, 1, MPI_INT, 0, MPI_COMM_WORLD);
    sb_allreduce_job_finish(&j);
    return exit_code;
}
