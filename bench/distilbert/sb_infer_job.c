#include "sb_infer_job.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sb_checkpoint.h"
#include "sb_layers.h"
#include "sb_progress.h"
#include "sb_result.h"
#include "sb_squad_synth.h"
#include "sb_stats.h"

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

/* The model's shape, the vocabulary, the questions and their features. */
static int load_inputs(sb_infer_job *j, const sb_infer_opts *o, sb_model_config *mc, sb_err *e)
{
    int rc;
    if (o->init) {
        if ((rc = sb_hf_read_dir(o->init, &j->hf, e))) return rc;
        j->have_hf = 1;
        if (!j->hf.has_qa_head)
            return sb_errf(e, SB_EUSAGE,
                           "%s has no qa_outputs: it is not a question-answering model", o->init);
        if ((rc = sb_checkpoint_model_config(&j->hf.cfg, o->init, mc, e))) return rc;
    } else if ((rc = sb_model_config_parse(o->model ? o->model : "distilbert-base", mc, e))) {
        return rc;
    }
    if (o->seq > mc->max_pos)
        return sb_errf(e, SB_EUSAGE, "--seq %ld is longer than the model's %d positions", o->seq,
                       mc->max_pos);
    if ((rc = o->vocab ? sb_vocab_load(o->vocab, &j->vocab, e)
                       : sb_vocab_builtin_synth(&j->vocab, e)))
        return rc;
    j->have_vocab = 1;
    if (!o->init && o->model && strcmp(o->model, "distilbert-base") &&
        strcmp(o->model, "distilbert-base-uncased"))
        mc->vocab =
            j->vocab.size; /* tiny and L,D,H,F: embeddings for the vocab in use (as train) */
    if (o->init ? j->vocab.size != mc->vocab : j->vocab.size > mc->vocab)
        return sb_errf(e, SB_EUSAGE, "%s has %d tokens but %s expects %d%s",
                       o->vocab ? o->vocab : "the built-in synthetic vocab", j->vocab.size,
                       o->init ? o->init : "the model", mc->vocab,
                       o->vocab || !o->init ? "" : " (give its --vocab)");
    if (o->data) {
        if ((rc = sb_squad_load(o->data, &j->set, e))) return rc;
    } else {
        long n = o->synth_dev ? o->synth_dev : (o->requests ? o->requests : SB_INFER_SYNTH_DEV);
        if (o->note) {
            char line[128];
            snprintf(line, sizeof line, "no --data given: squad-synth dev questions (%ld)", n);
            o->note(line);
        }
        if ((rc = sb_squad_synth((int32_t)n, (uint64_t)o->seed, 1, SB_SYNTH_SHORT, &j->set, e))) return rc;
    }
    j->have_set = 1;
    j->n_all = j->set.n_examples;
    if (j->set.n_examples < 1)
        return sb_errf(e, SB_EUSAGE, "%s holds no questions", o->data ? o->data : "squad-synth");
    if (o->requests && o->requests < j->set.n_examples) j->set.n_examples = (int32_t)o->requests;
    if ((rc = sb_features_build(&j->vocab, &j->set, (int32_t)o->seq, (int32_t)o->stride, 1, &j->f,
                                e)))
        return rc;
    j->have_feat = 1;
    if (j->f.n < 1)
        return sb_errf(e, SB_EUSAGE, "%s gives no features", o->data ? o->data : "squad-synth");
    return SB_OK;
}

int sb_infer_job_run(sb_infer_job *j, const sb_infer_opts *o, sb_err *e)
{
    int rc;
    j->qmode = SB_QUANT_PER_ROW;
    if (o->quant) sb_quant_mode_parse(o->quant, &j->qmode);
    /* The kernel: unknown is bad usage, one this machine cannot run a skip. */
    const sb_kernel *k = o->kernel ? sb_kernel_find(o->kernel) : sb_layers_default_kernel();
    if (!k)
        return sb_errf(e, SB_EUSAGE, "unknown kernel '%s' (known: %s)", o->kernel,
                       sb_kernel_names());
    j->k = k;
    int attn8 = j->attn8 = o->attention && !strcmp(o->attention, "int8");
    if (attn8 && k->dtype != SB_DT_INT8)
        return sb_errf(e, SB_EUSAGE, "--attention int8 needs an int8 kernel; %s computes in %s",
                       k->name, sb_dtype_name(k->dtype));
    char why[256] = "";
    if (!k->probe(why, sizeof why)) {
        j->kernel_skipped = 1;
        return sb_errf(e, SB_ESKIP, "kernel %s cannot run on this machine: %s", k->name, why);
    }
    sb_model_config mc;
    if ((rc = load_inputs(j, o, &mc, e))) return rc;

    /* The model, its weights, the inference path. */
    const sb_kernel *mk = sb_infer_attn_kernel(k);
    if (!mk) return sb_errf(e, SB_ESKIP, "no f32 kernel runs the attention of %s here", k->name);
    if ((rc = sb_model_create(&j->m, &mc, mk, (int)o->threads, e))) return rc;
    j->have_model = 1;
    sb_model *m = &j->m;
    const sb_features *f = &j->f;
    m->lc.all_keys = o->full_attention;
    sb_model_init_random(m, (uint64_t)o->seed);
    if (j->have_hf) {
        if ((rc = sb_checkpoint_load(m, &j->hf, o->init, e))) return rc;
        sb_hf_model_free(&j->hf);
        j->have_hf = 0;
    }
    int batch = j->batch = f->n < o->batch ? f->n : (int)o->batch;
    if ((rc = sb_model_alloc_acts_infer(m, batch, (int)o->seq, e))) return rc;
    if ((rc = sb_infer_attach(m, k, j->qmode, &j->inf, e))) return rc;
    if (attn8 && (rc = sb_infer_int8_attention(m, j->inf, e))) return rc;

    /* Latency at batch 1, per question. */
    int nq = j->nq = j->set.n_examples;
    j->lat = calloc(nq, sizeof(double));
    j->batch_s = calloc((f->n + batch - 1) / batch + 1, sizeof(double));
    if (!j->lat || !j->batch_s) return sb_errf(e, SB_EFAIL, "out of memory");
    sb_progress pg;
    if (!o->no_latency) {
        if ((rc = warm_up(m, f, 1, o->warmup, e))) return rc;
        sb_progress_start(&pg, "latency (batch 1)", nq);
        for (int q = 0; q < nq && !rc; q += 8) {
            int q1 = nq - q < 8 ? nq : q + 8;
            rc = sb_infer_latency(m, f, q, q1, j->lat, e);
            sb_progress_update(&pg, q1, NULL);
        }
        sb_progress_end(&pg);
        if (rc) return rc;
    }

    /* Throughput at --batch, and the answers. */
    if ((rc = warm_up(m, f, batch, o->warmup, e))) return rc;
    m->profile = o->profile;
    memset(m->prof, 0, sizeof m->prof);
    sb_progress_start(&pg, "throughput", f->n);
    double t0 = sb_now();
    rc = predict_all(m, &j->set, f, batch, j->batch_s, &pg, &j->preds, e);
    j->thr_s = sb_now() - t0;
    sb_progress_end(&pg);
    m->profile = 0;
    if (rc) return rc;
    j->nbatches = (f->n + batch - 1) / batch;
    for (int i = 0; i < j->nbatches; i++) j->fwd_s += j->batch_s[i];
    j->attn = sb_infer_attn(j->inf);
    sb_infer_detach(m, j->inf);
    j->inf = NULL;
    j->answers = has_answers(&j->set);
    if (j->answers) sb_squad_score(&j->set, &j->preds, &j->em, &j->f1, NULL);
    if (o->compare_f32) {
        const sb_kernel *k32 = k->dtype == SB_DT_F32 ? k : sb_infer_attn_kernel(k);
        if (k32 && k32->dtype != SB_DT_F32) k32 = sb_layers_default_kernel();
        j->k32 = k32;
        if ((rc = sb_infer_attach(m, k32, SB_QUANT_PER_ROW, &j->inf, e))) return rc;
        rc = predict_all(m, &j->set, f, batch, NULL, NULL, &j->preds32, e);
        sb_infer_detach(m, j->inf);
        j->inf = NULL;
        if (rc) return rc;
        j->agree = 100.0 * sb_infer_agreement(&j->preds, &j->preds32);
        if (j->answers) sb_squad_score(&j->set, &j->preds32, &j->em32, &j->f132, NULL);
    }
    if (!o->no_latency) {
        j->p50 = sb_quantile(j->lat, nq, 0.50) * 1e3;
        j->p90 = sb_quantile(j->lat, nq, 0.90) * 1e3;
        j->p99 = sb_quantile(j->lat, nq, 0.99) * 1e3;
    }
    j->sps = j->fwd_s > 0 ? f->n / j->fwd_s : 0;
    j->tps = j->sps * o->seq;
    return SB_OK;
}

void sb_infer_job_free(sb_infer_job *j)
{
    if (j->inf) sb_infer_detach(j->have_model ? &j->m : NULL, j->inf);
    free(j->lat);
    free(j->batch_s);
    sb_squad_predictions_free(&j->preds);
    sb_squad_predictions_free(&j->preds32);
    if (j->have_model) sb_model_free(&j->m);
    if (j->have_feat) sb_features_free(&j->f);
    if (j->have_set) {
        j->set.n_examples = j->n_all;
        sb_squad_free(&j->set);
    }
    if (j->have_vocab) sb_vocab_free(&j->vocab);
    if (j->have_hf) sb_hf_model_free(&j->hf);
}

json_t *sb_infer_result_json(const sb_infer_job *j, const sb_infer_opts *o, int argc, char **argv,
                             const char *fingerprint)
{
    const sb_kernel *k = j->k;
    json_t *config = json_pack(
        "{s:s, s:s, s:i, s:i, s:i, s:i, s:i, s:i, s:s, s:s, s:b, s:i}", "model",
        o->init ? o->init : (o->model ? o->model : "distilbert-base"), "data",
        o->data ? o->data : "squad-synth", "batch", j->batch, "seq", (int)o->seq, "stride",
        (int)o->stride, "questions", j->nq, "features", j->f.n, "questions_in_data", j->n_all,
        "quant", k->dtype == SB_DT_INT8 ? sb_quant_mode_name(j->qmode) : "none", "attention_kernel",
        j->attn ? j->attn->name : "", "full_attention", o->full_attention, "warmup",
        (int)o->warmup);
    json_object_set_new(config, "layers_isa", json_string(sb_layers_isa()));
    if (k->dtype == SB_DT_INT8)
        json_object_set_new(config, "attention",
                            json_string(j->attn8 ? "int8" : "f32"));
    if (k->impl && k->impl()) json_object_set_new(config, "impl", json_string(k->impl()));
    sb_tune_config_json(config, o->tuning, o->tune, k);
    sb_result_head h = {"infer", k->name, sb_dtype_name(k->dtype), (int)o->threads, 1, 1, 1,
                        "ok",    ""};
    json_t *doc = sb_result_worker(&h, config, argc, argv, fingerprint);
    if (!doc) return NULL;
    json_t *samples = json_array();
    for (int i = 0; i < j->nbatches; i++) json_array_append_new(samples, json_real(j->batch_s[i]));
    json_object_set_new(doc, "samples", samples);
    if (!o->no_latency) {
        json_t *ls = json_array();
        for (int i = 0; i < j->nq; i++) json_array_append_new(ls, json_real(j->lat[i]));
        json_object_set_new(doc, "latency_samples", ls);
    }
    json_t *met = json_object(), *units = json_object();
#define MET(name, val, unit) sb_result_metric(met, units, name, val, unit)
    MET("sequences_per_s", j->sps, "sequences/s");
    MET("tokens_per_s", j->tps, "tokens/s");
    MET("batch_seconds", j->nbatches ? j->fwd_s / j->nbatches : 0, "s");
    if (!o->no_latency) {
        MET("latency_p50_ms", j->p50, "ms");
        MET("latency_p90_ms", j->p90, "ms");
        MET("latency_p99_ms", j->p99, "ms");
    }
    if (j->answers) {
        MET("em", j->em, "%");
        MET("f1", j->f1, "%");
    }
    if (o->compare_f32) {
        MET("f32_agreement_pct", j->agree, "%");
        if (j->answers) {
            MET("f32_em", j->em32, "%");
            MET("f32_f1", j->f132, "%");
        }
    }
    MET("peak_rss_mb", sb_result_peak_rss_mb(), "MiB");
    /* --profile: where a batch's time goes in the throughput pass, per kind */
    if (o->profile && j->nbatches > 0)
        for (int i = 0; i < SB_PROF_N; i++) {
            char name[64];
            sb_prof_metric_name(i, name, sizeof name);
            if (j->m.prof[i] > 0) MET(name, j->m.prof[i] / (double)j->nbatches, "s");
        }
#undef MET
    json_object_set_new(doc, "metrics", met);
    json_object_set_new(doc, "units", units);
    json_object_set_new(doc, "projected", json_object());
    return doc;
}
