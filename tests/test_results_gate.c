/* sb_gate: statistics on known values, verdicts on constructed samples,
 * references, JUnit structure. No database: point sets are built in memory. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "sb_gate.h"
#include "sb_gate_side.h"
#include "sb_peak_path.h"
#include "sb_plot_int.h"
#include "sb_io.h"
#include "sb_metric.h"
#include "sb_report.h"
#include "sb_stats.h"
#include "testutil.h"

/* deterministic noise in [-1, 1] */
static double noise(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return ((*s >> 8) & 0xffff) / 32767.5 - 1.0;
}

static sb_pt make_pt(const char *fp, const char *kernel, const char *status, int n, double base,
                     double scale, unsigned seed)
{
    sb_pt p;
    memset(&p, 0, sizeof p);
    p.fingerprint = strdup(fp);
    p.workload = strdup("gemm");
    p.kernel = strdup(kernel);
    p.dtype = strdup("f32");
    p.shape = strdup("64x64x64:NN");
    p.config = strdup("{}");
    p.status = strdup(status);
    p.reason = strdup(strcmp(status, "ok") ? "worker crashed: signal 11" : "");
    p.threads = 1;
    p.ppn = p.nodes = 1;
    p.nsamples = n;
    p.samples = calloc((size_t)n + 1, sizeof *p.samples);
    for (int i = 0; i < n; i++) p.samples[i] = base * scale * (1 + 0.01 * noise(&seed));
    p.nmetrics = 1;
    p.metrics = calloc(1, sizeof *p.metrics);
    p.metrics[0].name = strdup("gflops");
    p.metrics[0].unit = strdup("GFLOP/s");
    p.metrics[0].source = strdup("");
    p.metrics[0].value = 2.0 * 64 * 64 * 64 / (base * scale) / 1e9;
    return p;
}

static void set_of(sb_ptset *s, sb_pt *pts, int n)
{
    s->p = calloc((size_t)n + 1, sizeof *s->p);
    memcpy(s->p, pts, sizeof *pts * (size_t)n);
    s->n = n;
}

/* verdict of a one-point comparison: candidate = baseline x scale */
static sb_verdict one(double scale, int nb, int nc, const char *cand_status, sb_gate_result *keep)
{
    sb_ptset b, c;
    sb_pt pb = make_pt("fp1", "scalar-f32", "ok", nb, 1e-3, 1.0, 7);
    sb_pt pc = make_pt("fp1", "scalar-f32", cand_status, nc, 1e-3, scale, 99);
    set_of(&b, &pb, 1);
    set_of(&c, &pc, 1);
    sb_gate_opts o = SB_GATE_OPTS_INIT;
    sb_gate_result r;
    sb_err e = {0};
    CHECK_EQ_INT(sb_gate_compare(&b, &c, &o, &r, &e), SB_OK);
    CHECK_EQ_INT(r.n, 1);
    sb_verdict v = r.n ? r.rows[0].verdict : SB_FAIL;
    if (keep)
        *keep = r;
    else
        sb_gate_result_free(&r);
    sb_ptset_free(&b);
    sb_ptset_free(&c);
    return v;
}

static void test_mwu(void)
{
    double lo[6] = {1, 2, 3, 4, 5, 6}, hi[6] = {7, 8, 9, 10, 11, 12};
    /* every candidate sample above every baseline one: 1 / C(12,6) */
    CHECK(fabs(sb_mwu_p_greater(hi, 6, lo, 6) - 1.0 / 924) < 1e-12);
    CHECK(fabs(sb_mwu_p_greater(lo, 6, hi, 6) - 1.0) < 1e-12);
    /* interleaved halves: U = 18 of 36, p just above 0.5 */
    double a[6] = {1, 3, 5, 7, 9, 11}, b[6] = {2, 4, 6, 8, 10, 12};
    double p = sb_mwu_p_greater(a, 6, b, 6);
    CHECK(p > 0.5 && p < 0.75);
    /* 2 vs 2 exact distribution: P(U >= 4) = 1/6, P(U >= 3) = 2/6 */
    double x2[2] = {3, 4}, y2[2] = {1, 2}, x3[2] = {2.5, 4}, y3[2] = {1, 3};
    CHECK(fabs(sb_mwu_p_greater(x2, 2, y2, 2) - 1.0 / 6) < 1e-12);
    CHECK(fabs(sb_mwu_p_greater(x3, 2, y3, 2) - 2.0 / 6) < 1e-12);
    /* ties go through the normal approximation; all equal: nothing significant */
    double t1[8] = {1, 1, 1, 1, 1, 1, 1, 1};
    CHECK(sb_mwu_p_greater(t1, 8, t1, 8) > 0.4);
    /* large samples: clear shift is tiny p */
    double big1[40], big2[40];
    unsigned s = 3;
    for (int i = 0; i < 40; i++) {
        big1[i] = 1.2 + 0.01 * noise(&s);
        big2[i] = 1.0 + 0.01 * noise(&s);
    }
    CHECK(sb_mwu_p_greater(big1, 40, big2, 40) < 1e-6);
    CHECK(sb_mwu_p_greater(big2, 40, big1, 40) > 0.99);

    double l, h;
    sb_bootstrap_ratio(big1, 40, big2, 40, 0.98, 2000, 1, &l, &h);
    CHECK(l > 1.15 && l < 1.2 && h > 1.2 && h < 1.25);
    double l2, h2;
    sb_bootstrap_ratio(big1, 40, big2, 40, 0.98, 2000, 1, &l2, &h2);
    CHECK(l == l2 && h == h2); /* deterministic */

    CHECK(sb_metric_lower("seconds", NULL));
    CHECK(sb_metric_lower("epoch_seconds", NULL));
    CHECK(sb_metric_lower("median_s", NULL));
    CHECK(!sb_metric_lower("gflops", NULL));
    CHECK(!sb_metric_lower("tokens_per_s", NULL));
    CHECK(!sb_metric_lower("busbw_gbs_1024", "GB/s"));
    CHECK(sb_metric_lower("lat_us_1024", "us"));
}

static void test_verdicts(void)
{
    CHECK_EQ_INT(one(1.00, 10, 10, "ok", NULL), SB_PASS);
    CHECK_EQ_INT(one(1.10, 10, 10, "ok", NULL), SB_FAIL);
    sb_verdict v = one(1.02, 10, 10, "ok", NULL);
    CHECK(v == SB_PASS || v == SB_WARN);
    CHECK_EQ_INT(one(0.80, 10, 10, "ok", NULL), SB_PASS); /* faster */
    CHECK_EQ_INT(one(1.10, 3, 3, "ok", NULL), SB_WARN);   /* too few */
    CHECK_EQ_INT(one(1.00, 3, 10, "ok", NULL), SB_WARN);
    CHECK_EQ_INT(one(1.00, 10, 10, "failed", NULL), SB_FAIL);
    sb_gate_result r;
    /* beyond tolerance but not significant: wide, overlapping samples */
    {
        double bs[6] = {1.0, 1.3, 0.8, 1.2, 0.9, 1.1}, cs[6] = {1.2, 0.9, 1.5, 1.0, 1.4, 1.25};
        sb_pt pb = make_pt("fp1", "scalar-f32", "ok", 6, 1, 1, 1);
        sb_pt pc = make_pt("fp1", "scalar-f32", "ok", 6, 1, 1, 2);
        memcpy(pb.samples, bs, sizeof bs);
        memcpy(pc.samples, cs, sizeof cs);
        sb_ptset b, c;
        set_of(&b, &pb, 1);
        set_of(&c, &pc, 1);
        sb_gate_opts o = SB_GATE_OPTS_INIT;
        sb_err e = {0};
        CHECK_EQ_INT(sb_gate_compare(&b, &c, &o, &r, &e), SB_OK);
        CHECK(r.n == 1 && r.rows[0].verdict == SB_WARN && r.rows[0].ratio > 1.05);
        CHECK(r.n == 1 && strstr(r.rows[0].note, "not significant"));
        sb_gate_result_free(&r);
        o.method = SB_GATE_BOOTSTRAP;
        CHECK_EQ_INT(sb_gate_compare(&b, &c, &o, &r, &e), SB_OK);
        CHECK(r.n == 1 && r.rows[0].verdict == SB_WARN);
        sb_gate_result_free(&r);
        sb_ptset_free(&b);
        sb_ptset_free(&c);
    }
    CHECK_EQ_INT(one(1.10, 6, 6, "ok", &r), SB_FAIL);
    CHECK(r.n == 1 && r.rows[0].p >= 0 && r.rows[0].p < 0.01);
    CHECK(r.n == 1 && fabs(r.rows[0].ratio - 1.10) < 0.02);
    sb_gate_result_free(&r);

    /* missing and mismatched points, and metric mode */
    sb_pt pb[2] = {make_pt("fp1", "scalar-f32", "ok", 8, 1e-3, 1, 1),
                   make_pt("fp1", "avx512-f32", "ok", 8, 1e-4, 1, 2)};
    sb_pt pc[2] = {make_pt("fp1", "scalar-f32", "ok", 8, 1e-3, 1.2, 3),
                   make_pt("fp1", "vnni-int8", "ok", 8, 1e-4, 1, 4)};
    sb_ptset b, c;
    set_of(&b, pb, 2);
    set_of(&c, pc, 2);
    sb_gate_opts o = SB_GATE_OPTS_INIT;
    sb_err e = {0};
    CHECK_EQ_INT(sb_gate_compare(&b, &c, &o, &r, &e), SB_OK);
    CHECK_EQ_INT(r.n, 3);
    CHECK_EQ_INT(r.count[SB_FAIL], 1);
    CHECK_EQ_INT(r.count[SB_WARN], 2);
    int missing = 0, added = 0;
    for (int i = 0; i < r.n; i++) {
        missing += strstr(r.rows[i].note, "missing in the candidate") != NULL;
        added += strstr(r.rows[i].note, "not in the baseline") != NULL;
    }
    CHECK_EQ_INT(missing, 1);
    CHECK_EQ_INT(added, 1);
    sb_gate_result_free(&r);
    static const char *const gf[] = {"gflops", NULL};
    o.metrics = gf;
    CHECK_EQ_INT(sb_gate_compare(&b, &c, &o, &r, &e), SB_OK);
    const sb_gate_row *sc = NULL;
    for (int i = 0; i < r.n; i++)
        if (strstr(r.rows[i].label, "scalar-f32")) sc = &r.rows[i];
    CHECK(sc && sc->verdict == SB_FAIL && !strcmp(sc->metric, "gflops"));
    /* gflops is reported as it is, the ratio as cost: 20 % slower */
    CHECK(sc && fabs(sc->ratio - 1.2) < 0.03 && sc->cand < sc->base);
    sb_gate_result_free(&r);
    /* a latency (allreduce's lat_us_<bytes>): lower is better by the metric
     * table (the name guess had it higher, so 20 % more passed) */
    for (int k = 0; k < 2; k++) {
        sb_metric_val *m = &(k ? c : b).p[0].metrics[0];
        free(m->name);
        free(m->unit);
        m->name = strdup("lat_us_1024");
        m->unit = strdup("us");
        m->value = 1e6 * sb_median((k ? c : b).p[0].samples, (k ? c : b).p[0].nsamples);
    }
    static const char *const lat[] = {"lat_us_1024", NULL};
    o.metrics = lat;
    CHECK_EQ_INT(sb_gate_compare(&b, &c, &o, &r, &e), SB_OK);
    sc = NULL;
    for (int i = 0; i < r.n; i++)
        if (strstr(r.rows[i].label, "scalar-f32")) sc = &r.rows[i];
    CHECK(sc && sc->verdict == SB_FAIL && !strcmp(sc->metric, "lat_us_1024"));
    CHECK(sc && fabs(sc->ratio - 1.2) < 0.03 && sc->cand > sc->base);
    sb_gate_result_free(&r);
    o.metrics = NULL;
    sb_ptset_free(&c);

    sb_pt pm = make_pt("fp2", "scalar-f32", "ok", 8, 1e-3, 1, 5);
    set_of(&c, &pm, 1);
    CHECK_EQ_INT(sb_gate_compare(&b, &c, &o, &r, &e), SB_OK);
    int mismatch = 0;
    for (int i = 0; i < r.n; i++)
        mismatch += r.rows[i].verdict == SB_FAIL &&
            strstr(r.rows[i].note, "machine mismatch") != NULL;
    CHECK_EQ_INT(mismatch, 1);
    sb_gate_result_free(&r);
    o.cross_machine = 1;
    CHECK_EQ_INT(sb_gate_compare(&b, &c, &o, &r, &e), SB_OK);
    CHECK_EQ_INT(r.count[SB_FAIL], 0);
    CHECK_EQ_INT(r.count[SB_PASS], 1);

    /* JUnit: one testcase per row, failures counted, escaping */
    char path[] = "/tmp/sb-junit-XXXXXX";
    int fd = mkstemp(path);
    close(fd);
    snprintf(r.rows[0].note, sizeof r.rows[0].note, "a <b> & \"c\" \x01");
    CHECK_EQ_INT(sb_gate_junit(&r, path, &e), SB_OK);
    char *xml;
    size_t len;
    CHECK_EQ_INT(sb_read_file(path, &xml, &len, &e), SB_OK);
    int cases = 0;
    for (const char *s = xml; (s = strstr(s, "<testcase ")); s++) cases++;
    CHECK_EQ_INT(cases, r.n);
    CHECK(strstr(xml, "a &lt;b&gt; &amp; &quot;c&quot; ?") != NULL);
    CHECK(strstr(xml, "<?xml version=\"1.0\"") == xml);
    CHECK(strstr(xml, "</testsuites>") != NULL);
    free(xml);
    unlink(path);
    sb_gate_result_free(&r);
    sb_ptset_free(&b);
    sb_ptset_free(&c);
}

/* A candidate that failed, crashed or timed out FAILs whatever the baseline
 * did; a skip is a skip; a baseline failure alone is a WARN. */
/* The verdict of the one row comparing baseline points pb[0..nb) with
 * candidate points pc[0..nc) (both sets freed here); the result is kept in
 * *keep when given. */
static sb_verdict compare_sets(sb_pt *pb, int nb, sb_pt *pc, int nc, int pool, sb_gate_result *keep)
{
    sb_ptset b, c;
    set_of(&b, pb, nb);
    set_of(&c, pc, nc);
    sb_gate_opts o = SB_GATE_OPTS_INIT;
    o.pool = pool;
    sb_gate_result r;
    sb_err e = {0};
    CHECK_EQ_INT(sb_gate_compare(&b, &c, &o, &r, &e), SB_OK);
    sb_verdict v = r.n == 1 ? r.rows[0].verdict : SB_PASS;
    if (keep)
        *keep = r;
    else
        sb_gate_result_free(&r);
    sb_ptset_free(&b);
    sb_ptset_free(&c);
    return v;
}

static sb_verdict status_pair(const char *bstatus, const char *cstatus, sb_gate_result *keep)
{
    sb_pt pb = make_pt("fp1", "amx-bf16", bstatus, 8, 1e-3, 1, 1);
    sb_pt pc = make_pt("fp1", "amx-bf16", cstatus, 8, 1e-3, 1, 2);
    return compare_sets(&pb, 1, &pc, 1, 0, keep);
}

static void test_statuses(void)
{
    CHECK_EQ_INT(status_pair("ok", "failed", NULL), SB_FAIL);
    CHECK_EQ_INT(status_pair("failed", "failed", NULL), SB_FAIL); /* crashed before: still */
    CHECK_EQ_INT(status_pair("skipped", "failed", NULL), SB_FAIL);
    CHECK_EQ_INT(status_pair("ok", "timeout", NULL), SB_FAIL);
    CHECK_EQ_INT(status_pair("timeout", "timeout", NULL), SB_FAIL);
    CHECK_EQ_INT(status_pair("skipped", "skipped", NULL), SB_SKIP);
    CHECK_EQ_INT(status_pair("ok", "skipped", NULL), SB_SKIP);
    CHECK_EQ_INT(status_pair("failed", "ok", NULL), SB_WARN);
    CHECK_EQ_INT(status_pair("ok", "pending", NULL), SB_WARN);

    /* the JSON's top-level verdict, and skips alone pass */
    sb_gate_result r;
    status_pair("skipped", "skipped", &r);
    CHECK_EQ_INT(sb_gate_overall(&r), SB_PASS);
    sb_gate_result_free(&r);
    status_pair("failed", "failed", &r);
    CHECK_EQ_INT(sb_gate_overall(&r), SB_FAIL);
    json_t *doc = sb_gate_json(&r);
    CHECK(doc && !strcmp(json_string_value(json_object_get(doc, "verdict")), "FAIL"));
    CHECK(doc && json_integer_value(json_object_get(doc, "fail")) == 1);
    json_decref(doc);

    /* GitHub Actions: one ::error per FAIL, data encoded, and a summary
     * table appended (Markdown in a cell escaped) */
    snprintf(r.rows[0].note, sizeof r.rows[0].note, "100%% slower\nsecond | line");
    char *ann = NULL;
    size_t alen = 0;
    FILE *af = open_memstream(&ann, &alen);
    char sum[] = "/tmp/sb-summary-XXXXXX";
    int fd = mkstemp(sum);
    CHECK(fd >= 0 && write(fd, "before\n", 7) == 7);
    close(fd);
    sb_err e = {0};
    CHECK_EQ_INT(sb_gate_github(&r, af, sum, &e), SB_OK);
    fclose(af);
    CHECK(ann && !strncmp(ann, "::error title=sprbench gate FAIL::", 34));
    CHECK(ann && strstr(ann, "100%25 slower%0Asecond | line\n") != NULL);
    char *md;
    size_t mlen;
    CHECK_EQ_INT(sb_read_file(sum, &md, &mlen, &e), SB_OK);
    CHECK(md && strstr(md, "before\n### sprbench gate: FAIL\n") == md);
    CHECK(md && strstr(md, "| FAIL | ") != NULL);
    CHECK(md && strstr(md, "100% slower second \\| line |") != NULL);
    free(md);
    free(ann);
    unlink(sum);
    sb_gate_result_free(&r);
}

/* Two regimes in one side's samples: flagged noisy, never a verdict. */
static void test_bimodal(void)
{
    double two[8] = {1.0, 1.01, 0.99, 1.0, 2.0, 2.02, 1.98, 2.0};
    double one[8] = {1.0, 1.02, 1.04, 1.06, 1.08, 1.10, 1.03, 1.05};
    double spike[8] = {1.0, 1.01, 0.99, 1.0,
                       1.0, 1.01, 0.99, 3.0}; /* one outlier: not two groups */
    double lo, hi;
    CHECK(sb_samples_bimodal(two, 8, &lo, &hi) && lo < 1.05 && hi > 1.95);
    CHECK(!sb_samples_bimodal(one, 8, NULL, NULL));
    CHECK(!sb_samples_bimodal(spike, 8, NULL, NULL));
    CHECK(!sb_samples_bimodal(two, 4, NULL, NULL)); /* too few to tell */
    sb_pt pb = make_pt("fp1", "scalar-f32", "ok", 8, 1, 1, 1);
    sb_pt pc = make_pt("fp1", "scalar-f32", "ok", 8, 1, 1, 2);
    memcpy(pc.samples, two, sizeof two);
    sb_ptset b, c;
    set_of(&b, &pb, 1);
    set_of(&c, &pc, 1);
    sb_gate_opts o = SB_GATE_OPTS_INIT;
    sb_gate_result r;
    sb_err e = {0};
    CHECK_EQ_INT(sb_gate_compare(&b, &c, &o, &r, &e), SB_OK);
    CHECK(r.n == 1 && r.rows[0].verdict == SB_WARN && strstr(r.rows[0].note, "noisy"));
    sb_gate_result_free(&r);
    sb_ptset_free(&b);
    sb_ptset_free(&c);
}

/* Pooled rounds: the candidate must be slower in every round than the
 * baseline in any, or the difference is within the machine's noise. */
static sb_verdict rounds_verdict(const double *brounds, const double *crounds, sb_gate_result *keep)
{
    sb_pt pb[3], pc[3];
    for (int i = 0; i < 3; i++) {
        pb[i] = make_pt("fp1", "scalar-f32", "ok", 8, brounds[i], 1, 10 + i);
        pc[i] = make_pt("fp1", "scalar-f32", "ok", 8, crounds[i], 1, 20 + i);
        pb[i].id = 1 + i;
        pc[i].id = 11 + i;
    }
    return compare_sets(pb, 3, pc, 3, 1, keep);
}

static void test_rounds(void)
{
    const double base[3] = {1.0, 1.2, 0.9};
    const double overlap[3] = {1.1, 1.15, 1.25}; /* slower pooled, but 1.1 < 1.2 */
    const double slower[3] = {1.3, 1.35, 1.4};
    sb_gate_result r;
    CHECK_EQ_INT(rounds_verdict(base, overlap, &r), SB_WARN);
    CHECK(r.n == 1 && strstr(r.rows[0].note, "rounds overlap"));
    sb_gate_result_free(&r);
    CHECK_EQ_INT(rounds_verdict(base, slower, &r), SB_FAIL);
    CHECK(r.n == 1 && strstr(r.rows[0].note, "in every round"));
    sb_gate_result_free(&r);
}

/* The path a kernel really ran, for its %peak: oneDNN's dispatched ISA. */
static void test_peak_paths(void)
{
    const sb_kernel *f32 = sb_kernel_find("onednn-f32"), *bf16 = sb_kernel_find("onednn-bf16"),
                    *i8 = sb_kernel_find("onednn-int8"), *amx = sb_kernel_find("amx-bf16");
    CHECK(f32 && bf16 && i8 && amx);
    if (!f32 || !bf16 || !i8 || !amx) return;
    static const struct {
        int k; /* 0 f32, 1 bf16, 2 int8 */
        const char *impl, *want;
    } cases[] = {
        {1, "brg:avx512_core_amx", "amx_bf16"},  {2, "brg:avx512_core_amx", "amx_int8"},
        {1, "brg:avx512_core_bf16", "bf16"},     {2, "brg:avx512_core_vnni", "int8"},
        {0, "brg:avx512_core", "f32"},           {0, "gemm:jit (max isa avx2)", "avx2_f32"},
        {2, "brg:avx2_vnni", "avx2_int8"},       {1, "gemm:jit (max isa avx2)", "avx2_f32"},
        {0, "gemm:jit (max isa sse41)", "sse41"}};
    const sb_kernel *ks[3] = {f32, bf16, i8};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *got = sb_peak_path_ran(ks[cases[i].k], cases[i].impl);
        CHECKF(!strcmp(got, cases[i].want), "%s on %s: %s, expected %s", ks[cases[i].k]->name,
               cases[i].impl, got, cases[i].want);
    }
    /* no implementation named: the kernel's own path */
    CHECK(!strcmp(sb_peak_path_ran(amx, NULL), amx->isa));
    CHECK(!strcmp(sb_peak_path_ran(f32, "ref:any"), f32->isa));
}

/* pct_peak, the one formula of the GEMM worker, the sweep and an import
 * (#45): the rate against the per-core peak x threads, the path in its unit */
static void test_pct_peak(void)
{
    char u[80];
    CHECK(fabs(sb_pct_peak(50, 100, 2, "amx_bf16", u, sizeof u) - 25.0) < 1e-12);
    CHECK(!strcmp(u, "% of amx_bf16 peak"));
    /* bit for bit what the three copies computed */
    double gf = 123.456, peak = 78.9;
    CHECK(sb_pct_peak(gf, peak, 3, "f32", NULL, 0) == 100.0 * gf / (peak * 3));
    /* fewer than one thread count as one */
    CHECK(sb_pct_peak(10, 100, 0, "f32", NULL, 0) == 10.0);
    CHECK(sb_pct_peak(10, 100, -4, "f32", NULL, 0) == 10.0);
    /* no share without a peak or a rate; the unit still names the path */
    CHECK(sb_pct_peak(10, 0, 1, "avx2_f32", u, sizeof u) == 0);
    CHECK(!strcmp(u, "% of avx2_f32 peak"));
    CHECK(sb_pct_peak(0, 100, 1, "f32", NULL, 0) == 0);
    CHECK(sb_pct_peak(NAN, 100, 1, "f32", NULL, 0) == 0);
    CHECK(sb_pct_peak(10, NAN, 1, "f32", NULL, 0) == 0);
    /* an unknown path is "?"; a long one cut, never overrun */
    sb_pct_peak(1, 1, 1, NULL, u, sizeof u);
    CHECK(!strcmp(u, "% of ? peak"));
    sb_pct_peak(1, 1, 1, "", u, sizeof u);
    CHECK(!strcmp(u, "% of ? peak"));
    char big[200], small[12];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    sb_pct_peak(1, 1, 1, big, u, sizeof u);
    CHECK_EQ_INT((int)strlen(u), 5 + 60 + 5);
    sb_pct_peak(1, 1, 1, "amx_bf16", small, sizeof small);
    CHECK(!strcmp(small, "% of amx_bf"));
}

static void test_references(void)
{
    const char *text = "# machine workload kernel shape threads metric value lower upper unit\n"
                       "fp1 gemm scalar-f32 64x64x64:NN 1 gflops 0.524 -10% +10% GFLOP/s\n"
                       "*   gemm avx512-f32 *           * seconds 1e-4 null +5%\n"
                       "fp1 gemm vnni-int8  *           * gflops 1 -5% null\n";
    sb_reference *refs;
    int n;
    sb_err e = {0};
    CHECK_EQ_INT(sb_gate_parse_references(text, "refs", &refs, &n, &e), SB_OK);
    CHECK_EQ_INT(n, 3);
    CHECK(n == 3 && fabs(refs[0].lower + 0.1) < 1e-12 && isnan(refs[1].lower) &&
          refs[1].threads == -1);
    /* scalar: 2*64^3/1e-3/1e9 = 0.524 GFLOP/s: PASS; avx512 at 1.2e-4 s: 20 % over: FAIL;
     * vnni-int8 not run: WARN (missing) */
    sb_pt pts[2] = {make_pt("fp1", "scalar-f32", "ok", 8, 1e-3, 1, 1),
                    make_pt("fp1", "avx512-f32", "ok", 8, 1e-4, 1.2, 2)};
    sb_ptset c;
    set_of(&c, pts, 2);
    sb_gate_opts o = SB_GATE_OPTS_INIT;
    sb_gate_result r;
    CHECK_EQ_INT(sb_gate_references(refs, n, &c, &o, &r, &e), SB_OK);
    CHECK_EQ_INT(r.n, 3);
    CHECK_EQ_INT(r.count[SB_PASS], 1);
    CHECK_EQ_INT(r.count[SB_FAIL], 1);
    CHECK_EQ_INT(r.count[SB_WARN], 1);
    sb_gate_result_free(&r);
    free(refs);
    /* a machine nothing refers to is a mismatch */
    CHECK_EQ_INT(sb_gate_parse_references("abcdef gemm scalar-f32 * * gflops 1 -5% +5%\n", "r",
                                          &refs, &n, &e),
                 SB_OK);
    CHECK_EQ_INT(sb_gate_references(refs, n, &c, &o, &r, &e), SB_OK);
    CHECK(r.count[SB_FAIL] == 1 && r.n == 1 && strstr(r.rows[0].note, "machine mismatch"));
    sb_gate_result_free(&r);
    free(refs);
    sb_ptset_free(&c);

    static const char *const bad[] = {
        "fp1 gemm k s 1 gflops 1 -5%\n",             /* too few fields */
        "fp1 gemm k s 1 gflops abc -5% +5%\n",       /* value */
        "fp1 gemm k s 1 gflops 1 +5% +5%\n",         /* lower > 0 */
        "fp1 gemm k s x gflops 1 -5% +5%\n",         /* threads */
        "fp1 gemm k s 1 gflops 1 -5% +5% u extra\n", /* too many */
        "# only a comment\n",                        /* nothing */
        "fp1 gemm k s 1 gflops 1e999 -5% +5%\n",     /* huge */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sb_err be = {0};
        CHECK_EQ_INT(sb_gate_parse_references(bad[i], "bad.ref", &refs, &n, &be), SB_EUSAGE);
        CHECK(strncmp(be.msg, "bad.ref", 7) == 0);
    }
}

static void test_base64(void)
{
    static const char *const in[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar"};
    static const char *const want[] = {"",         "Zg==",     "Zm8=",    "Zm9v",
                                       "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy"};
    for (int i = 0; i < 7; i++) {
        char *b = sb_base64((const unsigned char *)in[i], strlen(in[i]));
        CHECK(b && !strcmp(b, want[i]));
        free(b);
    }
}

/* A metric no point holds is a usage error naming the known ones, never an
 * empty comparison that passes; the rows say which points were compared. */
static void test_metric_names(void)
{
    sb_ptset b, c;
    sb_pt pb = make_pt("fp1", "scalar-f32", "ok", 8, 1e-3, 1.0, 7);
    sb_pt pc = make_pt("fp1", "scalar-f32", "ok", 8, 1e-3, 3.0, 99);
    pb.id = 5;
    pc.id = 9;
    set_of(&b, &pb, 1);
    set_of(&c, &pc, 1);
    sb_err e = {0};
    const char *typo[] = {"gflop", NULL};
    CHECK_EQ_INT(sb_gate_check_metrics(typo, &b, &c, &e), SB_EUSAGE);
    CHECKF(!strcmp(e.msg, "unknown metric 'gflop' (known: gflops, seconds)"), "got '%s'", e.msg);
    const char *good[] = {"gflops", "seconds", NULL};
    CHECK_EQ_INT(sb_gate_check_metrics(good, &b, &c, &e), SB_OK);
    CHECK_EQ_INT(sb_gate_check_metrics(typo, NULL, &c, &e), SB_EUSAGE); /* references mode */
    /* a metric held only by the scaling model's points is not comparable */
    free(pc.status);
    pc.status = strdup("projected");
    c.p[0] = pc;
    const char *only[] = {"gflops", NULL};
    sb_ptset none = {0};
    CHECK_EQ_INT(sb_gate_check_metrics(only, &none, &c, &e), SB_EUSAGE);
    free(pc.status);
    pc.status = strdup("ok");
    c.p[0] = pc;
    /* the 3x slowdown the typo hid is a FAIL under the right name */
    sb_gate_opts o = SB_GATE_OPTS_INIT;
    o.metrics = good;
    sb_gate_result r;
    CHECK_EQ_INT(sb_gate_compare(&b, &c, &o, &r, &e), SB_OK);
    CHECK_EQ_INT(r.n, 2);
    CHECK_EQ_INT(r.count[SB_FAIL], 2);
    CHECK(r.n > 0 && r.rows[0].base_id == 5 && r.rows[0].cand_id == 9 && r.rows[0].env[0] == '\0');
    sb_gate_result_free(&r);
    free(b.p);
    free(c.p);
}

/* The verdicts as JSON: counts, the cost ratio, null where a row has none. */
static void test_json(void)
{
    sb_gate_result r;
    CHECK_EQ_INT(one(1.10, 10, 10, "ok", &r), SB_FAIL);
    json_t *d = sb_gate_json(&r);
    CHECK(d != NULL);
    CHECK_EQ_INT((int)json_integer_value(json_object_get(d, "fail")), 1);
    CHECK_EQ_INT((int)json_integer_value(json_object_get(d, "compared")), 1);
    json_t *row = json_array_get(json_object_get(d, "rows"), 0);
    CHECK(!strcmp(json_string_value(json_object_get(row, "verdict")), "FAIL"));
    double ratio = json_real_value(json_object_get(row, "cost_ratio"));
    CHECK(ratio > 1.05 && ratio < 1.15);
    CHECK(json_real_value(json_object_get(row, "p")) < 0.01);
    char *text = json_dumps(d, 0);
    json_t *back = text ? json_loads(text, 0, NULL) : NULL;
    CHECK(back != NULL); /* a document that parses again */
    json_decref(back);
    free(text);
    json_decref(d);
    sb_gate_result_free(&r);
    CHECK_EQ_INT(one(1.00, 3, 10, "ok", &r), SB_WARN); /* too few: no test, no p */
    d = sb_gate_json(&r);
    row = json_array_get(json_object_get(d, "rows"), 0);
    CHECK(json_is_null(json_object_get(row, "p")) &&
          json_is_null(json_object_get(row, "interval")));
    json_decref(d);
    sb_gate_result_free(&r);
}

/* What cannot be gated is refused before any verdict, in one line naming
 * the sides: no points, a run against itself, another machine. */
static void test_sides_check(void)
{
    sb_gate_side b = {0}, c = {0}, none = {0};
    sb_pt pb = make_pt("fpA", "scalar-f32", "ok", 6, 1e-3, 1.0, 7);
    sb_pt pc = make_pt("fpB", "scalar-f32", "ok", 6, 1e-3, 1.0, 9);
    set_of(&b.set, &pb, 1);
    set_of(&c.set, &pc, 1);
    b.set.p[0].id = 1;
    c.set.p[0].id = 2;
    strcpy(b.what, "sweep 1");
    strcpy(c.what, "sweep 2");
    strcpy(none.what, "sweep 3");
    strcpy(b.file, "/x/a.db");
    strcpy(c.file, "/x/a.db");
    sb_gate_opts o = SB_GATE_OPTS_INIT;
    sb_err e = {0};
    CHECK_EQ_INT(sb_gate_sides_check(&b, &none, &o, &e), SB_EUSAGE);
    CHECK(strstr(e.msg, "candidate sweep 3 has no points") != NULL);
    CHECK_EQ_INT(sb_gate_sides_check(&none, &c, &o, &e), SB_EUSAGE);
    CHECK(strstr(e.msg, "baseline sweep 3 has no points") != NULL);
    CHECK_EQ_INT(sb_gate_sides_check(NULL, &c, &o, &e), SB_OK); /* references: candidate only */
    CHECK_EQ_INT(sb_gate_sides_check(&b, &c, &o, &e), SB_EUSAGE);
    CHECK(strstr(e.msg, "ran on machine fpB, the baseline (sweep 1) never did") != NULL);
    o.cross_machine = 1;
    CHECK_EQ_INT(sb_gate_sides_check(&b, &c, &o, &e), SB_OK);
    /* a run against itself, by content (uuids), whatever the files are called */
    strcpy(b.set.p[0].uuid, "0123456789abcdef0123456789abcdef");
    strcpy(b.set.p[0].sweep_uuid, "11111111111111111111111111111111");
    strcpy(c.set.p[0].uuid, "fedcba9876543210fedcba9876543210");
    strcpy(c.set.p[0].sweep_uuid, "22222222222222222222222222222222");
    CHECK_EQ_INT(sb_gate_sides_check(&b, &b, &o, &e), SB_EUSAGE);
    CHECK(strstr(e.msg, "holds the candidate's sweep 11111111 (the same sweep uuid") != NULL);
    CHECK(strstr(e.msg, "gated against itself") != NULL);
    c.file[0] = '\0'; /* two files holding different runs are two runs */
    CHECK_EQ_INT(sb_gate_sides_check(&b, &c, &o, &e), SB_OK);
    strcpy(c.set.p[0].uuid, b.set.p[0].uuid); /* a point of b imported into c's sweep */
    CHECK_EQ_INT(sb_gate_sides_check(&b, &c, &o, &e), SB_EUSAGE);
    CHECK(strstr(e.msg, "holds the candidate's point 01234567 (the same point uuid") != NULL);
    strcpy(b.file, "/x/b.db"); /* another name for a copy changes nothing */
    CHECK_EQ_INT(sb_gate_sides_check(&b, &c, &o, &e), SB_EUSAGE);
    sb_gate_side_free(&b);
    sb_gate_side_free(&c);
}

/* The exact distribution of a bootstrap median, by enumerating every
 * resample of n <= 7 values (n^n of them): P(median <= v) for each v of
 * the grid, against the O(1) draws of sb_bootstrap_median. */
static void check_bootstrap_median(int n)
{
    double sorted[7], vals[64], want[64] = {0}, got[64] = {0};
    int nv = 0;
    for (int i = 0; i < n; i++) sorted[i] = 1 << i; /* medians of two are distinct */
    long total = 1;
    for (int i = 0; i < n; i++) total *= n;
    int idx[7] = {0};
    for (long r = 0; r < total; r++) {
        double v[7];
        for (int i = 0; i < n; i++) v[i] = sorted[idx[i]];
        double m = sb_median(v, n);
        int j = 0;
        while (j < nv && vals[j] != m) j++;
        if (j == nv && nv < 64) vals[nv++] = m;
        if (j < 64) want[j] += 1.0 / (double)total;
        for (int i = 0; i < n && ++idx[i] == n; i++) idx[i] = 0;
    }
    uint64_t st = 12345;
    const int draws = 200000;
    int impossible = 0; /* a median no resample can have */
    for (int d = 0; d < draws; d++) {
        double m = sb_bootstrap_median(sorted, n, &st);
        int j = 0;
        while (j < nv && vals[j] != m) j++;
        if (j < nv)
            got[j] += 1.0 / draws;
        else
            impossible++;
    }
    CHECK_EQ_INT(impossible, 0);
    /* the CDFs over the values in order agree within 0.005 (4 sd) */
    double worst = 0;
    for (int a = 0; a < nv; a++) {
        double fw = 0, fg = 0;
        for (int b = 0; b < nv; b++)
            if (vals[b] <= vals[a]) fw += want[b], fg += got[b];
        if (fabs(fw - fg) > worst) worst = fabs(fw - fg);
    }
    CHECK(worst < 0.005);
}

/* The U statistic from one sort equals the count of pairs (ties a half),
 * with many ties: the p values agree with the pairwise definition. */
static void test_mwu_ranks(void)
{
    enum { NX = 300, NY = 250 };
    static double x[NX], y[NY];
    unsigned s = 11;
    for (int i = 0; i < NX; i++) x[i] = (double)(rand_r(&s) % 40);
    for (int j = 0; j < NY; j++) y[j] = (double)(rand_r(&s) % 37);
    double u = 0;
    for (int i = 0; i < NX; i++)
        for (int j = 0; j < NY; j++) u += x[i] > y[j] ? 1.0 : x[i] == y[j] ? 0.5 : 0.0;
    /* ties from counts of each value */
    double ties = 0;
    for (int v = 0; v < 40; v++) {
        double t = 0;
        for (int i = 0; i < NX; i++) t += x[i] == v;
        for (int j = 0; j < NY; j++) t += y[j] == v;
        ties += t * t * t - t;
    }
    int N = NX + NY;
    double mean = NX * (double)NY / 2;
    double var = NX * (double)NY / 12.0 * ((N + 1) - ties / ((double)N * (N - 1)));
    double want = 0.5 * erfc((u - mean - 0.5) / sqrt(var) / sqrt(2.0));
    CHECK(fabs(sb_mwu_p_greater(x, NX, y, NY) - want) < 1e-12);
    check_bootstrap_median(7);
    check_bootstrap_median(6);
    check_bootstrap_median(1);
}

/* A metric row's name with its '*' filled by what it stands for. */
static void metric_name(const sb_metric_info *m, char *buf, size_t cap)
{
    static const char *const fill[] = {"", "1024", "4", "f32", "qkv"}; /* by sb_metric_star */
    const char *star = strchr(m->name, '*');
    if (!star)
        snprintf(buf, cap, "%s", m->name);
    else
        snprintf(buf, cap, "%.*s%s%s", (int)(star - m->name), m->name, fill[m->star], star + 1);
}

/* One point of metric `name` (value v, stored unit) over samples x scale. */
static sb_pt metric_pt(const char *name, const char *unit, double v, double scale, unsigned seed)
{
    sb_pt p = make_pt("fp1", "scalar-f32", "ok", 20, 1e-3, scale, seed);
    free(p.metrics[0].name);
    free(p.metrics[0].unit);
    p.metrics[0].name = strdup(name);
    p.metrics[0].unit = strdup(unit);
    p.metrics[0].value = v;
    return p;
}

/* For every metric of the table (the workload rows' own included), the
 * gate's direction and the plot's band agree with the table and so with
 * each other: a candidate 30 % worse by the table's word FAILs `gate
 * --metric`, 30 % better PASSes, and plot --history's band is a time's
 * (scaled with the samples) exactly where the table says lower is better.
 * A metric of one value a point (accuracy, error, memory, a count) is
 * neither judged nor banded on the samples' timing noise. */
static void test_directions_agree(void)
{
    for (int i = 0; i < sb_metric_count(); i++) {
        const sb_metric_info *m = sb_metric_at(i);
        char name[128];
        metric_name(m, name, sizeof name);
        if (!strcmp(name, "seconds")) continue; /* the raw samples, not a metric */
        int lower = sb_metric_lower(name, m->unit);
        for (int worse = 0; worse < 2; worse++) {
            double f = worse ? 1.3 : 1 / 1.3; /* the candidate's samples: slower or faster */
            sb_pt pb = metric_pt(name, m->unit, 100, 1.0, 7);
            sb_pt pc = metric_pt(name, m->unit, lower ? 100 * f : 100 / f, f, 99);
            sb_ptset b, c;
            set_of(&b, &pb, 1);
            set_of(&c, &pc, 1);
            const char *metrics[] = {name, NULL};
            sb_gate_opts o = SB_GATE_OPTS_INIT;
            o.metrics = metrics;
            sb_gate_result r;
            sb_err e = {0};
            CHECK_EQ_INT(sb_gate_compare(&b, &c, &o, &r, &e), SB_OK);
            /* a figure of the samples is judged on them; a metric of one
             * value a point (an accuracy, an error) is never judged on
             * timing noise: too few values, a warning, never PASS or FAIL */
            int judged = sb_metric_per_sample(name);
            sb_verdict want = !judged ? SB_WARN : worse ? SB_FAIL : SB_PASS;
            CHECKF(r.n == 1 && r.rows[0].verdict == want, "%s (%s is better) %s: gate said %d",
                   name, lower ? "lower" : "higher", worse ? "30%% worse" : "30%% better",
                   r.n ? (int)r.rows[0].verdict : -1);
            if (!judged && r.n == 1)
                CHECKF(strstr(r.rows[0].note, "sample") != NULL, "%s: note '%s'", name,
                       r.rows[0].note);
            sb_gate_result_free(&r);
            sb_ptset_free(&b);
            sb_ptset_free(&c);
        }
        /* the band over samples skewed upwards: a time's reaches further up */
        const double xs[] = {1, 1, 1, 1, 1, 1, 1, 1, 2, 3};
        double lo, hi, p10 = sb_quantile(xs, 10, 0.1), p90 = sb_quantile(xs, 10, 0.9);
        double med = sb_median(xs, 10);
        sb_plot_band(name, m->unit, 100, xs, 10, &lo, &hi);
        if (!sb_metric_per_sample(name))
            CHECKF(lo == 100 && hi == 100, "%s: one value a point, but a band [%g, %g]", name, lo,
                   hi);
        else if (lower)
            CHECKF(fabs(lo - 100 * p10 / med) < 1e-9 && fabs(hi - 100 * p90 / med) < 1e-9,
                   "%s: lower is better, but the band [%g, %g] is a rate's", name, lo, hi);
        else
            CHECKF(fabs(lo - 100 * med / p90) < 1e-9 && fabs(hi - 100 * med / p10) < 1e-9,
                   "%s: higher is better, but the band [%g, %g] is a time's", name, lo, hi);
    }
}

int main(void)
{
    test_sides_check();
    test_json();
    test_mwu();
    test_mwu_ranks();
    test_verdicts();
    test_statuses();
    test_peak_paths();
    test_pct_peak();
    test_bimodal();
    test_rounds();
    test_references();
    test_base64();
    test_metric_names();
    test_directions_agree();
    return test_report("test_results_gate");
}
