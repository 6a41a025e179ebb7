/* sb_gate_run: one gate as `sprbench gate` asks for it. Owns the order of
 * the work: the references file read, the sides loaded and checked, the
 * metrics checked, the mode's comparison (a baseline, references or the
 * candidate's own pairs), "nothing judged", and the verdicts written: the
 * table or --json, the --history lines, JUnit, and in GitHub Actions the
 * annotations and the step summary. The command parses and checks its
 * options; this judges. */
#ifndef SB_GATE_RUN_H
#define SB_GATE_RUN_H
#include <stdio.h>
#include "sb_err.h"
#include "sb_gate.h"
#include "sb_gate_refs.h"

#define SB_GATE_JOB_METRICS 16

/* What the command line asks for, and where the verdicts go. */
typedef struct sb_gate_job {
    const char *baseline, *candidate, *dbpath, *refs_path, *junit;
    const char *metrics[SB_GATE_JOB_METRICS + 1]; /* --metric, NULL-ended */
    int nmetrics, as_json, history;
    sb_gate_opts o;
    FILE *out;                /* the table or the JSON document */
    FILE *annotations;        /* GitHub Actions' workflow commands; NULL: not in Actions */
    const char *step_summary; /* in Actions: $GITHUB_STEP_SUMMARY (NULL or "": none) */
} sb_gate_job;

/* The references file at path (at most 16 MiB) into *refs (the caller
 * frees it), *n lines. SB_EUSAGE naming the file, or FILE:LINE. */
int sb_gate_read_references(const char *path, sb_reference **refs, int *n, sb_err *e);

/* Gates what j names (refs: its references, NULL when none) and writes the
 * verdicts. SB_OK no FAIL; SB_EFAIL a FAIL, or nothing judged (e empty:
 * the output says so); else the error on e: SB_EUSAGE for bad input and
 * for an output that could not be written (a verdict CI never got is not
 * a FAIL of the candidate). */
int sb_gate_run(const sb_gate_job *j, const sb_reference *refs, int nrefs, sb_err *e);

#endif
