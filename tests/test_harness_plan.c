/* Plan parsing, validation and point expansion. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

int main(void)
{
    test_project_nodes();
    test_parse_and_expand();
    test_hostile();
    test_defaults();
    test_render_round_trip();
    return test_report("plan");
}
