/* sb_gate_side: the two sides `sprbench gate` compares, as a person names
 * them. Owns reading a side (a database file, all of it; or a sweep or
 * machine looked up in --db, sb_select_resolve), with the environment each
 * of its points recorded (sb_envmap), and refusing, before any verdict, what
 * cannot be gated: a side without points, a run against itself (it passes
 * whatever it measured; known by the uuids of sweeps and points, whatever
 * the files are called), and two different machines without --cross-machine
 * (every point would FAIL as a mismatch). */
#ifndef SB_GATE_SIDE_H
#define SB_GATE_SIDE_H
#include <limits.h>
#include "sb_db.h"
#include "sb_envdiff.h"
#include "sb_err.h"
#include "sb_gate.h"
#include "sb_ptset.h"

typedef struct sb_gate_side {
    sb_ptset set;   /* its points, ordered by id */
    sb_envmap env;  /* the environment each recorded */
    char what[300]; /* what the output calls it: "database FILE", or a selection's label */
    char file
        [PATH_MAX]; /* the database read, resolved (two names of one file are one); "" unknown */
} sb_gate_side;

/* Loads the side `spec` names into s (zeroed first): a regular file must be
 * a SQLite database (SB_EUSAGE otherwise), anything else is looked up in
 * the database at dbpath, opened read-only once into *shared (the caller
 * closes it) and kept for the other side. */
int sb_gate_side_load(const char *spec, const char *dbpath, sb_db **shared, sb_gate_side *s,
                      sb_err *e);
void sb_gate_side_free(sb_gate_side *s);

/* SB_EUSAGE, naming the sides, for what cannot be gated: a candidate (or a
 * baseline) without points, a sweep uuid or a point uuid on both sides (a
 * copy or hard link of one database, a baseline file holding the candidate's
 * sweep: content, not file names), a sample that is not seconds a clock
 * measures (sb_sample_seconds_ok: 0, negative, denormal, infinite), and a
 * candidate on machines the baseline never ran on (unless o->cross_machine). base NULL: against references, only the candidate is
 * checked. */
int sb_gate_sides_check(const sb_gate_side *base, const sb_gate_side *cand, const sb_gate_opts *o,
                        sb_err *e);

#endif
