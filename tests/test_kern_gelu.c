/* GELU (kernels/sb_gelu.h) against double-precision libm on every 2^-12 step
 * of [-12, 12] (196,609 points; GELU's inputs in DistilBERT lie well inside)
 * plus 0, -0, the f32 extremes and infinities, on every path this CPU runs:
 * the errors stay within the bounds sb_gelu.h states, and the paths agree with
 * the scalar reference to a few ulps (they differ only by FMA contraction).
 * The fused gelu + gelu' pass gives both bit for bit. Tails: every length
 * 0..40 writes exactly its n elements. The largest error
 * seen is printed, to keep the stated bound honest. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sb_cpu.h"
#include "sb_gelu.h"
#include "testutil.h"

static double ref_gelu(double x) { return 0.5 * x * (1.0 + erf(x / sqrt(2.0))); }
static double ref_grad(double x)
{
    return 0.5 * (1.0 + erf(x / sqrt(2.0))) + x * exp(-0.5 * x * x) / sqrt(2.0 * M_PI);
}

#define LO (-12.0)
#define STEP (1.0 / 4096.0)
#define NPTS (24 * 4096 + 1)

static void test_level(int lvl, const float *x, const float *ones, float *y, float *g, float *y0,
                       float *g0)
{
    sb_gelu_fwd(lvl, y, x, NPTS);
    sb_gelu_bwd(lvl, g, ones, x, NPTS);
    double worst_a = 0, worst_g = 0, worst_x = 0, worst_gx = 0;
    for (int i = 0; i < NPTS; i++) {
        double r = ref_gelu(x[i]), rg = ref_grad(x[i]);
        double ea = fabs(y[i] - r), eg = fabs(g[i] - rg);
        /* the share of each bound used */
        double ua = ea / (SB_GELU_ABS_ERR * fabs(x[i]) + SB_GELU_REL_ERR * fabs(r));
        double ug = eg / (SB_GELU_GRAD_ABS_ERR + SB_GELU_GRAD_REL_ERR * fabs(rg));
        if (ua > worst_a) worst_a = ua, worst_x = x[i];
        if (ug > worst_g) worst_g = ug, worst_gx = x[i];
        /* against the scalar reference: within the same bounds (the paths
         * differ by FMA contraction, which 1 + erf's cancellation for x < 0
         * makes worth up to about 6 ulps of the result) */
        CHECKF(fabs((double)y[i] - y0[i]) <=
                       SB_GELU_ABS_ERR * fabs(x[i]) + SB_GELU_REL_ERR * fabs(r) &&
                   fabs((double)g[i] - g0[i]) <=
                       SB_GELU_GRAD_ABS_ERR + SB_GELU_GRAD_REL_ERR * fabs(rg),
               "level %d x %.9g: %.9g / %.9g off the scalar path's %.9g / %.9g", lvl, x[i], y[i],
               g[i], y0[i], g0[i]);
    }
    printf("level %d: worst gelu error %.3f of the bound (x = %.6g), gelu' %.3f (x = %.6g)\n", lvl,
           worst_a, worst_x, worst_g, worst_gx);
    CHECKF(worst_a <= 1.0, "level %d: gelu error %.3f x the stated bound at x = %.9g", lvl, worst_a,
           worst_x);
    CHECKF(worst_g <= 1.0, "level %d: gelu' error %.3f x the stated bound at x = %.9g", lvl,
           worst_g, worst_gx);

    /* special values: gelu(0) = 0, gelu(-0) = -0 or 0, gelu(+inf) = inf,
     * gelu' saturates to 1 and 0, and huge negative inputs go to -0 or 0
     * (gelu' only up to |x| = 1e30: exp's clamp at -87 leaves x phi(x) at
     * x e^-87 / sqrt(2 pi): 7e-9 at -1e30, and near 1 at |x| = 1e37) */
    float sx[6] = {0.0f, -0.0f, 1.0e30f, -1.0e30f, INFINITY, -88.0f}, sy[6], sg[6];
    float so[6] = {1, 1, 1, 1, 1, 1};
    sb_gelu_fwd(lvl, sy, sx, 6);
    sb_gelu_bwd(lvl, sg, so, sx, 6);
    CHECKF(sy[0] == 0.0f && sy[1] == 0.0f, "level %d: gelu(+-0) = %g, %g", lvl, sy[0], sy[1]);
    CHECKF(sy[2] == 1.0e30f && sy[4] == INFINITY, "level %d: gelu(big) = %g, gelu(inf) = %g", lvl,
           sy[2], sy[4]);
    CHECKF(sy[3] == 0.0f && sy[5] == 0.0f, "level %d: gelu(-big) = %g, gelu(-88) = %g", lvl, sy[3],
           sy[5]);
    CHECKF(sg[0] == 0.5f && sg[2] == 1.0f && fabsf(sg[3]) <= 1e-8f,
           "level %d: gelu'(0, big, -big) = %g %g %g", lvl, sg[0], sg[2], sg[3]);

    /* the fused pass: gelu(x) and gelu'(x) bit for bit as the two passes,
     * g written over x as the trainer's backward does */
    float *fy = malloc(sizeof(float) * NPTS), *fg = malloc(sizeof(float) * NPTS);
    memcpy(fg, x, sizeof(float) * NPTS);
    sb_gelu_fwd_grad(lvl, fy, fg, fg, NPTS);
    CHECKF(!memcmp(fy, y, sizeof(float) * NPTS) && !memcmp(fg, g, sizeof(float) * NPTS),
           "level %d: the fused gelu/gelu' pass differs from the two passes", lvl);
    for (int n = 0; n <= 40; n++) {
        float buf[48], gb[48];
        for (int j = 0; j < 48; j++) buf[j] = gb[j] = -7.5f;
        sb_gelu_fwd_grad(lvl, buf, gb, x + 1000, (size_t)n);
        int ok = 1;
        for (int j = 0; j < 48; j++) {
            if (j < n && (buf[j] != y[1000 + j] || gb[j] != g[1000 + j])) ok = 0;
            if (j >= n && (buf[j] != -7.5f || gb[j] != -7.5f)) ok = 0;
        }
        CHECKF(ok, "level %d: fused, length %d wrote other than its elements", lvl, n);
    }
    free(fy);
    free(fg);

    /* tails: exactly n elements written, each as in the long run */
    for (int n = 0; n <= 40; n++) {
        float buf[48], gb[48];
        for (int j = 0; j < 48; j++) buf[j] = gb[j] = -7.5f;
        sb_gelu_fwd(lvl, buf, x + 1000, (size_t)n);
        sb_gelu_bwd(lvl, gb, ones, x + 1000, (size_t)n);
        int ok = 1;
        for (int j = 0; j < 48; j++) {
            if (j < n && (buf[j] != y[1000 + j] || gb[j] != g[1000 + j])) ok = 0;
            if (j >= n && (buf[j] != -7.5f || gb[j] != -7.5f)) ok = 0;
        }
        CHECKF(ok, "level %d: length %d wrote other than its elements", lvl, n);
    }
}

int main(void)
{
    float *x = malloc(sizeof(float) * NPTS), *ones = malloc(sizeof(float) * NPTS);
    float *y = malloc(sizeof(float) * NPTS), *g = malloc(sizeof(float) * NPTS);
    float *y0 = malloc(sizeof(float) * NPTS), *g0 = malloc(sizeof(float) * NPTS);
    for (int i = 0; i < NPTS; i++) {
        x[i] = (float)(LO + i * STEP); /* exact: a multiple of 2^-12 below 16 */
        ones[i] = 1.0f;
    }
    sb_gelu_fwd(0, y0, x, NPTS);
    sb_gelu_bwd(0, g0, ones, x, NPTS);
    for (int lvl = 0; lvl <= sb_cpu_vector_level(); lvl++) test_level(lvl, x, ones, y, g, y0, g0);
    if (sb_cpu_vector_level() < 2) printf("(AVX-512 path not run: this CPU lacks it)\n");
    free(x);
    free(ones);
    free(y);
    free(g);
    free(y0);
    free(g0);
    return test_report("test_kern_gelu");
}
