/* The results store: round trip, migrations from an older schema, refusals;
 * the text rules (UTF-8, limits in characters, repair of machine text, cells
 * for terminals), the shape grammar and statuses; the read-only open (other
 * programs' files byte-identical, newer schemas, older schemas read as they
 * are, a read-only directory, a write-ahead log that cannot be read); the
 * claim on a sweep (a live holder refused, a dead one taken over, another
 * host's only by unlock, none while its runs' processes live); each
 * point's worker output. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "sb_db.h"
#include "sb_db_ingest.h"
#include "sb_db_sweep.h"
#include "sb_db_internal.h"
#include "sb_export.h"
#include "sb_import.h"
#include "sb_holder.h"
#include "sb_proc.h"
#include "sb_text.h"
#include "sb_workload.h"
#include "testutil.h"

static char g_dir[256];

static int count(sb_db *db, const char *sql)
{
    sqlite3_stmt *st;
    int n = -1;
    if (sqlite3_prepare_v2(sb_db_handle(db), sql, -1, &st, NULL) == SQLITE_OK) {
        if (sqlite3_step(st) == SQLITE_ROW) n = sqlite3_column_int(st, 0);
        sqlite3_finalize(st);
    }
    return n;
}

static json_t *machine_json(const char *fp)
{
    return json_pack("{s:s, s:s, s:{s:s, s:s, s:i, s:i, s:i, s:s}, s:{s:b, s:s},"
                     " s:{s:i, s:i, s:i, s:i}, s:{s:I}, s:s}",
                     "fingerprint", fp, "hostname", "h1", "cpu", "vendor", "GenuineIntel", "model",
                     "Xeon", "family", 6, "model_number", 0x8f, "stepping", 8, "microarch",
                     "Sapphire Rapids", "isa", "amx_os_permitted", 1, "amx_reason", "", "topology",
                     "packages", 2, "numa_nodes", 2, "cores", 96, "pus", 192, "memory",
                     "total_bytes", (json_int_t)1 << 40, "kernel", "6.1");
}

static void test_round_trip(void)
{
    char path[512];
    snprintf(path, sizeof path, "%s/rt.db", g_dir);
    sb_db *db;
    sb_err e = {0};
    CHECK(sb_db_open(path, &db, &e) == SB_OK);
    CHECK_EQ_INT(sb_db_schema_version(db), SB_DB_SCHEMA_VERSION);
    json_t *m = machine_json("abc");
    int64_t mid = 0, mid2 = 0, sid = 0, pid = 0;
    CHECK(sb_db_machine_upsert(db, m, &mid, &e) == SB_OK);
    CHECK(sb_db_machine_upsert(db, m, &mid2, &e) == SB_OK);
    CHECK(mid > 0 && mid == mid2);
    CHECK(sb_db_sweep_create(db, "label; DROP TABLE point", "gemm", "kernels = x", mid, &sid, &e) ==
          SB_OK);
    sb_point_desc d = {.seq = 1,
                       .workload = "gemm",
                       .kernel = "scalar-f32",
                       .dtype = "f32",
                       .shape = "8x8x8:NN",
                       .config = "{}",
                       .threads = 2,
                       .ppn = 1,
                       .nodes = 1,
                       .command = "sprbench gemm ..."};
    CHECK(sb_db_point_add(db, sid, &d, mid, &pid, &e) == SB_OK);
    json_t *res = json_pack("{s:s, s:s, s:s, s:[f,f,f], s:{s:f, s:f}, s:{s:s}, s:{s:s}}",
                            "workload", "gemm", "status", "ok", "reason", "", "samples", 0.5, 0.25,
                            0.75, "metrics", "gflops", 12.5, "epoch_seconds", 100.0, "units",
                            "gflops", "GFLOP/s", "projected", "epoch_seconds", "from 10 steps");
    CHECK(sb_db_point_ingest(db, pid, res, &e) == SB_OK);
    CHECK(sb_db_point_ingest(db, pid, res, &e) == SB_OK); /* replaces, no duplicates */
    CHECK_EQ_INT(count(db, "SELECT COUNT(*) FROM sample"), 3);
    CHECK_EQ_INT(count(db, "SELECT COUNT(*) FROM metric"), 2);
    CHECK_EQ_INT(count(db, "SELECT projected FROM metric WHERE name = 'epoch_seconds'"), 1);
    CHECK_EQ_INT(count(db, "SELECT COUNT(*) FROM point WHERE status = 'ok'"), 1);
    CHECK_EQ_INT(count(db, "SELECT COUNT(*) FROM sweep WHERE label = 'label; DROP TABLE point'"),
                 1);
    /* a bad result is refused and leaves the point as it was */
    json_t *bad = json_pack("{s:s, s:[s]}", "status", "ok", "samples", "x");
    CHECK(sb_db_point_ingest(db, pid, bad, &e) == SB_EUSAGE);
    CHECK_EQ_INT(count(db, "SELECT COUNT(*) FROM sample"), 3);
    json_t *nostatus = json_pack("{s:s}", "status", "maybe");
    CHECK(sb_db_point_ingest(db, pid, nostatus, &e) == SB_EUSAGE);
    CHECK(sb_db_point_ingest(db, 9999, res, &e) != SB_OK);
    json_decref(bad);
    json_decref(nostatus);
    json_decref(res);
    json_decref(m);
    sb_db_close(db);
    /* reopen: data persisted */
    CHECK(sb_db_open(path, &db, &e) == SB_OK);
    CHECK_EQ_INT(count(db, "SELECT COUNT(*) FROM sample WHERE seconds = 0.25"), 1);
    sb_db_close(db);
}

static void test_older_schema(void)
{
    char path[512];
    snprintf(path, sizeof path, "%s/old.db", g_dir);
    sb_db *db;
    sb_err e = {0};
    CHECK(sb_db_open_at_version(path, 1, &db, &e) == SB_OK);
    CHECK_EQ_INT(sb_db_schema_version(db), 1);
    /* a version-1 database with a point in it */
    CHECK(sqlite3_exec(sb_db_handle(db),
                       "INSERT INTO sweep (uuid, status) VALUES ('s1', 'done');"
                       "INSERT INTO point (uuid, sweep_id, seq, workload, status) VALUES ('p1', 1, "
                       "0, 'gemm', 'ok');",
                       NULL, NULL, NULL) == SQLITE_OK);
    CHECK(count(db, "SELECT COUNT(*) FROM pragma_table_info('point') WHERE name = 'command'") == 0);
    sb_db_close(db);
    CHECK(sb_db_open(path, &db, &e) == SB_OK);
    CHECK_EQ_INT(sb_db_schema_version(db), SB_DB_SCHEMA_VERSION);
    CHECK_EQ_INT(
        count(db, "SELECT COUNT(*) FROM pragma_table_info('point') WHERE name = 'command'"), 1);
    CHECK_EQ_INT(count(db, "SELECT COUNT(*) FROM point WHERE uuid = 'p1'"), 1);
    /* a database from a newer sprbench is refused */
    CHECK(sqlite3_exec(sb_db_handle(db), "PRAGMA user_version = 99", NULL, NULL, NULL) ==
          SQLITE_OK);
    sb_db_close(db);
    CHECK(sb_db_open(path, &db, &e) == SB_EUSAGE);
    CHECK(strstr(e.msg, "newer") != NULL);
}

static void test_refusals(void)
{
    char path[512];
    sb_db *db;
    sb_err e = {0};
    snprintf(path, sizeof path, "%s/text.db", g_dir);
    FILE *f = fopen(path, "w");
    fputs("this is not a database, it is a text file of some length\n", f);
    fclose(f);
    CHECK(sb_db_open(path, &db, &e) == SB_EUSAGE);
    CHECK(strstr(e.msg, "not a SQLite database") != NULL);
    /* the file is untouched */
    f = fopen(path, "r");
    char buf[16] = {0};
    CHECK(fread(buf, 1, 4, f) == 4 && !memcmp(buf, "this", 4));
    fclose(f);
    CHECK(sb_db_open("/nonexistent-dir/x/y.db", &db, &e) == SB_EUSAGE);
    CHECK(sb_db_open("", &db, &e) == SB_EUSAGE);
}

/* ---- text ---- */

static void test_text(void)
{
    sb_err e = {0};
    size_t bad = 99;
    CHECK_EQ_INT(sb_text_chars("h\xc3\xa9llo \xe2\x82\xac \xf0\x9f\x98\x80", 15, &bad), 9);
    CHECK_EQ_INT(sb_text_chars("ab\xff", 3, &bad), -1);
    CHECK_EQ_INT(bad, 2);
    CHECK_EQ_INT(sb_text_chars("\xc0\xaf", 2, NULL), -1);         /* overlong '/' */
    CHECK_EQ_INT(sb_text_chars("\xed\xa0\x80", 3, NULL), -1);     /* surrogate */
    CHECK_EQ_INT(sb_text_chars("\xf4\x90\x80\x80", 4, NULL), -1); /* past U+10FFFF */
    CHECK_EQ_INT(sb_text_chars("\xe2\x82", 2, NULL), -1);         /* cut character */
    CHECK_EQ_INT(sb_text_chars("a\0b", 3, &bad), -1);
    CHECK_EQ_INT(bad, 1);
    CHECK_EQ_INT(sb_text_check("\xc3\xa9\xc3\xa9\xc3\xa9", 3, "label", &e), SB_OK);
    CHECK_EQ_INT(sb_text_check("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", 3, "label", &e), SB_EUSAGE);
    CHECK(strstr(e.msg, "label: 4 characters, longer than the limit of 3") != NULL);
    CHECK_EQ_INT(sb_text_check("ok\xfe", 10, "label", &e), SB_EUSAGE);
    CHECK(strstr(e.msg, "label: invalid UTF-8 at byte 2") != NULL);
    CHECK_EQ_INT(sb_text_checkn("a\0b", 3, 10, "reason", &e), SB_EUSAGE);
    CHECK(strstr(e.msg, "reason: NUL byte at byte 1") != NULL);

    /* repair: invalid bytes and NUL visible as U+FFFD, nothing dropped */
    int changed = 0;
    char *r = sb_text_repair("a\xff"
                             "b\0c",
                             5, 0, &changed);
    CHECK(r &&
          !strcmp(r,
                  "a\xef\xbf\xbd"
                  "b\xef\xbf\xbd"
                  "c") &&
          changed);
    free(r);
    r = sb_text_repair("plain", 5, 0, &changed);
    CHECK(r && !strcmp(r, "plain") && !changed);
    free(r);
    /* cut between characters, the cut marked by U+2026 in the last place */
    r = sb_text_repair("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", 8, 3, &changed);
    CHECK(r && !strcmp(r, "\xc3\xa9\xc3\xa9\xe2\x80\xa6") && changed);
    free(r);
    r = sb_text_repair("\xc3\xa9\xc3\xa9\xc3\xa9", 6, 3, &changed);
    CHECK(r && !strcmp(r, "\xc3\xa9\xc3\xa9\xc3\xa9") && !changed);
    free(r);
    /* JSON strings of stored text: valid text as is, each invalid byte (a
     * stored host name, a label, a buffer cut inside a character) and each
     * NUL as U+FFFD, where jansson alone refuses the text */
    CHECK(json_string("hi\xff") == NULL);
    json_t *j = sb_text_json("h\xc3\xa9llo");
    CHECK(j && !strcmp(json_string_value(j), "h\xc3\xa9llo"));
    json_decref(j);
    j = sb_text_json("hi\xff");
    CHECK(j && !strcmp(json_string_value(j), "hi\xef\xbf\xbd"));
    json_decref(j);
    j = sb_text_json("a\xe2\x82"); /* cut inside U+20AC: two bytes, two U+FFFD */
    CHECK(j && !strcmp(json_string_value(j), "a\xef\xbf\xbd\xef\xbf\xbd"));
    json_decref(j);
    j = sb_text_json("\xed\xa0\x80"); /* a surrogate, which jansson refuses too */
    CHECK(j && !strcmp(json_string_value(j), "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"));
    json_decref(j);
    j = sb_text_json("");
    CHECK(j && json_is_string(j) && !strcmp(json_string_value(j), ""));
    json_decref(j);
    j = sb_text_json(NULL);
    CHECK(json_is_null(j));
    json_decref(j);
    changed = -1;
    j = sb_text_jsonn("a\0b\xfe", 4, &changed);
    CHECK(j && json_string_length(j) == 8 &&
          !memcmp(json_string_value(j),
                  "a\xef\xbf\xbd"
                  "b\xef\xbf\xbd",
                  8) &&
          changed == 1);
    json_decref(j);
    j = sb_text_jsonn("abc", 2, &changed); /* only len bytes */
    CHECK(j && !strcmp(json_string_value(j), "ab") && changed == 0);
    json_decref(j);
    /* what it makes always dumps: the document jansson writes is valid */
    j = json_pack("{s:o}", "host", sb_text_json("x\x80y"));
    char *dump = j ? json_dumps(j, JSON_COMPACT) : NULL;
    CHECK(dump && !strcmp(dump, "{\"host\":\"x\xef\xbf\xbdy\"}"));
    free(dump);
    json_decref(j);
    /* a prefix for "%.*s" never ends inside a character */
    CHECK_EQ_INT(sb_text_prefix("ab\xe2\x82\xac", 4), 2);
    CHECK_EQ_INT(sb_text_prefix("ab\xe2\x82\xac", 5), 5);
    CHECK_EQ_INT(sb_text_prefix("abc", 10), 3);
    CHECK_EQ_INT(sb_text_tail_start("a\xe2\x82\xac"
                                    "b",
                                    5, 3),
                 4);
    CHECK_EQ_INT(sb_text_tail_start("abc", 3, 10), 0);
    /* cells: one line, controls '?', wide characters two columns, cut with … */
    char cell[64];
    CHECK(!strcmp(sb_text_cell(cell, sizeof cell, "a\nb\x1b[2Jc", 20, 0), "a?b?[2Jc"));
    CHECK(!strcmp(sb_text_cell(cell, sizeof cell, "abcdef", 4, 0), "abc\xe2\x80\xa6"));
    CHECK(!strcmp(sb_text_cell(cell, sizeof cell, "ab", 4, 1), "ab  "));
    CHECK(!strcmp(sb_text_cell(cell, sizeof cell, "\xe6\xbc\xa2\xe5\xad\x97x", 4, 1),
                  "\xe6\xbc\xa2\xe2\x80\xa6 ")); /* 漢 (2) + … (1) + pad */
    CHECK(!strcmp(sb_text_cell(cell, sizeof cell, "x\xc2\x9by", 5, 0), "x?y")); /* C1 CSI */
    /* the shapes sprbench writes, and nothing else */
    static const char *const good[] = {"",
                                       "64x64x64",
                                       "1024x768x3072:NT",
                                       "8x8x8:TT+prepack",
                                       "65536x1x1:NN",
                                       "model=tiny",
                                       "model=2,64,4,256 batch=32 seq=384",
                                       "model=2, 64, 4, 256",
                                       "sizes=4..256M",
                                       NULL};
    static const char *const badshapes[] = {
        "<b>64</b>x64x64", "64x64", "64x64x64:XY", "0x1x1",     "64x64x64 ",        "model=tiny\nx",
        "model=",          "=x",    "Model=x",     "model=a b", "model=a  batch=1", "64x64x64;rm",
        "12345678901x1x1",
        /* bench/sb_shape's grammar and its largest dimension, in its one spelling */
        "65537x1x1", "064x64x64", "+64x64x64", "64x64x64+prepack+prepack", "64x64x64:NT@2",
        NULL};
    for (int i = 0; good[i]; i++) CHECKF(sb_db_shape_valid(good[i]), "shape '%s' refused", good[i]);
    for (int i = 0; badshapes[i]; i++)
        CHECKF(!sb_db_shape_valid(badshapes[i]), "shape '%s' accepted", badshapes[i]);
    /* a value of a series key: what resume and the inference plots read the batch from */
    char v[32];
    CHECK(sb_db_shape_value("model=tiny batch=8 seq=32", "batch", v, sizeof v) && !strcmp(v, "8"));
    CHECK(sb_db_shape_value("batch=32", "batch", v, sizeof v) && !strcmp(v, "32"));
    CHECK(sb_db_shape_value("model=2, 64, 4, 256 batch=4", "batch", v, sizeof v) &&
          !strcmp(v, "4"));
    CHECK(sb_db_shape_value("model=2, 64, 4, 256 batch=4", "model", v, sizeof v) &&
          !strcmp(v, "2, 64, 4, 256"));
    CHECK(!sb_db_shape_value("model=tiny seq=32", "batch", v, sizeof v) && !v[0]);
    CHECK(!sb_db_shape_value("model=xbatch=3", "batch", v, sizeof v));
    CHECK(!sb_db_shape_value("64x64x64", "batch", v, sizeof v));
    CHECK(!sb_db_shape_value("", "batch", v, sizeof v));
    CHECK(sb_db_point_status_known("projected") && !sb_db_point_status_known("bogus"));
    CHECK(sb_db_sweep_status_known("done") && !sb_db_sweep_status_known("ok"));
    CHECK(sb_db_workload_known("allreduce") && !sb_db_workload_known("GEMM"));
}

/* ---- what the store takes, and what it repairs ---- */

static char *str_text(sb_db *db, const char *sql)
{
    sqlite3_stmt *st;
    char *out = NULL;
    if (sqlite3_prepare_v2(sb_db_handle(db), sql, -1, &st, NULL) == SQLITE_OK) {
        if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
            out = strdup((const char *)sqlite3_column_text(st, 0));
        sqlite3_finalize(st);
    }
    return out;
}

static void test_store_rules(void)
{
    char path[512];
    snprintf(path, sizeof path, "%s/rules.db", g_dir);
    sb_db *db;
    sb_err e = {0};
    CHECK(sb_db_open(path, &db, &e) == SB_OK);
    int64_t sid = 0, pid = 0;
    /* a label: refused, not cut, when it breaks the rules */
    char label[2048];
    memset(label, 'x', SB_DB_MAX_NAME + 1);
    label[SB_DB_MAX_NAME + 1] = '\0';
    CHECK_EQ_INT(sb_db_sweep_create(db, label, "gemm", "p", 0, &sid, &e), SB_EUSAGE);
    CHECK(strstr(e.msg, "label: 257 characters") != NULL);
    CHECK_EQ_INT(sb_db_sweep_create(db, "caf\xe9", "gemm", "p", 0, &sid, &e), SB_EUSAGE);
    CHECK(strstr(e.msg, "label: invalid UTF-8 at byte 3") != NULL);
    CHECK_EQ_INT(sb_db_sweep_create(db, "x", "bogus", "p", 0, &sid, &e), SB_EUSAGE);
    /* 256 four-byte characters are 1024 bytes and fit: the limit is in characters */
    for (int i = 0; i < SB_DB_MAX_NAME; i++) memcpy(label + 4 * i, "\xf0\x9f\x98\x80", 4);
    label[4 * SB_DB_MAX_NAME] = '\0';
    CHECK_EQ_INT(sb_db_sweep_create(db, label, "gemm", "p", 0, &sid, &e), SB_OK);
    char *got = str_text(db, "SELECT label FROM sweep");
    CHECK(got && !strcmp(got, label));
    free(got);
    sb_point_desc d = {.seq = 0,
                       .workload = "gemm",
                       .kernel = "scalar-f32",
                       .dtype = "f32",
                       .shape = "<b>64</b>x64x64",
                       .config = "{}",
                       .threads = 1,
                       .ppn = 1,
                       .nodes = 1,
                       .command = "x"};
    CHECK_EQ_INT(sb_db_point_add(db, sid, &d, 0, &pid, &e), SB_EUSAGE);
    CHECK(strstr(e.msg, "shape") != NULL);
    /* an unknown workload: the message names every row of the table (it
     * once listed five by hand and missed the newer ones) */
    d.workload = "nosuch";
    CHECK_EQ_INT(sb_db_point_add(db, sid, &d, 0, &pid, &e), SB_EUSAGE);
    for (int w = 0; w < sb_workload_count(); w++)
        CHECK(strstr(e.msg, sb_workload_at(w)->name) != NULL);
    CHECK(strstr(e.msg, "workload: 'nosuch' is not one of ") != NULL);
    d.workload = "gemm";
    d.shape = "64x64x64:NN";
    d.command = "sprbench \xff gemm"; /* machine text: repaired, the point stored */
    CHECK_EQ_INT(sb_db_point_add(db, sid, &d, 0, &pid, &e), SB_OK);
    got = str_text(db, "SELECT command FROM point");
    CHECK(got && !strcmp(got, "sprbench \xef\xbf\xbd gemm"));
    free(got);
    CHECK_EQ_INT(sb_db_point_set_status(db, pid, "bogus", "", &e), SB_EUSAGE);
    /* a reason from a worker: invalid bytes visible, cut between characters */
    char *reason = malloc(3 * 5000 + 8);
    strcpy(reason, "\xfe");
    for (int i = 0; i < 5000; i++) strcat(reason, "\xe2\x82\xac");
    CHECK_EQ_INT(sb_db_point_set_status(db, pid, "failed", reason, &e), SB_OK);
    got = str_text(db, "SELECT reason FROM point");
    CHECK(got && sb_text_chars(got, strlen(got), NULL) == SB_DB_MAX_REASON);
    CHECK(got && !strncmp(got, "\xef\xbf\xbd\xe2\x82\xac", 6));
    CHECK(got && !strcmp(got + strlen(got) - 3, "\xe2\x80\xa6"));
    free(got);
    free(reason);
    /* an ok GEMM result without samples is refused; a peak's is fine */
    json_t *nos = json_pack("{s:s, s:[], s:{s:f}}", "status", "ok", "samples", "metrics", "gflops",
                            1.0);
    CHECK_EQ_INT(sb_db_point_ingest(db, pid, nos, &e), SB_EUSAGE);
    CHECK(strstr(e.msg, "no samples") != NULL);
    d.workload = "peak";
    d.shape = "";
    int64_t peak = 0;
    CHECK_EQ_INT(sb_db_point_add(db, sid, &d, 0, &peak, &e), SB_OK);
    CHECK_EQ_INT(sb_db_point_ingest(db, peak, nos, &e), SB_OK);
    json_decref(nos);
    json_t *badname = json_pack("{s:s, s:[f], s:{s:f}}", "status", "ok", "samples", 1.0, "metrics",
                                "a b", 1.0);
    CHECK_EQ_INT(sb_db_point_ingest(db, pid, badname, &e), SB_EUSAGE);
    json_decref(badname);
    /* a sample is seconds in [1e-9, 1e9] (#44): what a sweep stores, an
     * import takes; the bounds themselves are samples */
    const double not_seconds[] = {0, -1, 5e-324, 0.9e-9, 1.1e9};
    for (size_t i = 0; i < sizeof not_seconds / sizeof not_seconds[0]; i++) {
        json_t *bad = json_pack("{s:s, s:[f,f], s:{s:f}}", "status", "ok", "samples", 1e-3,
                                not_seconds[i], "metrics", "gflops", 1.0);
        CHECKF(sb_db_point_ingest(db, pid, bad, &e) == SB_EUSAGE, "sample %g", not_seconds[i]);
        CHECK(strstr(e.msg, "samples[1] is not a number of seconds in [1e-09, 1e+09]") != NULL);
        json_decref(bad);
    }
    json_t *edge = json_pack("{s:s, s:[f,f], s:{s:f}}", "status", "ok", "samples", 1e-9, 1e9,
                             "metrics", "gflops", 1.0);
    CHECK_EQ_INT(sb_db_point_ingest(db, pid, edge, &e), SB_OK);
    json_decref(edge);
    /* a pairing only on a workload the sweep pairs (GEMM), its pair numbers
     * below its number of samples */
    json_t *paired = json_pack("{s:s, s:[f], s:{s:s, s:s, s:s, s:[f,f], s:[i,i], s:[i,i]}}",
                               "status", "ok", "samples", 1e-3, "pairing", "mode", "abba",
                               "baseline", "./a", "candidate", "./b", "samples", 1e-3, 1e-3, "side",
                               0, 1, "pair", 0, 1);
    CHECK_EQ_INT(sb_db_point_ingest(db, pid, paired, &e), SB_OK);
    json_array_set_new(json_object_get(json_object_get(paired, "pairing"), "pair"), 1,
                       json_integer(2));
    CHECK_EQ_INT(sb_db_point_ingest(db, pid, paired, &e), SB_EUSAGE);
    CHECK(strstr(e.msg, "pair[1]: an integer in [0, 1]") != NULL);
    d.workload = "stream";
    d.shape = "";
    int64_t stream = 0;
    CHECK_EQ_INT(sb_db_point_add(db, sid, &d, 0, &stream, &e), SB_OK);
    json_array_set_new(json_object_get(json_object_get(paired, "pairing"), "pair"), 1,
                       json_integer(0));
    CHECK_EQ_INT(sb_db_point_ingest(db, stream, paired, &e), SB_EUSAGE);
    CHECK(strstr(e.msg, "stream points are never measured in pairs") != NULL);
    json_decref(paired);
    /* invalid UTF-8 written behind the store's back (an older sprbench):
     * the export repairs it visibly instead of leaving the field out */
    CHECK(sqlite3_exec(sb_db_handle(db), "UPDATE sweep SET label = CAST(X'6361666599' AS TEXT)",
                       NULL, NULL, NULL) == SQLITE_OK);
    json_t *doc = NULL;
    long repaired = 0;
    CHECK_EQ_INT(sb_export_doc(db, 0, &doc, &repaired, &e), SB_OK);
    json_t *lab = json_object_get(json_array_get(json_object_get(doc, "sweeps"), 0), "label");
    CHECK(json_is_string(lab) && !strcmp(json_string_value(lab), "cafe\xef\xbf\xbd"));
    CHECK_EQ_INT(repaired, 1);
    json_decref(doc);
    sb_db_close(db);
}

/* ---- worker output ---- */

static void test_point_log(void)
{
    char path[512];
    snprintf(path, sizeof path, "%s/log.db", g_dir);
    sb_db *db;
    sb_err e = {0};
    CHECK(sb_db_open(path, &db, &e) == SB_OK);
    int64_t sid = 0, pid = 0;
    CHECK(sb_db_sweep_create(db, "logs", "gemm", "p", 0, &sid, &e) == SB_OK);
    sb_point_desc d = {.seq = 0,
                       .workload = "gemm",
                       .kernel = "k",
                       .dtype = "f32",
                       .shape = "8x8x8",
                       .config = "{}",
                       .threads = 1,
                       .ppn = 1,
                       .nodes = 1};
    CHECK(sb_db_point_add(db, sid, &d, 0, &pid, &e) == SB_OK);
    /* 100 000 euro signs (3 bytes each) after a bad byte: the tail kept is
     * the last 64 KiB, from a character boundary, valid UTF-8 */
    size_t n = 100000 * 3 + 1;
    char *out = malloc(n);
    out[0] = '\xff';
    for (size_t i = 1; i < n; i += 3) memcpy(out + i, "\xe2\x82\xac", 3);
    CHECK_EQ_INT(sb_db_point_log_set(db, pid, out, n, (long long)n + 7, "err\x1b[31m\n", 9, 9, &e),
                 SB_OK);
    sb_point_log lg;
    int found = 0;
    CHECK_EQ_INT(sb_db_point_log_get(db, pid, &lg, &found, &e), SB_OK);
    CHECK(found);
    if (found) {
        size_t k = strlen(lg.out);
        CHECK(k <= SB_DB_LOG_BYTES && k > SB_DB_LOG_BYTES - 3);
        CHECK(sb_text_chars(lg.out, k, NULL) == (long)(k / 3) && k % 3 == 0);
        CHECK_EQ_INT(lg.out_bytes, (long long)n + 7);
        CHECK(!strcmp(lg.err, "err\x1b[31m\n") && lg.err_bytes == 9);
        sb_point_log_free(&lg);
    }
    free(out);
    /* exported and imported with its point */
    json_t *doc;
    CHECK_EQ_INT(sb_export_doc(db, 0, &doc, NULL, &e), SB_OK);
    json_t *plog = json_object_get(json_array_get(json_object_get(doc, "points"), 0), "log");
    CHECK(json_is_object(plog) && json_integer_value(json_object_get(plog, "stderr_bytes")) == 9);
    sb_db_close(db);
    snprintf(path, sizeof path, "%s/log2.db", g_dir);
    CHECK(sb_db_open(path, &db, &e) == SB_OK);
    sb_import_stats st;
    CHECK_EQ_INT(sb_import_doc(db, doc, "logs.json", &st, &e), SB_OK);
    int64_t pid2 = 0;
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(sb_db_handle(db), "SELECT id FROM point", -1, &q, NULL) == SQLITE_OK) {
        if (sqlite3_step(q) == SQLITE_ROW) pid2 = sqlite3_column_int64(q, 0);
        sqlite3_finalize(q);
    }
    CHECK_EQ_INT(sb_db_point_log_get(db, pid2, &lg, &found, &e), SB_OK);
    CHECK(found && !strcmp(lg.err, "err\x1b[31m\n"));
    if (found) sb_point_log_free(&lg);
    /* a log over 64 KiB in an export is refused */
    json_t *big = json_deep_copy(doc);
    json_t *bl = json_object_get(json_array_get(json_object_get(big, "points"), 0), "log");
    char *huge = malloc(SB_DB_LOG_BYTES + 2);
    memset(huge, 'a', SB_DB_LOG_BYTES + 1);
    huge[SB_DB_LOG_BYTES + 1] = '\0';
    json_object_set_new(bl, "stdout", json_string(huge));
    free(huge);
    CHECK_EQ_INT(sb_import_doc(db, big, "big.json", &st, &e), SB_EUSAGE);
    CHECK(strstr(e.msg, "log.stdout") != NULL);
    json_decref(big);
    json_decref(doc);
    sb_db_close(db);
}

/* ---- the read-only open ---- */

static int digest(const char *path, unsigned char out[64])
{
    /* not a cryptographic hash: any byte changed changes it (FNV-1a over
     * the file, and its length) */
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    unsigned long long h = 1469598103934665603ull, len = 0;
    int c;
    while ((c = fgetc(f)) != EOF) {
        h = (h ^ (unsigned char)c) * 1099511628211ull;
        len++;
    }
    fclose(f);
    memcpy(out, &h, 8);
    memcpy(out + 8, &len, 8);
    return 0;
}

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static void make_sqlite(const char *path, const char *sql)
{
    sqlite3 *h;
    CHECK(sqlite3_open(path, &h) == SQLITE_OK);
    CHECK(sqlite3_exec(h, sql, NULL, NULL, NULL) == SQLITE_OK);
    sqlite3_close(h);
}

static void expect_untouched(const char *path, int rw, const char *want)
{
    unsigned char a[64] = {0}, b[64] = {0};
    char side[600];
    CHECK(digest(path, a) == 0);
    sb_db *db = NULL;
    sb_err e = {0};
    int rc = rw ? sb_db_open(path, &db, &e) : sb_db_open_readonly(path, &db, &e);
    CHECKF(rc == SB_EUSAGE && strstr(e.msg, want), "%s %s: rc %d, '%s', wanted '%s'", path,
           rw ? "rw" : "ro", rc, e.msg, want);
    sb_db_close(db);
    CHECK(digest(path, b) == 0 && !memcmp(a, b, 16));
    snprintf(side, sizeof side, "%s-wal", path);
    CHECK(!exists(side));
    snprintf(side, sizeof side, "%s-shm", path);
    CHECK(!exists(side));
}

static void test_readonly(void)
{
    char path[512], other[600];
    sb_db *db = NULL;
    sb_err e = {0};
    /* another program's files: rollback journal, WAL with a table named
     * like ours, a user_version set; a newer sprbench; not SQLite; empty */
    snprintf(path, sizeof path, "%s/foreign.db", g_dir);
    make_sqlite(path, "CREATE TABLE notes (x); INSERT INTO notes VALUES ('keep me');");
    expect_untouched(path, 0, "is not a sprbench database");
    expect_untouched(path, 1, "is not a sprbench database");
    snprintf(path, sizeof path, "%s/foreignwal.db", g_dir);
    make_sqlite(path, "PRAGMA journal_mode=WAL; CREATE TABLE point (x); PRAGMA user_version = 2;");
    expect_untouched(path, 0, "sprbench tables are missing");
    expect_untouched(path, 1, "sprbench tables are missing");
    snprintf(path, sizeof path, "%s/newer.db", g_dir);
    make_sqlite(path, "CREATE TABLE t (x); PRAGMA user_version = 99;");
    expect_untouched(path, 0, "schema version 99 is newer");
    expect_untouched(path, 1, "schema version 99 is newer");
    snprintf(path, sizeof path, "%s/text.db", g_dir);
    FILE *f = fopen(path, "w");
    fputs("hello, this is text and no database at all, long enough for a header .........."
          "..........................................\n",
          f);
    fclose(f);
    expect_untouched(path, 0, "is not a SQLite database");
    snprintf(path, sizeof path, "%s/empty.db", g_dir);
    fclose(fopen(path, "w"));
    expect_untouched(path, 0, "is empty");
    snprintf(path, sizeof path, "%s/none.db", g_dir);
    CHECK_EQ_INT(sb_db_open_readonly(path, &db, &e), SB_EUSAGE);
    CHECK(strstr(e.msg, "no such database") && !exists(path));
    CHECK_EQ_INT(sb_db_open_readonly(g_dir, &db, &e), SB_EUSAGE);
    CHECK(strstr(e.msg, "a directory") != NULL);

    /* an older schema is read as it is: not migrated, not switched */
    snprintf(path, sizeof path, "%s/v1.db", g_dir);
    CHECK(sb_db_open_at_version(path, 1, &db, &e) == SB_OK);
    CHECK(sqlite3_exec(
              sb_db_handle(db),
              "INSERT INTO sweep (uuid, label, workload, status) VALUES"
              " ('00000000000000000000000000000001', 'old', 'gemm', 'done');"
              "INSERT INTO point (uuid, sweep_id, seq, workload, kernel, shape, status)"
              " VALUES ('00000000000000000000000000000002', 1, 0, 'gemm', 'k', '8x8x8', 'ok');"
              "INSERT INTO sample VALUES (1, 0, 0.5);",
              NULL, NULL, NULL) == SQLITE_OK);
    sb_db_close(db);
    unsigned char a[64], b[64];
    CHECK(digest(path, a) == 0);
    CHECK_EQ_INT(sb_db_open_readonly(path, &db, &e), SB_OK);
    if (db) {
        CHECK(sb_db_readonly(db));
        CHECK_EQ_INT(sb_db_schema_version(db), 1);
        json_t *doc = NULL;
        CHECK_EQ_INT(sb_export_doc(db, 0, &doc, NULL, &e), SB_OK);
        json_t *p0 = json_array_get(json_object_get(doc, "points"), 0);
        CHECK(json_is_null(json_object_get(p0, "command")));
        CHECK_EQ_INT(json_array_size(json_object_get(p0, "samples")), 1);
        json_decref(doc);
        sb_point_log lg;
        int found = 1;
        CHECK_EQ_INT(sb_db_point_log_get(db, 1, &lg, &found, &e), SB_OK);
        CHECK(!found);
        /* nothing can be written through it */
        CHECK(sb_db_begin(db, &e) != SB_OK);
        CHECK(sqlite3_exec(sb_db_handle(db), "DELETE FROM main.sample", NULL, NULL, NULL) !=
              SQLITE_OK);
        sb_db_close(db);
    }
    CHECK(digest(path, b) == 0 && !memcmp(a, b, 16));
    snprintf(other, sizeof other, "%s-wal", path);
    CHECK(!exists(other)); /* and the -wal/-shm a read-only reader makes are gone */
    snprintf(other, sizeof other, "%s-shm", path);
    CHECK(!exists(other));
    /* the writing open then upgrades it */
    CHECK_EQ_INT(sb_db_open(path, &db, &e), SB_OK);
    CHECK_EQ_INT(sb_db_schema_version(db), SB_DB_SCHEMA_VERSION);
    sb_db_close(db);

    /* a read-only directory: readable; run as another user when root, for
     * whom permissions would not apply */
    char ro[400];
    snprintf(ro, sizeof ro, "%s/rodir", g_dir);
    CHECK(mkdir(ro, 0755) == 0);
    snprintf(path, sizeof path, "%s/r.db", ro);
    CHECK(sb_db_open(path, &db, &e) == SB_OK);
    int64_t sid = 0;
    CHECK(sb_db_sweep_create(db, "in a read-only place", "gemm", "p", 0, &sid, &e) == SB_OK);
    sb_db_close(db);
    CHECK(chmod(path, 0644) == 0 && chmod(ro, 0555) == 0 && chmod(g_dir, 0755) == 0);
    CHECK(digest(path, a) == 0);
    pid_t child = fork();
    if (child == 0) {
        if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0)) _exit(3);
        sb_db *c = NULL;
        sb_err ce = {0};
        if (sb_db_open_readonly(path, &c, &ce) != SB_OK) {
            fprintf(stderr, "read-only directory: %s\n", ce.msg);
            _exit(1);
        }
        char *label = str_text(c, "SELECT label FROM sweep");
        int ok = label && !strcmp(label, "in a read-only place");
        sb_db_close(c);
        /* the writing open refuses with one message, and creates nothing */
        int refused = sb_db_open(path, &c, &ce) == SB_EUSAGE;
        _exit(ok && refused ? 0 : 2);
    }
    int status = -1;
    waitpid(child, &status, 0);
    CHECKF(WIFEXITED(status) && WEXITSTATUS(status) == 0, "read-only directory: child status %d",
           status);
    CHECK(digest(path, b) == 0 && !memcmp(a, b, 16));
    snprintf(other, sizeof other, "%s-shm", path);
    CHECK(!exists(other));
    /* a write-ahead log left there (a writer killed) without its -shm: the
     * file alone is not the database, so it is refused, not misread */
    CHECK(chmod(ro, 0755) == 0);
    snprintf(other, sizeof other, "%s-wal", path);
    f = fopen(other, "w");
    fputs("not empty", f);
    fclose(f);
    CHECK(chmod(other, 0644) == 0 && chmod(ro, 0555) == 0);
    child = fork();
    if (child == 0) {
        if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0)) _exit(3);
        sb_db *c = NULL;
        sb_err ce = {0};
        int rc = sb_db_open_readonly(path, &c, &ce);
        sb_db_close(c);
        _exit(rc == SB_EUSAGE && strstr(ce.msg, "write-ahead log") ? 0 : 1);
    }
    waitpid(child, &status, 0);
    CHECKF(WIFEXITED(status) && WEXITSTATUS(status) == 0, "wal without shm: child status %d",
           status);
    CHECK(chmod(ro, 0755) == 0);
    unlink(other);
}

/* ---- the claim on a sweep ---- */

/* This process as a sweep's holder, described anew (after a fork too). */
static const sb_db_holder *me(void)
{
    static sb_db_holder h;
    sb_holder_self(&h);
    return &h;
}

/* A child that waits, named name (NULL: as we are), in process group
 * group (0: one of its own), once it is both. */
static pid_t in_group(const char *name, pid_t group)
{
    int ready[2];
    CHECK(pipe(ready) == 0);
    pid_t child = fork();
    if (child == 0) {
        if (name) prctl(PR_SET_NAME, name);
        if (setpgid(0, group) != 0 || write(ready[1], "r", 1) != 1) _exit(1);
        pause();
        _exit(0);
    }
    char c = 0;
    CHECK(read(ready[0], &c, 1) == 1 && c == 'r');
    close(ready[0]);
    close(ready[1]);
    return child;
}

/* A holder of this host that is gone while processes of its runs live
 * (its run group, sb_db_sweep_set_group, has a member): claim and unlock
 * refused until they have ended; a group of an earlier boot is no one's. */
static void test_claim_runs(sb_db *db, int64_t sid)
{
    sb_err e = {0};
    CHECK_EQ_INT(sb_db_sweep_set_group(db, sid, me(), 0, &e), SB_OK);
    pid_t dead = fork();
    if (dead == 0) _exit(0);
    waitpid(dead, NULL, 0);
    /* a guard (known by its name) and a stranger in the group: only the
     * guard counts (a group id can be reused once the guards are gone) */
    pid_t member = in_group(SB_PROC_GUARD_COMM, 0);
    pid_t stranger = in_group(NULL, member);
    char boot[64] = "", sql[512];
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    CHECK(f && fgets(boot, sizeof boot, f));
    if (f) fclose(f);
    boot[strcspn(boot, "\n")] = '\0';
    snprintf(sql, sizeof sql,
             "UPDATE sweep SET holder_pid = %ld, holder_start = '%s:1', holder_group = %ld",
             (long)dead, boot, (long)member);
    CHECK(sqlite3_exec(sb_db_handle(db), sql, NULL, NULL, NULL) == SQLITE_OK);
    char want[128];
    snprintf(want, sizeof want, "processes of its runs still live on this host (process group %ld",
             (long)member);
    CHECK_EQ_INT(sb_db_sweep_claim(db, sid, me(), &e), SB_EUSAGE);
    CHECKF(strstr(e.msg, want) && strstr(e.msg, "resume once"), "claim: %s", e.msg);
    char was[256];
    CHECK_EQ_INT(sb_db_sweep_unlock(db, sid, me(), was, sizeof was, &e), SB_EUSAGE);
    CHECKF(strstr(e.msg, want) && strstr(e.msg, "unlock once"), "unlock: %s", e.msg);
    /* a group id of an earlier boot names nothing of ours */
    CHECK(sqlite3_exec(sb_db_handle(db), "UPDATE sweep SET holder_start = 'another-boot:1'", NULL,
                       NULL, NULL) == SQLITE_OK);
    CHECK_EQ_INT(sb_db_sweep_claim(db, sid, me(), &e), SB_OK);
    CHECK_EQ_INT(count(db, "SELECT COUNT(*) FROM sweep WHERE holder_group IS NULL"), 1);
    /* the last of them ends: taken over */
    snprintf(sql, sizeof sql,
             "UPDATE sweep SET holder_pid = %ld, holder_start = '%s:1', holder_group = %ld",
             (long)dead, boot, (long)member);
    CHECK(sqlite3_exec(sb_db_handle(db), sql, NULL, NULL, NULL) == SQLITE_OK);
    kill(member, SIGKILL);
    waitpid(member, NULL, 0);
    CHECK_EQ_INT(sb_db_sweep_claim(db, sid, me(), &e), SB_OK);
    kill(stranger, SIGKILL);
    waitpid(stranger, NULL, 0);
    /* a guard that ends while the claim waits (as one does within its grace
     * after a kill -9 of the sweep): taken over, not refused */
    pid_t late = in_group(SB_PROC_GUARD_COMM, 0);
    snprintf(sql, sizeof sql,
             "UPDATE sweep SET holder_pid = %ld, holder_start = '%s:1', holder_group = %ld",
             (long)dead, boot, (long)late);
    CHECK(sqlite3_exec(sb_db_handle(db), sql, NULL, NULL, NULL) == SQLITE_OK);
    pid_t killer = fork();
    if (killer == 0) {
        usleep(300 * 1000);
        kill(late, SIGKILL);
        _exit(0);
    }
    CHECK_EQ_INT(sb_db_sweep_claim(db, sid, me(), &e), SB_OK);
    waitpid(killer, NULL, 0);
    waitpid(late, NULL, 0);
    /* recorded with our claim, dropped with it */
    CHECK_EQ_INT(sb_db_sweep_set_group(db, sid, me(), 4242, &e), SB_OK);
    CHECK_EQ_INT(count(db, "SELECT COUNT(*) FROM sweep WHERE holder_group = 4242"), 1);
    CHECK_EQ_INT(sb_db_sweep_release(db, sid, me(), &e), SB_OK);
    CHECK_EQ_INT(count(db, "SELECT COUNT(*) FROM sweep WHERE holder_group IS NULL"), 1);
    CHECK_EQ_INT(sb_db_sweep_claim(db, sid, me(), &e), SB_OK);
}

/* The store keeps a holder's token as given and asks the caller's holder
 * whether a stored one lives: a token of any form, judged by the callbacks
 * alone (no /proc read in the store). */
static int fake_alive(long pid, const char *token)
{
    return pid == 4242 && !strcmp(token, "opaque:x");
}
static int fake_runs(long group, const char *token)
{
    return group == 77 && !strcmp(token, "opaque:x");
}
static int none_alive(long pid, const char *token) { return (void)pid, (void)token, 0; }
static int none_runs(long group, const char *token) { return (void)group, (void)token, 0; }

static void test_claim_opaque(sb_db *db, int64_t sid)
{
    sb_err e = {0};
    sb_db_holder other = *me();
    other.pid = 4242;
    snprintf(other.token, sizeof other.token, "opaque:x");
    CHECK_EQ_INT(sb_db_sweep_release(db, sid, me(), &e), SB_OK);
    CHECK_EQ_INT(sb_db_sweep_claim(db, sid, &other, &e), SB_OK);
    CHECK_EQ_INT(count(db,
                       "SELECT COUNT(*) FROM sweep WHERE holder_pid = 4242"
                       " AND holder_start = 'opaque:x'"),
                 1);
    sb_db_holder judge = *me();
    judge.alive = fake_alive;
    judge.runs_alive = fake_runs;
    CHECK_EQ_INT(sb_db_sweep_claim(db, sid, &judge, &e), SB_EUSAGE);
    CHECKF(strstr(e.msg, "already being run by process 4242 on this host"), "claim: %s", e.msg);
    CHECK_EQ_INT(sb_db_sweep_unlock(db, sid, &judge, NULL, 0, &e), SB_EUSAGE);
    CHECKF(strstr(e.msg, "which is alive: stop it (kill -TERM 4242)"), "unlock: %s", e.msg);
    /* gone, but its run group lives (the callback says so) */
    CHECK_EQ_INT(sb_db_sweep_set_group(db, sid, &other, 77, &e), SB_OK);
    judge.alive = none_alive;
    CHECK_EQ_INT(sb_db_sweep_claim(db, sid, &judge, &e), SB_EUSAGE);
    CHECKF(strstr(e.msg, "process group 77, being stopped"), "claim: %s", e.msg);
    /* all gone: taken over */
    judge.runs_alive = none_runs;
    CHECK_EQ_INT(sb_db_sweep_claim(db, sid, &judge, &e), SB_OK);
    CHECK_EQ_INT(sb_db_sweep_release(db, sid, &judge, &e), SB_OK);
    CHECK_EQ_INT(count(db, "SELECT COUNT(*) FROM sweep WHERE holder_pid IS NULL"), 1);
}

static void test_claim(void)
{
    char path[512];
    snprintf(path, sizeof path, "%s/claim.db", g_dir);
    sb_db *db;
    sb_err e = {0};
    CHECK(sb_db_open(path, &db, &e) == SB_OK);
    int64_t sid = 0;
    CHECK(sb_db_sweep_create(db, "claimed", "gemm", "p", 0, &sid, &e) == SB_OK);
    CHECK_EQ_INT(sb_db_sweep_claim(db, 99, me(), &e), SB_EUSAGE);
    CHECK_EQ_INT(sb_db_sweep_claim(db, sid, me(), &e), SB_OK);
    CHECK_EQ_INT(sb_db_sweep_claim(db, sid, me(), &e), SB_OK); /* already ours */
    CHECK_EQ_INT(sb_db_sweep_release(db, sid, me(), &e), SB_OK);
    /* a live process holds it: refused, naming it */
    int go[2];
    CHECK(pipe(go) == 0);
    pid_t child = fork();
    if (child == 0) {
        sb_db *c;
        sb_err ce = {0};
        char ok = sb_db_open(path, &c, &ce) == SB_OK &&
            sb_db_sweep_claim(c, sid, me(), &ce) == SB_OK;
        sb_db_close(c);
        if (write(go[1], &ok, 1) != 1) _exit(1);
        pause();
        _exit(0);
    }
    char ok = 0;
    CHECK(read(go[0], &ok, 1) == 1 && ok);
    CHECK_EQ_INT(sb_db_sweep_claim(db, sid, me(), &e), SB_EUSAGE);
    char want[64];
    snprintf(want, sizeof want, "already being run by process %ld", (long)child);
    CHECKF(strstr(e.msg, want) != NULL, "claim message: %s", e.msg);
    /* it dies: its claim is stale and taken over */
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    CHECK_EQ_INT(sb_db_sweep_claim(db, sid, me(), &e), SB_OK);
    /* a pid alive but another process (reused): the start time tells */
    CHECK(sqlite3_exec(sb_db_handle(db),
                       "UPDATE sweep SET holder_pid = 1,"
                       " holder_start = 'another-boot:1'",
                       NULL, NULL, NULL) == SQLITE_OK);
    CHECK_EQ_INT(sb_db_sweep_claim(db, sid, me(), &e), SB_OK);
    /* another host: cannot be checked from here; unlock releases it */
    CHECK(sqlite3_exec(sb_db_handle(db),
                       "UPDATE sweep SET holder_pid = 4242,"
                       " holder_host = 'elsewhere', holder_since = '2026-01-01T00:00:00Z'",
                       NULL, NULL, NULL) == SQLITE_OK);
    CHECK_EQ_INT(sb_db_sweep_claim(db, sid, me(), &e), SB_EUSAGE);
    CHECK(strstr(e.msg, "process 4242 on host elsewhere") && strstr(e.msg, "db unlock"));
    CHECK_EQ_INT(sb_db_sweep_release(db, sid, me(), &e), SB_OK); /* not ours: left alone */
    CHECK_EQ_INT(sb_db_sweep_claim(db, sid, me(), &e), SB_EUSAGE);
    char was[256];
    CHECK_EQ_INT(sb_db_sweep_unlock(db, sid, me(), was, sizeof was, &e), SB_OK);
    CHECK(strstr(was, "process 4242 on host elsewhere") != NULL);
    CHECK_EQ_INT(sb_db_sweep_claim(db, sid, me(), &e), SB_OK);
    test_claim_runs(db, sid);
    test_claim_opaque(db, sid);
    sb_db_close(db);
}

/* The store's one read (sb_db_rows): bound parameters, every row handed
 * over, a row's error stops the read, a failed statement names the read. */
typedef struct rows_seen {
    int n, stop_at;
    int64_t sum;
} rows_seen;

static int seen_row(sqlite3_stmt *st, void *ctx, sb_err *e)
{
    rows_seen *r = ctx;
    if (++r->n == r->stop_at) return sb_errf(e, SB_EUSAGE, "stopped at row %d", r->n);
    r->sum += sqlite3_column_int64(st, 0);
    return SB_OK;
}

static void test_rows(void)
{
    char path[512];
    snprintf(path, sizeof path, "%s/rows.db", g_dir);
    sb_db *db;
    sb_err e = {0};
    CHECK(sb_db_open(path, &db, &e) == SB_OK);
    CHECK(sqlite3_exec(sb_db_handle(db),
                       "CREATE TABLE t (a INTEGER, b TEXT);"
                       " INSERT INTO t VALUES (1, 'x'), (2, 'y'), (4, NULL), (8, 'x')",
                       NULL, NULL, NULL) == SQLITE_OK);
    rows_seen r = {0};
    sb_db_arg a[] = {SB_DB_INT(1), SB_DB_TEXT("x")};
    CHECK_EQ_INT(sb_db_rows(db, "reading t", "SELECT a FROM t WHERE a >= ? AND b = ? ORDER BY a", a,
                            2, seen_row, &r, &e),
                 SB_OK);
    CHECK_EQ_INT(r.n, 2);
    CHECK(r.sum == 9);
    /* a NULL text binds SQL NULL */
    r = (rows_seen){0};
    sb_db_arg null_text[] = {SB_DB_TEXT(NULL)};
    CHECK_EQ_INT(
        sb_db_rows(db, "reading t", "SELECT a FROM t WHERE b IS ?", null_text, 1, seen_row, &r, &e),
        SB_OK);
    CHECK(r.n == 1 && r.sum == 4);
    /* the row's error is the read's, and no row after it is read */
    r = (rows_seen){.stop_at = 2};
    CHECK_EQ_INT(
        sb_db_rows(db, "reading t", "SELECT a FROM t ORDER BY a", NULL, 0, seen_row, &r, &e),
        SB_EUSAGE);
    CHECK(r.n == 2 && r.sum == 1 && strstr(e.msg, "stopped at row 2"));
    /* a statement that fails names the read and the file */
    CHECK_EQ_INT(
        sb_db_rows(db, "reading nothing", "SELECT a FROM no_such_table", NULL, 0, seen_row, &r, &e),
        SB_EFAIL);
    CHECKF(strstr(e.msg, path) && strstr(e.msg, ": reading nothing: "), "rows: %s", e.msg);
    /* a growing list: each element zeroed and counted */
    int *v = NULL, n = 0, cap = 0;
    for (int i = 0; i < 40; i++) {
        int *el = sb_db_push((void **)&v, &n, &cap, sizeof *v, &e);
        CHECK(el && *el == 0);
        if (el) *el = i;
    }
    CHECK(n == 40 && cap >= 40 && v[39] == 39);
    free(v);
    sb_db_close(db);
}

/* The store's statement helpers: parameters of every kind bound (a row id 0
 * as NULL, a machine's text repaired and cut, a record's value as it is or as its
 * JSON text), a single-row read and whether it found one, a read stopped
 * early, and a statement prepared once, reset for every use. */
typedef struct row_text {
    char s[64];
    int n;
} row_text;

static int text_row(sqlite3_stmt *st, void *ctx, sb_err *e)
{
    (void)e;
    row_text *r = ctx;
    const char *s = (const char *)sqlite3_column_text(st, 0);
    snprintf(r->s, sizeof r->s, "%s", s ? s : "(null)");
    return ++r->n == 2 ? SB_DB_STOP : SB_OK;
}

static void test_statements(void)
{
    char path[512];
    snprintf(path, sizeof path, "%s/statements.db", g_dir);
    sb_db *db;
    sb_err e = {0};
    CHECK(sb_db_open(path, &db, &e) == SB_OK);
    CHECK(sqlite3_exec(sb_db_handle(db), "CREATE TABLE t (k INTEGER, v)", NULL, NULL, NULL) ==
          SQLITE_OK);
    json_t *obj = json_pack("{s:i}", "a", 1), *str = json_string("s"), *num = json_integer(7),
           *no = json_true();
    sb_db_arg a[] = {SB_DB_INT(1), SB_DB_REAL(2.5), SB_DB_INT(2), SB_DB_TEXT("x"),
                     SB_DB_INT(3), SB_DB_TEXT(NULL), SB_DB_INT(4), SB_DB_NULL,
                     SB_DB_INT(5), SB_DB_ID(0), SB_DB_INT(6), SB_DB_ID(42),
                     SB_DB_INT(7), SB_DB_REPAIRED("ab\xff" "cdef", 4),
                     SB_DB_INT(8), SB_DB_JSON(obj), SB_DB_INT(9), SB_DB_JSON(str),
                     SB_DB_INT(10), SB_DB_JSON(num), SB_DB_INT(11), SB_DB_JSON(no)};
    CHECK_EQ_INT(sb_db_exec(db, "insert",
                            "INSERT INTO t VALUES (?,?), (?,?), (?,?), (?,?), (?,?), (?,?), (?,?),"
                            " (?,?), (?,?), (?,?), (?,?)",
                            a, SB_DB_NARGS(a), &e),
                 SB_OK);
    json_decref(obj);
    json_decref(str);
    json_decref(num);
    json_decref(no);
    static const char *want[] = {"2.5", "x", "(null)", "(null)", "(null)", "42",
                                 "ab\xef\xbf\xbd\xe2\x80\xa6", "{\"a\":1}", "s", "7", "(null)"};
    for (int k = 1; k <= 11; k++) {
        row_text r = {0};
        int found = 0;
        sb_db_arg q[] = {SB_DB_INT(k)};
        CHECK_EQ_INT(sb_db_row(db, "read", "SELECT v FROM t WHERE k = ?", q, 1, text_row, &r,
                               &found, &e),
                     SB_OK);
        CHECKF(found && r.n == 1 && !strcmp(r.s, want[k - 1]), "statements: row %d: '%s'", k,
               r.s);
    }
    /* a single-row read finds nothing, or hands over the first row only */
    row_text r = {0};
    int found = 1;
    sb_db_arg none[] = {SB_DB_INT(99)};
    CHECK_EQ_INT(sb_db_row(db, "read", "SELECT v FROM t WHERE k = ?", none, 1, text_row, &r,
                           &found, &e),
                 SB_OK);
    CHECK(!found && r.n == 0);
    CHECK_EQ_INT(sb_db_row(db, "read", "SELECT k FROM t ORDER BY k", NULL, 0, text_row, &r, &found,
                           &e),
                 SB_OK);
    CHECK(found && r.n == 1 && !strcmp(r.s, "1"));
    /* SB_DB_STOP ends a read without an error */
    r = (row_text){0};
    CHECK_EQ_INT(sb_db_rows(db, "read", "SELECT k FROM t ORDER BY k", NULL, 0, text_row, &r, &e),
                 SB_OK);
    CHECK(r.n == 2 && !strcmp(r.s, "2"));
    /* a statement prepared once: bound and reset for every use, its
     * failure named; never finalized by the helper */
    sqlite3_stmt *st;
    CHECK_EQ_INT(sb_db_prepare(db, "prepare", "SELECT v FROM t WHERE k = ?", &st, &e), SB_OK);
    for (int k = 2; k <= 3; k++) {
        r = (row_text){0};
        sb_db_arg q[] = {SB_DB_INT(k)};
        CHECK_EQ_INT(sb_db_stmt(db, st, "reading", q, 1, text_row, &r, &e), SB_OK);
        CHECK(r.n == 1 && !strcmp(r.s, want[k - 1]));
    }
    sqlite3_finalize(st);
    CHECK_EQ_INT(sb_db_prepare(db, "prepare", "INSERT INTO t VALUES (?, ?)", &st, &e), SB_OK);
    CHECK(sqlite3_exec(sb_db_handle(db), "CREATE UNIQUE INDEX t_k ON t(k)", NULL, NULL, NULL) ==
          SQLITE_OK);
    sb_db_arg dup[] = {SB_DB_INT(1), SB_DB_NULL};
    CHECK_EQ_INT(sb_db_stmt(db, st, "row insert", dup, 2, NULL, NULL, &e), SB_EFAIL);
    CHECKF(strstr(e.msg, path) && strstr(e.msg, ": row insert: "), "statements: %s", e.msg);
    sb_db_arg fresh[] = {SB_DB_INT(12), SB_DB_TEXT("y")};
    CHECK_EQ_INT(sb_db_stmt(db, st, "row insert", fresh, 2, NULL, NULL, &e), SB_OK);
    sqlite3_finalize(st);
    int64_t n = 0;
    CHECK_EQ_INT(sb_db_rows(db, "count", "SELECT COUNT(*) FROM t", NULL, 0, sb_db_int64_row, &n,
                            &e),
                 SB_OK);
    CHECK(n == 12);
    /* a failed write names the statement */
    CHECK_EQ_INT(sb_db_exec(db, "no table", "DELETE FROM no_such_table", NULL, 0, &e), SB_EFAIL);
    CHECKF(strstr(e.msg, ": no table: "), "statements: %s", e.msg);
    sb_db_close(db);
}

static int rm_one(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
    (void)sb;
    (void)type;
    (void)ftw;
    return remove(path);
}

/* Shown text stays inert: workflow commands defused with '?' as their
 * second character (a "::" only where a line starts), U+FFFE/U+FFFF as
 * U+FFFD, controls '?', and JSON keeps the value while hiding "##[". */
#define CHECK_STR(got, want) CHECKF(!strcmp((got), (want)), "got '%s', want '%s'", (got), (want))
static void test_text_inert(void)
{
    char b[256];
    CHECK_STR(sb_text_inert(b, sizeof b, "x\n::stop-commands::t"), "x?::stop-commands::t");
    CHECK_STR(sb_text_inert(b, sizeof b, "::error::x"), ":?error::x");
    CHECK_STR(sb_text_inert(b, sizeof b, "  ::add-mask::y"), "  :?add-mask::y");
    CHECK_STR(sb_text_inert(b, sizeof b, "a ##[set-output name=v]PASS"), "a #?[set-output name=v]PASS");
    CHECK_STR(sb_text_inert(b, sizeof b, "e\x1b]52;c;aGk=\x07 \xef\xbf\xbe\xef\xbf\xbf"),
              "e?]52;c;aGk=? \xef\xbf\xbd\xef\xbf\xbd");
    char m[64] = "a\n::warning::b ##[x]";
    sb_text_defuse(m);
    CHECK_STR(m, "a\n:?warning::b #?[x]");
    char line[64] = "q\r\n::error::z";
    sb_text_one_line(line);
    CHECK_STR(line, "q??::error::z");
    /* JSON: the same string read back, no "##[" and no U+FFFE in the text */
    json_t *doc = json_pack("{s:s}", "k", "##[set-output]\xef\xbf\xbe");
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CHECK(sb_text_json_dumpf(doc, f, JSON_COMPACT) == 0);
    fclose(f);
    CHECK(strstr(buf, "##[") == NULL && strstr(buf, "\xef\xbf\xbe") == NULL);
    json_t *back = json_loads(buf, 0, NULL);
    CHECK(back && !strcmp(json_string_value(json_object_get(back, "k")), "##[set-output]\xef\xbf\xbe"));
    json_decref(back);
    json_decref(doc);
    free(buf);
    /* Markdown and HTML: escapes that read as the same characters */
    buf = NULL;
    f = open_memstream(&buf, &len);
    sb_text_md(f, "::x ##[y] \x1b[2J\xff", 0);
    fputc('|', f);
    sb_text_html(f, "::x ##[y]\n\x1b");
    fclose(f);
    CHECK_STR(buf, "\\::x ##\\[y] ?[2J\xef\xbf\xbd|&#58;:x ##&#91;y] ?");
    free(buf);
    /* visible (db log): lines kept, each defused */
    buf = NULL;
    f = open_memstream(&buf, &len);
    const char *log = "ok\n::error::l\n ##[e]\n";
    sb_text_visible(f, log, strlen(log));
    fclose(f);
    CHECK_STR(buf, "ok\n:?error::l\n #?[e]\n");
    free(buf);
}

/* The one defuser against a runner's Unicode blanks (#44): every white space
 * the runner trims and every invisible character it skips, alone and
 * repeated, before "::" where a line starts (the text's start, after LF,
 * after CR) is blank; inside "::" and "##[" each may stand between the
 * marker's characters. Each writer shows the command defused its own way. */
static const struct {
    const char *utf8, *name;
} BLANKS[] = {
    {"\xc2\xa0", "U+00A0"},     {"\xe1\x9a\x80", "U+1680"}, {"\xe2\x80\x80", "U+2000"},
    {"\xe2\x80\x81", "U+2001"}, {"\xe2\x80\x82", "U+2002"}, {"\xe2\x80\x83", "U+2003"},
    {"\xe2\x80\x84", "U+2004"}, {"\xe2\x80\x85", "U+2005"}, {"\xe2\x80\x86", "U+2006"},
    {"\xe2\x80\x87", "U+2007"}, {"\xe2\x80\x88", "U+2008"}, {"\xe2\x80\x89", "U+2009"},
    {"\xe2\x80\x8a", "U+200A"}, {"\xe2\x80\xa8", "U+2028"}, {"\xe2\x80\xa9", "U+2029"},
    {"\xe2\x80\xaf", "U+202F"}, {"\xe2\x81\x9f", "U+205F"}, {"\xe3\x80\x80", "U+3000"},
    {"\xc2\x85", "U+0085"},     {"\xc2\xad", "U+00AD"},     {"\xe2\x80\x8b", "U+200B"},
    {"\xe2\x80\x8c", "U+200C"}, {"\xe2\x80\x8d", "U+200D"}, {"\xe2\x81\xa0", "U+2060"},
    {"\xef\xbb\xbf", "U+FEFF"}, {"\xe1\xa0\x8e", "U+180E"},
};

/* in: the text with every '@' replaced by the blank; want: after
 * sb_text_defuse, the same */
static void check_defuse(const char *blank, const char *name, const char *in, const char *want)
{
    char a[256] = "", b[256] = "";
    for (const char *p = in; *p; p++) strcat(a, *p == '@' ? blank : (char[2]){*p, 0});
    for (const char *p = want; *p; p++) strcat(b, *p == '@' ? blank : (char[2]){*p, 0});
    sb_text_defuse(a);
    CHECKF(!strcmp(a, b), "%s: '%s' gave '%s', want '%s'", name, in, a, b);
}

static char *shown(void (*write)(FILE *, const char *), const char *s)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    write(f, s);
    fclose(f);
    return buf;
}
static void visible(FILE *f, const char *s) { sb_text_visible(f, s, strlen(s)); }
static void md(FILE *f, const char *s) { sb_text_md(f, s, 0); }
static void json(FILE *f, const char *s)
{
    json_t *doc = json_pack("{s:s}", "k", s);
    sb_text_json_dumpf(doc, f, JSON_COMPACT);
    json_decref(doc);
}

static void test_text_defuse_unicode(void)
{
    for (size_t k = 0; k < sizeof BLANKS / sizeof *BLANKS; k++) {
        const char *u = BLANKS[k].utf8, *n = BLANKS[k].name;
        check_defuse(u, n, "@::add-mask::x", "@:?add-mask::x");
        check_defuse(u, n, "@@@::error::x", "@@@:?error::x");
        check_defuse(u, n, " @\t@ ::error::x", " @\t@ :?error::x");
        check_defuse(u, n, "a\n@::warning::x", "a\n@:?warning::x");
        check_defuse(u, n, "a\r@@::warning::x", "a\r@@:?warning::x");
        check_defuse(u, n, "a\r\n@::stop-commands::t", "a\r\n@:?stop-commands::t");
        check_defuse(u, n, ":@:error::x", ":@?error::x");
        check_defuse(u, n, "@:@@:error::x", "@:@@?error::x");
        check_defuse(u, n, "a\n :@:e", "a\n :@?e");
        check_defuse(u, n, "#@#[set-output]", "#@?[set-output]");
        check_defuse(u, n, "x ##@@[e] #@#@[e]", "x #?@@[e] #@?@[e]");
        check_defuse(u, n, "\n@#@@#[e]", "\n@#@@?[e]");
        /* not a command: text before the "::" on its line, or a blank that
         * is no blank inside the marker */
        check_defuse(u, n, "a@::x", "a@::x");
        check_defuse(u, n, "a\nb@::x @:@:y", "a\nb@::x @:@:y");
        check_defuse(u, n, "# #[x] : :y", "# #[x] : :y");
        /* one rule, each writer its own defusing */
        char in[64], want[64], *got;
        snprintf(in, sizeof in, "ok\n%s%s::error::l %s#%s#[e]", u, u, u, u);
        snprintf(want, sizeof want, "ok\n%s%s:?error::l %s#%s?[e]", u, u, u, u);
        if (strcmp(n, "U+0085")) { /* the log shows a C1 control as \u0085 */
            got = shown(visible, in);
            CHECKF(!strcmp(got, want), "%s: db log showed '%s'", n, got);
            free(got);
        }
        char cell[128];
        snprintf(in, sizeof in, "%s::add-mask::s", u);
        snprintf(want, sizeof want, "%s:?add-mask::s", u);
        if (strcmp(n, "U+0085")) /* a cell shows it as '?' */
            CHECKF(!strcmp(sb_text_cell(cell, sizeof cell, in, 30, 0), want), "%s: cell '%s'", n,
                   cell);
        snprintf(in, sizeof in, ":%s:x #%s#[y]", u, u);
        snprintf(want, sizeof want, "\\:%s:x #%s#\\[y]", u, u);
        if (strcmp(n, "U+0085")) { /* Markdown and HTML show it as '?' */
            got = shown(md, in);
            CHECKF(!strcmp(got, want), "%s: Markdown '%s'", n, got);
            free(got);
            snprintf(want, sizeof want, "&#58;%s:x #%s#&#91;y]", u, u);
            got = shown(sb_text_html, in);
            CHECKF(!strcmp(got, want), "%s: HTML '%s'", n, got);
            free(got);
        }
        snprintf(in, sizeof in, "#%s#[set-output]", u);
        snprintf(want, sizeof want, "{\"k\":\"#%s#\\u005bset-output]\"}", u);
        got = shown(json, in);
        CHECKF(!strcmp(got, want), "%s: JSON '%s'", n, got);
        free(got);
    }
    /* ASCII alone keeps what it always gave */
    char m[64] = "a\n::warning::b ##[x] c::d\t::e";
    sb_text_defuse(m);
    CHECK_STR(m, "a\n:?warning::b #?[x] c::d\t::e");
}

int main(void)
{
    snprintf(g_dir, sizeof g_dir, "/tmp/sb-test-db-XXXXXX");
    if (!mkdtemp(g_dir)) return 1;
    test_round_trip();
    test_older_schema();
    test_refusals();
    test_text();
    test_text_inert();
    test_text_defuse_unicode();
    test_store_rules();
    test_point_log();
    test_readonly();
    test_claim();
    test_rows();
    test_statements();
    chmod(g_dir, 0700);
    if (!getenv("SB_KEEP"))
        CHECK(nftw(g_dir, rm_one, 16, FTW_DEPTH | FTW_PHYS) == 0);
    else
        fprintf(stderr, "kept %s\n", g_dir);
    return test_report("db");
}
