#include "sb_pack.h"
#include <emmintrin.h>
#include <stdint.h>
#include <string.h>

/* Every packed layout is made of 32-bit slots (1 f32, 2 bf16 or 4 int8 k
 * values), so two SSE2 shapes (baseline x86-64: safe before any probe) cover
 * all of them:
 *  - slot transpose: source rows run along k (op(A) when 'N', op(B) when
 *    'T'); 4 rows x 4 slots are loaded and transposed 4x4;
 *  - row interleave: source rows run along the panel (op(A) when 'T', op(B)
 *    when 'N'); kg consecutive k rows are interleaved into slots.
 * Edges (partial panels, k tails) go through the scalar put(). */
typedef struct {
    sb_src_type src;
    int bf16;
} conv_t;

static inline void put(void *dst, size_t idx, const void *X, size_t sidx, conv_t cv)
{
    switch (cv.src) {
    case SB_SRC_F32: {
        float f = ((const float *)X)[sidx];
        if (cv.bf16)
            ((uint16_t *)dst)[idx] = sb_f32_to_bf16(f);
        else
            ((float *)dst)[idx] = f;
        break;
    }
    case SB_SRC_BF16: ((uint16_t *)dst)[idx] = ((const uint16_t *)X)[sidx]; break;
    case SB_SRC_U8:
    case SB_SRC_S8: ((uint8_t *)dst)[idx] = ((const uint8_t *)X)[sidx]; break;
    }
}

static size_t dst_esz(conv_t cv)
{
    if (cv.src == SB_SRC_U8 || cv.src == SB_SRC_S8) return 1;
    return cv.src == SB_SRC_BF16 || cv.bf16 ? 2 : 4;
}
static size_t src_esz(conv_t cv)
{
    return cv.src == SB_SRC_F32 ? 4 : cv.src == SB_SRC_BF16 ? 2 : 1;
}

/* 8 f32 -> 8 bf16 (nearest even; NaN stays a quiet NaN), as sb_f32_to_bf16. */
static inline __m128i cvt8_bf16(__m128i a, __m128i b)
{
    const __m128i bias = _mm_set1_epi32(0x7fff), one = _mm_set1_epi32(1);
    const __m128i absm = _mm_set1_epi32(0x7fffffff), inf = _mm_set1_epi32(0x7f800000);
    const __m128i quiet = _mm_set1_epi32(0x00400000);
    __m128i r[2], x[2] = {a, b};
    for (int i = 0; i < 2; i++) {
        __m128i t = _mm_add_epi32(
            x[i], _mm_add_epi32(bias, _mm_and_si128(_mm_srli_epi32(x[i], 16), one)));
        __m128i nan = _mm_cmpgt_epi32(_mm_and_si128(x[i], absm), inf);
        t = _mm_or_si128(_mm_and_si128(nan, _mm_or_si128(x[i], quiet)), _mm_andnot_si128(nan, t));
        r[i] = _mm_srai_epi32(t, 16); /* sign-extended, so packs is exact */
    }
    return _mm_packs_epi32(r[0], r[1]);
}

static inline void transpose_store(__m128i r0, __m128i r1, __m128i r2, __m128i r3, char *dst,
                                   size_t slot_stride)
{
    __m128i t0 = _mm_unpacklo_epi32(r0, r1), t1 = _mm_unpacklo_epi32(r2, r3);
    __m128i t2 = _mm_unpackhi_epi32(r0, r1), t3 = _mm_unpackhi_epi32(r2, r3);
    _mm_storeu_si128((__m128i *)dst, _mm_unpacklo_epi64(t0, t1));
    _mm_storeu_si128((__m128i *)(dst + slot_stride), _mm_unpackhi_epi64(t0, t1));
    _mm_storeu_si128((__m128i *)(dst + 2 * slot_stride), _mm_unpacklo_epi64(t2, t3));
    _mm_storeu_si128((__m128i *)(dst + 3 * slot_stride), _mm_unpackhi_epi64(t2, t3));
}

/* Panel of R rows (nrows real) from source rows along k: X row r at
 * X + r*ld elements, k from p0. Slot (s, r) at dst + (s*R + r)*4. All R rows
 * advance together, so the hardware sees R sequential streams at once. */
static void pack_slot_transpose(const void *X, int ld, conv_t cv, int R, int nrows, int p0, int kc,
                                int kcp, int kg, void *dst)
{
    size_t es = dst_esz(cv), ses = src_esz(cv);
    if (nrows < R || kc < kcp) memset(dst, 0, (size_t)R * kcp * es);
    const char *base = (const char *)X + (size_t)p0 * ses;
    const size_t rs = (size_t)ld * ses;
    int full = (R % 4 == 0 && nrows == R) ? kc / (4 * kg) * 4 * kg : 0; /* k done by SIMD */
    const int cvt = cv.src == SB_SRC_F32 && cv.bf16;
    for (int p = 0; p < full; p += 4 * kg) {
        if ((p & 15) == 0)
            for (int r = 0; r < R; r++)
                _mm_prefetch(base + r * rs + (size_t)(p + 128) * ses, _MM_HINT_T0);
        char *o = (char *)dst + (size_t)(p / kg) * R * 4;
        if (cvt) {
            for (int r = 0; r < R; r += 4) {
                const float *x0 = (const float *)(base + r * rs) + p;
                const float *x1 = (const float *)((const char *)x0 + rs);
                const float *x2 = (const float *)((const char *)x1 + rs);
                const float *x3 = (const float *)((const char *)x2 + rs);
#define SB_LD8(x) \
    cvt8_bf16(_mm_loadu_si128((const __m128i *)(x)), _mm_loadu_si128((const __m128i *)((x) + 4)))
                transpose_store(SB_LD8(x0), SB_LD8(x1), SB_LD8(x2), SB_LD8(x3), o + (size_t)r * 4,
                                (size_t)R * 4);
#undef SB_LD8
            }
        } else {
            /* 16 source bytes are 4 slots as they are */
            for (int r = 0; r < R; r += 4) {
                const char *x0 = base + r * rs + (size_t)p * ses;
                transpose_store(_mm_loadu_si128((const __m128i *)x0),
                                _mm_loadu_si128((const __m128i *)(x0 + rs)),
                                _mm_loadu_si128((const __m128i *)(x0 + 2 * rs)),
                                _mm_loadu_si128((const __m128i *)(x0 + 3 * rs)), o + (size_t)r * 4,
                                (size_t)R * 4);
            }
        }
    }
    for (int r = 0; r < nrows; r++)
        for (int p = full; p < kc; p++)
            put(dst, ((size_t)(p / kg) * R + r) * kg + p % kg, base, (size_t)r * ld + p, cv);
}

/* kg source rows (k = p .. p+kg-1), columns [0, n): slots in column order.
 * One loop per conversion, so no branch runs per element. */
static void interleave_rows(const char *r0, size_t rs, conv_t cv, int kg, int n, uint32_t *out)
{
    int c = 0;
    char *o = (char *)out;
    if (kg == 2 && cv.src == SB_SRC_F32) {
        const float *a = (const float *)r0, *b = (const float *)(r0 + rs);
        for (; c + 8 <= n; c += 8) {
            __m128i x = cvt8_bf16(_mm_loadu_si128((const __m128i *)(a + c)),
                                  _mm_loadu_si128((const __m128i *)(a + c + 4)));
            __m128i y = cvt8_bf16(_mm_loadu_si128((const __m128i *)(b + c)),
                                  _mm_loadu_si128((const __m128i *)(b + c + 4)));
            _mm_storeu_si128((__m128i *)(o + (size_t)c * 4), _mm_unpacklo_epi16(x, y));
            _mm_storeu_si128((__m128i *)(o + (size_t)c * 4 + 16), _mm_unpackhi_epi16(x, y));
        }
    } else if (kg == 2) {
        const char *a = r0, *b = r0 + rs;
        for (; c + 8 <= n; c += 8) {
            __m128i x = _mm_loadu_si128((const __m128i *)(a + (size_t)c * 2));
            __m128i y = _mm_loadu_si128((const __m128i *)(b + (size_t)c * 2));
            _mm_storeu_si128((__m128i *)(o + (size_t)c * 4), _mm_unpacklo_epi16(x, y));
            _mm_storeu_si128((__m128i *)(o + (size_t)c * 4 + 16), _mm_unpackhi_epi16(x, y));
        }
    } else if (kg == 4) {
        for (; c + 16 <= n; c += 16) {
            __m128i a = _mm_loadu_si128((const __m128i *)(r0 + c));
            __m128i b = _mm_loadu_si128((const __m128i *)(r0 + rs + c));
            __m128i q = _mm_loadu_si128((const __m128i *)(r0 + 2 * rs + c));
            __m128i d = _mm_loadu_si128((const __m128i *)(r0 + 3 * rs + c));
            __m128i ab0 = _mm_unpacklo_epi8(a, b), ab1 = _mm_unpackhi_epi8(a, b);
            __m128i cd0 = _mm_unpacklo_epi8(q, d), cd1 = _mm_unpackhi_epi8(q, d);
            char *oc = o + (size_t)c * 4;
            _mm_storeu_si128((__m128i *)oc, _mm_unpacklo_epi16(ab0, cd0));
            _mm_storeu_si128((__m128i *)(oc + 16), _mm_unpackhi_epi16(ab0, cd0));
            _mm_storeu_si128((__m128i *)(oc + 32), _mm_unpacklo_epi16(ab1, cd1));
            _mm_storeu_si128((__m128i *)(oc + 48), _mm_unpackhi_epi16(ab1, cd1));
        }
    } else {
        for (; c + 4 <= n; c += 4)
            _mm_storeu_si128((__m128i *)(o + (size_t)c * 4),
                             _mm_loadu_si128((const __m128i *)(r0 + (size_t)c * 4)));
    }
    for (; c < n; c++)
        for (int q = 0; q < kg; q++)
            put(out, (size_t)c * kg + q, r0, (size_t)q * rs / src_esz(cv) + c, cv);
}

/* R*4 bytes (24, 48, 64 or 128) from t to o: inline moves beat a memcpy call. */
static inline void copy_slots(char *o, const char *t, int w)
{
    int bytes = w * 4, b = 0;
    for (; b + 16 <= bytes; b += 16)
        _mm_storeu_si128((__m128i *)(o + b), _mm_loadu_si128((const __m128i *)(t + b)));
    if (b + 8 <= bytes) { /* the 6-wide AVX2 panels: 16 + 8 */
        memcpy(o + b, t + b, 8);
        b += 8;
    }
    for (; b < bytes; b += 4) memcpy(o + b, t + b, 4);
}

/* ceil(ncols/R) panels of R columns from source rows along the panels: k row
 * p at X + (p0+p)*ld elements, columns from 0. Slot (s, c) of panel q holds k
 * rows s*kg .. s*kg+kg-1 of column q*R + c. Each source row is read once,
 * contiguously, across all panels (a strip per panel would stride through
 * memory and the TLB). */
static void pack_interleave_via_tmp(const char *base, size_t rs, conv_t cv, int R, int ncols,
                                    int npan, size_t pan_bytes, int kfull, int kg, void *dst);
#define SB_PACK_COLS 512
#define SB_PACK_GROUPS 16
#ifndef SB_PACK_ROWS
#define SB_PACK_ROWS 8
#endif
static void pack_row_interleave(const void *X, int ld, conv_t cv, int R, int ncols, int p0, int kc,
                                int kcp, int kg, void *dst)
{
    size_t es = dst_esz(cv), ses = src_esz(cv);
    int npan = (ncols + R - 1) / R;
    size_t pan_bytes = (size_t)R * kcp * es;
    if (ncols % R || kc < kcp) {
        for (int q = 0; q < npan; q++)
            if ((q + 1) * R > ncols || kc < kcp) memset((char *)dst + q * pan_bytes, 0, pan_bytes);
    }
    const char *base = (const char *)X + (size_t)p0 * ld * ses;
    const size_t rs = (size_t)ld * ses;
    int kfull = kc / kg * kg;
    if (kg == 1 && cv.src == SB_SRC_F32 && !cv.bf16) {
        /* slots are the source's own floats: straight from the rows,
         * SB_PACK_ROWS rows at a time, so that each panel receives one
         * contiguous run of slot rows (a row at a time wrote R floats into
         * every panel in turn, far apart: twice the time for 768 A^T rows).
         * The same columns two blocks down are fetched meanwhile: the rows
         * are far apart, so the hardware does not see them coming (+3 % on
         * a 768x768x3072 A^T.B). */
        for (int r0 = 0; r0 < kc; r0 += SB_PACK_ROWS) {
            int pn = kc - r0 < SB_PACK_ROWS ? kc - r0 : SB_PACK_ROWS;
            const char *rows = base + (size_t)r0 * rs;
            for (int q = 0; q < npan; q++) {
                int w = ncols - q * R < R ? ncols - q * R : R;
                char *o = (char *)dst + q * pan_bytes + (size_t)r0 * R * 4;
                const char *x = rows + (size_t)q * R * 4;
                for (int p = 0; p < pn; p++) {
                    _mm_prefetch(x + (size_t)(p + 2 * SB_PACK_ROWS) * rs, _MM_HINT_T0);
                    copy_slots(o + (size_t)p * R * 4, x + (size_t)p * rs, w);
                }
            }
        }
        return;
    }
    int step = kg == 1 ? 4 : kg == 2 ? 8 : 16;
    if (R % step == 0) {
        /* a panel row is a whole number of SIMD steps: interleave in place */
        for (int p = 0; p < kfull; p += kg) {
            const char *row = base + (size_t)p * rs;
            for (int q = 0; q < npan; q++) {
                int w = ncols - q * R < R ? ncols - q * R : R;
                interleave_rows(
                    row + (size_t)q * R * ses, rs, cv, kg, w,
                    (uint32_t *)((char *)dst + q * pan_bytes + (size_t)(p / kg) * R * 4));
            }
        }
    } else {
        pack_interleave_via_tmp(base, rs, cv, R, ncols, npan, pan_bytes, kfull, kg, dst);
    }
    for (int p = kfull; p < kc; p++)
        for (int c = 0; c < ncols; c++) {
            int q = c / R, j = c % R;
            put((char *)dst + q * pan_bytes, ((size_t)(p / kg) * R + j) * kg + p % kg, base,
                (size_t)p * ld + c, cv);
        }
}

/* Panels whose rows are not whole SIMD steps (R = 12 with bf16 or int8): up
 * to 16 k groups x a strip of columns are interleaved into tmp, then each
 * panel receives its slot rows as one contiguous run. */
static void pack_interleave_via_tmp(const char *base, size_t rs, conv_t cv, int R, int ncols,
                                    int npan, size_t pan_bytes, int kfull, int kg, void *dst)
{
    (void)npan;
    size_t ses = src_esz(cv);
    static _Thread_local uint32_t tmp[SB_PACK_GROUPS][SB_PACK_COLS];
    int chunk = SB_PACK_COLS / R * R;
    for (int c0 = 0; c0 < ncols; c0 += chunk) {
        int cn = ncols - c0 < chunk ? ncols - c0 : chunk;
        for (int p = 0; p < kfull; p += SB_PACK_GROUPS * kg) {
            int ng = (kfull - p) / kg < SB_PACK_GROUPS ? (kfull - p) / kg : SB_PACK_GROUPS;
            for (int g = 0; g < ng; g++)
                interleave_rows(base + (size_t)(p + g * kg) * rs + (size_t)c0 * ses, rs, cv, kg, cn,
                                tmp[g]);
            for (int c = 0; c < cn; c += R) {
                int q = (c0 + c) / R, w = cn - c < R ? cn - c : R;
                char *o = (char *)dst + q * pan_bytes + (size_t)(p / kg) * R * 4;
                for (int g = 0; g < ng; g++, o += (size_t)R * 4)
                    copy_slots(o, (const char *)(tmp[g] + c), w);
            }
        }
    }
}

static const void *elem_ptr(const void *X, conv_t cv, size_t idx)
{
    return (const char *)X + idx * src_esz(cv);
}

/* VNNI panels of r rows or columns of op(X) starting at x0: a matrix whose
 * k runs down its rows (A^T, B) is interleaved row by row; one whose k runs
 * along its rows (A, B^T) is transposed slot by slot. A and B differ only
 * in which transpose is which. */
static void pack_vnni(const void *X, int ld, int k_down_rows, conv_t cv, int r, int kg, int x0,
                      int xc, int p0, int kc, int kcp, void *dst)
{
    size_t es = dst_esz(cv);
    if (k_down_rows) {
        pack_row_interleave(elem_ptr(X, cv, x0), ld, cv, r, xc, p0, kc, kcp, kg, dst);
        return;
    }
    for (int q = 0; q * r < xc; q++) {
        char *pan = (char *)dst + (size_t)q * r * kcp * es;
        int cnt = xc - q * r < r ? xc - q * r : r;
        int first = x0 + q * r;
        pack_slot_transpose(elem_ptr(X, cv, (size_t)first * ld), ld, cv, r, cnt, p0, kc, kcp, kg,
                            pan);
    }
}

void sb_pack_a_vnni(const sb_gemm_desc *d, const void *A, sb_src_type src, int dst_bf16, int mr,
                    int kg, int i0, int mc, int p0, int kc, int kcp, void *dst)
{
    conv_t cv = {src, dst_bf16};
    pack_vnni(A, d->lda, d->transa == 'T', cv, mr, kg, i0, mc, p0, kc, kcp, dst);
}

void sb_pack_b_vnni(const sb_gemm_desc *d, const void *B, sb_src_type src, int dst_bf16, int nr,
                    int kg, int p0, int kc, int kcp, int j0, int nc, void *dst)
{
    conv_t cv = {src, dst_bf16};
    pack_vnni(B, d->ldb, d->transb == 'N', cv, nr, kg, j0, nc, p0, kc, kcp, dst);
}

void sb_pack_a_chunked(const sb_gemm_desc *d, const void *A, sb_src_type src, int dst_bf16, int mr,
                       int kg, int i0, int mc, int p0, int kc, int kcp, void *dst)
{
    conv_t cv = {src, dst_bf16};
    size_t es = dst_esz(cv), ses = src_esz(cv);
    const int ce = 16 * kg; /* k elements per chunk row (64 bytes) */
    for (int q = 0; q * mr < mc; q++) {
        char *pan = (char *)dst + (size_t)q * mr * kcp * es;
        int rows = mc - q * mr < mr ? mc - q * mr : mr;
        if (rows < mr || kc < kcp) memset(pan, 0, (size_t)mr * kcp * es);
        for (int i = 0; i < rows; i++) {
            size_t sidx = (size_t)(i0 + q * mr + i) * d->lda + p0;
            const char *row = (const char *)A + sidx * ses;
            int p = 0, c = 0;
            if (cv.src == SB_SRC_F32 && cv.bf16) {
                for (; p + ce <= kc; c++, p += ce) {
                    char *o = pan + ((size_t)c * mr + i) * 64;
                    const float *f = (const float *)row + p;
                    _mm_prefetch((const char *)(f + 4 * ce), _MM_HINT_T0);
                    for (int v = 0; v < 4; v++)
                        _mm_storeu_si128(
                            (__m128i *)(o + 16 * v),
                            cvt8_bf16(_mm_loadu_si128((const __m128i *)(f + 8 * v)),
                                      _mm_loadu_si128((const __m128i *)(f + 8 * v + 4))));
                }
            } else {
                /* 64 source bytes are the 16 slots as they are */
                for (; p + ce <= kc; c++, p += ce) {
                    char *o = pan + ((size_t)c * mr + i) * 64;
                    const char *x = row + (size_t)p * ses;
                    _mm_prefetch(x + 256, _MM_HINT_T0);
                    for (int v = 0; v < 4; v++)
                        _mm_storeu_si128((__m128i *)(o + 16 * v),
                                         _mm_loadu_si128((const __m128i *)(x + 16 * v)));
                }
            }
            for (; p < kc; p++)
                put(pan, (((size_t)(p / ce) * mr + i) * 64) / es + p % ce, A, sidx + p, cv);
        }
    }
}

static void pack_a_chunked_t(const sb_gemm_desc *d, const void *A, conv_t cv, int mr, int kg,
                             int i0, int mc, int p0, int kc, int kcp, void *dst)
{
    size_t es = dst_esz(cv);
    const int ce = 16 * kg;
    for (int q = 0; q * mr < mc; q++) {
        char *pan = (char *)dst + (size_t)q * mr * kcp * es;
        int rows = mc - q * mr < mr ? mc - q * mr : mr;
        if (rows < mr || kc < kcp) memset(pan, 0, (size_t)mr * kcp * es);
        int r0 = i0 + q * mr;
        /* op(A) = A^T: a k step is a stored row, read along i. f32 -> bf16
         * pairs of k (p, p + 1), 4 rows at a time: two converted rows
         * interleave into 4 slots, one per destination row. */
        int p = 0;
        if (cv.src == SB_SRC_F32 && cv.bf16) {
            for (; p + 2 <= kc; p += 2) {
                char *o = pan + ((size_t)(p / ce) * mr * 64) + (size_t)(p % ce) * 2;
                const float *x0 = (const float *)A + (size_t)(p0 + p) * d->lda + r0;
                const float *x1 = x0 + d->lda;
                int i = 0;
                for (; i + 4 <= rows; i += 4) {
                    __m128i h = cvt8_bf16(_mm_loadu_si128((const __m128i *)(x0 + i)),
                                          _mm_loadu_si128((const __m128i *)(x1 + i)));
                    __m128i sl = _mm_unpacklo_epi16(h, _mm_srli_si128(h, 8));
                    for (int v = 0; v < 4; v++) {
                        int32_t w = _mm_cvtsi128_si32(sl);
                        memcpy(o + (size_t)(i + v) * 64, &w, 4);
                        sl = _mm_srli_si128(sl, 4);
                    }
                }
                for (; i < rows; i++) {
                    unsigned short lo = sb_f32_to_bf16(x0[i]), hi = sb_f32_to_bf16(x1[i]);
                    memcpy(o + (size_t)i * 64, &lo, 2);
                    memcpy(o + (size_t)i * 64 + 2, &hi, 2);
                }
            }
        }
        for (; p < kc; p++) {
            size_t base = ((size_t)(p / ce) * mr * 64) / es + p % ce;
            size_t src = (size_t)(p0 + p) * d->lda + r0;
            for (int i = 0; i < rows; i++) put(pan, base + (size_t)i * 64 / es, A, src + i, cv);
        }
    }
}

void sb_pack_a_tiles(const sb_gemm_desc *d, const void *A, sb_src_type src, int dst_bf16, int mr,
                     int kg, int i0, int mc, int p0, int kc, int kcp, void *dst)
{
    if (d->transa == 'N') {
        sb_pack_a_chunked(d, A, src, dst_bf16, mr, kg, i0, mc, p0, kc, kcp, dst);
    } else {
        conv_t cv = {src, dst_bf16};
        pack_a_chunked_t(d, A, cv, mr, kg, i0, mc, p0, kc, kcp, dst);
    }
}
