#include "sb_gate_run.h"
#include <stdlib.h>
#include "sb_gate_out.h"
#include "sb_gate_render.h"
#include "sb_gate_side.h"
#include "sb_io.h"

/* A reference is one line of ~100 bytes per configuration: 16 MiB holds over
 * 150,000 of them, far past any study, and bounds a wrong path's cost. */
#define REFERENCES_MAX (16 * SB_MIB)

int sb_gate_read_references(const char *path, sb_reference **refs, int *n, sb_err *e)
{
    char *text;
    size_t len;
    int rc = sb_read_text_max(path, REFERENCES_MAX, "references file", &text, &len, e);
    if (rc) return rc;
    rc = sb_gate_parse_references(text, path, refs, n, e);
    free(text);
    return rc;
}

int sb_gate_run(const sb_gate_job *a, const sb_reference *refs, int nrefs, sb_err *ue)
{
    const sb_gate_opts *o = &a->o;
    const char *baseline = a->baseline, *candidate = a->candidate, *dbpath = a->dbpath;
    sb_err e = {0};
    int rc;
    sb_db *shared = NULL;
    sb_gate_side base = {0}, cand = {0};
    sb_gate_result res = {0};
    if ((baseline && (rc = sb_gate_side_load(baseline, dbpath, &shared, &base, &e))) ||
        (rc = sb_gate_side_load(candidate, dbpath, &shared, &cand, &e)) ||
        (rc = sb_gate_sides_check(baseline ? &base : NULL, &cand, o, &e)))
        goto out;
    if (a->nmetrics &&
        (rc = sb_gate_check_metrics(a->metrics, baseline ? &base.set : NULL, &cand.set, &e)))
        goto out;
    rc = o->paired ? sb_gate_paired(&cand.set, o, &res, &e)
        : refs     ? sb_gate_references(refs, nrefs, &cand.set, o, &res, &e)
                   : sb_gate_compare(&base.set, &cand.set, o, &res, &e);
    if (rc) goto out;
    /* no row PASSed or FAILed: a gate that judged nothing fails (a
     * renamed kernel, WARNs alone), unless --allow-nothing-judged */
    sb_gate_judged(&res, o);
    /* NULL: gated against base; paired: nothing else to compare environments with */
    const char *against = refs ? a->refs_path : o->paired ? "the pairs" : NULL;
    /* what a database stored is shown, never obeyed, on every output below */
    sb_gate_result_inert(&res, baseline ? &base : NULL, &cand);
    if (a->as_json) {
        if ((rc = sb_gate_write_json(&res, &base, &cand, against, o, a->out, &e))) goto out_write;
    } else {
        sb_gate_write_text(&res, &base, &cand, against, o, a->out);
        if (a->history && res.count[SB_FAIL] &&
            (rc = sb_gate_write_history(&res, &base, &cand, o, candidate, dbpath, shared, a->out,
                                        &e)))
            goto out;
    }
    /* an output that could not be written is not a FAIL of the candidate
     * (exit 1 would say it regressed) but a verdict CI never got: exit 2 */
    if (fflush(a->out) || ferror(a->out)) {
        rc = sb_errf(&e, SB_EUSAGE, "cannot write the verdict to stdout");
        goto out;
    }
    if (a->junit && (rc = sb_gate_junit(&res, a->junit, &e))) goto out_write;
    /* in GitHub Actions: the annotations and the step summary */
    if (a->annotations && (rc = sb_gate_github(&res, a->annotations, a->step_summary, &e)))
        goto out_write;
    rc = sb_gate_overall(&res) == SB_FAIL ? SB_EFAIL : SB_OK;
    sb_err_clear(&e);
    goto out;
out_write:
    e.code = rc = SB_EUSAGE;
out:
    sb_gate_result_free(&res);
    sb_gate_side_free(&base);
    sb_gate_side_free(&cand);
    sb_db_close(shared);
    *ue = e;
    return rc;
}
