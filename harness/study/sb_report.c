#include "sb_result.h"
#include "sb_report.h"
#include "sb_report_headline.h"
#include "sb_report_out.h"
#include "sb_report_points.h"
#include "sb_report_words.h"
#include "sb_text.h"
#include "sb_workload.h"
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "sb_envdiff.h"
#include "sb_gate.h"
#include "sb_gnuplot.h"
#include "sb_plot.h"
#include "sb_io.h"
#include "sb_ptset.h"
#include "sb_query.h"
#include "sb_stats.h"

static size_t cnt(int n) { return n > 0 ? (size_t)n : 1; }

/* ---- machines ---- */

static int machine_of(const sb_selection *sel, const sb_ptset *set)
{
    if (sel->machine_id) return (int)sel->machine_id;
    return set->n ? (int)set->p[0].machine_id : 0;
}

/* A machine's stored description, with its ISA flags and CPU frequency
 * governor taken out of their JSON texts; NULL when not recorded. */
static json_t *machine_info(sb_rp_out *o, sb_db *db, int64_t id)
{
    json_t *info;
    sb_err e = {0};
    int rc = sb_db_machine_info(db, id, &info, &e);
    if (rc) {
        sb_rp_read_failed(o, rc, &e);
        return NULL;
    }
    if (info) {
        /* the ISA flags and the governor live in JSON texts */
        const char *isa = json_string_value(json_object_get(info, "isa"));
        json_t *isa_j = isa ? json_loads(isa, 0, NULL) : NULL;
        json_object_set_new(info, "isa_flags", isa_j ? isa_j : json_object());
        const char *all = json_string_value(json_object_get(info, "info_json"));
        json_t *all_j = all ? json_loads(all, 0, NULL) : NULL;
        json_t *gov = json_object_get(all_j, "governor");
        json_object_set_new(info, "governor",
                            json_string(json_is_string(gov) ? json_string_value(gov) : ""));
        json_decref(all_j);
    }
    return info;
}

static void mval(json_t *m, const char *key, char *buf, size_t cap)
{
    json_t *v = json_object_get(m, key);
    if (json_is_string(v))
        snprintf(buf, cap, "%s", json_string_value(v)[0] ? json_string_value(v) : "-");
    else if (json_is_integer(v))
        snprintf(buf, cap, "%lld", (long long)json_integer_value(v));
    else
        snprintf(buf, cap, "unknown");
}

static void bytes_str(json_t *m, const char *key, char *buf, size_t cap)
{
    json_t *v = json_object_get(m, key);
    double b = json_is_integer(v) ? (double)json_integer_value(v) : 0;
    if (b <= 0)
        snprintf(buf, cap, "unknown");
    else if (b >= 1 << 30)
        snprintf(buf, cap, "%.1f GiB", b / (1 << 30));
    else if (b >= 1 << 20)
        snprintf(buf, cap, "%.1f MiB", b / (1 << 20));
    else
        snprintf(buf, cap, "%.0f KiB", b / 1024);
}

static const char *flag(json_t *m, const char *key)
{
    json_t *v = json_object_get(json_object_get(m, "isa_flags"), key);
    return json_is_true(v) ? "yes" : json_is_false(v) ? "no" : "unknown";
}

static void section_machines(sb_rp_out *o, sb_db *db, int64_t bid, int64_t cid, const char *bname,
                             const char *cname)
{
    sb_rp_heading(o, 2, "Machines");
    json_t *m[2] = {machine_info(o, db, bid), machine_info(o, db, cid)};
    const char *hdr[] = {"", bname, cname};
    sb_rp_table t;
    sb_rp_t_init(&t, 3, hdr);
    static const struct {
        const char *label, *key;
        int kind;
    } rows[] = {
        {"CPU", "cpu_model", 0},
        {"vendor", "vendor", 0},
        {"microarchitecture", "microarch", 0},
        {"family / model / stepping", NULL, 3},
        {"sockets", "packages", 0},
        {"cores", "cores", 0},
        {"hardware threads", "pus", 0},
        {"NUMA nodes", "numa_nodes", 0},
        {"L2 per core", "l2_bytes", 1},
        {"L3 per instance", "l3_bytes", 1},
        {"memory", "mem_bytes", 1},
        {"AVX-512F", "avx512f", 2},
        {"AVX512_VNNI", "avx512_vnni", 2},
        {"AVX512_BF16", "avx512_bf16", 2},
        {"AMX tiles (CPU)", "amx_tile", 2},
        {"AMX-BF16 / AMX-INT8", NULL, 4},
        {"AMX granted by the OS", NULL, 5},
        {"OS kernel", "kernel", 0},
        {"CPU frequency governor", "governor", 0},
        {"hostname", "hostname", 0},
        {"fingerprint", "fingerprint", 0},
    };
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        char v[2][512];
        for (int s = 0; s < 2; s++) {
            if (!m[s]) {
                snprintf(v[s], sizeof v[s], "not available (machine not recorded)");
                continue;
            }
            switch (rows[r].kind) {
            case 0: mval(m[s], rows[r].key, v[s], sizeof v[s]); break;
            case 1: bytes_str(m[s], rows[r].key, v[s], sizeof v[s]); break;
            case 2: snprintf(v[s], sizeof v[s], "%s", flag(m[s], rows[r].key)); break;
            case 3: {
                char a[32], b[32], c[32];
                mval(m[s], "family", a, sizeof a);
                mval(m[s], "model", b, sizeof b);
                mval(m[s], "stepping", c, sizeof c);
                snprintf(v[s], sizeof v[s], "%s / %s / %s", a, b, c);
                break;
            }
            case 4:
                snprintf(v[s], sizeof v[s], "%s / %s", flag(m[s], "amx_bf16"),
                         flag(m[s], "amx_int8"));
                break;
            default: {
                json_t *p = json_object_get(m[s], "amx_os_permitted");
                const char *why = json_string_value(json_object_get(m[s], "amx_reason"));
                int yes = json_is_integer(p) && json_integer_value(p);
                snprintf(v[s], sizeof v[s], "%s%s%.400s%s", yes ? "yes" : "no",
                         !yes && why && *why ? " (" : "", !yes && why ? why : "",
                         !yes && why && *why ? ")" : "");
            }
            }
        }
        const char *cells[] = {rows[r].label, v[0], v[1]};
        sb_rp_t_row(&t, cells);
    }
    sb_rp_t_emit(o, &t);
    json_decref(m[0]);
    json_decref(m[1]);
}

/* Points of one section, matched across the two sides by configuration. */
typedef struct pair {
    const sb_pt *b, *c;
} pair;

/* models: take the scaling model's points too (they ran nothing: only
 * "Projected figures" shows them, every other section leaves them out). */
static int pairs_of(const sb_ptset *bs, const sb_ptset *cs, int (*want)(const sb_pt *), int models,
                    pair **pairs)
{
    int n = 0, cap = bs->n + cs->n + 1;
    pair *v = calloc((size_t)cap, sizeof *v);
    char **keys = calloc((size_t)cap, sizeof *keys);
    if (!v || !keys) {
        free(v);
        free(keys);
        *pairs = NULL;
        return 0;
    }
    for (int side = 0; side < 2; side++) {
        const sb_ptset *s = side ? cs : bs;
        for (int i = 0; i < s->n; i++) {
            const sb_pt *p = &s->p[i];
            if ((!models && sb_rp_is_model_point(p)) || !want(p)) continue;
            char *k = sb_pt_key(p, 0);
            if (!k) continue;
            int j = 0;
            while (j < n && strcmp(keys[j], k)) j++;
            if (j == n) {
                keys[n++] = k;
            } else {
                free(k);
            }
            if (side)
                v[j].c = p;
            else
                v[j].b = p;
        }
    }
    for (int j = 0; j < n; j++) free(keys[j]);
    free(keys);
    *pairs = v;
    return n;
}

/* ---- sections ---- */

/* What every comparison section may read: each takes what it needs, so
 * that all of them share one signature and sb_report_write is one loop. */
typedef struct section_ctx {
    sb_rp_out *o;
    sb_rp_plots *pl;
    sb_db *db; /* for what the point set does not hold (a result's extras) */
    const sb_ptset *bs, *cs;
    const char *bname, *cname; /* plot legends: the side and its machine */
    sb_report_summary *sum;    /* training leaves its headline ratio here */
} section_ctx;

/* A comparison section as one row: its heading, the points it compares
 * (paired across the sides by configuration), what it says when neither
 * side has any, and how it shows the pairs. A section that reads the sets
 * another way (the newest peak of a side, every projected figure) still
 * gets its heading and its empty case from the row. */
typedef struct report_section {
    const char *workload; /* the workload it is the section of (NULL: of none) */
    const char *title;
    int (*want)(const sb_pt *p);
    int models; /* the scaling model's points count too (they ran nothing) */
    /* said under the heading when no point is wanted; NULL: the section,
     * heading and all, is left out then */
    const char *none;
    void (*render)(section_ctx *ctx, const pair *pv, int n); /* called with n > 0 */
} report_section;

/* A row's heading and its points paired across the sides; none: the row
 * says so (or nothing at all, see report_section.none), *pv is NULL and 0
 * is returned. The caller frees *pv. */
static int section_pairs(sb_rp_out *o, const report_section *s, const sb_ptset *bs,
                         const sb_ptset *cs, pair **pv)
{
    int n = pairs_of(bs, cs, s->want, s->models, pv);
    if (n == 0) {
        free(*pv);
        *pv = NULL;
    }
    if (n || s->none) sb_rp_heading(o, 2, s->title);
    if (n == 0 && s->none) sb_rp_para(o, "%s", s->none);
    return n;
}

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
static json_t *peak_skipped(sb_rp_out *o, sb_db *db, const sb_pt *p)
{
    json_t *sk = NULL, *doc = NULL;
    sb_err e = {0};
    int rc = p ? sb_db_point_result(db, p->id, &doc, &e) : SB_OK;
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
static void render_peaks(section_ctx *ctx, const pair *pv, int np)
{
    (void)pv;
    (void)np;
    sb_rp_out *o = ctx->o;
    sb_db *db = ctx->db;
    const sb_pt *b = newest_peak(ctx->bs), *c = newest_peak(ctx->cs);
    sb_rp_para(o,
               "Measured by sprbench peak (all cores, and _1t on one core); a peak is the"
               " rate of one timed run of a register-only loop, so it has no spread.");
    json_t *sk[2] = {peak_skipped(o, db, b), peak_skipped(o, db, c)};
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
static void render_gemm(section_ctx *ctx, const pair *pv, int n)
{
    sb_rp_out *o = ctx->o;
    sb_rp_plots *pl = ctx->pl;
    const char *bname = ctx->bname, *cname = ctx->cname;
    sb_rp_para(o,
               "Median throughput with the p10-p90 range of the repetitions in brackets;"
               " \"candidate vs baseline\" says how much faster or slower the candidate is, and"
               " whether the gate's test finds the difference significant. The charts show every"
               " row, one chart per unit (GFLOP/s; GOP/s for int8), on a log axis with p10-p90"
               " error bars.");
    const char *hdr[] = {"kernel", "dtype",    "shape",     "threads",
                         "unit",   "baseline", "candidate", "candidate vs baseline"};
    sb_rp_table t;
    sb_rp_t_init(&t, 8, hdr);
    /* the charts: every row, one chart per unit (GFLOP/s, GOP/s) */
    sb_rp_bars br[2];
    sb_rp_bars_init(&br[0], n);
    sb_rp_bars_init(&br[1], n);
    for (int i = 0; i < n; i++) {
        const sb_pt *b = pv[i].b, *c = pv[i].c, *any = b ? b : c;
        const sb_metric_val *mb, *mc;
        char vb[700], vc[700], r[96], thr[16];
        sb_rp_rate_cells(o, b, c, &mb, &mc, vb, vc, r);
        const sb_metric_val *um = mb ? mb : mc;
        const char *u = um && um->unit[0] ? um->unit : "-";
        snprintf(thr, sizeof thr, "%d", any->threads);
        const char *cells[] = {any->kernel, any->dtype, any->shape, thr, u, vb, vc, r};
        sb_rp_t_row(&t, cells);
        if (mb || mc) {
            char l[320];
            snprintf(l, sizeof l, "%s %s t%d", any->kernel, any->shape, any->threads);
            sb_rp_bars_add(&br[!strcmp(u, "GOP/s")], l, b, mb, c, mc);
        }
    }
    sb_rp_t_emit(o, &t);
    sb_rp_plot_pairs(o, pl, 1, "gemm", "median GFLOP/s (log scale; p10-p90 bars)",
                     "GEMM throughput, f32 and bf16 kernels", br[0].labels,
                     (const double *const *)br[0].v, br[0].n, bname, cname);
    sb_rp_plot_pairs(o, pl, 1, "gemm-int8", "median GOP/s (log scale; p10-p90 bars)",
                     "GEMM throughput, int8 kernels", br[1].labels, (const double *const *)br[1].v,
                     br[1].n, bname, cname);
    sb_rp_bars_free(&br[0]);
    sb_rp_bars_free(&br[1]);
}

/* Leaves the headline epoch-time ratio in the summary: 0 when a side has no
 * epoch time (and, not rendered at all, when neither side trained). */
static void render_train(section_ctx *ctx, const pair *pv, int n)
{
    sb_rp_out *o = ctx->o;
    sb_rp_plots *pl = ctx->pl;
    const char *bname = ctx->bname, *cname = ctx->cname;
    /* the headline: each machine's best epoch time, whatever kernel gave it */
    const sb_pt *best[2] = {NULL, NULL};
    for (int i = 0; i < n; i++) {
        const sb_pt *sides[2] = {pv[i].b, pv[i].c};
        for (int s = 0; s < 2; s++) {
            const sb_metric_val *m = sb_rp_ok(sides[s]) ? sb_pt_metric(sides[s], "epoch_seconds")
                                                        : NULL;
            if (m && m->value > 0 &&
                (!best[s] || m->value < sb_pt_metric(best[s], "epoch_seconds")->value))
                best[s] = sides[s];
        }
    }
    double headline = 0;
    if (best[0] && best[1]) {
        const sb_metric_val *mb = sb_pt_metric(best[0], "epoch_seconds"),
                            *mc = sb_pt_metric(best[1], "epoch_seconds");
        headline = mb->value / mc->value;
        char words[64], x[32], y[32];
        sb_rp_speed_words(headline, words, sizeof words);
        sb_rp_para(o,
                   "Same-name view, each run's own data set (not SQuAD: the headline above projects"
                   " that): best epoch time %s s on the baseline (%s) against %s s on the candidate"
                   " (%s): the candidate trains an epoch %s%s.",
                   sb_rp_num(mb->value, x, sizeof x), best[0]->kernel,
                   sb_rp_num(mc->value, y, sizeof y), best[1]->kernel, words,
                   mb->projected || mc->projected
                       ? " (projected epoch times: see Projected figures)"
                       : "");
    } else {
        sb_rp_para(o,
                   "Epoch-time ratio of the runs' own data sets: not available (an epoch time is"
                   " missing on %s).",
                   best[0]       ? "the candidate"
                       : best[1] ? "the baseline"
                                 : "both sides");
    }
    const char *hdr[] = {"kernel",
                         "dtype",
                         "config",
                         "threads",
                         "baseline (tokens/s)",
                         "candidate (tokens/s)",
                         "tokens/s: candidate vs baseline",
                         "baseline epoch (s)",
                         "candidate epoch (s)",
                         "epoch time: candidate vs baseline"};
    sb_rp_table t;
    sb_rp_t_init(&t, 10, hdr);
    sb_rp_bars br;
    sb_rp_bars_init(&br, n);
    for (int i = 0; i < n; i++) {
        const sb_pt *b = pv[i].b, *c = pv[i].c, *any = b ? b : c;
        const sb_metric_val *tb = sb_rp_ok(b) ? sb_pt_metric(b, "tokens_per_s") : NULL;
        const sb_metric_val *tc = sb_rp_ok(c) ? sb_pt_metric(c, "tokens_per_s") : NULL;
        const sb_metric_val *eb = sb_rp_ok(b) ? sb_pt_metric(b, "epoch_seconds") : NULL;
        const sb_metric_val *ec = sb_rp_ok(c) ? sb_pt_metric(c, "epoch_seconds") : NULL;
        char v[4][700], r1[96], r2[32], thr[16];
        const sb_metric_val *ms[4] = {tb, tc, eb, ec};
        const sb_pt *ps[4] = {b, c, b, c};
        for (int k = 0; k < 4; k++) {
            if (ms[k])
                sb_rp_with_spread(o, ps[k], ms[k], v[k], sizeof v[k]);
            else
                sb_rp_not_available(ps[k], v[k], sizeof v[k]);
        }
        sb_rp_ratio_sig(o, b, c, tc ? tc->value : 0, tb ? tb->value : 0, r1, sizeof r1);
        sb_rp_ratio_str(eb ? eb->value : 0, ec ? ec->value : 0, r2, sizeof r2);
        snprintf(thr, sizeof thr, "%d", any->threads);
        const char *cfg = any->shape[0] ? any->shape : any->config;
        const char *cells[] = {any->kernel, any->dtype, cfg, thr, v[0], v[1], r1, v[2], v[3], r2};
        sb_rp_t_row(&t, cells);
        if (tb || tc) {
            char l[320];
            snprintf(l, sizeof l, "%s t%d", any->kernel, any->threads);
            sb_rp_bars_add(&br, l, b, tb, c, tc);
        }
    }
    sb_rp_t_emit(o, &t);
    sb_rp_plot_pairs(o, pl, 0, "train", "median tokens/s", "Training throughput per kernel",
                     br.labels, (const double *const *)br.v, br.n, bname, cname);
    sb_rp_bars_free(&br);
    (void)headline;
}

/* ---- inference ---- */

/* An inference point's configuration as a table shows it: its series key
 * (model, batch, seq) and, for int8, its activation quantisation (and its
 * attention's, when the sweep set it). */
static void infer_config(const sb_pt *p, char *buf, size_t cap)
{
    json_t *cfg = json_loads(p->config, 0, NULL);
    const char *q = json_string_value(json_object_get(cfg, "quant"));
    const char *a = json_string_value(json_object_get(cfg, "attention"));
    snprintf(buf, cap, "%.300s%s%.20s%s%.20s", p->shape[0] ? p->shape : "-", q ? " quant=" : "",
             q ? q : "", a ? " attention=" : "", a ? a : "");
    json_decref(cfg);
}

/* A point's per-question latencies at batch 1 (its result's
 * latency_samples, seconds); NULL when it has none. */
static double *latency_samples(sb_rp_out *o, sb_db *db, const sb_pt *p, int *n)
{
    *n = 0;
    json_t *doc = NULL;
    sb_err e = {0};
    int rc = sb_db_point_result(db, p->id, &doc, &e);
    if (rc) sb_rp_read_failed(o, rc, &e);
    json_t *ls = json_object_get(doc, "latency_samples");
    size_t len = json_is_array(ls) ? json_array_size(ls) : 0;
    double *v = len ? malloc(sizeof *v * len) : NULL;
    for (size_t i = 0; v && i < len; i++) {
        json_t *x = json_array_get(ls, i);
        if (!json_is_number(x)) continue;
        v[(*n)++] = json_number_value(x);
    }
    json_decref(doc);
    return v;
}

/* The latency ratio of a pair in the report's words, with the gate's own
 * test (sb_gate_compare both ways, the report's options) run on the two
 * points' per-question latencies instead of their timed batches. */
static void latency_sig(sb_rp_out *o, sb_db *db, const sb_pt *b, const sb_pt *c,
                        const sb_metric_val *mb, const sb_metric_val *mc, char *buf, size_t cap)
{
    char r[32];
    /* lower is better: the candidate's speed is the baseline's time over its own */
    sb_rp_ratio_str(mb ? mb->value : 0, mc ? mc->value : 0, r, sizeof r);
    int s = SB_RP_SIG_UNTESTED;
    double p = -1;
    if (mb && mc && o->go) {
        sb_pt bl = *b, cl = *c;
        bl.samples = latency_samples(o, db, b, &bl.nsamples);
        cl.samples = latency_samples(o, db, c, &cl.nsamples);
        sb_ptset bset = {&bl, 1}, cset = {&cl, 1};
        sb_gate_result fwd = {0}, rev = {0};
        sb_err e = {0};
        if (bl.samples && cl.samples && !sb_gate_compare(&bset, &cset, o->go, &fwd, &e) &&
            !sb_gate_compare(&cset, &bset, o->go, &rev, &e))
            s = sb_rp_sig_in(&fwd, &rev, b, c, &p);
        sb_gate_result_free(&fwd);
        sb_gate_result_free(&rev);
        free(bl.samples);
        free(cl.samples);
    }
    sb_rp_sig_words(r, s, p, buf, cap);
}

static void latency_cell(const sb_pt *p, const sb_metric_val *m, char *buf, size_t cap)
{
    if (!m) {
        sb_rp_not_available(p, buf, cap);
        return;
    }
    const sb_metric_val *p99 = sb_pt_metric(p, "latency_p99_ms");
    char x[32], y[32];
    snprintf(buf, cap, "%s (p99 %s)", sb_rp_num(m->value, x, sizeof x),
             p99 ? sb_rp_num(p99->value, y, sizeof y) : "-");
}

static void accuracy_cell(const sb_pt *p, char *buf, size_t cap)
{
    const sb_metric_val *em = sb_rp_ok(p) ? sb_pt_metric(p, "em") : NULL,
                        *f1 = sb_rp_ok(p) ? sb_pt_metric(p, "f1") : NULL;
    if (!em && !f1) {
        if (sb_rp_ok(p))
            snprintf(buf, cap, "not available (no answers in the data)");
        else
            sb_rp_not_available(p, buf, cap);
        return;
    }
    snprintf(buf, cap, "%.2f / %.2f", em ? em->value : NAN, f1 ? f1->value : NAN);
}

static void agreement_cell(const sb_pt *p, char *buf, size_t cap)
{
    const sb_metric_val *a = sb_rp_ok(p) ? sb_pt_metric(p, "f32_agreement_pct") : NULL;
    if (a)
        snprintf(buf, cap, "%.2f %%", a->value);
    else if (sb_rp_ok(p))
        snprintf(buf, cap, "not available (run without --compare-f32)");
    else
        sb_rp_not_available(p, buf, cap);
}
static void render_infer(section_ctx *ctx, const pair *pv, int n)
{
    sb_rp_out *o = ctx->o;
    sb_rp_plots *pl = ctx->pl;
    sb_db *db = ctx->db;
    const char *bname = ctx->bname, *cname = ctx->cname;
    sb_rp_para(
        o,
        "Per kernel, configuration (model, batch, seq; int8: how activations are quantised)"
        " and threads: sequences/s at the point's batch, the median with the p10-p90 range of"
        " its timed batches in brackets, and latency per question at batch 1 (measured on the"
        " smallest batch's point of a sweep), p50 with the p99. \"candidate vs baseline\" says "
        "how much"
        " faster or slower the candidate is and what the gate's test says of it: on the timed"
        " batches for throughput, on the questions' latencies for latency.");
    const char *hdr[] = {"kernel",
                         "dtype",
                         "config",
                         "threads",
                         "baseline (sequences/s)",
                         "candidate (sequences/s)",
                         "sequences/s: candidate vs baseline",
                         "baseline latency p50 ms (p99)",
                         "candidate latency p50 ms (p99)",
                         "p50 latency: candidate vs baseline"};
    sb_rp_table t;
    sb_rp_t_init(&t, 10, hdr);
    sb_rp_bars thr, lat;
    sb_rp_bars_init(&thr, n);
    sb_rp_bars_init(&lat, n);
    for (int i = 0; i < n; i++) {
        const sb_pt *b = pv[i].b, *c = pv[i].c, *any = b ? b : c;
        const sb_metric_val *sb = sb_rp_ok(b) ? sb_pt_metric(b, "sequences_per_s") : NULL,
                            *sc = sb_rp_ok(c) ? sb_pt_metric(c, "sequences_per_s") : NULL,
                            *lb = sb_rp_ok(b) ? sb_pt_metric(b, "latency_p50_ms") : NULL,
                            *lc = sb_rp_ok(c) ? sb_pt_metric(c, "latency_p50_ms") : NULL;
        char v[4][700], r1[96], r2[96], thr_s[16], cfg[400];
        if (sb)
            sb_rp_with_spread(o, b, sb, v[0], sizeof v[0]);
        else
            sb_rp_not_available(b, v[0], sizeof v[0]);
        if (sc)
            sb_rp_with_spread(o, c, sc, v[1], sizeof v[1]);
        else
            sb_rp_not_available(c, v[1], sizeof v[1]);
        latency_cell(b, lb, v[2], sizeof v[2]);
        latency_cell(c, lc, v[3], sizeof v[3]);
        sb_rp_ratio_sig(o, b, c, sc ? sc->value : 0, sb ? sb->value : 0, r1, sizeof r1);
        latency_sig(o, db, b, c, lb, lc, r2, sizeof r2);
        snprintf(thr_s, sizeof thr_s, "%d", any->threads);
        infer_config(any, cfg, sizeof cfg);
        const char *cells[] = {any->kernel, any->dtype, cfg, thr_s, v[0], v[1], r1, v[2], v[3], r2};
        sb_rp_t_row(&t, cells);
        /* the charts: each kernel and configuration at its most threads
         * (throughput), each kernel at its most threads and smallest
         * batch, the first such row (latency, the same at any batch) */
        int top = 1, first_lat = 1;
        for (int j = 0; j < n && top; j++) {
            const sb_pt *q = pv[j].b ? pv[j].b : pv[j].c;
            if (!strcmp(q->kernel, any->kernel) && !strcmp(q->shape, any->shape) &&
                !strcmp(q->config, any->config) && q->threads > any->threads)
                top = 0;
        }
        for (int j = 0; j < n && first_lat; j++) {
            const sb_pt *q = pv[j].b ? pv[j].b : pv[j].c;
            if (j != i && !strcmp(q->kernel, any->kernel) && !strcmp(q->config, any->config) &&
                (q->threads > any->threads || (q->threads == any->threads && j < i)))
                first_lat = 0;
        }
        char l[400];
        if (top && (sb || sc)) {
            /* short: the model and seq are the table's; a chart names what varies */
            char batch[16] = "", quant[16] = "";
            sb_db_shape_value(any->shape, "batch", batch, sizeof batch);
            const char *qs = strstr(cfg, " quant=tensor");
            if (qs) snprintf(quant, sizeof quant, " tensor");
            snprintf(l, sizeof l, "%.120s%s%.15s%s t%d", any->kernel, batch[0] ? " b" : "", batch,
                     quant, any->threads);
            sb_rp_bars_add(&thr, l, b, sb, c, sc);
        }
        if (first_lat && (lb || lc)) {
            const sb_metric_val *pb = sb_rp_ok(b) ? sb_pt_metric(b, "latency_p99_ms") : NULL,
                                *pc = sb_rp_ok(c) ? sb_pt_metric(c, "latency_p99_ms") : NULL;
            double vals[6] = {lb ? lb->value : 0, lb ? lb->value : 0, pb ? pb->value : 0,
                              lc ? lc->value : 0, lc ? lc->value : 0, pc ? pc->value : 0};
            snprintf(l, sizeof l, "%s t%d", any->kernel, any->threads);
            sb_rp_bars_set(&lat, l, vals);
        }
    }
    sb_rp_t_emit(o, &t);
    sb_rp_plot_pairs(o, pl, 0, "infer", "median sequences/s",
                     "Inference throughput per kernel and configuration", thr.labels,
                     (const double *const *)thr.v, thr.n, bname, cname);
    sb_rp_plot_pairs(o, pl, 0, "infer-latency", "ms per question at batch 1: p50, bar up to p99",
                     "Inference latency per kernel", lat.labels, (const double *const *)lat.v,
                     lat.n, bname, cname);
    sb_rp_bars_free(&thr);
    sb_rp_bars_free(&lat);

    /* accuracy: one row per kernel and configuration (threads change no answer) */
    sb_rp_heading(o, 3, "Inference accuracy");
    sb_rp_para(o,
               "Exact match and F1 (%%) of each kernel's answers, and the share of its answers"
               " identical to the f32 path's on the same checkpoint (--compare-f32), from its point"
               " at the fewest threads; \"EM: candidate - baseline\" is in points.");
    const char *ahdr[] = {"kernel",
                          "dtype",
                          "config",
                          "baseline EM / F1",
                          "candidate EM / F1",
                          "EM: candidate - baseline",
                          "baseline identical to f32",
                          "candidate identical to f32"};
    sb_rp_t_init(&t, 8, ahdr);
    for (int i = 0; i < n; i++) {
        const sb_pt *any = pv[i].b ? pv[i].b : pv[i].c;
        int first = 1;
        for (int j = 0; j < n && first; j++) {
            const sb_pt *q = pv[j].b ? pv[j].b : pv[j].c;
            if (j != i && !strcmp(q->kernel, any->kernel) && !strcmp(q->shape, any->shape) &&
                !strcmp(q->config, any->config) &&
                (q->threads < any->threads || (q->threads == any->threads && j < i)))
                first = 0;
        }
        if (!first) continue;
        char a[4][600], d[64] = "-", cfg[400];
        accuracy_cell(pv[i].b, a[0], sizeof a[0]);
        accuracy_cell(pv[i].c, a[1], sizeof a[1]);
        agreement_cell(pv[i].b, a[2], sizeof a[2]);
        agreement_cell(pv[i].c, a[3], sizeof a[3]);
        const sb_metric_val *eb = sb_rp_ok(pv[i].b) ? sb_pt_metric(pv[i].b, "em") : NULL,
                            *ec = sb_rp_ok(pv[i].c) ? sb_pt_metric(pv[i].c, "em") : NULL;
        if (eb && ec) snprintf(d, sizeof d, "%+.2f points", ec->value - eb->value);
        infer_config(any, cfg, sizeof cfg);
        const char *cells[] = {any->kernel, any->dtype, cfg, a[0], a[1], d, a[2], a[3]};
        sb_rp_t_row(&t, cells);
    }
    sb_rp_t_emit(o, &t);
}

/* Same configuration but for the ranks: the scaling family of a point. */
static char *family_key(const sb_pt *p)
{
    sb_pt q = *p;
    q.ppn = q.nodes = 1;
    q.fingerprint = (char *)"";
    return sb_pt_key(&q, 0);
}

/* A side's base of a scaling family: its ok point with the fewest ranks
 * that has a rate (one rank when it ran one; 2 when the sweep's smallest
 * ppn is 2), so that speedups exist at any ppn. */
static const sb_pt *fewest_ranks(const sb_ptset *s, const char *fam)
{
    const sb_pt *r = NULL;
    for (int i = 0; i < s->n; i++) {
        const sb_pt *p = &s->p[i];
        if (!sb_rp_ok(p) || sb_rp_is_model_point(p) || !sb_rp_rate_metric(p) ||
            !strcmp(p->workload, "peak"))
            continue;
        if (r && p->ppn * p->nodes >= r->ppn * r->nodes) continue;
        char *k = family_key(p);
        if (k && !strcmp(k, fam)) r = p;
        free(k);
    }
    return r;
}

/* "1.85 (46%)": speedup over the side's base and efficiency, speedup per
 * added rank. */
static void speedup_cells(const sb_metric_val *m, int ranks, const sb_pt *base, char *sp,
                          size_t spcap, char *ef, size_t efcap)
{
    const sb_metric_val *m0 = base ? sb_rp_rate_metric(base) : NULL;
    snprintf(sp, spcap, "-");
    snprintf(ef, efcap, "-");
    if (!m || !m0 || !(m0->value > 0)) return;
    int r0 = base->ppn * base->nodes;
    double speed = m->value / m0->value;
    snprintf(sp, spcap, "%.2f", speed);
    snprintf(ef, efcap, "%.0f%%", 100 * speed / ((double)ranks / r0));
}

static void render_scaling(section_ctx *ctx, const pair *pv, int n)
{
    sb_rp_out *o = ctx->o;
    sb_rp_plots *pl = ctx->pl;
    const sb_ptset *bs = ctx->bs, *cs = ctx->cs;
    const char *bname = ctx->bname, *cname = ctx->cname;
    sb_rp_para(o,
               "Speedup is against the same configuration on the fewest ranks that side ran"
               " (one rank where it ran one), on the same machine; efficiency is the speedup"
               " divided by the growth in ranks. The charts draw each side's ideal (linear from"
               " its fewest ranks) dashed.");
    char **fams = calloc(cnt(n), sizeof *fams);
    int nf = 0;
    for (int i = 0; fams && i < n; i++) {
        char *k = family_key(pv[i].b ? pv[i].b : pv[i].c);
        int j = 0;
        while (k && j < nf && strcmp(fams[j], k)) j++;
        if (k && j == nf)
            fams[nf++] = k;
        else
            free(k);
    }
    for (int f = 0; f < nf; f++) {
        const sb_pt *rb = fewest_ranks(bs, fams[f]), *rc = fewest_ranks(cs, fams[f]);
        const sb_pt *b1 = rb && rb->ppn * rb->nodes == 1 ? rb : NULL;
        const sb_pt *c1 = rc && rc->ppn * rc->nodes == 1 ? rc : NULL;
        const sb_pt *first = NULL;
        const sb_metric_val *unitm = NULL;
        sb_rp_table t;
        const char *hdr[] = {"ranks",      "nodes x ppn",          "unit",      "baseline",
                             "speedup",    "efficiency",           "candidate", "speedup",
                             "efficiency", "candidate vs baseline"};
        sb_rp_t_init(&t, 10, hdr);
        double xs[64], yb[64], yc[64];
        int np = 0;
        /* rows: the one-rank points (not multi-rank, so not among the pairs),
         * then every multi-rank point of the family */
        for (int i = -1; i < n; i++) {
            const sb_pt *b, *c, *any;
            if (i < 0) {
                if (!b1 && !c1) continue;
                b = b1;
                c = c1;
            } else {
                b = pv[i].b;
                c = pv[i].c;
                char *k = family_key(b ? b : c);
                int mine = k && !strcmp(k, fams[f]);
                free(k);
                if (!mine) continue;
            }
            any = b ? b : c;
            if (i >= 0 && !first) first = any;
            int ranks = any->ppn * any->nodes;
            const sb_metric_val *mb = sb_rp_ok(b) ? sb_rp_rate_metric(b) : NULL,
                                *mc = sb_rp_ok(c) ? sb_rp_rate_metric(c) : NULL;
            if (!unitm) unitm = mb ? mb : mc;
            char vb[700], vc[700], r[96], rk[16], nx[32], sb_[32], eb[32], sc[32], ec[32];
            if (mb)
                sb_rp_with_spread(o, b, mb, vb, sizeof vb);
            else
                sb_rp_not_available(b, vb, sizeof vb);
            if (mc)
                sb_rp_with_spread(o, c, mc, vc, sizeof vc);
            else
                sb_rp_not_available(c, vc, sizeof vc);
            speedup_cells(mb, ranks, rb, sb_, sizeof sb_, eb, sizeof eb);
            speedup_cells(mc, ranks, rc, sc, sizeof sc, ec, sizeof ec);
            sb_rp_ratio_sig(o, b, c, mc ? mc->value : 0, mb ? mb->value : 0, r, sizeof r);
            snprintf(rk, sizeof rk, "%d", ranks);
            snprintf(nx, sizeof nx, "%dx%d", any->nodes, any->ppn);
            const sb_metric_val *um = mb ? mb : mc;
            const char *cells[] = {rk, nx, um && um->unit[0] ? um->unit : "-", vb, sb_, eb, vc, sc,
                                   ec, r};
            sb_rp_t_row(&t, cells);
            if (np < 64) {
                xs[np] = ranks;
                yb[np] = mb ? mb->value : 0;
                yc[np] = mc ? mc->value : 0;
                np++;
            }
        }
        if (!first) {
            for (int i = 0; i < (t.nrows + 1) * t.ncols; i++) free(t.cells[i]);
            free(t.cells);
            continue;
        }
        char title[400], label[320], ylabel[200];
        sb_pt one = *first;
        one.ppn = one.nodes = 1; /* the family, not its first member */
        sb_pt_label(&one, label, sizeof label);
        snprintf(title, sizeof title, "%s %.300s", first->workload, label);
        snprintf(ylabel, sizeof ylabel, "%.60s%s%.60s%s", unitm ? unitm->name : "throughput",
                 unitm && unitm->unit[0] ? " (" : "", unitm ? unitm->unit : "",
                 unitm && unitm->unit[0] ? ")" : "");
        sb_rp_heading(o, 3, title);
        sb_rp_t_emit(o, &t);
        /* ranks ascending, so that the lines join neighbours */
        for (int i = 1; i < np; i++)
            for (int j = i; j > 0 && xs[j - 1] > xs[j]; j--) {
                double t0 = xs[j], t1 = yb[j], t2 = yc[j];
                xs[j] = xs[j - 1], yb[j] = yb[j - 1], yc[j] = yc[j - 1];
                xs[j - 1] = t0, yb[j - 1] = t1, yc[j - 1] = t2;
            }
        if (pl->enabled && np > 1) {
            /* each side's ideal: its base value times the growth in ranks */
            const sb_metric_val *m0b = rb ? sb_rp_rate_metric(rb) : NULL,
                                *m0c = rc ? sb_rp_rate_metric(rc) : NULL;
            int r0b = rb ? rb->ppn * rb->nodes : 1, r0c = rc ? rc->ppn * rc->nodes : 1;
            double *ib = calloc((size_t)np, sizeof *ib), *ic = calloc((size_t)np, sizeof *ic);
            for (int i = 0; ib && ic && i < np; i++) {
                ib[i] = m0b && xs[i] >= r0b ? m0b->value * xs[i] / r0b : NAN;
                ic[i] = m0c && xs[i] >= r0c ? m0c->value * xs[i] / r0c : NAN;
            }
            /* the styling is plots/report-scaling.gp's (restyled with --templates) */
            sb_err ge = {0};
            sb_gp *g = ib && ic ? sb_plot_report_scaling(pl->templates, title, ylabel, xs, np,
                                                         bname, yb, ib, cname, yc, ic, &ge)
                                : NULL;
            free(ib);
            free(ic);
            if (!g) {
                snprintf(pl->skipped_why, sizeof pl->skipped_why, "%.200s",
                         ge.msg[0] ? ge.msg : "out of memory");
                continue;
            }
            char name[32];
            snprintf(name, sizeof name, "scaling%d", f + 1);
            sb_rp_plot_emit(o, pl, name, g, 900, 520, title);
            sb_gp_free(g);
        }
    }
    for (int f = 0; f < nf; f++) free(fams[f]);
    free(fams);
}

/* Not the pairs: each side's projected figures in turn, the scaling model's
 * points among them (the row's predicate only says whether there are any). */
static void render_projected(section_ctx *ctx, const pair *pv, int np)
{
    (void)pv;
    (void)np;
    sb_rp_out *o = ctx->o;
    const sb_ptset *bs = ctx->bs, *cs = ctx->cs;
    sb_rp_table t;
    const char *hdr[] = {"side", "point", "metric", "value", "how (note)"};
    sb_rp_t_init(&t, 5, hdr);
    for (int s = 0; s < 2; s++) {
        const sb_ptset *set = s ? cs : bs;
        for (int i = 0; i < set->n; i++) {
            const sb_pt *p = &set->p[i];
            for (int k = 0; k < p->nmetrics; k++) {
                if (!p->metrics[k].projected) continue;
                char label[360], v[128], x[32];
                sb_pt_label(p, label, 320);
                if (sb_rp_is_model_point(p))
                    snprintf(label + strlen(label), sizeof label - strlen(label),
                             " (scaling model, not measured)");
                snprintf(v, sizeof v, "%s %.64s", sb_rp_num(p->metrics[k].value, x, sizeof x),
                         p->metrics[k].unit);
                char note[32];
                snprintf(note, sizeof note, "projected, P%d",
                         sb_rp_proj_note(o, p->metrics[k].source));
                const char *cells[] = {s ? "candidate" : "baseline", label, p->metrics[k].name, v,
                                       note};
                sb_rp_t_row(&t, cells);
            }
        }
    }
    sb_rp_para(o,
               "These figures were computed, not measured (marked \"projected\" in the tables"
               " above); each note below says once how its figures were computed.");
    sb_rp_t_emit(o, &t);
    for (int i = 0; i < o->nsrc; i++) sb_rp_para(o, "P%d: projected from %s", i + 1, o->srcs[i]);
}

/* The comparison sections in the report's order. Projected figures comes
 * last: it lists the provenance notes the tables above it numbered. */

/* One row per point pair: the workload's headline metric, both sides. */
static void render_other(section_ctx *ctx, const pair *pv, int n)
{
    sb_rp_out *o = ctx->o;
    sb_rp_para(o,
               "Median of each workload's headline metric with the p10-p90 range of the"
               " repetitions in brackets.");
    const char *hdr[] = {"workload", "kernel",   "configuration", "threads",
                         "unit",     "baseline", "candidate",     "candidate vs baseline"};
    sb_rp_table t;
    sb_rp_t_init(&t, 8, hdr);
    for (int i = 0; i < n; i++) {
        const sb_pt *b = pv[i].b, *c = pv[i].c, *any = b ? b : c;
        const sb_metric_val *mb, *mc;
        char vb[700], vc[700], r[96], thr[16];
        sb_rp_rate_cells(o, b, c, &mb, &mc, vb, vc, r);
        const sb_metric_val *um = mb ? mb : mc;
        snprintf(thr, sizeof thr, "%d", any->threads);
        const sb_workload *w = sb_workload_find(any->workload);
        const char *cells[] = {w ? w->title : any->workload,       any->kernel, any->shape, thr,
                               um && um->unit[0] ? um->unit : "-", vb,          vc,         r};
        sb_rp_t_row(&t, cells);
    }
    sb_rp_t_emit(o, &t);
}

static const report_section g_sections[] = {
    {.workload = "train",
     .title = "Training (DistilBERT SQuAD fine-tuning)",
     .want = sb_rp_is_train1,
     .none = "No single-process training points on either side.",
     .render = render_train},
    {.workload = "infer",
     .title = "Inference (DistilBERT SQuAD question answering)",
     .want = sb_rp_is_infer1,
     .none = "No single-process inference points on either side.",
     .render = render_infer},
    {.workload = "peak",
     .title = "Peaks per instruction set",
     .want = sb_rp_is_peak,
     .none = "No peak measurements (sprbench peak) on either side.",
     .render = render_peaks},
    {.workload = "gemm",
     .title = "GEMM throughput per kernel and shape",
     .want = sb_rp_is_gemm1,
     .none = "No single-process GEMM points on either side.",
     .render = render_gemm},
    {.title = "Scaling (ranks = nodes x processes per node)",
     .want = sb_rp_is_scaling,
     .none = "No multi-rank points on either side.",
     .render = render_scaling},
    /* every workload without a section of its own, by its headline metric;
     * silent when there are none */
    {.title = "Other workloads, by their headline metric",
     .want = sb_rp_is_other1,
     .render = render_other},
    /* silent when there are none: a report of measurements only has no such heading */
    {.title = "Projected figures",
     .want = sb_rp_has_projected,
     .models = 1,
     .render = render_projected},
};

int sb_rp_has_section(const char *workload)
{
    for (size_t i = 0; i < sizeof g_sections / sizeof g_sections[0]; i++)
        if (g_sections[i].workload && !strcmp(g_sections[i].workload, workload)) return 1;
    return 0;
}

/* Which of the variables that change results (OMP_*, ONEDNN_*, LD_PRELOAD,
 * ...) the two sides' runs differed in, as recorded in each result: one
 * line per distinct difference over the matched point pairs. */
static void section_env(sb_rp_out *o, sb_db *db, const sb_ptset *bs, const sb_ptset *cs)
{
    sb_rp_heading(o, 2, "Environment");
    sb_envmap bm = {0}, cm = {0};
    sb_err e = {0};
    if (sb_envmap_load(db, bs, &bm, &e) || sb_envmap_load(db, cs, &cm, &e)) {
        sb_rp_para(o, "The recorded environments could not be read: %s.", e.msg);
        sb_envmap_free(&bm);
        return;
    }
    pair *pr = NULL;
    int n = pairs_of(bs, cs, sb_rp_any_point, 0, &pr);
    sb_envdiffs d = {0};
    for (int i = 0; i < n; i++) {
        /* a point that did not run ok (a crash) recorded no environment */
        if (!sb_rp_ok(pr[i].b) || !sb_rp_ok(pr[i].c)) continue;
        char label[320];
        sb_pt_label(pr[i].c, label, sizeof label);
        sb_envdiffs_add(&d, pr[i].b->id, sb_envmap_get(&bm, pr[i].b->id), pr[i].c->id,
                        sb_envmap_get(&cm, pr[i].c->id), label);
    }
    free(pr);
    if (!d.pairs) {
        sb_rp_para(o, "No point ran on both sides: no environments to compare.");
    } else if (!sb_envdiffs_nlines(&d)) {
        sb_rp_para(o,
                   "Both sides ran every one of the %d matched point(s) with the same recorded"
                   " environment variables (%s).",
                   d.pairs, sb_env_scope());
    } else {
        for (int i = 0; i < sb_envdiffs_nlines(&d); i++) {
            char line[1400];
            sb_envdiffs_line(&d, i, line, sizeof line);
            sb_rp_para(o, "%s.", line);
        }
    }
    sb_envdiffs_free(&d);
    sb_envmap_free(&bm);
    sb_envmap_free(&cm);
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
static void section_summary(sb_rp_out *o, sb_db *db, const sb_selection *bsel,
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
    else if (!bsel->sweep_id && !csel->sweep_id && bm == cm)
        sb_rp_para(o,
                   "Warning: both sides are the same machine (%s): every point is compared with"
                   " itself, so every ratio is 1 and nothing here is a finding.",
                   bsel->label);
    else if (bm && bm == cm)
        sb_rp_para(o,
                   "Warning: both sides ran on the same machine: the differences below are between"
                   " runs (software, settings, noise), not between machines.");
    (void)db;
    if (hl->best_n) {
        char words[64];
        sb_rp_speed_words(hl->best_gmean, words, sizeof words);
        sb_rp_para(o,
                   "At each machine's best kernel per precision (its own or oneDNN's, over the %d"
                   " GEMM precision, shape and thread rows both sides ran: see Best kernel per"
                   " precision), the candidate is %s (geometric mean of the speed ratios).",
                   hl->best_n, words);
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

static void side_name(sb_rp_out *o, sb_db *db, const char *side, int64_t machine, char *buf,
                      size_t cap)
{
    json_t *m = machine_info(o, db, machine);
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
static void short_name(sb_rp_out *o, sb_db *db, int64_t machine, const sb_selection *sel, char *buf,
                       size_t cap)
{
    json_t *m = machine ? machine_info(o, db, machine) : NULL;
    const char *ua = json_string_value(json_object_get(m, "microarch"));
    const char *n = ua && *ua && strcmp(ua, "unknown") ? ua : sel->label;
    snprintf(buf, cap, "%.*s", sb_text_prefix(n, 100), n);
    json_decref(m);
}

/* "sweep 5 'zen4 default sweep' (sprbench fbdc5c1, 89 points)": which
 * sweeps a side's points come from, so that a machine-level report never
 * takes one silently. */
static void sweeps_used(sb_rp_out *o, sb_db *db, const sb_ptset *set, char *buf, size_t cap)
{
    buf[0] = '\0';
    size_t l = 0;
    for (int i = 0; i < set->n; i++) {
        int64_t id = set->p[i].sweep_id, seen = 0, n = 0;
        for (int j = 0; j < set->n; j++) {
            if (set->p[j].sweep_id != id) continue;
            if (j < i) seen = 1;
            n++;
        }
        if (seen) continue;
        sb_sweep_header h;
        int found = 0;
        sb_err e = {0};
        int rc = id ? sb_db_sweep_header(db, id, &h, &found, &e) : 0;
        if (rc) sb_rp_read_failed(o, rc, &e);
        const char *lb = found && h.label ? h.label : "",
                   *tv = found && h.tool_version && *h.tool_version ? h.tool_version : "?";
        int w = snprintf(buf + l, cap - l, "%ssweep %lld%s%.*s (sprbench %.*s, %lld point(s))",
                         l ? ", " : "", (long long)id, *lb ? " " : "", sb_text_prefix(lb, 100), lb,
                         sb_text_prefix(tv, 60), tv, (long long)n);
        if (found) sb_sweep_header_free(&h);
        if (w < 0 || (size_t)w >= cap - l) break;
        l += (size_t)w;
    }
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

int sb_report_write(sb_db *db, const sb_selection *bsel, const sb_selection *csel,
                    const sb_report_opts *ro, sb_report_summary *sum, sb_err *e)
{
    memset(sum, 0, sizeof *sum);
    int rc = mkdir_p(ro->out_dir, e);
    if (rc) return rc;
    sb_ptset bs = {0}, cs = {0};
    if ((rc = sb_ptset_load(db, bsel->sweep_id ? 0 : bsel->machine_id, bsel->sweep_id, &bs, e)) ||
        (rc = sb_ptset_load(db, csel->sweep_id ? 0 : csel->machine_id, csel->sweep_id, &cs, e))) {
        sb_ptset_free(&bs);
        return rc;
    }
    sb_ptset_latest(&bs);
    sb_ptset_latest(&cs);
    char *mdbuf = NULL, *htbuf = NULL;
    size_t mdlen = 0, htlen = 0;
    sb_rp_out o = {.md = open_memstream(&mdbuf, &mdlen), .html = open_memstream(&htbuf, &htlen)};
    if (!o.md || !o.html) {
        if (o.md) fclose(o.md);
        if (o.html) fclose(o.html);
        free(mdbuf);
        free(htbuf);
        sb_ptset_free(&bs);
        sb_ptset_free(&cs);
        return sb_errf(e, SB_EFAIL, "out of memory");
    }
    sb_rp_plots pl = {ro->plots && sb_gnuplot_available(), 0, ro->out_dir, ro->templates, ""};
    if (ro->plots && !pl.enabled)
        snprintf(pl.skipped_why, sizeof pl.skipped_why, "gnuplot not found");
    char title[800], bshort[128], cshort[128];
    short_name(&o, db, machine_of(bsel, &bs), bsel, bshort, sizeof bshort);
    short_name(&o, db, machine_of(csel, &cs), csel, cshort, sizeof cshort);
    if (ro->title) /* cut between characters (the CLI checked it is UTF-8) */
        snprintf(title, sizeof title, "%.*s", sb_text_prefix(ro->title, 700), ro->title);
    else if (strcmp(bshort, cshort))
        snprintf(title, sizeof title, "sprbench report: %s (candidate) vs %s (baseline)", cshort,
                 bshort);
    else
        snprintf(title, sizeof title, "sprbench report: %.300s vs %.300s", csel->label,
                 bsel->label);
    char now[32];
    sb_db_now_iso(now);
    fputs("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>", o.html);
    sb_text_html(o.html, title);
    fprintf(o.html, "</title><style>%s</style></head><body>\n", g_css);
    sb_rp_heading(&o, 1, title);
    sb_rp_para(&o,
               "Baseline: %s (%d points). Candidate: %s (%d points). Database %s, generated %s by"
               " sprbench %s.",
               bsel->label, bs.n, csel->label, cs.n, ro->db_path ? ro->db_path : "?", now,
               ro->tool_version ? ro->tool_version : "unknown");
    char bsw[1500], csw[1500];
    sweeps_used(&o, db, &bs, bsw, sizeof bsw);
    sweeps_used(&o, db, &cs, csw, sizeof csw);
    sb_rp_para(&o,
               "Sweeps used (the newest point of each configuration): baseline %s; candidate %s.",
               bsw[0] ? bsw : "none", csw[0] ? csw : "none");
    sb_rp_para(&o,
               "Every figure is a median with the p10-p90 range of its raw samples in brackets;"
               " computed (not measured) figures say \"projected\".");
    /* tables say baseline/candidate; plot legends also name the machines */
    char bname[200], cname[200];
    side_name(&o, db, "baseline", machine_of(bsel, &bs), bname, sizeof bname);
    side_name(&o, db, "candidate", machine_of(csel, &cs), cname, sizeof cname);
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
    sb_rp_sinkctx sctx = {&o, &pl, bname, cname};
    sb_rsink sink = sb_rp_sink(&sctx);
    sb_headline_in hin = {db, &bs, &cs, bshort, cshort, &go, ro->study_csv};
    sb_headline_out hl;
    memset(&hl, 0, sizeof hl);
    sb_report_headline(&hin, &sink, &hl);
    /* the best-kernel figures go into the summary: computed first, drawn
     * after it into a buffer of their own */
    char *bkbuf = NULL, *bkhbuf = NULL;
    size_t bklen = 0, bkhlen = 0;
    sb_rp_out bko = o;
    bko.md = open_memstream(&bkbuf, &bklen);
    bko.html = open_memstream(&bkhbuf, &bkhlen);
    bko.rows = 0;
    sb_rp_sinkctx bkctx = {&bko, &pl, bname, cname};
    sb_rsink bksink = sb_rp_sink(&bkctx);
    if (bko.md && bko.html) {
        sb_report_best_kernels(&hin, &bksink, &hl);
        sb_report_generations(&hin, &bksink);
        sb_report_profiles(&hin, &bksink);
    }
    if (bko.md) fclose(bko.md);
    if (bko.html) fclose(bko.html);
    o.rows += bko.rows;
    sum->headline_ratio = hl.ratio;
    snprintf(sum->headline, sizeof sum->headline, "%s", hl.line);
    section_summary(&o, db, bsel, csel, &bs, &cs, &go, ro->gate, &hl);
    if (bkbuf) fwrite(bkbuf, 1, bklen, o.md);
    if (bkhbuf) fwrite(bkhbuf, 1, bkhlen, o.html);
    free(bkbuf);
    free(bkhbuf);
    section_machines(&o, db, machine_of(bsel, &bs), machine_of(csel, &cs), "baseline", "candidate");
    section_env(&o, db, &bs, &cs);
    /* The opening above stays three calls: the summary reads the gate's
     * result, the machines the selections, and the environment says its own
     * empty case (no pair that ran ok on both sides) after reading the store;
     * none is a heading over paired points. */
    section_ctx sc = {&o, &pl, db, &bs, &cs, bname, cname, sum};
    for (size_t i = 0; i < sizeof g_sections / sizeof g_sections[0]; i++) {
        const report_section *s = &g_sections[i];
        pair *pv;
        int n = section_pairs(&o, s, &bs, &cs, &pv);
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
        sb_ptset_free(&bs);
        sb_ptset_free(&cs);
        return sb_errf(e, o.rc, "%s", o.err.msg);
    }
    sum->rows = o.rows;
    sum->plots_drawn = pl.drawn;
    snprintf(sum->md_path, sizeof sum->md_path, "%s/report.md", ro->out_dir);
    snprintf(sum->html_path, sizeof sum->html_path, "%s/report.html", ro->out_dir);
    rc = sb_write_file_atomic(sum->md_path, mdbuf, mdlen, e);
    if (!rc) rc = sb_write_file_atomic(sum->html_path, htbuf, htlen, e);
    free(mdbuf);
    free(htbuf);
    sb_ptset_free(&bs);
    sb_ptset_free(&cs);
    return rc;
}
