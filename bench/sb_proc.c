#include "sb_proc.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <sys/types.h>
#include <unistd.h>

/* getdents64's record (glibc declares the call but not the record) */
struct proc_dirent {
    unsigned long long ino;
    long long off;
    unsigned short reclen;
    unsigned char type;
    char name[];
};

/* A decimal number at *p (no sign), p moved past it; -1 when none. */
static long read_num(const char **p, const char *end)
{
    long v = -1;
    while (*p < end && **p >= '0' && **p <= '9') {
        v = (v < 0 ? 0 : v * 10) + (**p - '0');
        if (v > 0x7fffffff) return -1;
        (*p)++;
    }
    return v;
}

/* "pid (comm) state ppid pgrp ...": comm may hold blanks and ')', so the
 * fields after it count from the last ')'. 0 when it parses. */
static int parse_stat(const char *buf, size_t len, sb_proc_info *out)
{
    const char *end = buf + len, *p = buf, *rp = NULL;
    for (const char *q = buf; q < end; q++)
        if (*q == ')') rp = q;
    long pid = read_num(&p, end);
    if (pid <= 0 || !rp || end - rp < 4 || p + 2 > rp || p[0] != ' ' || p[1] != '(') return -1;
    size_t k = 0;
    for (const char *c = p + 2; c < rp && k < sizeof out->comm - 1; c++) out->comm[k++] = *c;
    out->comm[k] = '\0';
    p = rp + 1;
    if (*p++ != ' ') return -1;
    out->state = *p++;
    if (p >= end || *p++ != ' ') return -1;
    long ppid = read_num(&p, end);
    if (ppid < 0 || p >= end || *p++ != ' ') return -1;
    long pgrp = read_num(&p, end);
    if (pgrp < 0) return -1;
    out->pid = (int)pid;
    out->ppid = (int)ppid;
    out->pgrp = (int)pgrp;
    return 0;
}

static int read_stat(const char *pid_name, sb_proc_info *out)
{
    char path[64] = "/proc/";
    size_t k = 6;
    for (const char *c = pid_name; *c && k < sizeof path - 6; c++) path[k++] = *c;
    const char *tail = "/stat";
    for (const char *c = tail; *c; c++) path[k++] = *c;
    path[k] = '\0';
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    char buf[512];
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) < 0 && errno == EINTR) {}
    close(fd);
    return n > 0 ? parse_stat(buf, (size_t)n, out) : -1;
}

int sb_proc_scan(int (*fn)(const sb_proc_info *p, void *ctx), void *ctx)
{
    int dir = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0) return -1;
    /* aligned for the records inside it */
    union {
        char bytes[8192];
        long long align;
    } buf;
    int rc = 0;
    for (;;) {
        ssize_t n = getdents64(dir, buf.bytes, sizeof buf.bytes);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) rc = -1;
        if (n <= 0) break;
        for (ssize_t off = 0; off < n && !rc;) {
            struct proc_dirent *d = (struct proc_dirent *)(buf.bytes + off);
            off += d->reclen;
            if (d->name[0] < '1' || d->name[0] > '9') continue;
            sb_proc_info info;
            if (read_stat(d->name, &info) == 0) rc = fn(&info, ctx);
        }
        if (rc) break;
    }
    close(dir);
    return rc;
}

typedef struct member_ctx {
    int pgid;
    const char *comm;
} member_ctx;

static int live_member(const sb_proc_info *p, void *ctx)
{
    const member_ctx *m = ctx;
    if (p->pgrp != m->pgid || p->state == 'Z' || p->state == 'X') return 0;
    for (size_t i = 0; m->comm && m->comm[i]; i++)
        if (p->comm[i] != m->comm[i]) return 0;
    return 1;
}

int sb_proc_group_alive(int pgid, const char *comm)
{
    if (pgid <= 0) return 0;
    if (kill(-pgid, 0) != 0 && errno == ESRCH) return 0;
    member_ctx m = {pgid, comm};
    int rc = sb_proc_scan(live_member, &m);
    return rc != 0; /* a member found (1), or /proc unreadable (-1): alive */
}
