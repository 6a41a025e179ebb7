/* Peak probes: every path either measures a positive figure or is skipped
 * with its reason; forced-off flags skip; unknown paths are refused. */
#include <stdlib.h>
#include <string.h>
#include "sb_peak.h"
#include "sb_kernel.h"
#include "testutil.h"

int main(void)
{
    for (int i = 0; i < SB_PEAK_NPATHS; i++) {
        const char *p = sb_peak_paths[i];
        char why[512] = "", pwhy[512] = "";
        double g = -1;
        int can = sb_isa_probe(p, pwhy, sizeof pwhy);
        int rc = sb_peak_measure(p, 1, 0.02, &g, why, sizeof why);
        CHECK(sb_peak_ops_per_iter(p) > 0);
        if (can) {
            CHECK_EQ_INT(rc, 0);
            CHECK(g > 0);
            printf("  %-9s %.1f G/s (one core)\n", p, g);
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
    static const char *const names[] = {"f32_gflops", "bf16_gflops", "int8_gops",
                                        "amx_bf16_gflops", "amx_int8_gops"};
    for (int i = 0; i < SB_PEAK_NPATHS; i++) CHECK(strcmp(sb_peak_metrics[i], names[i]) == 0);
    char why[256] = "";
    double g = 1;
    CHECK_EQ_INT(sb_peak_measure("fp64", 1, 0.01, &g, why, sizeof why), 1);
    CHECK(strstr(why, "unknown") != NULL);
    setenv("SB_FORCE_NO_AVX512", "1", 1);
    CHECK_EQ_INT(sb_peak_measure("f32", 1, 0.01, &g, why, sizeof why), 1);
    CHECK(strstr(why, "forced off") != NULL);
    CHECK_EQ_INT(sb_peak_measure("int8", 1, 0.01, &g, why, sizeof why), 1);
    unsetenv("SB_FORCE_NO_AVX512");
    setenv("SB_FORCE_NO_AMX", "1", 1);
    CHECK_EQ_INT(sb_peak_measure("amx_bf16", 1, 0.01, &g, why, sizeof why), 1);
    CHECK(strstr(why, "forced off") != NULL);
    unsetenv("SB_FORCE_NO_AMX");
    return test_report("test_kern_peak");
}
