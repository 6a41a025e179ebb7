#include "sb_train.h"
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include "sb_adamw.h"
#include "sb_dp.h"

void sb_train_config_default(sb_train_config *c)
{
    *c = (sb_train_config){
        .batch = 32, .epochs = 1, .lr = 5e-5f, .max_grad_norm = 1.0, .seed = 42, .threads = 0};
}

void sb_train_result_free(sb_train_result *r)
{
    free(r->step_seconds);
    free(r->step_loss);
    r->step_seconds = r->step_loss = NULL;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double sb_train_median_step(const sb_train_result *r)
{
    long n = r->steps, first = n > 1 ? 1 : 0;
    if (n == 0) return 0;
    long k = n - first;
    double *v = malloc(sizeof(double) * k);
    memcpy(v, r->step_seconds + first, sizeof(double) * k);
    qsort(v, k, sizeof(double), cmp_double);
    double med = k % 2 ? v[k / 2] : 0.5 * (v[k / 2 - 1] + v[k / 2]);
    free(v);
    return med;
}

/* Copies features idx[0..B) into the batch buffers. */
static void gather(const sb_features *f, const long *idx, int B, int32_t *ids, uint8_t *mask,
                   int32_t *sp, int32_t *ep)
{
    size_t S = f->max_seq;
    for (int b = 0; b < B; b++) {
        long i = idx[b];
        memcpy(ids + b * S, f->input_ids + i * S, S * sizeof(int32_t));
        memcpy(mask + b * S, f->attention_mask + i * S, S);
        sp[b] = f->start_positions[i];
        ep[b] = f->end_positions[i];
    }
}

int sb_train_run(sb_model *m, const sb_features *f, const sb_train_config *cfg,
                 sb_train_result *res, sb_err *e)
{
    memset(res, 0, sizeof *res);
    int B = cfg->batch, S = f->max_seq, rc = SB_OK;
    int rank = cfg->dp ? cfg->dp->rank : 0, world = cfg->dp ? cfg->dp->world : 1;
    if (B < 1) return sb_errf(e, SB_EUSAGE, "batch must be at least 1");
    if (f->n < 1) return sb_errf(e, SB_EUSAGE, "no training features");
    if (B > m->max_batch || S > m->seq)
        return sb_errf(e, SB_EUSAGE, "batch %dx%d exceeds the model's activations", B, S);
    long shard_n = (f->n + world - 1) / world;
    res->steps_per_epoch = (shard_n + B - 1) / B;
    long planned = res->steps_per_epoch * (cfg->epochs > 0 ? cfg->epochs : 1);
    res->total_steps = cfg->max_steps > 0 ? cfg->max_steps : planned;
    res->step_seconds = calloc(res->total_steps, sizeof(double));
    res->step_loss = calloc(res->total_steps, sizeof(double));
    int32_t *ids = malloc(sizeof(int32_t) * B * S), *sp = malloc(sizeof(int32_t) * B);
    int32_t *ep = malloc(sizeof(int32_t) * B);
    uint8_t *mask = malloc((size_t)B * S);
    sb_adamw opt = {0};
    if (!res->step_seconds || !res->step_loss || !ids || !sp || !ep || !mask) {
        rc = sb_errf(e, SB_EFAIL, "out of memory for %ld steps", res->total_steps);
        goto out;
    }
    if ((rc = sb_adamw_init(&opt, m->nparams, e))) goto out;
    if (cfg->dp && cfg->dp->grad_ready) {
        m->on_grad_ready = cfg->dp->grad_ready;
        m->hook_user = cfg->dp->user;
    }
    double t0 = omp_get_wtime();
    long step = 0;
    int stop = 0;
    for (int epoch = 0; !stop && step < res->total_steps; epoch++) {
        long *idx = NULL, count = 0;
        /* DistributedSampler's order (seed + epoch), the same for one rank or many. */
        if ((rc = sb_dp_shard_indices(cfg->seed + epoch, 1, f->n, rank, world, &idx, &count, e)))
            goto out;
        for (long at = 0; at < count && step < res->total_steps; at += B) {
            int nb = (int)(count - at < B ? count - at : B);
            double ts = omp_get_wtime();
            gather(f, idx + at, nb, ids, mask, sp, ep);
            sb_batch bt = {.B = nb, .S = S, .ids = ids, .mask = mask, .start = sp, .end = ep};
            if (cfg->dp && cfg->dp->step_begin)
                cfg->dp->step_begin(cfg->dp->user, ids, (size_t)nb * S);
            uint64_t drop = sb_rng_key(cfg->seed ^ ((uint64_t)rank << 40), (uint64_t)step);
            double loss = 0;
            if ((rc = sb_model_forward(m, &bt, 1, drop, &loss, e))) break;
            if (cfg->poison_step == step + 1) loss = NAN;
            if (!isfinite(loss)) {
                res->failed_step = step + 1;
                rc = sb_errf(e, SB_EFAIL, "loss is %s at step %ld (of %ld): training diverged",
                             isnan(loss) ? "NaN" : "Inf", step + 1, res->total_steps);
                break;
            }
            if ((rc = sb_model_backward(m, &bt, e))) break;
            if (cfg->dp && cfg->dp->wait_all && (rc = cfg->dp->wait_all(cfg->dp->user, e))) break;
            double to = m->profile ? omp_get_wtime() : 0;
            float gscale = sb_clip_coef(m->grads, m->nparams, cfg->max_grad_norm, cfg->threads,
                                        NULL);
            sb_adamw_step_scaled(
                &opt, m->params, m->grads, gscale,
                sb_lr_warmup_linear(cfg->lr, step, res->total_steps, cfg->warmup_steps),
                cfg->threads);
            if (m->profile) m->prof[SB_PROF_OPTIM] += omp_get_wtime() - to;
            double dt = omp_get_wtime() - ts;
            res->step_seconds[step] = dt;
            res->step_loss[step] = loss;
            if (step == 0) res->loss_first = loss;
            res->loss_final = loss;
            step++;
            res->steps = step;
            if (m->profile) {
                /* like the median step, the profile leaves the warm-up step out */
                if (step == 1 && res->total_steps > 1) {
                    memset(m->prof, 0, sizeof m->prof);
                    memset(&m->mm, 0, sizeof m->mm);
                    m->prof_steps = 0;
                } else {
                    m->prof_steps++;
                }
            }
            if (cfg->progress) cfg->progress(cfg->progress_user, step, res->total_steps, loss, dt);
            if (cfg->time_budget > 0 && omp_get_wtime() - t0 >= cfg->time_budget) {
                stop = 1;
                break;
            }
        }
        free(idx);
        if (rc) break;
    }
    res->train_seconds = omp_get_wtime() - t0;
    res->finished_epochs = !rc && step >= planned;
out:
    m->on_grad_ready = NULL;
    sb_adamw_free(&opt);
    free(ids);
    free(sp);
    free(ep);
    free(mask);
    return rc;
}

int sb_train_logits(sb_model *m, const sb_features *f, int batch, float **start, float **end,
                    sb_err *e)
{
    int S = f->max_seq, rc = SB_OK;
    if (batch > m->max_batch) batch = m->max_batch;
    if (S > m->seq)
        return sb_errf(e, SB_EUSAGE, "features of %d tokens exceed the model's %d", S, m->seq);
    float *st = malloc(sizeof(float) * (size_t)f->n * S + 1);
    float *en = malloc(sizeof(float) * (size_t)f->n * S + 1);
    if (!st || !en) {
        free(st);
        free(en);
        return sb_errf(e, SB_EFAIL, "out of memory for %d features' logits", f->n);
    }
    for (long at = 0; at < f->n; at += batch) {
        int nb = (int)(f->n - at < batch ? f->n - at : batch);
        sb_batch bt = {
            .B = nb, .S = S, .ids = f->input_ids + at * S, .mask = f->attention_mask + at * S};
        if ((rc = sb_model_forward(m, &bt, 0, 0, NULL, e))) break;
        for (long t = 0; t < (long)nb * S; t++) {
            st[at * S + t] = m->logits[2 * t];
            en[at * S + t] = m->logits[2 * t + 1];
        }
    }
    if (rc) {
        free(st);
        free(en);
        return rc;
    }
    *start = st;
    *end = en;
    return SB_OK;
}

int sb_train_predict(sb_model *m, const sb_squad_set *set, const sb_features *f, int batch,
                     sb_squad_predictions *preds, double *em, double *f1, sb_err *e)
{
    float *st = NULL, *en = NULL;
    int rc = sb_train_logits(m, f, batch, &st, &en, e);
    if (rc) return rc;
    sb_squad_predictions p = {0};
    rc = sb_squad_postprocess(set, f, st, en, SB_SQUAD_N_BEST, SB_SQUAD_MAX_ANSWER_LEN, &p, e);
    free(st);
    free(en);
    if (rc) return rc;
    if (em && f1) sb_squad_score(set, &p, em, f1, NULL);
    if (preds)
        *preds = p;
    else
        sb_squad_predictions_free(&p);
    return SB_OK;
}
