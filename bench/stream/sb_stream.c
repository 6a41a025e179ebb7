#include "sb_stream.h"
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sb_result.h"
#include "sb_stats.h"

const char *const sb_stream_loop_names[SB_STREAM_NLOOPS] = {"copy", "scale", "add", "triad"};
/* bytes moved per element: reads plus writes of 8-byte doubles */
static const double g_bytes[SB_STREAM_NLOOPS] = {16, 16, 24, 24};
static const double g_q = 3.0; /* STREAM's scalar */

static double *alloc_array(size_t n)
{
    size_t bytes = (n * sizeof(double) + 4095) & ~(size_t)4095;
    return aligned_alloc(4096, bytes);
}

/* The relative error of v against the scalar x, mean over the array. */
static double rel_error(const double *v, size_t n, double x)
{
    double sum = 0;
#pragma omp parallel for reduction(+ : sum) schedule(static)
    for (size_t i = 0; i < n; i++) sum += fabs(v[i] - x);
    return sum / (double)n / fabs(x);
}

int sb_stream_run(const sb_stream_config *c, sb_stream_result *r, sb_err *e)
{
    memset(r, 0, sizeof *r);
    r->status = "failed";
    r->n = c->mib * (1u << 20) / sizeof(double);
    size_t n = r->n;
    int timed = c->ntimes - 1;
    double *a = alloc_array(n), *b = alloc_array(n), *cc = alloc_array(n);
    for (int l = 0; l < SB_STREAM_NLOOPS; l++)
        r->samples[l] = calloc((size_t)(timed > 0 ? timed : 1), sizeof(double));
    int ok = a && b && cc;
    for (int l = 0; l < SB_STREAM_NLOOPS; l++) ok = ok && r->samples[l];
    if (!ok) {
        free(a);
        free(b);
        free(cc);
        sb_stream_result_free(r);
        return sb_errf(e, SB_EFAIL, "cannot allocate three arrays of %zu MiB", c->mib);
    }
    /* first touch by the threads that will use each page (NUMA) */
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++) {
        a[i] = 1.0;
        b[i] = 2.0;
        cc[i] = 0.0;
    }
    double t[SB_STREAM_NLOOPS];
    for (int it = 0; it < c->ntimes; it++) {
        t[SB_STREAM_COPY] = omp_get_wtime();
#pragma omp parallel for schedule(static)
        for (size_t i = 0; i < n; i++) cc[i] = a[i];
        t[SB_STREAM_COPY] = omp_get_wtime() - t[SB_STREAM_COPY];
        t[SB_STREAM_SCALE] = omp_get_wtime();
#pragma omp parallel for schedule(static)
        for (size_t i = 0; i < n; i++) b[i] = g_q * cc[i];
        t[SB_STREAM_SCALE] = omp_get_wtime() - t[SB_STREAM_SCALE];
        t[SB_STREAM_ADD] = omp_get_wtime();
#pragma omp parallel for schedule(static)
        for (size_t i = 0; i < n; i++) cc[i] = a[i] + b[i];
        t[SB_STREAM_ADD] = omp_get_wtime() - t[SB_STREAM_ADD];
        t[SB_STREAM_TRIAD] = omp_get_wtime();
#pragma omp parallel for schedule(static)
        for (size_t i = 0; i < n; i++) a[i] = b[i] + g_q * cc[i];
        t[SB_STREAM_TRIAD] = omp_get_wtime() - t[SB_STREAM_TRIAD];
        if (it > 0) /* the first repetition pays for pages and caches */
            for (int l = 0; l < SB_STREAM_NLOOPS; l++) r->samples[l][it - 1] = t[l];
    }
    r->nsamples = timed;
    /* the same recurrence in scalars: what every element must hold */
    double xa = 1.0, xb = 2.0, xc = 0.0;
    for (int it = 0; it < c->ntimes; it++) {
        xc = xa;
        xb = g_q * xc;
        xc = xa + xb;
        xa = xb + g_q * xc;
    }
    double err = rel_error(a, n, xa), eb = rel_error(b, n, xb), ec = rel_error(cc, n, xc);
    if (eb > err) err = eb;
    if (ec > err) err = ec;
    r->max_rel_error = err;
    free(a);
    free(b);
    free(cc);
    /* doubles, the same operations in the same order: exact but for contraction */
    if (!(err <= 1e-13)) {
        snprintf(r->reason, sizeof r->reason,
                 "wrong results: mean relative error %.3g of the arrays (limit 1e-13)", err);
        return SB_OK;
    }
    for (int l = 0; l < SB_STREAM_NLOOPS; l++) {
        double bytes = g_bytes[l] * (double)n, best = r->samples[l][0];
        for (int i = 1; i < timed; i++)
            if (r->samples[l][i] < best) best = r->samples[l][i];
        double med = sb_median(r->samples[l], timed);
        r->median_gbs[l] = med > 0 ? bytes / med / 1e9 : 0;
        r->best_gbs[l] = best > 0 ? bytes / best / 1e9 : 0;
    }
    unsigned long long total = 3ull * c->mib * (1ull << 20);
    if (c->llc_bytes && total < 4 * c->llc_bytes)
        snprintf(r->warning, sizeof r->warning,
                 "the arrays (%llu MiB) are under 4x the last-level cache (%llu MiB): this is "
                 "cache bandwidth, not memory's; give --mib %llu or more",
                 total >> 20, c->llc_bytes >> 20, (4 * c->llc_bytes / 3 + (1 << 20) - 1) >> 20);
    r->status = "ok";
    return SB_OK;
}

void sb_stream_result_free(sb_stream_result *r)
{
    for (int l = 0; l < SB_STREAM_NLOOPS; l++) {
        free(r->samples[l]);
        r->samples[l] = NULL;
    }
}

json_t *sb_stream_result_json(const sb_stream_config *c, const sb_stream_result *r)
{
    json_t *doc = sb_result_new(&(sb_result_head){"stream", "none", "f64", c->threads, 1, 1, 1,
                                                  r->status, r->reason});
    if (!doc) return NULL;
    json_t *config = json_object_get(doc, "config"), *metrics = json_object_get(doc, "metrics"),
           *units = json_object_get(doc, "units"), *samples = json_object_get(doc, "samples");
    json_object_set_new(config, "mib", json_integer((json_int_t)c->mib));
    json_object_set_new(config, "ntimes", json_integer(c->ntimes));
    json_object_set_new(config, "elements", json_integer((json_int_t)r->n));
    json_object_set_new(config, "llc_bytes", json_integer((json_int_t)c->llc_bytes));
    /* the headline is the triad's: its samples are the point's */
    for (int i = 0; i < r->nsamples; i++)
        json_array_append_new(samples, json_real(r->samples[SB_STREAM_TRIAD][i]));
    if (!strcmp(r->status, "ok"))
        for (int l = 0; l < SB_STREAM_NLOOPS; l++) {
            char k[32];
            snprintf(k, sizeof k, "%s_gbps", sb_stream_loop_names[l]);
            sb_result_metric(metrics, units, k, r->median_gbs[l], "GB/s");
            snprintf(k, sizeof k, "%s_best_gbps", sb_stream_loop_names[l]);
            sb_result_metric(metrics, units, k, r->best_gbs[l], "GB/s");
        }
    sb_result_metric(metrics, units, "max_rel_error", r->max_rel_error, "");
    json_t *warnings = json_array();
    if (r->warning[0]) json_array_append_new(warnings, json_string(r->warning));
    json_object_set_new(doc, "warnings", warnings);
    return doc;
}
