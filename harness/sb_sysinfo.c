#include "sb_sysinfo.h"
#include "sb_slurm.h"
#include "sb_text.h"
#include <hwloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysinfo.h>
#include <sys/utsname.h>
#include <unistd.h>
#include "sb_cpu.h"
#include "sb_kernel.h"

static unsigned long long cache_size(hwloc_topology_t t, hwloc_obj_type_t type)
{
    hwloc_obj_t o = hwloc_get_next_obj_by_type(t, type, NULL);
    return o && o->attr ? (unsigned long long)o->attr->cache.size : 0;
}

static void read_line(const char *path, char *out, size_t n)
{
    out[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f) return;
    if (fgets(out, (int)n, f)) out[strcspn(out, "\n")] = '\0';
    fclose(f);
}

static unsigned long long fnv1a(unsigned long long h, const char *s)
{
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ull;
    }
    return h;
}

int sb_sysinfo_get(sb_sysinfo *s, sb_err *e)
{
    memset(s, 0, sizeof *s);
    gethostname(s->hostname, sizeof s->hostname - 1);
    struct utsname u;
    if (uname(&u) == 0) snprintf(s->kernel, sizeof s->kernel, "%s", u.release);
    read_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", s->governor,
              sizeof s->governor);

    hwloc_topology_t t;
    if (hwloc_topology_init(&t) || hwloc_topology_load(t))
        return sb_errf(e, SB_EFAIL, "hwloc could not read the topology");
    s->packages = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PACKAGE);
    s->numa_nodes = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_NUMANODE);
    s->cores = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_CORE);
    s->pus = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU);
    s->l1d_bytes = cache_size(t, HWLOC_OBJ_L1CACHE);
    s->l2_bytes = cache_size(t, HWLOC_OBJ_L2CACHE);
    s->l3_bytes = cache_size(t, HWLOC_OBJ_L3CACHE);
    hwloc_topology_destroy(t);
    if (s->packages < 1) s->packages = 1;
    if (s->numa_nodes < 1) s->numa_nodes = 1;
    /* MemTotal, not hwloc's NUMA figure, which some containers shrink. */
    struct sysinfo si;
    if (sysinfo(&si) == 0) s->mem_bytes = (unsigned long long)si.totalram * si.mem_unit;

    /* Hardware identity only: the same box after a kernel update or a rename
     * keeps its results comparable; memory is rounded to whole GiB. */
    const sb_cpu *c = sb_cpu_hw();   /* not what SB_FORCE_NO_* leaves: the same box */
    const sb_amx_status *amx = sb_amx_request();
    char buf[512];
    snprintf(buf, sizeof buf,
             "%s|%s|%u.%u.%u|%d/%d/%d/%d|%llu/%llu/%llu|%d%d%d%d%d%d%d|%d|%llu", c->vendor,
             c->brand, c->family, c->model, c->stepping, s->packages, s->numa_nodes,
             s->cores, s->pus, s->l1d_bytes, s->l2_bytes, s->l3_bytes, c->avx2, c->avx512f,
             c->avx512_vnni, c->avx512_bf16, c->amx_tile, c->amx_bf16, c->amx_int8,
             amx->permitted, s->mem_bytes >> 30);
    snprintf(s->fingerprint, sizeof s->fingerprint, "%016llx",
             fnv1a(14695981039346656037ull, buf));
    return SB_OK;
}

static sb_sysinfo g_info;
static int g_info_rc;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;
/* The GEMM driver's cache blocking follows the caches hwloc reports. */
static void info_init(void)
{
    g_info_rc = sb_sysinfo_get(&g_info, NULL);
    if (!g_info_rc && g_info.l2_bytes)
        sb_gemm_set_cache_sizes(g_info.l1d_bytes, g_info.l2_bytes, g_info.l3_bytes);
}

const sb_sysinfo *sb_sysinfo_cached(void)
{
    pthread_once(&g_once, info_init);
    return g_info_rc ? NULL : &g_info;
}

json_t *sb_sysinfo_json(const sb_sysinfo *s)
{
    const sb_cpu *c = sb_cpu_get();
    const sb_amx_status *amx = sb_amx_request();
    char xcr0[32];
    snprintf(xcr0, sizeof xcr0, "0x%llx", (unsigned long long)c->xcr0);
    json_t *cpu = json_pack("{s:s, s:s, s:i, s:i, s:i, s:s}", "vendor", c->vendor, "model",
                            c->brand[0] ? c->brand : "unknown", "family", (int)c->family,
                            "model_number", (int)c->model, "stepping", (int)c->stepping,
                            "microarch", c->microarch);
    json_t *isa = json_pack(
        "{s:b, s:b, s:b, s:b, s:b, s:b, s:b, s:b, s:b, s:b, s:b, s:s, s:b, s:b}", "avx2",
        c->avx2, "fma", c->fma, "avx512f", c->avx512f, "avx512bw", c->avx512bw, "avx512vl",
        c->avx512vl, "avx512_vnni", c->avx512_vnni, "avx512_bf16", c->avx512_bf16,
        "amx_tile", c->amx_tile, "amx_bf16", c->amx_bf16, "amx_int8", c->amx_int8,
        "os_avx512", c->os_avx512, "xcr0", xcr0, "xcr0_amx", c->xcr0_amx,
        "amx_os_permitted", amx->permitted);
    json_object_set_new(isa, "os_avx", json_boolean(c->os_avx));
    json_object_set_new(isa, "avx_vnni", json_boolean(c->avx_vnni));
    /* The flags above are what this run may use; forced names what a test
     * turned off (sb_cpu_get), so a forced run is never taken for the hardware. */
    json_object_set_new(isa, "forced", json_string(c->forced));
    json_object_set_new(isa, "amx_reason", json_string(amx->permitted ? "" : amx->why));
    if (c->amx_palette1) {
        json_object_set_new(isa, "amx_palette1",
                            json_pack("{s:i, s:i, s:i}", "tiles", c->amx_tiles, "max_rows",
                                      c->amx_max_rows, "bytes_per_row", c->amx_bytes_per_row));
    }
    if (amx->supp_ok) {
        char m[32];
        snprintf(m, sizeof m, "0x%llx", (unsigned long long)amx->supp_mask);
        json_object_set_new(isa, "xcomp_supp", json_string(m));
    }
    if (amx->req_errno) json_object_set_new(isa, "xcomp_req_errno", json_integer(amx->req_errno));
    json_t *topo = json_pack("{s:i, s:i, s:i, s:i, s:I, s:I, s:I}", "packages", s->packages,
                             "numa_nodes", s->numa_nodes, "cores", s->cores, "pus", s->pus,
                             "l1d_bytes", (json_int_t)s->l1d_bytes, "l2_bytes",
                             (json_int_t)s->l2_bytes, "l3_bytes", (json_int_t)s->l3_bytes);
    return json_pack("{s:s, s:s, s:o, s:o, s:o, s:{s:I}, s:s, s:s}", "fingerprint",
                     s->fingerprint, "hostname", s->hostname, "cpu", cpu, "isa", isa,
                     "topology", topo, "memory", "total_bytes", (json_int_t)s->mem_bytes,
                     "kernel", s->kernel, "governor", s->governor);
}

/* ---- the environment that changes results ---- */

extern char **environ;

/* Families read by the OpenMP runtimes (GNU, LLVM/Intel), oneDNN, OpenBLAS,
 * MKL, sprbench itself (SB_FORCE_NO_*, SB_GEMM_*), the dynamic loader and
 * glibc's allocator: each can change a measurement without changing a flag. */
static const char *const g_env_prefixes[] = {"OMP_", "KMP_", "GOMP_", "ONEDNN_", "DNNL_",
                                             "OPENBLAS_", "MKL_", "SB_", "MALLOC_", NULL};
static const char *const g_env_names[] = {"LD_PRELOAD", "GLIBC_TUNABLES", NULL};

const char *sb_env_scope(void)
{
    return "OMP_* KMP_* GOMP_* ONEDNN_* DNNL_* OPENBLAS_* MKL_* SB_* MALLOC_* LD_PRELOAD"
           " GLIBC_TUNABLES";
}

int sb_env_recorded(const char *name)
{
    for (int i = 0; g_env_names[i]; i++)
        if (!strcmp(name, g_env_names[i])) return 1;
    for (int i = 0; g_env_prefixes[i]; i++)
        if (!strncmp(name, g_env_prefixes[i], strlen(g_env_prefixes[i]))) return 1;
    return 0;
}

typedef struct env_entry {
    const char *entry;   /* "NAME=value" */
    int order;           /* overrides first, then environ's order (getenv's pick) */
} env_entry;

static int cmp_entry(const void *a, const void *b)
{
    const env_entry *x = a, *y = b;
    size_t nx = strcspn(x->entry, "="), ny = strcspn(y->entry, "=");
    int c = strncmp(x->entry, y->entry, nx < ny ? nx : ny);
    if (!c) c = (nx > ny) - (nx < ny);
    return c ? c : (x->order > y->order) - (x->order < y->order);
}

/* A value as JSON text: invalid UTF-8 bytes become '?' (jansson refuses
 * them), and past SB_ENV_VALUE_MAX bytes it is cut with "..." after it. */
static json_t *env_value(const char *v)
{
    size_t n = strlen(v), keep = n > SB_ENV_VALUE_MAX ? SB_ENV_VALUE_MAX : n;
    char *buf = malloc(keep + 4);
    if (!buf) return NULL;
    size_t o = 0;
    for (size_t i = 0; i < keep;) {
        uint32_t cp;
        int len = (int)sb_text_decode(v + i, keep - i, &cp);
        if (!len) {
            buf[o++] = '?';
            i++;
            continue;
        }
        memcpy(buf + o, v + i, (size_t)len);
        o += (size_t)len;
        i += (size_t)len;
    }
    if (keep < n) {
        memcpy(buf + o, "...", 3);
        o += 3;
    }
    json_t *j = json_stringn(buf, o);
    free(buf);
    return j;
}

json_t *sb_env_json_effective(const char *const *set)
{
    json_t *env = json_object();
    if (!env) return NULL;
    size_t n = 0, ns = 0;
    for (char **p = environ; p && *p; p++) n++;
    for (const char *const *p = set; p && *p; p++) ns++;
    env_entry *v = malloc(sizeof *v * (n + ns + 1));
    if (!v) return env;
    size_t k = 0;
    for (size_t i = 0; i < ns + n; i++) {
        const char *entry = i < ns ? set[i] : environ[i - ns];
        const char *eq = strchr(entry, '=');
        if (!eq || eq == entry || (size_t)(eq - entry) > 127) continue;
        char name[128];
        snprintf(name, sizeof name, "%.*s", (int)(eq - entry), entry);
        if (sb_env_recorded(name)) v[k++] = (env_entry){entry, (int)i};
    }
    /* sorted by name: two results list their variables in one order */
    qsort(v, k, sizeof *v, cmp_entry);
    size_t count = 0;
    for (size_t i = 0; i < k && count < SB_ENV_VARS_MAX; i++) {
        const char *eq = strchr(v[i].entry, '=');
        char name[128];
        snprintf(name, sizeof name, "%.*s", (int)(eq - v[i].entry), v[i].entry);
        if (json_object_get(env, name)) continue;   /* overridden, or a name twice in environ */
        json_t *val = env_value(eq + 1);
        if (val && json_object_set_new(env, name, val) == 0) count++;
    }
    free(v);
    return env;
}

json_t *sb_env_json(void) { return sb_env_json_effective(NULL); }

void sb_env_record(json_t *doc, json_t *env)
{
    if (!env) env = sb_env_json();
    json_object_set_new(doc, "env", env ? env : json_object());
    json_object_set_new(doc, "env_scope", json_string(sb_env_scope()));
    /* inside Slurm, the job step is part of where a result came from */
    json_t *step = sb_slurm_step_json();
    if (step) json_object_set_new(doc, "slurm_step", step);
}
