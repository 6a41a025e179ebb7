/* sprbench train / predict: DistilBERT SQuAD fine-tuning on the chosen kernel,
 * and predictions from a checkpoint in the official format. */
#include <getopt.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include "sb_result.h"
#include "sb_cli.h"
#include "sb_cmds.h"
#include "sb_bind.h"
#include "sb_checkpoint.h"
#include "sb_dp.h"
#include "sb_features.h"
#include "sb_hf.h"
#include "sb_infer.h"
#include "sb_io.h"
#include "sb_kernel.h"
#include "sb_layers.h"
#include "sb_launch.h"
#include "sb_model.h"
#include "sb_plan.h"
#include "sb_squad.h"
#include "sb_squad_eval.h"
#include "sb_squad_synth.h"
#include "sb_sysinfo.h"
#include "sb_tokenizer.h"
#include "sb_train.h"
#include "sb_train_ranks.h"

/* What `--model tiny` takes unless told otherwise: the settings with which a
 * tiny model learns the synthetic set (EM >= 90 on its held-apart dev). */
#define TINY_SEQ 32
#define TINY_STRIDE 8
#define TINY_BATCH 32
#define TINY_LR 1e-3
#define TINY_WARMUP_PCT 10 /* % of the run's steps; 11 of 12 seeds reach EM >= 99 */
#define TINY_EPOCHS 3
#define TINY_SYNTH_TRAIN 40000
#define SYNTH_DEV 300
#define SYNTH_TRAIN 2000

typedef struct topts {
    const char *vocab, *train, *dev, *init, *model, *kernel, *save, *result_file, *data, *out;
    int threads, batch, seq, stride, epochs, eval, profile, synth_train, synth_dev;
    long max_steps, warmup;
    int set_warmup;
    double time_budget, dropout, lr;
    long seed;
    int set_batch, set_seq, set_stride, set_epochs, set_lr, set_dropout;
    int comm_threads, set_comm, no_overlap; /* data parallel (under mpirun) */
    int dense_allreduce;
    int full_attention;
    double bucket_mb;
    const char *bind;
} topts;

/* ---- shared pieces */

static const sb_kernel *default_kernel(void)
{
    /* Fastest first: our AVX-512 kernel, then our AVX2 one (at or above oneDNN
     * held to AVX2), oneDNN, and the scalar reference, which runs anywhere. */
    static const char *const prefs[] = {"avx512-f32", "avx2-f32", "onednn-f32", "scalar-f32"};
    for (size_t i = 0; i < sizeof prefs / sizeof *prefs; i++) {
        const sb_kernel *k = sb_kernel_find(prefs[i]);
        char why[256];
        if (k && k->probe(why, sizeof why)) return k;
    }
    return sb_kernel_find("scalar-f32");
}

/* SB_EUSAGE for an unknown or int8 kernel; SB_ESKIP when the machine cannot
 * run it, with the reason in e. */
static int pick_kernel(const char *name, const sb_kernel **out, sb_err *e)
{
    const sb_kernel *k = name ? sb_kernel_find(name) : default_kernel();
    if (!k)
        return sb_errf(e, SB_EUSAGE, "unknown kernel '%s' (known: %s)", name, sb_kernel_names());
    if (k->dtype == SB_DT_INT8 || !k->gemm_f32)
        return sb_errf(e, SB_EUSAGE,
                       "kernel %s computes in %s; training needs an f32 or bf16 kernel", k->name,
                       sb_dtype_name(k->dtype));
    char why[256] = "";
    if (!k->probe(why, sizeof why)) {
        return sb_errf(e, SB_ESKIP, "kernel %s cannot run on this machine: %s", k->name, why);
    }
    *out = k;
    return SB_OK;
}

/* ---- sprbench train */

/* The share of the features' positions that are padding. */
static double padding_share(const sb_features *f)
{
    size_t all = (size_t)f->n * f->max_seq, real = 0;
    for (size_t i = 0; i < all; i++) real += f->attention_mask[i];
    return all ? 1.0 - (double)real / all : 0.0;
}

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
        "Without --train it trains on synthetic SQuAD-format data (squad-synth) and says so.\n\n"
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
        "  --profile         print where the time goes, per layer kind\n"
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
        "  --result-file F   write the result as one JSON object (sprbench sweep reads it)\n\n"
        "Metrics: tokens_per_s, sequences_per_s, step_seconds (median of steady-state steps),\n"
        "achieved_gflops (training FLOPs per token x tokens/s; FLOPs per token =\n"
        "6 (L (4 D^2 + 2 D F) + 2 D) + 12 L S D), epoch_seconds (projected from the median\n"
        "step when the epoch was cut short), loss_first, loss_final, em, f1, peak_rss_mb.\n"
        "Exit status: 0 ok, 1 training failed (e.g. NaN loss), 2 bad usage or input,\n"
        "3 the kernel cannot run on this machine (result file written as 'skipped').\n",
        sb_kernel_names(), TINY_SEQ, TINY_STRIDE, TINY_EPOCHS, TINY_LR, TINY_WARMUP_PCT,
        SYNTH_TRAIN, TINY_SYNTH_TRAIN, SYNTH_DEV);
}

typedef struct progress_state {
    sb_progress bar;
    int tty;
    long every;
    double tokens_per_step;
    double t0;
} progress_state;

static void on_progress(void *user, long step, long total, double loss, double dt)
{
    progress_state *p = user;
    double el = sb_now() - p->t0;
    if (p->tty) {
        char extra[128];
        snprintf(extra, sizeof extra, "loss %.4f  %.0f tok/s", loss,
                 dt > 0 ? p->tokens_per_step / dt : 0);
        sb_progress_update(&p->bar, step, extra);
    } else if (step == 1 || step % p->every == 0 || step == total) {
        fprintf(stderr, "step %ld/%ld loss %.4f %.0f tok/s elapsed %.1fs\n", step, total, loss,
                dt > 0 ? p->tokens_per_step / dt : 0, el);
    }
}

/* The head, config, environment, repro and machine of a train result. */
static json_t *result_base(const char *status, const char *reason, const sb_kernel *k,
                           const char *kname, int threads, json_t *config, int argc, char **argv)
{
    const sb_sysinfo *si = sb_sysinfo_cached();
    json_t *doc = sb_result_new(&(sb_result_head){"train", k ? k->name : (kname ? kname : ""),
                                                  k ? sb_dtype_name(k->dtype) : "f32", threads, 1,
                                                  1, 1, status, reason});
    json_object_set_new(doc, "config", config ? config : json_object());
    char omp[32];
    snprintf(omp, sizeof omp, "OMP_NUM_THREADS=%d", threads);
    const char *set[] = {omp, NULL};
    sb_result_seal(doc, argc, argv, set, si ? si->fingerprint : NULL);
    return doc;
}

/* The one place a failed or skipped run becomes a result file. */
static int write_status(const char *path, const char *status, const sb_err *why, const sb_kernel *k,
                        const char *kname, int threads, json_t *config, int argc, char **argv)
{
    if (!path) {
        json_decref(config);
        return SB_OK;
    }
    json_t *doc = result_base(status, why->msg, k, kname, threads, config, argc, argv);
    sb_err e2;
    int rc = sb_result_write(path, doc, &e2);
    json_decref(doc);
    if (rc) fprintf(stderr, "sprbench train: %s\n", e2.msg);
    return rc;
}

typedef struct data_set {
    sb_vocab vocab;
    int have_vocab;
    sb_squad_set train, dev;
    int have_train, have_dev;
    sb_features ftrain, fdev;
    int have_ftrain, have_fdev;
} data_set;

static void data_free(data_set *d)
{
    if (d->have_ftrain) sb_features_free(&d->ftrain);
    if (d->have_fdev) sb_features_free(&d->fdev);
    if (d->have_train) sb_squad_free(&d->train);
    if (d->have_dev) sb_squad_free(&d->dev);
    if (d->have_vocab) sb_vocab_free(&d->vocab);
}

static int load_vocab(const char *path, data_set *d, sb_err *e)
{
    int rc = path ? sb_vocab_load(path, &d->vocab, e) : sb_vocab_builtin_synth(&d->vocab, e);
    if (!rc) d->have_vocab = 1;
    return rc;
}

static int parse_train_opts(int argc, char **argv, topts *o, sb_err *e, int *help)
{
    static const struct option opts[] = {{"vocab", required_argument, 0, 'v'},
                                         {"train", required_argument, 0, 'T'},
                                         {"dev", required_argument, 0, 'D'},
                                         {"init", required_argument, 0, 'i'},
                                         {"model", required_argument, 0, 'M'},
                                         {"kernel", required_argument, 0, 'K'},
                                         {"threads", required_argument, 0, 't'},
                                         {"batch", required_argument, 0, 'b'},
                                         {"seq", required_argument, 0, 's'},
                                         {"stride", required_argument, 0, 'S'},
                                         {"epochs", required_argument, 0, 'e'},
                                         {"max-steps", required_argument, 0, 'n'},
                                         {"time-budget", required_argument, 0, 'B'},
                                         {"eval", no_argument, 0, 'E'},
                                         {"save", required_argument, 0, 'o'},
                                         {"seed", required_argument, 0, 'x'},
                                         {"dropout", required_argument, 0, 'd'},
                                         {"lr", required_argument, 0, 'l'},
                                         {"result-file", required_argument, 0, 'r'},
                                         {"profile", no_argument, 0, 'p'},
                                         {"synth-train", required_argument, 0, 'y'},
                                         {"synth-dev", required_argument, 0, 'Y'},
                                         {"warmup-steps", required_argument, 0, 'w'},
                                         {"comm-threads", required_argument, 0, 'C'},
                                         {"no-overlap", no_argument, 0, 'O'},
                                         {"bind", required_argument, 0, 'N'},
                                         {"dense-allreduce", no_argument, 0, 'A'},
                                         {"bucket-mb", required_argument, 0, 'U'},
                                         {"full-attention", no_argument, 0, 'F'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    int c, rc;
    long v;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        rc = SB_OK;
        switch (c) {
        case 'v': o->vocab = optarg; break;
        case 'T': o->train = optarg; break;
        case 'D':
            o->dev = optarg;
            o->eval = 1;
            break;
        case 'i': o->init = optarg; break;
        case 'M': o->model = optarg; break;
        case 'K': o->kernel = optarg; break;
        case 't':
            rc = sb_worker_opt_long("threads", optarg, "--threads", &v, e);
            o->threads = (int)v;
            break;
        case 'b':
            rc = sb_worker_opt_long("batch", optarg, "--batch", &v, e);
            o->batch = (int)v;
            o->set_batch = 1;
            break;
        case 's':
            rc = sb_worker_opt_long("seq", optarg, "--seq", &v, e);
            o->seq = (int)v;
            o->set_seq = 1;
            break;
        case 'S':
            rc = sb_worker_opt_long("stride", optarg, "--stride", &v, e);
            o->stride = (int)v;
            o->set_stride = 1;
            break;
        case 'e':
            rc = sb_worker_opt_long("epochs", optarg, "--epochs", &v, e);
            o->epochs = (int)v;
            o->set_epochs = 1;
            break;
        case 'n':
            rc = sb_worker_opt_long("max-steps", optarg, "--max-steps", &o->max_steps, e);
            break;
        case 'B':
            rc = sb_worker_opt_double("time-budget", optarg, "--time-budget", &o->time_budget, e);
            break;
        case 'E': o->eval = 1; break;
        case 'o': o->save = optarg; break;
        case 'x': rc = sb_worker_opt_long("seed", optarg, "--seed", &o->seed, e); break;
        case 'd':
            rc = sb_worker_opt_double("dropout", optarg, "--dropout", &o->dropout, e);
            o->set_dropout = 1;
            break;
        case 'l':
            rc = sb_worker_opt_double("lr", optarg, "--lr", &o->lr, e);
            o->set_lr = 1;
            break;
        case 'r': o->result_file = optarg; break;
        case 'p': o->profile = 1; break;
        case 'y':
            rc = sb_worker_opt_long("synth-train", optarg, "--synth-train", &v, e);
            o->synth_train = (int)v;
            break;
        case 'Y':
            rc = sb_worker_opt_long("synth-dev", optarg, "--synth-dev", &v, e);
            o->synth_dev = (int)v;
            break;
        case 'w':
            rc = sb_worker_opt_long("warmup-steps", optarg, "--warmup-steps", &o->warmup, e);
            o->set_warmup = 1;
            break;
        case 'C':
            rc = sb_worker_opt_long("comm-threads", optarg, "--comm-threads", &v, e);
            o->comm_threads = (int)v;
            o->set_comm = 1;
            break;
        case 'O': o->no_overlap = 1; break;
        case 'A': o->dense_allreduce = 1; break;
        case 'F': o->full_attention = 1; break;
        case 'U': rc = sb_parse_double(optarg, 0.001, 4096, "--bucket-mb", &o->bucket_mb, e); break;
        case 'N': {
            sb_bind_mode bm;
            rc = sb_bind_parse_mode(optarg, &bm, e);
            o->bind = optarg;
            break;
        }
        case 'h': *help = 1; return SB_OK;
        default:
            return sb_errf(e, SB_EUSAGE, "unknown or incomplete option '%s' (see --help)",
                           argv[optind - 1]);
        }
        if (rc) return rc;
    }
    if (optind < argc) return sb_errf(e, SB_EUSAGE, "unexpected argument '%s'", argv[optind]);
    const struct {
        const char *opt, *val;
    } paths[] = {{"--vocab", o->vocab}, {"--train", o->train},  {"--dev", o->dev},
                 {"--init", o->init},   {"--save", o->save},    {"--result-file", o->result_file},
                 {"--model", o->model}, {"--kernel", o->kernel}};
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++)
        if (paths[i].val && !*paths[i].val)
            return sb_errf(e, SB_EUSAGE, "%s: empty value", paths[i].opt);
    if (o->batch == 0 && o->set_batch) return sb_errf(e, SB_EUSAGE, "--batch must be at least 1");
    if (o->max_steps > 0 && o->time_budget > 0)
        return sb_errf(e, SB_EUSAGE, "--max-steps and --time-budget exclude each other");
    if ((o->train || o->dev) && !o->vocab)
        return sb_errf(e, SB_EUSAGE, "--train/--dev need --vocab (the checkpoint's vocab.txt)");
    /* Outputs before the work (training may take hours; its outputs come
     * last). Rank 0 writes them, so only rank 0 can judge their paths: under
     * mpirun the other ranks may run where those directories do not exist. */
    if (sb_train_ranks_first()) {
        int out_rc = SB_OK;
        if (o->save) out_rc = sb_cli_check_out_dir("--save", o->save, 1, e);
        if (!out_rc && o->result_file)
            out_rc = sb_cli_check_out_file("--result-file", o->result_file, e);
        if (out_rc) return out_rc;
    }
    return SB_OK;
}

/* The vocabulary, the training set and its features, and with --eval the
 * dev set and its features; the model's vocabulary follows the one in use
 * for shapes made here (tiny, L,D,H,F). SB_EUSAGE for data that does not fit. */
static int load_data(const topts *o, sb_model_config *mc, data_set *d, sb_err *e)
{
    int rc;
    if ((rc = load_vocab(o->vocab, d, e))) return rc;
    if (!o->init && strcmp(o->model ? o->model : "distilbert-base", "distilbert-base") &&
        strcmp(o->model ? o->model : "", "distilbert-base-uncased"))
        mc->vocab = d->vocab.size; /* tiny and L,D,H,F: embeddings for the vocab in use */
    if (d->vocab.size > mc->vocab) {
        return sb_errf(e, SB_EUSAGE, "%s has %d tokens but the model's vocabulary is %d",
                       o->vocab ? o->vocab : "the built-in synthetic vocab", d->vocab.size,
                       mc->vocab);
    }
    if (o->init && d->vocab.size != mc->vocab) {
        return sb_errf(e, SB_EUSAGE, "%s has %d tokens but %s expects %d%s",
                       o->vocab ? o->vocab : "the built-in synthetic vocab", d->vocab.size, o->init,
                       mc->vocab, o->vocab ? "" : " (give its --vocab)");
    }
    if (o->train) {
        if ((rc = sb_squad_load(o->train, &d->train, e))) return rc;
    } else {
        fprintf(stderr,
                "sprbench train: no --train given: training on squad-synth data "
                "(%d questions, seed %ld)\n",
                o->synth_train, o->seed);
        if ((rc = sb_squad_synth(o->synth_train, (uint64_t)o->seed, 0, &d->train, e))) return rc;
    }
    d->have_train = 1;
    if ((rc = sb_features_build(&d->vocab, &d->train, o->seq, o->stride, 0, &d->ftrain, e)))
        return rc;
    d->have_ftrain = 1;
    if (d->ftrain.n < 1)
        return sb_errf(e, SB_EUSAGE, "%s gives no training features",
                       o->train ? o->train : "squad-synth");
    if (o->eval) {
        if (o->dev) {
            if ((rc = sb_squad_load(o->dev, &d->dev, e))) return rc;
        } else if ((rc = sb_squad_synth(o->synth_dev, (uint64_t)o->seed, 1, &d->dev, e))) {
            return rc;
        }
        d->have_dev = 1;
        if ((rc = sb_features_build(&d->vocab, &d->dev, o->seq, o->stride, 1, &d->fdev, e)))
            return rc;
        d->have_fdev = 1;
    }
    return SB_OK;
}

int sb_cmd_train(int argc, char **argv)
{
    topts o = {.seed = 42};
    sb_err e = {0};
    int help = 0;
    if (parse_train_opts(argc, argv, &o, &e, &help)) return sb_cli_report("train", &e);
    if (help) {
        train_help();
        return 0;
    }
    int is_tiny = !o.init && o.model && !strcmp(o.model, "tiny");
    if (!o.set_batch) o.batch = is_tiny ? TINY_BATCH : 32;
    if (!o.set_seq) o.seq = is_tiny ? TINY_SEQ : 384;
    if (!o.set_stride) o.stride = is_tiny ? TINY_STRIDE : 128;
    if (!o.set_epochs) o.epochs = is_tiny ? TINY_EPOCHS : 1;
    if (!o.set_lr) o.lr = is_tiny ? TINY_LR : 5e-5;
    if (!o.synth_train) o.synth_train = is_tiny ? TINY_SYNTH_TRAIN : SYNTH_TRAIN;
    if (!o.synth_dev) o.synth_dev = SYNTH_DEV;
    const sb_sysinfo *si = sb_sysinfo_cached();
    if (o.threads <= 0) o.threads = si && si->cores > 0 ? si->cores : omp_get_max_threads();
    omp_set_num_threads(o.threads);

    int rc = SB_OK, exit_code = 0;
    const sb_kernel *k = NULL;
    data_set d = {0};
    sb_hf_model hf = {0};
    int have_hf = 0, have_model = 0;
    sb_model m;
    sb_train_result res = {0};
    json_t *config = NULL;
    sb_train_ranks ranks = {0};
    int rank = 0, world = 1, nodes = 1, ppn = 1;

    int krc = pick_kernel(o.kernel, &k, &e);
    if (krc == SB_ESKIP) {
        /* Recorded as skipped so a sweep keeps the point and its reason. */
        write_status(o.result_file, "skipped", &e, NULL, o.kernel, o.threads,
                     json_pack("{s:s}", "model", o.model ? o.model : "distilbert-base"), argc,
                     argv);
        return sb_cli_report("train", &e);
    }
    if (krc) goto usage;

    /* The model's shape: a checkpoint's, or --model's. */
    sb_model_config mc;
    if (o.init) {
        if ((rc = sb_hf_read_dir(o.init, &hf, &e))) goto usage;
        have_hf = 1;
        if ((rc = sb_checkpoint_model_config(&hf.cfg, o.init, &mc, &e))) goto usage;
        if (o.model)
            fprintf(stderr, "sprbench train: --model ignored: the shape comes from %s\n", o.init);
    } else if ((rc = sb_model_config_parse(o.model ? o.model : "distilbert-base", &mc, &e))) {
        goto usage;
    }
    if (o.set_dropout) mc.dropout = mc.attn_dropout = mc.qa_dropout = (float)o.dropout;
    if (o.seq > mc.max_pos) {
        rc = sb_errf(&e, SB_EUSAGE, "--seq %d is longer than the model's %d positions", o.seq,
                     mc.max_pos);
        goto usage;
    }
    if (o.stride >= o.seq / 2) {
        rc = sb_errf(&e, SB_EUSAGE, "--stride %d must be below half of --seq %d", o.stride, o.seq);
        goto usage;
    }

    /* Data: the user's files, or the synthetic set. */
    if ((rc = load_data(&o, &mc, &d, &e))) goto usage;

    /* The model. */
    if ((rc = sb_model_create(&m, &mc, k, o.threads, &e))) goto fail;
    have_model = 1;
    m.lc.all_keys = o.full_attention;
    sb_model_init_random(&m, (uint64_t)o.seed);
    if (have_hf && (rc = sb_checkpoint_load(&m, &hf, o.init, &e))) goto usage;
    if (have_hf) {
        sb_hf_model_free(&hf);
        have_hf = 0;
    }
    if ((rc = sb_model_alloc_acts(&m, o.batch, o.seq, &e))) goto fail;
    m.profile = o.profile;
    sb_train_ranks_opts ro = {.threads = o.threads,
                              .bind = o.bind,
                              .comm_threads = o.set_comm ? o.comm_threads : -1,
                              .overlap = !o.no_overlap,
                              .bucket_mb = o.bucket_mb,
                              .sparse = !o.dense_allreduce};
    rc = sb_train_ranks_start(&ranks, &m, &ro, &e);
    rank = ranks.rank;
    world = ranks.world;
    nodes = ranks.nodes;
    ppn = ranks.ppn;
    if (ranks.have_bind && ranks.bind.warning[0] && rank == 0)
        fprintf(stderr, "sprbench train: %s\n", ranks.bind.warning);
    if (rc) goto fail;

    config = json_pack(
        "{s:s, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:f, s:f, s:i, s:s, s:s}", "model",
        o.init ? o.init : (o.model ? o.model : "distilbert-base"), "layers", mc.layers, "dim",
        mc.dim, "heads", mc.heads, "ffn", mc.ffn, "vocab", mc.vocab, "batch", o.batch, "seq", o.seq,
        "stride", o.stride, "epochs", o.epochs, "features", d.ftrain.n, "lr", o.lr, "dropout",
        (double)mc.dropout, "seed", (int)o.seed, "data", o.train ? o.train : "squad-synth", "init",
        o.init ? o.init : "random");
    if (o.max_steps > 0) json_object_set_new(config, "max_steps", json_integer(o.max_steps));
    if (o.time_budget > 0) json_object_set_new(config, "time_budget", json_real(o.time_budget));
    double pad_share = padding_share(&d.ftrain);
    json_object_set_new(config, "padding_share", json_real(pad_share));
    json_object_set_new(config, "full_attention", json_boolean(o.full_attention));
    /* the instruction set the element-wise code (GELU, LayerNorm, softmax,
     * dropout, AdamW) dispatched to: avx512, avx2 or scalar */
    json_object_set_new(config, "elementwise_isa", json_string(sb_layers_isa()));

    sb_train_config tc;
    sb_train_config_default(&tc);
    tc.batch = o.batch;
    tc.epochs = o.epochs;
    tc.max_steps = o.max_steps;
    tc.time_budget = o.time_budget;
    tc.lr = (float)o.lr;
    tc.seed = (uint64_t)o.seed;
    tc.threads = o.threads;
    tc.warmup_steps = o.warmup;
    tc.dp = ranks.dp ? &ranks.hooks : NULL;
    const char *poison = getenv("SB_TRAIN_TEST_NAN_STEP"); /* the tests' way to a NaN */
    if (poison) tc.poison_step = atol(poison);
    progress_state ps = {.tokens_per_step = (double)o.batch * o.seq, .t0 = sb_now()};
    long shard = ((long)d.ftrain.n + world - 1) / world; /* this rank's features */
    long planned = (shard + o.batch - 1) / o.batch * o.epochs;
    if (is_tiny && !o.set_warmup)
        tc.warmup_steps = (o.max_steps > 0 ? o.max_steps : planned) * TINY_WARMUP_PCT / 100;
    json_object_set_new(config, "warmup_steps", json_integer(tc.warmup_steps));
    long total = o.max_steps > 0 ? o.max_steps : planned;
    ps.every = total >= 10 ? total / 10 : 1;
    sb_progress_start(&ps.bar, "train", total);
    ps.tty = ps.bar.enabled;
    if (rank == 0) tc.progress = on_progress;
    tc.progress_user = &ps;
    if (rank == 0)
        fprintf(stderr,
                "sprbench train: %s model (%d layers, dim %d, %d heads, FFN %d, vocab %d, "
                "%.1fM parameters), kernel %s (%s, element-wise %s), %d threads, %d features "
                "(%.0f %% padding%s), batch %d x %d, %ld steps, %d rank(s)\n",
                o.init ? o.init : (o.model ? o.model : "distilbert-base"), mc.layers, mc.dim,
                mc.heads, mc.ffn, mc.vocab, m.nparams / 1e6, k->name, sb_dtype_name(k->dtype),
                sb_layers_isa(), o.threads, d.ftrain.n, 100 * pad_share,
                o.full_attention ? ", attended" : ", skipped by attention", o.batch, o.seq, total,
                world);
    rc = sb_train_run(&m, &d.ftrain, &tc, &res, &e);
    sb_progress_end(&ps.bar);
    if (rc == SB_EUSAGE) goto usage;
    if (rc) goto fail;

    double em = 0, f1 = 0, eval_s = 0;
    m.profile = 0; /* the breakdown is of training steps only */
    if (o.eval && rank == 0) {
        double te = sb_now();
        if ((rc = sb_train_predict(&m, &d.dev, &d.fdev, o.batch, NULL, &em, &f1, &e))) goto fail;
        eval_s = sb_now() - te;
    }
    if (o.save && rank == 0 && (rc = sb_checkpoint_save(&m, o.save, &e))) goto fail;

    /* Metrics. */
    double med = sb_train_median_step(&res);
    double tokens = (double)o.batch * o.seq * world; /* every rank's batch */
    double tps = med > 0 ? tokens / med : 0;
    double gflops = sb_model_flops_per_token(&mc, o.seq) * tps / 1e9;
    int projected = !res.finished_epochs;
    double epoch_s = projected ? med * res.steps_per_epoch
                               : res.train_seconds * res.steps_per_epoch / (double)res.steps;
    /* Per-rank timings and bindings: collectives, so every rank takes part. */
    json_t *per_rank = NULL;
    sb_train_ranks_summary dps;
    if ((rc = sb_train_ranks_gather(&ranks, &per_rank, &dps, &e))) goto fail;
    json_t *doc = result_base("ok", "", k, NULL, o.threads, config, argc, argv);
    config = NULL;
    if (per_rank) json_object_set_new(doc, "per_rank", per_rank);
    json_t *binding = sb_train_ranks_binding_json(&ranks, &ro);
    if (binding) json_object_set_new(doc, "binding", binding);
    json_object_set_new(doc, "ranks", json_integer(world));
    json_object_set_new(doc, "ppn", json_integer(ppn));
    json_object_set_new(doc, "nodes", json_integer(nodes));
    json_t *samples = json_array();
    for (long i = 0; i < res.steps; i++)
        json_array_append_new(samples, json_real(res.step_seconds[i]));
    json_object_set_new(doc, "samples", samples);
    json_t *met = json_object(), *units = json_object();
#define MET(name, val, unit)                                 \
    do {                                                     \
        json_object_set_new(met, name, json_real(val));      \
        json_object_set_new(units, name, json_string(unit)); \
    } while (0)
    MET("tokens_per_s", tps, "tokens/s");
    MET("sequences_per_s", med > 0 ? (double)o.batch * world / med : 0, "sequences/s");
    MET("step_seconds", med, "s");
    MET("achieved_gflops", gflops, "GFLOP/s");
    MET("epoch_seconds", epoch_s, "s");
    MET("projected", projected, "");
    MET("loss_first", res.loss_first, "");
    MET("loss_final", res.loss_final, "");
    MET("steps", res.steps, "");
    MET("steps_per_epoch", res.steps_per_epoch, "");
    MET("peak_rss_mb", sb_result_peak_rss_mb(), "MiB");
    if (ranks.dp) {
        MET("compute_s", dps.compute_s, "s");     /* forward + backward per step, mean over ranks */
        MET("comm_wait_s", dps.wait_s, "s");      /* all-reduce time not hidden, per step */
        MET("comm_busy_s", dps.comm_s, "s");      /* all-reduce time in total, per step */
        MET("load_imbalance", dps.imbalance, ""); /* (max - min) / mean compute over ranks */
        MET("allreduce_mb_per_step", dps.mb_per_step, "MB"); /* gradient bytes all-reduced */
        if (ranks.sparse) MET("embedding_rows_per_step", dps.rows_per_step, ""); /* rows sent */
    }
    if (o.eval) {
        MET("em", em, "%");
        MET("f1", f1, "%");
    }
#undef MET
    json_object_set_new(doc, "metrics", met);
    json_object_set_new(doc, "units", units);
    if (projected) {
        char from[256];
        snprintf(from, sizeof from,
                 "median of %ld steady-state steps x %ld steps per epoch (run stopped after %ld)",
                 res.steps > 1 ? res.steps - 1 : res.steps, res.steps_per_epoch, res.steps);
        json_object_set_new(doc, "projected", json_pack("{s:s}", "epoch_seconds", from));
    } else {
        json_object_set_new(doc, "projected", json_object());
    }
    if (rank == 0 && o.result_file && (rc = sb_result_write(o.result_file, doc, &e))) {
        json_decref(doc);
        goto fail;
    }
    json_decref(doc);
    if (rank != 0) goto done;

    printf("trained %ld steps (%ld per epoch) on %s in %.1f s: loss %.4f -> %.4f\n", res.steps,
           res.steps_per_epoch, o.train ? o.train : "squad-synth", res.train_seconds,
           res.loss_first, res.loss_final);
    printf("kernel %s (%s), %d threads: %.3f s/step (median), %.0f tokens/s, %.1f sequences/s, "
           "%.1f GFLOP/s\n",
           k->name, sb_dtype_name(k->dtype), o.threads, med, tps, med > 0 ? o.batch / med : 0,
           gflops);
    printf("epoch %.1f s%s, peak RSS %.0f MiB\n", epoch_s,
           projected ? " (projected from the median step)" : "", sb_result_peak_rss_mb());
    if (o.eval)
        printf("eval on %s (%d questions, %.1f s): exact match %.2f, F1 %.2f\n",
               o.dev ? o.dev : "squad-synth dev", d.dev.n_examples, eval_s, em, f1);
    if (o.save) printf("saved %s (config.json, model.safetensors)\n", o.save);
    if (o.profile) {
        double sum = 0;
        for (int i = 0; i < SB_PROF_N; i++) sum += m.prof[i];
        /* FLOPs of each kind over the run (every rank's own batch) */
        double fl[SB_PROF_N];
        sb_model_prof_flops(&mc, o.seq, fl);
        double tok = (double)o.batch * o.seq * (double)m.prof_steps;
        printf("profile (forward+backward+optimizer over %ld step(s)%s, %.2f s; GFLOP/s of "
               "the matrix products in each kind):\n",
               m.prof_steps, m.prof_steps < res.steps ? " after the warm-up step" : "", sum);
        for (int i = 0; i < SB_PROF_N; i++) {
            printf("  %-18s %9.3f s  %5.1f %%", sb_prof_names[i], m.prof[i],
                   sum > 0 ? 100 * m.prof[i] / sum : 0);
            if (fl[i] > 0 && m.prof[i] > 0)
                printf("  %8.1f GFLOP/s", fl[i] * tok / m.prof[i] / 1e9);
            printf("\n");
        }
    }
    goto done;

usage:
    exit_code = sb_cli_report("train", &e);
    json_decref(config);
    config = NULL;
    goto done;
fail:
    if (e.code == 0) e.code = SB_EFAIL;
    exit_code = sb_cli_report("train", &e);
    if (exit_code != SB_EUSAGE) {
        if (!config) config = json_object();
        if (res.failed_step)
            json_object_set_new(config, "failed_step", json_integer(res.failed_step));
        if (rank == 0)
            write_status(o.result_file, "failed", &e, k, o.kernel, o.threads, config, argc, argv);
        else
            json_decref(config);
        config = NULL;
        exit_code = 1;
    } else {
        json_decref(config);
        config = NULL;
    }
done:
    sb_train_ranks_end(&ranks);
    sb_train_result_free(&res);
    if (have_model) sb_model_free(&m);
    if (have_hf) sb_hf_model_free(&hf);
    data_free(&d);
    return exit_code;
}

/* ---- sprbench predict */

static void predict_help(void)
{
    printf("usage: sprbench predict --init DIR --data dev.json --out preds.json [--vocab F]\n"
           "                        [--kernel K] [--threads T] [--batch 32] [--seq 384]\n"
           "                        [--stride 128]\n\n"
           "Predicts an answer for every question of a SQuAD v1.1 file with the model in DIR\n"
           "(config.json + model.safetensors), with run_qa.py's post-processing (n-best 20,\n"
           "max answer length 30), and writes the official predictions format (id -> text),\n"
           "which `sprbench evaluate` scores.\n\n"
           "  --vocab F   the checkpoint's vocab.txt (default: the built-in synthetic vocab,\n"
           "              which fits checkpoints trained on squad-synth)\n"
           "Exit status: 0 ok, 1 failed, 2 bad usage or input, 3 the kernel cannot run here.\n");
}

int sb_cmd_predict(int argc, char **argv)
{
    static const struct option opts[] = {{"init", required_argument, 0, 'i'},
                                         {"vocab", required_argument, 0, 'v'},
                                         {"data", required_argument, 0, 'D'},
                                         {"out", required_argument, 0, 'o'},
                                         {"kernel", required_argument, 0, 'K'},
                                         {"threads", required_argument, 0, 't'},
                                         {"batch", required_argument, 0, 'b'},
                                         {"seq", required_argument, 0, 's'},
                                         {"stride", required_argument, 0, 'S'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *init = NULL, *vocab = NULL, *data = NULL, *out = NULL, *kname = NULL;
    long threads = 0, batch = 32, seq = 384, stride = 128;
    sb_err e = {0};
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        int rc = SB_OK;
        switch (c) {
        case 'i': init = optarg; break;
        case 'v': vocab = optarg; break;
        case 'D': data = optarg; break;
        case 'o': out = optarg; break;
        case 'K': kname = optarg; break;
        case 't': rc = sb_worker_opt_long("threads", optarg, "--threads", &threads, &e); break;
        case 'b': rc = sb_worker_opt_long("batch", optarg, "--batch", &batch, &e); break;
        case 's': rc = sb_worker_opt_long("seq", optarg, "--seq", &seq, &e); break;
        case 'S': rc = sb_worker_opt_long("stride", optarg, "--stride", &stride, &e); break;
        case 'h': predict_help(); return 0;
        default:
            return sb_cli_usage_error("predict", "unknown or incomplete option '%s' (see --help)",
                                      argv[optind - 1]);
        }
        if (rc) return sb_cli_report("predict", &e);
    }
    if (optind < argc)
        return sb_cli_usage_error("predict", "unexpected argument '%s'", argv[optind]);
    if (!init || !data || !out)
        return sb_cli_usage_error("predict", "--init, --data and --out are required");
    if (sb_cli_check_path("--init", init, &e) || sb_cli_check_path("--data", data, &e) ||
        (vocab && sb_cli_check_path("--vocab", vocab, &e)) ||
        (kname && sb_cli_check_path("--kernel", kname, &e)) ||
        sb_cli_check_out_file("--out", out, &e))
        return sb_cli_report("predict", &e);
    if (stride >= seq / 2)
        return sb_cli_usage_error("predict", "--stride %ld must be below half of --seq %ld", stride,
                                  seq);
    const sb_sysinfo *si = sb_sysinfo_cached();
    if (threads <= 0) threads = si && si->cores > 0 ? si->cores : omp_get_max_threads();
    omp_set_num_threads((int)threads);
    const sb_kernel *k = NULL;
    int rc = pick_kernel(kname, &k, &e);
    if (rc) return sb_cli_report("predict", &e);

    sb_hf_model hf = {0};
    data_set d = {0};
    sb_model m;
    int have_model = 0, have_hf = 0, code = 0;
    sb_model_config mc;
    sb_squad_predictions preds = {0};
    if ((rc = sb_hf_read_dir(init, &hf, &e))) goto bad;
    have_hf = 1;
    if (!hf.has_qa_head) {
        rc = sb_errf(&e, SB_EUSAGE, "%s has no qa_outputs: it is not a question-answering model",
                     init);
        goto bad;
    }
    if ((rc = sb_checkpoint_model_config(&hf.cfg, init, &mc, &e))) goto bad;
    if (seq > mc.max_pos) {
        rc = sb_errf(&e, SB_EUSAGE, "--seq %ld is longer than the model's %d positions", seq,
                     mc.max_pos);
        goto bad;
    }
    if ((rc = load_vocab(vocab, &d, &e))) goto bad;
    if (d.vocab.size != mc.vocab) {
        rc = sb_errf(&e, SB_EUSAGE, "%s has %d tokens but %s expects %d%s",
                     vocab ? vocab : "the built-in synthetic vocab", d.vocab.size, init, mc.vocab,
                     vocab ? "" : " (give its --vocab)");
        goto bad;
    }
    if ((rc = sb_squad_load(data, &d.dev, &e))) goto bad;
    d.have_dev = 1;
    if ((rc = sb_features_build(&d.vocab, &d.dev, (int)seq, (int)stride, 1, &d.fdev, &e))) goto bad;
    d.have_fdev = 1;
    if ((rc = sb_model_create(&m, &mc, k, (int)threads, &e))) goto fail;
    have_model = 1;
    if ((rc = sb_checkpoint_load(&m, &hf, init, &e))) goto bad;
    sb_hf_model_free(&hf);
    have_hf = 0;
    int nb = d.fdev.n < batch ? (d.fdev.n > 0 ? d.fdev.n : 1) : (int)batch;
    /* the forward path `sprbench infer` runs (sb_infer) */
    if ((rc = sb_model_alloc_acts_infer(&m, nb, (int)seq, &e))) goto fail;
    sb_infer *inf = NULL;
    if ((rc = sb_infer_attach(&m, k, SB_QUANT_PER_ROW, &inf, &e))) goto bad;
    double t0 = sb_now();
    rc = sb_train_predict(&m, &d.dev, &d.fdev, nb, &preds, NULL, NULL, &e);
    sb_infer_detach(&m, inf);
    if (rc) goto fail;
    if ((rc = sb_squad_predictions_write(out, &preds, &e))) goto fail;
    printf("predicted %d questions (%d features) with %s in %.1f s -> %s\n", preds.n, d.fdev.n,
           k->name, sb_now() - t0, out);
    goto done;
bad:
    code = sb_cli_report("predict", &e);
    code = code == SB_EUSAGE ? SB_EUSAGE : 1;
    goto done;
fail:
    code = sb_cli_report("predict", &e);
    if (code != SB_EUSAGE) code = 1;
done:
    sb_squad_predictions_free(&preds);
    if (have_model) sb_model_free(&m);
    if (have_hf) sb_hf_model_free(&hf);
    data_free(&d);
    return code;
}
