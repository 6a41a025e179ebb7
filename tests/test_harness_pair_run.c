/* sb_pair_run (#44): a paired sweep's pairing through the stored plan and
 * back, and its binaries resolved once. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "sb_pair_run.h"
#include "testutil.h"

static char g_dir[64];

static void test_pairing_round_trip(void)
{
    sb_pair_opts po = SB_PAIR_OPTS_INIT;
    sb_err e = {0};
    po.baseline = "/opt/a b/base";
    po.candidate = "/x#y/cand"; /* '#' is a plan comment: the pairing's lines keep it */
    CHECK(sb_pair_set(&po, "pair-mode", "random", "--pair-mode", &e) == SB_OK);
    CHECK(sb_pair_set(&po, "pairs", "6:10", "--pairs", &e) == SB_OK);
    CHECK(sb_pair_set(&po, "pair-tolerance", "2.5%", "--pair-tolerance", &e) == SB_OK);
    CHECK(sb_pair_set(&po, "pair-seed", "7", "--pair-seed", &e) == SB_OK);
    CHECK(sb_pair_set(&po, "pairs", "9:3", "--pairs", &e) == SB_EUSAGE);
    CHECK(!strcmp(e.msg, "--pairs: MAX 3 is below MIN 9"));
    char *pr = sb_pair_render(&po);
    char text[4096];
    snprintf(text, sizeof text, "workload = gemm\nthreads = 1\n%s", pr);
    free(pr);
    sb_pair_opts back = SB_PAIR_OPTS_INIT;
    char base[256], cand[256];
    int found = 0;
    CHECK(sb_pair_take(text, &back, base, cand, sizeof base, &found, &e) == SB_OK);
    CHECK(found);
    CHECK(!strcmp(text, "workload = gemm\nthreads = 1\n")); /* the plan's own lines stay */
    CHECK(!strcmp(back.baseline, "/opt/a b/base") && !strcmp(back.candidate, "/x#y/cand"));
    CHECK(back.mode == SB_PAIR_RANDOM && back.min_pairs == 6 && back.max_pairs == 10);
    CHECK(back.seed == 7 && back.reps == 3 && back.tolerance > 0.0249 && back.tolerance < 0.0251);
    /* a plan without pairing: nothing taken, nothing changed */
    char plain[] = "workload = gemm\n";
    CHECK(sb_pair_take(plain, &back, base, cand, sizeof base, &found, &e) == SB_OK);
    CHECK(!found && !strcmp(plain, "workload = gemm\n"));
    /* a pairing without its candidate, or with a wrong value, is refused */
    char half[] = "pair-baseline = /a\n";
    CHECK(sb_pair_take(half, &back, base, cand, sizeof base, &found, &e) == SB_EUSAGE);
    char wrong[] = "pair-baseline = /a\npair-candidate = /b\npair-mode = abab\n";
    CHECK(sb_pair_take(wrong, &back, base, cand, sizeof base, &found, &e) == SB_EUSAGE);
    CHECK(strstr(e.msg, "stored plan: pair-mode: 'abab'") != NULL);
}

static void test_resolve(void)
{
    char exe[256], out[4096], path[4200];
    sb_err e = {0};
    snprintf(exe, sizeof exe, "%s/sbtool", g_dir);
    FILE *f = fopen(exe, "w");
    CHECK(f != NULL);
    if (f) fclose(f);
    chmod(exe, 0755);
    const char *old = getenv("PATH");
    snprintf(path, sizeof path, "/nonexistent::%s", g_dir);
    setenv("PATH", path, 1);
    CHECK(sb_pair_resolve("--pair-baseline", "sbtool", out, sizeof out, &e) == SB_OK);
    CHECK(!strcmp(out, exe));
    CHECK(sb_pair_resolve("--pair-baseline", "sbtool-none", out, sizeof out, &e) == SB_EUSAGE);
    CHECK(strstr(e.msg, "not an executable file on PATH") != NULL);
    CHECK(sb_pair_resolve("--pair-candidate", g_dir, out, sizeof out, &e) == SB_EUSAGE);
    CHECK(sb_pair_resolve("--pair-candidate", "a\nb", out, sizeof out, &e) == SB_EUSAGE);
    chmod(exe, 0644);
    CHECK(sb_pair_resolve("--pair-baseline", exe, out, sizeof out, &e) == SB_EUSAGE);
    if (old) setenv("PATH", old, 1);
    unlink(exe);
}

int main(void)
{
    snprintf(g_dir, sizeof g_dir, "/tmp/sb-pair-XXXXXX");
    CHECK(mkdtemp(g_dir) != NULL);
    test_pairing_round_trip();
    test_resolve();
    rmdir(g_dir);
    return test_report("pair_run");
}
