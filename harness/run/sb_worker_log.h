/* sb_worker_log: a worker's stdout or stderr kept to a bounded size in the
 * sweep's temporary directory, however much it writes: the worker writes
 * into a FIFO that a thread of the sweep copies to the log file. */
#ifndef SB_WORKER_LOG_H
#define SB_WORKER_LOG_H
#include <stddef.h>
#include "sb_err.h"

/* The worker writes into fifo (for sb_launch_run); a thread copies it to path,
 * keeping the first and the last cap/2 bytes and, between them, one line
 * saying how many were cut. bytes: all the worker wrote; nospace: writing
 * path met ENOSPC or EDQUOT. */
typedef struct sb_worker_log {
    char path[4096], fifo[4200];
    size_t cap;
    long long bytes;
    int nospace;
    int rfd, wfd, out;
    int stop; /* set (atomically) once the worker ended: the copy drains and stops */
    int started;
    void *priv; /* the copying thread and its buffers */
} sb_worker_log;
#define SB_WORKER_LOG_CAP ((size_t)1 << 20)
/* Starts the copy (SB_EFAIL: no FIFO could be made; the caller may let the
 * worker write to path directly). */
int sb_worker_log_start(sb_worker_log *l, const char *path, size_t cap, sb_err *e);
/* After the worker ended: the rest copied, the note written, the FIFO removed. */
void sb_worker_log_finish(sb_worker_log *l);

#endif
