/* scalar-f32: the reference every other kernel is checked against. */
#include "sb_kernel.h"
#include <stdlib.h>
#include <omp.h>

#define AT(X, ld, r, c) ((X)[(size_t)(r) * (ld) + (c)])

/* Loop order follows B's layout so the inner loop walks memory contiguously;
 * either way every C element sums its k products in ascending p, one rounding
 * per step, so the result does not depend on the order chosen. This file is
 * compiled without auto-vectorisation: scalar means scalar. */
int sb_gemm_ref_f32(const sb_gemm_desc *d, const float *A, const float *B, float *C)
{
    float *acc = d->transb == 'N' ? malloc(sizeof *acc * (size_t)d->n) : NULL;
    if (d->transb == 'N' && !acc) return SB_EFAIL;
    for (int i = 0; i < d->m; i++) {
        float *c = &AT(C, d->ldc, i, 0);
        if (d->transb == 'N') {
            for (int j = 0; j < d->n; j++) acc[j] = 0.0f;
            for (int p = 0; p < d->k; p++) {
                float a = d->transa == 'N' ? AT(A, d->lda, i, p) : AT(A, d->lda, p, i);
                const float *b = &AT(B, d->ldb, p, 0);
                for (int j = 0; j < d->n; j++) acc[j] += a * b[j];
            }
        }
        for (int j = 0; j < d->n; j++) {
            float sum = 0.0f;
            if (d->transb == 'N') {
                sum = acc[j];
            } else {
                const float *b = &AT(B, d->ldb, j, 0);
                for (int p = 0; p < d->k; p++)
                    sum += (d->transa == 'N' ? AT(A, d->lda, i, p) : AT(A, d->lda, p, i)) * b[p];
            }
            c[j] = d->beta == 0.0f ? d->alpha * sum : d->alpha * sum + d->beta * c[j];
            if (d->bias) c[j] += d->bias[j];
        }
    }
    free(acc);
    return SB_OK;
}

int sb_gemm_ref_u8s8(const sb_gemm_desc *d, const uint8_t *A, const int8_t *B, int32_t *C)
{
    for (int i = 0; i < d->m; i++)
        for (int j = 0; j < d->n; j++) {
            int32_t acc = 0;
            for (int p = 0; p < d->k; p++) {
                int32_t a = d->transa == 'N' ? AT(A, d->lda, i, p) : AT(A, d->lda, p, i);
                int32_t b = d->transb == 'N' ? AT(B, d->ldb, p, j) : AT(B, d->ldb, j, p);
                acc += a * b;
            }
            int32_t *c = &AT(C, d->ldc, i, j);
            *c = d->beta == 0.0f ? acc : acc + *c;
        }
    return SB_OK;
}

static int scalar_probe(char *why, size_t n)
{
    (void)why;
    (void)n;
    return 1;
}

/* Threaded over rows so the reference is usable on training-sized shapes. */
static int scalar_gemm(const sb_gemm_desc *d, const float *A, const float *B, float *C, sb_err *err)
{
    int rc = sb_gemm_desc_check(d, err);
    if (rc) return rc;
    int nt = d->threads > 0 ? d->threads : 0;
#pragma omp parallel for schedule(static) \
    num_threads(nt > 0 ? nt : omp_get_max_threads()) if (nt != 1)
    for (int i = 0; i < d->m; i++) {
        sb_gemm_desc row = *d;
        row.m = 1;
        const float *Ai = d->transa == 'N' ? A + (size_t)i * d->lda : A + i;
        sb_gemm_ref_f32(&row, Ai, B, C + (size_t)i * d->ldc);
    }
    return SB_OK;
}

const sb_kernel sb_kernel_scalar_f32 = {
    .name = "scalar-f32",
    .dtype = SB_DT_F32,
    .isa = "scalar",
    .summary = "plain C loops, the reference (f32 -> f32)",
    .probe = scalar_probe,
    .gemm_f32 = scalar_gemm,
};
