/* Peak probes: every path either measures a positive figure or is skipped
 * with its reason; forced-off flags skip (also the flags of the run itself:
 * ctest runs this under SB_FORCE_NO_AVX512 and SB_FORCE_NO_AVX2 too);
 * unknown paths are refused; avx2_int8 runs the instructions avx2-int8 runs
 * here; the operations-per-cycle table behind the effective clock holds the
 * documented figures and says why where it has none. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "sb_cpu.h"
#include "sb_kernel.h"
#include "sb_peak.h"
#include "testutil.h"

static int env_forced(const char *var)
{
    const char *v = getenv(var);
    return v && v[0] && strcmp(v, "0") != 0;
}

/* Runs check with var set to 1, then puts var back as it was (the ctest
 * run may hold it itself). */
static void with_force(const char *var, void (*check)(void))
{
    const char *old = getenv(var);
    char saved[32];
    snprintf(saved, sizeof saved, "%s", old ? old : "");
    int had = old != NULL;
    setenv(var, "1", 1);
    check();
    if (had)
        setenv(var, saved, 1);
    else
        unsetenv(var);
}

static void expect_forced_off(const char *path)
{
    char why[512] = "";
    double g = 1;
    CHECK_EQ_INT(sb_peak_measure(path, 1, 0.01, &g, why, sizeof why), 1);
    CHECKF(g == 0 && strstr(why, "forced off") != NULL, "%s: %g '%s'", path, g, why);
}
static void no_avx512(void)
{
    expect_forced_off("f32");
    expect_forced_off("int8");
    expect_forced_off("bf16");
    expect_forced_off("amx_bf16");
}
static void no_avx2(void)
{
    expect_forced_off("avx2_f32");
    expect_forced_off("avx2_int8");
    expect_forced_off("f32");
    expect_forced_off("amx_int8");
}
static void no_amx(void) { expect_forced_off("amx_bf16"); }

static void test_ops_per_cycle(void)
{
    char why[256];
    /* Zen 4: two 256-bit FMA pipes, AVX-512 double-pumped */
    CHECK(sb_peak_ops_per_cycle("avx2_f32", "Zen 4", 0, why, sizeof why) == 32);
    CHECK(sb_peak_ops_per_cycle("f32", "Zen 4", 0, why, sizeof why) == 32);
    CHECK(sb_peak_ops_per_cycle("bf16", "Zen 4", 0, why, sizeof why) == 64);
    CHECK(sb_peak_ops_per_cycle("int8", "Zen 4", 0, why, sizeof why) == 128);
    CHECK(sb_peak_ops_per_cycle("avx2_int8", "Zen 4", 0, why, sizeof why) == 64);
    CHECK(sb_peak_ops_per_cycle("f32", "Zen 5", 0, why, sizeof why) == 64);
    CHECK(sb_peak_ops_per_cycle("avx2_f32", "Zen 2", 0, why, sizeof why) == 32);
    CHECK(sb_peak_ops_per_cycle("avx2_f32", "Haswell", 0, why, sizeof why) == 32);
    CHECK(sb_peak_ops_per_cycle("f32", "Sapphire Rapids", 0, why, sizeof why) == 64);
    CHECK(sb_peak_ops_per_cycle("amx_bf16", "Sapphire Rapids", 0, why, sizeof why) == 1024);
    CHECK(sb_peak_ops_per_cycle("amx_int8", "Sapphire Rapids", 0, why, sizeof why) == 2048);
    /* avx2_int8 by the instructions it runs: vpdpbusd ymm does twice vpmaddwd's work */
    CHECK(sb_peak_ops_per_cycle("avx2_int8", "Alder Lake", 1, why, sizeof why) ==
          2 * sb_peak_ops_per_cycle("avx2_int8", "Alder Lake", 0, why, sizeof why));
    /* no figure: 0 and the reason */
    why[0] = '\0';
    CHECK(sb_peak_ops_per_cycle("avx2_f32", "unknown", 0, why, sizeof why) == 0);
    CHECK(strstr(why, "unknown") != NULL);
    why[0] = '\0';
    CHECK(sb_peak_ops_per_cycle("amx_bf16", "Zen 4", 0, why, sizeof why) == 0);
    CHECK(strstr(why, "amx_bf16") != NULL && strstr(why, "Zen 4") != NULL);
    why[0] = '\0';
    CHECK(sb_peak_ops_per_cycle("fp64", "Zen 4", 0, why, sizeof why) == 0);
    CHECK(strstr(why, "unknown") != NULL);
    /* the clock: rate / ops per cycle */
    CHECK(fabs(sb_peak_clock_ghz("avx2_f32", 118.4, "Zen 4", 0, why, sizeof why) - 3.7) < 1e-9);
    CHECK(fabs(sb_peak_clock_ghz("amx_int8", 4096, "Sapphire Rapids", 0, why, sizeof why) - 2.0) <
          1e-9);
    CHECK(sb_peak_clock_ghz("f32", 100, "unknown", 0, why, sizeof why) == 0);
    /* an inferred part has its class's figures: AMX on a Granite Rapids-class
     * part, not "no documented throughput of amx_bf16 on Rocket Lake" */
    CHECK(sb_peak_ops_per_cycle("amx_bf16", "Granite Rapids-class", 0, why, sizeof why) == 1024);
    CHECK(sb_peak_ops_per_cycle("amx_int8", "Sapphire Rapids-class", 0, why, sizeof why) == 2048);
    /* the masked Xeon of #40, one core: 241.46 GFLOP/s of vfmadd231ps zmm and
     * 3754.8 of tdpbf16ps are 3.77 and 3.67 GHz as the Granite Rapids-class
     * part it is ... */
    CHECK(fabs(sb_peak_clock_ghz("f32", 241.46, "Granite Rapids-class", 0, why, sizeof why) -
               241.46 / 64) < 1e-9);
    CHECK(fabs(sb_peak_clock_ghz("amx_bf16", 3754.8, "Granite Rapids-class", 0, why, sizeof why) -
               3754.8 / 1024) < 1e-9);
    /* ... and 7.5 GHz as the Rocket Lake its model number says (one FMA
     * unit): no CPU runs at that; withheld, with the reason, and the figure
     * itself never printed */
    why[0] = '\0';
    CHECK(sb_peak_clock_ghz("f32", 241.46, "Rocket Lake", 0, why, sizeof why) == 0);
    CHECK(strstr(why, "6.5 GHz") != NULL && strstr(why, "Rocket Lake") != NULL);
    CHECK(strstr(why, "7.5") == NULL && strstr(why, "7.4") == NULL);
    why[0] = '\0';
    CHECK(sb_peak_clock_ghz("avx2_f32", 32 * 7.7, "Zen 4", 0, why, sizeof why) == 0 && why[0]);
    /* at the bound itself a clock is still a clock */
    CHECK(fabs(sb_peak_clock_ghz("avx2_f32", 32 * 6.5, "Zen 4", 0, why, sizeof why) - 6.5) < 1e-9);
    /* a stored clock above it (an older record) is one the store drops */
    CHECK(sb_peak_clock_impossible("f32_clock_ghz", 7.545));
    CHECK(sb_peak_clock_impossible("int8_clock_ghz", 1.0 / 0.0));
    CHECK(!sb_peak_clock_impossible("f32_clock_ghz", 3.77));
    CHECK(!sb_peak_clock_impossible("f32_gflops", 7.545));
    CHECK(!sb_peak_clock_impossible("_clock_ghz", 9));
    /* this machine's microarchitecture, whatever it is, answers one way or the other */
    const sb_cpu *c = sb_cpu_get();
    for (int i = 0; i < SB_PEAK_NPATHS; i++) {
        why[0] = '\0';
        double opc = sb_peak_ops_per_cycle(sb_peak_paths[i], c->microarch, c->avx_vnni, why,
                                           sizeof why);
        CHECK(opc > 0 || why[0] != '\0');
        printf("  %-9s on %s: %s%s\n", sb_peak_paths[i], c->microarch,
               opc > 0 ? "" : "no figure: ", opc > 0 ? "documented" : why);
    }
}

int main(void)
{
    int forced_avx2 = env_forced("SB_FORCE_NO_AVX2"),
        forced_avx512 = env_forced("SB_FORCE_NO_AVX512");
    const sb_cpu *hw = sb_cpu_hw();
    if (forced_avx512 && !forced_avx2 && !(hw->avx2 && hw->fma && hw->os_avx)) {
        printf("SKIP: this CPU/OS has no AVX2 + FMA: the AVX2-only run has nothing to measure\n");
        return 77;
    }
    static const char *const paths[] = {"avx2_f32", "avx2_int8", "f32",     "bf16",
                                        "int8",     "amx_bf16",  "amx_int8"};
    static const char *const names[] = {"avx2_f32_gflops", "avx2_int8_gops", "f32_gflops",
                                        "bf16_gflops",     "int8_gops",      "amx_bf16_gflops",
                                        "amx_int8_gops"};
    CHECK_EQ_INT(SB_PEAK_NPATHS, 7);
    for (int i = 0; i < SB_PEAK_NPATHS; i++) {
        CHECK(strcmp(sb_peak_paths[i], paths[i]) == 0);
        CHECK(strcmp(sb_peak_metrics[i], names[i]) == 0);
        CHECK_EQ_INT(sb_peak_path_index(paths[i]), i);
    }
    CHECK_EQ_INT(sb_peak_path_index("fp64"), -1);
    for (int i = 0; i < SB_PEAK_NPATHS; i++) {
        const char *p = sb_peak_paths[i];
        char why[512] = "", pwhy[512] = "";
        double g = -1;
        int can = sb_isa_probe(p, pwhy, sizeof pwhy);
        int rc = sb_peak_measure(p, 1, 0.02, &g, why, sizeof why);
        CHECK(sb_peak_ops_per_iter(p) > 0);
        CHECK(sb_peak_insn(p)[0] != '\0');
        if (can) {
            CHECK_EQ_INT(rc, 0);
            CHECK(g > 0);
            printf("  %-9s %.1f G/s (one core, %s)\n", p, g, sb_peak_insn(p));
            rc = sb_peak_measure(p, 2, 0.02, &g, why, sizeof why);
            CHECK_EQ_INT(rc, 0);
            CHECK(g > 0);
        } else {
            CHECK_EQ_INT(rc, 1);
            CHECK(g == 0);
            CHECK(why[0] != '\0');
            printf("  %-9s skipped: %s\n", p, why);
        }
        CHECK(strstr(sb_peak_metrics[i], p) != NULL);
    }
    /* avx2_int8 runs what avx2-int8 runs: vpdpbusd ymm (14 x 8 x 4 x 2) with
     * AVX-VNNI, else vpmaddwd + vpaddd (14 x 16 x 2) */
    int vnni = sb_cpu_get()->avx_vnni;
    CHECK(sb_peak_ops_per_iter("avx2_int8") == (vnni ? 14.0 * 64 : 14.0 * 32));
    CHECK(strstr(sb_peak_insn("avx2_int8"), vnni ? "vpdpbusd" : "vpmaddwd") != NULL);
    CHECK(sb_peak_ops_per_iter("avx2_f32") == 14.0 * 16);
    CHECK(sb_peak_ops_per_iter("fp64") == 0);

    /* the run's own forces took their paths away */
    char why[256] = "";
    if (forced_avx2 || forced_avx512) no_avx512();
    if (forced_avx2) no_avx2();
    if (forced_avx512 && !forced_avx2)
        CHECK(sb_isa_probe("avx2_f32", why, sizeof why) &&
              sb_isa_probe("avx2_int8", why, sizeof why));

    double g = 1;
    CHECK_EQ_INT(sb_peak_measure("fp64", 1, 0.01, &g, why, sizeof why), 1);
    CHECK(strstr(why, "unknown") != NULL);
    with_force("SB_FORCE_NO_AVX512", no_avx512);
    with_force("SB_FORCE_NO_AVX2", no_avx2);
    with_force("SB_FORCE_NO_AMX", no_amx);
    test_ops_per_cycle();
    return test_report("test_kern_peak");
}
