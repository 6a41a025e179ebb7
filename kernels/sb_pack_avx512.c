#include "sb_pack_avx512.h"
#include <immintrin.h>
#include <stdint.h>
#include <string.h>

/* 16 f32 (as bits) -> their bf16 in the low half of each dword, as
 * sb_f32_to_bf16: round to nearest even by integer add (denormals kept),
 * a NaN made quiet. */
static inline __m512i cvt16_bf16(__m512i x)
{
    const __m512i absx = _mm512_and_si512(x, _mm512_set1_epi32(0x7fffffff));
    const __mmask16 nan = _mm512_cmpgt_epu32_mask(absx, _mm512_set1_epi32(0x7f800000));
    __m512i t = _mm512_add_epi32(
        x, _mm512_add_epi32(_mm512_set1_epi32(0x7fff),
                            _mm512_and_si512(_mm512_srli_epi32(x, 16), _mm512_set1_epi32(1))));
    t = _mm512_mask_mov_epi32(t, nan, _mm512_or_si512(x, _mm512_set1_epi32(0x00400000)));
    return _mm512_srli_epi32(t, 16);
}

static inline __mmask16 mask16(int n)
{
    return n >= 16 ? (__mmask16)0xffff : n <= 0 ? (__mmask16)0 : (__mmask16)((1u << n) - 1u);
}
static inline __mmask64 mask64(int n)
{
    return n >= 64 ? ~(__mmask64)0 : n <= 0 ? (__mmask64)0 : (((__mmask64)1 << n) - 1);
}

/* 16 dword vectors r[s] (lane i) -> r[i] (lane s). */
static inline void transpose16(__m512i r[16])
{
    __m512i t[16];
    for (int i = 0; i < 8; i++) {
        t[2 * i] = _mm512_unpacklo_epi32(r[2 * i], r[2 * i + 1]);
        t[2 * i + 1] = _mm512_unpackhi_epi32(r[2 * i], r[2 * i + 1]);
    }
    /* r[4i + j], 128-bit lane L: rows 4i..4i+3 of column 4L + j */
    for (int i = 0; i < 4; i++) {
        r[4 * i] = _mm512_unpacklo_epi64(t[4 * i], t[4 * i + 2]);
        r[4 * i + 1] = _mm512_unpackhi_epi64(t[4 * i], t[4 * i + 2]);
        r[4 * i + 2] = _mm512_unpacklo_epi64(t[4 * i + 1], t[4 * i + 3]);
        r[4 * i + 3] = _mm512_unpackhi_epi64(t[4 * i + 1], t[4 * i + 3]);
    }
    for (int j = 0; j < 4; j++) {
        __m512i u = _mm512_shuffle_i32x4(r[j], r[4 + j], 0x88);
        __m512i v = _mm512_shuffle_i32x4(r[j], r[4 + j], 0xdd);
        __m512i u2 = _mm512_shuffle_i32x4(r[8 + j], r[12 + j], 0x88);
        __m512i v2 = _mm512_shuffle_i32x4(r[8 + j], r[12 + j], 0xdd);
        t[j] = _mm512_shuffle_i32x4(u, u2, 0x88);
        t[8 + j] = _mm512_shuffle_i32x4(u, u2, 0xdd);
        t[4 + j] = _mm512_shuffle_i32x4(v, v2, 0x88);
        t[12 + j] = _mm512_shuffle_i32x4(v, v2, 0xdd);
    }
    for (int i = 0; i < 16; i++) r[i] = t[i];
}

typedef enum { CV_F32_BF16, CV_F32, CV_16, CV_8 } conv;

/* One stored row's 16 elements at x (lanes masked by lm) as dwords holding
 * the element's destination bits (bf16 / u16 / u8 / f32) in the low bits. */
static inline __m512i load16(conv cv, const char *x, __mmask16 lm)
{
    switch (cv) {
    case CV_F32_BF16: return cvt16_bf16(_mm512_maskz_loadu_epi32(lm, x));
    case CV_F32: return _mm512_maskz_loadu_epi32(lm, x);
    case CV_16: return _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(lm, x));
    case CV_8: break;
    }
    return _mm512_cvtepu8_epi32(_mm_maskz_loadu_epi8(lm, x));
}

/* op(A) = A^T: panel rows r0.., k from p0; element (i, p) at
 * A + ((p0 + p) * lda + r0 + i) * ses. */
static void pack_t(const char *A, size_t lda, conv cv, size_t ses, int kg, int mr, int rows,
                   int p0, int kc, char *pan)
{
    const int ce = 16 * kg, sh = 32 / kg;
    for (int c = 0; c * ce < kc; c++) { /* past kc: the memset's zeros */
        for (int ib = 0; ib < mr && ib < rows; ib += 16) {
            const __mmask16 lm = mask16(rows - ib);
            __m512i r[16];
            for (int s = 0; s < 16; s++) {
                __m512i v = _mm512_setzero_si512();
                for (int q = 0; q < kg; q++) {
                    int p = c * ce + s * kg + q;
                    if (p >= kc) break;
                    __m512i e = load16(cv, A + ((size_t)(p0 + p) * lda + (size_t)ib) * ses, lm);
                    v = _mm512_or_si512(v, q ? _mm512_slli_epi32(e, (unsigned)(q * sh)) : e);
                }
                r[s] = v;
            }
            transpose16(r);
            for (int i = 0; i < 16; i++)
                _mm512_storeu_si512(pan + ((size_t)c * mr + ib + i) * 64, r[i]);
        }
    }
}

/* op(A) = A: panel row i at A + i * lda * ses, k from p0. */
static void pack_n(const char *A, size_t lda, conv cv, size_t ses, int kg, int mr, int rows,
                   int kc, char *pan)
{
    const int ce = 16 * kg;
    for (int i = 0; i < rows; i++) {
        const char *row = A + (size_t)i * lda * ses;
        for (int c = 0, p = 0; p < kc; c++, p += ce) {
            int n = kc - p; /* elements left in this chunk (ce or fewer) */
            char *o = pan + ((size_t)c * mr + i) * 64;
            const char *x = row + (size_t)p * ses;
            __m512i v;
            if (cv == CV_F32_BF16) {
                __m512i lo = cvt16_bf16(_mm512_maskz_loadu_epi32(mask16(n), x));
                __m512i hi = cvt16_bf16(_mm512_maskz_loadu_epi32(mask16(n - 16), x + 64));
                v = _mm512_inserti64x4(_mm512_castsi256_si512(_mm512_cvtepi32_epi16(lo)),
                                       _mm512_cvtepi32_epi16(hi), 1);
            } else {
                v = _mm512_maskz_loadu_epi8(mask64(n * (int)ses), x);
            }
            _mm512_storeu_si512(o, v);
        }
    }
}

void sb_pack_a_tiles_avx512(const sb_gemm_desc *d, const void *A, sb_src_type src, int dst_bf16,
                            int mr, int kg, int i0, int mc, int p0, int kc, int kcp, void *dst)
{
    conv cv = src == SB_SRC_F32 ? (dst_bf16 ? CV_F32_BF16 : CV_F32)
              : src == SB_SRC_BF16 ? CV_16
                                   : CV_8;
    size_t ses = src == SB_SRC_F32 ? 4 : src == SB_SRC_BF16 ? 2 : 1;
    size_t es = cv == CV_F32 ? 4 : cv == CV_8 ? 1 : 2;
    for (int q = 0; q * mr < mc; q++) {
        char *pan = (char *)dst + (size_t)q * mr * kcp * es;
        int rows = mc - q * mr < mr ? mc - q * mr : mr;
        int r0 = i0 + q * mr;
        /* the chunks past kc and the rows past `rows` stay zero */
        if (rows < mr || kc < kcp) memset(pan, 0, (size_t)mr * kcp * es);
        if (d->transa == 'N')
            pack_n((const char *)A + ((size_t)r0 * d->lda + p0) * ses, (size_t)d->lda, cv, ses, kg,
                   mr, rows, kc, pan);
        else
            pack_t((const char *)A + (size_t)r0 * ses, (size_t)d->lda, cv, ses, kg, mr, rows, p0,
                   kc, pan);
    }
}

/* op(B) = B (k down the stored rows): slot (s, j) of a panel holds rows
 * s*kg .. s*kg+kg-1 of column j, and 16 columns' slots are 64 contiguous
 * bytes: kg row loads, or-ed, one store. Column j of op(B) at
 * B + ((p0 + p) * ldb + j0 + j) * ses. */
static void pack_b_n(const char *B, size_t ldb, conv cv, size_t ses, int kg, int nr, int ncols,
                     int kc, size_t pan_bytes, char *dst)
{
    const int sh = 32 / kg;
    for (int s = 0; s * kg < kc; s++)
        for (int jb = 0; jb < ncols; jb += 16) {
            const __mmask16 lm = mask16(ncols - jb);
            __m512i v = _mm512_setzero_si512();
            for (int q = 0; q < kg && s * kg + q < kc; q++) {
                __m512i e = load16(cv, B + ((size_t)(s * kg + q) * ldb + (size_t)jb) * ses, lm);
                v = _mm512_or_si512(v, q ? _mm512_slli_epi32(e, (unsigned)(q * sh)) : e);
            }
            int qp = jb / nr, j = jb % nr;
            _mm512_mask_storeu_epi32(dst + (size_t)qp * pan_bytes + ((size_t)s * nr + j) * 4, lm, v);
        }
}

/* 16 consecutive slots (16 kg-element groups from k = p) of one stored row
 * at x, n elements of which exist (the rest zero), as a dword vector. */
static inline __m512i slots16(conv cv, const char *x, int n)
{
    switch (cv) {
    case CV_F32_BF16: {
        __m512i lo = cvt16_bf16(_mm512_maskz_loadu_epi32(mask16(n), x));
        __m512i hi = cvt16_bf16(_mm512_maskz_loadu_epi32(mask16(n - 16), x + 64));
        return _mm512_inserti64x4(_mm512_castsi256_si512(_mm512_cvtepi32_epi16(lo)),
                                  _mm512_cvtepi32_epi16(hi), 1);
    }
    case CV_F32: return _mm512_maskz_loadu_epi32(mask16(n), x);
    case CV_16: return _mm512_maskz_loadu_epi16((__mmask32)mask64(n), x);
    case CV_8: break;
    }
    return _mm512_maskz_loadu_epi8(mask64(n), x);
}

/* op(B) = B^T (k along the stored rows): 16 columns' 16 slots loaded as
 * they lie (a row is a column of op(B)), transposed into 16 slot rows of
 * 16 columns. Column j of op(B) at B + ((j0 + j) * ldb + p0) * ses. */
static void pack_b_t(const char *B, size_t ldb, conv cv, size_t ses, int kg, int nr, int ncols,
                     int kc, size_t pan_bytes, char *dst)
{
    const int ce = 16 * kg;
    for (int c = 0; c * ce < kc; c++)
        for (int jb = 0; jb < ncols; jb += 16) {
            const int nj = ncols - jb < 16 ? ncols - jb : 16;
            __m512i r[16];
            for (int j = 0; j < 16; j++)
                r[j] = j < nj ? slots16(cv, B + ((size_t)(jb + j) * ldb + (size_t)c * ce) * ses,
                                        kc - c * ce)
                              : _mm512_setzero_si512();
            transpose16(r);
            int qp = jb / nr, j = jb % nr;
            char *o = dst + (size_t)qp * pan_bytes + ((size_t)c * 16 * nr + j) * 4;
            const __mmask16 lm = mask16(nj);
            for (int s = 0; s < 16 && c * ce + s * kg < kc; s++)
                _mm512_mask_storeu_epi32(o + (size_t)s * nr * 4, lm, r[s]);
        }
}

void sb_pack_b_vnni_avx512(const sb_gemm_desc *d, const void *B, sb_src_type src, int dst_bf16,
                           int nr, int kg, int p0, int kc, int kcp, int j0, int nc, void *dst)
{
    conv cv = src == SB_SRC_F32 ? (dst_bf16 ? CV_F32_BF16 : CV_F32)
              : src == SB_SRC_BF16 ? CV_16
                                   : CV_8;
    size_t ses = src == SB_SRC_F32 ? 4 : src == SB_SRC_BF16 ? 2 : 1;
    size_t es = cv == CV_F32 ? 4 : cv == CV_8 ? 1 : 2;
    size_t pan_bytes = (size_t)nr * kcp * es;
    int npan = (nc + nr - 1) / nr;
    /* the slots past kc and the columns past nc stay zero */
    if (nc % nr || kc < kcp) memset(dst, 0, (size_t)npan * pan_bytes);
    if (d->transb == 'N')
        pack_b_n((const char *)B + ((size_t)p0 * d->ldb + j0) * ses, (size_t)d->ldb, cv, ses, kg,
                 nr, nc, kc, pan_bytes, dst);
    else
        pack_b_t((const char *)B + ((size_t)j0 * d->ldb + p0) * ses, (size_t)d->ldb, cv, ses, kg,
                 nr, nc, kc, pan_bytes, dst);
}

void sb_round_bf16_rows_avx512(const float *X, int rows, int cols, int ld, uint16_t *o)
{
    for (int r = 0; r < rows; r++) {
        const float *x = X + (size_t)r * ld;
        uint16_t *y = o + (size_t)r * ld;
        for (int c = 0; c < cols; c += 16) {
            __mmask16 m = cols - c >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << (cols - c)) - 1);
            __m512i v = cvt16_bf16(_mm512_castps_si512(_mm512_maskz_loadu_ps(m, x + c)));
            _mm256_mask_storeu_epi16(y + c, m, _mm512_cvtepi32_epi16(v));
        }
    }
}
