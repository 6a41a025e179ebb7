/* GELU's scalar reference and the dispatch (sb_gelu.h). */
#include "sb_gelu.h"
#include "sb_cpu.h"
#include "sb_vmath.h"

static int clamp_level(int level)
{
    int best = sb_cpu_vector_level();
    return level < 0 || level > best ? best : level;
}

void sb_gelu_fwd(int level, float *y, const float *x, size_t n)
{
    switch (clamp_level(level)) {
    case 2: sb_gelu_fwd_avx512(y, x, n); return;
    case 1: sb_gelu_fwd_avx2(y, x, n); return;
    default:
        for (size_t i = 0; i < n; i++) y[i] = 0.5f * x[i] * (1.0f + sb_verf(x[i] * SB_SQRT1_2F));
    }
}

void sb_gelu_fwd_grad(int level, float *y, float *g, const float *x, size_t n)
{
    switch (clamp_level(level)) {
    case 2: sb_gelu_fwd_grad_avx512(y, g, x, n); return;
    case 1: sb_gelu_fwd_grad_avx2(y, g, x, n); return;
    default:
        for (size_t i = 0; i < n; i++) {
            float v = x[i], erf = sb_verf(v * SB_SQRT1_2F);
            float cdf = 0.5f * (1.0f + erf);
            float pdf = SB_INV_SQRT_2PIF * sb_vexp(-0.5f * v * v);
            y[i] = 0.5f * v * (1.0f + erf);
            g[i] = cdf + v * pdf;
        }
    }
}

void sb_gelu_bwd(int level, float *dx, const float *dy, const float *x, size_t n)
{
    switch (clamp_level(level)) {
    case 2: sb_gelu_bwd_avx512(dx, dy, x, n); return;
    case 1: sb_gelu_bwd_avx2(dx, dy, x, n); return;
    default:
        for (size_t i = 0; i < n; i++) {
            float v = x[i];
            float cdf = 0.5f * (1.0f + sb_verf(v * SB_SQRT1_2F));
            float pdf = SB_INV_SQRT_2PIF * sb_vexp(-0.5f * v * v);
            dx[i] = dy[i] * (cdf + v * pdf);
        }
    }
}
