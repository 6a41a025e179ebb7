/* sb_bind: the core/socket/none plans on this machine's real topology, the
 * oversubscription warning, and binding applied then read back. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <hwloc.h>
#include "sb_bind.h"

#include "testutil.h"

static int weight(const char *list)
{
    hwloc_bitmap_t b = hwloc_bitmap_alloc();
    hwloc_bitmap_list_sscanf(b, list);
    int w = hwloc_bitmap_weight(b);
    hwloc_bitmap_free(b);
    return w;
}

static int disjoint(const char *a, const char *b)
{
    hwloc_bitmap_t x = hwloc_bitmap_alloc(), y = hwloc_bitmap_alloc();
    hwloc_bitmap_list_sscanf(x, a);
    hwloc_bitmap_list_sscanf(y, b);
    int r = !hwloc_bitmap_intersects(x, y);
    hwloc_bitmap_free(x);
    hwloc_bitmap_free(y);
    return r;
}

int main(void)
{
    sb_err e = {0};
    sb_bind_mode m;
    CHECKF(!sb_bind_parse_mode("core", &m, &e) && m == SB_BIND_CORE, "core");
    CHECKF(!sb_bind_parse_mode("socket", &m, &e) && m == SB_BIND_SOCKET, "socket");
    CHECKF(!sb_bind_parse_mode("none", &m, &e) && m == SB_BIND_NONE, "none");
    CHECKF(sb_bind_parse_mode("cores", &m, &e) == SB_EUSAGE && strstr(e.msg, "cores"),
           "cores accepted");

    sb_bind_report r0, r1;
    CHECKF(!sb_bind_plan(SB_BIND_CORE, 0, 1, 1, 0, &r0, &e), "plan: %s", e.msg);
    int cores = r0.cores;
    printf("this node: %d core(s), %d socket(s)\n", cores, r0.sockets);
    CHECKF(cores >= 1, "no cores");
    CHECKF(!r0.oversubscribed && !r0.warning[0], "1x1 flagged oversubscribed");
    CHECKF(weight(r0.rank_cpuset) == 1, "1 thread bound to %s", r0.rank_cpuset);
    sb_bind_report_free(&r0);

    /* Ranks of one node split the cores, one PU per core, disjoint. */
    if (cores >= 2) {
        int t = cores / 2;
        CHECKF(!sb_bind_plan(SB_BIND_CORE, 0, 2, t, 1, &r0, &e), "plan: %s", e.msg);
        CHECKF(!sb_bind_plan(SB_BIND_CORE, 1, 2, t, 1, &r1, &e), "plan: %s", e.msg);
        printf("2 ranks x %d: rank0 %s rank1 %s comm0 %s\n", t, r0.rank_cpuset, r1.rank_cpuset,
               r0.comm_cpuset);
        CHECKF(weight(r0.rank_cpuset) == t && weight(r1.rank_cpuset) == t, "rank sets %s %s",
               r0.rank_cpuset, r1.rank_cpuset);
        CHECKF(disjoint(r0.rank_cpuset, r1.rank_cpuset), "ranks share cores: %s %s", r0.rank_cpuset,
               r1.rank_cpuset);
        for (int j = 0; j < t; j++)
            CHECKF(weight(r0.thread_cpusets[j]) == 1, "thread %d: %s", j, r0.thread_cpusets[j]);
        CHECKF(!r0.oversubscribed, "exact fit flagged oversubscribed");
        /* No leftover core when 2*t == cores: the comm thread shares. */
        if (2 * t == cores) CHECKF(r0.comm_shared, "comm thread should share the rank's cores");
        sb_bind_report_free(&r0);
        sb_bind_report_free(&r1);
    }
    /* More threads than cores: a warning, not a failure. */
    CHECKF(!sb_bind_plan(SB_BIND_CORE, 1, 2, cores, 1, &r0, &e), "oversubscribed plan failed: %s",
           e.msg);
    CHECKF(r0.oversubscribed && strstr(r0.warning, "oversubscribed"), "no warning: '%s'",
           r0.warning);
    printf("warning: %s\n", r0.warning);
    sb_bind_report_free(&r0);
    CHECKF(!sb_bind_plan(SB_BIND_SOCKET, 0, 1, 1, 0, &r0, &e), "socket plan: %s", e.msg);
    CHECKF(weight(r0.rank_cpuset) >= 1, "socket set %s", r0.rank_cpuset);
    sb_bind_report_free(&r0);
    CHECKF(sb_bind_plan(SB_BIND_CORE, 2, 2, 1, 0, &r0, &e) == SB_EUSAGE, "rank 2 of 2 accepted");

    /* Apply and read back: each OpenMP thread on the core it was given. */
    int t = cores >= 2 ? 2 : 1;
    CHECKF(!sb_bind_apply(SB_BIND_CORE, 0, 1, t, 0, &r0, &e), "apply: %s", e.msg);
    sb_bind_report plan;
    sb_bind_plan(SB_BIND_CORE, 0, 1, t, 0, &plan, &e);
    for (int j = 0; j < t && r0.thread_cpusets; j++) {
        printf("thread %d bound to %s\n", j, r0.thread_cpusets[j]);
        CHECKF(!strcmp(r0.thread_cpusets[j], plan.thread_cpusets[j]), "thread %d: got %s want %s",
               j, r0.thread_cpusets[j], plan.thread_cpusets[j]);
    }
    CHECKF(!sb_bind_this_thread(r0.rank_cpuset, &e), "bind this thread: %s", e.msg);
    CHECKF(sb_bind_this_thread("x-y", &e) == SB_EUSAGE, "bad list accepted");
    sb_bind_report_free(&plan);
    sb_bind_report_free(&r0);
    printf("%s: %d failure(s)\n", g_test_failures ? "FAIL" : "ok", g_test_failures);
    return g_test_failures ? 1 : 0;
}
