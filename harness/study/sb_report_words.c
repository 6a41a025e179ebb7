#include "sb_report_words.h"
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "sb_metric.h"
#include "sb_report_points.h"

/* 4 significant digits, but whole numbers up to 1e9 in full (40000, not 4e+04). */
const char *sb_rp_num(double v, char *buf, size_t cap)
{
    if (fabs(v) >= 1000 && fabs(v) < 1e9)
        snprintf(buf, cap, "%.0f", v);
    else
        snprintf(buf, cap, "%.4g", v);
    return buf;
}

/* The number of a projection's provenance note (P1, P2, ...): the long text
 * is said once, under "Projected figures", and cells only point at it. */
int sb_rp_proj_note(sb_rp_out *o, const char *src)
{
    const char *s = src && *src ? src : "(not recorded)";
    for (int i = 0; i < o->nsrc; i++)
        if (!strcmp(o->srcs[i], s)) return i + 1;
    char **n = realloc(o->srcs, sizeof *n * (size_t)(o->nsrc + 1));
    if (!n) return 0;
    o->srcs = n;
    n[o->nsrc] = strdup(s);
    return n[o->nsrc] ? ++o->nsrc : 0;
}

/* "123.4 [118.0, 125.1]": the metric (computed from the median) and the same
 * metric at the p10 and p90 samples. */
void sb_rp_with_spread(sb_rp_out *o, const sb_pt *p, const sb_metric_val *m, char *buf, size_t cap)
{
    char proj[64] = "";
    if (m->projected)
        snprintf(proj, sizeof proj, " (projected, P%d)", sb_rp_proj_note(o, m->source));
    double a, b;
    if (sb_rp_spread_of(p, m, &a, &b)) {
        char x[32], y[32], z[32];
        snprintf(buf, cap, "%s [%s, %s]%s", sb_rp_num(m->value, x, sizeof x),
                 sb_rp_num(a, y, sizeof y), sb_rp_num(b, z, sizeof z), proj);
        return;
    }
    char x[32];
    snprintf(buf, cap, "%s [%d sample%s]%s", sb_rp_num(m->value, x, sizeof x), p->nsamples,
             p->nsamples == 1 ? "" : "s", proj);
}

void sb_rp_not_available(const sb_pt *p, char *buf, size_t cap)
{
    if (!p)
        snprintf(buf, cap, "not available (not run)");
    else if (strcmp(p->status, "ok"))
        snprintf(buf, cap, "not available (%s%s%.400s)", p->status, p->reason[0] ? ": " : "",
                 p->reason);
    else
        snprintf(buf, cap, "not available (no such metric)");
}

/* One wording for every ratio in the report: how much faster or slower the
 * candidate is, from a speed ratio (candidate speed / baseline speed: a
 * rate over a rate, or baseline time over candidate time), never a bare
 * number whose direction the reader has to work out. */
void sb_rp_speed_words(double speed, char *buf, size_t cap)
{
    if (!(speed > 0))
        snprintf(buf, cap, "-");
    else if (speed >= 0.995 && speed < 1.005)
        snprintf(buf, cap, "same (1.00x)");
    else if (speed >= 1)
        snprintf(buf, cap, "%.2fx faster", speed);
    else
        snprintf(buf, cap, "%.2fx slower", 1 / speed);
}

void sb_rp_ratio_str(double num, double den, char *buf, size_t cap)
{
    sb_rp_speed_words(num > 0 && den > 0 ? num / den : 0, buf, cap);
}
/* The same from the test run both ways (fwd: baseline -> candidate, rev:
 * the sides swapped) over whatever samples it was given. */
int sb_rp_sig_in(const sb_gate_result *fwd, const sb_gate_result *rev, const sb_pt *b,
                 const sb_pt *c, double *p)
{
    int tested = 0;
    *p = -1;
    if (!b || !c || !fwd || !rev) return SB_RP_SIG_UNTESTED;
    for (int i = 0; i < fwd->n; i++) {
        const sb_gate_row *w = &fwd->rows[i];
        /* the gate's "noisy": two regimes on a side, flagged, not judged */
        if (w->base_id == b->id && w->cand_id == c->id && !strncmp(w->note, "noisy", 5))
            return SB_RP_SIG_NOISY;
        if (w->base_id != b->id || w->cand_id != c->id || w->p < 0) continue;
        *p = w->p;
        if (w->verdict == SB_FAIL) return SB_RP_SIG_SLOWER;
        tested = 1;
    }
    for (int i = 0; i < rev->n; i++) {
        const sb_gate_row *w = &rev->rows[i];
        if (w->base_id != c->id || w->cand_id != b->id || w->p < 0) continue;
        if (w->verdict == SB_FAIL) {
            *p = w->p;
            return SB_RP_SIG_FASTER;
        }
        tested = 1;
    }
    return tested ? SB_RP_SIG_NOT : SB_RP_SIG_UNTESTED;
}

int sb_rp_sig_of(const sb_rp_out *o, const sb_pt *b, const sb_pt *c, double *p)
{
    return sb_rp_sig_in(o->fwd, o->rev, b, c, p);
}

/* "1.40x faster (significant, p=0.003)": a ratio's words and the test's. */
void sb_rp_sig_words(const char *ratio, int s, double p, char *buf, size_t cap)
{
    if (!strcmp(ratio, "-"))
        snprintf(buf, cap, "-");
    else if (s == SB_RP_SIG_SLOWER || s == SB_RP_SIG_FASTER)
        snprintf(buf, cap, "%s (significant, p=%.2g)", ratio, p);
    else if (s == SB_RP_SIG_NOT)
        snprintf(buf, cap, "%s (not significant)", ratio);
    else if (s == SB_RP_SIG_NOISY)
        snprintf(buf, cap, "%s (noisy: a side's samples form two groups, not judged)", ratio);
    else
        snprintf(buf, cap, "%s (not tested: too few samples)", ratio);
}

/* The ratio of a pair with what the gate's test says of it, so that a
 * noisy ratio never reads as a finding. */
void sb_rp_ratio_sig(const sb_rp_out *o, const sb_pt *b, const sb_pt *c, double num, double den,
                     char *buf, size_t cap)
{
    char r[32];
    double p;
    sb_rp_ratio_str(num, den, r, sizeof r);
    int s = sb_rp_sig_of(o, b, c, &p);
    sb_rp_sig_words(r, s, p, buf, cap);
}

/* The ratio of a pair's metric with the test's word: "faster" is the
 * candidate doing better, a higher rate or a lower figure where lower is
 * better (the metric table's word). */
void sb_rp_metric_ratio_sig(const sb_rp_out *o, const sb_pt *b, const sb_pt *c,
                            const sb_metric_val *mb, const sb_metric_val *mc, char *buf, size_t cap)
{
    double vcand = mc ? mc->value : 0, vbase = mb ? mb->value : 0;
    const sb_metric_val *m = mc ? mc : mb;
    if (m && sb_metric_lower(m->name, m->unit))
        sb_rp_ratio_sig(o, b, c, vbase, vcand, buf, cap);
    else
        sb_rp_ratio_sig(o, b, c, vcand, vbase, buf, cap);
}

/* A pair's rate cells: each side's rate metric with its spread (or why it
 * has none) into vb and vc (700 bytes), the ratio and its significance into
 * r (96 bytes). */
void sb_rp_rate_cells(sb_rp_out *o, const sb_pt *b, const sb_pt *c, const sb_metric_val **mb,
                      const sb_metric_val **mc, char *vb, char *vc, char *r)
{
    *mb = sb_rp_ok(b) ? sb_rp_rate_metric(b) : NULL;
    *mc = sb_rp_ok(c) ? sb_rp_rate_metric(c) : NULL;
    if (*mb)
        sb_rp_with_spread(o, b, *mb, vb, 700);
    else
        sb_rp_not_available(b, vb, 700);
    if (*mc)
        sb_rp_with_spread(o, c, *mc, vc, 700);
    else
        sb_rp_not_available(c, vc, 700);
    sb_rp_metric_ratio_sig(o, b, c, *mb, *mc, r, 96);
}

/* ---- the headline's words ---- */

/* appends to a "; "-separated list */
void sb_rp_addf(char *buf, size_t cap, const char *fmt, ...)
{
    size_t l = strlen(buf);
    if (l + 3 >= cap) return;
    if (l) {
        memcpy(buf + l, "; ", 3);
        l += 2;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + l, cap - l, fmt, ap);
    va_end(ap);
}

/* "26 min", "3 h 30 min", "7 min 30 s", "41 s" */
const char *sb_rp_dur(double s, char *buf, size_t cap)
{
    if (!(s > 0)) {
        snprintf(buf, cap, "-");
        return buf;
    }
    long t = lround(s);
    if (t >= 3600) {
        long m = lround(s / 60); /* to the minute */
        snprintf(buf, cap, m % 60 ? "%ld h %ld min" : "%ld h", m / 60, m % 60);
    } else if (t >= 60)
        snprintf(buf, cap, t % 60 ? "%ld min %ld s" : "%ld min", t / 60, t % 60);
    else
        snprintf(buf, cap, "%.3g s", s);
    return buf;
}

/* The headline's speed words: sb_rp_speed_words without "same" (1.003
 * reads "1.00x faster"). */
void sb_rp_speed_words_hl(double speed, char *buf, size_t cap)
{
    if (!(speed > 0))
        snprintf(buf, cap, "-");
    else if (speed >= 1)
        snprintf(buf, cap, "%.2fx faster", speed);
    else
        snprintf(buf, cap, "%.2fx slower", 1 / speed);
}
