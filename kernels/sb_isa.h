/* sb_isa: the instruction paths (sb_isa.def) and whether this machine may
 * run each: the CPU flags (sb_cpu_get, so the SB_FORCE_NO_* test variables
 * count), the OS's register state (XCR0) and, for AMX, the OS's permission.
 * A probe runs before any ISA-specific code, so a machine without the
 * instructions gets a reason, never SIGILL. Plain C, no ISA flags. */
#ifndef SB_ISA_H
#define SB_ISA_H
#include <stddef.h>

/* int sb_isa_probe_<id>(char *why, size_t whylen), one per row: 1 when this
 * machine can run the path; else 0 with the reason in why. A kernel's probe
 * is its path's (sb_kernels.def). */
#define SB_ISA(id, probe, unit, peak, metric, insn, loop, ops) \
    int sb_isa_probe_##id(char *why, size_t whylen);
#include "sb_isa.def"
#undef SB_ISA

/* The same by name (an sb_kernel.isa value: "scalar", "avx2_f32",
 * "avx2_int8", "f32", "bf16", "int8", "amx_bf16", "amx_int8"); 0 with the
 * reason otherwise (also for an unknown path). */
int sb_isa_probe(const char *isa, char *why, size_t whylen);

#endif
