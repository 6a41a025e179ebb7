/* sprbench tune: search each own kernel's blocking on this machine and store
 * it per fingerprint, kernel and shape class (bench/tune). */
#include <omp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "sb_cli.h"
#include "sb_opts.h"
#include "sb_cmds.h"
#include "sb_cpu.h"
#include "sb_sysinfo.h"
#include "sb_tune.h"
#include "sb_tune_shapes.h"
#include "sb_tune_use.h"

#define MAX_KERNELS 16

static void tune_help(void)
{
    printf("usage: sprbench tune [--kernel K ...] [--shapes LIST] [--seconds S] [options]\n\n"
           "Searches the blocking of the project's own GEMM kernels on this machine (k, m and\n"
           "n blocks, loop order, A prefetch, how threads split the work) and stores the\n"
           "winner per machine fingerprint, kernel and shape class in a tune file beside the\n"
           "results database. gemm, train, infer (and the sweep's points) use it by default;\n"
           "their --no-tune runs the built-in blocking.\n\n"
           "Search: a coarse grid of k x m blocks, then loop order x prefetch, then n block x\n"
           "thread split, then k and m refined; candidates interleaved, ranked by median, the\n"
           "built-in blocking always among them. Each candidate is checked against the scalar\n"
           "reference first (as gemm checks). The winner is kept only when it beats the\n"
           "built-in blocking by --min-gain in interleaved rounds, else the default is stored.\n\n"
           "  --kernel K       a kernel to tune (repeatable; default: every own kernel this\n"
           "                   machine runs: %s)\n"
           "  --shapes LIST    comma-separated: 'square' (NN 1024^3 and 2048^3), 'distilbert'\n"
           "                   (its 12 training GEMM classes), or MxNxK[:XY][@T] (XY: NN, NT,\n"
           "                   TN, TT; @T: threads for that shape). Default: square,distilbert.\n"
           "                   One shape per class: a later shape of a class already listed\n"
           "                   is left out.\n"
           "  --seconds S      time budget per kernel, shared by its shapes (default 120; each\n"
           "                   search stage runs at least two rounds, so large shapes can\n"
           "                   take longer)\n"
           "  --threads T      threads of the tuned calls (default: physical cores)\n"
           "  --min-gain P     percent the winner must beat the default by (default 2)\n"
           "  --db FILE        the tune file goes beside it (default %s)\n"
           "  --tune-file F    the tune file itself (default: tune-<fingerprint>.json beside\n"
           "                   the database; $SPRBENCH_TUNE_FILE sets another)\n"
           "  --verbose        a line per search stage\n\n"
           "Entries of other kernels and classes already in the file are kept. A tune file\n"
           "that is not this machine's or not valid: one line, exit 2, nothing written.\n"
           "SB_GEMM_KC/MC/NC override every blocking, so tune refuses to run with them set.\n"
           "Exit status: 0 ok, 1 a kernel failed, 2 bad input, 3 no kernel can run here.\n",
           "avx2-f32, avx2-int8, avx512-f32, avx512-bf16, vnni-int8, amx-bf16, amx-int8",
           sb_default_db());
}

static void print_note(void *ctx, const char *line)
{
    (void)ctx;
    printf("%s\n", line);
    fflush(stdout);
}

/* What the command line asked for. */
typedef struct tune_opts {
    const char *kernels[MAX_KERNELS], *shapes, *db, *file;
    int nk, threads, verbose;
    double seconds, min_gain;
} tune_opts;

/* tune's own ranges: --threads; --seconds and --min-gain */
static int to_long(const char *key, const char *v, const char *what, long *out, sb_err *e)
{
    (void)key; /* --threads, the one whole number */
    return sb_parse_long(v, 1, 4096, what, out, e);
}
static int to_double(const char *key, const char *v, const char *what, double *out, sb_err *e)
{
    if (!strcmp(key, "seconds")) return sb_parse_double(v, 0.001, 86400, what, out, e);
    return sb_parse_double(v, 0, 50, what, out, e); /* --min-gain */
}
/* --kernel, repeatable (its --help says so): each one kept */
static int to_custom(const char *key, const char *v, void *opts, sb_err *e)
{
    (void)key;
    tune_opts *o = opts;
    if (o->nk == MAX_KERNELS) return sb_errf(e, SB_EUSAGE, "--kernel: too many");
    o->kernels[o->nk++] = v;
    return SB_OK;
}
static const sb_opt_ranges g_ranges = {to_long, to_double, NULL, to_custom};

#define O(f) offsetof(tune_opts, f)
static const sb_opt g_tune_opts[] = {
    {"kernel", SB_OPT_EACH, O(kernels), SB_OPT_NOSET, "kernel"},
    {"shapes", SB_OPT_STR, O(shapes), SB_OPT_NOSET, NULL},
    {"seconds", SB_OPT_DOUBLE, O(seconds), SB_OPT_NOSET, "seconds"},
    {"threads", SB_OPT_INT, O(threads), SB_OPT_NOSET, "threads"},
    {"min-gain", SB_OPT_DOUBLE, O(min_gain), SB_OPT_NOSET, "min-gain"},
    {"db", SB_OPT_STR, O(db), SB_OPT_NOSET, NULL},
    {"tune-file", SB_OPT_STR, O(file), SB_OPT_NOSET, NULL},
    {"verbose", SB_OPT_FLAG, O(verbose), SB_OPT_NOSET, "v"},
    {NULL}};
#undef O

/* Parses argv into *o. -1 to go on, else the exit status (--help: 0). */
static int tune_parse(int argc, char **argv, tune_opts *o)
{
    memset(o, 0, sizeof *o);
    o->shapes = "square,distilbert";
    o->seconds = 120;
    o->min_gain = 2;
    return sb_cli_opts("tune", argc, argv, g_tune_opts, o, &g_ranges, tune_help);
}

/* Whether kernel k runs through the project's GEMM driver (has a blocking). */
static int tunable(const sb_kernel *k)
{
    sb_gemm_desc d1 = {.transa = 'N', .transb = 'N', .m = 1, .n = 1, .k = 1};
    sb_blocking b;
    return sb_kernel_blocking(k, &d1, &b);
}

/* The checks before any work: the shapes (into sh, *ns), the kernels named,
 * no SB_GEMM_KC/MC/NC. -1 to go on, else the exit status. */
static int tune_check(const tune_opts *o, sb_tune_shape *sh, int *ns)
{
    sb_err e = {0};
    if (sb_tune_shapes_parse(o->shapes, sh, ns, &e)) return sb_cli_report("tune", &e);
    for (int i = 0; i < o->nk; i++) {
        const sb_kernel *k = sb_kernel_find(o->kernels[i]);
        if (!k)
            return sb_cli_usage_error("tune", "unknown kernel '%s' (known: %s)", o->kernels[i],
                                      sb_kernel_names());
        if (!tunable(k))
            return sb_cli_usage_error("tune",
                                      "%s does not run through the project's GEMM driver: "
                                      "nothing to tune",
                                      o->kernels[i]);
    }
    for (const char *const *var =
             (const char *const[]){"SB_GEMM_KC", "SB_GEMM_MC", "SB_GEMM_NC", NULL};
         *var; var++) {
        const char *val = getenv(*var);
        if (val && *val)
            return sb_cli_usage_error("tune",
                                      "%s is set: it overrides every blocking, so nothing could "
                                      "be tuned (unset it)",
                                      *var);
    }
    return -1;
}

/* The tune file: --tune-file, else beside --db, else the default's. */
static int tune_file_path(const tune_opts *o, const sb_sysinfo *si, char *path, size_t cap,
                          sb_err *e)
{
    int rc;
    if (o->file) {
        if ((rc = sb_cli_check_path("--tune-file", o->file, e))) return rc;
        snprintf(path, cap, "%s", o->file);
        return SB_OK;
    }
    if (o->db) {
        if ((rc = sb_cli_check_path("--db", o->db, e))) return rc;
        return sb_tune_path(o->db, si->fingerprint, path, cap, e);
    }
    return sb_tune_use_path(NULL, path, cap, e);
}

/* The tuned blocking of one kernel and shape class, into the table and the
 * file (saved after every shape: an interrupted run keeps what it found). */
static int tune_store(sb_tune_table *tbl, const char *path, const sb_tune_config *cfg, int cls,
                      const sb_tune_result *r, sb_err *e)
{
    sb_tune_entry x = {.cls = cls,
                       .b = r->best,
                       .transa = cfg->transa,
                       .transb = cfg->transb,
                       .m = cfg->m,
                       .n = cfg->n,
                       .k = cfg->k,
                       .threads = cfg->threads,
                       .default_gflops = r->default_gflops,
                       .tuned_gflops = r->tuned_gflops,
                       .kept_default = r->kept_default};
    snprintf(x.kernel, sizeof x.kernel, "%s", cfg->kernel);
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(x.when, sizeof x.when, "%Y-%m-%dT%H:%M:%SZ", &tm);
    int rc;
    if ((rc = sb_tune_put(tbl, &x, e))) return rc;
    return sb_tune_save(path, tbl, e);
}

enum { TUNED, TUNE_SKIPPED, TUNE_FAILED };

/* Tunes kernel on shape s (of ns sharing the kernel's budget): its line,
 * its entry stored. *outcome TUNED, TUNE_SKIPPED (the kernel cannot run
 * here: its line on stderr) or TUNE_FAILED; SB_OK unless the work or the
 * file failed (e says why). */
static int tune_shape(const tune_opts *o, const char *kernel, const sb_tune_shape *s, int ns,
                      sb_tune_table *tbl, const char *path, int *outcome, sb_err *e)
{
    int t = s->threads ? s->threads : o->threads;
    omp_set_num_threads(t);
    sb_tune_config cfg = {.kernel = kernel,
                          .transa = s->ta,
                          .transb = s->tb,
                          .m = s->m,
                          .n = s->n,
                          .k = s->k,
                          .threads = t,
                          .seconds = o->seconds / ns,
                          .min_gain = o->min_gain / 100,
                          .note = o->verbose ? print_note : NULL};
    sb_tune_result r;
    int cls = sb_shape_class(cfg.transa, cfg.transb, cfg.m, cfg.n, cfg.k);
    char cname[16];
    sb_shape_class_name(cls, cname, sizeof cname);
    if (o->verbose)
        printf("%s %c%c %dx%dx%d (%s) %d thread(s):\n", kernel, cfg.transa, cfg.transb, cfg.m,
               cfg.n, cfg.k, cname, t);
    fflush(stdout);
    int rc;
    if ((rc = sb_tune_run(&cfg, &r, e))) return rc;
    if (!strcmp(r.status, "skipped")) {
        fprintf(stderr, "sprbench tune: %s cannot run here: %s\n", kernel, r.reason);
        *outcome = TUNE_SKIPPED;
        return SB_OK;
    }
    if (strcmp(r.status, "ok")) {
        fprintf(stderr, "sprbench tune: %s %s: %s\n", kernel, cname, r.reason);
        *outcome = TUNE_FAILED;
        return SB_OK;
    }
    char b[160];
    sb_blocking_format(r.kept_default ? &r.default_run : &r.best_run, b, sizeof b);
    printf("%-12s %c%c %5dx%5dx%5d %s %dt  default %7.1f  tuned %7.1f GFLOP/s  %+5.1f%%"
           "  %s %s\n",
           kernel, cfg.transa, cfg.transb, cfg.m, cfg.n, cfg.k, cname, t, r.default_gflops,
           r.tuned_gflops, 100.0 * (r.tuned_gflops / r.default_gflops - 1),
           r.kept_default ? "default" : "tuned", b);
    fflush(stdout);
    *outcome = TUNED;
    return tune_store(tbl, path, &cfg, cls, &r, e);
}

int sb_cmd_tune(int argc, char **argv)
{
    tune_opts o;
    sb_tune_shape sh[SB_TUNE_MAX_SHAPES];
    int ns = 0, rc;
    sb_err e = {0};
    if ((rc = tune_parse(argc, argv, &o)) >= 0 || (rc = tune_check(&o, sh, &ns)) >= 0) return rc;
    const sb_sysinfo *si = sb_sysinfo_cached();
    if (!si) return sb_cli_usage_error("tune", "cannot read this machine's fingerprint");
    char path[1024];
    if (tune_file_path(&o, si, path, sizeof path, &e)) return sb_cli_report("tune", &e);
    sb_tune_table tbl;
    int exists;
    if (sb_tune_load(path, si->fingerprint, &tbl, &exists, &e)) return sb_cli_report("tune", &e);
    snprintf(tbl.fingerprint, sizeof tbl.fingerprint, "%s", si->fingerprint);
    snprintf(tbl.cpu, sizeof tbl.cpu, "%s", sb_cpu_get()->brand);
    if (sb_cli_make_parent_dir(path) != 0 || sb_cli_check_out_file("--tune-file", path, &e)) {
        if (!e.code) sb_errf(&e, SB_EUSAGE, "%s: cannot create its directory", path);
        sb_tune_free(&tbl);
        return sb_cli_report("tune", &e);
    }
    if (o.threads <= 0) o.threads = si->cores > 0 ? si->cores : 1;
    if (o.nk == 0)
        for (int i = 0; i < sb_kernel_count() && o.nk < MAX_KERNELS; i++) {
            const sb_kernel *k = sb_kernel_at(i);
            char why[256];
            if (tunable(k) && k->probe(why, sizeof why)) o.kernels[o.nk++] = k->name;
        }
    printf("tuning %d kernel(s) x %d shape class(es), %.0f s per kernel, %d thread(s); file %s\n",
           o.nk, ns, o.seconds, o.threads, path);
    int failed = 0, ran = 0;
    for (int i = 0; i < o.nk; i++) {
        for (int s = 0; s < ns; s++) {
            int outcome;
            if (tune_shape(&o, o.kernels[i], &sh[s], ns, &tbl, path, &outcome, &e)) {
                sb_tune_free(&tbl);
                return sb_cli_report("tune", &e);
            }
            if (outcome == TUNE_SKIPPED) break;
            ran = 1;
            failed |= outcome == TUNE_FAILED;
        }
    }
    sb_tune_free(&tbl);
    if (!ran) {
        fprintf(stderr, "sprbench tune: no kernel to tune could run on this machine\n");
        return SB_ESKIP;
    }
    printf("wrote %s\n", path);
    return failed ? 1 : 0;
}
