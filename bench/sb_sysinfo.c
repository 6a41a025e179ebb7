#include "sb_sysinfo.h"
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
    const sb_cpu *c = sb_cpu_hw(); /* not what SB_FORCE_NO_* leaves: the same box */
    /* The OS's AMX state, not this process's permission: a force turns the
     * permission off (the same box), while XCR0 is the machine's. Where the
     * kernel grants AMX both agree, so older fingerprints stay the same. */
    int amx_os = c->amx_tile && c->xcr0_amx;
    char buf[512];
    snprintf(buf, sizeof buf, "%s|%s|%u.%u.%u|%d/%d/%d/%d|%llu/%llu/%llu|%d%d%d%d%d%d%d|%d|%llu",
             c->vendor, c->brand, c->family, c->model, c->stepping, s->packages, s->numa_nodes,
             s->cores, s->pus, s->l1d_bytes, s->l2_bytes, s->l3_bytes, c->avx2, c->avx512f,
             c->avx512_vnni, c->avx512_bf16, c->amx_tile, c->amx_bf16, c->amx_int8, amx_os,
             s->mem_bytes >> 30);
    snprintf(s->fingerprint, sizeof s->fingerprint, "%016llx", fnv1a(14695981039346656037ull, buf));
    return SB_OK;
}

static sb_sysinfo g_info;
static int g_info_rc;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static void info_init(void) { g_info_rc = sb_sysinfo_get(&g_info, NULL); }

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
        "{s:b, s:b, s:b, s:b, s:b, s:b, s:b, s:b, s:b, s:b, s:b, s:s, s:b, s:b}", "avx2", c->avx2,
        "fma", c->fma, "avx512f", c->avx512f, "avx512bw", c->avx512bw, "avx512vl", c->avx512vl,
        "avx512_vnni", c->avx512_vnni, "avx512_bf16", c->avx512_bf16, "amx_tile", c->amx_tile,
        "amx_bf16", c->amx_bf16, "amx_int8", c->amx_int8, "os_avx512", c->os_avx512, "xcr0", xcr0,
        "xcr0_amx", c->xcr0_amx, "amx_os_permitted", amx->permitted);
    json_object_set_new(isa, "os_avx", json_boolean(c->os_avx));
    json_object_set_new(isa, "avx_vnni", json_boolean(c->avx_vnni));
    /* what names a CPU whose model number a hypervisor masks (sb_uarch) */
    json_object_set_new(isa, "avx512_fp16", json_boolean(c->avx512_fp16));
    json_object_set_new(isa, "amx_fp16", json_boolean(c->amx_fp16));
    json_object_set_new(isa, "avx10", json_boolean(c->avx10));
    /* how the microarchitecture was named: "override" is the user's word
     * (SB_CPU_UARCH), which a display of the record keeps */
    json_object_set_new(cpu, "microarch_source",
                        json_string(sb_uarch_source_name(c->microarch_source)));
    json_object_set_new(cpu, "microarch_how", json_string(c->microarch_how));
    json_object_set_new(cpu, "hypervisor", json_boolean(c->hypervisor));
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
    return json_pack("{s:s, s:s, s:o, s:o, s:o, s:{s:I}, s:s, s:s}", "fingerprint", s->fingerprint,
                     "hostname", s->hostname, "cpu", cpu, "isa", isa, "topology", topo, "memory",
                     "total_bytes", (json_int_t)s->mem_bytes, "kernel", s->kernel, "governor",
                     s->governor);
}

/* A number in a one-line file; 0 when absent or "max" (no limit). */
static unsigned long long read_ull(const char *path, int *found)
{
    char buf[64] = "";
    FILE *f = fopen(path, "r");
    *found = 0;
    if (!f) return 0;
    if (fgets(buf, sizeof buf, f)) *found = buf[0] >= '0' && buf[0] <= '9';
    fclose(f);
    return *found ? strtoull(buf, NULL, 10) : 0;
}

/* The least room (limit - usage) of the memory cgroup at dir and each one
 * above it up to root: *best lowered, *limit_out the limit that set it. */
static void cgroup_room(const char *root, const char *rel, const char *limit_name,
                        const char *usage_name, unsigned long long *best,
                        unsigned long long *limit_out)
{
    char path[4096], dir[2048];
    snprintf(dir, sizeof dir, "%s", rel);
    for (;;) {
        int fl, fu;
        snprintf(path, sizeof path, "%s%s/%s", root, dir, limit_name);
        unsigned long long lim = read_ull(path, &fl);
        snprintf(path, sizeof path, "%s%s/%s", root, dir, usage_name);
        unsigned long long use = read_ull(path, &fu);
        /* v1 says "no limit" with a number near 2^63 */
        if (fl && fu && lim < (1ull << 60)) {
            unsigned long long room = lim > use ? lim - use : 0;
            if (room < *best) {
                *best = room;
                *limit_out = lim;
            }
        }
        char *slash = strrchr(dir, '/');
        if (!slash || !dir[0]) break;
        *slash = '\0';
    }
}

unsigned long long sb_mem_usable(char *what, size_t cap)
{
    unsigned long long best = ~0ull, limit = 0;
    if (what && cap) snprintf(what, cap, "available memory");
    FILE *f = fopen("/proc/meminfo", "r");
    char line[512];
    if (f) {
        while (fgets(line, sizeof line, f)) {
            unsigned long long kib;
            if (sscanf(line, "MemAvailable: %llu kB", &kib) == 1) best = kib << 10;
        }
        fclose(f);
    }
    f = fopen("/proc/self/cgroup", "r");
    if (f) {
        while (fgets(line, sizeof line, f)) {
            line[strcspn(line, "\n")] = '\0';
            char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
            if (!c2) continue;
            *c2 = '\0';
            const char *ctl = c1 + 1, *rel = c2 + 1;
            if (!strcmp(rel, "/")) rel = "";
            if (!*ctl && !strcmp(line, "0")) { /* v2 */
                const char *root = access("/sys/fs/cgroup/cgroup.controllers", F_OK) == 0
                                       ? "/sys/fs/cgroup"
                                       : "/sys/fs/cgroup/unified";
                cgroup_room(root, rel, "memory.max", "memory.current", &best, &limit);
            } else if (strstr(ctl, "memory")) {
                cgroup_room("/sys/fs/cgroup/memory", rel, "memory.limit_in_bytes",
                            "memory.usage_in_bytes", &best, &limit);
            }
        }
        fclose(f);
    }
    if (limit && what && cap)
        snprintf(what, cap, "room under the cgroup limit of %llu MiB", limit >> 20);
    return best == ~0ull ? 0 : best;
}
