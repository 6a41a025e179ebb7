/* sb_peak: the machine's measured peak per instruction path, from loops of
 * many independent accumulators (no memory traffic): AVX2 FMA (vfmadd231ps
 * ymm), AVX2 int8 (the instructions avx2-int8 runs here: AVX-VNNI vpdpbusd
 * ymm, else vpmaddwd + vpaddd), AVX-512 f32 FMA (vfmadd231ps zmm), bf16
 * vdpbf16ps, int8 vpdpbusd zmm, AMX tdpbf16ps and tdpbusd. These are the
 * denominators of every pct_peak. Also the documented operations per cycle
 * of each path per microarchitecture, which turn a measured rate into the
 * effective clock it ran at. */
#ifndef SB_PEAK_H
#define SB_PEAK_H
#include <stddef.h>

/* Paths, in report order (AVX2 first): the PEAK rows of sb_isa.def, each
 * with its index SB_PEAK_<path> (SB_PEAK_avx2_f32 = 0, ...), and the metric
 * each feeds. */
#define SB_ISA(id, probe, unit, peak, metric, insn, loop, ops) SB_PEAK_ENUM_##peak(id)
#define SB_PEAK_ENUM_PEAK(id) SB_PEAK_##id,
#define SB_PEAK_ENUM_NOPEAK(id)
enum {
#include "sb_isa.def"
    SB_PEAK_NPATHS
};
#undef SB_ISA
extern const char *const sb_peak_paths
    [SB_PEAK_NPATHS]; /* "avx2_f32", "avx2_int8", "f32", "bf16", "int8", "amx_bf16", "amx_int8" */
extern const char *const sb_peak_metrics
    [SB_PEAK_NPATHS]; /* "avx2_f32_gflops", "avx2_int8_gops", "f32_gflops", ..., "amx_int8_gops" */

/* The loops, one per PEAK row, each in its ISA's sb_peak_<isa>.c (built
 * with its -m flags): `iters` iterations of many independent accumulator
 * chains, returning a value that depends on every accumulator so none is
 * optimised away. Run only after the path's probe said yes. */
#define SB_ISA(id, probe, unit, peak, metric, insn, loop, ops) SB_PEAK_PROTO_##peak(loop)
#define SB_PEAK_PROTO_PEAK(loop) double loop(long iters);
#define SB_PEAK_PROTO_NOPEAK(loop)
#include "sb_isa.def"
#undef SB_ISA
/* avx2_int8 where the CPU has AVX-VNNI: the vpdpbusd ymm avx2-int8 runs there */
double sb_peak_loop_avxvnni(long iters);

/* Index of path in sb_peak_paths, -1 when unknown. */
int sb_peak_path_index(const char *path);
/* The paths as a person reads them: "avx2_f32, avx2_int8, ..., amx_int8". */
const char *sb_peak_path_list(void);

/* Runs path on `threads` threads (<= 0: OpenMP default) for about `seconds`
 * in rounds of about 5 ms, and returns the best round's aggregate GFLOP/s
 * (GOP/s for int8; a multiply-add counts 2): the undisturbed rate, even on a
 * shared machine. Returns 0 on success; 1 with the reason in why when the
 * machine cannot run the path (CPU flag, XCR0, OS permission, a forced-off
 * flag) or the path is unknown. */
int sb_peak_measure(const char *path, int threads, double seconds, double *gflops, char *why,
                    size_t whylen);

/* Operations one call of each loop does per iteration, for tests (for
 * avx2_int8: of the loop this CPU runs). 0 for an unknown path. */
double sb_peak_ops_per_iter(const char *path);
/* The instructions a path's loop runs on this CPU ("vfmadd231ps ymm",
 * "vpmaddwd + vpaddd ymm", ...); "" for an unknown path. */
const char *sb_peak_insn(const char *path);

/* Documented operations per cycle per core of path's instructions on a
 * microarchitecture (sb_uarch's names, "-class" ignored: a part inferred
 * from its features has its class's figures; for avx2_int8 the variant
 * named by avx_vnni: 1 vpdpbusd ymm, 0 vpmaddwd + vpaddd). 0 with the reason
 * in why when there is no figure (unknown microarchitecture, or none
 * documented for that path there). */
double sb_peak_ops_per_cycle(const char *path, const char *microarch, int avx_vnni, char *why,
                             size_t whylen);
/* The effective clock, in GHz, behind a measured per-thread rate (G ops/s)
 * on path: rate / ops per cycle. 0 with the reason in why when there is no
 * figure to divide by, or when the quotient is above SB_PEAK_MAX_CLOCK_GHZ:
 * no CPU runs that fast, so the per-cycle figure assumed for the named part
 * is wrong (a CPU named wrongly: a masked model number) and the clock is
 * withheld rather than shown. */
double sb_peak_clock_ghz(const char *path, double rate_per_thread, const char *microarch,
                         int avx_vnni, char *why, size_t whylen);

/* The fastest clock any CPU runs at, all-core or one-core turbo, with room. */
#define SB_PEAK_MAX_CLOCK_GHZ 6.5
/* 1 when metric is a PATH_clock_ghz above SB_PEAK_MAX_CLOCK_GHZ: a clock an
 * older sprbench derived from a wrong per-cycle figure, which the store
 * neither keeps nor shows. */
int sb_peak_clock_impossible(const char *metric, double value);

#endif
