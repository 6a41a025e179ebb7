/* sb_gelu: GELU in its erf form, as Hugging Face's DistilBERT ("gelu",
 * torch's approximate='none'):
 *   gelu(x)  = x/2 (1 + erf(x / sqrt 2))
 *   gelu'(x) = Phi(x) + x phi(x),  Phi(x) = (1 + erf(x / sqrt 2))/2,
 *              phi(x) = exp(-x^2/2) / sqrt(2 pi)
 * with sb_vmath.h's erf (Abramowitz & Stegun 7.1.26) and exp (Cephes), per
 * instruction set: scalar C (the reference), AVX2 + FMA (sb_gelu_avx2.c) and
 * AVX-512 (sb_gelu_avx512.c), chosen by a level as sb_cpu_vector_level
 * numbers them (0 scalar, 1 AVX2, 2 AVX-512; above what the CPU runs is
 * lowered to it).
 *
 * Accuracy, measured against double-precision libm (erf, exp) on every
 * 2^-12 step of [-12, 12] and every path (tests/test_kern_gelu.c holds it):
 *   |gelu - ref|  <= 1.0e-7 |x| + 2.0e-6 |ref|
 *   |gelu' - ref| <= 3.0e-7 + 2.0e-6 |ref|
 * the first term the erf approximation's 1.5e-7 scaled by x/2 (largest
 * relative to the result near x = -3, where gelu is -0.003), the second a
 * few f32 roundings, 1 + erf's cancellation for x < 0 included. The paths
 * differ from each other only by FMA contraction, within the same bounds.
 * gelu' holds up to |x| = 1e30 (exp's clamp at -87 leaves x phi(x) at
 * x e^-87 / sqrt(2 pi)). */
#ifndef SB_GELU_H
#define SB_GELU_H
#include <stddef.h>

#define SB_GELU_ABS_ERR 1.0e-7 /* times |x| */
#define SB_GELU_REL_ERR 2.0e-6
#define SB_GELU_GRAD_ABS_ERR 3.0e-7
#define SB_GELU_GRAD_REL_ERR 2.0e-6

/* y[n] = gelu(x) (y may alias x), on the calling thread */
void sb_gelu_fwd(int level, float *y, const float *x, size_t n);
/* dx[n] = dy * gelu'(x) (dx may alias dy or x), on the calling thread */
void sb_gelu_bwd(int level, float *dx, const float *dy, const float *x, size_t n);

/* y[n] = gelu(x) and g[n] = gelu'(x) in one pass, sharing erf (g may alias
 * x; y must not): the bits of sb_gelu_fwd and of sb_gelu_bwd with dy = 1, so
 * dy * g later gives sb_gelu_bwd's bits too. For backward, which recomputes
 * gelu(x) for the next linear's weight gradient and needs gelu'(x) after it. */
void sb_gelu_fwd_grad(int level, float *y, float *g, const float *x, size_t n);

/* the per-ISA bodies (reached only through the two above) */
void sb_gelu_fwd_avx512(float *y, const float *x, size_t n);
void sb_gelu_bwd_avx512(float *dx, const float *dy, const float *x, size_t n);
void sb_gelu_fwd_grad_avx512(float *y, float *g, const float *x, size_t n);
void sb_gelu_fwd_grad_avx2(float *y, float *g, const float *x, size_t n);
void sb_gelu_fwd_avx2(float *y, const float *x, size_t n);
void sb_gelu_bwd_avx2(float *dx, const float *dy, const float *x, size_t n);

#endif
