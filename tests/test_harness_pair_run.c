/* sb_pair_run (#44): a paired sweep's pairing through the stored plan and
 * back, its binaries resolved once, a run's result against its plan row,
 * and the bounded copy of a worker's output (first and last parts exact,
 * one line between saying what was cut: sb_worker_log). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "sb_pair_run.h"
#include "sb_worker_log.h"
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
    sb_pair_stored back = {.po = SB_PAIR_OPTS_INIT};
    int found = 0;
    CHECK(sb_pair_take(text, &back, &found, &e) == SB_OK);
    CHECK(found);
    CHECK(!strcmp(text, "workload = gemm\nthreads = 1\n")); /* the plan's own lines stay */
    CHECK(!strcmp(back.po.baseline, "/opt/a b/base") && !strcmp(back.po.candidate, "/x#y/cand"));
    CHECK(back.po.mode == SB_PAIR_RANDOM && back.po.min_pairs == 6 && back.po.max_pairs == 10);
    CHECK(back.po.seed == 7 && back.po.reps == 3 && back.po.tolerance > 0.0249 &&
          back.po.tolerance < 0.0251);
    CHECK(!back.digest[0][0] && !back.digest[1][0]); /* files that are not there: no digest */
    /* a plan without pairing: nothing taken, nothing changed */
    char plain[] = "workload = gemm\n";
    CHECK(sb_pair_take(plain, &back, &found, &e) == SB_OK);
    CHECK(!found && !strcmp(plain, "workload = gemm\n"));
    /* a pairing without its candidate, or with a wrong value, is refused */
    char half[] = "pair-baseline = /a\n";
    CHECK(sb_pair_take(half, &back, &found, &e) == SB_EUSAGE);
    char wrong[] = "pair-baseline = /a\npair-candidate = /b\npair-mode = abab\n";
    CHECK(sb_pair_take(wrong, &back, &found, &e) == SB_EUSAGE);
    CHECK(strstr(e.msg, "stored plan: pair-mode: 'abab'") != NULL);
    char dig[] = "pair-baseline = /a\npair-candidate = /b\npair-candidate-digest = xyz\n";
    CHECK(sb_pair_take(dig, &back, &found, &e) == SB_EUSAGE);
}

/* A binary's digest is kept with the pairing and checked on resume. */
static void test_still(void)
{
    char exe[256];
    snprintf(exe, sizeof exe, "%s/tool", g_dir);
    FILE *f = fopen(exe, "w");
    if (f) fputs("#!/bin/sh\nexit 0\n", f), fclose(f);
    chmod(exe, 0755);
    sb_pair_opts po = SB_PAIR_OPTS_INIT;
    po.baseline = po.candidate = exe;
    char *pr = sb_pair_render(&po);
    sb_pair_stored ps = {.po = SB_PAIR_OPTS_INIT};
    int found = 0;
    sb_err e = {0};
    CHECK(pr && sb_pair_take(pr, &ps, &found, &e) == SB_OK && found);
    free(pr);
    CHECK(strlen(ps.digest[0]) == 16 && !strcmp(ps.digest[0], ps.digest[1]));
    char why[200] = "";
    CHECK(sb_pair_still(&ps, 0, why, sizeof why) == 0);
    f = fopen(exe, "a");
    if (f) fputs("# rebuilt\n", f), fclose(f);
    CHECK(sb_pair_still(&ps, 1, why, sizeof why) == -1 && strstr(why, "changed since") != NULL);
    unlink(exe);
    CHECK(sb_pair_still(&ps, 0, why, sizeof why) == -1 &&
          !strcmp(why, "is no longer an executable file"));
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

static json_t *doc_of(const char *text)
{
    json_error_t je;
    return json_loads(text, 0, &je);
}

static void test_check_result(void)
{
    sb_todo_point row;
    memset(&row, 0, sizeof row);
    snprintf(row.kernel, sizeof row.kernel, "scalar-f32");
    snprintf(row.workload, sizeof row.workload, "gemm");
    snprintf(row.shape, sizeof row.shape, "64x32x16:NT");
    row.threads = 2, row.ppn = 1, row.nodes = 1;
    char why[400];
    json_t *d = doc_of("{\"status\":\"ok\",\"samples\":[0.1,0.2],\"metrics\":{\"gflops\":3}}");
    CHECK(sb_pair_check_result(d, &row, why, sizeof why) == 0);
    /* the point's identity is the plan row's, written in */
    CHECK(!strcmp(json_string_value(json_object_get(d, "dtype")), "f32"));
    CHECK(json_integer_value(json_object_get(d, "threads")) == 2);
    json_decref(d);
    static const struct {
        const char *doc, *why;
    } bad[] = {
        {"{\"kernel\":\"avx2-f32\",\"samples\":[1]}",
         "its kernel \"avx2-f32\" is not the point's 'scalar-f32'"},
        {"{\"m\":65,\"samples\":[1]}", "its m 65 is not the point's 64"},
        {"{\"trans\":\"NN\",\"samples\":[1]}", "its trans \"NN\" is not the point's 'NT'"},
        {"{\"threads\":\"2\",\"samples\":[1]}", "its threads \"2\" is not the point's 2"},
        {"{\"samples\":[]}", "its samples are [], not a list of seconds"},
        {"{\"samples\":[1,null]}", "its samples[1] null is not a number"},
        {"{\"samples\":[1,-1]}", "its samples[1] -1 is not a time"},
        {"{\"samples\":[1],\"metrics\":{\"gflops\":0}}", "its metric gflops 0 is not a rate"},
        {"{\"samples\":[1],\"metrics\":{\"min_s\":1e-10}}", "its metric min_s 1e-10 is not a time"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        d = doc_of(bad[i].doc);
        CHECK(d != NULL);
        why[0] = '\0';
        CHECKF(d && sb_pair_check_result(d, &row, why, sizeof why) == -1 &&
                   !strncmp(why, bad[i].why, strlen(bad[i].why)),
               "%s: got '%s'", bad[i].doc, why);
        json_decref(d);
    }
}

/* The worker's side of a FIFO: n bytes of a pattern no two KiB repeat. */
static void write_pattern(const char *fifo, size_t n)
{
    int fd = open(fifo, O_WRONLY);
    CHECK(fd >= 0);
    char buf[4096];
    for (size_t at = 0; fd >= 0 && at < n;) {
        size_t k = n - at < sizeof buf ? n - at : sizeof buf;
        for (size_t i = 0; i < k; i++) buf[i] = (char)('a' + ((at + i) * 7 + (at + i) / 1024) % 26);
        CHECK(write(fd, buf, k) == (ssize_t)k);
        at += k;
    }
    if (fd >= 0) close(fd);
}

static char pattern_at(size_t i) { return (char)('a' + (i * 7 + i / 1024) % 26); }

static void test_worker_log(void)
{
    char path[256];
    snprintf(path, sizeof path, "%s/w.out", g_dir);
    sb_err e = {0};
    sb_worker_log l;
    /* small output: whole, no note */
    CHECK(sb_worker_log_start(&l, path, 4096, &e) == SB_OK);
    write_pattern(l.fifo, 1000);
    sb_worker_log_finish(&l);
    struct stat st;
    CHECK(stat(path, &st) == 0 && st.st_size == 1000);
    CHECK(l.bytes == 1000 && !l.nospace);
    CHECK(access(l.fifo, F_OK) != 0); /* the FIFO is gone */
    /* 3 MiB through a 64 KiB cap: the first and last 32 KiB, a note between */
    size_t n = (size_t)3 << 20, half = 32 << 10;
    CHECK(sb_worker_log_start(&l, path, 64 << 10, &e) == SB_OK);
    write_pattern(l.fifo, n);
    sb_worker_log_finish(&l);
    CHECK(l.bytes == (long long)n);
    FILE *f = fopen(path, "rb");
    char *got = malloc(n);
    size_t len = f && got ? fread(got, 1, n, f) : 0;
    if (f) fclose(f);
    CHECKF(len > 2 * half && len < 2 * half + 300, "kept %zu bytes", len);
    int head_ok = 1, tail_ok = 1;
    for (size_t i = 0; i < half && len > 2 * half; i++) {
        head_ok &= got[i] == pattern_at(i);
        tail_ok &= got[len - half + i] == pattern_at(n - half + i);
    }
    CHECK(head_ok);
    CHECK(tail_ok);
    char note[200];
    snprintf(note, sizeof note, "[sprbench: %zu bytes of the worker's output cut here",
             n - 2 * half);
    CHECK(len > 2 * half && memmem(got + half, len - 2 * half, note, strlen(note)) != NULL);
    free(got);
    unlink(path);
}

int main(void)
{
    snprintf(g_dir, sizeof g_dir, "/tmp/sb-pair-XXXXXX");
    CHECK(mkdtemp(g_dir) != NULL);
    test_pairing_round_trip();
    test_resolve();
    test_still();
    test_check_result();
    test_worker_log();
    rmdir(g_dir);
    return test_report("pair_run");
}
