/* sb_layers: the forward/backward pairs DistilBERT is made of (embedding,
 * LayerNorm, linear, GELU in its erf form, dropout from a counter-based RNG,
 * multi-head self-attention, the QA span loss). Every matrix product goes
 * through the kernel in sb_lctx, so the kernel axis of a sweep covers the
 * whole model; everything else is an OpenMP loop here.
 *
 * Conventions: row-major; N = B*S tokens; "written" gradients overwrite,
 * "added" ones accumulate. Shapes are in the comment line above each pair. */
#ifndef SB_LAYERS_H
#define SB_LAYERS_H
#include <stddef.h>
#include <stdint.h>
#include "sb_err.h"
#include "sb_kernel.h"

/* Per-product timing (`train --profile`): every matrix product of a training
 * step in its own slot, the linears' three (forward y = x W^T, input
 * gradient dx = dy W, weight gradient dW = dy^T x) and attention's six. */
enum {
    SB_MM_QKV_FWD,
    SB_MM_QKV_DX,
    SB_MM_QKV_DW,
    SB_MM_OUT_FWD,
    SB_MM_OUT_DX,
    SB_MM_OUT_DW,
    SB_MM_FFN1_FWD,
    SB_MM_FFN1_DX,
    SB_MM_FFN1_DW,
    SB_MM_FFN2_FWD,
    SB_MM_FFN2_DX,
    SB_MM_FFN2_DW,
    SB_MM_ATT_QK,
    SB_MM_ATT_PV,
    SB_MM_ATT_DV,
    SB_MM_ATT_DP,
    SB_MM_ATT_DQ,
    SB_MM_ATT_DK,
    SB_MM_N
};
/* A linear's first slot (its forward), or SB_MM_NONE for one not counted. */
enum { SB_MM_NONE = -1 };
/* Each slot's name ("qkv fwd") and transposes of its GEMM ("NT"). */
extern const char *const sb_mm_names[SB_MM_N];
extern const char *const sb_mm_ops[SB_MM_N];
typedef struct sb_mm_prof {
    int linear; /* the caller sets it before each linear: its first
                                    slot (SB_MM_QKV_FWD ..), or SB_MM_NONE */
    long calls[SB_MM_N];
    double core_s[SB_MM_N];                    /* seconds x the threads each call ran on */
    double flop[SB_MM_N];                      /* 2 m n k per call */
    double m[SB_MM_N], n[SB_MM_N], k[SB_MM_N]; /* sums over the calls (mean shape) */
} sb_mm_prof;

/* Which matrix-product engine and how many threads a layer uses. */
typedef struct sb_lctx {
    const sb_kernel *kernel;
    int threads;  /* OpenMP threads for loops and GEMMs */
    int all_keys; /* 1: attention computes over padded keys too (as PyTorch
                               does); 0: stops at each sequence's last real token */
    /* Inference (sb_infer): when set, sb_linear_forward hands every linear layer
     * to it instead of the kernel (weights packed or quantised once); the
     * attention products stay on `kernel`. NULL: training's way. */
    int (*linear)(void *user, float *y, const float *x, const float *W, const float *b, int N,
                  int in, int out, sb_err *e);
    /* Inference, optional: y = gelu(x) W^T + b in one call (an int8 layer
     * applies GELU row by row while quantising, never writing gelu(x) out);
     * tmp[N*in] is free for the hook to use. NULL: GELU, then `linear`. */
    int (*linear_gelu)(void *user, float *y, const float *x, float *tmp, const float *W,
                       const float *b, int N, int in, int out, sb_err *e);
    void *linear_user;
    /* Inference, optional: a layer's whole attention, ctx[B*S,D] from
     * qkv[B*S,3D] (sb_qattn: products in int8), taken by sb_attention_forward
     * when it writes no probabilities and drops nothing. NULL: the f32 path. */
    int (*attention)(void *user, const struct sb_lctx *c, float *ctx, const float *qkv,
                     const uint8_t *mask, int B, int S, int D, int H, sb_err *e);
    void *attention_user;
    /* Training with --profile: each matrix product timed into its slot
     * (NULL: nothing timed, the usual case). */
    sb_mm_prof *mm_prof;
} sb_lctx;

/* The instruction set the element-wise code (GELU, LayerNorm, softmax,
 * dropout masks, bias sums, AdamW) runs on, best first. The automatic choice
 * is the best sb_cpu_get() allows, so SB_FORCE_NO_AVX512 / SB_FORCE_NO_AVX2
 * give exactly what an AVX2-only / pre-AVX2 CPU runs. Every level computes
 * the same dropout masks and AdamW bits; GELU/softmax/LayerNorm agree to
 * rounding. */
enum {
    SB_LAYERS_AUTO = -1,
    SB_LAYERS_SCALAR = 0,
    SB_LAYERS_AVX2 = 1,   /* AVX2 + FMA, 256-bit */
    SB_LAYERS_AVX512 = 2, /* AVX-512 F/DQ/BW/VL */
};
/* The best level this CPU and OS allow (after the SB_FORCE_NO_* variables). */
int sb_layers_best_level(void);
/* Tests: runs the element-wise code at `level`, lowered to the best this CPU
 * allows; SB_LAYERS_AUTO restores the automatic choice. Returns the level now
 * in use. Not thread-safe: call it between layers, not during one. */
int sb_layers_set_level(int level);
/* The level in use. */
int sb_layers_level(void);
/* Its name, "avx512", "avx2" or "scalar" (for results: which code ran). */
const char *sb_layers_isa(void);
/* The name of a level; "?" for anything else. */
const char *sb_layers_level_name(int level);

/* The kernel an sb_lctx takes when none is named (training and inference):
 * the fastest f32 one this machine runs (avx512-f32, avx2-f32, oneDNN, the
 * scalar reference). */
const sb_kernel *sb_layers_default_kernel(void);

/* C[m,n] = alpha * op(A) op(B) + beta * C through the context's kernel. */
int sb_matmul(const sb_lctx *c, char ta, char tb, int m, int n, int k, float alpha, const float *A,
              int lda, const float *B, int ldb, float beta, float *C, int ldc, int threads,
              sb_err *e);

/* ---- counter-based random numbers: the same (key, index) always gives the
 * same number, so dropout masks are regenerated in backward instead of stored
 * (attention keeps its masks as bits, 1/32 of its probabilities) and runs
 * repeat exactly whatever the thread count. */
uint64_t sb_rng_key(uint64_t seed, uint64_t stream);
/* Uniform in [0, 1) with 24 random bits. */
float sb_rng_uniform(uint64_t key, uint64_t index);
/* Standard normal (Box-Muller on two counters). */
float sb_rng_normal(uint64_t key, uint64_t index);

/* embedding: ids[B*S], wte[V,D], wpe[P,D] -> out[B*S,D] = wte[id] + wpe[s] */
void sb_embedding_forward(float *out, const int32_t *ids, const float *wte, const float *wpe, int B,
                          int S, int D, int threads);
/* dwte, dwpe added; rows of pad_id get no gradient (nn.Embedding padding_idx) */
void sb_embedding_backward(float *dwte, float *dwpe, const float *dout, const int32_t *ids, int B,
                           int S, int D, int pad_id, int threads);

/* layernorm: x[N,D], g[D], b[D] -> y[N,D], mean[N], rstd[N] */
void sb_layernorm_forward(float *y, float *mean, float *rstd, const float *x, const float *g,
                          const float *b, int N, int D, float eps, int threads);
/* dx[N,D] written (may alias dy); dg[D], db[D] written */
void sb_layernorm_backward(float *dx, float *dg, float *db, const float *dy, const float *x,
                           const float *mean, const float *rstd, const float *g, int N, int D,
                           int threads);

/* linear: x[N,in], W[out,in], b[out] -> y[N,out] = x W^T + b */
int sb_linear_forward(const sb_lctx *c, float *y, const float *x, const float *W, const float *b,
                      int N, int in, int out, sb_err *e);
/* y[N,out] = gelu(x) W^T + b, x[N,in]; tmp[N*in] scratch (gelu(x) may be
 * left there, or not written at all: c->linear_gelu) */
int sb_linear_gelu_forward(const sb_lctx *c, float *y, const float *x, float *tmp, const float *W,
                           const float *b, int N, int in, int out, sb_err *e);
/* dx[N,in] = dx_beta*dx + dy W (dx NULL: skipped); dW[out,in], db[out] written */
int sb_linear_backward(const sb_lctx *c, float *dx, float dx_beta, float *dW, float *db,
                       const float *dy, const float *x, const float *W, int N, int in, int out,
                       sb_err *e);

/* gelu (erf form): x[n] -> y[n] = x/2 (1 + erf(x/sqrt 2)) (y may alias x) */
void sb_gelu_forward(float *y, const float *x, size_t n, int threads);
/* the same on the calling thread alone (inside a caller's parallel loop) */
void sb_gelu_row(float *y, const float *x, size_t n);
/* dx[n] = dy * gelu'(x) (dx may alias dy) */
void sb_gelu_backward(float *dx, const float *dy, const float *x, size_t n, int threads);
/* y[n] = gelu(x) and g[n] = gelu'(x) in one pass (g may alias x, y not): one
 * erf for both; dy * g then equals sb_gelu_backward's dx bit for bit */
void sb_gelu_forward_grad(float *y, float *g, const float *x, size_t n, int threads);
/* y[n] *= x[n] */
void sb_mul_inplace(float *y, const float *x, size_t n, int threads);

/* dropout: x[n] -> y[n] = x * keep / (1-p), keep iff uniform(key, offset+i) >= p
 * (y may alias x; p == 0 copies) */
void sb_dropout_forward(float *y, const float *x, size_t n, float p, uint64_t key, uint64_t offset,
                        int threads);
/* dx[n] = dy * keep / (1-p), the same mask (dx may alias dy) */
void sb_dropout_backward(float *dx, const float *dy, size_t n, float p, uint64_t key,
                         uint64_t offset, int threads);

/* qa loss: logits[B*S,2] (start, end), start[B], end[B]
 *   -> mean over start and end of the cross entropy over the S positions, a
 *      position outside [0, S) ignored (Hugging Face clamps it to S and ignores S);
 *      dlogits[B*S,2] written (NULL: loss only). */
double sb_qa_loss(float *dlogits, const float *logits, const int32_t *start, const int32_t *end,
                  int B, int S);

#endif
