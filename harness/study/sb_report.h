/* sb_report: the two-machine (or two-sweep) comparison report. Owns the
 * layout of the Markdown file and of the self-contained HTML file (plots
 * embedded as data: URIs): the sweeps each side used, the headline (each
 * machine's SQuAD epoch at its best kernel per precision, sb_report_headline),
 * an opening summary that runs the gate's test
 * (sb_gate_compare, both ways) and warns when both sides are one sweep or
 * one machine, every ratio in one wording ("1.40x faster") with the test's
 * word on it, machines side by side, peaks per ISA, GEMM
 * throughput per kernel and shape with the candidate/baseline ratio,
 * training tokens/s and epoch time with the headline epoch-time ratio,
 * inference sequences/s, latency (the gate's test on the per-question
 * latencies) and accuracy per kernel, batch and threads,
 * scaling tables and plots, projected figures marked, medians always with
 * their p10-p90 spread, and "not available (reason)" for what a machine
 * could not run, and the environment variables in which the two sides'
 * runs differed. Reads the database only. */
#ifndef SB_REPORT_H
#define SB_REPORT_H
#include "sb_db.h"
#include "sb_err.h"
#include "sb_ptset.h"
#include "sb_report_out.h" /* sb_base64 */

typedef struct sb_report_opts {
    const char *out_dir;      /* created when absent (the CLI refuses missing parents first) */
    const char *title;        /* NULL: "<candidate> vs <baseline>" */
    int plots;                /* draw plots with gnuplot when it is available */
    const char *db_path;      /* named in the report */
    const char *tool_version; /* the sprbench that wrote it (NULL: "unknown") */
    const char *templates;    /* gnuplot templates (NULL: $SPRBENCH_PLOTS, plots/, installed) */
    int gate;                 /* say the gate's verdict (a comparison of two machines is not
                                 a regression gate: without it, differences and significance) */
    const char *study_csv;    /* the study's published figures (NULL: the source tree's) */
    int only_changed;         /* per-point tables: only the rows whose difference is
                                 significant or beyond the tolerance (said at the top) */
} sb_report_opts;

typedef struct sb_report_summary {
    char md_path[4096], html_path[4096];
    int plots_drawn;
    int rows;              /* table rows written (all sections) */
    double headline_ratio; /* baseline/candidate SQuAD v1.1 epoch (projected) at each
                                side's best kernel (above 1: the candidate trains faster);
                                0 when none */
    char headline[2048];   /* the headline in one line, mismatches named; "" when none */
} sb_report_summary;

int sb_report_write(sb_db *db, const sb_selection *baseline, const sb_selection *candidate,
                    const sb_report_opts *o, sb_report_summary *s, sb_err *e);


#endif
