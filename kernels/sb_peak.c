#include "sb_peak.h"
#include "sb_kernel.h"
#include <omp.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

const char *const sb_peak_paths[SB_PEAK_NPATHS] = {"f32", "bf16", "int8", "amx_bf16", "amx_int8"};
const char *const sb_peak_metrics[SB_PEAK_NPATHS] = {"f32_gflops", "bf16_gflops", "int8_gops",
                                                     "amx_bf16_gflops", "amx_int8_gops"};

/* The loops live in ISA files; each returns a value that depends on every
 * accumulator so none is optimised away. */
double sb_peak_loop_f32(long iters);
double sb_peak_loop_bf16(long iters);
double sb_peak_loop_int8(long iters);
double sb_peak_loop_amx_bf16(long iters);
double sb_peak_loop_amx_int8(long iters);

/* per iteration: 24 zmm FMAs (16 lanes x 2), 24 vdpbf16ps (16 x 2 pairs x 2),
 * 24 vpdpbusd (16 x 4 x 2), 4 tdpbf16ps (16x16x32 x 2), 4 tdpbusd (16x16x64 x 2) */
static const struct {
    const char *path;
    double (*loop)(long);
    double ops;
} g_loops[SB_PEAK_NPATHS] = {
    {"f32", sb_peak_loop_f32, 24.0 * 32},
    {"bf16", sb_peak_loop_bf16, 24.0 * 64},
    {"int8", sb_peak_loop_int8, 24.0 * 128},
    {"amx_bf16", sb_peak_loop_amx_bf16, 4.0 * 16 * 16 * 32 * 2},
    {"amx_int8", sb_peak_loop_amx_int8, 4.0 * 16 * 16 * 64 * 2},
};

double sb_peak_ops_per_iter(const char *path)
{
    for (int i = 0; i < SB_PEAK_NPATHS; i++)
        if (strcmp(g_loops[i].path, path) == 0) return g_loops[i].ops;
    return 0;
}

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
    int idx = -1;
    for (int i = 0; i < SB_PEAK_NPATHS; i++)
        if (strcmp(g_loops[i].path, path) == 0) idx = i;
    if (idx < 0) {
        snprintf(why, whylen, "unknown peak path '%s' (known: f32, bf16, int8, amx_bf16, amx_int8)",
                 path);
        return 1;
    }
    if (!sb_isa_probe(path, why, whylen)) return 1;
    int nt = threads > 0 ? threads : omp_get_max_threads();
    if (seconds <= 0) seconds = 0.3;
    double (*loop)(long) = g_loops[idx].loop;
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
        double g = g_loops[idx].ops * round_iters * nt / dt / 1e9;
        if (g > best) best = g;
    }
    *gflops = best;
    return 0;
}
