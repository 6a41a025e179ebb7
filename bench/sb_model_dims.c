#include "sb_model_dims.h"
#include "sb_shapes.h"

int sb_model_linear_shapes(int batch, int seq, sb_shape out[SB_MODEL_LINEAR_SHAPES])
{
    static const sb_linear layers[SB_MODEL_LINEAR_SHAPES] = {SB_LIN_ATTN_OUT, SB_LIN_FFN_UP,
                                                             SB_LIN_FFN_DOWN};
    sb_model_config c;
    sb_model_config_base(&c);
    for (int i = 0; i < SB_MODEL_LINEAR_SHAPES; i++) {
        out[i] = sb_distilbert_linear_gemm(&c, layers[i], SB_PASS_FORWARD, batch * seq);
        out[i].transa = out[i].transb = 0;
    }
    return SB_MODEL_LINEAR_SHAPES;
}
