/* sb_export: moving results between databases and reading them back.
 * Owns the export document (one JSON object: machines, sweeps, points with
 * their raw samples and metrics), its validated import (one transaction,
 * idempotent: sweeps and points keep their uuid, machines are matched by
 * fingerprint), merging databases and the flat CSV table. The point sets
 * and selections that `db`, `report` and `gate` read are sb_ptset's.
 *
 * Export document (format "sprbench-export", version 3; version 2 held the
 * JSON fields below as strings, version 1 also has no "log"; both are still
 * read, and either form of a JSON field is accepted whatever the version):
 *   {"format":"sprbench-export", "version":3, "exported":"ISO time", "tool":"...",
 *    "machines":[{"fingerprint":"..", "hostname":.., "cpu_model":.., ...}],
 *    "sweeps":[{"uuid":"32 hex", "machine":"fingerprint"|null, "label":.., ...}],
 *    "points":[{"uuid":"32 hex", "sweep":"sweep uuid", "machine":fp|null,
 *               "workload":.., "kernel":.., ..., "samples":[seconds...],
 *               "metrics":[{"name":.., "value":.., "unit":.., "projected":0|1,
 *                           "source":..}],
 *               "log":{"stdout":.., "stdout_bytes":N, "stderr":.., "stderr_bytes":N}}]}
 *               ("log", the tails of the worker's output, only where kept)
 * The JSON fields (machine "isa" and "info_json", point "config",
 * "result_json" and "binding") are nested objects (or arrays), not strings
 * to parse again; a stored text that is not JSON goes out as a string.
 * Other column values are exported verbatim (text or integer or null), except
 * text that is not valid UTF-8 (an older file's), whose invalid bytes go
 * out as U+FFFD: no row and no field is ever left out. An import refuses
 * text that breaks the store's rules (sb_db.h: UTF-8, limits in characters),
 * statuses and workloads outside the known sets, shapes outside the shape
 * grammar, and an ok measured point without samples. */
#ifndef SB_EXPORT_H
#define SB_EXPORT_H
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include "sb_db.h"
#include "sb_err.h"

#define SB_EXPORT_FORMAT "sprbench-export"
#define SB_EXPORT_VERSION 3

/* ---- export / import / merge ---- */

/* The export document of every sweep (sweep_id 0) or of one sweep;
 * *repaired (may be NULL) counts text fields whose invalid UTF-8 went out as
 * U+FFFD. A point without a sweep or a sample that is not a finite number is
 * SB_EFAIL naming the point (never left out). Reads only: a read-only
 * database will do. */
int sb_export_doc(sb_db *db, int64_t sweep_id, json_t **doc, long *repaired, sb_err *e);
/* Writes it atomically (doubles kept exactly). */
int sb_export_write(sb_db *db, int64_t sweep_id, const char *path, long *repaired, sb_err *e);

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

/* One row per point: identity, configuration, status, sample statistics
 * (n, min, p10, median, p90 in seconds) and one column per metric name. */
int sb_export_csv(sb_db *db, int64_t sweep_id, FILE *out, sb_err *e);
int sb_export_csv_file(sb_db *db, int64_t sweep_id, const char *path, sb_err *e);

#endif
