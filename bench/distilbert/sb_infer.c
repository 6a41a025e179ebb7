#include "sb_infer.h"
#include "sb_mem.h"
#include "sb_qattn.h"
#include "sb_vendor.h"
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One linear layer as the path runs it, found by its weight pointer. */
typedef struct ilayer {
    const float *W;
    int in, out;
    char name[64];
    int check_out;       /* the last linear of a sublayer, or the logits: output checked */
    sb_packed_b *packed; /* f32/bf16: the kernel's packed weight (NULL: none offered) */
    sb_qlinear q;        /* int8 */
} ilayer;

struct sb_infer {
    const sb_kernel *kernel, *attn;
    sb_qattn *qattn; /* int8 attention (sb_infer_int8_attention), or NULL */
    sb_quant_mode quant;
    int threads;
    ilayer *layers;
    int n;
    void *scratch; /* int8: the quantised activations */
    size_t scratch_cap;
    sb_lctx saved;
};

static const sb_kernel *runnable(const char *name)
{
    const sb_kernel *k = sb_kernel_find(name);
    char why[256];
    return k && k->gemm_f32 && k->dtype == SB_DT_F32 && k->probe(why, sizeof why) ? k : NULL;
}

const sb_kernel *sb_infer_attn_kernel(const sb_kernel *k)
{
    if (!k) return NULL;
    if (k->dtype != SB_DT_INT8) return k;
    const sb_kernel *a = NULL;
    if (sb_vendor_of_kernel(k->name)) {
        /* a vendor's int8 keeps its attention with the same vendor's f32
         * (onednn-int8: onednn-f32, mkl-int8: mkl-f32) */
        char f32[64];
        const char *dash = strchr(k->name, '-');
        snprintf(f32, sizeof f32, "%.*s-f32", (int)(dash ? dash - k->name : 0), k->name);
        a = runnable(f32);
    } else if (strcmp(k->isa, "avx2_int8") == 0)
        a = runnable("avx2-f32");
    else
        a = runnable("avx512-f32");
    static const char *const prefs[] = {"avx512-f32", "avx2-f32", "onednn-f32", "scalar-f32"};
    for (size_t i = 0; !a && i < sizeof prefs / sizeof *prefs; i++) a = runnable(prefs[i]);
    return a;
}

static ilayer *find_layer(sb_infer *in, const float *W, int N_in, int N_out)
{
    for (int i = 0; i < in->n; i++)
        if (in->layers[i].W == W && in->layers[i].in == N_in && in->layers[i].out == N_out)
            return &in->layers[i];
    return NULL;
}

/* The prepared layer of W, and for an int8 layer scratch for N rows of its
 * quantised input. */
static int prepared(sb_infer *in, const float *W, int N, int nin, int nout, ilayer **out, sb_err *e)
{
    ilayer *L = *out = find_layer(in, W, nin, nout);
    if (!L)
        return sb_errf(e, SB_EUSAGE, "inference: a %dx%d linear layer that was not prepared", nout,
                       nin);
    if (in->kernel->dtype != SB_DT_INT8) return SB_OK;
    size_t need = sb_qlinear_scratch_bytes(N, nin);
    if (need > in->scratch_cap) {
        free(in->scratch);
        in->scratch = sb_alloc_big(need); /* 2 MB aligned, huge pages where granted */
        in->scratch_cap = in->scratch ? need : 0;
        if (!in->scratch) return sb_errf(e, SB_EFAIL, "out of memory for quantised activations");
    }
    return SB_OK;
}

/* 1 when x[0..n) holds NaN or Inf. x - x is 0 for a finite x and NaN
 * otherwise; an OR of comparisons vectorises, and large outputs are split
 * over the threads: a layer's output is read once, against the
 * 2 x inputs multiply-adds per value that made it. */
static int any_not_finite(const float *x, size_t n, int threads)
{
    int bad = 0;
    if (n < ((size_t)1 << 16) || threads <= 1) {
        for (size_t i = 0; i < n; i++) bad |= !(x[i] - x[i] == 0.0f);
        return bad;
    }
#pragma omp parallel for num_threads(threads) reduction(| : bad) schedule(static)
    for (long i = 0; i < (long)n; i++) bad |= !(x[i] - x[i] == 0.0f);
    return bad;
}

/* NaN or Inf out of a layer is an error naming it, never an answer: the
 * output of each sublayer (attention out_lin, ffn lin2) and the logits. */
static int check_output(const sb_infer *in, const ilayer *L, const float *y, int N, sb_err *e)
{
    if (!L->check_out || !any_not_finite(y, (size_t)N * L->out, in->threads)) return SB_OK;
    return sb_errf(e, SB_EFAIL, "%s: NaN or Inf in the layer's output", L->name);
}

/* linear: x[N,in], W[out,in], b[out] -> y[N,out] = x W^T + b (the prepared weight) */
static int infer_linear(void *user, float *y, const float *x, const float *W, const float *b, int N,
                        int nin, int nout, sb_err *e)
{
    sb_infer *in = user;
    ilayer *L;
    int rc = prepared(in, W, N, nin, nout, &L, e);
    if (rc) return rc;
    /* int8: the bias was taken at attach time: the same pointer the model passes */
    if (in->kernel->dtype == SB_DT_INT8) {
        rc = sb_qlinear_forward(&L->q, y, x, N, in->quant, in->scratch, in->threads, L->name, e);
        return rc ? rc : check_output(in, L, y, N, e);
    }
    sb_gemm_desc d = {.transa = 'N',
                      .transb = 'T',
                      .m = N,
                      .n = nout,
                      .k = nin,
                      .lda = nin,
                      .ldb = nin,
                      .ldc = nout,
                      .alpha = 1.0f,
                      .beta = 0.0f,
                      .threads = in->threads,
                      .bias = b};
    rc = L->packed ? in->kernel->gemm_packed(&d, x, L->packed, y, e)
                   : in->kernel->gemm_f32(&d, x, W, y, e);
    return rc ? rc : check_output(in, L, y, N, e);
}

/* y = gelu(x) W^T + b: an int8 layer quantises GELU's rows as it makes them */
static int infer_linear_gelu(void *user, float *y, const float *x, float *tmp, const float *W,
                             const float *b, int N, int nin, int nout, sb_err *e)
{
    sb_infer *in = user;
    if (in->kernel->dtype != SB_DT_INT8) {
        sb_gelu_forward(tmp, x, (size_t)N * nin, in->threads);
        return infer_linear(user, y, tmp, W, b, N, nin, nout, e);
    }
    ilayer *L;
    int rc = prepared(in, W, N, nin, nout, &L, e);
    if (rc) return rc;
    rc = sb_qlinear_forward_gelu(&L->q, y, x, tmp, N, in->quant, in->scratch, in->threads,
                                 L->name, e);
    return rc ? rc : check_output(in, L, y, N, e);
}

static void add_layer(ilayer *t, int *n, const float *W, const float *b, int in, int out,
                      const char *fmt, int l)
{
    ilayer *L = &t[(*n)++];
    memset(L, 0, sizeof *L);
    L->W = W;
    L->in = in;
    L->out = out;
    L->q.bias = b; /* kept here until the layer is prepared */
    snprintf(L->name, sizeof L->name, fmt, l);
    L->check_out = strstr(L->name, "out_lin") || strstr(L->name, "lin2") ||
        strstr(L->name, "qa_outputs");
}

int sb_infer_attach(sb_model *m, const sb_kernel *k, sb_quant_mode quant, sb_infer **out, sb_err *e)
{
    *out = NULL;
    if (!k) return sb_errf(e, SB_EUSAGE, "inference: no kernel");
    int int8 = k->dtype == SB_DT_INT8;
    if (int8 ? !k->gemm_u8s8 : !k->gemm_f32)
        return sb_errf(e, SB_EUSAGE, "kernel %s has no %s entry point", k->name,
                       sb_dtype_name(k->dtype));
    const sb_kernel *attn = sb_infer_attn_kernel(k);
    if (!attn) return sb_errf(e, SB_ESKIP, "no f32 kernel runs the attention of %s here", k->name);
    const sb_model_config *c = &m->cfg;
    sb_infer *in = calloc(1, sizeof *in);
    int cap = 4 * c->layers + 1;
    if (in) in->layers = calloc(cap, sizeof(ilayer));
    if (!in || !in->layers) {
        free(in);
        return sb_errf(e, SB_EFAIL, "out of memory");
    }
    in->kernel = k;
    in->attn = attn;
    in->quant = quant;
    in->threads = m->lc.threads;
    in->saved = m->lc;
    int D = c->dim, F = c->ffn;
    for (int l = 0; l < c->layers; l++) {
        const sb_layer_w *w = &m->w.layer[l];
        add_layer(in->layers, &in->n, w->qkv_w, w->qkv_b, D, 3 * D,
                  "transformer.layer.%d.attention.q_lin/k_lin/v_lin", l);
        add_layer(in->layers, &in->n, w->o_w, w->o_b, D, D,
                  "transformer.layer.%d.attention.out_lin", l);
        add_layer(in->layers, &in->n, w->f1_w, w->f1_b, D, F, "transformer.layer.%d.ffn.lin1", l);
        add_layer(in->layers, &in->n, w->f2_w, w->f2_b, F, D, "transformer.layer.%d.ffn.lin2", l);
    }
    add_layer(in->layers, &in->n, m->w.qa_w, m->w.qa_b, D, 2, "qa_outputs%.0d", 0);
    int rc = SB_OK;
    for (int i = 0; i < in->n && !rc; i++) {
        ilayer *L = &in->layers[i];
        const float *bias = L->q.bias;
        if (int8) {
            /* 7-bit activations let a kernel run its u8 < 128 path (avx2-int8: vpmaddubsw) */
            const sb_kernel *kq = quant & SB_QUANT_7BIT ? sb_kernel_for_7bit_a(k) : k;
            rc = sb_qlinear_init(&L->q, kq, L->W, bias, L->in, L->out, in->threads, L->name, e);
        } else if (k->pack_b && k->gemm_packed) {
            sb_gemm_desc d = {.transa = 'N',
                              .transb = 'T',
                              .m = 1,
                              .n = L->out,
                              .k = L->in,
                              .lda = L->in,
                              .ldb = L->in,
                              .ldc = L->out,
                              .alpha = 1,
                              .beta = 0,
                              .threads = in->threads};
            rc = k->pack_b(&d, L->W, &L->packed, e);
            L->q.bias = NULL;
        }
    }
    if (rc) {
        sb_infer_detach(m, in);
        return rc;
    }
    m->lc.kernel = attn;
    m->lc.linear = infer_linear;
    m->lc.linear_gelu = infer_linear_gelu;
    m->lc.linear_user = in;
    *out = in;
    return SB_OK;
}

void sb_infer_detach(sb_model *m, sb_infer *in)
{
    if (!in) return;
    if (m) m->lc = in->saved;
    for (int i = 0; i < in->n; i++) {
        sb_packed_b_free(in->layers[i].packed);
        if (in->layers[i].q.wq) sb_qlinear_free(&in->layers[i].q);
    }
    sb_qattn_free(in->qattn);
    free(in->layers);
    free(in->scratch);
    free(in);
}

int sb_infer_int8_attention(sb_model *m, sb_infer *in, sb_err *e)
{
    const sb_kernel *k = in->kernel;
    if (k->dtype != SB_DT_INT8)
        return sb_errf(e, SB_EUSAGE, "int8 attention needs an int8 kernel; %s computes in %s",
                       k->name, sb_dtype_name(k->dtype));
    if (in->qattn) return SB_OK;
    if (!m->seq || !m->max_batch)
        return sb_errf(e, SB_EUSAGE, "int8 attention: no activations allocated for the model");
    const sb_kernel *kq = in->quant & SB_QUANT_7BIT ? sb_kernel_for_7bit_a(k) : k;
    int rc = sb_qattn_create(kq, sb_quant_qmax(in->quant), m->max_batch, m->seq, m->cfg.dim,
                             m->cfg.heads, in->threads, &in->qattn, e);
    if (rc) return rc;
    in->attn = k;
    m->lc.attention = sb_qattn_forward;
    m->lc.attention_user = in->qattn;
    return SB_OK;
}

const sb_kernel *sb_infer_attn(const sb_infer *in) { return in ? in->attn : NULL; }

int sb_infer_latency(sb_model *m, const sb_features *f, int q0, int q1, double *lat, sb_err *e)
{
    int S = f->max_seq, rc;
    long at = 0;
    while (at < f->n && f->example_index[at] < q0) at++;
    for (int q = q0; q < q1; q++) {
        double t0 = omp_get_wtime();
        for (; at < f->n && f->example_index[at] == q; at++) {
            sb_batch bt = {
                .B = 1, .S = S, .ids = f->input_ids + at * S, .mask = f->attention_mask + at * S};
            if ((rc = sb_model_forward(m, &bt, 0, 0, NULL, e))) return rc;
        }
        lat[q] = omp_get_wtime() - t0;
    }
    return SB_OK;
}

double sb_infer_agreement(const sb_squad_predictions *a, const sb_squad_predictions *b)
{
    if (!a->n) return 0;
    int same = 0;
    for (int i = 0; i < a->n; i++) {
        /* both come from the same set in example order; fall back to a search */
        int j = i < b->n && strcmp(a->ids[i], b->ids[i]) == 0 ? i : -1;
        for (int t = 0; j < 0 && t < b->n; t++)
            if (strcmp(a->ids[i], b->ids[t]) == 0) j = t;
        if (j >= 0 && strcmp(a->texts[i], b->texts[j]) == 0) same++;
    }
    return (double)same / a->n;
}
