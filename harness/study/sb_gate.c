#include "sb_gate.h"
#include <stdlib.h>
#include <string.h>
#include "sb_gate_match.h"

static int has_metric(const sb_ptset *s, const char *name)
{
    /* the scaling model's points are never compared: their metrics do not count */
    for (int i = 0; s && i < s->n; i++)
        if (strcmp(s->p[i].status, "projected") && sb_pt_metric(&s->p[i], name)) return 1;
    return 0;
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int sb_gate_check_metrics(const char *const *metrics, const sb_ptset *base, const sb_ptset *cand,
                          sb_err *e)
{
    for (int mi = 0; metrics && metrics[mi]; mi++) {
        const char *m = metrics[mi];
        if (!strcmp(m, "seconds") || has_metric(base, m) || has_metric(cand, m)) continue;
        /* the known names, sorted and once each, as far as a line holds them */
        int cap = 0;
        for (int s = 0; s < 2; s++) {
            const sb_ptset *set = s ? cand : base;
            for (int i = 0; set && i < set->n; i++) cap += set->p[i].nmetrics;
        }
        const char **names = malloc(sizeof *names * (size_t)(cap + 1));
        if (!names) return sb_errf(e, SB_EFAIL, "out of memory");
        int n = 0;
        names[n++] = "seconds";
        for (int s = 0; s < 2; s++) {
            const sb_ptset *set = s ? cand : base;
            for (int i = 0; set && i < set->n; i++)
                for (int k = 0; strcmp(set->p[i].status, "projected") && k < set->p[i].nmetrics;
                     k++)
                    names[n++] = set->p[i].metrics[k].name;
        }
        qsort(names, (size_t)n, sizeof *names, cmp_name);
        char known[600] = "";
        size_t off = 0;
        int shown = 0;
        for (int i = 0; i < n; i++) {
            if (i && !strcmp(names[i], names[i - 1])) continue;
            size_t need = strlen(names[i]) + 2;
            if (off + need + 8 >= sizeof known) {
                snprintf(known + off, sizeof known - off, ", ...");
                break;
            }
            off += (size_t)snprintf(known + off, sizeof known - off, "%s%s", shown++ ? ", " : "",
                                    names[i]);
        }
        free(names);
        return sb_errf(e, SB_EUSAGE, "unknown metric '%.64s' (known: %s)", m, known);
    }
    return SB_OK;
}

static int gate_compare(const sb_ptset *base, const sb_ptset *cand, const sb_gate_opts *o,
                        sb_gate_result *r, sb_err *e);

int sb_gate_compare(const sb_ptset *base, const sb_ptset *cand, const sb_gate_opts *o,
                    sb_gate_result *r, sb_err *e)
{
    sb_ptset bv = {0}, cv = {0};
    memset(r, 0, sizeof *r);
    int rc = sb_gate_measured_view(base, &bv, e);
    if (!rc) rc = sb_gate_measured_view(cand, &cv, e);
    if (!rc) rc = gate_compare(&bv, &cv, o, r, e);
    free(bv.p);
    free(cv.p);
    return rc;
}

static int gate_compare(const sb_ptset *base, const sb_ptset *cand, const sb_gate_opts *o,
                        sb_gate_result *r, sb_err *e)
{
    memset(r, 0, sizeof *r);
    r->conf = 1 - 2 * o->alpha;
    static const char *const dflt[] = {"seconds", NULL};
    const char *const *metrics = o->metrics && o->metrics[0] ? o->metrics : dflt;
    int with_machine = !o->cross_machine;
    sb_gate_group *bg = sb_gate_groups_make(base, with_machine),
                  *cg = sb_gate_groups_make(cand, with_machine);
    sb_gate_group *bg_any = sb_gate_groups_make(base, 0);
    int rc = SB_OK;
    if (!bg || !cg || !bg_any) {
        rc = sb_errf(e, SB_EFAIL, "out of memory");
        goto out;
    }
    for (int mi = 0; metrics[mi]; mi++) {
        const char *metric = metrics[mi];
        for (int b = 0; b < base->n;) {
            int b0, b1, c0, c1;
            sb_gate_group_find(bg, base->n, bg[b].key, &b0, &b1);
            sb_gate_group_find(cg, cand->n, bg[b].key, &c0, &c1);
            const sb_pt *bp = sb_gate_group_pick(base, bg, b0, b1);
            if (c0 >= 0) {
                sb_gate_compare_one(base, bg, b0, b1, cand, cg, c0, c1, metric, mi == 0, o, r);
            } else if (mi == 0 && (!with_machine || sb_gate_has_machine(cand, bp->fingerprint))) {
                sb_gate_row *row = sb_gate_add_row(r, SB_WARN, bp, metric);
                if (row) {
                    row->one_sided = 1;
                    sb_gate_notef(row, "point missing in the candidate");
                }
            } else if (mi == 0) {
                /* a baseline kept for several runners: other machines are not
                 * this gate's; counted and named */
                char(*nl)[400] = realloc(r->ignored_labels, sizeof *nl * (size_t)(r->ignored + 1));
                if (!nl) {
                    rc = sb_errf(e, SB_EFAIL, "out of memory");
                    goto out;
                }
                r->ignored_labels = nl;
                char lab[320];
                sb_pt_label(bp, lab, sizeof lab);
                snprintf(nl[r->ignored++], sizeof *nl, "%s on %.16s", lab, bp->fingerprint);
            }
            b = b1;
        }
        if (mi) continue;
        for (int c = 0; c < cand->n;) {
            int c0, c1, b0, b1;
            sb_gate_group_find(cg, cand->n, cg[c].key, &c0, &c1);
            sb_gate_group_find(bg, base->n, cg[c].key, &b0, &b1);
            if (b0 < 0) {
                const sb_pt *cp = sb_gate_group_pick(cand, cg, c0, c1);
                char *k = sb_pt_key(cp, 0);
                int fb0 = -1, fb1;
                if (k && with_machine && !sb_gate_has_machine(base, cp->fingerprint))
                    sb_gate_group_find(bg_any, base->n, k, &fb0, &fb1);
                free(k);
                /* a point that failed, crashed or timed out is a FAIL on its
                 * own: no baseline is needed to know that it did not run */
                int broke = strcmp(cp->status, "ok") && strcmp(cp->status, "skipped") &&
                    strcmp(cp->status, "pending") && strcmp(cp->status, "running");
                sb_gate_row *row = sb_gate_add_row(r, fb0 >= 0 || broke ? SB_FAIL : SB_WARN, cp,
                                                   broke ? "status" : metric);
                if (row && broke)
                    sb_gate_notef(row, "candidate %s: %.400s (point not in the baseline)",
                                  cp->status, cp->reason[0] ? cp->reason : "no reason given");
                else if (row && fb0 >= 0)
                    sb_gate_notef(
                        row,
                        "machine mismatch: the baseline has this point only from %s, never"
                        " from this machine (--cross-machine compares anyway)",
                        base->p[bg_any[fb0].idx].fingerprint);
                else if (row) {
                    row->one_sided = 1;
                    sb_gate_notef(row, "point not in the baseline (new)");
                }
            }
            c = c1;
        }
    }
out:
    sb_gate_groups_free(bg, base->n);
    sb_gate_groups_free(cg, cand->n);
    sb_gate_groups_free(bg_any, base->n);
    return rc;
}
