/* sprbench db: inspect a results database, export it (JSON or CSV), import
 * exports and merge databases, show a point's worker output, release a
 * sweep's claim. The commands that only read open the database read-only. */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "sb_cli.h"
#include "sb_cmds.h"
#include "sb_db.h"
#include "sb_export.h"
#include "sb_ptset.h"
#include "sb_query.h"
#include "sb_stats.h"
#include "sb_text.h"

static void db_help(void)
{
    printf("usage: sprbench db SUBCOMMAND [--db FILE] [options]\n\n"
           "Inspect, move and combine results databases (default --db %s;\n"
           "$SPRBENCH_DB sets another default).\n\n"
           "  db info                          schema version, counts, machines\n"
           "  db sweeps                        one line per sweep (and who runs it)\n"
           "  db points --sweep ID             one line per point: status, samples, median\n"
           "                                   seconds (p10-p90), main metric or the reason\n"
           "  --json                           sweeps and points: one JSON document on\n"
           "                                   stdout instead of the table (every field,\n"
           "                                   every metric with its unit and whether it is\n"
           "                                   projected)\n"
           "  db log POINT                     the worker output kept with a point: the last\n"
           "                                   64 KiB of its stdout and of its stderr\n"
           "  db export [--sweep ID] --out F   JSON export: machines, sweeps, points, raw\n"
           "                                   samples, metrics, worker output (everything,\n"
           "                                   or one sweep)\n"
           "  db export --csv [--sweep ID] --out F|-\n"
           "                                   flat table, one row per point, one column per\n"
           "                                   metric (for spreadsheets and pandas)\n"
           "  db import FILE...                add exports to --db; importing twice adds\n"
           "                                   nothing (sweeps and points keep their uuid,\n"
           "                                   machines are matched by fingerprint)\n"
           "  db merge SRC.db...               add everything of other databases to --db\n"
           "  db unlock --sweep ID             forget who runs a sweep (a run on another host\n"
           "                                   that is gone), so that --resume can take it\n\n"
           "A sweep ID is its number, (a prefix of) its uuid or its label (the newest sweep\n"
           "of that label); a POINT its number (see\n"
           "db points) or (a prefix of) its uuid.\n"
           "info, sweeps, points, log and export only read: they open the database\n"
           "read-only (a read-only directory will do, an older schema is read as it is)\n"
           "and refuse, leaving it untouched, a file that is not a sprbench database or\n"
           "comes from a newer sprbench. import and merge check every file first: a\n"
           "missing or bad one creates and changes nothing; each is validated whole and\n"
           "written in one transaction. Stored text is valid UTF-8 within limits counted\n"
           "in characters; text an older database holds that is not is exported with\n"
           "U+FFFD in place of the bad bytes (and counted). Tables show control\n"
           "characters as '?', db log in caret notation (^[).\n"
           "Exit status: 0 ok, 1 database failure, 2 bad usage or input.\n",
           sb_default_db());
}

/* A text as a table cell: one line, `width` terminal columns (padded when
 * pad), controls as '?', invalid UTF-8 as U+FFFD, cut between characters.
 * Each call has its own buffer slot so that a printf can take several. */
static const char *text_cell(const char *s, int width, int pad)
{
    static char bufs[8][1024];
    static int next;
    char *b = bufs[next++ % 8];
    return sb_text_cell(b, sizeof bufs[0], s, width, pad);
}

/* A column wide enough for its header and every value in it (terminal
 * columns, wide characters two): a listing never cuts a label, a shape or a
 * host name, which are what --sweep, --baseline and --candidate take. */
static int widen(int w, const char *s)
{
    char b[2048];
    int cols = (int)strlen(sb_text_cell(b, sizeof b, s ? s : "", 1000, 0));
    /* bytes bound columns from above (a wide character is 3 bytes, 2 columns) */
    return cols > w ? cols : w;
}

static int do_info(sb_db *db, const char *path, sb_err *e)
{
    sb_db_counts c;
    sb_machine_row *m;
    int n, rc;
    if ((rc = sb_db_count_rows(db, &c, e)) || (rc = sb_db_machines(db, &m, &n, e))) return rc;
    printf("database   %s\nschema     %d%s\n", text_cell(path, 200, 0), sb_db_schema_version(db),
           sb_db_schema_version(db) < SB_DB_SCHEMA_VERSION ? " (older: read as is, upgraded by"
                                                             " the next command that writes)"
                                                           : "");
    static const char *const tables[] = {"machine", "sweep", "point", "sample", "metric"};
    const long rows[] = {c.machines, c.sweeps, c.points, c.samples, c.metrics};
    for (int i = 0; i < 5; i++) printf("%-10s %ld rows\n", tables[i], rows[i]);
    printf("\nmachines:\n%-18s %-16s %-10s %6s %7s  %s\n", "fingerprint", "hostname", "microarch",
           "cores", "points", "cpu");
    for (int i = 0; i < n; i++)
        printf("%s %s %s %6d %7ld  %s\n", text_cell(m[i].fingerprint, 18, 1),
               text_cell(m[i].hostname, 16, 1), text_cell(m[i].microarch, 10, 1), m[i].cores,
               m[i].points, text_cell(m[i].cpu_model, 120, 0));
    sb_machine_rows_free(m, n);
    return SB_OK;
}

/* A JSON string of stored text: an older database may hold invalid UTF-8,
 * which jansson refuses; such text goes out repaired (U+FFFD), never lost. */
static json_t *jstr(const char *s)
{
    if (!s) return json_null();
    json_t *j = json_string(s);
    if (j) return j;
    int changed;
    char *fixed = sb_text_repair(s, strlen(s), strlen(s) + 1, &changed);
    j = json_string(fixed ? fixed : "");
    free(fixed);
    return j;
}

/* One document on stdout, nothing else there: what --json promises. */
static int emit_json(json_t *doc, sb_err *e)
{
    if (!doc) return sb_errf(e, SB_EFAIL, "out of memory");
    int rc = json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    json_decref(doc);
    if (rc) return sb_errf(e, SB_EFAIL, "cannot write the JSON document");
    putchar('\n');
    return SB_OK;
}

static int do_sweeps_json(sb_db *db, sb_err *e)
{
    sb_sweep_row *v;
    int n;
    int rc = sb_db_sweeps(db, &v, &n, e);
    if (rc) return rc;
    json_t *arr = json_array();
    for (int i = 0; i < n; i++) {
        const sb_sweep_row *s = &v[i];
        json_t *o = json_object();
        json_object_set_new(o, "id", json_integer(s->id));
        json_object_set_new(o, "uuid", jstr(s->uuid));
        json_object_set_new(o, "label", jstr(s->label));
        json_object_set_new(o, "workload", jstr(s->workload));
        json_object_set_new(o, "hostname", jstr(s->hostname));
        json_object_set_new(o, "status", jstr(s->status));
        json_object_set_new(o, "started", jstr(s->started));
        json_object_set_new(o, "points", json_integer(s->points));
        json_object_set_new(o, "ok", json_integer(s->ok));
        json_object_set_new(o, "skipped", json_integer(s->skipped));
        json_object_set_new(o, "other", json_integer(s->points - s->ok - s->skipped));
        json_object_set_new(o, "held_by",
                            s->held ? json_pack("{s:I,s:o}", "pid", (json_int_t)s->holder_pid,
                                                "host", jstr(s->holder_host))
                                    : json_null());
        json_array_append_new(arr, o);
    }
    sb_sweep_rows_free(v, n);
    return emit_json(json_pack("{s:o}", "sweeps", arr), e);
}

static int do_sweeps(sb_db *db, sb_err *e)
{
    sb_sweep_row *v;
    int n;
    int rc = sb_db_sweeps(db, &v, &n, e);
    if (rc) return rc;
    int wl = 5, ww = 8, wh = 4, ws = 6;
    for (int i = 0; i < n; i++) {
        wl = widen(wl, v[i].label);
        ww = widen(ww, v[i].workload);
        wh = widen(wh, v[i].hostname);
        ws = widen(ws, v[i].status);
    }
    printf("%5s  %-8s  %-*s  %-*s  %-*s  %-*s  %-20s  %s\n", "id", "uuid", wl, "label", ww,
           "workload", wh, "host", ws, "status", "started", "points (ok/skipped/other)");
    for (int i = 0; i < n; i++) {
        const sb_sweep_row *s = &v[i];
        /* the uuid's first 8 hex digits: a prefix --sweep accepts, not cut text */
        printf("%5lld  %-8.8s  %s  %s  %s  %s  %s  %d (%d/%d/%d)", (long long)s->id, s->uuid,
               text_cell(s->label, wl, 1), text_cell(s->workload, ww, 1),
               text_cell(s->hostname, wh, 1), text_cell(s->status, ws, 1),
               text_cell(s->started, 20, 1), s->points, s->ok, s->skipped,
               s->points - s->ok - s->skipped);
        if (s->held)
            printf("  run by process %lld on %s", s->holder_pid, text_cell(s->holder_host, 200, 0));
        putchar('\n');
    }
    sb_sweep_rows_free(v, n);
    return SB_OK;
}

/* The metric worth one glance per workload. */
static const sb_metric_val *main_metric(const sb_pt *p)
{
    static const char *const pref[] = {"gflops",     "gops",      "tokens_per_s", "epoch_seconds",
                                       "busbw_gbps", "busbw_gbs", "algbw_gbps",   NULL};
    for (int i = 0; pref[i]; i++) {
        const sb_metric_val *m = sb_pt_metric(p, pref[i]);
        if (m) return m;
    }
    return p->nmetrics ? &p->metrics[0] : NULL;
}

static int do_points_json(sb_db *db, int64_t sweep_id, sb_err *e)
{
    sb_ptset set;
    int rc = sb_ptset_load(db, 0, sweep_id, &set, e);
    if (rc) return rc;
    json_t *arr = json_array();
    for (int i = 0; i < set.n; i++) {
        const sb_pt *p = &set.p[i];
        json_t *o = json_object();
        json_object_set_new(o, "id", json_integer(p->id));
        json_object_set_new(o, "uuid", jstr(p->uuid));
        json_object_set_new(o, "sweep_id", json_integer(p->sweep_id));
        json_object_set_new(o, "machine_fingerprint", jstr(p->fingerprint));
        json_object_set_new(o, "workload", jstr(p->workload));
        json_object_set_new(o, "kernel", jstr(p->kernel));
        json_object_set_new(o, "dtype", jstr(p->dtype));
        json_object_set_new(o, "shape", jstr(p->shape));
        json_object_set_new(o, "config", jstr(p->config));
        json_object_set_new(o, "threads", json_integer(p->threads));
        json_object_set_new(o, "ppn", json_integer(p->ppn));
        json_object_set_new(o, "nodes", json_integer(p->nodes));
        json_object_set_new(o, "ranks", json_integer(p->ppn * p->nodes));
        json_object_set_new(o, "status", jstr(p->status));
        json_object_set_new(o, "reason", jstr(p->reason));
        json_t *sm = json_array();
        for (int k = 0; k < p->nsamples; k++) json_array_append_new(sm, json_real(p->samples[k]));
        json_object_set_new(o, "samples_seconds", sm);
        if (p->nsamples) {
            json_object_set_new(o, "median_seconds", json_real(sb_median(p->samples, p->nsamples)));
            json_object_set_new(o, "p10_seconds",
                                json_real(sb_quantile(p->samples, p->nsamples, 0.1)));
            json_object_set_new(o, "p90_seconds",
                                json_real(sb_quantile(p->samples, p->nsamples, 0.9)));
        }
        json_t *ms = json_object();
        for (int k = 0; k < p->nmetrics; k++) {
            const sb_metric_val *m = &p->metrics[k];
            json_t *mo = json_pack("{s:f,s:o,s:b}", "value", m->value, "unit", jstr(m->unit),
                                   "projected", m->projected);
            if (m->projected && m->source && m->source[0])
                json_object_set_new(mo, "projected_from", jstr(m->source));
            json_object_set_new(ms, m->name, mo);
        }
        json_object_set_new(o, "metrics", ms);
        json_array_append_new(arr, o);
    }
    sb_ptset_free(&set);
    return emit_json(json_pack("{s:I,s:o}", "sweep_id", (json_int_t)sweep_id, "points", arr), e);
}

static int do_points(sb_db *db, int64_t sweep_id, sb_err *e)
{
    sb_ptset set;
    int rc = sb_ptset_load(db, 0, sweep_id, &set, e);
    if (rc) return rc;
    int ww = 8, wk = 6, wd = 5, wsh = 5, ws = 6;
    for (int i = 0; i < set.n; i++) {
        ww = widen(ww, set.p[i].workload);
        wk = widen(wk, set.p[i].kernel);
        wd = widen(wd, set.p[i].dtype);
        wsh = widen(wsh, set.p[i].shape);
        ws = widen(ws, set.p[i].status);
    }
    printf("%6s  %-*s  %-*s  %-*s  %-*s  %3s  %5s  %-*s  %3s  %-30s  %s\n", "id", ww, "workload",
           wk, "kernel", wd, "dtype", wsh, "shape", "thr", "ranks", ws, "status", "n",
           "median s (p10-p90)", "metric / reason");
    for (int i = 0; i < set.n; i++) {
        const sb_pt *p = &set.p[i];
        char spread[64] = "-", what[512] = "";
        const char *reason = NULL;
        if (p->nsamples)
            snprintf(spread, sizeof spread, "%.4g (%.4g-%.4g)", sb_median(p->samples, p->nsamples),
                     sb_quantile(p->samples, p->nsamples, 0.1),
                     sb_quantile(p->samples, p->nsamples, 0.9));
        const sb_metric_val *m = main_metric(p);
        const sb_metric_val *ep = sb_pt_metric(p, "epoch_seconds");
        if (!strcmp(p->status, "projected") && ep) /* the scaling model's: nothing ran */
            snprintf(what, sizeof what, "epoch_seconds=%.4g s (projected, not measured)",
                     ep->value);
        else if (strcmp(p->status, "ok") && p->reason[0])
            reason = p->reason;
        else if (m)
            snprintf(what, sizeof what, "%s=%.4g%s%s%s", m->name, m->value, m->unit[0] ? " " : "",
                     m->unit, m->projected ? " (projected)" : "");
        printf("%6lld  %s  %s  %s  %s  %3d  %5d  %s  %3d  %-30s  %s\n", (long long)p->id,
               text_cell(p->workload, ww, 1), text_cell(p->kernel, wk, 1),
               text_cell(p->dtype, wd, 1), text_cell(p->shape, wsh, 1), p->threads,
               p->ppn * p->nodes, text_cell(p->status, ws, 1), p->nsamples, spread,
               text_cell(reason ? reason : what, 400, 0));
    }
    sb_ptset_free(&set);
    return SB_OK;
}

static void print_stream(const char *name, const char *text, long long total)
{
    size_t kept = strlen(text);
    if ((long long)kept >= total)
        printf("--- %s: %lld byte(s) ---\n", name, total);
    else
        printf("--- %s: the last %zu of %lld bytes ---\n", name, kept, total);
    sb_text_visible(stdout, text, kept);
    if (kept && text[kept - 1] != '\n') putchar('\n');
}

static int do_log(sb_db *db, const char *spec, sb_err *e)
{
    int64_t id = 0;
    int rc = sb_point_resolve(db, spec, &id, e);
    if (rc) return rc;
    sb_point_brief b;
    int known;
    if ((rc = sb_db_point_brief(db, id, &b, &known, e))) return rc;
    if (known)
        printf("point %lld of sweep %lld: %s %s %s threads %d, status %s\n", (long long)id,
               (long long)b.sweep_id, text_cell(b.workload, 16, 0), text_cell(b.kernel, 64, 0),
               text_cell(b.shape, 64, 0), b.threads, text_cell(b.status, 16, 0));
    sb_point_brief_free(&b);
    sb_point_log log;
    int found;
    if ((rc = sb_db_point_log_get(db, id, &log, &found, e))) return rc;
    if (!found) {
        printf("no worker output kept (the point never ran, ran before sprbench kept it, or came"
               " from an export without it)\n");
        return SB_OK;
    }
    print_stream("stdout", log.out, log.out_bytes);
    print_stream("stderr", log.err, log.err_bytes);
    sb_point_log_free(&log);
    return SB_OK;
}

static void print_stats(const char *what, const sb_import_stats *s)
{
    printf("%s: %ld point(s) added (%ld sample(s), %ld metric(s)), %ld already present;"
           " %ld sweep(s), %ld machine(s) added",
           text_cell(what, 300, 0), s->points_added, s->samples_added, s->metrics_added,
           s->points_present, s->sweeps_added, s->machines_added);
    if (s->points_updated) printf("; %ld unfinished point(s) completed", s->points_updated);
    printf("\n");
}

int sb_cmd_db(int argc, char **argv)
{
    static const struct option opts[] = {{"db", required_argument, 0, 'd'},
                                         {"sweep", required_argument, 0, 's'},
                                         {"out", required_argument, 0, 'o'},
                                         {"csv", no_argument, 0, 'c'},
                                         {"json", no_argument, 0, 'j'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        db_help();
        return 0;
    }
    if (argc < 2 || argv[1][0] == '-')
        return sb_cli_usage_error("db",
                                  "missing subcommand: info, sweeps, points, log, export,"
                                  " import, merge or unlock (see --help)");
    const char *sub = argv[1];
    static const char *const subs[] = {"info",   "sweeps", "points", "log", "export",
                                       "import", "merge",  "unlock", NULL};
    int known = 0;
    for (int i = 0; subs[i] && !known; i++) known = !strcmp(sub, subs[i]);
    if (!known) return sb_cli_usage_error("db", "unknown subcommand '%s' (see --help)", sub);
    const char *path = sb_default_db(), *sweep = NULL, *out = NULL;
    int csv = 0, json = 0, c;
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
        case 'j': json = 1; break;
        case 'h': db_help(); return 0;
        default:
            return sb_cli_usage_error("db", "unknown or incomplete option '%s' (see --help)",
                                      argv[optind - 1]);
        }
    }
    int nargs = argc - optind;
    char **args = argv + optind;
    int wants_files = !strcmp(sub, "import") || !strcmp(sub, "merge");
    int is_log = !strcmp(sub, "log");
    if (wants_files && nargs == 0)
        return sb_cli_usage_error("db", "%s: name at least one file", sub);
    if (is_log && nargs != 1)
        return sb_cli_usage_error("db", "log: name one point (see sprbench db points)");
    if (!wants_files && !is_log && nargs)
        return sb_cli_usage_error("db", "%s: unexpected argument '%s'", sub, args[0]);
    if (!strcmp(sub, "export") && !out)
        return sb_cli_usage_error("db", "export: --out FILE is required");
    if (strcmp(sub, "export") && (out || csv))
        return sb_cli_usage_error("db", "%s: --out and --csv belong to export", sub);
    if ((!strcmp(sub, "points") || !strcmp(sub, "unlock")) && !sweep)
        return sb_cli_usage_error("db", "%s: --sweep ID is required", sub);
    if (sweep && strcmp(sub, "points") && strcmp(sub, "export") && strcmp(sub, "unlock"))
        return sb_cli_usage_error("db", "%s: --sweep belongs to points, export and unlock", sub);
    if (json && strcmp(sub, "sweeps") && strcmp(sub, "points"))
        return sb_cli_usage_error("db", "%s: --json belongs to sweeps and points", sub);
    if (!strcmp(out ? out : "", "-") && !csv)
        return sb_cli_usage_error("db", "export: --out - (stdout) is for --csv only");
    if (out && strcmp(out, "-")) {
        sb_err oe = {0};
        if (sb_cli_check_out_file("--out", out, &oe)) return sb_cli_report("db", &oe);
    }

    sb_err e = {0};
    sb_db *db = NULL;
    int rc;
    if (wants_files) {
        /* every input is checked before --db is opened: a missing or bad
         * file must not leave an empty database behind */
        for (int i = 0; i < nargs; i++) {
            if (!strcmp(sub, "import")) {
                rc = sb_import_check_file(args[i], &e);
            } else if (!(rc = sb_db_open_readonly(args[i], &db, &e))) {
                sb_db_close(db);
                db = NULL;
            }
            if (rc) return sb_cli_report("db", &e);
        }
        rc = sb_db_open(path, &db, &e);
    } else if (!strcmp(sub, "unlock")) {
        rc = access(path, F_OK) == 0 ? sb_db_open(path, &db, &e)
                                     : sb_errf(&e, SB_EUSAGE, "%s: no such database", path);
    } else {
        rc = sb_db_open_readonly(path, &db, &e);
    }
    if (rc) return sb_cli_report("db", &e);
    int64_t sweep_id = 0;
    if (sweep && (rc = sb_sweep_resolve(db, sweep, &sweep_id, &e))) {
        sb_db_close(db);
        return sb_cli_report("db", &e);
    }
    if (!strcmp(sub, "info")) {
        rc = do_info(db, path, &e);
    } else if (!strcmp(sub, "sweeps")) {
        rc = json ? do_sweeps_json(db, &e) : do_sweeps(db, &e);
    } else if (!strcmp(sub, "points")) {
        rc = json ? do_points_json(db, sweep_id, &e) : do_points(db, sweep_id, &e);
    } else if (is_log) {
        rc = do_log(db, args[0], &e);
    } else if (!strcmp(sub, "unlock")) {
        char was[512];
        if (!(rc = sb_db_sweep_unlock(db, sweep_id, was, sizeof was, &e)))
            printf("sweep %lld: %s%s\n", (long long)sweep_id,
                   was[0] ? "released the claim of " : "was not claimed", text_cell(was, 300, 0));
    } else if (!strcmp(sub, "export")) {
        long repaired = 0;
        if (csv && !strcmp(out, "-"))
            rc = sb_export_csv(db, sweep_id, stdout, &e);
        else if (csv)
            rc = sb_export_csv_file(db, sweep_id, out, &e);
        else
            rc = sb_export_write(db, sweep_id, out, &repaired, &e);
        if (!rc && strcmp(out, "-")) {
            if (repaired)
                fprintf(stderr,
                        "sprbench db: wrote %s (%ld text field(s) held invalid UTF-8,"
                        " exported with U+FFFD in place of the bad bytes)\n",
                        text_cell(out, 300, 0), repaired);
            else
                fprintf(stderr, "sprbench db: wrote %s\n", text_cell(out, 300, 0));
        }
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
