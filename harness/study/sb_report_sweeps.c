#include "sb_report_sweeps.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sb_query.h"
#include "sb_text.h"

int64_t *sb_rp_sweeps_of(const sb_ptset *set, int *n)
{
    *n = 0;
    int64_t *v = malloc(sizeof *v * (size_t)(set->n + 1));
    for (int i = 0; v && i < set->n; i++) {
        int seen = 0;
        for (int k = 0; k < *n && !seen; k++) seen = v[k] == set->p[i].sweep_id;
        if (!seen) v[(*n)++] = set->p[i].sweep_id;
    }
    return v;
}

/* "sweep 5 default-gemm (sprbench 520ea93, started T" of one sweep, into
 * buf. */
static int sweep_words(sb_rp_out *o, const sb_rp_model *m, int64_t id, char *buf, size_t cap)
{
    sb_sweep_header h;
    int found = 0;
    sb_err e = {0};
    int rc = id ? sb_rp_sweep_header(m, id, &h, &found, &e) : 0;
    if (rc && o) sb_rp_read_failed(o, rc, &e);
    const char *lb = found && h.label ? h.label : "",
               *tv = found && h.tool_version && *h.tool_version ? h.tool_version : "?",
               *started = found ? h.started : NULL;
    int w = snprintf(buf, cap, "sweep %lld%s%.*s (sprbench %.*s%s%.*s", (long long)id,
                     *lb ? " " : "", sb_text_prefix(lb, 100), lb, sb_text_prefix(tv, 60), tv,
                     started && *started ? ", started " : "", 31, started ? started : "");
    if (found) sb_sweep_header_free(&h);
    return w;
}

void sb_rp_sweeps_used(sb_rp_out *o, const sb_rp_model *m, const int64_t *all, int nall,
                       const sb_ptset *kept, char *buf, size_t cap)
{
    buf[0] = '\0';
    size_t l = 0;
    for (int i = 0; i < nall; i++) {
        int n = 0;
        for (int j = 0; j < kept->n; j++) n += kept->p[j].sweep_id == all[i];
        char sw[400];
        sweep_words(o, m, all[i], sw, sizeof sw);
        int w = n ? snprintf(buf + l, cap - l, "%s%s, %d point(s))", l ? ", " : "", sw, n)
                  : snprintf(buf + l, cap - l,
                             "%s%s, none used: a later sweep ran each of its configurations)",
                             l ? ", " : "", sw);
        if (w < 0 || (size_t)w >= cap - l) break;
        l += (size_t)w;
    }
}

void sb_rp_sweep_choice(const sb_rp_model *m, const sb_ptset *set, int (*want)(const sb_pt *),
                        const char *side, const char *what, char *buf, size_t cap)
{
    buf[0] = '\0';
    int64_t ids[4];
    int nids = 0, most = 0, npts = 0;
    for (int i = 0; i < set->n; i++) {
        const sb_pt *p = &set->p[i];
        if (p->nsweeps < 2 || !want(p)) continue;
        npts++;
        if (p->nsweeps > most) most = p->nsweeps;
        int k = 0;
        while (k < nids && ids[k] != p->sweep_id) k++;
        if (k == nids && nids < 4) ids[nids++] = p->sweep_id;
    }
    if (!nids) return;
    size_t l = (size_t)snprintf(buf, cap, "the %s's %s %s from ", side, what,
                                npts > 1 ? "are" : "is");
    for (int k = 0; k < nids && l < cap; k++) {
        char sw[400];
        sweep_words(NULL, m, ids[k], sw, sizeof sw);
        l += (size_t)snprintf(buf + l, cap - l, "%s%s)", k ? " and " : "", sw);
    }
    if (l < cap)
        snprintf(buf + l, cap - l,
                 ", the newest of the %d sweeps of that side that ran %s (by start time;"
                 " --%s-sweeps pins others)",
                 most, npts > 1 ? "them" : "it", side);
}

static int any_pt(const sb_pt *p)
{
    (void)p;
    return 1;
}

void sb_rp_headline_sweeps(const sb_rp_model *m, const sb_pt *b, const sb_pt *c, char *buf,
                           size_t cap)
{
    char bn[800] = "", cn[800] = "", what[100];
    if (b) {
        snprintf(what, sizeof what, "%.64s point", b->kernel);
        sb_rp_sweep_choice(m, &(sb_ptset){(sb_pt *)b, 1}, any_pt, "baseline", what, bn, sizeof bn);
    }
    if (c) {
        snprintf(what, sizeof what, "%.64s point", c->kernel);
        sb_rp_sweep_choice(m, &(sb_ptset){(sb_pt *)c, 1}, any_pt, "candidate", what, cn, sizeof cn);
    }
    /* "The baseline's point is from ..." as a sentence of its own */
    if (bn[0]) bn[0] = 'T';
    if (cn[0]) cn[0] = 'T';
    snprintf(buf, cap, "%s%s%s%s%s%s", bn[0] ? " " : "", bn, bn[0] ? "." : "", cn[0] ? " " : "",
             cn, cn[0] ? "." : "");
}
