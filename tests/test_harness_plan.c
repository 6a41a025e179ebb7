/* Plan parsing, validation and point expansion; reading a plan file (size
 * limit, NUL bytes) and the sb_io readers and writers every input and output
 * of the tool goes through (limits, symlinks, devices, failed writes). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "sb_io.h"
#include "sb_plan.h"
#include "testutil.h"

static void test_parse_and_expand(void)
{
    sb_plan p;
    sb_err e = {0};
    sb_plan_init(&p);
    const char *text = "# a plan\n\nworkload = gemm\nkernels = scalar-f32\n"
                       "threads = 1, 2\nshapes = 64x32x16, 8x8x8:NT  # comment\nreps = 6\n";
    CHECK(sb_plan_parse(&p, text, "t.plan", &e) == SB_OK);
    CHECK(sb_plan_finish(&p, 2, &e) == SB_OK);
    CHECK_EQ_INT(sb_plan_npoints(&p), 4);
    sb_plan_point pt;
    sb_plan_point_at(&p, 3, &pt);
    CHECK(!strcmp(pt.kernel, "scalar-f32"));
    CHECK_EQ_INT(pt.threads, 2);
    CHECK_EQ_INT(pt.shape->m, 8);
    CHECK(pt.shape->transb == 'T');
    sb_plan_point_at(&p, 0, &pt);
    CHECK_EQ_INT(pt.shape->m, 64);
    CHECK_EQ_INT(pt.threads, 1);
    /* render -> parse gives the same plan */
    char *r = sb_plan_render(&p);
    sb_plan q;
    sb_plan_init(&q);
    CHECK(sb_plan_parse(&q, r, "rendered", &e) == SB_OK);
    CHECK(sb_plan_finish(&q, 2, &e) == SB_OK);
    CHECK_EQ_INT(sb_plan_npoints(&q), 4);
    CHECK_EQ_INT(q.reps, 6);
    free(r);
    sb_plan_free(&q);
    sb_plan_free(&p);
}

static void expect_error(const char *text, const char *needle)
{
    sb_plan p;
    sb_err e = {0};
    sb_plan_init(&p);
    int rc = sb_plan_parse(&p, text, "bad.plan", &e);
    if (!rc) rc = sb_plan_finish(&p, 2, &e);
    CHECK_EQ_INT(rc, SB_EUSAGE);
    if (!strstr(e.msg, needle)) {
        fprintf(stderr, "message '%s' lacks '%s'\n", e.msg, needle);
        CHECK(0);
    }
    sb_plan_free(&p);
}

static void test_hostile(void)
{
    expect_error("kernels = avx512-f32; rm -rf /\n", "unknown kernel 'avx512-f32; rm -rf /'");
    expect_error("kernels = scalar-f32\nthreads = 0\n", "bad.plan:2");
    expect_error("shapes = 0x1x1\n", "out of range");
    expect_error("shapes = 99999999x1x1\n", "out of range");
    expect_error("shapes = 4x4\n", "is not MxNxK");
    expect_error("bogus = 1\n", "unknown key 'bogus'");
    expect_error("just words\n", "expected 'key = value'");
    expect_error("workload = gemm\nmodel = tiny\n", "does not apply");
    expect_error("workload = rm\n", "unknown workload");
    expect_error("label = a\x01" "b\n", "control characters");
    expect_error("nodes = 2\n", "hostfile");
}

/* Every workload's plan survives render -> parse (--resume reads it back). */
static void test_render_round_trip(void)
{
    static const char *const texts[] = {"workload = allreduce\nsizes = 4..1M\n",
                                        "workload = train\nkernels = scalar-f32\nmodel = tiny\n",
                                        "workload = gemm\nshapes = 8x8x8:TT\n"};
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        sb_plan p, q;
        sb_err e = {0};
        sb_plan_init(&p);
        sb_plan_init(&q);
        CHECK(sb_plan_parse(&p, texts[i], "t", &e) == SB_OK);
        CHECK(sb_plan_finish(&p, 2, &e) == SB_OK);
        char *r = sb_plan_render(&p);
        CHECK(sb_plan_parse(&q, r, "rendered", &e) == SB_OK);
        CHECK(sb_plan_finish(&q, 2, &e) == SB_OK);
        CHECK_EQ_INT(sb_plan_npoints(&q), sb_plan_npoints(&p));
        free(r);
        sb_plan_free(&p);
        sb_plan_free(&q);
    }
}

static void test_defaults(void)
{
    sb_plan p;
    sb_err e = {0};
    sb_plan_init(&p);
    CHECK(sb_plan_finish(&p, 2, &e) == SB_OK);
    CHECK(!strcmp(p.workload, "gemm"));
    CHECK_EQ_INT(p.nthreads, 2);
    CHECK_EQ_INT(p.nshapes, 4);
    CHECK(p.nkernels >= 1);
    CHECK_EQ_INT(p.shapes[2].m, 3072);
    CHECK_EQ_INT(p.shapes[2].n, 3072);
    CHECK_EQ_INT(p.shapes[2].k, 768);
    CHECK(p.shapes[0].transa == 'N' && p.shapes[0].transb == 'N');
    sb_plan_free(&p);
    /* `trans` applies to every shape without its own, wherever it stands */
    sb_plan_init(&p);
    CHECK(sb_plan_parse(&p, "trans = NT\nshapes = 4x4x4, 5x5x5:TN\n", "t", &e) == SB_OK);
    CHECK(sb_plan_finish(&p, 2, &e) == SB_OK);
    CHECK(p.shapes[0].transa == 'N' && p.shapes[0].transb == 'T');
    CHECK(p.shapes[1].transa == 'T' && p.shapes[1].transb == 'N');
    sb_plan_free(&p);
}

/* project-nodes: a node list, or 0 / none to turn the projection off; train only;
 * kept through render -> parse (a resumed sweep projects the same way). */
static void test_project_nodes(void)
{
    sb_plan p, q;
    sb_err e = {0};
    sb_plan_init(&p);
    CHECK(sb_plan_parse(&p, "workload = train\nkernels = scalar-f32\nthreads = 1\n"
                            "project-nodes = 1,2,8,64\n", "t", &e) == SB_OK);
    CHECK(sb_plan_finish(&p, 2, &e) == SB_OK);
    CHECK_EQ_INT(p.nproject_nodes, 4);
    CHECK_EQ_INT(p.project_nodes[3], 64);
    CHECK_EQ_INT(p.project_off, 0);
    char *r = sb_plan_render(&p);
    CHECK(strstr(r, "project-nodes = 1,2,8,64") != NULL);
    sb_plan_init(&q);
    CHECK(sb_plan_parse(&q, r, "rendered", &e) == SB_OK);
    CHECK_EQ_INT(q.nproject_nodes, 4);
    free(r);
    sb_plan_free(&q);
    for (int i = 0; i < 2; i++) {
        CHECK(sb_plan_set(&p, "project-nodes", i ? "none" : "0", "--project-nodes", &e) == SB_OK);
        CHECK_EQ_INT(p.project_off, 1);
        CHECK_EQ_INT(p.nproject_nodes, 0);
        r = sb_plan_render(&p);
        CHECK(strstr(r, "project-nodes = none") != NULL);
        sb_plan_init(&q);
        CHECK(sb_plan_parse(&q, r, "rendered", &e) == SB_OK);
        CHECK_EQ_INT(q.project_off, 1);
        free(r);
        sb_plan_free(&q);
    }
    sb_plan_free(&p);
    /* not given: the default (1, 2, 4, ... up to 4x the largest measured) */
    sb_plan_init(&p);
    CHECK(sb_plan_parse(&p, "workload = train\nkernels = scalar-f32\nthreads = 1\n", "t", &e) == SB_OK);
    CHECK(sb_plan_finish(&p, 2, &e) == SB_OK);
    CHECK(p.nproject_nodes == 0 && !p.project_off);
    r = sb_plan_render(&p);
    CHECK(strstr(r, "project-nodes") == NULL);
    free(r);
    sb_plan_free(&p);
    expect_error("workload = train\nproject-nodes = 1,x\n", "bad.plan:2");
    expect_error("workload = train\nproject-nodes = -4\n", "bad.plan:2");
    expect_error("workload = gemm\nproject-nodes = 1,2\n", "applies to workload train");
}

/* ------------------------------------------------ files: reading, writing */

static char g_dir[64];

static void path_in(char *buf, size_t cap, const char *name)
{
    snprintf(buf, cap, "%s/%s", g_dir, name);
}

static void put_file(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (!f) return;
    CHECK(fwrite(data, 1, len, f) == len);
    CHECK(fclose(f) == 0);
}

static char *get_file(const char *path)
{
    char *d = NULL;
    sb_err e = {0};
    if (sb_read_file_max(path, SB_MIB, "test file", &d, NULL, &e)) return NULL;
    return d;
}

/* Entries in dir whose name starts with prefix (temp files left behind). */
static int count_entries(const char *dir, const char *prefix)
{
    DIR *d = opendir(dir);
    if (!d) return -1;
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d)))
        if (!strncmp(de->d_name, prefix, strlen(prefix))) n++;
    closedir(d);
    return n;
}

static void expect_msg(const sb_err *e, const char *needle)
{
    CHECKF(strstr(e->msg, needle) != NULL, "message '%s' lacks '%s'", e->msg, needle);
}

static void test_plan_file(void)
{
    char path[256];
    path_in(path, sizeof path, "t.plan");
    sb_err e = {0};
    sb_plan p;

    const char good[] = "kernels = scalar-f32\nthreads = 1\nshapes = 8x8x8\n";
    put_file(path, good, sizeof good - 1);
    sb_plan_init(&p);
    CHECK_EQ_INT(sb_plan_read_file(&p, path, &e), SB_OK);
    CHECK_EQ_INT(p.nkernels, 1);
    CHECK_EQ_INT(p.nshapes, 1);
    sb_plan_free(&p);

    /* A NUL used to end the plan silently (the default plan then ran). */
    const char nul[] = "kernels = scalar-f32\n\0threads = 99999\n";
    put_file(path, nul, sizeof nul - 1);
    sb_plan_init(&p);
    CHECK_EQ_INT(sb_plan_read_file(&p, path, &e), SB_EUSAGE);
    expect_msg(&e, "t.plan: NUL byte at offset 21");
    CHECK_EQ_INT(p.nkernels, 0);
    sb_plan_free(&p);

    /* Exactly at the limit is read (a long comment), one byte more is refused. */
    char *big = malloc(SB_PLAN_FILE_MAX + 1);
    CHECK(big != NULL);
    if (!big) return;
    memset(big, ' ', SB_PLAN_FILE_MAX + 1);
    big[0] = '#';
    memcpy(big + SB_PLAN_FILE_MAX - 21, "\nkernels = scalar-f32", 21);
    put_file(path, big, SB_PLAN_FILE_MAX);
    sb_plan_init(&p);
    CHECK_EQ_INT(sb_plan_read_file(&p, path, &e), SB_OK);
    CHECK_EQ_INT(p.nkernels, 1);
    sb_plan_free(&p);
    big[SB_PLAN_FILE_MAX] = '\n';
    put_file(path, big, SB_PLAN_FILE_MAX + 1);
    sb_plan_init(&p);
    CHECK_EQ_INT(sb_plan_read_file(&p, path, &e), SB_EUSAGE);
    expect_msg(&e, "larger than 1 MiB, the limit for a plan file");
    sb_plan_free(&p);
    free(big);

    /* A device that never ends, a directory, nothing. */
    sb_plan_init(&p);
    CHECK_EQ_INT(sb_plan_read_file(&p, "/dev/zero", &e), SB_EUSAGE);
    expect_msg(&e, "/dev/zero: larger than 1 MiB");
    CHECK_EQ_INT(sb_plan_read_file(&p, g_dir, &e), SB_EUSAGE);
    expect_msg(&e, "is a directory");
    CHECK_EQ_INT(sb_plan_read_file(&p, "/nonexistent/x.plan", &e), SB_EUSAGE);
    expect_msg(&e, "cannot open");
    sb_plan_free(&p);
}

static void test_read_limits(void)
{
    char path[256];
    path_in(path, sizeof path, "r.bin");
    sb_err e = {0};
    /* Larger than the first chunk (64 KiB), with NULs: a binary read keeps them. */
    size_t n = 200000;
    unsigned char *data = malloc(n);
    CHECK(data != NULL);
    if (!data) return;
    for (size_t i = 0; i < n; i++) data[i] = (unsigned char)(i * 7);
    put_file(path, data, n);
    char *got = NULL;
    size_t len = 0;
    CHECK_EQ_INT(sb_read_file_max(path, n, "blob", &got, &len, &e), SB_OK);
    CHECK_EQ_INT(len, n);
    CHECK(got && !memcmp(got, data, n) && got[n] == '\0');
    free(got);
    CHECK_EQ_INT(sb_read_file_max(path, n - 1, "blob", &got, &len, &e), SB_EUSAGE);
    CHECK(got == NULL);
    expect_msg(&e, "larger than 199999 bytes, the limit for a blob");
    CHECK_EQ_INT(sb_read_text_max(path, n, "text", &got, &len, &e), SB_EUSAGE);
    expect_msg(&e, "NUL byte at offset 0: a text is text");
    free(data);
    /* A FIFO reports st_size 0 and never ends while a writer keeps it open:
     * /dev/zero stands for it here. */
    CHECK_EQ_INT(sb_read_file_max("/dev/zero", 100 * SB_KIB, "x", &got, &len, &e), SB_EUSAGE);
    expect_msg(&e, "larger than 100 KiB");
}

static void test_write_symlinks(void)
{
    char sub[256], target[256], link[256], link2[256], dangling[256], made[256];
    path_in(sub, sizeof sub, "out");
    CHECK(mkdir(sub, 0755) == 0);
    path_in(target, sizeof target, "out/target.json");
    path_in(link, sizeof link, "link.json");
    path_in(link2, sizeof link2, "link2.json");
    path_in(dangling, sizeof dangling, "dangling.json");
    path_in(made, sizeof made, "out/made.json");
    put_file(target, "old\n", 4);
    CHECK(chmod(target, 0640) == 0);
    CHECK(symlink("out/target.json", link) == 0);     /* relative to the link's directory */
    CHECK(symlink(link, link2) == 0);                  /* a chain, absolute */
    CHECK(symlink("out/made.json", dangling) == 0);
    sb_err e = {0};

    CHECK_EQ_INT(sb_write_file_atomic(link2, "new\n", 4, &e), SB_OK);
    struct stat st;
    CHECK(lstat(link, &st) == 0 && S_ISLNK(st.st_mode));
    CHECK(lstat(link2, &st) == 0 && S_ISLNK(st.st_mode));
    CHECK(lstat(target, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0777) == 0640);
    char *got = get_file(target);
    CHECK(got && !strcmp(got, "new\n"));
    free(got);

    /* A dangling link creates its target, as a shell's > does. */
    CHECK_EQ_INT(sb_write_file_atomic(dangling, "x", 1, &e), SB_OK);
    CHECK(lstat(dangling, &st) == 0 && S_ISLNK(st.st_mode));
    got = get_file(made);
    CHECK(got && !strcmp(got, "x"));
    free(got);

    /* A link loop and a directory are refused, naming the path. */
    char loop[256];
    path_in(loop, sizeof loop, "loop");
    CHECK(symlink("loop", loop) == 0);
    CHECK_EQ_INT(sb_write_file_atomic(loop, "x", 1, &e), SB_EUSAGE);
    expect_msg(&e, "loop: cannot write");
    CHECK_EQ_INT(sb_write_file_atomic(sub, "x", 1, &e), SB_EUSAGE);
    expect_msg(&e, "is a directory");
    CHECK_EQ_INT(count_entries(g_dir, "link"), 2);
    CHECK_EQ_INT(count_entries(sub, "target.json.tmp"), 0);
}

/* As root a regression (rename over the target) would replace the machine's
 * /dev/full and /dev/null: root writes to private nodes with the same numbers
 * made in the test directory. Elsewhere /dev cannot be replaced. 0: no
 * usable nodes (a nodev mount), the checks are skipped. */
static int device_paths(char *full, char *null, size_t cap)
{
    if (geteuid() != 0) {
        snprintf(full, cap, "/dev/full");
        snprintf(null, cap, "/dev/null");
        return 1;
    }
    path_in(full, cap, "full");
    path_in(null, cap, "null");
    if (mknod(full, S_IFCHR | 0666, makedev(1, 7)) || mknod(null, S_IFCHR | 0666, makedev(1, 3)))
        return 0;
    int fd = open(full, O_WRONLY);
    if (fd < 0) return 0;
    close(fd);
    return 1;
}

static void test_write_devices(void)
{
    char full[256], null[256];
    if (!device_paths(full, null, sizeof full)) {
        printf("device nodes cannot be made or opened here: device checks skipped\n");
        return;
    }
    const char *dir = geteuid() == 0 ? g_dir : "/dev";
    sb_err e = {0};
    /* Written in place, never replaced. */
    CHECK_EQ_INT(sb_write_file_atomic(null, "x", 1, &e), SB_OK);
    struct stat st;
    CHECK(stat(null, &st) == 0 && S_ISCHR(st.st_mode));
    CHECK_EQ_INT(sb_write_file_atomic(full, "x", 1, &e), SB_EFAIL);
    expect_msg(&e, "full: write failed: ");
    expect_msg(&e, strerror(ENOSPC));
    CHECK(stat(full, &st) == 0 && S_ISCHR(st.st_mode));
    CHECK_EQ_INT(count_entries(dir, "full.tmp"), 0);
    CHECK_EQ_INT(count_entries(dir, "null.tmp"), 0);

    /* Streaming: a write after a failed one is refused, commit too. */
    sb_out o;
    CHECK_EQ_INT(sb_out_open(&o, full, &e), SB_OK);
    CHECK(o.in_place);
    CHECK_EQ_INT(sb_out_write(&o, "abc", 3, &e), SB_EFAIL);
    CHECK_EQ_INT(sb_out_write(&o, "abc", 3, &e), SB_EFAIL);
    CHECK_EQ_INT(sb_out_commit(&o, &e), SB_EFAIL);
    sb_out_abort(&o);   /* twice is harmless */
    CHECK(stat("/dev/full", &st) == 0 && S_ISCHR(st.st_mode));
    CHECK(stat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode));
}

/* A write that fails half way (the file size limit stands in for a full
 * disk) leaves the old target whole and no temp file. */
static void test_write_failure_keeps_old(void)
{
    char path[256];
    path_in(path, sizeof path, "keep.json");
    put_file(path, "precious\n", 9);
    sb_err e = {0};
    struct rlimit old, small = {.rlim_cur = 4096, .rlim_max = 0};
    CHECK(getrlimit(RLIMIT_FSIZE, &old) == 0);
    small.rlim_max = old.rlim_max;
    void (*prev)(int) = signal(SIGXFSZ, SIG_IGN);   /* EFBIG instead of a signal */
    CHECK(setrlimit(RLIMIT_FSIZE, &small) == 0);
    size_t n = 64 * 1024;
    char *big = malloc(n);
    CHECK(big != NULL);
    if (big) {
        memset(big, 'z', n);
        CHECK_EQ_INT(sb_write_file_atomic(path, big, n, &e), SB_EFAIL);
        expect_msg(&e, "keep.json: write failed: ");
        expect_msg(&e, strerror(EFBIG));
    }
    CHECK(setrlimit(RLIMIT_FSIZE, &old) == 0);
    signal(SIGXFSZ, prev);
    free(big);
    char *got = get_file(path);
    CHECK(got && !strcmp(got, "precious\n"));
    free(got);
    CHECK_EQ_INT(count_entries(g_dir, "keep.json"), 1);

    /* Aborting a stream leaves the old content too. */
    sb_out o;
    CHECK_EQ_INT(sb_out_open(&o, path, &e), SB_OK);
    CHECK_EQ_INT(sb_out_write(&o, "half", 4, &e), SB_OK);
    sb_out_abort(&o);
    got = get_file(path);
    CHECK(got && !strcmp(got, "precious\n"));
    free(got);
    CHECK_EQ_INT(count_entries(g_dir, "keep.json"), 1);
    CHECK_EQ_INT(sb_write_file_atomic("/nonexistent/dir/x.json", "x", 1, &e), SB_EUSAGE);
    expect_msg(&e, "/nonexistent/dir/x.json: cannot write: ");
}

static void remove_tree(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *de;
    char p[512];
    while ((de = readdir(d))) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..")) continue;
        snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
        struct stat st;
        if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode)) remove_tree(p);
        else unlink(p);
    }
    closedir(d);
    rmdir(dir);
}

int main(void)
{
    test_project_nodes();
    test_parse_and_expand();
    test_hostile();
    test_defaults();
    test_render_round_trip();
    snprintf(g_dir, sizeof g_dir, "/tmp/sb-plan-XXXXXX");
    CHECK(mkdtemp(g_dir) != NULL);
    test_plan_file();
    test_read_limits();
    test_write_symlinks();
    test_write_devices();
    test_write_failure_keeps_old();
    remove_tree(g_dir);
    return test_report("plan");
}
