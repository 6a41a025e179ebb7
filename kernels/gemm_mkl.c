/* mkl-f32 / mkl-bf16 / mkl-int8: MKL's GEMMs through its CBLAS interface
 * (cblas_sgemm, cblas_gemm_bf16bf16f32, cblas_gemm_s8u8s32), and with
 * pre-packed weights its packed API (*_pack_get_size, *_pack, *_compute),
 * the calls a PyTorch user's f32 linear layers make. MKL is opened at run
 * time (sb_vendor: the PyPI wheel's libmkl_rt with its GNU OpenMP layer), so
 * the prototypes below are ours, written from MKL's documented CBLAS
 * interface (LP64: MKL_INT is int; the enums are ints). Threads: MKL's
 * thread-local count (mkl_set_num_threads_local) around each call. */
#include "sb_kernel.h"
#include "sb_bf16buf.h"
#include "sb_cpu.h"
#include "sb_gemm.h"
#include "sb_vendor.h"
#include <omp.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* CBLAS constants (mkl_cblas.h) and MKL's instruction caps (mkl_service.h) */
enum { ROW_MAJOR = 101, NO_TRANS = 111, TRANS = 112, PACKED = 151, B_MATRIX = 162,
       FIX_OFFSET = 173 };
enum { MKL_CAP_SSE4_2 = 0, MKL_CAP_AVX2 = 2 };

typedef void sgemm_fn(int, int, int, int, int, int, float, const float *, int, const float *, int,
                      float, float *, int);
typedef size_t pack_size_fn(int, int, int, int);
typedef void spack_fn(int, int, int, int, int, int, float, const float *, int, float *);
typedef void scompute_fn(int, int, int, int, int, int, const float *, int, const float *, int,
                         float, float *, int);
typedef void bgemm_fn(int, int, int, int, int, int, float, const uint16_t *, int,
                      const uint16_t *, int, float, float *, int);
typedef void bpack_fn(int, int, int, int, int, int, const uint16_t *, int, uint16_t *);
typedef void bcompute_fn(int, int, int, int, int, int, float, const uint16_t *, int,
                         const uint16_t *, int, float, float *, int);
typedef void igemm_fn(int, int, int, int, int, int, int, float, const void *, int, int8_t,
                      const void *, int, int8_t, float, int32_t *, int, const int32_t *);
typedef void ipack_fn(int, int, int, int, int, int, const void *, int, void *);
typedef void icompute_fn(int, int, int, int, int, int, int, float, const void *, int, int8_t,
                         const void *, int, int8_t, float, int32_t *, int, const int32_t *);
typedef int threads_fn(int);
typedef int enable_fn(int);

static struct {
    sgemm_fn *sgemm;
    pack_size_fn *spack_size, *bpack_size, *ipack_size;
    spack_fn *spack;
    scompute_fn *scompute;
    bgemm_fn *bgemm;
    bpack_fn *bpack;
    bcompute_fn *bcompute;
    igemm_fn *igemm;
    ipack_fn *ipack;
    icompute_fn *icompute;
    threads_fn *threads_local;
    enable_fn *enable;
} g_fn;
static int g_ok;
static char g_why[300];
static char g_cap[32]; /* the ISA cap a forced test set ("" none) */
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void load(void)
{
    const sb_vendor_lib *lib = sb_vendor_get(SB_VENDOR_MKL);
    if (!lib->loaded) {
        snprintf(g_why, sizeof g_why, "%.290s", lib->why);
        return;
    }
    static const struct {
        const char *name;
        size_t off;
    } syms[] = {
#define SYM(field, name) {name, offsetof(__typeof__(g_fn), field)}
        SYM(sgemm, "cblas_sgemm"),
        SYM(spack_size, "cblas_sgemm_pack_get_size"),
        SYM(spack, "cblas_sgemm_pack"),
        SYM(scompute, "cblas_sgemm_compute"),
        SYM(bgemm, "cblas_gemm_bf16bf16f32"),
        SYM(bpack_size, "cblas_gemm_bf16bf16f32_pack_get_size"),
        SYM(bpack, "cblas_gemm_bf16bf16f32_pack"),
        SYM(bcompute, "cblas_gemm_bf16bf16f32_compute"),
        SYM(igemm, "cblas_gemm_s8u8s32"),
        SYM(ipack_size, "cblas_gemm_s8u8s32_pack_get_size"),
        SYM(ipack, "cblas_gemm_s8u8s32_pack"),
        SYM(icompute, "cblas_gemm_s8u8s32_compute"),
        SYM(threads_local, "MKL_Set_Num_Threads_Local"),
        SYM(enable, "MKL_Enable_Instructions"),
#undef SYM
    };
    for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
        void *f = sb_vendor_sym(SB_VENDOR_MKL, syms[i].name);
        if (!f) {
            snprintf(g_why, sizeof g_why, "MKL %s has no %s", lib->version, syms[i].name);
            return;
        }
        memcpy((char *)&g_fn + syms[i].off, &f, sizeof f);
    }
    /* As oneDNN is capped: under SB_FORCE_NO_AVX512 (SB_FORCE_NO_AVX2) MKL
     * behaves as on a CPU without those instructions, before its first GEMM. */
    int cap = sb_cpu_forced_off("AVX2") ? MKL_CAP_SSE4_2 : sb_cpu_forced_off("AVX512") ? MKL_CAP_AVX2 : -1;
    if (cap >= 0) {
        g_fn.enable(cap);
        snprintf(g_cap, sizeof g_cap, "%s", cap == MKL_CAP_AVX2 ? "avx2" : "sse41");
    }
    g_ok = 1;
}

static int ready(char *why, size_t n)
{
    pthread_once(&g_once, load);
    if (!g_ok && why) snprintf(why, n, "%s", g_why);
    return g_ok;
}

/* ---- probes ------------------------------------------------------------ */

static int probe_f32(char *why, size_t n) { return ready(why, n); }

/* bf16 and int8 as oneDNN's: on AVX-512 (a GEMM emulated on AVX2 is not the
 * reference a reader has in mind). */
static int probe_avx512_dt(const char *dt, char *why, size_t n)
{
    if (!ready(why, n)) return 0;
    const sb_cpu *c = sb_cpu_get();
    if (sb_cpu_forced_off("AVX512") || sb_cpu_forced_off("AVX2")) {
        snprintf(why, n, "MKL's %s GEMM needs AVX-512, forced off for a test (%s)", dt,
                 sb_cpu_forced_off("AVX512") ? "SB_FORCE_NO_AVX512" : "SB_FORCE_NO_AVX2");
        return 0;
    }
    if (!(c->avx512f && c->avx512bw && c->os_avx512)) {
        snprintf(why, n, "MKL's %s GEMM is run on AVX-512 only (this CPU or OS has none)", dt);
        return 0;
    }
    return 1;
}
static int probe_bf16(char *why, size_t n) { return probe_avx512_dt("bf16", why, n); }
static int probe_int8(char *why, size_t n) { return probe_avx512_dt("int8", why, n); }

/* ---- what ran ---------------------------------------------------------- */

static _Thread_local char tl_impl[3][128];

/* MKL does not say which code path it dispatched; the best one this CPU
 * offers the dtype is its ceiling, named as oneDNN's cap is ("max isa ..."),
 * so that pct_peak is taken against that path's peak. */
static void note_impl(sb_dtype dt, const char *fn)
{
    const sb_cpu *c = sb_cpu_get();
    const char *isa = g_cap[0]                                              ? g_cap
                      : dt != SB_DT_F32 && sb_amx_request()->permitted        ? "avx512_core_amx"
                      : dt == SB_DT_BF16 && c->avx512_bf16                  ? "avx512_core_bf16"
                      : dt == SB_DT_INT8 && c->avx512_vnni                  ? "avx512_core_vnni"
                      : c->avx512f && c->os_avx512                          ? "avx512_core"
                      : c->avx2                                             ? "avx2"
                                                                            : "sse41";
    snprintf(tl_impl[dt], sizeof tl_impl[dt], "mkl:%s (max isa %s)", fn, isa);
}
static const char *impl_f32(void) { return tl_impl[SB_DT_F32][0] ? tl_impl[SB_DT_F32] : NULL; }
static const char *impl_bf16(void) { return tl_impl[SB_DT_BF16][0] ? tl_impl[SB_DT_BF16] : NULL; }
static const char *impl_int8(void) { return tl_impl[SB_DT_INT8][0] ? tl_impl[SB_DT_INT8] : NULL; }

/* ---- calls ------------------------------------------------------------- */

static int nthreads(const sb_gemm_desc *d) { return d->threads > 0 ? d->threads : omp_get_max_threads(); }
static int tr(char t) { return t == 'N' ? NO_TRANS : TRANS; }

static int gemm_f32(const sb_gemm_desc *d, const float *A, const float *B, float *C, sb_err *e)
{
    char why[300];
    if (!ready(why, sizeof why)) return sb_errf(e, SB_EFAIL, "%s", why);
    int rc = sb_gemm_desc_check(d, e);
    if (rc) return rc;
    int old = g_fn.threads_local(nthreads(d));
    g_fn.sgemm(ROW_MAJOR, tr(d->transa), tr(d->transb), d->m, d->n, d->k, d->alpha, A, d->lda, B,
               d->ldb, d->beta, C, d->ldc);
    g_fn.threads_local(old);
    note_impl(SB_DT_F32, "cblas_sgemm");
    sb_gemm_add_bias(d, C);
    return SB_OK;
}

static int gemm_bf16_in(const sb_gemm_desc *d, const uint16_t *A, const uint16_t *B, float *C,
                        sb_err *e)
{
    char why[300];
    if (!probe_bf16(why, sizeof why)) return sb_errf(e, SB_EFAIL, "%s", why);
    int rc = sb_gemm_desc_check(d, e);
    if (rc) return rc;
    int old = g_fn.threads_local(nthreads(d));
    g_fn.bgemm(ROW_MAJOR, tr(d->transa), tr(d->transb), d->m, d->n, d->k, d->alpha, A, d->lda, B,
               d->ldb, d->beta, C, d->ldc);
    g_fn.threads_local(old);
    note_impl(SB_DT_BF16, "cblas_gemm_bf16bf16f32");
    sb_gemm_add_bias(d, C);
    return SB_OK;
}

static int gemm_bf16_f32(const sb_gemm_desc *d, const float *A, const float *B, float *C, sb_err *e)
{
    int rc = sb_gemm_desc_check(d, e);
    if (rc) return rc;
    int nt = nthreads(d);
    uint16_t *a = sb_bf16buf_round(A, d->transa == 'N' ? d->m : d->k,
                                   d->transa == 'N' ? d->k : d->m, d->lda, SB_BF16BUF_A, nt);
    uint16_t *b = sb_bf16buf_round(B, d->transb == 'N' ? d->k : d->n,
                                   d->transb == 'N' ? d->n : d->k, d->ldb, SB_BF16BUF_B, nt);
    if (!a || !b) return sb_errf(e, SB_EFAIL, "mkl-bf16: out of memory for bf16 copies");
    return gemm_bf16_in(d, a, b, C, e);
}

/* MKL's s8u8s32 in row-major order takes A unsigned and B signed: our
 * u8 (A) x s8 (B) -> s32, no offsets. */
static int gemm_int8(const sb_gemm_desc *d, const uint8_t *A, const int8_t *B, int32_t *C,
                     sb_err *e)
{
    char why[300];
    if (!probe_int8(why, sizeof why)) return sb_errf(e, SB_EFAIL, "%s", why);
    int rc = sb_gemm_check_int8(d, e);
    if (rc) return rc;
    const int32_t co = 0;
    int old = g_fn.threads_local(nthreads(d));
    g_fn.igemm(ROW_MAJOR, tr(d->transa), tr(d->transb), FIX_OFFSET, d->m, d->n, d->k, 1.0f, A,
               d->lda, 0, B, d->ldb, 0, d->beta, C, d->ldc, &co);
    g_fn.threads_local(old);
    note_impl(SB_DT_INT8, "cblas_gemm_s8u8s32");
    sb_gemm_apply_dequant(d, C); /* not fused: after MKL's s32 C */
    return SB_OK;
}

/* ---- pre-packed weights: MKL's own layout, packed once ----------------- */

static void packed_free(void *p) { free(p); }

static int pack_b(const sb_kernel *owner, sb_dtype dt, const sb_gemm_desc *d, const void *B,
                  sb_packed_b **out, sb_err *e)
{
    *out = NULL;
    char why[300];
    if (!owner->probe(why, sizeof why)) return sb_errf(e, SB_EFAIL, "%s", why);
    sb_gemm_desc dd;
    int rc = sb_gemm_desc_for_pack(d, &dd, e);
    if (rc) return rc;
    int nt = nthreads(&dd);
    size_t sz = dt == SB_DT_F32    ? g_fn.spack_size(B_MATRIX, dd.m, dd.n, dd.k)
                : dt == SB_DT_BF16 ? g_fn.bpack_size(B_MATRIX, dd.m, dd.n, dd.k)
                                   : g_fn.ipack_size(B_MATRIX, dd.m, dd.n, dd.k);
    void *buf = sz ? aligned_alloc(64, (sz + 63) / 64 * 64) : NULL;
    sb_packed_b *p = calloc(1, sizeof *p);
    if (!buf || !p) {
        free(buf);
        free(p);
        return sb_errf(e, SB_EFAIL, "%s: out of memory for %zu bytes of packed weights",
                       owner->name, sz);
    }
    int old = g_fn.threads_local(nt);
    if (dt == SB_DT_F32) {
        /* alpha is packed into B: 1 here, the call's alpha applied in gemm_packed */
        g_fn.spack(ROW_MAJOR, B_MATRIX, tr(dd.transb), dd.m, dd.n, dd.k, 1.0f, B, dd.ldb, buf);
    } else if (dt == SB_DT_BF16) {
        uint16_t *b = sb_bf16buf_round(B, dd.transb == 'N' ? dd.k : dd.n,
                                       dd.transb == 'N' ? dd.n : dd.k, dd.ldb, SB_BF16BUF_B, nt);
        if (!b) {
            g_fn.threads_local(old);
            free(buf);
            free(p);
            return sb_errf(e, SB_EFAIL, "mkl-bf16: out of memory for a bf16 copy");
        }
        g_fn.bpack(ROW_MAJOR, B_MATRIX, tr(dd.transb), dd.m, dd.n, dd.k, b, dd.ldb, buf);
    } else {
        g_fn.ipack(ROW_MAJOR, B_MATRIX, tr(dd.transb), dd.m, dd.n, dd.k, B, dd.ldb, buf);
    }
    g_fn.threads_local(old);
    p->owner = owner;
    p->k = dd.k;
    p->n = dd.n;
    p->ldb = dd.ldb;
    p->transb = dd.transb;
    p->ext = buf;
    p->ext_free = packed_free;
    *out = p;
    return SB_OK;
}

/* cblas_sgemm_compute has no alpha (it was packed into B as 1):
 * alpha op(A) B + beta C = alpha (op(A) B + (beta / alpha) C). */
static void sgemm_packed(const sb_gemm_desc *d, const float *A, const void *Bp, float *C)
{
    if (d->alpha == 0.0f) {
        for (int i = 0; i < d->m; i++)
            for (int j = 0; j < d->n; j++)
                C[(size_t)i * d->ldc + j] = d->beta == 0.0f ? 0.0f : d->beta * C[(size_t)i * d->ldc + j];
        return;
    }
    float beta = d->alpha == 1.0f ? d->beta : d->beta / d->alpha;
    g_fn.scompute(ROW_MAJOR, tr(d->transa), PACKED, d->m, d->n, d->k, A, d->lda, Bp, d->ldb, beta,
                  C, d->ldc);
    if (d->alpha != 1.0f)
        for (int i = 0; i < d->m; i++)
            for (int j = 0; j < d->n; j++) C[(size_t)i * d->ldc + j] *= d->alpha;
}

static int gemm_packed(const sb_kernel *owner, sb_dtype dt, const sb_gemm_desc *d, const void *A,
                       const sb_packed_b *B, void *C, sb_err *e)
{
    int rc = sb_packed_b_check(B, owner, d, e);
    if (rc) return rc;
    rc = dt == SB_DT_INT8 ? sb_gemm_check_int8(d, e) : sb_gemm_desc_check(d, e);
    if (rc) return rc;
    char why[300];
    if (!owner->probe(why, sizeof why)) return sb_errf(e, SB_EFAIL, "%s", why);
    int nt = nthreads(d);
    const void *a = A;
    if (dt == SB_DT_BF16) {
        a = sb_bf16buf_round(A, d->transa == 'N' ? d->m : d->k, d->transa == 'N' ? d->k : d->m,
                             d->lda, SB_BF16BUF_A, nt);
        if (!a) return sb_errf(e, SB_EFAIL, "mkl-bf16: out of memory for a bf16 copy");
    }
    int old = g_fn.threads_local(nt);
    if (dt == SB_DT_F32) {
        sgemm_packed(d, a, B->ext, C);
        note_impl(dt, "cblas_sgemm_compute");
    } else if (dt == SB_DT_BF16) {
        g_fn.bcompute(ROW_MAJOR, tr(d->transa), PACKED, d->m, d->n, d->k, d->alpha, a, d->lda,
                      B->ext, d->ldb, d->beta, C, d->ldc);
        note_impl(dt, "cblas_gemm_bf16bf16f32_compute");
    } else {
        const int32_t co = 0;
        g_fn.icompute(ROW_MAJOR, tr(d->transa), PACKED, FIX_OFFSET, d->m, d->n, d->k, 1.0f, a,
                      d->lda, 0, B->ext, d->ldb, 0, d->beta, C, d->ldc, &co);
        note_impl(dt, "cblas_gemm_s8u8s32_compute");
    }
    g_fn.threads_local(old);
    if (dt == SB_DT_INT8)
        sb_gemm_apply_dequant(d, C);
    else
        sb_gemm_add_bias(d, C);
    return SB_OK;
}

static int pack_f32(const sb_gemm_desc *d, const void *B, sb_packed_b **o, sb_err *e)
{
    return pack_b(&sb_kernel_mkl_f32, SB_DT_F32, d, B, o, e);
}
static int pack_bf16(const sb_gemm_desc *d, const void *B, sb_packed_b **o, sb_err *e)
{
    return pack_b(&sb_kernel_mkl_bf16, SB_DT_BF16, d, B, o, e);
}
static int pack_int8(const sb_gemm_desc *d, const void *B, sb_packed_b **o, sb_err *e)
{
    return pack_b(&sb_kernel_mkl_int8, SB_DT_INT8, d, B, o, e);
}
static int packed_f32(const sb_gemm_desc *d, const void *A, const sb_packed_b *B, void *C,
                      sb_err *e)
{
    return gemm_packed(&sb_kernel_mkl_f32, SB_DT_F32, d, A, B, C, e);
}
static int packed_bf16(const sb_gemm_desc *d, const void *A, const sb_packed_b *B, void *C,
                       sb_err *e)
{
    return gemm_packed(&sb_kernel_mkl_bf16, SB_DT_BF16, d, A, B, C, e);
}
static int packed_int8(const sb_gemm_desc *d, const void *A, const sb_packed_b *B, void *C,
                       sb_err *e)
{
    return gemm_packed(&sb_kernel_mkl_int8, SB_DT_INT8, d, A, B, C, e);
}

const sb_kernel sb_kernel_mkl_f32 = {
    .name = "mkl-f32",
    .dtype = SB_DT_F32,
    .isa = "f32",
    .summary = "MKL cblas_sgemm (packed B: cblas_sgemm_pack/_compute), f32 -> f32",
    .probe = probe_f32,
    .gemm_f32 = gemm_f32,
    .impl = impl_f32,
    .pack_b = pack_f32,
    .gemm_packed = packed_f32,
};
const sb_kernel sb_kernel_mkl_bf16 = {
    .name = "mkl-bf16",
    .dtype = SB_DT_BF16,
    .isa = "bf16",
    .summary = "MKL cblas_gemm_bf16bf16f32, bf16 x bf16 -> f32 (f32 inputs rounded to bf16 first)",
    .probe = probe_bf16,
    .gemm_f32 = gemm_bf16_f32,
    .gemm_bf16 = gemm_bf16_in,
    .impl = impl_bf16,
    .pack_b = pack_bf16,
    .gemm_packed = packed_bf16,
};
const sb_kernel sb_kernel_mkl_int8 = {
    .name = "mkl-int8",
    .dtype = SB_DT_INT8,
    .isa = "int8",
    .summary = "MKL cblas_gemm_s8u8s32, u8 x s8 -> s32",
    .probe = probe_int8,
    .gemm_u8s8 = gemm_int8,
    .impl = impl_int8,
    .pack_b = pack_int8,
    .gemm_packed = packed_int8,
};
