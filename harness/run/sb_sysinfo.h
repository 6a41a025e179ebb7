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
    char governor[64];          /* "performance", ... or "" when unreadable */
    int packages, numa_nodes, cores, pus;
    unsigned long long l1d_bytes, l2_bytes, l3_bytes;   /* per instance */
    unsigned long long mem_bytes;
    char fingerprint[17];       /* 16 hex digits */
} sb_sysinfo;

int sb_sysinfo_get(sb_sysinfo *s, sb_err *e);
/* Once per process; also tells the GEMM driver the cache sizes. */
const sb_sysinfo *sb_sysinfo_cached(void);
/* The whole description as one JSON object (owned by the caller). */
json_t *sb_sysinfo_json(const sb_sysinfo *s);

/* The environment that changes results, as every result document records
 * it: the variables of sb_env_scope() (OMP_*, KMP_*, GOMP_*, ONEDNN_*,
 * DNNL_*, OPENBLAS_*, MKL_*, SB_*, MALLOC_*, LD_PRELOAD, GLIBC_TUNABLES)
 * present in this process's environment, name -> value (a JSON string),
 * sorted by name. Bounded: at most SB_ENV_VARS_MAX variables, each value
 * cut after SB_ENV_VALUE_MAX bytes with "..." appended; invalid UTF-8 shows
 * as '?'. */
#define SB_ENV_VARS_MAX 256
#define SB_ENV_VALUE_MAX 4096
json_t *sb_env_json(void);
/* The same, with the values a run puts in force itself ("NAME=value",
 * NULL-terminated; NULL for none) in place of the environment's: the thread
 * count it sets (OMP_NUM_THREADS), an ISA cap from a flag
 * (ONEDNN_MAX_CPU_ISA). What is recorded is what the run ran with. */
json_t *sb_env_json_effective(const char *const *set);
/* Whether a variable name is in that scope. */
int sb_env_recorded(const char *name);
/* The scope in words, stored beside the variables as "env_scope": a reader
 * knows a variable absent from "env" was unset (not unrecorded). */
const char *sb_env_scope(void);
/* Sets doc's "env" (env, or sb_env_json() when NULL; the reference is
 * taken) and "env_scope". */
void sb_env_record(json_t *doc, json_t *env);

#endif
