/* sprbench infer: forward-only DistilBERT question answering over SQuAD-format
 * data on any kernel (int8 through dynamic quantisation, sb_infer), with
 * latency at batch 1, throughput at --batch, EM/F1 and agreement with f32. */
#include <getopt.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include "sb_cli.h"
#include "sb_checkpoint.h"
#include "sb_result.h"
#include "sb_cmds.h"
#include "sb_features.h"
#include "sb_hf.h"
#include "sb_infer.h"
#include "sb_io.h"
#include "sb_kernel.h"
#include "sb_launch.h"
#include "sb_model.h"
#include "sb_plan.h"
#include "sb_squad.h"
#include "sb_squad_eval.h"
#include "sb_squad_synth.h"
#include "sb_stats.h"
#include "sb_sysinfo.h"
#include "sb_tokenizer.h"

#define SYNTH_DEV 300

typedef struct iopts {
    const char *init, *vocab, *data, *model, *kernel, *out, *result_file, *quant;
    long threads, batch, seq, stride, requests, warmup, synth_dev, seed;
    int set_seq, set_stride, compare_f32, full_attention, no_latency, profile;
} iopts;

static void infer_help(void)
{
    printf("usage: sprbench infer [--init DIR [--vocab F] | --model M] [--data dev.json]\n"
           "                      [--kernel K] [--threads T] [--batch 32] [--seq 384]\n"
           "                      [--stride 128] [--requests N] [--quant row|tensor]\n"
           "                      [--compare-f32] [--full-attention] [--no-latency]\n"
           "                      [--warmup 1] [--out preds.json] [--result-file F] [--profile]\n\n"
           "Forward-only DistilBERT question answering over a SQuAD v1.1 file, on any kernel:\n"
           "f32 and bf16 kernels as in training; int8 kernels through dynamic quantisation of\n"
           "every linear layer (weights s8 per output channel, quantised once; activations u8\n"
           "with a scale and zero point per row, or per tensor, computed at run time; s32\n"
           "accumulation; dequantisation, zero-point correction and bias where the kernel\n"
           "writes C). Attention products and softmax stay f32 (bf16 on bf16 kernels).\n"
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
           "  --compare-f32    also run the f32 path on the same checkpoint and report the\n"
           "                   share of identical answers (and f32's EM/F1)\n"
           "  --full-attention attend over padding too, as PyTorch does\n"
           "  --no-latency     skip the batch-1 latency pass\n"
           "  --warmup N       untimed forward passes before each timed pass (default 1)\n"
           "  --out F          write the predictions (id -> answer text)\n"
           "  --result-file F  write the result as one JSON object\n"
           "  --synth-dev N    synthetic questions without --data (default %d)\n"
           "  --profile        print where the throughput pass's time goes, per layer kind\n\n"
           "Metrics: latency_p50_ms/p90/p99 (per question at batch 1: the forward passes\n"
           "over its windows), sequences_per_s and tokens_per_s at --batch (tokens counted\n"
           "as sequence positions, padding included), em, f1 (when the data has answers),\n"
           "f32_agreement_pct, f32_em, f32_f1 (--compare-f32), peak_rss_mb.\n"
           "Exit status: 0 ok, 1 failed, 2 bad usage or input (nothing written),\n"
           "3 the kernel cannot run on this machine (result file written as 'skipped').\n",
           sb_kernel_names(), SYNTH_DEV);
}

static int parse_opts(int argc, char **argv, iopts *o, int *help, sb_err *e)
{
    static const struct option opts[] = {{"init", required_argument, 0, 'i'},
                                         {"vocab", required_argument, 0, 'v'},
                                         {"data", required_argument, 0, 'D'},
                                         {"model", required_argument, 0, 'm'},
                                         {"kernel", required_argument, 0, 'K'},
                                         {"threads", required_argument, 0, 't'},
                                         {"batch", required_argument, 0, 'b'},
                                         {"seq", required_argument, 0, 's'},
                                         {"stride", required_argument, 0, 'S'},
                                         {"requests", required_argument, 0, 'r'},
                                         {"quant", required_argument, 0, 'q'},
                                         {"compare-f32", no_argument, 0, 'c'},
                                         {"full-attention", no_argument, 0, 'F'},
                                         {"no-latency", no_argument, 0, 'L'},
                                         {"warmup", required_argument, 0, 'w'},
                                         {"out", required_argument, 0, 'o'},
                                         {"result-file", required_argument, 0, 'R'},
                                         {"synth-dev", required_argument, 0, 'y'},
                                         {"seed", required_argument, 0, 'e'},
                                         {"profile", no_argument, 0, 'P'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        int rc = SB_OK;
        switch (c) {
        case 'i': o->init = optarg; break;
        case 'v': o->vocab = optarg; break;
        case 'D': o->data = optarg; break;
        case 'm': o->model = optarg; break;
        case 'K': o->kernel = optarg; break;
        case 'o': o->out = optarg; break;
        case 'R': o->result_file = optarg; break;
        case 'q': o->quant = optarg; break;
        case 'c': o->compare_f32 = 1; break;
        case 'F': o->full_attention = 1; break;
        case 'L': o->no_latency = 1; break;
        case 'P': o->profile = 1; break;
        case 't': rc = sb_worker_opt_long("threads", optarg, "--threads", &o->threads, e); break;
        case 'b': rc = sb_worker_opt_long("batch", optarg, "--batch", &o->batch, e); break;
        case 's':
            rc = sb_worker_opt_long("seq", optarg, "--seq", &o->seq, e);
            o->set_seq = 1;
            break;
        case 'S':
            rc = sb_worker_opt_long("stride", optarg, "--stride", &o->stride, e);
            o->set_stride = 1;
            break;
        /* the ranges a sweep plan checks these with (sb_plan) */
        case 'r': rc = sb_worker_opt_long("requests", optarg, "--requests", &o->requests, e); break;
        case 'w': rc = sb_worker_opt_long("warmup", optarg, "--warmup", &o->warmup, e); break;
        case 'y':
            rc = sb_worker_opt_long("synth-dev", optarg, "--synth-dev", &o->synth_dev, e);
            break;
        case 'e': rc = sb_worker_opt_long("seed", optarg, "--seed", &o->seed, e); break;
        case 'h': *help = 1; return SB_OK;
        default:
            return sb_errf(e, SB_EUSAGE, "unknown or incomplete option '%s' (see --help)",
                           argv[optind - 1]);
        }
        if (rc) return rc;
    }
    if (optind < argc) return sb_errf(e, SB_EUSAGE, "unexpected argument '%s'", argv[optind]);
    if (o->init && o->model)
        return sb_errf(e, SB_EUSAGE,
                       "--init and --model exclude each other (the checkpoint "
                       "gives the shape)");
    sb_quant_mode qm;
    if (o->quant && sb_quant_mode_parse(o->quant, &qm))
        return sb_errf(e, SB_EUSAGE, "--quant '%s': expected row, tensor, row7 or tensor7",
                       o->quant);
    if ((o->init && sb_cli_check_path("--init", o->init, e)) ||
        (o->vocab && sb_cli_check_path("--vocab", o->vocab, e)) ||
        (o->data && sb_cli_check_path("--data", o->data, e)) ||
        (o->kernel && sb_cli_check_path("--kernel", o->kernel, e)) ||
        (o->out && sb_cli_check_out_file("--out", o->out, e)) ||
        (o->result_file && sb_cli_check_out_file("--result-file", o->result_file, e)))
        return e->code;
    return SB_OK;
}

static const sb_kernel *default_kernel(void)
{
    static const char *const prefs[] = {"avx512-f32", "avx2-f32", "onednn-f32", "scalar-f32"};
    for (size_t i = 0; i < sizeof prefs / sizeof *prefs; i++) {
        const sb_kernel *k = sb_kernel_find(prefs[i]);
        char why[256];
        if (k && k->probe(why, sizeof why)) return k;
    }
    return sb_kernel_find("scalar-f32");
}

/* The head, config, environment, repro and machine of an infer result. */
static json_t *result_doc(const char *status, const char *reason, const sb_kernel *k,
                          const iopts *o, json_t *config, int argc, char **argv)
{
    const sb_sysinfo *si = sb_sysinfo_cached();
    json_t *doc = sb_result_new(&(sb_result_head){
        "infer", k ? k->name : (o->kernel ? o->kernel : ""), k ? sb_dtype_name(k->dtype) : "f32",
        (int)o->threads, 1, 1, 1, status, reason});
    json_object_set_new(doc, "config", config ? config : json_object());
    char omp[32];
    snprintf(omp, sizeof omp, "OMP_NUM_THREADS=%d", (int)o->threads);
    const char *set[] = {omp, NULL};
    sb_result_seal(doc, argc, argv, set, si ? si->fingerprint : NULL);
    return doc;
}

/* Logits of every feature in batches of `batch`, each batch timed. */
static int run_batches(sb_model *m, const sb_features *f, int batch, float *st, float *en,
                       double *batch_s, sb_progress *pg, sb_err *e)
{
    int S = f->max_seq, rc;
    for (long at = 0, bi = 0; at < f->n; at += batch, bi++) {
        int nb = (int)(f->n - at < batch ? f->n - at : batch);
        sb_batch bt = {
            .B = nb, .S = S, .ids = f->input_ids + at * S, .mask = f->attention_mask + at * S};
        double t0 = sb_now();
        if ((rc = sb_model_forward(m, &bt, 0, 0, NULL, e))) return rc;
        if (batch_s) batch_s[bi] = sb_now() - t0;
        for (long t = 0; t < (long)nb * S; t++) {
            st[at * S + t] = m->logits[2 * t];
            en[at * S + t] = m->logits[2 * t + 1];
        }
        if (pg) sb_progress_update(pg, at + nb, NULL);
    }
    return SB_OK;
}

static int warm_up(sb_model *m, const sb_features *f, int batch, long n, sb_err *e)
{
    int S = f->max_seq, nb = f->n < batch ? f->n : batch;
    for (long i = 0; i < n && nb > 0; i++) {
        sb_batch bt = {.B = nb, .S = S, .ids = f->input_ids, .mask = f->attention_mask};
        int rc = sb_model_forward(m, &bt, 0, 0, NULL, e);
        if (rc) return rc;
    }
    return SB_OK;
}

static int has_answers(const sb_squad_set *s)
{
    for (int i = 0; i < s->n_examples; i++)
        if (s->examples[i].n_answers > 0) return 1;
    return 0;
}

/* Forward over every feature on the path attached now, post-processed. */
static int predict_all(sb_model *m, const sb_squad_set *set, const sb_features *f, int batch,
                       double *batch_s, sb_progress *pg, sb_squad_predictions *p, sb_err *e)
{
    size_t n = (size_t)f->n * f->max_seq + 1;
    float *st = malloc(sizeof(float) * n), *en = malloc(sizeof(float) * n);
    int rc = st && en ? SB_OK : sb_errf(e, SB_EFAIL, "out of memory for %d features' logits", f->n);
    if (!rc) rc = run_batches(m, f, batch, st, en, batch_s, pg, e);
    if (!rc)
        rc = sb_squad_postprocess(set, f, st, en, SB_SQUAD_N_BEST, SB_SQUAD_MAX_ANSWER_LEN, p, e);
    free(st);
    free(en);
    return rc;
}

int sb_cmd_infer(int argc, char **argv)
{
    iopts o = {.batch = 32, .seq = 384, .stride = 128, .warmup = 1, .seed = 42};
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
    if (o.threads <= 0) o.threads = si && si->cores > 0 ? si->cores : omp_get_max_threads();
    omp_set_num_threads((int)o.threads);
    sb_quant_mode qmode = SB_QUANT_PER_ROW;
    if (o.quant) sb_quant_mode_parse(o.quant, &qmode);

    /* The kernel: unknown is bad usage, one this machine cannot run a skip. */
    const sb_kernel *k = o.kernel ? sb_kernel_find(o.kernel) : default_kernel();
    if (!k) {
        return sb_cli_usage_error("infer", "unknown kernel '%s' (known: %s)", o.kernel,
                                  sb_kernel_names());
    }
    char why[256] = "";
    if (!k->probe(why, sizeof why)) {
        sb_errf(&e, SB_ESKIP, "kernel %s cannot run on this machine: %s", k->name, why);
        if (o.result_file) {
            json_t *doc = result_doc("skipped", e.msg, k, &o, NULL, argc, argv);
            sb_err e2;
            if (sb_result_write(o.result_file, doc, &e2)) sb_cli_report("infer", &e2);
            json_decref(doc);
        }
        return sb_cli_report("infer", &e);
    }

    int rc = SB_OK, code = 0;
    sb_hf_model hf = {0};
    int have_hf = 0, have_model = 0, have_vocab = 0, have_set = 0, have_feat = 0;
    sb_vocab vocab;
    sb_squad_set set = {0};
    int32_t n_all = 0;
    sb_features f = {0};
    sb_model m;
    sb_infer *inf = NULL;
    sb_squad_predictions preds = {0}, preds32 = {0};
    double *lat = NULL, *batch_s = NULL;
    json_t *doc = NULL;
    sb_model_config mc;

    /* The model's shape, the vocabulary, the questions. */
    if (o.init) {
        if ((rc = sb_hf_read_dir(o.init, &hf, &e))) goto bad;
        have_hf = 1;
        if (!hf.has_qa_head) {
            rc = sb_errf(&e, SB_EUSAGE,
                         "%s has no qa_outputs: it is not a question-answering model", o.init);
            goto bad;
        }
        if ((rc = sb_checkpoint_model_config(&hf.cfg, o.init, &mc, &e))) goto bad;
    } else if ((rc = sb_model_config_parse(o.model ? o.model : "distilbert-base", &mc, &e))) {
        goto bad;
    }
    if (o.seq > mc.max_pos) {
        rc = sb_errf(&e, SB_EUSAGE, "--seq %ld is longer than the model's %d positions", o.seq,
                     mc.max_pos);
        goto bad;
    }
    if ((rc = o.vocab ? sb_vocab_load(o.vocab, &vocab, &e) : sb_vocab_builtin_synth(&vocab, &e)))
        goto bad;
    have_vocab = 1;
    if (!o.init && o.model && strcmp(o.model, "distilbert-base") &&
        strcmp(o.model, "distilbert-base-uncased"))
        mc.vocab = vocab.size; /* tiny and L,D,H,F: embeddings for the vocab in use (as train) */
    if (o.init ? vocab.size != mc.vocab : vocab.size > mc.vocab) {
        rc = sb_errf(&e, SB_EUSAGE, "%s has %d tokens but %s expects %d%s",
                     o.vocab ? o.vocab : "the built-in synthetic vocab", vocab.size,
                     o.init ? o.init : "the model", mc.vocab,
                     o.vocab || !o.init ? "" : " (give its --vocab)");
        goto bad;
    }
    if (o.data) {
        if ((rc = sb_squad_load(o.data, &set, &e))) goto bad;
    } else {
        long n = o.synth_dev ? o.synth_dev : (o.requests ? o.requests : SYNTH_DEV);
        fprintf(stderr, "sprbench infer: no --data given: squad-synth dev questions (%ld)\n", n);
        if ((rc = sb_squad_synth((int32_t)n, (uint64_t)o.seed, 1, &set, &e))) goto bad;
    }
    have_set = 1;
    n_all = set.n_examples;
    if (set.n_examples < 1) {
        rc = sb_errf(&e, SB_EUSAGE, "%s holds no questions", o.data ? o.data : "squad-synth");
        goto bad;
    }
    if (o.requests && o.requests < set.n_examples) set.n_examples = (int32_t)o.requests;
    if ((rc = sb_features_build(&vocab, &set, (int32_t)o.seq, (int32_t)o.stride, 1, &f, &e)))
        goto bad;
    have_feat = 1;
    if (f.n < 1) {
        rc = sb_errf(&e, SB_EUSAGE, "%s gives no features", o.data ? o.data : "squad-synth");
        goto bad;
    }

    /* The model, its weights, the inference path. */
    const sb_kernel *mk = sb_infer_attn_kernel(k);
    if (!mk) {
        rc = sb_errf(&e, SB_ESKIP, "no f32 kernel runs the attention of %s here", k->name);
        goto bad;
    }
    if ((rc = sb_model_create(&m, &mc, mk, (int)o.threads, &e))) goto fail;
    have_model = 1;
    m.lc.all_keys = o.full_attention;
    sb_model_init_random(&m, (uint64_t)o.seed);
    if (have_hf) {
        if ((rc = sb_checkpoint_load(&m, &hf, o.init, &e))) goto bad;
        sb_hf_model_free(&hf);
        have_hf = 0;
    }
    int batch = f.n < o.batch ? f.n : (int)o.batch;
    if ((rc = sb_model_alloc_acts_infer(&m, batch, (int)o.seq, &e))) goto fail;
    if ((rc = sb_infer_attach(&m, k, qmode, &inf, &e))) goto bad;

    /* Latency at batch 1, per question. */
    int nq = set.n_examples;
    lat = calloc(nq, sizeof(double));
    batch_s = calloc((f.n + batch - 1) / batch + 1, sizeof(double));
    if (!lat || !batch_s) {
        rc = sb_errf(&e, SB_EFAIL, "out of memory");
        goto fail;
    }
    sb_progress pg;
    if (!o.no_latency) {
        if ((rc = warm_up(&m, &f, 1, o.warmup, &e))) goto fail;
        sb_progress_start(&pg, "latency (batch 1)", nq);
        for (int q = 0; q < nq && !rc; q += 8) {
            int q1 = nq - q < 8 ? nq : q + 8;
            rc = sb_infer_latency(&m, &f, q, q1, lat, &e);
            sb_progress_update(&pg, q1, NULL);
        }
        sb_progress_end(&pg);
        if (rc) goto fail;
    }

    /* Throughput at --batch, and the answers. */
    if ((rc = warm_up(&m, &f, batch, o.warmup, &e))) goto fail;
    m.profile = o.profile;
    memset(m.prof, 0, sizeof m.prof);
    sb_progress_start(&pg, "throughput", f.n);
    double t0 = sb_now();
    rc = predict_all(&m, &set, &f, batch, batch_s, &pg, &preds, &e);
    double thr_s = sb_now() - t0;
    sb_progress_end(&pg);
    m.profile = 0;
    if (rc) goto fail;
    double fwd_s = 0;
    int nbatches = (f.n + batch - 1) / batch;
    for (int i = 0; i < nbatches; i++) fwd_s += batch_s[i];
    const sb_kernel *attn = sb_infer_attn(inf);
    sb_infer_detach(&m, inf);
    inf = NULL;
    int answers = has_answers(&set);
    double em = 0, f1 = 0, em32 = 0, f132 = 0, agree = 0;
    if (answers) sb_squad_score(&set, &preds, &em, &f1, NULL);
    const sb_kernel *k32 = NULL;
    if (o.compare_f32) {
        k32 = k->dtype == SB_DT_F32 ? k : sb_infer_attn_kernel(k);
        if (k32 && k32->dtype != SB_DT_F32) k32 = default_kernel();
        if ((rc = sb_infer_attach(&m, k32, SB_QUANT_PER_ROW, &inf, &e))) goto fail;
        rc = predict_all(&m, &set, &f, batch, NULL, NULL, &preds32, &e);
        sb_infer_detach(&m, inf);
        inf = NULL;
        if (rc) goto fail;
        agree = 100.0 * sb_infer_agreement(&preds, &preds32);
        if (answers) sb_squad_score(&set, &preds32, &em32, &f132, NULL);
    }

    /* The result. */
    double p50 = 0, p90 = 0, p99 = 0;
    if (!o.no_latency) {
        p50 = sb_quantile(lat, nq, 0.50) * 1e3;
        p90 = sb_quantile(lat, nq, 0.90) * 1e3;
        p99 = sb_quantile(lat, nq, 0.99) * 1e3;
    }
    double sps = fwd_s > 0 ? f.n / fwd_s : 0;
    double tps = sps * o.seq;
    json_t *config = json_pack(
        "{s:s, s:s, s:i, s:i, s:i, s:i, s:i, s:i, s:s, s:s, s:b, s:i}", "model",
        o.init ? o.init : (o.model ? o.model : "distilbert-base"), "data",
        o.data ? o.data : "squad-synth", "batch", batch, "seq", (int)o.seq, "stride", (int)o.stride,
        "questions", nq, "features", f.n, "questions_in_data", n_all, "quant",
        k->dtype == SB_DT_INT8 ? sb_quant_mode_name(qmode) : "none", "attention_kernel",
        attn ? attn->name : "", "full_attention", o.full_attention, "warmup", (int)o.warmup);
    json_object_set_new(config, "layers_isa", json_string(sb_layers_isa()));
    if (k->impl && k->impl()) json_object_set_new(config, "impl", json_string(k->impl()));
    doc = result_doc("ok", "", k, &o, config, argc, argv);
    json_t *samples = json_array();
    for (int i = 0; i < nbatches; i++) json_array_append_new(samples, json_real(batch_s[i]));
    json_object_set_new(doc, "samples", samples);
    if (!o.no_latency) {
        json_t *ls = json_array();
        for (int i = 0; i < nq; i++) json_array_append_new(ls, json_real(lat[i]));
        json_object_set_new(doc, "latency_samples", ls);
    }
    json_t *met = json_object(), *units = json_object();
#define MET(name, val, unit)                                 \
    do {                                                     \
        json_object_set_new(met, name, json_real(val));      \
        json_object_set_new(units, name, json_string(unit)); \
    } while (0)
    MET("sequences_per_s", sps, "sequences/s");
    MET("tokens_per_s", tps, "tokens/s");
    MET("batch_seconds", nbatches ? fwd_s / nbatches : 0, "s");
    if (!o.no_latency) {
        MET("latency_p50_ms", p50, "ms");
        MET("latency_p90_ms", p90, "ms");
        MET("latency_p99_ms", p99, "ms");
    }
    if (answers) {
        MET("em", em, "%");
        MET("f1", f1, "%");
    }
    if (o.compare_f32) {
        MET("f32_agreement_pct", agree, "%");
        if (answers) {
            MET("f32_em", em32, "%");
            MET("f32_f1", f132, "%");
        }
    }
    MET("peak_rss_mb", sb_result_peak_rss_mb(), "MiB");
#undef MET
    json_object_set_new(doc, "metrics", met);
    json_object_set_new(doc, "units", units);
    json_object_set_new(doc, "projected", json_object());
    if (o.out && (rc = sb_squad_predictions_write(o.out, &preds, &e))) goto fail;
    if (o.result_file && (rc = sb_result_write(o.result_file, doc, &e))) goto fail;

    int q8 = k->dtype == SB_DT_INT8;
    printf("inferred %d questions (%d features, seq %ld) with %s (%s%s%s%s), %ld threads\n", nq,
           f.n, o.seq, k->name, sb_dtype_name(k->dtype), q8 ? ", activations per " : "",
           !q8                               ? ""
               : qmode & SB_QUANT_PER_TENSOR ? "tensor"
                                             : "row",
           q8 && (qmode & SB_QUANT_7BIT) ? ", 7 bits" : "", o.threads);
    if (!o.no_latency)
        printf("latency at batch 1: p50 %.1f ms, p90 %.1f ms, p99 %.1f ms per question\n", p50, p90,
               p99);
    printf("throughput at batch %d: %.2f sequences/s, %.0f tokens/s (%.1f s, %d batches)\n", batch,
           sps, tps, thr_s, nbatches);
    if (answers) printf("exact match %.2f, F1 %.2f\n", em, f1);
    if (o.compare_f32)
        printf("f32 (%s): %.2f %% identical answers%s", k32->name, agree, answers ? "" : "\n");
    if (o.compare_f32 && answers) printf("; f32 exact match %.2f, F1 %.2f\n", em32, f132);
    printf("peak RSS %.0f MiB\n", sb_result_peak_rss_mb());
    if (o.profile) {
        /* the forward's own kinds; the int8 activations' quantisation is in its linear's */
        double sum = 0;
        for (int i = 0; i < SB_PROF_N; i++) sum += m.prof[i];
        printf("profile (throughput pass, %.2f s; quantisation counted in each linear, GELU in "
               "ffn lin2):\n",
               sum);
        for (int i = 0; i < SB_PROF_N; i++)
            if (m.prof[i] > 0)
                printf("  %-18s %9.3f s  %5.1f %%\n", sb_prof_names[i], m.prof[i],
                       sum > 0 ? 100 * m.prof[i] / sum : 0);
    }
    goto done;
bad:
    code = sb_cli_report("infer", &e);
    code = code == SB_EUSAGE ? SB_EUSAGE : code == SB_ESKIP ? SB_ESKIP : 1;
    goto done;
fail:
    code = sb_cli_report("infer", &e);
    if (code != SB_EUSAGE) code = 1;
done:
    if (inf) sb_infer_detach(have_model ? &m : NULL, inf);
    json_decref(doc);
    free(lat);
    free(batch_s);
    sb_squad_predictions_free(&preds);
    sb_squad_predictions_free(&preds32);
    if (have_model) sb_model_free(&m);
    if (have_feat) sb_features_free(&f);
    if (have_set) {
        set.n_examples = n_all;
        sb_squad_free(&set);
    }
    if (have_vocab) sb_vocab_free(&vocab);
    if (have_hf) sb_hf_model_free(&hf);
    return code;
}
