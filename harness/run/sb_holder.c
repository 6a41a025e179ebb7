#include "sb_holder.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "sb_proc.h"
#include "sb_text.h"

/* The first line of a small /proc file; "" when it cannot be read. */
static void read_line(const char *path, char *buf, size_t cap)
{
    buf[0] = '\0';
    int fd = open(path, O_RDONLY);
    if (fd < 0) return;
    ssize_t n = read(fd, buf, cap - 1);
    close(fd);
    buf[n > 0 ? n : 0] = '\0';
    buf[strcspn(buf, "\n")] = '\0';
}

/* "BOOT_ID:START_TICKS" of a process: a pid names the same process only
 * while both stay the same. "" when /proc does not say. */
static void process_token(long pid, char *buf, size_t cap)
{
    char path[64], stat[1024], boot[64];
    buf[0] = '\0';
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    read_line(path, stat, sizeof stat);
    read_line("/proc/sys/kernel/random/boot_id", boot, sizeof boot);
    /* the command name may hold blanks and ')': fields count from the last ')' */
    char *p = strrchr(stat, ')');
    if (!p || !boot[0]) return;
    int field = 2;
    for (char *tok = strtok(p + 1, " "); tok; tok = strtok(NULL, " "))
        if (++field == 22) {
            snprintf(buf, cap, "%s:%s", boot, tok);
            return;
        }
}

static void host_name(char *buf, size_t cap)
{
    char h[256] = "";
    if (gethostname(h, sizeof h - 1) != 0) h[0] = '\0';
    h[sizeof h - 1] = '\0';
    char *r = sb_text_repair(h, strlen(h), 200, NULL);
    snprintf(buf, cap, "%s", r ? r : "");
    free(r);
}

/* Whether the holder recorded for a pid of this host still runs. */
static int holder_alive(long pid, const char *token)
{
    if (pid <= 0) return 0;
    if (kill((pid_t)pid, 0) != 0 && errno != EPERM) return 0;
    if (!token[0]) return 1; /* recorded without /proc: the pid is all there is */
    char now[128];
    process_token(pid, now, sizeof now);
    return now[0] && !strcmp(now, token);
}

/* Whether the runs of a holder of this host that is gone still have
 * processes: a guard in its run group that can run, in the boot its token
 * names (a group id of an earlier boot means nothing); a guard lives until
 * nothing of its run does. */
static int group_alive(long group, const char *token)
{
    char boot[64];
    read_line("/proc/sys/kernel/random/boot_id", boot, sizeof boot);
    size_t n = strlen(boot);
    if (token[0] && n && (strncmp(token, boot, n) || token[n] != ':')) return 0;
    return group > 0 && group < INT_MAX && sb_proc_group_alive((int)group, SB_PROC_GUARD_COMM);
}

void sb_holder_self(sb_db_holder *h)
{
    memset(h, 0, sizeof *h);
    h->pid = (long)getpid();
    host_name(h->host, sizeof h->host);
    process_token(h->pid, h->token, sizeof h->token);
    h->alive = holder_alive;
    h->runs_alive = group_alive;
}
