/* sb_bind: where a rank and its threads run, with hwloc. Each rank of a node
 * gets its own physical cores (one PU per core, as KMP_HW_SUBSET=1T), its
 * OpenMP threads are bound one per core inside that set, communication
 * threads get the cores left over on the node or share the rank's; the
 * binding actually in force is read back as cpuset strings for the result
 * file. A layout that oversubscribes cores still runs, with a warning string.
 *
 *   core   : rank r of P takes cores [r*T, (r+1)*T) of the node; thread j -> core r*T+j
 *   socket : rank r takes the first PU of every core of socket r % sockets;
 *            its threads float inside that set
 *   none   : nothing is bound; the report shows what the OS gives
 */
#ifndef SB_BIND_H
#define SB_BIND_H
#include "sb_err.h"

typedef enum { SB_BIND_NONE = 0, SB_BIND_CORE, SB_BIND_SOCKET } sb_bind_mode;

typedef struct sb_bind_report {
    sb_bind_mode mode;
    int cores; /* physical cores on this node */
    int sockets;
    int threads;           /* OpenMP threads bound */
    char *rank_cpuset;     /* hwloc list syntax, e.g. "0-1" */
    char **thread_cpusets; /* [threads], read back after binding */
    char *comm_cpuset;     /* for sb_bind_this_thread in comm threads */
    int comm_shared;       /* comm threads share the rank's cores */
    int oversubscribed;
    char warning[256]; /* "" or why this layout oversubscribes */
} sb_bind_report;

/* "core" | "socket" | "none" */
int sb_bind_parse_mode(const char *s, sb_bind_mode *mode, sb_err *e);
const char *sb_bind_mode_name(sb_bind_mode mode);

/* Computes and applies the binding of this process and of `threads` OpenMP
 * threads (a parallel region of that size binds each thread; libgomp keeps
 * the same threads for later regions of that size). Call before starting
 * communication threads: they inherit the process binding and then call
 * sb_bind_this_thread(report.comm_cpuset). */
int sb_bind_apply(sb_bind_mode mode, int local_rank, int local_size, int threads, int comm_threads,
                  sb_bind_report *r, sb_err *e);
/* Same computation without binding anything (for plans and tests). */
int sb_bind_plan(sb_bind_mode mode, int local_rank, int local_size, int threads, int comm_threads,
                 sb_bind_report *r, sb_err *e);
/* Binds the calling thread to a cpuset in hwloc list syntax ("" or NULL: no-op). */
int sb_bind_this_thread(const char *cpuset_list, sb_err *e);
void sb_bind_report_free(sb_bind_report *r);

#endif
