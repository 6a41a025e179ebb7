/* sb_vmath: exp and erf for element-wise code, as scalar C (the reference
 * every vector path follows op for op) and, where the including file is
 * compiled for them (sb_vmath_avx512.h, sb_vmath_avx2.h), 16 and 8 at a time.
 *
 * exp(x): Cephes' expf polynomial after x = n ln2 + r (about 1 ulp); x is
 * clamped to [-87, 88].
 * erf(x): Abramowitz & Stegun 7.1.26, a rational-times-exp form with absolute
 * error <= 1.5e-7 in exact arithmetic (the form PyTorch's vectorised CPU erf
 * uses); in f32 the measured error is in sb_gelu.h. */
#ifndef SB_VMATH_H
#define SB_VMATH_H
#include <math.h>
#include <stdint.h>
#include <string.h>

#define SB_EXP_LO -87.0f
#define SB_EXP_HI 88.0f
#define SB_LOG2E 1.44269504088896341f
#define SB_LN2_HI 0.693359375f
#define SB_LN2_LO -2.12194440e-4f
#define SB_EXP_P0 1.9875691500e-4f
#define SB_EXP_P1 1.3981999507e-3f
#define SB_EXP_P2 8.3334519073e-3f
#define SB_EXP_P3 4.1665795894e-2f
#define SB_EXP_P4 1.6666665459e-1f
#define SB_EXP_P5 5.0000001201e-1f
#define SB_ERF_P 0.3275911f
#define SB_ERF_A5 1.061405429f
#define SB_ERF_A4 -1.453152027f
#define SB_ERF_A3 1.421413741f
#define SB_ERF_A2 -0.284496736f
#define SB_ERF_A1 0.254829592f
#define SB_SQRT1_2F 0.70710678118654752f
#define SB_INV_SQRT_2PIF 0.39894228040143268f

static inline float sb_vexp(float x)
{
    x = x < SB_EXP_LO ? SB_EXP_LO : (x > SB_EXP_HI ? SB_EXP_HI : x);
    float fn = floorf(x * SB_LOG2E + 0.5f);
    float r = x - fn * SB_LN2_HI - fn * SB_LN2_LO;
    float z = r * r;
    float y = ((((SB_EXP_P0 * r + SB_EXP_P1) * r + SB_EXP_P2) * r + SB_EXP_P3) * r + SB_EXP_P4) *
            r +
        SB_EXP_P5;
    y = y * z + r + 1.0f;
    uint32_t bits = (uint32_t)((int32_t)fn + 127) << 23;
    float two;
    memcpy(&two, &bits, sizeof two);
    return y * two;
}

static inline float sb_verf(float x)
{
    float ax = fabsf(x);
    float t = 1.0f / (1.0f + SB_ERF_P * ax);
    float p = ((((SB_ERF_A5 * t + SB_ERF_A4) * t + SB_ERF_A3) * t + SB_ERF_A2) * t + SB_ERF_A1) * t;
    float r = 1.0f - p * sb_vexp(-ax * ax);
    return copysignf(r, x);
}

#endif
