/* sprbench peak: the machine's measured peak per instruction path (f32 FMA,
 * bf16 vdpbf16ps, int8 vpdpbusd, AMX tdpbf16ps / tdpbusd), on one core and
 * on T threads. The figures are the denominators of every pct_peak. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sb_cli.h"
#include "sb_cmds.h"
#include "sb_io.h"
#include "sb_launch.h"
#include "sb_peak.h"
#include "sb_sysinfo.h"

static void peak_help(void)
{
    printf("usage: sprbench peak [--threads T] [--seconds S] [--result-file F] [--json]\n\n"
           "Measures the peak of each instruction path with loops of many independent\n"
           "accumulators (no memory traffic), on one core and on T threads:\n"
           "  f32       AVX-512 FMA (vfmadd231ps zmm)        -> f32_gflops\n"
           "  bf16      AVX512_BF16 vdpbf16ps                -> bf16_gflops\n"
           "  int8      AVX512_VNNI vpdpbusd                 -> int8_gops\n"
           "  amx_bf16  AMX tdpbf16ps                        -> amx_bf16_gflops\n"
           "  amx_int8  AMX tdpbusd                          -> amx_int8_gops\n"
           "A path this CPU or OS cannot run is reported skipped with its reason.\n\n"
           "  --threads T       threads for the aggregate figure (default: physical cores)\n"
           "  --seconds S       time per path and thread count, in 5 ms rounds, best kept\n"
           "                    (default 0.6)\n"
           "  --result-file F   write one JSON object (workload \"peak\"): metrics NAME (T\n"
           "                    threads) and NAME_1t (one core), skipped NAME: reason\n"
           "  --json            print that JSON object instead of the table\n\n"
           "Exit status: 0 measured (or every path skipped), 1 write failed, 2 bad usage.\n");
}

int sb_cmd_peak(int argc, char **argv)
{
    static const struct option opts[] = {
        {"threads", required_argument, 0, 't'}, {"seconds", required_argument, 0, 's'},
        {"result-file", required_argument, 0, 'o'}, {"json", no_argument, 0, 'j'},
        {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    int threads = 0, json = 0, c;
    double seconds = 0.6;
    const char *result_file = NULL;
    long v;
    sb_err e = {0};
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 't':
            if (sb_parse_long(optarg, 1, 4096, "--threads", &v, &e)) return sb_cli_report("peak", &e);
            threads = (int)v;
            break;
        case 's':
            if (sb_parse_double(optarg, 0.01, 600, "--seconds", &seconds, &e))
                return sb_cli_report("peak", &e);
            break;
        case 'o': result_file = optarg; break;
        case 'j': json = 1; break;
        case 'h': peak_help(); return 0;
        default:
            return sb_cli_usage_error("peak", "unknown or incomplete option '%s' (see --help)",
                                      argv[optind - 1]);
        }
    }
    if (optind < argc) return sb_cli_usage_error("peak", "unexpected argument '%s'", argv[optind]);
    const sb_sysinfo *si = sb_sysinfo_cached();
    if (threads <= 0) threads = si && si->cores > 0 ? si->cores : 1;

    json_t *metrics = json_object(), *skipped = json_object(), *units = json_object();
    int measured = 0;
    if (!json)
        printf("%-9s %-16s %12s %12s %8s\n", "path", "metric", "1 core", "threads", "scaling");
    for (int i = 0; i < SB_PEAK_NPATHS; i++) {
        const char *path = sb_peak_paths[i], *metric = sb_peak_metrics[i];
        const char *unit = strstr(metric, "gops") ? "GOP/s" : "GFLOP/s";
        char why[512] = "";
        double one = 0, all = 0;
        if (sb_peak_measure(path, 1, seconds, &one, why, sizeof why) ||
            (threads > 1 && sb_peak_measure(path, threads, seconds, &all, why, sizeof why))) {
            json_object_set_new(skipped, metric, json_string(why));
            if (!json) printf("%-9s %-16s skipped: %s\n", path, metric, why);
            continue;
        }
        if (threads == 1) all = one;
        char name1[64];
        snprintf(name1, sizeof name1, "%s_1t", metric);
        json_object_set_new(metrics, metric, json_real(all));
        json_object_set_new(metrics, name1, json_real(one));
        json_object_set_new(units, metric, json_string(unit));
        json_object_set_new(units, name1, json_string(unit));
        measured++;
        if (!json)
            printf("%-9s %-16s %12.1f %12.1f %7.2fx  %s\n", path, metric, one, all,
                   one > 0 ? all / one : 0, unit);
    }

    char tbuf[16], sbuf[32];
    snprintf(tbuf, sizeof tbuf, "%d", threads);
    snprintf(sbuf, sizeof sbuf, "%g", seconds);
    char *rv[] = {"sprbench", "peak", "--threads", tbuf, "--seconds", sbuf, NULL};
    char *repro = sb_argv_render(rv);
    json_t *doc = json_pack("{s:s, s:s, s:i, s:i, s:i, s:i, s:{s:f}}", "workload", "peak",
                            "status", measured ? "ok" : "skipped", "threads", threads, "ranks", 1,
                            "ppn", 1, "nodes", 1, "config", "seconds", seconds);
    if (!measured)
        json_object_set_new(doc, "reason", json_string("no instruction path can run here"));
    json_object_set_new(doc, "metrics", metrics);
    json_object_set_new(doc, "units", units);
    json_object_set_new(doc, "skipped", skipped);
    json_object_set_new(doc, "samples", json_array());
    json_object_set_new(doc, "env", json_pack("{s:i}", "OMP_NUM_THREADS", threads));
    json_object_set_new(doc, "repro", json_string(repro ? repro : ""));
    if (si) json_object_set_new(doc, "machine_fingerprint", json_string(si->fingerprint));
    int rc = 0;
    if (result_file && sb_json_write_atomic(result_file, doc, &e)) rc = sb_cli_report("peak", &e);
    if (!rc && json) {
        json_dumpf(doc, stdout, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
        putchar('\n');
    }
    free(repro);
    json_decref(doc);
    return rc;
}
