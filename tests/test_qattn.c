/* Int8 attention (sb_qattn) against the f32 attention on the same q, k, v:
 * every int8 kernel that runs here (8 and 7 bits; the AVX-VNNI and AMX tile
 * models everywhere), padded sequences, all keys, the AVX2 and scalar
 * element-wise code, bad shapes and NaN; and the hook as sb_attention_forward
 * takes it. The f32 attention itself against its definition (ctest runs this
 * again with SB_ATTN_ROWS=12: query rows in blocks of 12, 12, 12 and 1). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "sb_kernel.h"
#include "sb_attention.h"
#include "sb_layers.h"
#include "sb_qattn.h"
#include "testutil.h"

static uint64_t g_rng = 0x9e3779b97f4a7c15ULL;
static float frnd(void)
{
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 7;
    g_rng ^= g_rng << 17;
    return (float)((g_rng >> 11) % 20001) / 10000.0f - 1.0f;
}

static int runs(const sb_kernel *k)
{
    char why[256];
    return k && k->probe(why, sizeof why);
}

enum { B = 2, S = 37, D = 64, H = 2, DH = D / H };
static float g_qkv[B * S * 3 * D];
static uint8_t g_mask[B * S];

static const sb_kernel *f32_kernel(void)
{
    const char *names[] = {"avx2-f32", "scalar-f32"};
    for (size_t i = 0; i < 2; i++)
        if (runs(sb_kernel_find(names[i]))) return sb_kernel_find(names[i]);
    return NULL;
}

/* An int8 attention for this file's shape on the AVX-VNNI model (exact
 * products, runs on every AVX2 CPU); NULL where it cannot run. */
static sb_qattn *model_qattn(int qmax)
{
    const sb_kernel *k = &sb_kernel_avx2_int8_vnni_model;
    sb_qattn *qa = NULL;
    sb_err e = {0};
    if (runs(k)) CHECK_EQ_INT(sb_qattn_create(k, qmax, B, S, D, H, 2, &qa, &e), SB_OK);
    return qa;
}

/* ctx through the f32 attention (hook unset) or through qa */
static int attend(sb_qattn *qa, int all_keys, float *ctx, sb_err *e)
{
    sb_lctx c = {.kernel = f32_kernel(), .threads = 2, .all_keys = all_keys};
    static float scratch[2 * (S * S + 3 * S)];
    if (qa) {
        c.attention = sb_qattn_forward;
        c.attention_user = qa;
    }
    return sb_attention_forward(&c, ctx, NULL, NULL, g_qkv, g_mask, B, S, D, H, 0.0f, 0, scratch,
                                e);
}

/* ctx by the definition, in double: softmax over the keys a sequence uses
 * (all of them with all_keys; padded ones weigh 0) */
static void naive(int all_keys, float *ctx)
{
    for (int b = 0; b < B; b++) {
        const uint8_t *m = g_mask + b * S;
        int n = S;
        while (!all_keys && n > 0 && !m[n - 1]) n--;
        for (int h = 0; h < H; h++)
            for (int i = 0; i < S; i++) {
                const float *q = g_qkv + ((size_t)b * S + i) * 3 * D + h * DH;
                double sc[S], mx = -1e300, sum = 0;
                for (int j = 0; j < n; j++) {
                    const float *k = g_qkv + ((size_t)b * S + j) * 3 * D + D + h * DH;
                    double t = 0;
                    for (int d = 0; d < DH; d++) t += (double)q[d] * k[d];
                    sc[j] = m[j] ? t / sqrt((double)DH) : -1e300;
                    mx = sc[j] > mx ? sc[j] : mx;
                }
                for (int j = 0; j < n; j++) sum += sc[j] = m[j] ? exp(sc[j] - mx) : 0;
                for (int d = 0; d < DH; d++) {
                    double t = 0;
                    for (int j = 0; j < n; j++)
                        t += sc[j] * g_qkv[((size_t)b * S + j) * 3 * D + 2 * D + h * DH + d];
                    ctx[((size_t)b * S + i) * D + h * DH + d] = (float)(t / sum);
                }
            }
    }
}

static void test_kernels(void)
{
    for (int i = 0; i < B * S * 3 * D; i++) g_qkv[i] = 2.0f * frnd();
    for (int i = 0; i < B * S; i++) g_mask[i] = i / S == 0 || i % S < 20; /* 37 and 20 tokens */
    const sb_kernel *ks[] = {sb_kernel_find("avx2-int8"), sb_kernel_find("vnni-int8"),
                             sb_kernel_find("onednn-int8"), sb_kernel_find("amx-int8"),
                             &sb_kernel_avx2_int8_u7, &sb_kernel_avx2_int8_vnni_model,
                             &sb_kernel_amx_int8_model};
    static float ref[B * S * D], got[B * S * D];
    for (int all = 0; all < 2; all++) {
        sb_err e = {0};
        CHECK_EQ_INT(attend(NULL, all, ref, &e), SB_OK);
        double scale = 0;
        for (int i = 0; i < B * S * D; i++) scale = fabs(ref[i]) > scale ? fabs(ref[i]) : scale;
        CHECK(scale > 0.1);
        /* the f32 path itself (in query-row blocks under SB_ATTN_ROWS) by the definition */
        naive(all, got);
        CHECKF(test_max_diff(ref, got, B * S * D) < 1e-5 * scale, "f32 attention: %g from the definition",
               test_max_diff(ref, got, B * S * D));
        for (size_t i = 0; i < sizeof ks / sizeof *ks; i++) {
            if (!runs(ks[i])) {
                if (!all && ks[i]) printf("  %s: cannot run here; skipped\n", ks[i]->name);
                continue;
            }
            /* the 7-bit path only on 7 bits; the others on both widths */
            for (int qmax = 127; qmax <= 255; qmax += 128) {
                if (qmax == 255 && ks[i] == &sb_kernel_avx2_int8_u7) continue;
                sb_qattn *qa = NULL;
                CHECK_EQ_INT(sb_qattn_create(ks[i], qmax, B, S, D, H, 2, &qa, &e), SB_OK);
                if (!qa) continue;
                memset(got, 0xff, sizeof got); /* NaN: every element must be written */
                CHECK_EQ_INT(attend(qa, all, got, &e), SB_OK);
                double d = test_max_diff(got, ref, B * S * D);
                printf("  %s, %d levels%s: max |ctx - f32| %.4f (ctx up to %.3f)\n", ks[i]->name,
                       qmax + 1, all ? ", all keys" : "", d, scale);
                /* 7-bit probabilities are the coarsest step: about 1 % of the range */
                CHECKF(d < (qmax == 127 ? 0.04 : 0.02) * scale, "%s: %g from f32", ks[i]->name, d);
                sb_qattn_free(qa);
            }
        }
    }
}

/* AVX2 and scalar element-wise code: the quantised q, k, v are the same
 * numbers; the softmax agrees to rounding, so the outputs agree closely. */
static void test_levels(void)
{
    sb_qattn *qa = model_qattn(255);
    if (!qa) return;
    static float a[B * S * D], b[B * S * D];
    sb_err e = {0};
    CHECK_EQ_INT(attend(qa, 0, a, &e), SB_OK);
    int was = sb_layers_level();
    sb_layers_set_level(SB_LAYERS_SCALAR);
    CHECK_EQ_INT(attend(qa, 0, b, &e), SB_OK);
    sb_layers_set_level(SB_LAYERS_AUTO);
    double d = test_max_diff(a, b, B * S * D);
    printf("  levels %s vs scalar: max diff %.2e\n", sb_layers_level_name(was), d);
    CHECKF(d < 1e-2, "AVX2 vs scalar int8 attention differ by %g", d);
    sb_qattn_free(qa);
}

static void test_errors(void)
{
    const sb_kernel *k = &sb_kernel_avx2_int8_vnni_model;
    sb_err e = {0};
    sb_qattn *qa = NULL;
    CHECK_EQ_INT(sb_qattn_create(f32_kernel(), 255, B, S, D, H, 2, &qa, &e), SB_EUSAGE);
    CHECK(qa == NULL);
    CHECK_EQ_INT(sb_qattn_create(k, 200, B, S, D, H, 2, &qa, &e), SB_EUSAGE);
    if (!runs(k)) return;
    CHECK_EQ_INT(sb_qattn_create(k, 255, B, S, D + 1, H, 2, &qa, &e), SB_EUSAGE);
    /* made for shorter sequences, fewer sequences or other heads: refused, not overrun */
    static float ctx[B * S * D];
    const int shapes[][4] = {{B, S - 1, D, H}, {B - 1, S, D, H}, {B, S, D, 2 * H}};
    for (int i = 0; i < 3; i++) {
        CHECK_EQ_INT(sb_qattn_create(k, 255, shapes[i][0], shapes[i][1], shapes[i][2],
                                     shapes[i][3], 2, &qa, &e),
                     SB_OK);
        CHECK_EQ_INT(attend(qa, 0, ctx, &e), SB_EUSAGE);
        sb_qattn_free(qa);
    }
    /* NaN in v of sequence 1 at position 3: an error naming them; past the
     * sequence's last real token (position 30 of 20) v is never read */
    CHECK_EQ_INT(sb_qattn_create(k, 255, B, S, D, H, 2, &qa, &e), SB_OK);
    size_t at = (size_t)(S + 3) * 3 * D + 2 * D + DH + 5, pad = (size_t)(S + 30) * 3 * D + 2 * D;
    float keep = g_qkv[at];
    g_qkv[at] = NAN;
    CHECK_EQ_INT(attend(qa, 0, ctx, &e), SB_EFAIL);
    CHECKF(strstr(e.msg, "v (sequence 1, position 3)") != NULL, "message: %s", e.msg);
    g_qkv[at] = keep;
    keep = g_qkv[pad];
    g_qkv[pad] = INFINITY;
    CHECK_EQ_INT(attend(qa, 0, ctx, &e), SB_OK);
    g_qkv[pad] = keep;
    /* Inf in q: named too */
    keep = g_qkv[7];
    g_qkv[7] = -INFINITY;
    CHECK_EQ_INT(attend(qa, 0, ctx, &e), SB_EFAIL);
    CHECKF(strstr(e.msg, "q or k (sequence 0, position 0)") != NULL, "message: %s", e.msg);
    g_qkv[7] = keep;
    sb_qattn_free(qa);
}

/* Query-row blocks change no number: 1 row, 12 rows and one block give the
 * same bytes, f32 and int8 alike. */
static void test_blocks(void)
{
    static float one[B * S * D], got[B * S * D];
    sb_err e = {0};
    sb_qattn *qa = model_qattn(255);
    for (int q = 0; q < (qa ? 2 : 1); q++) {
        sb_attention_set_block_rows(S);
        CHECK_EQ_INT(attend(q ? qa : NULL, 1, one, &e), SB_OK);
        for (int rows = 1; rows <= 12; rows += 11) {
            sb_attention_set_block_rows(rows);
            CHECK_EQ_INT(attend(q ? qa : NULL, 1, got, &e), SB_OK);
            CHECKF(!memcmp(one, got, sizeof one), "%s attention in blocks of %d rows differs",
                   q ? "int8" : "f32", rows);
        }
    }
    sb_attention_set_block_rows(0);
    sb_qattn_free(qa);
}

/* The hook is for inference alone: with probabilities to keep (training) or
 * dropout, sb_attention_forward runs its own f32 path whatever is hooked. */
static void test_hook_bypassed(void)
{
    sb_qattn *qa = model_qattn(255);
    if (!qa) return;
    sb_err e = {0};
    static float a[B * S * D], b[B * S * D], probs[B * H * S * S], scratch[2 * (S * S + 3 * S)];
    static uint32_t bits[B * H * S * ((S + 31) / 32)];
    sb_lctx c = {.kernel = f32_kernel(), .threads = 2};
    for (int drop = 0; drop < 2; drop++) {
        float p = drop ? 0.1f : 0.0f;
        float *pr = drop ? NULL : probs;
        c.attention = NULL;
        CHECK_EQ_INT(sb_attention_forward(&c, a, pr, bits, g_qkv, g_mask, B, S, D, H, p, 7,
                                          scratch, &e),
                     SB_OK);
        c.attention = sb_qattn_forward;
        c.attention_user = qa;
        memset(b, 0xff, sizeof b);
        CHECK_EQ_INT(sb_attention_forward(&c, b, pr, bits, g_qkv, g_mask, B, S, D, H, p, 7,
                                          scratch, &e),
                     SB_OK);
        CHECKF(!memcmp(a, b, sizeof a), "the hook was taken with %s",
               drop ? "dropout" : "probabilities to keep");
    }
    sb_qattn_free(qa);
}

/* A sequence without a real token: its context rows are 0, not NaN. */
static void test_empty_sequence(void)
{
    sb_qattn *qa = model_qattn(127);
    if (!qa) return;
    sb_err e = {0};
    uint8_t keep[B * S];
    memcpy(keep, g_mask, sizeof keep);
    memset(g_mask + S, 0, S); /* sequence 1: padding only */
    static float ctx[B * S * D];
    memset(ctx, 0xff, sizeof ctx);
    CHECK_EQ_INT(attend(qa, 0, ctx, &e), SB_OK);
    int zero = 1, finite = 1;
    for (int i = 0; i < B * S * D; i++) {
        finite &= ctx[i] == ctx[i];
        if (i >= S * D) zero &= ctx[i] == 0.0f;
    }
    CHECK(finite && zero);
    memcpy(g_mask, keep, sizeof keep);
    sb_qattn_free(qa);
}

int main(void)
{
    test_kernels();
    test_blocks();
    test_hook_bypassed();
    test_empty_sequence();
    test_levels();
    test_errors();
    return test_report("test_qattn");
}
