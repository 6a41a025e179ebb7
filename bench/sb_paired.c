#include "sb_paired.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "sb_stats.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

const char *sb_paired_outcome_name(sb_paired_outcome o)
{
    switch (o) {
    case SB_PAIRED_PASS: return "PASS";
    case SB_PAIRED_FAIL: return "FAIL";
    case SB_PAIRED_NOISY: return "NOISY";
    default: return "UNSURE";
    }
}

typedef struct {
    double mag;
    int pos;
} signed_rank;

static int cmp_mag(const void *a, const void *b)
{
    double x = ((const signed_rank *)a)->mag, y = ((const signed_rank *)b)->mag;
    return (x > y) - (x < y);
}

double sb_wilcoxon_p_greater(const double *d, int n)
{
    signed_rank *v = malloc(sizeof *v * (size_t)(n > 0 ? n : 1));
    if (!v) return 1.0;
    int m = 0;
    for (int i = 0; i < n; i++)
        if (d[i] != 0 && !isnan(d[i])) v[m++] = (signed_rank){fabs(d[i]), d[i] > 0};
    if (m == 0) {
        free(v);
        return 1.0;
    }
    qsort(v, (size_t)m, sizeof *v, cmp_mag);
    /* W+: the sum of the (mid)ranks of the positive differences, doubled so
     * that midranks stay integers */
    long w2 = 0;
    double ties = 0;
    for (int i = 0; i < m;) {
        int j = i;
        while (j < m && v[j].mag == v[i].mag) j++;
        long rank2 = (long)(i + 1) + (long)j; /* 2 x the midrank of ranks i+1..j */
        for (int k = i; k < j; k++)
            if (v[k].pos) w2 += rank2;
        double t = j - i;
        ties += t * t * t - t;
        i = j;
    }
    free(v);
    if (ties == 0 && m <= 30) {
        /* exact: how many of the 2^m sign assignments reach W+ or more */
        int max = m * (m + 1) / 2;
        double *count = calloc((size_t)max + 1, sizeof *count);
        if (count) {
            count[0] = 1;
            for (int r = 1; r <= m; r++)
                for (int s = max; s >= r; s--) count[s] += count[s - r];
            long w = w2 / 2;
            double tail = 0;
            for (long s = w; s <= max; s++) tail += count[s];
            free(count);
            return tail / ldexp(1.0, m);
        }
    }
    double md = m; /* m (m + 1) overflows an int from m = 46341 pairs */
    double mean = md * (md + 1) / 4.0;
    double var = md * (md + 1) * (2.0 * md + 1) / 24.0 - ties / 48.0;
    if (var <= 0) return w2 / 2.0 > mean ? 0.0 : 1.0;
    double z = (w2 / 2.0 - mean - 0.5) / sqrt(var);
    return 0.5 * erfc(z / sqrt(2.0));
}

void sb_sign_interval(const double *x, int n, double alpha, double *lo, double *hi, int *conf_ok)
{
    *lo = *hi = 0;
    *conf_ok = 0;
    if (n < 1) return;
    double *s = malloc(sizeof *s * (size_t)n);
    if (!s) return;
    memcpy(s, x, sizeof *s * (size_t)n);
    qsort(s, (size_t)n, sizeof *s, cmp_double);
    /* cdf = P(Bin(n, 1/2) <= k - 1), grown term by term */
    double term = ldexp(1.0, -n), cdf = 0;
    int k = 0;
    for (int j = 0; j < n; j++) {
        cdf += term; /* now P(Bin <= j) */
        if (cdf > alpha) break;
        k = j + 1; /* P(Bin <= k-1) <= alpha */
        term = term * (n - j) / (j + 1);
    }
    if (k >= 1 && k <= n - k + 1) {
        *lo = s[k - 1];
        *hi = s[n - k];
        *conf_ok = 1;
    } else {
        *lo = s[0];
        *hi = s[n - 1];
    }
    free(s);
}

/* How many Walsh averages (s[i] + s[j]) / 2, i <= j, of sorted s are <= t. */
static long long walsh_le(const double *s, int n, double t)
{
    long long count = 0;
    int j = n - 1;
    for (int i = 0; i < n; i++) {
        while (j >= i && s[i] + s[j] > 2 * t) j--;
        if (j < i) break;
        count += j - i + 1;
    }
    return count;
}

/* The k-th smallest (0-based) Walsh average of sorted s, by bisection
 * (O(n) a step: pairs by the thousand stay linear). */
static double walsh_kth(const double *s, int n, long long k)
{
    double lo = s[0], hi = s[n - 1];
    for (int it = 0; it < 200 && hi - lo > 1e-14 * (1 + fabs(hi)); it++) {
        double mid = lo + (hi - lo) / 2;
        if (walsh_le(s, n, mid) >= k + 1)
            hi = mid;
        else
            lo = mid;
    }
    return hi;
}

/* One-sided Wilcoxon p that x - shift (sign +1) or shift - x (sign -1)
 * tends to be above 0; buf holds n. */
static double shifted_p(const double *x, int n, double shift, int sign, double *buf)
{
    for (int i = 0; i < n; i++) buf[i] = sign * (x[i] - shift);
    return sb_wilcoxon_p_greater(buf, n);
}

/* The Wilcoxon interval of x's location: the shifts the one-sided test at
 * alpha does not reject on either side (lower: x - lo above 0 rejected
 * for every shift below lo; upper likewise), found by inverting the very
 * test the verdict uses, so that p_greater(x) < alpha exactly when the
 * lower end is above 0. A side no shift reaches (too few values) is
 * -inf / +inf. */
static void wilcoxon_interval(const double *x, int n, const double *sorted, double alpha,
                              double *lo, double *hi, double *buf)
{
    for (int sign = 1; sign >= -1; sign -= 2) {
        double out = sorted[0] - 1, in = sorted[n - 1] + 1; /* rejected, kept */
        if (sign < 0) out = sorted[n - 1] + 1, in = sorted[0] - 1;
        double bound = sign > 0 ? -INFINITY : INFINITY;
        if (shifted_p(x, n, out, sign, buf) < alpha) {
            for (int it = 0; it < 80 && fabs(in - out) > 1e-13 * (1 + fabs(in)); it++) {
                double mid = out + (in - out) / 2;
                if (shifted_p(x, n, mid, sign, buf) < alpha)
                    out = mid;
                else
                    in = mid;
            }
            bound = out; /* the last shift still rejected */
        }
        if (sign > 0)
            *lo = bound;
        else
            *hi = bound;
    }
}

/* One sample's place: its pair, side and seconds, for the one sort that
 * groups a point's samples by pair. */
typedef struct tagged {
    int pair, side;
    double sec;
} tagged;

static int cmp_tagged(const void *a, const void *b)
{
    const tagged *x = a, *y = b;
    if (x->pair != y->pair) return x->pair < y->pair ? -1 : 1;
    if (x->side != y->side) return x->side < y->side ? -1 : 1;
    return (x->sec > y->sec) - (x->sec < y->sec);
}

/* log(b / a) for two positive seconds: the quotient's log where it is a
 * normal number (as always for seconds a sweep measures), else the
 * difference of the logs, which no extreme pair overflows. */
static double log_ratio(double b, double a)
{
    double q = b / a;
    return isnormal(q) ? log(q) : log(b) - log(a);
}

/* The pairs of the n samples, grouped by one sort of (pair, side) rather
 * than a scan of every sample per pair number: lr gets the log ratio of
 * each pair with both sides (*npairs of them), amed/apair the baseline's
 * median and pair number of each pair that has one (*na, ascending pair
 * numbers). Nothing is sized by a pair number, only by n. Samples that are
 * not positive finite seconds, of another side or a negative pair, are left
 * out. -1 when memory runs out. */
static int group_pairs(const double *seconds, const int *side, const int *pair, int n, double *lr,
                       int *npairs, double *amed, int *apair, int *na)
{
    tagged *t = malloc(sizeof *t * (size_t)(n > 0 ? n : 1));
    double *buf = malloc(sizeof *buf * (size_t)(n > 0 ? n : 1));
    if (!t || !buf) {
        free(t), free(buf);
        return -1;
    }
    int m = 0;
    for (int i = 0; i < n; i++)
        if (pair[i] >= 0 && (side[i] == SB_SIDE_BASELINE || side[i] == SB_SIDE_CANDIDATE) &&
            isfinite(seconds[i]) && seconds[i] > 0)
            t[m++] = (tagged){pair[i], side[i], seconds[i]};
    qsort(t, (size_t)m, sizeof *t, cmp_tagged);
    *npairs = *na = 0;
    for (int i = 0; i < m;) {
        double med[2] = {0, 0};
        int j = i;
        for (int sd = SB_SIDE_BASELINE; sd <= SB_SIDE_CANDIDATE; sd++) {
            int k = 0;
            while (j < m && t[j].pair == t[i].pair && t[j].side == sd) buf[k++] = t[j++].sec;
            if (k) med[sd] = sb_median(buf, k);
        }
        if (med[SB_SIDE_BASELINE] > 0) {
            amed[*na] = med[SB_SIDE_BASELINE];
            apair[(*na)++] = t[i].pair;
        }
        if (med[SB_SIDE_BASELINE] > 0 && med[SB_SIDE_CANDIDATE] > 0)
            lr[(*npairs)++] = log_ratio(med[SB_SIDE_CANDIDATE], med[SB_SIDE_BASELINE]);
        i = j;
    }
    free(t), free(buf);
    return 0;
}

int sb_paired_judge(const double *seconds, const int *side, const int *pair, int n,
                    double tolerance, double alpha, int min_pairs, sb_paired_stats *st)
{
    memset(st, 0, sizeof *st);
    st->p_slower = st->p_within = 1;
    size_t cap = (size_t)(n > 0 ? n : 1);
    double *buf = malloc(sizeof *buf * cap);
    double *b = malloc(sizeof *b * cap), *c = malloc(sizeof *c * cap);
    double *lr = malloc(sizeof *lr * cap), *amed = malloc(sizeof *amed * cap);
    double *aa = malloc(sizeof *aa * cap);
    int *apair = malloc(sizeof *apair * cap), na = 0;
    if (!buf || !b || !c || !lr || !amed || !aa || !apair ||
        group_pairs(seconds, side, pair, n, lr, &st->npairs, amed, apair, &na)) {
        free(buf), free(b), free(c), free(lr), free(amed), free(aa), free(apair);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        if (side[i] == SB_SIDE_BASELINE) b[st->nb++] = seconds[i];
        if (side[i] == SB_SIDE_CANDIDATE) c[st->nc++] = seconds[i];
    }
    st->base = st->nb ? sb_median(b, st->nb) : 0;
    st->cand = st->nc ? sb_median(c, st->nc) : 0;
    /* a quad's two A runs: pairs 2q and 2q+1, adjacent in pair order */
    for (int k = 0; k + 1 < na; k++)
        if (apair[k] % 2 == 0 && apair[k + 1] == apair[k] + 1)
            aa[st->nquads++] = fabs(amed[k + 1] / amed[k] - 1);
    st->aa = st->nquads ? sb_median(aa, st->nquads) : 0;
    if (st->npairs > 0) {
        /* the estimate and interval of the test the verdict uses: the
         * Hodges-Lehmann estimate (median of the Walsh averages of the log
         * ratios) and the Wilcoxon interval, so that PASS is an upper end
         * below 1 + tolerance and FAIL a lower end above 1 */
        int m = st->npairs;
        double *sorted = c; /* reused */
        memcpy(sorted, lr, sizeof *sorted * (size_t)m);
        qsort(sorted, (size_t)m, sizeof *sorted, cmp_double);
        long long nw = (long long)m * (m + 1) / 2;
        double hl = nw % 2 ? walsh_kth(sorted, m, nw / 2)
                           : (walsh_kth(sorted, m, nw / 2 - 1) + walsh_kth(sorted, m, nw / 2)) / 2;
        st->ratio = exp(hl);
        double llo, lhi;
        wilcoxon_interval(lr, m, sorted, alpha, &llo, &lhi, buf);
        st->lo = exp(llo); /* 0 and inf: no bound */
        st->hi = exp(lhi);
        double *r = buf; /* the ratios themselves, for the two-group check */
        for (int i = 0; i < st->npairs; i++) r[i] = exp(lr[i]);
        st->p_slower = sb_wilcoxon_p_greater(lr, st->npairs);
        double *within = b; /* reused: log(1 + tolerance) - log ratio */
        for (int i = 0; i < st->npairs; i++) within[i] = log1p(tolerance) - lr[i];
        st->p_within = sb_wilcoxon_p_greater(within, st->npairs);
        if (sb_bimodal(r, st->npairs, &st->low, &st->high))
            st->outcome = SB_PAIRED_NOISY;
        else if (st->npairs < min_pairs)
            st->outcome = SB_PAIRED_UNSURE;
        else if (st->p_slower < alpha && st->ratio > 1 + tolerance)
            st->outcome = SB_PAIRED_FAIL;
        else if (st->p_within < alpha)
            st->outcome = SB_PAIRED_PASS;
        else
            st->outcome = SB_PAIRED_UNSURE;
    }
    free(buf), free(b), free(c), free(lr), free(amed), free(aa), free(apair);
    return 0;
}
