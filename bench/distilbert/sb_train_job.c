#include "sb_train_job.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sb_bind.h"
#include "sb_checkpoint.h"
#include "sb_infer.h"
#include "sb_layers.h"
#include "sb_progress.h"
#include "sb_result.h"
#include "sb_squad_eval.h"
#include "sb_squad_synth.h"

static void note(const sb_train_opts *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void note(const sb_train_opts *o, const char *fmt, ...)
{
    if (!o->note) return;
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    o->note(line);
}

static int is_tiny(const sb_train_opts *o)
{
    return !o->init && o->model && !strcmp(o->model, "tiny");
}

/* The synthetic set's lengths: tiny learns the short set at seq 32; every
 * other model trains on SQuAD v1.1's lengths, so that a step has the
 * padding of a real epoch's. */
static sb_synth_lengths synth_lengths(const sb_train_opts *o)
{
    return is_tiny(o) ? SB_SYNTH_SHORT : SB_SYNTH_SQUAD;
}

void sb_train_opts_defaults(sb_train_opts *o)
{
    int tiny = is_tiny(o);
    if (!o->set_batch) o->batch = tiny ? SB_TINY_BATCH : 32;
    if (!o->set_seq) o->seq = tiny ? SB_TINY_SEQ : 384;
    if (!o->set_stride) o->stride = tiny ? SB_TINY_STRIDE : 128;
    if (!o->set_epochs) o->epochs = tiny ? SB_TINY_EPOCHS : 1;
    if (!o->set_lr) o->lr = tiny ? SB_TINY_LR : 5e-5;
    if (!o->synth_train) o->synth_train = tiny ? SB_TINY_SYNTH_TRAIN : SB_SYNTH_TRAIN;
    if (!o->synth_dev) o->synth_dev = SB_SYNTH_DEV;
}

int sb_train_opts_check(const sb_train_opts *o, sb_err *e)
{
    sb_bind_mode bm;
    if (o->bind && sb_bind_parse_mode(o->bind, &bm, e)) return e->code;
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
    return SB_OK;
}

int sb_train_pick_kernel(const char *name, const sb_kernel **out, sb_err *e)
{
    const sb_kernel *k = name ? sb_kernel_find(name) : sb_layers_default_kernel();
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

void sb_train_data_free(sb_train_data *d)
{
    if (d->have_ftrain) sb_features_free(&d->ftrain);
    if (d->have_fdev) sb_features_free(&d->fdev);
    if (d->have_train) sb_squad_free(&d->train);
    if (d->have_dev) sb_squad_free(&d->dev);
    if (d->have_vocab) sb_vocab_free(&d->vocab);
}

static int load_vocab(const char *path, sb_train_data *d, sb_err *e)
{
    int rc = path ? sb_vocab_load(path, &d->vocab, e) : sb_vocab_builtin_synth(&d->vocab, e);
    if (!rc) d->have_vocab = 1;
    return rc;
}

/* The share of the features' positions that are padding. */
static double padding_share(const sb_features *f)
{
    size_t all = (size_t)f->n * f->max_seq, real = 0;
    for (size_t i = 0; i < all; i++) real += f->attention_mask[i];
    return all ? 1.0 - (double)real / all : 0.0;
}

/* The vocabulary, the training set and its features, and with --eval the
 * dev set and its features; the model's vocabulary follows the one in use
 * for shapes made here (tiny, L,D,H,F). SB_EUSAGE for data that does not fit. */
static int load_data(const sb_train_opts *o, sb_model_config *mc, sb_train_data *d, sb_err *e)
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
        note(o, "no --train given: training on squad-synth data (%d questions, seed %ld, %s)",
             o->synth_train, o->seed,
             synth_lengths(o) == SB_SYNTH_SQUAD ? "SQuAD v1.1's lengths" : "tiny's short lengths");
        if ((rc = sb_squad_synth(o->synth_train, (uint64_t)o->seed, 0, synth_lengths(o), &d->train,
                                 e)))
            return rc;
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
        } else if ((rc = sb_squad_synth(o->synth_dev, (uint64_t)o->seed, 1, synth_lengths(o),
                                        &d->dev, e))) {
            return rc;
        }
        d->have_dev = 1;
        if ((rc = sb_features_build(&d->vocab, &d->dev, o->seq, o->stride, 1, &d->fdev, e)))
            return rc;
        d->have_fdev = 1;
    }
    return SB_OK;
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

/* The model's shape (a checkpoint's, or --model's), the data, the model. */
static int build_model(sb_train_job *j, const sb_train_opts *o, sb_err *e)
{
    int rc;
    sb_model_config *mc = &j->mc;
    if (o->init) {
        if ((rc = sb_hf_read_dir(o->init, &j->hf, e))) return rc;
        j->have_hf = 1;
        if ((rc = sb_checkpoint_model_config(&j->hf.cfg, o->init, mc, e))) return rc;
        if (o->model) note(o, "--model ignored: the shape comes from %s", o->init);
    } else if ((rc = sb_model_config_parse(o->model ? o->model : "distilbert-base", mc, e))) {
        return rc;
    }
    if (o->set_dropout) mc->dropout = mc->attn_dropout = mc->qa_dropout = (float)o->dropout;
    if (o->seq > mc->max_pos)
        return sb_errf(e, SB_EUSAGE, "--seq %d is longer than the model's %d positions", o->seq,
                       mc->max_pos);
    if (o->stride >= o->seq / 2)
        return sb_errf(e, SB_EUSAGE, "--stride %d must be below half of --seq %d", o->stride,
                       o->seq);
    if ((rc = load_data(o, mc, &j->d, e))) return rc;
    j->failed = 1;
    if ((rc = sb_model_create(&j->m, mc, j->k, o->threads, e))) return rc;
    j->have_model = 1;
    j->m.lc.all_keys = o->full_attention;
    sb_model_init_random(&j->m, (uint64_t)o->seed);
    if (j->have_hf) {
        j->failed = 0;
        if ((rc = sb_checkpoint_load(&j->m, &j->hf, o->init, e))) return rc;
        j->failed = 1;
        sb_hf_model_free(&j->hf);
        j->have_hf = 0;
    }
    if ((rc = sb_model_alloc_acts(&j->m, o->batch, o->seq, e))) return rc;
    j->m.profile = o->profile;
    return SB_OK;
}

static json_t *config_json(const sb_train_job *j, const sb_train_opts *o, double pad_share)
{
    const sb_model_config *mc = &j->mc;
    json_t *config = json_pack(
        "{s:s, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:f, s:f, s:i, s:s, s:s}", "model",
        o->init ? o->init : (o->model ? o->model : "distilbert-base"), "layers", mc->layers, "dim",
        mc->dim, "heads", mc->heads, "ffn", mc->ffn, "vocab", mc->vocab, "batch", o->batch, "seq",
        o->seq, "stride", o->stride, "epochs", o->epochs, "features", j->d.ftrain.n, "lr", o->lr,
        "dropout", (double)mc->dropout, "seed", (int)o->seed, "data",
        o->train ? o->train : "squad-synth", "init", o->init ? o->init : "random");
    if (o->max_steps > 0) json_object_set_new(config, "max_steps", json_integer(o->max_steps));
    if (o->time_budget > 0) json_object_set_new(config, "time_budget", json_real(o->time_budget));
    json_object_set_new(config, "padding_share", json_real(pad_share));
    json_object_set_new(config, "full_attention", json_boolean(o->full_attention));
    /* the instruction set the element-wise code (GELU, LayerNorm, softmax,
     * dropout, AdamW) dispatched to: avx512, avx2 or scalar */
    json_object_set_new(config, "elementwise_isa", json_string(sb_layers_isa()));
    sb_tune_config_json(config, o->tuning, o->tune, j->k);
    return config;
}

int sb_train_job_run(sb_train_job *j, const sb_train_opts *o, sb_err *e)
{
    int rc;
    j->rank = 0;
    j->world = j->nodes = j->ppn = 1;
    j->failed = 0;
    if ((rc = sb_train_pick_kernel(o->kernel, &j->k, e))) return rc;
    if ((rc = build_model(j, o, e))) return rc;
    j->failed = 1;
    j->ro = (sb_train_ranks_opts){.threads = o->threads,
                                  .bind = o->bind,
                                  .comm_threads = o->set_comm ? o->comm_threads : -1,
                                  .overlap = !o->no_overlap,
                                  .bucket_mb = o->bucket_mb,
                                  .sparse = !o->dense_allreduce};
    rc = sb_train_ranks_start(&j->ranks, &j->m, &j->ro, e);
    j->rank = j->ranks.rank;
    j->world = j->ranks.world;
    j->nodes = j->ranks.nodes;
    j->ppn = j->ranks.ppn;
    if (j->ranks.have_bind && j->ranks.bind.warning[0] && j->rank == 0)
        note(o, "%s", j->ranks.bind.warning);
    if (rc) return rc;

    double pad_share = padding_share(&j->d.ftrain);
    j->config = config_json(j, o, pad_share);
    sb_train_config tc;
    sb_train_config_default(&tc);
    tc.batch = o->batch;
    tc.epochs = o->epochs;
    tc.max_steps = o->max_steps;
    tc.time_budget = o->time_budget;
    tc.lr = (float)o->lr;
    tc.seed = (uint64_t)o->seed;
    tc.threads = o->threads;
    tc.warmup_steps = o->warmup;
    tc.dp = j->ranks.dp ? &j->ranks.hooks : NULL;
    const char *poison = getenv("SB_TRAIN_TEST_NAN_STEP"); /* the tests' way to a NaN */
    if (poison) tc.poison_step = atol(poison);
    progress_state ps = {.tokens_per_step = (double)o->batch * o->seq, .t0 = sb_now()};
    long shard = ((long)j->d.ftrain.n + j->world - 1) / j->world; /* this rank's features */
    long planned = (shard + o->batch - 1) / o->batch * o->epochs;
    if (is_tiny(o) && !o->set_warmup)
        tc.warmup_steps = (o->max_steps > 0 ? o->max_steps : planned) * SB_TINY_WARMUP_PCT / 100;
    json_object_set_new(j->config, "warmup_steps", json_integer(tc.warmup_steps));
    long total = o->max_steps > 0 ? o->max_steps : planned;
    ps.every = total >= 10 ? total / 10 : 1;
    sb_progress_start(&ps.bar, "train", total);
    ps.tty = ps.bar.enabled;
    if (j->rank == 0) tc.progress = on_progress;
    tc.progress_user = &ps;
    const sb_model_config *mc = &j->mc;
    if (j->rank == 0)
        note(o,
             "%s model (%d layers, dim %d, %d heads, FFN %d, vocab %d, %.1fM parameters), kernel "
             "%s (%s, element-wise %s), %d threads, %d features (%.0f %% padding%s), batch %d x "
             "%d, %ld steps, %d rank(s)",
             o->init ? o->init : (o->model ? o->model : "distilbert-base"), mc->layers, mc->dim,
             mc->heads, mc->ffn, mc->vocab, j->m.nparams / 1e6, j->k->name,
             sb_dtype_name(j->k->dtype), sb_layers_isa(), o->threads, j->d.ftrain.n,
             100 * pad_share, o->full_attention ? ", attended" : ", skipped by attention", o->batch,
             o->seq, total, j->world);
    rc = sb_train_run(&j->m, &j->d.ftrain, &tc, &j->res, e);
    sb_progress_end(&ps.bar);
    if (rc == SB_EUSAGE) j->failed = 0;
    if (rc) return rc;

    j->m.profile = 0; /* the breakdown is of training steps only */
    if (o->eval && j->rank == 0) {
        double te = sb_now();
        if ((rc = sb_train_predict(&j->m, &j->d.dev, &j->d.fdev, o->batch, NULL, &j->em, &j->f1,
                                   e)))
            return rc;
        j->eval_s = sb_now() - te;
    }
    if (o->save && j->rank == 0 && (rc = sb_checkpoint_save(&j->m, o->save, e))) return rc;

    j->med = sb_train_median_step(&j->res);
    double tokens = (double)o->batch * o->seq * j->world; /* every rank's batch */
    j->tps = j->med > 0 ? tokens / j->med : 0;
    j->gflops = sb_model_flops_per_token(mc, o->seq) * j->tps / 1e9;
    j->projected = !j->res.finished_epochs;
    j->epoch_s = j->projected
        ? j->med * j->res.steps_per_epoch
        : j->res.train_seconds * j->res.steps_per_epoch / (double)j->res.steps;
    /* Per-rank timings and bindings: collectives, so every rank takes part. */
    return sb_train_ranks_gather(&j->ranks, &j->per_rank, &j->dps, e);
}

void sb_train_job_free(sb_train_job *j)
{
    sb_train_ranks_end(&j->ranks);
    sb_train_result_free(&j->res);
    if (j->have_model) sb_model_free(&j->m);
    if (j->have_hf) sb_hf_model_free(&j->hf);
    sb_train_data_free(&j->d);
    json_decref(j->config);
    json_decref(j->per_rank);
    j->config = j->per_rank = NULL;
}

static sb_result_head head(const sb_train_job *j, const sb_train_opts *o, const char *status,
                           const char *reason)
{
    const sb_kernel *k = j->k;
    return (sb_result_head){"train",
                            k ? k->name : (o->kernel ? o->kernel : ""),
                            k ? sb_dtype_name(k->dtype) : "f32",
                            o->threads,
                            1,
                            1,
                            1,
                            status,
                            reason};
}

json_t *sb_train_result_json(sb_train_job *j, const sb_train_opts *o, int argc, char **argv,
                             const char *fingerprint)
{
    sb_result_head h = head(j, o, "ok", "");
    json_t *doc = sb_result_worker(&h, j->config, argc, argv, fingerprint);
    j->config = NULL;
    if (!doc) return NULL;
    if (j->per_rank) json_object_set_new(doc, "per_rank", j->per_rank);
    j->per_rank = NULL;
    json_t *binding = sb_train_ranks_binding_json(&j->ranks, &j->ro);
    if (binding) json_object_set_new(doc, "binding", binding);
    json_object_set_new(doc, "ranks", json_integer(j->world));
    json_object_set_new(doc, "ppn", json_integer(j->ppn));
    json_object_set_new(doc, "nodes", json_integer(j->nodes));
    const sb_train_result *res = &j->res;
    json_t *samples = json_array();
    for (long i = 0; i < res->steps; i++)
        json_array_append_new(samples, json_real(res->step_seconds[i]));
    json_object_set_new(doc, "samples", samples);
    json_t *met = json_object(), *units = json_object();
#define MET(name, val, unit) sb_result_metric(met, units, name, val, unit)
    MET("tokens_per_s", j->tps, "tokens/s");
    MET("sequences_per_s", j->med > 0 ? (double)o->batch * j->world / j->med : 0, "sequences/s");
    MET("step_seconds", j->med, "s");
    MET("achieved_gflops", j->gflops, "GFLOP/s");
    MET("epoch_seconds", j->epoch_s, "s");
    MET("projected", j->projected, "");
    MET("loss_first", res->loss_first, "");
    MET("loss_final", res->loss_final, "");
    MET("steps", res->steps, "");
    MET("steps_per_epoch", res->steps_per_epoch, "");
    /* the padding of the training features (% of positions): a step's cost
     * depends on it, as attention stops at each sequence's last real token */
    MET("padding_pct", 100.0 * padding_share(&j->d.ftrain), "%");
    MET("peak_rss_mb", sb_result_peak_rss_mb(), "MiB");
    const sb_train_ranks_summary *dps = &j->dps;
    if (j->ranks.dp) {
        MET("compute_s", dps->compute_s, "s"); /* forward + backward per step, mean over ranks */
        MET("comm_wait_s", dps->wait_s, "s");  /* all-reduce time not hidden, per step */
        MET("comm_busy_s", dps->comm_s, "s");  /* all-reduce time in total, per step */
        MET("load_imbalance", dps->imbalance, ""); /* (max - min) / mean compute over ranks */
        MET("allreduce_mb_per_step", dps->mb_per_step, "MB"); /* gradient bytes all-reduced */
        if (j->ranks.sparse) MET("embedding_rows_per_step", dps->rows_per_step, ""); /* rows sent */
    }
    if (o->eval) {
        MET("em", j->em, "%");
        MET("f1", j->f1, "%");
    }
    /* --profile: where a step's time goes, per layer kind (seconds per step,
     * so that runs of different lengths and machines compare) */
    if (o->profile && j->m.prof_steps > 0)
        for (int i = 0; i < SB_PROF_N; i++) {
            char name[64];
            sb_prof_metric_name(i, name, sizeof name);
            MET(name, j->m.prof[i] / (double)j->m.prof_steps, "s");
        }
#undef MET
    json_object_set_new(doc, "metrics", met);
    json_object_set_new(doc, "units", units);
    if (j->projected) {
        char from[256];
        snprintf(from, sizeof from,
                 "median of %ld steady-state steps x %ld steps per epoch (run stopped after %ld)",
                 res->steps > 1 ? res->steps - 1 : res->steps, res->steps_per_epoch, res->steps);
        json_object_set_new(doc, "projected", json_pack("{s:s}", "epoch_seconds", from));
    } else {
        json_object_set_new(doc, "projected", json_object());
    }
    return doc;
}

int sb_train_result_status(sb_train_job *j, const sb_train_opts *o, const char *status,
                           const sb_err *why, int argc, char **argv, const char *fingerprint,
                           sb_err *e)
{
    json_t *config = j->config;
    j->config = NULL;
    if (!config) /* before the run had one: what was asked for */
        config = j->k ? json_object()
                      : json_pack("{s:s}", "model", o->model ? o->model : "distilbert-base");
    if (j->res.failed_step)
        json_object_set_new(config, "failed_step", json_integer(j->res.failed_step));
    sb_result_head h = head(j, o, status, why->msg);
    return sb_result_worker_status(o->result_file, &h, config, argc, argv, fingerprint, e);
}

int sb_predict_run(const sb_predict_opts *o, sb_squad_predictions *preds, int *n_features,
                   sb_err *e)
{
    sb_hf_model hf = {0};
    sb_train_data d = {0};
    sb_model m;
    int have_model = 0, have_hf = 0, rc;
    sb_model_config mc;
    if ((rc = sb_hf_read_dir(o->init, &hf, e))) goto done;
    have_hf = 1;
    if (!hf.has_qa_head) {
        rc = sb_errf(e, SB_EUSAGE, "%s has no qa_outputs: it is not a question-answering model",
                     o->init);
        goto done;
    }
    if ((rc = sb_checkpoint_model_config(&hf.cfg, o->init, &mc, e))) goto done;
    if (o->seq > mc.max_pos) {
        rc = sb_errf(e, SB_EUSAGE, "--seq %d is longer than the model's %d positions", o->seq,
                     mc.max_pos);
        goto done;
    }
    if ((rc = load_vocab(o->vocab, &d, e))) goto done;
    if (d.vocab.size != mc.vocab) {
        rc = sb_errf(e, SB_EUSAGE, "%s has %d tokens but %s expects %d%s",
                     o->vocab ? o->vocab : "the built-in synthetic vocab", d.vocab.size, o->init,
                     mc.vocab, o->vocab ? "" : " (give its --vocab)");
        goto done;
    }
    if ((rc = sb_squad_load(o->data, &d.dev, e))) goto done;
    d.have_dev = 1;
    if ((rc = sb_features_build(&d.vocab, &d.dev, o->seq, o->stride, 1, &d.fdev, e))) goto done;
    d.have_fdev = 1;
    if ((rc = sb_model_create(&m, &mc, o->k, o->threads, e))) goto done;
    have_model = 1;
    if ((rc = sb_checkpoint_load(&m, &hf, o->init, e))) goto done;
    sb_hf_model_free(&hf);
    have_hf = 0;
    int nb = d.fdev.n < o->batch ? (d.fdev.n > 0 ? d.fdev.n : 1) : o->batch;
    /* the forward path `sprbench infer` runs (sb_infer) */
    if ((rc = sb_model_alloc_acts_infer(&m, nb, o->seq, e))) goto done;
    sb_infer *inf = NULL;
    if ((rc = sb_infer_attach(&m, o->k, SB_QUANT_PER_ROW, &inf, e))) goto done;
    rc = sb_train_predict(&m, &d.dev, &d.fdev, nb, preds, NULL, NULL, e);
    sb_infer_detach(&m, inf);
    *n_features = d.fdev.n;
done:
    if (have_model) sb_model_free(&m);
    if (have_hf) sb_hf_model_free(&hf);
    sb_train_data_free(&d);
    return rc;
}
