/* onednn-f32 / onednn-bf16 / onednn-int8: oneDNN matmul via its C API.
 * Primitives are cached per (dtype, m, n, k, transposes, leading dims,
 * alpha, beta, threads, packed weights); alpha is an output scale, beta a sum
 * post-op. oneDNN (Debian's build) threads with OpenMP: the thread count is
 * set with omp_set_num_threads around each call. A primitive is not run by
 * two threads at once (calls on one shape from several threads serialise). */
#include "sb_onednn.h"
#include "sb_gemm.h"
#include "sb_cpu.h"
#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <dnnl.h>
#include <dnnl_debug.h>

/* ---- engine, ISA cap --------------------------------------------------- */

static const struct {
    const char *name;
    dnnl_cpu_isa_t isa;
} g_isas[] = {
    {"SSE41", dnnl_cpu_isa_sse41},
    {"AVX", dnnl_cpu_isa_avx},
    {"AVX2", dnnl_cpu_isa_avx2},
    {"AVX2_VNNI", dnnl_cpu_isa_avx2_vnni},
    {"AVX512_CORE", dnnl_cpu_isa_avx512_core},
    {"AVX512_CORE_VNNI", dnnl_cpu_isa_avx512_core_vnni},
    {"AVX512_CORE_BF16", dnnl_cpu_isa_avx512_core_bf16},
    {"AVX512_CORE_AMX", dnnl_cpu_isa_avx512_core_amx},
    {"ALL", dnnl_cpu_isa_all},
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
    pthread_mutex_lock(&g_cap_mu);
    int f = forced_rank(), env = env_rank();
    if (!g_cap_set && f >= 0 && !(env >= 0 && env <= f)) {
        dnnl_set_max_cpu_isa(g_isas[f].isa);
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
    pthread_mutex_lock(&g_cap_mu);
    dnnl_status_t st = dnnl_set_max_cpu_isa(g_isas[r].isa);
    g_cap_set = 1;
    pthread_mutex_unlock(&g_cap_mu);
    if (st != dnnl_success)
        return sb_errf(e, SB_EFAIL,
                       "oneDNN refused the ISA cap %s (%s): it must be set before the "
                       "first primitive is created",
                       g_isas[r].name, dnnl_status2str(st));
    return SB_OK;
}

const char *sb_onednn_effective_isa(void)
{
    apply_forced_cap();
    dnnl_cpu_isa_t isa = dnnl_get_effective_cpu_isa();
    static const char *const lower[] = {"sse41",
                                        "avx",
                                        "avx2",
                                        "avx2_vnni",
                                        "avx512_core",
                                        "avx512_core_vnni",
                                        "avx512_core_bf16",
                                        "avx512_core_amx",
                                        "all"};
    for (int i = 0; i < N_ISAS; i++)
        if (g_isas[i].isa == isa) return lower[i];
    return "unknown";
}

static dnnl_engine_t g_engine;
static dnnl_status_t g_engine_status = dnnl_success;
static pthread_once_t g_engine_once = PTHREAD_ONCE_INIT;
static void engine_init(void)
{
    apply_forced_cap();
    g_engine_status = dnnl_engine_create(&g_engine, dnnl_cpu, 0);
}

/* One in-order stream per calling thread keeps calls from different threads apart. */
static _Thread_local dnnl_stream_t tl_stream;

static int ready(sb_err *e)
{
    pthread_once(&g_engine_once, engine_init);
    if (g_engine_status != dnnl_success)
        return sb_errf(e, SB_EFAIL, "oneDNN: cannot create a CPU engine (%s)",
                       dnnl_status2str(g_engine_status));
    if (!tl_stream) {
        dnnl_status_t st = dnnl_stream_create(&tl_stream, g_engine, dnnl_stream_default_flags);
        if (st != dnnl_success)
            return sb_errf(e, SB_EFAIL, "oneDNN: cannot create a stream (%s)", dnnl_status2str(st));
    }
    return SB_OK;
}

#define DNNL_TRY(call, what)                                                                 \
    do {                                                                                     \
        dnnl_status_t st_ = (call);                                                          \
        if (st_ != dnnl_success) {                                                           \
            rc = sb_errf(e, SB_EFAIL, "oneDNN: %s failed (%s)", what, dnnl_status2str(st_)); \
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

static void md_2d(dnnl_memory_desc_t *md, int rows, int cols, int ld, char trans,
                  dnnl_data_type_t t)
{
    dnnl_dims_t dims = {rows, cols};
    dnnl_dims_t strides = {trans == 'N' ? ld : 1, trans == 'N' ? 1 : ld};
    dnnl_memory_desc_init_by_strides(md, 2, dims, t, strides);
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
        bmd = *wmd;
    else if (wmd_any) {
        dnnl_dims_t dims = {key->k, key->n};
        dnnl_memory_desc_init_by_tag(&bmd, 2, dims, b_type(key->dt), dnnl_format_tag_any);
    } else
        md_2d(&bmd, key->k, key->n, key->ldb, key->tb, b_type(key->dt));
    md_2d(&cmd, key->m, key->n, key->ldc, 'N', c_type(key->dt));
    dnnl_matmul_desc_t md;
    DNNL_TRY(dnnl_matmul_desc_init(&md, &amd, &bmd, NULL, &cmd), "matmul_desc_init");
    DNNL_TRY(dnnl_primitive_attr_create(&attr), "attr_create");
    if (key->alpha != 1.0f && key->dt != SB_DT_INT8)
        DNNL_TRY(dnnl_primitive_attr_set_output_scales(attr, 1, 0, &key->alpha), "output scales");
    if (key->beta != 0.0f) {
        DNNL_TRY(dnnl_post_ops_create(&po), "post_ops_create");
        DNNL_TRY(dnnl_post_ops_append_sum(po, key->beta), "append_sum");
        DNNL_TRY(dnnl_primitive_attr_set_post_ops(attr, po), "set_post_ops");
    }
    DNNL_TRY(dnnl_primitive_desc_create(pd, &md, attr, g_engine, NULL), "matmul primitive_desc");
out:
    if (po) dnnl_post_ops_destroy(po);
    if (attr) dnnl_primitive_attr_destroy(attr);
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
    dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl);
    if (!impl) impl = "?";
    /* some implementations ("gemm:jit") do not name their ISA: add the cap
     * oneDNN ran under, so a capped run shows it was capped */
    if (strstr(impl, "avx") || strstr(impl, "sse") || strstr(impl, "amx"))
        snprintf(tmp->impl, sizeof tmp->impl, "%s", impl);
    else
        snprintf(tmp->impl, sizeof tmp->impl, "%s (max isa %s)", impl, sb_onednn_effective_isa());
    dnnl_status_t st = dnnl_primitive_create(&tmp->prim, pd);
    dnnl_primitive_desc_destroy(pd);
    if (st != dnnl_success)
        return sb_errf(e, SB_EFAIL, "oneDNN: matmul primitive_create failed (%s)",
                       dnnl_status2str(st));
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
        dnnl_primitive_destroy(tmp->prim);
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
    dnnl_memory_t ma = NULL, mb = NULL, mc = NULL;
    dnnl_memory_desc_t amd, bmd, cmd;
    md_2d(&amd, d->m, d->k, d->lda, d->transa, a_type(dt));
    if (wmd)
        bmd = *wmd;
    else
        md_2d(&bmd, d->k, d->n, d->ldb, d->transb, b_type(dt));
    md_2d(&cmd, d->m, d->n, d->ldc, 'N', c_type(dt));
    DNNL_TRY(dnnl_memory_create(&ma, &amd, g_engine, (void *)A), "memory_create A");
    DNNL_TRY(dnnl_memory_create(&mb, &bmd, g_engine, (void *)B), "memory_create B");
    DNNL_TRY(dnnl_memory_create(&mc, &cmd, g_engine, C), "memory_create C");
    dnnl_exec_arg_t args[3] = {{DNNL_ARG_SRC, ma}, {DNNL_ARG_WEIGHTS, mb}, {DNNL_ARG_DST, mc}};
    DNNL_TRY(dnnl_primitive_execute(en->prim, tl_stream, 3, args), "matmul execute");
    DNNL_TRY(dnnl_stream_wait(tl_stream), "stream wait");
    if (dt != SB_DT_INT8)
        sb_gemm_add_bias(d, C);
    else
        sb_gemm_apply_dequant(d, C); /* not fused: after oneDNN's s32 C */
out:
    if (ma) dnnl_memory_destroy(ma);
    if (mb) dnnl_memory_destroy(mb);
    if (mc) dnnl_memory_destroy(mc);
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

/* ---- bf16 from f32 ----------------------------------------------------- */

/* The f32 entry of onednn-bf16 rounds A and B to bf16 (nearest even) into
 * per-thread buffers first, keeping their layout: the same work our bf16
 * kernels do while packing. */
static _Thread_local uint16_t *tl_bf_a, *tl_bf_b;
static _Thread_local size_t tl_bf_acap, tl_bf_bcap;

static uint16_t *to_bf16(const float *X, int rows, int cols, int ld, uint16_t **buf, size_t *cap,
                         int nt)
{
    size_t need = (size_t)(rows - 1) * ld + cols;
    if (need > *cap) {
        free(*buf);
        *buf = malloc(need * sizeof **buf);
        *cap = *buf ? need : 0;
        if (!*buf) return NULL;
    }
    uint16_t *o = *buf;
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1 && (size_t)rows * cols > 65536)
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++)
            o[(size_t)r * ld + c] = sb_f32_to_bf16(X[(size_t)r * ld + c]);
    return o;
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
    uint16_t *a = to_bf16(A, d->transa == 'N' ? d->m : d->k, d->transa == 'N' ? d->k : d->m, d->lda,
                          &tl_bf_a, &tl_bf_acap, nt);
    uint16_t *b = to_bf16(B, d->transb == 'N' ? d->k : d->n, d->transb == 'N' ? d->n : d->k, d->ldb,
                          &tl_bf_b, &tl_bf_bcap, nt);
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
    if (x) free(x->data);
    free(x);
}

static int pack_b(const sb_kernel *owner, sb_dtype dt, const sb_gemm_desc *d, const void *B,
                  sb_packed_b **out, sb_err *e)
{
    *out = NULL;
    int rc = ready(e);
    if (rc) return rc;
    sb_gemm_desc dd = *d;
    if (dd.m <= 0) dd.m = 1;
    if (dd.lda <= 0) dd.lda = dd.transa == 'N' ? dd.k : dd.m;
    if (dd.ldc <= 0) dd.ldc = dd.n;
    rc = sb_gemm_desc_check(&dd, e);
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
    dnnl_packed *pk = calloc(1, sizeof *pk);
    sb_packed_b *p = calloc(1, sizeof *p);
    if (!pk || !p) {
        rc = sb_errf(e, SB_EFAIL, "out of memory");
        goto out;
    }
    rc = make_pd(&key, NULL, 1, &pd, e);
    if (rc) goto out;
    pk->wmd = *dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
    size_t sz = dnnl_memory_desc_get_size(&pk->wmd);
    pk->data = aligned_alloc(64, (sz + 63) / 64 * 64);
    if (!pk->data) {
        rc = sb_errf(e, SB_EFAIL, "out of memory for packed weights");
        goto out;
    }
    /* f32 -> bf16 happens inside the reorder for onednn-bf16 */
    dnnl_memory_desc_t smd;
    md_2d(&smd, dd.k, dd.n, dd.ldb, dd.transb, dt == SB_DT_INT8 ? dnnl_s8 : dnnl_f32);
    DNNL_TRY(dnnl_reorder_primitive_desc_create(&rpd, &smd, g_engine, &pk->wmd, g_engine, NULL),
             "weights reorder primitive_desc");
    DNNL_TRY(dnnl_primitive_create(&reorder, rpd), "weights reorder primitive");
    DNNL_TRY(dnnl_memory_create(&msrc, &smd, g_engine, (void *)B), "memory_create B");
    DNNL_TRY(dnnl_memory_create(&mdst, &pk->wmd, g_engine, pk->data), "memory_create packed");
    dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, msrc}, {DNNL_ARG_TO, mdst}};
    DNNL_TRY(dnnl_primitive_execute(reorder, tl_stream, 2, args), "weights reorder");
    DNNL_TRY(dnnl_stream_wait(tl_stream), "stream wait");
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
    if (msrc) dnnl_memory_destroy(msrc);
    if (mdst) dnnl_memory_destroy(mdst);
    if (reorder) dnnl_primitive_destroy(reorder);
    if (rpd) dnnl_primitive_desc_destroy(rpd);
    if (pd) dnnl_primitive_desc_destroy(pd);
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
        a = to_bf16(A, d->transa == 'N' ? d->m : d->k, d->transa == 'N' ? d->k : d->m, d->lda,
                    &tl_bf_a, &tl_bf_acap, nt);
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
