#include "sb_report_scaling.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sb_metric.h"
#include "sb_report_points.h"
#include "sb_report_words.h"
#include "sb_plot.h"

static size_t cnt(int n) { return n > 0 ? (size_t)n : 1; }

/* Same configuration but for the ranks: the scaling family of a point. */
static char *family_key(const sb_pt *p)
{
    sb_pt q = *p;
    q.ppn = q.nodes = 1;
    q.fingerprint = (char *)"";
    return sb_pt_key(&q, 0);
}

/* A side's base of a scaling family: its ok point with the fewest ranks
 * that has a rate (one rank when it ran one; 2 when the sweep's smallest
 * ppn is 2), so that speedups exist at any ppn. */
static const sb_pt *fewest_ranks(const sb_ptset *s, const char *fam)
{
    const sb_pt *r = NULL;
    for (int i = 0; i < s->n; i++) {
        const sb_pt *p = &s->p[i];
        if (!sb_rp_ok(p) || sb_rp_is_model_point(p) || !sb_rp_rate_metric(p) || sb_rp_is_peak(p))
            continue;
        if (r && p->ppn * p->nodes >= r->ppn * r->nodes) continue;
        char *k = family_key(p);
        if (k && !strcmp(k, fam)) r = p;
        free(k);
    }
    return r;
}

/* A family's chart (scalingN.png): each side's rate against ranks, and its
 * ideal, its base value times the growth in ranks, dashed. */
static void scaling_chart(sb_rp_out *o, sb_rp_plots *pl, int f, const char *title,
                          const char *ylabel, const double *xs, const double *yb, const double *yc,
                          int np, const sb_pt *rb, const sb_pt *rc, const char *bname,
                          const char *cname)
{
    /* each side's ideal: its base value times the growth in ranks */
    const sb_metric_val *m0b = rb ? sb_rp_rate_metric(rb) : NULL,
                        *m0c = rc ? sb_rp_rate_metric(rc) : NULL;
    int r0b = rb ? rb->ppn * rb->nodes : 1, r0c = rc ? rc->ppn * rc->nodes : 1;
    double *ib = calloc((size_t)np, sizeof *ib), *ic = calloc((size_t)np, sizeof *ic);
    for (int i = 0; ib && ic && i < np; i++) {
        ib[i] = m0b && xs[i] >= r0b ? m0b->value * xs[i] / r0b : NAN;
        ic[i] = m0c && xs[i] >= r0c ? m0c->value * xs[i] / r0c : NAN;
    }
    /* the styling is plots/report-scaling.gp's (restyled with --templates) */
    sb_err ge = {0};
    sb_gp *g = ib && ic ? sb_plot_report_scaling(pl->templates, title, ylabel, xs, np, bname, yb,
                                                 ib, cname, yc, ic, &ge)
                        : NULL;
    free(ib);
    free(ic);
    if (!g) {
        snprintf(pl->skipped_why, sizeof pl->skipped_why, "%.200s",
                 ge.msg[0] ? ge.msg : "out of memory");
        return;
    }
    char name[32];
    snprintf(name, sizeof name, "scaling%d", f + 1);
    sb_rp_plot_emit(o, pl, name, g, 900, 520, title);
    sb_gp_free(g);
}

/* "1.85 (46%)": speedup over the side's base and efficiency, speedup per
 * added rank. */
static void speedup_cells(const sb_metric_val *m, int ranks, const sb_pt *base, char *sp,
                          size_t spcap, char *ef, size_t efcap)
{
    const sb_metric_val *m0 = base ? sb_rp_rate_metric(base) : NULL;
    snprintf(sp, spcap, "-");
    snprintf(ef, efcap, "-");
    if (!m || !m0 || !(m0->value > 0) || !(m->value > 0)) return;
    int r0 = base->ppn * base->nodes;
    /* in the metric's direction: base / value where lower is better */
    double speed = sb_metric_speedup(m->value, m0->value, sb_metric_lower(m->name, m->unit));
    snprintf(sp, spcap, "%.2f", speed);
    snprintf(ef, efcap, "%.0f%%", 100 * speed / ((double)ranks / r0));
}

void sb_rp_render_scaling(sb_rp_ctx *ctx, const sb_rp_pair *pv, int n)
{
    sb_rp_out *o = ctx->o;
    sb_rp_plots *pl = ctx->pl;
    const sb_ptset *bs = ctx->bs, *cs = ctx->cs;
    const char *bname = ctx->bname, *cname = ctx->cname;
    sb_rp_para(o,
               "Speedup is against the same configuration on the fewest ranks that side ran"
               " (one rank where it ran one), on the same machine; efficiency is the speedup"
               " divided by the growth in ranks. The charts draw each side's ideal (linear from"
               " its fewest ranks) dashed.");
    char **fams = calloc(cnt(n), sizeof *fams);
    int nf = 0;
    for (int i = 0; fams && i < n; i++) {
        char *k = family_key(pv[i].b ? pv[i].b : pv[i].c);
        int j = 0;
        while (k && j < nf && strcmp(fams[j], k)) j++;
        if (k && j == nf)
            fams[nf++] = k;
        else
            free(k);
    }
    for (int f = 0; f < nf; f++) {
        const sb_pt *rb = fewest_ranks(bs, fams[f]), *rc = fewest_ranks(cs, fams[f]);
        const sb_pt *b1 = rb && rb->ppn * rb->nodes == 1 ? rb : NULL;
        const sb_pt *c1 = rc && rc->ppn * rc->nodes == 1 ? rc : NULL;
        const sb_pt *first = NULL;
        const sb_metric_val *unitm = NULL;
        sb_rp_table t;
        const char *hdr[] = {"ranks",
                             "nodes x ppn",
                             "unit",
                             "baseline",
                             "baseline speedup",
                             "baseline efficiency",
                             "candidate",
                             "candidate speedup",
                             "candidate efficiency",
                             "candidate vs baseline"};
        sb_rp_t_init(&t, 10, hdr);
        double xs[64], yb[64], yc[64];
        int np = 0;
        /* rows: the one-rank points (not multi-rank, so not among the pairs),
         * then every multi-rank point of the family */
        for (int i = -1; i < n; i++) {
            const sb_pt *b, *c, *any;
            if (i < 0) {
                if (!b1 && !c1) continue;
                b = b1;
                c = c1;
            } else {
                b = pv[i].b;
                c = pv[i].c;
                char *k = family_key(b ? b : c);
                int mine = k && !strcmp(k, fams[f]);
                free(k);
                if (!mine) continue;
            }
            any = b ? b : c;
            if (i >= 0 && !first) first = any;
            int ranks = any->ppn * any->nodes;
            const sb_metric_val *mb = sb_rp_ok(b) ? sb_rp_rate_metric(b) : NULL,
                                *mc = sb_rp_ok(c) ? sb_rp_rate_metric(c) : NULL;
            if (!unitm) unitm = mb ? mb : mc;
            char vb[700], vc[700], r[96], rk[16], nx[32], sb_[32], eb[32], sc[32], ec[32];
            if (mb)
                sb_rp_with_spread(o, b, mb, vb, sizeof vb);
            else
                sb_rp_not_available(b, vb, sizeof vb);
            if (mc)
                sb_rp_with_spread(o, c, mc, vc, sizeof vc);
            else
                sb_rp_not_available(c, vc, sizeof vc);
            speedup_cells(mb, ranks, rb, sb_, sizeof sb_, eb, sizeof eb);
            speedup_cells(mc, ranks, rc, sc, sizeof sc, ec, sizeof ec);
            sb_rp_metric_ratio_sig(o, b, c, mb, mc, r, sizeof r);
            snprintf(rk, sizeof rk, "%d", ranks);
            snprintf(nx, sizeof nx, "%dx%d", any->nodes, any->ppn);
            const sb_metric_val *um = mb ? mb : mc;
            const char *cells[] = {rk, nx, um && um->unit[0] ? um->unit : "-", vb, sb_, eb, vc, sc,
                                   ec, r};
            sb_rp_t_row(&t, cells);
            if (np < 64) {
                xs[np] = ranks;
                yb[np] = mb ? mb->value : 0;
                yc[np] = mc ? mc->value : 0;
                np++;
            }
        }
        if (!first) {
            for (int i = 0; i < (t.nrows + 1) * t.ncols; i++) free(t.cells[i]);
            free(t.cells);
            continue;
        }
        char title[400], label[320], ylabel[200];
        sb_pt one = *first;
        one.ppn = one.nodes = 1; /* the family, not its first member */
        sb_pt_label(&one, label, sizeof label);
        snprintf(title, sizeof title, "%s %.300s", first->workload, label);
        snprintf(ylabel, sizeof ylabel, "%.60s%s%.60s%s", unitm ? unitm->name : "throughput",
                 unitm && unitm->unit[0] ? " (" : "", unitm ? unitm->unit : "",
                 unitm && unitm->unit[0] ? ")" : "");
        sb_rp_heading(o, 3, title);
        sb_rp_t_emit(o, &t);
        /* ranks ascending, so that the lines join neighbours */
        for (int i = 1; i < np; i++)
            for (int j = i; j > 0 && xs[j - 1] > xs[j]; j--) {
                double t0 = xs[j], t1 = yb[j], t2 = yc[j];
                xs[j] = xs[j - 1], yb[j] = yb[j - 1], yc[j] = yc[j - 1];
                xs[j - 1] = t0, yb[j - 1] = t1, yc[j - 1] = t2;
            }
        if (pl->enabled && np > 1)
            scaling_chart(o, pl, f, title, ylabel, xs, yb, yc, np, rb, rc, bname, cname);
    }
    for (int f = 0; f < nf; f++) free(fams[f]);
    free(fams);
}

/* Not the pairs: each side's projected figures in turn, the scaling model's
 * points among them (the row's predicate only says whether there are any). */
void sb_rp_render_projected(sb_rp_ctx *ctx, const sb_rp_pair *pv, int np)
{
    (void)pv;
    (void)np;
    sb_rp_out *o = ctx->o;
    const sb_ptset *bs = ctx->bs, *cs = ctx->cs;
    sb_rp_table t;
    const char *hdr[] = {"side", "point", "metric", "value", "how (note)"};
    sb_rp_t_init(&t, 5, hdr);
    for (int s = 0; s < 2; s++) {
        const sb_ptset *set = s ? cs : bs;
        for (int i = 0; i < set->n; i++) {
            const sb_pt *p = &set->p[i];
            for (int k = 0; k < p->nmetrics; k++) {
                if (!p->metrics[k].projected) continue;
                char label[360], v[128], x[32];
                sb_pt_label(p, label, 320);
                if (sb_rp_is_model_point(p))
                    snprintf(label + strlen(label), sizeof label - strlen(label),
                             " (scaling model, not measured)");
                snprintf(v, sizeof v, "%s %.64s", sb_rp_num(p->metrics[k].value, x, sizeof x),
                         p->metrics[k].unit);
                char note[32];
                snprintf(note, sizeof note, "projected, P%d",
                         sb_rp_proj_note(o, p->metrics[k].source));
                const char *cells[] = {s ? "candidate" : "baseline", label, p->metrics[k].name, v,
                                       note};
                sb_rp_t_row(&t, cells);
            }
        }
    }
    sb_rp_para(o,
               "These figures were computed, not measured (marked \"projected\" in the tables"
               " above); each note below says once how its figures were computed.");
    sb_rp_t_emit(o, &t);
    for (int i = 0; i < o->nsrc; i++) sb_rp_para(o, "P%d: projected from %s", i + 1, o->srcs[i]);
}
