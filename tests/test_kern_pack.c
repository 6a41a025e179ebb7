/* The AMX kernels' AVX-512 packers (sb_pack_a_tiles_avx512,
 * sb_pack_b_vnni_avx512) against the reference packers (sb_pack_a_tiles,
 * sb_pack_b_vnni, sb_pack.c) byte for byte: every
 * conversion the AMX kernels use (f32 -> bf16, bf16, u8, s8) and f32, op(X) =
 * X and X^T, every panel height / width 1..67 (one and several 32-row panels, the
 * 16-row halves), every k tail around the 64-byte chunk (kc 1..130 and the
 * KC blocks), offsets i0/p0 into a padded A, and f32 inputs that test the
 * rounding: ties to even both ways, NaN (signalling and quiet, both signs),
 * infinities, denormals (kept: vcvtneps2bf16 would flush them), the largest
 * finite values (rounding up to infinity); and sb_round_bf16_rows_avx512
 * (the vendor kernels' f32 -> bf16 copies) against sb_f32_to_bf16, with the
 * padding between rows left untouched. Exit 77 without AVX-512. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "sb_isa.h"
#include "sb_pack.h"
#include "sb_pack_avx512.h"
#include "testutil.h"

static uint32_t g_seed = 20261203u;
static uint32_t rnd(void)
{
    g_seed = g_seed * 1664525u + 1013904223u;
    return g_seed >> 8;
}

static float special(uint32_t r)
{
    static const uint32_t bits[] = {
        0x3f808000u, /* tie, even below: rounds down */
        0x3f818000u, /* tie, odd below: rounds up */
        0x3f808001u, 0x3f807fffu, 0x7f800000u, 0xff800000u, 0x7fc00000u,
        0xffc00001u, 0x7f800001u, /* signalling NaN: made quiet */
        0xff810000u, 0x00000001u, 0x807fffffu, 0x00400000u, 0x7f7fffffu, /* -> inf */
        0xff7f8000u, 0x80000000u, 0x00000000u,
    };
    uint32_t u = bits[r % (sizeof bits / sizeof *bits)];
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* A of `rows` x `cols` stored elements (padded), filled per type. */
static void *make_a(sb_src_type src, size_t n)
{
    if (src == SB_SRC_F32) {
        float *a = malloc(n * 4);
        for (size_t i = 0; i < n; i++) {
            uint32_t r = rnd();
            if (r % 5 == 0) {
                a[i] = special(r / 5);
            } else {
                uint32_t u = rnd() << 9 ^ rnd(); /* any bit pattern but NaN-heavy ranges */
                memcpy(&a[i], &u, 4);
                if (isnan(a[i])) a[i] = (float)(r % 1000) - 500.0f;
            }
        }
        return a;
    }
    size_t es = src == SB_SRC_BF16 ? 2 : 1;
    uint8_t *a = malloc(n * es);
    for (size_t i = 0; i < n * es; i++) a[i] = (uint8_t)rnd();
    return a;
}

static int g_cases, g_bad;

static void one(sb_src_type src, int bf16, int kg, char ta, int mc, int kc, int i0, int p0,
                int pad)
{
    const int mr = 32, ku = 16 * kg;
    int kcp = (kc + ku - 1) / ku * ku;
    int a_rows = ta == 'N' ? i0 + mc : p0 + kc, a_cols = ta == 'N' ? p0 + kc : i0 + mc;
    sb_gemm_desc d = {.transa = ta, .transb = 'N', .m = i0 + mc, .n = 1, .k = p0 + kc,
                      .lda = a_cols + pad, .ldb = 1, .ldc = 1, .alpha = 1};
    void *A = make_a(src, (size_t)a_rows * d.lda);
    size_t es = src == SB_SRC_F32 && !bf16 ? 4 : src == SB_SRC_F32 || src == SB_SRC_BF16 ? 2 : 1;
    size_t bytes = (size_t)(mc + mr - 1) / mr * mr * kcp * es;
    char *want = malloc(bytes + 64), *got = malloc(bytes + 64);
    memset(want, 0xA5, bytes + 64);
    memset(got, 0x5A, bytes + 64);
    sb_pack_a_tiles(&d, A, src, bf16, mr, kg, i0, mc, p0, kc, kcp, want);
    sb_pack_a_tiles_avx512(&d, A, src, bf16, mr, kg, i0, mc, p0, kc, kcp, got);
    g_cases++;
    size_t bad = bytes;
    for (size_t i = 0; i < bytes && bad == bytes; i++)
        if (want[i] != got[i]) bad = i;
    /* nothing written past the panels */
    int over = 0;
    for (size_t i = bytes; i < bytes + 64; i++) over |= (uint8_t)got[i] != 0x5A;
    if (bad != bytes || over) {
        g_bad++;
        if (g_bad <= 10)
            fprintf(stderr,
                    "  src %d bf16 %d trans %c mc %d kc %d (kcp %d) i0 %d p0 %d pad %d: %s at byte "
                    "%zu of %zu (want %02x got %02x)\n",
                    (int)src, bf16, ta, mc, kc, kcp, i0, p0, pad,
                    over ? "written past the end" : "differs", over ? bytes : bad, bytes,
                    over ? 0x5A : (uint8_t)want[bad], over ? 0 : (uint8_t)got[bad]);
    }
    free(A);
    free(want);
    free(got);
}

/* B: op(B) = B or B^T, columns j0 .. j0+nc, k from p0. */
static void one_b(sb_src_type src, int bf16, int kg, char tb, int nc, int kc, int j0, int p0,
                  int pad)
{
    const int nr = 32, ku = 16 * kg;
    int kcp = (kc + ku - 1) / ku * ku;
    int b_rows = tb == 'N' ? p0 + kc : j0 + nc, b_cols = tb == 'N' ? j0 + nc : p0 + kc;
    sb_gemm_desc d = {.transa = 'N', .transb = tb, .m = 1, .n = j0 + nc, .k = p0 + kc,
                      .lda = p0 + kc, .ldb = b_cols + pad, .ldc = j0 + nc, .alpha = 1};
    void *B = make_a(src, (size_t)b_rows * d.ldb);
    size_t es = src == SB_SRC_F32 && !bf16 ? 4 : src == SB_SRC_F32 || src == SB_SRC_BF16 ? 2 : 1;
    size_t bytes = (size_t)(nc + nr - 1) / nr * nr * kcp * es;
    char *want = malloc(bytes + 64), *got = malloc(bytes + 64);
    memset(want, 0xA5, bytes + 64);
    memset(got, 0x5A, bytes + 64);
    sb_pack_b_vnni(&d, B, src, bf16, nr, kg, p0, kc, kcp, j0, nc, want);
    sb_pack_b_vnni_avx512(&d, B, src, bf16, nr, kg, p0, kc, kcp, j0, nc, got);
    g_cases++;
    size_t bad = bytes;
    for (size_t i = 0; i < bytes && bad == bytes; i++)
        if (want[i] != got[i]) bad = i;
    int over = 0;
    for (size_t i = bytes; i < bytes + 64; i++) over |= (uint8_t)got[i] != 0x5A;
    if (bad != bytes || over) {
        g_bad++;
        if (g_bad <= 10)
            fprintf(stderr,
                    "  B: src %d bf16 %d trans %c nc %d kc %d (kcp %d) j0 %d p0 %d pad %d: %s at "
                    "byte %zu of %zu\n",
                    (int)src, bf16, tb, nc, kc, kcp, j0, p0, pad,
                    over ? "written past the end" : "differs", over ? bytes : bad, bytes);
    }
    free(B);
    free(want);
    free(got);
}

int main(void)
{
    char why[256];
    if (!sb_isa_probe("f32", why, sizeof why)) {
        printf("skipped: the AVX-512 packer cannot run here: %s\n", why);
        return 77;
    }
    static const struct {
        sb_src_type src;
        int bf16, kg;
    } conv[] = {{SB_SRC_F32, 1, 2}, {SB_SRC_BF16, 1, 2}, {SB_SRC_U8, 0, 4}, {SB_SRC_S8, 0, 4},
                {SB_SRC_F32, 0, 1}};
    static const int ms[] = {1, 2, 3, 7, 15, 16, 17, 31, 32, 33, 47, 48, 63, 64, 65, 67};
    static const int ks[] = {1, 2, 3, 4, 5, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 130};
    for (size_t c = 0; c < sizeof conv / sizeof *conv; c++)
        for (int t = 0; t < 2; t++) {
            char ta = "NT"[t];
            for (size_t mi = 0; mi < sizeof ms / sizeof *ms; mi++)
                for (size_t ki = 0; ki < sizeof ks / sizeof *ks; ki++)
                    one(conv[c].src, conv[c].bf16, conv[c].kg, ta, ms[mi], ks[ki],
                        (int)(rnd() % 5), (int)(rnd() % 7), (int)(rnd() % 9));
            /* a KC block deep into a long k, and large panels */
            one(conv[c].src, conv[c].bf16, conv[c].kg, ta, 96, 512, 3, 1024, 5);
            one(conv[c].src, conv[c].bf16, conv[c].kg, ta, 70, 1000, 0, 24, 0);
            for (size_t ni = 0; ni < sizeof ms / sizeof *ms; ni++)
                for (size_t ki = 0; ki < sizeof ks / sizeof *ks; ki++)
                    one_b(conv[c].src, conv[c].bf16, conv[c].kg, ta, ms[ni], ks[ki],
                          (int)(rnd() % 5), (int)(rnd() % 7), (int)(rnd() % 9));
            one_b(conv[c].src, conv[c].bf16, conv[c].kg, ta, 96, 512, 3, 1024, 5);
            one_b(conv[c].src, conv[c].bf16, conv[c].kg, ta, 70, 1000, 0, 24, 0);
        }
    /* the vendors' f32 -> bf16 copies (sb_bf16buf_round's AVX-512 rows) */
    for (int cols = 1; cols <= 67; cols += (cols < 20 ? 1 : 7)) {
        int rows = 3, ld = cols + 5;
        float *x = malloc(sizeof *x * rows * ld);
        uint16_t *y = malloc(sizeof *y * rows * ld);
        for (int i = 0; i < rows * ld; i++) {
            x[i] = special(rnd());
            y[i] = 0xdead;
        }
        sb_round_bf16_rows_avx512(x, rows, cols, ld, y);
        for (int r = 0; r < rows; r++)
            for (int j = 0; j < ld; j++) {
                uint16_t want = j < cols ? sb_f32_to_bf16(x[r * ld + j]) : 0xdead;
                g_cases++;
                if (y[r * ld + j] != want) g_bad++;
            }
        free(x);
        free(y);
    }
    printf("%d packings, %d differ\n", g_cases, g_bad);
    CHECK(g_cases > 0);
    CHECKF(g_bad == 0, "%d of %d packings differ from the reference", g_bad, g_cases);
    return test_report("test_kern_pack");
}
