#include "sb_workload.h"
#include <stdio.h>
#include <string.h>
#include "sb_parse.h"

/* ---- what each worker prints into the sweep's progress line ---- */

static double num(const json_t *doc, const char *metric)
{
    return json_number_value(json_object_get(json_object_get(doc, "metrics"), metric));
}

static int has(const json_t *doc, const char *metric)
{
    return json_object_get(json_object_get(doc, "metrics"), metric) != NULL;
}

static void describe_infer(const json_t *doc, char *buf, size_t cap)
{
    if (!has(doc, "sequences_per_s"))
        buf[0] = '\0';
    else if (has(doc, "latency_p50_ms"))
        snprintf(buf, cap, "%.2f sequences/s, p50 %.1f ms", num(doc, "sequences_per_s"),
                 num(doc, "latency_p50_ms"));
    else
        snprintf(buf, cap, "%.2f sequences/s", num(doc, "sequences_per_s"));
}

static void describe_train(const json_t *doc, char *buf, size_t cap)
{
    if (has(doc, "tokens_per_s"))
        snprintf(buf, cap, "%.0f tokens/s", num(doc, "tokens_per_s"));
    else
        buf[0] = '\0';
}

static void describe_gemm(const json_t *doc, char *buf, size_t cap)
{
    if (has(doc, "gflops"))
        snprintf(buf, cap, "%.1f GFLOP/s", num(doc, "gflops"));
    else
        buf[0] = '\0';
}

/* The peak probe names the f32 path it measured: AVX-512's, else AVX2's. */
static void describe_peak(const json_t *doc, char *buf, size_t cap)
{
    int avx512 = has(doc, "f32_gflops");
    if (!avx512 && !has(doc, "avx2_f32_gflops")) {
        buf[0] = '\0';
        return;
    }
    snprintf(buf, cap, "%s peak %.1f GFLOP/s%s", avx512 ? "f32" : "avx2_f32",
             num(doc, avx512 ? "f32_gflops" : "avx2_f32_gflops"),
             json_array_size(json_object_get(doc, "warnings"))
                 ? "; warning: all cores below one core, the machine was busy"
                 : "");
}

/* ---- the rows ---- */

static const char *const g_gemm_opts[] = {"no-tune", NULL};
static const char *const g_train_opts[] = {
    "model", "batch",        "seq",         "stride",    "max-steps",    "time-budget", "epochs",
    "vocab", "train",        "dev",         "lr",        "seed",         "dropout",     "eval",
    "init",  "comm-threads", "synth-train", "synth-dev", "warmup-steps", "no-overlap",  "no-tune",
    "profile", NULL};
static const char *const g_infer_opts[] = {
    "model", "batch",     "seq",    "stride", "requests",       "vocab",      "data",        "init",
    "seed",  "synth-dev", "warmup", "quant",  "full-attention", "no-latency", "compare-f32",
    "attention", "no-tune", "profile", NULL};
static const char *const g_allreduce_opts[] = {"sizes", "iters", "warmup", NULL};
static const char *const g_stream_opts[] = {"mib", "ntimes", NULL};

/* A point's series key: the options that change the work, in this order. */
static const char *const g_model_series[] = {"model", "batch", "seq", NULL};
static const char *const g_allreduce_series[] = {"sizes", NULL};
static const char *const g_stream_series[] = {"mib", NULL};

#define DAY (24 * 3600.0)
static const sb_workload g_workloads[] = {
    {"gemm", "GEMM", SB_WL_PLAN | SB_WL_KERNEL | SB_WL_INT8 | SB_WL_SHAPES | SB_WL_THREADS |
         SB_WL_PEAK,
     g_gemm_opts, g_gemm_opts, 0, 1800.0, "gflops", "GFLOP/s", "GFLOP/s (GOP/s for int8)", NULL,
     NULL, describe_gemm, NULL, NULL},
    {"train", "DistilBERT SQuAD training",
     SB_WL_PLAN | SB_WL_KERNEL | SB_WL_BATCH | SB_WL_THREADS | SB_WL_PROJECT, g_train_opts,
     g_model_series, 0, DAY, "tokens_per_s", "tokens/s", NULL, NULL, NULL, describe_train, NULL, NULL},
    {"infer", "SQuAD inference",
     SB_WL_PLAN | SB_WL_KERNEL | SB_WL_INT8 | SB_WL_BATCH | SB_WL_THREADS | SB_WL_LATENCY,
     g_infer_opts, g_model_series, 32, DAY, "sequences_per_s", "sequences/s", NULL, "quant", "row",
     describe_infer, "attention", "f32"},
    /* no headline: its metrics are per message size (busbw_gbs_<bytes>) */
    {"allreduce", "MPI_Allreduce", SB_WL_PLAN, g_allreduce_opts, g_allreduce_series, 0, 1800.0,
     NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL},
    /* memory bandwidth (bench/stream): the roofline's other axis */
    {"stream", "STREAM memory bandwidth", SB_WL_PLAN | SB_WL_THREADS | SB_WL_ONE_RANK,
     g_stream_opts, g_stream_series, 0, 1800.0, "triad_gbps", "GB/s", NULL, NULL, NULL, NULL, NULL, NULL},
    /* the machine's peak FLOP/s, a point the sweep puts ahead of GEMM points */
    {"peak", "Peak FLOP/s", 0, g_gemm_opts, g_gemm_opts, 0, 1800.0, NULL, NULL, NULL, NULL, NULL,
     describe_peak, NULL, NULL},
};
#define NWORKLOADS ((int)(sizeof g_workloads / sizeof g_workloads[0]))

int sb_workload_count(void) { return NWORKLOADS; }

const sb_workload *sb_workload_at(int i)
{
    return i >= 0 && i < NWORKLOADS ? &g_workloads[i] : NULL;
}

const sb_workload *sb_workload_find(const char *name)
{
    for (int i = 0; name && i < NWORKLOADS; i++)
        if (!strcmp(g_workloads[i].name, name)) return &g_workloads[i];
    return NULL;
}

int sb_workload_has(const char *name, unsigned flags)
{
    const sb_workload *w = sb_workload_find(name);
    return w && (w->flags & flags) == flags;
}

void sb_workload_plan_names(char *buf, size_t cap)
{
    size_t off = 0;
    buf[0] = '\0';
    for (int i = 0; i < NWORKLOADS && off < cap; i++)
        if (g_workloads[i].flags & SB_WL_PLAN)
            off += (size_t)snprintf(buf + off, cap - off, "%s%s", off ? ", " : "",
                                    g_workloads[i].name);
}

void sb_workload_describe(const sb_workload *w, const json_t *doc, char *buf, size_t cap)
{
    if (w->describe)
        w->describe(doc, buf, cap);
    else if (w->metric && has(doc, w->metric))
        snprintf(buf, cap, "%.4g %s", num(doc, w->metric), w->unit);
    else
        buf[0] = '\0';
}

/* ---- worker options and their ranges ---- */

static const sb_wopt g_wopts[] = {
    {"batch", SB_WOPT_LONG, 1, 65536},
    {"seq", SB_WOPT_LONG, 8, 65536},
    {"stride", SB_WOPT_LONG, 0, 65536},
    {"epochs", SB_WOPT_LONG, 1, 1000},
    {"max-steps", SB_WOPT_LONG, 1, 100000000},
    {"time-budget", SB_WOPT_DOUBLE, 0.001, 1e7},
    {"seed", SB_WOPT_LONG, 0, 0x7fffffff},
    {"dropout", SB_WOPT_DOUBLE, 0, 0.99},
    {"lr", SB_WOPT_DOUBLE, 0, 10},
    {"synth-train", SB_WOPT_LONG, 1, 10000000},
    {"synth-dev", SB_WOPT_LONG, 1, 10000000},
    {"warmup-steps", SB_WOPT_LONG, 0, 100000000},
    {"comm-threads", SB_WOPT_LONG, 0, 16},
    {"eval", SB_WOPT_BOOL, 0, 0},
    {"no-overlap", SB_WOPT_BOOL, 0, 0},
    {"no-tune", SB_WOPT_BOOL, 0, 0},
    {"vocab", SB_WOPT_PATH, 0, 0},
    {"train", SB_WOPT_PATH, 0, 0},
    {"dev", SB_WOPT_PATH, 0, 0},
    {"init", SB_WOPT_PATH, 0, 0},
    {"model", SB_WOPT_MODEL, 0, 0},
    {"iters", SB_WOPT_LONG, 1, 1000000},
    {"warmup", SB_WOPT_LONG, 0, 1000000},
    {"sizes", SB_WOPT_SIZES, 0, 0},
    {"requests", SB_WOPT_LONG, 1, 100000000},
    {"data", SB_WOPT_PATH, 0, 0},
    {"full-attention", SB_WOPT_BOOL, 0, 0},
    {"no-latency", SB_WOPT_BOOL, 0, 0},
    {"profile", SB_WOPT_BOOL, 0, 0},
    {"compare-f32", SB_WOPT_BOOL, 0, 0},
    {"quant", SB_WOPT_QUANT, 0, 0},
    {"attention", SB_WOPT_ATTENTION, 0, 0},
    {"threads", SB_WOPT_LONG, 1, 4096},
    {"mib", SB_WOPT_LONG, 1, 1 << 20},
    {"ntimes", SB_WOPT_LONG, 2, 200},
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
        for (const char *const *o = g_workloads[i].opts; *o; o++)
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
