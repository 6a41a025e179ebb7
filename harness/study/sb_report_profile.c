#include "sb_report_profile.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sb_metric.h"
#include "sb_report_points.h"
#include "sb_report_words.h"

static int has_profile(const sb_pt *p)
{
    for (int i = 0; i < p->nmetrics; i++)
        if (!strncmp(p->metrics[i].name, "prof_", 5)) return 1;
    return 0;
}

/* the profiled point of a workload a side ran fastest (the lowest step or
 * batch time: its row's profile metric) */
static const sb_pt *profiled(const sb_ptset *s, const sb_workload *w)
{
    const char *timer = w->profile_metric;
    const sb_pt *best = NULL;
    for (int i = 0; i < s->n; i++) {
        const sb_pt *p = &s->p[i];
        if (p->wl != w || !sb_rp_ok(p) || !has_profile(p)) continue;
        const sb_metric_val *t = sb_pt_metric(p, timer),
                            *bt = best ? sb_pt_metric(best, timer) : NULL;
        if (!best || (t && bt && sb_metric_better_of(t->value, bt->value, 1))) best = p;
    }
    return best;
}

static double prof_sum(const sb_pt *p)
{
    double s = 0;
    for (int i = 0; i < p->nmetrics; i++)
        if (!strncmp(p->metrics[i].name, "prof_", 5)) s += p->metrics[i].value;
    return s;
}

static void profile_table(const sb_headline_in *in, const sb_rsink *s, const sb_workload *w)
{
    const char *workload = w->name, *per = w->profile_per;
    const sb_pt *b = profiled(in->bs, w), *c = profiled(in->cs, w);
    if (!b && !c) return;
    char title[160];
    snprintf(title, sizeof title, "Where the time goes (%s --profile)", workload);
    s->heading(s->ctx, 3, title);
    /* each side's column says which side it is, and a side without a
     * profiled run says so instead of naming an empty point */
    char bh[300], ch[300];
    const sb_pt *sp[2] = {b, c};
    char *hd[2] = {bh, ch};
    for (int k = 0; k < 2; k++) {
        const char *side = k ? "candidate" : "baseline", *name = k ? in->cname : in->bname;
        if (sp[k])
            snprintf(hd[k], sizeof bh, "%s, %s: %s %s t%d (s per %s, share)", side, name,
                     sp[k]->kernel, sp[k]->shape, sp[k]->threads, per);
        else
            snprintf(hd[k], sizeof bh, "%s, %s: no %s --profile run", side, name, workload);
    }
    const char *hdr[4] = {"layer kind", bh, ch, "candidate vs baseline"};
    /* the kinds in the order either side stored them */
    const sb_pt *sides[2] = {b, c};
    char names[64][64];
    int nn = 0;
    for (int k = 0; k < 2; k++)
        for (int i = 0; sides[k] && i < sides[k]->nmetrics && nn < 64; i++) {
            const char *n = sides[k]->metrics[i].name;
            if (strncmp(n, "prof_", 5)) continue;
            int seen = 0;
            for (int j = 0; j < nn; j++) seen |= !strcmp(names[j], n);
            if (!seen) snprintf(names[nn++], sizeof names[0], "%s", n);
        }
    const char **cells = calloc((size_t)4 * (nn + 2), sizeof *cells);
    char(*buf)[160] = calloc((size_t)4 * (nn + 2), sizeof *buf);
    if (!cells || !buf) {
        free(cells);
        free(buf);
        return;
    }
    for (int j = 0; j < 4; j++) cells[j] = hdr[j];
    double bs = b ? prof_sum(b) : 0, cs = c ? prof_sum(c) : 0;
    for (int r = 0; r <= nn; r++) {
        char(*row)[160] = &buf[(r + 1) * 4];
        double vb = 0, vc = 0;
        if (r < nn) {
            const sb_metric_val *mb = b ? sb_pt_metric(b, names[r]) : NULL,
                                *mc = c ? sb_pt_metric(c, names[r]) : NULL;
            vb = mb ? mb->value : -1;
            vc = mc ? mc->value : -1;
            /* "prof_qkv_linear_s" -> "qkv linear" */
            size_t l = strlen(names[r]);
            snprintf(row[0], 160, "%.*s", (int)(l > 7 ? l - 7 : 0), names[r] + 5);
            for (char *q = row[0]; *q; q++)
                if (*q == '_') *q = ' ';
        } else {
            vb = b ? bs : -1;
            vc = c ? cs : -1;
            snprintf(row[0], 160, "total");
        }
        double tot[2] = {bs, cs}, v[2] = {vb, vc};
        for (int k = 0; k < 2; k++) {
            if (v[k] < 0)
                snprintf(row[1 + k], 160, "not available");
            else
                snprintf(row[1 + k], 160, "%.4g (%.1f %%)", v[k],
                         tot[k] > 0 ? 100 * v[k] / tot[k] : 0);
        }
        if (vb > 0 && vc > 0)
            sb_rp_speed_words_hl(vb / vc, row[3], 160);
        else
            snprintf(row[3], 160, "-");
        for (int j = 0; j < 4; j++) cells[(r + 1) * 4 + j] = row[j];
    }
    sb_rp_sink_para(s,
                    "Each side's fastest profiled %s point (`%s --profile`, stored with the point):"
                    " seconds per %s in each layer kind, its share of the total, and the"
                    " candidate's speed against the baseline's per kind.",
                    workload, workload, per);
    s->table(s->ctx, 4, nn + 1, cells);
    free(cells);
    free(buf);
}

void sb_report_profiles(const sb_headline_in *in, const sb_rsink *s)
{
    /* each workload whose worker profiles (its row's profile metric), in
     * the table's order */
    for (int i = 0; i < sb_workload_count(); i++)
        if (sb_workload_at(i)->profile_metric) profile_table(in, s, sb_workload_at(i));
}
