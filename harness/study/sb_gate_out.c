#include "sb_gate_out.h"
#include <jansson.h>
#include <string.h>
#include <sys/stat.h>
#include "sb_gate_history.h"
#include "sb_text.h"

static const char *test_name(const char *references, const sb_gate_opts *o)
{
    return o->paired                     ? "Wilcoxon signed-rank on the pairs"
        : references                     ? "references"
        : o->method == SB_GATE_BOOTSTRAP ? "bootstrap"
                                         : "Mann-Whitney U";
}

/* Says which recorded environment variables differ between the compared
 * points: in each row (for JUnit), and as one line per distinct difference
 * after the table (into lines, or as "env: " lines on f). */
static void env_lines(sb_gate_result *res, const sb_envmap *bm, const sb_envmap *cm, json_t *lines,
                      FILE *f)
{
    sb_envdiffs d = {0};
    for (int i = 0; i < res->n; i++) {
        sb_gate_row *w = &res->rows[i];
        /* a status row: one side did not run ok (a crash writes no environment) */
        if (!w->base_id || !w->cand_id || !strcmp(w->metric, "status")) continue;
        const json_t *be = sb_envmap_get(bm, w->base_id), *ce = sb_envmap_get(cm, w->cand_id);
        if (be && ce) sb_env_diff(be, ce, w->env, sizeof w->env);
        sb_text_inert_inplace(w->env, sizeof w->env); /* JUnit shows it */
        sb_envdiffs_add(&d, w->base_id, be, w->cand_id, ce, w->label);
    }
    for (int i = 0; i < sb_envdiffs_nlines(&d); i++) {
        char line[1400];
        sb_envdiffs_line(&d, i, line, sizeof line);
        if (lines)
            json_array_append_new(lines, sb_text_json(line));
        else
            fprintf(f, "env: %s\n", line);
    }
    sb_envdiffs_free(&d);
}

void sb_gate_result_inert(sb_gate_result *r, sb_gate_side *base, sb_gate_side *cand)
{
#define INERT(field) sb_text_inert_inplace(field, sizeof(field))
    for (int i = 0; i < r->n; i++) {
        sb_gate_row *w = &r->rows[i];
        INERT(w->workload);
        INERT(w->label);
        INERT(w->metric);
        INERT(w->unit);
        INERT(w->machine);
        INERT(w->note);
        INERT(w->env);
    }
    for (int i = 0; i < r->ignored; i++) INERT(r->ignored_labels[i]);
    INERT(r->nothing);
    if (base) INERT(base->what);
    if (cand) INERT(cand->what);
#undef INERT
}

void sb_gate_write_text(sb_gate_result *r, const sb_gate_side *base, const sb_gate_side *cand,
                        const char *references, const sb_gate_opts *o, FILE *f)
{
    if (o->paired)
        fprintf(f,
                "baseline:  each pair's baseline binary\ncandidate: %s\ntolerance: %.1f%%, %s,"
                " alpha %g, >= %d pairs\n\n",
                cand->what, o->tolerance * 100, test_name(references, o), o->alpha, o->min_pairs);
    else
        fprintf(f,
                "baseline:  %s\ncandidate: %s\ntolerance: %.1f%%, %s, alpha %g, >= %d samples"
                " per side\n\n",
                references ? references : base->what, cand->what, o->tolerance * 100,
                test_name(references, o), o->alpha, o->min_samples);
    int conf = (int)(r->conf * 100 + 0.5);
    if (o->paired)
        fprintf(f,
                "ratio: the pair ratios' Hodges-Lehmann estimate; interval: its %d%% interval,"
                " the one-sided Wilcoxon signed-rank tests behind the verdict (PASS: its upper"
                " end below 1 + tolerance; FAIL: its lower end above 1 and the ratio beyond 1 +"
                " tolerance); p(slower): that test, one-sided\n",
                conf);
    else if (!references)
        fprintf(f,
                "ratio: candidate/baseline of the medians shown; p(slower): one-sided"
                " Mann-Whitney U, candidate slower; interval: %d%% bootstrap of the median"
                " ratio%s\n",
                conf,
                o->method == SB_GATE_BOOTSTRAP ? " (the verdict: FAIL when its lower end is beyond"
                                                 " 1 + tolerance)"
                                               : " (shown; the U test and the ratio decide)");
    sb_gate_print(r, f);
    if (!references) env_lines(r, &base->env, &cand->env, NULL, f);
    if (r->ignored)
        fprintf(f,
                "ignored: %d baseline configuration(s) from machines the candidate did not run"
                " on:\n",
                r->ignored);
    for (int i = 0; i < r->ignored && i < 10; i++)
        fprintf(f, "ignored: %s\n", r->ignored_labels[i]);
    if (r->ignored > 10)
        fprintf(f, "ignored: ... and %d more (--json names all)\n", r->ignored - 10);
    if (r->short_rounds)
        fprintf(f,
                "warning: %d point(s) judged on one round a side of sub-millisecond samples"
                " (median down to %.3g s): repetitions run back to back share one moment of the"
                " machine, so a drift reads as a difference; judge them in pairs (sweep"
                " --pair-baseline B --pair-candidate C, then gate --paired) or on 3 or more"
                " interleaved rounds a side (gate --pool, scripts/ci-gate --rounds 3)\n",
                r->short_rounds, r->short_median);
    if (r->nothing[0]) fprintf(f, "%s\n", r->nothing);
}

int sb_gate_write_json(sb_gate_result *r, const sb_gate_side *base, const sb_gate_side *cand,
                       const char *references, const sb_gate_opts *o, FILE *f, sb_err *e)
{
    json_t *doc = sb_gate_json(r), *env = json_array();
    if (!references) env_lines(r, &base->env, &cand->env, env, NULL);
    if (!doc ||
        json_object_update_new(doc,
                               json_pack("{s:o,s:o,s:f,s:s,s:f,s:i,s:o}", "baseline",
                                         sb_text_json(references ? references : base->what),
                                         "candidate", sb_text_json(cand->what), "tolerance",
                                         o->tolerance, "test", test_name(references, o), "alpha",
                                         o->alpha, "min_samples", o->min_samples, "env", env)) ||
        sb_text_json_dumpf(doc, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER)) {
        json_decref(doc);
        return sb_errf(e, SB_EFAIL, "cannot write the JSON document");
    }
    fputc('\n', f);
    json_decref(doc);
    return SB_OK;
}

int sb_gate_write_history(const sb_gate_result *r, const sb_gate_side *base,
                          const sb_gate_side *cand, const sb_gate_opts *o, const char *candidate,
                          const char *dbpath, sb_db *shared, FILE *f, sb_err *e)
{
    struct stat st;
    int is_file = stat(candidate, &st) == 0 && S_ISREG(st.st_mode);
    sb_db *db = is_file ? NULL : shared;
    int rc = SB_OK;
    if (!db && (rc = sb_db_open_readonly(is_file ? candidate : dbpath, &db, e))) return rc;
    for (int i = 0; i < r->n && !rc; i++) {
        const sb_gate_row *w = &r->rows[i];
        if (w->verdict != SB_FAIL || !w->cand_id) continue;
        sb_gate_last_pass lp;
        if ((rc = sb_gate_find_last_pass(db, &base->set, &cand->set, w, o, &lp, e))) break;
        /* tool versions and times are stored text as well */
        sb_text_inert_inplace(lp.version, sizeof lp.version);
        sb_text_inert_inplace(lp.next_version, sizeof lp.next_version);
        sb_text_inert_inplace(lp.started, sizeof lp.started);
        sb_text_inert_inplace(lp.next_started, sizeof lp.next_started);
        if (lp.found)
            fprintf(f,
                    "history: %s %s: last passed at tool version %s (sweep %lld, %.10s); first"
                    " not passing: %s (sweep %lld, %.10s)\n",
                    w->label, w->metric, lp.version[0] ? lp.version : "?", (long long)lp.sweep_id,
                    lp.started, lp.next_version[0] ? lp.next_version : "?",
                    (long long)lp.next_sweep_id, lp.next_started);
        else
            fprintf(f,
                    "history: %s %s: none of the %d earlier sweep(s) of this configuration on"
                    " this machine passed\n",
                    w->label, w->metric, lp.checked);
    }
    if (db != shared) sb_db_close(db);
    return rc;
}
