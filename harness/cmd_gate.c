/* sprbench gate: PASS/WARN/FAIL of a candidate run against a baseline run
 * or against absolute references; exit 1 on any FAIL (for CI). */
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "sb_cli.h"
#include "sb_cmds.h"
#include "sb_envdiff.h"
#include "sb_gate.h"
#include "sb_io.h"
#include "sb_ptset.h"

#define MAX_METRICS 16
/* A reference is one line of ~100 bytes per configuration: 16 MiB holds over
 * 150,000 of them, far past any study, and bounds a wrong path's cost. */
#define REFERENCES_MAX (16 * SB_MIB)

static void gate_help(void)
{
    printf("usage: sprbench gate --baseline REF --candidate RUN [options]\n"
           "       sprbench gate --references FILE --candidate RUN [options]\n\n"
           "Compares the raw samples (seconds per repetition) of every configuration run\n"
           "by both sides: same machine fingerprint, workload, kernel, dtype, shape/config,\n"
           "threads and ranks.\n\n"
           "  FAIL  the candidate's median is worse by more than the tolerance AND the\n"
           "        difference is significant: one-sided Mann-Whitney U (candidate slower),\n"
           "        p < --alpha, with at least --min-samples per side (with --method\n"
           "        bootstrap: the lower end of the bootstrap interval of the median ratio\n"
           "        is above 1 + tolerance); also a candidate point that failed, crashed or\n"
           "        timed out, whatever the baseline did, and a candidate machine the\n"
           "        baseline never saw while it holds the point from another machine\n"
           "  WARN  beyond tolerance but not significant, too few samples, a point on one\n"
           "        side only (points missing); baseline points of machines the candidate\n"
           "        did not run on are counted and named as ignored\n"
           "  SKIP  the candidate point was skipped (an ISA this machine lacks)\n"
           "  PASS  otherwise\n\n"
           "Refused with one line (exit 2): a run gated against itself, and two runs on\n"
           "different machines without --cross-machine.\n\n"
           "REF and RUN are each a database file (all of it; the newest ok point of each\n"
           "configuration), or a sweep (id or uuid) or machine (fingerprint or hostname)\n"
           "in --db.\n\n"
           "  --db FILE          database for sweep and machine names (default %s;\n"
           "                     $SPRBENCH_DB sets another default)\n"
           "  --tolerance T      5%% (default) or a fraction such as 0.05\n"
           "  --metric M         gate metric M instead of the raw seconds (repeatable);\n"
           "                     rates such as gflops or tokens_per_s count higher as\n"
           "                     better, names ending in _s/seconds or with time/latency\n"
           "                     lower; its spread comes from the samples\n"
           "  --alpha A          significance level, default 0.01\n"
           "  --min-samples N    per side, default 6\n"
           "  --method M         mwu (default) or bootstrap\n"
           "  --pool             pool the samples of every ok point of a configuration\n"
           "                     (interleaved rounds of baseline and candidate runs)\n"
           "  --cross-machine    match configurations whatever machine they ran on\n"
           "  --references FILE  absolute references instead of a baseline, one per line:\n"
           "                       MACHINE WORKLOAD KERNEL SHAPE THREADS[:RANKS] METRIC\n"
           "                       VALUE LOWER UPPER [UNIT]\n"
           "                     MACHINE is a fingerprint or *, SHAPE and THREADS may be *,\n"
           "                     bounds as -5%%/+10%%/null; outside the bounds is FAIL, a\n"
           "                     machine with no reference FAILs (mismatch), a reference\n"
           "                     with no point WARNs\n"
           "  --junit FILE       also write JUnit XML (FAIL = failure, WARN = skipped)\n"
           "  --json             one JSON document on stdout instead of the table: the\n"
           "                     sides, the test, counts per verdict and every row\n"
           "                     (cost_ratio = candidate/baseline cost, above 1: slower)\n"
           "  --history          for each FAIL, name the last tool version that passed:\n"
           "                     the newest earlier sweep on the candidate's machine whose\n"
           "                     point of that configuration passes against the same\n"
           "                     baseline point (lines starting 'history:')\n\n"
           "A metric no point holds is an error (exit 2), not an empty comparison. After\n"
           "the table, lines starting 'env:' name the environment variables (OMP_*,\n"
           "ONEDNN_*, LD_PRELOAD, ...) in which the compared points' runs differed.\n"
           "With GITHUB_ACTIONS=true: an ::error (FAIL) or ::warning (WARN) annotation per\n"
           "row on stderr, and a table of the rows that did not pass appended to\n"
           "$GITHUB_STEP_SUMMARY.\n\n"
           "Exit status: 0 no FAIL, 1 at least one FAIL, 2 bad usage or input.\n",
           sb_default_db());
}

/* gate --history: for each FAIL, where it started, from the candidate's
 * database (a database file given as the candidate, or --db). */
static int history_lines(const sb_gate_result *res, const sb_ptset *base, const sb_ptset *cand,
                         const sb_gate_opts *o, const char *candidate, const char *dbpath,
                         sb_db *shared, sb_err *e)
{
    struct stat st;
    int is_file = stat(candidate, &st) == 0 && S_ISREG(st.st_mode);
    sb_db *db = is_file ? NULL : shared;
    int rc = SB_OK;
    if (!db && (rc = sb_db_open_readonly(is_file ? candidate : dbpath, &db, e))) return rc;
    for (int i = 0; i < res->n && !rc; i++) {
        const sb_gate_row *w = &res->rows[i];
        if (w->verdict != SB_FAIL || !w->cand_id) continue;
        sb_gate_last_pass lp;
        if ((rc = sb_gate_find_last_pass(db, base, cand, w, o, &lp, e))) break;
        if (lp.found)
            printf("history: %s %s: last passed at tool version %s (sweep %lld, %.10s); first"
                   " not passing: %s (sweep %lld, %.10s)\n",
                   w->label, w->metric, lp.version[0] ? lp.version : "?", (long long)lp.sweep_id,
                   lp.started, lp.next_version[0] ? lp.next_version : "?",
                   (long long)lp.next_sweep_id, lp.next_started);
        else
            printf("history: %s %s: none of the %d earlier sweep(s) of this configuration on"
                   " this machine passed\n",
                   w->label, w->metric, lp.checked);
    }
    if (db != shared) sb_db_close(db);
    return rc;
}

static int is_sqlite_file(const char *path)
{
    struct stat sb;
    if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode)) return 0;
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    char magic[16] = {0};
    size_t n = fread(magic, 1, sizeof magic, f);
    fclose(f);
    return n == 16 && !memcmp(magic, "SQLite format 3", 16);
}

/* Loads the points REF/RUN names, and the environment each recorded (read
 * while its database is open); *shared is the --db database, opened once. */
static int load_side(const char *spec, const char *dbpath, sb_db **shared, sb_ptset *set,
                     sb_envmap *env, char *what, size_t cap, char *file, sb_err *e)
{
    struct stat sb;
    /* file: the database read, resolved (two names of one file are one) */
    if (!realpath(stat(spec, &sb) == 0 && S_ISREG(sb.st_mode) ? spec : dbpath, file))
        file[0] = '\0';
    if (stat(spec, &sb) == 0 && S_ISREG(sb.st_mode)) {
        if (!is_sqlite_file(spec))
            return sb_errf(e, SB_EUSAGE, "%s: is not a SQLite database", spec);
        sb_db *db;
        int rc = sb_db_open_readonly(spec, &db, e);
        if (rc) return rc;
        rc = sb_ptset_load(db, 0, 0, set, e);
        if (!rc) rc = sb_envmap_load(db, set, env, e);
        sb_db_close(db);
        snprintf(what, cap, "database %s", spec);
        return rc;
    }
    if (!*shared) {
        if (access(dbpath, F_OK) != 0)
            return sb_errf(e, SB_EUSAGE,
                           "'%s' is not a file, and there is no database %s to look"
                           " it up in (--db)",
                           spec, dbpath);
        int rc = sb_db_open_readonly(dbpath, shared, e);
        if (rc) return rc;
    }
    sb_selection sel;
    int rc = sb_select_resolve(*shared, spec, &sel, e);
    if (rc) return rc;
    snprintf(what, cap, "%s", sel.label);
    rc = sb_ptset_load(*shared, sel.sweep_id ? 0 : sel.machine_id, sel.sweep_id, set, e);
    if (!rc) rc = sb_envmap_load(*shared, set, env, e);
    return rc;
}

/* Says which recorded environment variables differ between the compared
 * points: in each row (for JUnit), and as one line per distinct difference
 * after the table. */
static void env_lines(sb_gate_result *res, const sb_envmap *bm, const sb_envmap *cm, json_t *lines)
{
    sb_envdiffs d = {0};
    for (int i = 0; i < res->n; i++) {
        sb_gate_row *w = &res->rows[i];
        /* a status row: one side did not run ok (a crash writes no environment) */
        if (!w->base_id || !w->cand_id || !strcmp(w->metric, "status")) continue;
        const json_t *be = sb_envmap_get(bm, w->base_id), *ce = sb_envmap_get(cm, w->cand_id);
        if (be && ce) sb_env_diff(be, ce, w->env, sizeof w->env);
        sb_envdiffs_add(&d, w->base_id, be, w->cand_id, ce, w->label);
    }
    for (int i = 0; i < sb_envdiffs_nlines(&d); i++) {
        char line[1400];
        sb_envdiffs_line(&d, i, line, sizeof line);
        if (lines)
            json_array_append_new(lines, json_string(line));
        else
            printf("env: %s\n", line);
    }
    sb_envdiffs_free(&d);
}

static int same_points(const sb_ptset *a, const sb_ptset *b)
{
    if (a->n != b->n) return 0;
    for (int i = 0; i < a->n; i++) /* both ordered by id */
        if (a->p[i].id != b->p[i].id) return 0;
    return 1;
}

static int has_fingerprint(const sb_ptset *s, const char *fp)
{
    for (int i = 0; i < s->n; i++)
        if (!strcmp(s->p[i].fingerprint, fp)) return 1;
    return 0;
}

/* What cannot be gated, refused with one line (exit 2) rather than a table
 * of verdicts that mean nothing: a run against itself (it passes whatever
 * it measured), and two different machines without --cross-machine (every
 * point would FAIL as a mismatch). */
static int refuse_pair(const sb_ptset *base, const sb_ptset *cand, const char *bwhat,
                       const char *cwhat, const char *bfile, const char *cfile,
                       const sb_gate_opts *o, sb_err *e)
{
    if (bfile[0] && !strcmp(bfile, cfile) && same_points(base, cand))
        return sb_errf(e, SB_EUSAGE,
                       "the baseline (%s) and the candidate (%s) are the same %d point(s): a run"
                       " gated against itself passes whatever it measured; name two runs",
                       bwhat, cwhat, cand->n);
    if (o->cross_machine) return SB_OK;
    for (int i = 0; i < cand->n; i++)
        if (has_fingerprint(base, cand->p[i].fingerprint)) return SB_OK;
    return sb_errf(e, SB_EUSAGE,
                   "the candidate (%s) ran on machine %.16s, the baseline (%s) never did (it"
                   " ran on %.16s): to compare two machines, add --cross-machine",
                   cwhat, cand->p[0].fingerprint, bwhat, base->n ? base->p[0].fingerprint : "none");
}

int sb_cmd_gate(int argc, char **argv)
{
    static const struct option opts[] = {{"baseline", required_argument, 0, 'b'},
                                         {"candidate", required_argument, 0, 'c'},
                                         {"db", required_argument, 0, 'd'},
                                         {"tolerance", required_argument, 0, 't'},
                                         {"metric", required_argument, 0, 'm'},
                                         {"references", required_argument, 0, 'r'},
                                         {"junit", required_argument, 0, 'j'},
                                         {"alpha", required_argument, 0, 'a'},
                                         {"min-samples", required_argument, 0, 'n'},
                                         {"method", required_argument, 0, 'M'},
                                         {"pool", no_argument, 0, 'P'},
                                         {"cross-machine", no_argument, 0, 'X'},
                                         {"json", no_argument, 0, 'J'},
                                         {"history", no_argument, 0, 'H'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *baseline = NULL, *candidate = NULL, *dbpath = sb_default_db(), *refs_path = NULL,
               *junit = NULL;
    const char *metrics[MAX_METRICS + 1] = {0};
    int nmetrics = 0, c, as_json = 0, history = 0;
    sb_gate_opts o = SB_GATE_OPTS_INIT;
    sb_err e = {0};
    long lv;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'b': baseline = optarg; break;
        case 'c': candidate = optarg; break;
        case 'd': dbpath = optarg; break;
        case 'r': refs_path = optarg; break;
        case 'j': junit = optarg; break;
        case 'P': o.pool = 1; break;
        case 'X': o.cross_machine = 1; break;
        case 'J': as_json = 1; break;
        case 'H': history = 1; break;
        case 't': {
            size_t n = strlen(optarg);
            char buf[64];
            int pct = n > 0 && n < sizeof buf && optarg[n - 1] == '%';
            snprintf(buf, sizeof buf, "%.*s", pct ? (int)n - 1 : (int)n, optarg);
            double v;
            if (sb_parse_double(buf, 0, pct ? 1000 : 0.9999, "--tolerance", &v, &e)) {
                if (!pct)
                    return sb_cli_usage_error("gate",
                                              "--tolerance: '%s' is not a percentage"
                                              " (5%%) or a fraction below 1 (0.05)",
                                              optarg);
                return sb_cli_report("gate", &e);
            }
            o.tolerance = pct ? v / 100 : v;
            break;
        }
        case 'a':
            if (sb_parse_double(optarg, 1e-9, 0.5, "--alpha", &o.alpha, &e))
                return sb_cli_report("gate", &e);
            break;
        case 'n':
            if (sb_parse_long(optarg, 2, 100000, "--min-samples", &lv, &e))
                return sb_cli_report("gate", &e);
            o.min_samples = (int)lv;
            break;
        case 'M':
            if (!strcmp(optarg, "mwu"))
                o.method = SB_GATE_MWU;
            else if (!strcmp(optarg, "bootstrap"))
                o.method = SB_GATE_BOOTSTRAP;
            else
                return sb_cli_usage_error("gate", "--method: '%s' is not mwu or bootstrap", optarg);
            break;
        case 'm':
            if (nmetrics == MAX_METRICS)
                return sb_cli_usage_error("gate", "--metric: at most %d", MAX_METRICS);
            if (!*optarg || strlen(optarg) > 63)
                return sb_cli_usage_error("gate", "--metric: bad name '%s'", optarg);
            metrics[nmetrics++] = optarg;
            break;
        case 'h': gate_help(); return 0;
        default:
            return sb_cli_usage_error("gate", "unknown or incomplete option '%s' (see --help)",
                                      argv[optind - 1]);
        }
    }
    if (optind < argc) return sb_cli_usage_error("gate", "unexpected argument '%s'", argv[optind]);
    if (!candidate) return sb_cli_usage_error("gate", "--candidate RUN is required (see --help)");
    if (!baseline && !refs_path)
        return sb_cli_usage_error("gate", "give --baseline REF or --references FILE (see --help)");
    if (baseline && refs_path)
        return sb_cli_usage_error("gate", "--baseline and --references are two modes: give one");
    if (history && !baseline) return sb_cli_usage_error("gate", "--history goes with --baseline");
    if (history && as_json)
        return sb_cli_usage_error("gate", "--history prints lines: give it without --json");
    o.metrics = metrics;
    /* before anything is read: empty names, and where the JUnit file goes */
    if ((baseline && sb_cli_check_path("--baseline", baseline, &e)) ||
        sb_cli_check_path("--candidate", candidate, &e) || sb_cli_check_path("--db", dbpath, &e) ||
        (refs_path && sb_cli_check_path("--references", refs_path, &e)) ||
        (junit && sb_cli_check_out_file("--junit", junit, &e)))
        return sb_cli_report("gate", &e);

    sb_reference *refs = NULL;
    int nrefs = 0, rc;
    if (refs_path) {
        char *text;
        size_t len;
        if ((rc = sb_read_text_max(refs_path, REFERENCES_MAX, "references file", &text, &len, &e)))
            return sb_cli_report("gate", &e);
        rc = sb_gate_parse_references(text, refs_path, &refs, &nrefs, &e);
        free(text);
        if (rc) return sb_cli_report("gate", &e);
    }
    sb_db *shared = NULL;
    sb_ptset base = {0}, cand = {0};
    sb_envmap benv = {0}, cenv = {0};
    sb_gate_result res = {0};
    char bwhat[300] = "", cwhat[300] = "", bfile[PATH_MAX] = "", cfile[PATH_MAX] = "";
    if ((baseline &&
         (rc = load_side(baseline, dbpath, &shared, &base, &benv, bwhat, sizeof bwhat, bfile,
                         &e))) ||
        (rc = load_side(candidate, dbpath, &shared, &cand, &cenv, cwhat, sizeof cwhat, cfile, &e)))
        goto out;
    if (cand.n == 0) {
        rc = sb_errf(&e, SB_EUSAGE, "candidate %s has no points", cwhat);
        goto out;
    }
    if (baseline && base.n == 0) {
        rc = sb_errf(&e, SB_EUSAGE, "baseline %s has no points", bwhat);
        goto out;
    }
    if (baseline && (rc = refuse_pair(&base, &cand, bwhat, cwhat, bfile, cfile, &o, &e))) goto out;
    if (nmetrics && (rc = sb_gate_check_metrics(metrics, baseline ? &base : NULL, &cand, &e)))
        goto out;
    rc = refs ? sb_gate_references(refs, nrefs, &cand, &o, &res, &e)
              : sb_gate_compare(&base, &cand, &o, &res, &e);
    if (rc) goto out;
    const char *test = refs             ? "references"
        : o.method == SB_GATE_BOOTSTRAP ? "bootstrap"
                                        : "Mann-Whitney U";
    if (as_json) {
        json_t *doc = sb_gate_json(&res), *env = json_array();
        if (!refs) env_lines(&res, &benv, &cenv, env);
        if (!doc ||
            json_object_update_new(doc,
                                   json_pack("{s:s,s:s,s:f,s:s,s:f,s:i,s:o}", "baseline",
                                             refs ? refs_path : bwhat, "candidate", cwhat,
                                             "tolerance", o.tolerance, "test", test, "alpha",
                                             o.alpha, "min_samples", o.min_samples, "env", env)) ||
            json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER)) {
            json_decref(doc);
            rc = sb_errf(&e, SB_EFAIL, "cannot write the JSON document");
            goto out;
        }
        putchar('\n');
        json_decref(doc);
    } else {
        printf("baseline:  %s\ncandidate: %s\ntolerance: %.1f%%, %s, alpha %g, >= %d samples per"
               " side\n\n",
               refs ? refs_path : bwhat, cwhat, o.tolerance * 100, test, o.alpha, o.min_samples);
        sb_gate_print(&res, stdout);
        if (!refs) env_lines(&res, &benv, &cenv, NULL);
        if (res.ignored)
            printf("ignored: %d baseline configuration(s) from machines the candidate did not run"
                   " on:\n",
                   res.ignored);
        for (int i = 0; i < res.ignored && i < 10; i++)
            printf("ignored: %s\n", res.ignored_labels[i]);
        if (res.ignored > 10)
            printf("ignored: ... and %d more (--json names all)\n", res.ignored - 10);
        if (history && res.count[SB_FAIL] &&
            (rc = history_lines(&res, &base, &cand, &o, candidate, dbpath, shared, &e)))
            goto out;
    }
    fflush(stdout);
    if (junit && (rc = sb_gate_junit(&res, junit, &e))) goto out;
    /* in GitHub Actions: annotations (on stderr, which the runner reads as
     * well, so that --json stays one document) and the step summary */
    const char *gha = getenv("GITHUB_ACTIONS");
    if (gha && !strcmp(gha, "true") &&
        (rc = sb_gate_github(&res, stderr, getenv("GITHUB_STEP_SUMMARY"), &e)))
        goto out;
    rc = res.count[SB_FAIL] ? SB_EFAIL : SB_OK;
    sb_err_clear(&e);
out:
    sb_gate_result_free(&res);
    sb_ptset_free(&base);
    sb_ptset_free(&cand);
    sb_envmap_free(&benv);
    sb_envmap_free(&cenv);
    sb_db_close(shared);
    free(refs);
    if (rc && e.msg[0]) return sb_cli_report("gate", &e);
    return rc;
}
