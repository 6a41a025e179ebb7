/* sb_sweep_summary: the tables a sweep ends with, and `--resume` and
 * `sweep --json` show: a row per point (the headline figure, speedup and
 * parallel efficiency against the fewest threads of its series, %peak),
 * then, where the sweep tried a vendor kernel, our fastest kernel against
 * the faster vendor at each point (bench/sb_vendor_cmp). The database is
 * opened read-only, for the summary alone. */
#ifndef SB_SWEEP_SUMMARY_H
#define SB_SWEEP_SUMMARY_H
#include <stdint.h>
#include <stdio.h>
#include <jansson.h>
#include "sb_err.h"

/* Prints the summary table of a sweep (GFLOP/s or tokens/s, speedup and
 * parallel efficiency against the 1-thread point of the same series), and
 * when the sweep tried a vendor kernel (onednn-*, mkl-*) its closing table:
 * at each point of such a precision our fastest kernel against the faster
 * vendor there (sb_vendor_cmp), named, own/vendor, the other vendor beside
 * it, or which vendor kernels did not run. */
int sb_sweep_summary(const char *db_path, int64_t sweep_id, FILE *f, sb_err *e);
/* The same tables as JSON: {"sweep_id", "rows": [{kernel, shape, threads,
 * ppn, nodes, status, reason, median, unit, speedup, speedup_base_threads,
 * efficiency, pct_peak}], "vs_vendor": [{precision, shape, threads, ppn,
 * nodes, unit, own, vendor, other_vendor: {kernel, vendor, median} or null,
 * own_vs_vendor, not_run: "mkl-int8 skipped" or ""}]} with null where the
 * tables show "-". */
int sb_sweep_summary_json(const char *db_path, int64_t sweep_id, json_t **out, sb_err *e);

#endif
