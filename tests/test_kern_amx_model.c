/* The AMX tile model against hand-computed tiles and its shape rules: what
 * the AMX kernels' tests (test_kern_gemm) rest on when no AMX is at hand. */
#include <stdint.h>
#include <string.h>
#include <stdlib.h>
#include "sb_amx_knobs.h"
#include "sb_amx_model.h"
#include "testutil.h"

static void cfg_init(sb_amx_tilecfg *c)
{
    memset(c, 0, sizeof *c);
    c->palette = 1;
}
static void cfg_tile(sb_amx_tilecfg *c, int t, int rows, int colsb)
{
    c->rows[t] = (uint8_t)rows;
    c->colsb[t] = (uint16_t)colsb;
}
static uint16_t bf(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return (uint16_t)(u >> 16); /* exact for the values used here */
}
static int no_error(void)
{
    const char *m = sb_amx_model_error();
    if (m) fprintf(stderr, "  unexpected model error: %s\n", m);
    return m == NULL;
}
/* The call must have failed with a message naming `what`. */
static void expect_error(const char *what)
{
    const char *m = sb_amx_model_error();
    CHECK(m != NULL);
    if (m && !strstr(m, what)) {
        fprintf(stderr, "  error '%s' does not mention '%s'\n", m, what);
        CHECK(0);
    }
    sb_amx_model_clear_error();
}

/* C(2x2) += A(2x4) . B(4x2) in bf16: B in VNNI pairs, as tdpbf16ps wants. */
static void test_bf16_hand(void)
{
    sb_amx_tilecfg c;
    cfg_init(&c);
    cfg_tile(&c, 0, 2, 8); /* C: 2 rows x 2 f32 */
    cfg_tile(&c, 1, 2, 8); /* A: 2 rows x 4 bf16 (K = 4) */
    cfg_tile(&c, 2, 2, 8); /* B: K/2 = 2 rows x (2 columns x 2) */
    sb_amx_model_ldtilecfg(&c);
    CHECK(no_error());
    float cinit[2][2] = {{1, 1}, {1, -1}};
    uint16_t a[2][4] = {{bf(1), bf(2), bf(3), bf(4)}, {bf(5), bf(6), bf(7), bf(8)}};
    /* B = [[1,2],[3,4],[5,6],[7,8]] (K x N); VNNI row r: B[2r][n], B[2r+1][n] per n */
    uint16_t b[2][4] = {{bf(1), bf(3), bf(2), bf(4)}, {bf(5), bf(7), bf(6), bf(8)}};
    sb_amx_model_tileloadd(0, cinit, sizeof cinit[0]);
    sb_amx_model_tileloadd(1, a, sizeof a[0]);
    sb_amx_model_tileloadd(2, b, sizeof b[0]);
    sb_amx_model_tdpbf16ps(0, 1, 2);
    float out[2][2] = {{0}};
    sb_amx_model_tilestored(0, out, sizeof out[0]);
    CHECK(no_error());
    /* by hand: [1 2 3 4].[1 3 5 7] = 50, .[2 4 6 8] = 60; [5 6 7 8] -> 114, 140 */
    CHECK(out[0][0] == 51.0f && out[0][1] == 61.0f);
    CHECK(out[1][0] == 115.0f && out[1][1] == 139.0f);
    sb_amx_model_tilerelease();
}

/* tdpbssd vs tdpbusd: the same bytes, signed or unsigned A. */
static void test_int8_hand(void)
{
    sb_amx_tilecfg c;
    cfg_init(&c);
    cfg_tile(&c, 0, 1, 8); /* C: 1 row x 2 s32 */
    cfg_tile(&c, 3, 1, 8); /* A: 1 row x 8 bytes (K = 8) */
    cfg_tile(&c, 5, 2, 8); /* B: K/4 = 2 rows x (2 columns x 4) */
    sb_amx_model_ldtilecfg(&c);
    uint8_t a[8] = {255, 1, 2, 3, 0x80, 0, 0, 1};
    /* column 0: k = 0..7 -> 1,1,1,1, 1,0,0,2 ; column 1: -1,0,0,0, 0,0,0,-1 */
    int8_t b[2][8] = {{1, 1, 1, 1, -1, 0, 0, 0}, {1, 0, 0, 2, 0, 0, 0, -1}};
    sb_amx_model_tilezero(0);
    sb_amx_model_tileloadd(3, a, 8);
    sb_amx_model_tileloadd(5, b, 8);
    sb_amx_model_tdpbusd(0, 3, 5);
    int32_t out[2];
    sb_amx_model_tilestored(0, out, 8);
    CHECK(no_error());
    /* unsigned A: col0 = 255+1+2+3 + 128 + 2 = 391; col1 = -255 - 1 = -256 */
    CHECK_EQ_INT(out[0], 391);
    CHECK_EQ_INT(out[1], -256);
    sb_amx_model_tilezero(0);
    sb_amx_model_tdpbssd(0, 3, 5);
    sb_amx_model_tilestored(0, out, 8);
    CHECK(no_error());
    /* signed A: 255 -> -1, 0x80 -> -128: col0 = -1+1+2+3 - 128 + 2 = -121; col1 = 1 - 1 = 0 */
    CHECK_EQ_INT(out[0], -121);
    CHECK_EQ_INT(out[1], 0);
    sb_amx_model_tilerelease();
}

/* Denormal bf16 inputs count as zero; denormal f32 results are flushed. */
static void test_denormals(void)
{
    sb_amx_tilecfg c;
    cfg_init(&c);
    cfg_tile(&c, 0, 1, 4);
    cfg_tile(&c, 1, 1, 4);
    cfg_tile(&c, 2, 1, 4);
    sb_amx_model_ldtilecfg(&c);
    uint16_t a[2] = {0x0001, bf(0x1p-70f)}, b[2] = {bf(0x1p+100f), bf(0x1p-70f)};
    /* a0*b0 would be 2^-133 * 2^100 = 2^-33 (normal) if the denormal counted;
     * a1*b1 = 2^-140 is an f32 denormal: flushed */
    sb_amx_model_tilezero(0);
    sb_amx_model_tileloadd(1, a, 4);
    sb_amx_model_tileloadd(2, b, 4);
    sb_amx_model_tdpbf16ps(0, 1, 2);
    uint32_t bits = 1;
    sb_amx_model_tilestored(0, &bits, 4);
    CHECK(no_error());
    CHECK_EQ_INT(bits, 0);
    sb_amx_model_tilerelease();
}

/* Loads read only the configured bytes; stores write only them. */
static void test_load_store(void)
{
    sb_amx_tilecfg c;
    cfg_init(&c);
    cfg_tile(&c, 7, 3, 12);
    sb_amx_model_ldtilecfg(&c);
    uint8_t src[4][20], dst[4][20];
    for (int r = 0; r < 4; r++)
        for (int j = 0; j < 20; j++) src[r][j] = (uint8_t)(r * 20 + j);
    memset(dst, 0xEE, sizeof dst);
    sb_amx_model_tileloadd(7, src, 20);
    sb_amx_model_tilestored(7, dst, 20);
    CHECK(no_error());
    int good = 1;
    for (int r = 0; r < 4; r++)
        for (int j = 0; j < 20; j++) good &= dst[r][j] == ((r < 3 && j < 12) ? src[r][j] : 0xEE);
    CHECK(good);
    sb_amx_tilecfg back;
    sb_amx_model_sttilecfg(&back);
    CHECK(memcmp(&back, &c, sizeof c) == 0);
    sb_amx_model_tilerelease();
}

static void test_config_rules(void)
{
    sb_amx_tilecfg c;
    sb_amx_model_clear_error();
    cfg_init(&c);
    c.palette = 2;
    sb_amx_model_ldtilecfg(&c);
    expect_error("palette");
    cfg_init(&c);
    c.reserved[3] = 1;
    sb_amx_model_ldtilecfg(&c);
    expect_error("reserved");
    cfg_init(&c);
    c.start_row = 1;
    sb_amx_model_ldtilecfg(&c);
    expect_error("start_row");
    cfg_init(&c);
    cfg_tile(&c, 0, 17, 64);
    sb_amx_model_ldtilecfg(&c);
    expect_error("max 16 x 64");
    cfg_init(&c);
    cfg_tile(&c, 0, 16, 68);
    sb_amx_model_ldtilecfg(&c);
    expect_error("max 16 x 64");
    cfg_init(&c);
    cfg_tile(&c, 8, 16, 64);
    sb_amx_model_ldtilecfg(&c);
    expect_error("8 tiles");
    cfg_init(&c);
    cfg_tile(&c, 2, 0, 64);
    sb_amx_model_ldtilecfg(&c);
    expect_error("both or neither");
    /* a failed ldtilecfg leaves no configuration: tile ops fail */
    uint8_t buf[64] = {0};
    sb_amx_model_tileloadd(0, buf, 64);
    expect_error("no tile configuration");
    /* palette 0 releases */
    cfg_init(&c);
    cfg_tile(&c, 0, 1, 4);
    sb_amx_model_ldtilecfg(&c);
    CHECK(no_error());
    c.palette = 0;
    sb_amx_model_ldtilecfg(&c);
    sb_amx_model_tilezero(0);
    expect_error("no tile configuration");
}

static void test_shape_rules(void)
{
    sb_amx_tilecfg c;
    cfg_init(&c);
    cfg_tile(&c, 0, 4, 16); /* C: M=4, N=4 */
    cfg_tile(&c, 1, 4, 32); /* A: M=4, K=8 (bf16) / 32 bytes */
    cfg_tile(&c, 2, 8, 16); /* B: K/2=8 rows (a.colsb == 4*b.rows), N=4 */
    cfg_tile(&c, 3, 3, 32); /* A with the wrong M */
    cfg_tile(&c, 4, 8, 12); /* B with the wrong N */
    cfg_tile(&c, 5, 7, 16); /* B with the wrong K */
    cfg_tile(&c, 6, 4, 18); /* C whose colsb is no multiple of 4 (with B tile 7) */
    cfg_tile(&c, 7, 8, 18);
    sb_amx_model_ldtilecfg(&c);
    CHECK(no_error());
    uint8_t z[16 * 64] = {0};
    for (int t = 0; t < 8; t++) sb_amx_model_tileloadd(t, z, 64);
    sb_amx_model_tdpbf16ps(0, 1, 2);
    CHECK(no_error());
    sb_amx_model_tdpbf16ps(0, 3, 2);
    expect_error("rows");
    sb_amx_model_tdpbf16ps(0, 1, 4);
    expect_error("bytes per row");
    sb_amx_model_tdpbssd(0, 1, 5);
    expect_error("4*rows");
    sb_amx_model_tdpbusd(0, 0, 2);
    expect_error("distinct");
    sb_amx_model_tdpbusd(6, 1, 7);
    expect_error("multiples of 4");
    sb_amx_model_tdpbf16ps(0, 1, 9);
    expect_error("does not exist");
    sb_amx_tilecfg c2;
    cfg_init(&c2);
    cfg_tile(&c2, 0, 1, 4);
    sb_amx_model_ldtilecfg(&c2);
    sb_amx_model_tilestored(1, z, 64);
    expect_error("not configured");
    /* a refused tdp leaves the destination alone */
    cfg_init(&c);
    cfg_tile(&c, 0, 1, 4);
    cfg_tile(&c, 1, 2, 4);
    cfg_tile(&c, 2, 1, 4);
    sb_amx_model_ldtilecfg(&c);
    float one = 1.0f, got = 0;
    sb_amx_model_tileloadd(0, &one, 4);
    sb_amx_model_tdpbf16ps(0, 1, 2);
    expect_error("rows");
    sb_amx_model_tilestored(0, &got, 4);
    CHECK(got == 1.0f);
    sb_amx_model_tilerelease();
    /* the error is per thread and sticks to the first one until cleared */
    sb_amx_model_tilezero(0);
    sb_amx_model_tilezero(9);
    const char *m = sb_amx_model_error();
    CHECK(m && strstr(m, "no tile configuration"));
    sb_amx_model_clear_error();
    CHECK(sb_amx_model_error() == NULL);
}

/* The loop-nest knobs: the environment's (ctest runs this test also with
 * SB_AMX_RESIDENT=a SB_AMX_PREFETCH=7) or the defaults, the setter's
 * range checks, the parser. */
static void test_knobs(void)
{
    const char *er = getenv("SB_AMX_RESIDENT"), *ep = getenv("SB_AMX_PREFETCH");
    sb_amx_knobs k = sb_amx_knobs_get();
    CHECK_EQ_INT(k.resident, er && !strcmp(er, "a") ? SB_AMX_RESIDENT_A : SB_AMX_RESIDENT_B);
    CHECK_EQ_INT(k.prefetch, ep ? atoi(ep) : 2);
    sb_err e = {0};
    sb_amx_knobs bad = {SB_AMX_RESIDENT_A, SB_AMX_PREFETCH_MAX + 1};
    CHECK_EQ_INT(sb_amx_knobs_set(&bad, &e), SB_EUSAGE);
    CHECK(strstr(e.msg, "prefetch") != NULL);
    bad.prefetch = -1;
    CHECK_EQ_INT(sb_amx_knobs_set(&bad, &e), SB_EUSAGE);
    bad = (sb_amx_knobs){(sb_amx_resident)2, 0};
    CHECK_EQ_INT(sb_amx_knobs_set(&bad, &e), SB_EUSAGE);
    sb_amx_knobs now = sb_amx_knobs_get(); /* refused: nothing changed */
    CHECK(now.resident == k.resident && now.prefetch == k.prefetch);
    sb_amx_knobs good = {SB_AMX_RESIDENT_A, 0};
    CHECK_EQ_INT(sb_amx_knobs_set(&good, &e), SB_OK);
    now = sb_amx_knobs_get();
    CHECK(now.resident == SB_AMX_RESIDENT_A && now.prefetch == 0);
    CHECK_EQ_INT(sb_amx_knobs_set(&k, &e), SB_OK);
    sb_amx_resident r = SB_AMX_RESIDENT_B;
    CHECK_EQ_INT(sb_amx_resident_parse("a", &r, &e), SB_OK);
    CHECK_EQ_INT(r, SB_AMX_RESIDENT_A);
    CHECK_EQ_INT(sb_amx_resident_parse("B", &r, &e), SB_OK);
    CHECK_EQ_INT(r, SB_AMX_RESIDENT_B);
    CHECK_EQ_INT(sb_amx_resident_parse("c", &r, &e), SB_EUSAGE);
    CHECK(strcmp(sb_amx_resident_name(SB_AMX_RESIDENT_A), "a") == 0);
}

int main(void)
{
    test_knobs();
    test_bf16_hand();
    test_int8_hand();
    test_denormals();
    test_load_store();
    test_config_rules();
    test_shape_rules();
    return test_report("test_kern_amx_model");
}
