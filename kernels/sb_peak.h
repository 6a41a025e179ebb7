/* sb_peak: the machine's measured peak per instruction path, from loops of
 * many independent accumulators (no memory traffic): f32 FMA (vfmadd231ps
 * zmm), bf16 vdpbf16ps, int8 vpdpbusd, AMX tdpbf16ps and tdpbusd. These are
 * the denominators of every pct_peak. */
#ifndef SB_PEAK_H
#define SB_PEAK_H
#include <stddef.h>

/* Paths, in report order, and the metric each feeds. */
#define SB_PEAK_NPATHS 5
extern const char *const sb_peak_paths[SB_PEAK_NPATHS];    /* "f32", "bf16", "int8", "amx_bf16", "amx_int8" */
extern const char *const sb_peak_metrics[SB_PEAK_NPATHS];  /* "f32_gflops", ..., "amx_int8_gops" */

/* Runs path on `threads` threads (<= 0: OpenMP default) for about `seconds`
 * in rounds of about 5 ms, and returns the best round's aggregate GFLOP/s
 * (GOP/s for int8): the undisturbed rate, even on a shared machine.
 * Returns 0 on success; 1 with the reason in why when the machine cannot run
 * the path (CPU flag, XCR0, OS permission) or the path is unknown. */
int sb_peak_measure(const char *path, int threads, double seconds, double *gflops, char *why,
                    size_t whylen);

/* Operations one call of each loop does per iteration, for tests. */
double sb_peak_ops_per_iter(const char *path);

#endif
