/* sb_import: an export document (sb_export.h describes it) into a
 * database: checked whole first (sb_import_check), then written in one
 * transaction; merging a whole database is an export and an import. */
#ifndef SB_IMPORT_H
#define SB_IMPORT_H
#include <jansson.h>
#include <stddef.h>
#include "sb_db.h"
#include "sb_err.h"

typedef struct sb_import_stats {
    long machines_added, sweeps_added, points_added, points_present;
    long points_updated; /* unfinished here, finished in the document: replaced */
    long samples_added, metrics_added;
} sb_import_stats;

/* Validates the whole document, then adds what the database lacks in one
 * transaction (nothing is written when anything is wrong). A point present
 * here but unfinished (pending, running, interrupted) is replaced by a
 * finished copy of it; any other present point is left as it is. `name` prefixes
 * messages ("FILE: points[3].samples[0]: ..."). Bad input is SB_EUSAGE. */
int sb_import_doc(sb_db *db, json_t *doc, const char *name, sb_import_stats *st, sb_err *e);
/* Parses text (len bytes, NUL not required) and imports it. */
int sb_import_text(sb_db *db, const char *text, size_t len, const char *name, sb_import_stats *st,
                   sb_err *e);
int sb_import_file(sb_db *db, const char *path, sb_import_stats *st, sb_err *e);
/* Reads, parses and validates an export without any database: what `db
 * import` checks of every file before it opens (or creates) --db. */
int sb_import_check_file(const char *path, sb_err *e);
/* Everything of the database at src_path (opened read-only: it must be a
 * sprbench database, and is never changed) into db (as export + import). */
int sb_merge_db(sb_db *db, const char *src_path, sb_import_stats *st, sb_err *e);

#endif
