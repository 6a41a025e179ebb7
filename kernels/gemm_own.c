/* The project's own kernels (avx2-f32, avx2-int8, avx512-f32, avx512-bf16,
 * vnni-int8, amx-bf16, amx-int8 and the model builds used by tests: AMX on
 * the tile model, avx2-int8's AVX-VNNI path on an AVX2 stand-in): their
 * probes and entry points around the one driver (sb_gemm). Plain C, no ISA
 * flags: the probe runs before any ISA-specific code, so a machine without
 * the instructions gets a reason, never SIGILL. */
#include "sb_gemm.h"
#include "sb_cpu.h"
#include "sb_ukr_avx2.h"
#include <stdio.h>
#include <string.h>

/* The AVX-512 kernels come in pairs: [0] for op(A) = A, [1] for op(A) = A^T. */
extern const sb_ukr sb_ukr_avx512_f32[2], sb_ukr_avx512_bf16[2], sb_ukr_avx512_bf16_in[2],
    sb_ukr_vnni_int8[2];
extern const sb_ukr sb_ukr_amx_bf16, sb_ukr_amx_bf16_in, sb_ukr_amx_int8, sb_ukr_amxm_bf16,
    sb_ukr_amxm_bf16_in, sb_ukr_amxm_int8;

/* ---- probes ------------------------------------------------------------ */

/* AVX2 + FMA on ymm registers: the CPU flags and the OS's YMM state (XCR0
 * bits 1-2): a CPU that has AVX2 under an OS that does not save the upper
 * halves would fault on the first ymm instruction. */
static int probe_avx2(char *why, size_t n)
{
    const sb_cpu *c = sb_cpu_get();
    if (sb_kernel_forced_off("AVX2")) {
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
    if (sb_kernel_forced_off("AVX512") || sb_kernel_forced_off("AVX2")) {
        snprintf(why, n, "AVX-512 forced off for a test (%s)",
                 sb_kernel_forced_off("AVX512") ? "SB_FORCE_NO_AVX512" : "SB_FORCE_NO_AVX2");
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

static int probe_bf16(char *why, size_t n)
{
    if (!probe_avx512(why, n)) return 0;
    if (sb_kernel_forced_off("AVX512_BF16")) {
        snprintf(why, n, "AVX512_BF16 forced off for a test (SB_FORCE_NO_AVX512_BF16)");
        return 0;
    }
    if (!sb_cpu_get()->avx512_bf16) {
        snprintf(why, n, "CPU lacks AVX512_BF16 (CPUID.(EAX=7,ECX=1):EAX[5])");
        return 0;
    }
    return 1;
}

static int probe_vnni(char *why, size_t n)
{
    if (!probe_avx512(why, n)) return 0;
    if (sb_kernel_forced_off("AVX512_VNNI")) {
        snprintf(why, n, "AVX512_VNNI forced off for a test (SB_FORCE_NO_AVX512_VNNI)");
        return 0;
    }
    if (!sb_cpu_get()->avx512_vnni) {
        snprintf(why, n, "CPU lacks AVX512_VNNI (CPUID.(EAX=7,ECX=0):ECX[11])");
        return 0;
    }
    return 1;
}

/* AMX: CPU flags, then the OS (XCR0 and the arch_prctl permission, requested
 * once per process by sb_amx_request). The packers use only plain C. */
static int probe_amx(int int8, char *why, size_t n)
{
    static const char *const vars[] = {"AMX", "AVX512", "AVX2"};
    for (int i = 0; i < 3; i++)
        if (sb_kernel_forced_off(vars[i])) {
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

int sb_isa_probe(const char *isa, char *why, size_t n)
{
    if (strcmp(isa, "scalar") == 0) return probe_always(why, n);
    if (strcmp(isa, "avx2_f32") == 0 || strcmp(isa, "avx2_int8") == 0) return probe_avx2(why, n);
    if (strcmp(isa, "f32") == 0) return probe_avx512(why, n);
    if (strcmp(isa, "bf16") == 0) return probe_bf16(why, n);
    if (strcmp(isa, "int8") == 0) return probe_vnni(why, n);
    if (strcmp(isa, "amx_bf16") == 0) return probe_amx_bf16(why, n);
    if (strcmp(isa, "amx_int8") == 0) return probe_amx_int8(why, n);
    snprintf(why, n, "unknown instruction path '%s'", isa);
    return 0;
}

/* ---- entry points ------------------------------------------------------ */

typedef struct {
    const sb_kernel *kernel;
    int (*probe)(char *, size_t);
    const sb_ukr *ukr, *ukr_bf16_in; /* arrays of npair (1 or 2: by transa) */
    int npair;
    int int8;
    /* where the kernel picks its instructions at run time: the ukr pair for
     * this CPU (NULL: ukr). Fixed per process (sb_cpu_get), so B packed by
     * one call always matches the next call's micro-kernel. */
    const sb_ukr *(*choose)(void);
} own_kernel;

static const sb_ukr *ukrs_of(const own_kernel *o) { return o->choose ? o->choose() : o->ukr; }

static const sb_ukr *pick(const sb_ukr *u, int npair, const sb_gemm_desc *d)
{
    return npair == 2 && d->transa == 'T' ? u + 1 : u;
}

static int check_run(const own_kernel *o, const sb_gemm_desc *d, sb_err *e)
{
    char why[300];
    if (!o->probe(why, sizeof why))
        return sb_errf(e, SB_EFAIL, "%s cannot run here: %s", o->kernel->name, why);
    return o->int8 ? sb_gemm_check_int8(d, e) : SB_OK;
}

static int own_gemm(const own_kernel *o, const sb_gemm_desc *d, const void *A, const void *B,
                    void *C, sb_err *e)
{
    int rc = check_run(o, d, e);
    return rc ? rc : sb_gemm_run(pick(ukrs_of(o), o->npair, d), d, A, B, NULL, C, e);
}

static int own_gemm_bf16(const own_kernel *o, const sb_gemm_desc *d, const uint16_t *A,
                         const uint16_t *B, float *C, sb_err *e)
{
    int rc = check_run(o, d, e);
    return rc ? rc : sb_gemm_run(pick(o->ukr_bf16_in, o->npair, d), d, A, B, NULL, C, e);
}

static int own_pack(const own_kernel *o, const sb_gemm_desc *d, const void *B, sb_packed_b **out,
                    sb_err *e)
{
    *out = NULL;
    char why[300];
    if (!o->probe(why, sizeof why))
        return sb_errf(e, SB_EFAIL, "%s cannot run here: %s", o->kernel->name, why);
    return sb_gemm_pack_b_whole(ukrs_of(o), o->kernel, d, B, out, e);
}

static int own_packed(const own_kernel *o, const sb_gemm_desc *d, const void *A,
                      const sb_packed_b *B, void *C, sb_err *e)
{
    int rc = check_run(o, d, e);
    if (!rc) rc = sb_packed_b_check(B, o->kernel, d, e);
    return rc ? rc : sb_gemm_run(pick(ukrs_of(o), o->npair, d), d, A, NULL, B, C, e);
}

/* avx2-int8: AVX-VNNI's vpdpbusd where the CPU has it (SB_FORCE_NO_AVX_VNNI
 * takes it away, so such a machine also tests the other path), else the
 * exact vpmaddwd path. */
static int avx2_int8_has_vnni(void) { return sb_cpu_get()->avx_vnni; }
static const sb_ukr *choose_avx2_int8(void)
{
    return avx2_int8_has_vnni() ? sb_ukr_avxvnni_int8 : sb_ukr_avx2_int8;
}
static const char *impl_avx2_int8(void)
{
    return avx2_int8_has_vnni() ? "avxvnni:vpdpbusd" : "avx2:vpmaddwd-s16";
}

/* One set of thin wrappers per kernel: the registry wants plain function pointers. */
#define OWN_KERNEL_X(id, nm, dt, isa_, sum, prb, ukr_, ukrh_, npair_, is_int8, choose_, impl_) \
    extern const sb_kernel id;                                                                 \
    static const own_kernel id##_o = {&id, prb, ukr_, ukrh_, npair_, is_int8, choose_};        \
    static int id##_f32(const sb_gemm_desc *d, const float *A, const float *B, float *C,       \
                        sb_err *e)                                                             \
    {                                                                                          \
        return own_gemm(&id##_o, d, A, B, C, e);                                               \
    }                                                                                          \
    static int id##_s8(const sb_gemm_desc *d, const uint8_t *A, const int8_t *B, int32_t *C,   \
                       sb_err *e)                                                              \
    {                                                                                          \
        return own_gemm(&id##_o, d, A, B, C, e);                                               \
    }                                                                                          \
    static int id##_h(const sb_gemm_desc *d, const uint16_t *A, const uint16_t *B, float *C,   \
                      sb_err *e)                                                               \
    {                                                                                          \
        return own_gemm_bf16(&id##_o, d, A, B, C, e);                                          \
    }                                                                                          \
    static int id##_pk(const sb_gemm_desc *d, const void *B, sb_packed_b **out, sb_err *e)     \
    {                                                                                          \
        return own_pack(&id##_o, d, B, out, e);                                                \
    }                                                                                          \
    static int id##_pg(const sb_gemm_desc *d, const void *A, const sb_packed_b *B, void *C,    \
                       sb_err *e)                                                              \
    {                                                                                          \
        return own_packed(&id##_o, d, A, B, C, e);                                             \
    }                                                                                          \
    const sb_kernel id = {.name = nm,                                                          \
                          .dtype = dt,                                                         \
                          .isa = isa_,                                                         \
                          .summary = sum,                                                      \
                          .probe = prb,                                                        \
                          .gemm_f32 = is_int8 ? NULL : id##_f32,                               \
                          .gemm_u8s8 = is_int8 ? id##_s8 : NULL,                               \
                          .gemm_bf16 = (dt) == SB_DT_BF16 ? id##_h : NULL,                     \
                          .pack_b = id##_pk,                                                   \
                          .gemm_packed = id##_pg,                                              \
                          .impl = impl_}
#define OWN_KERNEL(id, nm, dt, isa_, sum, prb, ukr_, ukrh_, npair_, is_int8) \
    OWN_KERNEL_X(id, nm, dt, isa_, sum, prb, ukr_, ukrh_, npair_, is_int8, NULL, NULL)

OWN_KERNEL(sb_kernel_avx2_f32, "avx2-f32", SB_DT_F32, "avx2_f32",
           "AVX2 + FMA, 6x16 register block, blocked and packed (f32 -> f32)", probe_avx2,
           sb_ukr_avx2_f32, NULL, 2, 0);
OWN_KERNEL_X(sb_kernel_avx2_int8, "avx2-int8", SB_DT_INT8, "avx2_int8",
             "AVX-VNNI vpdpbusd where present, else vpmaddwd on s16-widened u8/s8 (exact), "
             "6x16 block (u8 x s8 -> s32)",
             probe_avx2, sb_ukr_avx2_int8, NULL, 2, 1, choose_avx2_int8, impl_avx2_int8);
OWN_KERNEL(sb_kernel_avx512_f32, "avx512-f32", SB_DT_F32, "f32",
           "AVX-512F FMA, 12x32 register block, blocked and packed (f32 -> f32)", probe_avx512,
           sb_ukr_avx512_f32, NULL, 2, 0);
OWN_KERNEL(sb_kernel_avx512_bf16, "avx512-bf16", SB_DT_BF16, "bf16",
           "AVX512_BF16 vdpbf16ps, 12x32 block, f32 rounded to bf16 while packing (-> f32)",
           probe_bf16, sb_ukr_avx512_bf16, sb_ukr_avx512_bf16_in, 2, 0);
OWN_KERNEL(sb_kernel_vnni_int8, "vnni-int8", SB_DT_INT8, "int8",
           "AVX512_VNNI vpdpbusd, 12x32 block (u8 x s8 -> s32)", probe_vnni, sb_ukr_vnni_int8, NULL,
           2, 1);
OWN_KERNEL(sb_kernel_amx_bf16, "amx-bf16", SB_DT_BF16, "amx_bf16",
           "AMX tdpbf16ps, 32x32 block in 2x2 tiles, B VNNI-packed (bf16 -> f32)", probe_amx_bf16,
           &sb_ukr_amx_bf16, &sb_ukr_amx_bf16_in, 1, 0);
OWN_KERNEL(sb_kernel_amx_int8, "amx-int8", SB_DT_INT8, "amx_int8",
           "AMX tdpbusd, 32x32 block in 2x2 tiles, B VNNI-packed (u8 x s8 -> s32)", probe_amx_int8,
           &sb_ukr_amx_int8, NULL, 1, 1);
/* Not registered (a GEMM benchmark's A spans 0..255): avx2-int8 for A
 * below 128, inference's 7-bit activations; AVX-VNNI's vpdpbusd where the
 * CPU has it, else vpmaddubsw (the same quad layout either way). */
static const sb_ukr *choose_avx2_u7(void)
{
    return avx2_int8_has_vnni() ? sb_ukr_avxvnni_int8 : sb_ukr_avx2_u7;
}
static const char *impl_avx2_u7(void)
{
    return avx2_int8_has_vnni() ? "avxvnni:vpdpbusd" : "avx2:vpmaddubsw-u7";
}
OWN_KERNEL_X(sb_kernel_avx2_int8_u7, "avx2-int8", SB_DT_INT8, "avx2_int8",
             "avx2-int8 on 7-bit A (< 128): vpmaddubsw + vpmaddwd, exact there", probe_avx2,
             sb_ukr_avx2_u7, NULL, 2, 1, choose_avx2_u7, impl_avx2_u7);

const sb_kernel *sb_kernel_for_7bit_a(const sb_kernel *k)
{
    return k == &sb_kernel_avx2_int8 ? &sb_kernel_avx2_int8_u7 : k;
}

/* Not registered: avx2-int8's AVX-VNNI layout and loop on an exact AVX2
 * stand-in for vpdpbusd, and the AMX kernels on the tile model, for tests. */
static const char *impl_vnni_model(void) { return "avxvnni-model:vpdpbusd-emulated"; }
OWN_KERNEL_X(sb_kernel_avx2_int8_vnni_model, "avx2-int8-vnni-model", SB_DT_INT8, "avx2_int8",
             "avx2-int8's AVX-VNNI path on an AVX2 model of vpdpbusd (tests)", probe_avx2,
             sb_ukr_avxvnni_model, NULL, 2, 1, NULL, impl_vnni_model);
OWN_KERNEL(sb_kernel_amx_bf16_model, "amx-bf16-model", SB_DT_BF16, "amx_bf16",
           "amx-bf16's tiling on the functional tile model (tests)", probe_always,
           &sb_ukr_amxm_bf16, &sb_ukr_amxm_bf16_in, 1, 0);
OWN_KERNEL(sb_kernel_amx_int8_model, "amx-int8-model", SB_DT_INT8, "amx_int8",
           "amx-int8's tiling on the functional tile model (tests)", probe_always,
           &sb_ukr_amxm_int8, NULL, 1, 1);
