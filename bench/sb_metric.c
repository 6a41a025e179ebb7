#include "sb_metric.h"
#include <ctype.h>
#include <string.h>
#include "sb_peak.h"

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

int sb_metric_count(void) { return NMETRICS; }

const sb_metric_info *sb_metric_at(int i) { return i >= 0 && i < NMETRICS ? &g_metrics[i] : NULL; }

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
    for (int pass = 0; pass < 2; pass++) /* exact names first, then the families */
        for (int i = 0; i < NMETRICS; i++)
            if ((g_metrics[i].star == SB_MSTAR_NONE) == (pass == 0) && matches(&g_metrics[i], name))
                return &g_metrics[i];
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
