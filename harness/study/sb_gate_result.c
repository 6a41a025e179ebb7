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
    return r->count[SB_FAIL] ? SB_FAIL : r->count[SB_WARN] ? SB_WARN : SB_PASS;
}
