#include "sb_qattn.h"
#include <immintrin.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include "sb_attention.h"
#include "sb_mem.h"
#include "sb_quant.h"

#define SB_QA_AVX2 __attribute__((target("avx2,fma")))

struct sb_qattn {
    const sb_kernel *k;
    int qmax, bmax, smax, D, H, dh, nt;
    /* the layer's q, k, v quantised head by head: [b][h][S][dh] each */
    uint8_t *q8;
    int8_t *k8, *v8;
    float *qs, *ks;   /* [b][h][S]: Q's scale (times 1/sqrt(dh)), K's */
    int32_t *qz, *kc; /* [b][h][S]: Q's zero point, K's row sum */
    float *vs, *vinv; /* [b][D]: V's scale per channel, and 1 / it */
    float *vmax;      /* [thread][b][D]: partial max |v| */
    size_t per;       /* bytes of one thread's scratch for a head */
    char *buf;
};

/* One thread's scratch for a head, carved from its block (64-byte aligned). */
typedef struct {
    float *sc;          /* [S*S] scores, then exponentials */
    uint8_t *p8;        /* [S*S] P, u8 */
    float *ps;          /* [S] P's row scales: 1 / (sum * qmax) */
    int32_t *z;         /* zeros [max(S, dh)] */
    float *keep, *bias; /* [S] */
} qa_scratch;

static size_t up64(size_t x) { return (x + 63) & ~(size_t)63; }

static size_t carve(const sb_qattn *qa, char *base, qa_scratch *s)
{
    size_t S = (size_t)qa->smax, dh = (size_t)qa->dh, zn = S > dh ? S : dh, off = 0;
#define TAKE(ptr, bytes)                      \
    do {                                      \
        if (s) s->ptr = (void *)(base + off); \
        off += up64(bytes);                   \
    } while (0)
    TAKE(sc, S * S * sizeof(float));
    TAKE(p8, S * S);
    TAKE(ps, S * sizeof(float));
    TAKE(z, zn * sizeof(int32_t));
    TAKE(keep, S * sizeof(float));
    TAKE(bias, S * sizeof(float));
#undef TAKE
    return off;
}

int sb_qattn_create(const sb_kernel *k, int qmax, int max_batch, int max_seq, int D, int H,
                    int threads, sb_qattn **out, sb_err *e)
{
    *out = NULL;
    if (!k || k->dtype != SB_DT_INT8 || !k->gemm_u8s8)
        return sb_errf(e, SB_EUSAGE, "int8 attention needs an int8 kernel, not %s",
                       k ? k->name : "(none)");
    if ((qmax != 127 && qmax != 255) || max_batch < 1 || max_seq < 1 || H < 1 || D < H || D % H)
        return sb_errf(e, SB_EUSAGE,
                       "int8 attention: bad shape (batch %d, seq %d, dim %d, heads %d, qmax %d)",
                       max_batch, max_seq, D, H, qmax);
    sb_qattn *qa = calloc(1, sizeof *qa);
    if (!qa) return sb_errf(e, SB_EFAIL, "out of memory");
    qa->k = k;
    qa->qmax = qmax;
    qa->bmax = max_batch;
    qa->smax = max_seq;
    qa->D = D;
    qa->H = H;
    qa->dh = D / H;
    qa->nt = threads > 0 ? threads : omp_get_max_threads();
    qa->per = carve(qa, NULL, NULL);
    size_t N = (size_t)max_batch * max_seq, bd = (size_t)max_batch * D, rows = N * H;
    qa->buf = aligned_alloc(64, qa->per * (size_t)qa->nt);
    qa->q8 = sb_alloc_big(N * D); /* read in long runs: huge pages where granted */
    qa->k8 = sb_alloc_big(N * D);
    qa->v8 = sb_alloc_big(N * D);
    qa->qs = malloc(rows * sizeof(float));
    qa->ks = malloc(rows * sizeof(float));
    qa->qz = malloc(rows * sizeof(int32_t));
    qa->kc = malloc(rows * sizeof(int32_t));
    qa->vs = malloc(bd * sizeof(float));
    qa->vinv = malloc(bd * sizeof(float));
    qa->vmax = malloc(bd * (size_t)qa->nt * sizeof(float));
    if (!qa->buf || !qa->q8 || !qa->k8 || !qa->v8 || !qa->qs || !qa->ks || !qa->qz || !qa->kc ||
        !qa->vs || !qa->vinv || !qa->vmax) {
        sb_qattn_free(qa);
        return sb_errf(e, SB_EFAIL, "out of memory for int8 attention (batch %d, seq %d)",
                       max_batch, max_seq);
    }
    *out = qa;
    return SB_OK;
}

void sb_qattn_free(sb_qattn *qa)
{
    if (!qa) return;
    free(qa->buf);
    free(qa->q8);
    free(qa->k8);
    free(qa->v8);
    free(qa->qs);
    free(qa->ks);
    free(qa->qz);
    free(qa->kc);
    free(qa->vs);
    free(qa->vinv);
    free(qa->vmax);
    free(qa);
}

/* ---- the element-wise pieces: AVX2 and scalar alike (x * inv rounded to
 * nearest even, clamped), picked by the level sb_layers runs at. */

/* o[p] = clamp(round(x[p] * inv[p]), -127, 127) */
static void q_s8(const float *x, const float *inv, int n, int8_t *o)
{
    for (int p = 0; p < n; p++) {
        float r = nearbyintf(x[p] * inv[p]);
        o[p] = (int8_t)(r > 127 ? 127 : r < -127 ? -127 : r == r ? r : 0); /* NaN: 0 */
    }
}

/* o[p] = clamp(round(x[p] * qmax), 0, qmax) for x in [0, 1] */
static void q_unit(const float *x, int n, int qmax, uint8_t *o)
{
    for (int p = 0; p < n; p++) {
        float r = nearbyintf(x[p] * (float)qmax);
        o[p] = (uint8_t)(r < 0 ? 0 : r > qmax ? qmax : r);
    }
}

SB_QA_AVX2 static void q_unit_avx2(const float *x, int n, int qmax, uint8_t *o)
{
    int p = 0;
    const __m256 m = _mm256_set1_ps((float)qmax);
    const __m256i hi = _mm256_set1_epi32(qmax), lo = _mm256_setzero_si256();
    for (; p + 8 <= n; p += 8) {
        __m256i r = _mm256_cvtps_epi32(_mm256_mul_ps(_mm256_loadu_ps(x + p), m));
        r = _mm256_max_epi32(_mm256_min_epi32(r, hi), lo);
        __m128i w = _mm_packus_epi32(_mm256_castsi256_si128(r), _mm256_extracti128_si256(r, 1));
        _mm_storel_epi64((__m128i *)(o + p), _mm_packus_epi16(w, w));
    }
    q_unit(x + p, n - p, qmax, o + p);
}

static float scale_of(float amax) { return amax > 0 ? amax / 127.0f : 1.0f; }

/* K: rows k[j] (dh floats, ld apart), j < n, each to s8 with its own scale
 * max |k[j]| / 127; ks[j], and kc[j] = the row's sum of s8 values. V: the
 * same per channel d over the n rows (vs[d]). 0 when NaN or Inf is met. */
static int k_rows(const float *k, int ld, int n, int dh, int8_t *o, float *ks, int32_t *kc)
{
    for (int j = 0; j < n; j++) {
        const float *x = k + (size_t)j * ld;
        float m = 0;
        int ok = 1;
        for (int d = 0; d < dh; d++) {
            float a = fabsf(x[d]);
            ok &= isfinite(a) != 0;
            m = a > m ? a : m;
        }
        if (!ok) return 0;
        ks[j] = scale_of(m);
        float iv = 1.0f / ks[j];
        int32_t sum = 0;
        for (int d = 0; d < dh; d++) {
            float r = nearbyintf(x[d] * iv);
            r = r > 127 ? 127 : r < -127 ? -127 : r;
            o[(size_t)j * dh + d] = (int8_t)r;
            sum += (int32_t)r;
        }
        kc[j] = sum;
    }
    return 1;
}

/* m[p] = max(m[p], |x[p]|); 0 when x holds NaN or Inf */
static int amax_into(float *m, const float *x, int n)
{
    int ok = 1;
    for (int p = 0; p < n; p++) {
        float a = fabsf(x[p]);
        ok &= isfinite(a) != 0;
        m[p] = a > m[p] ? a : m[p];
    }
    return ok;
}

/* The AVX2 builds of the three, for dh a multiple of 8 (the scalar ones
 * otherwise); the same numbers. */
SB_QA_AVX2 static __m256i s8_round(__m256 x, __m256 inv)
{
    __m256i r = _mm256_cvtps_epi32(_mm256_mul_ps(x, inv));
    return _mm256_max_epi32(_mm256_min_epi32(r, _mm256_set1_epi32(127)), _mm256_set1_epi32(-127));
}

SB_QA_AVX2 static void s8_store(int8_t *o, __m256i r)
{
    __m128i w = _mm_packs_epi32(_mm256_castsi256_si128(r), _mm256_extracti128_si256(r, 1));
    _mm_storel_epi64((__m128i *)o, _mm_packs_epi16(w, w));
}

SB_QA_AVX2 static int k_rows_avx2(const float *k, int ld, int n, int dh, int8_t *o, float *ks,
                                  int32_t *kc)
{
    const __m256 sign = _mm256_set1_ps(-0.0f), zero = _mm256_setzero_ps();
    for (int j = 0; j < n; j++) {
        const float *x = k + (size_t)j * ld;
        __m256 m = zero, bad = zero;
        for (int d = 0; d < dh; d += 8) {
            __m256 v = _mm256_loadu_ps(x + d);
            bad = _mm256_add_ps(bad, _mm256_mul_ps(v, zero)); /* NaN for Inf/NaN */
            m = _mm256_max_ps(m, _mm256_andnot_ps(sign, v));
        }
        __m128 h = _mm_max_ps(_mm256_castps256_ps128(m), _mm256_extractf128_ps(m, 1));
        h = _mm_max_ps(h, _mm_movehl_ps(h, h));
        h = _mm_max_ss(h, _mm_movehdup_ps(h));
        __m128 b = _mm_add_ps(_mm256_castps256_ps128(bad), _mm256_extractf128_ps(bad, 1));
        b = _mm_add_ps(b, _mm_movehl_ps(b, b));
        b = _mm_add_ss(b, _mm_movehdup_ps(b));
        if (_mm_cvtss_f32(b) != 0.0f) return 0;
        ks[j] = scale_of(_mm_cvtss_f32(h));
        __m256 iv = _mm256_set1_ps(1.0f / ks[j]);
        __m256i sum = _mm256_setzero_si256();
        for (int d = 0; d < dh; d += 8) {
            __m256i r = s8_round(_mm256_loadu_ps(x + d), iv);
            sum = _mm256_add_epi32(sum, r);
            s8_store(o + (size_t)j * dh + d, r);
        }
        __m128i t = _mm_add_epi32(_mm256_castsi256_si128(sum), _mm256_extracti128_si256(sum, 1));
        t = _mm_add_epi32(t, _mm_shuffle_epi32(t, 0x4e));
        t = _mm_add_epi32(t, _mm_shuffle_epi32(t, 0xb1));
        kc[j] = _mm_cvtsi128_si32(t);
    }
    return 1;
}

SB_QA_AVX2 static void q_s8_avx2(const float *x, const float *inv, int n, int8_t *o)
{
    int p = 0;
    for (; p + 8 <= n; p += 8)
        s8_store(o + p, s8_round(_mm256_loadu_ps(x + p), _mm256_loadu_ps(inv + p)));
    q_s8(x + p, inv + p, n - p, o + p);
}

SB_QA_AVX2 static int amax_into_avx2(float *m, const float *x, int n)
{
    int p = 0;
    const __m256 sign = _mm256_set1_ps(-0.0f), zero = _mm256_setzero_ps();
    __m256 bad = zero;
    for (; p + 8 <= n; p += 8) {
        __m256 v = _mm256_loadu_ps(x + p);
        bad = _mm256_add_ps(bad, _mm256_mul_ps(v, zero)); /* NaN for Inf/NaN */
        _mm256_storeu_ps(m + p, _mm256_max_ps(_mm256_loadu_ps(m + p), _mm256_andnot_ps(sign, v)));
    }
    float b[8];
    _mm256_storeu_ps(b, bad);
    int ok = 1;
    for (int i = 0; i < 8; i++) ok &= b[i] == 0.0f;
    return amax_into(m + p, x + p, n - p) && ok;
}

typedef struct {
    void (*unit)(const float *, int, int, uint8_t *);
    int (*k)(const float *, int, int, int, int8_t *, float *, int32_t *);
    void (*s8)(const float *, const float *, int, int8_t *);
    int (*amax)(float *, const float *, int);
} qa_ops;

static qa_ops ops_now(int dh)
{
    int avx2 = sb_layers_level() >= SB_LAYERS_AVX2;
    return (qa_ops){avx2 ? q_unit_avx2 : q_unit, avx2 && dh % 8 == 0 ? k_rows_avx2 : k_rows,
                    avx2 ? q_s8_avx2 : q_s8, avx2 ? amax_into_avx2 : amax_into};
}

static void qa_fail(int *rc, sb_err *e, int r, const sb_err *le)
{
#pragma omp critical(sb_qattn_err)
    if (!*rc) {
        *rc = r;
        if (e) *e = *le;
    }
}

/* One head of one sequence from its quantised q, k, v: out[S, dh] (rows D
 * apart), n keys; query rows in blocks (sb_attention_block_rows) whose scores
 * and P stay in L2, k8^T and v8 packed once for all blocks by a project
 * kernel (k->own). Every output row is its own dot products: blocks change no number. */
static int head(const sb_qattn *qa, const qa_ops *op, qa_scratch *s, float *out, const uint8_t *m,
                int S, int n, int b, int h, sb_err *e)
{
    int dh = qa->dh, D = qa->D, qmax = qa->qmax, rb = sb_attention_block_rows(S, n), rc = SB_OK;
    const sb_kernel *k = qa->k;
    size_t hs = ((size_t)b * qa->H + h) * S; /* this head's first row */
    for (int j = 0; j < n; j++) {
        s->keep[j] = m[j] ? 1.0f : 0.0f;
        s->bias[j] = m[j] ? 0.0f : -INFINITY;
    }
    /* scores = dequant(q8 . k8^T), then out = dequant(p8 . v8): each row's
     * 1/sum and 1/qmax, each channel's scale */
    sb_dequant dq = {.a_scale = qa->qs + hs, .a_zp = qa->qz + hs, .b_scale = qa->ks + hs,
                     .b_colsum = qa->kc + hs};
    sb_dequant dv = {.a_scale = s->ps, .a_zp = s->z, .b_scale = qa->vs + (size_t)b * D + h * dh,
                     .b_colsum = s->z};
    sb_gemm_desc d1 = {.transa = 'N', .transb = 'T', .m = rb, .n = n, .k = dh, .lda = dh,
                       .ldb = dh, .ldc = S, .alpha = 1, .beta = 0, .threads = 1, .dequant = &dq};
    sb_gemm_desc d2 = {.transa = 'N', .transb = 'N', .m = rb, .n = dh, .k = n, .lda = S,
                       .ldb = dh, .ldc = D, .alpha = 1, .beta = 0, .threads = 1, .dequant = &dv};
    const int8_t *k8 = qa->k8 + hs * dh, *v8 = qa->v8 + hs * dh;
    sb_packed_b *pk = NULL, *pv = NULL;
    if (rb < S && k->own && k->pack_b && k->gemm_packed &&
        ((rc = k->pack_b(&d1, k8, &pk, e)) || (rc = k->pack_b(&d2, v8, &pv, e))))
        goto done;
    for (int i0 = 0; i0 < S; i0 += rb) {
        int mr = S - i0 < rb ? S - i0 : rb;
        const uint8_t *qi = qa->q8 + (hs + i0) * dh;
        float *oi = out + (size_t)i0 * D;
        d1.m = d2.m = mr;
        dq.a_scale = qa->qs + hs + i0;
        dq.a_zp = qa->qz + hs + i0;
        rc = pk ? k->gemm_packed(&d1, qi, pk, s->sc, e)
                : k->gemm_u8s8(&d1, qi, k8, (int32_t *)(void *)s->sc, e);
        if (rc) break;
        for (int i = 0; i < mr; i++) {
            float *row = s->sc + (size_t)i * S;
            s->ps[i] = sb_softmax_row_infer(row, s->keep, s->bias, n) / (float)qmax;
            op->unit(row, n, qmax, s->p8 + (size_t)i * S);
        }
        rc = pv ? k->gemm_packed(&d2, s->p8, pv, oi, e)
                : k->gemm_u8s8(&d2, s->p8, v8, (int32_t *)(void *)oi, e);
        if (rc) break;
    }
done:
    sb_packed_b_free(pk);
    sb_packed_b_free(pv);
    return rc;
}

/* Token row r (sequence b, position i) of qkv, head by head: q u8 per row
 * (scale times 1/sqrt(dh)), k s8 per row, v s8 with its sequence's channel
 * scales. 0 on NaN/Inf in q or k. */
static int quantise_row(const sb_qattn *qa, const qa_ops *op, const float *x, int S, int b, int i)
{
    int dh = qa->dh, D = qa->D, H = qa->H;
    float rs = 1.0f / sqrtf((float)dh);
    for (int h = 0; h < H; h++) {
        size_t r = ((size_t)b * H + h) * S + i, at = r * dh;
        if (!sb_quant_row(x + h * dh, dh, qa->qmax, qa->q8 + at, &qa->qs[r], &qa->qz[r]))
            return 0;
        qa->qs[r] *= rs;
        if (!op->k(x + D + h * dh, dh, 1, dh, qa->k8 + at, &qa->ks[r], &qa->kc[r])) return 0;
        op->s8(x + 2 * D + h * dh, qa->vinv + (size_t)b * D + h * dh, dh, qa->v8 + at);
    }
    return 1;
}

int sb_qattn_forward(void *user, const sb_lctx *c, float *ctx, const float *qkv,
                     const uint8_t *mask, int B, int S, int D, int H, sb_err *e)
{
    sb_qattn *qa = user;
    if (D != qa->D || H != qa->H || S < 1 || S > qa->smax || B < 1 || B > qa->bmax)
        return sb_errf(e, SB_EUSAGE,
                       "int8 attention made for %d x %d, dim %d, %d heads; called with %d x %d, "
                       "dim %d, %d heads",
                       qa->bmax, qa->smax, qa->D, qa->H, B, S, D, H);
    int dh = qa->dh, nt = c->threads > 0 ? c->threads : omp_get_max_threads();
    if (nt > qa->nt) nt = qa->nt;
    qa_ops op = ops_now(dh);
    int n_of[B], bad_v = -1, bad_qk = -1, rc = SB_OK;
    for (int b = 0; b < B; b++) n_of[b] = sb_attention_keys(c, mask + (size_t)b * S, S);
    size_t bd = (size_t)B * D;
#pragma omp parallel num_threads(nt)
    {
        int me = omp_get_thread_num();
        float *vm = qa->vmax + (size_t)me * qa->bmax * D;
        memset(vm, 0, sizeof(float) * bd);
        /* 1. each sequence's max |v| per channel over its n keys, rows in order */
#pragma omp for schedule(static)
        for (int r = 0; r < B * S; r++) {
            int b = r / S;
            if (r % S < n_of[b] && !op.amax(vm + (size_t)b * D, qkv + (size_t)r * 3 * D + 2 * D, D))
#pragma omp critical(sb_qattn_err)
                if (bad_v < 0 || r < bad_v) bad_v = r;
        }
        int team = omp_get_num_threads(); /* the slots cleared above: maybe fewer than nt */
#pragma omp for schedule(static)
        for (size_t x = 0; x < bd; x++) {
            float mx = 0;
            for (int t = 0; t < team; t++) {
                float v = qa->vmax[(size_t)t * qa->bmax * D + x];
                mx = v > mx ? v : mx;
            }
            qa->vs[x] = scale_of(mx);
            qa->vinv[x] = 1.0f / qa->vs[x];
        }
        /* 2. q, k, v of every token row, rows in order */
#pragma omp for schedule(static)
        for (int r = 0; r < B * S; r++)
            if (bad_v < 0 && !quantise_row(qa, &op, qkv + (size_t)r * 3 * D, S, r / S, r % S))
#pragma omp critical(sb_qattn_err)
                if (bad_qk < 0 || r < bad_qk) bad_qk = r;
        /* 3. the heads */
        qa_scratch s;
        carve(qa, qa->buf + qa->per * (size_t)me, &s);
        memset(s.z, 0, sizeof(int32_t) * (size_t)(S > dh ? S : dh));
#pragma omp for schedule(dynamic, 1)
        for (int bh = 0; bh < B * H; bh++) {
            if (bad_v >= 0 || bad_qk >= 0) continue;
            int b = bh / H, h = bh % H, n = n_of[b];
            float *out = ctx + (size_t)b * S * D + (size_t)h * dh;
            if (!n) { /* no real token: every weight 0 */
                for (int i = 0; i < S; i++) memset(out + (size_t)i * D, 0, sizeof(float) * dh);
                continue;
            }
            sb_err le = {0};
            int r = head(qa, &op, &s, out, mask + (size_t)b * S, S, n, b, h, &le);
            if (r) qa_fail(&rc, e, r, &le);
        }
    }
    int bad = bad_v >= 0 ? bad_v : bad_qk;
    if (bad >= 0)
        return sb_errf(e, SB_EFAIL, "attention: NaN or Inf in %s (sequence %d, position %d)",
                       bad_v >= 0 ? "v" : "q or k", bad / S, bad % S);
    return rc;
}
