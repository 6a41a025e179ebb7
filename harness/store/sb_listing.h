/* sb_listing: the store shown to a person, as `sprbench db` lists it. Owns
 * the tables of `db info`, `db sweeps` and `db points` (columns sized to
 * what they hold, so that a label, shape or host name is never cut; control
 * characters as '?', invalid UTF-8 as U+FFFD), their --json documents (every
 * field, stored text repaired rather than lost), a point's kept worker
 * output (`db log`, controls in caret notation) and the line an import or
 * merge ends with. Writes to the stream it is given; reads only (a
 * read-only database will do). */
#ifndef SB_LISTING_H
#define SB_LISTING_H
#include <stdint.h>
#include <stdio.h>
#include "sb_db.h"
#include "sb_err.h"
#include "sb_import.h"

/* Schema version, row counts and the machines; path is what the database is
 * called in the first line. */
int sb_listing_info(sb_db *db, const char *path, FILE *f, sb_err *e);

/* One line per sweep (and who runs it), or one JSON document. */
int sb_listing_sweeps(sb_db *db, FILE *f, sb_err *e);
int sb_listing_sweeps_json(sb_db *db, FILE *f, sb_err *e);

/* One line per point of a sweep: status, samples, median seconds (p10-p90),
 * the workload's main metric or the reason; or one JSON document. */
int sb_listing_points(sb_db *db, int64_t sweep_id, FILE *f, sb_err *e);
int sb_listing_points_json(sb_db *db, int64_t sweep_id, FILE *f, sb_err *e);

/* The worker output kept with the point `spec` names (its number or a uuid
 * prefix, sb_point_resolve), after a line naming the point. */
int sb_listing_log(sb_db *db, const char *spec, FILE *f, sb_err *e);

/* "WHAT: N point(s) added (...), M already present; ..." of an import or a
 * merge. */
void sb_listing_import_stats(FILE *f, const char *what, const sb_import_stats *s);

#endif
