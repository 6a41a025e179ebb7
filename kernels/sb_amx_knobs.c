#include "sb_amx_knobs.h"
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static sb_amx_knobs g_knobs = {SB_AMX_RESIDENT_B, 2};
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

/* SB_AMX_PREFETCH's value, or -1 when it is no integer in range. */
static int env_prefetch(const char *p)
{
    char *end;
    long v = strtol(p, &end, 10);
    return *p && !*end && v >= 0 && v <= SB_AMX_PREFETCH_MAX ? (int)v : -1;
}

static void env_init(void)
{
    const char *r = getenv("SB_AMX_RESIDENT");
    sb_amx_resident res = SB_AMX_RESIDENT_B;
    if (r && sb_amx_resident_parse(r, &res, NULL) == SB_OK) g_knobs.resident = res;
    const char *p = getenv("SB_AMX_PREFETCH");
    if (p && env_prefetch(p) >= 0) g_knobs.prefetch = env_prefetch(p);
}

int sb_amx_knobs_env_check(sb_err *e)
{
    const char *r = getenv("SB_AMX_RESIDENT"), *p = getenv("SB_AMX_PREFETCH");
    sb_amx_resident res;
    if (r && sb_amx_resident_parse(r, &res, NULL) != SB_OK)
        return sb_errf(e, SB_EUSAGE, "SB_AMX_RESIDENT='%.40s': want a or b", r);
    if (p && env_prefetch(p) < 0)
        return sb_errf(e, SB_EUSAGE, "SB_AMX_PREFETCH='%.40s': want 0..%d (k steps)", p,
                       SB_AMX_PREFETCH_MAX);
    return SB_OK;
}

sb_amx_knobs sb_amx_knobs_get(void)
{
    pthread_once(&g_once, env_init);
    return g_knobs;
}

int sb_amx_knobs_set(const sb_amx_knobs *k, sb_err *e)
{
    pthread_once(&g_once, env_init);
    if (k->resident != SB_AMX_RESIDENT_A && k->resident != SB_AMX_RESIDENT_B)
        return sb_errf(e, SB_EUSAGE, "AMX resident operand: %d is neither A nor B",
                       (int)k->resident);
    if (k->prefetch < 0 || k->prefetch > SB_AMX_PREFETCH_MAX)
        return sb_errf(e, SB_EUSAGE, "AMX prefetch distance %d: want 0..%d k steps", k->prefetch,
                       SB_AMX_PREFETCH_MAX);
    g_knobs = *k;
    return SB_OK;
}

int sb_amx_resident_parse(const char *s, sb_amx_resident *out, sb_err *e)
{
    if (!strcmp(s, "a") || !strcmp(s, "A")) {
        *out = SB_AMX_RESIDENT_A;
        return SB_OK;
    }
    if (!strcmp(s, "b") || !strcmp(s, "B")) {
        *out = SB_AMX_RESIDENT_B;
        return SB_OK;
    }
    return sb_errf(e, SB_EUSAGE, "AMX resident operand '%s': want a or b", s);
}

const char *sb_amx_resident_name(sb_amx_resident r) { return r == SB_AMX_RESIDENT_A ? "a" : "b"; }
