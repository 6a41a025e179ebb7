/* sb_gate_render: a gate result as each reader meets it. Owns the verdict
 * table with its summary line, the rows as JSON, the JUnit XML file and the
 * GitHub Actions annotations and step summary. Computes nothing. */
#ifndef SB_GATE_RENDER_H
#define SB_GATE_RENDER_H
#include <stdio.h>
#include <jansson.h>
#include "sb_err.h"
#include "sb_gate_result.h"

/* The verdict table (human) and a one-line summary. */
void sb_gate_print(const sb_gate_result *r, FILE *f);
/* The verdicts as JSON: counts and one object per row (cost_ratio is
 * candidate cost / baseline cost as in the table; null where a row has
 * none). Caller json_decref()s; NULL when memory runs out. */
json_t *sb_gate_json(const sb_gate_result *r);
/* JUnit XML: one testcase per row; FAIL is a failure, WARN a skipped case
 * with its reason; a row's env difference goes into its output. Written
 * atomically. */
int sb_gate_junit(const sb_gate_result *r, const char *path, sb_err *e);
/* For GitHub Actions: one ::error (FAIL) or ::warning (WARN) workflow
 * command per row to annot (NULL: none), and a Markdown table of the rows
 * that did not pass appended to the file `summary` ($GITHUB_STEP_SUMMARY;
 * NULL or "": none). */
int sb_gate_github(const sb_gate_result *r, FILE *annot, const char *summary, sb_err *e);

#endif
