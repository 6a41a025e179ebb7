#include "sb_io.h"
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---------------------------------------------------------------- reading */

static void format_size(size_t n, char *buf, size_t cap)
{
    if (n >= SB_MIB && n % SB_MIB == 0)
        snprintf(buf, cap, "%zu MiB", n / SB_MIB);
    else if (n >= SB_KIB && n % SB_KIB == 0)
        snprintf(buf, cap, "%zu KiB", n / SB_KIB);
    else
        snprintf(buf, cap, "%zu bytes", n);
}

static int too_large(const char *path, size_t max_bytes, const char *kind, sb_err *e)
{
    char lim[48];
    format_size(max_bytes, lim, sizeof lim);
    return sb_errf(e, SB_EUSAGE, "%s: larger than %s, the limit for a %s", path, lim, kind);
}

static const char *file_type(mode_t m)
{
    if (S_ISDIR(m)) return "a directory";
    if (S_ISFIFO(m)) return "a FIFO";
    if (S_ISSOCK(m)) return "a socket";
    if (S_ISCHR(m)) return "a character device";
    if (S_ISBLK(m)) return "a block device";
    return "not a regular file";
}

int sb_open_regular(const char *path, int *fdp, sb_err *e)
{
    *fdp = -1;
    /* O_NONBLOCK: opening a FIFO for reading would otherwise wait, forever,
     * for a writer, before fstat could say what it is. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0) return sb_errf(e, SB_EUSAGE, "%s: cannot open: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int saved = errno;
        close(fd);
        return sb_errf(e, SB_EUSAGE, "%s: cannot open: %s", path, strerror(saved));
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return sb_errf(e, SB_EUSAGE, "%s: is %s, not a regular file", path, file_type(st.st_mode));
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl != -1) (void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    *fdp = fd;
    return SB_OK;
}

int sb_read_file_max(const char *path, size_t max_bytes, const char *kind, char **data, size_t *len,
                     sb_err *e)
{
    *data = NULL;
    if (len) *len = 0;
    if (!kind) kind = "file";
    int fd, orc = sb_open_regular(path, &fd, e);
    if (orc) return orc;
    struct stat st;
    int have_st = fstat(fd, &st) == 0;
    /* A regular file already over the limit is refused before reading: the
     * same answer as reading it, without the time and memory. */
    if (have_st && S_ISREG(st.st_mode) && (uint64_t)st.st_size > (uint64_t)max_bytes) {
        close(fd);
        return too_large(path, max_bytes, kind, e);
    }
    /* Hold at most one byte past the limit: that byte is how a file over the
     * limit is told from one exactly at it, without reading any further. */
    size_t want = max_bytes < SIZE_MAX - 2 ? max_bytes + 1 : SIZE_MAX - 2;
    /* st_size is only a hint for the first allocation (clamped to the limit):
     * a file may grow or shrink while it is read. */
    size_t cap = 64 * SB_KIB;
    if (have_st && S_ISREG(st.st_mode) && st.st_size > 0 && (uint64_t)st.st_size < want)
        cap = (size_t)st.st_size + 1;
    if (cap > want) cap = want;
    char *buf = malloc(cap + 1);
    size_t n = 0;
    int rc = SB_OK;
    if (!buf) rc = sb_errf(e, SB_EFAIL, "%s: out of memory", path);
    while (!rc) {
        if (n == cap) {
            if (cap == want) break;
            size_t ncap = cap > want / 2 ? want : cap * 2;
            char *nb = realloc(buf, ncap + 1);
            if (!nb) {
                rc = sb_errf(e, SB_EFAIL, "%s: out of memory reading %zu bytes", path, ncap);
                break;
            }
            buf = nb;
            cap = ncap;
        }
        ssize_t r = read(fd, buf + n, cap - n);
        if (r < 0) {
            if (errno == EINTR) continue;
            rc = sb_errf(e, SB_EUSAGE, "%s: cannot read: %s", path, strerror(errno));
        } else if (r == 0) {
            break;
        } else {
            n += (size_t)r;
        }
    }
    close(fd);
    if (!rc && n > max_bytes) rc = too_large(path, max_bytes, kind, e);
    if (rc) {
        free(buf);
        return rc;
    }
    buf[n] = '\0';
    *data = buf;
    if (len) *len = n;
    return SB_OK;
}

int sb_read_text_max(const char *path, size_t max_bytes, const char *kind, char **data, size_t *len,
                     sb_err *e)
{
    size_t n = 0;
    int rc = sb_read_file_max(path, max_bytes, kind, data, &n, e);
    if (rc) return rc;
    const char *nul = memchr(*data, '\0', n);
    if (nul) {
        size_t at = (size_t)(nul - *data);
        free(*data);
        *data = NULL;
        return sb_errf(e, SB_EUSAGE, "%s: NUL byte at offset %zu: a %s is text", path, at,
                       kind ? kind : "file");
    }
    if (len) *len = n;
    return SB_OK;
}

int sb_read_file(const char *path, char **data, size_t *len, sb_err *e)
{
    return sb_read_file_max(path, SB_READ_DEFAULT_MAX, "file", data, len, e);
}

/* ---------------------------------------------------------------- writing */

/* Follows symlinks by hand (the kernel would, on open, but rename replaces
 * the link itself): o->target becomes the final path, which may not exist
 * yet (a dangling link creates its target, as `>` in a shell does). */
static int resolve_target(sb_out *o, struct stat *st, int *exists, sb_err *e)
{
    if (snprintf(o->target, sizeof o->target, "%s", o->path) >= (int)sizeof o->target)
        return sb_errf(e, SB_EUSAGE, "%s: path too long", o->path);
    for (int hops = 0;; hops++) {
        if (lstat(o->target, st) != 0) {
            if (errno == ENOENT) {
                *exists = 0;
                return SB_OK;
            }
            return sb_errf(e, SB_EUSAGE, "%s: cannot write: %s", o->path, strerror(errno));
        }
        if (!S_ISLNK(st->st_mode)) {
            *exists = 1;
            return SB_OK;
        }
        if (hops == 40) /* the kernel's own limit (ELOOP) */
            return sb_errf(e, SB_EUSAGE, "%s: cannot write: %s", o->path, strerror(ELOOP));
        char link[4096];
        ssize_t n = readlink(o->target, link, sizeof link - 1);
        if (n < 0) return sb_errf(e, SB_EUSAGE, "%s: cannot write: %s", o->path, strerror(errno));
        link[n] = '\0';
        char next[sizeof o->target];
        const char *slash = strrchr(o->target, '/');
        int w;
        if (link[0] == '/' || !slash) /* absolute, or relative to a link in the cwd */
            w = snprintf(next, sizeof next, "%s", link);
        else /* relative to the directory holding the link */
            w = snprintf(next, sizeof next, "%.*s/%s", (int)(slash - o->target), o->target, link);
        if (w >= (int)sizeof next) return sb_errf(e, SB_EUSAGE, "%s: path too long", o->path);
        memcpy(o->target, next, (size_t)w + 1);
    }
}

/* A temp file beside the target, created exclusively (never following a link
 * an attacker planted under the name), with the target's permissions when it
 * replaces one, the umask's otherwise. */
static int open_temp(sb_out *o, const struct stat *old, sb_err *e)
{
    for (int attempt = 0; attempt < 100; attempt++) {
        int w = attempt
            ? snprintf(o->tmp, sizeof o->tmp, "%s.tmp.%ld.%d", o->target, (long)getpid(), attempt)
            : snprintf(o->tmp, sizeof o->tmp, "%s.tmp.%ld", o->target, (long)getpid());
        if (w >= (int)sizeof o->tmp) {
            o->tmp[0] = '\0';
            return sb_errf(e, SB_EUSAGE, "%s: path too long", o->path);
        }
        o->fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (o->fd >= 0) {
            if (old) (void)fchmod(o->fd, old->st_mode & 07777); /* best effort, as cp does */
            return SB_OK;
        }
        if (errno != EEXIST) break;
    }
    int saved = errno;
    o->tmp[0] = '\0';
    return sb_errf(e, SB_EUSAGE, "%s: cannot write: %s", o->path, strerror(saved));
}

int sb_out_open(sb_out *o, const char *path, sb_err *e)
{
    memset(o, 0, sizeof *o);
    o->fd = -1;
    if (snprintf(o->path, sizeof o->path, "%s", path) >= (int)sizeof o->path)
        return sb_errf(e, SB_EUSAGE, "%.200s...: path too long", path);
    struct stat st;
    /* A device, FIFO or socket: replacing it would destroy it (as root, /dev/full
     * became a JSON file). Written where it is, without O_CREAT or O_TRUNC,
     * through the path as given: the kernel follows /dev/stdout's
     * /proc/self/fd links to pipes, which readlink cannot name. */
    int in_place = stat(o->path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
    if (!in_place) {
        int exists = 0;
        int rc = resolve_target(o, &st, &exists, e);
        if (rc) return rc;
        if (!exists || S_ISREG(st.st_mode)) return open_temp(o, exists ? &st : NULL, e);
        if (S_ISDIR(st.st_mode))
            return sb_errf(e, SB_EUSAGE, "%s: cannot write: is a directory", o->path);
        /* (changed since stat: treated as the device it now is) */
    }
    o->in_place = 1;
    /* O_NONBLOCK: a FIFO nobody reads would otherwise hold the open forever;
     * here it fails at once (ENXIO). Writes then block as usual. */
    o->fd = open(o->path, O_WRONLY | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
    if (o->fd < 0 && errno == ENXIO)
        return sb_errf(e, SB_EUSAGE, "%s: cannot write: a FIFO with no reader", o->path);
    if (o->fd < 0) return sb_errf(e, SB_EUSAGE, "%s: cannot write: %s", o->path, strerror(errno));
    int fl = fcntl(o->fd, F_GETFL);
    if (fl != -1) (void)fcntl(o->fd, F_SETFL, fl & ~O_NONBLOCK);
    struct stat now;
    if (fstat(o->fd, &now) != 0 || S_ISREG(now.st_mode)) {
        /* Replaced by a regular file since stat: writing it in place would
         * leave stale bytes past our end; let the caller retry. */
        close(o->fd);
        o->fd = -1;
        return sb_errf(e, SB_EUSAGE, "%s: cannot write: it changed while being opened", o->path);
    }
    return SB_OK;
}

void sb_out_stdout(sb_out *o)
{
    memset(o, 0, sizeof *o);
    fflush(stdout);
    o->fd = STDOUT_FILENO;
    o->in_place = 1;
    o->is_stdout = 1;
    snprintf(o->path, sizeof o->path, "standard output");
    snprintf(o->target, sizeof o->target, "standard output");
}

int sb_out_write(sb_out *o, const void *data, size_t len, sb_err *e)
{
    if (o->failed) return sb_errf(e, SB_EFAIL, "%s: not written: an earlier write failed", o->path);
    if (o->fd < 0) return sb_errf(e, SB_EFAIL, "%s: write failed: the output is not open", o->path);
    const char *p = data;
    while (len > 0) {
        ssize_t w = write(o->fd, p, len);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            o->failed = 1;
            return sb_errf(e, SB_EFAIL, "%s: write failed: %s", o->path,
                           strerror(w < 0 ? errno : EIO));
        }
        p += w;
        len -= (size_t)w;
    }
    return SB_OK;
}

void sb_out_abort(sb_out *o)
{
    if (o->fd >= 0 && !o->is_stdout) close(o->fd);
    o->fd = -1;
    if (o->tmp[0]) unlink(o->tmp);
    o->tmp[0] = '\0';
}

int sb_out_commit(sb_out *o, sb_err *e)
{
    if (o->fd < 0 || o->failed) {
        sb_out_abort(o);
        return sb_errf(e, SB_EFAIL, "%s: not written: an earlier write failed", o->path);
    }
    if (o->is_stdout) {
        o->fd = -1;
        return SB_OK;
    }
    int err = 0;
    /* fsync before rename: after a crash the name holds old or new, never an
     * empty file. Devices and FIFOs cannot sync (EINVAL), which is no error. */
    if (!o->in_place && fsync(o->fd) != 0 && errno != EINVAL) err = errno;
    if (close(o->fd) != 0 && !err) err = errno; /* NFS reports write errors here */
    o->fd = -1;
    if (!err && !o->in_place && rename(o->tmp, o->target) != 0) err = errno;
    if (err) {
        sb_out_abort(o);
        return sb_errf(e, SB_EFAIL, "%s: write failed: %s", o->path, strerror(err));
    }
    o->tmp[0] = '\0';
    return SB_OK;
}

int sb_write_file_atomic(const char *path, const void *data, size_t len, sb_err *e)
{
    sb_out o;
    int rc = sb_out_open(&o, path, e);
    if (!rc) rc = sb_out_write(&o, data, len, e);
    if (!rc) return sb_out_commit(&o, e);
    sb_out_abort(&o);
    return rc;
}

int sb_json_write_atomic(const char *path, const json_t *doc, sb_err *e)
{
    char *s = json_dumps(doc, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
    if (!s) return sb_errf(e, SB_EFAIL, "%s: cannot encode JSON", path);
    size_t n = strlen(s);
    char *buf = realloc(s, n + 2);
    if (!buf) {
        free(s);
        return sb_errf(e, SB_EFAIL, "out of memory");
    }
    buf[n] = '\n';
    int rc = sb_write_file_atomic(path, buf, n + 1, e);
    free(buf);
    return rc;
}
