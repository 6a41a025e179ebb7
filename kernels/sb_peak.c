#include "sb_peak.h"
#include "sb_cpu.h"
#include "sb_kernel.h"
#include "sb_uarch.h"
#include <omp.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* The PEAK rows of sb_isa.def. */
#define SB_PEAK_ROW_NOPEAK(id, metric, insn, loop, ops)
#define SB_ISA(id, probe, unit, peak, metric, insn, loop, ops) \
    SB_PEAK_ROW_##peak(id, metric, insn, loop, ops)
#define SB_PEAK_ROW_PEAK(id, metric, insn, loop, ops) #id,
const char *const sb_peak_paths[SB_PEAK_NPATHS] = {
#include "sb_isa.def"
};
#undef SB_PEAK_ROW_PEAK
#define SB_PEAK_ROW_PEAK(id, metric, insn, loop, ops) metric,
const char *const sb_peak_metrics[SB_PEAK_NPATHS] = {
#include "sb_isa.def"
};
#undef SB_PEAK_ROW_PEAK

typedef struct {
    const char *path, *insn;
    double (*loop)(long);
    double ops; /* per iteration, a multiply-add counted 2 */
} peak_loop;

#define SB_PEAK_ROW_PEAK(id, metric, insn, loop, ops) {#id, insn, loop, ops},
static const peak_loop g_loops[SB_PEAK_NPATHS] = {
#include "sb_isa.def"
};
#undef SB_PEAK_ROW_PEAK
#undef SB_PEAK_ROW_NOPEAK
#undef SB_ISA

/* avx2_int8 where the CPU has AVX-VNNI: the instruction avx2-int8 runs there */
static const peak_loop g_avxvnni = {"avx2_int8", "vpdpbusd ymm (AVX-VNNI)", sb_peak_loop_avxvnni,
                                    14.0 * 64};

int sb_peak_path_index(const char *path)
{
    for (int i = 0; i < SB_PEAK_NPATHS; i++)
        if (strcmp(sb_peak_paths[i], path) == 0) return i;
    return -1;
}

const char *sb_peak_path_list(void)
{
    static char buf[256];
    if (!buf[0]) {
        size_t off = 0;
        for (int i = 0; i < SB_PEAK_NPATHS && off < sizeof buf; i++)
            off += (size_t)snprintf(buf + off, sizeof buf - off, "%s%s", i ? ", " : "",
                                    sb_peak_paths[i]);
    }
    return buf;
}

static const peak_loop *find_loop(const char *path)
{
    int i = sb_peak_path_index(path);
    if (i < 0) return NULL;
    if (i == SB_PEAK_avx2_int8 && sb_cpu_get()->avx_vnni) return &g_avxvnni;
    return &g_loops[i];
}

double sb_peak_ops_per_iter(const char *path)
{
    const peak_loop *l = find_loop(path);
    return l ? l->ops : 0;
}

const char *sb_peak_insn(const char *path)
{
    const peak_loop *l = find_loop(path);
    return l ? l->insn : "";
}

/* ---- documented operations per cycle per core ---------------------------
 * From the vendors' optimisation manuals and instruction tables (two 256-bit
 * FMA pipes: 2 x 8 lanes x 2 = 32 f32 flop per cycle; 0: no figure we can
 * stand behind). Columns: avx2_f32 (vfmadd231ps ymm), avx2_int8 without
 * AVX-VNNI (vpmaddwd ymm: 16 multiply-adds), avx2_int8 with AVX-VNNI
 * (vpdpbusd ymm: 32), f32 (vfmadd231ps zmm), bf16 (vdpbf16ps zmm), int8
 * (vpdpbusd zmm), amx_bf16, amx_int8. Xeon figures are for the SKUs with two
 * 512-bit FMA units (some Bronze/Silver parts have one: half). */
static const struct {
    const char *uarch;
    double avx2_f32, avx2_madd, avx2_vnni, f32, bf16, int8, amx_bf16, amx_int8;
} g_opc[] = {
    /* Zen/Zen+: ymm split over two 128-bit FMA pipes */
    {"Zen", 16, 0, 0, 0, 0, 0, 0, 0},
    {"Zen 2", 32, 0, 0, 0, 0, 0, 0, 0},
    {"Zen 3", 32, 0, 0, 0, 0, 0, 0, 0},
    /* Zen 4: two 256-bit FMA pipes; zmm instructions take both halves of a
     * pipe pair (double-pumped), vpmaddwd ymm issues on two pipes */
    {"Zen 4", 32, 64, 0, 32, 64, 128, 0, 0},
    /* Zen 5 (server and desktop): full 512-bit FMA pipes; mobile parts halve f32 */
    {"Zen 5", 32, 0, 0, 64, 0, 0, 0, 0},
    /* Haswell, Broadwell: FMA on ports 0 and 1, vpmaddwd on port 0 only */
    {"Haswell", 32, 32, 0, 0, 0, 0, 0, 0},
    {"Broadwell", 32, 32, 0, 0, 0, 0, 0, 0},
    /* Skylake and its client successors: vpmaddwd on ports 0 and 1 */
    {"Skylake", 32, 64, 0, 0, 0, 0, 0, 0},
    {"Skylake-SP", 32, 64, 0, 64, 0, 0, 0, 0},
    {"Cascade Lake", 32, 64, 0, 64, 0, 256, 0, 0},
    {"Cooper Lake", 32, 64, 0, 64, 0, 256, 0, 0},
    {"Ice Lake", 32, 64, 0, 64, 0, 256, 0, 0},
    /* client parts with AVX-512: one 512-bit FMA unit (ports 0+1 fused) */
    {"Ice Lake (client)", 32, 64, 0, 32, 0, 128, 0, 0},
    {"Tiger Lake", 32, 64, 0, 32, 0, 128, 0, 0},
    {"Rocket Lake", 32, 64, 0, 32, 0, 128, 0, 0},
    /* hybrid clients: the P-cores' figures (Golden/Raptor Cove) */
    {"Alder Lake", 32, 64, 128, 0, 0, 0, 0, 0},
    {"Raptor Lake", 32, 64, 128, 0, 0, 0, 0, 0},
    /* AMX: 1024 bf16 / 2048 int8 operations per cycle per core.
     * vdpbf16ps zmm: 64 flop every 2 cycles, i.e. half the f32 FMA rate, and
     * it takes both FMA ports while it runs. Measured on Emerald Rapids
     * (sprbench 2026-12-01, one core): 16 independent chains retire 0.48 a
     * cycle against vfmadd231ps's 1.95; its latency is about 8 cycles, so
     * 16 chains are not latency-bound; 8 vdpbf16ps + 8 vfmadd231ps take as
     * long as the two run apart (7.8 ns against 6.4 + 1.6), so they share
     * the ports. The clock this implies (85.3 GFLOP/s / 32) equals what the
     * FMA and AMX paths give (2.67 GHz). No public table gave a figure. */
    {"Sapphire Rapids", 32, 64, 128, 64, 32, 256, 1024, 2048},
    {"Emerald Rapids", 32, 64, 128, 64, 32, 256, 1024, 2048},
    {"Granite Rapids", 32, 64, 128, 64, 0, 256, 1024, 2048},
};

double sb_peak_ops_per_cycle(const char *path, const char *microarch, int avx_vnni, char *why,
                             size_t whylen)
{
    int pi = sb_peak_path_index(path);
    if (pi < 0) {
        snprintf(why, whylen, "unknown peak path '%s'", path);
        return 0;
    }
    char row[48];
    /* "Granite Rapids-class": the features named the part, its figures apply */
    sb_uarch_table_of(microarch, row, sizeof row);
    for (size_t i = 0; i < sizeof g_opc / sizeof g_opc[0]; i++) {
        if (strcmp(g_opc[i].uarch, row) != 0) continue;
        const double v[SB_PEAK_NPATHS] = {
            g_opc[i].avx2_f32, avx_vnni ? g_opc[i].avx2_vnni : g_opc[i].avx2_madd,
            g_opc[i].f32,      g_opc[i].bf16,
            g_opc[i].int8,     g_opc[i].amx_bf16,
            g_opc[i].amx_int8};
        if (v[pi] > 0) return v[pi];
        snprintf(why, whylen, "no documented throughput of %s%s on %s", path,
                 pi == SB_PEAK_avx2_int8 ? (avx_vnni ? " (vpdpbusd ymm)" : " (vpmaddwd ymm)") : "",
                 microarch);
        return 0;
    }
    snprintf(why, whylen, "microarchitecture %s has no throughput table", microarch);
    return 0;
}

double sb_peak_clock_ghz(const char *path, double rate_per_thread, const char *microarch,
                         int avx_vnni, char *why, size_t whylen)
{
    double opc = sb_peak_ops_per_cycle(path, microarch, avx_vnni, why, whylen);
    if (opc <= 0) return 0;
    double ghz = rate_per_thread / opc;
    if (ghz > SB_PEAK_MAX_CLOCK_GHZ) {
        /* the figure itself is not shown: it is no clock, only a wrong divisor */
        snprintf(why, whylen,
                 "the measured rate at %g operations per cycle (%s's figure) would mean a clock"
                 " above %.1f GHz, which no CPU runs at: the CPU is not a %s, or %s runs more"
                 " per cycle than its table says",
                 opc, microarch, SB_PEAK_MAX_CLOCK_GHZ, microarch, path);
        return 0;
    }
    return ghz;
}

int sb_peak_clock_impossible(const char *metric, double value)
{
    size_t n = metric ? strlen(metric) : 0, k = strlen("_clock_ghz");
    return n > k && !strcmp(metric + n - k, "_clock_ghz") && !(value <= SB_PEAK_MAX_CLOCK_GHZ);
}

/* ---- measuring ----------------------------------------------------------- */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

volatile double sb_peak_sink;

/* All threads run the same iteration count; the round's time is the
 * slowest thread's, so the figure is what T threads sustain together. */
static double timed_round(double (*loop)(long), long iters, int nt)
{
    double t0 = now_s();
    if (nt == 1) {
        sb_peak_sink += loop(iters);
    } else {
#pragma omp parallel num_threads(nt)
        {
            double v = loop(iters);
#pragma omp atomic
            sb_peak_sink += v;
        }
    }
    return now_s() - t0;
}

int sb_peak_measure(const char *path, int threads, double seconds, double *gflops, char *why,
                    size_t whylen)
{
    *gflops = 0;
    if (sb_peak_path_index(path) < 0) {
        snprintf(why, whylen, "unknown peak path '%s' (known: %s)", path, sb_peak_path_list());
        return 1;
    }
    /* the probe first: find_loop may pick by CPU flags, never run by them */
    if (!sb_isa_probe(path, why, whylen)) return 1;
    const peak_loop *pl = find_loop(path);
    int nt = threads > 0 ? threads : omp_get_max_threads();
    if (seconds <= 0) seconds = 0.3;
    double (*loop)(long) = pl->loop;
    /* Many short rounds, best kept: a peak is what the core does when it runs
     * undisturbed, and on a shared machine only short rounds often are. */
    long iters = 1000;
    double t = 0;
    while ((t = timed_round(loop, iters, 1)) < 0.002 && iters < (1L << 40)) iters *= 2;
    long round_iters = (long)(iters * (0.005 / (t > 0 ? t : 1e-3)));
    if (round_iters < 1000) round_iters = 1000;
    int rounds = (int)(seconds / 0.005);
    if (rounds < 5) rounds = 5;
    if (rounds > 400) rounds = 400;
    double best = 0;
    for (int r = 0; r < rounds; r++) {
        double dt = timed_round(loop, round_iters, nt);
        double g = pl->ops * round_iters * nt / dt / 1e9;
        if (g > best) best = g;
    }
    *gflops = best;
    return 0;
}
