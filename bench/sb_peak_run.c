/* sb_peak_run: `sprbench peak`'s measuring: each instruction path on one
 * core and on T threads (measured again when the two disagree), its clock,
 * its row of the table, and the result document. The command (harness/
 * cmd_peak) parses the options and writes the outputs. */
#include "sb_peak_run.h"
#include <stdio.h>
#include <string.h>
#include "sb_metric.h"
#include "sb_peak.h"
#include "sb_result.h"

/* A path that cannot run: listed as skipped; named with --paths, it is the
 * run's verdict (one line on stderr). */
static void peak_skip(const sb_peak_opts *o, sb_peak_run *r, const char *path, const char *metric,
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
void sb_peak_run_path(const sb_peak_opts *o, sb_peak_run *r, int i, const sb_sysinfo *si,
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
void sb_peak_run_notes(const sb_peak_opts *o, sb_peak_run *r)
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
json_t *sb_peak_run_doc(const sb_peak_opts *o, sb_peak_run *r, const sb_sysinfo *si,
                        const sb_cpu *cpu)
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
