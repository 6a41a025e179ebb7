/* The project's own kernels (the OWN rows of sb_kernels.def, and the model
 * builds used by tests: AMX on the tile model, avx2-int8's AVX-VNNI path on
 * an AVX2 stand-in): their entry points around the one driver (sb_gemm).
 * Plain C, no ISA flags: the path's probe (sb_isa) runs before any
 * ISA-specific code, so a machine without the instructions gets a reason,
 * never SIGILL. */
#include "sb_gemm.h"
#include "sb_cpu.h"
#include "sb_ukr.h"
#include <stdio.h>
#include <string.h>

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

/* d with the table's blocking for this kernel and d's shape class, when d
 * names none and the table has one (sb_blocking_set). */
static const sb_gemm_desc *with_table(const own_kernel *o, const sb_gemm_desc *d,
                                      sb_gemm_desc *tmp)
{
    if (d->blocking) return d;
    const sb_blocking *b =
        sb_blocking_get(o->kernel->name, sb_shape_class(d->transa, d->transb, d->m, d->n, d->k));
    if (!b) return d;
    *tmp = *d;
    tmp->blocking = b;
    return tmp;
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
    sb_gemm_desc tmp;
    d = with_table(o, d, &tmp);
    return rc ? rc : sb_gemm_run(pick(ukrs_of(o), o->npair, d), d, A, B, NULL, C, e);
}

static int own_gemm_bf16(const own_kernel *o, const sb_gemm_desc *d, const uint16_t *A,
                         const uint16_t *B, float *C, sb_err *e)
{
    int rc = check_run(o, d, e);
    sb_gemm_desc tmp;
    d = with_table(o, d, &tmp);
    return rc ? rc : sb_gemm_run(pick(o->ukr_bf16_in, o->npair, d), d, A, B, NULL, C, e);
}

static int own_pack(const own_kernel *o, const sb_gemm_desc *d, const void *B, sb_packed_b **out,
                    sb_err *e)
{
    *out = NULL;
    char why[300];
    if (!o->probe(why, sizeof why))
        return sb_errf(e, SB_EFAIL, "%s cannot run here: %s", o->kernel->name, why);
    sb_gemm_desc tmp;
    d = with_table(o, d, &tmp);
    return sb_gemm_pack_b_whole(ukrs_of(o), o->kernel, d, B, out, e);
}

static int own_packed(const own_kernel *o, const sb_gemm_desc *d, const void *A,
                      const sb_packed_b *B, void *C, sb_err *e)
{
    int rc = check_run(o, d, e);
    if (!rc) rc = sb_packed_b_check(B, o->kernel, d, e);
    sb_gemm_desc tmp;
    d = with_table(o, d, &tmp);
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
                          .impl = impl_,                                                       \
                          .own = 1}
#define OWN_KERNEL(id, nm, dt, isa_, sum, prb, ukr_, ukrh_, npair_, is_int8) \
    OWN_KERNEL_X(id, nm, dt, isa_, sum, prb, ukr_, ukrh_, npair_, is_int8, NULL, NULL)

/* The registered ones: the OWN rows of sb_kernels.def. */
#define SB_KERNEL_OWN(id, nm, dt, isa_, sum, ukr_, ukrh_, npair_, choose_, impl_)              \
    OWN_KERNEL_X(sb_kernel_##id, nm, dt, #isa_, sum, sb_isa_probe_##isa_, ukr_, ukrh_, npair_, \
                 (dt) == SB_DT_INT8, choose_, impl_);
#define SB_KERNEL_LIB(id)
#include "sb_kernels.def"
#undef SB_KERNEL_OWN
#undef SB_KERNEL_LIB

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
             "avx2-int8 on 7-bit A (< 128): vpmaddubsw + vpmaddwd, exact there",
             sb_isa_probe_avx2_int8, sb_ukr_avx2_u7, NULL, 2, 1, choose_avx2_u7, impl_avx2_u7);

const sb_kernel *sb_kernel_for_7bit_a(const sb_kernel *k)
{
    return k == &sb_kernel_avx2_int8 ? &sb_kernel_avx2_int8_u7 : k;
}

/* Not registered: avx2-int8's AVX-VNNI layout and loop on an exact AVX2
 * stand-in for vpdpbusd, and the AMX kernels on the tile model, for tests
 * (these need AVX-512, as the real ones: their epilogue and packers are
 * AVX-512 code in both builds). */
static const char *impl_vnni_model(void) { return "avxvnni-model:vpdpbusd-emulated"; }
OWN_KERNEL_X(sb_kernel_avx2_int8_vnni_model, "avx2-int8-vnni-model", SB_DT_INT8, "avx2_int8",
             "avx2-int8's AVX-VNNI path on an AVX2 model of vpdpbusd (tests)",
             sb_isa_probe_avx2_int8, sb_ukr_avxvnni_model, NULL, 2, 1, NULL, impl_vnni_model);
OWN_KERNEL(sb_kernel_amx_bf16_model, "amx-bf16-model", SB_DT_BF16, "amx_bf16",
           "amx-bf16's tiling on the functional tile model (tests)", sb_isa_probe_f32,
           &sb_ukr_amxm_bf16, &sb_ukr_amxm_bf16_in, 1, 0);
OWN_KERNEL(sb_kernel_amx_int8_model, "amx-int8-model", SB_DT_INT8, "amx_int8",
           "amx-int8's tiling on the functional tile model (tests)", sb_isa_probe_f32,
           &sb_ukr_amxm_int8, NULL, 1, 1);

/* Every own kernel (registered and not), for sb_kernel_blocking. */
static const own_kernel *const g_own[] = {
#define SB_KERNEL_OWN(id, ...) &sb_kernel_##id##_o,
#define SB_KERNEL_LIB(id)
#include "sb_kernels.def"
#undef SB_KERNEL_OWN
#undef SB_KERNEL_LIB
    &sb_kernel_avx2_int8_u7_o,
    &sb_kernel_avx2_int8_vnni_model_o,
    &sb_kernel_amx_bf16_model_o,
    &sb_kernel_amx_int8_model_o,
};

int sb_kernel_blocking(const sb_kernel *k, const sb_gemm_desc *d, sb_blocking *out)
{
    const own_kernel *o = NULL;
    for (size_t i = 0; i < sizeof g_own / sizeof g_own[0]; i++)
        if (g_own[i]->kernel == k) o = g_own[i];
    if (!o) {
        memset(out, 0, sizeof *out);
        return 0;
    }
    sb_gemm_desc tmp;
    d = with_table(o, d, &tmp);
    sb_gemm_call_blocking(pick(ukrs_of(o), o->npair, d), d, out);
    return 1;
}
