#include "sb_report_best.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sb_report_points.h"
#include "sb_report_words.h"
#include "sb_report_trun.h"
#include "sb_stats.h"

/* ---- best kernel per precision (GEMM) ---- */

/* the fastest ok GEMM point of a precision, shape and thread count */
static const sb_pt *fastest(const sb_ptset *s, const char *dtype, const char *shape, int threads)
{
    const sb_pt *best = NULL;
    for (int i = 0; i < s->n; i++) {
        const sb_pt *p = &s->p[i];
        if (!sb_rp_gemm_ok(p) || strcmp(p->dtype, dtype) || strcmp(p->shape, shape) ||
            p->threads != threads)
            continue;
        if (!best || sb_rp_gemm_rate(p)->value > sb_rp_gemm_rate(best)->value) best = p;
    }
    return best;
}

/* ", 93 % of its avx512 peak" (with a mark when above 100 %: footnoted) */
static void peak_share(const sb_pt *p, char *buf, size_t cap, int *above)
{
    const sb_metric_val *pp = sb_pt_metric(p, "pct_peak");
    buf[0] = '\0';
    if (!pp || !(pp->value > 0)) return;
    const char *u = pp->unit && !strncmp(pp->unit, "% of ", 5) ? pp->unit + 5 : "its peak";
    int over = pp->value > 100;
    *above += over;
    snprintf(buf, cap, ", %.0f %% of %.*s%s", pp->value, SB_RP_CUT(u, 60),
             over ? " (above its peak: see note)" : "");
}

static void rate_cell(const sb_pt *p, char *buf, size_t cap, int *above)
{
    char share[128];
    peak_share(p, share, sizeof share, above);
    const sb_metric_val *m = sb_rp_gemm_rate(p);
    if (p->nsamples >= 2) {
        double med = sb_median(p->samples, p->nsamples),
               lo = sb_quantile(p->samples, p->nsamples, 0.9),
               hi = sb_quantile(p->samples, p->nsamples, 0.1);
        snprintf(buf, cap, "%s %.4g [%.4g, %.4g] %s%s", p->kernel, m->value,
                 lo > 0 ? m->value * med / lo : 0, hi > 0 ? m->value * med / hi : 0,
                 m->unit ? m->unit : "", share);
    } else {
        snprintf(buf, cap, "%s %.4g %s%s", p->kernel, m->value, m->unit ? m->unit : "", share);
    }
}

/* the candidate's speed against the baseline's, with the gate's test on the
 * seconds per repetition (the same shape on both sides: the same work) */
static void speed_cell(const sb_headline_in *in, const sb_pt *b, const sb_pt *c, char *buf,
                       size_t cap, double *speed)
{
    *speed = sb_rp_gemm_rate(c)->value / sb_rp_gemm_rate(b)->value;
    char w[64];
    sb_rp_speed_words_hl(*speed, w, sizeof w);
    int min = in->go ? in->go->min_samples : 6;
    double alpha = in->go ? in->go->alpha : 0.01, tol = in->go ? in->go->tolerance : 0.05;
    if (b->nsamples < min || c->nsamples < min) {
        snprintf(buf, cap, "%s (not tested: %d/%d samples)", w, b->nsamples, c->nsamples);
        return;
    }
    double pf = sb_mwu_p_greater(b->samples, b->nsamples, c->samples, c->nsamples),
           ps = sb_mwu_p_greater(c->samples, c->nsamples, b->samples, b->nsamples);
    int sig = (*speed > 1 + tol && pf < alpha) || (*speed < 1 / (1 + tol) && ps < alpha);
    int noisy = sb_samples_bimodal(b->samples, b->nsamples, NULL, NULL) ||
        sb_samples_bimodal(c->samples, c->nsamples, NULL, NULL);
    snprintf(buf, cap, "%s (%s, p = %.2g%s)", w, sig ? "significant" : "not significant",
             *speed >= 1 ? pf : ps, noisy ? "; noisy: samples in two groups" : "");
}

void sb_report_best_kernels(const sb_headline_in *in, const sb_rsink *s, sb_headline_out *out)
{
    s->heading(s->ctx, 2, "Best kernel per precision (GEMM)");
    sb_rp_sink_para(
        s,
        "For each precision, shape and thread count, each machine's fastest kernel, its"
        " own or a vendor's (oneDNN), named: the comparison the study makes between Ice"
        " Lake's AVX-512 and Sapphire Rapids' AMX. The same-name table further down is"
        " the second view. Rates are medians [p10, p90]; the ratio carries the gate's test"
        " (one-sided Mann-Whitney U on the seconds per repetition).");
    static const char *const hdr[] = {"precision",
                                      "shape",
                                      "threads",
                                      "baseline: fastest kernel",
                                      "candidate: fastest kernel",
                                      "candidate vs baseline"};
    int cap = 16, rows = 0;
    char(*buf)[400] = malloc(sizeof *buf * 6 * (size_t)cap);
    if (!buf) return;
    double logsum = 0;
    int nlog = 0, above = 0;
    for (int k = 0; k < SB_RP_NPREC; k++) {
        /* every shape and thread count of this precision that both sides ran */
        for (int i = 0; i < in->bs->n; i++) {
            const sb_pt *p = &in->bs->p[i];
            if (!sb_rp_gemm_ok(p) || strcmp(p->dtype, sb_rp_prec[k])) continue;
            if (fastest(in->bs, sb_rp_prec[k], p->shape, p->threads) != p) continue;
            const sb_pt *q = fastest(in->cs, sb_rp_prec[k], p->shape, p->threads);
            if (!q) continue;
            if (rows + 2 > cap) {
                cap *= 2;
                char(*nb)[400] = realloc(buf, sizeof *buf * 6 * (size_t)cap);
                if (!nb) break;
                buf = nb;
            }
            rows++;
            char(*r)[400] = &buf[rows * 6];
            snprintf(r[0], 400, "%s", sb_rp_prec[k]);
            snprintf(r[1], 400, "%s", p->shape);
            snprintf(r[2], 400, "%d", p->threads);
            rate_cell(p, r[3], 400, &above);
            rate_cell(q, r[4], 400, &above);
            double sp;
            speed_cell(in, p, q, r[5], 400, &sp);
            if (sp > 0) {
                logsum += log(sp);
                nlog++;
            }
        }
    }
    out->best_rows = rows;
    out->best_n = nlog;
    out->best_gmean = nlog ? exp(logsum / nlog) : 0;
    if (!rows) {
        sb_rp_sink_para(s,
                        "No precision, shape and thread count has an ok GEMM point on both sides.");
        free(buf);
        return;
    }
    const char **cells = calloc((size_t)6 * (rows + 1), sizeof *cells);
    for (int j = 0; cells && j < 6; j++) cells[j] = hdr[j];
    for (int i = 6; cells && i < 6 * (rows + 1); i++) cells[i] = buf[i];
    char w[64];
    sb_rp_speed_words_hl(out->best_gmean, w, sizeof w);
    sb_rp_sink_para(s,
                    "Over these %d row(s), the candidate's best kernel is %s than the baseline's"
                    " (geometric mean of the speed ratios).",
                    rows, w);
    if (cells) s->table(s->ctx, 6, rows, cells);
    if (above)
        sb_rp_sink_para(
            s,
            "Note: %d figure(s) above 100 %% of the peak of the path their kernel ran"
            " (pct_peak is recomputed on import against the stored peak of that path). A"
            " kernel cannot beat its own path's peak: that peak was measured at a busy"
            " moment, and is too low. Measure it again on a quiet machine (`sprbench"
            " peak`) before reading these shares.",
            above);
    free(cells);
    free(buf);
}

/* ---- what AMX gives on one machine ---- */

/* the instruction generations the study's 8x decomposes into */
static const struct {
    const char *kernel, *what;
} g_gens[] = {
    {"avx512-f32", "AVX-512 f32"},      {"avx512-bf16", "AVX512-BF16"}, {"amx-bf16", "AMX bf16"},
    {"vnni-int8", "AVX-512 VNNI int8"}, {"amx-int8", "AMX int8"},
};
#define NGEN (sizeof g_gens / sizeof g_gens[0])

static const sb_pt *kernel_point(const sb_ptset *s, const char *workload, const char *kernel,
                                 const char *shape, int threads)
{
    for (int i = 0; i < s->n; i++) {
        const sb_pt *p = &s->p[i];
        if (!strcmp(p->workload, workload) && sb_rp_is_ok(p) && !strcmp(p->kernel, kernel) &&
            (!shape || !strcmp(p->shape, shape)) && (threads < 0 || p->threads == threads))
            return p;
    }
    return NULL;
}

static void generations_side(const sb_headline_in *in, const sb_rsink *s, const sb_ptset *set,
                             const char *name)
{
    /* only a machine that ran AMX and an AVX-512 path */
    if (!kernel_point(set, "gemm", "amx-bf16", NULL, -1) &&
        !kernel_point(set, "gemm", "amx-int8", NULL, -1) &&
        !kernel_point(set, "train", "amx-bf16", NULL, -1) &&
        !kernel_point(set, "infer", "amx-bf16", NULL, -1) &&
        !kernel_point(set, "infer", "amx-int8", NULL, -1))
        return;
    char title[200];
    snprintf(title, sizeof title, "What AMX gives on %s", name);
    s->heading(s->ctx, 3, title);
    sb_rp_sink_para(
        s,
        "One machine's instruction generations against each other, on the same shapes and"
        " threads: AVX-512 f32, AVX512-BF16 and AMX bf16 (AMX bf16 against AVX-512 f32"
        " in the last column but one), AVX-512 VNNI and AMX int8 (the last column). Rates"
        " are medians (GFLOP/s, GOP/s for int8); this is the study's 8x taken apart.");
    const char *hdr[NGEN + 5] = {"workload", "shape", "threads"};
    for (size_t g = 0; g < NGEN; g++) hdr[3 + g] = g_gens[g].what;
    hdr[3 + NGEN] = "AMX bf16 vs AVX-512 f32";
    hdr[4 + NGEN] = "AMX int8 vs VNNI int8";
    int ncols = (int)NGEN + 5, rows = 0, cap = 16;
    char(*buf)[160] = calloc((size_t)ncols * (size_t)cap, sizeof *buf);
    for (int i = 0; buf && i < set->n; i++) {
        const sb_pt *p = &set->p[i];
        if (!sb_rp_is_gemm(p) || !sb_rp_is_ok(p) || strcmp(p->kernel, "amx-bf16")) continue;
        if (rows + 2 > cap) {
            cap *= 2;
            char(*nb)[160] = realloc(buf, sizeof *buf * (size_t)ncols * (size_t)cap);
            if (!nb) break;
            buf = nb;
        }
        rows++;
        char(*r)[160] = &buf[rows * ncols];
        snprintf(r[0], 160, "gemm");
        snprintf(r[1], 160, "%s", p->shape);
        snprintf(r[2], 160, "%d", p->threads);
        double v[NGEN] = {0};
        for (size_t g = 0; g < NGEN; g++) {
            const sb_pt *q = kernel_point(set, "gemm", g_gens[g].kernel, p->shape, p->threads);
            v[g] = q && sb_rp_gemm_rate(q) ? sb_rp_gemm_rate(q)->value : 0;
            if (v[g] > 0)
                snprintf(r[3 + g], 160, "%.4g", v[g]);
            else
                snprintf(r[3 + g], 160, "not available");
        }
        if (v[0] > 0 && v[2] > 0)
            snprintf(r[3 + NGEN], 160, "%.2fx", v[2] / v[0]);
        else
            snprintf(r[3 + NGEN], 160, "-");
        if (v[3] > 0 && v[4] > 0)
            snprintf(r[4 + NGEN], 160, "%.2fx", v[4] / v[3]);
        else
            snprintf(r[4 + NGEN], 160, "-");
    }
    if (rows) {
        const char **cells = calloc((size_t)ncols * (rows + 1), sizeof *cells);
        for (int j = 0; cells && j < ncols; j++) cells[j] = hdr[j];
        for (int i = ncols; cells && i < ncols * (rows + 1); i++) cells[i] = buf[i];
        if (cells) s->table(s->ctx, ncols, rows, cells);
        free(cells);
    }
    free(buf);
    /* training: each kernel's SQuAD epoch against the machine's best f32 */
    sb_rp_tside t;
    sb_rp_tside_load(in, set, &t);
    if (t.n) {
        const sb_rp_trun *f = t.best[0] >= 0 ? &t.r[t.best[0]] : NULL;
        char line[1500] = "", d[32];
        for (int i = 0; i < t.n; i++) {
            char rel[64] = "";
            if (f) snprintf(rel, sizeof rel, ", %.2fx the best f32", f->epoch / t.r[i].epoch);
            sb_rp_addf(line, sizeof line, "%s (%s, batch %d, %d threads) %s%s", t.r[i].p->kernel,
                       t.r[i].p->dtype, t.r[i].batch, t.r[i].threads,
                       sb_rp_dur(t.r[i].epoch, d, sizeof d), rel);
        }
        sb_rp_sink_para(s, "Training on %s, SQuAD v1.1 epoch (projected) per kernel: %s.", name,
                        line);
    }
    sb_rp_tside_free(&t);
    /* inference: each generation's fastest point, against AVX-512 f32's */
    char inf[1500] = "";
    const sb_pt *f32 = NULL;
    for (int i = 0; i < set->n; i++) {
        const sb_pt *p = &set->p[i];
        const sb_metric_val *m = sb_pt_metric(p, "sequences_per_s");
        if (sb_rp_is_infer(p) && sb_rp_is_ok(p) && m && !strcmp(p->kernel, "avx512-f32") &&
            (!f32 || m->value > sb_pt_metric(f32, "sequences_per_s")->value))
            f32 = p;
    }
    for (size_t g = 0; g < NGEN; g++) {
        const sb_pt *best = NULL;
        for (int i = 0; i < set->n; i++) {
            const sb_pt *p = &set->p[i];
            const sb_metric_val *m = sb_pt_metric(p, "sequences_per_s");
            if (sb_rp_is_infer(p) && sb_rp_is_ok(p) && m && !strcmp(p->kernel, g_gens[g].kernel) &&
                (!best || m->value > sb_pt_metric(best, "sequences_per_s")->value))
                best = p;
        }
        if (!best) continue;
        double v = sb_pt_metric(best, "sequences_per_s")->value;
        char rel[64] = "";
        if (f32)
            snprintf(rel, sizeof rel, ", %.2fx AVX-512 f32",
                     v / sb_pt_metric(f32, "sequences_per_s")->value);
        sb_rp_addf(inf, sizeof inf, "%s %.*f sequences/s (%s, t%d)%s", g_gens[g].what,
                   v >= 100 ? 0 : 2, v, best->shape, best->threads, rel);
    }
    if (inf[0]) sb_rp_sink_para(s, "Inference on %s, fastest point per generation: %s.", name, inf);
}

void sb_report_generations(const sb_headline_in *in, const sb_rsink *s)
{
    generations_side(in, s, in->bs, in->bname);
    /* one machine on both sides: said once */
    int64_t bm = in->bs->n ? in->bs->p[0].machine_id : 0,
            cm = in->cs->n ? in->cs->p[0].machine_id : 0;
    if (in->cs != in->bs && !(bm && bm == cm)) generations_side(in, s, in->cs, in->cname);
}
