/* sb_metric: the metric table (every row a unit, a direction, a role;
 * families resolve, near misses do not; a metric the table does not know
 * follows its unit), today's four guesses reproduced for every metric the
 * table holds except the named fixes, and the result document's "better". */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "sb_metric.h"
#include "sb_peak.h"
#include "sb_result.h"
#include "testutil.h"

/* The gate's guess before the table (study/sb_gate.c, 01d1968). */
static int old_gate_lower(const char *name)
{
    size_t n = strlen(name);
    if (strstr(name, "per_s") || strstr(name, "_per_") || strstr(name, "flops") ||
        strstr(name, "gops") || strstr(name, "bw"))
        return 0;
#define ENDS(s) (n >= strlen(s) && !strcmp(name + n - strlen(s), s))
    return ENDS("seconds") || ENDS("_s") || ENDS("_ms") || ENDS("_us") || ENDS("_ns") ||
        strstr(name, "latency") != NULL || strstr(name, "time") != NULL;
#undef ENDS
}

/* The plot's band before the table (study/sb_plot.c spread()): 1 a rate. */
static int old_plot_rate(const char *name)
{
    return !strcmp(name, "gflops") || !strcmp(name, "gops") || strstr(name, "per_s") != NULL;
}

/* Where the table answers otherwise than the gate did, on purpose: each a
 * lower-is-better metric the name guess called higher (or the reverse). */
static const char *const g_gate_fixed[] = {"max_rel_error",
                                           "loss_first",
                                           "loss_final",
                                           "peak_rss_mb",
                                           "load_imbalance",
                                           "allreduce_mb_per_step",
                                           "embedding_rows_per_step",
                                           "lat_us_*",
                                           "lat_min_us_*",
                                           "lat_max_us_*",
                                           "epoch_seconds_overlap_n*",
                                           "epoch_seconds_no_overlap_n*",
                                           "epoch_seconds_ideal_n*",
                                           "comm_seconds_per_step_n*",
                                           "exposed_seconds_per_step_n*",
                                           /* LayerNorm's own (its row): the guess
                                            * read "_per_" as a rate and an error
                                            * as higher is better */
                                           "ns_per_row",
                                           "max_abs_error",
                                           NULL};

static int listed(const char *const *list, const char *row)
{
    for (; *list; list++)
        if (!strcmp(*list, row)) return 1;
    return 0;
}

/* A name of the row: the row's own, or its family with a sample star. */
static void sample(const sb_metric_info *m, int k, char *out, size_t cap)
{
    const char *star = strchr(m->name, '*');
    if (!star) {
        snprintf(out, cap, "%s", m->name);
        return;
    }
    const char *fill = m->star == SB_MSTAR_BYTES ? (k % 2 ? "grad" : "1048576")
        : m->star == SB_MSTAR_NODES              ? "16"
        : m->star == SB_MSTAR_PATH               ? sb_peak_paths[k % SB_PEAK_NPATHS]
                                                 : "qkv_linear";
    snprintf(out, cap, "%.*s%s%s", (int)(star - m->name), m->name, fill, star + 1);
}

static void table_rows(void)
{
    int n = sb_metric_count(), headlines = 0;
    CHECK(n > 50);
    for (int i = 0; i < n; i++) {
        const sb_metric_info *m = sb_metric_at(i);
        CHECKF(m->unit != NULL, "%s has no unit", m->name);
        CHECKF(m->lower == 0 || m->lower == 1, "%s has no direction", m->name);
        CHECKF(strcmp(sb_metric_role_name(m->role), "?"), "%s has no role", m->name);
        const char *star = strchr(m->name, '*');
        CHECKF((star != NULL) == (m->star != SB_MSTAR_NONE), "%s: star and '*' disagree", m->name);
        CHECKF(!star || !strchr(star + 1, '*'), "%s: one '*' at most", m->name);
        /* a unit that is a time is the direction lower */
        if (sb_metric_unit_is_time(m->unit)) CHECKF(m->lower, "%s: a time, higher?", m->name);
        headlines += m->role == SB_MROLE_HEADLINE;
        if (m->role == SB_MROLE_HEADLINE) CHECKF(!star, "headline %s is a family", m->name);
        for (int k = 0; k < (m->star == SB_MSTAR_PATH ? SB_PEAK_NPATHS : 2); k++) {
            char name[128];
            sample(m, k, name, sizeof name);
            CHECKF(sb_metric_info_of(name) == m, "%s does not resolve to its row %s", name,
                   m->name);
            CHECKF(!strcmp(sb_metric_better(name, "s"), m->lower ? "lower" : "higher"),
                   "%s: the table's direction, not the unit's", name);
            /* today's guesses, the named fixes apart */
            if (strcmp(m->name, "seconds")) /* the gate's raw samples: never a name guess */
                CHECKF(old_gate_lower(name) == m->lower || listed(g_gate_fixed, m->name),
                       "%s: gate said %s, table %s (not a named fix)", name,
                       old_gate_lower(name) ? "lower" : "higher", m->lower ? "lower" : "higher");
        }
        for (int j = 0; j < i; j++)
            CHECKF(strcmp(sb_metric_at(j)->name, m->name), "%s twice", m->name);
    }
    CHECK_EQ_INT(headlines, 5); /* gemm, train/infer, stream, epochs; layernorm's own */
    /* headlines in the listing's order */
    CHECK(!strcmp(sb_metric_at(0)->name, "gflops"));
    CHECK(!strcmp(sb_metric_at(1)->name, "tokens_per_s"));
}

static void families(void)
{
    const sb_metric_info *m = sb_metric_info_of("busbw_gbs_4096");
    CHECK(m && !strcmp(m->name, "busbw_gbs_*") && !m->lower && !strcmp(m->unit, "GB/s"));
    m = sb_metric_info_of("lat_max_us_grad");
    CHECK(m && !strcmp(m->name, "lat_max_us_*") && m->lower && m->role == SB_MROLE_LATENCY);
    m = sb_metric_info_of("lat_us_64");
    CHECK(m && !strcmp(m->name, "lat_us_*"));
    /* every peak path's metrics, as kernels/sb_isa.def names them */
    for (int i = 0; i < SB_PEAK_NPATHS; i++) {
        char one[96], clock[96];
        snprintf(one, sizeof one, "%s_1t", sb_peak_metrics[i]);
        snprintf(clock, sizeof clock, "%s_clock_ghz", sb_peak_paths[i]);
        const sb_metric_info *a = sb_metric_info_of(sb_peak_metrics[i]),
                             *b = sb_metric_info_of(one), *c = sb_metric_info_of(clock);
        CHECKF(a && a->role == SB_MROLE_PEAK && !a->lower, "%s", sb_peak_metrics[i]);
        CHECKF(b && b->role == SB_MROLE_PEAK && !strcmp(a->unit, b->unit), "%s", one);
        CHECKF(a && !strcmp(a->unit, strstr(sb_peak_metrics[i], "gops") ? "GOP/s" : "GFLOP/s"),
               "%s's unit", sb_peak_metrics[i]);
        CHECKF(c && !strcmp(c->unit, "GHz"), "%s", clock);
    }
    /* an exact row wins over the family its name would fit */
    m = sb_metric_info_of("achieved_gflops");
    CHECK(m && !strcmp(m->name, "achieved_gflops") && m->role == SB_MROLE_RATE);
    m = sb_metric_info_of("epoch_seconds_overlap_n8");
    CHECK(m && m->role == SB_MROLE_MODEL && m->lower);
    CHECK(sb_metric_info_of("speedup_n2") && !sb_metric_lower("speedup_n2", "x"));
    m = sb_metric_info_of("prof_qkv_linear_s");
    CHECK(m && m->lower && !strcmp(m->unit, "s"));
    /* near misses are not in the table */
    static const char *const miss[] = {"busbw_gbs_", "busbw_gbs_12k", "lat_us",     "avx9_gflops",
                                       "_gflops",    "speedup_n",     "speedup_nx", "prof__s_",
                                       "Gflops",     "busbw_gbps",    "gops",       NULL};
    for (int i = 0; miss[i]; i++) CHECKF(!sb_metric_info_of(miss[i]), "%s resolves", miss[i]);
    CHECK(!sb_metric_info_of(NULL));
}

static void unknown_follow_unit(void)
{
    /* not in the table: the unit decides, never the name */
    CHECK(sb_metric_lower("layernorm_us", "us"));
    CHECK(sb_metric_lower("whatever", "ms"));
    CHECK(sb_metric_lower("throughput", "ns"));
    CHECK(sb_metric_lower("x", "s"));
    CHECK(!sb_metric_lower("layernorm_time_seconds", "GB/s"));
    CHECK(!sb_metric_lower("latency_ms", ""));
    CHECK(!sb_metric_lower("latency_ms", NULL));
    CHECK(!sb_metric_lower("elapsed", "sec")); /* only s, ms, us, ns */
    CHECK(!strcmp(sb_metric_better("x_s", "s"), "lower"));
    CHECK(!strcmp(sb_metric_better("x_s", "items/s"), "higher"));
    /* in the table: the table, whatever a store says */
    CHECK(!sb_metric_lower("gflops", "s"));
    CHECK(sb_metric_lower("median_s", ""));
    CHECK(sb_metric_lower("seconds", NULL));
    /* units */
    CHECK(!strcmp(sb_metric_unit("gflops", 0), "GFLOP/s"));
    CHECK(!strcmp(sb_metric_unit("gflops", 1), "GOP/s"));
    CHECK(!strcmp(sb_metric_unit("triad_gbps", 1), "GB/s"));
    CHECK(!strcmp(sb_metric_unit("epoch_seconds_ideal_n4", 0), "s"));
    CHECK(sb_metric_unit("loss_final", 0) == NULL); /* a pure number */
    CHECK(sb_metric_unit("nope", 0) == NULL);
}

/* The plot's band: the rate metrics the name guess missed now spread as
 * rates (their samples are seconds); what the guess called a rate stays one,
 * but for the per-step volumes and times whose names hold "per_s". */
static void plot_band(void)
{
    static const char *const now_rate[] = {
        "triad_gbps",      "copy_best_gbps", "busbw_gbs_1024", "algbw_gbs_grad",
        "achieved_gflops", "pct_peak",       "f32_gflops",     NULL};
    for (int i = 0; now_rate[i]; i++) {
        CHECKF(!old_plot_rate(now_rate[i]), "%s was a rate already", now_rate[i]);
        CHECKF(!sb_metric_lower(now_rate[i], NULL), "%s is not a rate", now_rate[i]);
    }
    /* a rate to the guess, lower-is-better to the table: only the four
     * "..._per_step" ("per_s" in their name) */
    static const char *const per_step[] = {"allreduce_mb_per_step", "embedding_rows_per_step",
                                           "comm_seconds_per_step_n*",
                                           "exposed_seconds_per_step_n*", NULL};
    for (int i = 0; i < sb_metric_count(); i++) {
        char name[128];
        sample(sb_metric_at(i), 0, name, sizeof name);
        if (old_plot_rate(name))
            CHECKF(!sb_metric_lower(name, NULL) || listed(per_step, sb_metric_at(i)->name),
                   "%s: no longer a rate", name);
    }
}

static void document(void)
{
    json_t *doc = sb_result_new(
        &(sb_result_head){"gemm", "scalar-f32", "f32", 1, 1, 1, 1, "ok", ""});
    json_t *met = json_object_get(doc, "metrics"), *units = json_object_get(doc, "units");
    sb_result_metric(met, units, "gflops", 1.5, "GFLOP/s");
    json_object_set_new(met, "median_s", json_real(0.1));   /* no unit: the table's */
    sb_result_metric(met, units, "new_thing_us", 3, "us");  /* unknown: its unit's */
    sb_result_metric(met, units, "new_rate", 3, "items/s"); /* unknown: its unit's */
    sb_result_seal(doc, 0, NULL, NULL, NULL);
    json_t *b = json_object_get(doc, "better");
    CHECK(json_is_object(b) && json_object_size(b) == 4);
    CHECK(!strcmp(json_string_value(json_object_get(b, "gflops")), "higher"));
    CHECK(!strcmp(json_string_value(json_object_get(b, "median_s")), "lower"));
    CHECK(!strcmp(json_string_value(json_object_get(b, "new_thing_us")), "lower"));
    CHECK(!strcmp(json_string_value(json_object_get(b, "new_rate")), "higher"));
    /* beside "units" */
    const char *prev = NULL, *key;
    json_t *v;
    int beside = 0;
    json_object_foreach(doc, key, v)
    {
        if (!strcmp(key, "better")) beside = prev && !strcmp(prev, "units");
        prev = key;
    }
    CHECK(beside);
    /* a metric added after sealing (train, infer) is there once written */
    sb_result_metric(met, units, "peak_rss_mb", 10, "MiB");
    json_object_del(met, "new_rate");
    char path[] = "/tmp/sb-metric-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    sb_err e = {0};
    CHECK(sb_result_write(path, doc, &e) == 0);
    json_t *back = json_load_file(path, 0, NULL);
    b = json_object_get(back, "better");
    CHECK(json_object_size(b) == 4 && !json_object_get(b, "new_rate"));
    CHECK(!strcmp(json_string_value(json_object_get(b, "peak_rss_mb")), "lower"));
    json_decref(back);
    json_decref(doc);
    unlink(path);
}

/* --check FILE...: every metric of each result document is in the table,
 * its "better" is the table's, a unit it states is the table's; what
 * results_metric_cli.sh runs over each worker's document. */
static int check_file(const char *path)
{
    json_error_t je;
    json_t *doc = json_load_file(path, 0, &je);
    if (!doc) {
        fprintf(stderr, "%s: %s\n", path, je.text);
        return 1;
    }
    json_t *met = json_object_get(doc, "metrics"), *units = json_object_get(doc, "units"),
           *better = json_object_get(doc, "better");
    int bad = 0, n = 0;
    const char *name;
    json_t *v;
    if (!json_is_object(better) || json_object_size(better) != json_object_size(met)) {
        fprintf(stderr, "%s: \"better\" does not name every metric\n", path);
        bad++;
    }
    json_object_foreach(met, name, v)
    {
        n++;
        const sb_metric_info *m = sb_metric_info_of(name);
        const char *unit = json_string_value(json_object_get(units, name));
        const char *b = json_string_value(json_object_get(better, name));
        if (!m) {
            fprintf(stderr, "%s: metric %s is not in bench/sb_metric.def\n", path, name);
            bad++;
            continue;
        }
        if (!b || strcmp(b, m->lower ? "lower" : "higher")) {
            fprintf(stderr, "%s: %s better %s, the table says %s\n", path, name, b ? b : "(none)",
                    m->lower ? "lower" : "higher");
            bad++;
        }
        /* a unit the worker states is the table's ("% of <path> peak" is
         * pct_peak's "% of peak" with the path in it) */
        int same = !unit || !strcmp(unit, m->unit) ||
            (m->int8_unit && !strcmp(unit, m->int8_unit)) ||
            (!strcmp(m->unit, "% of peak") && !strncmp(unit, "% of ", 5) &&
             strstr(unit, " peak") != NULL);
        if (!same) {
            fprintf(stderr, "%s: %s in %s, the table says %s\n", path, name, unit, m->unit);
            bad++;
        }
    }
    printf("%s: %d metric(s), %d problem(s)\n", path, n, bad);
    json_decref(doc);
    return bad != 0;
}

/* The arithmetic in the metric's direction: one home (bench/sb_metric)
 * for the plot's and report's band, the speedups and the best-of loops. */
static void arithmetic(void)
{
    CHECK(sb_metric_speedup(200, 100, 0) == 2);  /* a rate twice as high */
    CHECK(sb_metric_speedup(50, 100, 1) == 2);   /* a time half as long */
    CHECK(sb_metric_speedup(100, 50, 1) == 0.5); /* twice as long: half */
    CHECK(sb_metric_better_of(2, 1, 0) && !sb_metric_better_of(1, 2, 0));
    CHECK(sb_metric_better_of(1, 2, 1) && !sb_metric_better_of(2, 1, 1));
    CHECK(!sb_metric_better_of(1, 1, 0) && !sb_metric_better_of(1, 1, 1)); /* a tie: the first */
    /* ten samples 1..10 s: median 5.5, p10 1.9, p90 9.1 (linear) */
    double xs[10], lo, hi;
    for (int i = 0; i < 10; i++) xs[i] = i + 1;
    CHECK(sb_metric_band(11, xs, 10, 1, &lo, &hi) == 1); /* a time scales with them */
    CHECKF(fabs(lo - 11 * 1.9 / 5.5) < 1e-12 && fabs(hi - 11 * 9.1 / 5.5) < 1e-12, "%g %g", lo,
           hi);
    CHECK(sb_metric_band(11, xs, 10, 0, &lo, &hi) == 1); /* a rate: inversely */
    CHECKF(fabs(lo - 11 * 5.5 / 9.1) < 1e-12 && fabs(hi - 11 * 5.5 / 1.9) < 1e-12, "%g %g", lo,
           hi);
    CHECK(lo <= 11 && 11 <= hi);
    CHECK(sb_metric_band(7, xs, 0, 0, &lo, &hi) == 0 && lo == 7 && hi == 7); /* no sample */
    double zero[3] = {0, 0, 0};
    CHECK(sb_metric_band(7, zero, 3, 0, &lo, &hi) == 0 && lo == 7 && hi == 7); /* no median */
    double some0[5] = {0, 0, 1, 1, 1}; /* p10 of 0: a rate's upper end unbounded */
    CHECK(sb_metric_band(7, some0, 5, 0, &lo, &hi) == 2 && isinf(hi));
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "--check")) {
        int bad = 0;
        for (int i = 2; i < argc; i++) bad |= check_file(argv[i]);
        return bad;
    }
    table_rows();
    families();
    unknown_follow_unit();
    plot_band();
    arithmetic();
    document();
    return test_report("test_results_metric");
}
