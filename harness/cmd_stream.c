/* sprbench stream: memory bandwidth, STREAM's four loops (bench/stream).
 * This parses, calls and prints. */
#include <omp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "sb_cli.h"
#include "sb_cmds.h"
#include "sb_opts.h"
#include "sb_result.h"
#include "sb_stream.h"
#include "sb_sysinfo.h"
#include "sb_text.h"
#include "sb_workload.h"

static void stream_help(void)
{
    printf("usage: sprbench stream [--mib M] [--ntimes N] [--threads T] [--result-file F]\n\n"
           "Memory bandwidth as STREAM measures it: copy (c = a), scale (b = 3c), add\n"
           "(c = a + b) and triad (a = b + 3c) over three arrays of doubles, each loop\n"
           "timed alone N times; the first time is a warm-up, not counted. Prints each\n"
           "loop's median and best GB/s (1e9 bytes a second; best is STREAM's own figure)\n"
           "and checks every array against the same recurrence computed in scalars.\n\n"
           "  --mib M           MiB per array (default: 4x the last-level cache over the\n"
           "                    three arrays, at least 64); smaller arrays measure the cache,\n"
           "                    and the result says so\n"
           "  --ntimes N        repetitions per loop, 2..200 (default 20)\n"
           "  --threads T       OpenMP threads (default: physical cores)\n"
           "  --result-file F   write the result as one JSON object (metrics\n"
           "                    <loop>_gbps, <loop>_best_gbps; samples: the triad's seconds)\n"
           "  --json            print the result JSON instead of the table\n\n"
           "Exit status: 0 ok, 1 wrong results or the arrays cannot be allocated, 2 bad\n"
           "input.\n");
}

typedef struct stream_opts {
    long mib, ntimes, threads;
    int set_mib, json;
    const char *result_file;
} stream_opts;
static const sb_opt_ranges g_ranges = {sb_worker_opt_long, NULL, NULL, NULL};
#define O(f) offsetof(stream_opts, f)
static const sb_opt g_stream_opts[] = {
    {"mib", SB_OPT_LONG, O(mib), O(set_mib), "mib"},
    {"ntimes", SB_OPT_LONG, O(ntimes), SB_OPT_NOSET, "ntimes"},
    {"threads", SB_OPT_LONG, O(threads), SB_OPT_NOSET, "threads"},
    {"result-file", SB_OPT_STR, O(result_file), SB_OPT_NOSET, NULL},
    {"json", SB_OPT_FLAG, O(json), SB_OPT_NOSET, NULL},
    {NULL, 0, 0, 0, NULL}};
#undef O

int sb_cmd_stream(int argc, char **argv)
{
    stream_opts o = {.ntimes = 20};
    sb_err e = {0};
    int help = 0;
    if (sb_opts_parse(argc, argv, g_stream_opts, &o, &g_ranges, &help, &e))
        return sb_cli_report("stream", &e);
    if (help) {
        stream_help();
        return 0;
    }
    if (o.result_file && sb_cli_check_out_file("--result-file", o.result_file, &e))
        return sb_cli_report("stream", &e);
    const sb_sysinfo *si = sb_sysinfo_cached();
    sb_stream_config c = {.ntimes = (int)o.ntimes, .threads = (int)o.threads};
    if (c.threads <= 0) c.threads = si && si->cores > 0 ? si->cores : 1;
    /* hwloc's L3 is per instance; the caches of every package add up */
    if (si) c.llc_bytes = (si->l3_bytes ? si->l3_bytes : si->l2_bytes) * (unsigned)si->packages;
    c.mib = o.set_mib ? (size_t)o.mib : (size_t)((4 * c.llc_bytes / 3) >> 20) + 1;
    if (c.mib < 64 && !o.set_mib) c.mib = 64;
    /* arrays the memory cannot hold would be killed while first touched,
     * not refused by the allocator: refused here, with the figure. What
     * counts is what is free now and what the cgroup (a container, a
     * Slurm job) still allows, not the RAM the machine has. */
    unsigned long long need = 3ull * c.mib << 20;
    char bound[96];
    unsigned long long usable = sb_mem_usable(bound, sizeof bound);
    if (!usable && si) usable = si->mem_bytes, snprintf(bound, sizeof bound, "memory");
    if (usable && need > usable / 10 * 8)
        return sb_cli_usage_error("stream",
                                  "--mib %zu: three arrays need %llu MiB, over 80 %% of the "
                                  "%llu MiB of %s",
                                  c.mib, need >> 20, usable >> 20, bound);
    omp_set_num_threads(c.threads);

    sb_stream_result r;
    if (sb_stream_run(&c, &r, &e)) return sb_cli_report("stream", &e);
    json_t *doc = sb_stream_result_json(&c, &r);
    char mib[24], ntimes[16], threads[16], omp[32];
    snprintf(mib, sizeof mib, "%zu", c.mib);
    snprintf(ntimes, sizeof ntimes, "%d", c.ntimes);
    snprintf(threads, sizeof threads, "%d", c.threads);
    snprintf(omp, sizeof omp, "OMP_NUM_THREADS=%d", c.threads);
    char *rv[] = {"stream", "--mib", mib, "--ntimes", ntimes, "--threads", threads, NULL};
    const char *set[] = {omp, NULL};
    sb_result_seal(doc, 7, rv, set, si ? si->fingerprint : NULL);
    int rc = 0;
    if (o.result_file && sb_result_write(o.result_file, doc, &e)) rc = sb_cli_report("stream", &e);
    if (!rc && o.json) {
        sb_text_json_dumpf(doc, stdout, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
        putchar('\n');
    } else if (!rc && !strcmp(r.status, "ok")) {
        printf("# sprbench stream: 3 arrays of %zu MiB (%zu doubles), %d thread%s, best and median"
               " of %d\n",
               c.mib, r.n, c.threads, c.threads == 1 ? "" : "s", r.nsamples);
        printf("# %-6s %12s %12s\n", "loop", "best_GB/s", "median_GB/s");
        for (int l = 0; l < SB_STREAM_NLOOPS; l++)
            printf("  %-6s %12.2f %12.2f\n", sb_stream_loop_names[l], r.best_gbs[l],
                   r.median_gbs[l]);
    }
    if (!rc && r.warning[0]) fprintf(stderr, "sprbench stream: warning: %s\n", r.warning);
    if (!rc && strcmp(r.status, "ok")) {
        fprintf(stderr, "sprbench stream: %s\n", r.reason);
        rc = 1;
    }
    json_decref(doc);
    sb_stream_result_free(&r);
    return rc;
}
