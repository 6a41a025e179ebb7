/* Whole-model gradient check: a tiny DistilBertForQuestionAnswering with
 * dropout on (the counter-based masks make the loss a deterministic function
 * of the weights for a fixed seed), padding in the batch and one answer
 * outside the window; the backward pass must match central differences of
 * the loss for a spread of elements of every parameter tensor. Also checks
 * the layout: tensors tile the flat buffer, and on_grad_ready reports every
 * block once, head first and embeddings last. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "train_testutil.h"
#include "sb_model.h"

static int g_fail;
static size_t g_seen_off[64], g_seen_len[64];
static int g_seen;

static void on_ready(void *user, size_t off, size_t len)
{
    (void)user;
    if (g_seen < 64) {
        g_seen_off[g_seen] = off;
        g_seen_len[g_seen] = len;
    }
    g_seen++;
}

int main(void)
{
    const sb_kernel *k = pick_f32_kernel();
    if (k) printf("kernel %s, element-wise level %s\n", k->name, sb_layers_isa());
    sb_model_config c;
    sb_model_config_base(&c);
    /* The README's FLOP count for DistilBERT-base at S = 384, as the sum of
     * the per-kind counts --profile uses: 6 (L (4 D^2 + 2 D F) + 2 D) + 12 L S D. */
    if (sb_model_flops_per_token(&c, 384) != 276046848.0) {
        printf("flops per token %.0f, want 276046848 FAIL\n", sb_model_flops_per_token(&c, 384));
        g_fail = 1;
    }
    c.vocab = 30;
    c.dim = 16;
    c.layers = 2;
    c.heads = 2;
    c.ffn = 32;
    c.max_pos = 10;
    c.dropout = 0.1f;
    c.attn_dropout = 0.1f;
    c.qa_dropout = 0.1f;
    sb_model m;
    sb_err e;
    int B = 2, S = 7;
    if (!k || sb_model_create(&m, &c, k, 2, &e) || sb_model_alloc_acts(&m, B, S, &e)) {
        printf("setup failed\n");
        return 1;
    }
    /* Larger-than-default weights so every path carries a visible gradient. */
    sb_model_init_random(&m, 7);
    for (size_t i = 0; i < m.nparams; i++) m.params[i] += 0.3f * sb_rng_normal(99, i);

    size_t covered = 0;
    for (int i = 0; i < m.ntensors; i++) covered += m.tensors[i].count;
    if (covered != m.nparams || m.ntensors != 6 + 16 * c.layers) {
        printf("tensor table covers %zu of %zu FAIL\n", covered, m.nparams);
        g_fail = 1;
    }

    int32_t ids[14] = {1, 5, 9, 2, 17, 3, 8, 1, 4, 29, 2, 0, 0, 0};
    uint8_t mask[14] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0};
    int32_t sp[2] = {3, 20}, ep[2] = {5, 2};
    sb_batch bt = {.B = B, .S = S, .ids = ids, .mask = mask, .start = sp, .end = ep};
    double loss;
    m.on_grad_ready = on_ready;
    if (sb_model_forward(&m, &bt, 1, 1234, &loss, &e) || sb_model_backward(&m, &bt, &e)) {
        printf("%s\n", e.msg);
        return 1;
    }
    m.on_grad_ready = NULL;
    /* the head, six groups per layer (each as soon as it is final), the embeddings */
    if (g_seen != 6 * c.layers + 2 || g_seen_off[0] != m.block_off[c.layers + 1] ||
        g_seen_off[1] != m.block_off[c.layers] + m.block_len[c.layers] - 2 * (size_t)c.dim ||
        g_seen_off[g_seen - 1] != 0) {
        printf("on_grad_ready order FAIL (%d calls)\n", g_seen);
        g_fail = 1;
    }
    size_t hooked = 0;
    for (int i = 0; i < g_seen && i < 64; i++) hooked += g_seen_len[i];
    if (hooked != m.nparams) {
        printf("hooks cover %zu of %zu FAIL\n", hooked, m.nparams);
        g_fail = 1;
    }
    printf("loss %.6f\n", loss);

    float *grad = malloc(sizeof(float) * m.nparams);
    memcpy(grad, m.grads, sizeof(float) * m.nparams);
    const float h = 1e-2f;
    double worst_all = 0;
    for (int t = 0; t < m.ntensors; t++) {
        const sb_tensor_info *ti = &m.tensors[t];
        size_t stride = ti->count > 12 ? ti->count / 12 : 1;
        double worst = 0;
        for (size_t j = 0; j < ti->count; j += stride) {
            if (t == 0 && j < (size_t)c.dim) continue; /* the pad row: no gradient by design */
            size_t i = ti->offset + j;
            float keep = m.params[i];
            double lp, lm;
            m.params[i] = keep + h;
            sb_model_forward(&m, &bt, 1, 1234, &lp, &e);
            m.params[i] = keep - h;
            sb_model_forward(&m, &bt, 1, 1234, &lm, &e);
            m.params[i] = keep;
            double num = (lp - lm) / (2 * h), ana = grad[i];
            double err = fabs(num - ana) / fmax(fabs(num) + fabs(ana), 2e-3);
            if (err > worst) worst = err;
        }
        if (worst > worst_all) worst_all = worst;
        int ok = worst < 2e-2;
        if (!ok || getenv("SB_VERBOSE"))
            printf("%-55s worst rel err %.2e %s\n", ti->name, worst, ok ? "ok" : "FAIL");
        if (!ok) g_fail = 1;
    }
    /* The pad row of the word embeddings gets no gradient (padding_idx). */
    for (int j = 0; j < c.dim; j++)
        if (grad[j] != 0) {
            printf("pad row gradient FAIL\n");
            g_fail = 1;
            break;
        }
    printf("whole model: %d tensors, worst rel err %.2e\n", m.ntensors, worst_all);
    free(grad);
    sb_model_free(&m);
    printf(g_fail ? "FAILED\n" : "whole-model gradient check passed\n");
    return g_fail;
}
