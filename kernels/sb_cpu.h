/* sb_cpu: what this CPU and OS let us run, from CPUID, XCR0 and the Linux
 * AMX permission (arch_prctl). Owns the one process-wide AMX permission
 * request. No I/O beyond the CPUID/XGETBV instructions and arch_prctl. */
#ifndef SB_CPU_H
#define SB_CPU_H
#include <stddef.h>
#include <stdint.h>
#include "sb_uarch.h"

/* The CPUID output registers, as sb_cpu_flags.def names them. */
enum { SB_EAX, SB_EBX, SB_ECX, SB_EDX };

typedef struct sb_cpu {
    char vendor[16];                  /* "GenuineIntel", "AuthenticAMD" */
    char brand[64];                   /* CPUID brand string, trimmed */
    unsigned family, model, stepping; /* display family/model */
    /* The microarchitecture (sb_uarch): "Sapphire Rapids", "Zen 4",
     * "Granite Rapids-class" (inferred from the features where the model
     * number disagrees), the user's SB_CPU_UARCH, or "unknown"; how it was
     * named (for `info`) and by what (SB_UARCH_MODEL, _FEATURES, _OVERRIDE). */
    char microarch[48];
    char microarch_how[400];
    int microarch_source;
    /* ISA flags as CPUID reports them (hardware capability): avx2, fma,
     * avx_vnni, avx512f, ..., one int each, the rows of sb_cpu_flags.def */
#define SB_CPU_FLAG(field, leaf, subleaf, reg, bit, needs_avx, info_line) int field;
#include "sb_cpu_flags.def"
#undef SB_CPU_FLAG
    /* OS state */
    uint64_t xcr0;
    int os_avx;       /* XCR0 bits 1-2 (SSE, YMM): AVX/AVX2/FMA may run */
    int os_avx512;    /* XCR0 bits 5-7 (opmask, ZMM_Hi256, Hi16_ZMM) */
    int xcr0_amx;     /* XCR0 bits 17-18 (XTILECFG, XTILEDATA) */
    int amx_palette1; /* CPUID 0x1D: palette 1 exists */
    int amx_max_rows, amx_bytes_per_row, amx_tiles;
    char forced[160]; /* the SB_FORCE_NO_* variables applied, "" when none */
    /* Data caches per instance (CPUID leaf 4, or 0x8000001D on AMD), bytes;
     * 0 when not reported. The GEMM driver blocks for these. */
    size_t l1d_bytes, l2_bytes, l3_bytes;
} sb_cpu;

/* Fills c from CPUID/XGETBV (the hardware as it is) and names it (sb_cpu_name,
 * SB_CPU_UARCH included). Cheap; callers may cache. */
void sb_cpu_detect(sb_cpu *c);
/* The CPU every probe and run-time dispatch sees, computed once per process:
 * the detected one, less what the SB_FORCE_NO_* test variables turn off, so
 * that an AVX-512 machine behaves as an AVX2-only one (SB_FORCE_NO_AVX512)
 * or a machine without AVX2 (SB_FORCE_NO_AVX2), down to the element-wise code. */
const sb_cpu *sb_cpu_get(void);
/* The detected CPU without the forces: the hardware's identity (machine
 * fingerprints), the same whatever a test turned off. */
const sb_cpu *sb_cpu_hw(void);
/* The widest vector code of our own this CPU (sb_cpu_get, forces included)
 * runs: 2 AVX-512 F/DQ/BW/VL with FMA, 1 AVX2 + FMA, 0 scalar. The element-wise
 * layers and the int8 epilogue pick their paths by it. */
int sb_cpu_vector_level(void);
/* Applies the SB_FORCE_NO_* variables of the environment to c (sb_cpu_get's step). */
void sb_cpu_apply_forces(sb_cpu *c);

/* Test hook: a probe answers "no" when SB_FORCE_NO_<FLAG> is set to a
 * non-empty value other than "0", e.g. SB_FORCE_NO_AVX2 (and everything above
 * it), SB_FORCE_NO_AVX512, SB_FORCE_NO_AVX512_BF16, SB_FORCE_NO_AVX512_VNNI,
 * SB_FORCE_NO_AMX, SB_FORCE_NO_ONEDNN, SB_FORCE_NO_MKL. 1 when that variable is set so. */
int sb_cpu_forced_off(const char *flag);
/* The SB_FORCE_NO_<FLAG> variables, one per flag a test can turn off:
 * AVX2 (and everything above it), AVX512 (and AVX512_BF16/VNNI, AMX),
 * AVX512_BF16, AVX512_VNNI, AVX_VNNI, AMX, ONEDNN, MKL. A value is "", "0" (off)
 * or "1" (forced off). Returns 0 when the environment holds only those;
 * else -1 with one line in why naming the variable (the CLI exits 2). */
int sb_cpu_check_forces(char *why, size_t whylen);

/* What c reports of itself (vendor, family/model, features, caches,
 * hypervisor), for sb_uarch_identify. */
void sb_cpu_signature(const sb_cpu *c, sb_cpu_sig *s);
/* Names c's microarchitecture (sb_uarch_identify) into c->microarch*, then
 * the user's name over it when SB_CPU_UARCH is set to a non-empty value. */
void sb_cpu_name(sb_cpu *c);

/* AMX permission for this process. Requests ARCH_REQ_XCOMP_PERM(18) once.
 * Returns 1 when AMX instructions may run; otherwise 0 and a reason in
 * `why` (CPU flag missing, XCR0, or the errno of the refused arch_prctl
 * and the kernel release). */
typedef struct sb_amx_status {
    int permitted;
    int supp_ok;        /* ARCH_GET_XCOMP_SUPP answered */
    uint64_t supp_mask; /* features the kernel supports */
    int req_errno;      /* errno of ARCH_REQ_XCOMP_PERM, 0 if it worked */
    uint64_t perm_mask; /* ARCH_GET_XCOMP_PERM after the request */
    char why[256];
} sb_amx_status;
const sb_amx_status *sb_amx_request(void);

#endif
