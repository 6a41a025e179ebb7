/* Inference: dynamic quantisation (sb_quant), the int8 kernels' fused
 * dequantisation epilogue against exact integer products, and the whole
 * forward path (sb_infer) on every int8 and bf16 kernel against f32 -- the
 * AMX kernels through the functional tile model where the CPU has no AMX. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "sb_infer.h"
#include "sb_kernel.h"
#include "sb_model.h"
#include "sb_quant.h"
#include "testutil.h"

static uint64_t g_rng = 88172645463325252ULL;
static uint32_t rnd(void)
{
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 7;
    g_rng ^= g_rng << 17;
    return (uint32_t)(g_rng >> 11);
}
static float frnd(void) { return (float)(rnd() % 20001) / 10000.0f - 1.0f; }

static int runs(const sb_kernel *k)
{
    char why[256];
    return k && k->probe(why, sizeof why);
}

static void test_weights(void)
{
    const sb_kernel *k = sb_kernel_find("avx2-int8");
    if (!runs(k)) k = &sb_kernel_avx2_int8_vnni_model;
    if (!runs(k)) {
        printf("  weights: no int8 kernel runs here; skipped\n");
        return;
    }
    /* two output rows: max |w| 2.54 -> scale 0.02; an all-zero row -> scale 1 */
    float W[2 * 4] = {2.54f, -1.27f, 0.01f, 0.0f, 0, 0, 0, 0};
    sb_qlinear q;
    sb_err e = {0};
    CHECK_EQ_INT(sb_qlinear_init(&q, k, W, NULL, 4, 2, 1, "t.lin", &e), SB_OK);
    CHECK(fabsf(q.w_scale[0] - 0.02f) < 1e-7f);
    CHECK_EQ_INT(q.wq[0], 127);
    CHECK_EQ_INT(q.wq[1], -64); /* -63.5 rounds to even */
    CHECK_EQ_INT(q.wq[2], 0);   /* 0.5 rounds to even */
    CHECK_EQ_INT(q.colsum[0], 127 - 64);
    CHECK(q.w_scale[1] == 1.0f);
    CHECK_EQ_INT(q.colsum[1], 0);
    sb_qlinear_free(&q);
    /* NaN or Inf in a weight: refused, the layer and the row named */
    W[5] = NAN;
    CHECK_EQ_INT(sb_qlinear_init(&q, k, W, NULL, 4, 2, 1, "layer.7.ffn.lin1", &e), SB_EUSAGE);
    CHECKF(strstr(e.msg, "layer.7.ffn.lin1") && strstr(e.msg, "row 1"), "message: %s", e.msg);
    W[5] = INFINITY;
    CHECK_EQ_INT(sb_qlinear_init(&q, k, W, NULL, 4, 2, 1, "x", &e), SB_EUSAGE);
    /* an f32 kernel cannot take a quantised layer */
    W[5] = 0;
    CHECK_EQ_INT(sb_qlinear_init(&q, sb_kernel_find("scalar-f32"), W, NULL, 4, 2, 1, "x", &e),
                 SB_EUSAGE);
}

static void test_activations(void)
{
    /* row 0 spans [-1, 1.55]: scale 0.01, zero point 100; row 1 all positive
     * (the range is widened to hold 0); row 2 all zero */
    float x[3 * 4] = {-1.0f, 0.0f, 1.55f, 0.333f, 0.5f, 2.55f, 1.0f, 0.25f, 0, 0, 0, 0};
    uint8_t q[12];
    float s[3];
    int32_t z[3];
    sb_err e = {0};
    CHECK_EQ_INT(sb_quant_activations(x, 3, 4, SB_QUANT_PER_ROW, q, s, z, 1, "l", &e), SB_OK);
    CHECK(fabsf(s[0] - 0.01f) < 1e-8f);
    CHECK_EQ_INT(z[0], 100);
    CHECK_EQ_INT(q[0], 0);
    CHECK_EQ_INT(q[1], 100); /* zero is exact */
    CHECK_EQ_INT(q[2], 255);
    CHECK_EQ_INT(q[3], 133);
    CHECK(fabsf(s[1] - 0.01f) < 1e-8f);
    CHECK_EQ_INT(z[1], 0);
    CHECK_EQ_INT(q[5], 255);
    CHECK(s[2] == 1.0f);
    CHECK_EQ_INT(z[2], 0);
    CHECK_EQ_INT(q[8], 0);
    /* per tensor: one pair for every row, from the whole range [-1, 2.55] */
    CHECK_EQ_INT(sb_quant_activations(x, 3, 4, SB_QUANT_PER_TENSOR, q, s, z, 1, "l", &e), SB_OK);
    CHECK(s[0] == s[1] && s[1] == s[2] && z[0] == z[1] && z[1] == z[2]);
    CHECK(fabsf(s[0] - 3.55f / 255) < 1e-7f);
    CHECK_EQ_INT(z[0], 72);
    /* NaN and Inf: an error naming the layer and the row, not a clamp */
    x[6] = NAN;
    CHECK_EQ_INT(
        sb_quant_activations(x, 3, 4, SB_QUANT_PER_ROW, q, s, z, 1, "layer.3.ffn.lin2", &e),
        SB_EFAIL);
    CHECKF(strstr(e.msg, "layer.3.ffn.lin2") && strstr(e.msg, "row 1"), "message: %s", e.msg);
    x[6] = -INFINITY;
    CHECK_EQ_INT(sb_quant_activations(x, 3, 4, SB_QUANT_PER_TENSOR, q, s, z, 1, "q", &e), SB_EFAIL);
}

/* Every element-wise level quantises alike (rows long enough for the
 * vector loops and their tails). */
static void test_levels(void)
{
    enum { N = 40, IN = 101 };
    static float x[N * IN];
    static uint8_t q[3][N * IN];
    float s[3][N];
    int32_t z[3][N];
    for (int i = 0; i < N * IN; i++) x[i] = frnd() * (1 + i % 7) + (i % 5 == 0 ? 0.5f : 0);
    for (int i = 0; i < IN; i++) x[3 * IN + i] = fabsf(x[3 * IN + i]); /* all positive */
    int got[3];
    sb_err e = {0};
    for (int lvl = 0; lvl < 3; lvl++) {
        got[lvl] = sb_layers_set_level(lvl);
        CHECK_EQ_INT(
            sb_quant_activations(x, N, IN, SB_QUANT_PER_ROW, q[lvl], s[lvl], z[lvl], 2, "l", &e),
            SB_OK);
    }
    sb_layers_set_level(SB_LAYERS_AUTO);
    for (int lvl = 1; lvl < 3; lvl++) {
        if (got[lvl] != lvl) continue; /* not on this CPU */
        CHECKF(!memcmp(q[0], q[lvl], sizeof q[0]) && !memcmp(s[0], s[lvl], sizeof s[0]) &&
                   !memcmp(z[0], z[lvl], sizeof z[0]),
               "level %d quantises unlike scalar", lvl);
    }
    /* dequantised values are within half a step of the input */
    double worst = 0;
    for (int i = 0; i < N; i++)
        for (int p = 0; p < IN; p++) {
            double d = fabs((q[0][i * IN + p] - z[0][i]) * (double)s[0][i] - x[i * IN + p]);
            worst = d / s[0][i] > worst ? d / s[0][i] : worst;
        }
    CHECKF(worst <= 0.5 + 1e-3, "dequantised error %g steps", worst);
    /* an Inf deep in a long row is found by the vector loops too */
    x[17 * IN + 90] = INFINITY;
    for (int lvl = 0; lvl < 3; lvl++) {
        sb_layers_set_level(lvl);
        CHECK_EQ_INT(sb_quant_activations(x, N, IN, SB_QUANT_PER_ROW, q[0], s[0], z[0], 1, "l", &e),
                     SB_EFAIL);
        CHECKF(strstr(e.msg, "row 17") != NULL, "level %d: %s", lvl, e.msg);
    }
    sb_layers_set_level(SB_LAYERS_AUTO);
}

/* GELU fused into the per-row quantisation gives the bytes, scales and zero
 * points of GELU then quantisation, at every element-wise level; NaN made by
 * GELU's input is still found, with its row. */
/* 7-bit activations: every byte below 128, within half a step of the input */
static void test_7bit(void)
{
    enum { N = 9, IN = 77 };
    float x[N * IN], s[N];
    uint8_t q[N * IN];
    int32_t z[N];
    for (int i = 0; i < N * IN; i++) x[i] = 3 * frnd() + (i % 3 == 0 ? 1.0f : 0.0f);
    sb_err e = {0};
    for (int t = 0; t < 2; t++) {
        sb_quant_mode m = SB_QUANT_7BIT | (t ? SB_QUANT_PER_TENSOR : SB_QUANT_PER_ROW);
        CHECK_EQ_INT(sb_quant_activations(x, N, IN, m, q, s, z, 1, "l", &e), SB_OK);
        int top = 0;
        double worst = 0;
        for (int i = 0; i < N; i++)
            for (int p = 0; p < IN; p++) {
                top = q[i * IN + p] > top ? q[i * IN + p] : top;
                double d = fabs((q[i * IN + p] - z[i]) * (double)s[i] - x[i * IN + p]) / s[i];
                worst = d > worst ? d : worst;
            }
        CHECKF(top <= 127 && top >= 120, "%s: largest byte %d", sb_quant_mode_name(m), top);
        CHECKF(worst <= 0.5 + 1e-3, "%s: dequantised error %g steps", sb_quant_mode_name(m), worst);
    }
    sb_quant_mode m;
    CHECK(sb_quant_mode_parse("row7", &m) == 0 && m == (SB_QUANT_PER_ROW | SB_QUANT_7BIT));
    CHECK(sb_quant_mode_parse("tensor7", &m) == 0 && m == (SB_QUANT_PER_TENSOR | SB_QUANT_7BIT));
    CHECK(sb_quant_mode_parse("row8", &m) == -1 && sb_quant_mode_parse(NULL, &m) == -1);
}

static void test_gelu_fused(void)
{
    enum { N = 23, IN = 333 };
    static float x[N * IN], g[N * IN];
    static uint8_t q0[N * IN], q1[N * IN];
    float s0[N], s1[N];
    int32_t z0[N], z1[N];
    for (int i = 0; i < N * IN; i++) x[i] = 4 * frnd();
    sb_err e = {0};
    for (int lvl = 0; lvl < 3; lvl++) {
        if (sb_layers_set_level(lvl) != lvl) continue;
        sb_gelu_forward(g, x, (size_t)N * IN, 2);
        CHECK_EQ_INT(sb_quant_activations(g, N, IN, SB_QUANT_PER_ROW, q0, s0, z0, 2, "l", &e),
                     SB_OK);
        CHECK_EQ_INT(sb_quant_activations_gelu(x, N, IN, SB_QUANT_PER_ROW, q1, s1, z1, 2, "l", &e),
                     SB_OK);
        CHECKF(!memcmp(q0, q1, sizeof q0) && !memcmp(s0, s1, sizeof s0) &&
                   !memcmp(z0, z1, sizeof z0),
               "level %d: fused GELU quantises unlike GELU then quantisation", lvl);
        x[9 * IN + 300] = -INFINITY; /* gelu(-inf) is NaN */
        CHECK_EQ_INT(sb_quant_activations_gelu(x, N, IN, SB_QUANT_PER_ROW, q1, s1, z1, 2,
                                               "layer.2.ffn.lin2", &e),
                     SB_EFAIL);
        CHECKF(strstr(e.msg, "layer.2.ffn.lin2") && strstr(e.msg, "row 9"), "message: %s", e.msg);
        x[9 * IN + 300] = 0.5f;
    }
    sb_layers_set_level(SB_LAYERS_AUTO);
}

/* The epilogue against the exact integer product, unpacked and packed. */
static void test_epilogue(const sb_kernel *k, int m, int n, int kk, int threads)
{
    if (!runs(k)) {
        printf("  %s: cannot run here; skipped\n", k->name);
        return;
    }
    uint8_t *A = malloc((size_t)m * kk);
    int8_t *B = malloc((size_t)n * kk); /* [n,k]: op(B) = B^T, as a linear layer */
    int32_t *ref = malloc(sizeof(int32_t) * m * n);
    float *C = malloc(sizeof(float) * m * n), *want = malloc(sizeof(float) * m * n);
    double *mag = malloc(sizeof(double) * m * n);
    float *as = malloc(sizeof(float) * m), *bs = malloc(sizeof(float) * n);
    float *bias = malloc(sizeof(float) * n);
    int32_t *zp = malloc(sizeof(int32_t) * m), *cs = calloc(n, sizeof(int32_t));
    for (int i = 0; i < m * kk; i++) A[i] = (uint8_t)(rnd() & 255);
    for (int i = 0; i < n * kk; i++) B[i] = (int8_t)((int)(rnd() % 255) - 127);
    for (int j = 0; j < n; j++)
        for (int p = 0; p < kk; p++) cs[j] += B[(size_t)j * kk + p];
    for (int i = 0; i < m; i++) {
        as[i] = 0.001f + 0.01f * (float)(rnd() % 100) / 100;
        zp[i] = (int32_t)(rnd() % 256);
    }
    for (int j = 0; j < n; j++) {
        bs[j] = 0.002f + 0.01f * (float)(rnd() % 100) / 100;
        bias[j] = frnd();
    }
    sb_gemm_desc d = {.transa = 'N',
                      .transb = 'T',
                      .m = m,
                      .n = n,
                      .k = kk,
                      .lda = kk,
                      .ldb = kk,
                      .ldc = n,
                      .alpha = 1,
                      .beta = 0,
                      .threads = threads};
    CHECK_EQ_INT(sb_gemm_ref_u8s8(&d, A, B, ref), 0);
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            double exact = (double)as[i] * bs[j] * ((double)ref[i * n + j] - (double)zp[i] * cs[j]);
            want[i * n + j] = (float)(exact + bias[j]);
            mag[i * n + j] = fabs(exact) + fabs(bias[j]) + 1e-30;
        }
    sb_dequant dq = {.a_scale = as, .a_zp = zp, .b_scale = bs, .b_colsum = cs, .bias = bias};
    d.dequant = &dq;
    for (int packed = 0; packed < 2; packed++) {
        sb_err e = {0};
        memset(C, 0xff, sizeof(float) * m * n);
        int rc;
        sb_packed_b *pb = NULL;
        if (packed) {
            if (!k->pack_b) continue;
            rc = k->pack_b(&d, B, &pb, &e);
            if (!rc) rc = k->gemm_packed(&d, A, pb, C, &e);
            sb_packed_b_free(pb);
        } else {
            rc = k->gemm_u8s8(&d, A, B, (int32_t *)(void *)C, &e);
        }
        CHECKF(rc == SB_OK, "%s: %s", k->name, e.msg);
        double worst = 0;
        for (int i = 0; i < m * n; i++) {
            double err = fabs((double)C[i] - want[i]) / mag[i];
            if (!(err <= worst)) worst = err;
        }
        /* f32 rounding of scale * scale * integer + bias: a few ulps of the
         * terms' size (a wrong zero-point term or a lost k block is far off) */
        CHECKF(worst < 1e-6, "%s %dx%dx%d %s: worst relative error %g", k->name, m, n, kk,
               packed ? "packed" : "unpacked", worst);
    }
    /* the epilogue needs beta 0 */
    sb_err e = {0};
    d.beta = 1;
    CHECK_EQ_INT(k->gemm_u8s8(&d, A, B, (int32_t *)(void *)C, &e), SB_EUSAGE);
    free(A);
    free(B);
    free(ref);
    free(C);
    free(want);
    free(as);
    free(bs);
    free(bias);
    free(zp);
    free(cs);
    free(mag);
}

/* A small model, randomly initialised (weights std 0.1 so activations spread) */
static int make_model(sb_model *m, const sb_kernel *k, int B, int S)
{
    sb_model_config c;
    sb_model_config_tiny(&c);
    c.vocab = 200;
    c.max_pos = 64;
    sb_err e = {0};
    if (sb_model_create(m, &c, k, 2, &e) || sb_model_alloc_acts_infer(m, B, S, &e)) {
        fprintf(stderr, "model: %s\n", e.msg);
        return 1;
    }
    sb_model_init_random_std(m, 7, 0.1f);
    return 0;
}

enum { TB = 3, TS = 16 };
static int32_t g_ids[TB * TS];
static uint8_t g_mask[TB * TS];

/* logits[TB*TS*2] of the batch through kernel k's inference path */
static int logits_attn(const sb_kernel *k, sb_quant_mode qm, float *out, int batch1, int attn8)
{
    sb_model m;
    if (make_model(&m, k->dtype == SB_DT_INT8 ? sb_infer_attn_kernel(k) : k, TB, TS)) return 1;
    sb_infer *in = NULL;
    sb_err e = {0};
    int rc = sb_infer_attach(&m, k, qm, &in, &e);
    if (!rc && attn8) rc = sb_infer_int8_attention(&m, in, &e);
    for (int b0 = 0; !rc && b0 < TB; b0 += batch1 ? 1 : TB) {
        int nb = batch1 ? 1 : TB;
        sb_batch bt = {.B = nb, .S = TS, .ids = g_ids + b0 * TS, .mask = g_mask + b0 * TS};
        rc = sb_model_forward(&m, &bt, 0, 0, NULL, &e);
        if (!rc) memcpy(out + (size_t)b0 * TS * 2, m.logits, sizeof(float) * nb * TS * 2);
    }
    if (rc) fprintf(stderr, "%s: %s\n", k->name, e.msg);
    sb_infer_detach(&m, in);
    sb_model_free(&m);
    return rc;
}

static int logits_of(const sb_kernel *k, sb_quant_mode qm, float *out, int batch1)
{
    return logits_attn(k, qm, out, batch1, 0);
}

static double max_abs(const float *a, int n)
{
    double m = 0;
    for (int i = 0; i < n; i++) m = fabs(a[i]) > m ? fabs(a[i]) : m;
    return m;
}
static void test_model(void)
{
    for (int i = 0; i < TB * TS; i++) {
        g_ids[i] = 1 + (int32_t)(rnd() % 199);
        g_mask[i] = (i % TS) < TS - 3 * (i / TS); /* sequences of 16, 13, 10 tokens */
    }
    const int n = TB * TS * 2;
    float f32[TB * TS * 2], got[TB * TS * 2], other[TB * TS * 2];
    const sb_kernel *kf = sb_kernel_find("avx512-f32");
    if (!runs(kf)) kf = sb_kernel_find("avx2-f32");
    if (!runs(kf)) kf = sb_kernel_find("scalar-f32");
    CHECK_EQ_INT(logits_of(kf, SB_QUANT_PER_ROW, f32, 0), 0);
    double scale = max_abs(f32, n);
    CHECK(scale > 0.1);
    /* the f32 path through packed weights against the plain kernel path */
    {
        sb_model m;
        CHECK_EQ_INT(make_model(&m, kf, TB, TS), 0);
        sb_err e = {0};
        sb_batch bt = {.B = TB, .S = TS, .ids = g_ids, .mask = g_mask};
        CHECK_EQ_INT(sb_model_forward(&m, &bt, 0, 0, NULL, &e), 0);
        CHECKF(test_max_diff(m.logits, f32, n) <= 1e-4 * scale, "f32 packed vs plain: %g",
               test_max_diff(m.logits, f32, n));
        sb_model_free(&m);
    }
    /* every int8 kernel that runs here, and the tile model's amx-int8 */
    const char *int8[] = {"vnni-int8", "avx2-int8", "onednn-int8", "amx-int8"};
    float vnni[TB * TS * 2];
    int have_vnni = 0;
    for (size_t i = 0; i < sizeof int8 / sizeof *int8; i++) {
        const sb_kernel *k = sb_kernel_find(int8[i]);
        if (!runs(k)) {
            printf("  %s: cannot run here; skipped\n", int8[i]);
            continue;
        }
        /* row, tensor, and both on 7 bits (avx2-int8: its vpmaddubsw path) */
        for (int qm = 0; qm < 4; qm++) {
            CHECK_EQ_INT(logits_of(k, (sb_quant_mode)qm, got, 0), 0);
            double d = test_max_diff(got, f32, n);
            printf("  %s (%s): max |logit - f32| %.4f (logits up to %.3f)\n", k->name,
                   sb_quant_mode_name((sb_quant_mode)qm), d, scale);
            CHECKF(d < 0.05 * scale, "%s: int8 logits %g away from f32", k->name, d);
            /* with the attention's products in int8 too (sb_qattn) */
            CHECK_EQ_INT(logits_attn(k, (sb_quant_mode)qm, other, 0, 1), 0);
            double da = test_max_diff(other, f32, n);
            printf("  %s (%s), int8 attention: max |logit - f32| %.4f\n", k->name,
                   sb_quant_mode_name((sb_quant_mode)qm), da);
            CHECKF(da < 0.05 * scale, "%s: int8-attention logits %g away from f32", k->name, da);
            if (qm == 0 && !strcmp(k->name, "vnni-int8")) {
                memcpy(vnni, got, sizeof got);
                have_vnni = 1;
            }
        }
        /* per row is batch-invariant: batch 1 gives the same logits as batch 3 */
        CHECK_EQ_INT(logits_of(k, SB_QUANT_PER_ROW, other, 1), 0);
        CHECK_EQ_INT(logits_of(k, SB_QUANT_PER_ROW, got, 0), 0);
        CHECKF(test_max_diff(got, other, n) == 0, "%s: batch 1 vs batch 3 differ by %g", k->name,
               test_max_diff(got, other, n));
    }
    /* AMX-INT8 through the same path on the tile model: its s32 products are
     * exact like VNNI's, so with the same attention kernel every logit is the
     * same bit for bit */
    if (!runs(&sb_kernel_amx_int8_model)) {
        printf("  amx-int8-model: cannot run here (needs AVX-512); skipped\n");
    } else {
        CHECK_EQ_INT(logits_of(&sb_kernel_amx_int8_model, SB_QUANT_PER_ROW, got, 0), 0);
        CHECKF(test_max_diff(got, f32, n) < 0.05 * scale, "amx-int8-model: %g from f32",
               test_max_diff(got, f32, n));
    }
    if (have_vnni && runs(&sb_kernel_amx_int8_model) &&
        sb_infer_attn_kernel(&sb_kernel_amx_int8_model) ==
            sb_infer_attn_kernel(sb_kernel_find("vnni-int8")))
        CHECKF(test_max_diff(got, vnni, n) == 0, "amx-int8-model vs vnni-int8: %g",
               test_max_diff(got, vnni, n));
    /* bf16: avx512-bf16 and AMX-BF16 on the tile model, close to f32 */
    const sb_kernel *bf[] = {sb_kernel_find("avx512-bf16"), sb_kernel_find("onednn-bf16"),
                             &sb_kernel_amx_bf16_model};
    for (size_t i = 0; i < sizeof bf / sizeof *bf; i++) {
        if (!runs(bf[i])) {
            printf("  %s: cannot run here; skipped\n", bf[i] ? bf[i]->name : "?");
            continue;
        }
        CHECK_EQ_INT(logits_of(bf[i], SB_QUANT_PER_ROW, got, 0), 0);
        double d = test_max_diff(got, f32, n);
        printf("  %s: max |logit - f32| %.4f\n", bf[i]->name, d);
        CHECKF(d < 0.05 * scale, "%s: bf16 logits %g away from f32", bf[i]->name, d);
    }
}

/* NaN reaching a quantised layer: an error naming that layer. */
static void test_nan_layer(void)
{
    const sb_kernel *k = sb_kernel_find("vnni-int8");
    if (!runs(k)) k = sb_kernel_find("avx2-int8");
    if (!runs(k)) return;
    sb_model m;
    CHECK_EQ_INT(make_model(&m, sb_infer_attn_kernel(k), TB, TS), 0);
    sb_infer *in = NULL;
    sb_err e = {0};
    CHECK_EQ_INT(sb_infer_attach(&m, k, SB_QUANT_PER_ROW, &in, &e), 0);
    /* the FFN's first layer of layer 1 gets an Inf bias: lin1's output holds
     * Inf, GELU keeps it, lin2 must refuse to quantise it */
    m.w.layer[1].f1_b[5] = INFINITY;
    sb_batch bt = {.B = TB, .S = TS, .ids = g_ids, .mask = g_mask};
    int rc = sb_model_forward(&m, &bt, 0, 0, NULL, &e);
    CHECK(rc != SB_OK);
    CHECKF(strstr(e.msg, "transformer.layer.1.ffn.lin2") != NULL, "message: %s", e.msg);
    sb_infer_detach(&m, in);
    /* a NaN weight: refused when the layer is quantised, named */
    m.w.layer[0].o_w[3] = NAN;
    CHECK_EQ_INT(sb_infer_attach(&m, k, SB_QUANT_PER_ROW, &in, &e), SB_EUSAGE);
    CHECKF(strstr(e.msg, "transformer.layer.0.attention.out_lin") != NULL, "message: %s", e.msg);
    sb_model_free(&m);
}

int main(void)
{
    test_weights();
    test_activations();
    test_levels();
    test_gelu_fused();
    test_7bit();
    const char *ks[] = {"vnni-int8", "avx2-int8", "onednn-int8"};
    for (size_t i = 0; i < sizeof ks / sizeof *ks; i++) {
        const sb_kernel *k = sb_kernel_find(ks[i]);
        test_epilogue(k, 37, 70, 300, 2);
        test_epilogue(k, 5, 2, 64, 1);
        test_epilogue(k, 130, 96, 3072, 2); /* several k blocks */
    }
    test_epilogue(&sb_kernel_amx_int8_model, 37, 70, 300, 2);
    test_epilogue(&sb_kernel_amx_int8_model, 33, 40, 1100, 1);
    test_epilogue(&sb_kernel_avx2_int8_vnni_model, 37, 70, 300, 2);
    test_model();
    test_nan_layer();
    return test_report("test_infer_quant");
}
