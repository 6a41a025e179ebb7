#include "sb_bind.h"
#include <hwloc.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sb_bind_parse_mode(const char *s, sb_bind_mode *mode, sb_err *e)
{
    if (s && !strcmp(s, "core"))
        *mode = SB_BIND_CORE;
    else if (s && !strcmp(s, "socket"))
        *mode = SB_BIND_SOCKET;
    else if (s && !strcmp(s, "none"))
        *mode = SB_BIND_NONE;
    else
        return sb_errf(e, SB_EUSAGE, "--bind '%s': expected core, socket or none", s ? s : "");
    return SB_OK;
}

const char *sb_bind_mode_name(sb_bind_mode mode)
{
    return mode == SB_BIND_CORE ? "core" : mode == SB_BIND_SOCKET ? "socket" : "none";
}

void sb_bind_report_free(sb_bind_report *r)
{
    if (!r) return;
    if (r->thread_cpusets)
        for (int i = 0; i < r->threads; i++) free(r->thread_cpusets[i]);
    free(r->thread_cpusets);
    free(r->rank_cpuset);
    free(r->comm_cpuset);
    memset(r, 0, sizeof *r);
}

static char *list_string(hwloc_const_bitmap_t b)
{
    char *s = NULL;
    if (hwloc_bitmap_list_asprintf(&s, b) < 0) return NULL;
    return s;
}

/* The first PU of core i: one hardware thread per core. */
static void add_core_pu(hwloc_topology_t t, int core, hwloc_bitmap_t set)
{
    hwloc_obj_t c = hwloc_get_obj_by_type(t, HWLOC_OBJ_CORE, (unsigned)core);
    if (c && c->cpuset) hwloc_bitmap_set(set, (unsigned)hwloc_bitmap_first(c->cpuset));
}

typedef struct {
    hwloc_topology_t topo;
    hwloc_bitmap_t rank, comm, *thread;
    int nthread;
} plan_sets;

static void free_sets(plan_sets *p)
{
    if (p->thread)
        for (int i = 0; i < p->nthread; i++) hwloc_bitmap_free(p->thread[i]);
    free(p->thread);
    if (p->rank) hwloc_bitmap_free(p->rank);
    if (p->comm) hwloc_bitmap_free(p->comm);
    if (p->topo) hwloc_topology_destroy(p->topo);
    memset(p, 0, sizeof *p);
}

static int make_plan(sb_bind_mode mode, int lr, int ls, int threads, int comm_threads,
                     sb_bind_report *r, plan_sets *p, sb_err *e)
{
    memset(r, 0, sizeof *r);
    memset(p, 0, sizeof *p);
    if (ls < 1 || lr < 0 || lr >= ls || threads < 1 || comm_threads < 0)
        return sb_errf(e, SB_EUSAGE, "binding: local rank %d of %d with %d threads", lr, ls,
                       threads);
    if (hwloc_topology_init(&p->topo) || hwloc_topology_load(p->topo)) {
        if (p->topo) hwloc_topology_destroy(p->topo);
        p->topo = NULL;
        return sb_errf(e, SB_EFAIL, "hwloc cannot read this machine's topology");
    }
    int ncores = hwloc_get_nbobjs_by_type(p->topo, HWLOC_OBJ_CORE);
    int nsock = hwloc_get_nbobjs_by_type(p->topo, HWLOC_OBJ_PACKAGE);
    if (ncores < 1) ncores = hwloc_get_nbobjs_by_type(p->topo, HWLOC_OBJ_PU);
    if (nsock < 1) nsock = 1;
    r->mode = mode;
    r->cores = ncores;
    r->sockets = nsock;
    r->threads = threads;
    p->nthread = threads;
    p->rank = hwloc_bitmap_alloc();
    p->comm = hwloc_bitmap_alloc();
    p->thread = calloc((size_t)threads, sizeof *p->thread);
    if (!p->rank || !p->comm || !p->thread) {
        free_sets(p);
        return sb_errf(e, SB_EFAIL, "out of memory");
    }
    for (int j = 0; j < threads; j++) p->thread[j] = hwloc_bitmap_alloc();
    int need = ls * threads;

    if (mode == SB_BIND_CORE) {
        for (int j = 0; j < threads; j++) {
            add_core_pu(p->topo, (lr * threads + j) % ncores, p->thread[j]);
            hwloc_bitmap_or(p->rank, p->rank, p->thread[j]);
        }
        int spare = ncores - need;
        if (comm_threads > 0 && spare >= ls) {
            /* Each rank its own slice of the leftover cores. */
            int per = spare / ls < comm_threads ? spare / ls : comm_threads;
            for (int k = 0; k < per; k++) add_core_pu(p->topo, need + lr * per + k, p->comm);
        } else if (comm_threads > 0 && spare > 0) {
            for (int k = need; k < ncores; k++) add_core_pu(p->topo, k, p->comm);
        } else {
            hwloc_bitmap_copy(p->comm, p->rank);
            r->comm_shared = comm_threads > 0;
        }
        if (need > ncores) {
            r->oversubscribed = 1;
            snprintf(r->warning, sizeof r->warning,
                     "oversubscribed: %d rank(s) x %d thread(s) = %d on %d core(s) of this node",
                     ls, threads, need, ncores);
        }
    } else if (mode == SB_BIND_SOCKET) {
        int s = lr % nsock;
        hwloc_obj_t pkg = hwloc_get_obj_by_type(p->topo, HWLOC_OBJ_PACKAGE, (unsigned)s);
        int in_socket = 0;
        for (int c = 0; c < ncores; c++) {
            hwloc_obj_t core = hwloc_get_obj_by_type(p->topo, HWLOC_OBJ_CORE, (unsigned)c);
            if (!pkg || !core || hwloc_bitmap_isincluded(core->cpuset, pkg->cpuset)) {
                add_core_pu(p->topo, c, p->rank);
                in_socket++;
            }
        }
        for (int j = 0; j < threads; j++) hwloc_bitmap_copy(p->thread[j], p->rank);
        hwloc_bitmap_copy(p->comm, p->rank);
        r->comm_shared = comm_threads > 0;
        int ranks_here = (ls - s + nsock - 1) / nsock;
        if (ranks_here * threads > in_socket) {
            r->oversubscribed = 1;
            snprintf(r->warning, sizeof r->warning,
                     "oversubscribed: %d rank(s) x %d thread(s) on socket %d with %d core(s)",
                     ranks_here, threads, s, in_socket);
        }
    } else {
        hwloc_const_bitmap_t all = hwloc_topology_get_allowed_cpuset(p->topo);
        hwloc_bitmap_copy(p->rank, all);
        hwloc_bitmap_copy(p->comm, all);
        for (int j = 0; j < threads; j++) hwloc_bitmap_copy(p->thread[j], all);
        if (need > ncores) {
            r->oversubscribed = 1;
            snprintf(r->warning, sizeof r->warning,
                     "oversubscribed: %d rank(s) x %d thread(s) = %d on %d core(s) (unbound)", ls,
                     threads, need, ncores);
        }
    }
    r->rank_cpuset = list_string(p->rank);
    r->comm_cpuset = mode == SB_BIND_NONE ? strdup("") : list_string(p->comm);
    r->thread_cpusets = calloc((size_t)threads, sizeof *r->thread_cpusets);
    if (!r->rank_cpuset || !r->comm_cpuset || !r->thread_cpusets) {
        sb_bind_report_free(r);
        free_sets(p);
        return sb_errf(e, SB_EFAIL, "out of memory");
    }
    return SB_OK;
}

int sb_bind_plan(sb_bind_mode mode, int local_rank, int local_size, int threads, int comm_threads,
                 sb_bind_report *r, sb_err *e)
{
    plan_sets p;
    int rc = make_plan(mode, local_rank, local_size, threads, comm_threads, r, &p, e);
    if (rc) return rc;
    for (int j = 0; j < threads; j++) r->thread_cpusets[j] = list_string(p.thread[j]);
    free_sets(&p);
    return SB_OK;
}

int sb_bind_apply(sb_bind_mode mode, int local_rank, int local_size, int threads, int comm_threads,
                  sb_bind_report *r, sb_err *e)
{
    plan_sets p;
    int rc = make_plan(mode, local_rank, local_size, threads, comm_threads, r, &p, e);
    if (rc) return rc;
    if (mode != SB_BIND_NONE && hwloc_set_cpubind(p.topo, p.rank, HWLOC_CPUBIND_PROCESS)) {
        free_sets(&p);
        sb_bind_report_free(r);
        return sb_errf(e, SB_EFAIL, "cannot bind the process to cpuset %s", "(rank set)");
    }
    int failed = 0;
#pragma omp parallel num_threads(threads) reduction(+ : failed)
    {
        int j = omp_get_thread_num();
        if (mode != SB_BIND_NONE && hwloc_set_cpubind(p.topo, p.thread[j], HWLOC_CPUBIND_THREAD))
            failed++;
        hwloc_bitmap_t got = hwloc_bitmap_alloc();
        if (got && !hwloc_get_cpubind(p.topo, got, HWLOC_CPUBIND_THREAD) && j < threads)
            r->thread_cpusets[j] = list_string(got);
        if (got) hwloc_bitmap_free(got);
    }
    for (int j = 0; j < threads; j++)
        if (!r->thread_cpusets[j]) r->thread_cpusets[j] = strdup("?");
    free_sets(&p);
    if (failed) {
        sb_bind_report_free(r);
        return sb_errf(e, SB_EFAIL, "cannot bind %d OpenMP thread(s)", failed);
    }
    return SB_OK;
}

int sb_bind_this_thread(const char *cpuset_list, sb_err *e)
{
    if (!cpuset_list || !*cpuset_list) return SB_OK;
    hwloc_topology_t t;
    if (hwloc_topology_init(&t) || hwloc_topology_load(t))
        return sb_errf(e, SB_EFAIL, "hwloc cannot read this machine's topology");
    hwloc_bitmap_t b = hwloc_bitmap_alloc();
    int rc = SB_OK;
    if (!b || hwloc_bitmap_list_sscanf(b, cpuset_list) < 0)
        rc = sb_errf(e, SB_EUSAGE, "cpuset '%s' is not an hwloc list", cpuset_list);
    else if (hwloc_set_cpubind(t, b, HWLOC_CPUBIND_THREAD))
        rc = sb_errf(e, SB_EFAIL, "cannot bind a thread to cpuset %s", cpuset_list);
    if (b) hwloc_bitmap_free(b);
    hwloc_topology_destroy(t);
    return rc;
}
