/* sb_plot_scaling: a training sweep over nodes: epoch time, speedup and
 * parallel efficiency against nodes, and epoch time against total ranks,
 * with the scaling model's projections dashed and the published study
 * overlaid where the workload matches. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sb_db.h"
#include "sb_gnuplot.h"
#include "sb_plot_int.h"
#include "sb_query.h"
#include "sb_scaling.h"

#define MAX_PTS 512

typedef struct {
    char kernel[160];
    int ppn, nodes;
    double epoch_s;
    int extrapolated; /* a measured point whose epoch time came from some steps */
    int model;        /* status 'projected': the scaling model's point, nothing ran */
} scale_pt;

/* The published study trained DistilBERT-base at sequence length 384: its
 * points mean something beside a scaling series only when every point drawn
 * is that workload (a `tiny` model on two cores is not). A configuration
 * without seq ran the trainer's default, 384. */
static int study_matches(const char *shape)
{
    const char *m = strstr(shape, "model=");
    const char *sq = strstr(shape, "seq=");
    return m && !strncmp(m + 6, "distilbert-base", 15) &&
        (m[21] == '\0' || m[21] == ' ' || !strncmp(m + 21, "-uncased", 8)) &&
        (!sq || (!strncmp(sq + 4, "384", 3) && (sq[7] == '\0' || sq[7] == ' ')));
}

/* The sweep's epoch points, one per (kernel, ppn, measured or projected,
 * nodes): the most threads where several ran. *match: every point is the
 * published study's workload; *nranks: how many rank counts they cover. */
static int load_points(sb_plot_ctx *c, scale_pt *pts, int *n, int *maxn, int *match, int *nranks,
                       sb_err *e)
{
    sb_epoch_point *v;
    int nv;
    int rc = sb_db_epoch_series(c->db, c->sweep, &v, &nv, e);
    if (rc) return rc;
    int ranks_seen[MAX_PTS];
    *n = 0;
    *maxn = 1;
    *nranks = 0;
    *match = nv > 0;
    for (int k = 0; k < nv; k++) *match &= study_matches(v[k].shape);
    for (int k = 0; k < nv && *n < MAX_PTS; k++) {
        scale_pt *p = &pts[*n];
        snprintf(p->kernel, sizeof p->kernel, "%s", v[k].kernel);
        p->ppn = v[k].ppn;
        p->nodes = v[k].nodes;
        p->epoch_s = v[k].epoch_s;
        p->extrapolated = v[k].extrapolated;
        p->model = v[k].model;
        if (!(p->epoch_s > 0)) continue;
        /* several thread counts at one (kernel, ppn, kind, nodes): keep the most threads */
        if (*n && !strcmp(pts[*n - 1].kernel, p->kernel) && pts[*n - 1].ppn == p->ppn &&
            pts[*n - 1].model == p->model && pts[*n - 1].nodes == p->nodes)
            continue;
        int r = p->ppn * p->nodes, seen = 0;
        for (int i = 0; i < *nranks && !seen; i++) seen = ranks_seen[i] == r;
        if (!seen) ranks_seen[(*nranks)++] = r;
        if (p->nodes > *maxn) *maxn = p->nodes;
        (*n)++;
    }
    sb_epoch_series_free(v, nv);
    return SB_OK;
}

/* One data block per series into the nodes figure s and the ranks figure r
 * (nodes, epoch s, speedup over its own 1-node point, efficiency %, ranks),
 * and its clause into each panel: cl = epoch, speedup, efficiency (nodes)
 * and epoch (ranks). Returns how many series. */
static int series_blocks(sb_gp *s, sb_gp *r, sb_gp *const cl[4], const scale_pt *pts, int n)
{
    char unknown[64][160];
    int nunknown = 0, blocks = 0;
    for (int i = 0; i < n && blocks < 64;) {
        int j = i;
        while (j < n && !strcmp(pts[j].kernel, pts[i].kernel) && pts[j].ppn == pts[i].ppn &&
               pts[j].model == pts[i].model)
            j++;
        /* the series' own 1-node point is its baseline */
        double base = 0;
        int extrapolated = 0;
        for (int q = i; q < j; q++) {
            if (pts[q].nodes == 1) base = pts[q].epoch_s;
            extrapolated |= pts[q].extrapolated && !pts[q].model;
        }
        char name[16];
        snprintf(name, sizeof name, "s%d", blocks);
        for (int f = 0; f < 2; f++) {
            sb_gp *fig = f ? r : s;
            sb_gp_block_begin(fig, name);
            for (int q = i; q < j; q++) {
                double sp = base > 0 ? base / pts[q].epoch_s : NAN;
                double row[5] = {pts[q].nodes, pts[q].epoch_s, sp,
                                 pts[q].nodes > 0 ? 100.0 * sp / pts[q].nodes : NAN,
                                 (double)pts[q].ppn * pts[q].nodes};
                sb_gp_block_row(fig, row, 5);
            }
            sb_gp_block_end(fig);
        }
        char label[260];
        if (pts[i].model)
            snprintf(label, sizeof label, "%s, %d rank(s)/node, projected (model, not measured)",
                     pts[i].kernel, pts[i].ppn);
        else
            snprintf(label, sizeof label, "%s, %d rank(s)/node%s", pts[i].kernel, pts[i].ppn,
                     extrapolated ? " (epoch projected from steps)" : "");
        /* measured: solid, filled points; projected: dashed, open points */
        int slot = sb_plot_kernel_slot(pts[i].kernel, unknown, &nunknown) + pts[i].ppn - 1;
        for (int k = 0; k < 4; k++) {
            sb_gp_add(cl[k],
                      blocks ? ", $s%d using %d:%d with linespoints lw 2"
                             : "$s%d using %d:%d with linespoints lw 2",
                      blocks, k == 3 ? 5 : 1, k == 3 ? 2 : k + 2);
            sb_gp_add(cl[k], pts[i].model ? " dt 2 pt 6 lc rgb %T" : " pt 7 lc rgb %T",
                      sb_plot_colour(slot));
            sb_gp_add(cl[k], " title %T", label);
        }
        blocks++;
        i = j;
    }
    return blocks;
}

/* The study: its measured points and its own speedup (1 node -> 4 nodes)
 * into s, and a clause into each panel of cl (epoch, speedup, efficiency);
 * *maxn grows to its largest node count. */
static void study_overlay(sb_gp *s, sb_gp *const cl[3], const sb_study_point *study, int nstudy,
                          int *maxn)
{
    double study1 = 0;
    for (int i = 0; i < nstudy; i++)
        if (study[i].nodes == 1 && !strcmp(study[i].kind, "measured") &&
            strstr(study[i].machine, "Sapphire"))
            study1 = study[i].epoch_s;
    if (!(study1 > 0)) return;
    sb_gp_block_begin(s, "study");
    for (int i = 0; i < nstudy; i++)
        if (!strcmp(study[i].kind, "measured") && strstr(study[i].machine, "Sapphire")) {
            double row[4] = {study[i].nodes, study[i].epoch_s, study1 / study[i].epoch_s,
                             100.0 * study1 / study[i].epoch_s / study[i].nodes};
            sb_gp_block_row(s, row, 4);
        }
    sb_gp_block_end(s);
    for (int i = 0; i < nstudy; i++)
        if (study[i].nodes > *maxn) *maxn = study[i].nodes;
    sb_gp_add(cl[0],
              ", $study using 1:2 with points pt 5 ps 1.5 lc rgb 'black' title "
              "'published study (SPR bf16, HF blog 2023; published figures, not measured here)'");
    sb_gp_add(cl[1], ", $study using 1:3 with points pt 5 ps 1.5 lc rgb 'black' notitle");
    sb_gp_add(cl[2],
              ", $study using 1:4 with points pt 5 ps 1.5 lc rgb 'black' title "
              "'published study (SPR bf16, HF blog 2023; published figures, not measured here)'");
}

/* The nodes figure: the ideal line up to the power of two at or past maxn,
 * then scaling-nodes.png, taller with more series (the legend under the
 * last panel grows). */
static int nodes_figure(sb_plot_ctx *c, sb_gp *s, sb_gp *const cl[3], int maxn, int blocks,
                        char ***files, int *nfiles, sb_err *e)
{
    int xmax = 1;
    while (xmax < maxn) xmax *= 2;
    sb_gp_block_begin(s, "ideal");
    for (int q = 1; q <= xmax; q *= 2) {
        double row[2] = {q, q};
        sb_gp_block_row(s, row, 2);
    }
    sb_gp_block_end(s);
    sb_gp_add(cl[1], ", $ideal using 1:2 with lines dt 2 lc rgb 'black' notitle");
    sb_gp_add(cl[2], ", 100 with lines dt 2 lc rgb 'black' title 'ideal (y = x)'");
    char title[700];
    snprintf(title, sizeof title, "Scaling over nodes: %s", c->machine_text);
    const sb_gp_var nv_[] = {{"title", SB_GPV_TEXT, title, 0, NULL},
                             {"xmax", SB_GPV_NUM, NULL, xmax * 1.25, NULL},
                             {"ymax", SB_GPV_NUM, NULL, xmax * 1.25, NULL},
                             {"epoch", SB_GPV_CLAUSE, NULL, 0, cl[0]},
                             {"speedup", SB_GPV_CLAUSE, NULL, 0, cl[1]},
                             {"efficiency", SB_GPV_CLAUSE, NULL, 0, cl[2]}};
    int rc = sb_plot_fill(s, c->tdir, "scaling-nodes.gp", nv_, 6, e);
    if (!rc)
        rc = sb_plot_write_figure(s, 1000, 1000 + 18 * blocks, c->out_dir, "scaling-nodes", 1,
                                  files, nfiles, e);
    return rc;
}

/* The ranks figure: the same series against total ranks, with the ideal
 * from the measured point at the fewest ranks (the fastest there), epoch
 * time falling as 1/ranks. */
static int ranks_figure(sb_plot_ctx *c, sb_gp *r, sb_gp *ser, const scale_pt *pts, int n,
                        int blocks, char ***files, int *nfiles, sb_err *e)
{
    int r0 = 0, rmin = 0, rmax = 0;
    double t0 = 0;
    for (int i = 0; i < n; i++) {
        int ranks = pts[i].ppn * pts[i].nodes;
        if (ranks > rmax) rmax = ranks;
        if (!rmin || ranks < rmin) rmin = ranks;
        if (pts[i].model) continue;
        if (!r0 || ranks < r0 || (ranks == r0 && pts[i].epoch_s < t0)) {
            r0 = ranks;
            t0 = pts[i].epoch_s;
        }
    }
    if (r0 > 0 && t0 > 0) {
        sb_gp_block_begin(r, "ideal");
        for (int q = r0; q <= rmax; q++) {
            double row[2] = {q, t0 * r0 / q};
            sb_gp_block_row(r, row, 2);
        }
        sb_gp_block_end(r);
        sb_gp_add(ser,
                  ", $ideal using 1:2 with lines dt 2 lc rgb 'black' "
                  "title 'ideal (1/ranks from the fewest-ranks measured point)'");
    }
    char title[700];
    snprintf(title, sizeof title, "Epoch time against total ranks: %s", c->machine_text);
    const sb_gp_var rv[] = {{"title", SB_GPV_TEXT, title, 0, NULL},
                            {"xmin", SB_GPV_NUM, NULL, rmin / 1.25, NULL},
                            {"xmax", SB_GPV_NUM, NULL, rmax * 1.25, NULL},
                            {"series", SB_GPV_CLAUSE, NULL, 0, ser}};
    int rc = sb_plot_fill(r, c->tdir, "scaling-ranks.gp", rv, 4, e);
    if (!rc)
        rc = sb_plot_write_figure(r, 1000, 640 + 18 * blocks, c->out_dir, "scaling-ranks", 1, files,
                                  nfiles, e);
    return rc;
}

/* Epoch time and speedup against nodes (log2 axes, ideal lines), a parallel-
 * efficiency panel, and the original study's published points where the
 * workload matches. Series are (kernel, ppn, measured or projected); the
 * scaling model's projections are dashed and labelled projected, and each
 * series' speedup is against its own 1-node point. Drawn only when measured
 * or projected points cover >= 2 rank counts. */
int sb_plot_scaling(sb_plot_ctx *c, const char *reference, char ***files, int *nfiles, sb_err *e)
{
    scale_pt pts[MAX_PTS];
    int n, maxn, match, nranks;
    int rc = load_points(c, pts, &n, &maxn, &match, &nranks, e);
    if (rc) return rc;
    if (n < 2 || nranks < 2) return SB_OK;

    sb_study_point *study = NULL;
    int nstudy = 0;
    sb_err se = {0};
    if (!match || !reference || sb_study_load(reference, &study, &nstudy, &se)) nstudy = 0;

    /* nodes: epoch, speedup and efficiency panels; ranks: one */
    sb_gp *s = sb_gp_new(), *ep = sb_gp_new(), *spc = sb_gp_new(), *efc = sb_gp_new();
    sb_gp *r = sb_gp_new(), *rser = sb_gp_new();
    sb_gp *const cl[4] = {ep, spc, efc, rser};
    int blocks = series_blocks(s, r, cl, pts, n);
    study_overlay(s, cl, study, nstudy, &maxn);
    rc = nodes_figure(c, s, cl, maxn, blocks, files, nfiles, e);
    sb_gp_free(s);
    sb_gp_free(ep);
    sb_gp_free(spc);
    sb_gp_free(efc);
    free(study);
    if (!rc) rc = ranks_figure(c, r, rser, pts, n, blocks, files, nfiles, e);
    sb_gp_free(r);
    sb_gp_free(rser);
    return rc;
}
