/* sb_peak_run: the measuring of `sprbench peak` (kernels/sb_peak's loops):
 * each instruction path on one core and on T threads, the best of up to
 * three runs where the two disagree, the effective clock, the table's rows
 * (unless json), the notes under it and the result document (workload
 * "peak"). */
#ifndef SB_PEAK_RUN_H
#define SB_PEAK_RUN_H
#include <jansson.h>
#include "sb_cpu.h"
#include "sb_peak.h"
#include "sb_sysinfo.h"

/* What the command line asked for. */
typedef struct sb_peak_opts {
    int threads, json;
    double seconds;
    const char *result_file, *paths_arg;
    int want[SB_PEAK_NPATHS];
} sb_peak_opts;

/* What the measuring found, for the table and the result document. */
typedef struct sb_peak_run {
    json_t *metrics, *skipped, *units, *no_clock, *warnings;
    char busy[SB_PEAK_NPATHS][400];
    int nbusy, remeasured;
    int measured, named_skips;
    char first_skip[640];
    char clock_notes[SB_PEAK_NPATHS][300];
    int nnotes;
} sb_peak_run;

/* Path i on one core and on o->threads, its clock, its row of the table. */
void sb_peak_run_path(const sb_peak_opts *o, sb_peak_run *r, int i, const sb_sysinfo *si,
                      const sb_cpu *cpu);
/* The lines under the table: paths measured again, busy warnings (also into
 * the document's warnings), paths without a clock. */
void sb_peak_run_notes(const sb_peak_opts *o, sb_peak_run *r);
/* The result document (workload "peak"), sealed with the command that
 * reproduces it; takes the run's JSON objects. */
json_t *sb_peak_run_doc(const sb_peak_opts *o, sb_peak_run *r, const sb_sysinfo *si,
                        const sb_cpu *cpu);

#endif
