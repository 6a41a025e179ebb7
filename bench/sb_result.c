#include "sb_result.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include "sb_io.h"
#include "sb_metric.h"
#include "sb_stack.h"
#include "sb_text.h"
#include "sb_vendor.h"

json_t *sb_result_library(const char *kernel)
{
    const char *vendor = sb_vendor_of_kernel(kernel);
    if (!vendor) return NULL;
    const sb_vendor_lib *l =
        sb_vendor_get(strcmp(vendor, "MKL") == 0 ? SB_VENDOR_MKL : SB_VENDOR_ONEDNN);
    json_t *o = json_pack("{s:s, s:b}", "name", l->name, "loaded", l->loaded);
    if (l->loaded) {
        json_object_set_new(o, "version", json_string(l->version));
        json_object_set_new(o, "origin", json_string(l->origin));
        json_object_set_new(o, "runtime", json_string(l->runtime));
    } else
        json_object_set_new(o, "reason", json_string(l->why));
    return o;
}

json_t *sb_result_new(const sb_result_head *h)
{
    json_t *doc = json_object();
    if (!doc) return NULL;
    json_object_set_new(doc, "workload", json_string(h->workload));
    if (h->kernel) json_object_set_new(doc, "kernel", json_string(h->kernel));
    json_t *lib = sb_result_library(h->kernel);
    if (lib) json_object_set_new(doc, "library", lib);
    if (h->dtype) json_object_set_new(doc, "dtype", json_string(h->dtype));
    json_object_set_new(doc, "threads", json_integer(h->threads));
    json_object_set_new(doc, "ranks", json_integer(h->ranks));
    json_object_set_new(doc, "ppn", json_integer(h->ppn));
    json_object_set_new(doc, "nodes", json_integer(h->nodes));
    json_object_set_new(doc, "status", json_string(h->status));
    json_object_set_new(doc, "reason", json_string(h->reason ? h->reason : ""));
    json_object_set_new(doc, "config", json_object());
    json_object_set_new(doc, "samples", json_array());
    json_object_set_new(doc, "metrics", json_object());
    json_object_set_new(doc, "units", json_object());
    json_object_set_new(doc, "better", json_object());
    return doc;
}

void sb_result_better(json_t *doc)
{
    json_t *metrics = json_object_get(doc, "metrics"), *units = json_object_get(doc, "units");
    json_t *better = json_object_get(doc, "better");
    if (!json_is_object(metrics)) return;
    if (!json_is_object(better)) {
        better = json_object();
        json_object_set_new(doc, "better", better);
    }
    json_object_clear(better);
    const char *name;
    json_t *v;
    json_object_foreach(metrics, name, v)
    {
        const char *unit = json_string_value(json_object_get(units, name));
        json_object_set_new(better, name, json_string(sb_metric_better(name, unit)));
    }
}

void sb_result_seal(json_t *doc, int argc, char *const argv[], const char *const *env_set,
                    const char *fingerprint)
{
    sb_result_better(doc);
    sb_env_record(doc, sb_env_json_effective(env_set));
    char **rv = calloc((size_t)(argc > 0 ? argc : 0) + 2, sizeof *rv);
    char *repro = NULL;
    if (rv) {
        rv[0] = "sprbench";
        for (int i = 0; i < argc; i++) rv[i + 1] = argv[i];
        repro = sb_argv_render(rv);
        free(rv);
    }
    json_object_set_new(doc, "repro", json_string(repro ? repro : ""));
    free(repro);
    if (fingerprint) json_object_set_new(doc, "machine_fingerprint", json_string(fingerprint));
    /* the software it ran on: the machine's fingerprint names the hardware
     * only, and the same box with another oneDNN or turbo off is another
     * measurement */
    json_object_set_new(doc, "stack", sb_stack_json());
}

json_t *sb_result_worker(const sb_result_head *h, json_t *config, int argc, char *const argv[],
                         const char *fingerprint)
{
    json_t *doc = sb_result_new(h);
    if (!doc) {
        json_decref(config);
        return NULL;
    }
    json_object_set_new(doc, "config", config ? config : json_object());
    char omp[32];
    snprintf(omp, sizeof omp, "OMP_NUM_THREADS=%d", h->threads);
    const char *set[] = {omp, NULL};
    sb_result_seal(doc, argc, argv, set, fingerprint);
    return doc;
}

int sb_result_worker_status(const char *path, const sb_result_head *h, json_t *config, int argc,
                            char *const argv[], const char *fingerprint, sb_err *e)
{
    if (!path) {
        json_decref(config);
        return SB_OK;
    }
    json_t *doc = sb_result_worker(h, config, argc, argv, fingerprint);
    if (!doc) return sb_errf(e, SB_EFAIL, "out of memory for the result document");
    int rc = sb_result_write(path, doc, e);
    json_decref(doc);
    return rc;
}

void sb_result_metric(json_t *metrics, json_t *units, const char *name, double value,
                      const char *unit)
{
    json_object_set_new(metrics, name, json_real(value));
    json_object_set_new(units, name, json_string(unit));
}

double sb_result_peak_rss_mb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss / 1024.0; /* kB on Linux */
}

int sb_result_write(const char *path, json_t *doc, sb_err *e)
{
    sb_result_better(doc); /* metrics a worker added after sealing (train, infer) */
    return sb_json_write_atomic(path, doc, e);
}

/* ---- the environment that changes results ---- */

extern char **environ;

/* Families read by the OpenMP runtimes (GNU, LLVM/Intel), oneDNN, OpenBLAS,
 * MKL, sprbench itself (SB_FORCE_NO_*, SB_GEMM_*), the dynamic loader and
 * glibc's allocator: each can change a measurement without changing a flag. */
static const char *const g_env_prefixes[] = {"OMP_",      "KMP_", "GOMP_", "ONEDNN_", "DNNL_",
                                             "OPENBLAS_", "MKL_", "SB_",   "MALLOC_", NULL};
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
    const char *entry; /* "NAME=value" */
    int order;         /* overrides first, then environ's order (getenv's pick) */
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
        if (json_object_get(env, name)) continue; /* overridden, or a name twice in environ */
        json_t *val = env_value(eq + 1);
        if (val && json_object_set_new(env, name, val) == 0) count++;
    }
    free(v);
    return env;
}

json_t *sb_env_json(void) { return sb_env_json_effective(NULL); }

json_t *sb_result_slurm_step(void)
{
    static const char *const vars[][2] = {{"job_id", "SLURM_JOB_ID"},
                                          {"step_id", "SLURM_STEP_ID"},
                                          {"step_nodelist", "SLURM_STEP_NODELIST"},
                                          {"node", "SLURMD_NODENAME"}};
    const char *job = getenv("SLURM_JOB_ID");
    if (!job || !*job) return NULL;
    json_t *o = json_object();
    for (size_t i = 0; o && i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i][1]);
        /* environment text is not trusted to be UTF-8: such a value is left out */
        if (v && *v && sb_text_check(v, 1024, vars[i][1], NULL) == SB_OK)
            json_object_set_new(o, vars[i][0], json_string(v));
    }
    return o;
}

void sb_env_record(json_t *doc, json_t *env)
{
    if (!env) env = sb_env_json();
    json_object_set_new(doc, "env", env ? env : json_object());
    json_object_set_new(doc, "env_scope", json_string(sb_env_scope()));
    /* inside Slurm, the job step is part of where a result came from */
    json_t *step = sb_result_slurm_step();
    if (step) json_object_set_new(doc, "slurm_step", step);
}
