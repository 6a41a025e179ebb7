/* Every kernel this machine can run against a reference written here (plain
 * loops in double / int64, independent of the library): shapes 1..67 per
 * dimension (all edges around the register blocks and, with shrunken caches,
 * around the MC/KC/NC blocks, plus a random sample), the transposes, leading
 * dimensions larger than the matrix, unaligned pointers, alpha/beta, bias,
 * threads 1 and 2, the bf16-in and pre-packed entries, int8 inputs at the
 * ends of their ranges (255 x -128 and 255 x 127 everywhere: what a
 * saturating instruction gets wrong), the AMX kernels on the tile model and
 * avx2-int8's AVX-VNNI path on its AVX2 model. Inputs are small integers,
 * so f32, bf16 and int8 results are exact: any difference beyond the stated
 * 1e-6 relative tolerance is a bug. Kernels the machine cannot run print
 * "skipped KERNEL: reason" and must refuse cleanly; nothing fails for being
 * unavailable, and scalar-f32 alone is still tested for real.
 *
 * The SB_FORCE_NO_* variables (ctest runs this also under SB_FORCE_NO_AVX512,
 * SB_FORCE_NO_AVX2 and SB_FORCE_NO_AVX_VNNI) are checked to take the kernels
 * they name away: the rest then runs as on a CPU without those instructions.
 * A run whose instructions this CPU lacks entirely exits 77 (skipped).
 * Arguments: --only K1,K2 restricts the kernels tested. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "sb_amx_knobs.h"
#include "sb_cpu.h"
#include "sb_kernel.h"
#include "sb_ukr_avx2.h"
#include "sb_onednn.h"
#include "testutil.h"

/* 1 while testing a kernel that is exact for A below 128 only: every A
 * value is then folded into 0..127 (255 -> 127: the ends stay the ends) */
static int g_a7;

static const char *g_only; /* --only: comma-separated kernel names, NULL: all */
static int selected(const sb_kernel *K)
{
    if (!g_only) return 1;
    size_t n = strlen(K->name);
    for (const char *p = g_only; (p = strstr(p, K->name)); p += n)
        if ((p == g_only || p[-1] == ',') && (p[n] == ',' || p[n] == '\0')) return 1;
    return 0;
}

static int env_forced(const char *var)
{
    const char *v = getenv(var);
    return v && v[0] && strcmp(v, "0") != 0;
}

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
    int pad_a, pad_b, pad_c; /* extra elements per row */
    int offset;              /* elements the matrices start past an aligned address */
    float alpha, beta;
    int threads;
    int fill; /* int8 inputs: 0 small, 1 random ends of the ranges
                                   (A 0/255, B -128/127), 2 all 255 x -128, 3 all 255 x 127 */
} gcase;

static int g_cases, g_fail_cases;

static void describe(const sb_kernel *K, const gcase *c, const char *what)
{
    fprintf(stderr,
            "  %s: %s m=%d n=%d k=%d trans=%c%c pads=%d,%d,%d off=%d alpha=%g beta=%g "
            "threads=%d fill=%d\n",
            K->name, what, c->m, c->n, c->k, c->ta, c->tb, c->pad_a, c->pad_b, c->pad_c, c->offset,
            c->alpha, c->beta, c->threads, c->fill);
}

/* The reference: the definition, in double (exact for these inputs) and int64. */
static void naive_f32(const sb_gemm_desc *d, const float *A, const float *B, float *C)
{
    for (int i = 0; i < d->m; i++)
        for (int j = 0; j < d->n; j++) {
            double sum = 0;
            for (int p = 0; p < d->k; p++) {
                double a = d->transa == 'N' ? A[(size_t)i * d->lda + p] : A[(size_t)p * d->lda + i];
                double b = d->transb == 'N' ? B[(size_t)p * d->ldb + j] : B[(size_t)j * d->ldb + p];
                sum += a * b;
            }
            float *c = &C[(size_t)i * d->ldc + j];
            double v = d->alpha * sum + (d->beta != 0.0f ? d->beta * (double)*c : 0.0);
            *c = (float)(v + (d->bias ? d->bias[j] : 0.0));
        }
}
static void naive_u8s8(const sb_gemm_desc *d, const uint8_t *A, const int8_t *B, int32_t *C)
{
    for (int i = 0; i < d->m; i++)
        for (int j = 0; j < d->n; j++) {
            int64_t sum = 0;
            for (int p = 0; p < d->k; p++) {
                int64_t a = d->transa == 'N' ? A[(size_t)i * d->lda + p]
                                             : A[(size_t)p * d->lda + i];
                int64_t b = d->transb == 'N' ? B[(size_t)p * d->ldb + j]
                                             : B[(size_t)j * d->ldb + p];
                sum += a * b;
            }
            int32_t *c = &C[(size_t)i * d->ldc + j];
            *c = (int32_t)(sum + (d->beta != 0.0f ? *c : 0));
        }
}

static uint16_t to_bf16(float f)
{
    union {
        float f;
        uint32_t u;
    } v = {f};
    return (uint16_t)((v.u + 0x7fffu + ((v.u >> 16) & 1u)) >> 16);
}

/* mode 0: gemm_f32 / gemm_u8s8; 1: gemm_bf16; 2: pack_b + gemm_packed */
static int run_case(const sb_kernel *K, const gcase *c, int mode)
{
    int is8 = K->dtype == SB_DT_INT8;
    size_t es = is8 ? 1 : 4;
    int a_rows = c->ta == 'N' ? c->m : c->k, a_cols = c->ta == 'N' ? c->k : c->m;
    int b_rows = c->tb == 'N' ? c->k : c->n, b_cols = c->tb == 'N' ? c->n : c->k;
    sb_gemm_desc d = {c->ta,
                      c->tb,
                      c->m,
                      c->n,
                      c->k,
                      a_cols + c->pad_a,
                      b_cols + c->pad_b,
                      c->n + c->pad_c,
                      c->alpha,
                      c->beta,
                      c->threads,
                      NULL,
                      NULL,
                      NULL};
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
        if (!is8)
            ((float *)A)[i] = (float)rnd_in(-3, 3);
        else if (c->fill == 0)
            ((uint8_t *)A)[i] = (uint8_t)rnd_in(0, 6);
        else if (c->fill == 1)
            ((uint8_t *)A)[i] = (rnd() & 3) ? 255 : 0;
        else
            ((uint8_t *)A)[i] = 255;
        if (is8 && g_a7) ((uint8_t *)A)[i] &= 127;
    }
    for (size_t i = 0; i < nb; i++) {
        if (!is8)
            ((float *)B)[i] = (float)rnd_in(-3, 3);
        else if (c->fill == 0)
            ((int8_t *)B)[i] = (int8_t)rnd_in(-4, 4);
        else if (c->fill == 1)
            ((int8_t *)B)[i] = (rnd() & 1) ? 127 : -128;
        else
            ((int8_t *)B)[i] = c->fill == 2 ? -128 : 127;
    }
    /* C: small integers inside the matrix, a sentinel in the ldc padding. */
    for (int i = 0; i < c->m; i++)
        for (int j = 0; j < d.ldc; j++) {
            size_t x = (size_t)i * d.ldc + j;
            if (is8)
                ((int32_t *)C)[x] = j < c->n ? rnd_in(-9, 9) : SENTINEL_I;
            else
                ((float *)C)[x] = j < c->n ? (float)rnd_in(-9, 9) : SENTINEL_F;
        }
    /* f32 C: half the cases carry a bias (added after the product) */
    float *bias = NULL;
    if (!is8 && (rnd() & 1)) {
        bias = malloc(sizeof *bias * (size_t)c->n);
        for (int j = 0; j < c->n; j++) bias[j] = (float)rnd_in(-5, 5);
        d.bias = bias;
    }
    memcpy(Rraw, C, nc * 4);
    if (is8)
        naive_u8s8(&d, A, B, (int32_t *)Rraw);
    else
        naive_f32(&d, A, B, (float *)Rraw);

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
            describe(K, c,
                     mode == 1       ? "wrong result (bf16 in)"
                         : mode == 2 ? "wrong result (packed B)"
                                     : "wrong result");
            size_t x = (size_t)wi * d.ldc + wj;
            fprintf(stderr, "    C[%d][%d] = %.10g, reference %.10g\n", wi, wj,
                    is8 ? (double)((int32_t *)C)[x] : ((float *)C)[x],
                    is8 ? (double)((int32_t *)Rraw)[x] : ((float *)Rraw)[x]);
            bad = 1;
        }
    }
    sb_packed_b_free(pb);
    free(Araw);
    free(Braw);
    free(Craw);
    free(Rraw);
    free(Ah);
    free(Bh);
    free(bias);
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

/* Sizes that sit on and around every register block (AVX2 6x16, AVX-512
 * 12x32) and AMX tile block (16, 32, 64) below 68. */
static const int g_edges[] = {1,  2,  3,  4,  5,  6,  7,  11, 12, 13, 15, 16, 17, 18,
                              23, 24, 25, 31, 32, 33, 36, 47, 48, 49, 63, 64, 65, 67};
#define N_EDGES (int)(sizeof g_edges / sizeof g_edges[0])

/* u8 x s8 at the ends of both ranges, long k included (several KC blocks,
 * sums near 2^27): exact or wrong, whatever instruction the kernel runs.
 * oneDNN without AVX512_VNNI computes int8 with vpmaddubsw, whose s16
 * pair sums saturate by design: that combination is left out, said why;
 * and oneDNN's beta 1 adds in f32, so its long-k cases take beta 0. */
static void test_int8_extremes(const sb_kernel *K, int heavy)
{
    if (!strcmp(K->name, "onednn-int8") && !sb_cpu_get()->avx512_vnni) {
        printf("  %-20s extremes left out: oneDNN's int8 without AVX512_VNNI saturates "
               "(vpmaddubsw)\n",
               K->name);
        return;
    }
    static const int ks[] = {1, 2, 3, 4, 7, 31, 32, 33, 64, 67, 100, 1000, 4099};
    int onednn = !strncmp(K->name, "onednn", 6);
    for (int fill = 1; fill <= 3; fill++)
        for (int i = 0; i < (int)(sizeof ks / sizeof ks[0]); i += heavy ? 1 : 3)
            for (int t = 0; t < 4; t++) {
                gcase c = {
                    rnd_in(1, 40),      rnd_in(1, 40),        ks[i],        "NNTT"[t],    "NTNT"[t],
                    rnd_in(0, 3),       rnd_in(0, 3),         rnd_in(0, 3), rnd_in(0, 2), 1,
                    (float)(rnd() & 1), 1 + (int)(rnd() & 1), fill};
                if (ks[i] >= 1000) c.m = rnd_in(1, 14), c.n = rnd_in(1, 40);
                /* oneDNN adds C (beta 1, its sum post-op) in f32: exact below 2^24 */
                if (onednn && (double)ks[i] * 255 * 128 >= (1 << 24)) c.beta = 0;
                run_case(K, &c, (K->pack_b && K->gemm_packed && (rnd() & 3) == 0) ? 2 : 0);
            }
}

static void test_kernel(const sb_kernel *K, int heavy)
{
    char why[300] = "";
    if (!selected(K)) return;
    int ok = K->probe(why, sizeof why);
    if (!ok) {
        printf("  skipped %s: %s\n", K->name, why);
        CHECK(why[0] != '\0');
        return;
    }
    int before = g_fail_cases, cases0 = g_cases;
    gcase c;
    /* Each dimension through every edge, the others random. */
    for (int dim = 0; dim < 3; dim++)
        for (int i = 0; i < N_EDGES; i += heavy ? 1 : 2) {
            c = (gcase){rnd_in(1, 67),
                        rnd_in(1, 67),
                        rnd_in(1, 67),
                        "NT"[rnd() & 1],
                        "NT"[rnd() & 1],
                        0,
                        0,
                        0,
                        0,
                        1,
                        0,
                        1,
                        0};
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
                c = (gcase){rnd_in(1, 67),
                            rnd_in(1, 67),
                            rnd_in(1, 67),
                            "NNTT"[t],
                            "NTNT"[t],
                            rnd_in(1, 9),
                            rnd_in(1, 9),
                            rnd_in(1, 9),
                            rnd_in(1, 3),
                            ab[a][0],
                            ab[a][1],
                            th,
                            0};
                run_case(K, &c, 0);
            }
    /* A random sample. */
    for (int i = 0; i < (heavy ? 40 : 12); i++) {
        c = (gcase){rnd_in(1, 67),
                    rnd_in(1, 67),
                    rnd_in(1, 67),
                    "NT"[rnd() & 1],
                    "NT"[rnd() & 1],
                    rnd_in(0, 3),
                    rnd_in(0, 3),
                    rnd_in(0, 3),
                    rnd_in(0, 2),
                    1,
                    0,
                    rnd_in(1, 2),
                    0};
        random_alpha_beta(K, &c);
        run_case(K, &c, 0);
    }
    /* bf16-in and pre-packed entries. */
    for (int i = 0; i < 8; i++) {
        c = (gcase){rnd_in(1, 67),
                    rnd_in(1, 67),
                    rnd_in(1, 67),
                    "NT"[rnd() & 1],
                    "NT"[rnd() & 1],
                    rnd_in(0, 3),
                    rnd_in(0, 3),
                    rnd_in(0, 3),
                    rnd_in(0, 2),
                    1,
                    0,
                    1 + (i & 1),
                    0};
        random_alpha_beta(K, &c);
        if (K->gemm_bf16) run_case(K, &c, 1);
        if (K->pack_b && K->gemm_packed) run_case(K, &c, 2);
    }
    if (K->dtype == SB_DT_INT8) test_int8_extremes(K, heavy);
    printf("  %-20s %d cases, %d wrong%s%s\n", K->name, g_cases - cases0, g_fail_cases - before,
           K->impl && K->impl() ? ", ran " : "", K->impl && K->impl() ? K->impl() : "");
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
    sb_gemm_desc d = {'N', 'N', 4, 8, 8, 8, 8, 8, 1, 0, 1, NULL, NULL, NULL};
    sb_packed_b *pb = NULL;
    sb_err e = {0};
    CHECK_EQ_INT(K->pack_b(&d, B, &pb, &e), SB_OK);
    float A[64] = {0}, C[64];
    uint8_t Ai[64] = {0};
    int32_t Ci[64];
    sb_gemm_desc d2 = d;
    d2.n = 7;
    d2.ldc = 7;
    CHECK_EQ_INT(
        K->gemm_packed(&d2, is8 ? (void *)Ai : (void *)A, pb, is8 ? (void *)Ci : (void *)C, &e),
        SB_EUSAGE);
    if (other && other->gemm_packed && other->dtype == K->dtype && other->probe(why, sizeof why))
        CHECK_EQ_INT(other->gemm_packed(&d, is8 ? (void *)Ai : (void *)A, pb,
                                        is8 ? (void *)Ci : (void *)C, &e),
                     SB_EUSAGE);
    sb_packed_b_free(pb);
}

/* Sets var to "1" for the duration of a check and puts back what was there
 * (a ctest run may itself hold the variable). */
static char g_saved[64];
static int g_had;
static void force_on(const char *var)
{
    const char *v = getenv(var);
    g_had = v != NULL;
    snprintf(g_saved, sizeof g_saved, "%s", v ? v : "");
    setenv(var, "1", 1);
}
static void force_restore(const char *var)
{
    if (g_had)
        setenv(var, g_saved, 1);
    else
        unsetenv(var);
}

/* With SB_FORCE_NO_* set, probes say no with the reason and the entry
 * points refuse with an error instead of running. */
static void test_skip_paths(void)
{
    static const struct {
        const char *var, *kernel;
    } f[] = {
        {"SB_FORCE_NO_AVX2", "avx2-f32"},         {"SB_FORCE_NO_AVX2", "avx2-int8"},
        {"SB_FORCE_NO_AVX2", "avx512-f32"},       {"SB_FORCE_NO_AVX2", "avx512-bf16"},
        {"SB_FORCE_NO_AVX2", "vnni-int8"},        {"SB_FORCE_NO_AVX2", "amx-bf16"},
        {"SB_FORCE_NO_AVX2", "amx-int8"},         {"SB_FORCE_NO_AVX2", "onednn-bf16"},
        {"SB_FORCE_NO_AVX2", "onednn-int8"},      {"SB_FORCE_NO_AVX2", "avx2-int8-vnni-model"},
        {"SB_FORCE_NO_AVX512", "avx512-f32"},     {"SB_FORCE_NO_AVX512", "avx512-bf16"},
        {"SB_FORCE_NO_AVX512", "vnni-int8"},      {"SB_FORCE_NO_AVX512", "amx-bf16"},
        {"SB_FORCE_NO_AVX512", "amx-int8"},       {"SB_FORCE_NO_AVX512", "onednn-bf16"},
        {"SB_FORCE_NO_AVX512", "onednn-int8"},    {"SB_FORCE_NO_AVX512_BF16", "avx512-bf16"},
        {"SB_FORCE_NO_AVX512_VNNI", "vnni-int8"}, {"SB_FORCE_NO_AMX", "amx-bf16"},
        {"SB_FORCE_NO_AMX", "amx-int8"},          {"SB_FORCE_NO_ONEDNN", "onednn-f32"},
        {"SB_FORCE_NO_ONEDNN", "onednn-bf16"},    {"SB_FORCE_NO_ONEDNN", "onednn-int8"},
    };
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
        const sb_kernel *K = !strcmp(f[i].kernel, "avx2-int8-vnni-model")
            ? &sb_kernel_avx2_int8_vnni_model
            : sb_kernel_find(f[i].kernel);
        CHECK(K != NULL);
        if (!K) continue;
        force_on(f[i].var);
        char why[300] = "";
        int ok = K->probe(why, sizeof why);
        CHECKF(!ok, "%s probes available under %s", K->name, f[i].var);
        /* the flag's own words, unless the CPU lacks the instructions anyway */
        CHECKF(strstr(why, "forced off") != NULL || strstr(why, "CPU") != NULL ||
                   strstr(why, "OS") != NULL,
               "%s under %s: '%s'", K->name, f[i].var, why);
        if (strncmp(K->name, "onednn", 6) != 0) {
            /* our entry points check the probe themselves */
            sb_gemm_desc d = {'N', 'N', 2, 2, 2, 2, 2, 2, 1, 0, 1, NULL, NULL, NULL};
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
        force_restore(f[i].var);
    }
    /* "0" and "" do not force anything off */
    force_on("SB_FORCE_NO_AVX2");
    setenv("SB_FORCE_NO_AVX2", "0", 1);
    CHECK(!sb_cpu_forced_off("AVX2"));
    setenv("SB_FORCE_NO_AVX2", "", 1);
    CHECK(!sb_cpu_forced_off("AVX2"));
    force_restore("SB_FORCE_NO_AVX2");
}

/* The run's own SB_FORCE_NO_* variables (set by ctest) took away exactly
 * what they name: the rest of this run then is the AVX2-only (or pre-AVX2)
 * machine it stands for. */
static void test_forced_run(void)
{
    int no_avx2 = env_forced("SB_FORCE_NO_AVX2"), no_avx512 = env_forced("SB_FORCE_NO_AVX512");
    int no_avxvnni = env_forced("SB_FORCE_NO_AVX_VNNI");
    const sb_cpu *c = sb_cpu_get(), *hw = sb_cpu_hw();
    static const char *const avx512_kernels[] = {"avx512-f32", "avx512-bf16", "vnni-int8",
                                                 "amx-bf16",   "amx-int8",    "onednn-bf16",
                                                 "onednn-int8"};
    static const char *const avx2_kernels[] = {"avx2-f32", "avx2-int8"};
    char why[300];
    if (no_avx2 || no_avx512) {
        CHECK(!c->avx512f && !c->avx512_vnni && !c->avx512_bf16 && !c->amx_tile);
        for (size_t i = 0; i < sizeof avx512_kernels / sizeof avx512_kernels[0]; i++) {
            const sb_kernel *K = sb_kernel_find(avx512_kernels[i]);
            why[0] = '\0';
            CHECKF(!K->probe(why, sizeof why), "%s available in a forced run", K->name);
            CHECKF(strstr(why, "forced off") != NULL, "%s: '%s'", K->name, why);
        }
    }
    for (size_t i = 0; i < sizeof avx2_kernels / sizeof avx2_kernels[0]; i++) {
        const sb_kernel *K = sb_kernel_find(avx2_kernels[i]);
        why[0] = '\0';
        int ok = K->probe(why, sizeof why);
        if (no_avx2) {
            CHECK(!c->avx2 && !c->fma && !c->avx_vnni);
            CHECKF(!ok && strstr(why, "forced off"), "%s under SB_FORCE_NO_AVX2: %d '%s'", K->name,
                   ok, why);
        } else {
            /* exactly as the hardware (and OS) allow */
            CHECKF(ok == (hw->avx2 && hw->fma && hw->os_avx), "%s: %d '%s'", K->name, ok, why);
        }
    }
    const sb_kernel *K8 = sb_kernel_find("avx2-int8");
    if (K8->probe(why, sizeof why)) {
        /* the instructions avx2-int8 runs follow the (forced) CPU */
        const char *impl = K8->impl();
        CHECK(impl != NULL);
        if (impl) {
            CHECKF(strstr(impl, c->avx_vnni ? "vpdpbusd" : "vpmaddwd") != NULL, "impl %s", impl);
            if (no_avxvnni) CHECK(strstr(impl, "vpmaddwd") != NULL);
        }
    }
}

static void test_bad_input(void)
{
    for (int i = 0; i < sb_kernel_count(); i++) {
        const sb_kernel *K = sb_kernel_at(i);
        char why[300];
        if (!K->probe(why, sizeof why)) continue;
        sb_gemm_desc d = {'N', 'X', 2, 2, 2, 2, 2, 2, 1, 0, 1, NULL, NULL, NULL};
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
            d.bias = f; /* s32 C takes no bias */
            CHECK_EQ_INT(K->gemm_u8s8(&d, a, b, ci, &e), SB_EUSAGE);
        }
    }
}

static void run_all(int heavy)
{
    for (int i = 0; i < sb_kernel_count(); i++) test_kernel(sb_kernel_at(i), heavy);
    test_kernel(&sb_kernel_avx2_int8_vnni_model, heavy);
    g_a7 = 1; /* avx2-int8 on 7-bit activations (inference's --quant row7) */
    test_kernel(&sb_kernel_avx2_int8_u7, heavy);
    g_a7 = 0;
    test_kernel(&sb_kernel_amx_bf16_model, heavy);
    test_kernel(&sb_kernel_amx_int8_model, heavy);
}

/* The library's own reference (scalar-f32's loops) on hand-worked values,
 * and against the test's reference on a few shapes: scalar-f32 is what
 * every run can test, so its truth must not rest on itself. */
static void test_reference(void)
{
    /* A = [1 2 3; 4 5 6], B = [7 8; 9 10; 11 12]: A.B = [58 64; 139 154] */
    const float A[6] = {1, 2, 3, 4, 5, 6}, B[6] = {7, 8, 9, 10, 11, 12};
    const float At[6] = {1, 4, 2, 5, 3, 6}, Bt[6] = {7, 9, 11, 8, 10, 12};
    const float bias[2] = {0.5f, -1};
    for (int t = 0; t < 4; t++) {
        char ta = "NNTT"[t], tb = "NTNT"[t];
        sb_gemm_desc d = {ta, tb,   2, 2,    3,   ta == 'N' ? 3 : 2, tb == 'N' ? 2 : 3, 2,
                          2,  0.5f, 1, bias, NULL, NULL};
        float C[4] = {1, 2, 3, 4};
        sb_err e = {0};
        CHECK_EQ_INT(sb_kernel_find("scalar-f32")
                         ->gemm_f32(&d, ta == 'N' ? A : At, tb == 'N' ? B : Bt, C, &e),
                     SB_OK);
        /* 2 * AB + 0.5 * C + bias */
        CHECKF(C[0] == 116.5f + 0.5f && C[1] == 128 + 1 - 1 && C[2] == 278 + 1.5f + 0.5f &&
                   C[3] == 308 + 2 - 1,
               "trans %c%c: %g %g %g %g", ta, tb, C[0], C[1], C[2], C[3]);
    }
    const uint8_t Au[4] = {255, 0, 1, 255};
    const int8_t Bs[4] = {-128, 127, 127, -128};
    sb_gemm_desc d8 = {'N', 'N', 2, 2, 2, 2, 2, 2, 1, 0, 1, NULL, NULL, NULL};
    int32_t C8[4];
    sb_gemm_ref_u8s8(&d8, Au, Bs, C8);
    CHECK(C8[0] == -32640 && C8[1] == 32385 && C8[2] == -128 + 255 * 127 && C8[3] == 127 - 32640);
    for (int i = 0; i < 20; i++) {
        gcase c = {rnd_in(1, 30),
                   rnd_in(1, 30),
                   rnd_in(1, 30),
                   "NT"[rnd() & 1],
                   "NT"[rnd() & 1],
                   0,
                   0,
                   0,
                   0,
                   1,
                   0,
                   1,
                   0};
        sb_gemm_desc d = {
            c.ta, c.tb, c.m, c.n,  c.k, c.ta == 'N' ? c.k : c.m, c.tb == 'N' ? c.n : c.k, c.n,
            1.5f, 0.5f, 1,   NULL, NULL, NULL};
        size_t n = 30 * 30;
        float Af[900], Bf[900], C1[900], C2[900];
        for (size_t x = 0; x < n; x++) {
            Af[x] = (float)rnd_in(-3, 3);
            Bf[x] = (float)rnd_in(-3, 3);
            C1[x] = C2[x] = (float)rnd_in(-3, 3);
        }
        sb_gemm_ref_f32(&d, Af, Bf, C1);
        naive_f32(&d, Af, Bf, C2);
        CHECK(memcmp(C1, C2, sizeof C1) == 0);
    }
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--only") && i + 1 < argc)
            g_only = argv[++i];
        else {
            fprintf(stderr, "usage: test_kern_gemm [--only K1,K2]\n");
            return 2;
        }
    }
    /* A forced run stands for a CPU with less than this one; where this CPU
     * already lacks what the run keeps, it would only repeat the plain run. */
    const sb_cpu *hw = sb_cpu_hw();
    if (env_forced("SB_FORCE_NO_AVX512") && !env_forced("SB_FORCE_NO_AVX2") &&
        !(hw->avx2 && hw->fma && hw->os_avx)) {
        printf("SKIP: this CPU/OS has no AVX2 + FMA: the AVX2-only run has nothing to test\n");
        return 77;
    }
    if (env_forced("SB_FORCE_NO_AVX_VNNI") && !(hw->avx_vnni && hw->avx2 && hw->os_avx)) {
        printf("SKIP: this CPU has no AVX-VNNI: avx2-int8's vpmaddwd path is what every run "
               "here tests already\n");
        return 77;
    }
    if (sb_cpu_get()->forced[0]) printf("forced: %s\n", sb_cpu_get()->forced);

    /* Registry order is part of the interface (the sweep's kernel axis). */
    static const char *const order[] = {"scalar-f32",  "avx2-f32",    "avx2-int8",  "avx512-f32",
                                        "avx512-bf16", "vnni-int8",   "amx-bf16",   "amx-int8",
                                        "onednn-f32",  "onednn-bf16", "onednn-int8",
                                        "mkl-f32",     "mkl-bf16",    "mkl-int8"};
    CHECK_EQ_INT(sb_kernel_count(), 14);
    for (int i = 0; i < 14 && i < sb_kernel_count(); i++)
        CHECK(strcmp(sb_kernel_at(i)->name, order[i]) == 0);
    char why[256];
    CHECK(sb_isa_probe("avx2_f32", why, sizeof why) ==
          sb_kernel_find("avx2-f32")->probe(why, sizeof why));
    CHECK(sb_isa_probe("avx2_int8", why, sizeof why) ==
          sb_kernel_find("avx2-int8")->probe(why, sizeof why));
    CHECK(!sb_isa_probe("avx3_f32", why, sizeof why) && strstr(why, "unknown"));
    test_forced_run();
    test_reference();
    /* avx2-int8's AVX-VNNI path, never run on a CPU without AVX-VNNI: its
     * model (tested below on every AVX2 machine) shares all but the
     * micro-kernel's instruction */
    for (int i = 0; i < 2; i++) {
        const sb_ukr *r = &sb_ukr_avxvnni_int8[i], *m = &sb_ukr_avxvnni_model[i];
        CHECK(r->mr == m->mr && r->nr == m->nr && r->ku == m->ku && r->kg == m->kg &&
              r->a_esz == m->a_esz && r->b_esz == m->b_esz && r->c_esz == m->c_esz &&
              r->kc_max == m->kc_max);
        CHECK(r->pack_a == m->pack_a && r->pack_b == m->pack_b);
        CHECK(r->kernel && m->kernel && r->kernel != m->kernel);
        CHECK(r->kg == 4 && r->a_esz == 1 &&
              r->pack_a == (i ? sb_avxvnni_pack_a_sm : sb_avxvnni_pack_a_rc));
    }

    /* The ISA cap: unknown names are bad usage; a known one (this machine's
     * best, so the rest of the test is unaffected) is taken before the first
     * primitive; oneDNN then names the implementation it ran. Under the
     * forces, "all" is lowered to what the forced CPU would have. */
    sb_err ie = {0};
    CHECK_EQ_INT(sb_onednn_set_max_isa("avx9000", &ie), SB_EUSAGE);
    CHECK(strstr(ie.msg, "AVX512_CORE_BF16") != NULL);
    CHECK_EQ_INT(sb_onednn_set_max_isa("all", &ie), SB_OK);
    const sb_kernel *KD = sb_kernel_find("onednn-f32");
    if (KD->probe(why, sizeof why)) {
        float a[4] = {1, 2, 3, 4}, c[4];
        sb_gemm_desc d = {'N', 'N', 2, 2, 2, 2, 2, 2, 1, 0, 1, NULL, NULL, NULL};
        CHECK_EQ_INT(KD->gemm_f32(&d, a, a, c, &ie), SB_OK);
        CHECK(KD->impl && KD->impl() && KD->impl()[0]);
        const char *impl = KD->impl && KD->impl() ? KD->impl() : "";
        const char *eff = sb_onednn_effective_isa();
        printf("onednn-f32 ran %s (effective ISA %s)\n", impl, eff);
        CHECK(c[0] == 7 && c[3] == 22);
        if (env_forced("SB_FORCE_NO_AVX2")) {
            CHECKF(!strstr(impl, "avx") && !strstr(eff, "avx"), "%s / %s", impl, eff);
        } else if (env_forced("SB_FORCE_NO_AVX512")) {
            CHECKF(!strstr(impl, "avx512") && !strstr(eff, "avx512"), "%s / %s", impl, eff);
            CHECKF(strcmp(eff, "avx2") == 0, "effective ISA %s, want avx2", eff);
        }
        /* too late now: a primitive exists */
        CHECK_EQ_INT(sb_onednn_set_max_isa("avx2", &ie), SB_EFAIL);
    } else {
        printf("skipped onednn-f32: %s\n", why);
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

    /* The AMX loop nest's other order (A's panel resident, B's streaming)
     * and prefetch distances (sb_amx_knobs), on the tile model: the same
     * tiling as on the tiles, both cache settings. */
    const sb_amx_knobs knobs0 = sb_amx_knobs_get();
    static const sb_amx_knobs kn[] = {{SB_AMX_RESIDENT_A, 0},
                                      {SB_AMX_RESIDENT_A, SB_AMX_PREFETCH_MAX},
                                      {SB_AMX_RESIDENT_B, 0},
                                      {SB_AMX_RESIDENT_B, 1}};
    for (size_t i = 0; i < sizeof kn / sizeof kn[0]; i++) {
        sb_err ke = {0};
        CHECK_EQ_INT(sb_amx_knobs_set(&kn[i], &ke), SB_OK);
        for (int tiny = 0; tiny < 2; tiny++) {
            if (tiny) sb_gemm_set_cache_sizes(2048, 1024, 8192);
            printf("AMX resident %s, prefetch %d%s:\n", sb_amx_resident_name(kn[i].resident),
                   kn[i].prefetch, tiny ? ", tiny cache sizes" : "");
            test_kernel(&sb_kernel_amx_bf16_model, 0);
            test_kernel(&sb_kernel_amx_int8_model, 0);
            sb_gemm_set_cache_sizes(l1, l2, l3);
        }
    }
    {
        sb_err ke = {0};
        CHECK_EQ_INT(sb_amx_knobs_set(&knobs0, &ke), SB_OK);
    }

    static const char *const pairs[][2] = {
        {"avx2-f32", "avx512-f32"},     {"avx512-f32", "avx2-f32"},
        {"avx2-int8", "vnni-int8"},     {"vnni-int8", "avx2-int8"},
        {"avx512-f32", "onednn-f32"},   {"onednn-f32", "avx512-f32"},
        {"avx512-bf16", "onednn-bf16"}, {"onednn-bf16", "avx512-bf16"},
        {"vnni-int8", "onednn-int8"},   {"onednn-int8", "vnni-int8"}};
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
        test_packed_mismatch(sb_kernel_find(pairs[i][0]), sb_kernel_find(pairs[i][1]));
    test_packed_mismatch(&sb_kernel_amx_bf16_model, sb_kernel_find("avx512-bf16"));
    test_packed_mismatch(&sb_kernel_avx2_int8_vnni_model, sb_kernel_find("avx2-int8"));
    test_skip_paths();
    test_bad_input();
    printf("%d GEMM cases, %d wrong\n", g_cases, g_fail_cases);
    return test_report("test_kern_gemm");
}
