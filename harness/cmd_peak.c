/* sprbench peak: the machine's measured peak per instruction path (AVX2 FMA
 * and int8, AVX-512 f32 FMA, bf16 vdpbf16ps, int8 vpdpbusd, AMX tdpbf16ps /
 * tdpbusd), on one core and on T threads, with the effective clock each ran
 * at. The figures are the denominators of every pct_peak. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sb_result.h"
#include "sb_cli.h"
#include "sb_opts.h"
#include "sb_cmds.h"
#include "sb_cpu.h"
#include "sb_parse.h"
#include "sb_peak_run.h"
#include "sb_sysinfo.h"
#include "sb_text.h"

static void peak_help(void)
{
    printf("usage: sprbench peak [--paths LIST] [--threads T] [--seconds S] [--result-file F]\n"
           "                     [--json]\n\n"
           "Measures the peak of each instruction path with loops of many independent\n"
           "accumulators (no memory traffic), on one core and on T threads:\n"
           "  avx2_f32  AVX2 FMA (vfmadd231ps ymm)           -> avx2_f32_gflops\n"
           "  avx2_int8 what avx2-int8 runs here: AVX-VNNI vpdpbusd ymm, else\n"
           "            vpmaddwd + vpaddd ymm                 -> avx2_int8_gops\n"
           "  f32       AVX-512 FMA (vfmadd231ps zmm)        -> f32_gflops\n"
           "  bf16      AVX512_BF16 vdpbf16ps                -> bf16_gflops\n"
           "  int8      AVX512_VNNI vpdpbusd                 -> int8_gops\n"
           "  amx_bf16  AMX tdpbf16ps                        -> amx_bf16_gflops\n"
           "  amx_int8  AMX tdpbusd                          -> amx_int8_gops\n"
           "A multiply-add counts as 2 operations. Each path also shows its effective clock:\n"
           "the one-core rate / the documented operations per cycle of its instructions on\n"
           "this microarchitecture (metric PATH_clock_ghz; none, with the reason, where the\n"
           "microarchitecture or the figure is unknown, or where the quotient is above\n"
           "6.5 GHz, which no CPU runs at: the assumed figure is then wrong). See `sprbench\n"
           "info` for how the microarchitecture was named; SB_CPU_UARCH=NAME sets it.\n\n"
           "  --paths LIST      comma-separated paths to measure (default: all; a path this\n"
           "                    CPU or OS cannot run is then listed as skipped with its reason)\n"
           "  --threads T       threads for the aggregate figure (default: physical cores)\n"
           "  --seconds S       time per path and thread count, in 5 ms rounds, best kept\n"
           "                    (default 0.6)\n"
           "  --result-file F   write one JSON object (workload \"peak\"): metrics NAME (T\n"
           "                    threads), NAME_1t (one core) and PATH_clock_ghz, skipped\n"
           "                    NAME: reason\n"
           "  --json            print that JSON object instead of the table\n\n"
           "A T-thread rate far from T x one core's (below 0.75x or above 1.25x: the machine\n"
           "was busy during one of the runs) is measured again, twice at most, and the best\n"
           "of the runs kept; one that never scales is flagged with a warning.\n"
           "A path named with --paths that this machine cannot run: one line with the reason\n"
           "on stderr, the result file (if asked for) written with status \"skipped\", exit 3.\n"
           "Exit status: 0 measured (or, without --paths, every path skipped), 1 failed,\n"
           "2 bad usage, 3 a path named with --paths cannot run here.\n");
}

/* Marks the paths named in list; SB_EUSAGE naming an unknown one. */
static int parse_paths(const char *list, int *want, sb_err *e)
{
    char buf[256];
    if (!list[0] || strlen(list) >= sizeof buf)
        return sb_errf(e, SB_EUSAGE, "--paths: give a comma-separated list of paths");
    snprintf(buf, sizeof buf, "%s", list);
    char *save = NULL;
    int n = 0;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int i = sb_peak_path_index(tok);
        if (i < 0)
            return sb_errf(e, SB_EUSAGE, "--paths: unknown path '%s' (known: %s)", tok,
                           sb_peak_path_list());
        want[i] = 1;
        n++;
    }
    if (!n) return sb_errf(e, SB_EUSAGE, "--paths: give a comma-separated list of paths");
    return SB_OK;
}

/* --threads and --seconds: peak's own ranges */
static int to_long(const char *key, const char *v, const char *what, long *out, sb_err *e)
{
    (void)key; /* --threads, the one whole number */
    return sb_parse_long(v, 1, 4096, what, out, e);
}
static int to_double(const char *key, const char *v, const char *what, double *out, sb_err *e)
{
    (void)key; /* --seconds, the one decimal */
    return sb_parse_double(v, 0.01, 600, what, out, e);
}
/* --paths: the paths named, checked as the option comes */
static int to_custom(const char *key, const char *v, void *opts, sb_err *e)
{
    (void)key; /* --paths, the one list */
    sb_peak_opts *o = opts;
    o->paths_arg = v;
    return parse_paths(v, o->want, e);
}
static const sb_opt_ranges g_ranges = {to_long, to_double, NULL, to_custom};

#define O(f) offsetof(sb_peak_opts, f)
static const sb_opt g_peak_opts[] = {
    {"threads", SB_OPT_INT, O(threads), SB_OPT_NOSET, "threads"},
    {"seconds", SB_OPT_DOUBLE, O(seconds), SB_OPT_NOSET, "seconds"},
    {"result-file", SB_OPT_STR, O(result_file), SB_OPT_NOSET, NULL},
    {"json", SB_OPT_FLAG, O(json), SB_OPT_NOSET, NULL},
    {"paths", SB_OPT_CUSTOM, O(paths_arg), SB_OPT_NOSET, "paths"},
    {NULL}};
#undef O

/* Parses argv into *o. -1 to go on, else the exit status (--help: 0). */
static int peak_parse(int argc, char **argv, sb_peak_opts *o)
{
    sb_err e = {0};
    memset(o, 0, sizeof *o);
    o->seconds = 0.6;
    int rc = sb_cli_opts("peak", argc, argv, g_peak_opts, o, &g_ranges, peak_help);
    if (rc >= 0) return rc;
    if (!o->paths_arg)
        for (int i = 0; i < SB_PEAK_NPATHS; i++) o->want[i] = 1;
    /* an output that cannot be written is found before the measuring */
    if (o->result_file && sb_cli_check_out_file("--result-file", o->result_file, &e))
        return sb_cli_report("peak", &e);
    return -1;
}

int sb_cmd_peak(int argc, char **argv)
{
    sb_peak_opts o;
    int rc = peak_parse(argc, argv, &o);
    if (rc >= 0) return rc;
    sb_err e = {0};
    const sb_sysinfo *si = sb_sysinfo_cached();
    if (o.threads <= 0) o.threads = si && si->cores > 0 ? si->cores : 1;
    const sb_cpu *cpu = sb_cpu_get();

    sb_peak_run r = {0};
    r.metrics = json_object();
    r.skipped = json_object();
    r.units = json_object();
    r.no_clock = json_object();
    r.warnings = json_array();
    if (!o.json)
        printf("%-9s %-16s %12s %12s %8s  %-7s %9s  %s\n", "path", "metric", "1 core", "threads",
               "scaling", "unit", "clock", "instructions");
    for (int i = 0; i < SB_PEAK_NPATHS; i++)
        if (o.want[i]) sb_peak_run_path(&o, &r, i, si, cpu);
    sb_peak_run_notes(&o, &r);

    json_t *doc = sb_peak_run_doc(&o, &r, si, cpu);
    rc = 0;
    if (o.result_file && sb_result_write(o.result_file, doc, &e)) rc = sb_cli_report("peak", &e);
    if (!rc && o.json) {
        sb_text_json_dumpf(doc, stdout, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
        putchar('\n');
    }
    if (!rc && r.named_skips) rc = SB_ESKIP;
    json_decref(doc);
    return rc;
}
