/* sprbench db: inspect a results database, export it (JSON or CSV), import
 * exports and merge databases. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "sb_cli.h"
#include "sb_cmds.h"
#include "sb_db.h"
#include "sb_export.h"
#include "sb_stats.h"

static void db_help(void)
{
    printf("usage: sprbench db SUBCOMMAND [--db FILE] [options]\n\n"
           "Inspect, move and combine results databases (default --db %s).\n\n"
           "  db info                          schema version, counts, machines\n"
           "  db sweeps                        one line per sweep\n"
           "  db points --sweep ID             one line per point: status, samples, median\n"
           "                                   seconds (p10-p90), main metric or the reason\n"
           "  db export [--sweep ID] --out F   JSON export: machines, sweeps, points, raw\n"
           "                                   samples, metrics (everything, or one sweep)\n"
           "  db export --csv [--sweep ID] --out F|-\n"
           "                                   flat table, one row per point, one column per\n"
           "                                   metric (for spreadsheets and pandas)\n"
           "  db import FILE...                add exports to --db; importing twice adds\n"
           "                                   nothing (sweeps and points keep their uuid,\n"
           "                                   machines are matched by fingerprint)\n"
           "  db merge SRC.db...               add everything of other databases to --db\n\n"
           "A sweep ID is its number or (a prefix of) its uuid. An import is validated\n"
           "whole and written in one transaction: a bad file changes nothing.\n"
           "Exit status: 0 ok, 1 database failure, 2 bad usage or input.\n",
           SB_DEFAULT_DB);
}

static int open_existing(const char *path, sb_db **db, sb_err *e)
{
    if (access(path, F_OK) != 0)
        return sb_errf(e, SB_EUSAGE, "%s: no such database", path);
    return sb_db_open(path, db, e);
}

static long count_rows(sb_db *db, const char *table)
{
    char sql[128];
    snprintf(sql, sizeof sql, "SELECT COUNT(*) FROM %s", table);   /* fixed table names only */
    sqlite3_stmt *st;
    long n = -1;
    if (sqlite3_prepare_v2(sb_db_handle(db), sql, -1, &st, NULL) == SQLITE_OK) {
        if (sqlite3_step(st) == SQLITE_ROW) n = (long)sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
    }
    return n;
}

static const char *col(sqlite3_stmt *st, int i)
{
    const unsigned char *s = sqlite3_column_text(st, i);
    return s ? (const char *)s : "";
}

static int do_info(sb_db *db, const char *path)
{
    printf("database   %s\nschema     %d\n", path, sb_db_schema_version(db));
    static const char *const tables[] = {"machine", "sweep", "point", "sample", "metric"};
    for (int i = 0; i < 5; i++) printf("%-10s %ld rows\n", tables[i], count_rows(db, tables[i]));
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(sb_db_handle(db),
                           "SELECT m.fingerprint, COALESCE(m.hostname, ''), COALESCE(m.cpu_model, ''),"
                           " COALESCE(m.microarch, ''), COALESCE(m.cores, 0),"
                           " (SELECT COUNT(*) FROM point p WHERE p.machine_id = m.id)"
                           " FROM machine m ORDER BY m.id", -1, &st, NULL) != SQLITE_OK)
        return 1;
    printf("\nmachines:\n%-18s %-16s %-10s %6s %7s  %s\n", "fingerprint", "hostname", "microarch",
           "cores", "points", "cpu");
    while (sqlite3_step(st) == SQLITE_ROW)
        printf("%-18s %-16.16s %-10.10s %6d %7d  %s\n", col(st, 0), col(st, 1), col(st, 3),
               sqlite3_column_int(st, 4), sqlite3_column_int(st, 5), col(st, 2));
    sqlite3_finalize(st);
    return 0;
}

static int do_sweeps(sb_db *db)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(sb_db_handle(db),
                           "SELECT s.id, s.uuid, COALESCE(s.label, ''), COALESCE(s.workload, ''),"
                           " COALESCE(m.hostname, ''), COALESCE(s.status, ''),"
                           " COALESCE(s.started, ''),"
                           " (SELECT COUNT(*) FROM point p WHERE p.sweep_id = s.id),"
                           " (SELECT COUNT(*) FROM point p WHERE p.sweep_id = s.id AND p.status = 'ok'),"
                           " (SELECT COUNT(*) FROM point p WHERE p.sweep_id = s.id AND p.status = 'skipped')"
                           " FROM sweep s LEFT JOIN machine m ON m.id = s.machine_id ORDER BY s.id",
                           -1, &st, NULL) != SQLITE_OK)
        return 1;
    printf("%5s  %-8s  %-20s  %-9s  %-12s  %-11s  %-20s  %s\n", "id", "uuid", "label", "workload",
           "host", "status", "started", "points (ok/skipped/other)");
    while (sqlite3_step(st) == SQLITE_ROW) {
        int n = sqlite3_column_int(st, 7), ok = sqlite3_column_int(st, 8),
            sk = sqlite3_column_int(st, 9);
        printf("%5lld  %-8.8s  %-20.20s  %-9.9s  %-12.12s  %-11.11s  %-20.20s  %d (%d/%d/%d)\n",
               (long long)sqlite3_column_int64(st, 0), col(st, 1), col(st, 2), col(st, 3),
               col(st, 4), col(st, 5), col(st, 6), n, ok, sk, n - ok - sk);
    }
    sqlite3_finalize(st);
    return 0;
}

/* The metric worth one glance per workload. */
static const sb_metric_val *main_metric(const sb_pt *p)
{
    static const char *const pref[] = {"gflops", "gops", "tokens_per_s", "epoch_seconds",
                                       "busbw_gbps", "busbw_gbs", "algbw_gbps", NULL};
    for (int i = 0; pref[i]; i++) {
        const sb_metric_val *m = sb_pt_metric(p, pref[i]);
        if (m) return m;
    }
    return p->nmetrics ? &p->metrics[0] : NULL;
}

static int do_points(sb_db *db, int64_t sweep_id, sb_err *e)
{
    sb_ptset set;
    int rc = sb_ptset_load(db, 0, sweep_id, &set, e);
    if (rc) return rc;
    printf("%6s  %-9s  %-14s  %-6s  %-16s  %3s  %5s  %-11s  %3s  %-30s  %s\n", "id", "workload",
           "kernel", "dtype", "shape", "thr", "ranks", "status", "n", "median s (p10-p90)",
           "metric / reason");
    for (int i = 0; i < set.n; i++) {
        const sb_pt *p = &set.p[i];
        char spread[64] = "-", what[512] = "";
        if (p->nsamples)
            snprintf(spread, sizeof spread, "%.4g (%.4g-%.4g)", sb_median(p->samples, p->nsamples),
                     sb_quantile(p->samples, p->nsamples, 0.1),
                     sb_quantile(p->samples, p->nsamples, 0.9));
        const sb_metric_val *m = main_metric(p);
        const sb_metric_val *ep = sb_pt_metric(p, "epoch_seconds");
        if (!strcmp(p->status, "projected") && ep)   /* the scaling model's: nothing ran */
            snprintf(what, sizeof what, "epoch_seconds=%.4g s (projected, not measured)", ep->value);
        else if (strcmp(p->status, "ok") && p->reason[0])
            snprintf(what, sizeof what, "%.400s", p->reason);
        else if (m)
            snprintf(what, sizeof what, "%s=%.4g%s%s%s", m->name, m->value, m->unit[0] ? " " : "",
                     m->unit, m->projected ? " (projected)" : "");
        printf("%6lld  %-9.9s  %-14.14s  %-6.6s  %-16.16s  %3d  %5d  %-11.11s  %3d  %-30s  %s\n",
               (long long)p->id, p->workload, p->kernel, p->dtype, p->shape, p->threads,
               p->ppn * p->nodes, p->status, p->nsamples, spread, what);
    }
    sb_ptset_free(&set);
    return SB_OK;
}

static void print_stats(const char *what, const sb_import_stats *s)
{
    printf("%s: %ld point(s) added (%ld sample(s), %ld metric(s)), %ld already present;"
           " %ld sweep(s), %ld machine(s) added", what, s->points_added, s->samples_added,
           s->metrics_added, s->points_present, s->sweeps_added, s->machines_added);
    if (s->points_updated) printf("; %ld unfinished point(s) completed", s->points_updated);
    printf("\n");
}

int sb_cmd_db(int argc, char **argv)
{
    static const struct option opts[] = {
        {"db", required_argument, 0, 'd'},  {"sweep", required_argument, 0, 's'},
        {"out", required_argument, 0, 'o'}, {"csv", no_argument, 0, 'c'},
        {"help", no_argument, 0, 'h'},      {0, 0, 0, 0}};
    if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        db_help();
        return 0;
    }
    if (argc < 2 || argv[1][0] == '-')
        return sb_cli_usage_error("db", "missing subcommand: info, sweeps, points, export,"
                                        " import or merge (see --help)");
    const char *sub = argv[1];
    static const char *const subs[] = {"info", "sweeps", "points", "export", "import", "merge", NULL};
    int known = 0;
    for (int i = 0; subs[i] && !known; i++) known = !strcmp(sub, subs[i]);
    if (!known) return sb_cli_usage_error("db", "unknown subcommand '%s' (see --help)", sub);
    const char *path = SB_DEFAULT_DB, *sweep = NULL, *out = NULL;
    int csv = 0, c;
    optind = 1;
    opterr = 0;
    argc--;
    argv++;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'd': path = optarg; break;
        case 's': sweep = optarg; break;
        case 'o': out = optarg; break;
        case 'c': csv = 1; break;
        case 'h': db_help(); return 0;
        default:
            return sb_cli_usage_error("db", "unknown or incomplete option '%s' (see --help)",
                                      argv[optind - 1]);
        }
    }
    int nargs = argc - optind;
    char **args = argv + optind;
    int wants_files = !strcmp(sub, "import") || !strcmp(sub, "merge");
    if (wants_files && nargs == 0)
        return sb_cli_usage_error("db", "%s: name at least one file", sub);
    if (!wants_files && nargs)
        return sb_cli_usage_error("db", "%s: unexpected argument '%s'", sub, args[0]);
    if (!strcmp(sub, "export") && !out) return sb_cli_usage_error("db", "export: --out FILE is required");
    if (strcmp(sub, "export") && (out || csv))
        return sb_cli_usage_error("db", "%s: --out and --csv belong to export", sub);
    if (!strcmp(sub, "points") && !sweep) return sb_cli_usage_error("db", "points: --sweep ID is required");
    if (sweep && strcmp(sub, "points") && strcmp(sub, "export"))
        return sb_cli_usage_error("db", "%s: --sweep belongs to points and export", sub);
    if (!strcmp(out ? out : "", "-") && !csv)
        return sb_cli_usage_error("db", "export: --out - (stdout) is for --csv only");

    sb_err e = {0};
    sb_db *db = NULL;
    int rc = wants_files ? sb_db_open(path, &db, &e) : open_existing(path, &db, &e);
    if (rc) return sb_cli_report("db", &e);
    int64_t sweep_id = 0;
    if (sweep && (rc = sb_sweep_resolve(db, sweep, &sweep_id, &e))) {
        sb_db_close(db);
        return sb_cli_report("db", &e);
    }
    if (!strcmp(sub, "info")) {
        rc = do_info(db, path);
    } else if (!strcmp(sub, "sweeps")) {
        rc = do_sweeps(db);
    } else if (!strcmp(sub, "points")) {
        rc = do_points(db, sweep_id, &e);
    } else if (!strcmp(sub, "export")) {
        if (csv && !strcmp(out, "-")) rc = sb_export_csv(db, sweep_id, stdout, &e);
        else if (csv) rc = sb_export_csv_file(db, sweep_id, out, &e);
        else rc = sb_export_write(db, sweep_id, out, &e);
        if (!rc && strcmp(out, "-")) fprintf(stderr, "sprbench db: wrote %s\n", out);
    } else {
        for (int i = 0; i < nargs && !rc; i++) {
            sb_import_stats s = {0};
            rc = !strcmp(sub, "import") ? sb_import_file(db, args[i], &s, &e)
                                        : sb_merge_db(db, args[i], &s, &e);
            if (!rc) print_stats(args[i], &s);
        }
    }
    sb_db_close(db);
    if (rc && e.msg[0]) return sb_cli_report("db", &e);
    return rc ? 1 : 0;
}
