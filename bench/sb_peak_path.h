/* sb_peak_path: which measured peak a GEMM kernel's run is a fraction of,
 * and that fraction. The GEMM worker names the path in its result
 * (peak_path) and the store reads it again for points recorded without one
 * (an import's pct_peak), so both answer alike; the worker, the sweep (its
 * re-peaking against the stored peak of the path a kernel ran) and an
 * import take pct_peak with the one formula, sb_pct_peak. Pure: no I/O, no
 * state. */
#ifndef SB_PEAK_PATH_H
#define SB_PEAK_PATH_H
#include <stddef.h>
#include "sb_kernel.h"

/* The instruction path (a peak name: f32, bf16, amx_bf16, avx2_f32, ...) a
 * kernel really ran: its own, or for a vendor kernel that reports its
 * implementation (oneDNN's "brg:avx512_core_amx"), the ISA named there. */
const char *sb_peak_path_ran(const sb_kernel *k, const char *impl);

/* A GEMM run's pct_peak: its rate (GFLOP/s, GOP/s for int8) as a share in
 * percent of the per-core peak of the path it ran times its threads (fewer
 * than 1 count as 1); 0 when there is no share to give (no peak, no rate).
 * unit (cap bytes; NULL: not wanted) gets the figure's unit, the path named
 * ("% of amx_bf16 peak", "?" for a path NULL or "", cut at 60 bytes). */
double sb_pct_peak(double gflops, double peak_per_core, int threads, const char *path, char *unit,
                   size_t cap);

#endif
