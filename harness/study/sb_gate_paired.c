#include "sb_gate_paired.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sb_gate_match.h"
#include "sb_paired.h"

/* Whether the candidate holds a paired point at all (an ordinary sweep
 * gated with --paired: SB_EUSAGE, nothing to judge), and in *paired_sweeps
 * (caller frees) the sweeps that hold one: an ok point without pairs in
 * such a sweep ran unpaired where pairs were asked for (a resume). */
static int paired_sweeps(const sb_ptset *cv, const char *what, int64_t **ids, int *n, sb_err *e)
{
    int nok = 0;
    *n = 0;
    *ids = malloc(sizeof **ids * (size_t)(cv->n ? cv->n : 1));
    if (!*ids) return sb_errf(e, SB_EFAIL, "out of memory");
    for (int i = 0; i < cv->n; i++) {
        const sb_pt *p = &cv->p[i];
        nok += !strcmp(p->status, "ok");
        if (!p->npaired) continue;
        int seen = 0;
        for (int k = 0; k < *n && !seen; k++) seen = (*ids)[k] == p->sweep_id;
        if (!seen) (*ids)[(*n)++] = p->sweep_id;
    }
    if (nok && !*n)
        return sb_errf(e, SB_EUSAGE,
                       "--paired: %.200s holds no paired point (%d ok point(s), none measured in"
                       " pairs): sweep with --pair-baseline B --pair-candidate C, or gate it"
                       " with --baseline",
                       what, nok);
    return SB_OK;
}

int sb_gate_paired(const sb_ptset *cand, const sb_gate_opts *o, sb_gate_result *r, sb_err *e)
{
    memset(r, 0, sizeof *r);
    r->conf = 1 - 2 * o->alpha;
    sb_ptset cv = {0};
    int rc = sb_gate_measured_view(cand, &cv, e);
    int64_t *sweeps = NULL;
    int nsweeps = 0;
    if (!rc) rc = paired_sweeps(&cv, o->what ? o->what : "the candidate", &sweeps, &nsweeps, e);
    sb_gate_group *cg = rc ? NULL : sb_gate_groups_make(&cv, 1);
    if (!rc && !cg) rc = sb_errf(e, SB_EFAIL, "out of memory");
    for (int c = 0; !rc && c < cv.n;) {
        int c0, c1;
        sb_gate_group_find(cg, cv.n, cg[c].key, &c0, &c1);
        c = c1;
        const sb_pt *cp = sb_gate_group_pick(&cv, cg, c0, c1);
        int ok = !strcmp(cp->status, "ok");
        sb_gate_row *row = sb_gate_add_row(r, SB_PASS, cp, ok ? "seconds" : "status");
        if (!row) {
            rc = sb_errf(e, SB_EFAIL, "out of memory");
            break;
        }
        row->cand_id = cp->id;
        const char *why = cp->reason[0] ? cp->reason : "no reason given";
        if (!strcmp(cp->status, "skipped")) {
            sb_gate_set_verdict(r, row, SB_SKIP);
            sb_gate_notef(row, "skipped: %.400s", why);
            continue;
        }
        if (!ok) {
            int unfinished = !strcmp(cp->status, "pending") || !strcmp(cp->status, "running");
            sb_gate_set_verdict(r, row, unfinished ? SB_WARN : SB_FAIL);
            if (unfinished)
                sb_gate_notef(row, "candidate %s: its sweep did not finish this point", cp->status);
            else
                sb_gate_notef(row, "%s: %.400s", cp->status, why);
            continue;
        }
        if (!cp->npaired) {
            /* inside a paired sweep (resumed unpaired?) it ran without the
             * baseline binary: nothing shows it is no slower */
            int in_paired = 0;
            for (int k = 0; k < nsweeps && !in_paired; k++) in_paired = sweeps[k] == cp->sweep_id;
            sb_gate_set_verdict(r, row, in_paired ? SB_FAIL : SB_WARN);
            if (in_paired)
                sb_gate_notef(row,
                              "not measured in pairs, inside a paired sweep (resumed?):"
                              " run the point again in pairs");
            else
                sb_gate_notef(row,
                              "not measured in pairs (sweep --pair-baseline B --pair-candidate C)");
            continue;
        }
        sb_paired_stats st;
        if (sb_paired_judge(cp->paired, cp->side, cp->pair, cp->npaired, o->tolerance, o->alpha,
                            o->min_pairs, &st)) {
            rc = sb_errf(e, SB_EFAIL, "out of memory");
            break;
        }
        row->base = st.base;
        row->cand = st.cand;
        row->nb = st.nb;
        row->nc = st.nc;
        row->ratio = st.ratio;
        row->lo = st.lo;
        row->hi = st.hi;
        row->p = st.p_slower;
        row->pairs = st.npairs;
        row->aa = st.aa;
        snprintf(row->unit, sizeof row->unit, "s");
        snprintf(row->outcome, sizeof row->outcome, "%s", sb_paired_outcome_name(st.outcome));
        char noise[96];
        if (st.nquads)
            snprintf(noise, sizeof noise, "A/A %.1f%% over %d quad(s)", 100 * st.aa, st.nquads);
        else
            snprintf(noise, sizeof noise, "A/A not measured");
        double pct = (st.ratio - 1) * 100;
        const char *mode = cp->pair_mode ? cp->pair_mode : "?";
        switch (st.outcome) {
        case SB_PAIRED_FAIL:
            sb_gate_set_verdict(r, row, SB_FAIL);
            sb_gate_notef(row,
                          "%.1f%% slower over %d %s pairs (tolerance %.1f%%; one-sided Wilcoxon"
                          " signed-rank p(slower) %.2g); %s",
                          pct, st.npairs, mode, o->tolerance * 100, st.p_slower, noise);
            break;
        case SB_PAIRED_PASS:
            sb_gate_notef(row,
                          "%+.1f%% over %d %s pairs, within the tolerance %.1f%% (one-sided"
                          " Wilcoxon signed-rank p(within) %.2g); %s",
                          pct, st.npairs, mode, o->tolerance * 100, st.p_within, noise);
            break;
        case SB_PAIRED_NOISY:
            sb_gate_set_verdict(r, row, SB_WARN);
            sb_gate_notef(row,
                          "noisy: the %d pair ratios form two groups (around %.3f and %.3f), not"
                          " judged; %s",
                          st.npairs, st.low, st.high, noise);
            break;
        default: {
            /* the smallest one-sided p of n pairs is 2^-n (exact test) */
            int need = 1;
            while (ldexp(1.0, -need) >= o->alpha && need < 60) need++;
            char few[96] = "";
            if (st.npairs < need)
                snprintf(few, sizeof few, ", and %d pairs cannot reach p < %g: %d can", st.npairs,
                         o->alpha, need);
            else if (st.npairs < o->min_pairs)
                snprintf(few, sizeof few, ", fewer than --min-pairs");
            sb_gate_set_verdict(r, row, SB_WARN);
            sb_gate_notef(
                row,
                "UNSURE after %d %s pairs: %+.1f%%, neither beyond nor within the tolerance"
                " %.1f%% (one-sided Wilcoxon signed-rank p(slower) %.2g, p(within) %.2g)%s;"
                " measure more pairs; %s",
                st.npairs, mode, pct, o->tolerance * 100, st.p_slower, st.p_within, few, noise);
        }
        }
    }
    sb_gate_groups_free(cg, cv.n);
    free(sweeps);
    free(cv.p);
    return rc;
}
