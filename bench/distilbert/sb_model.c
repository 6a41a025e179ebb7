#include "sb_model.h"
#include "sb_attention.h"
#include "sb_mem.h"
#include <ctype.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const sb_prof_names[SB_PROF_N] = {
    "embeddings", "qkv linear", "attention",        "out linear",   "layernorm", "ffn lin1",
    "gelu",       "ffn lin2",   "dropout+residual", "qa head+loss", "optimizer",
};

void sb_prof_metric_name(int i, char *buf, size_t cap)
{
    size_t w = (size_t)snprintf(buf, cap, "prof_");
    for (const char *s = sb_prof_names[i]; *s && w + 3 < cap; s++)
        buf[w++] = isalnum((unsigned char)*s) ? *s : '_';
    snprintf(buf + w, cap - w, "_s");
}

void sb_model_config_base(sb_model_config *c)
{
    *c = (sb_model_config){.vocab = 30522,
                           .dim = 768,
                           .layers = 6,
                           .heads = 12,
                           .ffn = 3072,
                           .max_pos = 512,
                           .dropout = 0.1f,
                           .attn_dropout = 0.1f,
                           .qa_dropout = 0.1f,
                           .ln_eps = 1e-12f,
                           .pad_id = 0};
}

void sb_model_config_tiny(sb_model_config *c)
{
    sb_model_config_base(c);
    c->layers = 2;
    c->dim = 64;
    c->heads = 4;
    c->ffn = 256;
}

int sb_model_config_check(const sb_model_config *c, sb_err *e)
{
    if (c->vocab < 1 || c->dim < 1 || c->layers < 1 || c->heads < 1 || c->ffn < 1 || c->max_pos < 1)
        return sb_errf(e, SB_EUSAGE, "model: every size must be positive");
    if (c->dim % c->heads)
        return sb_errf(e, SB_EUSAGE, "model: dim %d is not a multiple of heads %d", c->dim,
                       c->heads);
    if (c->pad_id < 0 || c->pad_id >= c->vocab)
        return sb_errf(e, SB_EUSAGE, "model: pad id %d outside the vocabulary", c->pad_id);
    return SB_OK;
}

int sb_model_config_parse(const char *spec, sb_model_config *c, sb_err *e)
{
    if (!strcmp(spec, "distilbert-base") || !strcmp(spec, "distilbert-base-uncased")) {
        sb_model_config_base(c);
        return SB_OK;
    }
    if (!strcmp(spec, "tiny")) {
        sb_model_config_tiny(c);
        return SB_OK;
    }
    int L, D, H, F;
    char tail;
    if (sscanf(spec, "%d,%d,%d,%d%c", &L, &D, &H, &F, &tail) != 4)
        return sb_errf(e, SB_EUSAGE, "--model: '%s' is not distilbert-base, tiny or L,D,H,F", spec);
    if (L < 1 || L > 96 || D < 1 || D > 16384 || H < 1 || F < 1 || F > 65536)
        return sb_errf(e, SB_EUSAGE, "--model: '%s' has a size out of range", spec);
    sb_model_config_base(c);
    c->layers = L;
    c->dim = D;
    c->heads = H;
    c->ffn = F;
    return sb_model_config_check(c, e);
}

static size_t layer_size(const sb_model_config *c)
{
    size_t D = c->dim, F = c->ffn;
    return 3 * D * D + 3 * D + D * D + D + 2 * D + F * D + F + D * F + D + 2 * D;
}

size_t sb_model_param_count(const sb_model_config *c)
{
    size_t D = c->dim;
    return (size_t)c->vocab * D + (size_t)c->max_pos * D + 2 * D + c->layers * layer_size(c) +
        2 * D + 2;
}

double sb_model_flops_per_token(const sb_model_config *c, int S)
{
    double f[SB_PROF_N], sum = 0;
    sb_model_prof_flops(c, S, f);
    for (int i = 0; i < SB_PROF_N; i++) sum += f[i];
    return sum;
}

void sb_model_prof_flops(const sb_model_config *c, int S, double f[SB_PROF_N])
{
    /* forward 2 m n k per product, backward twice that (input and weight
     * gradients): 6 per weight per token; attention 4 S D per token and
     * layer forward (Q K^T and P V), twice that backward */
    double D = c->dim, F = c->ffn, L = c->layers;
    for (int i = 0; i < SB_PROF_N; i++) f[i] = 0;
    f[SB_PROF_QKV] = 6.0 * L * 3 * D * D;
    f[SB_PROF_OUTLIN] = 6.0 * L * D * D;
    f[SB_PROF_FFN1] = 6.0 * L * D * F;
    f[SB_PROF_FFN2] = 6.0 * L * D * F;
    f[SB_PROF_HEAD] = 6.0 * 2 * D;
    f[SB_PROF_ATTN] = 12.0 * L * S * D;
}

/* ---- tensor table */
static void add_tensor(sb_model *m, const char *name, int ndim, int64_t d0, int64_t d1,
                       const float *view)
{
    sb_tensor_info *t = &m->tensors[m->ntensors++];
    snprintf(t->name, sizeof t->name, "%s", name);
    t->ndim = ndim;
    t->shape[0] = d0;
    t->shape[1] = ndim == 2 ? d1 : 0;
    t->offset = (size_t)(view - m->params);
    t->count = (size_t)d0 * (ndim == 2 ? (size_t)d1 : 1);
}

static void carve(sb_weights *w, float *base, const sb_model_config *c, size_t *block_off,
                  size_t *block_len)
{
    size_t D = c->dim, F = c->ffn, off = 0;
    float *p = base;
#define TAKE(ptr, n)     \
    do {                 \
        (ptr) = p + off; \
        off += (n);      \
    } while (0)
    TAKE(w->wte, (size_t)c->vocab * D);
    TAKE(w->wpe, (size_t)c->max_pos * D);
    TAKE(w->emb_g, D);
    TAKE(w->emb_b, D);
    if (block_off) {
        block_off[0] = 0;
        block_len[0] = off;
    }
    for (int l = 0; l < c->layers; l++) {
        sb_layer_w *x = &w->layer[l];
        size_t start = off;
        TAKE(x->qkv_w, 3 * D * D);
        TAKE(x->qkv_b, 3 * D);
        TAKE(x->o_w, D * D);
        TAKE(x->o_b, D);
        TAKE(x->sa_g, D);
        TAKE(x->sa_b, D);
        TAKE(x->f1_w, F * D);
        TAKE(x->f1_b, F);
        TAKE(x->f2_w, D * F);
        TAKE(x->f2_b, D);
        TAKE(x->out_g, D);
        TAKE(x->out_b, D);
        if (block_off) {
            block_off[1 + l] = start;
            block_len[1 + l] = off - start;
        }
    }
    size_t start = off;
    TAKE(w->qa_w, 2 * D);
    TAKE(w->qa_b, 2);
    if (block_off) {
        block_off[1 + c->layers] = start;
        block_len[1 + c->layers] = off - start;
    }
#undef TAKE
}

int sb_model_create(sb_model *m, const sb_model_config *cfg, const sb_kernel *k, int threads,
                    sb_err *e)
{
    memset(m, 0, sizeof *m);
    int rc = sb_model_config_check(cfg, e);
    if (rc) return rc;
    m->cfg = *cfg;
    m->lc.kernel = k;
    m->lc.threads = threads;
    m->nparams = sb_model_param_count(cfg);
    int L = cfg->layers;
    m->params = sb_alloc_big(m->nparams * sizeof(float));
    m->grads = sb_alloc_big(m->nparams * sizeof(float));
    if (m->params) memset(m->params, 0, m->nparams * sizeof(float));
    if (m->grads) memset(m->grads, 0, m->nparams * sizeof(float));
    m->w.layer = calloc(L, sizeof(sb_layer_w));
    m->g.layer = calloc(L, sizeof(sb_layer_w));
    m->block_off = calloc(L + 2, sizeof(size_t));
    m->block_len = calloc(L + 2, sizeof(size_t));
    m->tensors = calloc(6 + 16 * (size_t)L, sizeof(sb_tensor_info));
    if (!m->params || !m->grads || !m->w.layer || !m->g.layer || !m->block_off || !m->block_len ||
        !m->tensors) {
        sb_model_free(m);
        return sb_errf(e, SB_EFAIL, "model: out of memory for %zu parameters", m->nparams);
    }
    carve(&m->w, m->params, cfg, m->block_off, m->block_len);
    carve(&m->g, m->grads, cfg, NULL, NULL);

    int64_t D = cfg->dim, F = cfg->ffn;
    char nm[96];
    add_tensor(m, "distilbert.embeddings.word_embeddings.weight", 2, cfg->vocab, D, m->w.wte);
    add_tensor(m, "distilbert.embeddings.position_embeddings.weight", 2, cfg->max_pos, D, m->w.wpe);
    add_tensor(m, "distilbert.embeddings.LayerNorm.weight", 1, D, 0, m->w.emb_g);
    add_tensor(m, "distilbert.embeddings.LayerNorm.bias", 1, D, 0, m->w.emb_b);
    static const char *const qkv[3] = {"q_lin", "k_lin", "v_lin"};
    for (int l = 0; l < L; l++) {
        const sb_layer_w *x = &m->w.layer[l];
        const char *pre = "distilbert.transformer.layer";
        for (int i = 0; i < 3; i++) {
            snprintf(nm, sizeof nm, "%s.%d.attention.%s.weight", pre, l, qkv[i]);
            add_tensor(m, nm, 2, D, D, x->qkv_w + i * D * D);
            snprintf(nm, sizeof nm, "%s.%d.attention.%s.bias", pre, l, qkv[i]);
            add_tensor(m, nm, 1, D, 0, x->qkv_b + i * D);
        }
        /* the rest of the layer: HF name, rows, columns (0: a vector), view */
        const struct {
            const char *name;
            int64_t d0, d1;
            const float *view;
        } t[] = {
            {"attention.out_lin.weight", D, D, x->o_w},
            {"attention.out_lin.bias", D, 0, x->o_b},
            {"sa_layer_norm.weight", D, 0, x->sa_g},
            {"sa_layer_norm.bias", D, 0, x->sa_b},
            {"ffn.lin1.weight", F, D, x->f1_w},
            {"ffn.lin1.bias", F, 0, x->f1_b},
            {"ffn.lin2.weight", D, F, x->f2_w},
            {"ffn.lin2.bias", D, 0, x->f2_b},
            {"output_layer_norm.weight", D, 0, x->out_g},
            {"output_layer_norm.bias", D, 0, x->out_b},
        };
        for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
            snprintf(nm, sizeof nm, "%s.%d.%s", pre, l, t[i].name);
            add_tensor(m, nm, t[i].d1 ? 2 : 1, t[i].d0, t[i].d1, t[i].view);
        }
    }
    add_tensor(m, "qa_outputs.weight", 2, 2, D, m->w.qa_w);
    add_tensor(m, "qa_outputs.bias", 1, 2, 0, m->w.qa_b);
    return SB_OK;
}

const sb_tensor_info *sb_model_tensor(const sb_model *m, const char *hf_name)
{
    for (int i = 0; i < m->ntensors; i++)
        if (!strcmp(m->tensors[i].name, hf_name)) return &m->tensors[i];
    return NULL;
}

void sb_model_init_random(sb_model *m, uint64_t seed) { sb_model_init_random_std(m, seed, 0.02f); }

void sb_model_init_random_std(sb_model *m, uint64_t seed, float std)
{
    const sb_model_config *c = &m->cfg;
    size_t D = c->dim;
    for (int i = 0; i < m->ntensors; i++) {
        const sb_tensor_info *t = &m->tensors[i];
        float *p = m->params + t->offset;
        const char *nm = t->name;
        size_t len = strlen(nm);
        int is_norm = strstr(nm, "LayerNorm") || strstr(nm, "layer_norm");
        int is_bias = len > 5 && !strcmp(nm + len - 5, ".bias");
        if (is_bias) {
            memset(p, 0, t->count * sizeof(float));
        } else if (is_norm) {
            for (size_t j = 0; j < t->count; j++) p[j] = 1.0f;
        } else {
            uint64_t key = sb_rng_key(seed, 1000 + (uint64_t)i);
#pragma omp parallel for schedule(static)
            for (size_t j = 0; j < t->count; j++) p[j] = std * sb_rng_normal(key, j);
        }
    }
    memset(m->w.wte + (size_t)c->pad_id * D, 0, D * sizeof(float));
}

void sb_model_free(sb_model *m)
{
    free(m->params);
    free(m->grads);
    free(m->w.layer);
    free(m->g.layer);
    free(m->block_off);
    free(m->block_len);
    free(m->tensors);
    free(m->la);
    free(m->act_mem);
    memset(m, 0, sizeof *m);
}

/* What both allocations check first, and the activations they replace. */
static int acts_begin(sb_model *m, int max_batch, int seq, sb_err *e)
{
    const sb_model_config *c = &m->cfg;
    if (max_batch < 1) return sb_errf(e, SB_EUSAGE, "batch must be at least 1");
    if (seq < 1 || seq > c->max_pos)
        return sb_errf(e, SB_EUSAGE,
                       "sequence length %d is outside [1, %d] (the model's positions)", seq,
                       c->max_pos);
    free(m->act_mem);
    free(m->la);
    m->act_mem = NULL;
    m->la = NULL;
    return SB_OK;
}

/* The layers' activation records and one block of `total` floats for them. */
static int acts_take(sb_model *m, size_t layers, size_t total, sb_err *e)
{
    m->la = calloc(layers, sizeof(sb_layer_acts));
    /* Not zeroed: the pages are touched first by the threads that use them. */
    m->act_mem = sb_alloc_big(total * sizeof(float));
    if (!m->la || !m->act_mem) {
        free(m->la);
        free(m->act_mem);
        m->la = NULL;
        m->act_mem = NULL;
        return sb_errf(e, SB_EFAIL, "model: out of memory for activations (%.1f GiB)",
                       total * 4.0 / (1 << 30));
    }
    m->act_floats = total;
    return SB_OK;
}

int sb_model_alloc_acts(sb_model *m, int max_batch, int seq, sb_err *e)
{
    const sb_model_config *c = &m->cfg;
    int rc = acts_begin(m, max_batch, seq, e);
    if (rc) return rc;
    size_t N = (size_t)max_batch * seq, D = c->dim, F = c->ffn, H = c->heads, S = seq;
    size_t L = c->layers, T = m->lc.threads > 0 ? m->lc.threads : omp_get_max_threads();
    size_t ffw = F > 3 * D ? F : 3 * D;
    size_t per_layer = 3 * N * D + max_batch * H * S * S +
        sb_attention_bits_words((int)max_batch, (int)H, (int)S) + N * D + N * D + 2 * N + N * D +
        N * F + N * D + 2 * N + N * D;
    size_t total = N * D + 2 * N + N * D + L * per_layer + N * D + 2 * N * 2 + 2 * N * D + N * ffw +
        T * 2 * S * S;
    if ((rc = acts_take(m, L, total, e))) return rc;
    float *p = m->act_mem;
#define TAKE(ptr, n) \
    do {             \
        (ptr) = p;   \
        p += (n);    \
    } while (0)
    TAKE(m->emb_in, N * D);
    TAKE(m->emb_mean, N);
    TAKE(m->emb_rstd, N);
    TAKE(m->h0, N * D);
    for (size_t l = 0; l < L; l++) {
        sb_layer_acts *a = &m->la[l];
        TAKE(a->qkv, 3 * N * D);
        TAKE(a->probs, max_batch * H * S * S);
        a->keep = (uint32_t *)p; /* 32-bit words, as many as floats */
        p += sb_attention_bits_words((int)max_batch, (int)H, (int)S);
        TAKE(a->ctx, N * D);
        TAKE(a->sa_in, N * D);
        TAKE(a->sa_mean, N);
        TAKE(a->sa_rstd, N);
        TAKE(a->sa_out, N * D);
        TAKE(a->ff_pre, N * F);
        TAKE(a->out_in, N * D);
        TAKE(a->out_mean, N);
        TAKE(a->out_rstd, N);
        TAKE(a->out, N * D);
    }
    TAKE(m->qa_in, N * D);
    TAKE(m->logits, 2 * N);
    TAKE(m->dlogits, 2 * N);
    TAKE(m->s_a, N * D);
    TAKE(m->s_b, N * D);
    TAKE(m->s_ff, N * ffw);
    TAKE(m->s_attn, T * 2 * S * S);
#undef TAKE
    m->s_qkv = m->s_ff; /* attention's and the FFN's backward never overlap */
    m->s_c = m->s_b;
    m->max_batch = max_batch;
    m->seq = seq;
    m->fwd_only = 0;
    return SB_OK;
}

int sb_model_alloc_acts_infer(sb_model *m, int max_batch, int seq, sb_err *e)
{
    const sb_model_config *c = &m->cfg;
    int rc = acts_begin(m, max_batch, seq, e);
    if (rc) return rc;
    size_t N = (size_t)max_batch * seq, D = c->dim, F = c->ffn, S = seq;
    size_t L = c->layers, T = m->lc.threads > 0 ? m->lc.threads : omp_get_max_threads();
    /* embeddings; one layer's qkv, ctx, sa_in, sa_out, ff_pre, out_in, three
     * mean/rstd pairs; two outputs; qa_in, logits (x2), GELU output,
     * attention scratch. No probabilities nor dropout bits: nothing runs
     * backward, and attention normalises its output rows instead of P. */
    size_t total = 2 * N * D + 2 * N + 3 * N * D + 5 * N * D + N * F + 4 * N + 2 * N * D + N * D +
        4 * N + N * F + T * (S * S + 3 * S);
    if ((rc = acts_take(m, L, total, e))) return rc;
    float *p = m->act_mem, *outs[2];
    sb_layer_acts one;
#define TAKE(ptr, n) \
    do {             \
        (ptr) = p;   \
        p += (n);    \
    } while (0)
    TAKE(m->emb_in, N * D);
    TAKE(m->emb_mean, N);
    TAKE(m->emb_rstd, N);
    TAKE(m->h0, N * D);
    TAKE(one.qkv, 3 * N * D);
    one.probs = NULL;
    one.keep = NULL;
    TAKE(one.ctx, N * D);
    TAKE(one.sa_in, N * D);
    TAKE(one.sa_mean, N);
    TAKE(one.sa_rstd, N);
    TAKE(one.sa_out, N * D);
    TAKE(one.ff_pre, N * F);
    TAKE(one.out_in, N * D);
    TAKE(one.out_mean, N);
    TAKE(one.out_rstd, N);
    TAKE(outs[0], N * D);
    TAKE(outs[1], N * D);
    /* layer l reads layer l-1's output while it writes its own */
    for (size_t l = 0; l < L; l++) {
        m->la[l] = one;
        m->la[l].out = outs[l & 1];
    }
    TAKE(m->qa_in, N * D);
    TAKE(m->logits, 2 * N);
    TAKE(m->dlogits, 2 * N);
    TAKE(m->s_ff, N * F);
    TAKE(m->s_attn, T * (S * S + 3 * S));
#undef TAKE
    m->s_a = m->s_b = m->s_c = m->s_qkv = NULL;
    m->max_batch = max_batch;
    m->seq = seq;
    m->fwd_only = 1;
    return SB_OK;
}

/* ---- forward / backward */
enum { SITE_EMB = 0 };
static uint64_t site_attn(int l) { return 1 + 3 * (uint64_t)l; }
static uint64_t site_ffn(int l) { return 2 + 3 * (uint64_t)l; }
static uint64_t site_qa(int L) { return 1 + 3 * (uint64_t)L; }

#define PROF_BEGIN double t_prof_ = m->profile ? omp_get_wtime() : 0
#define PROF_END(slot)                                  \
    do {                                                \
        if (m->profile) {                               \
            m->prof[slot] += omp_get_wtime() - t_prof_; \
            t_prof_ = omp_get_wtime();                  \
        }                                               \
    } while (0)

/* With --profile in training, the linear about to run (its first product
 * slot, SB_MM_NONE for the head) and where its products' times go. */
#define MM_LINEAR(slot)                                            \
    do {                                                           \
        m->lc.mm_prof = m->profile && m->training ? &m->mm : NULL; \
        m->mm.linear = (slot);                                     \
    } while (0)

static void add_inplace(float *y, const float *x, size_t n, int threads)
{
#pragma omp parallel for simd schedule(static) \
    num_threads(threads > 0 ? threads : omp_get_max_threads())
    for (size_t i = 0; i < n; i++) y[i] += x[i];
}

int sb_model_forward(sb_model *m, const sb_batch *bt, int training, uint64_t drop_seed,
                     double *loss, sb_err *e)
{
    const sb_model_config *c = &m->cfg;
    int B = bt->B, S = bt->S, D = c->dim, F = c->ffn, H = c->heads, L = c->layers;
    int T = m->lc.threads;
    if (!m->act_mem || B < 1 || B > m->max_batch || S < 1 || S > m->seq)
        return sb_errf(e, SB_EUSAGE, "batch %dx%d does not fit the %dx%d activations", B, S,
                       m->max_batch, m->seq);
    int N = B * S, rc;
    for (int t = 0; t < N; t++)
        if (bt->ids[t] < 0 || bt->ids[t] >= c->vocab)
            return sb_errf(e, SB_EUSAGE, "token id %d outside the vocabulary (%d)", bt->ids[t],
                           c->vocab);
    if (training && m->fwd_only)
        return sb_errf(e, SB_EUSAGE, "training forward on forward-only activations");
    m->training = training;
    m->drop_seed = drop_seed;
    float p_h = training ? c->dropout : 0, p_a = training ? c->attn_dropout : 0;
    float p_qa = training ? c->qa_dropout : 0;
    const sb_lctx *lc = &m->lc;

    PROF_BEGIN;
    sb_embedding_forward(m->emb_in, bt->ids, m->w.wte, m->w.wpe, B, S, D, T);
    sb_layernorm_forward(m->h0, m->emb_mean, m->emb_rstd, m->emb_in, m->w.emb_g, m->w.emb_b, N, D,
                         c->ln_eps, T);
    sb_dropout_forward(m->h0, m->h0, (size_t)N * D, p_h, sb_rng_key(drop_seed, SITE_EMB), 0, T);
    PROF_END(SB_PROF_EMBED);
    const float *x = m->h0;
    for (int l = 0; l < L; l++) {
        const sb_layer_w *w = &m->w.layer[l];
        sb_layer_acts *a = &m->la[l];
        MM_LINEAR(SB_MM_QKV_FWD);
        if ((rc = sb_linear_forward(lc, a->qkv, x, w->qkv_w, w->qkv_b, N, D, 3 * D, e))) return rc;
        PROF_END(SB_PROF_QKV);
        if ((rc = sb_attention_forward(lc, a->ctx, a->probs, a->keep, a->qkv, bt->mask, B, S, D, H,
                                       p_a, sb_rng_key(drop_seed, site_attn(l)), m->s_attn, e)))
            return rc;
        PROF_END(SB_PROF_ATTN);
        MM_LINEAR(SB_MM_OUT_FWD);
        if ((rc = sb_linear_forward(lc, a->sa_in, a->ctx, w->o_w, w->o_b, N, D, D, e))) return rc;
        add_inplace(a->sa_in, x, (size_t)N * D, T);
        PROF_END(SB_PROF_OUTLIN);
        sb_layernorm_forward(a->sa_out, a->sa_mean, a->sa_rstd, a->sa_in, w->sa_g, w->sa_b, N, D,
                             c->ln_eps, T);
        PROF_END(SB_PROF_LN);
        MM_LINEAR(SB_MM_FFN1_FWD);
        if ((rc = sb_linear_forward(lc, a->ff_pre, a->sa_out, w->f1_w, w->f1_b, N, D, F, e)))
            return rc;
        PROF_END(SB_PROF_FFN1);
        if (lc->linear_gelu) {
            /* inference: GELU goes with lin2 (int8: into its quantisation) */
            if ((rc = sb_linear_gelu_forward(lc, a->out_in, a->ff_pre, m->s_ff, w->f2_w, w->f2_b, N,
                                             F, D, e)))
                return rc;
        } else {
            sb_gelu_forward(m->s_ff, a->ff_pre, (size_t)N * F, T);
            PROF_END(SB_PROF_GELU);
            MM_LINEAR(SB_MM_FFN2_FWD);
            if ((rc = sb_linear_forward(lc, a->out_in, m->s_ff, w->f2_w, w->f2_b, N, F, D, e)))
                return rc;
        }
        PROF_END(SB_PROF_FFN2);
        sb_dropout_forward(a->out_in, a->out_in, (size_t)N * D, p_h,
                           sb_rng_key(drop_seed, site_ffn(l)), 0, T);
        add_inplace(a->out_in, a->sa_out, (size_t)N * D, T);
        PROF_END(SB_PROF_DROPOUT);
        sb_layernorm_forward(a->out, a->out_mean, a->out_rstd, a->out_in, w->out_g, w->out_b, N, D,
                             c->ln_eps, T);
        PROF_END(SB_PROF_LN);
        x = a->out;
    }
    sb_dropout_forward(m->qa_in, x, (size_t)N * D, p_qa, sb_rng_key(drop_seed, site_qa(L)), 0, T);
    MM_LINEAR(SB_MM_NONE);
    if ((rc = sb_linear_forward(lc, m->logits, m->qa_in, m->w.qa_w, m->w.qa_b, N, D, 2, e)))
        return rc;
    m->loss = 0;
    if (bt->start && bt->end) {
        m->loss = sb_qa_loss(m->dlogits, m->logits, bt->start, bt->end, B, S);
        if (loss) *loss = m->loss;
    }
    PROF_END(SB_PROF_HEAD);
    return SB_OK;
}

static void grad_ready(sb_model *m, int block)
{
    if (m->on_grad_ready) m->on_grad_ready(m->hook_user, m->block_off[block], m->block_len[block]);
}

/* A layer's tensors are laid out qkv, out-lin, sa-LN, lin1, lin2, out-LN, and
 * backward finishes them in the reverse order: each group is reported the
 * moment it is final, so its all-reduce can start before the layer is done
 * (what lets the first layer's gradient hide behind the rest of backward). */
static void grad_ready_range(sb_model *m, const float *from, size_t count)
{
    if (m->on_grad_ready) m->on_grad_ready(m->hook_user, (size_t)(from - m->grads), count);
}

int sb_model_backward(sb_model *m, const sb_batch *bt, sb_err *e)
{
    const sb_model_config *c = &m->cfg;
    int B = bt->B, S = bt->S, D = c->dim, F = c->ffn, H = c->heads, L = c->layers;
    int N = B * S, T = m->lc.threads, rc;
    if (!bt->start || !bt->end)
        return sb_errf(e, SB_EUSAGE, "backward needs start and end positions");
    if (m->fwd_only) return sb_errf(e, SB_EUSAGE, "backward after forward-only activations");
    int tr = m->training;
    float p_h = tr ? c->dropout : 0, p_a = tr ? c->attn_dropout : 0, p_qa = tr ? c->qa_dropout : 0;
    uint64_t seed = m->drop_seed;
    const sb_lctx *lc = &m->lc;
    float *dA = m->s_a;

    PROF_BEGIN;
    MM_LINEAR(SB_MM_NONE);
    if ((rc = sb_linear_backward(lc, dA, 0.0f, m->g.qa_w, m->g.qa_b, m->dlogits, m->qa_in,
                                 m->w.qa_w, N, D, 2, e)))
        return rc;
    sb_dropout_backward(dA, dA, (size_t)N * D, p_qa, sb_rng_key(seed, site_qa(L)), 0, T);
    PROF_END(SB_PROF_HEAD);
    grad_ready(m, L + 1);
    for (int l = L - 1; l >= 0; l--) {
        const sb_layer_w *w = &m->w.layer[l];
        sb_layer_w *g = &m->g.layer[l];
        sb_layer_acts *a = &m->la[l];
        const float *x = l ? m->la[l - 1].out : m->h0;
        /* dA: d(layer output) -> d(out_in) */
        sb_layernorm_backward(dA, g->out_g, g->out_b, dA, a->out_in, a->out_mean, a->out_rstd,
                              w->out_g, N, D, T);
        PROF_END(SB_PROF_LN);
        grad_ready_range(m, g->out_g, 2 * (size_t)D);
        sb_dropout_backward(m->s_b, dA, (size_t)N * D, p_h, sb_rng_key(seed, site_ffn(l)), 0, T);
        PROF_END(SB_PROF_DROPOUT);
        /* GELU again for lin2's weight gradient, and its derivative in the
         * same pass (one erf for both) over ff_pre, read for nothing else */
        sb_gelu_forward_grad(m->s_ff, a->ff_pre, a->ff_pre, (size_t)N * F, T);
        PROF_END(SB_PROF_GELU);
        /* dx overwrites the recomputed GELU output: dW reads it first. */
        MM_LINEAR(SB_MM_FFN2_FWD);
        if ((rc = sb_linear_backward(lc, m->s_ff, 0.0f, g->f2_w, g->f2_b, m->s_b, m->s_ff, w->f2_w,
                                     N, F, D, e)))
            return rc;
        PROF_END(SB_PROF_FFN2);
        grad_ready_range(m, g->f2_w, (size_t)D * F + D);
        sb_mul_inplace(m->s_ff, a->ff_pre, (size_t)N * F, T); /* dy * gelu'(x) */
        PROF_END(SB_PROF_GELU);
        /* The residual: d(sa_out) = d(out_in) + lin1's input gradient. */
        MM_LINEAR(SB_MM_FFN1_FWD);
        if ((rc = sb_linear_backward(lc, dA, 1.0f, g->f1_w, g->f1_b, m->s_ff, a->sa_out, w->f1_w, N,
                                     D, F, e)))
            return rc;
        PROF_END(SB_PROF_FFN1);
        grad_ready_range(m, g->f1_w, (size_t)F * D + F);
        sb_layernorm_backward(dA, g->sa_g, g->sa_b, dA, a->sa_in, a->sa_mean, a->sa_rstd, w->sa_g,
                              N, D, T);
        PROF_END(SB_PROF_LN);
        grad_ready_range(m, g->sa_g, 2 * (size_t)D);
        MM_LINEAR(SB_MM_OUT_FWD);
        if ((rc = sb_linear_backward(lc, m->s_c, 0.0f, g->o_w, g->o_b, dA, a->ctx, w->o_w, N, D, D,
                                     e)))
            return rc;
        PROF_END(SB_PROF_OUTLIN);
        grad_ready_range(m, g->o_w, (size_t)D * D + D);
        if ((rc = sb_attention_backward(lc, m->s_qkv, m->s_c, a->qkv, a->probs, a->keep, bt->mask,
                                        B, S, D, H, p_a, m->s_attn, e)))
            return rc;
        PROF_END(SB_PROF_ATTN);
        /* The residual again: d(x) = d(sa_in) + qkv's input gradient. */
        MM_LINEAR(SB_MM_QKV_FWD);
        if ((rc = sb_linear_backward(lc, dA, 1.0f, g->qkv_w, g->qkv_b, m->s_qkv, x, w->qkv_w, N, D,
                                     3 * D, e)))
            return rc;
        PROF_END(SB_PROF_QKV);
        grad_ready_range(m, g->qkv_w, 3 * (size_t)D * D + 3 * (size_t)D);
    }
    sb_dropout_backward(dA, dA, (size_t)N * D, p_h, sb_rng_key(seed, SITE_EMB), 0, T);
    sb_layernorm_backward(dA, m->g.emb_g, m->g.emb_b, dA, m->emb_in, m->emb_mean, m->emb_rstd,
                          m->w.emb_g, N, D, T);
    memset(m->g.wte, 0, sizeof(float) * (size_t)c->vocab * D);
    memset(m->g.wpe, 0, sizeof(float) * (size_t)c->max_pos * D);
    sb_embedding_backward(m->g.wte, m->g.wpe, dA, bt->ids, B, S, D, c->pad_id, T);
    PROF_END(SB_PROF_EMBED);
    grad_ready(m, 0);
    return SB_OK;
}
