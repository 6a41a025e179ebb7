#include "sb_peak_path.h"
#include <stdio.h>
#include <string.h>

const char *sb_peak_path_ran(const sb_kernel *k, const char *impl)
{
    /* the ISA a vendor kernel names: "brg:avx512_core_amx", or for an
     * implementation that names none, "gemm:jit (max isa avx2)" */
    const char *isa = impl ? strstr(impl, "max isa ") : NULL;
    isa = isa ? isa + 8 : impl;
    if (!isa || !*isa) return k->isa;
    int bf16 = k->dtype == SB_DT_BF16, int8 = k->dtype == SB_DT_INT8;
    if (strstr(isa, "amx")) return bf16 ? "amx_bf16" : int8 ? "amx_int8" : "f32";
    if (strstr(isa, "avx512_core_bf16") || strstr(isa, "avx512_core_fp16") || strstr(isa, "avx10"))
        return bf16 ? "bf16" : int8 ? "int8" : "f32";
    if (strstr(isa, "avx512_core_vnni")) return int8 ? "int8" : "f32";
    /* AVX-512 without the dtype's instructions: bf16 converted to f32 FMAs;
     * int8 without VNNI: no peak of its own, the kernel's stays */
    if (strstr(isa, "avx512_core")) return int8 ? k->isa : "f32";
    if (strstr(isa, "avx2_vnni") || strstr(isa, "avx2")) return int8 ? "avx2_int8" : "avx2_f32";
    if (strstr(isa, "sse41") || strstr(isa, "avx")) return "sse41"; /* no peak measured */
    return k->isa;
}

double sb_pct_peak(double gflops, double peak_per_core, int threads, const char *path, char *unit,
                   size_t cap)
{
    if (unit && cap) snprintf(unit, cap, "%% of %.60s peak", path && *path ? path : "?");
    if (!(peak_per_core > 0) || !(gflops > 0)) return 0;
    return 100.0 * gflops / (peak_per_core * (threads > 0 ? threads : 1));
}
