/* Shared by the trainer's C tests: which f32 kernel to run on this machine,
 * and the element-wise level the dispatcher must choose here. */
#ifndef SB_TRAIN_TESTUTIL_H
#define SB_TRAIN_TESTUTIL_H
#include <stdio.h>
#include <stdlib.h>
#include "sb_cpu.h"
#include "sb_kernel.h"
#include "sb_layers.h"

/* An f32 kernel this machine runs: SB_TEST_KERNEL when it can, else the
 * first runnable of the preferred ones (never one name assumed to run). */
static inline const sb_kernel *pick_f32_kernel(void)
{
    static const char *const prefs[] = {"avx512-f32", "avx2-f32", "onednn-f32", "scalar-f32"};
    const char *want = getenv("SB_TEST_KERNEL");
    char why[256] = "unknown kernel";
    if (want && *want) {
        const sb_kernel *k = sb_kernel_find(want);
        if (k && k->gemm_f32 && k->probe(why, sizeof why)) return k;
        printf("SB_TEST_KERNEL=%s cannot run here (%s)\n", want, why);
    }
    for (size_t i = 0; i < sizeof prefs / sizeof *prefs; i++) {
        const sb_kernel *k = sb_kernel_find(prefs[i]);
        if (k && k->gemm_f32 && k->dtype == SB_DT_F32 && k->probe(why, sizeof why)) return k;
    }
    return NULL;
}

/* The level the dispatcher must choose, derived independently of it: the raw
 * CPUID/XCR0 flags less what the SB_FORCE_NO_* variables turn off. */
static inline int expected_level(void)
{
    sb_cpu c;
    sb_cpu_detect(&c);
    int want = SB_LAYERS_SCALAR;
    if (c.avx2 && c.fma && c.os_avx) want = SB_LAYERS_AVX2;
    if (c.avx512f && c.avx512dq && c.avx512bw && c.avx512vl && c.os_avx512 && c.fma)
        want = SB_LAYERS_AVX512;
    if (sb_cpu_forced_off("AVX2")) want = SB_LAYERS_SCALAR;
    if (sb_cpu_forced_off("AVX512") && want > SB_LAYERS_AVX2) want = SB_LAYERS_AVX2;
    return want;
}

#endif
