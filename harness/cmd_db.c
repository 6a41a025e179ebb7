/* sprbench db: inspect a results database, export it (JSON or CSV), import
 * exports and merge databases, show a point's worker output, release a
 * sweep's claim. The commands that only read open the database read-only. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "sb_cli.h"
#include "sb_opts.h"
#include "sb_cmds.h"
#include "sb_db.h"
#include "sb_db_sweep.h"
#include "sb_export.h"
#include "sb_import.h"
#include "sb_holder.h"
#include "sb_listing.h"
#include "sb_ptset.h"
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
           "                                   flat table, one row per point, a stack_<field>\n"
           "                                   column per field of its software stack, one\n"
           "                                   column per metric (for spreadsheets and pandas)\n"
           "  db import FILE...                add exports to --db; importing twice adds\n"
           "                                   nothing (sweeps and points keep their uuid,\n"
           "                                   machines are matched by fingerprint)\n"
           "  db merge SRC.db...               add everything of other databases to --db\n"
           "  db unlock --sweep ID             forget who runs a sweep (a run on another host\n"
           "                                   that is gone), so that --resume can take it;\n"
           "                                   refused while the holder is a live process\n"
           "                                   of this host, or a process of its runs still\n"
           "                                   lives here (a killed sweep's, being stopped)\n\n"
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

/* The options every subcommand is parsed with (what goes with which is
 * checked after). */
typedef struct db_opts {
    const char *path, *sweep, *out;
    int csv, json;
} db_opts;

#define O(f) offsetof(db_opts, f)
static const sb_opt g_db_opts[] = {{"db", SB_OPT_STR, O(path), SB_OPT_NOSET, NULL},
                                   {"sweep", SB_OPT_STR, O(sweep), SB_OPT_NOSET, NULL},
                                   {"out", SB_OPT_STR, O(out), SB_OPT_NOSET, NULL},
                                   {"csv", SB_OPT_FLAG, O(csv), SB_OPT_NOSET, NULL},
                                   {"json", SB_OPT_FLAG, O(json), SB_OPT_NOSET, NULL},
                                   {NULL}};
#undef O

int sb_cmd_db(int argc, char **argv)
{
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
    /* the subcommand's own argv: its options, and the files or the point */
    argc--;
    argv++;
    db_opts o = {.path = sb_default_db()};
    int first_arg = 1;
    const sb_opts_more more = {.operands = &first_arg};
    int rc = sb_cli_opts_more("db", argc, argv, g_db_opts, &o, NULL, &more, db_help);
    if (rc >= 0) return rc;
    const char *path = o.path, *sweep = o.sweep, *out = o.out;
    int csv = o.csv, json = o.json;
    int nargs = argc - first_arg;
    char **args = argv + first_arg;
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
    char cell[1024]; /* a name or a claim on one line (sb_text_cell) */
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
        rc = sb_listing_info(db, path, stdout, &e);
    } else if (!strcmp(sub, "sweeps")) {
        rc = json ? sb_listing_sweeps_json(db, stdout, &e) : sb_listing_sweeps(db, stdout, &e);
    } else if (!strcmp(sub, "points")) {
        rc = json ? sb_listing_points_json(db, sweep_id, stdout, &e)
                  : sb_listing_points(db, sweep_id, stdout, &e);
    } else if (is_log) {
        rc = sb_listing_log(db, args[0], stdout, &e);
    } else if (!strcmp(sub, "unlock")) {
        char was[512];
        sb_db_holder me;
        sb_holder_self(&me);
        if (!(rc = sb_db_sweep_unlock(db, sweep_id, &me, was, sizeof was, &e)))
            printf("sweep %lld: %s%s\n", (long long)sweep_id,
                   was[0] ? "released the claim of " : "was not claimed",
                   sb_text_cell(cell, sizeof cell, was, 300, 0));
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
                        sb_text_cell(cell, sizeof cell, out, 300, 0), repaired);
            else
                fprintf(stderr, "sprbench db: wrote %s\n",
                        sb_text_cell(cell, sizeof cell, out, 300, 0));
        }
    } else {
        for (int i = 0; i < nargs && !rc; i++) {
            sb_import_stats s = {0};
            rc = !strcmp(sub, "import") ? sb_import_file(db, args[i], &s, &e)
                                        : sb_merge_db(db, args[i], &s, &e);
            if (!rc) sb_listing_import_stats(stdout, args[i], &s);
        }
    }
    sb_db_close(db);
    if (rc && e.msg[0]) return sb_cli_report("db", &e);
    return rc ? 1 : 0;
}
