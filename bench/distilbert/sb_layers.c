#include "sb_layers.h"
#include "sb_layers_int.h"
#include <immintrin.h>
#include "sb_cpu.h"
#include "sb_gelu.h"
#include "sb_vmath_avx2.h"
#include "sb_vmath_avx512.h"
#include <math.h>
#include <omp.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>


/* Element-wise work (GELU, softmax, dropout masks, LayerNorm, bias sums)
 * has AVX-512 and AVX2 + FMA paths, intrinsics or omp simd bodies compiled
 * for that target, chosen at run time (sb_layers_level), because the library
 * is built for baseline x86-64, where gcc leaves these loops scalar or at
 * most 4 wide; the scalar path computes the same formulas. */

static int g_level = SB_LAYERS_AUTO;

int sb_layers_best_level(void)
{
    /* the levels are sb_cpu's: 0 scalar, 1 AVX2, 2 AVX-512 */
    return sb_cpu_vector_level();
}

int sb_layers_set_level(int level)
{
    int best = sb_layers_best_level();
    g_level = level < 0 || level > best ? best : level;
    return g_level;
}

int sb_layers_level(void)
{
    /* Resolved on first use, outside the parallel loops: each public entry
     * reads it once and hands it down. */
    if (g_level < 0) g_level = sb_layers_best_level();
    return g_level;
}

const sb_kernel *sb_layers_default_kernel(void)
{
    /* Fastest first: our AVX-512 kernel, then our AVX2 one (at or above oneDNN
     * held to AVX2), oneDNN, and the scalar reference, which runs anywhere. */
    static const char *const prefs[] = {"avx512-f32", "avx2-f32", "onednn-f32", "scalar-f32"};
    for (size_t i = 0; i < sizeof prefs / sizeof *prefs; i++) {
        const sb_kernel *k = sb_kernel_find(prefs[i]);
        char why[256];
        if (k && k->probe(why, sizeof why)) return k;
    }
    return sb_kernel_find("scalar-f32");
}

const char *sb_layers_level_name(int level)
{
    switch (level) {
    case SB_LAYERS_AVX512: return "avx512";
    case SB_LAYERS_AVX2: return "avx2";
    case SB_LAYERS_SCALAR: return "scalar";
    default: return "?";
    }
}

const char *sb_layers_isa(void) { return sb_layers_level_name(sb_layers_level()); }


int sb_matmul(const sb_lctx *c, char ta, char tb, int m, int n, int k, float alpha, const float *A,
              int lda, const float *B, int ldb, float beta, float *C, int ldc, int threads,
              sb_err *e)
{
    sb_gemm_desc d = {.transa = ta,
                      .transb = tb,
                      .m = m,
                      .n = n,
                      .k = k,
                      .lda = lda,
                      .ldb = ldb,
                      .ldc = ldc,
                      .alpha = alpha,
                      .beta = beta,
                      .threads = threads};
    return c->kernel->gemm_f32(&d, A, B, C, e);
}

/* ---- per-product timing (train --profile) */
const char *const sb_mm_names[SB_MM_N] = {
    "qkv fwd",   "qkv dx",  "qkv dW",  "out fwd",  "out dx",  "out dW",
    "lin1 fwd",  "lin1 dx", "lin1 dW", "lin2 fwd", "lin2 dx", "lin2 dW",
    "attn QK^T", "attn PV", "attn dV", "attn dP",  "attn dQ", "attn dK",
};
const char *const sb_mm_ops[SB_MM_N] = {"NT", "NN", "TN", "NT", "NN", "TN", "NT", "NN", "TN",
                                        "NT", "NN", "TN", "NT", "NN", "TN", "NT", "NN", "TN"};

double sb_layers_mm_t0(const sb_lctx *c) { return c->mm_prof ? omp_get_wtime() : 0; }

/* One product's call ended: its seconds times the threads it ran on into
 * slot (attention calls one per head from inside the heads' loop, hence
 * the critical section). */
void sb_layers_mm_note(const sb_lctx *c, int slot, int m, int n, int k, int threads, double t0)
{
    sb_mm_prof *p = c->mm_prof;
    if (!p || slot < 0 || slot >= SB_MM_N) return;
    double dt = (omp_get_wtime() - t0) * threads;
#pragma omp critical(sb_mm_prof)
    {
        p->calls[slot]++;
        p->core_s[slot] += dt;
        p->flop[slot] += 2.0 * m * n * k;
        p->m[slot] += m;
        p->n[slot] += n;
        p->k[slot] += k;
    }
}

/* The slot of a linear's product op (0 forward, 1 dx, 2 dW); -1: not timed. */
static int mm_lin(const sb_lctx *c, int op)
{
    return c->mm_prof && c->mm_prof->linear >= 0 ? c->mm_prof->linear + op : -1;
}

/* ---- random numbers: splitmix64's finaliser over (key + index * golden). */
static inline uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* The counter-based stream: number `index` of stream `key`. Dropout masks
 * (16 bits of one number per four elements) and the uniform/normal draws all
 * come from it. */
static inline uint64_t rng_at(uint64_t key, uint64_t index)
{
    return mix64(key + (index + 1) * 0x9E3779B97F4A7C15ULL);
}

uint64_t sb_rng_key(uint64_t seed, uint64_t stream)
{
    return mix64(mix64(seed + 0x9E3779B97F4A7C15ULL) ^ (stream * 0xD1B54A32D192ED03ULL + 1));
}

float sb_rng_uniform(uint64_t key, uint64_t index)
{
    return (float)(rng_at(key, index) >> 40) * 0x1p-24f;
}

float sb_rng_normal(uint64_t key, uint64_t index)
{
    uint64_t r = rng_at(key, index);
    double u1 = ((double)(r >> 11) + 0.5) * 0x1p-53;
    double u2 = (double)(mix64(r ^ 0x5851F42D4C957F2DULL) >> 11) * 0x1p-53;
    return (float)(sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2));
}

/* ---- embedding */
void sb_embedding_forward(float *out, const int32_t *ids, const float *wte, const float *wpe, int B,
                          int S, int D, int threads)
{
#pragma omp parallel for schedule(static) num_threads(NT(threads))
    for (long t = 0; t < (long)B * S; t++) {
        const float *w = wte + (size_t)ids[t] * D, *p = wpe + (size_t)(t % S) * D;
        float *o = out + (size_t)t * D;
        for (int j = 0; j < D; j++) o[j] = w[j] + p[j];
    }
}

void sb_embedding_backward(float *dwte, float *dwpe, const float *dout, const int32_t *ids, int B,
                           int S, int D, int pad_id, int threads)
{
/* Split by columns: repeated ids then never race and no atomics are needed. */
#pragma omp parallel num_threads(NT(threads))
    {
        int nt = omp_get_num_threads(), me = omp_get_thread_num();
        int j0 = (int)((long)D * me / nt), j1 = (int)((long)D * (me + 1) / nt);
        for (long t = 0; t < (long)B * S; t++) {
            const float *d = dout + (size_t)t * D;
            float *p = dwpe + (size_t)(t % S) * D;
            for (int j = j0; j < j1; j++) p[j] += d[j];
            if (ids[t] == pad_id) continue;
            float *w = dwte + (size_t)ids[t] * D;
            for (int j = j0; j < j1; j++) w[j] += d[j];
        }
    }
}

/* ---- layernorm */
/* One row each; the bodies are compiled three times, for baseline x86-64,
 * AVX2 + FMA and AVX-512 (the library is built for the baseline, where these
 * loops get SSE). */
#define SB_LN_FWD_ROW(name, attr)                                                                \
    attr static void name(float *yi, float *mean, float *rstd, const float *xi, const float *g,  \
                          const float *b, int D, float eps)                                      \
    {                                                                                            \
        float s = 0;                                                                             \
        _Pragma("omp simd reduction(+ : s)") for (int j = 0; j < D; j++) s += xi[j];             \
        float mu = s / D, v = 0;                                                                 \
        _Pragma("omp simd reduction(+ : v)") for (int j = 0; j < D; j++)                         \
            v += (xi[j] - mu) * (xi[j] - mu);                                                    \
        float rs = 1.0f / sqrtf(v / D + eps);                                                    \
        _Pragma("omp simd") for (int j = 0; j < D; j++) yi[j] = (xi[j] - mu) * rs * g[j] + b[j]; \
        *mean = mu;                                                                              \
        *rstd = rs;                                                                              \
    }
SB_LN_FWD_ROW(ln_fwd_row, )
SB_LN_FWD_ROW(ln_fwd_row_avx2, SB_AVX2)
SB_LN_FWD_ROW(ln_fwd_row_avx512, SB_AVX512)

#define SB_LN_BWD_ROW(name, attr)                                                              \
    attr static void name(float *dxi, float *pg, float *pb, const float *dyi, const float *xi, \
                          float mu, float rs, const float *g, int D)                           \
    {                                                                                          \
        float s1 = 0, s2 = 0;                                                                  \
        _Pragma("omp simd reduction(+ : s1, s2)") for (int j = 0; j < D; j++)                  \
        {                                                                                      \
            float xh = (xi[j] - mu) * rs, dxh = dyi[j] * g[j];                                 \
            pg[j] += dyi[j] * xh;                                                              \
            pb[j] += dyi[j];                                                                   \
            s1 += dxh;                                                                         \
            s2 += dxh * xh;                                                                    \
        }                                                                                      \
        s1 /= D;                                                                               \
        s2 /= D;                                                                               \
        _Pragma("omp simd") for (int j = 0; j < D; j++)                                        \
        {                                                                                      \
            float xh = (xi[j] - mu) * rs;                                                      \
            dxi[j] = rs * (dyi[j] * g[j] - s1 - xh * s2);                                      \
        }                                                                                      \
    }
SB_LN_BWD_ROW(ln_bwd_row, )
SB_LN_BWD_ROW(ln_bwd_row_avx2, SB_AVX2)
SB_LN_BWD_ROW(ln_bwd_row_avx512, SB_AVX512)

typedef void (*ln_fwd_fn)(float *, float *, float *, const float *, const float *, const float *,
                          int, float);
typedef void (*ln_bwd_fn)(float *, float *, float *, const float *, const float *, float, float,
                          const float *, int);

void sb_layernorm_forward(float *y, float *mean, float *rstd, const float *x, const float *g,
                          const float *b, int N, int D, float eps, int threads)
{
    int lvl = sb_layers_level();
    ln_fwd_fn row = lvl == SB_LAYERS_AVX512 ? ln_fwd_row_avx512
        : lvl == SB_LAYERS_AVX2             ? ln_fwd_row_avx2
                                            : ln_fwd_row;
#pragma omp parallel for schedule(static) num_threads(NT(threads))
    for (int i = 0; i < N; i++)
        row(y + (size_t)i * D, mean + i, rstd + i, x + (size_t)i * D, g, b, D, eps);
}

void sb_layernorm_backward(float *dx, float *dg, float *db, const float *dy, const float *x,
                           const float *mean, const float *rstd, const float *g, int N, int D,
                           int threads)
{
    int nt = NT(threads), lvl = sb_layers_level();
    ln_bwd_fn row = lvl == SB_LAYERS_AVX512 ? ln_bwd_row_avx512
        : lvl == SB_LAYERS_AVX2             ? ln_bwd_row_avx2
                                            : ln_bwd_row;
    float *part = calloc((size_t)nt * 2 * D, sizeof(float));
#pragma omp parallel num_threads(nt)
    {
        float *pg = part + (size_t)omp_get_thread_num() * 2 * D, *pb = pg + D;
#pragma omp for schedule(static)
        for (int i = 0; i < N; i++)
            row(dx + (size_t)i * D, pg, pb, dy + (size_t)i * D, x + (size_t)i * D, mean[i], rstd[i],
                g, D);
    }
    for (int j = 0; j < D; j++) {
        float sg = 0, sb = 0;
        for (int t = 0; t < nt; t++) {
            sg += part[(size_t)t * 2 * D + j];
            sb += part[(size_t)t * 2 * D + D + j];
        }
        dg[j] = sg;
        db[j] = sb;
    }
    free(part);
}

/* ---- linear */
int sb_linear_gelu_forward(const sb_lctx *c, float *y, const float *x, float *tmp, const float *W,
                           const float *b, int N, int in, int out, sb_err *e)
{
    if (c->linear_gelu) return c->linear_gelu(c->linear_user, y, x, tmp, W, b, N, in, out, e);
    sb_gelu_forward(tmp, x, (size_t)N * in, c->threads);
    return sb_linear_forward(c, y, tmp, W, b, N, in, out, e);
}

int sb_linear_forward(const sb_lctx *c, float *y, const float *x, const float *W, const float *b,
                      int N, int in, int out, sb_err *e)
{
    if (c->linear) return c->linear(c->linear_user, y, x, W, b, N, in, out, e);
    /* The bias rides on the GEMM: added to each C tile as the kernel writes
     * it, no pass over y of its own. */
    sb_gemm_desc d = {.transa = 'N',
                      .transb = 'T',
                      .m = N,
                      .n = out,
                      .k = in,
                      .lda = in,
                      .ldb = in,
                      .ldc = out,
                      .alpha = 1.0f,
                      .beta = 0.0f,
                      .threads = c->threads,
                      .bias = b};
    double t0 = sb_layers_mm_t0(c);
    int rc = c->kernel->gemm_f32(&d, x, W, y, e);
    sb_layers_mm_note(c, mm_lin(c, 0), N, out, in, NT(c->threads), t0);
    return rc;
}

/* p[j] += r[j], baseline, AVX2 and AVX-512 builds */
#define SB_ADD_ROW(name, attr)                                        \
    attr static void name(float *p, const float *r, int n)            \
    {                                                                 \
        _Pragma("omp simd") for (int j = 0; j < n; j++) p[j] += r[j]; \
    }
SB_ADD_ROW(add_row, )
SB_ADD_ROW(add_row_avx2, SB_AVX2)
SB_ADD_ROW(add_row_avx512, SB_AVX512)

/* db[out] = column sums of dy[N,out], per-thread partials so no atomics. */
static void colsum(float *db, const float *dy, int N, int out, int threads)
{
    int nt = NT(threads), lvl = sb_layers_level();
    void (*add)(float *, const float *, int) = lvl == SB_LAYERS_AVX512 ? add_row_avx512
        : lvl == SB_LAYERS_AVX2                                        ? add_row_avx2
                                                                       : add_row;
    float *part = calloc((size_t)nt * out, sizeof(float));
#pragma omp parallel num_threads(nt)
    {
        float *p = part + (size_t)omp_get_thread_num() * out;
#pragma omp for schedule(static)
        for (int i = 0; i < N; i++) add(p, dy + (size_t)i * out, out);
    }
    for (int j = 0; j < out; j++) {
        float s = 0;
        for (int t = 0; t < nt; t++) s += part[(size_t)t * out + j];
        db[j] = s;
    }
    free(part);
}

int sb_linear_backward(const sb_lctx *c, float *dx, float dx_beta, float *dW, float *db,
                       const float *dy, const float *x, const float *W, int N, int in, int out,
                       sb_err *e)
{
    int rc, nt = NT(c->threads);
    /* dW[out,in] = dy^T x */
    double t0 = sb_layers_mm_t0(c);
    if ((rc = sb_matmul(c, 'T', 'N', out, in, N, 1.0f, dy, out, x, in, 0.0f, dW, in, c->threads,
                        e)))
        return rc;
    sb_layers_mm_note(c, mm_lin(c, 2), out, in, N, nt, t0);
    colsum(db, dy, N, out, c->threads);
    if (dx) {
        t0 = sb_layers_mm_t0(c);
        rc = sb_matmul(c, 'N', 'N', N, in, out, 1.0f, dy, out, W, in, dx_beta, dx, in, c->threads,
                       e);
        sb_layers_mm_note(c, mm_lin(c, 1), N, in, out, nt, t0);
    }
    return rc;
}

/* ---- gelu: kernels/sb_gelu.h, chunked over the threads */
#define SB_CHUNK 4096
void sb_gelu_forward(float *y, const float *x, size_t n, int threads)
{
    int lvl = sb_layers_level();
#pragma omp parallel for schedule(static) num_threads(NT(threads))
    for (size_t c = 0; c < n; c += SB_CHUNK)
        sb_gelu_fwd(lvl, y + c, x + c, n - c < SB_CHUNK ? n - c : SB_CHUNK);
}

void sb_gelu_row(float *y, const float *x, size_t n) { sb_gelu_fwd(sb_layers_level(), y, x, n); }

void sb_gelu_forward_grad(float *y, float *g, const float *x, size_t n, int threads)
{
    int lvl = sb_layers_level();
#pragma omp parallel for schedule(static) num_threads(NT(threads))
    for (size_t c = 0; c < n; c += SB_CHUNK)
        sb_gelu_fwd_grad(lvl, y + c, g + c, x + c, n - c < SB_CHUNK ? n - c : SB_CHUNK);
}

SB_AVX512 static void mul_avx512(float *y, const float *x, size_t n)
{
    _Pragma("omp simd") for (size_t i = 0; i < n; i++) y[i] *= x[i];
}
SB_AVX2 static void mul_avx2(float *y, const float *x, size_t n)
{
    _Pragma("omp simd") for (size_t i = 0; i < n; i++) y[i] *= x[i];
}

void sb_mul_inplace(float *y, const float *x, size_t n, int threads)
{
    int lvl = sb_layers_level();
#pragma omp parallel for schedule(static) num_threads(NT(threads))
    for (size_t c = 0; c < n; c += SB_CHUNK) {
        size_t m = n - c < SB_CHUNK ? n - c : SB_CHUNK;
        if (lvl == SB_LAYERS_AVX512)
            mul_avx512(y + c, x + c, m);
        else if (lvl == SB_LAYERS_AVX2)
            mul_avx2(y + c, x + c, m);
        else
            for (size_t i = 0; i < m; i++) y[c + i] *= x[c + i];
    }
}

void sb_gelu_backward(float *dx, const float *dy, const float *x, size_t n, int threads)
{
    int lvl = sb_layers_level();
#pragma omp parallel for schedule(static) num_threads(NT(threads))
    for (size_t c = 0; c < n; c += SB_CHUNK)
        sb_gelu_bwd(lvl, dx + c, dy + c, x + c, n - c < SB_CHUNK ? n - c : SB_CHUNK);
}

/* ---- dropout */
/* Element e is kept iff 16-bit word (e % 4) of hash(key, e / 4) is
 * >= p * 65536: one hash serves four elements. The masks are made as bit
 * words (bit j of a run <-> element first + j); element-wise code then only
 * tests bits, and attention stores its bits for backward. Every level below
 * computes the same hash in exact integer arithmetic, so a run's masks do
 * not depend on the CPU. */

/* Keep bits of the 32 elements 4*g0 .. 4*g0+31 (groups g0 .. g0+7): the
 * reference the vector levels reproduce. */
static inline uint32_t keep32_scalar(uint64_t key, uint64_t g0, uint32_t thr)
{
    uint32_t w = 0;
    for (unsigned i = 0; i < 8; i++) {
        uint64_t h = rng_at(key, g0 + i);
        for (unsigned q = 0; q < 4; q++)
            w |= (uint32_t)(((h >> (16 * q)) & 0xffffu) >= thr) << (4 * i + q);
    }
    return w;
}

/* rng_at for groups g0..g0+7, eight lanes at once, whose 32 16-bit words are
 * in element order. */
SB_AVX512 static inline uint32_t keep32_avx512(uint64_t key, uint64_t g0, uint32_t thr)
{
    const __m512i seq8 = _mm512_setr_epi64(1, 2, 3, 4, 5, 6, 7, 8);
    __m512i g = _mm512_add_epi64(_mm512_set1_epi64((long long)g0), seq8);
    __m512i z = _mm512_add_epi64(
        _mm512_set1_epi64((long long)key),
        _mm512_mullo_epi64(g, _mm512_set1_epi64((long long)0x9E3779B97F4A7C15ULL)));
    z = _mm512_mullo_epi64(_mm512_xor_si512(z, _mm512_srli_epi64(z, 30)),
                           _mm512_set1_epi64((long long)0xBF58476D1CE4E5B9ULL));
    z = _mm512_mullo_epi64(_mm512_xor_si512(z, _mm512_srli_epi64(z, 27)),
                           _mm512_set1_epi64((long long)0x94D049BB133111EBULL));
    z = _mm512_xor_si512(z, _mm512_srli_epi64(z, 31));
    return (uint32_t)_mm512_cmpge_epu16_mask(z, _mm512_set1_epi16((short)thr));
}

/* a * b mod 2^64 per 64-bit lane, b a constant: AVX2 multiplies only 32 x 32
 * -> 64, so the product is lo(a) lo(b) + (lo(a) hi(b) + hi(a) lo(b)) << 32. */
SB_AVX2 static inline __m256i mul64c(__m256i a, uint64_t b)
{
    const __m256i blo = _mm256_set1_epi64x((long long)(b & 0xffffffffu));
    const __m256i bhi = _mm256_set1_epi64x((long long)(b >> 32));
    __m256i cross = _mm256_add_epi64(_mm256_mul_epu32(a, bhi),
                                     _mm256_mul_epu32(_mm256_srli_epi64(a, 32), blo));
    return _mm256_add_epi64(_mm256_mul_epu32(a, blo), _mm256_slli_epi64(cross, 32));
}

/* mix64 of four lanes */
SB_AVX2 static inline __m256i mix64x4(__m256i z)
{
    z = mul64c(_mm256_xor_si256(z, _mm256_srli_epi64(z, 30)), 0xBF58476D1CE4E5B9ULL);
    z = mul64c(_mm256_xor_si256(z, _mm256_srli_epi64(z, 27)), 0x94D049BB133111EBULL);
    return _mm256_xor_si256(z, _mm256_srli_epi64(z, 31));
}

/* The same 32 keep bits as keep32_scalar, four groups per vector. */
SB_AVX2 static inline uint32_t keep32_avx2(uint64_t key, uint64_t g0, uint32_t thr)
{
    const uint64_t gold = 0x9E3779B97F4A7C15ULL;
    /* key + (g + 1) gold for g = g0 .. g0+7, by exact wrap-around steps of gold */
    __m256i z0 = _mm256_add_epi64(
        _mm256_set1_epi64x((long long)(key + (g0 + 1) * gold)),
        _mm256_setr_epi64x(0, (long long)gold, (long long)(2 * gold), (long long)(3 * gold)));
    __m256i z1 = _mm256_add_epi64(z0, _mm256_set1_epi64x((long long)(4 * gold)));
    z0 = mix64x4(z0);
    z1 = mix64x4(z1);
    /* word >= thr (unsigned) iff max(word, thr) == word */
    const __m256i t = _mm256_set1_epi16((short)thr);
    __m256i c0 = _mm256_cmpeq_epi16(_mm256_max_epu16(z0, t), z0);
    __m256i c1 = _mm256_cmpeq_epi16(_mm256_max_epu16(z1, t), z1);
    /* 16-bit lanes to bytes; packs interleaves the 128-bit halves
     * (c0 lo, c1 lo, c0 hi, c1 hi), the permute puts them back in order */
    __m256i b = _mm256_permute4x64_epi64(_mm256_packs_epi16(c0, c1), 0xD8);
    return (uint32_t)_mm256_movemask_epi8(b);
}

/* w[(n+31)/32] = keep bits of elements first .. first+n-1 (bits past n
 * zero), one body per level around its 32-bit block. */
#define SB_KEEP_BITS(name, attr, keep32)                                                     \
    attr static void name(uint32_t *w, size_t n, uint32_t thr, uint64_t key, uint64_t first) \
    {                                                                                        \
        unsigned r = (unsigned)(first & 3);                                                  \
        uint64_t g = first >> 2;                                                             \
        size_t nw = (n + 31) / 32;                                                           \
        if (!r) {                                                                            \
            for (size_t i = 0; i < nw; i++, g += 8) w[i] = keep32(key, g, thr);              \
        } else {                                                                             \
            /* first not on a group boundary: shift the aligned words down by r */           \
            uint32_t lo = keep32(key, g, thr);                                               \
            for (size_t i = 0; i < nw; i++) {                                                \
                g += 8;                                                                      \
                uint32_t hi = keep32(key, g, thr);                                           \
                w[i] = (lo >> r) | (hi << (32 - r));                                         \
                lo = hi;                                                                     \
            }                                                                                \
        }                                                                                    \
        if (n % 32) w[nw - 1] &= (1u << (n % 32)) - 1;                                       \
    }
SB_KEEP_BITS(keep_bits_scalar, , keep32_scalar)
SB_KEEP_BITS(keep_bits_avx2, SB_AVX2, keep32_avx2)
SB_KEEP_BITS(keep_bits_avx512, SB_AVX512, keep32_avx512)

void sb_layers_keep_bits(int lvl, uint32_t *w, size_t n, uint32_t thr, uint64_t key, uint64_t first)
{
    if (!n) return;
    if (thr > 0xffffu) { /* p rounds to 1: nothing kept */
        memset(w, 0, (n + 31) / 32 * sizeof *w);
        return;
    }
    if (lvl == SB_LAYERS_AVX512)
        keep_bits_avx512(w, n, thr, key, first);
    else if (lvl == SB_LAYERS_AVX2)
        keep_bits_avx2(w, n, thr, key, first);
    else
        keep_bits_scalar(w, n, thr, key, first);
}

/* y[j] = bit j ? x[j] * scale : 0 */
SB_AVX512 static void apply_bits_avx512(float *y, const float *x, const uint32_t *w, size_t n,
                                        float scale)
{
    __m512 s = _mm512_set1_ps(scale);
    for (size_t i = 0; i < n; i += 16) {
        __mmask16 k = tailmask(n - i);
        __mmask16 keep = (__mmask16)(w[i / 32] >> (i % 32)) & k;
        _mm512_mask_storeu_ps(y + i, k,
                              _mm512_maskz_mul_ps(keep, _mm512_maskz_loadu_ps(k, x + i), s));
    }
}

SB_AVX2 static void apply_bits_avx2(float *y, const float *x, const uint32_t *w, size_t n,
                                    float scale)
{
    __m256 s = _mm256_set1_ps(scale);
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps(
            y + i,
            _mm256_and_ps(_mm256_mul_ps(_mm256_loadu_ps(x + i), s), bits8(w[i / 32] >> (i % 32))));
    if (i < n) {
        __m256i k = tail8(n - i);
        __m256 v = _mm256_mul_ps(_mm256_maskload_ps(x + i, k), s);
        _mm256_maskstore_ps(y + i, k, _mm256_and_ps(v, bits8(w[i / 32] >> (i % 32))));
    }
}

void sb_layers_apply_bits(int lvl, float *y, const float *x, const uint32_t *w, size_t n, float scale)
{
    if (lvl == SB_LAYERS_AVX512) {
        apply_bits_avx512(y, x, w, n, scale);
        return;
    }
    if (lvl == SB_LAYERS_AVX2) {
        apply_bits_avx2(y, x, w, n, scale);
        return;
    }
    for (size_t j = 0; j < n; j++) y[j] = (w[j / 32] >> (j % 32)) & 1 ? x[j] * scale : 0.0f;
}

uint32_t sb_layers_drop_threshold(float p) { return (uint32_t)(p * 65536.0f + 0.5f); }

static void dropout_chunk(int lvl, float *y, const float *x, size_t n, uint32_t thr, float scale,
                          uint64_t key, uint64_t first)
{
    uint32_t w[SB_CHUNK / 32];
    for (size_t i = 0; i < n; i += SB_CHUNK) {
        size_t len = n - i < SB_CHUNK ? n - i : SB_CHUNK;
        sb_layers_keep_bits(lvl, w, len, thr, key, first + i);
        sb_layers_apply_bits(lvl, y + i, x + i, w, len, scale);
    }
}

static void dropout_apply(float *y, const float *x, size_t n, float p, uint64_t key,
                          uint64_t offset, int threads)
{
    if (p <= 0.0f) {
        if (y != x) memcpy(y, x, n * sizeof(float));
        return;
    }
    float scale = 1.0f / (1.0f - p);
    uint32_t thr = sb_layers_drop_threshold(p);
    int lvl = sb_layers_level();
    if (threads == 1 || n < 2 * SB_CHUNK) {
        dropout_chunk(lvl, y, x, n, thr, scale, key, offset);
        return;
    }
#pragma omp parallel for schedule(static) num_threads(NT(threads))
    for (size_t c = 0; c < n; c += SB_CHUNK)
        dropout_chunk(lvl, y + c, x + c, n - c < SB_CHUNK ? n - c : SB_CHUNK, thr, scale, key,
                      offset + c);
}

void sb_dropout_forward(float *y, const float *x, size_t n, float p, uint64_t key, uint64_t offset,
                        int threads)
{
    dropout_apply(y, x, n, p, key, offset, threads);
}

void sb_dropout_backward(float *dx, const float *dy, size_t n, float p, uint64_t key,
                         uint64_t offset, int threads)
{
    dropout_apply(dx, dy, n, p, key, offset, threads);
}

/* ---- QA loss */
static double ce_one(float *dl, const float *logits, int S, int target, double weight)
{
    /* logits and dl are strided by 2 (start/end interleaved). */
    double mx = -INFINITY, sum = 0;
    for (int s = 0; s < S; s++)
        if (logits[2 * s] > mx) mx = logits[2 * s];
    for (int s = 0; s < S; s++) sum += exp(logits[2 * s] - mx);
    double lse = mx + log(sum);
    if (dl)
        for (int s = 0; s < S; s++)
            dl[2 * s] = (float)(weight * (exp(logits[2 * s] - lse) - (s == target)));
    return lse - logits[2 * target];
}

double sb_qa_loss(float *dlogits, const float *logits, const int32_t *start, const int32_t *end,
                  int B, int S)
{
    double total = 0;
    for (int which = 0; which < 2; which++) {
        const int32_t *pos = which ? end : start;
        int count = 0;
        for (int b = 0; b < B; b++) {
            int p = pos[b] < 0 ? 0 : pos[b];
            if (p < S) count++;
        }
        double sum = 0;
        for (int b = 0; b < B; b++) {
            int p = pos[b] < 0 ? 0 : pos[b];
            float *dl = dlogits ? dlogits + (size_t)b * S * 2 + which : NULL;
            if (p >= S) {
                if (dl)
                    for (int s = 0; s < S; s++) dl[2 * s] = 0;
                continue;
            }
            sum += ce_one(dl, logits + (size_t)b * S * 2 + which, S, p, 0.5 / count);
        }
        /* All targets ignored: torch gives NaN; a zero contribution keeps
         * training going on a batch with no answer in its window. */
        if (count) total += 0.5 * sum / count;
    }
    return total;
}
