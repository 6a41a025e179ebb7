#include "sb_hf.h"
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "sb_io.h"
#include "sb_safetensors.h"

void sb_distilbert_config_default(sb_distilbert_config *c)
{
    memset(c, 0, sizeof *c);
    c->vocab_size = 30522;
    c->dim = 768;
    c->n_layers = 6;
    c->n_heads = 12;
    c->hidden_dim = 3072;
    c->max_position_embeddings = 512;
    c->dropout = 0.1;
    c->attention_dropout = 0.1;
    c->qa_dropout = 0.1;
    c->initializer_range = 0.02;
    snprintf(c->activation, sizeof c->activation, "gelu");
    c->sinusoidal_pos_embds = 0;
    c->pad_token_id = 0;
}

int sb_distilbert_config_check(const sb_distilbert_config *c, const char *name, sb_err *e)
{
    struct {
        const char *key;
        int v, lo, hi;
    } ints[] = {
        {"vocab_size", c->vocab_size, 1, 1 << 22},
        {"dim", c->dim, 1, 1 << 16},
        {"n_layers", c->n_layers, 1, 1024},
        {"n_heads", c->n_heads, 1, 1024},
        {"hidden_dim", c->hidden_dim, 1, 1 << 18},
        {"max_position_embeddings", c->max_position_embeddings, 1, 1 << 20},
    };
    for (size_t i = 0; i < sizeof ints / sizeof *ints; i++)
        if (ints[i].v < ints[i].lo || ints[i].v > ints[i].hi)
            return sb_errf(e, SB_EUSAGE, "%s: %s = %d is outside [%d, %d]", name, ints[i].key,
                           ints[i].v, ints[i].lo, ints[i].hi);
    if (c->dim % c->n_heads)
        return sb_errf(e, SB_EUSAGE, "%s: dim %d is not a multiple of n_heads %d", name, c->dim,
                       c->n_heads);
    struct {
        const char *key;
        double v;
    } probs[] = {{"dropout", c->dropout},
                 {"attention_dropout", c->attention_dropout},
                 {"qa_dropout", c->qa_dropout}};
    for (size_t i = 0; i < 3; i++)
        if (!(probs[i].v >= 0 && probs[i].v < 1))
            return sb_errf(e, SB_EUSAGE, "%s: %s = %g is outside [0, 1)", name, probs[i].key,
                           probs[i].v);
    if (!(c->initializer_range > 0 && c->initializer_range < 10))
        return sb_errf(e, SB_EUSAGE, "%s: initializer_range = %g is not positive", name,
                       c->initializer_range);
    if (strcmp(c->activation, "gelu") && strcmp(c->activation, "relu"))
        return sb_errf(e, SB_EUSAGE, "%s: activation \"%s\" is not gelu or relu", name,
                       c->activation);
    if (c->pad_token_id < 0 || c->pad_token_id >= c->vocab_size)
        return sb_errf(e, SB_EUSAGE, "%s: pad_token_id %d is outside the vocabulary", name,
                       c->pad_token_id);
    return SB_OK;
}

static int get_int(const json_t *doc, const char *key, int *out, const char *name, sb_err *e)
{
    const json_t *v = json_object_get(doc, key);
    if (!v || json_is_null(v)) return SB_OK;
    if (!json_is_integer(v) || json_integer_value(v) < -(1 << 30) ||
        json_integer_value(v) > (1 << 30))
        return sb_errf(e, SB_EUSAGE, "%s: \"%s\" is not an integer", name, key);
    *out = (int)json_integer_value(v);
    return SB_OK;
}

static int get_num(const json_t *doc, const char *key, double *out, const char *name, sb_err *e)
{
    const json_t *v = json_object_get(doc, key);
    if (!v || json_is_null(v)) return SB_OK;
    if (!json_is_number(v)) return sb_errf(e, SB_EUSAGE, "%s: \"%s\" is not a number", name, key);
    *out = json_number_value(v);
    return SB_OK;
}

int sb_distilbert_config_parse(const char *text, size_t len, const char *name,
                               sb_distilbert_config *c, sb_err *e)
{
    sb_distilbert_config_default(c);
    json_error_t jerr;
    json_t *doc = json_loadb(text, len, 0, &jerr);
    if (!doc)
        return sb_errf(e, SB_EUSAGE, "%s: line %d column %d: %s", name, jerr.line, jerr.column,
                       jerr.text);
    int rc = SB_OK;
    if (!json_is_object(doc)) rc = sb_errf(e, SB_EUSAGE, "%s: not a JSON object", name);
    const json_t *mt = json_object_get(doc, "model_type");
    if (!rc && mt && (!json_is_string(mt) || strcmp(json_string_value(mt), "distilbert")))
        rc = sb_errf(e, SB_EUSAGE, "%s: model_type is not \"distilbert\"", name);
    if (!rc) rc = get_int(doc, "vocab_size", &c->vocab_size, name, e);
    if (!rc) rc = get_int(doc, "dim", &c->dim, name, e);
    if (!rc) rc = get_int(doc, "n_layers", &c->n_layers, name, e);
    if (!rc) rc = get_int(doc, "n_heads", &c->n_heads, name, e);
    if (!rc) rc = get_int(doc, "hidden_dim", &c->hidden_dim, name, e);
    if (!rc) rc = get_int(doc, "max_position_embeddings", &c->max_position_embeddings, name, e);
    if (!rc) rc = get_int(doc, "pad_token_id", &c->pad_token_id, name, e);
    if (!rc) rc = get_num(doc, "dropout", &c->dropout, name, e);
    if (!rc) rc = get_num(doc, "attention_dropout", &c->attention_dropout, name, e);
    if (!rc) rc = get_num(doc, "qa_dropout", &c->qa_dropout, name, e);
    if (!rc) rc = get_num(doc, "initializer_range", &c->initializer_range, name, e);
    if (!rc) {
        const json_t *a = json_object_get(doc, "activation");
        if (a && (!json_is_string(a) || json_string_length(a) >= sizeof c->activation))
            rc = sb_errf(e, SB_EUSAGE, "%s: \"activation\" is not a known name", name);
        else if (a)
            snprintf(c->activation, sizeof c->activation, "%s", json_string_value(a));
        const json_t *s = json_object_get(doc, "sinusoidal_pos_embds");
        if (!rc && s && !json_is_boolean(s))
            rc = sb_errf(e, SB_EUSAGE, "%s: \"sinusoidal_pos_embds\" is not a boolean", name);
        else if (!rc && s)
            c->sinusoidal_pos_embds = json_is_true(s);
    }
    json_decref(doc);
    if (!rc) rc = sb_distilbert_config_check(c, name, e);
    return rc;
}

int sb_distilbert_config_read(const char *path, sb_distilbert_config *c, sb_err *e)
{
    char *text;
    size_t len;
    /* A config.json is under 1 KB; 1 MiB leaves room for any added keys. */
    int rc = sb_read_file_max(path, SB_MIB, "config.json", &text, &len, e);
    if (rc) return rc;
    rc = sb_distilbert_config_parse(text, len, path, c, e);
    free(text);
    return rc;
}

int sb_distilbert_config_write(const char *path, const sb_distilbert_config *c, sb_err *e)
{
    int rc = sb_distilbert_config_check(c, path, e);
    if (rc) return rc;
    json_t *d = json_object();
    json_t *arch = json_array();
    json_array_append_new(arch, json_string("DistilBertForQuestionAnswering"));
    json_object_set_new(d, "architectures", arch);
    json_object_set_new(d, "model_type", json_string("distilbert"));
    json_object_set_new(d, "vocab_size", json_integer(c->vocab_size));
    json_object_set_new(d, "dim", json_integer(c->dim));
    json_object_set_new(d, "n_layers", json_integer(c->n_layers));
    json_object_set_new(d, "n_heads", json_integer(c->n_heads));
    json_object_set_new(d, "hidden_dim", json_integer(c->hidden_dim));
    json_object_set_new(d, "max_position_embeddings", json_integer(c->max_position_embeddings));
    json_object_set_new(d, "dropout", json_real(c->dropout));
    json_object_set_new(d, "attention_dropout", json_real(c->attention_dropout));
    json_object_set_new(d, "qa_dropout", json_real(c->qa_dropout));
    json_object_set_new(d, "seq_classif_dropout", json_real(0.2));
    json_object_set_new(d, "activation", json_string(c->activation));
    json_object_set_new(d, "initializer_range", json_real(c->initializer_range));
    json_object_set_new(d, "sinusoidal_pos_embds", json_boolean(c->sinusoidal_pos_embds));
    json_object_set_new(d, "pad_token_id", json_integer(c->pad_token_id));
    json_object_set_new(d, "tie_weights_", json_true());
    json_object_set_new(d, "torch_dtype", json_string("float32"));
    rc = sb_json_write_atomic(path, d, e);
    json_decref(d);
    return rc;
}

static void spec(sb_hf_tensor_spec *s, const char *name, int64_t d0, int64_t d1)
{
    snprintf(s->name, sizeof s->name, "%s", name);
    s->ndim = d1 ? 2 : 1;
    s->shape[0] = d0;
    s->shape[1] = d1;
    s->numel = d1 ? d0 * d1 : d0;
}

int sb_hf_expected_tensors(const sb_distilbert_config *c, sb_hf_tensor_spec **specs)
{
    int n = 6 + 16 * c->n_layers, k = 0;
    sb_hf_tensor_spec *s = calloc((size_t)n, sizeof *s);
    *specs = s;
    if (!s) return 0;
    const int64_t D = c->dim, H = c->hidden_dim;
    spec(&s[k++], "distilbert.embeddings.word_embeddings.weight", c->vocab_size, D);
    spec(&s[k++], "distilbert.embeddings.position_embeddings.weight", c->max_position_embeddings,
         D);
    spec(&s[k++], "distilbert.embeddings.LayerNorm.weight", D, 0);
    spec(&s[k++], "distilbert.embeddings.LayerNorm.bias", D, 0);
    static const char *const lin[] = {"q_lin", "k_lin", "v_lin", "out_lin"};
    char name[96];
    for (int l = 0; l < c->n_layers; l++) {
        for (int i = 0; i < 4; i++) {
            snprintf(name, sizeof name, "distilbert.transformer.layer.%d.attention.%s.weight", l,
                     lin[i]);
            spec(&s[k++], name, D, D);
            snprintf(name, sizeof name, "distilbert.transformer.layer.%d.attention.%s.bias", l,
                     lin[i]);
            spec(&s[k++], name, D, 0);
        }
        snprintf(name, sizeof name, "distilbert.transformer.layer.%d.sa_layer_norm.weight", l);
        spec(&s[k++], name, D, 0);
        snprintf(name, sizeof name, "distilbert.transformer.layer.%d.sa_layer_norm.bias", l);
        spec(&s[k++], name, D, 0);
        snprintf(name, sizeof name, "distilbert.transformer.layer.%d.ffn.lin1.weight", l);
        spec(&s[k++], name, H, D);
        snprintf(name, sizeof name, "distilbert.transformer.layer.%d.ffn.lin1.bias", l);
        spec(&s[k++], name, H, 0);
        snprintf(name, sizeof name, "distilbert.transformer.layer.%d.ffn.lin2.weight", l);
        spec(&s[k++], name, D, H);
        snprintf(name, sizeof name, "distilbert.transformer.layer.%d.ffn.lin2.bias", l);
        spec(&s[k++], name, D, 0);
        snprintf(name, sizeof name, "distilbert.transformer.layer.%d.output_layer_norm.weight", l);
        spec(&s[k++], name, D, 0);
        snprintf(name, sizeof name, "distilbert.transformer.layer.%d.output_layer_norm.bias", l);
        spec(&s[k++], name, D, 0);
    }
    spec(&s[k++], "qa_outputs.weight", 2, D);
    spec(&s[k++], "qa_outputs.bias", 2, 0);
    return k;
}

void sb_hf_model_free(sb_hf_model *m)
{
    if (!m) return;
    for (int i = 0; m->data && i < m->n; i++) free(m->data[i]);
    free(m->data);
    free(m->specs);
    memset(m, 0, sizeof *m);
}

static void shape_str(const int64_t *shape, int ndim, char *buf, size_t len)
{
    size_t o = (size_t)snprintf(buf, len, "[");
    for (int i = 0; i < ndim && o < len; i++)
        o += (size_t)snprintf(buf + o, len - o, "%s%lld", i ? "," : "", (long long)shape[i]);
    if (o < len) snprintf(buf + o, len - o, "]");
}

int sb_hf_read_dir(const char *dir, sb_hf_model *m, sb_err *e)
{
    memset(m, 0, sizeof *m);
    char path[4096];
    snprintf(path, sizeof path, "%s/config.json", dir);
    int rc = sb_distilbert_config_read(path, &m->cfg, e);
    if (rc) return rc;
    snprintf(path, sizeof path, "%s/model.safetensors", dir);
    sb_safetensors st;
    rc = sb_safetensors_open(path, &st, e);
    if (rc) return rc;
    m->n = sb_hf_expected_tensors(&m->cfg, &m->specs);
    m->data = calloc((size_t)(m->n ? m->n : 1), sizeof *m->data);
    if (!m->specs || !m->data) {
        sb_safetensors_close(&st);
        sb_hf_model_free(m);
        return sb_errf(e, SB_EFAIL, "out of memory");
    }
    const sb_st_tensor *found[2] = {0}; /* the qa_outputs pair */
    for (int i = 0; i < m->n && !rc; i++) {
        const sb_hf_tensor_spec *s = &m->specs[i];
        const sb_st_tensor *t = sb_safetensors_find(&st, s->name);
        if (!t && !strncmp(s->name, "distilbert.", 11)) t = sb_safetensors_find(&st, s->name + 11);
        int is_qa = i >= m->n - 2;
        if (is_qa) found[i - (m->n - 2)] = t;
        if (!t) {
            if (is_qa) continue;
            rc = sb_errf(e, SB_EUSAGE, "%s: missing tensor \"%s\" (config.json: n_layers %d)", path,
                         s->name, m->cfg.n_layers);
            break;
        }
        int same = t->ndim == s->ndim;
        for (int d = 0; same && d < s->ndim; d++) same = t->shape[d] == s->shape[d];
        if (!same) {
            char got[128], want[64];
            shape_str(t->shape, t->ndim, got, sizeof got);
            shape_str(s->shape, s->ndim, want, sizeof want);
            rc = sb_errf(e, SB_EUSAGE, "%s: tensor \"%s\" has shape %s, config.json implies %s",
                         path, s->name, got, want);
            break;
        }
        if (!(m->data[i] = malloc(sizeof(float) * (size_t)(s->numel ? s->numel : 1)))) {
            rc = sb_errf(e, SB_EFAIL, "out of memory");
            break;
        }
        rc = sb_safetensors_read_f32(&st, t, m->data[i], e);
    }
    if (!rc && (!found[0]) != (!found[1]))
        rc = sb_errf(e, SB_EUSAGE,
                     "%s: missing tensor \"%s\" (the other qa_outputs tensor is there)", path,
                     found[0] ? "qa_outputs.bias" : "qa_outputs.weight");
    m->has_qa_head = found[0] && found[1];
    sb_safetensors_close(&st);
    if (rc) sb_hf_model_free(m);
    return rc;
}

int sb_hf_write_dir(const char *dir, const sb_distilbert_config *c, const float *const *data,
                    sb_err *e)
{
    int rc = sb_distilbert_config_check(c, dir, e);
    if (rc) return rc;
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        return sb_errf(e, SB_EUSAGE, "%s: cannot create directory: %s", dir, strerror(errno));
    sb_hf_tensor_spec *specs;
    int n = sb_hf_expected_tensors(c, &specs);
    sb_st_write_tensor *t = calloc((size_t)(n ? n : 1), sizeof *t);
    if (!specs || !t) {
        free(specs);
        free(t);
        return sb_errf(e, SB_EFAIL, "out of memory");
    }
    for (int i = 0; i < n; i++) {
        if (!data[i]) {
            rc = sb_errf(e, SB_EUSAGE, "%s: no data for tensor \"%s\"", dir, specs[i].name);
            break;
        }
        t[i].name = specs[i].name;
        t[i].ndim = specs[i].ndim;
        t[i].shape[0] = specs[i].shape[0];
        t[i].shape[1] = specs[i].shape[1];
        t[i].data = data[i];
    }
    char path[4096];
    /* Weights first, config last: a directory with a config has its weights. */
    snprintf(path, sizeof path, "%s/model.safetensors", dir);
    if (!rc) rc = sb_safetensors_write(path, t, n, e);
    snprintf(path, sizeof path, "%s/config.json", dir);
    if (!rc) rc = sb_distilbert_config_write(path, c, e);
    free(t);
    free(specs);
    return rc;
}
