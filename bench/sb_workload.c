#include "sb_workload.h"
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include "sb_parse.h"

/* ---- the rows: each in its workload's folder, listed in sb_workloads.def ---- */

static const sb_workload *const g_workloads[] = {
#define SB_WORKLOAD(id, metrics) &sb_wl_##id,
#include "sb_workloads.def"
#undef SB_WORKLOAD
};
#define NWORKLOADS ((int)(sizeof g_workloads / sizeof g_workloads[0]))

/* ---- what the rows share: a result's metrics, the batch axis ---- */

double sb_wl_doc_num(const json_t *doc, const char *metric)
{
    return json_number_value(json_object_get(json_object_get(doc, "metrics"), metric));
}

int sb_wl_doc_has(const json_t *doc, const char *metric)
{
    return json_object_get(json_object_get(doc, "metrics"), metric) != NULL;
}

void sb_wl_batch_argv(const char *value, sb_wl_push push, void *ctx)
{
    push(ctx, "--batch");
    push(ctx, value);
}

int sb_workload_count(void) { return NWORKLOADS; }

const sb_workload *sb_workload_at(int i)
{
    return i >= 0 && i < NWORKLOADS ? g_workloads[i] : NULL;
}

const sb_workload *sb_workload_find(const char *name)
{
    for (int i = 0; name && i < NWORKLOADS; i++)
        if (!strcmp(g_workloads[i]->name, name)) return g_workloads[i];
    return NULL;
}

int sb_workload_has(const char *name, unsigned flags)
{
    const sb_workload *w = sb_workload_find(name);
    return w && (w->flags & flags) == flags;
}

int sb_wl_is(const sb_workload *w, unsigned flags) { return w && (w->flags & flags) == flags; }

/* the first row: a plan without `workload` is a GEMM sweep */
const sb_workload *sb_workload_default(void) { return g_workloads[0]; }

const sb_workload *sb_workload_flagged(unsigned flags)
{
    for (int i = 0; i < NWORKLOADS; i++)
        if (sb_wl_is(g_workloads[i], flags)) return g_workloads[i];
    return NULL;
}

void sb_workload_plan_names(char *buf, size_t cap)
{
    size_t off = 0;
    buf[0] = '\0';
    for (int i = 0; i < NWORKLOADS && off < cap; i++)
        if (g_workloads[i]->flags & SB_WL_PLAN)
            off += (size_t)snprintf(buf + off, cap - off, "%s%s", off ? ", " : "",
                                    g_workloads[i]->name);
}

void sb_workload_describe(const sb_workload *w, const json_t *doc, char *buf, size_t cap)
{
    if (w->describe)
        w->describe(doc, buf, cap);
    else if (w->metric && sb_wl_doc_has(doc, w->metric))
        snprintf(buf, cap, "%.4g %s", sb_wl_doc_num(doc, w->metric), w->unit);
    else
        buf[0] = '\0';
}

/* ---- worker options and their ranges ---- */

static const sb_wopt g_wopts[] = {
    {"batch", SB_WOPT_LONG, 1, 65536, NULL},
    {"seq", SB_WOPT_LONG, 8, 65536, NULL},
    {"stride", SB_WOPT_LONG, 0, 65536, NULL},
    {"epochs", SB_WOPT_LONG, 1, 1000, NULL},
    {"max-steps", SB_WOPT_LONG, 1, 100000000, NULL},
    {"time-budget", SB_WOPT_DOUBLE, 0.001, 1e7, NULL},
    {"seed", SB_WOPT_LONG, 0, 0x7fffffff, NULL},
    {"dropout", SB_WOPT_DOUBLE, 0, 0.99, NULL},
    {"lr", SB_WOPT_DOUBLE, 0, 10, NULL},
    {"synth-train", SB_WOPT_LONG, 1, 10000000, NULL},
    {"synth-dev", SB_WOPT_LONG, 1, 10000000, NULL},
    {"warmup-steps", SB_WOPT_LONG, 0, 100000000, NULL},
    {"comm-threads", SB_WOPT_LONG, 0, 16, NULL},
    {"eval", SB_WOPT_BOOL, 0, 0, NULL},
    {"no-overlap", SB_WOPT_BOOL, 0, 0, NULL},
    {"no-tune", SB_WOPT_BOOL, 0, 0, NULL},
    {"vocab", SB_WOPT_PATH, 0, 0, NULL},
    {"train", SB_WOPT_PATH, 0, 0, NULL},
    {"dev", SB_WOPT_PATH, 0, 0, NULL},
    {"init", SB_WOPT_PATH, 0, 0, NULL},
    {"model", SB_WOPT_MODEL, 0, 0, sb_wl_check_model},
    {"iters", SB_WOPT_LONG, 1, 1000000, NULL},
    {"warmup", SB_WOPT_LONG, 0, 1000000, NULL},
    {"sizes", SB_WOPT_SIZES, 0, 0, sb_wl_check_sizes},
    {"requests", SB_WOPT_LONG, 1, 100000000, NULL},
    {"data", SB_WOPT_PATH, 0, 0, NULL},
    {"full-attention", SB_WOPT_BOOL, 0, 0, NULL},
    {"no-latency", SB_WOPT_BOOL, 0, 0, NULL},
    {"profile", SB_WOPT_BOOL, 0, 0, NULL},
    {"compare-f32", SB_WOPT_BOOL, 0, 0, NULL},
    {"quant", SB_WOPT_QUANT, 0, 0, sb_wl_check_quant},
    {"attention", SB_WOPT_ATTENTION, 0, 0, sb_wl_check_attention},
    {"threads", SB_WOPT_LONG, 1, 4096, NULL},
    {"mib", SB_WOPT_LONG, 1, 1 << 20, NULL},
    {"dim", SB_WOPT_LONG, 8, 65536, NULL},
    {"ntimes", SB_WOPT_LONG, 2, 200, NULL},
};

const sb_wopt *sb_wopt_find(const char *key)
{
    for (size_t i = 0; i < sizeof g_wopts / sizeof g_wopts[0]; i++)
        if (!strcmp(g_wopts[i].key, key)) return &g_wopts[i];
    return NULL;
}

int sb_wopt_known(const char *key)
{
    for (int i = 0; i < NWORKLOADS; i++)
        for (const char *const *o = g_workloads[i]->opts; *o; o++)
            if (!strcmp(*o, key)) return 1;
    return 0;
}

int sb_worker_opt_long(const char *key, const char *value, const char *what, long *out, sb_err *e)
{
    const sb_wopt *o = sb_wopt_find(key);
    if (!o || o->kind != SB_WOPT_LONG) return sb_errf(e, SB_EFAIL, "no integer option '%s'", key);
    return sb_parse_long(value, (long)o->min, (long)o->max, what, out, e);
}

int sb_worker_opt_double(const char *key, const char *value, const char *what, double *out,
                         sb_err *e)
{
    const sb_wopt *o = sb_wopt_find(key);
    if (!o || o->kind != SB_WOPT_DOUBLE) return sb_errf(e, SB_EFAIL, "no number option '%s'", key);
    return sb_parse_double(value, o->min, o->max, what, out, e);
}

int sb_wl_axis_in_series(const sb_workload *w)
{
    if (!w || !w->axis || !w->series) return 0;
    for (int i = 0; w->series[i]; i++)
        if (!strcmp(w->series[i], w->axis)) return 1;
    return 0;
}
