#include "sb_amx_model.h"
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

typedef struct {
    int configured;
    sb_amx_tilecfg cfg;
    uint8_t t[8][16][64];
    char err[256];
    int has_err;
} amx_state;

/* Per thread, as the real tile registers are. */
static _Thread_local amx_state st;

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail(const char *fmt, ...)
{
    if (st.has_err) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(st.err, sizeof st.err, fmt, ap);
    va_end(ap);
    st.has_err = 1;
}

const char *sb_amx_model_error(void) { return st.has_err ? st.err : NULL; }
void sb_amx_model_clear_error(void)
{
    st.has_err = 0;
    st.err[0] = '\0';
}

void sb_amx_model_tilerelease(void)
{
    st.configured = 0;
    memset(&st.cfg, 0, sizeof st.cfg);
    memset(st.t, 0, sizeof st.t);
}

void sb_amx_model_ldtilecfg(const void *mem)
{
    sb_amx_tilecfg c;
    memcpy(&c, mem, sizeof c);
    if (c.palette == 0) {
        sb_amx_model_tilerelease();
        return;
    }
    if (c.palette != 1) {
        fail("ldtilecfg: palette %u not supported (palette 1 only)", c.palette);
        return;
    }
    for (int i = 0; i < 14; i++)
        if (c.reserved[i]) {
            fail("ldtilecfg: reserved byte %d is not zero", i + 2);
            return;
        }
    if (c.start_row) {
        fail("ldtilecfg: start_row %u is not zero", c.start_row);
        return;
    }
    for (int i = 0; i < 16; i++) {
        if (i >= 8 && (c.rows[i] || c.colsb[i])) {
            fail("ldtilecfg: tile %d does not exist in palette 1 (8 tiles)", i);
            return;
        }
        if (c.rows[i] > 16 || c.colsb[i] > 64) {
            fail("ldtilecfg: tile %d is %u rows x %u bytes, max 16 x 64", i, c.rows[i], c.colsb[i]);
            return;
        }
        if ((c.rows[i] == 0) != (c.colsb[i] == 0)) {
            fail("ldtilecfg: tile %d has %u rows and %u bytes per row (both or neither zero)", i,
                 c.rows[i], c.colsb[i]);
            return;
        }
    }
    st.cfg = c;
    st.configured = 1;
    memset(st.t, 0, sizeof st.t);
}

void sb_amx_model_sttilecfg(void *mem)
{
    if (st.configured)
        memcpy(mem, &st.cfg, sizeof st.cfg);
    else
        memset(mem, 0, sizeof st.cfg);
}

static int tile_ok(const char *op, int t)
{
    if (!st.configured) {
        fail("%s: no tile configuration loaded", op);
        return 0;
    }
    if (t < 0 || t > 7) {
        fail("%s: tile %d does not exist (tmm0..tmm7)", op, t);
        return 0;
    }
    if (!st.cfg.rows[t]) {
        fail("%s: tile %d is not configured", op, t);
        return 0;
    }
    return 1;
}

void sb_amx_model_tileloadd(int t, const void *base, long stride)
{
    if (!tile_ok("tileloadd", t)) return;
    int rows = st.cfg.rows[t], cb = st.cfg.colsb[t];
    memset(st.t[t], 0, sizeof st.t[t]);
    for (int r = 0; r < rows; r++) memcpy(st.t[t][r], (const char *)base + r * stride, cb);
}

void sb_amx_model_tilestored(int t, void *base, long stride)
{
    if (!tile_ok("tilestored", t)) return;
    int rows = st.cfg.rows[t], cb = st.cfg.colsb[t];
    for (int r = 0; r < rows; r++) memcpy((char *)base + r * stride, st.t[t][r], cb);
}

void sb_amx_model_tilezero(int t)
{
    if (!tile_ok("tilezero", t)) return;
    memset(st.t[t], 0, sizeof st.t[t]);
}

static int dp_ok(const char *op, int d, int a, int b)
{
    if (!tile_ok(op, d) || !tile_ok(op, a) || !tile_ok(op, b)) return 0;
    if (d == a || d == b || a == b) {
        fail("%s: tiles must be distinct (tmm%d, tmm%d, tmm%d)", op, d, a, b);
        return 0;
    }
    const uint8_t *R = st.cfg.rows;
    const uint16_t *C = st.cfg.colsb;
    if (R[d] != R[a]) {
        fail("%s: dst tmm%d has %u rows, src1 tmm%d has %u (must match: M)", op, d, R[d], a, R[a]);
        return 0;
    }
    if (C[d] != C[b]) {
        fail("%s: dst tmm%d has %u bytes per row, src2 tmm%d has %u (must match: N*4)", op, d, C[d],
             b, C[b]);
        return 0;
    }
    if (C[a] != 4 * R[b]) {
        fail("%s: src1 tmm%d has %u bytes per row, src2 tmm%d has %u rows (need bytes = 4*rows: K)",
             op, a, C[a], b, R[b]);
        return 0;
    }
    if (C[d] % 4 || C[a] % 4) {
        fail("%s: bytes per row of dst (%u) and src1 (%u) must be multiples of 4", op, C[d], C[a]);
        return 0;
    }
    return 1;
}

static float bf16_daz(const uint8_t *p)
{
    uint16_t h;
    memcpy(&h, p, 2);
    if ((h & 0x7f80) == 0) h &= 0x8000; /* denormal input -> signed zero */
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static float ftz(float f) { return fpclassify(f) == FP_SUBNORMAL ? copysignf(0.0f, f) : f; }

void sb_amx_model_tdpbf16ps(int d, int a, int b)
{
    if (!dp_ok("tdpbf16ps", d, a, b)) return;
    int M = st.cfg.rows[d], N = st.cfg.colsb[d] / 4, K = st.cfg.colsb[a] / 4;
    for (int m = 0; m < M; m++)
        for (int n = 0; n < N; n++) {
            float acc;
            memcpy(&acc, &st.t[d][m][4 * n], 4);
            for (int k = 0; k < K; k++) {
                float p0 = bf16_daz(&st.t[a][m][4 * k]) * bf16_daz(&st.t[b][k][4 * n]);
                float p1 = bf16_daz(&st.t[a][m][4 * k + 2]) * bf16_daz(&st.t[b][k][4 * n + 2]);
                acc = ftz(acc + ftz(p0 + p1));
            }
            memcpy(&st.t[d][m][4 * n], &acc, 4);
        }
}

static void dp_int8(int d, int a, int b, int a_unsigned)
{
    int M = st.cfg.rows[d], N = st.cfg.colsb[d] / 4, K = st.cfg.colsb[a] / 4;
    for (int m = 0; m < M; m++)
        for (int n = 0; n < N; n++) {
            int32_t acc;
            memcpy(&acc, &st.t[d][m][4 * n], 4);
            uint32_t sum = (uint32_t)acc; /* wraps like the hardware */
            for (int k = 0; k < K; k++)
                for (int q = 0; q < 4; q++) {
                    uint8_t ab = st.t[a][m][4 * k + q];
                    int32_t av = a_unsigned ? (int32_t)ab : (int32_t)(int8_t)ab;
                    int32_t bv = (int8_t)st.t[b][k][4 * n + q];
                    sum += (uint32_t)(av * bv);
                }
            acc = (int32_t)sum;
            memcpy(&st.t[d][m][4 * n], &acc, 4);
        }
}

void sb_amx_model_tdpbssd(int d, int a, int b)
{
    if (dp_ok("tdpbssd", d, a, b)) dp_int8(d, a, b, 0);
}

void sb_amx_model_tdpbusd(int d, int a, int b)
{
    if (dp_ok("tdpbusd", d, a, b)) dp_int8(d, a, b, 1);
}
