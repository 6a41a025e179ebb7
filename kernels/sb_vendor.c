/* sb_vendor: see sb_vendor.h. */
#include "sb_vendor.h"
#include "sb_cpu.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <dnnl.h>

#ifndef SB_VENDOR_CACHE_BUILT
#define SB_VENDOR_CACHE_BUILT ""
#endif

static sb_vendor_lib g_libs[SB_VENDOR_COUNT];
static void *g_handle[SB_VENDOR_COUNT];
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

int sb_vendor_onednn_built_major(void) { return DNNL_VERSION_MAJOR; }

/* The cache directory as scripts/vendor-libs computes it. */
static void cache_dir(char *out, size_t cap)
{
    const char *v = getenv("SB_VENDOR_CACHE"), *x = getenv("XDG_CACHE_HOME"),
               *h = getenv("HOME");
    if (v && *v)
        snprintf(out, cap, "%s", v);
    else if (x && *x)
        snprintf(out, cap, "%s/sprbench/vendor", x);
    else if (h && *h)
        snprintf(out, cap, "%s/.cache/sprbench/vendor", h);
    else
        snprintf(out, cap, "%s", SB_VENDOR_CACHE_BUILT);
}

/* The library's path: the variable's, else the cache's file, else the one in
 * the cache seen at configure time (a build by another user or HOME). */
static void lib_path(const char *var, const char *rel, char *out, size_t cap)
{
    const char *v = getenv(var);
    if (v && *v) {
        snprintf(out, cap, "%s", v);
        return;
    }
    char dir[256];
    cache_dir(dir, sizeof dir);
    snprintf(out, cap, "%s/%s", dir, rel);
    if (access(out, R_OK) != 0 && SB_VENDOR_CACHE_BUILT[0])
        snprintf(out, cap, "%s/%s", SB_VENDOR_CACHE_BUILT, rel);
}

static void load_onednn(sb_vendor_lib *d, void **handle)
{
    d->name = "oneDNN";
    char path[300];
    const char *what;
    if (DNNL_VERSION_MAJOR >= 3) {
        lib_path("SB_ONEDNN_LIB", "onednn/lib/libdnnl.so.3", path, sizeof path);
        what = "PyPI onednn-cpu-gomp";
    } else {
        const char *v = getenv("SB_ONEDNN_LIB");
        snprintf(path, sizeof path, "%s", v && *v ? v : "libdnnl.so.2");
        what = "Debian libdnnl2, the fallback: built without oneDNN 3.x in the cache";
    }
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *err = dlerror();
        snprintf(d->why, sizeof d->why, "cannot open oneDNN %.200s (%.200s)%s", path,
                 err ? err : "?",
                 DNNL_VERSION_MAJOR >= 3 ? ": scripts/setup --with-vendors installs it" : "");
        return;
    }
    const dnnl_version_t *(*ver)(void) = (const dnnl_version_t *(*)(void))dlsym(h, "dnnl_version");
    const dnnl_version_t *v = ver ? ver() : NULL;
    if (!v || v->major != DNNL_VERSION_MAJOR) {
        snprintf(d->why, sizeof d->why,
                 "%.200s is oneDNN %d.x, but this sprbench was built against oneDNN %d.x headers", path,
                 v ? v->major : 0, DNNL_VERSION_MAJOR);
        dlclose(h);
        return;
    }
    d->loaded = 1;
    *handle = h;
    snprintf(d->version, sizeof d->version, "%d.%d.%d", v->major, v->minor, v->patch);
    snprintf(d->origin, sizeof d->origin, "%s (%.200s)", what, path);
    snprintf(d->runtime, sizeof d->runtime, "%s",
             v->cpu_runtime == DNNL_RUNTIME_OMP   ? "OpenMP"
             : v->cpu_runtime == DNNL_RUNTIME_SEQ ? "sequential"
             : v->cpu_runtime == DNNL_RUNTIME_TBB ? "TBB"
                                                  : "other");
}

/* MKL's service functions (mkl_service.h): the threading layer is chosen
 * before any other call; 3 is MKL_THREADING_GNU. */
#define SB_MKL_THREADING_GNU 3

static void load_mkl(sb_vendor_lib *m, void **handle)
{
    m->name = "MKL";
    char path[300];
    lib_path("SB_MKL_LIB", "mkl/lib/libmkl_rt.so.3", path, sizeof path);
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *err = dlerror();
        snprintf(m->why, sizeof m->why,
                 "cannot open MKL %.200s (%.200s): scripts/setup --with-vendors installs it", path,
                 err ? err : "?");
        return;
    }
    int (*layer)(int) = (int (*)(int))dlsym(h, "MKL_Set_Threading_Layer");
    void (*ver)(char *, int) = (void (*)(char *, int))dlsym(h, "MKL_Get_Version_String");
    if (!layer || !ver || !dlsym(h, "cblas_sgemm")) {
        snprintf(m->why, sizeof m->why, "%.200s is not MKL's single dynamic library (no %s)", path,
                 !layer ? "MKL_Set_Threading_Layer" : !ver ? "MKL_Get_Version_String" : "cblas_sgemm");
        dlclose(h);
        return;
    }
    if (layer(SB_MKL_THREADING_GNU) != SB_MKL_THREADING_GNU) {
        snprintf(m->why, sizeof m->why,
                 "MKL %.200s refused its GNU OpenMP threading layer (libmkl_gnu_thread.so.3 missing?)",
                 path);
        dlclose(h);
        return;
    }
    char line[256] = "";
    ver(line, (int)sizeof line);
    /* "Intel(R) oneAPI Math Kernel Library Version 2026.2-Product Build 20260915 for ..." */
    const char *p = strstr(line, "Version ");
    if (p) {
        p += 8;
        size_t n = strcspn(p, "- ");
        snprintf(m->version, sizeof m->version, "%.*s", (int)(n < 40 ? n : 40), p);
        const char *b = strstr(p, "Build ");
        if (b) {
            size_t used = strlen(m->version);
            snprintf(m->version + used, sizeof m->version - used, " (build %.*s)",
                     (int)strcspn(b + 6, " "), b + 6);
        }
    } else
        snprintf(m->version, sizeof m->version, "unknown");
    m->loaded = 1;
    *handle = h;
    snprintf(m->origin, sizeof m->origin, "PyPI mkl (%.200s)", path);
    snprintf(m->runtime, sizeof m->runtime, "GNU OpenMP");
}

static void load_all(void)
{
    if (sb_cpu_forced_off("ONEDNN")) {
        g_libs[SB_VENDOR_ONEDNN].name = "oneDNN";
        snprintf(g_libs[SB_VENDOR_ONEDNN].why, sizeof g_libs[0].why,
                 "oneDNN forced off for a test (SB_FORCE_NO_ONEDNN)");
    } else
        load_onednn(&g_libs[SB_VENDOR_ONEDNN], &g_handle[SB_VENDOR_ONEDNN]);
    if (sb_cpu_forced_off("MKL")) {
        g_libs[SB_VENDOR_MKL].name = "MKL";
        snprintf(g_libs[SB_VENDOR_MKL].why, sizeof g_libs[0].why,
                 "MKL forced off for a test (SB_FORCE_NO_MKL)");
    } else
        load_mkl(&g_libs[SB_VENDOR_MKL], &g_handle[SB_VENDOR_MKL]);
}

const sb_vendor_lib *sb_vendor_get(sb_vendor_id id)
{
    pthread_once(&g_once, load_all);
    return &g_libs[id < SB_VENDOR_COUNT ? id : SB_VENDOR_ONEDNN];
}

void *sb_vendor_sym(sb_vendor_id id, const char *name)
{
    if (id >= SB_VENDOR_COUNT || !sb_vendor_get(id)->loaded) return NULL;
    return dlsym(g_handle[id], name);
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
