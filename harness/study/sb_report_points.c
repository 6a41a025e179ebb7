#include "sb_report_points.h"
#include <stdlib.h>
#include <string.h>
#include "sb_gate.h"
#include "sb_metric.h"
#include "sb_stats.h"
#include "sb_workload.h"

/* ---- which points a section takes (the predicates of g_sections) ---- */

/* a point of the scaling model: it ran nothing */
int sb_rp_is_model_point(const sb_pt *p) { return p->status && !strcmp(p->status, "projected"); }

int sb_rp_ok(const sb_pt *p) { return p && p->status && !strcmp(p->status, "ok"); }

/* A point's kind, by what its workload's row (resolved once, when the
 * point was loaded: p->wl) declares, never by its name: GEMM shapes, a
 * training step the scaling model projects onto epochs, an inference with
 * its latency, the peak probe. A point of a workload this build does not
 * know has no row and is none of them. */
static int declares(const sb_pt *p, unsigned flag) { return p->wl && (p->wl->flags & flag); }
int sb_rp_is_gemm(const sb_pt *p) { return declares(p, SB_WL_SHAPES); }
int sb_rp_is_train(const sb_pt *p) { return declares(p, SB_WL_PROJECT); }
int sb_rp_is_infer(const sb_pt *p) { return declares(p, SB_WL_LATENCY); }
int sb_rp_is_peak(const sb_pt *p) { return declares(p, SB_WL_PROBE); }

int sb_rp_is_gemm1(const sb_pt *p) { return sb_rp_is_gemm(p) && p->ppn * p->nodes == 1; }

int sb_rp_is_train1(const sb_pt *p) { return sb_rp_is_train(p) && p->ppn * p->nodes == 1; }

int sb_rp_is_infer1(const sb_pt *p) { return sb_rp_is_infer(p) && p->ppn * p->nodes == 1; }

int sb_rp_is_scaling(const sb_pt *p) { return p->ppn * p->nodes > 1 && !sb_rp_is_peak(p); }


int sb_rp_has_projected(const sb_pt *p)
{
    for (int k = 0; k < p->nmetrics; k++)
        if (p->metrics[k].projected) return 1;
    return 0;
}

int sb_rp_any_point(const sb_pt *p)
{
    (void)p;
    return 1;
}

/* The headline's: an ok single-process GEMM point with a rate and a dtype. */
int sb_rp_gemm_ok(const sb_pt *p)
{
    return sb_rp_is_gemm(p) && sb_rp_ok(p) && sb_rp_gemm_rate(p) && p->dtype &&
        p->ppn * p->nodes <= 1;
}

/* ---- a point's metrics ---- */

/* The rate a point is compared by: its first higher-is-better headline in
 * the metric table's order (gflops, tokens_per_s, triad_gbps), else its
 * workload row's headline. */
const sb_metric_val *sb_rp_rate_metric(const sb_pt *p)
{
    if (!p) return NULL;
    for (int i = 0; i < sb_metric_count(); i++) {
        const sb_metric_info *mi = sb_metric_at(i);
        if (mi->role != SB_MROLE_HEADLINE || mi->lower || mi->star != SB_MSTAR_NONE) continue;
        const sb_metric_val *m = sb_pt_metric(p, mi->name);
        if (m) return m;
    }
    return p->wl && p->wl->metric ? sb_pt_metric(p, p->wl->metric) : NULL;
}

/* The metric at the p10 and p90 samples (the metric is computed from the
 * median): 1 when the point has the samples for it, else lo = hi = value. */
int sb_rp_spread_of(const sb_pt *p, const sb_metric_val *m, double *lo, double *hi)
{
    *lo = *hi = m->value;
    if (p->nsamples < 2 || !sb_metric_per_sample(m->name)) return 0;
    int lower = sb_metric_lower(m->name, m->unit);
    if (sb_metric_band(m->value, p->samples, p->nsamples, lower, lo, hi) == 1) return 1;
    *lo = *hi = m->value; /* no median, or a p10 sample of 0: no band */
    return 0;
}

/* the GEMM rate the headline's tables show: GFLOP/s, else GOP/s */
const sb_metric_val *sb_rp_gemm_rate(const sb_pt *p)
{
    const sb_metric_val *m = sb_pt_metric(p, "gflops");
    return m ? m : sb_pt_metric(p, "gops");
}

/* "batch=4" out of "model=distilbert-base batch=4 seq=384"; -1 when absent */
int sb_rp_shape_int(const char *shape, const char *key)
{
    size_t kl = strlen(key);
    for (const char *p = shape; p && *p;) {
        if (!strncmp(p, key, kl) && p[kl] == '=') return atoi(p + kl + 1);
        p = strchr(p, ' ');
        if (p) p++;
    }
    return -1;
}
