#include "sb_workload.h"
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include "sb_allreduce.h"
#include "sb_layernorm_bench.h"
#include "sb_metric_own.h"
#include "sb_model.h"
#include "sb_parse.h"
#include "sb_plan_opts.h"
#include "sb_quant.h"
#include "sb_shape.h"

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

/* ---- the list axes: one value, the worker's flags ---- */

/* A point's shape as the sweep stores it ("MxNxK:TT", "+prepack" after it
 * with --prepack) -> --shape, the text as it is: `sprbench gemm` parses the
 * grammar the store keeps (sb_gemm_shape_parse), so nothing is parsed and
 * written again on the way, and a shape it refuses fails its point */
static void shape_argv(const char *value, sb_wl_push push, void *ctx)
{
    push(ctx, "--shape");
    push(ctx, value);
}

static void batch_argv(const char *value, sb_wl_push push, void *ctx)
{
    push(ctx, "--batch");
    push(ctx, value);
}

/* each workload's checks of a plan's options together live in its folder
 * (bench/distilbert/sb_plan_opts: sb_plan_check_model, sb_plan_check_train) */

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
static const char *const g_layernorm_opts[] = {"batch", "seq", "dim", "iters", NULL};
static const char *const g_layernorm_series[] = {"batch", "seq", "dim", NULL};
#define DAY (24 * 3600.0)
static const sb_workload g_workloads[] = {
    {"gemm", "GEMM", SB_WL_PLAN | SB_WL_KERNEL | SB_WL_INT8 | SB_WL_SHAPES | SB_WL_THREADS |
         SB_WL_PEAK | SB_WL_PAIRED,
     g_gemm_opts, g_gemm_opts, 0, 1800.0, "gflops", "GFLOP/s", "GFLOP/s (GOP/s for int8)", NULL,
     NULL, describe_gemm, NULL, NULL, .axis = "shape", .axis_argv = shape_argv},
    {"train", "DistilBERT SQuAD training",
     SB_WL_PLAN | SB_WL_KERNEL | SB_WL_BATCH | SB_WL_THREADS | SB_WL_PROJECT, g_train_opts,
     g_model_series, 0, DAY, "tokens_per_s", "tokens/s", NULL, NULL, NULL, describe_train, NULL, NULL,
     .axis = "batch", .axis_argv = batch_argv, .check = sb_plan_check_train},
    {"infer", "SQuAD inference",
     SB_WL_PLAN | SB_WL_KERNEL | SB_WL_INT8 | SB_WL_BATCH | SB_WL_THREADS | SB_WL_LATENCY,
     g_infer_opts, g_model_series, 32, DAY, "sequences_per_s", "sequences/s", NULL, "quant", "row",
     describe_infer, "attention", "f32", .axis = "batch", .axis_argv = batch_argv,
     .check = sb_plan_check_model},
    /* no headline: its metrics are per message size (busbw_gbs_<bytes>) */
    {"allreduce", "MPI_Allreduce", SB_WL_PLAN, g_allreduce_opts, g_allreduce_series, 0, 1800.0,
     NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL},
    /* memory bandwidth (bench/stream): the roofline's other axis */
    {"stream", "STREAM memory bandwidth", SB_WL_PLAN | SB_WL_THREADS | SB_WL_ONE_RANK,
     g_stream_opts, g_stream_series, 0, 1800.0, "triad_gbps", "GB/s", NULL, NULL, NULL, NULL, NULL, NULL,
     NULL, NULL, NULL, NULL},
    /* the trainer's LayerNorm per token (bench/layernorm): the worked
     * example of a list axis and metrics of its own (ns a row, lower) */
    {"layernorm", "LayerNorm per token", SB_WL_PLAN | SB_WL_BATCH | SB_WL_THREADS | SB_WL_ONE_RANK,
     g_layernorm_opts, g_layernorm_series, SB_LAYERNORM_DEFAULT_BATCH, 1800.0, "ns_per_row",
     "ns/row", NULL, NULL, NULL, NULL, NULL, NULL, .axis = "batch", .axis_argv = batch_argv,
     .metrics = sb_metric_own_layernorm, .check = sb_layernorm_plan_check},
    /* the machine's peak FLOP/s, a probe the sweep puts ahead of GEMM points */
    {"peak", "Peak FLOP/s", SB_WL_PROBE, g_gemm_opts, g_gemm_opts, 0, 1800.0, NULL, NULL, NULL,
     NULL, NULL, describe_peak, NULL, NULL, NULL, NULL, NULL, NULL},
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

int sb_wl_is(const sb_workload *w, unsigned flags) { return w && (w->flags & flags) == flags; }

/* the first row: a plan without `workload` is a GEMM sweep */
const sb_workload *sb_workload_default(void) { return &g_workloads[0]; }

const sb_workload *sb_workload_flagged(unsigned flags)
{
    for (int i = 0; i < NWORKLOADS; i++)
        if (sb_wl_is(&g_workloads[i], flags)) return &g_workloads[i];
    return NULL;
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

/* the values only a workload's own parser knows (bench/<workload>) */
static int check_model_spec(const char *value, sb_err *e)
{
    sb_model_config mc;
    return sb_model_config_parse(value, &mc, e);
}

static int check_quant(const char *value, sb_err *e)
{
    if (sb_quant_mode_parse(value, &(sb_quant_mode){0}))
        return sb_errf(e, SB_EUSAGE, "quant '%.40s' is not row, tensor, row7 or tensor7", value);
    return SB_OK;
}

static int check_attention(const char *value, sb_err *e)
{
    if (strcmp(value, "f32") && strcmp(value, "int8"))
        return sb_errf(e, SB_EUSAGE, "attention '%.40s' is not f32 or int8", value);
    return SB_OK;
}

static int check_sizes(const char *value, sb_err *e)
{
    size_t *sizes = NULL;
    int n = 0;
    /* the worker merges overlapping ranges itself; a size written twice is a typo */
    int rc = sb_check_list(value, "sizes", e);
    if (!rc) rc = sb_allreduce_parse_sizes(value, &sizes, &n, e);
    free(sizes);
    return rc;
}

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
    {"model", SB_WOPT_MODEL, 0, 0, check_model_spec},
    {"iters", SB_WOPT_LONG, 1, 1000000, NULL},
    {"warmup", SB_WOPT_LONG, 0, 1000000, NULL},
    {"sizes", SB_WOPT_SIZES, 0, 0, check_sizes},
    {"requests", SB_WOPT_LONG, 1, 100000000, NULL},
    {"data", SB_WOPT_PATH, 0, 0, NULL},
    {"full-attention", SB_WOPT_BOOL, 0, 0, NULL},
    {"no-latency", SB_WOPT_BOOL, 0, 0, NULL},
    {"profile", SB_WOPT_BOOL, 0, 0, NULL},
    {"compare-f32", SB_WOPT_BOOL, 0, 0, NULL},
    {"quant", SB_WOPT_QUANT, 0, 0, check_quant},
    {"attention", SB_WOPT_ATTENTION, 0, 0, check_attention},
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
