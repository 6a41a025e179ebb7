/* sb_export: moving results between databases and reading them back.
 * Owns the export document (one JSON object: machines, sweeps, points with
 * their raw samples and metrics) and the flat CSV table; its validated
 * import (one transaction, idempotent: sweeps and points keep their uuid,
 * machines are matched by fingerprint) and merging databases are
 * sb_import's, its checks sb_import_check's. The point sets
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

/* ---- export (import and merge: sb_import.h) ---- */

/* The export document of every sweep (sweep_id 0) or of one sweep;
 * *repaired (may be NULL) counts text fields whose invalid UTF-8 went out as
 * U+FFFD. A point without a sweep or a sample that is not a finite number is
 * SB_EFAIL naming the point (never left out). Reads only: a read-only
 * database will do. */
int sb_export_doc(sb_db *db, int64_t sweep_id, json_t **doc, long *repaired, sb_err *e);
/* Writes it atomically (doubles kept exactly). */
int sb_export_write(sb_db *db, int64_t sweep_id, const char *path, long *repaired, sb_err *e);

/* One row per point: identity, configuration, status, sample statistics
 * (n, min, p10, median, p90 in seconds) and one column per metric name. */
int sb_export_csv(sb_db *db, int64_t sweep_id, FILE *out, sb_err *e);
int sb_export_csv_file(sb_db *db, int64_t sweep_id, const char *path, sb_err *e);

#endif
