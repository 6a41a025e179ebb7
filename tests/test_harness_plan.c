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
#include "sb_result.h"
#include "sb_cli.h"
#include "sb_envdiff.h"
#include "sb_io.h"
#include "sb_db.h"
#include "sb_plan.h"
#include "sb_point.h"
#include "sb_workload.h"
#include "sb_text.h"
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
    CHECK(pt.axis && !strcmp(pt.axis, "8x8x8:NT")); /* the axis value, as the store keeps it */
    sb_plan_point_at(&p, 0, &pt);
    CHECK(pt.axis && !strcmp(pt.axis, "64x32x16:NN"));
    CHECK_EQ_INT(pt.threads, 1);
    CHECK(p.naxis == 2 && !strcmp(p.axis_key, "shapes"));
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
    expect_error("label = a\x01"
                 "b\n",
                 "control characters");
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

/* batch is a list (train and infer): a point per batch, kernel-major, kept
 * through render -> parse; infer states its default (32); quant (infer: row
 * or tensor) is checked when it is read. */
static void test_batches_and_quant(void)
{
    sb_plan p, q;
    sb_err e = {0};
    sb_plan_init(&p);
    CHECK(sb_plan_parse(&p,
                        "workload = infer\nkernels = scalar-f32, vnni-int8\nbatch = 1, 32\n"
                        "threads = 1,2\nquant = tensor\nmodel = tiny\n",
                        "t", &e) == SB_OK);
    CHECK(sb_plan_finish(&p, 2, &e) == SB_OK);
    CHECK(p.naxis == 2 && !strcmp(p.axis_key, "batch"));
    CHECK_EQ_INT(sb_plan_npoints(&p), 8);
    static const struct {
        int kernel, batch, threads;
    } want[] = {{0, 1, 1}, {0, 1, 2}, {0, 32, 1}, {0, 32, 2},
                {1, 1, 1}, {1, 1, 2}, {1, 32, 1}, {1, 32, 2}};
    for (int i = 0; i < 8; i++) {
        sb_plan_point pt;
        sb_plan_point_at(&p, i, &pt);
        CHECKF(!strcmp(pt.kernel, want[i].kernel ? "vnni-int8" : "scalar-f32") &&
                   pt.axis && atoi(pt.axis) == want[i].batch && pt.threads == want[i].threads,
               "point %d: %s batch %s threads %d", i, pt.kernel, pt.axis ? pt.axis : "-",
               pt.threads);
    }
    char *r = sb_plan_render(&p);
    CHECKF(strstr(r, "batch = 1,32\n") && strstr(r, "quant = tensor\n"), "rendered: %s", r);
    sb_plan_init(&q);
    CHECK(sb_plan_parse(&q, r, "rendered", &e) == SB_OK);
    CHECK(sb_plan_finish(&q, 2, &e) == SB_OK);
    CHECK_EQ_INT(sb_plan_npoints(&q), 8);
    CHECK(q.naxis == 2 && !strcmp(q.axis[1], "32"));
    free(r);
    sb_plan_free(&q);
    sb_plan_free(&p);
    /* infer without a batch: the worker's default, stated (it names the points) */
    sb_plan_init(&p);
    CHECK(sb_plan_parse(&p, "workload = infer\nkernels = scalar-f32\n", "t", &e) == SB_OK);
    CHECK(sb_plan_finish(&p, 2, &e) == SB_OK);
    CHECK(p.naxis == 1 && !strcmp(p.axis[0], "32"));
    sb_plan_point pt;
    sb_plan_point_at(&p, 0, &pt);
    CHECK(pt.axis && !strcmp(pt.axis, "32"));
    sb_plan_free(&p);
    /* train takes a list too; without one its points name no batch */
    sb_plan_init(&p);
    CHECK(sb_plan_parse(&p, "workload = train\nkernels = scalar-f32\nbatch = 4,8\nthreads = 1\n",
                        "t", &e) == SB_OK);
    CHECK(sb_plan_finish(&p, 2, &e) == SB_OK);
    CHECK_EQ_INT(sb_plan_npoints(&p), 2);
    sb_plan_point_at(&p, 1, &pt);
    CHECK(pt.axis && !strcmp(pt.axis, "8"));
    sb_plan_free(&p);
    sb_plan_init(&p);
    CHECK(sb_plan_parse(&p, "workload = train\nkernels = scalar-f32\nthreads = 1\n", "t", &e) ==
          SB_OK);
    CHECK(sb_plan_finish(&p, 2, &e) == SB_OK);
    sb_plan_point_at(&p, 0, &pt);
    CHECK(p.naxis == 0 && !p.axis_key && !pt.axis);
    sb_plan_free(&p);
    /* flags say it as flags */
    sb_plan_init(&p);
    CHECK_EQ_INT(sb_plan_set(&p, "batch", "1,,2", "--batch", &e), SB_EUSAGE);
    CHECKF(!strcmp(e.msg, "--batch: empty item 2 of 3 in '1,,2'"), "got '%s'", e.msg);
    CHECK_EQ_INT(sb_plan_set(&p, "batch", "0", "--batch", &e), SB_EUSAGE);
    CHECKF(!strcmp(e.msg, "--batch: 0 is out of range [1, 65536]"), "got '%s'", e.msg);
    CHECK_EQ_INT(sb_plan_set(&p, "quant", "col", "--quant", &e), SB_EUSAGE);
    CHECKF(!strcmp(e.msg, "--quant: quant 'col' is not row, tensor, row7 or tensor7"), "got '%s'",
           e.msg);
    CHECK_EQ_INT(sb_plan_set(&p, "quant", "row", "--quant", &e), SB_OK);
    sb_plan_free(&p);
    expect_error("workload = infer\nbatch = 1,,2\n", "bad.plan:2: batch: empty item 2 of 3");
    expect_error("workload = infer\nbatch = 1, 0\n", "bad.plan:2: batch: 0 is out of range");
    expect_error("workload = infer\nbatch = 8, 8\n", "bad.plan:2: batch: 8 is listed twice");
    expect_error("workload = infer\nbatch = 70000\n", "out of range [1, 65536]");
    expect_error("workload = gemm\nbatch = 8\n", "option 'batch' does not apply to workload gemm");
    expect_error("workload = allreduce\nbatch = 8\n", "does not apply to workload allreduce");
    expect_error("workload = infer\nquant = foo\n",
                 "bad.plan:2: quant 'foo' is not row, tensor, row7 or tensor7");
    expect_error("workload = infer\nquant = \n", "bad.plan:2: 'quant' has no value");
    expect_error("workload = train\nquant = row\n",
                 "option 'quant' does not apply to workload train");
}

static void test_defaults(void)
{
    sb_plan p;
    sb_err e = {0};
    sb_plan_init(&p);
    CHECK(sb_plan_finish(&p, 2, &e) == SB_OK);
    CHECK(p.wl && !strcmp(p.wl->name, "gemm") && p.wl == sb_workload_find("gemm"));
    CHECK_EQ_INT(p.nthreads, 2);
    /* a square, then DistilBERT's linear layers at 8 x 384 tokens
     * (bench/distilbert/sb_shapes), NN whatever `trans` says */
    CHECK_EQ_INT(p.naxis, 4);
    CHECK(p.nkernels >= 1);
    static const char *const dflt[] = {"1024x1024x1024:NN", "3072x768x768:NN", "3072x3072x768:NN",
                                       "3072x768x3072:NN"};
    for (int i = 0; i < 4 && i < p.naxis; i++)
        CHECKF(!strcmp(p.axis[i], dflt[i]), "default shape %d: %s", i, p.axis[i]);
    sb_plan_free(&p);
    sb_plan_init(&p);
    CHECK(sb_plan_parse(&p, "trans = TT\n", "t", &e) == SB_OK);
    CHECK(sb_plan_finish(&p, 2, &e) == SB_OK);
    CHECK(p.naxis == 4 && !strcmp(p.axis[3], "3072x768x3072:NN"));
    sb_plan_free(&p);
    /* `trans` applies to every shape without its own, wherever it stands */
    sb_plan_init(&p);
    CHECK(sb_plan_parse(&p, "trans = NT\nshapes = 4x4x4, 5x5x5:TN\n", "t", &e) == SB_OK);
    CHECK(sb_plan_finish(&p, 2, &e) == SB_OK);
    CHECK(p.naxis == 2 && !strcmp(p.axis[0], "4x4x4:NT") && !strcmp(p.axis[1], "5x5x5:TN"));
    sb_plan_free(&p);
}

/* project-nodes: a node list, or 0 / none to turn the projection off; train only;
 * kept through render -> parse (a resumed sweep projects the same way). */
static void test_project_nodes(void)
{
    sb_plan p, q;
    sb_err e = {0};
    sb_plan_init(&p);
    CHECK(sb_plan_parse(&p,
                        "workload = train\nkernels = scalar-f32\nthreads = 1\n"
                        "project-nodes = 1,2,8,64\n",
                        "t", &e) == SB_OK);
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
    CHECK(sb_plan_parse(&p, "workload = train\nkernels = scalar-f32\nthreads = 1\n", "t", &e) ==
          SB_OK);
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
    CHECK(p.given_shapes && !strcmp(p.given_shapes, "8x8x8"));
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
    expect_msg(&e, "/dev/zero: is a character device, not a regular file");
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
    /* Not a regular file: a device that never ends, and a FIFO with no
     * writer (whose open used to wait forever), are refused at once. */
    CHECK_EQ_INT(sb_read_file_max("/dev/zero", 100 * SB_KIB, "x", &got, &len, &e), SB_EUSAGE);
    expect_msg(&e, "/dev/zero: is a character device, not a regular file");
    char fifo[256];
    snprintf(fifo, sizeof fifo, "%s/fifo", g_dir);
    CHECK(mkfifo(fifo, 0600) == 0);
    CHECK_EQ_INT(sb_read_file_max(fifo, 100 * SB_KIB, "x", &got, &len, &e), SB_EUSAGE);
    expect_msg(&e, "fifo: is a FIFO, not a regular file");
    unlink(fifo);
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
    CHECK(symlink("out/target.json", link) == 0); /* relative to the link's directory */
    CHECK(symlink(link, link2) == 0);             /* a chain, absolute */
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
    sb_out_abort(&o); /* twice is harmless */
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
    void (*prev)(int) = signal(SIGXFSZ, SIG_IGN); /* EFBIG instead of a signal */
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

/* ------------------------------------------------ errors that pass no more */

/* Lists: an empty item or an item given twice is an error, never dropped
 * or run twice; a plan key given twice is an error naming both lines; every
 * value passed on to a worker is range-checked when the plan is read. */
static void test_lists_and_keys(void)
{
    int v[8], n = -1;
    sb_err e = {0};
    CHECK_EQ_INT(sb_parse_int_list("1,2,4", 1, 64, "--threads", v, 8, &n, &e), SB_OK);
    CHECK_EQ_INT(n, 3);
    CHECK_EQ_INT(v[2], 4);
    CHECK_EQ_INT(sb_parse_int_list(" 1 , 2 ", 1, 64, "--threads", v, 8, &n, &e), SB_OK);
    CHECK_EQ_INT(n, 2);
    static const char *const bad[] = {"1,,2", "1,2,",  ",1",   "1, ,2", "",
                                      " ",    "1,2,1", "2,02", "1,x",   "0,1"};
    static const char *const why[] = {
        "empty item 2 of 3",  "empty item 3 of 3", "empty item 1 of 2", "empty item 2 of 3",
        "empty list",         "empty list",        "1 is listed twice", "2 is listed twice",
        "not a whole number", "out of range"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        n = -1;
        CHECK_EQ_INT(sb_parse_int_list(bad[i], 1, 64, "--threads", v, 8, &n, &e), SB_EUSAGE);
        CHECK_EQ_INT(n, 0);
        CHECKF(strstr(e.msg, why[i]) && !strncmp(e.msg, "--threads: ", 11),
               "'%s': message '%s' lacks '%s'", bad[i], e.msg, why[i]);
    }
    CHECK_EQ_INT(sb_parse_int_list("1,2,3", 1, 64, "--threads", v, 2, &n, &e), SB_EUSAGE);
    CHECK_EQ_INT(sb_check_list("a, b,c", "x", &e), SB_OK);
    CHECK_EQ_INT(sb_check_list("a,b, a", "x", &e), SB_EUSAGE);
    CHECK(strstr(e.msg, "'a' is listed twice") != NULL);
    CHECK_EQ_INT(sb_check_list("a,,b", "x", &e), SB_EUSAGE);

    expect_error("kernels = scalar-f32, scalar-f32\n",
                 "bad.plan:1: kernels: 'scalar-f32' is listed twice");
    expect_error("kernels = scalar-f32,\n", "bad.plan:1: kernels: empty item 2 of 2");
    expect_error("threads = 1,,2\n", "bad.plan:1: threads: empty item 2 of 3");
    expect_error("threads = 1,2,1\n", "bad.plan:1: threads: 1 is listed twice");
    expect_error("ppn = 2,2\n", "ppn: 2 is listed twice");
    expect_error("nodes = 1,,2\n", "nodes: empty item");
    expect_error("shapes = 8x8x8, 8X8X8\n", "'8X8X8' is listed twice");
    expect_error("shapes = 8x8x8:NT,4x4x4,8x8x8:NT\n", "is listed twice");
    expect_error("shapes = 8x8x8,,4x4x4\n", "empty item 2 of 3");
    /* the same point through `trans` */
    expect_error("trans = NT\nshapes = 8x8x8, 8x8x8:NT\n", "8x8x8:NT is listed twice");
    /* a key twice in a file: both lines named */
    expect_error("kernels = scalar-f32\nthreads = 1\n\n# x\nthreads = 2\n",
                 "bad.plan:5: key 'threads' given twice (first on line 2)");
    expect_error("workload = train\nbatch = 8\nbatch = 16\n",
                 "bad.plan:3: key 'batch' given twice");
    /* empty values are never defaults */
    expect_error("label =\n", "bad.plan:1: 'label' has no value");
    expect_error("workload = train\ninit =   # comment\n", "bad.plan:2: 'init' has no value");
    expect_error("hostfile = \n", "'hostfile' has no value");
    /* worker options, checked at parse time with the worker's own ranges */
    expect_error("workload = train\nbatch = -1\n",
                 "bad.plan:2: batch: -1 is out of range [1, 65536]");
    expect_error("workload = train\nbatch = 0\n", "out of range");
    expect_error("workload = train\nseq = 4\n", "seq: 4 is out of range");
    expect_error("workload = train\nlr = fast\n", "lr: 'fast' is not a number");
    expect_error("workload = train\ndropout = 1.5\n", "out of range");
    expect_error("workload = train\nmax-steps = 0\n", "out of range");
    expect_error("workload = train\ncomm-threads = 99\n", "out of range");
    expect_error("workload = train\neval = maybe\n", "eval: 'maybe' is not 1/0");
    expect_error("workload = train\nmodel = huge\n", "is not distilbert-base, tiny or L,D,H,F");
    expect_error("workload = allreduce\niters = 0\n", "iters: 0 is out of range");
    expect_error("workload = allreduce\nsizes = 4,,8\n", "sizes: empty item 2 of 3");
    expect_error("workload = allreduce\nsizes = 64K,64K\n", "'64K' is listed twice");
    expect_error("workload = allreduce\nsizes = 64..8\n", "reversed");
    /* the worker's cross-checks, made before any point runs */
    expect_error("workload = train\nmax-steps = 5\ntime-budget = 9\n", "exclude each other");
    expect_error("workload = train\ntrain = t.json\n", "train needs vocab");
    expect_error("workload = train\nseq = 64\nstride = 32\n",
                 "stride 32 must be below half of seq 64");
    /* each row's own (bench/sb_workload's hooks): infer checks the windows too */
    expect_error("workload = infer\nseq = 64\nstride = 40\n",
                 "stride 40 must be below half of seq 64");
    expect_error("workload = infer\nquant = foo\n", "quant 'foo' is not row, tensor");
    expect_error("workload = infer\nattention = bf16\n", "attention 'bf16' is not f32 or int8");
    /* another row's options are not its checks: they do not apply */
    expect_error("workload = gemm\nmax-steps = 5\ntime-budget = 9\n",
                 "option 'max-steps' does not apply to workload gemm");

    /* what is valid still is */
    sb_plan p;
    sb_plan_init(&p);
    CHECK_EQ_INT(sb_plan_parse(&p,
                               "workload = train\nkernels = scalar-f32\nbatch = 8\nseq = 64\n"
                               "stride = 16\nmodel = 2,64,4,256\neval = yes\nlr = 1e-3\n",
                               "ok.plan", &e),
                 SB_OK);
    CHECK_EQ_INT(sb_plan_finish(&p, 2, &e), SB_OK);
    sb_plan_free(&p);
    /* flags given beside a file override its keys (not duplicates) */
    sb_plan_init(&p);
    CHECK_EQ_INT(sb_plan_parse(&p, "threads = 1\n", "f", &e), SB_OK);
    CHECK_EQ_INT(sb_plan_set(&p, "threads", "2,4", "--threads", &e), SB_OK);
    CHECK_EQ_INT(p.nthreads, 2);
    /* as a flag the message names the flag once */
    CHECK_EQ_INT(sb_plan_set(&p, "threads", "2,,4", "--threads", &e), SB_EUSAGE);
    CHECKF(!strcmp(e.msg, "--threads: empty item 2 of 3 in '2,,4'"), "got '%s'", e.msg);
    CHECK_EQ_INT(sb_plan_set(&p, "label", "", "--label", &e), SB_EUSAGE);
    CHECKF(!strcmp(e.msg, "--label: empty value"), "got '%s'", e.msg);
    sb_plan_free(&p);

    /* one table for the plan and the workers */
    long lv;
    double dv;
    CHECK_EQ_INT(sb_worker_opt_long("batch", "65536", "--batch", &lv, &e), SB_OK);
    CHECK_EQ_INT(sb_worker_opt_long("batch", "65537", "--batch", &lv, &e), SB_EUSAGE);
    CHECK(strstr(e.msg, "--batch: 65537 is out of range") != NULL);
    CHECK_EQ_INT(sb_worker_opt_double("lr", "10", "--lr", &dv, &e), SB_OK);
    CHECK_EQ_INT(sb_worker_opt_long("lr", "1", "--lr", &lv, &e),
                 SB_EFAIL); /* not an integer option */
}

/* Inputs a sweep's workers would read are looked at before the sweep runs. */
static void test_plan_inputs(void)
{
    char vocab[256], text[600];
    path_in(vocab, sizeof vocab, "vocab.txt");
    put_file(vocab, "[PAD]\n", 6);
    sb_err e = {0};
    sb_plan p;
    snprintf(text, sizeof text, "workload = train\nvocab = %s\ninit = %s\n", vocab, g_dir);
    sb_plan_init(&p);
    CHECK_EQ_INT(sb_plan_parse(&p, text, "t", &e), SB_OK);
    CHECK_EQ_INT(sb_plan_check_inputs(&p, &e), SB_OK);
    sb_plan_free(&p);
    snprintf(text, sizeof text, "workload = train\nvocab = %s/missing.txt\n", g_dir);
    sb_plan_init(&p);
    CHECK_EQ_INT(sb_plan_parse(&p, text, "t", &e), SB_OK);
    CHECK_EQ_INT(sb_plan_check_inputs(&p, &e), SB_EUSAGE);
    expect_msg(&e, "missing.txt: cannot read (vocab): No such file or directory");
    sb_plan_free(&p);
    snprintf(text, sizeof text, "workload = train\ninit = %s\n", vocab); /* a file, not a dir */
    sb_plan_init(&p);
    CHECK_EQ_INT(sb_plan_parse(&p, text, "t", &e), SB_OK);
    CHECK_EQ_INT(sb_plan_check_inputs(&p, &e), SB_EUSAGE);
    expect_msg(&e, "cannot read (init): not a directory");
    sb_plan_free(&p);
    unlink(vocab);
}

/* ------------------------------------------------ checks before the work */

static void test_out_checks(void)
{
    sb_err e = {0};
    char path[600], sub[512], file[512], link[512];
    CHECK_EQ_INT(sb_cli_check_path("--init", "", &e), SB_EUSAGE);
    CHECKF(!strcmp(e.msg, "--init: empty path"), "got '%s'", e.msg);
    CHECK_EQ_INT(sb_cli_check_out_file("--result-file", "", &e), SB_EUSAGE);
    CHECK_EQ_INT(sb_cli_check_out_dir("--out", "", 1, &e), SB_EUSAGE);

    /* files: the directory that will hold them must exist */
    path_in(path, sizeof path, "r.json");
    CHECK_EQ_INT(sb_cli_check_out_file("--result-file", path, &e), SB_OK);
    path_in(path, sizeof path, "no/such/r.json");
    CHECK_EQ_INT(sb_cli_check_out_file("--result-file", path, &e), SB_EUSAGE);
    expect_msg(&e, "no/such/r.json: cannot write (--result-file): directory ");
    expect_msg(&e, "/no/such does not exist");
    CHECK_EQ_INT(sb_cli_check_out_file("--out", g_dir, &e), SB_EUSAGE);
    expect_msg(&e, ": cannot write (--out): is a directory");
    path_in(file, sizeof file, "plain");
    put_file(file, "x", 1);
    snprintf(path, sizeof path, "%s/r.json", file); /* below a regular file */
    CHECK_EQ_INT(sb_cli_check_out_file("--junit", path, &e), SB_EUSAGE);
    expect_msg(&e, "plain/r.json: cannot write (--junit): Not a directory");
    /* a symlink is judged by its target's directory, as sb_out writes it */
    path_in(link, sizeof link, "dangling");
    CHECK(symlink("no/such/target.json", link) == 0);
    CHECK_EQ_INT(sb_cli_check_out_file("--result-file", link, &e), SB_EUSAGE);
    expect_msg(&e, "/no/such does not exist");
    path_in(link, sizeof link, "good-link");
    CHECK(symlink("new-target.json", link) == 0);
    CHECK_EQ_INT(sb_cli_check_out_file("--result-file", link, &e), SB_OK);
    /* nothing was created by checking */
    CHECK_EQ_INT(count_entries(g_dir, "new-target"), 0);
    CHECK_EQ_INT(count_entries(g_dir, "r.json"), 0);

    /* directories: an existing one, or only its last component missing */
    CHECK_EQ_INT(sb_cli_check_out_dir("--out", g_dir, 0, &e), SB_OK);
    path_in(sub, sizeof sub, "newdir/");
    CHECK_EQ_INT(sb_cli_check_out_dir("--out", sub, 1, &e), SB_OK);
    CHECK_EQ_INT(sb_cli_check_out_dir("--out", sub, 0, &e), SB_EUSAGE);
    expect_msg(&e, "no such directory (--out)");
    path_in(sub, sizeof sub, "newdir/deeper");
    CHECK_EQ_INT(sb_cli_check_out_dir("--plots", sub, 1, &e), SB_EUSAGE);
    expect_msg(&e, "newdir/deeper: cannot create directory (--plots): parent directory ");
    expect_msg(&e, "/newdir does not exist");
    CHECK_EQ_INT(count_entries(g_dir, "newdir"), 0);
    CHECK_EQ_INT(sb_cli_check_out_dir("--save", file, 1, &e), SB_EUSAGE);
    expect_msg(&e, "plain: cannot write into it (--save): not a directory");
    unlink(file);
    path_in(link, sizeof link, "dangling");
    unlink(link);
    path_in(link, sizeof link, "good-link");
    unlink(link);
}

/* One line whatever the message holds. */
static void test_one_line(void)
{
    char msg[] = "a\nb\rc\033[2Jd\te\x7f"
                 "f\xc2\x9b"
                 "g\xc3\xa9h";
    sb_text_one_line(msg);
    CHECKF(!strcmp(msg, "a?b?c?[2Jd e?f?g\xc3\xa9h"), "got '%s'", msg);

    /* sb_cli_report and sb_cli_usage_error through a pipe: one line each */
    int fds[2];
    CHECK(pipe(fds) == 0);
    int saved = dup(2);
    dup2(fds[1], 2);
    sb_err e = {0};
    sb_errf(&e, SB_EUSAGE, "x\ny\r\033]0;title\007z");
    CHECK_EQ_INT(sb_cli_report("t", &e), SB_EUSAGE);
    CHECK_EQ_INT(sb_cli_usage_error("t", "%s", "1\n2\n3"), SB_EUSAGE);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    close(fds[1]);
    char buf[512] = "";
    ssize_t n = read(fds[0], buf, sizeof buf - 1);
    close(fds[0]);
    buf[n > 0 ? n : 0] = '\0';
    CHECKF(!strcmp(buf, "sprbench t: x?y??]0;title?z\nsprbench t: 1?2?3\n"), "got '%s'", buf);
}

/* ------------------------------------------------ the environment recorded */

static void test_env_json(void)
{
    setenv("ONEDNN_MAX_CPU_ISA", "SSE41", 1);
    setenv("SB_TEST_ENV_B", "b", 1);
    setenv("SB_TEST_ENV_A",
           "bad\xff"
           "utf8",
           1);
    setenv("GLIBC_TUNABLES", "glibc.malloc.hugetlb=1", 1);
    setenv("NOT_RECORDED_X", "1", 1);
    setenv("OMPI_MCA_btl", "self", 1); /* OMP_ is not OMPI_ */
    char big[SB_ENV_VALUE_MAX + 100];
    memset(big, 'v', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    setenv("MKL_TEST_BIG", big, 1);
    json_t *env = sb_env_json();
    CHECK(json_is_object(env));
    CHECK(!strcmp(json_string_value(json_object_get(env, "ONEDNN_MAX_CPU_ISA")), "SSE41"));
    CHECK(!strcmp(json_string_value(json_object_get(env, "GLIBC_TUNABLES")),
                  "glibc.malloc.hugetlb=1"));
    CHECK(!strcmp(json_string_value(json_object_get(env, "SB_TEST_ENV_A")), "bad?utf8"));
    CHECK(json_object_get(env, "NOT_RECORDED_X") == NULL);
    CHECK(json_object_get(env, "OMPI_MCA_btl") == NULL);
    const char *bigv = json_string_value(json_object_get(env, "MKL_TEST_BIG"));
    CHECK(bigv && strlen(bigv) == SB_ENV_VALUE_MAX + 3 && !strcmp(bigv + SB_ENV_VALUE_MAX, "..."));
    /* sorted by name */
    const char *k, *prev = "";
    json_t *v;
    int sorted = 1;
    json_object_foreach(env, k, v)
    {
        if (strcmp(prev, k) >= 0) sorted = 0;
        prev = k;
    }
    char *dump = json_dumps(env, JSON_PRESERVE_ORDER);
    CHECK(dump && strstr(dump, "\"SB_TEST_ENV_A\"") < strstr(dump, "\"SB_TEST_ENV_B\""));
    free(dump);
    CHECK(sorted);
    json_decref(env);
    /* what a run sets itself replaces the environment's value */
    const char *set[] = {"ONEDNN_MAX_CPU_ISA=AVX2", "OMP_NUM_THREADS=3", NULL};
    env = sb_env_json_effective(set);
    CHECK(!strcmp(json_string_value(json_object_get(env, "ONEDNN_MAX_CPU_ISA")), "AVX2"));
    CHECK(!strcmp(json_string_value(json_object_get(env, "OMP_NUM_THREADS")), "3"));
    json_decref(env);
    CHECK(sb_env_recorded("LD_PRELOAD") && sb_env_recorded("KMP_AFFINITY") &&
          sb_env_recorded("DNNL_VERBOSE") && sb_env_recorded("MALLOC_ARENA_MAX") &&
          !sb_env_recorded("LD_LIBRARY_PATH") && !sb_env_recorded("PATH"));

    /* differences, as gate and report show them */
    json_t *a = json_pack("{s:s, s:s, s:s}", "OMP_NUM_THREADS", "2", "LD_PRELOAD", "x.so", "SB_X",
                          "same");
    json_t *b = json_pack("{s:s, s:s, s:s}", "OMP_NUM_THREADS", "2", "ONEDNN_MAX_CPU_ISA",
                          "SSE41\n", "SB_X", "same");
    char buf[512];
    CHECK_EQ_INT(sb_env_diff(a, b, buf, sizeof buf), 2);
    CHECKF(!strcmp(buf,
                   "LD_PRELOAD (baseline 'x.so', candidate unset), ONEDNN_MAX_CPU_ISA"
                   " (baseline unset, candidate 'SSE41?')"),
           "got '%s'", buf);
    CHECK_EQ_INT(sb_env_diff(a, a, buf, sizeof buf), 0);
    CHECK(!strcmp(buf, ""));
    sb_envdiffs d = {0};
    sb_envdiffs_add(&d, 1, a, 11, b, "k1");
    sb_envdiffs_add(&d, 1, a, 11, b, "k1"); /* the same pair again (another metric) */
    sb_envdiffs_add(&d, 2, a, 12, b, "k2");
    sb_envdiffs_add(&d, 3, a, 13, a, "k3");
    sb_envdiffs_add(&d, 4, NULL, 14, a, "k4");
    CHECK_EQ_INT(d.pairs, 4);
    CHECK_EQ_INT(sb_envdiffs_nlines(&d), 2);
    sb_envdiffs_line(&d, 0, buf, sizeof buf);
    CHECKF(strstr(buf, "differs in 2 of 4 compared point pair(s) (e.g. k1): LD_PRELOAD") ==
               buf + 12,
           "got '%s'", buf);
    sb_envdiffs_line(&d, 1, buf, sizeof buf);
    CHECK(strstr(buf, "not recorded for 1 of 4") != NULL);
    sb_envdiffs_free(&d);
    json_decref(a);
    json_decref(b);
    unsetenv("ONEDNN_MAX_CPU_ISA");
    unsetenv("SB_TEST_ENV_A");
    unsetenv("SB_TEST_ENV_B");
    unsetenv("GLIBC_TUNABLES");
    unsetenv("NOT_RECORDED_X");
    unsetenv("OMPI_MCA_btl");
    unsetenv("MKL_TEST_BIG");
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
        if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
            remove_tree(p);
        else
            unlink(p);
    }
    closedir(d);
    rmdir(dir);
}

/* The workload rows (bench/sb_workload) are what the plan, the sweep and the
 * store read: every option a row passes on has a range or kind, the series
 * keys are options of the row, the store knows every row, and the plan's
 * refusals name the table's workloads and follow the rows' flags. */
static void test_workload_rows(void)
{
    sb_err e = {0};
    char names[200];
    sb_workload_plan_names(names, sizeof names);
    CHECKF(strstr(names, "gemm") == names, "plan names '%s' start with the default", names);
    for (int i = 0; i < sb_workload_count(); i++) {
        const sb_workload *w = sb_workload_at(i);
        CHECKF(sb_workload_find(w->name) == w, "%s is found by name", w->name);
        CHECKF(sb_db_workload_known(w->name), "the store knows %s", w->name);
        CHECKF(w->title && w->title[0] && w->timeout_s > 0, "%s has a title and a timeout",
               w->name);
        CHECKF(!(w->flags & SB_WL_PLAN) == !strstr(names, w->name), "%s named iff planned",
               w->name);
        CHECKF(!w->metric == !w->unit, "%s: a headline metric has a unit", w->name);
        for (const char *const *o = w->opts; *o; o++)
            CHECKF(sb_wopt_find(*o) != NULL, "%s option %s has a range or kind", w->name, *o);
        for (const char *const *k = w->series; *k; k++) {
            int in = 0;
            for (const char *const *o = w->opts; *o; o++) in |= !strcmp(*o, *k);
            CHECKF(in, "%s series key %s is one of its options", w->name, *k);
        }
        if (!(w->flags & SB_WL_PLAN)) continue;
        /* the rows' flags, as the plan applies them */
        sb_plan p;
        sb_plan_init(&p);
        CHECK_EQ_INT(sb_plan_set(&p, "workload", w->name, "t", &e), SB_OK);
        CHECK_EQ_INT(sb_plan_set(&p, "batch", "4", "t", &e), SB_OK);
        int rc = sb_plan_finish(&p, 2, &e);
        CHECKF((rc == SB_OK) == !!(w->flags & SB_WL_BATCH), "%s: batch %s", w->name,
               rc ? e.msg : "taken");
        sb_plan_free(&p);
        sb_plan_init(&p);
        CHECK_EQ_INT(sb_plan_set(&p, "workload", w->name, "t", &e), SB_OK);
        CHECK_EQ_INT(sb_plan_finish(&p, 2, &e), SB_OK);
        CHECKF((p.axis_key && !strcmp(p.axis_key, "shapes")) == !!(w->flags & SB_WL_SHAPES),
               "%s: shapes by default", w->name);
        CHECKF(!strcmp(p.kernels[0], "none") == !(w->flags & SB_WL_KERNEL), "%s: kernels",
               w->name);
        char *text = sb_plan_render(&p);
        CHECKF(!strstr(text, "kernels =") == !(w->flags & SB_WL_KERNEL), "%s renders kernels",
               w->name);
        free(text);
        sb_plan_free(&p);
    }
    CHECK(sb_workload_find("rm") == NULL && !sb_db_workload_known("rm"));
    sb_plan p;
    sb_plan_init(&p);
    CHECK_EQ_INT(sb_plan_set(&p, "workload", "rm", "--workload", &e), SB_EUSAGE);
    CHECKF(strstr(e.msg, names) != NULL, "'%s' lists %s", e.msg, names);
    /* peak is the sweep's probe, not a plan's workload */
    CHECK_EQ_INT(sb_plan_set(&p, "workload", "peak", "--workload", &e), SB_EUSAGE);
    sb_plan_free(&p);
}

/* A point's axis value is data: the key the store keeps it under, the value
 * its worker is given and the value a resume reads back from the stored row
 * agree, for a shape (the key itself, +prepack) and a batch (a value of the
 * series key), with no question of which it is. */
static void axis_round_trip(const char *plan, int i, const char *want_key, const char *want_axis)
{
    sb_plan p;
    sb_err e = {0};
    sb_plan_init(&p);
    CHECK(sb_plan_parse(&p, plan, "t", &e) == SB_OK && sb_plan_finish(&p, 2, &e) == SB_OK);
    sb_plan_point pt;
    sb_plan_point_at(&p, i, &pt);
    char key[256], config[64], axis[256], back[sizeof key];
    sb_point_keys(&p, &pt, key, sizeof key, config, sizeof config);
    sb_point_axis(&p, &pt, axis, sizeof axis);
    CHECKF(!strcmp(key, want_key), "key '%s', not '%s'", key, want_key);
    CHECKF(!strcmp(axis, want_axis), "axis '%s', not '%s'", axis, want_axis);
    sb_todo_point row = {.wl = p.wl, .threads = pt.threads, .ppn = 1, .nodes = 1};
    snprintf(row.kernel, sizeof row.kernel, "%s", pt.kernel);
    snprintf(row.shape, sizeof row.shape, "%s", key);
    sb_plan_point rp;
    sb_point_of_row(&row, &rp, back, sizeof back);
    CHECKF(!strcmp(back, want_axis) && rp.axis == back && rp.threads == pt.threads,
           "resumed axis '%s', not '%s'", back, want_axis);
    sb_plan_free(&p);
}

static void test_axis_values(void)
{
    axis_round_trip("kernels = scalar-f32\nthreads = 1\nshapes = 8x9x10, 4x4x4:TT\ntrans = NT\n"
                    "prepack = 1\n",
                    0, "8x9x10:NT+prepack", "8x9x10:NT+prepack");
    axis_round_trip("kernels = scalar-f32\nthreads = 1\nshapes = 8x9x10, 4x4x4:TT\n", 1,
                    "4x4x4:TT", "4x4x4:TT");
    axis_round_trip("workload = infer\nkernels = scalar-f32\nthreads = 1\nbatch = 16, 02\n"
                    "model = tiny\n",
                    1, "model=tiny batch=2", "2");
    axis_round_trip("workload = train\nkernels = scalar-f32\nthreads = 1\nmodel = tiny\n", 0,
                    "model=tiny", "");
    axis_round_trip("workload = stream\nthreads = 1\nmib = 8\n", 0, "mib=8", "");
}

int main(void)
{
    test_axis_values();
    test_workload_rows();
    test_project_nodes();
    test_parse_and_expand();
    test_hostile();
    test_defaults();
    test_batches_and_quant();
    test_render_round_trip();
    snprintf(g_dir, sizeof g_dir, "/tmp/sb-plan-XXXXXX");
    CHECK(mkdtemp(g_dir) != NULL);
    test_plan_file();
    test_read_limits();
    test_write_symlinks();
    test_write_devices();
    test_write_failure_keeps_old();
    test_lists_and_keys();
    test_plan_inputs();
    test_out_checks();
    test_one_line();
    test_env_json();
    remove_tree(g_dir);
    return test_report("plan");
}
