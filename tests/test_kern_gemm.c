/* Every kernel against the scalar reference: shapes 1..67 per dimension (all
 * edges around the register blocks and, with shrunken caches, around the
 * MC/KC/NC blocks, plus a random sample), the transposes, leading dimensions
 * larger than the matrix, unaligned pointers, alpha/beta, threads 1 and 2,
 * the bf16-in and pre-packed entries, and the AMX kernels on the tile model.
 * Inputs are small integers, so f32, bf16 and int8 results are exact: any
 * difference beyond the stated 1e-6 relative tolerance is a bug. Kernels the
 * machine cannot run must say why and refuse cleanly. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "sb_kernel.h"
#include "sb_onednn.h"
#include "testutil.h"

extern const sb_kernel sb_kernel_amx_bf16_model, sb_kernel_amx_int8_model;

#define TOL 1e-6
#define SENTINEL_F -7777.0f
#define SENTINEL_I (-777777)

static uint32_t g_seed = 20261129u;
static uint32_t rnd(void)
{
    g_seed = g_seed * 1664525u + 1013904223u;
    return g_seed >> 8;
}
static int rnd_in(int lo, int hi) { return lo + (int)(rnd() % (uint32_t)(hi - lo + 1)); }

typedef struct {
    int m, n, k;
    char ta, tb;
    int pad_a, pad_b, pad_c;    /* extra elements per row */
    int offset;                 /* elements the matrices start past an aligned address */
    float alpha, beta;
    int threads;
} gcase;

static int g_cases, g_fail_cases;

static void describe(const sb_kernel *K, const gcase *c, const char *what)
{
    fprintf(stderr, "  %s: %s m=%d n=%d k=%d trans=%c%c pads=%d,%d,%d off=%d alpha=%g beta=%g "
                    "threads=%d\n", K->name, what, c->m, c->n, c->k, c->ta, c->tb, c->pad_a,
            c->pad_b, c->pad_c, c->offset, c->alpha, c->beta, c->threads);
}

static uint16_t to_bf16(float f)
{
    union { float f; uint32_t u; } v = {f};
    return (uint16_t)((v.u + 0x7fffu + ((v.u >> 16) & 1u)) >> 16);
}

/* mode 0: gemm_f32 / gemm_u8s8; 1: gemm_bf16; 2: pack_b + gemm_packed */
static int run_case(const sb_kernel *K, const gcase *c, int mode)
{
    int is8 = K->dtype == SB_DT_INT8;
    size_t es = is8 ? 1 : 4;
    int a_rows = c->ta == 'N' ? c->m : c->k, a_cols = c->ta == 'N' ? c->k : c->m;
    int b_rows = c->tb == 'N' ? c->k : c->n, b_cols = c->tb == 'N' ? c->n : c->k;
    sb_gemm_desc d = {c->ta, c->tb, c->m, c->n, c->k, a_cols + c->pad_a, b_cols + c->pad_b,
                      c->n + c->pad_c, c->alpha, c->beta, c->threads, NULL};
    size_t na = (size_t)a_rows * d.lda, nb = (size_t)b_rows * d.ldb, nc = (size_t)c->m * d.ldc;
    size_t off = (size_t)c->offset;
    /* exact sizes, so a sanitizer build catches any read past a matrix */
    char *Araw = malloc((na + off) * es);
    char *Braw = malloc((nb + off) * es);
    char *Craw = malloc((nc + off) * 4);
    char *Rraw = malloc(nc * 4 + 4);
    void *A = Araw + off * es, *B = Braw + off * es, *C = Craw + off * 4;
    uint16_t *Ah = NULL, *Bh = NULL;
    for (size_t i = 0; i < na; i++) {
        if (is8) ((uint8_t *)A)[i] = (uint8_t)rnd_in(0, 6);
        else ((float *)A)[i] = (float)rnd_in(-3, 3);
    }
    for (size_t i = 0; i < nb; i++) {
        if (is8) ((int8_t *)B)[i] = (int8_t)rnd_in(-4, 4);
        else ((float *)B)[i] = (float)rnd_in(-3, 3);
    }
    /* C: small integers inside the matrix, a sentinel in the ldc padding. */
    for (int i = 0; i < c->m; i++)
        for (int j = 0; j < d.ldc; j++) {
            size_t x = (size_t)i * d.ldc + j;
            if (is8) ((int32_t *)C)[x] = j < c->n ? rnd_in(-9, 9) : SENTINEL_I;
            else ((float *)C)[x] = j < c->n ? (float)rnd_in(-9, 9) : SENTINEL_F;
        }
    /* f32 C: half the cases carry a bias (added after the product) */
    float *bias = NULL;
    if (!is8 && (rnd() & 1)) {
        bias = malloc(sizeof *bias * (size_t)c->n);
        for (int j = 0; j < c->n; j++) bias[j] = (float)rnd_in(-5, 5);
        d.bias = bias;
    }
    memcpy(Rraw, C, nc * 4);
    if (is8) sb_gemm_ref_u8s8(&d, A, B, (int32_t *)Rraw);
    else sb_gemm_ref_f32(&d, A, B, (float *)Rraw);

    sb_err e = {0};
    int rc = SB_EFAIL;
    sb_packed_b *pb = NULL;
    if (mode == 0) {
        rc = is8 ? K->gemm_u8s8(&d, A, B, C, &e) : K->gemm_f32(&d, A, B, C, &e);
    } else if (mode == 1) {
        Ah = malloc(na * 2 + 2);
        Bh = malloc(nb * 2 + 2);
        for (size_t i = 0; i < na; i++) Ah[i + 1] = to_bf16(((float *)A)[i]);
        for (size_t i = 0; i < nb; i++) Bh[i + 1] = to_bf16(((float *)B)[i]);
        /* +1: two-byte aligned only */
        rc = K->gemm_bf16(&d, Ah + 1, Bh + 1, C, &e);
    } else {
        rc = K->pack_b(&d, B, &pb, &e);
        /* scribble over B: the packed copy must be all the call uses */
        if (!rc) memset(B, 0x55, nb * es);
        if (!rc) rc = K->gemm_packed(&d, A, pb, C, &e);
    }
    int bad = 0;
    if (rc != SB_OK) {
        describe(K, c, "returned an error");
        fprintf(stderr, "    %s\n", e.msg);
        bad = 1;
    } else {
        double worst = 0;
        int wi = -1, wj = -1;
        for (int i = 0; i < c->m && !bad; i++)
            for (int j = 0; j < d.ldc; j++) {
                size_t x = (size_t)i * d.ldc + j;
                double got = is8 ? ((int32_t *)C)[x] : ((float *)C)[x];
                double want = is8 ? ((int32_t *)Rraw)[x] : ((float *)Rraw)[x];
                if (j >= c->n) {
                    if (got != want) {
                        describe(K, c, "wrote into the ldc padding");
                        bad = 1;
                        break;
                    }
                    continue;
                }
                double err = fabs(got - want) / fmax(1.0, fabs(want));
                if (!(err <= worst)) {
                    worst = isnan(err) ? INFINITY : err;
                    wi = i;
                    wj = j;
                }
            }
        if (!bad && worst > (is8 ? 0.0 : TOL)) {
            describe(K, c, mode == 1 ? "wrong result (bf16 in)" : mode == 2 ? "wrong result (packed B)" : "wrong result");
            size_t x = (size_t)wi * d.ldc + wj;
            fprintf(stderr, "    C[%d][%d] = %g, reference %g\n", wi, wj,
                    is8 ? (double)((int32_t *)C)[x] : ((float *)C)[x],
                    is8 ? (double)((int32_t *)Rraw)[x] : ((float *)Rraw)[x]);
            bad = 1;
        }
    }
    sb_packed_b_free(pb);
    free(Araw); free(Braw); free(Craw); free(Rraw); free(Ah); free(Bh); free(bias);
    g_cases++;
    if (bad) g_fail_cases++;
    CHECK(!bad);
    return !bad;
}

static void random_alpha_beta(const sb_kernel *K, gcase *c)
{
    static const float ab[][2] = {{1, 0}, {1, 1}, {-2, 0.5f}, {0.5f, -1}, {1, 0}, {3, 0}};
    int i = rnd_in(0, 5);
    c->alpha = ab[i][0];
    c->beta = ab[i][1];
    if (K->dtype == SB_DT_INT8) {
        c->alpha = 1;
        c->beta = (float)rnd_in(0, 1);
    }
}

/* Sizes that sit on and around every register block (12, 32) and AMX tile
 * block (16, 32, 64) below 68. */
static const int g_edges[] = {1, 2, 3, 4, 11, 12, 13, 15, 16, 17, 23, 24, 25, 31, 32, 33,
                              36, 47, 48, 49, 63, 64, 65, 67};
#define N_EDGES (int)(sizeof g_edges / sizeof g_edges[0])

static void test_kernel(const sb_kernel *K, int heavy)
{
    char why[300] = "";
    int ok = K->probe(why, sizeof why);
    if (!ok) {
        printf("  %-16s skipped: %s\n", K->name, why);
        CHECK(why[0] != '\0');
        return;
    }
    int before = g_fail_cases, cases0 = g_cases;
    gcase c;
    /* Each dimension through every edge, the others random. */
    for (int dim = 0; dim < 3; dim++)
        for (int i = 0; i < N_EDGES; i += heavy ? 1 : 2) {
            c = (gcase){rnd_in(1, 67), rnd_in(1, 67), rnd_in(1, 67), "NT"[rnd() & 1],
                        "NT"[rnd() & 1], 0, 0, 0, 0, 1, 0, 1};
            if (dim == 0) c.m = g_edges[i];
            if (dim == 1) c.n = g_edges[i];
            if (dim == 2) c.k = g_edges[i];
            c.threads = 1 + (int)(rnd() & 1);
            random_alpha_beta(K, &c);
            run_case(K, &c, 0);
        }
    /* Every transpose pair with padded leading dimensions and unaligned
     * pointers, at 1 and 2 threads, every alpha/beta pair. */
    static const float ab[][2] = {{1, 0}, {1, 1}, {-2, 0.5f}, {0.5f, -1}};
    for (int t = 0; t < 4; t++)
        for (int th = 1; th <= 2; th++)
            for (int a = 0; a < 4; a++) {
                if (K->dtype == SB_DT_INT8 && a > 1) continue;
                c = (gcase){rnd_in(1, 67), rnd_in(1, 67), rnd_in(1, 67), "NNTT"[t], "NTNT"[t],
                            rnd_in(1, 9), rnd_in(1, 9), rnd_in(1, 9), rnd_in(1, 3), ab[a][0],
                            ab[a][1], th};
                run_case(K, &c, 0);
            }
    /* A random sample. */
    for (int i = 0; i < (heavy ? 40 : 12); i++) {
        c = (gcase){rnd_in(1, 67), rnd_in(1, 67), rnd_in(1, 67), "NT"[rnd() & 1],
                    "NT"[rnd() & 1], rnd_in(0, 3), rnd_in(0, 3), rnd_in(0, 3), rnd_in(0, 2),
                    1, 0, rnd_in(1, 2)};
        random_alpha_beta(K, &c);
        run_case(K, &c, 0);
    }
    /* bf16-in and pre-packed entries. */
    for (int i = 0; i < 8; i++) {
        c = (gcase){rnd_in(1, 67), rnd_in(1, 67), rnd_in(1, 67), "NT"[rnd() & 1],
                    "NT"[rnd() & 1], rnd_in(0, 3), rnd_in(0, 3), rnd_in(0, 3), rnd_in(0, 2),
                    1, 0, 1 + (i & 1)};
        random_alpha_beta(K, &c);
        if (K->gemm_bf16) run_case(K, &c, 1);
        if (K->pack_b && K->gemm_packed) run_case(K, &c, 2);
    }
    printf("  %-16s %d cases, %d wrong\n", K->name, g_cases - cases0, g_fail_cases - before);
}

/* A packed B used with another shape or kernel is refused, not misread. */
static void test_packed_mismatch(const sb_kernel *K, const sb_kernel *other)
{
    char why[300];
    if (!K->pack_b || !K->probe(why, sizeof why)) return;
    int is8 = K->dtype == SB_DT_INT8;
    float Bf[8 * 8] = {0};
    int8_t Bi[8 * 8] = {0};
    const void *B = is8 ? (const void *)Bi : (const void *)Bf;
    sb_gemm_desc d = {'N', 'N', 4, 8, 8, 8, 8, 8, 1, 0, 1, NULL};
    sb_packed_b *pb = NULL;
    sb_err e = {0};
    CHECK_EQ_INT(K->pack_b(&d, B, &pb, &e), SB_OK);
    float A[64] = {0}, C[64];
    uint8_t Ai[64] = {0};
    int32_t Ci[64];
    sb_gemm_desc d2 = d;
    d2.n = 7;
    d2.ldc = 7;
    CHECK_EQ_INT(K->gemm_packed(&d2, is8 ? (void *)Ai : (void *)A, pb, is8 ? (void *)Ci : (void *)C,
                                &e), SB_EUSAGE);
    if (other && other->gemm_packed && other->dtype == K->dtype)
        CHECK_EQ_INT(other->gemm_packed(&d, is8 ? (void *)Ai : (void *)A, pb,
                                        is8 ? (void *)Ci : (void *)C, &e), SB_EUSAGE);
    sb_packed_b_free(pb);
}

/* With SB_FORCE_NO_* set, probes say no with the reason and the entry
 * points refuse with an error instead of running. */
static void test_skip_paths(void)
{
    static const struct { const char *var, *kernel; } f[] = {
        {"SB_FORCE_NO_AVX512", "avx512-f32"},   {"SB_FORCE_NO_AVX512", "avx512-bf16"},
        {"SB_FORCE_NO_AVX512", "vnni-int8"},    {"SB_FORCE_NO_AVX512_BF16", "avx512-bf16"},
        {"SB_FORCE_NO_AVX512_VNNI", "vnni-int8"}, {"SB_FORCE_NO_AMX", "amx-bf16"},
        {"SB_FORCE_NO_AMX", "amx-int8"},        {"SB_FORCE_NO_ONEDNN", "onednn-f32"},
        {"SB_FORCE_NO_ONEDNN", "onednn-bf16"},  {"SB_FORCE_NO_ONEDNN", "onednn-int8"},
    };
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
        const sb_kernel *K = sb_kernel_find(f[i].kernel);
        CHECK(K != NULL);
        if (!K) continue;
        setenv(f[i].var, "1", 1);
        char why[300] = "";
        int ok = K->probe(why, sizeof why);
        CHECK(!ok);
        CHECK(strstr(why, "forced off") != NULL || strstr(why, "AMX") != NULL);
        if (strncmp(K->name, "onednn", 6) != 0) {
            /* our entry points check the probe themselves */
            sb_gemm_desc d = {'N', 'N', 2, 2, 2, 2, 2, 2, 1, 0, 1, NULL};
            float Af[4] = {1, 2, 3, 4}, Cf[4];
            uint8_t Ai[4] = {1, 2, 3, 4};
            int8_t Bi[4] = {1, 2, 3, 4};
            int32_t Ci[4];
            sb_err e = {0};
            int rc = K->dtype == SB_DT_INT8 ? K->gemm_u8s8(&d, Ai, Bi, Ci, &e)
                                            : K->gemm_f32(&d, Af, Af, Cf, &e);
            CHECK_EQ_INT(rc, SB_EFAIL);
            CHECK(e.msg[0] != '\0');
        }
        unsetenv(f[i].var);
        CHECK(sb_kernel_forced_off("AVX512") == 0 || getenv("SB_FORCE_NO_AVX512"));
    }
    /* "0" and "" do not force anything off */
    setenv("SB_FORCE_NO_AVX512", "0", 1);
    CHECK(!sb_kernel_forced_off("AVX512"));
    unsetenv("SB_FORCE_NO_AVX512");
}

static void test_bad_input(void)
{
    for (int i = 0; i < sb_kernel_count(); i++) {
        const sb_kernel *K = sb_kernel_at(i);
        char why[300];
        if (!K->probe(why, sizeof why)) continue;
        sb_gemm_desc d = {'N', 'X', 2, 2, 2, 2, 2, 2, 1, 0, 1, NULL};
        float f[4] = {0};
        uint8_t a[4] = {0};
        int8_t b[4] = {0};
        int32_t ci[4];
        sb_err e = {0};
        int rc = K->dtype == SB_DT_INT8 ? K->gemm_u8s8(&d, a, b, ci, &e)
                                        : K->gemm_f32(&d, f, f, f, &e);
        CHECK_EQ_INT(rc, SB_EUSAGE);
        d.transb = 'N';
        d.lda = 1;
        rc = K->dtype == SB_DT_INT8 ? K->gemm_u8s8(&d, a, b, ci, &e) : K->gemm_f32(&d, f, f, f, &e);
        CHECK_EQ_INT(rc, SB_EUSAGE);
        if (K->dtype == SB_DT_INT8 && strcmp(K->name, "scalar-f32") != 0) {
            d.lda = 2;
            d.beta = 0.5f;
            CHECK_EQ_INT(K->gemm_u8s8(&d, a, b, ci, &e), SB_EUSAGE);
            d.beta = 0;
            d.bias = f;   /* s32 C takes no bias */
            CHECK_EQ_INT(K->gemm_u8s8(&d, a, b, ci, &e), SB_EUSAGE);
        }
    }
}

static void run_all(int heavy)
{
    for (int i = 0; i < sb_kernel_count(); i++) test_kernel(sb_kernel_at(i), heavy);
    test_kernel(&sb_kernel_amx_bf16_model, heavy);
    test_kernel(&sb_kernel_amx_int8_model, heavy);
}

int main(void)
{
    /* Registry order is part of the interface (the sweep's kernel axis). */
    static const char *const order[] = {"scalar-f32", "avx512-f32", "avx512-bf16", "vnni-int8",
                                        "amx-bf16", "amx-int8", "onednn-f32", "onednn-bf16",
                                        "onednn-int8"};
    CHECK_EQ_INT(sb_kernel_count(), 9);
    for (int i = 0; i < 9 && i < sb_kernel_count(); i++)
        CHECK(strcmp(sb_kernel_at(i)->name, order[i]) == 0);

    /* The ISA cap: unknown names are bad usage; a known one (this machine's
     * best, so the rest of the test is unaffected) is taken before the first
     * primitive; oneDNN then names the implementation it ran. */
    sb_err ie = {0};
    CHECK_EQ_INT(sb_onednn_set_max_isa("avx9000", &ie), SB_EUSAGE);
    CHECK(strstr(ie.msg, "AVX512_CORE_BF16") != NULL);
    CHECK_EQ_INT(sb_onednn_set_max_isa("all", &ie), SB_OK);
    {
        const sb_kernel *K = sb_kernel_find("onednn-f32");
        float a[4] = {1, 2, 3, 4}, c[4];
        sb_gemm_desc d = {'N', 'N', 2, 2, 2, 2, 2, 2, 1, 0, 1, NULL};
        CHECK_EQ_INT(K->gemm_f32(&d, a, a, c, &ie), SB_OK);
        CHECK(K->impl && K->impl() && K->impl()[0]);
        if (K->impl && K->impl()) printf("onednn-f32 ran %s (effective ISA %s)\n", K->impl(),
                                          sb_onednn_effective_isa());
        CHECK(c[0] == 7 && c[3] == 22);
        /* too late now: a primitive exists */
        CHECK_EQ_INT(sb_onednn_set_max_isa("avx2", &ie), SB_EFAIL);
    }

    printf("default cache sizes:\n");
    run_all(1);
    /* Tiny caches: KC, MC and NC shrink below the test shapes, so every
     * dimension crosses several cache blocks (and alpha/beta several KC blocks). */
    size_t l1, l2, l3;
    sb_gemm_get_cache_sizes(&l1, &l2, &l3);
    sb_gemm_set_cache_sizes(2048, 1024, 8192);
    printf("tiny cache sizes:\n");
    run_all(0);
    sb_gemm_set_cache_sizes(l1, l2, l3);

    static const char *const pairs[][2] = {{"avx512-f32", "onednn-f32"}, {"onednn-f32", "avx512-f32"},
                                           {"avx512-bf16", "onednn-bf16"}, {"onednn-bf16", "avx512-bf16"},
                                           {"vnni-int8", "onednn-int8"}, {"onednn-int8", "vnni-int8"}};
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
        test_packed_mismatch(sb_kernel_find(pairs[i][0]), sb_kernel_find(pairs[i][1]));
    test_packed_mismatch(&sb_kernel_amx_bf16_model, sb_kernel_find("avx512-bf16"));
    test_skip_paths();
    test_bad_input();
    printf("%d GEMM cases, %d wrong\n", g_cases, g_fail_cases);
    return test_report("test_kern_gemm");
}
