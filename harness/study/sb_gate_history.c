#include "sb_gate_history.h"
#include <stdio.h>
#include <string.h>
#include "sb_gate.h"
#include "sb_query.h"

static const sb_pt *pt_by_id(const sb_ptset *s, int64_t id)
{
    for (int i = 0; id && i < s->n; i++)
        if (s->p[i].id == id) return &s->p[i];
    return NULL;
}

int sb_gate_find_last_pass(sb_db *db, const sb_ptset *base, const sb_ptset *cand,
                           const sb_gate_row *row, const sb_gate_opts *o, sb_gate_last_pass *lp,
                           sb_err *e)
{
    memset(lp, 0, sizeof *lp);
    const sb_pt *bp = pt_by_id(base, row->base_id), *cp = pt_by_id(cand, row->cand_id);
    if (!bp || !cp || !cp->machine_id) return SB_OK;
    sb_history_point *h;
    int n;
    int rc = sb_db_metric_history(db, cp->machine_id, cp->workload, cp->kernel,
                                  cp->shape ? cp->shape : "", cp->config ? cp->config : "",
                                  cp->threads, cp->ppn, cp->nodes, NULL, &h, &n, e);
    if (rc) return rc;
    int at = -1; /* the candidate's sweep in the history */
    for (int i = 0; i < n; i++)
        if (h[i].sweep_id == cp->sweep_id) at = i;
    /* newest first: every sweep passed over did not pass, so the one after
     * the last pass is where the regression shows first */
    for (int i = at - 1; i >= 0 && !rc && !lp->found; i--) {
        sb_ptset one = {0};
        if ((rc = sb_ptset_load(db, 0, h[i].sweep_id, &one, e))) break;
        const sb_pt *hp = pt_by_id(&one, h[i].point_id);
        if (hp) {
            lp->checked++;
            /* the same comparison the gate made, with this sweep's point as
             * the candidate: one point on each side */
            sb_ptset bs = {(sb_pt *)bp, 1}, hs = {(sb_pt *)hp, 1};
            sb_gate_result r = {0};
            if (!(rc = sb_gate_compare(&bs, &hs, o, &r, e))) {
                int pass = r.n > 0;
                for (int k = 0; k < r.n; k++) pass &= r.rows[k].verdict == SB_PASS;
                if (pass) {
                    lp->found = 1;
                    lp->sweep_id = h[i].sweep_id;
                    snprintf(lp->version, sizeof lp->version, "%s", h[i].tool_version);
                    snprintf(lp->started, sizeof lp->started, "%s", h[i].started);
                    const sb_history_point *nx = &h[i + 1]; /* i < at: exists */
                    lp->next_sweep_id = nx->sweep_id;
                    snprintf(lp->next_version, sizeof lp->next_version, "%s", nx->tool_version);
                    snprintf(lp->next_started, sizeof lp->next_started, "%s", nx->started);
                }
            }
            sb_gate_result_free(&r);
        }
        sb_ptset_free(&one);
    }
    sb_history_free(h, n);
    return rc;
}
