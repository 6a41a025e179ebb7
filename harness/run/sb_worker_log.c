#include "sb_worker_log.h"
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct log_priv {
    pthread_t th;
    char *tail; /* a ring of the last cap/2 bytes past the head */
    size_t tail_cap, tail_len, tail_at;
    size_t head_cap, head_len;
} log_priv;

static void log_write(sb_worker_log *l, const char *p, size_t n)
{
    while (n && !l->nospace) {
        ssize_t w = write(l->out, p, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            if (errno == ENOSPC || errno == EDQUOT) l->nospace = 1;
            return;
        }
        p += w;
        n -= (size_t)w;
    }
}

static void log_take(sb_worker_log *l, log_priv *q, const char *p, size_t n)
{
    l->bytes += (long long)n;
    if (q->head_len < q->head_cap) {
        size_t h = n < q->head_cap - q->head_len ? n : q->head_cap - q->head_len;
        log_write(l, p, h);
        q->head_len += h;
        p += h;
        n -= h;
    }
    for (; n; p++, n--) { /* past the head: the ring keeps the last tail_cap bytes */
        q->tail[q->tail_at] = *p;
        q->tail_at = (q->tail_at + 1) % q->tail_cap;
        if (q->tail_len < q->tail_cap) q->tail_len++;
    }
}

static void *log_thread(void *arg)
{
    sb_worker_log *l = arg;
    log_priv *q = l->priv;
    char buf[65536];
    for (;;) {
        struct pollfd pf = {.fd = l->rfd, .events = POLLIN};
        int stopping = __atomic_load_n(&l->stop, __ATOMIC_ACQUIRE);
        int pr = poll(&pf, 1, stopping ? 0 : 50);
        if (pr < 0 && errno == EINTR) continue;
        ssize_t n = pr > 0 ? read(l->rfd, buf, sizeof buf) : 0;
        if (n > 0) {
            log_take(l, q, buf, (size_t)n);
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        if (stopping) break; /* drained after the worker ended */
    }
    return NULL;
}

int sb_worker_log_start(sb_worker_log *l, const char *path, size_t cap, sb_err *e)
{
    memset(l, 0, sizeof *l);
    l->rfd = l->wfd = l->out = -1;
    snprintf(l->path, sizeof l->path, "%s", path);
    snprintf(l->fifo, sizeof l->fifo, "%s.fifo", path);
    l->cap = cap < 2 ? 2 : cap;
    log_priv *q = calloc(1, sizeof *q);
    if (q) q->tail = malloc(l->cap / 2);
    if (!q || !q->tail) {
        if (q) free(q);
        return sb_errf(e, SB_EFAIL, "out of memory");
    }
    q->head_cap = l->cap / 2;
    q->tail_cap = l->cap / 2;
    l->priv = q;
    unlink(l->fifo);
    /* our own write end keeps the FIFO open between the worker's processes */
    if (mkfifo(l->fifo, 0600) != 0 ||
        (l->rfd = open(l->fifo, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) < 0 ||
        (l->wfd = open(l->fifo, O_WRONLY | O_NONBLOCK | O_CLOEXEC)) < 0 ||
        (l->out = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) < 0 ||
        pthread_create(&q->th, NULL, log_thread, l) != 0) {
        int err = errno;
        if (err == ENOSPC || err == EDQUOT) l->nospace = 1;
        sb_worker_log_finish(l);
        return sb_errf(e, SB_EFAIL, "%s: %s", path, strerror(err));
    }
    l->started = 1;
    return SB_OK;
}

void sb_worker_log_finish(sb_worker_log *l)
{
    log_priv *q = l->priv;
    if (l->started) {
        __atomic_store_n(&l->stop, 1, __ATOMIC_RELEASE);
        pthread_join(q->th, NULL);
        long long cut = l->bytes - (long long)q->head_len - (long long)q->tail_len;
        if (cut > 0) {
            char note[200];
            int n = snprintf(note, sizeof note,
                             "\n[sprbench: %lld bytes of the worker's output cut here; it wrote "
                             "%lld in all, the first and last %zu KiB are kept]\n",
                             cut, l->bytes, q->tail_cap >> 10);
            log_write(l, note, (size_t)n);
        }
        if (q->tail_len == q->tail_cap) { /* wrapped: the oldest byte is at tail_at */
            log_write(l, q->tail + q->tail_at, q->tail_cap - q->tail_at);
            log_write(l, q->tail, q->tail_at);
        } else {
            log_write(l, q->tail, q->tail_len);
        }
        l->started = 0;
    }
    if (l->out >= 0 && close(l->out) != 0 && (errno == ENOSPC || errno == EDQUOT)) l->nospace = 1;
    if (l->rfd >= 0) close(l->rfd);
    if (l->wfd >= 0) close(l->wfd);
    l->out = l->rfd = l->wfd = -1;
    unlink(l->fifo);
    if (q) {
        free(q->tail);
        free(q);
    }
    l->priv = NULL;
}
