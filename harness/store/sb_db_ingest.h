/* sb_db_ingest: what a run brings into the store (sb_db): a worker's
 * result document in one transaction per point (samples, metrics, pairing,
 * binding), each point's worker output, and the peaks a GEMM point is a
 * fraction of. */
#ifndef SB_SB_DB_INGEST_H
#define SB_SB_DB_INGEST_H
#include <stddef.h>
#include <stdint.h>
#include "sb_db.h"
#include "sb_err.h"

/* Stores a result document for the point in one transaction: status, reason,
 * every sample, every metric (with unit and projected flag), the binding and
 * the raw document. The point must exist. SB_EUSAGE, nothing stored, for a
 * status other than ok/skipped/failed, an ok result of a measured workload
 * (not peak) without samples, a sample or metric that is not a finite
 * number, a metric name outside [A-Za-z0-9_.:-]{1,128}, or a document over
 * SB_DB_MAX_DOC; the reason, units and sources are repaired and cut.
 * A paired point's document has "pairing" {mode (abba, random or duet),
 * baseline, candidate (the two binaries), samples, side (0 baseline, 1
 * candidate) and pair (arrays of one length)}: its samples are stored from
 * there, each with its side and pair, and "samples" (the candidate's) is
 * not stored again. */
int sb_db_point_ingest(sb_db *db, int64_t point_id, json_t *result, sb_err *e);
/* The rules a "pairing" object follows (NULL: none, fine); SB_EUSAGE naming
 * `where` and the element otherwise. */
int sb_db_check_pairing(json_t *pairing, const char *where, sb_err *e);

/* ---- each point's worker output ---- */

typedef struct sb_point_log {
    char *out, *err;                /* the kept tails, valid UTF-8 */
    long long out_bytes, err_bytes; /* how much the worker wrote in all */
} sb_point_log;
/* Stores (replaces) the tails of a point's stdout and stderr: each is
 * repaired, and cut to its last SB_DB_LOG_BYTES bytes at a character
 * boundary; *_total is how many bytes the stream had in all. */
int sb_db_point_log_set(sb_db *db, int64_t point_id, const char *out, size_t out_len,
                        long long out_total, const char *err, size_t err_len, long long err_total,
                        sb_err *e);
/* *found = 0 when the point has no stored output. */
int sb_db_point_log_get(sb_db *db, int64_t point_id, sb_point_log *log, int *found, sb_err *e);
void sb_point_log_free(sb_point_log *log);

/* Latest per-core peak (GFLOP/s or GOP/s) measured on this machine (of the
 * sweep started last) for an
 * instruction path ("f32", "bf16", "int8", "amx_bf16", "amx_int8"); 0 when none. */
double sb_db_peak_per_core(sb_db *db, int64_t machine_id, const char *path);
/* The same, the peak of sweep_id first when it measured one (an imported
 * point is measured against its own sweep's peak, whatever else the
 * database holds), else the newest by sweep start time (SB_DB_SWEEP_TIME). */
double sb_db_peak_per_core_in(sb_db *db, int64_t machine_id, const char *path, int64_t sweep_id);

#endif
