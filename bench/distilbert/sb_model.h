/* sb_model: DistilBertForQuestionAnswering as Hugging Face defines it: the
 * configuration, the parameter layout (one flat parameter buffer and one flat
 * gradient buffer, every tensor a view, llm.c's way), the activations kept for
 * backward, and the whole model's forward and backward.
 *
 * Layout: embeddings block, then one contiguous block per transformer layer,
 * then the QA head; q/k/v weights of a layer are stacked into one [3D, D]
 * matrix (one GEMM instead of three), the Hugging Face names map onto views of
 * it (sb_model_tensor). Backward finishes the blocks in the order head, layer
 * L-1 .. 0, embeddings and calls on_grad_ready for each, so a data-parallel
 * engine can all-reduce a block while backward computes the next. */
#ifndef SB_MODEL_H
#define SB_MODEL_H
#include <stddef.h>
#include <stdint.h>
#include "sb_err.h"
#include "sb_layers.h"

typedef struct sb_model_config {
    int vocab, dim, layers, heads, ffn, max_pos;
    float dropout, attn_dropout, qa_dropout;
    float ln_eps;
    int pad_id;
} sb_model_config;

void sb_model_config_base(sb_model_config *c); /* distilbert-base-uncased */
void sb_model_config_tiny(sb_model_config *c); /* the learning demonstration's model */
/* "distilbert-base" | "tiny" | "L,D,H,F" (vocab and positions of base). */
int sb_model_config_parse(const char *spec, sb_model_config *c, sb_err *e);
int sb_model_config_check(const sb_model_config *c, sb_err *e);
/* Trainable parameters, and training FLOPs per token at sequence length S:
 * 6 * (L (4 D^2 + 2 D F) + 2 D) for the linear layers (forward 2, backward 4
 * per multiply-add) + 12 L S D for q k^T and p v (same factor 3, 2 products). */
size_t sb_model_param_count(const sb_model_config *c);
double sb_model_flops_per_token(const sb_model_config *c, int S);

/* One tensor of Hugging Face's state dict as a view into the flat buffer. */
typedef struct sb_tensor_info {
    char name[96];
    int ndim;
    int64_t shape[2];
    size_t offset, count; /* in floats, into params / grads */
} sb_tensor_info;

typedef struct sb_layer_w {
    float *qkv_w, *qkv_b; /* [3D,D], [3D] */
    float *o_w, *o_b;     /* [D,D], [D] */
    float *sa_g, *sa_b;   /* [D] */
    float *f1_w, *f1_b;   /* [F,D], [F] */
    float *f2_w, *f2_b;   /* [D,F], [D] */
    float *out_g, *out_b; /* [D] */
} sb_layer_w;

typedef struct sb_weights {
    float *wte, *wpe, *emb_g, *emb_b; /* [V,D], [P,D], [D], [D] */
    sb_layer_w *layer;
    float *qa_w, *qa_b; /* [2,D], [2] */
} sb_weights;

/* Per-layer activations kept for backward (N = B*S). */
typedef struct sb_layer_acts {
    float *qkv;     /* [N,3D] */
    float *probs;   /* [B,H,S,S] softmax before dropout */
    uint32_t *keep; /* attention dropout's keep bits (sb_attention_bits_words) */
    float *ctx;     /* [N,D] */
    float *sa_in;   /* [N,D] out_lin(ctx) + x, LayerNorm input */
    float *sa_mean, *sa_rstd;
    float *sa_out; /* [N,D] */
    float *ff_pre; /* [N,F] lin1 output; GELU is recomputed in backward, which
                      leaves gelu'(ff_pre) here (backward once per forward) */
    float *out_in; /* [N,D] dropout(lin2) + sa_out */
    float *out_mean, *out_rstd;
    float *out; /* [N,D] layer output */
} sb_layer_acts;

enum {
    SB_PROF_EMBED,
    SB_PROF_QKV,
    SB_PROF_ATTN,
    SB_PROF_OUTLIN,
    SB_PROF_LN,
    SB_PROF_FFN1,
    SB_PROF_GELU,
    SB_PROF_FFN2,
    SB_PROF_DROPOUT,
    SB_PROF_HEAD,
    SB_PROF_OPTIM,
    SB_PROF_N
};
extern const char *const sb_prof_names[SB_PROF_N];
/* The metric a result stores kind i under: "prof_qkv_linear_s" (seconds per
 * training step, or per inference batch). */
void sb_prof_metric_name(int i, char *buf, size_t cap);
/* Training FLOPs per token of each profile kind (the matrix products; 0 for
 * element-wise kinds); they add up to sb_model_flops_per_token. */
void sb_model_prof_flops(const sb_model_config *c, int S, double f[SB_PROF_N]);

typedef void (*sb_grad_ready_fn)(void *user, size_t offset, size_t count);

typedef struct sb_model {
    sb_model_config cfg;
    size_t nparams;
    float *params, *grads;
    sb_weights w, g; /* views into params and grads */
    sb_tensor_info *tensors;
    int ntensors;
    /* Block ranges [embeddings, layer 0 .. L-1, head] in floats. */
    size_t *block_off, *block_len;
    sb_lctx lc;
    /* Activations, sized by sb_model_alloc_acts for at most max_batch x seq. */
    int max_batch, seq;
    float *act_mem;
    size_t act_floats;
    float *emb_in, *emb_mean, *emb_rstd, *h0; /* h0: embedding output after dropout */
    sb_layer_acts *la;
    float *qa_in;  /* [N,D] dropout of the last layer's output */
    float *logits; /* [N,2] start, end interleaved */
    float *dlogits;
    /* Backward scratch, shared by all layers. */
    float *s_a, *s_b, *s_c, *s_qkv, *s_ff, *s_attn;
    /* Dropout for this step (sb_model_forward sets it; backward reuses it). */
    uint64_t drop_seed;
    int training;
    double loss;
    sb_grad_ready_fn on_grad_ready;
    void *hook_user;
    int fwd_only; /* 1: activations for forward only */
    int profile;  /* 1: accumulate prof[] seconds */
    double prof[SB_PROF_N];
    long prof_steps; /* training steps prof[] covers (the trainer
                                      leaves the first, warm-up step out) */
    sb_mm_prof mm;   /* with profile: each matrix product's time (lc.mm_prof
                      points here while a training step runs) */
} sb_model;

/* Allocates the flat buffers (zeroed) and the tensor table. */
int sb_model_create(sb_model *m, const sb_model_config *cfg, const sb_kernel *k, int threads,
                    sb_err *e);
/* Hugging Face's _init_weights: normal(0, 0.02) for linear and embedding
 * weights (the pad row 0), zero biases, LayerNorm weight 1 and bias 0. */
void sb_model_init_random(sb_model *m, uint64_t seed);
/* The same with another standard deviation (DistilBertConfig's
 * initializer_range). */
void sb_model_init_random_std(sb_model *m, uint64_t seed, float std);
int sb_model_alloc_acts(sb_model *m, int max_batch, int seq, sb_err *e);
/* Forward only (inference): one set of layer activations shared by every
 * layer (two output buffers in turn), no backward scratch; a backward after
 * it is refused. */
int sb_model_alloc_acts_infer(sb_model *m, int max_batch, int seq, sb_err *e);
void sb_model_free(sb_model *m);
const sb_tensor_info *sb_model_tensor(const sb_model *m, const char *hf_name);

typedef struct sb_batch {
    int B, S;
    const int32_t *ids;         /* [B*S] */
    const uint8_t *mask;        /* [B*S] 1 = token, 0 = padding */
    const int32_t *start, *end; /* [B]; NULL: no loss */
} sb_batch;

/* Forward; training = 1 applies dropout keyed by drop_seed. Logits land in
 * m->logits; with labels, m->loss is set (and *loss if non-NULL). */
int sb_model_forward(sb_model *m, const sb_batch *bt, int training, uint64_t drop_seed,
                     double *loss, sb_err *e);
/* Backward of the last forward (which must have had labels): grads written. */
int sb_model_backward(sb_model *m, const sb_batch *bt, sb_err *e);

#endif
