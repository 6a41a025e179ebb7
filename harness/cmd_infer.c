/* sprbench infer: SQuAD question answering with a model on the chosen
 * kernel, timed: latency at batch 1 and throughput at --batch. The work is
 * bench/distilbert/sb_infer_job's; this parses, calls and prints. */
#include <omp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "sb_cli.h"
#include "sb_cmds.h"
#include "sb_infer_job.h"
#include "sb_opts.h"
#include "sb_workload.h"
#include "sb_result.h"
#include "sb_sysinfo.h"
#include "sb_tune_use.h"

static void infer_help(void)
{
    printf("usage: sprbench infer [--init DIR [--vocab F] | --model M] [--data dev.json]\n"
           "                      [--kernel K] [--threads T] [--batch 32] [--seq 384]\n"
           "                      [--stride 128] [--requests N] [--quant row|tensor]\n"
           "                      [--attention f32|int8]\n"
           "                      [--compare-f32] [--full-attention] [--no-latency]\n"
           "                      [--warmup 1] [--out preds.json] [--result-file F] [--profile]\n\n"
           "Forward-only DistilBERT question answering over a SQuAD v1.1 file, on any kernel:\n"
           "f32 and bf16 kernels as in training; int8 kernels through dynamic quantisation of\n"
           "every linear layer (weights s8 per output channel, quantised once; activations u8\n"
           "with a scale and zero point per row, or per tensor, computed at run time; s32\n"
           "accumulation; dequantisation, zero-point correction and bias where the kernel\n"
           "writes C). Attention products and softmax stay f32 (bf16 on bf16 kernels) unless\n"
           "--attention int8.\n"
           "`sprbench predict` runs the same forward path and post-processing.\n\n"
           "  --init DIR       Hugging Face model directory (config.json + model.safetensors)\n"
           "  --vocab F        the checkpoint's vocab.txt (default: the built-in synthetic\n"
           "                   vocab, which fits checkpoints trained on squad-synth)\n"
           "  --model M        without --init: a randomly initialised model of this shape\n"
           "                   (distilbert-base, tiny, L,D,H,F), for speed runs\n"
           "  --data F         SQuAD v1.1 JSON (default: squad-synth dev questions)\n"
           "  --kernel K       %s\n"
           "                   (default: the fastest f32 kernel this machine runs)\n"
           "  --threads T      OpenMP threads (default: the machine's cores)\n"
           "  --batch B        sequences per forward for throughput (default 32)\n"
           "  --seq S          max sequence length (default 384; tiny: 32)\n"
           "  --stride N       document stride (default 128; tiny: 8)\n"
           "  --requests N     take only the first N questions (bounds a timing run)\n"
           "  --quant MODE     int8 activations: row (a scale and zero point per token,\n"
           "                   default) or tensor (one per layer call, as PyTorch); row7,\n"
           "                   tensor7: the same onto 0..127 (PyTorch's reduce_range), which\n"
           "                   lets avx2-int8 multiply with vpmaddubsw (exact on 7 bits) where\n"
           "                   the CPU has no AVX-VNNI\n"
           "  --attention A    int8 kernels: f32 (default) or int8, both attention products\n"
           "                   on the int8 kernel too, as IPEX's int8 recipe: q u8 per row,\n"
           "                   k s8 per key, the softmax's exponentials u8, v s8 per channel\n"
           "                   (at --quant's bit width; softmax itself in f32)\n"
           "  --compare-f32    also run the f32 path on the same checkpoint and report the\n"
           "                   share of identical answers (and f32's EM/F1)\n"
           "  --full-attention attend over padding too, as PyTorch does\n"
           "  --no-latency     skip the batch-1 latency pass\n"
           "  --warmup N       untimed forward passes before each timed pass (default 1)\n"
           "  --out F          write the predictions (id -> answer text)\n"
           "  --result-file F  write the result as one JSON object\n",
           sb_kernel_names());
    sb_cli_help_tuning(19);
    printf("  --synth-dev N    synthetic questions without --data (default %d)\n"
           "  --profile        print where the throughput pass's time goes, per layer kind,\n"
           "                   and store it in the result (metrics prof_KIND_s, seconds per\n"
           "                   batch; the report sets two machines' side by side)\n\n"
           "Metrics: latency_p50_ms/p90/p99 (per question at batch 1: the forward passes\n"
           "over its windows), sequences_per_s and tokens_per_s at --batch (tokens counted\n"
           "as sequence positions, padding included), em, f1 (when the data has answers),\n"
           "f32_agreement_pct, f32_em, f32_f1 (--compare-f32), peak_rss_mb.\n"
           "Exit status: 0 ok, 1 failed, 2 bad usage or input (nothing written),\n"
           "3 the kernel cannot run on this machine (result file written as 'skipped').\n",
           SB_INFER_SYNTH_DEV);
}

/* the ranges a sweep plan checks the numbers with (sb_workload) */
static const sb_opt_ranges g_ranges = {sb_worker_opt_long, sb_worker_opt_double, NULL, NULL};
#define O(f) offsetof(sb_infer_opts, f)
static const sb_opt g_infer_opts[] = {
    {"init", SB_OPT_STR, O(init), SB_OPT_NOSET, NULL},
    {"vocab", SB_OPT_STR, O(vocab), SB_OPT_NOSET, NULL},
    {"data", SB_OPT_STR, O(data), SB_OPT_NOSET, NULL},
    {"model", SB_OPT_STR, O(model), SB_OPT_NOSET, NULL},
    {"kernel", SB_OPT_STR, O(kernel), SB_OPT_NOSET, NULL},
    {"threads", SB_OPT_LONG, O(threads), SB_OPT_NOSET, "threads"},
    {"batch", SB_OPT_LONG, O(batch), SB_OPT_NOSET, "batch"},
    {"seq", SB_OPT_LONG, O(seq), O(set_seq), "seq"},
    {"stride", SB_OPT_LONG, O(stride), O(set_stride), "stride"},
    {"requests", SB_OPT_LONG, O(requests), SB_OPT_NOSET, "requests"},
    {"quant", SB_OPT_STR, O(quant), SB_OPT_NOSET, NULL},
    {"attention", SB_OPT_STR, O(attention), SB_OPT_NOSET, NULL},
    {"compare-f32", SB_OPT_FLAG, O(compare_f32), SB_OPT_NOSET, NULL},
    {"full-attention", SB_OPT_FLAG, O(full_attention), SB_OPT_NOSET, NULL},
    {"no-latency", SB_OPT_FLAG, O(no_latency), SB_OPT_NOSET, NULL},
    {"warmup", SB_OPT_LONG, O(warmup), SB_OPT_NOSET, "warmup"},
    {"out", SB_OPT_STR, O(out), SB_OPT_NOSET, NULL},
    {"result-file", SB_OPT_STR, O(result_file), SB_OPT_NOSET, NULL},
    {"synth-dev", SB_OPT_LONG, O(synth_dev), SB_OPT_NOSET, "synth-dev"},
    {"seed", SB_OPT_LONG, O(seed), SB_OPT_NOSET, "seed"},
    {"profile", SB_OPT_FLAG, O(profile), SB_OPT_NOSET, NULL},
    SB_CLI_OPTS_TUNING(sb_infer_opts),
    {NULL, 0, 0, 0, NULL}};
#undef O

static int parse_opts(int argc, char **argv, sb_infer_opts *o, int *help, sb_err *e)
{
    int rc = sb_opts_parse(argc, argv, g_infer_opts, o, &g_ranges, help, e);
    if (rc || *help) return rc;
    if (o->init && o->model)
        return sb_errf(e, SB_EUSAGE,
                       "--init and --model exclude each other (the checkpoint "
                       "gives the shape)");
    sb_quant_mode qm;
    if (o->quant && sb_quant_mode_parse(o->quant, &qm))
        return sb_errf(e, SB_EUSAGE, "--quant '%s': expected row, tensor, row7 or tensor7",
                       o->quant);
    if (o->attention && strcmp(o->attention, "f32") && strcmp(o->attention, "int8"))
        return sb_errf(e, SB_EUSAGE, "--attention '%s': expected f32 or int8", o->attention);
    if ((o->init && sb_cli_check_path("--init", o->init, e)) ||
        (o->vocab && sb_cli_check_path("--vocab", o->vocab, e)) ||
        (o->data && sb_cli_check_path("--data", o->data, e)) ||
        (o->kernel && sb_cli_check_path("--kernel", o->kernel, e)) ||
        (o->out && sb_cli_check_out_file("--out", o->out, e)) ||
        (o->result_file && sb_cli_check_out_file("--result-file", o->result_file, e)))
        return e->code;
    return SB_OK;
}

static void infer_note(const char *line) { fprintf(stderr, "sprbench infer: %s\n", line); }

static void print_summary(const sb_infer_job *j, const sb_infer_opts *o)
{
    const sb_kernel *k = j->k;
    sb_quant_mode qmode = j->qmode;
    int nq = j->nq, batch = j->batch, nbatches = j->nbatches, answers = j->answers;
    const sb_model *m = &j->m;
    int q8 = k->dtype == SB_DT_INT8;
    int a8 = j->attn8;
    printf("inferred %d questions (%d features, seq %ld) with %s (%s%s%s%s%s), %ld threads\n", nq,
           j->f.n, o->seq, k->name, sb_dtype_name(k->dtype), q8 ? ", activations per " : "",
           !q8                               ? ""
               : qmode & SB_QUANT_PER_TENSOR ? "tensor"
                                             : "row",
           q8 && (qmode & SB_QUANT_7BIT) ? ", 7 bits" : "", a8 ? ", int8 attention" : "",
           o->threads);
    if (!o->no_latency)
        printf("latency at batch 1: p50 %.1f ms, p90 %.1f ms, p99 %.1f ms per question\n", j->p50,
               j->p90, j->p99);
    printf("throughput at batch %d: %.2f sequences/s, %.0f tokens/s (%.1f s, %d batches)\n", batch,
           j->sps, j->tps, j->thr_s, nbatches);
    if (answers) printf("exact match %.2f, F1 %.2f\n", j->em, j->f1);
    if (o->compare_f32)
        printf("f32 (%s): %.2f %% identical answers%s", j->k32->name, j->agree,
               answers ? "" : "\n");
    if (o->compare_f32 && answers) printf("; f32 exact match %.2f, F1 %.2f\n", j->em32, j->f132);
    printf("peak RSS %.0f MiB\n", sb_result_peak_rss_mb());
    if (o->profile) {
        /* the forward's own kinds; the int8 activations' quantisation is in its linear's */
        double sum = 0;
        for (int i = 0; i < SB_PROF_N; i++) sum += m->prof[i];
        printf("profile (throughput pass, %.2f s; quantisation counted in each linear, GELU in "
               "ffn lin2):\n",
               sum);
        for (int i = 0; i < SB_PROF_N; i++)
            if (m->prof[i] > 0)
                printf("  %-18s %9.3f s  %5.1f %%\n", sb_prof_names[i], m->prof[i],
                       sum > 0 ? 100 * m->prof[i] / sum : 0);
    }
}

int sb_cmd_infer(int argc, char **argv)
{
    sb_infer_opts o = {
        .batch = 32, .seq = 384, .stride = 128, .warmup = 1, .seed = 42, .note = infer_note};
    sb_err e = {0};
    int help = 0;
    if (parse_opts(argc, argv, &o, &help, &e)) return sb_cli_report("infer", &e);
    if (help) {
        infer_help();
        return 0;
    }
    int is_tiny = !o.init && o.model && !strcmp(o.model, "tiny");
    if (!o.set_seq && is_tiny) o.seq = 32;
    if (!o.set_stride) o.stride = is_tiny ? 8 : (o.seq > 256 ? 128 : o.seq / 4);
    if (o.stride >= o.seq / 2)
        return sb_cli_usage_error("infer", "--stride %ld must be below half of --seq %ld", o.stride,
                                  o.seq);
    const sb_sysinfo *si = sb_sysinfo_cached();
    const char *fp = si ? si->fingerprint : NULL;
    if (o.threads <= 0) o.threads = si && si->cores > 0 ? si->cores : omp_get_max_threads();
    omp_set_num_threads((int)o.threads);

    /* this machine's tuned blocking, before any GEMM runs */
    sb_tune_use tun;
    if (sb_tune_use_load("infer", o.tune_file, o.no_tune, &tun, &e))
        return sb_cli_report("infer", &e);
    o.tuning = tun.tuning;
    o.tune = tun.tuned ? &tun.table : NULL;
    sb_infer_job j = {0};
    int rc = sb_infer_job_run(&j, &o, &e);
    if (rc == SB_ESKIP && j.kernel_skipped) {
        sb_result_head h = {
            "infer",   j.k->name, sb_dtype_name(j.k->dtype), (int)o.threads, 1, 1, 1,
            "skipped", e.msg};
        sb_err e2;
        if (sb_result_worker_status(o.result_file, &h, NULL, argc, argv, fp, &e2))
            sb_cli_report("infer", &e2);
    }
    json_t *doc = rc ? NULL : sb_infer_result_json(&j, &o, argc, argv, fp);
    if (!rc && !doc) rc = sb_errf(&e, SB_EFAIL, "out of memory for the result document");
    if (!rc && o.out) rc = sb_squad_predictions_write(o.out, &j.preds, &e);
    if (!rc && o.result_file) rc = sb_result_write(o.result_file, doc, &e);
    json_decref(doc);
    int code = 0;
    if (rc) {
        code = sb_cli_report("infer", &e);
        if (code != SB_EUSAGE && code != SB_ESKIP) code = 1;
    } else {
        print_summary(&j, &o);
    }
    sb_infer_job_free(&j);
    sb_tune_use_free(&tun);
    return code;
}
