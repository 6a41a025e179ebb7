/* onednn-f32 / onednn-bf16 / onednn-int8: oneDNN matmul via its C API.
 * Primitives are cached per (dtype, m, n, k, transposes, leading dims,
 * alpha, beta, threads, packed weights); alpha is an output scale (3.x: a
 * common scale of the weights, given at execution), beta a sum post-op.
 * Both builds we use (PyPI's 3.x, Debian's 2.6.3) thread with GNU OpenMP:
 * the thread count is set with omp_set_num_threads around each call. A
 * primitive is not run by two threads at once (calls on one shape from
 * several threads serialise).
 *
 * The library is opened at run time (sb_vendor): every oneDNN function is
 * called through g_fn, filled from the opened library, so that a machine
 * without it skips these kernels with the reason. The headers this file is
 * compiled against decide the API generation (SB_DNNL3: 3.x, whose memory
 * descriptors are handles that are created and destroyed; 2.x: structs). */
#include "sb_onednn.h"
#include "sb_gemm.h"
#include "sb_cpu.h"
#include "sb_vendor.h"
#include "sb_bf16buf.h"
#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <dnnl.h>
#include <dnnl_debug.h>

#define SB_DNNL3 (DNNL_VERSION_MAJOR >= 3)

/* ---- the library's functions, resolved at run time ---------------------- */

#define SB_DNNL_COMMON(X)                                                                          \
    X(dnnl_set_max_cpu_isa) X(dnnl_get_effective_cpu_isa) X(dnnl_engine_create)                  \
    X(dnnl_stream_create) X(dnnl_status2str) X(dnnl_primitive_attr_create)                       \
    X(dnnl_post_ops_create) X(dnnl_post_ops_append_sum) X(dnnl_primitive_attr_set_post_ops)      \
    X(dnnl_post_ops_destroy) X(dnnl_primitive_attr_destroy) X(dnnl_primitive_desc_query)         \
    X(dnnl_primitive_create) X(dnnl_primitive_desc_destroy) X(dnnl_primitive_destroy)            \
    X(dnnl_memory_create) X(dnnl_primitive_execute) X(dnnl_stream_wait) X(dnnl_memory_destroy)   \
    X(dnnl_primitive_desc_query_md) X(dnnl_memory_desc_get_size)                                 \
    X(dnnl_reorder_primitive_desc_create)
#if SB_DNNL3
#define SB_DNNL_GEN(X)                                                                             \
    X(dnnl_memory_desc_create_with_strides) X(dnnl_memory_desc_create_with_tag)                  \
    X(dnnl_memory_desc_destroy) X(dnnl_memory_desc_clone) X(dnnl_matmul_primitive_desc_create)   \
    X(dnnl_primitive_attr_set_scales_mask)
#else
#define SB_DNNL_GEN(X)                                                                             \
    X(dnnl_memory_desc_init_by_strides) X(dnnl_memory_desc_init_by_tag) X(dnnl_matmul_desc_init) \
    X(dnnl_primitive_attr_set_output_scales) X(dnnl_primitive_desc_create)
#endif
#define SB_DNNL_PTR(f) __typeof__(f) *f;
static struct {
    SB_DNNL_COMMON(SB_DNNL_PTR)
    SB_DNNL_GEN(SB_DNNL_PTR)
} g_fn;
#define DN(f) (g_fn.f)

static char g_fn_why[256];
static pthread_once_t g_fn_once = PTHREAD_ONCE_INIT;
static int g_fn_ok;

static void fn_load(void)
{
    const sb_vendor_lib *lib = sb_vendor_get(SB_VENDOR_ONEDNN);
    if (!lib->loaded) {
        snprintf(g_fn_why, sizeof g_fn_why, "%.250s", lib->why);
        return;
    }
#define SB_DNNL_LOAD(f)                                                                            \
    if (!(g_fn.f = (__typeof__(g_fn.f))sb_vendor_sym(SB_VENDOR_ONEDNN, #f))) {                    \
        snprintf(g_fn_why, sizeof g_fn_why, "oneDNN %s has no %s", lib->version, #f);            \
        return;                                                                                    \
    }
    SB_DNNL_COMMON(SB_DNNL_LOAD)
    SB_DNNL_GEN(SB_DNNL_LOAD)
    g_fn_ok = 1;
}

/* 1 when oneDNN's functions are there; else why not, in why. */
static int fn_ready(char *why, size_t n)
{
    pthread_once(&g_fn_once, fn_load);
    if (!g_fn_ok && why) snprintf(why, n, "%s", g_fn_why);
    return g_fn_ok;
}

/* A memory descriptor as the API generation passes it: 3.x a handle (made
 * and destroyed), 2.x a struct passed by address. */
#if SB_DNNL3
#define MD(x) (x)
static void md_free(dnnl_memory_desc_t *md)
{
    if (*md) DN(dnnl_memory_desc_destroy)(*md);
    *md = NULL;
}
#else
#define MD(x) (&(x))
static void md_free(dnnl_memory_desc_t *md) { (void)md; }
#endif

/* ---- engine, ISA cap --------------------------------------------------- */

/* Lowest to highest: the rank is the index. 3.x names ISAs 2.6 lacks (a
 * cap it does not know is refused as unknown there). */
static const struct {
    const char *name, *lower;
    dnnl_cpu_isa_t isa;
} g_isas[] = {
    {"SSE41", "sse41", dnnl_cpu_isa_sse41},
    {"AVX", "avx", dnnl_cpu_isa_avx},
    {"AVX2", "avx2", dnnl_cpu_isa_avx2},
    {"AVX2_VNNI", "avx2_vnni", dnnl_cpu_isa_avx2_vnni},
#if SB_DNNL3
    {"AVX2_VNNI_2", "avx2_vnni_2", dnnl_cpu_isa_avx2_vnni_2},
#endif
    {"AVX512_CORE", "avx512_core", dnnl_cpu_isa_avx512_core},
    {"AVX512_CORE_VNNI", "avx512_core_vnni", dnnl_cpu_isa_avx512_core_vnni},
    {"AVX512_CORE_BF16", "avx512_core_bf16", dnnl_cpu_isa_avx512_core_bf16},
#if SB_DNNL3
    {"AVX512_CORE_FP16", "avx512_core_fp16", dnnl_cpu_isa_avx512_core_fp16},
#endif
    {"AVX512_CORE_AMX", "avx512_core_amx", dnnl_cpu_isa_avx512_core_amx},
#if SB_DNNL3
    {"AVX512_CORE_AMX_FP16", "avx512_core_amx_fp16", dnnl_cpu_isa_avx512_core_amx_fp16},
    {"ALL", "all", dnnl_cpu_isa_default},
#else
    {"ALL", "all", dnnl_cpu_isa_all},
#endif
};
#define N_ISAS (int)(sizeof g_isas / sizeof g_isas[0])

const char *sb_onednn_isa_names(void)
{
    static char buf[256];
    static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&mu);
    if (!buf[0]) {
        size_t off = 0;
        for (int i = 0; i < N_ISAS && off < sizeof buf; i++)
            off += snprintf(buf + off, sizeof buf - off, "%s%s", i ? ", " : "", g_isas[i].name);
    }
    pthread_mutex_unlock(&mu);
    return buf;
}

/* oneDNN takes one ISA cap per process, before its first primitive. Under
 * SB_FORCE_NO_AVX512 (SB_FORCE_NO_AVX2) that cap is AVX2 (SSE4.1), so that
 * onednn-* behave as on a CPU without those instructions, as our kernels
 * do: a user's lower cap (ONEDNN_MAX_CPU_ISA or --onednn-isa) stays, a
 * higher one is lowered. */
static pthread_mutex_t g_cap_mu = PTHREAD_MUTEX_INITIALIZER;
static int g_cap_set; /* dnnl_set_max_cpu_isa was called (it answers once) */

static int isa_rank(const char *name)
{
    for (int i = 0; i < N_ISAS; i++)
        if (strcasecmp(name, g_isas[i].name) == 0) return i;
    return -1;
}

static int forced_rank(void)
{
    if (sb_cpu_forced_off("AVX2")) return isa_rank("SSE41");
    if (sb_cpu_forced_off("AVX512")) return isa_rank("AVX2");
    return -1;
}

/* oneDNN reads ONEDNN_MAX_CPU_ISA (or the older DNNL_MAX_CPU_ISA) itself;
 * only the rank matters here, -1 when unset or a name we do not list. */
static int env_rank(void)
{
    const char *v = getenv("ONEDNN_MAX_CPU_ISA");
    if (!v || !v[0]) v = getenv("DNNL_MAX_CPU_ISA");
    return v && v[0] ? isa_rank(v) : -1;
}

/* Before oneDNN's first primitive or ISA query: the forced cap, if any. */
static void apply_forced_cap(void)
{
    if (!fn_ready(NULL, 0)) return;
    pthread_mutex_lock(&g_cap_mu);
    int f = forced_rank(), env = env_rank();
    if (!g_cap_set && f >= 0 && !(env >= 0 && env <= f)) {
        DN(dnnl_set_max_cpu_isa)(g_isas[f].isa);
        g_cap_set = 1;
    }
    pthread_mutex_unlock(&g_cap_mu);
}

int sb_onednn_set_max_isa(const char *isa, sb_err *e)
{
    int r = isa_rank(isa);
    if (r < 0)
        return sb_errf(e, SB_EUSAGE, "unknown oneDNN ISA '%s' (known: %s)", isa,
                       sb_onednn_isa_names());
    int f = forced_rank();
    if (f >= 0 && f < r) r = f;
    char why[256];
    if (!fn_ready(why, sizeof why)) return SB_OK; /* no oneDNN: nothing to cap; its kernels skip */
    pthread_mutex_lock(&g_cap_mu);
    dnnl_status_t st = DN(dnnl_set_max_cpu_isa)(g_isas[r].isa);
    g_cap_set = 1;
    pthread_mutex_unlock(&g_cap_mu);
    if (st != dnnl_success)
        return sb_errf(e, SB_EFAIL,
                       "oneDNN refused the ISA cap %s (%s): it must be set before the "
                       "first primitive is created",
                       g_isas[r].name, DN(dnnl_status2str)(st));
    return SB_OK;
}

const char *sb_onednn_effective_isa(void)
{
    if (!fn_ready(NULL, 0)) return "none (oneDNN not loaded)";
    apply_forced_cap();
    dnnl_cpu_isa_t isa = DN(dnnl_get_effective_cpu_isa)();
    for (int i = 0; i < N_ISAS; i++)
        if (g_isas[i].isa == isa) return g_isas[i].lower;
    return "unknown";
}

static dnnl_engine_t g_engine;
static dnnl_status_t g_engine_status = dnnl_success;
static pthread_once_t g_engine_once = PTHREAD_ONCE_INIT;
static void engine_init(void)
{
    apply_forced_cap();
    g_engine_status = DN(dnnl_engine_create)(&g_engine, dnnl_cpu, 0);
}

/* One in-order stream per calling thread keeps calls from different threads apart. */
static _Thread_local dnnl_stream_t tl_stream;

static int ready(sb_err *e)
{
    char why[256];
    if (!fn_ready(why, sizeof why)) return sb_errf(e, SB_EFAIL, "%s", why);
    pthread_once(&g_engine_once, engine_init);
    if (g_engine_status != dnnl_success)
        return sb_errf(e, SB_EFAIL, "oneDNN: cannot create a CPU engine (%s)",
                       DN(dnnl_status2str)(g_engine_status));
    if (!tl_stream) {
        dnnl_status_t st = DN(dnnl_stream_create)(&tl_stream, g_engine, dnnl_stream_default_flags);
        if (st != dnnl_success)
            return sb_errf(e, SB_EFAIL, "oneDNN: cannot create a stream (%s)",
                           DN(dnnl_status2str)(st));
    }
    return SB_OK;
}

#define DNNL_TRY(call, what)                                                                 \
    do {                                                                                     \
        dnnl_status_t st_ = (call);                                                          \
        if (st_ != dnnl_success) {                                                           \
            rc = sb_errf(e, SB_EFAIL, "oneDNN: %s failed (%s)", what, DN(dnnl_status2str)(st_)); \
            goto out;                                                                        \
        }                                                                                    \
    } while (0)

/* ---- primitive cache --------------------------------------------------- */

typedef struct {
    sb_dtype dt;
    int m, n, k, lda, ldb, ldc, threads;
    char ta, tb;
    float alpha, beta;
    const void *packed; /* identity of the packed weights' layout, or NULL */
} mm_key;

typedef struct {
    mm_key key;
    dnnl_primitive_t prim;
    pthread_mutex_t run; /* one execution at a time per primitive */
    char impl[128];
} mm_entry;

#define CACHE_CAP 128
static mm_entry g_cache[CACHE_CAP];
static int g_cache_n;
static pthread_mutex_t g_cache_mu = PTHREAD_MUTEX_INITIALIZER;

static _Thread_local char tl_impl[3][128];

static dnnl_data_type_t a_type(sb_dtype dt)
{
    return dt == SB_DT_F32 ? dnnl_f32 : dt == SB_DT_BF16 ? dnnl_bf16 : dnnl_u8;
}
static dnnl_data_type_t b_type(sb_dtype dt)
{
    return dt == SB_DT_F32 ? dnnl_f32 : dt == SB_DT_BF16 ? dnnl_bf16 : dnnl_s8;
}
static dnnl_data_type_t c_type(sb_dtype dt) { return dt == SB_DT_INT8 ? dnnl_s32 : dnnl_f32; }

/* A rows x cols matrix stored with row stride ld (trans 'T': stored
 * transposed). 3.x: the caller frees it with md_free. */
static void md_2d(dnnl_memory_desc_t *md, int rows, int cols, int ld, char trans,
                  dnnl_data_type_t t)
{
    dnnl_dims_t dims = {rows, cols};
    dnnl_dims_t strides = {trans == 'N' ? ld : 1, trans == 'N' ? 1 : ld};
#if SB_DNNL3
    *md = NULL;
    DN(dnnl_memory_desc_create_with_strides)(md, 2, dims, t, strides);
#else
    DN(dnnl_memory_desc_init_by_strides)(md, 2, dims, t, strides);
#endif
}

/* B's layout left to oneDNN (format "any"): the packed weights' layout. */
static void md_any(dnnl_memory_desc_t *md, int rows, int cols, dnnl_data_type_t t)
{
    dnnl_dims_t dims = {rows, cols};
#if SB_DNNL3
    *md = NULL;
    DN(dnnl_memory_desc_create_with_tag)(md, 2, dims, t, dnnl_format_tag_any);
#else
    DN(dnnl_memory_desc_init_by_tag)(md, 2, dims, t, dnnl_format_tag_any);
#endif
}

/* Makes the matmul primitive descriptor for key; wmd overrides B's layout
 * (pre-packed weights; format "any" when wmd_any). */
static int make_pd(const mm_key *key, const dnnl_memory_desc_t *wmd, int wmd_any,
                   dnnl_primitive_desc_t *pd, sb_err *e)
{
    int rc = SB_OK;
    dnnl_primitive_attr_t attr = NULL;
    dnnl_post_ops_t po = NULL;
    dnnl_memory_desc_t amd, bmd, cmd;
    md_2d(&amd, key->m, key->k, key->lda, key->ta, a_type(key->dt));
    if (wmd)
        bmd = *wmd; /* 3.x: the packed weights' handle, theirs to free */
    else if (wmd_any)
        md_any(&bmd, key->k, key->n, b_type(key->dt));
    else
        md_2d(&bmd, key->k, key->n, key->ldb, key->tb, b_type(key->dt));
    md_2d(&cmd, key->m, key->n, key->ldc, 'N', c_type(key->dt));
    DNNL_TRY(DN(dnnl_primitive_attr_create)(&attr), "attr_create");
    if (key->alpha != 1.0f && key->dt != SB_DT_INT8) {
#if SB_DNNL3
        DNNL_TRY(DN(dnnl_primitive_attr_set_scales_mask)(attr, DNNL_ARG_WEIGHTS, 0), "scales");
#else
        DNNL_TRY(DN(dnnl_primitive_attr_set_output_scales)(attr, 1, 0, &key->alpha),
                 "output scales");
#endif
    }
    if (key->beta != 0.0f) {
        DNNL_TRY(DN(dnnl_post_ops_create)(&po), "post_ops_create");
#if SB_DNNL3
        DNNL_TRY(DN(dnnl_post_ops_append_sum)(po, key->beta, 0, dnnl_data_type_undef),
                 "append_sum");
#else
        DNNL_TRY(DN(dnnl_post_ops_append_sum)(po, key->beta), "append_sum");
#endif
        DNNL_TRY(DN(dnnl_primitive_attr_set_post_ops)(attr, po), "set_post_ops");
    }
#if SB_DNNL3
    DNNL_TRY(DN(dnnl_matmul_primitive_desc_create)(pd, g_engine, amd, bmd, NULL, cmd, attr),
             "matmul primitive_desc");
#else
    dnnl_matmul_desc_t md;
    DNNL_TRY(DN(dnnl_matmul_desc_init)(&md, &amd, &bmd, NULL, &cmd), "matmul_desc_init");
    DNNL_TRY(DN(dnnl_primitive_desc_create)(pd, &md, attr, g_engine, NULL),
             "matmul primitive_desc");
#endif
out:
    if (po) DN(dnnl_post_ops_destroy)(po);
    if (attr) DN(dnnl_primitive_attr_destroy)(attr);
    md_free(&amd);
    if (!wmd) md_free(&bmd);
    md_free(&cmd);
    return rc;
}

/* Returns a cached entry (locked for running) or a fresh uncached one in *tmp. */
static int get_entry(const mm_key *key, const dnnl_memory_desc_t *wmd, mm_entry **out,
                     mm_entry *tmp, sb_err *e)
{
    pthread_mutex_lock(&g_cache_mu);
    for (int i = 0; i < g_cache_n; i++)
        if (memcmp(&g_cache[i].key, key, sizeof *key) == 0) {
            mm_entry *en = &g_cache[i];
            pthread_mutex_unlock(&g_cache_mu);
            pthread_mutex_lock(&en->run);
            *out = en;
            return SB_OK;
        }
    pthread_mutex_unlock(&g_cache_mu);
    dnnl_primitive_desc_t pd = NULL;
    int rc = make_pd(key, wmd, 0, &pd, e);
    if (rc) return rc;
    memset(tmp, 0, sizeof *tmp);
    tmp->key = *key;
    const char *impl = NULL;
    DN(dnnl_primitive_desc_query)(pd, dnnl_query_impl_info_str, 0, &impl);
    if (!impl) impl = "?";
    /* some implementations ("gemm:jit") do not name their ISA: add the cap
     * oneDNN ran under, so a capped run shows it was capped */
    if (strstr(impl, "avx") || strstr(impl, "sse") || strstr(impl, "amx"))
        snprintf(tmp->impl, sizeof tmp->impl, "%s", impl);
    else
        snprintf(tmp->impl, sizeof tmp->impl, "%s (max isa %s)", impl, sb_onednn_effective_isa());
    dnnl_status_t st = DN(dnnl_primitive_create)(&tmp->prim, pd);
    DN(dnnl_primitive_desc_destroy)(pd);
    if (st != dnnl_success)
        return sb_errf(e, SB_EFAIL, "oneDNN: matmul primitive_create failed (%s)",
                       DN(dnnl_status2str)(st));
    pthread_mutex_init(&tmp->run, NULL);
    pthread_mutex_lock(&g_cache_mu);
    if (g_cache_n < CACHE_CAP) {
        mm_entry *en = &g_cache[g_cache_n++];
        *en = *tmp;
        pthread_mutex_init(&en->run, NULL);
        pthread_mutex_unlock(&g_cache_mu);
        pthread_mutex_lock(&en->run);
        *out = en;
        return SB_OK;
    }
    pthread_mutex_unlock(&g_cache_mu);
    pthread_mutex_lock(&tmp->run);
    *out = tmp; /* cache full: this call's own primitive, destroyed after */
    return SB_OK;
}

static void put_entry(mm_entry *en, mm_entry *tmp)
{
    pthread_mutex_unlock(&en->run);
    if (en == tmp) {
        DN(dnnl_primitive_destroy)(tmp->prim);
        pthread_mutex_destroy(&tmp->run);
    }
}

/* Runs C = alpha op(A) op(B) + beta C; wmd/B packed when wmd is given. */
static int run_matmul(sb_dtype dt, const sb_gemm_desc *d, const void *A, const void *B,
                      const dnnl_memory_desc_t *wmd, const void *packed_id, void *C, sb_err *e)
{
    int rc = ready(e);
    if (rc) return rc;
    int nt = d->threads > 0 ? d->threads : omp_get_max_threads();
    mm_key key;
    memset(&key, 0, sizeof key);
    key.dt = dt;
    key.m = d->m;
    key.n = d->n;
    key.k = d->k;
    key.lda = d->lda;
    key.ldb = wmd ? 0 : d->ldb;
    key.ldc = d->ldc;
    key.ta = d->transa;
    key.tb = wmd ? 'P' : d->transb;
    key.alpha = dt == SB_DT_INT8 ? 1.0f : d->alpha;
    key.beta = d->beta;
    key.threads = nt;
    key.packed = packed_id;
    mm_entry tmp, *en = NULL;
    int old_nt = omp_get_max_threads();
    omp_set_num_threads(nt);
    rc = get_entry(&key, wmd, &en, &tmp, e);
    if (rc) {
        omp_set_num_threads(old_nt);
        return rc;
    }
    snprintf(tl_impl[dt], sizeof tl_impl[dt], "%s", en->impl);
    dnnl_memory_t ma = NULL, mb = NULL, mc = NULL, ms = NULL;
    dnnl_memory_desc_t amd, bmd, cmd, smd;
    md_2d(&amd, d->m, d->k, d->lda, d->transa, a_type(dt));
    if (wmd)
        bmd = *wmd;
    else
        md_2d(&bmd, d->k, d->n, d->ldb, d->transb, b_type(dt));
    md_2d(&cmd, d->m, d->n, d->ldc, 'N', c_type(dt));
    memset(&smd, 0, sizeof smd);
#if SB_DNNL3
    if (key.alpha != 1.0f) { /* alpha, a common scale of the weights: one f32 */
        dnnl_dims_t one = {1};
        DN(dnnl_memory_desc_create_with_tag)(&smd, 1, one, dnnl_f32, dnnl_a);
    }
#endif
    DNNL_TRY(DN(dnnl_memory_create)(&ma, MD(amd), g_engine, (void *)A), "memory_create A");
    DNNL_TRY(DN(dnnl_memory_create)(&mb, MD(bmd), g_engine, (void *)B), "memory_create B");
    DNNL_TRY(DN(dnnl_memory_create)(&mc, MD(cmd), g_engine, C), "memory_create C");
    dnnl_exec_arg_t args[4] = {{DNNL_ARG_SRC, ma}, {DNNL_ARG_WEIGHTS, mb}, {DNNL_ARG_DST, mc}};
    int nargs = 3;
    float alpha = key.alpha;
#if SB_DNNL3
    if (key.alpha != 1.0f) {
        DNNL_TRY(DN(dnnl_memory_create)(&ms, MD(smd), g_engine, &alpha), "memory_create alpha");
        args[nargs++] = (dnnl_exec_arg_t){DNNL_ARG_ATTR_SCALES | DNNL_ARG_WEIGHTS, ms};
    }
#else
    (void)alpha; /* 2.x: an output scale, fixed in the primitive */
#endif
    DNNL_TRY(DN(dnnl_primitive_execute)(en->prim, tl_stream, nargs, args), "matmul execute");
    DNNL_TRY(DN(dnnl_stream_wait)(tl_stream), "stream wait");
    if (dt != SB_DT_INT8)
        sb_gemm_add_bias(d, C);
    else
        sb_gemm_apply_dequant(d, C); /* not fused: after oneDNN's s32 C */
out:
    if (ma) DN(dnnl_memory_destroy)(ma);
    if (mb) DN(dnnl_memory_destroy)(mb);
    if (mc) DN(dnnl_memory_destroy)(mc);
    if (ms) DN(dnnl_memory_destroy)(ms);
    md_free(&amd);
    if (!wmd) md_free(&bmd);
    md_free(&cmd);
    md_free(&smd);
    put_entry(en, &tmp);
    omp_set_num_threads(old_nt);
    return rc;
}

/* ---- probes ------------------------------------------------------------ */

static int probe_common(const char *what, int need, const char *flag_why, char *why, size_t n)
{
    if (sb_cpu_forced_off("ONEDNN")) {
        snprintf(why, n, "oneDNN forced off for a test (SB_FORCE_NO_ONEDNN)");
        return 0;
    }
    if (!need) {
        snprintf(why, n, "%s: %s", what, flag_why);
        return 0;
    }
    sb_err e = {0};
    if (ready(&e) != SB_OK) {
        snprintf(why, n, "%.250s", e.msg);
        return 0;
    }
    return 1;
}

static int probe_f32(char *why, size_t n) { return probe_common("onednn-f32", 1, "", why, n); }

/* oneDNN's bf16/int8 matmul needs AVX-512 (avx512_core) at least. The
 * force variables are read here too (not only through sb_cpu_get, fixed at
 * the process's first call), as our own kernels' probes read them. */
static int probe_avx512_dt(const char *what, const char *dt, char *why, size_t n)
{
    const sb_cpu *c = sb_cpu_get();
    char flag_why[160];
    int forced = sb_cpu_forced_off("AVX512") || sb_cpu_forced_off("AVX2");
    if (forced)
        snprintf(flag_why, sizeof flag_why,
                 "oneDNN's %s matmul needs AVX-512, forced off for a test (%s)", dt,
                 sb_cpu_forced_off("AVX512") ? "SB_FORCE_NO_AVX512" : "SB_FORCE_NO_AVX2");
    else
        snprintf(flag_why, sizeof flag_why,
                 "oneDNN's %s matmul needs AVX-512 (avx512_core) enabled by the OS", dt);
    return probe_common(what, !forced && c->avx512f && c->avx512bw && c->os_avx512, flag_why, why,
                        n);
}
static int probe_bf16(char *why, size_t n)
{
    return probe_avx512_dt("onednn-bf16", "bf16", why, n);
}
static int probe_int8(char *why, size_t n)
{
    return probe_avx512_dt("onednn-int8", "int8", why, n);
}

/* ---- entries ----------------------------------------------------------- */

static int gemm_f32(const sb_gemm_desc *d, const float *A, const float *B, float *C, sb_err *e)
{
    int rc = sb_gemm_desc_check(d, e);
    return rc ? rc : run_matmul(SB_DT_F32, d, A, B, NULL, NULL, C, e);
}

static int gemm_bf16_in(const sb_gemm_desc *d, const uint16_t *A, const uint16_t *B, float *C,
                        sb_err *e)
{
    char why[256];
    if (!probe_bf16(why, sizeof why)) return sb_errf(e, SB_EFAIL, "%s", why);
    int rc = sb_gemm_desc_check(d, e);
    return rc ? rc : run_matmul(SB_DT_BF16, d, A, B, NULL, NULL, C, e);
}

static int gemm_bf16_f32(const sb_gemm_desc *d, const float *A, const float *B, float *C, sb_err *e)
{
    int rc = sb_gemm_desc_check(d, e);
    if (rc) return rc;
    int nt = d->threads > 0 ? d->threads : omp_get_max_threads();
    uint16_t *a = sb_bf16buf_round(A, d->transa == 'N' ? d->m : d->k,
                                   d->transa == 'N' ? d->k : d->m, d->lda, SB_BF16BUF_A, nt);
    uint16_t *b = sb_bf16buf_round(B, d->transb == 'N' ? d->k : d->n,
                                   d->transb == 'N' ? d->n : d->k, d->ldb, SB_BF16BUF_B, nt);
    if (!a || !b) return sb_errf(e, SB_EFAIL, "onednn-bf16: out of memory for bf16 copies");
    return gemm_bf16_in(d, a, b, C, e);
}

static int gemm_int8(const sb_gemm_desc *d, const uint8_t *A, const int8_t *B, int32_t *C,
                     sb_err *e)
{
    char why[256];
    if (!probe_int8(why, sizeof why)) return sb_errf(e, SB_EFAIL, "%s", why);
    int rc = sb_gemm_check_int8(d, e);
    return rc ? rc : run_matmul(SB_DT_INT8, d, A, B, NULL, NULL, C, e);
}

/* ---- pre-packed weights: oneDNN picks B's layout ("any"), we reorder once */

typedef struct {
    dnnl_memory_desc_t wmd;
    void *data;
} dnnl_packed;

static void packed_free(void *p)
{
    dnnl_packed *x = p;
    if (x) {
        free(x->data);
        md_free(&x->wmd);
    }
    free(x);
}

static int pack_b(const sb_kernel *owner, sb_dtype dt, const sb_gemm_desc *d, const void *B,
                  sb_packed_b **out, sb_err *e)
{
    *out = NULL;
    int rc = ready(e);
    if (rc) return rc;
    sb_gemm_desc dd;
    rc = sb_gemm_desc_for_pack(d, &dd, e);
    if (rc) return rc;
    int nt = dd.threads > 0 ? dd.threads : omp_get_max_threads();
    int old_nt = omp_get_max_threads();
    omp_set_num_threads(nt);
    mm_key key;
    memset(&key, 0, sizeof key);
    key.dt = dt;
    key.m = dd.m;
    key.n = dd.n;
    key.k = dd.k;
    key.lda = dd.lda;
    key.ldc = dd.ldc;
    key.ta = dd.transa;
    key.tb = dd.transb;
    key.alpha = 1.0f;
    key.threads = nt;
    dnnl_primitive_desc_t pd = NULL, rpd = NULL;
    dnnl_primitive_t reorder = NULL;
    dnnl_memory_t msrc = NULL, mdst = NULL;
    dnnl_memory_desc_t smd;
    memset(&smd, 0, sizeof smd); /* 3.x: no handle yet */
    dnnl_packed *pk = calloc(1, sizeof *pk);
    sb_packed_b *p = calloc(1, sizeof *p);
    if (!pk || !p) {
        rc = sb_errf(e, SB_EFAIL, "out of memory");
        goto out;
    }
    rc = make_pd(&key, NULL, 1, &pd, e);
    if (rc) goto out;
#if SB_DNNL3
    DNNL_TRY(DN(dnnl_memory_desc_clone)(
                 &pk->wmd, DN(dnnl_primitive_desc_query_md)(pd, dnnl_query_weights_md, 0)),
             "packed weights' descriptor");
#else
    pk->wmd = *DN(dnnl_primitive_desc_query_md)(pd, dnnl_query_weights_md, 0);
#endif
    size_t sz = DN(dnnl_memory_desc_get_size)(MD(pk->wmd));
    pk->data = aligned_alloc(64, (sz + 63) / 64 * 64);
    if (!pk->data) {
        rc = sb_errf(e, SB_EFAIL, "out of memory for packed weights");
        goto out;
    }
    /* f32 -> bf16 happens inside the reorder for onednn-bf16 */
    md_2d(&smd, dd.k, dd.n, dd.ldb, dd.transb, dt == SB_DT_INT8 ? dnnl_s8 : dnnl_f32);
    DNNL_TRY(DN(dnnl_reorder_primitive_desc_create)(&rpd, MD(smd), g_engine, MD(pk->wmd),
                                                    g_engine, NULL),
             "weights reorder primitive_desc");
    DNNL_TRY(DN(dnnl_primitive_create)(&reorder, rpd), "weights reorder primitive");
    DNNL_TRY(DN(dnnl_memory_create)(&msrc, MD(smd), g_engine, (void *)B), "memory_create B");
    DNNL_TRY(DN(dnnl_memory_create)(&mdst, MD(pk->wmd), g_engine, pk->data),
             "memory_create packed");
    dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, msrc}, {DNNL_ARG_TO, mdst}};
    DNNL_TRY(DN(dnnl_primitive_execute)(reorder, tl_stream, 2, args), "weights reorder");
    DNNL_TRY(DN(dnnl_stream_wait)(tl_stream), "stream wait");
    p->owner = owner;
    p->k = dd.k;
    p->n = dd.n;
    p->ldb = dd.ldb;
    p->transb = dd.transb;
    p->ext = pk;
    p->ext_free = packed_free;
    pk = NULL;
    *out = p;
    p = NULL;
out:
    if (msrc) DN(dnnl_memory_destroy)(msrc);
    if (mdst) DN(dnnl_memory_destroy)(mdst);
    if (reorder) DN(dnnl_primitive_destroy)(reorder);
    if (rpd) DN(dnnl_primitive_desc_destroy)(rpd);
    if (pd) DN(dnnl_primitive_desc_destroy)(pd);
    md_free(&smd);
    packed_free(pk);
    free(p);
    omp_set_num_threads(old_nt);
    return rc;
}

static int gemm_packed(const sb_kernel *owner, sb_dtype dt, const sb_gemm_desc *d, const void *A,
                       const sb_packed_b *B, void *C, sb_err *e)
{
    int rc = sb_packed_b_check(B, owner, d, e);
    if (rc) return rc;
    rc = dt == SB_DT_INT8 ? sb_gemm_check_int8(d, e) : sb_gemm_desc_check(d, e);
    if (rc) return rc;
    const dnnl_packed *pk = B->ext;
    const void *a = A;
    if (dt == SB_DT_BF16) {
        int nt = d->threads > 0 ? d->threads : omp_get_max_threads();
        a = sb_bf16buf_round(A, d->transa == 'N' ? d->m : d->k, d->transa == 'N' ? d->k : d->m,
                             d->lda, SB_BF16BUF_A, nt);
        if (!a) return sb_errf(e, SB_EFAIL, "onednn-bf16: out of memory for a bf16 copy");
    }
    return run_matmul(dt, d, a, pk->data, &pk->wmd, B, C, e);
}

static int pack_f32(const sb_gemm_desc *d, const void *B, sb_packed_b **o, sb_err *e)
{
    return pack_b(&sb_kernel_onednn_f32, SB_DT_F32, d, B, o, e);
}
static int pack_bf16(const sb_gemm_desc *d, const void *B, sb_packed_b **o, sb_err *e)
{
    return pack_b(&sb_kernel_onednn_bf16, SB_DT_BF16, d, B, o, e);
}
static int pack_int8(const sb_gemm_desc *d, const void *B, sb_packed_b **o, sb_err *e)
{
    return pack_b(&sb_kernel_onednn_int8, SB_DT_INT8, d, B, o, e);
}
static int packed_f32(const sb_gemm_desc *d, const void *A, const sb_packed_b *B, void *C,
                      sb_err *e)
{
    return gemm_packed(&sb_kernel_onednn_f32, SB_DT_F32, d, A, B, C, e);
}
static int packed_bf16(const sb_gemm_desc *d, const void *A, const sb_packed_b *B, void *C,
                       sb_err *e)
{
    return gemm_packed(&sb_kernel_onednn_bf16, SB_DT_BF16, d, A, B, C, e);
}
static int packed_int8(const sb_gemm_desc *d, const void *A, const sb_packed_b *B, void *C,
                       sb_err *e)
{
    return gemm_packed(&sb_kernel_onednn_int8, SB_DT_INT8, d, A, B, C, e);
}

static const char *impl_f32(void) { return tl_impl[SB_DT_F32][0] ? tl_impl[SB_DT_F32] : NULL; }
static const char *impl_bf16(void) { return tl_impl[SB_DT_BF16][0] ? tl_impl[SB_DT_BF16] : NULL; }
static const char *impl_int8(void) { return tl_impl[SB_DT_INT8][0] ? tl_impl[SB_DT_INT8] : NULL; }

const sb_kernel sb_kernel_onednn_f32 = {
    .name = "onednn-f32",
    .dtype = SB_DT_F32,
    .isa = "f32",
    .summary = "oneDNN matmul, f32 (primitive cached per shape; ISA cap via --onednn-isa)",
    .probe = probe_f32,
    .gemm_f32 = gemm_f32,
    .impl = impl_f32,
    .pack_b = pack_f32,
    .gemm_packed = packed_f32,
};
const sb_kernel sb_kernel_onednn_bf16 = {
    .name = "onednn-bf16",
    .dtype = SB_DT_BF16,
    .isa = "bf16",
    .summary = "oneDNN matmul, bf16 x bf16 -> f32 (f32 inputs rounded to bf16 first)",
    .probe = probe_bf16,
    .gemm_f32 = gemm_bf16_f32,
    .gemm_bf16 = gemm_bf16_in,
    .impl = impl_bf16,
    .pack_b = pack_bf16,
    .gemm_packed = packed_bf16,
};
const sb_kernel sb_kernel_onednn_int8 = {
    .name = "onednn-int8",
    .dtype = SB_DT_INT8,
    .isa = "int8",
    .summary = "oneDNN matmul, u8 x s8 -> s32",
    .probe = probe_int8,
    .gemm_u8s8 = gemm_int8,
    .impl = impl_int8,
    .pack_b = pack_int8,
    .gemm_packed = packed_int8,
};
