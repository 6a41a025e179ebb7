/* Export/import/merge/CSV, the two-machine report, and hostile imports,
 * on a database built through sb_db with constructed figures (an "Ice Lake"
 * and a "Sapphire Rapids" machine), so every ratio is known exactly. */
#include <stdlib.h>
#include <string.h>
#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>
#include "sb_db.h"
#include "sb_db_ingest.h"
#include "sb_db_sweep.h"
#include "sb_db_internal.h"
#include "sb_export.h"
#include "sb_import.h"
#include "sb_io.h"
#include "sb_ptset.h"
#include "sb_query.h"
#include "sb_report.h"
#include "testutil.h"

#define ICL "1ce1a4e0aaaa0001"
#define SPR "5a9a0000bbbb0002"

static char g_dir[64];

static int rm_one(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
    (void)sb;
    (void)type;
    (void)ftw;
    return remove(path);
}

static json_t *machine(const char *fp, const char *cpu, const char *uarch, int amx)
{
    return json_pack(
        "{s:s, s:s, s:{s:s, s:s, s:i, s:i, s:i, s:s},"
        " s:{s:b, s:b, s:b, s:b, s:b, s:b, s:b, s:s},"
        " s:{s:i, s:i, s:i, s:i, s:I, s:I, s:I}, s:{s:I}, s:s, s:s}",
        "fingerprint", fp, "hostname", amx ? "spr1" : "icl1", "cpu", "vendor", "GenuineIntel",
        "model", cpu, "family", 6, "model_number", amx ? 143 : 106, "stepping", 8, "microarch",
        uarch, "isa", "avx512f", 1, "avx512_vnni", 1, "avx512_bf16", amx, "amx_tile", amx,
        "amx_bf16", amx, "amx_int8", amx, "amx_os_permitted", amx, "amx_reason",
        amx ? "" : "CPU has no AMX (CPUID.7.0:EDX[24] amx_tile = 0)", "topology", "packages", 2,
        "numa_nodes", 2, "cores", amx ? 112 : 80, "pus", amx ? 224 : 160, "l1d_bytes",
        (json_int_t)49152, "l2_bytes", (json_int_t)(amx ? 2 << 20 : 1280 << 10), "l3_bytes",
        (json_int_t)(amx ? 105 << 20 : 60 << 20), "memory", "total_bytes", (json_int_t)512 << 30,
        "kernel", "6.1.0-13-amd64", "governor", "performance");
}

/* A result document: samples are the median `sec` times 1, 0.99, 1.01, ... */
static json_t *result(const char *workload, const char *kernel, const char *dtype,
                      const char *status, const char *reason, double sec, int n)
{
    json_t *samples = json_array();
    static const double f[] = {1.0, 0.99, 1.01, 0.98, 1.02, 0.97, 1.03, 1.0};
    for (int i = 0; i < n; i++) json_array_append_new(samples, json_real(sec * f[i % 8]));
    return json_pack("{s:s, s:s, s:s, s:s, s:s, s:o, s:{}, s:{}, s:{}}", "workload", workload,
                     "kernel", kernel, "dtype", dtype, "status", status, "reason", reason,
                     "samples", samples, "metrics", "units", "projected");
}

static void metric(json_t *r, const char *name, double v, const char *unit, const char *projected)
{
    json_object_set_new(json_object_get(r, "metrics"), name, json_real(v));
    json_object_set_new(json_object_get(r, "units"), name, json_string(unit));
    if (projected)
        json_object_set_new(json_object_get(r, "projected"), name, json_string(projected));
}

static int64_t point(sb_db *db, int64_t sweep, int64_t mach, int seq, const char *workload,
                     const char *kernel, const char *dtype, const char *shape, int threads, int ppn,
                     int nodes, json_t *res)
{
    sb_point_desc d = {.seq = seq,
                       .workload = workload,
                       .kernel = kernel,
                       .dtype = dtype,
                       .shape = shape,
                       .config = "{}",
                       .threads = threads,
                       .ppn = ppn,
                       .nodes = nodes,
                       .command = "sprbench ..."};
    int64_t id = 0;
    sb_err e = {0};
    CHECK_EQ_INT(sb_db_point_add(db, sweep, &d, mach, &id, &e), SB_OK);
    CHECK_EQ_INT(sb_db_point_ingest(db, id, res, &e), SB_OK);
    json_decref(res);
    return id;
}

/* Ice Lake: avx512-f32 GEMM 100 GFLOP/s, no AMX; epoch 800 s (projected).
 * Sapphire Rapids: 250 GFLOP/s (2.5x), amx-bf16 2000; best epoch 100 s (8x). */
static void build(sb_db *db)
{
    sb_err e = {0};
    int64_t m[2], s[2];
    json_t *mi = machine(ICL, "Intel(R) Xeon(R) Platinum 8380 CPU @ 2.30GHz", "Ice Lake", 0);
    json_t *ms = machine(SPR, "Intel(R) Xeon(R) Platinum 8480+", "Sapphire Rapids", 1);
    CHECK_EQ_INT(sb_db_machine_upsert(db, mi, &m[0], &e), SB_OK);
    CHECK_EQ_INT(sb_db_machine_upsert(db, ms, &m[1], &e), SB_OK);
    json_decref(mi);
    json_decref(ms);
    CHECK_EQ_INT(sb_db_sweep_create(db, "icl, \"quoted\"", "gemm", "plan", m[0], &s[0], &e), SB_OK);
    CHECK_EQ_INT(sb_db_sweep_create(db, "spr", "gemm", "plan", m[1], &s[1], &e), SB_OK);
    const double flops = 2.0 * 1024 * 1024 * 1024;
    for (int k = 0; k < 2; k++) {
        double g = k ? 250 : 100;
        json_t *r = result("gemm", "avx512-f32", "f32", "ok", "", flops / g / 1e9, 8);
        metric(r, "gflops", g, "GFLOP/s", NULL);
        point(db, s[k], m[k], 1, "gemm", "avx512-f32", "f32", "1024x1024x1024:NN", 4, 1, 1, r);
        r = k ? result("gemm", "amx-bf16", "bf16", "ok", "", flops / 2000 / 1e9, 8)
              : result("gemm", "amx-bf16", "bf16", "skipped",
                       "CPU has no AMX (CPUID.7.0:EDX[24] amx_tile = 0)", 0, 0);
        if (k) metric(r, "gflops", 2000, "GFLOP/s", NULL);
        point(db, s[k], m[k], 2, "gemm", "amx-bf16", "bf16", "1024x1024x1024:NN", 4, 1, 1, r);
        /* as sprbench peak writes it: no samples, threads = cores, reasons for skips */
        r = result("peak", "", "", "ok", "", 0, 0);
        metric(r, "f32_gflops", k ? 5000 : 3000, "GFLOP/s", NULL);
        metric(r, "f32_gflops_1t", k ? 90 : 75, "GFLOP/s", NULL);
        if (k)
            metric(r, "amx_bf16_gflops", 40000, "GFLOP/s", NULL);
        else
            json_object_set_new(
                r, "skipped",
                json_pack("{s:s}", "amx_bf16_gflops", "AMX not granted: no AMX on this CPU"));
        point(db, s[k], m[k], 3, "peak", "", "", "", k ? 112 : 80, 1, 1, r);
        /* training: a step of 4 s at 100 tokens/s on Ice Lake */
        r = result("train", "avx512-f32", "f32", "ok", "", k ? 2.6667 : 4.0, 8);
        metric(r, "tokens_per_s", k ? 150 : 100, "tokens/s", NULL);
        metric(r, "epoch_seconds", k ? 533.33 : 800, "s", "20 measured steps x steps per epoch");
        point(db, s[k], m[k], 4, "train", "avx512-f32", "f32",
              "model=distilbert-base batch=32 seq=384", 4, 1, 1, r);
        if (k) {
            r = result("train", "amx-bf16", "bf16", "ok", "", 0.5, 8);
            metric(r, "tokens_per_s", 800, "tokens/s", NULL);
            metric(r, "epoch_seconds", 100, "s", "20 measured steps x steps per epoch");
            point(db, s[k], m[k], 5, "train", "amx-bf16", "bf16",
                  "model=distilbert-base batch=32 seq=384", 4, 1, 1, r);
        }
        /* scaling: 2 and 4 ranks of the avx512-f32 trainer */
        for (int ranks = 2; ranks <= 4; ranks *= 2) {
            r = result("train", "avx512-f32", "f32", "ok", "", 4.0 / ranks, 8);
            metric(r, "tokens_per_s", (k ? 150 : 100) * ranks * 0.9, "tokens/s", NULL);
            point(db, s[k], m[k], 5 + ranks, "train", "avx512-f32", "f32",
                  "model=distilbert-base batch=32 seq=384", 4, 2, ranks / 2, r);
        }
    }
    /* text that looks like SQL is data, stored and read back verbatim */
    json_t *r = result("gemm", "x'); DROP TABLE point; --", "f32", "failed",
                       "reason with 'quotes' and \"double\" and ; DELETE FROM sample", 0, 0);
    point(db, s[0], m[0], 9, "gemm", "x'); DROP TABLE point; --", "f32", "8x8x8", 1, 1, 1, r);
}

static long count(sb_db *db, const char *table)
{
    char sql[64];
    snprintf(sql, sizeof sql, "SELECT COUNT(*) FROM %s", table);
    sqlite3_stmt *st;
    long n = -1;
    if (sqlite3_prepare_v2(sb_db_handle(db), sql, -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        n = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    return n;
}

static char *slurp(const char *path)
{
    char *d = NULL;
    size_t n;
    sb_err e = {0};
    if (sb_read_file(path, &d, &n, &e)) return NULL;
    return d;
}

static void test_roundtrip(sb_db *db)
{
    sb_err e = {0};
    char p1[128], p2[128], p3[128];
    snprintf(p1, sizeof p1, "%s/a.json", g_dir);
    snprintf(p2, sizeof p2, "%s/b.db", g_dir);
    snprintf(p3, sizeof p3, "%s/b.json", g_dir);
    CHECK_EQ_INT(sb_export_write(db, 0, p1, NULL, &e), SB_OK);
    sb_db *b;
    CHECK_EQ_INT(sb_db_open(p2, &b, &e), SB_OK);
    sb_import_stats st = {0};
    CHECK_EQ_INT(sb_import_file(b, p1, &st, &e), SB_OK);
    CHECK_EQ_INT(st.points_added, count(db, "point"));
    CHECK_EQ_INT(st.machines_added, 2);
    CHECK_EQ_INT(st.sweeps_added, 2);
    CHECK_EQ_INT(st.samples_added, count(db, "sample"));
    CHECK_EQ_INT(st.metrics_added, count(db, "metric"));
    /* idempotent */
    CHECK_EQ_INT(sb_import_file(b, p1, &st, &e), SB_OK);
    CHECK_EQ_INT(st.points_added, 0);
    CHECK_EQ_INT(st.points_present, count(db, "point"));
    CHECK_EQ_INT(count(b, "sample"), count(db, "sample"));
    /* the copy exports the same machines, sweeps and points, bit for bit */
    CHECK_EQ_INT(sb_export_write(b, 0, p3, NULL, &e), SB_OK);
    json_t *ja = json_load_file(p1, 0, NULL), *jb = json_load_file(p3, 0, NULL);
    CHECK(ja && jb);
    static const char *const keys[] = {"machines", "sweeps", "points"};
    for (int i = 0; i < 3; i++)
        CHECK(json_equal(json_object_get(ja, keys[i]), json_object_get(jb, keys[i])));
    json_decref(ja);
    json_decref(jb);
    /* the SQL-looking kernel came through verbatim, the tables are all there */
    sb_ptset set;
    CHECK_EQ_INT(sb_ptset_load(b, 0, 0, &set, &e), SB_OK);
    int found = 0;
    for (int i = 0; i < set.n; i++)
        found += !strcmp(set.p[i].kernel, "x'); DROP TABLE point; --") &&
            !strcmp(set.p[i].reason,
                    "reason with 'quotes' and \"double\" and ; DELETE FROM sample");
    CHECK_EQ_INT(found, 1);
    sb_ptset_free(&set);
    /* merge: a third database from the second one */
    char p4[128];
    snprintf(p4, sizeof p4, "%s/c.db", g_dir);
    sb_db *c;
    CHECK_EQ_INT(sb_db_open(p4, &c, &e), SB_OK);
    CHECK_EQ_INT(sb_merge_db(c, p2, &st, &e), SB_OK);
    CHECK_EQ_INT(count(c, "point"), count(db, "point"));
    CHECK_EQ_INT(sb_merge_db(c, p2, &st, &e), SB_OK);
    CHECK_EQ_INT(st.points_added, 0);
    sb_db_close(c);
    /* a point exported unfinished, then finished and exported again, is completed */
    {
        sb_point_desc d = {.seq = 50,
                           .workload = "gemm",
                           .kernel = "scalar-f32",
                           .dtype = "f32",
                           .shape = "8x8x8",
                           .config = "{}",
                           .threads = 1,
                           .ppn = 1,
                           .nodes = 1};
        int64_t pid;
        CHECK_EQ_INT(sb_db_point_add(db, 1, &d, 1, &pid, &e), SB_OK);
        CHECK_EQ_INT(sb_export_write(db, 1, p1, NULL, &e), SB_OK);
        CHECK_EQ_INT(sb_import_file(b, p1, &st, &e), SB_OK);
        CHECK_EQ_INT(st.points_added, 1);
        json_t *r = result("gemm", "scalar-f32", "f32", "ok", "", 1e-6, 6);
        metric(r, "gflops", 1, "GFLOP/s", NULL);
        CHECK_EQ_INT(sb_db_point_ingest(db, pid, r, &e), SB_OK);
        json_decref(r);
        CHECK_EQ_INT(sb_export_write(db, 1, p1, NULL, &e), SB_OK);
        long samples = count(b, "sample");
        CHECK_EQ_INT(sb_import_file(b, p1, &st, &e), SB_OK);
        CHECK_EQ_INT(st.points_updated, 1);
        CHECK_EQ_INT(st.points_added, 0);
        CHECK_EQ_INT(count(b, "sample"), samples + 6);
        CHECK_EQ_INT(sb_import_file(b, p1, &st, &e), SB_OK);
        CHECK_EQ_INT(st.points_updated, 0);
        CHECK_EQ_INT(count(b, "point"), count(db, "point"));
    }
    /* one sweep only */
    json_t *doc;
    CHECK_EQ_INT(sb_export_doc(db, 2, &doc, NULL, &e), SB_OK);
    CHECK_EQ_INT(json_array_size(json_object_get(doc, "sweeps")), 1);
    CHECK_EQ_INT(json_array_size(json_object_get(doc, "machines")), 1);
    CHECK(!strcmp(json_string_value(json_object_get(
                      json_array_get(json_object_get(doc, "machines"), 0), "fingerprint")),
                  SPR));
    json_decref(doc);
    sb_db_close(b);
}

static void test_csv(sb_db *db)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    sb_err e = {0};
    CHECK_EQ_INT(sb_export_csv(db, 0, f, &e), SB_OK);
    fclose(f);
    int lines = 0;
    for (char *s = buf; *s; s++) lines += *s == '\n';
    CHECK_EQ_INT(lines, count(db, "point") + 1);
    CHECK(strncmp(buf, "point_uuid,sweep_uuid,sweep_label,machine_fingerprint,", 54) == 0);
    CHECK(strstr(buf, ",epoch_seconds,") || strstr(buf, ",epoch_seconds\n"));
    CHECK(strstr(buf, "\"icl, \"\"quoted\"\"\"") != NULL); /* RFC 4180 quoting */
    CHECK(strstr(buf, "epoch_seconds,") != NULL);
    free(buf);
}

static void test_report_files(sb_db *db)
{
    sb_err e = {0};
    sb_selection b, c;
    CHECK_EQ_INT(sb_select_resolve(db, "1ce1", &b, &e), SB_OK); /* fingerprint prefix */
    CHECK_EQ_INT(sb_select_resolve(db, "spr1", &c, &e), SB_OK); /* hostname */
    CHECK_EQ_INT(sb_select_resolve(db, "nosuch", &c, &e), SB_EUSAGE);
    CHECK_EQ_INT(sb_select_resolve(db, "2", &c, &e), SB_OK); /* sweep id */
    CHECK(c.sweep_id == 2 && c.machine_id == 2);
    /* machines as people name them: microarchitecture, CPU model; an
     * ambiguous name lists what it matched */
    sb_selection x;
    /* "8480+", not "8480": hex digits alone are first read as a sweep uuid's
     * prefix, and one sweep in 65536 has a random uuid starting so */
    static const char *const spr[] = {"sapphire-rapids", "Sapphire Rapids", "SPR", "8480+"};
    for (size_t i = 0; i < sizeof spr / sizeof spr[0]; i++) {
        CHECK_EQ_INT(sb_select_resolve(db, spr[i], &x, &e), SB_OK);
        CHECK(x.machine_id == 2 && !x.sweep_id && strstr(x.label, "Sapphire Rapids"));
    }
    CHECK_EQ_INT(sb_select_resolve(db, "icelake-server", &x, &e), SB_OK);
    CHECK(x.machine_id == 1);
    CHECK_EQ_INT(sb_select_resolve(db, "platinum", &x, &e), SB_EUSAGE);
    CHECK(strstr(e.msg, "(CPU model) names 2 machines") && strstr(e.msg, "Ice Lake") &&
          strstr(e.msg, "Sapphire Rapids"));
    CHECK_EQ_INT(sb_select_resolve(db, "zen4", &x, &e), SB_EUSAGE);
    char out[128];
    snprintf(out, sizeof out, "%s/report/sub", g_dir);
    sb_report_opts o = {.out_dir = out, .plots = 1, .db_path = "test.db"};
    sb_report_summary s;
    CHECK_EQ_INT(sb_report_write(db, &b, &c, &o, &s, &e), SB_OK);
    CHECK(s.headline_ratio > 7.999 && s.headline_ratio < 8.001);
    char *md = slurp(s.md_path), *html = slurp(s.html_path);
    CHECK(md && html);
    if (!md || !html) return;
    static const char *const both[] = {
        ICL,
        SPR,
        "Ice Lake",
        "Sapphire Rapids",
        "Platinum 8380",
        "Platinum 8480+",
        "2.50x", /* avx512-f32 GEMM 250 / 100 */
        "8.00x", /* epoch 800 / 100 */
        "1.50x", /* avx512-f32 tokens/s 150 / 100 */
        "not available (skipped: CPU has no AMX",
        "projected",
        "amx_bf16_gflops",
        "1.67x", /* f32_gflops 5000 / 3000 */
        "not available (AMX not granted: no AMX on this CPU)",
        "40000 (one timed run)",
        "1.80",
        "90%",  /* scaling: 2 ranks at 0.9 efficiency */
        "3.60", /* 4 ranks */
        "20 measured steps x steps per epoch",
        "100 [",
        "250 [", /* a median always has its spread */
    };
    for (size_t i = 0; i < sizeof both / sizeof both[0]; i++) {
        if (!strstr(md, both[i])) fprintf(stderr, "report.md lacks '%s'\n", both[i]);
        if (!strstr(html, both[i])) fprintf(stderr, "report.html lacks '%s'\n", both[i]);
        CHECK(strstr(md, both[i]) != NULL);
        CHECK(strstr(html, both[i]) != NULL);
    }
    /* the AMX grant row says no with the reason on Ice Lake, yes on SPR */
    CHECK(strstr(md, "| AMX granted by the OS | no (CPU has no AMX") != NULL);
    /* self-contained: images only as data URIs, nothing fetched */
    CHECK(strstr(html, "src=\"http") == NULL && strstr(html, "<link") == NULL);
    if (s.plots_drawn) CHECK(strstr(html, "src=\"data:image/png;base64,") != NULL);
    CHECK(strstr(html, "<script") == NULL);
    CHECK(strstr(html, "DROP TABLE") == NULL || strstr(html, "<td>x&#39;") == NULL);
    free(md);
    free(html);
}

static void expect_bad(sb_db *db, json_t *doc, const char *what)
{
    sb_err e = {0};
    long before = count(db, "point"), sb = count(db, "sample"), mb = count(db, "machine");
    int rc = sb_import_doc(db, doc, "hostile.json", NULL, &e);
    if (rc != SB_EUSAGE) fprintf(stderr, "hostile %s: rc %d (%s)\n", what, rc, e.msg);
    CHECK_EQ_INT(rc, SB_EUSAGE);
    CHECK(strncmp(e.msg, "hostile.json", 12) == 0 && !strchr(e.msg, '\n'));
    CHECK_EQ_INT(count(db, "point"), before);
    CHECK_EQ_INT(count(db, "sample"), sb);
    CHECK_EQ_INT(count(db, "machine"), mb);
    json_decref(doc);
}

static json_t *pt0(json_t *doc) { return json_array_get(json_object_get(doc, "points"), 0); }

static void test_hostile(sb_db *src)
{
    sb_err e = {0};
    char path[128];
    snprintf(path, sizeof path, "%s/hostile.db", g_dir);
    sb_db *db;
    CHECK_EQ_INT(sb_db_open(path, &db, &e), SB_OK);
    json_t *good;
    CHECK_EQ_INT(sb_export_doc(src, 0, &good, NULL, &e), SB_OK);
    /* new uuids for the last point so that a valid prefix would be importable */
    json_t *d;
#define MUT(stmt, what)           \
    do {                          \
        d = json_deep_copy(good); \
        stmt;                     \
        expect_bad(db, d, what);  \
    } while (0)
    MUT(json_object_set_new(d, "format", json_string("other")), "format");
    MUT(json_object_set_new(d, "version", json_integer(SB_EXPORT_VERSION + 1)), "version");
    MUT(json_object_set_new(d, "points", json_object()), "points not array");
    MUT(json_object_set_new(pt0(d), "uuid", json_string("../../etc/passwd")), "uuid");
    MUT(json_object_set_new(pt0(d), "sweep", json_string("0123456789abcdef0123456789abcdef")),
        "dangling sweep");
    MUT(json_object_set_new(pt0(d), "threads", json_string("4")), "threads as string");
    MUT(json_object_set_new(pt0(d), "threads", json_integer(1LL << 40)), "threads huge");
    MUT(json_object_set_new(pt0(d), "seq", json_real(1.5)), "seq real");
    MUT(json_array_append_new(json_object_get(pt0(d), "samples"), json_string("1.0")),
        "sample string");
    MUT(json_array_append_new(json_object_get(pt0(d), "samples"), json_real(-1)),
        "sample negative");
    MUT(json_array_append_new(json_object_get(pt0(d), "samples"), json_real(1e300)), "sample huge");
    /* seconds no clock measured (#44): their ratios would be 0, inf or nan */
    MUT(json_array_append_new(json_object_get(pt0(d), "samples"), json_real(0)), "sample 0");
    MUT(json_array_append_new(json_object_get(pt0(d), "samples"), json_real(5e-324)),
        "sample denormal");
    MUT(json_array_append_new(json_object_get(pt0(d), "samples"), json_real(1e-10)),
        "sample below a nanosecond");
    MUT(json_object_set_new(pt0(d), "samples", json_string("x")), "samples not array");
    MUT(json_object_set_new(pt0(d), "evil", json_true()), "unknown field");
    MUT(json_object_set_new(pt0(d), "status", json_string("ok'; DROP TABLE point; --")), "status");
    MUT(json_array_append_new(json_object_get(pt0(d), "metrics"),
                              json_pack("{s:s, s:f}", "name", "a b; DROP", "value", 1.0)),
        "metric name");
    MUT(json_array_append_new(json_object_get(pt0(d), "metrics"),
                              json_pack("{s:s, s:s}", "name", "x", "value", "1")),
        "metric value");
    MUT(json_array_append_new(json_object_get(pt0(d), "metrics"),
                              json_pack("{s:s, s:f}", "name", "x", "value", 1e301)),
        "metric huge");
    MUT(json_object_set_new(json_array_get(json_object_get(d, "machines"), 0), "cores",
                            json_integer(-3)),
        "negative cores");
    MUT(json_object_set_new(json_array_get(json_object_get(d, "machines"), 0), "fingerprint",
                            json_string("")),
        "empty fingerprint");
    /* the last point bad: the valid ones before it are not written either */
    MUT(json_object_set_new(json_array_get(json_object_get(d, "points"),
                                           json_array_size(json_object_get(d, "points")) - 1),
                            "ppn", json_string("2")),
        "last point bad");
    MUT(json_array_append(json_object_get(d, "points"), pt0(d)), "duplicate point uuid");
    /* statuses, workloads and shapes outside what sprbench writes; an ok
     * measured point without its samples; text past its limit in characters */
    MUT(json_object_set_new(pt0(d), "status", json_string("bogus")), "status bogus");
    MUT(json_object_set_new(pt0(d), "workload", json_string("bogus")), "workload bogus");
    MUT(json_object_del(pt0(d), "workload"), "workload missing");
    MUT(json_object_set_new(json_array_get(json_object_get(d, "sweeps"), 0), "status",
                            json_string("finished?")),
        "sweep status");
    MUT(json_object_set_new(pt0(d), "shape", json_string("<b>64</b>x64x64")), "shape markup");
    MUT(json_object_set_new(pt0(d), "shape", json_string("64x64x64:NN\n")), "shape newline");
    MUT(json_object_set_new(pt0(d), "dtype", json_string("f32 <i>")), "dtype");
    MUT((json_object_set_new(pt0(d), "status", json_string("ok")),
         json_array_clear(json_object_get(pt0(d), "samples"))),
        "ok without samples");
    {
        char label[1100];
        for (int i = 0; i < 257; i++) memcpy(label + 3 * i, "\xe2\x82\xac", 3);
        label[3 * 257] = '\0';
        MUT(json_object_set_new(json_array_get(json_object_get(d, "sweeps"), 0), "label",
                                json_string(label)),
            "label 257 characters");
        label[3 * 256] = '\0'; /* 256 characters (768 bytes) are within the limit */
        d = json_deep_copy(good);
        json_object_set_new(json_array_get(json_object_get(d, "sweeps"), 0), "label",
                            json_string(label));
        sb_err le = {0};
        char lp[128];
        snprintf(lp, sizeof lp, "%s/label.db", g_dir);
        sb_db *ldb;
        CHECK_EQ_INT(sb_db_open(lp, &ldb, &le), SB_OK);
        CHECK_EQ_INT(sb_import_doc(ldb, d, "label.json", NULL, &le), SB_OK);
        sb_db_close(ldb);
        json_decref(d);
    }
    MUT(json_object_set_new(pt0(d), "log",
                            json_pack("{s:s, s:i}", "stdout", "x", "stdout_bytes", 1)),
        "log incomplete");
#undef MUT
    /* text that is not JSON, or JSON with duplicate keys or too-large numbers */
    static const char *const texts[] = {
        "",
        "not json {",
        "[]",
        "{\"format\":\"sprbench-export\",\"format\":\"x\"}",
        "{\"format\":\"sprbench-export\",\"version\":99999999999999999999999}",
        "{\"format\":\"sprbench-export\",\"version\":1e999}",
        "{\"format\":\"sprbench-export\",\"version\":1,\"machines\":[],\"sweeps\":[],\"points\":[1]"
        "}",
        "{\"format\":\"sprbench-export\",\"version\":1,\"machines\":[],\"sweeps\":[],\"points\":[{"
        "\"uuid\":\"\\u0000\"}]}",
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        sb_err te = {0};
        CHECK_EQ_INT(sb_import_text(db, texts[i], strlen(texts[i]), "hostile.json", NULL, &te),
                     SB_EUSAGE);
        CHECK(strncmp(te.msg, "hostile.json", 12) == 0);
    }
    CHECK_EQ_INT(count(db, "point"), 0);
    /* and the unmodified document imports */
    sb_import_stats st;
    CHECK_EQ_INT(sb_import_doc(db, good, "good.json", &st, &e), SB_OK);
    CHECK_EQ_INT(st.points_added, count(src, "point"));
    json_decref(good);
    sb_db_close(db);
}

/* The store's named reads (sb_query.h) on the constructed database, and how
 * they fail: a read the database cannot answer is an error naming the
 * database and the read, never an empty answer. */
static void test_queries(sb_db *db)
{
    sb_err e = {0};
    sb_db_counts c;
    CHECK_EQ_INT(sb_db_count_rows(db, &c, &e), SB_OK);
    CHECK_EQ_INT(c.machines, 2);
    CHECK_EQ_INT(c.sweeps, 2);
    CHECK_EQ_INT(c.points, count(db, "point"));
    CHECK_EQ_INT(c.samples, count(db, "sample"));

    sb_sweep_row *sw;
    int nsw;
    CHECK_EQ_INT(sb_db_sweeps(db, &sw, &nsw, &e), SB_OK);
    CHECK_EQ_INT(nsw, 2);
    int64_t icl = nsw == 2 ? sw[0].id : 0, spr = nsw == 2 ? sw[1].id : 0;
    if (nsw == 2) {
        CHECK(!strcmp(sw[0].label, "icl, \"quoted\"") && !strcmp(sw[1].hostname, "spr1"));
        CHECK_EQ_INT(sw[1].points, 7);
        CHECK_EQ_INT(sw[1].ok, 7);
        CHECK_EQ_INT(sw[0].skipped, 1);
        CHECK(sw[0].held == 0);
    }
    sb_sweep_rows_free(sw, nsw);

    /* the throughput series of a shape: by kernel, each with its samples */
    sb_series_point *v;
    int n;
    CHECK_EQ_INT(sb_db_metric_series(db, spr, "gemm", "1024x1024x1024:NN", "gflops", &v, &n, &e),
                 SB_OK);
    CHECK_EQ_INT(n, 2);
    if (n == 2) {
        CHECK(!strcmp(v[0].kernel, "amx-bf16") && !strcmp(v[0].dtype, "bf16"));
        CHECK(v[0].value == 2000 && v[1].value == 250 && v[1].threads == 4);
        CHECK_EQ_INT(v[1].nsamples, 8);
        const double flops = 2.0 * 1024 * 1024 * 1024;
        CHECK(v[1].nsamples == 8 && v[1].samples[0] == flops / 250 / 1e9 &&
              v[1].samples[1] == flops / 250 / 1e9 * 0.99); /* in repetition order */
    }
    sb_series_free(v, n);
    CHECK_EQ_INT(sb_db_metric_series(db, spr, "gemm", "8x8x8", "gflops", &v, &n, &e), SB_OK);
    CHECK(n == 0 && v == NULL);

    char **shapes;
    CHECK_EQ_INT(sb_db_sweep_shapes(db, icl, "gemm", &shapes, &n, &e), SB_OK);
    CHECK(n == 1 && !strcmp(shapes[0], "1024x1024x1024:NN")); /* the failed 8x8x8 is not ok */
    sb_db_strings_free(shapes, n);

    sb_summary_row *sr;
    CHECK_EQ_INT(sb_db_sweep_summary(db, spr, &sr, &n, &e), SB_OK);
    CHECK_EQ_INT(n, 6); /* every point but the peak probe's */
    int seen = 0;
    for (int i = 0; i < n; i++)
        if (!strcmp(sr[i].kernel, "avx512-f32") && !strcmp(sr[i].shape, "1024x1024x1024:NN")) {
            seen++;
            CHECK(sr[i].has_value && sr[i].value == 250 && !strcmp(sr[i].unit, "GFLOP/s"));
            CHECK(sr[i].has_base && sr[i].base_threads == 4 && !sr[i].has_pct);
        }
    CHECK_EQ_INT(seen, 1);
    sb_summary_rows_free(sr, n);

    sb_sweep_header h;
    int found;
    CHECK_EQ_INT(sb_db_sweep_header(db, spr, &h, &found, &e), SB_OK);
    CHECK(found && h.has_machine && h.cores == 112 && !strcmp(h.workload, "gemm") &&
          !strcmp(h.microarch, "Sapphire Rapids (AMX)"));
    sb_sweep_header_free(&h);
    CHECK_EQ_INT(sb_db_sweep_header(db, 999, &h, &found, &e), SB_OK);
    CHECK(!found && !h.workload);
    char *plan;
    CHECK_EQ_INT(sb_db_sweep_plan(db, icl, &plan, &found, &e), SB_OK);
    CHECK(found && plan && !strcmp(plan, "plan"));
    free(plan);
    int exists = 1;
    CHECK_EQ_INT(sb_db_sweep_exists(db, 999, &exists, &e), SB_OK);
    CHECK(!exists);

    /* a machine's description and a point's result document */
    json_t *info;
    CHECK_EQ_INT(sb_db_machine_info(db, 1, &info, &e), SB_OK);
    CHECK(json_integer_value(json_object_get(info, "cores")) == 80 &&
          !strcmp(json_string_value(json_object_get(info, "hostname")), "icl1"));
    json_decref(info);
    CHECK_EQ_INT(sb_db_machine_info(db, 999, &info, &e), SB_OK);
    CHECK(info == NULL);
    sb_ptset set;
    CHECK_EQ_INT(sb_ptset_load(db, 0, icl, &set, &e), SB_OK);
    int64_t peak = 0;
    for (int i = 0; i < set.n; i++)
        if (!strcmp(set.p[i].workload, "peak")) peak = set.p[i].id;
    sb_ptset_free(&set);
    json_t *doc;
    CHECK_EQ_INT(sb_db_point_result(db, peak, &doc, &e), SB_OK);
    CHECK(json_is_string(json_object_get(json_object_get(doc, "skipped"), "amx_bf16_gflops")));
    json_decref(doc);
    sb_point_brief b;
    CHECK_EQ_INT(sb_db_point_brief(db, peak, &b, &found, &e), SB_OK);
    CHECK(found && b.sweep_id == icl && !strcmp(b.workload, "peak") && b.threads == 80);
    sb_point_brief_free(&b);
    int64_t pid;
    char spec[32];
    snprintf(spec, sizeof spec, "%lld", (long long)peak);
    CHECK_EQ_INT(sb_point_resolve(db, spec, &pid, &e), SB_OK);
    CHECK_EQ_INT(pid, peak);
    CHECK_EQ_INT(sb_point_resolve(db, "999999", &pid, &e), SB_EUSAGE);
    CHECK(strstr(e.msg, "no point '999999'") != NULL);
    CHECK_EQ_INT(sb_point_resolve(db, "zz", &pid, &e), SB_EUSAGE);

    /* a sweep being resumed: what is left to run, and marked running again */
    char path[128];
    snprintf(path, sizeof path, "%s/resume.db", g_dir);
    sb_db *r;
    CHECK_EQ_INT(sb_db_open(path, &r, &e), SB_OK);
    int64_t sweep, ids[3];
    CHECK_EQ_INT(sb_db_sweep_create(r, "resume", "gemm", "plan", 0, &sweep, &e), SB_OK);
    for (int i = 0; i < 3; i++) {
        sb_point_desc d = {.seq = 2 - i,
                           .workload = "gemm",
                           .kernel = "scalar-f32",
                           .dtype = "f32",
                           .shape = "8x8x8",
                           .config = "{}",
                           .threads = i + 1,
                           .ppn = 1,
                           .nodes = 1,
                           .command = "sprbench ..."};
        CHECK_EQ_INT(sb_db_point_add(r, sweep, &d, 0, &ids[i], &e), SB_OK);
    }
    CHECK_EQ_INT(sb_db_point_set_status(r, ids[1], "failed", "gone", &e), SB_OK);
    CHECK_EQ_INT(sb_db_point_set_status(r, ids[2], "running", "", &e), SB_OK);
    sb_todo_point *todo;
    CHECK_EQ_INT(sb_db_sweep_unfinished(r, sweep, &todo, &n, &e), SB_OK);
    CHECK(n == 2 && todo[0].id == ids[2] && todo[1].id == ids[0] && /* by seq */
          !strcmp(todo[0].shape, "8x8x8") && todo[0].threads == 3);
    free(todo);
    CHECK_EQ_INT(sb_db_sweep_point_count(r, sweep, &n, &e), SB_OK);
    CHECK_EQ_INT(n, 3);
    CHECK_EQ_INT(sb_db_sweep_finish(r, sweep, "interrupted", &e), SB_OK);
    CHECK_EQ_INT(sb_db_sweep_reopen(r, sweep, &e), SB_OK);
    CHECK_EQ_INT(sb_db_sweeps(r, &sw, &nsw, &e), SB_OK);
    CHECK(nsw == 1 && !strcmp(sw[0].status, "running"));
    sb_sweep_rows_free(sw, nsw);
    CHECK_EQ_INT(sb_db_sweep_reopen(r, sweep + 1, &e), SB_EUSAGE); /* no such sweep */

    /* a database that cannot answer: every read fails the same way, naming
     * the file and the read, and leaves nothing to free */
    CHECK(sqlite3_exec(sb_db_handle(r), "DROP TABLE metric", NULL, NULL, NULL) == SQLITE_OK);
    v = (sb_series_point *)&n;
    CHECK_EQ_INT(sb_db_metric_series(r, sweep, "gemm", "8x8x8", "gflops", &v, &n, &e), SB_EFAIL);
    CHECK(v == NULL && n == 0);
    CHECKF(!strncmp(e.msg, path, strlen(path)) && strstr(e.msg, ": reading a series: ") &&
               strstr(e.msg, "no such table: metric"),
           "message: %s", e.msg);
    sb_epoch_point *ep;
    CHECK_EQ_INT(sb_db_epoch_series(r, sweep, &ep, &n, &e), SB_EFAIL);
    CHECK(ep == NULL && strstr(e.msg, "no such table: metric"));
    CHECK_EQ_INT(sb_db_sweep_summary(r, sweep, &sr, &n, &e), SB_EFAIL);
    CHECK(sr == NULL && strstr(e.msg, ": sweep summary: "));
    CHECK_EQ_INT(sb_ptset_load(r, 0, sweep, &set, &e), SB_EFAIL);
    CHECK(set.n == 0 && set.p == NULL && strstr(e.msg, path) == e.msg);
    sb_db_close(r);
}

/* Infer points with and without int8 attention are two configurations
 * (their keys differ by the config): their labels differ too. */
static void test_label_attention(void)
{
    char cfg8[] = "{\"quant\":\"row\",\"attention\":\"int8\"}", cfg[] = "{\"quant\":\"row\"}",
         cfgf[] = "{\"quant\":\"row\",\"attention\":\"f32\"}";
    sb_pt p = {0};
    p.workload = "infer", p.wl = sb_workload_find("infer"), p.kernel = "vnni-int8", p.dtype = "int8", p.shape = "batch=8";
    p.status = "ok", p.fingerprint = "", p.threads = 2, p.ppn = p.nodes = 1;
    char a[320], b[320], c[320];
    p.config = cfg8;
    sb_pt_label(&p, a, sizeof a);
    p.config = cfg;
    sb_pt_label(&p, b, sizeof b);
    p.config = cfgf;
    sb_pt_label(&p, c, sizeof c);
    CHECK(strstr(a, "attention=int8") != NULL);
    CHECK(strcmp(a, b) != 0);
    CHECK(strcmp(b, c) == 0); /* f32 is the default: the same run as leaving it out */
    p.workload = "gemm", p.wl = sb_workload_find("gemm"), p.config = cfg8; /* only the workload's own int8 option counts */
    sb_pt_label(&p, c, sizeof c);
    CHECK(strstr(c, "attention") == NULL);
}

int main(void)
{
    test_label_attention();
    snprintf(g_dir, sizeof g_dir, "/tmp/sb-results-XXXXXX");
    if (!mkdtemp(g_dir)) return 1;
    char path[128];
    snprintf(path, sizeof path, "%s/a.db", g_dir);
    sb_db *db;
    sb_err e = {0};
    CHECK_EQ_INT(sb_db_open(path, &db, &e), SB_OK);
    build(db);
    test_queries(db);
    test_roundtrip(db);
    test_csv(db);
    test_report_files(db);
    test_hostile(db);
    sb_db_close(db);
    if (!getenv("SB_KEEP"))
        CHECK(nftw(g_dir, rm_one, 16, FTW_DEPTH | FTW_PHYS) == 0);
    else
        fprintf(stderr, "kept %s\n", g_dir);
    return test_report("test_results_db");
}
