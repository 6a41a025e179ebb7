/* sb_sweep_cli (#45): what sweep's parsed command line makes of a sweep:
 * plan keys as --key (a flag is "1", a key given twice refused), the
 * options that exclude each other, the plan the flags make with its
 * default label, and the sweep the batch script runs (argv less the words
 * of --sbatch and --submit, --launcher slurm added unless the plan named
 * one). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "sb_sweep_cli.h"
#include "testutil.h"

static void test_keys(void)
{
    sb_sweep_args a;
    sb_err e = {0};
    sb_sweep_args_init(&a, 0, NULL, "r.db");
    CHECK(!strcmp(a.db_path, "r.db") && a.pair.min_pairs == 8 && a.pair.reps == 3);
    CHECK(sb_sweep_args_key(&a, "threads", "1,2", &e) == SB_OK);
    CHECK(sb_sweep_args_key(&a, "eval", NULL, &e) == SB_OK);
    CHECK(a.nkv == 2 && !strcmp(a.values[0], "1,2") && !strcmp(a.values[1], "1"));
    CHECK(sb_sweep_args_key(&a, "eval", NULL, &e) == SB_EUSAGE);
    CHECK(!strcmp(e.msg, "--eval given twice") && a.nkv == 2);
    e = (sb_err){0};
    CHECK(sb_sweep_args_key(&a, "threads", "4", &e) == SB_EUSAGE);
    CHECK(!strcmp(e.msg, "--threads given twice"));
    static char names[SB_SWEEP_KEYS_MAX][16];
    int rc = SB_OK;
    for (int i = a.nkv; i < SB_SWEEP_KEYS_MAX && !rc; i++) {
        snprintf(names[i], sizeof names[i], "k%d", i);
        rc = sb_sweep_args_key(&a, names[i], "x", &e);
    }
    CHECK(rc == SB_OK && a.nkv == SB_SWEEP_KEYS_MAX);
    CHECK(sb_sweep_args_key(&a, "more", "x", &e) == SB_EUSAGE &&
          !strcmp(e.msg, "too many options"));
}

/* one combination of options: its check's code and message */
static void refused(sb_sweep_args *a, const char *msg)
{
    sb_err e = {0};
    CHECK(sb_sweep_args_check(a, &e) == SB_EUSAGE);
    CHECKF(!strcmp(e.msg, msg), "got '%s', expected '%s'", e.msg, msg);
    sb_sweep_args_init(a, 0, NULL, "r.db");
}

static void test_checks(void)
{
    sb_sweep_args a;
    sb_err e = {0};
    sb_sweep_args_init(&a, 0, NULL, "r.db");
    CHECK(sb_sweep_args_check(&a, &e) == SB_OK);
    a.resume = 3;
    a.plan_file = "p.plan";
    refused(&a, "--resume takes the stored plan; give no plan options");
    a.submit = 1;
    refused(&a, "--submit needs --sbatch FILE");
    a.pair.baseline = "/bin/true";
    refused(&a, "--pair-baseline and --pair-candidate go together");
    a.pair_opts = 1;
    refused(&a, "--pair-* options need --pair-baseline and --pair-candidate");
    a.pair.baseline = a.pair.candidate = "/bin/true";
    a.sbatch = "s.sh";
    refused(&a, "a paired sweep runs here and now: not with --sbatch");
    a.as_json = a.dry = 1;
    refused(&a, "--json is the summary of a sweep that runs: not with --dry-run");
    a.sbatch = "s.sh";
    a.resume = 2;
    refused(&a,
            "--sbatch writes a new sweep's batch script: give no --resume (resume inside an "
            "allocation instead)");
    /* the paired binaries: resolved once, the pairing then names those files */
    a.pair.baseline = "true";
    a.pair.candidate = "/bin/true";
    e = (sb_err){0};
    CHECK(sb_sweep_args_check(&a, &e) == SB_OK);
    CHECK(a.pair.baseline == a.pair_bin[0] && a.pair.baseline[0] == '/');
    CHECK(a.pair.candidate == a.pair_bin[1] && a.pair.candidate[0] == '/');
}

static void test_plan_and_batch(void)
{
    sb_sweep_args a;
    sb_err e = {0};
    char *argv[] = {"sweep",    "--sbatch",  "s.sh", "--kernels", "scalar-f32",
                    "--submit", "--threads", "1",    NULL};
    sb_sweep_args_init(&a, 8, argv, "r.db");
    a.sbatch = "s.sh";
    a.batch_skip[1] = a.batch_skip[2] = a.batch_skip[5] = 1;
    CHECK(sb_sweep_args_key(&a, "kernels", "scalar-f32", &e) == SB_OK);
    CHECK(sb_sweep_args_key(&a, "threads", "1", &e) == SB_OK);
    CHECK(sb_sweep_args_key(&a, "shapes", "8x8x8", &e) == SB_OK);
    sb_plan plan;
    sb_plan_init(&plan);
    int user_launcher = -1;
    unsetenv("SLURM_JOB_ID");
    CHECK(sb_sweep_args_plan(&a, &plan, &user_launcher, &e) == SB_OK);
    CHECKF(!e.code, "%s", e.msg);
    CHECK(user_launcher == 0);
    /* named after the machine and workload, not "default-": flags were given */
    size_t n = strlen(plan.label);
    CHECKF(n > 5 && !strcmp(plan.label + n - 5, "-gemm") && !strstr(plan.label, "default"),
           "label '%s'", plan.label);
    char dir[] = "/tmp/sb-sweep-cli-XXXXXX", path[96], text[4096] = "";
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/s.sh", dir);
    a.sbatch = path;
    FILE *out = tmpfile();
    CHECK(sb_sweep_args_batch(&a, &plan, "/x/sprbench", user_launcher, out, &e) == SB_OK);
    CHECKF(!e.code, "%s", e.msg);
    rewind(out);
    size_t got = fread(text, 1, sizeof text - 1, out);
    text[got] = '\0';
    fclose(out);
    CHECKF(strstr(text, "1 node(s), 1 task(s) per node, 1 CPU(s) per task") &&
               strstr(text, "submit it with: sbatch "),
           "%s", text);
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    got = f ? fread(text, 1, sizeof text - 1, f) : 0;
    text[got] = '\0';
    if (f) fclose(f);
    CHECKF(strstr(text,
                  "\nexec /x/sprbench sweep --kernels scalar-f32 --threads 1 --launcher "
                  "slurm\n"),
           "%s", text);
    unlink(path);
    rmdir(dir);
    sb_plan_free(&plan);
}

int main(void)
{
    test_keys();
    test_checks();
    test_plan_and_batch();
    return test_report("sweep_cli");
}
