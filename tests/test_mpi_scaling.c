/* sb_scaling: the alpha-beta fit recovers a known network, ring times and
 * step counts follow their formulas, overlap never costs more than no
 * overlap, the implied bandwidth inverts the model, the study CSV loads and
 * malformed rows are named by file:line. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "sb_io.h"
#include "sb_scaling.h"

#include "testutil.h"
#define NEAR(a, b, rel) (fabs((a) - (b)) <= (rel)*fabs(b) + 1e-15)

int main(void)
{
    sb_err e = {0};
    CHECKF(sb_distilbert_param_count(30522, 768, 6, 3072, 512) == 66364418, "param count %zu",
           sb_distilbert_param_count(30522, 768, 6, 3072, 512));
    CHECKF(sb_distilbert_grad_bytes() == 265457672u, "grad bytes");

    /* A synthetic curve from a known network at R0 = 4 ranks. */
    const double alpha = 3e-6, beta = 1.0 / 10e9;
    const int r0 = 4;
    size_t bytes[12];
    double lat[12];
    for (int i = 0; i < 12; i++) {
        bytes[i] = (size_t)4 << (2 * i);
        lat[i] = 2.0 * (r0 - 1) * alpha + 2.0 * (r0 - 1) / r0 * (double)bytes[i] * beta;
    }
    sb_ab_fit fit;
    CHECKF(!sb_scaling_fit(bytes, lat, 12, r0, 1, &fit, &e), "fit: %s", e.msg);
    CHECKF(NEAR(fit.alpha_s, alpha, 1e-6) && NEAR(fit.beta_s_per_byte, beta, 1e-9),
           "fit alpha %g beta %g", fit.alpha_s, fit.beta_s_per_byte);
    CHECKF(NEAR(sb_scaling_ring_seconds(&fit, 1e6, r0), 2.0 * 3 * alpha + 1.5 * 1e6 * beta, 1e-6),
           "ring time at R0");
    CHECKF(sb_scaling_ring_seconds(&fit, 1e6, 1) == 0, "one rank communicates");
    CHECKF(sb_scaling_fit(bytes, lat, 12, 1, 1, &fit, &e) == SB_EUSAGE, "1-rank curve fitted");
    double flat[12];
    for (int i = 0; i < 12; i++) flat[i] = 1e-3;
    CHECKF(sb_scaling_fit(bytes, flat, 12, 2, 1, &fit, &e) == SB_EUSAGE, "flat curve fitted");

    CHECKF(sb_scaling_steps(88524, 32, 2) == 1384, "steps 1 node: %ld",
           sb_scaling_steps(88524, 32, 2));
    CHECKF(sb_scaling_steps(88524, 32, 8) == 346, "steps 4 nodes: %ld",
           sb_scaling_steps(88524, 32, 8));
    CHECKF(sb_scaling_steps(10, 3, 4) == 1, "padding: 10 over 4 ranks is 3 each, 1 step");

    sb_scaling_input in = {.step_compute_s = 1.0,
                           .features = 88524,
                           .batch = 32,
                           .ppn = 2,
                           .grad_bytes = 265457672.0,
                           .last_bucket_bytes = 95342592.0,
                           .overlap_share = 0.67};
    sb_scaling_fit_from_busbw(2.0, 5, &in.net);
    int nodes[] = {1, 2, 4, 64};
    sb_scaling_point p[4];
    CHECKF(!sb_scaling_project(&in, nodes, 4, p, &e), "project: %s", e.msg);
    CHECKF(p[0].comm_s == 0 && NEAR(p[0].epoch_overlap_s, 1384.0, 1e-12), "1 node: %g",
           p[0].epoch_overlap_s);
    for (int i = 0; i < 4; i++) {
        CHECKF(p[i].epoch_overlap_s <= p[i].epoch_no_overlap_s, "overlap slower at %d", nodes[i]);
        CHECKF(p[i].exposed_s >=
                       sb_scaling_ring_seconds(&in.net, in.last_bucket_bytes, p[i].ranks) - 1e-12 ||
                   nodes[i] == 1,
               "last bucket hidden at %d nodes", nodes[i]);
        CHECKF(NEAR(p[i].ideal_s, p[0].epoch_overlap_s / nodes[i], 1e-12), "ideal");
        CHECKF(p[i].speedup_overlap <= nodes[i] + 1e-9, "superlinear at %d", nodes[i]);
    }
    /* 4 nodes, 8 ranks: comm = 14 alpha + 1.75 x grad / 2 GB/s. */
    double c4 = 14 * 5e-6 + 1.75 * 265457672.0 / 2e9;
    CHECKF(NEAR(p[2].comm_s, c4, 1e-9), "comm at 4 nodes %g want %g", p[2].comm_s, c4);
    CHECKF(NEAR(p[2].epoch_no_overlap_s, 346 * (1.0 + c4), 1e-9), "epoch without overlap");
    /* Implied bandwidth inverts the no-overlap model (no latency term). */
    sb_scaling_fit_from_busbw(3.0, 0, &in.net);
    sb_scaling_project(&in, nodes, 4, p, &e);
    double imp = sb_scaling_implied_busbw(&in, p[0].epoch_no_overlap_s, 4, p[2].epoch_no_overlap_s);
    CHECKF(NEAR(imp, 3.0, 1e-9), "implied bandwidth %g, want 3", imp);
    CHECKF(sb_scaling_implied_busbw(&in, 1000, 4, 100) == 0, "faster-than-ideal gives a bandwidth");
    in.overlap_share = 1.5;
    CHECKF(sb_scaling_project(&in, nodes, 4, p, &e) == SB_EUSAGE, "share 1.5 accepted");

    /* The study CSV in the tree, and malformed ones. */
    const char *src = getenv("SB_SOURCE_DIR");
    char path[1024];
    snprintf(path, sizeof path, "%s/results/reference/study.csv", src ? src : ".");
    sb_study_point *sp = NULL;
    int n = 0;
    CHECKF(!sb_study_load(path, &sp, &n, &e), "study: %s", e.msg);
    int found = 0;
    for (int i = 0; i < n; i++) {
        if (!strcmp(sp[i].label, "spr-1node")) found += sp[i].epoch_s == 1560 && sp[i].nodes == 1;
        if (!strcmp(sp[i].label, "spr-4nodes")) found += sp[i].epoch_s == 450 && sp[i].nodes == 4;
        if (!strcmp(sp[i].label, "spr-4nodes-ideal"))
            found += sp[i].epoch_s == 390 && !strcmp(sp[i].kind, "ideal");
        if (!strcmp(sp[i].label, "icx-1node")) found += sp[i].epoch_s == 12600;
        CHECKF(sp[i].ppn == 2 && sp[i].threads == 24 && sp[i].batch == 32 &&
                   !strcmp(sp[i].dtype, "bf16"),
               "row %s layout", sp[i].label);
    }
    CHECKF(found == 4 && n == 4, "study rows: %d of 4 found, %d rows", found, n);
    free(sp);
    char tmp[] = "/tmp/sb_study_test.XXXXXX";
    int fd = mkstemp(tmp);
    close(fd);
    struct {
        const char *text, *want;
    } bad[] = {
        {"label,nodes\n", "lacks column 'machine'"},
        {"# "
         "c\nlabel,machine,nodes,ppn,threads,batch,dtype,epoch_seconds,kind\n\nx,m,0,2,24,32,bf16,"
         "9,measured\n",
         ":4:"},
        {"label,machine,nodes,ppn,threads,batch,dtype,epoch_seconds,kind\nx,m,1,2,24,32,bf16,9,"
         "guess\n",
         ":2:"},
        {"label,machine,nodes,ppn,threads,batch,dtype,epoch_seconds,kind\nx,m,1\n", ":2:"},
        {"label,machine,nodes,ppn,threads,batch,dtype,epoch_seconds,kind\n", "no data rows"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sb_write_file_atomic(tmp, bad[i].text, strlen(bad[i].text), &e);
        sb_err be = {0};
        CHECKF(sb_study_load(tmp, &sp, &n, &be) == SB_EUSAGE && strstr(be.msg, bad[i].want),
               "bad study #%zu: '%s'", i, be.msg);
    }
    unlink(tmp);
    printf("%s: %d failure(s)\n", g_test_failures ? "FAIL" : "ok", g_test_failures);
    return g_test_failures ? 1 : 0;
}
