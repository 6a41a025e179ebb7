/* sb_distilbert_rows: DistilBERT's two rows of the workload table
 * (bench/sb_workloads.def): SQuAD fine-tuning, the workload the scaling
 * model projects onto epochs, and SQuAD inference with its latency at
 * batch 1. Both take a point per batch and the plan's checks of
 * sb_plan_opts. */
#include <stdio.h>
#include <string.h>
#include "sb_model.h"
#include "sb_plan_opts.h"
#include "sb_quant.h"
#include "sb_workload.h"

/* the option values only DistilBERT's parsers know (sb_workload.h) */
int sb_wl_check_model(const char *value, sb_err *e)
{
    sb_model_config mc;
    return sb_model_config_parse(value, &mc, e);
}

int sb_wl_check_quant(const char *value, sb_err *e)
{
    if (sb_quant_mode_parse(value, &(sb_quant_mode){0}))
        return sb_errf(e, SB_EUSAGE, "quant '%.40s' is not row, tensor, row7 or tensor7", value);
    return SB_OK;
}

int sb_wl_check_attention(const char *value, sb_err *e)
{
    if (strcmp(value, "f32") && strcmp(value, "int8"))
        return sb_errf(e, SB_EUSAGE, "attention '%.40s' is not f32 or int8", value);
    return SB_OK;
}

static void describe_train(const json_t *doc, char *buf, size_t cap)
{
    if (sb_wl_doc_has(doc, "tokens_per_s"))
        snprintf(buf, cap, "%.0f tokens/s", sb_wl_doc_num(doc, "tokens_per_s"));
    else
        buf[0] = '\0';
}

static void describe_infer(const json_t *doc, char *buf, size_t cap)
{
    if (!sb_wl_doc_has(doc, "sequences_per_s"))
        buf[0] = '\0';
    else if (sb_wl_doc_has(doc, "latency_p50_ms"))
        snprintf(buf, cap, "%.2f sequences/s, p50 %.1f ms", sb_wl_doc_num(doc, "sequences_per_s"),
                 sb_wl_doc_num(doc, "latency_p50_ms"));
    else
        snprintf(buf, cap, "%.2f sequences/s", sb_wl_doc_num(doc, "sequences_per_s"));
}

static const char *const g_train_opts[] = {
    "model",        "batch",      "seq",     "stride",       "max-steps",   "time-budget",
    "epochs",       "vocab",      "train",   "dev",          "lr",          "seed",
    "dropout",      "eval",       "init",    "comm-threads", "synth-train", "synth-dev",
    "warmup-steps", "no-overlap", "no-tune", "profile",      NULL};
static const char *const g_infer_opts[] = {
    "model",       "batch",     "seq",       "stride",  "requests", "vocab",          "data",
    "init",        "seed",      "synth-dev", "warmup",  "quant",    "full-attention", "no-latency",
    "compare-f32", "attention", "no-tune",   "profile", NULL};
/* A point's series key: the options that change the work, in this order. */
static const char *const g_model_series[] = {"model", "batch", "seq", NULL};

#define DAY (24 * 3600.0)

const sb_workload sb_wl_train = {
    .name = "train",
    .title = "DistilBERT SQuAD training",
    .flags = SB_WL_PLAN | SB_WL_KERNEL | SB_WL_BATCH | SB_WL_THREADS | SB_WL_PROJECT,
    .opts = g_train_opts,
    .series = g_model_series,
    .timeout_s = DAY,
    .metric = "tokens_per_s",
    .unit = "tokens/s",
    .describe = describe_train,
    .axis = "batch",
    .axis_argv = sb_wl_batch_argv,
    .check = sb_plan_check_train,
    .profile_metric = "step_seconds",
    .profile_per = "step",
    .env = "SB_ATTN_ROWS SB_TRAIN_TEST_NAN_STEP",
};

const sb_workload sb_wl_infer = {
    .name = "infer",
    .title = "SQuAD inference",
    .flags = SB_WL_PLAN | SB_WL_KERNEL | SB_WL_INT8 | SB_WL_BATCH | SB_WL_THREADS | SB_WL_LATENCY,
    .opts = g_infer_opts,
    .series = g_model_series,
    .default_batch = 32,
    .timeout_s = DAY,
    .metric = "sequences_per_s",
    .unit = "sequences/s",
    .int8_opt = "quant",
    .int8_default = "row",
    .describe = describe_infer,
    .int8_extra = "attention",
    .int8_extra_default = "f32",
    .axis = "batch",
    .axis_argv = sb_wl_batch_argv,
    .check = sb_plan_check_model,
    .profile_metric = "batch_seconds",
    .profile_per = "batch",
    .env = "SB_ATTN_ROWS",
};
