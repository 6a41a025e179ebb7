/* The contract every row of the workload table (bench/sb_workloads.def)
 * keeps, checked over all of them (a new row is checked without a line
 * here):
 *  - a command of its name exists: `sprbench NAME --help` exits 0 with a
 *    usage (the peak probe's and `model`, which projects the SB_WL_PROJECT
 *    row, too);
 *  - every option key it passes to its worker has a range or kind in
 *    g_wopts, and its series keys are its options or its axis;
 *  - its axis agrees with its flags (shape: SB_WL_SHAPES, batch:
 *    SB_WL_BATCH) and writes worker flags;
 *  - a plan of it (each numeric or flag option at its smallest value, and
 *    its axis) is accepted, renders, and parses back to the same text;
 *  - `sweep --dry-run` runs that rendered plan as a plan file and names the
 *    workload; the probe's name is refused as a plan's workload. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "sb_metric.h"
#include "sb_plan.h"
#include "sb_workload.h"
#include "testutil.h"

static char g_dir[64];

/* Runs SPRBENCH with args (argv, no shell), its stdout into out (NULL:
 * dropped), stderr dropped; its exit status, -1 when it did not exit. */
static int run_sprbench(const char *const *args, const char *out)
{
    const char *exe = getenv("SPRBENCH");
    if (!exe) return -1;
    const char *argv[16] = {exe};
    int n = 1;
    for (; args[n - 1] && n < 15; n++) argv[n] = args[n - 1];
    argv[n] = NULL;
    pid_t pid = fork();
    if (pid == 0) {
        int fd = open(out ? out : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0600);
        int nul = open("/dev/null", O_WRONLY);
        if (fd >= 0) dup2(fd, 1);
        if (nul >= 0) dup2(nul, 2);
        execv(exe, (char *const *)argv);
        _exit(127);
    }
    int st = 0;
    if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st)) return -1;
    return WEXITSTATUS(st);
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) return NULL;
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return buf;
}

static void check_command(const char *name)
{
    char out[128];
    snprintf(out, sizeof out, "%s/help.txt", g_dir);
    int rc = run_sprbench((const char *const[]){name, "--help", NULL}, out);
    const char *text = slurp(out);
    CHECKF(rc == 0, "sprbench %s --help: exit %d", name, rc);
    CHECKF(text && strstr(text, "usage: sprbench ") && strstr(text, name),
           "sprbench %s --help: no usage naming it", name);
}

static int in_list(const char *const *list, const char *s)
{
    for (; list && *list; list++)
        if (!strcmp(*list, s)) return 1;
    return 0;
}

static void push_count(void *ctx, const char *arg)
{
    (void)arg;
    (*(int *)ctx)++;
}

static void check_table(const sb_workload *w)
{
    for (const char *const *o = w->opts; *o; o++) {
        const sb_wopt *r = sb_wopt_find(*o);
        CHECKF(r != NULL, "%s: option '%s' has no range in g_wopts", w->name, *o);
        if (r && (r->kind == SB_WOPT_LONG || r->kind == SB_WOPT_DOUBLE))
            CHECKF(r->min <= r->max, "%s: option '%s' range [%g, %g]", w->name, *o, r->min, r->max);
        if (r && (r->kind == SB_WOPT_MODEL || r->kind == SB_WOPT_SIZES ||
                  r->kind == SB_WOPT_QUANT || r->kind == SB_WOPT_ATTENTION))
            CHECKF(r->check != NULL, "%s: option '%s' has no value check", w->name, *o);
    }
    for (const char *const *s = w->series; s && *s; s++)
        CHECKF(in_list(w->opts, *s) || (w->axis && !strcmp(w->axis, *s)),
               "%s: series key '%s' is neither an option nor its axis", w->name, *s);
    CHECKF(!(w->flags & SB_WL_SHAPES) == !(w->axis && !strcmp(w->axis, "shape")),
           "%s: SB_WL_SHAPES and axis '%s' disagree", w->name, w->axis ? w->axis : "");
    CHECKF(!(w->flags & SB_WL_BATCH) == !(w->axis && !strcmp(w->axis, "batch")),
           "%s: SB_WL_BATCH and axis '%s' disagree", w->name, w->axis ? w->axis : "");
    CHECKF(!w->axis == !w->axis_argv, "%s: an axis without its worker flags", w->name);
    if (w->axis_argv) {
        int n = 0;
        w->axis_argv(!strcmp(w->axis, "shape") ? "8x9x10:NT" : "8", push_count, &n);
        CHECKF(n >= 2 && n % 2 == 0, "%s: axis value wrote %d worker words", w->name, n);
    }
    CHECKF(w->timeout_s > 0, "%s: no default timeout", w->name);
    /* a row's own metrics are the table's rows (their list in
     * bench/sb_metric_own, which the table reads, not the rows) */
    for (int i = 0; w->metrics && w->metrics[i].name; i++) {
        int listed = 0;
        for (int j = 0; j < sb_metric_count(); j++) listed |= sb_metric_at(j) == &w->metrics[i];
        CHECKF(listed && sb_metric_info_of(w->metrics[i].name) == &w->metrics[i],
               "%s: its own metric %s is not in sb_metric_own_lists", w->name, w->metrics[i].name);
    }
    CHECKF(!(w->flags & SB_WL_PROBE) || !(w->flags & SB_WL_PLAN),
           "%s: a probe is no plan's workload", w->name);
}

/* The plan of w with `key = value` (NULL: none), finished, rendered, parsed
 * back, finished and rendered again: the same text. Returns the text
 * (malloc'd) or NULL when the first plan was refused. */
static char *round_trip(const sb_workload *w, const char *key, const char *value)
{
    sb_plan p, q;
    sb_err e = {0};
    sb_plan_init(&p);
    sb_plan_init(&q);
    char *a = NULL, *b = NULL;
    int rc = sb_plan_set(&p, "workload", w->name, "test", &e);
    if (!rc) rc = sb_plan_set(&p, "threads", "1,2", "test", &e);
    if (!rc && key) rc = sb_plan_set(&p, key, value, "test", &e);
    if (!rc) rc = sb_plan_finish(&p, 2, &e);
    CHECKF(rc == SB_OK, "%s: plan with %s = %s refused: %s", w->name, key ? key : "(nothing)",
           value ? value : "", e.msg);
    if (rc) goto out;
    a = sb_plan_render(&p);
    CHECKF(sb_plan_parse(&q, a, "rendered", &e) == SB_OK && sb_plan_finish(&q, 2, &e) == SB_OK,
           "%s: rendered plan does not parse back: %s\n%s", w->name, e.msg, a);
    b = sb_plan_render(&q);
    CHECKF(!strcmp(a, b), "%s: plan renders differently once parsed back:\n%s---\n%s", w->name, a,
           b);
    CHECKF(q.wl == w, "%s: parsed back as another row", w->name);
    if (key) {
        char line[200];
        snprintf(line, sizeof line, "%s = %s\n", key, value);
        CHECKF(strstr(a, line) != NULL, "%s: '%s' lost in the rendered plan:\n%s", w->name, key,
               a);
    }
out:
    free(b);
    sb_plan_free(&p);
    sb_plan_free(&q);
    return a;
}

static void check_plans(const sb_workload *w)
{
    free(round_trip(w, NULL, NULL));
    if (w->axis && !strcmp(w->axis, "batch")) free(round_trip(w, "batch", "1,8"));
    if (w->axis && !strcmp(w->axis, "shape")) free(round_trip(w, "shapes", "8x9x10:NT,16x16x16:NN"));
    for (const char *const *o = w->opts; *o; o++) {
        const sb_wopt *r = sb_wopt_find(*o);
        char v[64];
        if (!r) continue;
        if (r->kind == SB_WOPT_LONG)
            snprintf(v, sizeof v, "%ld", (long)r->min);
        else if (r->kind == SB_WOPT_DOUBLE)
            snprintf(v, sizeof v, "%g", r->min);
        else if (r->kind == SB_WOPT_BOOL)
            snprintf(v, sizeof v, "1");
        else
            continue; /* paths, models, sizes: a value of their own */
        if (!strcmp(*o, "batch")) continue; /* the axis, above */
        free(round_trip(w, *o, v));
    }
}

/* The rendered plan as a plan file: `sweep --dry-run` runs it. */
static void check_dry_run(const sb_workload *w)
{
    char *text = round_trip(w, NULL, NULL);
    if (!text) return;
    char plan[128], db[128], out[128];
    snprintf(plan, sizeof plan, "%s/%s.plan", g_dir, w->name);
    snprintf(db, sizeof db, "%s/x.db", g_dir);
    snprintf(out, sizeof out, "%s/dry.txt", g_dir);
    FILE *f = fopen(plan, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
    free(text);
    int rc = run_sprbench((const char *const[]){"sweep", "--dry-run", "--plan", plan, "--db", db,
                                                NULL},
                          out);
    const char *got = slurp(out);
    char want[64];
    snprintf(want, sizeof want, " point(s), workload %s", w->name);
    CHECKF(rc == 0 && got && strstr(got, want), "%s: sweep --dry-run --plan: exit %d:\n%s", w->name,
           rc, got ? got : "");
    CHECKF(access(db, F_OK) != 0, "%s: a dry run wrote the database", w->name);
}

int main(void)
{
    snprintf(g_dir, sizeof g_dir, "/tmp/sb-workload-XXXXXX");
    if (!mkdtemp(g_dir)) return 1;
    CHECK(sb_workload_count() > 0 && sb_workload_default() == sb_workload_at(0));
    CHECK(sb_wl_is(sb_workload_flagged(SB_WL_PROBE), SB_WL_PROBE));
    for (int i = 0; i < sb_workload_count(); i++) {
        const sb_workload *w = sb_workload_at(i);
        CHECK(sb_workload_find(w->name) == w); /* names are unique */
        check_table(w);
        check_command(w->name);
        if (w->flags & SB_WL_PLAN) {
            check_plans(w);
            check_dry_run(w);
        } else {
            sb_plan p;
            sb_err e = {0};
            sb_plan_init(&p);
            CHECKF(sb_plan_set(&p, "workload", w->name, "test", &e) == SB_EUSAGE,
                   "%s: not a plan's workload, yet a plan may name it", w->name);
            sb_plan_free(&p);
        }
    }
    /* the command that projects the SB_WL_PROJECT row's series */
    if (sb_workload_flagged(SB_WL_PROJECT)) check_command("model");
    char cmd[128];
    snprintf(cmd, sizeof cmd, "%s/help.txt", g_dir);
    unlink(cmd);
    snprintf(cmd, sizeof cmd, "%s/dry.txt", g_dir);
    unlink(cmd);
    for (int i = 0; i < sb_workload_count(); i++) {
        snprintf(cmd, sizeof cmd, "%s/%s.plan", g_dir, sb_workload_at(i)->name);
        unlink(cmd);
    }
    rmdir(g_dir);
    return test_report("workload contract");
}
