#include "sb_isa.h"
#include "sb_cpu.h"
#include <stdio.h>
#include <string.h>

/* AVX2 + FMA on ymm registers: the CPU flags and the OS's YMM state (XCR0
 * bits 1-2): a CPU that has AVX2 under an OS that does not save the upper
 * halves would fault on the first ymm instruction. */
static int probe_avx2(char *why, size_t n)
{
    const sb_cpu *c = sb_cpu_get();
    if (sb_cpu_forced_off("AVX2")) {
        snprintf(why, n, "AVX2 forced off for a test (SB_FORCE_NO_AVX2)");
        return 0;
    }
    if (!(c->avx2 && c->fma)) {
        snprintf(why, n, "CPU lacks %s (CPUID.(EAX=7,ECX=0):EBX[5] AVX2, CPUID.1:ECX[12] FMA)",
                 !c->avx2 && !c->fma ? "AVX2 and FMA"
                     : !c->avx2      ? "AVX2"
                                     : "FMA");
        return 0;
    }
    if (!c->os_avx) {
        snprintf(why, n, "OS has not enabled YMM state in XCR0 (bits 1-2; XCR0=0x%llx)",
                 (unsigned long long)c->xcr0);
        return 0;
    }
    return 1;
}

static int probe_avx512(char *why, size_t n)
{
    const sb_cpu *c = sb_cpu_get();
    if (sb_cpu_forced_off("AVX512") || sb_cpu_forced_off("AVX2")) {
        snprintf(why, n, "AVX-512 forced off for a test (%s)",
                 sb_cpu_forced_off("AVX512") ? "SB_FORCE_NO_AVX512" : "SB_FORCE_NO_AVX2");
        return 0;
    }
    if (!(c->avx512f && c->avx512bw && c->avx512vl && c->avx512dq && c->fma && c->avx2)) {
        snprintf(why, n, "CPU lacks AVX-512 F/BW/VL/DQ (CPUID.(EAX=7,ECX=0):EBX)");
        return 0;
    }
    if (!c->os_avx512) {
        snprintf(why, n, "OS has not enabled AVX-512 state in XCR0 (bits 5-7; XCR0=0x%llx)",
                 (unsigned long long)c->xcr0);
        return 0;
    }
    return 1;
}

/* An AVX-512 extension: AVX-512 itself, then the extension's own force
 * variable (SB_FORCE_NO_<name>) and CPU flag (found at `where`). */
static int probe_avx512_ext(int has, const char *name, const char *where, char *why, size_t n)
{
    if (!probe_avx512(why, n)) return 0;
    if (sb_cpu_forced_off(name)) {
        snprintf(why, n, "%s forced off for a test (SB_FORCE_NO_%s)", name, name);
        return 0;
    }
    if (!has) {
        snprintf(why, n, "CPU lacks %s (%s)", name, where);
        return 0;
    }
    return 1;
}

static int probe_bf16(char *why, size_t n)
{
    return probe_avx512_ext(sb_cpu_get()->avx512_bf16, "AVX512_BF16", "CPUID.(EAX=7,ECX=1):EAX[5]",
                            why, n);
}

static int probe_vnni(char *why, size_t n)
{
    return probe_avx512_ext(sb_cpu_get()->avx512_vnni, "AVX512_VNNI", "CPUID.(EAX=7,ECX=0):ECX[11]",
                            why, n);
}

/* AMX: CPU flags, then the OS (XCR0 and the arch_prctl permission, requested
 * once per process by sb_amx_request). The packers use only plain C. */
static int probe_amx(int int8, char *why, size_t n)
{
    static const char *const vars[] = {"AMX", "AVX512", "AVX2"};
    for (int i = 0; i < 3; i++)
        if (sb_cpu_forced_off(vars[i])) {
            snprintf(why, n, "AMX forced off for a test (SB_FORCE_NO_%s)", vars[i]);
            return 0;
        }
    const sb_cpu *c = sb_cpu_get();
    if (!c->amx_tile) {
        snprintf(why, n, "CPU has no AMX (CPUID.(EAX=7,ECX=0):EDX[24] amx_tile = 0)");
        return 0;
    }
    if (int8 ? !c->amx_int8 : !c->amx_bf16) {
        snprintf(why, n, "CPU lacks %s (CPUID.(EAX=7,ECX=0):EDX[%d])",
                 int8 ? "AMX-INT8" : "AMX-BF16", int8 ? 25 : 22);
        return 0;
    }
    if (c->amx_max_rows < 16 || c->amx_bytes_per_row < 64 || c->amx_tiles < 8) {
        snprintf(why, n, "AMX palette 1 is %d tiles of %d rows x %d bytes, need 8 of 16 x 64",
                 c->amx_tiles, c->amx_max_rows, c->amx_bytes_per_row);
        return 0;
    }
    const sb_amx_status *s = sb_amx_request();
    if (!s->permitted) {
        snprintf(why, n, "%s", s->why);
        return 0;
    }
    return 1;
}

static int probe_amx_bf16(char *why, size_t n) { return probe_amx(0, why, n); }
static int probe_amx_int8(char *why, size_t n) { return probe_amx(1, why, n); }
static int probe_always(char *why, size_t n)
{
    (void)why;
    (void)n;
    return 1;
}

/* One public probe per path, under the path's name. */
#define SB_ISA(id, probe, unit, peak, metric, insn, loop, ops) \
    int sb_isa_probe_##id(char *why, size_t whylen) { return probe(why, whylen); }
#include "sb_isa.def"
#undef SB_ISA

int sb_isa_probe(const char *isa, char *why, size_t n)
{
#define SB_ISA(id, probe, unit, peak, metric, insn, loop, ops) \
    if (strcmp(isa, #id) == 0) return probe(why, n);
#include "sb_isa.def"
#undef SB_ISA
    snprintf(why, n, "unknown instruction path '%s'", isa);
    return 0;
}
