/* sb_hf: Hugging Face's model directory for DistilBertForQuestionAnswering:
 * config.json (DistilBertConfig) beside model.safetensors. Owns the config
 * struct and its JSON, the list of expected parameter names and shapes for a
 * config (HF names, in HF's module order), and reading/writing a directory
 * with the two checked against each other. The trainer maps names onto its
 * own parameter buffer. */
#ifndef SB_HF_H
#define SB_HF_H
#include <stdint.h>
#include "sb_err.h"

typedef struct sb_distilbert_config {
    int vocab_size;              /* 30522 */
    int dim;                     /* 768 */
    int n_layers;                /* 6 */
    int n_heads;                 /* 12 */
    int hidden_dim;              /* 3072 */
    int max_position_embeddings; /* 512 */
    double dropout;              /* 0.1 */
    double attention_dropout;    /* 0.1 */
    double qa_dropout;           /* 0.1 */
    double initializer_range;    /* 0.02 */
    char activation[16];         /* "gelu" or "relu" */
    int sinusoidal_pos_embds;    /* 0 */
    int pad_token_id;            /* 0 */
} sb_distilbert_config;

/* distilbert-base-uncased's values (DistilBertConfig defaults). */
void sb_distilbert_config_default(sb_distilbert_config *c);
/* Range and consistency checks (dim % n_heads == 0, ...). */
int sb_distilbert_config_check(const sb_distilbert_config *c, const char *name, sb_err *e);
/* Keys absent from the file keep DistilBertConfig's defaults (as transformers
 * does); present keys must have the right JSON type. */
int sb_distilbert_config_read(const char *path, sb_distilbert_config *c, sb_err *e);
int sb_distilbert_config_parse(const char *text, size_t len, const char *name,
                               sb_distilbert_config *c, sb_err *e);
/* Writes what DistilBertConfig needs, incl. "architectures":
 * ["DistilBertForQuestionAnswering"] and "model_type": "distilbert". */
int sb_distilbert_config_write(const char *path, const sb_distilbert_config *c, sb_err *e);

typedef struct sb_hf_tensor_spec {
    char name[96];    /* e.g. distilbert.transformer.layer.0.ffn.lin1.weight */
    int ndim;         /* 1 or 2 */
    int64_t shape[2]; /* PyTorch layout: Linear weight is [out, in] */
    int64_t numel;
} sb_hf_tensor_spec;

/* Expected tensors of DistilBertForQuestionAnswering for c, in module order:
 * embeddings (word [V,D], position [P,D], LayerNorm weight/bias [D]); per layer
 * attention.{q_lin,k_lin,v_lin,out_lin}.{weight [D,D], bias [D]},
 * sa_layer_norm.{weight,bias} [D], ffn.lin1 {[H,D],[H]}, ffn.lin2 {[D,H],[D]},
 * output_layer_norm.{weight,bias} [D]; then qa_outputs weight [2,D], bias [2].
 * Returns the count (6 + 16 * n_layers); specs malloc'd. */
int sb_hf_expected_tensors(const sb_distilbert_config *c, sb_hf_tensor_spec **specs);

typedef struct sb_hf_model {
    sb_distilbert_config cfg;
    int n;                    /* number of expected tensors */
    sb_hf_tensor_spec *specs; /* [n], as sb_hf_expected_tensors */
    float **data;             /* [n] f32 copies; NULL for qa_outputs when absent */
    int has_qa_head;          /* 0: a base checkpoint (e.g. distilbert-base-uncased,
                                     saved as a masked LM): qa_outputs must be initialised */
} sb_hf_model;

/* Reads dir/config.json and dir/model.safetensors; every expected tensor must
 * be present with its shape (else SB_EUSAGE naming the tensor), except that the
 * qa_outputs pair may be absent together. Names without the "distilbert."
 * prefix (a DistilBertModel checkpoint) are accepted; extra tensors (the MLM
 * head) are ignored. F32/F16/BF16 are converted to f32. */
int sb_hf_read_dir(const char *dir, sb_hf_model *m, sb_err *e);
void sb_hf_model_free(sb_hf_model *m);
/* Creates dir if needed and writes config.json and model.safetensors (F32),
 * each atomically; data[i] holds specs[i].numel floats in the order of
 * sb_hf_expected_tensors(c). */
int sb_hf_write_dir(const char *dir, const sb_distilbert_config *c, const float *const *data,
                    sb_err *e);

#endif
