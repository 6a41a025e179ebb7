#include "sb_checkpoint.h"
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void sb_checkpoint_hf_config(const sb_model_config *c, sb_distilbert_config *h)
{
    sb_distilbert_config_default(h);
    h->vocab_size = c->vocab;
    h->dim = c->dim;
    h->n_layers = c->layers;
    h->n_heads = c->heads;
    h->hidden_dim = c->ffn;
    h->max_position_embeddings = c->max_pos;
    h->dropout = c->dropout;
    h->attention_dropout = c->attn_dropout;
    h->qa_dropout = c->qa_dropout;
    h->pad_token_id = c->pad_id;
}

int sb_checkpoint_model_config(const sb_distilbert_config *h, const char *dir, sb_model_config *c,
                               sb_err *e)
{
    if (strcmp(h->activation, "gelu"))
        return sb_errf(e, SB_EUSAGE, "%s/config.json: activation '%s' is not supported (gelu only)",
                       dir, h->activation);
    if (h->sinusoidal_pos_embds)
        return sb_errf(
            e, SB_EUSAGE,
            "%s/config.json: sinusoidal_pos_embds is not supported (learned positions only)", dir);
    sb_model_config_base(c);
    c->vocab = h->vocab_size;
    c->dim = h->dim;
    c->layers = h->n_layers;
    c->heads = h->n_heads;
    c->ffn = h->hidden_dim;
    c->max_pos = h->max_position_embeddings;
    c->dropout = (float)h->dropout;
    c->attn_dropout = (float)h->attention_dropout;
    c->qa_dropout = (float)h->qa_dropout;
    c->pad_id = h->pad_token_id;
    return sb_model_config_check(c, e);
}

/* The index of the first value of x[0..n) that is NaN or Inf, or n: one
 * pass when the weights are read, so that no kernel ever computes with one
 * (a NaN bias made every answer empty while inference said ok). */
static size_t first_not_finite(const float *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i])) return i;
    return n;
}

int sb_checkpoint_load(sb_model *m, const sb_hf_model *hf, const char *dir, sb_err *e)
{
    for (int i = 0; i < hf->n; i++) {
        const sb_hf_tensor_spec *s = &hf->specs[i];
        const sb_tensor_info *t = sb_model_tensor(m, s->name);
        if (!t || (int64_t)t->count != s->numel)
            return sb_errf(e, SB_EUSAGE, "%s: tensor %s does not fit the model", dir, s->name);
        size_t bad = hf->data[i] ? first_not_finite(hf->data[i], t->count) : t->count;
        if (bad < t->count)
            return sb_errf(e, SB_EFAIL, "%s: tensor %s holds %s at element %zu: weights must be finite",
                           dir, s->name, isnan(hf->data[i][bad]) ? "NaN" : "Inf", bad);
        if (hf->data[i]) memcpy(m->params + t->offset, hf->data[i], sizeof(float) * t->count);
    }
    return SB_OK;
}

int sb_checkpoint_save(const sb_model *m, const char *dir, sb_err *e)
{
    sb_distilbert_config h;
    sb_checkpoint_hf_config(&m->cfg, &h);
    sb_hf_tensor_spec *specs = NULL;
    int n = sb_hf_expected_tensors(&h, &specs);
    const float **data = calloc(n > 0 ? n : 1, sizeof(float *));
    int rc = SB_OK;
    for (int i = 0; i < n && !rc; i++) {
        const sb_tensor_info *t = sb_model_tensor(m, specs[i].name);
        if (!t || (int64_t)t->count != specs[i].numel)
            rc = sb_errf(e, SB_EFAIL, "no model tensor for %s", specs[i].name);
        else
            data[i] = m->params + t->offset;
    }
    if (!rc) rc = sb_hf_write_dir(dir, &h, data, e);
    free(data);
    free(specs);
    return rc;
}
