/* The results store: round trip, migrations from an older schema, refusals. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <dirent.h>
#include "sb_db.h"
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
                     "fingerprint", fp, "hostname", "h1", "cpu", "vendor", "GenuineIntel",
                     "model", "Xeon", "family", 6, "model_number", 0x8f, "stepping", 8,
                     "microarch", "Sapphire Rapids", "isa", "amx_os_permitted", 1, "amx_reason", "",
                     "topology", "packages", 2, "numa_nodes", 2, "cores", 96, "pus", 192,
                     "memory", "total_bytes", (json_int_t)1 << 40, "kernel", "6.1");
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
    CHECK(sb_db_sweep_create(db, "label; DROP TABLE point", "gemm", "kernels = x", mid, &sid, &e) == SB_OK);
    sb_point_desc d = {.seq = 1, .workload = "gemm", .kernel = "scalar-f32", .dtype = "f32",
                       .shape = "8x8x8:NN", .config = "{}", .threads = 2, .ppn = 1, .nodes = 1,
                       .command = "sprbench gemm ..."};
    CHECK(sb_db_point_add(db, sid, &d, mid, &pid, &e) == SB_OK);
    json_t *res = json_pack("{s:s, s:s, s:s, s:[f,f,f], s:{s:f, s:f}, s:{s:s}, s:{s:s}}",
                            "workload", "gemm", "status", "ok", "reason", "", "samples", 0.5, 0.25,
                            0.75, "metrics", "gflops", 12.5, "epoch_seconds", 100.0, "units",
                            "gflops", "GFLOP/s", "projected", "epoch_seconds", "from 10 steps");
    CHECK(sb_db_point_ingest(db, pid, res, &e) == SB_OK);
    CHECK(sb_db_point_ingest(db, pid, res, &e) == SB_OK);   /* replaces, no duplicates */
    CHECK_EQ_INT(count(db, "SELECT COUNT(*) FROM sample"), 3);
    CHECK_EQ_INT(count(db, "SELECT COUNT(*) FROM metric"), 2);
    CHECK_EQ_INT(count(db, "SELECT projected FROM metric WHERE name = 'epoch_seconds'"), 1);
    CHECK_EQ_INT(count(db, "SELECT COUNT(*) FROM point WHERE status = 'ok'"), 1);
    CHECK_EQ_INT(count(db, "SELECT COUNT(*) FROM sweep WHERE label = 'label; DROP TABLE point'"), 1);
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
                       "INSERT INTO point (uuid, sweep_id, seq, workload, status) VALUES ('p1', 1, 0, 'gemm', 'ok');",
                       NULL, NULL, NULL) == SQLITE_OK);
    CHECK(count(db, "SELECT COUNT(*) FROM pragma_table_info('point') WHERE name = 'command'") == 0);
    sb_db_close(db);
    CHECK(sb_db_open(path, &db, &e) == SB_OK);
    CHECK_EQ_INT(sb_db_schema_version(db), SB_DB_SCHEMA_VERSION);
    CHECK_EQ_INT(count(db, "SELECT COUNT(*) FROM pragma_table_info('point') WHERE name = 'command'"), 1);
    CHECK_EQ_INT(count(db, "SELECT COUNT(*) FROM point WHERE uuid = 'p1'"), 1);
    /* a database from a newer sprbench is refused */
    CHECK(sqlite3_exec(sb_db_handle(db), "PRAGMA user_version = 99", NULL, NULL, NULL) == SQLITE_OK);
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

int main(void)
{
    snprintf(g_dir, sizeof g_dir, "/tmp/sb-test-db-XXXXXX");
    if (!mkdtemp(g_dir)) return 1;
    test_round_trip();
    test_older_schema();
    test_refusals();
    DIR *d = opendir(g_dir);
    for (struct dirent *ent; d && (ent = readdir(d));) {
        if (ent->d_name[0] == '.') continue;
        char p[600];
        snprintf(p, sizeof p, "%s/%s", g_dir, ent->d_name);
        unlink(p);
    }
    if (d) closedir(d);
    rmdir(g_dir);
    return test_report("db");
}
