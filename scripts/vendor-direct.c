/* vendor-direct: oneDNN 3.x and MKL timed straight through their own C APIs,
 * with none of sprbench's code in between: the independent timer that
 * scripts/bench-vendors sets beside `sprbench gemm --kernel onednn-* / mkl-*`.
 * Built by that script against the PyPI cache's headers (scripts/vendor-libs).
 *
 *   vendor-direct LIB DTYPE M N K THREADS SECONDS
 *     LIB    onednn | mkl;  DTYPE f32 | bf16 | int8 (u8 x s8 -> s32)
 *   prints one line: "LIB DTYPE MxNxK T: median GFLOP/s min max reps impl"
 *
 * Row-major NN, B (the weights) packed once before timing (oneDNN: its
 * preferred layout via format "any" and a reorder; MKL: *_pack), A and C
 * plain; each call timed alone with CLOCK_MONOTONIC after 3 warm-up calls;
 * the median over at least 8 calls and SECONDS of timed work. */
#define _POSIX_C_SOURCE 200809L
#include <oneapi/dnnl/dnnl.h>
#include <mkl.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}
static int cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}
static void die(const char *what)
{
    fprintf(stderr, "vendor-direct: %s\n", what);
    exit(1);
}
#define OK(call)                                                                                  \
    do {                                                                                          \
        if ((call) != dnnl_success) die(#call);                                                   \
    } while (0)

/* Small integers, as sprbench gemm's inputs are: a byte pattern such as
 * memset(1) makes f32 values near 1e-38 whose products are denormal, which
 * some CPUs compute at a fraction of their speed. */
static void fill(void *p, size_t n, int kind) /* kind: 0 f32, 1 bf16, 2 u8, 3 s8 */
{
    for (size_t i = 0; i < n; i++) {
        int v = (int)(i * 2654435761u >> 28) % 7 - 3; /* -3..3 */
        if (kind == 0)
            ((float *)p)[i] = (float)v;
        else if (kind == 1) {
            float f = (float)v;
            uint32_t u;
            memcpy(&u, &f, 4);
            ((uint16_t *)p)[i] = (uint16_t)(u >> 16); /* exact: small integers */
        } else if (kind == 2)
            ((uint8_t *)p)[i] = (uint8_t)(v + 3);
        else
            ((int8_t *)p)[i] = (int8_t)v;
    }
}

typedef void (*run_fn)(void *ctx);

static void time_it(run_fn run, void *ctx, double seconds, double flops, const char *label,
                    const char *impl)
{
    for (int i = 0; i < 3; i++) run(ctx);
    int cap = 1 << 16, n = 0;
    double *t = malloc(cap * sizeof *t), total = 0;
    while ((n < 8 || total < seconds) && n < cap) {
        double t0 = now();
        run(ctx);
        t[n] = now() - t0;
        total += t[n++];
    }
    qsort(t, n, sizeof *t, cmpd);
    printf("%s: %.1f GFLOP/s median (slowest call %.1f, fastest %.1f), %d reps, %s\n", label,
           flops / t[n / 2] / 1e9, flops / t[n - 1] / 1e9, flops / t[0] / 1e9, n, impl);
    free(t);
}

/* ---- oneDNN ---- */
typedef struct {
    dnnl_primitive_t prim;
    dnnl_stream_t stream;
    dnnl_memory_t a, b, c;
} dnn_ctx;

static void dnn_run(void *p)
{
    dnn_ctx *x = p;
    dnnl_exec_arg_t args[3] = {{DNNL_ARG_SRC, x->a}, {DNNL_ARG_WEIGHTS, x->b}, {DNNL_ARG_DST, x->c}};
    OK(dnnl_primitive_execute(x->prim, x->stream, 3, args));
    OK(dnnl_stream_wait(x->stream));
}

static void onednn(const char *dt, int m, int n, int k, double seconds, const char *label)
{
    dnnl_data_type_t ta = !strcmp(dt, "f32") ? dnnl_f32 : !strcmp(dt, "bf16") ? dnnl_bf16 : dnnl_u8;
    dnnl_data_type_t tb = !strcmp(dt, "f32") ? dnnl_f32 : !strcmp(dt, "bf16") ? dnnl_bf16 : dnnl_s8;
    dnnl_data_type_t tc = !strcmp(dt, "int8") ? dnnl_s32 : dnnl_f32;
    dnnl_engine_t eng;
    dnn_ctx x;
    OK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    OK(dnnl_stream_create(&x.stream, eng, dnnl_stream_default_flags));
    dnnl_dims_t da = {m, k}, db = {k, n}, dc = {m, n};
    dnnl_memory_desc_t amd, bany, bplain, cmd;
    OK(dnnl_memory_desc_create_with_tag(&amd, 2, da, ta, dnnl_ab));
    OK(dnnl_memory_desc_create_with_tag(&bany, 2, db, tb, dnnl_format_tag_any));
    OK(dnnl_memory_desc_create_with_tag(&bplain, 2, db, tb, dnnl_ab));
    OK(dnnl_memory_desc_create_with_tag(&cmd, 2, dc, tc, dnnl_ab));
    dnnl_primitive_desc_t pd, rpd;
    OK(dnnl_matmul_primitive_desc_create(&pd, eng, amd, bany, NULL, cmd, NULL));
    const char *impl = NULL;
    OK(dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl));
    const_dnnl_memory_desc_t bpacked = dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
    OK(dnnl_primitive_create(&x.prim, pd));
    size_t esz = tb == dnnl_f32 ? 4 : tb == dnnl_bf16 ? 2 : 1;
    void *A = aligned_alloc(64, ((size_t)m * k * (ta == dnnl_f32 ? 4 : ta == dnnl_bf16 ? 2 : 1) + 63) / 64 * 64);
    void *Bp = aligned_alloc(64, ((size_t)k * n * esz + 63) / 64 * 64);
    void *Bk = aligned_alloc(64, (dnnl_memory_desc_get_size(bpacked) + 63) / 64 * 64);
    void *C = aligned_alloc(64, ((size_t)m * n * 4 + 63) / 64 * 64);
    fill(A, (size_t)m * k, ta == dnnl_f32 ? 0 : ta == dnnl_bf16 ? 1 : 2);
    fill(Bp, (size_t)k * n, tb == dnnl_f32 ? 0 : tb == dnnl_bf16 ? 1 : 3);
    dnnl_memory_t msrc, mdst;
    OK(dnnl_memory_create(&msrc, bplain, eng, Bp));
    OK(dnnl_memory_create(&mdst, bpacked, eng, Bk));
    OK(dnnl_reorder_primitive_desc_create(&rpd, bplain, eng, bpacked, eng, NULL));
    dnnl_primitive_t reorder;
    OK(dnnl_primitive_create(&reorder, rpd));
    dnnl_exec_arg_t rargs[2] = {{DNNL_ARG_FROM, msrc}, {DNNL_ARG_TO, mdst}};
    OK(dnnl_primitive_execute(reorder, x.stream, 2, rargs));
    OK(dnnl_stream_wait(x.stream));
    OK(dnnl_memory_create(&x.a, amd, eng, A));
    x.b = mdst;
    OK(dnnl_memory_create(&x.c, cmd, eng, C));
    char im[160];
    const dnnl_version_t *v = dnnl_version();
    snprintf(im, sizeof im, "oneDNN %d.%d.%d %s", v->major, v->minor, v->patch, impl);
    time_it(dnn_run, &x, seconds, 2.0 * m * n * k, label, im);
}

/* ---- MKL ---- */
typedef struct {
    const char *dt;
    int m, n, k;
    void *A, *Bk, *C;
} mkl_ctx;

static void mkl_run(void *p)
{
    mkl_ctx *x = p;
    if (!strcmp(x->dt, "f32"))
        cblas_sgemm_compute(CblasRowMajor, CblasNoTrans, CblasPacked, x->m, x->n, x->k, x->A, x->k,
                            x->Bk, x->n, 0.0f, x->C, x->n);
    else if (!strcmp(x->dt, "bf16"))
        cblas_gemm_bf16bf16f32_compute(CblasRowMajor, CblasNoTrans, CblasPacked, x->m, x->n, x->k,
                                       1.0f, x->A, x->k, x->Bk, x->n, 0.0f, x->C, x->n);
    else {
        MKL_INT32 co = 0;
        cblas_gemm_s8u8s32_compute(CblasRowMajor, CblasNoTrans, CblasPacked, CblasFixOffset, x->m,
                                   x->n, x->k, 1.0f, x->A, x->k, 0, x->Bk, x->n, 0, 0.0f, x->C,
                                   x->n, &co);
    }
}

static void mkl(const char *dt, int m, int n, int k, int threads, double seconds, const char *label)
{
    if (mkl_set_threading_layer(MKL_THREADING_GNU) != MKL_THREADING_GNU) die("MKL: no GNU layer");
    mkl_set_num_threads(threads);
    mkl_ctx x = {dt, m, n, k, NULL, NULL, NULL};
    size_t esz = !strcmp(dt, "f32") ? 4 : !strcmp(dt, "bf16") ? 2 : 1;
    x.A = aligned_alloc(64, ((size_t)m * k * esz + 63) / 64 * 64);
    void *B = aligned_alloc(64, ((size_t)k * n * esz + 63) / 64 * 64);
    x.C = aligned_alloc(64, ((size_t)m * n * 4 + 63) / 64 * 64);
    int kind = !strcmp(dt, "f32") ? 0 : !strcmp(dt, "bf16") ? 1 : 2;
    fill(x.A, (size_t)m * k, kind);
    fill(B, (size_t)k * n, kind == 2 ? 3 : kind);
    size_t sz = !strcmp(dt, "f32")    ? cblas_sgemm_pack_get_size(CblasBMatrix, m, n, k)
                : !strcmp(dt, "bf16") ? cblas_gemm_bf16bf16f32_pack_get_size(CblasBMatrix, m, n, k)
                                      : cblas_gemm_s8u8s32_pack_get_size(CblasBMatrix, m, n, k);
    x.Bk = aligned_alloc(64, (sz + 63) / 64 * 64);
    if (!strcmp(dt, "f32"))
        cblas_sgemm_pack(CblasRowMajor, CblasBMatrix, CblasNoTrans, m, n, k, 1.0f, B, n, x.Bk);
    else if (!strcmp(dt, "bf16"))
        cblas_gemm_bf16bf16f32_pack(CblasRowMajor, CblasBMatrix, CblasNoTrans, m, n, k, B, n, x.Bk);
    else
        cblas_gemm_s8u8s32_pack(CblasRowMajor, CblasBMatrix, CblasNoTrans, m, n, k, B, n, x.Bk);
    char ver[128], im[200];
    mkl_get_version_string(ver, sizeof ver);
    snprintf(im, sizeof im, "%.60s packed", strstr(ver, "Version") ? strstr(ver, "Version") : ver);
    time_it(mkl_run, &x, seconds, 2.0 * m * n * k, label, im);
}

int main(int argc, char **argv)
{
    if (argc != 8) die("usage: vendor-direct onednn|mkl f32|bf16|int8 M N K THREADS SECONDS");
    int m = atoi(argv[3]), n = atoi(argv[4]), k = atoi(argv[5]), t = atoi(argv[6]);
    double s = atof(argv[7]);
    if (m <= 0 || n <= 0 || k <= 0 || t <= 0) die("sizes and threads must be positive");
    omp_set_num_threads(t);
    char label[96];
    snprintf(label, sizeof label, "%s %s %dx%dx%d T%d", argv[1], argv[2], m, n, k, t);
    if (!strcmp(argv[1], "onednn"))
        onednn(argv[2], m, n, k, s, label);
    else if (!strcmp(argv[1], "mkl"))
        mkl(argv[2], m, n, k, t, s, label);
    else
        die("LIB is onednn or mkl");
    return 0;
}
