/* Agreement with PyTorch: tests/ref/tiny_ref.safetensors holds a tiny
 * DistilBertForQuestionAnswering built in PyTorch 1.13 (make_reference.py),
 * its fixed weights and batch, and what PyTorch computed: logits, loss, every
 * gradient, and the losses of 10 AdamW steps. The trainer must agree:
 *   f32 kernels: logits and loss to 1e-5 relative, gradients to 1e-4,
 *                10-step losses to 1e-4;
 *   bf16 kernels (products in bf16, the rest f32): logits 3e-2, loss 1e-2,
 *                gradients 6e-2, 10-step losses 3e-2.
 * "Relative" for a tensor is max |ours - torch| / max |torch| (norm-wise); for
 * gradients the denominator is at least 1e-2 of the largest gradient of all.
 * Also: AdamW at every element-wise level (AVX-512, AVX2, scalar) gives the
 * same bits, and the level chosen is the one the CPU and SB_FORCE_NO_* call for. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "train_testutil.h"
#include "sb_adamw.h"
#include "sb_cpu.h"
#include "sb_layers.h"
#include "sb_model.h"
#include "sb_safetensors.h"

static int g_fail;

static float *get(const sb_safetensors *st, const char *name, int64_t *numel)
{
    const sb_st_tensor *t = sb_safetensors_find(st, name);
    if (!t) {
        printf("reference lacks %s\n", name);
        exit(1);
    }
    float *x = malloc(sizeof(float) * (t->numel ? t->numel : 1));
    sb_err e;
    if (sb_safetensors_read_f32(st, t, x, &e)) {
        printf("%s\n", e.msg);
        exit(1);
    }
    if (numel) *numel = t->numel;
    return x;
}

static double g_floor = 1e-30;

static double normwise(const float *a, const float *ref, size_t n)
{
    double num = 0, den = 0;
    for (size_t i = 0; i < n; i++) {
        num = fmax(num, fabs((double)a[i] - ref[i]));
        den = fmax(den, fabs((double)ref[i]));
    }
    /* A gradient that is zero in exact arithmetic (the key bias, the QA bias,
     * the last LayerNorm's bias: softmax is shift-invariant) is rounding noise
     * in both; the floor (1e-2 of the largest gradient, set while comparing
     * gradients) keeps noise from reading as a relative error. */
    return num / fmax(den, g_floor);
}

static void verdict(const char *kname, const char *what, double err, double tol)
{
    int ok = err <= tol && !isnan(err);
    if (!ok || getenv("SB_VERBOSE"))
        printf("  %-12s %-60s rel err %.2e (tol %.0e) %s\n", kname, what, err, tol,
               ok ? "ok" : "FAIL");
    if (!ok) g_fail = 1;
}

static void run_kernel(const sb_kernel *k, const sb_safetensors *st)
{
    int bf16 = k->dtype == SB_DT_BF16;
    double tol_logit = bf16 ? 3e-2 : 1e-5, tol_loss = bf16 ? 1e-2 : 1e-5;
    double tol_grad = bf16 ? 6e-2 : 1e-4, tol_steps = bf16 ? 3e-2 : 1e-4;
    float *cfgv = get(st, "cfg", NULL);
    sb_model_config c;
    sb_model_config_base(&c);
    c.vocab = (int)cfgv[0];
    c.dim = (int)cfgv[1];
    c.layers = (int)cfgv[2];
    c.heads = (int)cfgv[3];
    c.ffn = (int)cfgv[4];
    c.max_pos = (int)cfgv[5];
    c.dropout = c.attn_dropout = c.qa_dropout = 0;
    int B = (int)cfgv[6], S = (int)cfgv[7], steps = (int)cfgv[9];
    float lr = cfgv[8];
    sb_model m;
    sb_err e;
    if (sb_model_create(&m, &c, k, 2, &e) || sb_model_alloc_acts(&m, B, S, &e)) {
        printf("%s\n", e.msg);
        exit(1);
    }
    for (int i = 0; i < m.ntensors; i++) {
        char nm[128];
        snprintf(nm, sizeof nm, "w.%s", m.tensors[i].name);
        int64_t n;
        float *w = get(st, nm, &n);
        if ((size_t)n != m.tensors[i].count) {
            printf("%s: size\n", nm);
            exit(1);
        }
        memcpy(m.params + m.tensors[i].offset, w, n * sizeof(float));
        free(w);
    }
    float *fid = get(st, "in.input_ids", NULL), *fmask = get(st, "in.attention_mask", NULL);
    float *fs = get(st, "in.start_positions", NULL), *fe = get(st, "in.end_positions", NULL);
    int32_t ids[1024], sp[64], ep[64];
    uint8_t mask[1024];
    for (int i = 0; i < B * S; i++) {
        ids[i] = (int32_t)fid[i];
        mask[i] = (uint8_t)fmask[i];
    }
    for (int b = 0; b < B; b++) {
        sp[b] = (int32_t)fs[b];
        ep[b] = (int32_t)fe[b];
    }
    sb_batch bt = {.B = B, .S = S, .ids = ids, .mask = mask, .start = sp, .end = ep};
    double loss;
    if (sb_model_forward(&m, &bt, 1, 42, &loss, &e) || sb_model_backward(&m, &bt, &e)) {
        printf("%s\n", e.msg);
        exit(1);
    }
    float *rs = get(st, "out.start_logits", NULL), *re = get(st, "out.end_logits", NULL);
    float *rl = get(st, "out.loss", NULL);
    float *os = malloc(sizeof(float) * B * S), *oe = malloc(sizeof(float) * B * S);
    for (int i = 0; i < B * S; i++) {
        os[i] = m.logits[2 * i];
        oe[i] = m.logits[2 * i + 1];
    }
    verdict(k->name, "start logits", normwise(os, rs, B * S), tol_logit);
    verdict(k->name, "end logits", normwise(oe, re, B * S), tol_logit);
    verdict(k->name, "loss", fabs(loss - rl[0]) / fabs(rl[0]), tol_loss);
    printf("  %-12s loss %.7f (torch %.7f)\n", k->name, loss, rl[0]);
    double worst = 0, gmax = 0;
    const char *worst_name = "";
    for (int i = 0; i < m.ntensors; i++) {
        char nm[128];
        int64_t n;
        snprintf(nm, sizeof nm, "grad.%s", m.tensors[i].name);
        float *g = get(st, nm, &n);
        for (int64_t j = 0; j < n; j++) gmax = fmax(gmax, fabs(g[j]));
        free(g);
    }
    g_floor = 1e-2 * gmax;
    for (int i = 0; i < m.ntensors; i++) {
        char nm[128];
        snprintf(nm, sizeof nm, "grad.%s", m.tensors[i].name);
        float *g = get(st, nm, NULL);
        double err = normwise(m.grads + m.tensors[i].offset, g, m.tensors[i].count);
        if (err > worst || isnan(err)) {
            worst = err;
            worst_name = m.tensors[i].name;
        }
        verdict(k->name, nm, err, tol_grad);
        free(g);
    }
    printf("  %-12s gradients: worst rel err %.2e (%s)\n", k->name, worst, worst_name);
    g_floor = 1e-30;

    /* 10 optimizer steps on the same batch, as the script does. */
    sb_adamw opt, fused;
    if (sb_adamw_init(&opt, m.nparams, &e) || sb_adamw_init(&fused, m.nparams, &e)) exit(1);
    /* The trainer's fused path (clip factor applied inside AdamW) follows
     * the same gradients on a copy of the weights: it must match bit for bit. */
    float *p2 = malloc(sizeof(float) * m.nparams);
    memcpy(p2, m.params, sizeof(float) * m.nparams);
    float *ref_losses = get(st, "out.losses", NULL), ours[64];
    int clipped = 0;
    for (int s = 0; s < steps; s++) {
        if (sb_model_forward(&m, &bt, 1, 42, &loss, &e) || sb_model_backward(&m, &bt, &e)) exit(1);
        ours[s] = (float)loss;
        float cf = sb_clip_coef(m.grads, m.nparams, 1.0, 2, NULL);
        clipped += cf < 1.0f;
        sb_adamw_step_scaled(&fused, p2, m.grads, cf, sb_lr_linear(lr, s, steps), 2);
        sb_clip_grad_norm(m.grads, m.nparams, 1.0, 2);
        sb_layers_set_level(SB_LAYERS_SCALAR); /* and the scalar AdamW against the best one */
        sb_adamw_step(&opt, m.params, m.grads, sb_lr_linear(lr, s, steps), 2);
        sb_layers_set_level(SB_LAYERS_AUTO);
    }
    char what[96];
    snprintf(what, sizeof what, "fused clip+AdamW (%s) = clip, AdamW (scalar), bitwise",
             sb_layers_isa());
    verdict(k->name, what, memcmp(p2, m.params, sizeof(float) * m.nparams) ? 1 : 0, 0);
    printf("  %-12s fused clip+AdamW: %d of %d steps clipped\n", k->name, clipped, steps);
    free(p2);
    sb_adamw_free(&fused);
    verdict(k->name, "losses over 10 AdamW steps", normwise(ours, ref_losses, steps), tol_steps);
    printf("  %-12s step losses %.6f .. %.6f (torch %.6f .. %.6f)\n", k->name, ours[0],
           ours[steps - 1], ref_losses[0], ref_losses[steps - 1]);
    sb_adamw_free(&opt);
    free(cfgv);
    free(fid);
    free(fmask);
    free(fs);
    free(fe);
    free(rs);
    free(re);
    free(rl);
    free(os);
    free(oe);
    free(ref_losses);
    sb_model_free(&m);
}

/* AdamW at every level this machine runs against the scalar one, bit for
 * bit: parameters and both moments over a few steps with weight decay, a
 * clip factor, and a length that leaves vector tails in every thread's range. */
static void test_adamw_levels(void)
{
    const size_t n = 2 * 4099 + 13;
    int want = expected_level();
    printf("AdamW level %s, expected %s\n", sb_layers_isa(), sb_layers_level_name(want));
    if (sb_layers_level() != want) {
        printf("AdamW dispatch FAIL\n");
        g_fail = 1;
    }
    for (int lvl = sb_layers_best_level(); lvl > SB_LAYERS_SCALAR; lvl--) {
        sb_adamw o[2];
        float *p[2], *g = malloc(sizeof(float) * n);
        sb_err e;
        for (int k = 0; k < 2; k++) {
            if (sb_adamw_init(&o[k], n, &e)) exit(1);
            o[k].weight_decay = 0.01f;
            p[k] = malloc(sizeof(float) * n);
            for (size_t i = 0; i < n; i++) p[k][i] = 0.05f * (float)((i * 7919) % 201) - 5.0f;
        }
        for (int step = 0; step < 5; step++) {
            for (size_t i = 0; i < n; i++)
                g[i] = 1e-3f * (float)(((i + 13 * (size_t)step) * 104729) % 2001) - 1.0f;
            for (int k = 0; k < 2; k++) {
                sb_layers_set_level(k ? SB_LAYERS_SCALAR : lvl);
                sb_adamw_step_scaled(&o[k], p[k], g, 0.7f, sb_lr_linear(1e-3f, step, 5),
                                     2 + step % 2);
            }
        }
        sb_layers_set_level(SB_LAYERS_AUTO);
        int same = !memcmp(p[0], p[1], sizeof(float) * n) &&
            !memcmp(o[0].m, o[1].m, sizeof(float) * n) &&
            !memcmp(o[0].v, o[1].v, sizeof(float) * n);
        printf("AdamW %s = scalar, bitwise over 5 steps: %s\n", sb_layers_level_name(lvl),
               same ? "ok" : "FAIL");
        if (!same) g_fail = 1;
        for (int k = 0; k < 2; k++) {
            sb_adamw_free(&o[k]);
            free(p[k]);
        }
        free(g);
    }
}

int main(void)
{
    test_adamw_levels();
    const char *src = getenv("SB_SOURCE_DIR");
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/ref/tiny_ref.safetensors", src ? src : ".");
    sb_safetensors st;
    sb_err e;
    if (sb_safetensors_open(path, &st, &e)) {
        printf("%s\n", e.msg);
        return 1;
    }
    int ran = 0;
    for (int i = 0; i < sb_kernel_count(); i++) {
        const sb_kernel *k = sb_kernel_at(i);
        char why[256] = "";
        if (!k->gemm_f32) continue;
        if (!k->probe(why, sizeof why)) {
            printf("%s: skipped (%s)\n", k->name, why);
            continue;
        }
        printf("%s (%s):\n", k->name, sb_dtype_name(k->dtype));
        run_kernel(k, &st);
        ran++;
    }
    sb_safetensors_close(&st);
    printf(g_fail ? "FAILED\n" : "agreement with PyTorch: %d kernels ok\n", ran);
    return g_fail;
}
