#include "sb_gate_stats.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "sb_stats.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Number of ways, among all C(m+n, m) orderings, that U equals u, for
 * u = 0..m*n: f(m, n, u) = f(m-1, n, u-n) + f(m, n-1, u). */
static double mwu_exact_tail(int m, int n, double u)
{
    int umax = m * n;
    /* f[j][u] for the current i (rows over n), rolled over i */
    double *prev = calloc((size_t)(n + 1) * (size_t)(umax + 1), sizeof *prev);
    double *cur = calloc((size_t)(n + 1) * (size_t)(umax + 1), sizeof *cur);
    if (!prev || !cur) {
        free(prev);
        free(cur);
        return -1;
    }
#define F(a, j, k) (a)[(size_t)(j) * (size_t)(umax + 1) + (size_t)(k)]
    for (int j = 0; j <= n; j++) F(prev, j, 0) = 1; /* i = 0: U = 0 one way */
    for (int i = 1; i <= m; i++) {
        memset(cur, 0, sizeof *cur * (size_t)(n + 1) * (size_t)(umax + 1));
        F(cur, 0, 0) = 1;
        for (int j = 1; j <= n; j++)
            for (int k = 0; k <= i * j; k++)
                F(cur, j, k) = (k >= j ? F(prev, j, k - j) : 0) + F(cur, j - 1, k);
        double *t = prev;
        prev = cur;
        cur = t;
    }
    double total = 0, tail = 0;
    for (int k = 0; k <= umax; k++) {
        total += F(prev, n, k);
        if (k >= u - 1e-9) tail += F(prev, n, k);
    }
#undef F
    free(prev);
    free(cur);
    return tail / total;
}

/* A value and its side, for the U statistic's one sort. */
typedef struct ranked {
    double v;
    int from_x;
} ranked;

static int cmp_ranked(const void *a, const void *b)
{
    double x = ((const ranked *)a)->v, y = ((const ranked *)b)->v;
    return x < y ? -1 : x > y;
}

double sb_mwu_p_greater(const double *x, int nx, const double *y, int ny)
{
    if (nx < 1 || ny < 1) return 1.0;
    /* U (pairs x > y, a tie half) from x's rank sum in the pooled sample,
     * ties at their mid-rank: one sort, O(N log N), where counting pairs
     * took nx * ny steps (hours for a million samples a side). The sum of
     * t^3 - t over groups of equal values comes from the same sort. */
    int N = nx + ny;
    ranked *all = malloc(sizeof *all * (size_t)N);
    if (!all) return 1.0;
    for (int i = 0; i < nx; i++) all[i] = (ranked){x[i], 1};
    for (int j = 0; j < ny; j++) all[nx + j] = (ranked){y[j], 0};
    qsort(all, (size_t)N, sizeof *all, cmp_ranked);
    double ties = 0, rank_sum = 0;
    for (int i = 0; i < N;) {
        int j = i, in_x = 0;
        while (j < N && all[j].v == all[i].v) in_x += all[j++].from_x;
        double t = j - i, mid = (i + 1 + j) / 2.0; /* ranks i+1 .. j */
        ties += t * t * t - t;
        rank_sum += in_x * mid;
        i = j;
    }
    free(all);
    double u = rank_sum - nx * (nx + 1.0) / 2;
    if (ties == 0 && nx <= 30 && ny <= 30) {
        double p = mwu_exact_tail(nx, ny, u);
        if (p >= 0) return p;
    }
    double mean = nx * (double)ny / 2;
    double var = nx * (double)ny / 12.0 * ((N + 1) - ties / ((double)N * (N - 1)));
    if (var <= 0) return u > mean ? 0.0 : 1.0;
    double z = (u - mean - 0.5) / sqrt(var);
    return 0.5 * erfc(z / sqrt(2.0));
}

static uint64_t xorshift(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *s = x;
}

/* Uniform on (0, 1), never 0 or 1. */
static double unit(uint64_t *s) { return ((double)(xorshift(s) >> 11) + 0.5) / 9007199254740992.0; }

static double normal(uint64_t *s)
{
    return sqrt(-2 * log(unit(s))) * cos(6.283185307179586 * unit(s));
}

/* Gamma(a, 1) for a >= 1 (Marsaglia and Tsang). */
static double gamma_draw(double a, uint64_t *s)
{
    double d = a - 1.0 / 3, c = 1 / sqrt(9 * d);
    for (;;) {
        double z = normal(s), v = 1 + c * z;
        if (v <= 0) continue;
        v = v * v * v;
        double u = unit(s);
        if (log(u) < 0.5 * z * z + d - d * v + d * log(v)) return d * v;
    }
}

/* Beta(a, b), a, b >= 1. */
static double beta_draw(double a, double b, uint64_t *s)
{
    double g = gamma_draw(a, s), h = gamma_draw(b, s);
    return g / (g + h);
}

/* The index into sorted[0..n) of position u in (0, 1) as a draw takes it. */
static int at(double u, int n)
{
    int i = (int)(u * n);
    return i < 0 ? 0 : i >= n ? n - 1 : i;
}

double sb_bootstrap_median(const double *sorted, int n, uint64_t *s)
{
    /* A resample is n draws of an index, each floor(n U) for a uniform U;
     * its k-th smallest index is floor(n U_(k)), U_(k) the k-th smallest of
     * n uniforms, which is Beta(k, n + 1 - k); the next one above it is
     * U_(k) + (1 - U_(k)) Beta(1, n - k) (the least of the n - k uniforms
     * above it). So a resample's median costs a few draws, not a sort of n
     * values: exactly the distribution of the median of n draws. */
    if (n == 1) return sorted[0];
    if (n % 2) return sorted[at(beta_draw((n + 1) / 2, (n + 1) / 2, s), n)];
    int k = n / 2;
    double u1 = beta_draw(k, n + 1 - k, s);
    double u2 = u1 + (1 - u1) * (1 - pow(unit(s), 1.0 / (n - k)));
    return 0.5 * (sorted[at(u1, n)] + sorted[at(u2, n)]);
}

void sb_bootstrap_ratio(const double *x, int nx, const double *y, int ny, double conf, int iters,
                        uint64_t seed, double *lo, double *hi)
{
    *lo = *hi = 0;
    if (nx < 1 || ny < 1 || iters < 1) return;
    double *r = malloc(sizeof *r * (size_t)iters);
    double *sx = malloc(sizeof *sx * (size_t)nx), *sy = malloc(sizeof *sy * (size_t)ny);
    if (!r || !sx || !sy) {
        free(r);
        free(sx);
        free(sy);
        return;
    }
    /* sorted once: O(n log n), then O(1) per resample */
    memcpy(sx, x, sizeof *x * (size_t)nx);
    memcpy(sy, y, sizeof *y * (size_t)ny);
    qsort(sx, (size_t)nx, sizeof *sx, cmp_double);
    qsort(sy, (size_t)ny, sizeof *sy, cmp_double);
    uint64_t s = seed ? seed : 0x9e3779b97f4a7c15ull;
    int k = 0;
    for (int i = 0; i < iters; i++) {
        double mx = sb_bootstrap_median(sx, nx, &s), my = sb_bootstrap_median(sy, ny, &s);
        /* the same median ratio as the row's, in logs where the quotient
         * leaves the normal numbers */
        double q = mx / my;
        if (my > 0 && mx > 0 && !isnormal(q)) q = exp(log(mx) - log(my));
        if (my > 0 && isfinite(q)) r[k++] = q;
    }
    if (k) {
        *lo = sb_quantile(r, k, (1 - conf) / 2);
        *hi = sb_quantile(r, k, 1 - (1 - conf) / 2);
    }
    free(r);
    free(sx);
    free(sy);
}

int sb_samples_bimodal(const double *x, int n, double *low, double *high)
{
    return sb_bimodal(x, n, low, high);
}
