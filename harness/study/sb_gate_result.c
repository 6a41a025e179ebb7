#include "sb_gate_result.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *sb_verdict_name(sb_verdict v)
{
    return v == SB_FAIL ? "FAIL" : v == SB_WARN ? "WARN" : v == SB_SKIP ? "SKIP" : "PASS";
}

void sb_gate_result_free(sb_gate_result *r)
{
    free(r->rows);
    free(r->ignored_labels);
    memset(r, 0, sizeof *r);
}

sb_gate_row *sb_gate_add_row(sb_gate_result *r, sb_verdict v, const sb_pt *p, const char *metric)
{
    if (r->n == r->cap) {
        int cap = r->cap ? 2 * r->cap : 32;
        sb_gate_row *nr = realloc(r->rows, sizeof *nr * (size_t)cap);
        if (!nr) return NULL;
        r->rows = nr;
        r->cap = cap;
    }
    sb_gate_row *row = &r->rows[r->n++];
    memset(row, 0, sizeof *row);
    row->verdict = v;
    row->p = -1;
    r->count[v]++;
    snprintf(row->metric, sizeof row->metric, "%s", metric);
    if (p) {
        snprintf(row->workload, sizeof row->workload, "%s", p->workload);
        sb_pt_label(p, row->label, sizeof row->label);
        snprintf(row->machine, sizeof row->machine, "%s", p->fingerprint);
    }
    return row;
}

void sb_gate_set_verdict(sb_gate_result *r, sb_gate_row *row, sb_verdict v)
{
    r->count[row->verdict]--;
    row->verdict = v;
    r->count[v]++;
}

void sb_gate_notef(sb_gate_row *row, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(row->note, sizeof row->note, fmt, ap);
    va_end(ap);
}

sb_verdict sb_gate_overall(const sb_gate_result *r)
{
    if (r->count[SB_FAIL] || (r->nothing[0] && !r->nothing_allowed)) return SB_FAIL;
    return r->count[SB_WARN] || r->nothing[0] ? SB_WARN : SB_PASS;
}

/* Appends ", N what" to buf when n > 0. */
static void add_part(char *buf, size_t cap, int n, const char *what)
{
    size_t l = strlen(buf);
    if (n > 0 && l < cap) snprintf(buf + l, cap - l, "%s%d %s", l ? ", " : "", n, what);
}

int sb_gate_judged(sb_gate_result *r, const sb_gate_opts *o)
{
    r->nothing[0] = 0;
    r->nothing_allowed = 0;
    r->short_rounds = 0;
    r->short_median = 0;
    for (int i = 0; i < r->n; i++) {
        const sb_gate_row *w = &r->rows[i];
        if (!w->short_round) continue;
        if (!r->short_rounds++ || w->cand < r->short_median) r->short_median = w->cand;
    }
    if (r->count[SB_PASS] || r->count[SB_FAIL]) return 0;
    int one_sided = 0, unsure = 0, noisy = 0, undecided = 0;
    const char *example = "";
    for (int i = 0; i < r->n; i++) {
        const sb_gate_row *w = &r->rows[i];
        if (w->verdict != SB_WARN) continue;
        if (w->one_sided) {
            if (!one_sided++) example = w->label;
        } else if (!strcmp(w->outcome, "UNSURE"))
            unsure++;
        else if (!strcmp(w->outcome, "NOISY") || !strncmp(w->note, "noisy", 5))
            noisy++;
        else
            undecided++;
    }
    char parts[300] = "";
    add_part(parts, sizeof parts, one_sided, "on one side only");
    add_part(parts, sizeof parts, unsure, "UNSURE after their pairs");
    add_part(parts, sizeof parts, noisy, "noisy");
    add_part(parts, sizeof parts, undecided,
             "undecided (too few samples, not significant, within the noise or unfinished)");
    add_part(parts, sizeof parts, r->count[SB_SKIP], "skipped");
    const char *todo = r->n == 0 ? "check what the sides name (sweep, database, references)"
        : one_sided == r->n - r->count[SB_SKIP] && one_sided
        ? "a kernel, shape or machine renamed? Gate runs of the same points"
        : r->count[SB_SKIP] == r->n ? "gate points this machine can run"
        : unsure                    ? "measure more pairs (sweep --pairs MIN:MAX)"
                                    : "measure more samples or rounds";
    if (r->n == 0 && r->ignored)
        snprintf(r->nothing, sizeof r->nothing,
                 "nothing judged: no point to compare: the baseline's %d configuration(s) are all"
                 " from machines the candidate did not run on (--cross-machine compares them)",
                 r->ignored);
    else if (r->n == 0)
        snprintf(r->nothing, sizeof r->nothing, "nothing judged: no point to compare: %s", todo);
    else if (one_sided && one_sided == r->n - r->count[SB_SKIP])
        snprintf(r->nothing, sizeof r->nothing,
                 "nothing judged: the sides share no configuration (%s; e.g. %.80s): %s", parts,
                 example, todo);
    else
        snprintf(r->nothing, sizeof r->nothing,
                 "nothing judged: none of the %d compared point(s) PASSed or FAILed (%s): %s", r->n,
                 parts, todo);
    r->nothing_allowed = o->allow_nothing_judged;
    size_t l = strlen(r->nothing);
    snprintf(r->nothing + l, sizeof r->nothing - l, "%s",
             r->nothing_allowed ? "; accepted (--allow-nothing-judged): exit 0"
                                : "; or pass --allow-nothing-judged to accept it");
    return 1;
}
