/* sb_sysinfo: the machine a result came from: CPU identity and ISA (sb_cpu),
 * AMX permission, hwloc topology, memory, kernel, CPU frequency governor, and
 * a stable fingerprint. One JSON form serves `sprbench info --json`, result
 * files and the database's machine table. */
#ifndef SB_SYSINFO_H
#define SB_SYSINFO_H
#include <jansson.h>
#include <stddef.h>
#include "sb_err.h"

typedef struct sb_sysinfo {
    char hostname[256];
    char kernel[128];
    char governor[64]; /* "performance", ... or "" when unreadable */
    int packages, numa_nodes, cores, pus;
    unsigned long long l1d_bytes, l2_bytes, l3_bytes; /* per instance */
    unsigned long long mem_bytes;
    char fingerprint[17]; /* 16 hex digits */
} sb_sysinfo;

int sb_sysinfo_get(sb_sysinfo *s, sb_err *e);
/* Once per process (NULL when the topology cannot be read). */
const sb_sysinfo *sb_sysinfo_cached(void);
/* Bytes this process can still fill without being killed: the least of
 * the kernel's MemAvailable and, for its memory cgroup and each one above
 * it (v2: memory.max - memory.current; v1: memory.limit_in_bytes -
 * memory.usage_in_bytes), the room left under the limit. *what (cap bytes)
 * names the bound that decided ("available memory", "the cgroup limit of
 * N MiB"). 0 when nothing can be read. */
unsigned long long sb_mem_usable(char *what, size_t cap);
/* The whole description as one JSON object (owned by the caller). */
json_t *sb_sysinfo_json(const sb_sysinfo *s);

#endif
