/* sprbench gate: PASS/WARN/FAIL of a candidate run against a baseline run
 * or against absolute references; exit 1 on any FAIL (for CI). */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sb_cli.h"
#include "sb_opts.h"
#include "sb_cmds.h"
#include "sb_gate_run.h"


static void gate_help(void)
{
    printf("usage: sprbench gate --baseline REF --candidate RUN [options]\n"
           "       sprbench gate --references FILE --candidate RUN [options]\n"
           "       sprbench gate --paired --candidate RUN [options]\n\n"
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
           "Refused with one line (exit 2): a run gated against itself, two runs on\n"
           "different machines without --cross-machine, and a database holding a sample\n"
           "that is not seconds in [1e-9, 1e9] (0, negative, denormal, infinite) or a\n"
           "pair number past its paired samples, naming the point.\n\n"
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
           "                     with no point WARNs; a point is gated once per metric:\n"
           "                     where an exact line and a wildcard line both match it,\n"
           "                     the most exact line alone (docs/gating.md)\n"
           "  --paired           judge the pairs RUN measured itself (sweep --pair-baseline\n"
           "                     B --pair-candidate C; no --baseline): per point, the log\n"
           "                     ratios of its pairs, one-sided Wilcoxon signed-rank: FAIL\n"
           "                     slower at p < --alpha and the ratio (the pairs' Hodges-\n"
           "                     Lehmann estimate) beyond the tolerance; PASS the ratio below\n"
           "                     1 + tolerance at p < --alpha; the interval is that test's\n"
           "                     (PASS: below 1 + tolerance, FAIL: above 1); else WARN\n"
           "                     UNSURE (measure more pairs); pair ratios in two\n"
           "                     groups WARN noisy. Each note gives the pairs and the A/A\n"
           "                     spread (the two baseline runs of each quad: the run's noise)\n"
           "  --min-pairs N      paired: fewer pairs is UNSURE (default 6); --paired on a\n"
           "                     sweep with no paired point is an error (exit 2), an ok\n"
           "                     point without pairs inside a paired sweep a FAIL\n"
           "  --allow-nothing-judged  exit 0 when no row PASSed or FAILed (otherwise that\n"
           "                     is exit 1, 'nothing judged: ...')\n"
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
           "Every text a database stored (labels, host names, kernel names, reasons) is\n"
           "shown inert on every output: one line, controls as '?', invalid UTF-8 and\n"
           "U+FFFE/U+FFFF as U+FFFD, and '::' or '##[' (workflow commands a CI runner\n"
           "would obey) with '?' for their second character.\n\n"
           "The table's ratio is candidate/baseline of the two medians it shows (with\n"
           "--pool, of the samples of every round pooled); p(slower) is one-sided. One\n"
           "round a side of sub-millisecond samples is judged with a warning that names\n"
           "the fix (--paired, or rounds with --pool).\n\n"
           "Exit status: 0 no FAIL, 1 at least one FAIL or nothing judged (no row PASSed\n"
           "or FAILed: all WARN, SKIP or none, e.g. sides that share no configuration;\n"
           "the last line says 'nothing judged: ...'), 2 bad usage or input, or an\n"
           "output (stdout, --junit, the step summary) that could not be written.\n",
           sb_default_db());
}

/* What the command line asks for: study/sb_gate_run's job. */

/* --tolerance ("5%" or a fraction below 1), --method, --metric (repeatable,
 * its --help says so): read as they come */
static int to_custom(const char *key, const char *arg, void *opts, sb_err *e)
{
    sb_gate_job *a = opts;
    if (!strcmp(key, "method")) {
        if (!strcmp(arg, "mwu"))
            a->o.method = SB_GATE_MWU;
        else if (!strcmp(arg, "bootstrap"))
            a->o.method = SB_GATE_BOOTSTRAP;
        else
            return sb_errf(e, SB_EUSAGE, "--method: '%s' is not mwu or bootstrap", arg);
        return SB_OK;
    }
    if (!strcmp(key, "metric")) {
        if (a->nmetrics == SB_GATE_JOB_METRICS)
            return sb_errf(e, SB_EUSAGE, "--metric: at most %d", SB_GATE_JOB_METRICS);
        if (!*arg || strlen(arg) > 63) return sb_errf(e, SB_EUSAGE, "--metric: bad name '%s'", arg);
        a->metrics[a->nmetrics++] = arg;
        return SB_OK;
    }
    size_t n = strlen(arg);
    char buf[64];
    int pct = n > 0 && n < sizeof buf && arg[n - 1] == '%';
    snprintf(buf, sizeof buf, "%.*s", pct ? (int)n - 1 : (int)n, arg);
    double v;
    if (sb_parse_double(buf, 0, pct ? 1000 : 0.9999, "--tolerance", &v, e)) {
        if (!pct)
            return sb_errf(e, SB_EUSAGE,
                           "--tolerance: '%s' is not a percentage (5%%) or a fraction below 1"
                           " (0.05)",
                           arg);
        return SB_EUSAGE;
    }
    a->o.tolerance = pct ? v / 100 : v;
    return SB_OK;
}
static int to_long(const char *key, const char *v, const char *what, long *out, sb_err *e)
{
    (void)key; /* --min-pairs, --min-samples */
    return sb_parse_long(v, 2, 100000, what, out, e);
}
static int to_double(const char *key, const char *v, const char *what, double *out, sb_err *e)
{
    (void)key; /* --alpha */
    return sb_parse_double(v, 1e-9, 0.5, what, out, e);
}
static const sb_opt_ranges g_ranges = {to_long, to_double, NULL, to_custom};

#define O(f) offsetof(sb_gate_job, f)
static const sb_opt g_gate_opts[] = {
    {"baseline", SB_OPT_STR, O(baseline), SB_OPT_NOSET, NULL},
    {"candidate", SB_OPT_STR, O(candidate), SB_OPT_NOSET, NULL},
    {"db", SB_OPT_STR, O(dbpath), SB_OPT_NOSET, NULL},
    {"tolerance", SB_OPT_CUSTOM, O(o.tolerance), SB_OPT_NOSET, "tolerance"},
    {"metric", SB_OPT_EACH, O(metrics), SB_OPT_NOSET, "metric"},
    {"references", SB_OPT_STR, O(refs_path), SB_OPT_NOSET, NULL},
    {"junit", SB_OPT_STR, O(junit), SB_OPT_NOSET, NULL},
    {"alpha", SB_OPT_DOUBLE, O(o.alpha), SB_OPT_NOSET, "alpha"},
    {"min-samples", SB_OPT_INT, O(o.min_samples), SB_OPT_NOSET, "min-samples"},
    {"method", SB_OPT_CUSTOM, O(o.method), SB_OPT_NOSET, "method"},
    {"pool", SB_OPT_FLAG, O(o.pool), SB_OPT_NOSET, NULL},
    {"cross-machine", SB_OPT_FLAG, O(o.cross_machine), SB_OPT_NOSET, NULL},
    {"json", SB_OPT_FLAG, O(as_json), SB_OPT_NOSET, NULL},
    {"history", SB_OPT_FLAG, O(history), SB_OPT_NOSET, NULL},
    {"paired", SB_OPT_FLAG, O(o.paired), SB_OPT_NOSET, NULL},
    {"min-pairs", SB_OPT_INT, O(o.min_pairs), SB_OPT_NOSET, "min-pairs"},
    {"allow-nothing-judged", SB_OPT_FLAG, O(o.allow_nothing_judged), SB_OPT_NOSET, NULL},
    {NULL}};
#undef O

/* The options into a. -1 to go on, else the exit status (--help: 0). */
static int parse_options(int argc, char **argv, sb_gate_job *a)
{
    return sb_cli_opts("gate", argc, argv, g_gate_opts, a, &g_ranges, gate_help);
}

/* What goes together and what is needed, and the paths, before anything is
 * read. -1 to go on, else the exit status. */
static int check_args(sb_gate_job *a)
{
    const sb_gate_opts *o = &a->o;
    sb_err e = {0};
    if (!a->candidate)
        return sb_cli_usage_error("gate", "--candidate RUN is required (see --help)");
    if (o->paired && (a->baseline || a->refs_path || o->pool || a->nmetrics || a->history))
        return sb_cli_usage_error("gate", "--paired judges the candidate's own pairs: not with %s",
                                  a->baseline        ? "--baseline"
                                      : a->refs_path ? "--references"
                                      : o->pool      ? "--pool"
                                      : a->nmetrics  ? "--metric"
                                                     : "--history");
    if (!a->baseline && !a->refs_path && !o->paired)
        return sb_cli_usage_error(
            "gate", "give --baseline REF, --references FILE or --paired (see --help)");
    if (a->baseline && a->refs_path)
        return sb_cli_usage_error("gate", "--baseline and --references are two modes: give one");
    if (a->history && !a->baseline)
        return sb_cli_usage_error("gate", "--history goes with --baseline");
    if (a->history && a->as_json)
        return sb_cli_usage_error("gate", "--history prints lines: give it without --json");
    a->o.metrics = a->metrics;
    a->o.what = a->candidate;
    /* before anything is read: empty names, and where the JUnit file goes */
    if ((a->baseline && sb_cli_check_path("--baseline", a->baseline, &e)) ||
        sb_cli_check_path("--candidate", a->candidate, &e) ||
        sb_cli_check_path("--db", a->dbpath, &e) ||
        (a->refs_path && sb_cli_check_path("--references", a->refs_path, &e)) ||
        (a->junit && sb_cli_check_out_file("--junit", a->junit, &e)))
        return sb_cli_report("gate", &e);
    return -1;
}

int sb_cmd_gate(int argc, char **argv)
{
    sb_gate_job a = {.dbpath = sb_default_db(), .o = SB_GATE_OPTS_INIT, .out = stdout};
    int rc = parse_options(argc, argv, &a);
    if (rc < 0) rc = check_args(&a);
    if (rc >= 0) return rc;
    /* in GitHub Actions: annotations on stderr (which the runner reads as
     * well, so that --json stays one document) and the step summary */
    const char *gha = getenv("GITHUB_ACTIONS");
    if (gha && !strcmp(gha, "true")) {
        a.annotations = stderr;
        a.step_summary = getenv("GITHUB_STEP_SUMMARY");
    }
    sb_err e = {0};
    sb_reference *refs = NULL;
    int nrefs = 0;
    rc = a.refs_path ? sb_gate_read_references(a.refs_path, &refs, &nrefs, &e) : SB_OK;
    if (!rc) rc = sb_gate_run(&a, refs, nrefs, &e);
    free(refs);
    if (rc && e.msg[0]) return sb_cli_report("gate", &e);
    return rc;
}
