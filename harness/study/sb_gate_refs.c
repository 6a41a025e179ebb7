#include "sb_gate_refs.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sb_gate_match.h"
#include "sb_stats.h"

static int parse_bound(const char *s, double *out)
{
    if (!strcmp(s, "null") || !strcmp(s, "none") || !strcmp(s, "inf") || !strcmp(s, "+inf") ||
        !strcmp(s, "-inf")) {
        *out = NAN;
        return 0;
    }
    char *end;
    double v = strtod(s, &end);
    if (end == s || !isfinite(v)) return -1;
    if (*end == '%') {
        v /= 100;
        end++;
    }
    if (*end) return -1;
    *out = v;
    return 0;
}

static int cmp_ref_key(const void *a, const void *b)
{
    const sb_reference *x = *(const sb_reference *const *)a, *y = *(const sb_reference *const *)b;
    int c;
    if ((c = strcmp(x->machine, y->machine)) || (c = strcmp(x->workload, y->workload)) ||
        (c = strcmp(x->kernel, y->kernel)) || (c = strcmp(x->shape, y->shape)) ||
        (c = strcmp(x->metric, y->metric)))
        return c;
    if (x->threads != y->threads) return x->threads < y->threads ? -1 : 1;
    if (x->ranks != y->ranks) return x->ranks < y->ranks ? -1 : 1;
    return x->line < y->line ? -1 : x->line > y->line;
}

/* Two lines for one configuration and metric would gate its point twice
 * (and the looser line could not pass what the tighter one fails): refused
 * naming both lines. Sorted, so a long file costs n log n. */
static int refs_unique(const sb_reference *refs, int n, const char *name, sb_err *e)
{
    const sb_reference **v = malloc(sizeof *v * (size_t)(n ? n : 1));
    if (!v) return sb_errf(e, SB_EFAIL, "out of memory");
    for (int i = 0; i < n; i++) v[i] = &refs[i];
    qsort(v, (size_t)n, sizeof *v, cmp_ref_key);
    int rc = SB_OK;
    for (int i = 1; i < n && !rc; i++) {
        const sb_reference *a = v[i - 1], *b = v[i];
        if (!strcmp(a->machine, b->machine) && !strcmp(a->workload, b->workload) &&
            !strcmp(a->kernel, b->kernel) && !strcmp(a->shape, b->shape) &&
            !strcmp(a->metric, b->metric) && a->threads == b->threads && a->ranks == b->ranks)
            rc = sb_errf(e, SB_EUSAGE,
                         "%s:%d: the same configuration and metric as line %d: one reference"
                         " each, or the point is gated twice",
                         name, b->line, a->line);
    }
    free(v);
    return rc;
}

int sb_gate_parse_references(const char *text, const char *name, sb_reference **refs, int *n,
                             sb_err *e)
{
    *refs = NULL;
    *n = 0;
    int cap = 0, lineno = 0, rc = SB_OK;
    const char *s = text;
    while (*s && !rc) {
        const char *nl = strchr(s, '\n');
        size_t len = nl ? (size_t)(nl - s) : strlen(s);
        lineno++;
        char line[2048];
        if (len >= sizeof line) {
            rc = sb_errf(e, SB_EUSAGE, "%s:%d: line longer than %zu bytes", name, lineno,
                         sizeof line - 1);
            break;
        }
        memcpy(line, s, len);
        line[len] = '\0';
        s = nl ? nl + 1 : s + len;
        char *hash = strchr(line, '#');
        if (hash) *hash = '\0';
        char *tok[12], *save = NULL;
        int nt = 0;
        for (char *t = strtok_r(line, " \t\r", &save); t; t = strtok_r(NULL, " \t\r", &save)) {
            if (nt == 10) {
                nt = 11;
                break;
            }
            tok[nt++] = t;
        }
        if (nt == 0) continue;
        if (nt < 9 || nt > 10) {
            rc = sb_errf(e, SB_EUSAGE,
                         "%s:%d: expected MACHINE WORKLOAD KERNEL SHAPE THREADS METRIC"
                         " VALUE LOWER UPPER [UNIT], got %s%d field(s)",
                         name, lineno, nt > 10 ? "more than " : "", nt > 10 ? 10 : nt);
            break;
        }
        if (*n == cap) {
            cap = cap ? 2 * cap : 16;
            sb_reference *nr = realloc(*refs, sizeof *nr * (size_t)cap);
            if (!nr) {
                rc = sb_errf(e, SB_EFAIL, "out of memory");
                break;
            }
            *refs = nr;
        }
        sb_reference *r = &(*refs)[*n];
        memset(r, 0, sizeof *r);
        r->line = lineno;
        struct {
            char *dst;
            size_t cap;
            const char *src;
            const char *what;
        } f[] = {
            {r->machine, sizeof r->machine, tok[0], "machine"},
            {r->workload, sizeof r->workload, tok[1], "workload"},
            {r->kernel, sizeof r->kernel, tok[2], "kernel"},
            {r->shape, sizeof r->shape, tok[3], "shape"},
            {r->metric, sizeof r->metric, tok[5], "metric"},
            {r->unit, sizeof r->unit, nt > 9 ? tok[9] : "", "unit"},
        };
        for (size_t i = 0; i < sizeof f / sizeof f[0] && !rc; i++) {
            if (strlen(f[i].src) >= f[i].cap)
                rc = sb_errf(e, SB_EUSAGE, "%s:%d: %s '%.40s...' is too long", name, lineno,
                             f[i].what, f[i].src);
            else
                strcpy(f[i].dst, f[i].src);
        }
        if (rc) break;
        r->threads = r->ranks = -1;
        if (strcmp(tok[4], "*")) {
            char *end;
            long t = strtol(tok[4], &end, 10), rk = 1;
            if (*end == ':') rk = strtol(end + 1, &end, 10);
            if (end == tok[4] || *end || t < 1 || t > 1 << 20 || rk < 1 || rk > 1 << 20) {
                rc = sb_errf(e, SB_EUSAGE, "%s:%d: threads '%s' is not T, T:RANKS or *", name,
                             lineno, tok[4]);
                break;
            }
            r->threads = (int)t;
            r->ranks = (int)rk;
        }
        char *end;
        r->value = strtod(tok[6], &end);
        if (end == tok[6] || *end || !isfinite(r->value) || r->value <= 0) {
            rc = sb_errf(e, SB_EUSAGE, "%s:%d: value '%s' is not a positive number", name, lineno,
                         tok[6]);
            break;
        }
        if (parse_bound(tok[7], &r->lower) || parse_bound(tok[8], &r->upper) ||
            (!isnan(r->lower) && r->lower > 0) || (!isnan(r->upper) && r->upper < 0)) {
            rc = sb_errf(e, SB_EUSAGE,
                         "%s:%d: bounds '%s' '%s': need LOWER <= 0 and UPPER >= 0"
                         " as -5%%, +10%%, -0.05 or null",
                         name, lineno, tok[7], tok[8]);
            break;
        }
        if (!strcmp(r->unit, "-")) r->unit[0] = '\0';
        (*n)++;
    }
    if (!rc && *n == 0) rc = sb_errf(e, SB_EUSAGE, "%s: no references in the file", name);
    if (!rc) rc = refs_unique(*refs, *n, name, e);
    if (rc) {
        free(*refs);
        *refs = NULL;
        *n = 0;
    }
    return rc;
}

static int machine_matches(const char *ref, const char *fp)
{
    return !strcmp(ref, "*") || !strcmp(ref, fp) ||
        (strlen(ref) >= 4 && !strncmp(ref, fp, strlen(ref)));
}

static int ref_matches_config(const sb_reference *rf, const sb_pt *p)
{
    return !strcmp(rf->workload, p->workload) && !strcmp(rf->kernel, p->kernel) &&
        (!strcmp(rf->shape, "*") || !strcmp(rf->shape, p->shape)) &&
        (rf->threads < 0 || (rf->threads == p->threads && rf->ranks == p->ppn * p->nodes));
}

/* How exactly a line names its configuration, compared field by field:
 * how many of MACHINE, SHAPE and THREADS it gives (not '*'), then the
 * machine (a full fingerprint over a longer prefix over a shorter one),
 * then the shape, then the threads. Two lines that match one point and
 * rank equal are the same configuration, which refs_unique refuses. */
static int ref_more_exact(const sb_reference *a, const sb_reference *b)
{
    int ea[4] = {!!strcmp(a->machine, "*") + !!strcmp(a->shape, "*") + (a->threads >= 0),
                 strcmp(a->machine, "*") ? (int)strlen(a->machine) : 0, !!strcmp(a->shape, "*"),
                 a->threads >= 0};
    int eb[4] = {!!strcmp(b->machine, "*") + !!strcmp(b->shape, "*") + (b->threads >= 0),
                 strcmp(b->machine, "*") ? (int)strlen(b->machine) : 0, !!strcmp(b->shape, "*"),
                 b->threads >= 0};
    for (int i = 0; i < 4; i++)
        if (ea[i] != eb[i]) return ea[i] > eb[i];
    return 0;
}

static int cmp_ref_metric(const void *a, const void *b)
{
    const sb_reference *x = *(const sb_reference *const *)a, *y = *(const sb_reference *const *)b;
    int c;
    if ((c = strcmp(x->workload, y->workload)) || (c = strcmp(x->kernel, y->kernel)) ||
        (c = strcmp(x->metric, y->metric)))
        return c;
    return x->line < y->line ? -1 : x->line > y->line;
}

/* The lines that may gate the same points and metric as each other: refs
 * sorted by workload, kernel and metric into by (caller frees), and for
 * line k its run [from[k], to[k]) there. NULL when out of memory. */
static const sb_reference **ref_rivals(const sb_reference *refs, int n, int **from, int **to)
{
    const sb_reference **by = malloc(sizeof *by * (size_t)(n ? n : 1));
    *from = malloc(sizeof **from * (size_t)(n ? n : 1));
    *to = malloc(sizeof **to * (size_t)(n ? n : 1));
    if (!by || !*from || !*to) {
        free(by), free(*from), free(*to);
        return NULL;
    }
    for (int i = 0; i < n; i++) by[i] = &refs[i];
    qsort(by, (size_t)n, sizeof *by, cmp_ref_metric);
    for (int i = 0; i < n;) {
        int j = i;
        while (j < n && !strcmp(by[j]->workload, by[i]->workload) &&
               !strcmp(by[j]->kernel, by[i]->kernel) && !strcmp(by[j]->metric, by[i]->metric))
            j++;
        for (int k = i; k < j; k++) (*from)[by[k] - refs] = i, (*to)[by[k] - refs] = j;
        i = j;
    }
    return by;
}

/* 1 when a line more exact than refs[k] (ref_more_exact) also matches p:
 * that line gates p's metric, so that an exact line and a wildcard line
 * never gate one point twice. */
static int outranked(const sb_reference *refs, int k, const sb_reference *const *by, int from,
                     int to, const sb_pt *p)
{
    for (int j = from; j < to; j++)
        if (by[j] != &refs[k] && machine_matches(by[j]->machine, p->fingerprint) &&
            ref_matches_config(by[j], p) && ref_more_exact(by[j], &refs[k]))
            return 1;
    return 0;
}

static int gate_references(const sb_reference *refs, int nrefs, const sb_ptset *cand,
                           const sb_reference *const *by, const int *from, const int *to,
                           sb_gate_result *r, sb_err *e);

int sb_gate_references(const sb_reference *refs, int nrefs, const sb_ptset *cand,
                       const sb_gate_opts *o, sb_gate_result *r, sb_err *e)
{
    (void)o;
    sb_ptset cv = {0};
    memset(r, 0, sizeof *r);
    int *from = NULL, *to = NULL;
    const sb_reference **by = ref_rivals(refs, nrefs, &from, &to);
    int rc = by ? sb_gate_measured_view(cand, &cv, e) : sb_errf(e, SB_EFAIL, "out of memory");
    if (!rc) rc = gate_references(refs, nrefs, &cv, by, from, to, r, e);
    free(cv.p);
    free(by), free(from), free(to);
    return rc;
}

static int gate_references(const sb_reference *refs, int nrefs, const sb_ptset *cand,
                           const sb_reference *const *by, const int *from, const int *to,
                           sb_gate_result *r, sb_err *e)
{
    memset(r, 0, sizeof *r);
    /* machines the candidate ran on, and whether any reference is meant for each */
    for (int i = 0; i < cand->n; i++) {
        int seen = 0;
        for (int j = 0; j < i && !seen; j++)
            seen = !strcmp(cand->p[j].fingerprint, cand->p[i].fingerprint);
        if (seen) continue;
        int covered = 0;
        for (int k = 0; k < nrefs && !covered; k++)
            covered = machine_matches(refs[k].machine, cand->p[i].fingerprint);
        if (!covered) {
            sb_gate_row *row = sb_gate_add_row(r, SB_FAIL, NULL, "-");
            if (!row) return sb_errf(e, SB_EFAIL, "out of memory");
            snprintf(row->machine, sizeof row->machine, "%s", cand->p[i].fingerprint);
            snprintf(row->label, sizeof row->label, "machine %s", cand->p[i].fingerprint);
            sb_gate_notef(row, "machine mismatch: no reference is for this machine");
        }
    }
    for (int k = 0; k < nrefs; k++) {
        const sb_reference *rf = &refs[k];
        int matched = 0, machine_present = 0;
        for (int i = 0; i < cand->n; i++) {
            const sb_pt *p = &cand->p[i];
            if (!machine_matches(rf->machine, p->fingerprint)) continue;
            machine_present = 1;
            if (!ref_matches_config(rf, p)) continue;
            matched = 1;
            if (to[k] - from[k] > 1 && outranked(refs, k, by, from[k], to[k], p)) continue;
            sb_gate_row *row = sb_gate_add_row(r, SB_PASS, p, rf->metric);
            if (!row) return sb_errf(e, SB_EFAIL, "out of memory");
            row->base = rf->value;
            row->lo = rf->lower;
            row->hi = rf->upper;
            if (strcmp(p->status, "ok")) {
                sb_gate_set_verdict(r, row, SB_FAIL);
                sb_gate_notef(row, "point %s: %.400s", p->status, p->reason);
                continue;
            }
            double v;
            const char *unit = "s";
            if (!strcmp(rf->metric, "seconds")) {
                if (!p->nsamples) {
                    sb_gate_set_verdict(r, row, SB_WARN);
                    sb_gate_notef(row, "no samples");
                    continue;
                }
                v = sb_median(p->samples, p->nsamples);
            } else {
                const sb_metric_val *m = sb_pt_metric(p, rf->metric);
                if (!m) {
                    sb_gate_set_verdict(r, row, SB_WARN);
                    sb_gate_notef(row, "point has no metric %s (reference line %d)", rf->metric,
                                  rf->line);
                    continue;
                }
                v = m->value;
                unit = m->unit;
            }
            row->cand = v;
            row->ratio = v / rf->value;
            row->nc = p->nsamples;
            snprintf(row->unit, sizeof row->unit, "%s", rf->unit[0] ? rf->unit : unit);
            double dev = v / rf->value - 1;
            if (rf->unit[0] && unit[0] && strcmp(rf->unit, unit)) {
                sb_gate_set_verdict(r, row, SB_WARN);
                sb_gate_notef(row, "unit mismatch: reference in %s, measured in %s", rf->unit,
                              unit);
            } else if ((!isnan(rf->lower) && dev < rf->lower) ||
                       (!isnan(rf->upper) && dev > rf->upper)) {
                sb_gate_set_verdict(r, row, SB_FAIL);
                sb_gate_notef(row,
                              "%+.1f%% from the reference, outside [%s%.1f%%, %s%.1f%%] (line %d)",
                              dev * 100, "", isnan(rf->lower) ? -INFINITY : rf->lower * 100, "+",
                              isnan(rf->upper) ? INFINITY : rf->upper * 100, rf->line);
            } else {
                sb_gate_notef(row, "%+.1f%% from the reference (line %d)", dev * 100, rf->line);
            }
        }
        if (!matched && machine_present) {
            sb_gate_row *row = sb_gate_add_row(r, SB_WARN, NULL, rf->metric);
            if (!row) return sb_errf(e, SB_EFAIL, "out of memory");
            snprintf(row->workload, sizeof row->workload, "%s", rf->workload);
            snprintf(row->label, sizeof row->label, "%s %s t%s", rf->kernel, rf->shape,
                     rf->threads < 0 ? "*" : "");
            if (rf->threads >= 0) {
                size_t l = strlen(row->label);
                snprintf(row->label + l, sizeof row->label - l, "%d", rf->threads);
            }
            snprintf(row->machine, sizeof row->machine, "%s", rf->machine);
            row->base = rf->value;
            row->one_sided = 1;
            sb_gate_notef(row, "point missing: no candidate point matches reference line %d",
                          rf->line);
        }
    }
    return SB_OK;
}
