#include "sb_quant.h"
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <immintrin.h>
#include "sb_layers.h"

#define NT(t) ((t) > 0 ? (t) : omp_get_max_threads())

int sb_qlinear_init(sb_qlinear *q, const sb_kernel *k, const float *W, const float *bias, int in,
                    int out, int threads, const char *layer, sb_err *e)
{
    memset(q, 0, sizeof *q);
    if (!k || k->dtype != SB_DT_INT8 || !k->gemm_u8s8)
        return sb_errf(e, SB_EUSAGE, "%s: kernel %s cannot run a quantised layer (not int8)", layer,
                       k ? k->name : "(none)");
    if (in < 1 || out < 1)
        return sb_errf(e, SB_EUSAGE, "%s: cannot quantise a %dx%d layer", layer, out, in);
    /* u8 x s8 sums of `in` terms must stay exact in s32 with the zero-point
     * correction: 255 * 127 * in * 2 < 2^31 */
    if (in > 32768)
        return sb_errf(e, SB_EUSAGE,
                       "%s: %d inputs is more than an int8 layer sums exactly "
                       "(32768 at most)",
                       layer, in);
    q->in = in;
    q->out = out;
    q->bias = bias;
    q->kernel = k;
    q->wq = malloc((size_t)in * out);
    q->w_scale = malloc(sizeof(float) * (size_t)out);
    q->colsum = malloc(sizeof(int32_t) * (size_t)out);
    if (!q->wq || !q->w_scale || !q->colsum) {
        sb_qlinear_free(q);
        return sb_errf(e, SB_EFAIL, "%s: out of memory quantising %dx%d", layer, out, in);
    }
    int bad_row = -1;
#pragma omp parallel for schedule(static) num_threads(NT(threads))
    for (int j = 0; j < out; j++) {
        const float *w = W + (size_t)j * in;
        float amax = 0;
        int finite = 1;
        for (int p = 0; p < in; p++) {
            if (!isfinite(w[p])) finite = 0;
            float a = fabsf(w[p]);
            if (a > amax) amax = a;
        }
        if (!finite) {
#pragma omp critical(sb_quant_bad)
            if (bad_row < 0 || j < bad_row) bad_row = j;
            continue;
        }
        float s = amax > 0 ? amax / 127.0f : 1.0f;
        float inv = 1.0f / s;
        int32_t sum = 0;
        int8_t *o = q->wq + (size_t)j * in;
        for (int p = 0; p < in; p++) {
            float r = nearbyintf(w[p] * inv);
            r = r > 127 ? 127 : r < -127 ? -127 : r;
            o[p] = (int8_t)r;
            sum += o[p];
        }
        q->w_scale[j] = s;
        q->colsum[j] = sum;
    }
    if (bad_row >= 0) {
        sb_qlinear_free(q);
        return sb_errf(e, SB_EUSAGE, "%s: weight row %d holds NaN or Inf; cannot quantise it",
                       layer, bad_row);
    }
    if (k->pack_b) {
        /* B = wq^T: stored [out,in], so op(B) = B^T with ldb = in */
        sb_gemm_desc d = {.transa = 'N',
                          .transb = 'T',
                          .m = 1,
                          .n = out,
                          .k = in,
                          .lda = in,
                          .ldb = in,
                          .ldc = out,
                          .alpha = 1,
                          .beta = 0,
                          .threads = threads};
        int rc = k->pack_b(&d, q->wq, &q->packed, e);
        if (rc) {
            sb_qlinear_free(q);
            return rc;
        }
    }
    return SB_OK;
}

void sb_qlinear_free(sb_qlinear *q)
{
    if (!q) return;
    sb_packed_b_free(q->packed);
    free(q->wq);
    free(q->w_scale);
    free(q->colsum);
    memset(q, 0, sizeof *q);
}

/* scale and zero point of the range [lo, hi] (which holds 0) onto 0..qmax
 * (255, or 127 for 7-bit activations) */
static void qparams(float lo, float hi, int qmax, float *scale, int32_t *zp)
{
    if (lo > 0) lo = 0;
    if (hi < 0) hi = 0;
    float s = (hi - lo) / (float)qmax;
    if (!(s > 0) || !isfinite(1.0f / s)) {
        *scale = 1.0f;
        *zp = 0;
        return;
    }
    float z = nearbyintf(-lo / s);
    *scale = s;
    *zp = z < 0 ? 0 : z > qmax ? qmax : (int32_t)z;
}

static void quant_row(const float *x, int in, float s, int32_t zp, int qmax, uint8_t *o)
{
    float inv = 1.0f / s, fz = (float)zp;
    for (int p = 0; p < in; p++) {
        float r = nearbyintf(x[p] * inv) + fz;
        r = r < 0 ? 0 : r > qmax ? (float)qmax : r;
        o[p] = (uint8_t)r;
    }
}

/* The same two loops for AVX-512 and AVX2 (the level sb_layers runs at, so
 * SB_FORCE_NO_* reach them too). Identical results: the product x * (1/s)
 * rounded to nearest even, plus the zero point, clamped to [0, qmax]. */
#define SB_Q_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq")))
#define SB_Q_AVX2 __attribute__((target("avx2")))

SB_Q_AVX512 static void quant_row_avx512(const float *x, int in, float s, int32_t zp, int qmax,
                                         uint8_t *o)
{
    __m512 inv = _mm512_set1_ps(1.0f / s);
    __m512i z = _mm512_set1_epi32(zp), lo = _mm512_setzero_si512(), hi = _mm512_set1_epi32(qmax);
    for (int p = 0; p < in; p += 16) {
        __mmask16 m = in - p >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << (in - p)) - 1);
        __m512i r = _mm512_cvtps_epi32(_mm512_mul_ps(_mm512_maskz_loadu_ps(m, x + p), inv));
        r = _mm512_min_epi32(_mm512_max_epi32(_mm512_add_epi32(r, z), lo), hi);
        _mm_mask_storeu_epi8(o + p, m, _mm512_cvtepi32_epi8(r));
    }
}

SB_Q_AVX512 static int row_range_avx512(const float *x, int in, float *lo, float *hi)
{
    __m512 mn = _mm512_setzero_ps(), mx = _mm512_setzero_ps(), bad = _mm512_setzero_ps();
    for (int p = 0; p < in; p += 16) {
        __mmask16 m = in - p >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << (in - p)) - 1);
        __m512 v = _mm512_maskz_loadu_ps(m, x + p);
        mn = _mm512_min_ps(mn, v);
        mx = _mm512_max_ps(mx, v);
        bad = _mm512_add_ps(bad, _mm512_mul_ps(v, _mm512_setzero_ps())); /* NaN for Inf/NaN */
    }
    *lo = _mm512_reduce_min_ps(mn);
    *hi = _mm512_reduce_max_ps(mx);
    return _mm512_reduce_add_ps(bad) == 0.0f;
}

SB_Q_AVX2 static void quant_row_avx2(const float *x, int in, float s, int32_t zp, int qmax,
                                     uint8_t *o)
{
    __m256 inv = _mm256_set1_ps(1.0f / s);
    __m256i z = _mm256_set1_epi32(zp), lo = _mm256_setzero_si256(), hi = _mm256_set1_epi32(qmax);
    int p = 0;
    for (; p + 8 <= in; p += 8) {
        __m256i r = _mm256_cvtps_epi32(_mm256_mul_ps(_mm256_loadu_ps(x + p), inv));
        r = _mm256_min_epi32(_mm256_max_epi32(_mm256_add_epi32(r, z), lo), hi);
        __m128i w = _mm_packus_epi32(_mm256_castsi256_si128(r), _mm256_extracti128_si256(r, 1));
        _mm_storel_epi64((__m128i *)(o + p), _mm_packus_epi16(w, w));
    }
    float fz = (float)zp, fi = 1.0f / s;
    for (; p < in; p++) {
        float r = nearbyintf(x[p] * fi) + fz;
        o[p] = (uint8_t)(r < 0 ? 0 : r > qmax ? qmax : r);
    }
}

SB_Q_AVX2 static int row_range_avx2(const float *x, int in, float *lo, float *hi)
{
    __m256 mn = _mm256_setzero_ps(), mx = _mm256_setzero_ps(), bad = _mm256_setzero_ps();
    int p = 0;
    for (; p + 8 <= in; p += 8) {
        __m256 v = _mm256_loadu_ps(x + p);
        mn = _mm256_min_ps(mn, v);
        mx = _mm256_max_ps(mx, v);
        bad = _mm256_add_ps(bad, _mm256_mul_ps(v, _mm256_setzero_ps()));
    }
    float a[8], b[8], c[8], l = 0, h = 0, nb = 0;
    _mm256_storeu_ps(a, mn);
    _mm256_storeu_ps(b, mx);
    _mm256_storeu_ps(c, bad);
    for (int i = 0; i < 8; i++) {
        l = a[i] < l ? a[i] : l;
        h = b[i] > h ? b[i] : h;
        nb += c[i];
    }
    for (; p < in; p++) {
        l = x[p] < l ? x[p] : l;
        h = x[p] > h ? x[p] : h;
        nb += x[p] * 0.0f;
    }
    *lo = l;
    *hi = h;
    return nb == 0.0f;
}

/* 1 when every element is finite; the range in lo/hi */
static int row_range(const float *x, int in, float *lo, float *hi)
{
    float mn = 0, mx = 0;
    int finite = 1;
    for (int p = 0; p < in; p++) {
        float v = x[p];
        finite &= isfinite(v) != 0;
        mn = v < mn ? v : mn;
        mx = v > mx ? v : mx;
    }
    *lo = mn;
    *hi = mx;
    return finite;
}

static int row_range_any(const float *x, int in, float *lo, float *hi)
{
    int lvl = sb_layers_level();
    return lvl == SB_LAYERS_AVX512 ? row_range_avx512(x, in, lo, hi)
        : lvl == SB_LAYERS_AVX2    ? row_range_avx2(x, in, lo, hi)
                                   : row_range(x, in, lo, hi);
}

static void quant_row_any(const float *x, int in, float s, int32_t zp, int qmax, uint8_t *o)
{
    int lvl = sb_layers_level();
    if (lvl == SB_LAYERS_AVX512)
        quant_row_avx512(x, in, s, zp, qmax, o);
    else if (lvl == SB_LAYERS_AVX2)
        quant_row_avx2(x, in, s, zp, qmax, o);
    else
        quant_row(x, in, s, zp, qmax, o);
}

int sb_quant_row(const float *x, int in, int qmax, uint8_t *xq, float *scale, int32_t *zp)
{
    float lo, hi;
    if (!row_range_any(x, in, &lo, &hi)) return 0;
    qparams(lo, hi, qmax, scale, zp);
    quant_row_any(x, in, *scale, *zp, qmax, xq);
    return 1;
}

/* Per row, each row read once: with gelu, GELU of the row goes to a
 * per-thread buffer (in cache) that the range and the rounding then read. */
static int quant_rows(const float *x, int N, int in, int gelu, int qmax, uint8_t *xq, float *scale,
                      int32_t *zp, int nt, int *bad)
{
    int oom = 0;
#pragma omp parallel num_threads(nt)
    {
        float *buf = gelu ? aligned_alloc(64, ((size_t)in * sizeof(float) + 63) & ~(size_t)63)
                          : NULL;
        if (gelu && !buf) {
#pragma omp atomic write
            oom = 1;
        }
#pragma omp for schedule(static)
        for (int i = 0; i < N; i++) {
            if (gelu && !buf) continue;
            float lo, hi;
            const float *r = x + (size_t)i * in;
            if (gelu) {
                sb_gelu_row(buf, r, (size_t)in);
                r = buf;
            }
            if (!row_range_any(r, in, &lo, &hi)) {
#pragma omp critical(sb_quant_bad)
                if (*bad < 0 || i < *bad) *bad = i;
                continue;
            }
            qparams(lo, hi, qmax, &scale[i], &zp[i]);
            quant_row_any(r, in, scale[i], zp[i], qmax, xq + (size_t)i * in);
        }
        free(buf);
    }
    return oom;
}

static int quant_acts(const float *x, int N, int in, sb_quant_mode mode, int gelu, uint8_t *xq,
                      float *scale, int32_t *zp, int threads, const char *layer, sb_err *e)
{
    int nt = NT(threads), bad = -1, qmax = sb_quant_qmax(mode);
    if ((long)N * in < 65536) nt = 1;
    if (!(mode & SB_QUANT_PER_TENSOR)) {
        if (quant_rows(x, N, in, gelu, qmax, xq, scale, zp, nt, &bad))
            return sb_errf(e, SB_EFAIL, "%s: out of memory for a row of %d activations", layer, in);
    } else {
        float lo = 0, hi = 0;
#pragma omp parallel for schedule(static) num_threads(nt) reduction(min : lo) reduction(max : hi)
        for (int i = 0; i < N; i++) {
            float l, h;
            if (!row_range_any(x + (size_t)i * in, in, &l, &h)) {
#pragma omp critical(sb_quant_bad)
                if (bad < 0 || i < bad) bad = i;
            }
            lo = l < lo ? l : lo;
            hi = h > hi ? h : hi;
        }
        if (bad < 0) {
            float s;
            int32_t z;
            qparams(lo, hi, qmax, &s, &z);
#pragma omp parallel for schedule(static) num_threads(nt)
            for (int i = 0; i < N; i++) {
                scale[i] = s;
                zp[i] = z;
                quant_row_any(x + (size_t)i * in, in, s, z, qmax, xq + (size_t)i * in);
            }
        }
    }
    if (bad >= 0)
        return sb_errf(e, SB_EFAIL, "%s: NaN or Inf in the activations (row %d) while quantising",
                       layer, bad);
    return SB_OK;
}

int sb_quant_activations(const float *x, int N, int in, sb_quant_mode mode, uint8_t *xq,
                         float *scale, int32_t *zp, int threads, const char *layer, sb_err *e)
{
    return quant_acts(x, N, in, mode, 0, xq, scale, zp, threads, layer, e);
}

int sb_quant_activations_gelu(const float *x, int N, int in, sb_quant_mode mode, uint8_t *xq,
                              float *scale, int32_t *zp, int threads, const char *layer, sb_err *e)
{
    return quant_acts(x, N, in, mode & ~SB_QUANT_PER_TENSOR, 1, xq, scale, zp, threads, layer, e);
}

size_t sb_qlinear_scratch_bytes(int N, int in)
{
    size_t a = ((size_t)N * in + 63) & ~(size_t)63;
    return a + ((sizeof(float) + sizeof(int32_t)) * (size_t)N + 63);
}

static int qlinear_run(const sb_qlinear *q, float *y, const float *x, float *tmp, int N,
                       sb_quant_mode mode, void *scratch, int threads, const char *layer, sb_err *e)
{
    uint8_t *xq = scratch;
    size_t a = ((size_t)N * q->in + 63) & ~(size_t)63;
    float *scale = (float *)((char *)scratch + a);
    int32_t *zp = (int32_t *)(scale + N);
    int gelu = tmp != NULL;
    if (gelu && (mode & SB_QUANT_PER_TENSOR)) {
        /* one range over the whole tensor: GELU written out once, then read twice */
        sb_gelu_forward(tmp, x, (size_t)N * q->in, threads);
        x = tmp;
        gelu = 0;
    }
    int rc = quant_acts(x, N, q->in, mode, gelu, xq, scale, zp, threads, layer, e);
    if (rc) return rc;
    sb_dequant dq = {.a_scale = scale,
                     .a_zp = zp,
                     .b_scale = q->w_scale,
                     .b_colsum = q->colsum,
                     .bias = q->bias};
    sb_gemm_desc d = {.transa = 'N',
                      .transb = 'T',
                      .m = N,
                      .n = q->out,
                      .k = q->in,
                      .lda = q->in,
                      .ldb = q->in,
                      .ldc = q->out,
                      .alpha = 1,
                      .beta = 0,
                      .threads = threads,
                      .dequant = &dq};
    if (q->packed) return q->kernel->gemm_packed(&d, xq, q->packed, y, e);
    return q->kernel->gemm_u8s8(&d, xq, q->wq, (int32_t *)(void *)y, e);
}

int sb_qlinear_forward(const sb_qlinear *q, float *y, const float *x, int N, sb_quant_mode mode,
                       void *scratch, int threads, const char *layer, sb_err *e)
{
    return qlinear_run(q, y, x, NULL, N, mode, scratch, threads, layer, e);
}

int sb_qlinear_forward_gelu(const sb_qlinear *q, float *y, const float *x, float *tmp, int N,
                            sb_quant_mode mode, void *scratch, int threads, const char *layer,
                            sb_err *e)
{
    return qlinear_run(q, y, x, tmp, N, mode, scratch, threads, layer, e);
}

static const char *const g_qnames[] = {"row", "tensor", "row7", "tensor7"};

int sb_quant_mode_parse(const char *s, sb_quant_mode *m)
{
    for (int i = 0; i < 4; i++)
        if (s && !strcmp(s, g_qnames[i])) {
            *m = (sb_quant_mode)i;
            return 0;
        }
    return -1;
}

const char *sb_quant_mode_name(sb_quant_mode m) { return g_qnames[m & 3]; }
