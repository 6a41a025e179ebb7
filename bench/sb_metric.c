#include "sb_metric.h"
#include <ctype.h>
#include <string.h>
#include "sb_peak.h"
#include "sb_stats.h"
#include "sb_metric_own.h"

#define HIGHER 0
#define LOWER 1
static const sb_metric_info g_metrics[] = {
#define SB_METRIC(name, unit, int8_unit, dir, role, star) \
    {name, unit, int8_unit, dir, SB_MROLE_##role, SB_MSTAR_##star},
#include "sb_metric.def"
#undef SB_METRIC
};
#undef HIGHER
#undef LOWER
#define NMETRICS ((int)(sizeof g_metrics / sizeof g_metrics[0]))

/* The table's rows, then each workload's own (sb_metric_own, in the rows'
 * order): a workload that brings a metric of its own declares it there,
 * not in the table. */
static int own_count(const sb_metric_info *list)
{
    int n = 0;
    while (list[n].name) n++;
    return n;
}

int sb_metric_count(void)
{
    int n = NMETRICS;
    for (int w = 0; sb_metric_own_lists[w]; w++) n += own_count(sb_metric_own_lists[w]);
    return n;
}

const sb_metric_info *sb_metric_at(int i)
{
    if (i < 0) return NULL;
    if (i < NMETRICS) return &g_metrics[i];
    i -= NMETRICS;
    for (int w = 0; sb_metric_own_lists[w]; w++) {
        int n = own_count(sb_metric_own_lists[w]);
        if (i < n) return &sb_metric_own_lists[w][i];
        i -= n;
    }
    return NULL;
}

static int all_digits(const char *s, size_t n)
{
    if (n == 0) return 0;
    for (size_t i = 0; i < n; i++)
        if (!isdigit((unsigned char)s[i])) return 0;
    return 1;
}

/* Whether s[0..n) is what a row's '*' stands for. */
static int star_fits(sb_metric_star star, const char *s, size_t n)
{
    switch (star) {
    case SB_MSTAR_BYTES: return all_digits(s, n) || (n == 4 && !strncmp(s, "grad", 4));
    case SB_MSTAR_NODES: return all_digits(s, n);
    case SB_MSTAR_PATH:
        for (int i = 0; i < SB_PEAK_NPATHS; i++)
            if (strlen(sb_peak_paths[i]) == n && !strncmp(sb_peak_paths[i], s, n)) return 1;
        return 0;
    case SB_MSTAR_WORD:
        if (n == 0) return 0;
        for (size_t i = 0; i < n; i++)
            if (!islower((unsigned char)s[i]) && !isdigit((unsigned char)s[i]) && s[i] != '_')
                return 0;
        return 1;
    case SB_MSTAR_NONE: break;
    }
    return 0;
}

static int matches(const sb_metric_info *m, const char *name)
{
    if (m->star == SB_MSTAR_NONE) return !strcmp(m->name, name);
    const char *star = strchr(m->name, '*');
    size_t pre = (size_t)(star - m->name), post = strlen(star + 1), n = strlen(name);
    return n > pre + post && !strncmp(name, m->name, pre) && !strcmp(name + n - post, star + 1) &&
        star_fits(m->star, name + pre, n - pre - post);
}

const sb_metric_info *sb_metric_info_of(const char *name)
{
    if (!name) return NULL;
    int n = sb_metric_count();
    for (int pass = 0; pass < 2; pass++) /* exact names first, then the families */
        for (int i = 0; i < n; i++) {
            const sb_metric_info *m = sb_metric_at(i);
            if ((m->star == SB_MSTAR_NONE) == (pass == 0) && matches(m, name)) return m;
        }
    return NULL;
}

int sb_metric_unit_is_time(const char *unit)
{
    return unit &&
        (!strcmp(unit, "s") || !strcmp(unit, "ms") || !strcmp(unit, "us") || !strcmp(unit, "ns"));
}

int sb_metric_lower(const char *name, const char *unit)
{
    const sb_metric_info *m = sb_metric_info_of(name);
    return m ? m->lower : sb_metric_unit_is_time(unit);
}

int sb_metric_per_sample(const char *name)
{
    const sb_metric_info *m = sb_metric_info_of(name);
    return !m || m->role == SB_MROLE_HEADLINE || m->role == SB_MROLE_RATE ||
        m->role == SB_MROLE_TIME || m->role == SB_MROLE_LATENCY;
}

const char *sb_metric_better(const char *name, const char *unit)
{
    return sb_metric_lower(name, unit) ? "lower" : "higher";
}

const char *sb_metric_unit(const char *name, int int8)
{
    const sb_metric_info *m = sb_metric_info_of(name);
    if (!m) return NULL;
    const char *u = int8 && m->int8_unit ? m->int8_unit : m->unit;
    return u[0] ? u : NULL;
}

const char *sb_metric_role_name(sb_metric_role r)
{
    static const char *const names[] = {"headline", "rate",  "latency", "time",
                                        "accuracy", "error", "memory",  "count",
                                        "peak",     "model", "info"};
    return (unsigned)r < sizeof names / sizeof names[0] ? names[r] : "?";
}

double sb_metric_speedup(double value, double base, int lower)
{
    return lower ? base / value : value / base;
}

int sb_metric_better_of(double a, double b, int lower)
{
    return lower ? a < b : a > b;
}

int sb_metric_band(double value, const double *xs, int ns, int lower, double *lo, double *hi)
{
    *lo = *hi = value;
    if (ns < 1) return 0;
    double med = sb_median(xs, ns);
    if (!(med > 0)) return 0;
    double p10 = sb_quantile(xs, ns, 0.1), p90 = sb_quantile(xs, ns, 0.9);
    if (lower) {
        *lo = value * p10 / med;
        *hi = value * p90 / med;
    } else {
        *lo = value * med / p90;
        *hi = value * med / p10;
    }
    return p10 > 0 ? 1 : 2;
}
