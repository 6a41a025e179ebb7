#include "sb_layernorm_bench.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sb_layers.h"
#include "sb_progress.h"
#include "sb_result.h"
#include "sb_stats.h"

#define EPS 1e-12f /* DistilBERT's layer_norm_eps */

/* the largest |y - reference| over the rows, the reference in doubles */
static double max_error(const float *x, const float *g, const float *b, const float *y, long rows,
                        int dim)
{
    double worst = 0;
    for (long r = 0; r < rows; r++) {
        const float *xr = x + r * dim;
        double sum = 0, sq = 0;
        for (int c = 0; c < dim; c++) sum += xr[c];
        double mean = sum / dim;
        for (int c = 0; c < dim; c++) sq += (xr[c] - mean) * (xr[c] - mean);
        double inv = 1.0 / sqrt(sq / dim + EPS);
        for (int c = 0; c < dim; c++) {
            double d = fabs((xr[c] - mean) * inv * g[c] + b[c] - y[r * dim + c]);
            if (!(d <= worst)) worst = d; /* a NaN is the worst */
        }
    }
    return worst;
}

int sb_layernorm_check_size(long batch, long seq, long dim, const char *dash, sb_err *e)
{
    if (batch * seq > SB_LAYERNORM_MAX_ROWS)
        return sb_errf(e, SB_EUSAGE, "%sbatch x %sseq: %ld rows, over 2^24", dash, dash,
                       batch * seq);
    if (batch * seq * dim > SB_LAYERNORM_MAX_FLOATS)
        return sb_errf(e, SB_EUSAGE,
                       "%sbatch x %sseq x %sdim: %ld floats, over 2^28 (1 GiB an array)", dash,
                       dash, dash, batch * seq * dim);
    return SB_OK;
}

int sb_layernorm_plan_check(const char *const *keys, const char *const *values, int n, sb_err *e)
{
    long batch = SB_LAYERNORM_DEFAULT_BATCH, seq = SB_LAYERNORM_DEFAULT_SEQ,
         dim = SB_LAYERNORM_DEFAULT_DIM;
    for (int i = 0; i < n; i++) { /* the values are in their ranges (sb_workload's) already */
        if (!strcmp(keys[i], "batch")) batch = atol(values[i]);
        if (!strcmp(keys[i], "seq")) seq = atol(values[i]);
        if (!strcmp(keys[i], "dim")) dim = atol(values[i]);
    }
    return sb_layernorm_check_size(batch, seq, dim, "", e);
}

int sb_layernorm_bench_run(const sb_layernorm_config *c, sb_layernorm_result *r, sb_err *e)
{
    memset(r, 0, sizeof *r);
    long rows = (long)c->batch * c->seq;
    if (rows > SB_LAYERNORM_MAX_ROWS || rows * c->dim > SB_LAYERNORM_MAX_FLOATS)
        return sb_errf(e, SB_EUSAGE, "%ld rows of %d floats: over 2^24 rows or 2^28 floats", rows,
                       c->dim);
    size_t n = (size_t)rows * (size_t)c->dim;
    float *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    float *g = malloc((size_t)c->dim * sizeof *g), *b = malloc((size_t)c->dim * sizeof *b);
    float *mean = malloc((size_t)rows * sizeof *mean), *rstd = malloc((size_t)rows * sizeof *rstd);
    r->samples = malloc((size_t)c->iters * sizeof *r->samples);
    int rc = SB_OK;
    if (!x || !y || !g || !b || !mean || !rstd || !r->samples) {
        rc = sb_errf(e, SB_EFAIL, "cannot allocate %ld rows of %d floats", rows, c->dim);
        sb_layernorm_result_free(r);
        goto out;
    }
    unsigned s = 12345;
    for (size_t i = 0; i < n; i++) {
        s = s * 1103515245u + 12345u;
        x[i] = (float)(s >> 9) / 8388608.0f - 1.0f;
    }
    for (int i = 0; i < c->dim; i++) g[i] = 1.0f + 0.001f * (float)(i % 7), b[i] = 0.01f * (float)(i % 5);
    sb_layernorm_forward(y, mean, rstd, x, g, b, (int)rows, c->dim, EPS, c->threads); /* warm-up */
    for (int i = 0; i < c->iters; i++) {
        double t0 = sb_now();
        sb_layernorm_forward(y, mean, rstd, x, g, b, (int)rows, c->dim, EPS, c->threads);
        r->samples[i] = sb_now() - t0;
    }
    r->nsamples = c->iters;
    double med = sb_median(r->samples, r->nsamples);
    r->ns_per_row = med * 1e9 / (double)rows;
    /* x read and y written once each, a float each way */
    r->gbps = med > 0 ? 2.0 * (double)n * sizeof(float) / med / 1e9 : 0;
    r->max_abs_error = max_error(x, g, b, y, rows, c->dim);
    r->status = r->max_abs_error < 1e-3 ? "ok" : "failed";
    if (strcmp(r->status, "ok"))
        snprintf(r->reason, sizeof r->reason, "wrong output: max |error| %g", r->max_abs_error);
out:
    free(x), free(y), free(g), free(b), free(mean), free(rstd);
    return rc;
}

void sb_layernorm_result_free(sb_layernorm_result *r)
{
    free(r->samples);
    r->samples = NULL;
}

json_t *sb_layernorm_result_json(const sb_layernorm_config *c, const sb_layernorm_result *r)
{
    json_t *doc = sb_result_new(&(sb_result_head){"layernorm", "none", "f32", c->threads, 1, 1, 1,
                                                  r->status, r->reason});
    if (!doc) return NULL;
    json_t *config = json_object_get(doc, "config"), *metrics = json_object_get(doc, "metrics"),
           *units = json_object_get(doc, "units"), *samples = json_object_get(doc, "samples");
    json_object_set_new(config, "batch", json_integer(c->batch));
    json_object_set_new(config, "seq", json_integer(c->seq));
    json_object_set_new(config, "dim", json_integer(c->dim));
    json_object_set_new(config, "iters", json_integer(c->iters));
    for (int i = 0; i < r->nsamples; i++) json_array_append_new(samples, json_real(r->samples[i]));
    if (!strcmp(r->status, "ok")) {
        sb_result_metric(metrics, units, "ns_per_row", r->ns_per_row, "ns/row");
        sb_result_metric(metrics, units, "layernorm_gbps", r->gbps, "GB/s");
    }
    sb_result_metric(metrics, units, "max_abs_error", r->max_abs_error, "");
    return doc;
}
