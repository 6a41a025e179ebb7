/* sb_export_internal: what export (sb_export), import checks
 * (sb_import_check) and import (sb_import) share: the plain columns each
 * table's rows travel in, with their types and limits. */
#ifndef SB_EXPORT_INTERNAL_H
#define SB_EXPORT_INTERNAL_H
#include <stddef.h>
#include "sb_db.h"
#include "sb_io.h"

/* Plain columns travel verbatim. Each has a type and, for integers, a range,
 * for text a limit in characters (the store's, sb_db.h): anything outside is
 * refused at import rather than stored. */
typedef struct column {
    const char *name;
    char type; /* 'T' text, 'I' integer, 'J' a JSON document stored as text:
                           exported as the object itself (version 3), imported
                           from an object or, as versions 1 and 2 wrote it, a string */
    long long min, max;
    size_t max_chars; /* text only */
} column;

#define INT_ANY (1LL << 53)
/* An export keeps every raw sample, ~26 bytes each as written: a 1000-point
 * sweep at 1000 samples is ~26 MB. 512 MiB holds twenty such sweeps (merged
 * labs, many machines) while the parsed document still fits in a few GiB. */
#define IMPORT_MAX (512 * SB_MIB)
#define MAX_METRIC_ABS 1e300

/* The columns of machine, sweep and point rows, in export order. */
extern const column sb_export_machine_cols[], sb_export_sweep_cols[], sb_export_point_cols[];
extern const int sb_export_machine_ncols, sb_export_sweep_ncols, sb_export_point_ncols;
/* Appends "PREFIXname, PREFIXname, ..." of cols to the SQL text sql. */
void sb_export_append_cols(char *sql, size_t cap, const char *prefix, const column *cols, int n);

#endif
