#include "sb_gemm_bench.h"
#include "sb_result.h"
#include "sb_amx_knobs.h"
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "sb_parse.h"
#include "sb_shape.h"
#include "sb_peak_path.h"
#include "sb_progress.h"
#include "sb_stats.h"

#define CHECK_ROWS 48

/* A deterministic small-integer stream: values in [lo, hi]. */
static uint32_t lcg(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}

typedef struct {
    size_t a_elems, b_elems, c_elems;
    int lda, ldb, ldc;
} shape_info;

static shape_info shape_of(const sb_gemm_config *c)
{
    shape_info s;
    int a_rows = c->transa == 'N' ? c->m : c->k, a_cols = c->transa == 'N' ? c->k : c->m;
    int b_rows = c->transb == 'N' ? c->k : c->n, b_cols = c->transb == 'N' ? c->n : c->k;
    s.lda = a_cols;
    s.ldb = b_cols;
    s.ldc = c->n;
    s.a_elems = (size_t)a_rows * a_cols;
    s.b_elems = (size_t)b_rows * b_cols;
    s.c_elems = (size_t)c->m * c->n;
    return s;
}

/* Rows checked against the reference: all when few, else a spread sample
 * that always includes the first and last (edge tiles). */
static int pick_rows(int m, int *rows)
{
    if (m <= CHECK_ROWS) {
        for (int i = 0; i < m; i++) rows[i] = i;
        return m;
    }
    for (int i = 0; i < CHECK_ROWS; i++) rows[i] = (int)((long)i * (m - 1) / (CHECK_ROWS - 1));
    return CHECK_ROWS;
}

static int set_reason(sb_gemm_result *r, const char *status, const char *fmt, const char *msg)
{
    r->status = status;
    snprintf(r->reason, sizeof r->reason, fmt, msg);
    return SB_OK;
}

/* One call of the kernel: plain, or with B packed once beforehand. */
static int call_kernel(const sb_kernel *k, const sb_gemm_desc *d, const void *A, const void *B,
                       void *C, const sb_packed_b *pb, sb_err *ke)
{
    if (pb) return k->gemm_packed(d, A, pb, C, ke);
    if (k->dtype == SB_DT_INT8) return k->gemm_u8s8(d, A, B, C, ke);
    return k->gemm_f32(d, A, B, C, ke);
}

/* Small integers, the same for every run (a fixed seed). */
static void fill_inputs(int is_int8, const shape_info *s, void *A, void *B)
{
    uint32_t seed = 12345;
    if (is_int8) {
        uint8_t *a = A;
        int8_t *b = B;
        for (size_t i = 0; i < s->a_elems; i++) a[i] = (uint8_t)(lcg(&seed) % 5);
        for (size_t i = 0; i < s->b_elems; i++) b[i] = (int8_t)((int)(lcg(&seed) % 9) - 4);
    } else {
        float *a = A, *b = B;
        for (size_t i = 0; i < s->a_elems; i++) a[i] = (float)((int)(lcg(&seed) % 7) - 3);
        for (size_t i = 0; i < s->b_elems; i++) b[i] = (float)((int)(lcg(&seed) % 7) - 3);
    }
}

int sb_gemm_bench_run(const sb_gemm_config *cfg, sb_gemm_result *res, sb_err *e)
{
    memset(res, 0, sizeof *res);
    const sb_kernel *k = sb_kernel_find(cfg->kernel);
    if (!k)
        return sb_errf(e, SB_EUSAGE, "unknown kernel '%s' (known: %s)", cfg->kernel,
                       sb_kernel_names());
    res->dtype = sb_dtype_name(k->dtype);
    shape_info s = shape_of(cfg);
    sb_gemm_desc d = {cfg->transa, cfg->transb, cfg->m, cfg->n,       cfg->k, s.lda, s.ldb,
                      s.ldc,       1.0f,        0.0f,   cfg->threads, NULL,   NULL,
                      cfg->blocking};
    int rc = sb_gemm_desc_check(&d, e);
    if (rc) return rc;
    /* 3 matrices of this size must fit comfortably; refuse absurd requests early. */
    double bytes = 4.0 * ((double)s.a_elems + s.b_elems + 2.0 * s.c_elems);
    if (bytes > 16e9)
        return sb_errf(e, SB_EUSAGE, "shape %dx%dx%d needs %.1f GB, more than the 16 GB allowed",
                       cfg->m, cfg->n, cfg->k, bytes / 1e9);
    sb_blocking bl;
    if (sb_kernel_blocking(k, &d, &bl)) sb_blocking_format(&bl, res->blocking, sizeof res->blocking);
    char why[256] = "";
    if (!k->probe(why, sizeof why)) return set_reason(res, "skipped", "%s", why);
    if (cfg->prepack && (!k->pack_b || !k->gemm_packed))
        return set_reason(res, "skipped", "%s", "kernel offers no pre-packed B");
    sb_packed_b *pb = NULL;

    int is_int8 = k->dtype == SB_DT_INT8;
    size_t esz = is_int8 ? 1 : sizeof(float);
    void *A = aligned_alloc(64, ((s.a_elems * esz + 63) / 64) * 64);
    void *B = aligned_alloc(64, ((s.b_elems * esz + 63) / 64) * 64);
    void *C = aligned_alloc(64, ((s.c_elems * 4 + 63) / 64) * 64);
    float *ref = malloc(sizeof(float) * (size_t)CHECK_ROWS * cfg->n);
    int32_t *refi = malloc(sizeof(int32_t) * (size_t)CHECK_ROWS * cfg->n);
    if (!A || !B || !C || !ref || !refi) {
        free(A);
        free(B);
        free(C);
        free(ref);
        free(refi);
        return sb_errf(e, SB_EFAIL, "out of memory for %dx%dx%d", cfg->m, cfg->n, cfg->k);
    }
    fill_inputs(is_int8, &s, A, B);
    memset(C, 0, s.c_elems * 4);

    sb_err ke = {0};
    int krc = SB_OK;
    if (cfg->prepack) {
        double tp = sb_now();
        krc = k->pack_b(&d, B, &pb, &ke);
        res->pack_s = sb_now() - tp;
    }
    if (!krc) krc = call_kernel(k, &d, A, B, C, pb, &ke);
    if (krc) {
        set_reason(res, "failed", "kernel error: %.400s", ke.msg);
        goto out;
    }
    /* Small-integer inputs make every product and partial sum exact in f32
     * (|sum| < 2^24) and in s32, so any difference is a kernel bug. */
    int rows[CHECK_ROWS];
    int nr = pick_rows(cfg->m, rows);
    res->error_bound = is_int8 ? 0.0 : 1e-6;
    double maxerr = 0;
    for (int r = 0; r < nr; r++) {
        sb_gemm_desc row = d;
        row.m = 1;
        row.threads = 1;
        size_t aoff = cfg->transa == 'N' ? (size_t)rows[r] * s.lda : (size_t)rows[r];
        if (is_int8) {
            sb_gemm_ref_u8s8(&row, (const uint8_t *)A + aoff, B, refi);
            const int32_t *cr = (const int32_t *)C + (size_t)rows[r] * s.ldc;
            for (int j = 0; j < cfg->n; j++) {
                double err = fabs((double)cr[j] - refi[j]) / fmax(1.0, fabs((double)refi[j]));
                if (err > maxerr) maxerr = err;
            }
        } else {
            sb_gemm_ref_f32(&row, (const float *)A + aoff, B, ref);
            const float *cr = (const float *)C + (size_t)rows[r] * s.ldc;
            for (int j = 0; j < cfg->n; j++) {
                double err = fabs((double)cr[j] - ref[j]) / fmax(1.0, fabs((double)ref[j]));
                if (!(err <= maxerr)) maxerr = isnan(err) ? INFINITY : err;
            }
        }
    }
    res->max_rel_error = maxerr;
    res->checked_rows = nr;
    if (!(maxerr <= res->error_bound)) {
        char msg[160];
        snprintf(msg, sizeof msg, "max relative error %.3g exceeds the bound %.3g", maxerr,
                 res->error_bound);
        set_reason(res, "failed", "wrong result: %s", msg);
        goto out;
    }

    /* Warm-up (also sizes the repetition count). */
    double t0 = sb_now();
    krc = call_kernel(k, &d, A, B, C, pb, &ke);
    double once = sb_now() - t0;
    int reps = cfg->reps;
    double min_s = cfg->min_seconds > 0 ? cfg->min_seconds : 1.0;
    if (reps <= 0) {
        reps = once > 0 ? (int)ceil(min_s / once) : 1000;
        if (reps < SB_GEMM_MIN_REPS) reps = SB_GEMM_MIN_REPS;
        if (reps > 1000) reps = 1000;
    }
    res->samples = malloc(sizeof(double) * (size_t)reps);
    if (!res->samples) {
        set_reason(res, "failed", "%s", "out of memory for samples");
        goto out;
    }
    for (int i = 0; i < reps && !krc; i++) {
        t0 = sb_now();
        krc = call_kernel(k, &d, A, B, C, pb, &ke);
        res->samples[res->nsamples++] = sb_now() - t0;
    }
    if (krc) {
        set_reason(res, "failed", "kernel error: %.400s", ke.msg);
        goto out;
    }
    double flops = 2.0 * cfg->m * cfg->n * cfg->k;
    res->median_s = sb_median(res->samples, res->nsamples);
    res->min_s = sb_quantile(res->samples, res->nsamples, 0.0);
    res->p90_s = sb_quantile(res->samples, res->nsamples, 0.9);
    res->gflops = flops / res->median_s / 1e9;
    res->status = "ok";
    if (k->impl && k->impl()) snprintf(res->impl, sizeof res->impl, "%s", k->impl());
    snprintf(res->peak_path, sizeof res->peak_path, "%s",
             sb_peak_path_ran(k, res->impl[0] ? res->impl : NULL));
    res->pct_peak = sb_pct_peak(res->gflops, cfg->peak_gflops, cfg->threads, res->peak_path,
                                res->pct_unit, sizeof res->pct_unit);
out:
    sb_packed_b_free(pb);
    free(A);
    free(B);
    free(C);
    free(ref);
    free(refi);
    return SB_OK;
}

int sb_gemm_shape_parse(const char *s, sb_gemm_config *cfg, sb_err *e)
{
    sb_shape x;
    sb_err pe = {0};
    if (sb_shape_parse(s, SB_SHAPE_PREPACK, &x, &pe)) {
        if (!strncmp(pe.msg, "shape", 5))
            return sb_errf(e, SB_EUSAGE, "--%s", pe.msg); /* "--shape: ..." */
        return sb_errf(e, SB_EUSAGE, "--shape: %s", pe.msg);
    }
    cfg->m = x.m;
    cfg->n = x.n;
    cfg->k = x.k;
    cfg->transa = x.transa ? x.transa : 'N';
    cfg->transb = x.transb ? x.transb : 'N';
    if (x.prepack) cfg->prepack = 1;
    return SB_OK;
}

void sb_gemm_result_free(sb_gemm_result *res)
{
    free(res->samples);
    res->samples = NULL;
    res->nsamples = 0;
}

json_t *sb_gemm_result_json(const sb_gemm_config *cfg, const sb_gemm_result *res)
{
    char trans[3] = {cfg->transa, cfg->transb, 0};
    json_t *doc = sb_result_new(
        &(sb_result_head){"gemm", cfg->kernel, res->dtype ? res->dtype : "", cfg->threads, 1, 1, 1,
                          res->status ? res->status : "failed", res->reason});
    if (!doc) return NULL;
    json_t *samples = json_object_get(doc, "samples"), *metrics = json_object_get(doc, "metrics"),
           *units = json_object_get(doc, "units"), *config = json_object_get(doc, "config");
    for (int i = 0; i < res->nsamples; i++)
        json_array_append_new(samples, json_real(res->samples[i]));
    int int8 = res->dtype && !strcmp(res->dtype, "int8");
    if (res->status && !strcmp(res->status, "ok")) {
        json_object_set_new(metrics, "gflops", json_real(res->gflops));
        json_object_set_new(units, "gflops", json_string(int8 ? "GOP/s" : "GFLOP/s"));
        json_object_set_new(metrics, "median_s", json_real(res->median_s));
        json_object_set_new(metrics, "min_s", json_real(res->min_s));
        json_object_set_new(metrics, "p90_s", json_real(res->p90_s));
        if (res->pct_peak > 0) {
            json_object_set_new(metrics, "pct_peak", json_real(res->pct_peak));
            json_object_set_new(units, "pct_peak", json_string(res->pct_unit));
        }
        if (cfg->prepack) json_object_set_new(metrics, "pack_s", json_real(res->pack_s));
    }
    if (res->checked_rows > 0) {
        json_object_set_new(metrics, "max_rel_error", json_real(res->max_rel_error));
        json_object_set_new(metrics, "error_bound", json_real(res->error_bound));
    }
    /* the shape at the top level too: older readers of result files look there */
    json_object_set_new(doc, "m", json_integer(cfg->m));
    json_object_set_new(doc, "n", json_integer(cfg->n));
    json_object_set_new(doc, "k", json_integer(cfg->k));
    json_object_set_new(doc, "trans", json_string(trans));
    json_object_set_new(config, "m", json_integer(cfg->m));
    json_object_set_new(config, "n", json_integer(cfg->n));
    json_object_set_new(config, "k", json_integer(cfg->k));
    json_object_set_new(config, "trans", json_string(trans));
    if (cfg->prepack) json_object_set_new(config, "prepack", json_true());
    if (cfg->onednn_isa) json_object_set_new(config, "onednn_isa", json_string(cfg->onednn_isa));
    if (!strncmp(cfg->kernel, "amx-", 4)) { /* the loop nest it ran (sb_amx_knobs) */
        sb_amx_knobs kn = sb_amx_knobs_get();
        json_object_set_new(config, "amx_resident", json_string(sb_amx_resident_name(kn.resident)));
        json_object_set_new(config, "amx_prefetch", json_integer(kn.prefetch));
    }
    /* the driver's blocking as it ran (own kernels): `gemm --blocking` repeats it */
    if (res->blocking[0]) json_object_set_new(config, "blocking", json_string(res->blocking));
    if (cfg->tuning) json_object_set_new(config, "tuning", json_string(cfg->tuning));
    if (res->impl[0]) json_object_set_new(doc, "impl", json_string(res->impl));
    if (res->peak_path[0]) json_object_set_new(doc, "peak_path", json_string(res->peak_path));
    json_object_set_new(doc, "checked_rows", json_integer(res->checked_rows));
    return doc;
}
