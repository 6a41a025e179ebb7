#include "sb_attention.h"
#include <immintrin.h>
#include <math.h>
#include <omp.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "sb_cpu.h"
#include "sb_layers_int.h"
#include "sb_vmath.h"
#include "sb_vmath_avx2.h"
#include "sb_vmath_avx512.h"

size_t sb_attention_bits_words(int B, int H, int S)
{
    return (size_t)B * H * S * (size_t)((S + 31) / 32);
}

/* One row of scores s (in place): softmax with padded keys (keep 0, bias
 * -inf) exactly 0; P written to prob, and s becomes what multiplies v:
 * P itself, or P * scale where the row's keep bits are set (w != NULL).
 * Inference (prob and w NULL) stops after the exponentials: s keeps them
 * unnormalised and the caller scales the row's output by the returned
 * 1 / sum instead (dh multiplications in place of S). */
SB_AVX512 static float softmax_row_avx512(float *s, float *prob, const float *keep,
                                          const float *bias, const uint32_t *w, float dscale, int S)
{
    __m512 mx = _mm512_set1_ps(-INFINITY), sum = _mm512_setzero_ps();
    for (int j = 0; j < S; j += 16) {
        __mmask16 k = tailmask((size_t)(S - j));
        __m512 v = _mm512_add_ps(_mm512_maskz_loadu_ps(k, s + j),
                                 _mm512_maskz_loadu_ps(k, bias + j));
        mx = _mm512_mask_max_ps(mx, k, mx, v);
    }
    __m512 m = _mm512_set1_ps(_mm512_reduce_max_ps(mx));
    for (int j = 0; j < S; j += 16) {
        __mmask16 k = tailmask((size_t)(S - j));
        __m512 ex = _mm512_mul_ps(sb_vexp16(_mm512_sub_ps(_mm512_maskz_loadu_ps(k, s + j), m)),
                                  _mm512_maskz_loadu_ps(k, keep + j));
        _mm512_mask_storeu_ps(s + j, k, ex);
        sum = _mm512_mask_add_ps(sum, k, sum, ex);
    }
    float t = _mm512_reduce_add_ps(sum), tinv = t > 0 ? 1.0f / t : 0.0f;
    if (!prob && !w) return tinv;
    __m512 inv = _mm512_set1_ps(tinv), ds = _mm512_set1_ps(dscale);
    for (int j = 0; j < S; j += 16) {
        __mmask16 k = tailmask((size_t)(S - j));
        __m512 p = _mm512_mul_ps(_mm512_maskz_loadu_ps(k, s + j), inv);
        if (prob) _mm512_mask_storeu_ps(prob + j, k, p);
        if (w) {
            __mmask16 kb = (__mmask16)(w[j / 32] >> (j % 32)) & k;
            p = _mm512_maskz_mul_ps(kb, p, ds);
        }
        _mm512_mask_storeu_ps(s + j, k, p);
    }
    return 1.0f;
}

SB_AVX2 static float softmax_row_avx2(float *s, float *prob, const float *keep, const float *bias,
                                      const uint32_t *w, float dscale, int S)
{
    __m256 mx = _mm256_set1_ps(-INFINITY), sum = _mm256_setzero_ps();
    int j = 0;
    for (; j + 8 <= S; j += 8)
        mx = _mm256_max_ps(mx, _mm256_add_ps(_mm256_loadu_ps(s + j), _mm256_loadu_ps(bias + j)));
    __m256i k = tail8((size_t)(S - j)); /* the last S % 8 lanes */
    if (j < S) {
        __m256 v = _mm256_add_ps(_mm256_maskload_ps(s + j, k), _mm256_maskload_ps(bias + j, k));
        mx = _mm256_max_ps(mx,
                           _mm256_blendv_ps(_mm256_set1_ps(-INFINITY), v, _mm256_castsi256_ps(k)));
    }
    __m256 m = _mm256_set1_ps(hmax8(mx));
    for (j = 0; j + 8 <= S; j += 8) {
        __m256 ex = _mm256_mul_ps(sb_vexp8(_mm256_sub_ps(_mm256_loadu_ps(s + j), m)),
                                  _mm256_loadu_ps(keep + j));
        _mm256_storeu_ps(s + j, ex);
        sum = _mm256_add_ps(sum, ex);
    }
    if (j < S) {
        /* lanes past S load keep 0, so they add exactly 0 (vexp is finite) */
        __m256 ex = _mm256_mul_ps(sb_vexp8(_mm256_sub_ps(_mm256_maskload_ps(s + j, k), m)),
                                  _mm256_maskload_ps(keep + j, k));
        _mm256_maskstore_ps(s + j, k, ex);
        sum = _mm256_add_ps(sum, ex);
    }
    float t = hsum8(sum), tinv = t > 0 ? 1.0f / t : 0.0f;
    if (!prob && !w) return tinv;
    __m256 inv = _mm256_set1_ps(tinv), ds = _mm256_set1_ps(dscale);
    for (j = 0; j + 8 <= S; j += 8) {
        __m256 p = _mm256_mul_ps(_mm256_loadu_ps(s + j), inv);
        if (prob) _mm256_storeu_ps(prob + j, p);
        if (w) p = _mm256_and_ps(_mm256_mul_ps(p, ds), bits8(w[j / 32] >> (j % 32)));
        _mm256_storeu_ps(s + j, p);
    }
    if (j < S) {
        __m256 p = _mm256_mul_ps(_mm256_maskload_ps(s + j, k), inv);
        if (prob) _mm256_maskstore_ps(prob + j, k, p);
        if (w) p = _mm256_and_ps(_mm256_mul_ps(p, ds), bits8(w[j / 32] >> (j % 32)));
        _mm256_maskstore_ps(s + j, k, p);
    }
    return 1.0f;
}

static float softmax_row(int lvl, float *s, float *prob, const float *keep, const float *bias,
                         const uint32_t *w, float dscale, int S)
{
    if (lvl == SB_LAYERS_AVX512) return softmax_row_avx512(s, prob, keep, bias, w, dscale, S);
    if (lvl == SB_LAYERS_AVX2) return softmax_row_avx2(s, prob, keep, bias, w, dscale, S);
    float mx = -INFINITY, sum = 0;
    for (int j = 0; j < S; j++) {
        float v = s[j] + bias[j];
        mx = v > mx ? v : mx;
    }
    for (int j = 0; j < S; j++) {
        float ex = sb_vexp(s[j] - mx) * keep[j];
        s[j] = ex;
        sum += ex;
    }
    float inv = sum > 0 ? 1.0f / sum : 0.0f;
    if (!prob && !w) return inv;
    for (int j = 0; j < S; j++) {
        float p = s[j] * inv;
        if (prob) prob[j] = p;
        s[j] = !w ? p : ((w[j / 32] >> (j % 32)) & 1 ? p * dscale : 0.0f);
    }
    return 1.0f;
}

/* One row, in place over d = dL/d(what multiplied v): undo the dropout
 * (w != NULL), then dS = P * (d - sum_j d P). */
SB_AVX512 static void softmax_bwd_avx512(float *d, const float *pr, const uint32_t *w, float dscale,
                                         int S)
{
    __m512 dot = _mm512_setzero_ps(), ds = _mm512_set1_ps(dscale);
    for (int j = 0; j < S; j += 16) {
        __mmask16 k = tailmask((size_t)(S - j));
        __m512 v = _mm512_maskz_loadu_ps(k, d + j);
        if (w) {
            v = _mm512_maskz_mul_ps((__mmask16)(w[j / 32] >> (j % 32)) & k, v, ds);
            _mm512_mask_storeu_ps(d + j, k, v);
        }
        dot = _mm512_fmadd_ps(v, _mm512_maskz_loadu_ps(k, pr + j), dot);
    }
    __m512 t = _mm512_set1_ps(_mm512_reduce_add_ps(dot));
    for (int j = 0; j < S; j += 16) {
        __mmask16 k = tailmask((size_t)(S - j));
        __m512 p = _mm512_maskz_loadu_ps(k, pr + j);
        _mm512_mask_storeu_ps(d + j, k,
                              _mm512_mul_ps(p, _mm512_sub_ps(_mm512_maskz_loadu_ps(k, d + j), t)));
    }
}

SB_AVX2 static void softmax_bwd_avx2(float *d, const float *pr, const uint32_t *w, float dscale,
                                     int S)
{
    __m256 dot = _mm256_setzero_ps(), ds = _mm256_set1_ps(dscale);
    int j = 0;
    for (; j + 8 <= S; j += 8) {
        __m256 v = _mm256_loadu_ps(d + j);
        if (w) {
            v = _mm256_and_ps(_mm256_mul_ps(v, ds), bits8(w[j / 32] >> (j % 32)));
            _mm256_storeu_ps(d + j, v);
        }
        dot = _mm256_fmadd_ps(v, _mm256_loadu_ps(pr + j), dot);
    }
    __m256i k = tail8((size_t)(S - j));
    if (j < S) {
        __m256 v = _mm256_maskload_ps(d + j, k);
        if (w) {
            v = _mm256_and_ps(_mm256_mul_ps(v, ds), bits8(w[j / 32] >> (j % 32)));
            _mm256_maskstore_ps(d + j, k, v);
        }
        dot = _mm256_fmadd_ps(v, _mm256_maskload_ps(pr + j, k), dot);
    }
    __m256 t = _mm256_set1_ps(hsum8(dot));
    for (j = 0; j + 8 <= S; j += 8)
        _mm256_storeu_ps(
            d + j,
            _mm256_mul_ps(_mm256_loadu_ps(pr + j), _mm256_sub_ps(_mm256_loadu_ps(d + j), t)));
    if (j < S)
        _mm256_maskstore_ps(d + j, k,
                            _mm256_mul_ps(_mm256_maskload_ps(pr + j, k),
                                          _mm256_sub_ps(_mm256_maskload_ps(d + j, k), t)));
}

static void softmax_row_backward(int lvl, float *d, const float *pr, const uint32_t *w,
                                 float dscale, int S)
{
    if (lvl == SB_LAYERS_AVX512) {
        softmax_bwd_avx512(d, pr, w, dscale, S);
        return;
    }
    if (lvl == SB_LAYERS_AVX2) {
        softmax_bwd_avx2(d, pr, w, dscale, S);
        return;
    }
    if (w)
        for (int j = 0; j < S; j++) d[j] = (w[j / 32] >> (j % 32)) & 1 ? d[j] * dscale : 0.0f;
    float dot = 0;
    for (int j = 0; j < S; j++) dot += d[j] * pr[j];
    for (int j = 0; j < S; j++) d[j] = pr[j] * (d[j] - dot);
}

float sb_softmax_row_infer(float *s, const float *keep, const float *bias, int n)
{
    return softmax_row(sb_layers_level(), s, NULL, keep, bias, NULL, 1.0f, n);
}

static void attn_fail(int *rc, sb_err *e, int r, const sb_err *le)
{
#pragma omp critical(sb_attn_err)
    if (!*rc) {
        *rc = r;
        if (e) *e = *le;
    }
}

/* Keys past a sequence's last real token: 1 + the last j with mask[j] set.
 * Their probabilities are exactly 0, so every product over keys stops there:
 * the same numbers, fewer multiplications (on real SQuAD features about half
 * of the 384 positions are padding). */
int sb_attention_keys(const sb_lctx *c, const uint8_t *m, int S)
{
    int n = S;
    if (c->all_keys) return S;
    while (n > 0 && !m[n - 1]) n--;
    return n;
}

/* rows [from, S) of a column block of x (ld columns apart) set to 0 */
static void zero_rows(float *x, int ld, int from, int S, int cols)
{
    for (int i = from; i < S; i++) memset(x + (size_t)i * ld, 0, (size_t)cols * sizeof(float));
}

static int g_attn_rows_env; /* SB_ATTN_ROWS, read once (heads call from many threads) */
static pthread_once_t g_attn_rows_once = PTHREAD_ONCE_INIT;
static void attn_rows_env(void)
{
    const char *v = getenv("SB_ATTN_ROWS");
    g_attn_rows_env = v ? atoi(v) : 0;
}

void sb_attention_set_block_rows(int rows)
{
    pthread_once(&g_attn_rows_once, attn_rows_env);
    g_attn_rows_env = rows > 0 ? rows : 0;
}

int sb_attention_block_rows(int S, int n)
{
    pthread_once(&g_attn_rows_once, attn_rows_env);
    int env = g_attn_rows_env;
    if (env > 0) return env < S ? env : S;
    size_t l2 = 0;
    sb_gemm_get_cache_sizes(NULL, &l2, NULL);
    long rows = l2 ? (long)(l2 / 2 / ((size_t)n * sizeof(float))) / 48 * 48 : S;
    if (rows < 48) rows = 48;
    return rows < S ? (int)rows : S;
}

/* One head at inference (no P kept, no dropout): out[S, dh] (rows D apart)
 * from q (rows 3D apart; k at q + D, v at q + 2D), n keys, query rows in
 * blocks (sb_attention_block_rows); each row's output scaled by 1 / its softmax sum.
 * k^T and v are packed once for all blocks by a project kernel (k->own; a
 * library kernel's packed objects are not meant to live one head). The
 * same numbers as one block: every output row is its own dot products, in
 * the same order. Sc holds rows x S floats, keep/bias n, rinv S. */
static int attn_infer_head(const sb_lctx *c, int lvl, float *out, int D, const float *q, int S,
                           int n, int dh, float scale, float *Sc, const float *keep,
                           const float *bias, float *rinv, sb_err *e)
{
    const sb_kernel *k = c->kernel;
    const float *kk = q + D, *v = q + 2 * D;
    int rb = sb_attention_block_rows(S, n), rc = SB_OK;
    sb_gemm_desc dq = {.transa = 'N', .transb = 'T', .m = rb, .n = n, .k = dh, .lda = 3 * D,
                       .ldb = 3 * D, .ldc = S, .alpha = scale, .beta = 0, .threads = 1};
    sb_gemm_desc dv = {.transa = 'N', .transb = 'N', .m = rb, .n = dh, .k = n, .lda = S,
                       .ldb = 3 * D, .ldc = D, .alpha = 1, .beta = 0, .threads = 1};
    sb_packed_b *pk = NULL, *pv = NULL;
    if (rb < S && k->own && k->pack_b && k->gemm_packed) {
        if ((rc = k->pack_b(&dq, kk, &pk, e)) || (rc = k->pack_b(&dv, v, &pv, e))) goto done;
    }
    for (int i0 = 0; i0 < S && !rc; i0 += rb) {
        int m = S - i0 < rb ? S - i0 : rb;
        dq.m = dv.m = m;
        const float *qi = q + (size_t)i0 * 3 * D;
        float *oi = out + (size_t)i0 * D;
        rc = pk ? k->gemm_packed(&dq, qi, pk, Sc, e) : k->gemm_f32(&dq, qi, kk, Sc, e);
        if (rc) break;
        for (int i = 0; i < m; i++)
            rinv[i0 + i] =
                softmax_row(lvl, Sc + (size_t)i * S, NULL, keep, bias, NULL, 1.0f, n);
        rc = pv ? k->gemm_packed(&dv, Sc, pv, oi, e) : k->gemm_f32(&dv, Sc, v, oi, e);
        for (int i = 0; !rc && i < m; i++)
            for (int d = 0; d < dh; d++) oi[(size_t)i * D + d] *= rinv[i0 + i];
    }
done:
    sb_packed_b_free(pk);
    sb_packed_b_free(pv);
    return rc;
}

int sb_attention_forward(const sb_lctx *c, float *ctx, float *probs, uint32_t *bits,
                         const float *qkv, const uint8_t *mask, int B, int S, int D, int H,
                         float p_drop, uint64_t key, float *scratch, sb_err *e)
{
    int dh = D / H, nt = NT(c->threads), rc = SB_OK, W = (S + 31) / 32, lvl = sb_layers_level();
    float scale = 1.0f / sqrtf((float)dh);
    float dscale = p_drop > 0 ? 1.0f / (1.0f - p_drop) : 1.0f;
    uint32_t thr = sb_layers_drop_threshold(p_drop);
    if (c->attention && !probs && !(p_drop > 0))
        return c->attention(c->attention_user, c, ctx, qkv, mask, B, S, D, H, e);
/* Parallel over (b, h), each GEMM single-threaded: at S x dh sizes the
     * kernel's own threading would cost more than it gives. The scores go to
     * the thread's scratch, which stays in cache from head to head; the
     * softmax pass writes P out for backward and leaves in the scratch what
     * multiplies v. */
#pragma omp parallel for schedule(dynamic, 1) num_threads(nt)
    for (int bh = 0; bh < B * H; bh++) {
        int b = bh / H, h = bh % H, me = omp_get_thread_num();
        const float *q = qkv + (size_t)b * S * 3 * D + h * dh, *k = q + D, *v = q + 2 * D;
        /* inference passes no probs: nothing keeps P for a backward */
        float *P = probs ? probs + (size_t)bh * S * S : NULL, *Sc = scratch + (size_t)me * S * S;
        int w_any = p_drop > 0;
        float *out = ctx + (size_t)b * S * D + h * dh;
        const uint8_t *m = mask + (size_t)b * S;
        int n = sb_attention_keys(c, m, S);
        if (!n) { /* no real token: every weight 0 */
            zero_rows(out, D, 0, S, dh);
            continue;
        }
        sb_err le;
        float *keep = scratch + (size_t)nt * S * S + (size_t)me * 3 * S, *bias = keep + S;
        float *rinv = bias + S; /* inference: each row's 1 / sum (attn_infer_head) */
        for (int j = 0; j < n; j++) {
            keep[j] = m[j] ? 1.0f : 0.0f;
            bias[j] = m[j] ? 0.0f : -INFINITY;
        }
        if (!P && !w_any) {
            int r = attn_infer_head(c, lvl, out, D, q, S, n, dh, scale, Sc, keep, bias, rinv, &le);
            if (r) attn_fail(&rc, e, r, &le);
            continue;
        }
        double t0 = sb_layers_mm_t0(c);
        int r = sb_matmul(c, 'N', 'T', S, n, dh, scale, q, 3 * D, k, 3 * D, 0.0f, Sc, S, 1, &le);
        sb_layers_mm_note(c, SB_MM_ATT_QK, S, n, dh, 1, t0);
        if (r) {
            attn_fail(&rc, e, r, &le);
            continue;
        }
        for (int i = 0; i < S; i++) {
            uint32_t *w = NULL;
            if (p_drop > 0) {
                w = bits + ((size_t)bh * S + i) * W;
                sb_layers_keep_bits(lvl, w, (size_t)n, thr, key, (uint64_t)bh * S * S + (uint64_t)i * S);
            }
            /* P kept or dropout: the row comes back normalised */
            softmax_row(lvl, Sc + (size_t)i * S, P ? P + (size_t)i * S : NULL, keep, bias, w,
                        dscale, n);
        }
        t0 = sb_layers_mm_t0(c);
        r = sb_matmul(c, 'N', 'N', S, dh, n, 1.0f, Sc, S, v, 3 * D, 0.0f, out, D, 1, &le);
        sb_layers_mm_note(c, SB_MM_ATT_PV, S, dh, n, 1, t0);
        if (r) attn_fail(&rc, e, r, &le);
    }
    return rc;
}

int sb_attention_backward(const sb_lctx *c, float *dqkv, const float *dctx, const float *qkv,
                          const float *probs, const uint32_t *bits, const uint8_t *mask, int B,
                          int S, int D, int H, float p_drop, float *scratch, sb_err *e)
{
    int dh = D / H, nt = NT(c->threads), rc = SB_OK, W = (S + 31) / 32, lvl = sb_layers_level();
    float scale = 1.0f / sqrtf((float)dh);
    float dscale = p_drop > 0 ? 1.0f / (1.0f - p_drop) : 1.0f;
#pragma omp parallel for schedule(dynamic, 1) num_threads(nt)
    for (int bh = 0; bh < B * H; bh++) {
        int b = bh / H, h = bh % H;
        size_t rowoff = (size_t)b * S * 3 * D + h * dh;
        const float *q = qkv + rowoff, *k = q + D, *v = q + 2 * D;
        float *dq = dqkv + rowoff, *dk = dq + D, *dv = dq + 2 * D;
        const float *dc = dctx + (size_t)b * S * D + h * dh;
        const float *P = probs + (size_t)bh * S * S;
        const uint32_t *hb = p_drop > 0 ? bits + (size_t)bh * S * W : NULL;
        float *dP = scratch + (size_t)omp_get_thread_num() * 2 * S * S, *Pd = dP + (size_t)S * S;
        int n = sb_attention_keys(c, mask + (size_t)b * S, S);
        /* keys past n had weight 0: no gradient reaches them */
        zero_rows(dk, 3 * D, n, S, dh);
        zero_rows(dv, 3 * D, n, S, dh);
        if (!n) {
            zero_rows(dq, 3 * D, 0, S, dh);
            continue;
        }
        sb_err le;
        int r;
        const float *Pused = P;
        if (hb) {
            for (int i = 0; i < S; i++)
                sb_layers_apply_bits(lvl, Pd + (size_t)i * S, P + (size_t)i * S, hb + (size_t)i * W,
                           (size_t)n, dscale);
            Pused = Pd;
        }
        /* dv = Pd^T dctx; dPd = dctx v^T */
        double t0 = sb_layers_mm_t0(c);
        r = sb_matmul(c, 'T', 'N', n, dh, S, 1.0f, Pused, S, dc, D, 0.0f, dv, 3 * D, 1, &le);
        sb_layers_mm_note(c, SB_MM_ATT_DV, n, dh, S, 1, t0);
        if (!r) {
            t0 = sb_layers_mm_t0(c);
            r = sb_matmul(c, 'N', 'T', S, n, dh, 1.0f, dc, D, v, 3 * D, 0.0f, dP, S, 1, &le);
            sb_layers_mm_note(c, SB_MM_ATT_DP, S, n, dh, 1, t0);
        }
        if (!r) {
            for (int i = 0; i < S; i++)
                softmax_row_backward(lvl, dP + (size_t)i * S, P + (size_t)i * S,
                                     hb ? hb + (size_t)i * W : NULL, dscale, n);
            /* dq = dS k * scale; dk = dS^T q * scale */
            t0 = sb_layers_mm_t0(c);
            r = sb_matmul(c, 'N', 'N', S, dh, n, scale, dP, S, k, 3 * D, 0.0f, dq, 3 * D, 1, &le);
            sb_layers_mm_note(c, SB_MM_ATT_DQ, S, dh, n, 1, t0);
        }
        if (!r) {
            t0 = sb_layers_mm_t0(c);
            r = sb_matmul(c, 'T', 'N', n, dh, S, scale, dP, S, q, 3 * D, 0.0f, dk, 3 * D, 1, &le);
            sb_layers_mm_note(c, SB_MM_ATT_DK, n, dh, S, 1, t0);
        }
        if (r) attn_fail(&rc, e, r, &le);
    }
    return rc;
}

