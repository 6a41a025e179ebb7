/* The blocking plumbing of the GEMM driver and the tuner around it: shape
 * classes and the blocking text, every own kernel that runs here (and the
 * AMX kernels on the tile model) giving the default's C under non-default
 * blockings, the per-kernel table, the tune file (round trip, another
 * machine's, corrupt files) and one tiny tuner run. No timing is asserted. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "sb_kernel.h"
#include "sb_tune.h"
#include "sb_tune_file.h"
#include "sb_tune_shapes.h"
#include "testutil.h"

static uint32_t g_seed = 7;
static int rnd_in(int lo, int hi)
{
    g_seed = g_seed * 1664525u + 1013904223u;
    return lo + (int)((g_seed >> 8) % (uint32_t)(hi - lo + 1));
}

static void test_classes(void)
{
    char b[16];
    sb_shape_class_name(sb_shape_class('N', 'N', 1024, 1024, 1024), b, sizeof b);
    CHECK(!strcmp(b, "NN-mmm"));
    sb_shape_class_name(sb_shape_class('N', 'N', 2048, 2048, 2048), b, sizeof b);
    CHECK(!strcmp(b, "NN-lll"));
    sb_shape_class_name(sb_shape_class('T', 'N', 768, 768, 12288), b, sizeof b);
    CHECK(!strcmp(b, "TN-mml"));
    sb_shape_class_name(sb_shape_class('N', 'T', 384, 384, 64), b, sizeof b);
    CHECK(!strcmp(b, "NT-sst"));
    for (int c = 0; c < SB_SHAPE_CLASSES; c++) {
        sb_shape_class_name(c, b, sizeof b);
        CHECK_EQ_INT(sb_shape_class_parse(b), c);
    }
    const char *bad[] = {"", "NN", "NX-mmm", "NN-mmx", "NN+mmm", "NN-mmmm", "nn-mmm", NULL};
    for (int i = 0; bad[i]; i++) CHECKF(sb_shape_class_parse(bad[i]) < 0, "%s parsed", bad[i]);
}

static void test_text(void)
{
    sb_blocking b = {
        .kc = 256, .mc = 96, .nc = 4096, .order = SB_ORDER_IR_JR, .pf = 8, .split = SB_SPLIT_COLS};
    char s[200];
    sb_blocking_format(&b, s, sizeof s);
    CHECK(!strcmp(s, "kc=256,mc=96,nc=4096,order=ir-jr,pf=8,split=cols"));
    sb_blocking r;
    sb_err e = {0};
    CHECK_EQ_INT(sb_blocking_parse(s, &r, &e), SB_OK);
    CHECK(!memcmp(&r, &b, sizeof b));
    b.variant = 1;
    sb_blocking_format(&b, s, sizeof s);
    CHECK(strstr(s, ",split=cols,variant=1") != NULL);
    CHECK_EQ_INT(sb_blocking_parse(s, &r, &e), SB_OK);
    CHECK(!memcmp(&r, &b, sizeof b));
    CHECK_EQ_INT(sb_blocking_parse("default", &r, &e), SB_OK);
    CHECK(r.kc == 0 && r.order == 0 && r.split == 0);
    CHECK_EQ_INT(sb_blocking_parse("kc=64", &r, &e), SB_OK);
    CHECK(r.kc == 64 && r.mc == 0);
    const char *bad[] = {"kc", "kc=", "kc=-1", "kc=1x", "zz=1", "order=up", "split=x", "kc=1,",
                         "kc=99999999", "=3",
                         /* the AMX kernels' residency is sb_amx_knobs', not a blocking field */
                         "amx_resident=1", "kc=8,amx_tiles=1",
                         /* empty, and a field twice (the last would silently win) */
                         "", "kc=1,kc=2", "order=jr-ir,mc=8,order=ir-jr", "kc=1,,mc=2", NULL};
    for (int i = 0; bad[i]; i++) {
        sb_err be = {0};
        CHECKF(sb_blocking_parse(bad[i], &r, &be) == SB_EUSAGE && be.msg[0], "'%s' accepted",
               bad[i]);
    }
}

/* C from kernel k under blocking b (NULL: the default), for small-integer
 * inputs (exact in every dtype, so any blocking must give the same bits). */
static int run_kernel(const sb_kernel *k, const sb_gemm_desc *d0, const sb_blocking *b,
                      const void *A, const void *B, void *C, int packed)
{
    sb_gemm_desc d = *d0;
    d.blocking = b;
    sb_err e = {0};
    int rc;
    if (packed) {
        sb_packed_b *pb = NULL;
        rc = k->pack_b(&d, B, &pb, &e);
        if (!rc) rc = k->gemm_packed(&d, A, pb, C, &e);
        sb_packed_b_free(pb);
    } else if (k->dtype == SB_DT_INT8) {
        rc = k->gemm_u8s8(&d, A, B, C, &e);
    } else {
        rc = k->gemm_f32(&d, A, B, C, &e);
    }
    if (rc) fprintf(stderr, "%s: %s\n", k->name, e.msg);
    return rc;
}

static void check_kernel(const sb_kernel *k)
{
    static const struct {
        char ta, tb;
        int m, n, k;
    } shapes[] = {{'N', 'N', 67, 83, 300},
                  {'T', 'N', 50, 70, 129},
                  {'N', 'T', 97, 40, 65},
                  {'T', 'T', 31, 45, 77}};
    /* small caps so every knob splits these small shapes into several blocks */
    const sb_blocking bs[] = {
        {.kc = 64, .mc = 24, .nc = 64},
        {.kc = 32, .mc = 12, .nc = 32, .order = SB_ORDER_IR_JR, .pf = 8},
        {.mc = 36, .nc = 64, .order = SB_ORDER_IR_JR, .split = SB_SPLIT_ROWS, .pf = 32},
        {.kc = 128, .split = SB_SPLIT_COLS},
    };
    int int8 = k->dtype == SB_DT_INT8;
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        int m = shapes[s].m, n = shapes[s].n, kk = shapes[s].k;
        sb_gemm_desc d = {.transa = shapes[s].ta,
                          .transb = shapes[s].tb,
                          .m = m,
                          .n = n,
                          .k = kk,
                          .lda = shapes[s].ta == 'N' ? kk : m,
                          .ldb = shapes[s].tb == 'N' ? n : kk,
                          .ldc = n,
                          .alpha = 1.0f,
                          .beta = 0.0f,
                          .threads = 2};
        size_t na = (size_t)m * kk, nb = (size_t)kk * n, nc = (size_t)m * n, esz = int8 ? 1 : 4;
        void *A = malloc(na * esz), *B = malloc(nb * esz);
        void *C0 = malloc(nc * 4), *C1 = malloc(nc * 4);
        for (size_t i = 0; i < na; i++) {
            if (int8)
                ((uint8_t *)A)[i] = (uint8_t)rnd_in(0, 6);
            else
                ((float *)A)[i] = (float)rnd_in(-3, 3);
        }
        for (size_t i = 0; i < nb; i++) {
            if (int8)
                ((int8_t *)B)[i] = (int8_t)rnd_in(-5, 5);
            else
                ((float *)B)[i] = (float)rnd_in(-3, 3);
        }
        CHECK_EQ_INT(run_kernel(k, &d, NULL, A, B, C0, 0), SB_OK);
        for (size_t b = 0; b < sizeof bs / sizeof bs[0]; b++)
            for (int packed = 0; packed < 2; packed++) {
                if (packed && !k->pack_b) continue;
                memset(C1, 0x7f, nc * 4);
                CHECK_EQ_INT(run_kernel(k, &d, &bs[b], A, B, C1, packed), SB_OK);
                char txt[160];
                sb_blocking_format(&bs[b], txt, sizeof txt);
                CHECKF(!memcmp(C0, C1, nc * 4), "%s %c%c %dx%dx%d %s%s: C differs", k->name,
                       d.transa, d.transb, m, n, kk, txt, packed ? " (packed B)" : "");
            }
        /* what the driver reports it runs: the caps, as it rounds them */
        sb_blocking r;
        d.blocking = &bs[0];
        CHECK_EQ_INT(sb_kernel_blocking(k, &d, &r), 1);
        CHECK(r.kc > 0 && r.kc <= 64 + 64 / 4 + 64 && r.mc > 0 && r.nc > 0);
        free(A);
        free(B);
        free(C0);
        free(C1);
    }
}

static void test_kernels(void)
{
    int ran = 0;
    for (int i = 0; i < sb_kernel_count(); i++) {
        const sb_kernel *k = sb_kernel_at(i);
        char why[256];
        sb_gemm_desc d1 = {.transa = 'N', .transb = 'N', .m = 1, .n = 1, .k = 1};
        sb_blocking b;
        if (!sb_kernel_blocking(k, &d1, &b)) {
            CHECKF(!k->own || !strcmp(k->name, "scalar-f32"), "%s: own but not on the driver",
                   k->name);
            continue;
        }
        if (!k->probe(why, sizeof why)) {
            printf("%s: not here (%s)\n", k->name, why);
            continue;
        }
        check_kernel(k);
        ran++;
    }
    /* the AMX kernels on the tile model, avx2-int8's VNNI path on its model */
    const sb_kernel *models[] = {&sb_kernel_amx_bf16_model, &sb_kernel_amx_int8_model,
                                 &sb_kernel_avx2_int8_vnni_model};
    for (int i = 0; i < 3; i++) {
        char why[256];
        if (!models[i]->probe(why, sizeof why)) continue;
        check_kernel(models[i]);
        ran++;
    }
    printf("blocking checked on %d kernel(s)\n", ran);
    CHECK(ran > 0);
}

static void test_table(void)
{
    const sb_kernel *k = NULL;
    const char *names[] = {"avx512-f32", "avx2-f32", "avx512-bf16", NULL};
    for (int i = 0; names[i] && !k; i++) {
        char why[256];
        const sb_kernel *c = sb_kernel_find(names[i]);
        if (c && c->probe(why, sizeof why)) k = c;
    }
    sb_err e = {0};
    sb_blocking t = {.kc = 48, .order = SB_ORDER_IR_JR, .pf = 8};
    int cls = sb_shape_class('N', 'N', 200, 200, 200);
    CHECK_EQ_INT(sb_blocking_set("avx512-f32", cls, &t, &e), SB_OK);
    CHECK_EQ_INT(sb_blocking_set("avx2-f32", cls, &t, &e), SB_OK);
    CHECK_EQ_INT(sb_blocking_set("avx512-bf16", cls, &t, &e), SB_OK);
    CHECK(sb_blocking_get("avx512-f32", cls) && sb_blocking_get("avx512-f32", cls)->kc == 48);
    CHECK(sb_blocking_get("avx512-f32", cls ^ 1) == NULL);
    CHECK_EQ_INT(sb_blocking_set("a-name-far-longer-than-thirty-one-chars", cls, &t, &e),
                 SB_EUSAGE);
    CHECK_EQ_INT(sb_blocking_set("avx512-f32", SB_SHAPE_CLASSES, &t, &e), SB_EUSAGE);
    if (k) {
        sb_gemm_desc d = {.transa = 'N',
                          .transb = 'N',
                          .m = 200,
                          .n = 200,
                          .k = 200,
                          .lda = 200,
                          .ldb = 200,
                          .ldc = 200,
                          .alpha = 1,
                          .threads = 1};
        sb_blocking r;
        sb_kernel_blocking(k, &d, &r);
        CHECKF(r.kc <= 64 && r.order == SB_ORDER_IR_JR && r.pf == 8, "%s: table not used (kc %d)",
               k->name, r.kc);
        sb_blocking own = {.kc = 96};
        d.blocking = &own; /* the call's own wins over the table */
        sb_kernel_blocking(k, &d, &r);
        CHECK(r.kc > 64 && r.order == SB_ORDER_JR_IR);
        d.blocking = NULL;
        d.m = 2000; /* another class: the built-in rule */
        sb_kernel_blocking(k, &d, &r);
        CHECK(r.kc > 64 && r.order == SB_ORDER_JR_IR && r.pf == 0);
    }
    sb_blocking_clear();
    CHECK(sb_blocking_get("avx512-f32", cls) == NULL);
    /* every registered kernel's every class fits (a tune file may hold that
     * many: 1024 once filled the table, and the rest were refused) */
    int n = 0;
    for (int i = 0; i < sb_kernel_count(); i++)
        for (int c = 0; c < SB_SHAPE_CLASSES; c++, n++) {
            sb_blocking x = {.kc = 16 + (n % 1000)};
            if (sb_blocking_set(sb_kernel_at(i)->name, c, &x, &e)) {
                CHECKF(0, "entry %d (%s, class %d) refused: %s", n, sb_kernel_at(i)->name, c,
                       e.msg);
                i = sb_kernel_count();
                break;
            }
        }
    CHECKF(n > 1024, "only %d entries tried", n);
    for (int i = 0, m = 0; i < sb_kernel_count(); i++)
        for (int c = 0; c < SB_SHAPE_CLASSES; c++, m++) {
            const sb_blocking *x = sb_blocking_get(sb_kernel_at(i)->name, c);
            if (!x || x->kc != 16 + (m % 1000)) {
                CHECKF(0, "entry %d (%s, class %d) lost", m, sb_kernel_at(i)->name, c);
                i = sb_kernel_count();
                break;
            }
        }
    sb_blocking_clear();
    CHECK(sb_blocking_get(sb_kernel_at(0)->name, 0) == NULL);
    /* the lookup is a search over entries kept in order: set backwards, a
     * value changed in place, names that share a prefix, every one found */
    for (int c = SB_SHAPE_CLASSES - 1; c >= 0; c -= 3) {
        sb_blocking x = {.kc = 8 + c}, y = {.kc = 9 + c}, z = {.mc = c + 1};
        CHECK_EQ_INT(sb_blocking_set("avx2-f32", c, &x, &e), SB_OK);
        CHECK_EQ_INT(sb_blocking_set("avx2", c, &z, &e), SB_OK);
        CHECK_EQ_INT(sb_blocking_set("avx2-f32", c, &y, &e), SB_OK);
    }
    for (int c = 0; c < SB_SHAPE_CLASSES; c++) {
        const sb_blocking *x = sb_blocking_get("avx2-f32", c), *z = sb_blocking_get("avx2", c);
        if ((SB_SHAPE_CLASSES - 1 - c) % 3)
            CHECKF(!x && !z, "class %d: an entry never set", c);
        else
            CHECKF(x && x->kc == 9 + c && z && z->mc == c + 1 && z->kc == 0, "class %d", c);
    }
    CHECK(sb_blocking_get("avx2-f3", SB_SHAPE_CLASSES - 1) == NULL);
    sb_blocking_clear();
}

static void write_text(const char *path, const char *s)
{
    FILE *f = fopen(path, "w");
    fputs(s, f);
    fclose(f);
}

static void test_file(void)
{
    char dir[] = "/tmp/sb-tune-XXXXXX", path[256];
    CHECK(mkdtemp(dir) != NULL);
    sb_err e = {0};
    CHECK_EQ_INT(sb_tune_path("results/sprbench.db", "0123456789abcdef", path, sizeof path, &e),
                 SB_OK);
    CHECK(!strcmp(path, "results/tune-0123456789abcdef.json"));
    CHECK_EQ_INT(sb_tune_path("x.db", "0123456789abcdef", path, sizeof path, &e), SB_OK);
    CHECK(!strcmp(path, "tune-0123456789abcdef.json"));
    snprintf(path, sizeof path, "%s/tune.json", dir);
    sb_tune_table t, u;
    int exists = 1;
    CHECK_EQ_INT(sb_tune_load(path, "0123456789abcdef", &t, &exists, &e), SB_OK);
    CHECK(exists == 0 && t.n == 0);
    snprintf(t.fingerprint, sizeof t.fingerprint, "0123456789abcdef");
    snprintf(t.cpu, sizeof t.cpu, "Test CPU");
    sb_tune_entry x = {.kernel = "avx512-f32",
                       .cls = sb_shape_class('N', 'N', 1024, 1024, 1024),
                       .b = {.kc = 384, .mc = 96, .nc = 2048, .order = 1, .pf = 8, .split = 2},
                       .transa = 'N',
                       .transb = 'N',
                       .m = 1024,
                       .n = 1024,
                       .k = 1024,
                       .threads = 2,
                       .default_gflops = 100.5,
                       .tuned_gflops = 110.25,
                       .when = "2026-12-03T06:00:00Z"};
    CHECK_EQ_INT(sb_tune_put(&t, &x, &e), SB_OK);
    sb_tune_entry y = x;
    y.cls = sb_shape_class('T', 'N', 768, 768, 3072);
    y.b = (sb_blocking){0};
    y.kept_default = 1;
    y.transa = 'T';
    CHECK_EQ_INT(sb_tune_put(&t, &y, &e), SB_OK);
    x.b.pf = 32; /* same kernel and class: replaced */
    CHECK_EQ_INT(sb_tune_put(&t, &x, &e), SB_OK);
    CHECK_EQ_INT(t.n, 2);
    CHECK_EQ_INT(sb_tune_save(path, &t, &e), SB_OK);
    CHECK_EQ_INT(sb_tune_load(path, "0123456789abcdef", &u, &exists, &e), SB_OK);
    CHECK(exists == 1 && u.n == 2 && !strcmp(u.cpu, "Test CPU"));
    const sb_tune_entry *g = sb_tune_find(&u, "avx512-f32", x.cls);
    CHECK(g && !memcmp(&g->b, &x.b, sizeof x.b) && g->m == 1024 && g->threads == 2 &&
          g->tuned_gflops == 110.25 && !g->kept_default && !strcmp(g->when, x.when));
    g = sb_tune_find(&u, "avx512-f32", y.cls);
    CHECK(g && g->kept_default && g->transa == 'T' && g->b.kc == 0);
    CHECK_EQ_INT(sb_tune_count(&u, "avx512-f32"), 2);
    CHECK_EQ_INT(sb_tune_count(&u, "avx2-f32"), 0);
    char desc[512];
    sb_tune_describe(&u, "avx512-f32", desc, sizeof desc);
    CHECKF(!strcmp(desc,
                   "NN-mmm:kc=384,mc=96,nc=2048,order=ir-jr,pf=32,split=cols;"
                   "TN-mml:kc=0,mc=0,nc=0,order=jr-ir,pf=0,split=auto"),
           "describe: %s", desc);
    /* apply: the driver's table holds them */
    CHECK_EQ_INT(sb_tune_apply(&u, NULL, &e), SB_OK);
    CHECK(sb_blocking_get("avx512-f32", x.cls) && sb_blocking_get("avx512-f32", x.cls)->pf == 32);
    sb_blocking_clear();
    sb_tune_free(&u);
    /* another machine's file: refused, naming both */
    sb_err fe = {0};
    CHECK_EQ_INT(sb_tune_load(path, "fedcba9876543210", &u, &exists, &fe), SB_EUSAGE);
    CHECK(strstr(fe.msg, "0123456789abcdef") && strstr(fe.msg, "fedcba9876543210"));
    CHECK_EQ_INT(u.n, 0);
    /* corrupt ones: one message naming the file */
    const char *bad[] = {
        "{not json",
        "[]",
        "{\"sprbench_tune\": 2, \"fingerprint\": \"0123456789abcdef\", \"entries\": []}",
        "{\"sprbench_tune\": 1, \"entries\": []}",
        "{\"sprbench_tune\": 1, \"fingerprint\": \"0123456789abcdef\"}",
        "{\"sprbench_tune\": 1, \"fingerprint\": \"0123456789abcdef\", \"entries\": [{\"kernel\": "
        "\"nope\", \"class\": \"NN-mmm\", \"blocking\": \"default\"}]}",
        "{\"sprbench_tune\": 1, \"fingerprint\": \"0123456789abcdef\", \"entries\": [{\"kernel\": "
        "\"avx512-f32\", \"class\": \"NN-mmx\", \"blocking\": \"default\"}]}",
        "{\"sprbench_tune\": 1, \"fingerprint\": \"0123456789abcdef\", \"entries\": [{\"kernel\": "
        "\"avx512-f32\", \"class\": \"NN-mmm\", \"blocking\": \"kc=abc\"}]}",
        "{\"sprbench_tune\": 1, \"fingerprint\": \"0123456789abcdef\", \"entries\": [{\"kernel\": "
        "\"avx512-f32\", \"class\": \"NN-mmm\", \"blocking\": \"default\"}, {\"kernel\": "
        "\"avx512-f32\", \"class\": \"NN-mmm\", \"blocking\": \"kc=8\"}]}",
        /* its shape, "XY MxNxK", read by the one grammar (bench/sb_shape) */
        "{\"sprbench_tune\": 1, \"fingerprint\": \"0123456789abcdef\", \"entries\": [{\"kernel\": "
        "\"avx512-f32\", \"class\": \"NN-mmm\", \"blocking\": \"default\", \"shape\": \"NN 8x8\"}]}",
        "{\"sprbench_tune\": 1, \"fingerprint\": \"0123456789abcdef\", \"entries\": [{\"kernel\": "
        "\"avx512-f32\", \"class\": \"NN-mmm\", \"blocking\": \"default\", \"shape\": "
        "\"XY 8x8x8\"}]}",
        "{\"sprbench_tune\": 1, \"fingerprint\": \"0123456789abcdef\", \"entries\": [{\"kernel\": "
        "\"avx512-f32\", \"class\": \"NN-mmm\", \"blocking\": \"default\", \"shape\": "
        "\"8x8x8\"}]}",
        NULL};
    for (int i = 0; bad[i]; i++) {
        write_text(path, bad[i]);
        sb_err be = {0};
        CHECKF(sb_tune_load(path, "0123456789abcdef", &u, &exists, &be) == SB_EUSAGE &&
                   strstr(be.msg, path) && !strchr(be.msg, '\n'),
               "corrupt file %d accepted (%s)", i, be.msg);
        CHECK_EQ_INT(u.n, 0);
    }
    sb_tune_free(&t);
    unlink(path);
    rmdir(dir);
}

static void test_tuner(void)
{
    const char *names[] = {"avx512-f32", "avx2-f32", NULL};
    const char *kn = NULL;
    for (int i = 0; names[i] && !kn; i++) {
        char why[256];
        if (sb_kernel_find(names[i])->probe(why, sizeof why)) kn = names[i];
    }
    sb_err e = {0};
    sb_tune_result r;
    sb_tune_config bad = {.kernel = "onednn-f32",
                          .transa = 'N',
                          .transb = 'N',
                          .m = 8,
                          .n = 8,
                          .k = 8,
                          .threads = 1,
                          .seconds = 0.01};
    CHECK_EQ_INT(sb_tune_run(&bad, &r, &e), SB_EUSAGE);
    bad.kernel = "nope";
    CHECK_EQ_INT(sb_tune_run(&bad, &r, &e), SB_EUSAGE);
    if (!kn) {
        printf("tuner: no f32 kernel of the driver runs here\n");
        return;
    }
    sb_tune_config c = {.kernel = kn,
                        .transa = 'N',
                        .transb = 'T',
                        .m = 70,
                        .n = 90,
                        .k = 50,
                        .threads = 2,
                        .seconds = 0.05};
    CHECK_EQ_INT(sb_tune_run(&c, &r, &e), SB_OK);
    CHECKF(!strcmp(r.status, "ok"), "tuner: %s %s", r.status, r.reason);
    CHECK(r.candidates >= 2 && r.rejected == 0 && r.rounds >= 5);
    CHECK(r.default_gflops > 0 && r.tuned_gflops > 0 && r.default_run.kc > 0);
    if (r.kept_default) {
        CHECK(r.best.kc == 0 && r.best.mc == 0 && r.best.nc == 0 && r.best.order == 0);
        CHECK(r.tuned_gflops == r.default_gflops);
    } else {
        CHECK(r.best.kc > 0 && r.tuned_gflops > r.default_gflops);
    }
}

/* 'distilbert' names the model's training GEMMs (bench/distilbert/sb_shapes),
 * one of each class, in the order the tuner runs them; 'square' its own two */
static void test_shape_sets(void)
{
    static const sb_tune_shape want[] = {
        {'N', 'T', 3072, 768, 768, 0}, {'N', 'T', 3072, 2304, 768, 0}, {'N', 'T', 3072, 768, 3072, 0},
        {'N', 'N', 3072, 768, 768, 0}, {'N', 'N', 3072, 768, 3072, 0}, {'N', 'N', 3072, 3072, 768, 0},
        {'T', 'N', 768, 768, 3072, 0}, {'T', 'N', 2304, 768, 3072, 0}, {'T', 'N', 768, 3072, 3072, 0},
        {'N', 'T', 384, 384, 64, 1},   {'N', 'N', 384, 64, 384, 1},    {'T', 'N', 384, 64, 384, 1},
        {'N', 'N', 1024, 1024, 1024, 0}, {'N', 'N', 2048, 2048, 2048, 0}, {'N', 'T', 8, 9, 10, 2}};
    sb_tune_shape got[SB_TUNE_MAX_SHAPES];
    int n = 0;
    sb_err e = {0};
    CHECK_EQ_INT(sb_tune_shapes_parse("distilbert,square,8x9x10:NT@2", got, &n, &e),
                 SB_OK);
    CHECK_EQ_INT(n, (int)(sizeof want / sizeof want[0]));
    for (int i = 0; i < n && i < (int)(sizeof want / sizeof want[0]); i++)
        CHECKF(got[i].ta == want[i].ta && got[i].tb == want[i].tb && got[i].m == want[i].m &&
                   got[i].n == want[i].n && got[i].k == want[i].k &&
                   got[i].threads == want[i].threads, /* fields: the padding is not the set's */
               "shape %d: %c%c %dx%dx%d @%d", i,
               got[i].ta, got[i].tb, got[i].m, got[i].n, got[i].k, got[i].threads);
}

int main(void)
{
    test_shape_sets();
    test_classes();
    test_text();
    test_kernels();
    test_table();
    test_file();
    test_tuner();
    return test_report("test_kern_tune");
}
