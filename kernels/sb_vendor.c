/* sb_vendor: see sb_vendor.h. */
#include "sb_vendor.h"
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <dnnl.h>

static sb_vendor_lib g_libs[SB_VENDOR_COUNT];
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void load_all(void)
{
    sb_vendor_lib *d = &g_libs[SB_VENDOR_ONEDNN];
    d->name = "oneDNN";
    const dnnl_version_t *v = dnnl_version();
    d->loaded = 1;
    snprintf(d->version, sizeof d->version, "%d.%d.%d", v->major, v->minor, v->patch);
    snprintf(d->origin, sizeof d->origin, "Debian libdnnl (linked)");
    snprintf(d->runtime, sizeof d->runtime, "%s",
             v->cpu_runtime == DNNL_RUNTIME_OMP ? "OpenMP" : "other");
    sb_vendor_lib *m = &g_libs[SB_VENDOR_MKL];
    m->name = "MKL";
    snprintf(m->why, sizeof m->why, "MKL is not built into this sprbench yet");
}

const sb_vendor_lib *sb_vendor_get(sb_vendor_id id)
{
    pthread_once(&g_once, load_all);
    return &g_libs[id < SB_VENDOR_COUNT ? id : SB_VENDOR_ONEDNN];
}

const char *sb_vendor_of_kernel(const char *kernel)
{
    if (!kernel) return NULL;
    if (strncmp(kernel, "onednn-", 7) == 0) return "oneDNN";
    if (strncmp(kernel, "mkl-", 4) == 0) return "MKL";
    return NULL;
}

const char *sb_vendor_describe(sb_vendor_id id, char *buf, unsigned cap)
{
    const sb_vendor_lib *l = sb_vendor_get(id);
    if (l->loaded)
        snprintf(buf, cap, "%s %s (%s%s%s)", l->name, l->version, l->origin,
                 l->runtime[0] ? ", " : "", l->runtime);
    else
        snprintf(buf, cap, "%s: not loaded (%s)", l->name, l->why);
    return buf;
}
