#include "sb_stats.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double sb_quantile(const double *x, int n, double q)
{
    if (n <= 0) return 0.0;
    double *s = malloc(sizeof *s * (size_t)n);
    if (!s) return 0.0;
    memcpy(s, x, sizeof *s * (size_t)n);
    qsort(s, (size_t)n, sizeof *s, cmp_double);
    if (q < 0) q = 0;
    if (q > 1) q = 1;
    double pos = q * (n - 1);
    int lo = (int)pos;
    double frac = pos - lo, v = s[lo];
    if (lo + 1 < n) v += frac * (s[lo + 1] - s[lo]);
    free(s);
    return v;
}

double sb_median(const double *x, int n) { return sb_quantile(x, n, 0.5); }

int sb_sample_seconds_ok(double x)
{
    return isfinite(x) && x >= SB_SAMPLE_MIN_S && x <= SB_SAMPLE_MAX_S;
}

int sb_bimodal(const double *x, int n, double *low, double *high)
{
    if (n < 6) return 0;
    double *s = malloc(sizeof *s * (size_t)n);
    if (!s) return 0;
    memcpy(s, x, sizeof *s * (size_t)n);
    qsort(s, (size_t)n, sizeof *s, cmp_double);
    double med = n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
    int edge = (n + 4) / 5, found = 0; /* each group holds >= 20 % of the values */
    for (int i = edge; i <= n - edge && med > 0; i++) {
        double gap = s[i] - s[i - 1];
        double within = fmax(s[i - 1] - s[0], s[n - 1] - s[i]);
        if (gap > 0.1 * med && gap > within) {
            if (low) *low = s[(i - 1) / 2];
            if (high) *high = s[i + (n - i) / 2];
            found = 1;
            break;
        }
    }
    free(s);
    return found;
}
