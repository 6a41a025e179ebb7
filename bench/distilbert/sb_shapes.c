#include "sb_shapes.h"

sb_shape sb_distilbert_linear_gemm(const sb_model_config *c, sb_linear l, sb_pass p, int tokens)
{
    int d = c->dim, out = l == SB_LIN_QKV ? 3 * d : l == SB_LIN_FFN_UP ? c->ffn : d;
    int in = l == SB_LIN_FFN_DOWN ? c->ffn : d;
    switch (p) {
    case SB_PASS_FORWARD: return (sb_shape){tokens, out, in, 'N', 'T', 0, 0};
    case SB_PASS_DGRAD: return (sb_shape){tokens, in, out, 'N', 'N', 0, 0};
    default: return (sb_shape){out, in, tokens, 'T', 'N', 0, 0};
    }
}

int sb_distilbert_step_gemms(const sb_model_config *c, int batch, int seq,
                             sb_shape out[SB_STEP_GEMMS])
{
    static const struct {
        sb_pass pass;
        sb_linear layer[3];
    } linear[] = {{SB_PASS_FORWARD, {SB_LIN_ATTN_OUT, SB_LIN_QKV, SB_LIN_FFN_DOWN}},
                  {SB_PASS_DGRAD, {SB_LIN_ATTN_OUT, SB_LIN_FFN_UP, SB_LIN_FFN_DOWN}},
                  {SB_PASS_WGRAD, {SB_LIN_ATTN_OUT, SB_LIN_QKV, SB_LIN_FFN_DOWN}}};
    int n = 0, tokens = batch * seq, head = c->dim / c->heads;
    for (int p = 0; p < 3; p++)
        for (int l = 0; l < 3; l++)
            out[n++] = sb_distilbert_linear_gemm(c, linear[p].layer[l], linear[p].pass, tokens);
    out[n++] = (sb_shape){seq, seq, head, 'N', 'T', 1, 0};
    out[n++] = (sb_shape){seq, head, seq, 'N', 'N', 1, 0};
    out[n++] = (sb_shape){seq, head, seq, 'T', 'N', 1, 0};
    return n;
}
