#include "sb_report_peaks.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "sb_report_points.h"
#include "sb_report_words.h"
#include "sb_query.h"

/* The newest peak point of a side (ok if any): machines differ in cores, so
 * peaks are compared whatever their thread counts. */
static const sb_pt *newest_peak(const sb_ptset *s)
{
    const sb_pt *best = NULL;
    for (int i = 0; i < s->n; i++) {
        const sb_pt *p = &s->p[i];
        if (!sb_rp_is_peak(p)) continue;
        if (!best || sb_rp_ok(p) || !sb_rp_ok(best)) best = p;
    }
    return best;
}

/* The reasons `sprbench peak` gave for the paths it could not run. */
static json_t *peak_skipped(sb_rp_out *o, const sb_rp_model *m, const sb_pt *p)
{
    json_t *sk = NULL, *doc = NULL;
    sb_err e = {0};
    int rc = p ? sb_rp_result(m, p->id, &doc, &e) : SB_OK;
    if (rc) sb_rp_read_failed(o, rc, &e);
    sk = json_incref(json_object_get(doc, "skipped"));
    json_decref(doc);
    if (!json_is_object(sk)) {
        json_decref(sk);
        sk = json_object();
    }
    return sk;
}

static void add_name(char ***names, int *n, const char *name)
{
    for (int i = 0; i < *n; i++)
        if (!strcmp((*names)[i], name)) return;
    char **nn = realloc(*names, sizeof *nn * (size_t)(*n + 1));
    if (!nn) return;
    *names = nn;
    nn[(*n)++] = strdup(name);
}

static void peak_cell(const sb_pt *p, const sb_metric_val *m, json_t *skipped, const char *name,
                      char *buf, size_t cap)
{
    if (m) {
        char x[32];
        snprintf(buf, cap, "%s (one timed run%s)", sb_rp_num(m->value, x, sizeof x),
                 strstr(name, "_1t") ? ", one core" : "");
        return;
    }
    char base[128];
    snprintf(base, sizeof base, "%s", name);
    char *t = strstr(base, "_1t");
    if (t && !t[3]) *t = '\0';
    const char *why = json_string_value(json_object_get(skipped, base));
    if (p && why)
        snprintf(buf, cap, "not available (%.500s)", why);
    else
        sb_rp_not_available(p, buf, cap);
}

/* Not the pairs: a side's newest peak, whatever its thread count (the row's
 * predicate only says whether either side measured one). */
void sb_rp_render_peaks(sb_rp_ctx *ctx, const sb_rp_pair *pv, int np)
{
    (void)pv;
    (void)np;
    sb_rp_out *o = ctx->o;
    const sb_rp_model *m = ctx->m;
    const sb_pt *b = newest_peak(ctx->bs), *c = newest_peak(ctx->cs);
    sb_rp_para(o,
               "Measured by sprbench peak (all cores, and _1t on one core); a peak is the"
               " rate of one timed run of a register-only loop, so it has no spread.");
    json_t *sk[2] = {peak_skipped(o, m, b), peak_skipped(o, m, c)};
    char **names = NULL;
    int n = 0;
    const sb_pt *sides[2] = {b, c};
    for (int s = 0; s < 2; s++) {
        for (int k = 0; sides[s] && k < sides[s]->nmetrics; k++)
            add_name(&names, &n, sides[s]->metrics[k].name);
        const char *key;
        json_t *v;
        json_object_foreach(sk[s], key, v)
        {
            char one[160];
            add_name(&names, &n, key);
            snprintf(one, sizeof one, "%.120s_1t", key);
            add_name(&names, &n, one);
        }
    }
    const char *hdr[] = {"metric", "baseline", "candidate", "candidate/baseline"};
    sb_rp_table t;
    sb_rp_t_init(&t, 4, hdr);
    for (int i = 0; i < n; i++) {
        const sb_metric_val *mb = sb_rp_ok(b) ? sb_pt_metric(b, names[i]) : NULL;
        const sb_metric_val *mc = sb_rp_ok(c) ? sb_pt_metric(c, names[i]) : NULL;
        char vb[700], vc[700], r[32], metric[200];
        peak_cell(b, mb, sk[0], names[i], vb, sizeof vb);
        peak_cell(c, mc, sk[1], names[i], vc, sizeof vc);
        sb_rp_ratio_str(mc ? mc->value : 0, mb ? mb->value : 0, r, sizeof r);
        const sb_metric_val *any = mb ? mb : mc;
        snprintf(metric, sizeof metric, "%.120s%s%.60s%s", names[i],
                 any && any->unit[0] ? " (" : "", any ? any->unit : "",
                 any && any->unit[0] ? ")" : "");
        const char *cells[] = {metric, vb, vc, r};
        sb_rp_t_row(&t, cells);
        free(names[i]);
    }
    free(names);
    if (n == 0) {
        char vb[600], vc[600];
        sb_rp_not_available(b, vb, sizeof vb);
        sb_rp_not_available(c, vc, sizeof vc);
        const char *cells[] = {"-", vb, vc, "-"};
        sb_rp_t_row(&t, cells);
    }
    sb_rp_t_emit(o, &t);
    /* all cores below one core: the machine was busy while it measured */
    for (int s = 0; s < 2; s++) {
        const sb_pt *p = sides[s];
        for (int k = 0; sb_rp_ok(p) && k < p->nmetrics; k++) {
            char one[160];
            snprintf(one, sizeof one, "%.120s_1t", p->metrics[k].name);
            const sb_metric_val *m1 = sb_pt_metric(p, one);
            if (m1 && p->metrics[k].value < m1->value)
                sb_rp_para(
                    o,
                    "Warning: on the %s, %s on all cores (%.4g) is below one core (%.4g): the"
                    " machine was busy while its peak was measured, and every %%peak taken"
                    " against it is suspect.",
                    s ? "candidate" : "baseline", p->metrics[k].name, p->metrics[k].value,
                    m1->value);
        }
    }
    json_decref(sk[0]);
    json_decref(sk[1]);
}