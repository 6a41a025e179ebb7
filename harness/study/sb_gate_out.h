/* sb_gate_out: what `sprbench gate` writes around the verdict table
 * (sb_gate_print, sb_gate_json). Owns the heading (the sides, the
 * tolerance, the test), the environment lines (which recorded variables
 * differ between the compared points: one line per distinct difference,
 * and each row's own for JUnit), the baseline configurations ignored, the
 * whole --json document, and the --history lines (for each FAIL, the last
 * tool version that passed). Writes to the stream it is given. */
#ifndef SB_GATE_OUT_H
#define SB_GATE_OUT_H
#include <stdio.h>
#include "sb_db.h"
#include "sb_err.h"
#include "sb_gate.h"
#include "sb_gate_side.h"

/* Makes every text of r shown on any output (the table, --json, JUnit, the
 * annotations, the step summary) inert, in place: stored labels, host
 * names, kernel names and failure reasons become one line with controls as
 * '?', invalid UTF-8 and U+FFFE/U+FFFF as U+FFFD, and workflow commands
 * defused (sb_text_inert): a database cannot speak to a CI runner or a
 * terminal through the gate. The sides' names too. */
void sb_gate_result_inert(sb_gate_result *r, sb_gate_side *base, sb_gate_side *cand);

/* references: the references file r was gated against, NULL when it was
 * gated against base (whose environments are then compared with the
 * candidate's, filling each row's env). */

/* The heading, the table, the environment lines and the ignored
 * configurations. */
void sb_gate_write_text(sb_gate_result *r, const sb_gate_side *base, const sb_gate_side *cand,
                        const char *references, const sb_gate_opts *o, FILE *f);
/* One JSON document: sb_gate_json's, with the sides, the test and the
 * environment lines. SB_EFAIL when it cannot be written. */
int sb_gate_write_json(sb_gate_result *r, const sb_gate_side *base, const sb_gate_side *cand,
                       const char *references, const sb_gate_opts *o, FILE *f, sb_err *e);

/* For each FAIL of r, a line "history: ..." naming where it started, read
 * from the candidate's database: the file `candidate` when it is one, else
 * shared (the --db database the sides were looked up in) or, when none was
 * opened, dbpath. */
int sb_gate_write_history(const sb_gate_result *r, const sb_gate_side *base,
                          const sb_gate_side *cand, const sb_gate_opts *o, const char *candidate,
                          const char *dbpath, sb_db *shared, FILE *f, sb_err *e);

#endif
