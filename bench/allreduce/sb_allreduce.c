#include "sb_allreduce.h"
#include <ctype.h>
#include <errno.h>
#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "sb_scaling.h"

static int parse_one(const char *s, size_t *out, sb_err *e)
{
    if (!strcmp(s, "grad")) {
        *out = sb_distilbert_grad_bytes();
        return SB_OK;
    }
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s || errno || *s == '-')
        return sb_errf(e, SB_EUSAGE, "--sizes: '%s' is not a size (e.g. 4, 64K, 512M, grad)", s);
    unsigned long long mul = 1;
    if (*end) {
        switch (toupper((unsigned char)*end)) {
        case 'K': mul = 1ull << 10; break;
        case 'M': mul = 1ull << 20; break;
        case 'G': mul = 1ull << 30; break;
        default: mul = 0;
        }
        if (!mul || (end[1] && !(toupper((unsigned char)end[1]) == 'B' && !end[2])))
            return sb_errf(e, SB_EUSAGE, "--sizes: '%s' has an unknown unit (K, M or G)", s);
    }
    if (v == 0 || v > (4ull << 30) / mul)
        return sb_errf(e, SB_EUSAGE, "--sizes: '%s' must be between 1 byte and 4G", s);
    v *= mul;
    *out = (size_t)((v + 3) / 4 * 4);
    return SB_OK;
}

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

int sb_allreduce_parse_sizes(const char *spec, size_t **sizes, int *n, sb_err *e)
{
    *sizes = NULL;
    *n = 0;
    if (!spec || !*spec) return sb_errf(e, SB_EUSAGE, "--sizes: empty list");
    char *copy = strdup(spec), *save = NULL;
    size_t cap = 16, cnt = 0, *v = malloc(cap * sizeof *v);
    int rc = (!copy || !v) ? sb_errf(e, SB_EFAIL, "out of memory") : SB_OK;
    for (char *tok = rc ? NULL : strtok_r(copy, ",", &save); tok && !rc;
         tok = strtok_r(NULL, ",", &save)) {
        char *dots = strstr(tok, "..");
        size_t lo, hi;
        if (dots) {
            *dots = 0;
            if ((rc = parse_one(tok, &lo, e)) || (rc = parse_one(dots + 2, &hi, e))) break;
            if (lo > hi) {
                rc = sb_errf(e, SB_EUSAGE, "--sizes: range %s..%s is reversed", tok, dots + 2);
                break;
            }
        } else {
            if ((rc = parse_one(tok, &lo, e))) break;
            hi = lo;
        }
        /* A range walks powers of two from lo (or lo itself) up to hi. */
        for (size_t s = lo; s <= hi; s = s * 2) {
            if (cnt == cap) {
                size_t *g = realloc(v, (cap *= 2) * sizeof *v);
                if (!g) {
                    rc = sb_errf(e, SB_EFAIL, "out of memory");
                    break;
                }
                v = g;
            }
            v[cnt++] = s;
            if (cnt > 4096) {
                rc = sb_errf(e, SB_EUSAGE, "--sizes: too many sizes");
                break;
            }
        }
    }
    free(copy);
    if (rc) {
        free(v);
        return rc;
    }
    qsort(v, cnt, sizeof *v, cmp_size);
    size_t k = 0;
    for (size_t i = 0; i < cnt; i++)
        if (!k || v[k - 1] != v[i]) v[k++] = v[i];
    *sizes = v;
    *n = (int)k;
    return SB_OK;
}

static int scaled(int base, size_t bytes, int floor_)
{
    const size_t big = (size_t)1 << 20;
    if (bytes <= big) return base;
    double s = (double)base * (double)big / (double)bytes;
    int r = (int)s;
    return r < floor_ ? floor_ : r;
}

int sb_allreduce_run(const sb_allreduce_config *cfg, sb_allreduce_row *rows, double **samples,
                     int *nsamples, sb_err *e)
{
    if (samples) *samples = NULL;
    if (nsamples) *nsamples = 0;
    if (cfg->nsizes < 1 || cfg->iters < 1 || cfg->warmup < 0)
        return sb_errf(e, SB_EUSAGE, "allreduce: need sizes, iters >= 1, warmup >= 0");
    int rank, world;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world);
    size_t maxb = 0;
    for (int i = 0; i < cfg->nsizes; i++)
        if (cfg->sizes[i] > maxb) maxb = cfg->sizes[i];
    size_t sample_bytes = cfg->grad_bytes;
    int has_grad = 0;
    for (int i = 0; i < cfg->nsizes; i++) has_grad |= cfg->sizes[i] == sample_bytes;
    if (!has_grad) sample_bytes = maxb;
    if (maxb / sizeof(float) > (size_t)INT32_MAX)
        return sb_errf(e, SB_EUSAGE, "allreduce: %zu bytes is more than one MPI call can carry",
                       maxb);
    float *sbuf = malloc(maxb), *rbuf = malloc(maxb);
    int ok = sbuf && rbuf, all_ok = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (!all_ok) {
        free(sbuf);
        free(rbuf);
        return sb_errf(e, SB_EFAIL, "allreduce: cannot allocate 2 x %zu bytes on some rank", maxb);
    }
    /* Touch the buffers once so page faults are not timed. */
    for (size_t i = 0; i < maxb / sizeof(float); i++) sbuf[i] = rbuf[i] = (float)(i % 7);
    double *smp = NULL;
    int nsmp = 0;
    for (int s = 0; s < cfg->nsizes; s++) {
        size_t bytes = cfg->sizes[s];
        int count = (int)(bytes / sizeof(float));
        int iters = scaled(cfg->iters, bytes, 2), warm = scaled(cfg->warmup, bytes, 1);
        if (cfg->warmup == 0) warm = 0;
        int keep = rank == 0 && samples && bytes == sample_bytes && !smp;
        if (keep) smp = malloc((size_t)iters * sizeof *smp);
        double total = 0;
        MPI_Barrier(MPI_COMM_WORLD);
        for (int i = 0; i < warm + iters; i++) {
            double t0 = MPI_Wtime();
            MPI_Allreduce(sbuf, rbuf, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
            double dt = MPI_Wtime() - t0;
            if (i >= warm) {
                total += dt;
                if (keep && smp) smp[nsmp++] = dt;
            }
            MPI_Barrier(MPI_COMM_WORLD);
        }
        double lat = total / iters, mn, mx, sum;
        MPI_Allreduce(&lat, &mn, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
        MPI_Allreduce(&lat, &mx, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        MPI_Allreduce(&lat, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        double avg = sum / world;
        sb_allreduce_row *r = &rows[s];
        r->bytes = bytes;
        r->iters = iters;
        r->lat_min_us = mn * 1e6;
        r->lat_avg_us = avg * 1e6;
        r->lat_max_us = mx * 1e6;
        r->algbw_gbs = avg > 0 ? (double)bytes / avg / 1e9 : 0;
        r->busbw_gbs = r->algbw_gbs * 2.0 * (world - 1) / world;
    }
    free(sbuf);
    free(rbuf);
    if (samples) {
        *samples = smp;
        *nsamples = nsmp;
    } else {
        free(smp);
    }
    return SB_OK;
}
