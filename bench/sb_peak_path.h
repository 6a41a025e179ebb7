/* sb_peak_path: which measured peak a GEMM kernel's run is a fraction of.
 * The GEMM worker names it in its result (peak_path) and the store reads it
 * again for points recorded without one (an import's pct_peak), so both
 * answer alike. Pure: no I/O, no state. */
#ifndef SB_PEAK_PATH_H
#define SB_PEAK_PATH_H
#include "sb_kernel.h"

/* The instruction path (a peak name: f32, bf16, amx_bf16, avx2_f32, ...) a
 * kernel really ran: its own, or for a vendor kernel that reports its
 * implementation (oneDNN's "brg:avx512_core_amx"), the ISA named there. */
const char *sb_peak_path_ran(const sb_kernel *k, const char *impl);

#endif
