/* sprbench peak: the machine's measured peak per instruction path (AVX2 FMA
 * and int8, AVX-512 f32 FMA, bf16 vdpbf16ps, int8 vpdpbusd, AMX tdpbf16ps /
 * tdpbusd), on one core and on T threads, with the effective clock each ran
 * at. The figures are the denominators of every pct_peak. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sb_result.h"
#include "sb_cli.h"
#include "sb_opts.h"
#include "sb_cmds.h"
#include "sb_cpu.h"
#include "sb_metric.h"
#include "sb_peak.h"
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

/* What the command line asked for. */
typedef struct peak_opts {
    int threads, json;
    double seconds;
    const char *result_file, *paths_arg;
    int want[SB_PEAK_NPATHS];
} peak_opts;

/* Parses argv into *o. -1 to go on, else the exit status (--help: 0). */
static int peak_parse(int argc, char **argv, peak_opts *o)
{
    static const struct option opts[] = {{"threads", required_argument, 0, 't'},
                                         {"seconds", required_argument, 0, 's'},
                                         {"result-file", required_argument, 0, 'o'},
                                         {"json", no_argument, 0, 'j'},
                                         {"paths", required_argument, 0, 'p'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    int c;
    long v;
    sb_err e = {0};
    memset(o, 0, sizeof *o);
    o->seconds = 0.6;
    optind = 1;
    opterr = 0;
    sb_opt_seen seen = {0};
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        if (sb_opt_once(&seen, opts, c, NULL, &e)) return sb_cli_report("peak", &e);
        switch (c) {
        case 't':
            if (sb_parse_long(optarg, 1, 4096, "--threads", &v, &e))
                return sb_cli_report("peak", &e);
            o->threads = (int)v;
            break;
        case 's':
            if (sb_parse_double(optarg, 0.01, 600, "--seconds", &o->seconds, &e))
                return sb_cli_report("peak", &e);
            break;
        case 'o': o->result_file = optarg; break;
        case 'j': o->json = 1; break;
        case 'p':
            memset(o->want, 0, sizeof o->want);
            if (parse_paths(optarg, o->want, &e)) return sb_cli_report("peak", &e);
            o->paths_arg = optarg;
            break;
        case 'h': peak_help(); return 0;
        default:
            return sb_cli_usage_error("peak", "unknown or incomplete option '%s' (see --help)",
                                      argv[optind - 1]);
        }
    }
    if (optind < argc) return sb_cli_usage_error("peak", "unexpected argument '%s'", argv[optind]);
    if (!o->paths_arg)
        for (int i = 0; i < SB_PEAK_NPATHS; i++) o->want[i] = 1;
    /* an output that cannot be written is found before the measuring */
    if (o->result_file && sb_cli_check_out_file("--result-file", o->result_file, &e))
        return sb_cli_report("peak", &e);
    return -1;
}

/* What the measuring found, for the table and the result document. */
typedef struct peak_run {
    json_t *metrics, *skipped, *units, *no_clock, *warnings;
    char busy[SB_PEAK_NPATHS][400];
    int nbusy, remeasured;
    int measured, named_skips;
    char first_skip[640];
    char clock_notes[SB_PEAK_NPATHS][300];
    int nnotes;
} peak_run;

/* A path that cannot run: listed as skipped; named with --paths, it is the
 * run's verdict (one line on stderr). */
static void peak_skip(const peak_opts *o, peak_run *r, const char *path, const char *metric,
                      const char *why)
{
    json_object_set_new(r->skipped, metric, json_string(why));
    if (!o->json) printf("%-9s %-16s skipped: %s\n", path, metric, why);
    if (o->paths_arg) {
        /* the user asked for this path by name: it is this run's verdict */
        fprintf(stderr, "sprbench peak: path %s cannot run on this machine: %s\n", path, why);
        if (!r->named_skips++)
            snprintf(r->first_skip, sizeof r->first_skip,
                     "path %s cannot run on this machine: %.500s", path, why);
    }
}

/* Path i on one core and on o->threads, its clock, its row of the table. */
static void peak_path(const peak_opts *o, peak_run *r, int i, const sb_sysinfo *si,
                      const sb_cpu *cpu)
{
    int threads = o->threads;
    double seconds = o->seconds;
    const char *path = sb_peak_paths[i], *metric = sb_peak_metrics[i];
    const char *unit = sb_metric_unit(metric, 0); /* the metric table's: GFLOP/s, GOP/s */
    if (!unit) unit = "GFLOP/s"; /* every peak metric has its row (test_results_metric) */
    char why[512] = "";
    double one = 0, all = 0;
    if (sb_peak_measure(path, 1, seconds, &one, why, sizeof why) ||
        (threads > 1 && sb_peak_measure(path, threads, seconds, &all, why, sizeof why))) {
        peak_skip(o, r, path, metric, why);
        return;
    }
    if (threads == 1) all = one;
    /* A register-only loop on n cores runs n times one core's rate. Far
     * from it, one of the two runs shared its cores (a neighbour, a
     * throttled clock): measured again, the best of three kept (a peak
     * is what the machine can do), rather than used as it came; the
     * warning below stays if it never scaled. */
    int cores = si && si->cores > 0 ? si->cores : threads;
    int again = 0;
    for (; again < 2 && threads > 1 && threads <= cores &&
         (all < 0.75 * threads * one || all > 1.25 * threads * one);
         again++) {
        double one2 = 0, all2 = 0;
        if (sb_peak_measure(path, 1, seconds, &one2, why, sizeof why) ||
            sb_peak_measure(path, threads, seconds, &all2, why, sizeof why))
            break;
        if (one2 > one) one = one2;
        if (all2 > all) all = all2;
    }
    r->remeasured += again > 0;
    char name1[64], cname[64], cwhy[256] = "";
    snprintf(name1, sizeof name1, "%s_1t", metric);
    snprintf(cname, sizeof cname, "%s_clock_ghz", path);
    json_object_set_new(r->metrics, metric, json_real(all));
    json_object_set_new(r->metrics, name1, json_real(one));
    json_object_set_new(r->units, metric, json_string(unit));
    json_object_set_new(r->units, name1, json_string(unit));
    double ghz = sb_peak_clock_ghz(path, one, cpu->microarch, cpu->avx_vnni, cwhy, sizeof cwhy);
    char clock[32] = "-";
    if (ghz > 0) {
        json_object_set_new(r->metrics, cname, json_real(ghz));
        json_object_set_new(r->units, cname, json_string("GHz"));
        snprintf(clock, sizeof clock, "%.2f GHz", ghz);
    } else {
        json_object_set_new(r->no_clock, path, json_string(cwhy));
        snprintf(r->clock_notes[r->nnotes++], sizeof r->clock_notes[0], "%s: %s", path, cwhy);
    }
    r->measured++;
    if (!o->json)
        printf("%-9s %-16s %12.1f %12.1f %7.2fx  %-7s %9s  %s\n", path, metric, one, all,
               one > 0 ? all / one : 0, unit, clock, sb_peak_insn(path));
    /* more cores cannot do less work on a register-only loop: the
     * machine was busy (a neighbour, throttling) while it ran */
    if (threads > 1 && all < one && r->nbusy < (int)(sizeof r->busy / sizeof r->busy[0]))
        snprintf(r->busy[r->nbusy++], sizeof r->busy[0],
                 "%s on %d threads (%.1f %s) is below one core (%.1f): the machine was busy"
                 " while the peak was measured; figures against it are suspect, measure"
                 " again when it is quiet",
                 path, threads, all, unit, one);
}

/* The lines under the table: paths measured again, busy warnings (also into
 * the document's warnings), paths without a clock. */
static void peak_notes(const peak_opts *o, peak_run *r)
{
    if (r->remeasured && !o->json)
        printf("note: %d path(s) measured again: their %d-thread rate was far from %d x one"
               " core (a busy machine); the best of the runs is kept\n",
               r->remeasured, o->threads, o->threads);
    for (int i = 0; i < r->nbusy; i++) {
        if (!o->json) printf("warning: %s\n", r->busy[i]);
        json_array_append_new(r->warnings, json_string(r->busy[i]));
    }
    if (!o->json)
        for (int i = 0; i < r->nnotes; i++) printf("no clock for %s\n", r->clock_notes[i]);
}

/* The result document (workload "peak"), sealed with the command that
 * reproduces it; takes the run's JSON objects. */
static json_t *peak_doc(const peak_opts *o, peak_run *r, const sb_sysinfo *si, const sb_cpu *cpu)
{
    char tbuf[16], sbuf[32];
    snprintf(tbuf, sizeof tbuf, "%d", o->threads);
    snprintf(sbuf, sizeof sbuf, "%g", o->seconds);
    char *rv[] = {"peak",
                  "--threads",
                  tbuf,
                  "--seconds",
                  sbuf,
                  o->paths_arg ? "--paths" : NULL,
                  (char *)o->paths_arg,
                  NULL};
    const char *status = r->measured && !r->named_skips ? "ok" : "skipped";
    const char *reason = r->named_skips ? r->first_skip
        : !r->measured                  ? "no instruction path can run here"
                                        : "";
    json_t *doc = sb_result_new(
        &(sb_result_head){"peak", NULL, NULL, o->threads, 1, 1, 1, status, reason});
    json_t *config = json_object_get(doc, "config");
    json_object_set_new(config, "seconds", json_real(o->seconds));
    if (o->paths_arg) {
        json_t *pl = json_array();
        for (int i = 0; i < SB_PEAK_NPATHS; i++)
            if (o->want[i]) json_array_append_new(pl, json_string(sb_peak_paths[i]));
        json_object_set_new(config, "paths", pl);
    }
    json_object_set_new(doc, "metrics", r->metrics);
    json_object_set_new(doc, "units", r->units);
    json_object_set_new(doc, "skipped", r->skipped);
    json_object_set_new(doc, "no_clock", r->no_clock);
    json_object_set_new(doc, "warnings", r->warnings);
    json_object_set_new(doc, "microarch", json_string(cpu->microarch));
    json_object_set_new(doc, "microarch_how", json_string(cpu->microarch_how));
    char omp[32];
    snprintf(omp, sizeof omp, "OMP_NUM_THREADS=%d", o->threads);
    const char *set[] = {omp, NULL};
    sb_result_seal(doc, o->paths_arg ? 7 : 5, rv, set, si ? si->fingerprint : NULL);
    return doc;
}

int sb_cmd_peak(int argc, char **argv)
{
    peak_opts o;
    int rc = peak_parse(argc, argv, &o);
    if (rc >= 0) return rc;
    sb_err e = {0};
    const sb_sysinfo *si = sb_sysinfo_cached();
    if (o.threads <= 0) o.threads = si && si->cores > 0 ? si->cores : 1;
    const sb_cpu *cpu = sb_cpu_get();

    peak_run r = {0};
    r.metrics = json_object();
    r.skipped = json_object();
    r.units = json_object();
    r.no_clock = json_object();
    r.warnings = json_array();
    if (!o.json)
        printf("%-9s %-16s %12s %12s %8s  %-7s %9s  %s\n", "path", "metric", "1 core", "threads",
               "scaling", "unit", "clock", "instructions");
    for (int i = 0; i < SB_PEAK_NPATHS; i++)
        if (o.want[i]) peak_path(&o, &r, i, si, cpu);
    peak_notes(&o, &r);

    json_t *doc = peak_doc(&o, &r, si, cpu);
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
