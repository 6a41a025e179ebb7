#include "sb_report.h"
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "sb_gate.h"
#include "sb_gnuplot.h"
#include "sb_io.h"
#include "sb_query.h"
#include "sb_report_amx.h"
#include "sb_report_best.h"
#include "sb_report_gemm.h"
#include "sb_report_headline.h"
#include "sb_report_infer.h"
#include "sb_report_machines.h"
#include "sb_report_model.h"
#include "sb_report_other.h"
#include "sb_report_out.h"
#include "sb_report_peaks.h"
#include "sb_report_points.h"
#include "sb_report_profile.h"
#include "sb_report_scaling.h"
#include "sb_report_sweeps.h"
#include "sb_report_train.h"
#include "sb_report_words.h"
#include "sb_text.h"

static int machine_of(const sb_selection *sel, const sb_ptset *set)
{
    if (sel->machine_id) return (int)sel->machine_id;
    return set->n ? (int)set->p[0].machine_id : 0;
}

/* A comparison section as one row: its heading, the points it compares
 * (paired across the sides by configuration), what it says when neither
 * side has any, and how it shows the pairs. A section that reads the sets
 * another way (the newest peak of a side, every projected figure) still
 * gets its heading and its empty case from the row. */
typedef struct sb_rp_section {
    /* the capability (SB_WL_*) of the workload rows it is the section of (0:
     * of none): a row that declares it is not among "Other workloads" */
    unsigned cap;
    const char *title;
    int (*want)(const sb_pt *p);
    int models; /* the scaling model's points count too (they ran nothing) */
    /* said under the heading when no point is wanted; NULL: the section,
     * heading and all, is left out then */
    const char *none;
    void (*render)(sb_rp_ctx *ctx, const sb_rp_pair *pv, int n); /* called with n > 0 */
} sb_rp_section;

/* A row's heading and its points paired across the sides; none: the row
 * says so (or nothing at all, see sb_rp_section.none), *pv is NULL and 0
 * is returned. The caller frees *pv. */
static int section_pairs(sb_rp_out *o, const sb_rp_section *s, const sb_ptset *bs,
                         const sb_ptset *cs, sb_rp_pair **pv)
{
    int n = sb_rp_pairs_of(bs, cs, s->want, s->models, pv);
    if (n == 0) {
        free(*pv);
        *pv = NULL;
    }
    if (n || s->none) sb_rp_heading(o, 2, s->title);
    if (n == 0 && s->none) sb_rp_para(o, "%s", s->none);
    return n;
}

/* The comparison sections in the report's order. Projected figures comes
 * last: it lists the provenance notes the tables above it numbered. */
/* defined below, where it reads this table */
static int is_other1(const sb_pt *p);

static const sb_rp_section g_sections[] = {
    {.cap = SB_WL_PROJECT,
     .title = "Training (DistilBERT SQuAD fine-tuning)",
     .want = sb_rp_is_train1,
     .none = "No single-process training points on either side.",
     .render = sb_rp_render_train},
    {.cap = SB_WL_LATENCY,
     .title = "Inference (DistilBERT SQuAD question answering)",
     .want = sb_rp_is_infer1,
     .none = "No single-process inference points on either side.",
     .render = sb_rp_render_infer},
    {.cap = SB_WL_PROBE,
     .title = "Peaks per instruction set",
     .want = sb_rp_is_peak,
     .none = "No peak measurements (sprbench peak) on either side.",
     .render = sb_rp_render_peaks},
    {.cap = SB_WL_SHAPES,
     .title = "GEMM throughput per kernel and shape",
     .want = sb_rp_is_gemm1,
     .none = "No single-process GEMM points on either side.",
     .render = sb_rp_render_gemm},
    {.title = "Scaling (ranks = nodes x processes per node)",
     .want = sb_rp_is_scaling,
     .none = "No multi-rank points on either side.",
     .render = sb_rp_render_scaling},
    /* every workload without a section of its own, by its headline metric;
     * silent when there are none */
    {.title = "Other workloads, by their headline metric",
     .want = is_other1,
     .render = sb_rp_render_other},
    /* silent when there are none: a report of measurements only has no such heading */
    {.title = "Projected figures",
     .want = sb_rp_has_projected,
     .models = 1,
     .render = sb_rp_render_projected},
};

/* --only-changed: a pair run by both sides whose difference is significant
 * by the gate's test (either way) or whose ratio is beyond its tolerance
 * (the gate's ratio of seconds, else the headline metric's). */
static int pair_changed(const sb_rp_out *o, const sb_rp_pair *pr)
{
    const sb_pt *b = pr->b, *c = pr->c;
    if (!b || !c || !sb_rp_ok(b) || !sb_rp_ok(c)) return 0;
    double p, tol = o->go ? o->go->tolerance : 0.05, r = 0;
    int s = o->fwd ? sb_rp_sig_of(o, b, c, &p) : SB_RP_SIG_UNTESTED;
    if (s == SB_RP_SIG_SLOWER || s == SB_RP_SIG_FASTER) return 1;
    for (int i = 0; o->fwd && i < o->fwd->n && !(r > 0); i++)
        if (o->fwd->rows[i].base_id == b->id && o->fwd->rows[i].cand_id == c->id)
            r = o->fwd->rows[i].ratio;
    if (!(r > 0)) {
        const sb_metric_val *mb = sb_rp_rate_metric(b), *mc = sb_rp_rate_metric(c);
        r = mb && mc && mc->value > 0 ? mb->value / mc->value : 0;
    }
    return r > 0 && (r > 1 + tol || r < 1 / (1 + tol));
}

/* the sections --only-changed filters: those with a row per point pair */
static int filtered(const sb_rp_section *s)
{
    return s->render == sb_rp_render_train || s->render == sb_rp_render_infer ||
        s->render == sb_rp_render_gemm || s->render == sb_rp_render_other;
}

/* keeps the changed pairs of pv (in order); returns how many */
static int keep_changed(const sb_rp_out *o, sb_rp_pair *pv, int n)
{
    int k = 0;
    for (int i = 0; i < n; i++)
        if (pair_changed(o, &pv[i])) pv[k++] = pv[i];
    return k;
}

/* a section of its own: the row declares a section's capability */
static int has_section(const sb_workload *w)
{
    for (size_t i = 0; i < sizeof g_sections / sizeof g_sections[0]; i++)
        if (g_sections[i].cap && sb_wl_is(w, g_sections[i].cap)) return 1;
    return 0;
}

/* A workload (bench/sb_workload) with a headline metric and no section of
 * its own: a new workload is in the report from its first point. */
static int is_other1(const sb_pt *p)
{
    const sb_workload *w = p->wl;
    if (!w || !w->metric || p->ppn * p->nodes != 1) return 0;
    return !has_section(w);
}

/* The points the mean leaves out, named by reason: "16 point(s) skipped:
 * CPU has no AMX (...): amx-bf16 (8), amx-int8 (8)", a kernel's label in full
 * where one point of it shares the reason. A default sweep on a CPU without
 * AVX-512 leaves out dozens of points for three reasons: a line per point
 * would bury the summary. Caller frees; NULL when out of memory. */
static char *left_out_text(const sb_gate_result *r)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) return NULL;
    int n = r->n, *done = calloc((size_t)n + 1, sizeof *done), groups = 0;
    const char **why = calloc((size_t)n + 1, sizeof *why);
    for (int i = 0; done && why && i < n; i++) {
        const sb_gate_row *w = &r->rows[i];
        int left = !w->base_id || !w->cand_id || !(w->ratio > 0);
        /* the gate's row of a point missing in the candidate names no point
         * on either side: it is the baseline's */
        int base_only = !w->cand_id && (w->base_id || strstr(w->note, "missing in the candidate"));
        why[i] = !left    ? NULL
            : base_only   ? "baseline only"
            : !w->base_id ? "candidate only"
                          : w->note;
        done[i] = !left;
    }
    for (int i = 0; done && why && i < n; i++) {
        if (done[i]) continue;
        int cnt = 0;
        for (int j = i; j < n; j++) cnt += !done[j] && !strcmp(why[j], why[i]);
        fprintf(f, "%s%d point(s) %s:", groups++ ? "; " : "", cnt, why[i]);
        int kernels = 0;
        for (int j = i; j < n; j++) { /* each kernel of this reason once, with its count */
            if (done[j] || strcmp(why[j], why[i])) continue;
            const char *lj = r->rows[j].label;
            size_t kl = strcspn(lj, " ");
            int nk = 0;
            for (int k = j; k < n; k++)
                if (!done[k] && !strcmp(why[k], why[i]) && !strncmp(r->rows[k].label, lj, kl) &&
                    (r->rows[k].label[kl] == ' ' || !r->rows[k].label[kl])) {
                    nk++;
                    if (k != j) done[k] = 1;
                }
            if (nk == 1)
                fprintf(f, "%s %s", kernels++ ? "," : "", lj);
            else
                fprintf(f, "%s %.*s (%d)", kernels++ ? "," : "", (int)kl, lj, nk);
            done[j] = 1;
        }
    }
    free(done);
    free(why);
    fclose(f);
    return text;
}

/* The opening: which side is faster, by how much, over which points, and
 * what the gate's test says of it; and a warning when the comparison
 * cannot say anything about machines. */
static void section_summary(sb_rp_out *o, const sb_rp_model *m, const sb_selection *bsel,
                            const sb_selection *csel, const sb_ptset *bs, const sb_ptset *cs,
                            const sb_gate_opts *go, int gate, const sb_headline_out *hl)
{
    sb_rp_heading(o, 2, "Summary");
    int64_t bm = machine_of(bsel, bs), cm = machine_of(csel, cs);
    if (bsel->sweep_id && bsel->sweep_id == csel->sweep_id)
        sb_rp_para(o,
                   "Warning: both sides are the same sweep (%s): every point is compared with"
                   " itself, so every ratio is 1 and nothing here is a finding.",
                   bsel->label);
    else if (!bsel->sweep_id && !csel->sweep_id && !bsel->npinned && !csel->npinned && bm == cm)
        sb_rp_para(o,
                   "Warning: both sides are the same machine (%s): every point is compared with"
                   " itself, so every ratio is 1 and nothing here is a finding.",
                   bsel->label);
    else if (bm && bm == cm)
        sb_rp_para(o,
                   "Warning: both sides ran on the same machine: the differences below are between"
                   " runs (software, settings, noise), not between machines.");
    if (hl->best_n) {
        char words[64];
        sb_rp_speed_words(hl->best_gmean, words, sizeof words);
        char bn[1200], cn[1200];
        sb_rp_sweep_choice(m, bs, sb_rp_gemm_ok, "baseline", "GEMM points", bn, sizeof bn);
        sb_rp_sweep_choice(m, cs, sb_rp_gemm_ok, "candidate", "GEMM points", cn, sizeof cn);
        sb_rp_para(o,
                   "At each machine's best kernel per precision (its own or a vendor's, over the %d"
                   " GEMM precision, shape and thread rows both sides ran: see Best kernel per"
                   " precision), the candidate is %s (geometric mean of the speed ratios)%s%s%s%s.",
                   hl->best_n, words, bn[0] ? "; " : "", bn, cn[0] ? "; " : "", cn);
    }
    if (!o->fwd || !o->rev) return;
    /* The mean is over every pair both sides ran (a ratio of medians);
     * significance needs enough samples. Every point left out of either is
     * counted and named. */
    int ran = 0, tested = 0, faster = 0, slower = 0, nwl = 0;
    double logsum = 0, lo = 0, hi = 0;
    char wl[8][64];
    int wln[8] = {0};
    char *few = NULL, *out_mean = left_out_text(o->fwd); /* names, "; "-separated */
    size_t fewlen = 0;
    FILE *ff = open_memstream(&few, &fewlen);
    int nfew = 0, nout = 0;
    for (int i = 0; i < o->fwd->n; i++) {
        const sb_gate_row *w = &o->fwd->rows[i];
        if (!w->base_id || !w->cand_id || !(w->ratio > 0)) {
            nout++;
            continue;
        }
        double speed = 1 / w->ratio;
        if (!ran || speed < lo) lo = speed;
        if (!ran || speed > hi) hi = speed;
        ran++;
        logsum += log(speed);
        int k = 0;
        while (k < nwl && strcmp(wl[k], w->workload)) k++;
        if (k == nwl && nwl < 8) snprintf(wl[nwl++], sizeof wl[0], "%s", w->workload);
        if (k < 8) wln[k]++;
        if (w->p < 0) {
            if (ff) fprintf(ff, "%s%s (%d/%d samples)", nfew ? "; " : "", w->label, w->nb, w->nc);
            nfew++;
            continue;
        }
        /* the gate's "noisy" is flagged, not judged: counted apart below */
        if (!strncmp(w->note, "noisy", 5)) continue;
        tested++;
        if (w->verdict == SB_FAIL) slower++;
        for (int j = 0; j < o->rev->n; j++) {
            const sb_gate_row *v = &o->rev->rows[j];
            if (v->base_id == w->cand_id && v->cand_id == w->base_id && v->p >= 0 &&
                v->verdict == SB_FAIL)
                faster++;
        }
    }
    if (ff) fclose(ff);
    if (!ran) {
        sb_rp_para(o,
                   "No point was run by both sides: nothing to compare (%d point(s) left out: %s).",
                   nout, out_mean ? out_mean : "?");
    } else {
        double gm = exp(logsum / ran);
        char words[64], wlist[600] = "", los[64], his[64];
        sb_rp_speed_words(gm, words, sizeof words);
        sb_rp_speed_words(lo, los, sizeof los);
        sb_rp_speed_words(hi, his, sizeof his);
        for (int k = 0; k < nwl; k++) {
            size_t l = strlen(wlist);
            snprintf(wlist + l, sizeof wlist - l, "%s%d %s", k ? ", " : "", wln[k], wl[k]);
        }
        sb_rp_para(o,
                   "Same-name view: over the %d point(s) both sides ran with the same kernel (%s),"
                   " the candidate is %s (geometric mean of the per-point speed ratios; the points"
                   " range from %s to %s).",
                   ran, wlist, words, los, his);
        sb_rp_para(
            o,
            "Significant by the gate's test (one-sided Mann-Whitney U on the raw samples,"
            " p < %g, and beyond the %.0f%% tolerance), over the %d point(s) with at least %d"
            " samples a side and not noisy: %d faster on the candidate, %d slower, %d not"
            " significant.",
            go->alpha, go->tolerance * 100, tested, go->min_samples, faster, slower,
            tested - faster - slower);
        /* the gate's own tag: two regimes on a side, flagged, not judged */
        int noisy = 0;
        for (int i = 0; i < o->fwd->n; i++) noisy += !strncmp(o->fwd->rows[i].note, "noisy", 5);
        if (noisy)
            sb_rp_para(
                o,
                "Noisy (the gate's tag): %d point(s) whose samples form two groups on a side,"
                " flagged and not judged; their ratios say \"noisy\" in the tables.",
                noisy);
        if (gate)
            sb_rp_para(o,
                       "Gate verdict (as sprbench gate --baseline B --candidate C --cross-machine):"
                       " %s (%d PASS, %d WARN, %d FAIL, %d SKIP).",
                       sb_verdict_name(sb_gate_overall(o->fwd)), o->fwd->count[SB_PASS],
                       o->fwd->count[SB_WARN], o->fwd->count[SB_FAIL], o->fwd->count[SB_SKIP]);
        else if (bm != cm)
            sb_rp_para(o,
                       "Two machines compared: differences and their significance, not a regression"
                       " gate's PASS/FAIL (`report --gate` adds the verdict `sprbench gate"
                       " --cross-machine` gives).");
        else
            sb_rp_para(o, "No gate verdict (`report --gate` adds it).");
        if (nfew)
            sb_rp_para(
                o, "In the mean but not tested (fewer than %d samples on a side): %d point(s): %s.",
                go->min_samples, nfew, few ? few : "?");
        if (nout)
            sb_rp_para(o,
                       "Left out of the same-name mean (not run ok by both sides; a kernel one side"
                       " lacks still counts in the best-kernel comparison): %d point(s): %s.",
                       nout, out_mean ? out_mean : "?");
    }
    free(few);
    free(out_mean);
}

static void side_name(sb_rp_out *o, const sb_rp_model *mo, const char *side, int64_t machine,
                      char *buf, size_t cap)
{
    json_t *m = sb_rp_machine_info(o, mo, machine);
    const char *ua = json_string_value(json_object_get(m, "microarch"));
    const char *host = json_string_value(json_object_get(m, "hostname"));
    if (m && ua && host)
        snprintf(buf, cap, "%s: %.80s (%.80s)", side, ua, host);
    else
        snprintf(buf, cap, "%s", side);
    json_decref(m);
}

/* What a reader calls a side: its machine's microarchitecture ("Zen 4"),
 * else the selection's label. */
static void short_name(sb_rp_out *o, const sb_rp_model *mo, int64_t machine,
                       const sb_selection *sel, char *buf, size_t cap)
{
    json_t *m = machine ? sb_rp_machine_info(o, mo, machine) : NULL;
    const char *ua = json_string_value(json_object_get(m, "microarch"));
    const char *n = ua && *ua && strcmp(ua, "unknown") ? ua : sel->label;
    snprintf(buf, cap, "%.*s", sb_text_prefix(n, 100), n);
    json_decref(m);
}

/* The library creates the whole path it is given; `sprbench report --out`
 * refuses missing parents before it calls here (sb_cli_check_out_dir). */
static int mkdir_p(const char *dir, sb_err *e)
{
    char buf[4096];
    if (snprintf(buf, sizeof buf, "%s", dir) >= (int)sizeof buf)
        return sb_errf(e, SB_EUSAGE, "%s: path too long", dir);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST)
            return sb_errf(e, SB_EUSAGE, "%s: cannot create: %s", buf, strerror(errno));
        *p = '/';
    }
    if (mkdir(buf, 0777) != 0 && errno != EEXIST)
        return sb_errf(e, SB_EUSAGE, "%s: cannot create: %s", buf, strerror(errno));
    struct stat st;
    if (stat(buf, &st) != 0 || !S_ISDIR(st.st_mode))
        return sb_errf(e, SB_EUSAGE, "%s: is not a directory", buf);
    return SB_OK;
}

static const char *g_css =
    "body{font-family:system-ui,sans-serif;margin:2em;max-width:1200px;color:#222}"
    "table{border-collapse:collapse;margin:1em 0;font-size:0.9em}"
    "td,th{border:1px solid #ccc;padding:0.3em 0.6em;text-align:right}"
    "td:first-child,th:first-child{text-align:left}th{background:#f0f0f0}"
    "td.na{color:#777}td.proj{font-style:italic;background:#fff8e0}"
    "tr.fail td{background:#fdd;color:#900;font-weight:bold}tr.slower td{background:#fee}"
    "tr.faster td{background:#efe}"
    "figure{margin:1em 0}img{max-width:100%}";

/* The page's head and opening: the title (given, else the sides' machines,
 * else their labels), the sides, the database and the tool, and the sweeps
 * each side's points come from; bshort and cshort (cap bytes) receive what
 * a reader calls each side. */
static void page_opening(sb_rp_out *o, const sb_rp_model *m, const sb_selection *bsel,
                         const sb_selection *csel, const sb_ptset *bs, const sb_ptset *cs,
                         const sb_report_opts *ro, const int64_t *ball, int nball,
                         const int64_t *call, int ncall, char *bshort, char *cshort, size_t cap)
{
    char title[800];
    short_name(o, m, machine_of(bsel, bs), bsel, bshort, cap);
    short_name(o, m, machine_of(csel, cs), csel, cshort, cap);
    if (ro->title) /* cut between characters (the CLI checked it is UTF-8) */
        snprintf(title, sizeof title, "%.*s", sb_text_prefix(ro->title, 700), ro->title);
    else if (strcmp(bshort, cshort))
        snprintf(title, sizeof title, "sprbench report: %s (candidate) vs %s (baseline)", cshort,
                 bshort);
    else
        snprintf(title, sizeof title, "sprbench report: %.300s vs %.300s", csel->label,
                 bsel->label);
    fputs("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>", o->html);
    sb_text_html(o->html, title);
    fprintf(o->html, "</title><style>%s</style></head><body>\n", g_css);
    sb_rp_heading(o, 1, title);
    sb_rp_para(o,
               "Baseline: %s (%d points). Candidate: %s (%d points). Database %s, generated %s by"
               " sprbench %s.",
               bsel->label, bs->n, csel->label, cs->n, ro->db_path ? ro->db_path : "?", m->now,
               ro->tool_version ? ro->tool_version : "unknown");
    char bsw[2000], csw[2000];
    sb_rp_sweeps_used(o, m, ball, nball, bs, bsw, sizeof bsw);
    sb_rp_sweeps_used(o, m, call, ncall, cs, csw, sizeof csw);
    sb_rp_para(o,
               "Sweeps used (where several sweeps of a side ran one configuration, the one"
               " started last): baseline %s; candidate %s.",
               bsw[0] ? bsw : "none", csw[0] ? csw : "none");
    sb_rp_para(o,
               "Every figure is a median with the p10-p90 range of its raw samples in brackets;"
               " computed (not measured) figures say \"projected\".");
}

/* The headline, then the summary, then the best kernel per precision, what
 * AMX gives and where the time goes: the summary opens with the best-kernel
 * figures, so those are computed first into a buffer of their own and
 * written after it. Leaves the headline's ratio and line in sum. */
static void headline_and_summary(sb_rp_out *o, sb_rp_plots *pl, const sb_headline_in *hin,
                                 const sb_selection *bsel, const sb_selection *csel,
                                 const char *bname, const char *cname, int gate,
                                 sb_report_summary *sum)
{
    sb_rp_sinkctx sctx = {o, pl, bname, cname};
    sb_rsink sink = sb_rp_sink(&sctx);
    sb_headline_out hl;
    memset(&hl, 0, sizeof hl);
    sb_report_amx_lead(hin, &sink);
    sb_report_headline(hin, &sink, &hl);
    /* the best-kernel figures go into the summary: computed first, drawn
     * after it into a buffer of their own */
    char *bkbuf = NULL, *bkhbuf = NULL;
    size_t bklen = 0, bkhlen = 0;
    sb_rp_out bko = *o;
    bko.md = open_memstream(&bkbuf, &bklen);
    bko.html = open_memstream(&bkhbuf, &bkhlen);
    bko.rows = 0;
    sb_rp_sinkctx bkctx = {&bko, pl, bname, cname};
    sb_rsink bksink = sb_rp_sink(&bkctx);
    if (bko.md && bko.html) {
        sb_report_best_kernels(hin, &bksink, &hl);
        sb_report_vendors(hin, &bksink);
        sb_report_generations(hin, &bksink, &hl);
        sb_report_profiles(hin, &bksink);
    }
    if (bko.md) fclose(bko.md);
    if (bko.html) fclose(bko.html);
    o->rows += bko.rows;
    sum->headline_ratio = hl.ratio;
    snprintf(sum->headline, sizeof sum->headline, "%s", hl.line);
    section_summary(o, hin->m, bsel, csel, hin->bs, hin->cs, hin->go, gate, &hl);
    if (bkbuf) fwrite(bkbuf, 1, bklen, o->md);
    if (bkhbuf) fwrite(bkhbuf, 1, bkhlen, o->html);
    free(bkbuf);
    free(bkhbuf);
}

/* --only-changed, said at the top: what the tables below leave out */
static void only_changed_note(sb_rp_out *o, const sb_ptset *bs, const sb_ptset *cs)
{
    int all = 0, kept = 0;
    for (size_t i = 0; i < sizeof g_sections / sizeof g_sections[0]; i++) {
        if (!filtered(&g_sections[i])) continue;
        sb_rp_pair *pv = NULL;
        int n = sb_rp_pairs_of(bs, cs, g_sections[i].want, g_sections[i].models, &pv);
        all += n;
        kept += n ? keep_changed(o, pv, n) : 0;
        free(pv);
    }
    sb_rp_para(o,
               "Only what changed (--only-changed): the per-point tables (training, inference,"
               " GEMM, other workloads) show %d of their %d row(s), those whose difference is"
               " significant by the gate's test (p < %g) or beyond its %.0f %% tolerance; rows"
               " run by one side only, or not ok on a side, are left out. The headline, the"
               " summary and the sections before the machines still read every point.",
               kept, all, o->go ? o->go->alpha : 0.01,
               (o->go ? o->go->tolerance : 0.05) * 100);
}

int sb_report_write(sb_db *db, const sb_selection *bsel, const sb_selection *csel,
                    const sb_report_opts *ro, sb_report_summary *sum, sb_err *e)
{
    memset(sum, 0, sizeof *sum);
    int rc = mkdir_p(ro->out_dir, e);
    if (rc) return rc;
    sb_ptset bs = {0}, cs = {0};
    if ((rc = sb_ptset_load_sel(db, bsel, &bs, e)) || (rc = sb_ptset_load_sel(db, csel, &cs, e))) {
        sb_ptset_free(&bs);
        return rc;
    }
    int nball, ncall; /* every sweep of each side, before the newest of each configuration */
    int64_t *ball = sb_rp_sweeps_of(&bs, &nball), *call = sb_rp_sweeps_of(&cs, &ncall);
    sb_ptset_latest(&bs);
    sb_ptset_latest(&cs);
    /* the report computed, then drawn: what the sections read of the
     * store, loaded before the first line */
    sb_rp_model model;
    int64_t sides[2] = {machine_of(bsel, &bs), machine_of(csel, &cs)};
    const int64_t *sweeps[2] = {ball, call};
    int nsweeps[2] = {nball, ncall};
    if ((rc = sb_rp_model_load(db, &bs, &cs, sides, 2, sweeps, nsweeps, &model, e))) {
        free(ball);
        free(call);
        sb_ptset_free(&bs);
        sb_ptset_free(&cs);
        return rc;
    }
    char *mdbuf = NULL, *htbuf = NULL;
    size_t mdlen = 0, htlen = 0;
    sb_rp_out o = {.md = open_memstream(&mdbuf, &mdlen), .html = open_memstream(&htbuf, &htlen)};
    if (!o.md || !o.html) {
        if (o.md) fclose(o.md);
        if (o.html) fclose(o.html);
        free(mdbuf);
        free(htbuf);
        sb_rp_model_free(&model);
        sb_ptset_free(&bs);
        sb_ptset_free(&cs);
        return sb_errf(e, SB_EFAIL, "out of memory");
    }
    sb_rp_plots pl = {ro->plots && sb_gnuplot_available(), 0, ro->out_dir, ro->templates, ""};
    if (ro->plots && !pl.enabled)
        snprintf(pl.skipped_why, sizeof pl.skipped_why, "gnuplot not found");
    char bshort[128], cshort[128];
    page_opening(&o, &model, bsel, csel, &bs, &cs, ro, ball, nball, call, ncall, bshort, cshort,
                 sizeof bshort);
    free(ball);
    free(call);
    /* tables say baseline/candidate; plot legends also name the machines */
    char bname[200], cname[200];
    side_name(&o, &model, "baseline", machine_of(bsel, &bs), bname, sizeof bname);
    side_name(&o, &model, "candidate", machine_of(csel, &cs), cname, sizeof cname);
    /* the gate's own test, both ways, across machines: the summary counts
     * its verdicts and every ratio in the tables carries its word */
    sb_gate_opts go = SB_GATE_OPTS_INIT;
    go.cross_machine = 1;
    sb_gate_result fwd = {0}, rev = {0};
    sb_err ge = {0};
    if (sb_gate_compare(&bs, &cs, &go, &fwd, &ge) || sb_gate_compare(&cs, &bs, &go, &rev, &ge)) {
        sb_rp_para(&o, "The significance test could not run: %s.", ge.msg);
    } else {
        o.fwd = &fwd;
        o.rev = &rev;
    }
    o.go = &go;
    if (ro->only_changed) only_changed_note(&o, &bs, &cs);
    sb_headline_in hin = {&model, &bs, &cs, bshort, cshort, &go, ro->study_csv};
    headline_and_summary(&o, &pl, &hin, bsel, csel, bname, cname, ro->gate, sum);
    sb_rp_section_machines(&o, &model, machine_of(bsel, &bs), machine_of(csel, &cs), "baseline",
                           "candidate");
    sb_rp_pair *every = NULL;
    int nevery = sb_rp_pairs_of(&bs, &cs, sb_rp_any_point, 0, &every);
    sb_rp_section_env(&o, &model, every, nevery);
    free(every);
    /* The opening above stays three calls: the summary reads the gate's
     * result, the machines the selections, and the environment says its own
     * empty case (no pair that ran ok on both sides) after reading the store;
     * none is a heading over paired points. */
    sb_rp_ctx sc = {&o, &pl, &model, &bs, &cs, bname, cname, sum};
    for (size_t i = 0; i < sizeof g_sections / sizeof g_sections[0]; i++) {
        const sb_rp_section *s = &g_sections[i];
        sb_rp_pair *pv;
        int n = section_pairs(&o, s, &bs, &cs, &pv);
        if (n && ro->only_changed && filtered(s) && !(n = keep_changed(&o, pv, n)))
            sb_rp_para(&o, "Nothing here changed significantly or beyond the tolerance"
                           " (--only-changed).");
        if (n) s->render(&sc, pv, n);
        free(pv);
    }
    if (ro->plots && pl.skipped_why[0])
        sb_rp_para(&o, "Some plots were not drawn: %s.", pl.skipped_why);
    fputs("</body></html>\n", o.html);
    fclose(o.md);
    fclose(o.html);
    sb_gate_result_free(&fwd);
    sb_gate_result_free(&rev);
    for (int i = 0; i < o.nsrc; i++) free(o.srcs[i]);
    free(o.srcs);
    if (o.rc) {
        free(mdbuf);
        free(htbuf);
        sb_rp_model_free(&model);
        sb_ptset_free(&bs);
        sb_ptset_free(&cs);
        return sb_errf(e, o.rc, "%s", o.err.msg);
    }
    sum->rows = o.rows;
    sum->plots_drawn = pl.drawn;
    snprintf(sum->md_path, sizeof sum->md_path, "%s/report.md", ro->out_dir);
    snprintf(sum->html_path, sizeof sum->html_path, "%s/report.html", ro->out_dir);
    /* the HTML with its table of contents (the headings are known now) */
    char *tocbuf = NULL;
    size_t toclen = 0;
    FILE *tf = open_memstream(&tocbuf, &toclen);
    if (tf) {
        sb_rp_html_toc(tf, htbuf, htlen);
        fclose(tf);
    }
    rc = sb_write_file_atomic(sum->md_path, mdbuf, mdlen, e);
    if (!rc && !tf) rc = sb_errf(e, SB_EFAIL, "out of memory");
    if (!rc) rc = sb_write_file_atomic(sum->html_path, tocbuf, toclen, e);
    free(tocbuf);
    free(mdbuf);
    free(htbuf);
    sb_rp_model_free(&model);
    sb_ptset_free(&bs);
    sb_ptset_free(&cs);
    return rc;
}
