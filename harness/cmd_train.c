/* sprbench train: DistilBERT SQuAD fine-tuning on the chosen kernel (its
 * checkpoint's predictions: cmd_predict). The work is
 * bench/distilbert/sb_train_job's; this parses, calls and prints. */
#include <omp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "sb_cli.h"
#include "sb_cmds.h"
#include "sb_opts.h"
#include "sb_parse.h"
#include "sb_workload.h"
#include "sb_progress.h"
#include "sb_result.h"
#include "sb_squad_eval.h"
#include "sb_sysinfo.h"
#include "sb_tune_use.h"
#include "sb_train_job.h"

static void train_help(void)
{
    printf(
        "usage: sprbench train [--vocab F --train F --dev F] [--init DIR]\n"
        "                      [--model distilbert-base|tiny|L,D,H,F] [--kernel K] [--threads T]\n"
        "                      [--batch 32] [--seq 384] [--stride 128] [--epochs 1]\n"
        "                      [--max-steps N | --time-budget S] [--eval] [--save DIR]\n"
        "                      [--seed S] [--dropout P] [--lr X] [--profile] [--result-file F]\n\n"
        "Fine-tunes DistilBertForQuestionAnswering on SQuAD (Hugging Face Trainer's recipe:\n"
        "AdamW, linear decay to 0, gradient clipping at 1.0) with every matrix product on\n"
        "the chosen kernel. A bf16 kernel gives mixed precision (f32 master weights).\n"
        "Without --train it trains on synthetic SQuAD-format data (squad-synth) and says so:\n"
        "at SQuAD v1.1's paragraph and question lengths (about half padding at seq 384,\n"
        "as real SQuAD), tiny on its short set. The result records padding_pct.\n\n"
        "  --vocab F         vocab.txt (bert-base-uncased's); needed with --train/--dev\n"
        "  --train F         SQuAD v1.1 training JSON\n"
        "  --dev F           SQuAD v1.1 dev JSON for --eval (implies --eval)\n"
        "  --init DIR        start from a Hugging Face model directory (config.json +\n"
        "                    model.safetensors); random init (std 0.02) otherwise\n"
        "  --model M         distilbert-base (default), tiny (2 layers, dim 64, 4 heads,\n"
        "                    FFN 256), or L,D,H,F; ignored with --init\n"
        "  --kernel K        GEMM kernel (%s); default the\n"
        "                    fastest f32 kernel this machine runs\n"
        "  --threads T       OpenMP threads (default: the machine's cores)\n"
        "  --batch B         sequences per step (default 32)\n"
        "  --seq S           max sequence length (default 384; tiny: %d)\n"
        "  --stride N        document stride (default 128; tiny: %d)\n"
        "  --epochs N        epochs (default 1; tiny: %d)\n"
        "  --max-steps N     stop after N steps (the schedule decays over N)\n"
        "  --time-budget S   stop after S seconds; the epoch time is then projected\n"
        "  --eval            score EM/F1 on the dev set (synthetic dev without --dev)\n"
        "  --save DIR        write the trained model as a Hugging Face directory\n"
        "  --seed S          shuffling, initialisation and dropout seed (default 42)\n"
        "  --dropout P       every dropout probability (0 turns dropout off)\n"
        "  --lr X            peak learning rate (default 5e-5; tiny: %g)\n"
        "  --warmup-steps N  linear warm-up before the decay (default 0, as Trainer;\n"
        "                    tiny: %d %% of the steps)\n"
        "  --synth-train N   synthetic training questions (default %d; tiny: %d)\n"
        "  --synth-dev N     synthetic dev questions (default %d)\n"
        "  --profile         print where the time goes, per layer kind, and store it in\n"
        "                    the result (metrics prof_KIND_s, seconds per step; `sweep\n"
        "                    --profile` passes it on; the report sets two machines' side by side),\n"
        "                    then each matrix product of the step (the linears' forward, dx\n"
        "                    and dW, attention's six) with its shape and GFLOP/s a core\n"
        "  --full-attention  attend over padding too, as PyTorch does (default: stop at\n"
        "                    each sequence's last real token, whose followers weigh\n"
        "                    exactly 0; same result, less work on padded features)\n"
        "Under mpirun (data parallel: each rank its shard, gradients averaged):\n"
        "  --comm-threads N  threads progressing gradient all-reduces (default 1)\n"
        "  --no-overlap      all-reduce after backward instead of during it\n"
        "  --bucket-mb X     gradient all-reduce bucket size in MiB (default 25, as DDP)\n"
        "  --dense-allreduce all-reduce every row of the word-embedding gradient (default:\n"
        "                    only the rows of tokens some rank's batch holds; same result)\n"
        "  --bind MODE       core, socket or none: each rank its own cores (default core\n"
        "                    under mpirun; one process started alone: none unless given)\n"
        "  --result-file F   write the result as one JSON object (sprbench sweep reads it)\n",
        sb_kernel_names(), SB_TINY_SEQ, SB_TINY_STRIDE, SB_TINY_EPOCHS, SB_TINY_LR,
        SB_TINY_WARMUP_PCT, SB_SYNTH_TRAIN, SB_TINY_SYNTH_TRAIN, SB_SYNTH_DEV);
    sb_cli_help_tuning(20);
    printf("\n"
        "Metrics: tokens_per_s, sequences_per_s, step_seconds (median of steady-state steps),\n"
        "achieved_gflops (training FLOPs per token x tokens/s; FLOPs per token =\n"
        "6 (L (4 D^2 + 2 D F) + 2 D) + 12 L S D), epoch_seconds (projected from the median\n"
        "step when the epoch was cut short), loss_first, loss_final, em, f1, peak_rss_mb.\n"
        "Exit status: 0 ok, 1 training failed (e.g. NaN loss), 2 bad usage or input,\n"
        "3 the kernel cannot run on this machine (result file written as 'skipped').\n");
}

/* A worker's numbers have its workload's ranges (sb_workload); --bucket-mb its own. */
static int to_double(const char *key, const char *v, const char *what, double *out, sb_err *e)
{
    if (!strcmp(key, "bucket-mb")) return sb_parse_double(v, 0.001, 4096, what, out, e);
    return sb_worker_opt_double(key, v, what, out, e);
}
static const sb_opt_ranges g_ranges = {sb_worker_opt_long, to_double, NULL, NULL};

#define O(f) offsetof(sb_train_opts, f)
static const sb_opt g_train_opts[] = {
    {"vocab", SB_OPT_STR, O(vocab), SB_OPT_NOSET, NULL},
    {"train", SB_OPT_STR, O(train), SB_OPT_NOSET, NULL},
    {"dev", SB_OPT_STR, O(dev), O(eval), NULL}, /* --dev implies --eval */
    {"init", SB_OPT_STR, O(init), SB_OPT_NOSET, NULL},
    {"model", SB_OPT_STR, O(model), SB_OPT_NOSET, NULL},
    {"kernel", SB_OPT_STR, O(kernel), SB_OPT_NOSET, NULL},
    {"threads", SB_OPT_INT, O(threads), SB_OPT_NOSET, "threads"},
    {"batch", SB_OPT_INT, O(batch), O(set_batch), "batch"},
    {"seq", SB_OPT_INT, O(seq), O(set_seq), "seq"},
    {"stride", SB_OPT_INT, O(stride), O(set_stride), "stride"},
    {"epochs", SB_OPT_INT, O(epochs), O(set_epochs), "epochs"},
    {"max-steps", SB_OPT_LONG, O(max_steps), SB_OPT_NOSET, "max-steps"},
    {"time-budget", SB_OPT_DOUBLE, O(time_budget), SB_OPT_NOSET, "time-budget"},
    {"eval", SB_OPT_FLAG, O(eval), SB_OPT_NOSET, NULL},
    {"save", SB_OPT_STR, O(save), SB_OPT_NOSET, NULL},
    {"seed", SB_OPT_LONG, O(seed), SB_OPT_NOSET, "seed"},
    {"dropout", SB_OPT_DOUBLE, O(dropout), O(set_dropout), "dropout"},
    {"lr", SB_OPT_DOUBLE, O(lr), O(set_lr), "lr"},
    {"result-file", SB_OPT_STR, O(result_file), SB_OPT_NOSET, NULL},
    {"profile", SB_OPT_FLAG, O(profile), SB_OPT_NOSET, NULL},
    {"synth-train", SB_OPT_INT, O(synth_train), SB_OPT_NOSET, "synth-train"},
    {"synth-dev", SB_OPT_INT, O(synth_dev), SB_OPT_NOSET, "synth-dev"},
    {"warmup-steps", SB_OPT_LONG, O(warmup), O(set_warmup), "warmup-steps"},
    {"comm-threads", SB_OPT_INT, O(comm_threads), O(set_comm), "comm-threads"},
    {"no-overlap", SB_OPT_FLAG, O(no_overlap), SB_OPT_NOSET, NULL},
    {"bind", SB_OPT_STR, O(bind), SB_OPT_NOSET, NULL},
    {"dense-allreduce", SB_OPT_FLAG, O(dense_allreduce), SB_OPT_NOSET, NULL},
    {"bucket-mb", SB_OPT_DOUBLE, O(bucket_mb), SB_OPT_NOSET, "bucket-mb"},
    {"full-attention", SB_OPT_FLAG, O(full_attention), SB_OPT_NOSET, NULL},
    SB_CLI_OPTS_TUNING(sb_train_opts),
    {NULL, 0, 0, 0, NULL}};
#undef O

static int parse_train_opts(int argc, char **argv, sb_train_opts *o, sb_err *e, int *help)
{
    int rc = sb_opts_parse(argc, argv, g_train_opts, o, &g_ranges, help, e);
    if (rc || *help || (rc = sb_train_opts_check(o, e))) return rc;
    /* Outputs before the work (training may take hours; its outputs come
     * last). Rank 0 writes them, so only rank 0 can judge their paths: under
     * mpirun the other ranks may run where those directories do not exist. */
    if (sb_train_ranks_first()) {
        if (o->save && (rc = sb_cli_check_out_dir("--save", o->save, 1, e))) return rc;
        if (o->result_file && (rc = sb_cli_check_out_file("--result-file", o->result_file, e)))
            return rc;
    }
    return SB_OK;
}

static void train_note(const char *line) { fprintf(stderr, "sprbench train: %s\n", line); }

/* --profile, after the kinds: each matrix product of the step on its own
 * line (sb_mm_prof), so that a product can be set beside `sprbench gemm` on
 * its shape: calls, mean shape, FLOPs and core-seconds per step, GFLOP/s a
 * core. The lines are indented four spaces, the kinds' two. */
static void print_products(const sb_model *m, int threads)
{
    const sb_mm_prof *p = &m->mm;
    double steps = m->prof_steps > 0 ? (double)m->prof_steps : 1;
    printf("products (per step, %d threads; a linear's on all of them, attention's one head "
           "per thread; GFLOP/s a core = FLOPs / (seconds x threads)):\n",
           threads);
    printf("    %-10s %-3s %-20s %7s %11s %13s %9s\n", "product", "op", "m x n x k (mean)", "calls",
           "GFLOP/step", "core-ms/step", "GFLOP/s/c");
    for (int i = 0; i < SB_MM_N; i++) {
        long n = p->calls[i];
        if (!n) continue;
        char shape[48];
        snprintf(shape, sizeof shape, "%.0f x %.0f x %.0f", p->m[i] / n, p->n[i] / n, p->k[i] / n);
        printf("    %-10s %-3s %-20s %7.0f %11.4f %13.3f %13.1f\n", sb_mm_names[i], sb_mm_ops[i],
               shape, n / steps, p->flop[i] / steps / 1e9, 1e3 * p->core_s[i] / steps,
               p->core_s[i] > 0 ? p->flop[i] / p->core_s[i] / 1e9 : 0.0);
    }
}

static void print_summary(const sb_train_job *j, const sb_train_opts *o)
{
    const sb_train_result *res = &j->res;
    const sb_kernel *k = j->k;
    printf("trained %ld steps (%ld per epoch) on %s in %.1f s: loss %.4f -> %.4f\n", res->steps,
           res->steps_per_epoch, o->train ? o->train : "squad-synth", res->train_seconds,
           res->loss_first, res->loss_final);
    printf("kernel %s (%s), %d threads: %.3f s/step (median), %.0f tokens/s, %.1f sequences/s, "
           "%.1f GFLOP/s\n",
           k->name, sb_dtype_name(k->dtype), o->threads, j->med, j->tps,
           j->med > 0 ? o->batch / j->med : 0, j->gflops);
    printf("epoch %.1f s%s, peak RSS %.0f MiB\n", j->epoch_s,
           j->projected ? " (projected from the median step)" : "", sb_result_peak_rss_mb());
    if (o->eval)
        printf("eval on %s (%d questions, %.1f s): exact match %.2f, F1 %.2f\n",
               o->dev ? o->dev : "squad-synth dev", j->d.dev.n_examples, j->eval_s, j->em, j->f1);
    if (o->save) printf("saved %s (config.json, model.safetensors)\n", o->save);
    if (!o->profile) return;
    const sb_model *m = &j->m;
    double sum = 0;
    for (int i = 0; i < SB_PROF_N; i++) sum += m->prof[i];
    /* FLOPs of each kind over the run (every rank's own batch) */
    double fl[SB_PROF_N];
    sb_model_prof_flops(&j->mc, o->seq, fl);
    double tok = (double)o->batch * o->seq * (double)m->prof_steps;
    printf("profile (forward+backward+optimizer over %ld step(s)%s, %.2f s; GFLOP/s of "
           "the matrix products in each kind):\n",
           m->prof_steps, m->prof_steps < res->steps ? " after the warm-up step" : "", sum);
    for (int i = 0; i < SB_PROF_N; i++) {
        printf("  %-18s %9.3f s  %5.1f %%", sb_prof_names[i], m->prof[i],
               sum > 0 ? 100 * m->prof[i] / sum : 0);
        if (fl[i] > 0 && m->prof[i] > 0) printf("  %8.1f GFLOP/s", fl[i] * tok / m->prof[i] / 1e9);
        printf("\n");
    }
    print_products(m, o->threads);
}

static int default_threads(void)
{
    const sb_sysinfo *si = sb_sysinfo_cached();
    return si && si->cores > 0 ? si->cores : omp_get_max_threads();
}

/* A skipped or failed run's result file; a file it cannot write is one more line. */
static void write_status(sb_train_job *j, const sb_train_opts *o, const char *status,
                         const sb_err *why, int argc, char **argv)
{
    const sb_sysinfo *si = sb_sysinfo_cached();
    sb_err e;
    if (sb_train_result_status(j, o, status, why, argc, argv, si ? si->fingerprint : NULL, &e))
        fprintf(stderr, "sprbench train: %s\n", e.msg);
}

int sb_cmd_train(int argc, char **argv)
{
    sb_train_opts o = {.seed = 42, .note = train_note};
    sb_err e = {0};
    int help = 0;
    if (parse_train_opts(argc, argv, &o, &e, &help)) return sb_cli_report("train", &e);
    if (help) {
        train_help();
        return 0;
    }
    sb_train_opts_defaults(&o);
    if (o.threads <= 0) o.threads = default_threads();
    omp_set_num_threads(o.threads);
    /* this machine's tuned blocking, before any GEMM runs */
    sb_tune_use tun;
    if (sb_tune_use_load("train", o.tune_file, o.no_tune, &tun, &e))
        return sb_cli_report("train", &e);
    o.tuning = tun.tuning;
    o.tune = tun.tuned ? &tun.table : NULL;
    sb_train_job j = {0};
    int rc = sb_train_job_run(&j, &o, &e);
    const sb_sysinfo *si = sb_sysinfo_cached();
    json_t *doc = rc ? NULL : sb_train_result_json(&j, &o, argc, argv, si ? si->fingerprint : NULL);
    if (!rc && !doc) rc = sb_errf(&e, SB_EFAIL, "out of memory for the result document");
    if (!rc && j.rank == 0 && o.result_file) rc = sb_result_write(o.result_file, doc, &e);
    json_decref(doc);
    int code = 0;
    if (rc == SB_ESKIP && !j.k) { /* recorded as skipped: a sweep keeps the point and why */
        write_status(&j, &o, "skipped", &e, argc, argv);
        code = sb_cli_report("train", &e);
    } else if (rc && j.failed) {
        if (e.code == 0) e.code = SB_EFAIL;
        code = sb_cli_report("train", &e);
        if (code != SB_EUSAGE) {
            if (j.rank == 0) write_status(&j, &o, "failed", &e, argc, argv);
            code = 1;
        }
    } else if (rc) {
        code = sb_cli_report("train", &e);
    } else if (j.rank == 0) {
        print_summary(&j, &o);
    }
    sb_train_job_free(&j);
    sb_tune_use_free(&tun);
    return code;
}
